"""The arithmetic table of one query laid out as a small spreadsheet, for the widgets."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from helpers.sheet.view import frame_to_sheet

# --- the arithmetic table of one query as a small sheet ---------------------

TABLE_COLUMNS = {
    "rank": "rank",
    "id": "id",
    "grade": "grade",
    "gain": "gain",
    "discount": "log2(rank+1)",
    "discounted_gain": "discounted gain",
    "ideal_grade": "ideal grade",
    "ideal_gain": "ideal gain",
    "ideal_discounted_gain": "ideal DG",
    "in_top_k": "in top K",
}
WHOLE_COLUMNS = ("grade", "gain", "ideal_grade", "ideal_gain")


def table_records(table: pd.DataFrame) -> list[dict]:
    """The rows of a table as plain dicts of Python values (what ``to_dict("records")`` gives, faster)."""
    columns = list(table.columns)
    return [dict(zip(columns, values, strict=True)) for values in table.to_numpy(dtype=object).tolist()]


def whole(value: float):
    """A whole number as an int (2.0 -> 2), anything else unchanged."""
    return int(value) if float(value).is_integer() else value


def table_sheet_html(rows: Sequence[dict], gain: str, ideal_range: str | None, title: str, formulas_on: bool):
    """The rows of an arithmetic table laid out as a spreadsheet (columns A..J), as HTML.

    ``rows`` are the records of :func:`helpers.metrics.arithmetic_table`;
    ``ideal_range`` is the cell range whose LARGE values are the ideal grades
    (None when the ideal holds judged documents that are not rows of the sheet).
    """
    frame = pd.DataFrame(
        [
            {
                TABLE_COLUMNS[name]: whole(row[name]) if name in WHOLE_COLUMNS else row[name]
                for name in TABLE_COLUMNS
            }
            | {"in top K": "yes" if row["in_top_k"] else "no"}
            for row in rows
        ],
        columns=list(TABLE_COLUMNS.values()),
    )
    power = "2^{cell}-1" if gain == "exponential" else "{cell}"
    formulas = {
        "gain": "=" + power.format(cell="C{row}"),
        "log2(rank+1)": "=LOG(A{row}+1,2)",
        "discounted gain": "=D{row}/E{row}",
        "ideal gain": "=" + power.format(cell="G{row}"),
        "ideal DG": "=H{row}/E{row}",
    }
    if ideal_range:
        formulas["ideal grade"] = f"=LARGE({ideal_range},A{{row}})"
    sheet = frame_to_sheet(
        frame, formulas=formulas, input_columns=("grade",), title=title, show_formulas=formulas_on
    )
    return sheet.to_html()


