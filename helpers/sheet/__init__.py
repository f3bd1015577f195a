"""The worksheets of the lessons: one model of cells (values, formulas, inputs), as HTML and as .xlsx.

- :mod:`helpers.sheet.model`: cells, references such as ``"B2"``, blocks;
- :mod:`helpers.sheet.layouts`: the lesson worksheets and the examples A-D;
- :mod:`helpers.sheet.html`: a sheet as HTML for the notebooks and widgets;
- :mod:`helpers.sheet.xlsx`: a sheet as an .xlsx workbook, and reading example C back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from helpers.sheet.layouts import arithmetic_worksheet, example_sheets, mrr_worksheet, ndcg_worksheet
from helpers.sheet.model import Block, Cell, Sheet, column_letter, column_number, frame_to_sheet, split_ref

if TYPE_CHECKING:
    from helpers.sheet.xlsx import read_workbook, save_example_workbook

__all__ = [
    "Block",
    "Cell",
    "Sheet",
    "arithmetic_worksheet",
    "column_letter",
    "column_number",
    "example_sheets",
    "frame_to_sheet",
    "mrr_worksheet",
    "ndcg_worksheet",
    "read_workbook",
    "save_example_workbook",
    "split_ref",
]


def __getattr__(name: str) -> Any:
    """The workbook functions, imported when first asked for: openpyxl is not loaded by a lesson that only shows
    sheets (the classroom view heats a kernel per page, and every import counts)."""
    if name in ("read_workbook", "save_example_workbook"):
        from helpers.sheet import xlsx

        return getattr(xlsx, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
