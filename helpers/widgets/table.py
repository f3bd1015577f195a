"""The arithmetic table of one query laid out as a small spreadsheet, for the widgets (lessons 02, 05)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from helpers.sheet.layouts import arithmetic_worksheet


def table_records(table: pd.DataFrame) -> list[dict]:
    """The rows of a table as plain dicts of Python values (what ``to_dict("records")`` gives, faster)."""
    columns = list(table.columns)
    return [dict(zip(columns, values, strict=True)) for values in table.to_numpy(dtype=object).tolist()]


def table_sheet_html(
    rows: Sequence[dict], gain: str, ideal_range: str | None, title: str, formulas_on: bool
) -> str:
    """The rows of an arithmetic table laid out as a spreadsheet (columns A..J), as HTML.

    ``rows`` are the records of :func:`helpers.metrics.arithmetic_table`;
    ``ideal_range`` is the cell range whose LARGE values are the ideal grades
    (None when the ideal holds judged documents that are not rows of the sheet).
    The layout is :func:`helpers.sheet.layouts.arithmetic_worksheet`, the one lesson 02 shows.
    """
    sheet = arithmetic_worksheet(rows, gain, ideal_range=ideal_range, title=title, show_formulas=formulas_on)
    return sheet.to_html()
