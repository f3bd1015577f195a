"""The worksheets of the lessons: one model of cells (values, formulas, inputs), as HTML and as .xlsx.

- :mod:`helpers.sheet.model`: cells, references such as ``"B2"``, blocks;
- :mod:`helpers.sheet.layouts`: the lesson worksheets and the examples A-D;
- :mod:`helpers.sheet.html`: a sheet as HTML for the notebooks and widgets;
- :mod:`helpers.sheet.xlsx`: a sheet as an .xlsx workbook, and reading example C back.
"""

from helpers.sheet.layouts import arithmetic_worksheet, example_sheets, mrr_worksheet, ndcg_worksheet
from helpers.sheet.model import Block, Cell, Sheet, column_letter, column_number, frame_to_sheet, split_ref
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
