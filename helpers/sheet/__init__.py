"""The worksheet of the lessons: cells with values, formulas and inputs, shown as HTML and saved as .xlsx."""

from helpers.sheet.view import (
    Cell,
    Sheet,
    column_letter,
    column_number,
    frame_to_sheet,
    mrr_worksheet,
    ndcg_worksheet,
    split_ref,
)
from helpers.sheet.xlsx import save_example_workbook

__all__ = [
    "Cell",
    "Sheet",
    "column_letter",
    "column_number",
    "frame_to_sheet",
    "mrr_worksheet",
    "ndcg_worksheet",
    "save_example_workbook",
    "split_ref",
]
