"""The old home of the sheet view: its names now live in :mod:`helpers.sheet` (model and layouts)."""

from helpers.sheet.html import INPUT_COLOUR
from helpers.sheet.layouts import mrr_worksheet, ndcg_worksheet
from helpers.sheet.model import CELL_REF, Cell, Sheet, column_letter, column_number, frame_to_sheet, split_ref

__all__ = [
    "CELL_REF",
    "INPUT_COLOUR",
    "Cell",
    "Sheet",
    "column_letter",
    "column_number",
    "frame_to_sheet",
    "mrr_worksheet",
    "ndcg_worksheet",
    "split_ref",
]
