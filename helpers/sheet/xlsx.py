"""The spreadsheet twin of the worked examples A-D (lessons 01-04): sheets saved as .xlsx, read back.

``save_example_workbook("C", "example_c.xlsx")`` writes the sheets of
:func:`helpers.sheet.layouts.example_sheets` with XlsxWriter: every derived
number is a live formula (``=B2/LOG(A2+1,2)``, ``=LARGE($B$2:$B$8,A2)``,
``=IFERROR(1/B16,0)``, ...) stored together with the value ``helpers.metrics``
computes for it, so a viewer that does not calculate still shows the numbers,
and Excel or LibreOffice recalculate them from the formulas. The yellow cells
are the inputs. Each sheet prints landscape, one page wide, its header row
repeated and each block (a table with its figures) on a page of its own.

``read_workbook("example_c.xlsx")`` reads a learner's edited example-C sheet
back with openpyxl, computes its metrics with ``helpers.metrics`` and lists
every cell whose stored value disagrees.

Command line::

    python -m helpers.sheet C example_c.xlsx [--force] [--gain exponential]
    python -m helpers.sheet --check example_c.xlsx
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import xlsxwriter
from xlsxwriter.exceptions import XlsxWriterException
from xlsxwriter.utility import quote_sheetname, xl_cell_to_rowcol, xl_rowcol_to_cell

from helpers.metrics import GAINS
from helpers.sheet.layouts import (
    C_DCG,
    C_GAIN,
    C_IDCG,
    C_K,
    C_MISSED_ROW,
    C_MRR,
    C_MRR_AT_K,
    C_MRR_HEADER_ROW,
    C_MRR_K,
    C_NDCG,
    C_QUERY_ROWS,
    C_RANK_ROWS,
    C_SHEET,
    CUTOFFS,
    SheetInputs,
    checked_gain,
    example_c_inputs,
    example_sheets,
    expected_c_cells,
    first_rank_cell,
)
from helpers.sheet.model import Cell, InputRule, Sheet, is_number
from helpers.teacher.files import atomic_path

__all__ = [
    "CUTOFFS",
    "CheckedCell",
    "SheetCheck",
    "SheetInputs",
    "example_c_inputs",
    "expected_c_cells",
    "main",
    "read_workbook",
    "save_example_workbook",
    "save_sheets",
    "write_workbook",
]

YELLOW = "#FFFF99"
PAPER_A4 = 9
LINE_HEIGHT = 15  # points: one line of 11-point text, the default row height


# --- writing: the model's cells, formats, names, rules and print setup ------


class _Formats:
    """One XlsxWriter format per look (bold, yellow, number format, wrapping), made once each."""

    def __init__(self, workbook: xlsxwriter.Workbook):
        self.workbook = workbook
        self.made: dict[tuple, object] = {}

    def of(self, cell: Cell):
        look = (
            cell.role in ("header", "label", "title"),
            cell.is_input,
            _number_format(cell),
            cell.role in ("header", "note"),
            cell.role == "header",
        )
        if look not in self.made:
            bold, is_input, number_format, wrap, header = look
            properties: dict[str, object] = {"valign": "top"}
            if bold:
                properties["bold"] = True
            if is_input:
                properties |= {"bg_color": YELLOW, "pattern": 1}
            if number_format:
                properties["num_format"] = number_format
            if wrap:
                properties["text_wrap"] = True
            if header:
                properties["bottom"] = 1
            self.made[look] = self.workbook.add_format(properties)
        return self.made[look]


def _number_format(cell: Cell) -> str | None:
    """The cell's number format: a fixed number of decimals for derived numbers, as typed for inputs."""
    if cell.is_input or not cell.decimals:
        return None  # General: whole numbers show whole, a typed 2.5 shows 2.5
    return "0." + "0" * cell.decimals


def _cached(sheet: Sheet, ref: str, cell: Cell) -> float | int | str:
    """The value stored with a formula: helpers' number or text; a formula without one is refused."""
    value = cell.value
    if isinstance(value, str):
        return value
    if not is_number(value) or not math.isfinite(float(value)):
        raise ValueError(f"sheet {sheet.name!r}: formula cell {ref} has no cached value (got {value!r})")
    number = float(value)
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def _rule_options(rule: InputRule) -> dict[str, object]:
    """An input rule as XlsxWriter data-validation options."""
    options: dict[str, object] = {"error_title": rule.title, "error_message": rule.message}
    if rule.kind == "list":
        return options | {"validate": "list", "source": list(rule.choices), "ignore_blank": False}
    options["validate"] = "integer" if rule.kind == "whole" else "decimal"
    if rule.maximum is None:
        return options | {"criteria": ">=", "value": rule.minimum}
    return options | {"criteria": "between", "minimum": rule.minimum, "maximum": rule.maximum}


def _write_sheet(workbook: xlsxwriter.Workbook, sheet: Sheet, formats: _Formats) -> None:
    """One model sheet as a worksheet: cells, column widths, input rules, names and print setup."""
    worksheet = workbook.add_worksheet(sheet.name or None)
    for (row, column), cell in sorted(sheet.cells.items()):
        at, look = (row - 1, column - 1), formats.of(cell)
        if cell.formula:
            ref = xl_rowcol_to_cell(*at)
            worksheet.write_formula(*at, cell.formula, look, _cached(sheet, ref, cell))
        elif cell.value is None:
            worksheet.write_blank(*at, None, look)
        elif is_number(cell.value):
            worksheet.write_number(*at, float(cell.value), look)
        else:
            worksheet.write_string(*at, str(cell.value), look)
    widths = sheet.column_widths()
    for column, width in widths.items():
        worksheet.set_column(column - 1, column - 1, width)
    for row, lines in sheet.row_lines(widths).items():
        worksheet.set_row(row - 1, LINE_HEIGHT * lines)  # spreadsheets do not grow a row for wrapped text
    for cells, rule in sheet.rules.items():
        worksheet.data_validation(cells, _rule_options(rule))
    for name, ref in sheet.names.items():
        absolute = xl_rowcol_to_cell(*xl_cell_to_rowcol(ref), row_abs=True, col_abs=True)
        workbook.define_name(name, f"={quote_sheetname(worksheet.name)}!{absolute}")
    _print_setup(worksheet, sheet)


def _print_setup(worksheet, sheet: Sheet) -> None:
    """Landscape A4, one page wide, header rows repeated, a page break before each block."""
    worksheet.set_landscape()
    worksheet.set_paper(PAPER_A4)
    worksheet.fit_to_pages(1, 0)  # one page wide, as many pages tall as the blocks need
    worksheet.set_margins(left=0.5, right=0.5, top=0.75, bottom=0.75)
    worksheet.set_header("&L&A&RPage &P of &N")
    titles = sheet.print_title_rows()
    if titles:
        worksheet.repeat_rows(min(titles) - 1, max(titles) - 1)
    blocks = sheet.print_blocks()
    worksheet.set_h_pagebreaks([block.first_row - 1 for block in blocks[1:]])
    worksheet.print_area(0, 0, max(sheet.n_rows, 1) - 1, max(sheet.n_columns, 1) - 1)
    if sheet.formula_cells():  # a worksheet: print the grid, the letters and the row numbers its formulas use
        worksheet.hide_gridlines(0)
        worksheet.print_row_col_headers()


def save_sheets(sheets: Sequence[Sheet], path) -> Path:
    """Write model sheets as one .xlsx workbook, each formula stored with helpers' value (lessons 01-04).

    XlsxWriter writes the file only on close(): a sheet refused halfway leaves no file behind.
    """
    path = Path(path)
    workbook = xlsxwriter.Workbook(str(path))
    formats = _Formats(workbook)
    for sheet in sheets:
        _write_sheet(workbook, sheet, formats)
    try:
        workbook.close()
    except XlsxWriterException as error:
        raise OSError(f"{path}: could not write the workbook ({error})") from None
    return path


def _check_target(path, force: bool) -> Path:
    """The output path, after refusing a non-.xlsx name, a missing folder or an existing file."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a file name such as 'example_c.xlsx', got {type(path).__name__}")
    if not isinstance(force, bool):
        raise TypeError(f"force must be True or False, got {force!r}")
    target = Path(path)
    if target.suffix.lower() != ".xlsx":
        raise ValueError(f"{target}: the workbook name must end in .xlsx")
    if not target.parent.is_dir():
        raise FileNotFoundError(f"{target}: the folder {target.parent} does not exist; create it first")
    if target.is_dir():
        raise IsADirectoryError(f"{target} is a folder; give a file name ending in .xlsx")
    if target.exists() and not force:
        raise FileExistsError(f"{target} already exists; pass force=True (or --force) to replace it")
    return target


def write_workbook(example, path, *, force: bool = False, gain: str = "linear") -> Path:
    """Write example A, B, C or D as a workbook of live formulas with helpers' values stored (lessons 01-04).

    ``example`` is a name ("C") or a loaded Example; ``gain`` sets the Gain switch
    of the graded examples B and C. An existing file is replaced only with
    ``force=True``. Returns the path written.
    """
    target = _check_target(path, force)
    sheets = example_sheets(example, gain)
    with atomic_path(target) as temporary:  # then renamed: never half a file
        save_sheets(sheets, temporary)
    return target


def save_example_workbook(name: str, path=None, *, force: bool = False, gain: str = "linear") -> Path:
    """Save a worked example as a spreadsheet and return its path; the notebooks' call (lessons 01-04).

    ``save_example_workbook("C", "example_c.xlsx")``; without a path the file is
    ``example_<letter>.xlsx`` in the current folder.
    Returns the path written.
    """
    if not isinstance(name, str):
        raise TypeError(f"the example name must be a string such as 'C', got {name!r}")
    if path is None:
        path = f"example_{name.lower().removeprefix('example_')}.xlsx"
    return write_workbook(name, path, force=force, gain=gain)


# --- reading a learner's example-C workbook back ----------------------------


@dataclass(frozen=True)
class CheckedCell:
    """One derived cell of the example-C sheet: its stored value next to helpers' value (lesson 03)."""

    ref: str
    label: str
    sheet: object
    helpers: float | str

    @property
    def agrees(self) -> bool:
        """Text must match exactly, numbers to 1e-9."""
        if isinstance(self.helpers, str):
            return self.sheet == self.helpers
        if isinstance(self.sheet, bool) or not isinstance(self.sheet, int | float):
            return False
        return math.isclose(self.sheet, self.helpers, rel_tol=1e-9, abs_tol=1e-9)


@dataclass(frozen=True)
class SheetCheck:
    """What read_workbook found: the inputs, helpers' metrics, and the cells compared (lesson 03)."""

    path: Path
    inputs: SheetInputs
    metrics: dict[str, float | str]
    compared: tuple[CheckedCell, ...]

    @property
    def disagreements(self) -> tuple[CheckedCell, ...]:
        """The compared cells whose stored value differs from helpers' value."""
        return tuple(cell for cell in self.compared if not cell.agrees)

    @property
    def ok(self) -> bool:
        """True when no stored value disagrees with helpers (also when nothing was stored)."""
        return not self.disagreements

    def report(self) -> str:
        """The check as a few lines of text, as the --check command prints it."""
        inputs = self.inputs
        grades = ", ".join(_show(grade) for grade in inputs.grades)
        missed = ", ".join(_show(grade) for grade in inputs.missed) or "none"
        ranks = ", ".join(str(first_rank_cell(rank)) for rank in inputs.first_ranks)
        lines = [
            f"{self.path}: grades {grades}, missed {missed}, k = {inputs.k}, {inputs.gain} gain; "
            f"first relevant ranks {ranks}, MRR cut-off {inputs.mrr_k}",
            "helpers.metrics computes:",
            *(f"  {name:<8} {_show(value, 4)}" for name, value in self.metrics.items()),
        ]
        if not self.compared:
            lines.append("no stored results to compare: the file was saved by a program that does not "
                         "calculate; open and save it in Excel or LibreOffice first")
        elif self.ok:
            lines.append(f"stored results: all {len(self.compared)} cells agree with helpers")
        else:
            lines.append(f"stored results: {len(self.disagreements)} of {len(self.compared)} cells disagree:")
            lines += [f"  {cell.ref} ({cell.label}): the sheet has {_show(cell.sheet, 6)}, "
                      f"helpers give {_show(cell.helpers, 6)}" for cell in self.disagreements]
        return "\n".join(lines)


def _show(value, decimals: int = 3) -> str:
    if isinstance(value, float):
        return f"{value:.{decimals}f}" if not value.is_integer() else f"{value:g}"
    return repr(value) if isinstance(value, str) else str(value)


def read_workbook(path) -> SheetCheck:
    """Read an edited example-C workbook: helpers' metrics for it, which stored results differ (lesson 03).

    Inputs: grades in B2:B8 (B8 = the missed document, may be empty), Gain in
    B9, k in B10, first relevant ranks in B16:B20 (a number, or none), MRR
    cut-off in B22. Stored results (cached values of the learner's formulas)
    are compared cell by cell; cells without a stored value are skipped.
    """
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a file name such as 'example_c.xlsx', got {type(path).__name__}")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    from openpyxl import load_workbook  # here, not at the top: saving a workbook (lessons 01-04) never reads one
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        formulas = load_workbook(path)
        stored = load_workbook(path, data_only=True)
    except (InvalidFileException, zipfile.BadZipFile, KeyError, OSError) as error:
        raise ValueError(f"{path} is not a readable .xlsx workbook ({error})") from None
    sheet = _example_c_sheet(formulas, path)
    inputs = _read_inputs(sheet)
    cells = expected_c_cells(inputs)
    stored_sheet = stored[sheet.title]
    compared = tuple(
        CheckedCell(ref, label, stored_sheet[ref].value, value)
        for ref, (label, value) in cells.items()
        if stored_sheet[ref].value is not None
    )
    metrics = {
        f"DCG@{inputs.k}": cells[C_DCG][1],
        f"IDCG@{inputs.k}": cells[C_IDCG][1],
        f"nDCG@{inputs.k}": cells[C_NDCG][1],
        "MRR": cells[C_MRR][1],
        f"MRR@{inputs.mrr_k}": cells[C_MRR_AT_K][1],
    }
    return SheetCheck(path=path, inputs=inputs, metrics=metrics, compared=compared)


def _example_c_sheet(workbook, path: Path):
    """The example-C sheet: by its name, else the first sheet if it has example C's headers."""
    sheet = workbook[C_SHEET] if C_SHEET in workbook.sheetnames else workbook.worksheets[0]
    if sheet["A1"].value != "Rank" or sheet[f"A{C_MRR_HEADER_ROW}"].value != "Query":
        raise ValueError(
            f"{path}: not an example-C workbook (expected 'Rank' in A1 and 'Query' in A{C_MRR_HEADER_ROW} "
            f"of sheet {C_SHEET!r}); write one with python -m helpers.sheet C FILE.xlsx"
        )
    return sheet


def _read_inputs(sheet) -> SheetInputs:
    """The yellow input cells of the example-C sheet, each checked with a message naming the cell."""
    grades = tuple(_grade(sheet, f"B{row}") for row in C_RANK_ROWS)
    missed_value = sheet[f"B{C_MISSED_ROW}"].value
    missed = () if missed_value in (None, "") else (_grade(sheet, f"B{C_MISSED_ROW}"),)
    gain_value = sheet[C_GAIN].value
    typed = "linear" if gain_value in (None, "") else str(gain_value).strip().lower()
    if typed not in GAINS:
        raise ValueError(f"cell {C_GAIN} (Gain) must be linear or exponential, got {gain_value!r}")
    gain = checked_gain(typed)
    k = _whole(sheet, C_K, "the cut-off k", highest=len(C_RANK_ROWS))
    queries = tuple(str(sheet[f"A{row}"].value or f"row {row}") for row in C_QUERY_ROWS)
    first_ranks = tuple(_first_rank(sheet, f"B{row}") for row in C_QUERY_ROWS)
    mrr_k = _whole(sheet, C_MRR_K, "the MRR cut-off k")
    return SheetInputs(
        grades=grades, missed=missed, gain=gain, k=k, queries=queries, first_ranks=first_ranks, mrr_k=mrr_k
    )


def _grade(sheet, ref: str) -> float:
    value = sheet[ref].value
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise ValueError(f"cell {ref}: a grade must be a number >= 0 (0 = not relevant), got {value!r}")
    return float(value)


def _whole(sheet, ref: str, what: str, highest: int | None = None) -> int:
    value = sheet[ref].value
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or (highest and value > highest):
        limit = f"from 1 to {highest}" if highest else ">= 1"
        raise ValueError(f"cell {ref}: {what} must be a whole number {limit}, got {value!r}")
    return value


def _first_rank(sheet, ref: str) -> int:
    value = sheet[ref].value
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
        return 0
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"cell {ref}: a first relevant rank is a whole number >= 1 or none, got {value!r}")
    return value


# --- command line ----------------------------------------------------------


class _OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def main(argv: list[str] | None = None) -> int:
    """``python -m helpers.sheet EXAMPLE OUT.xlsx [--force]`` or ``--check FILE.xlsx`` (lessons 01-04).

    Exit status: 0 done (or every stored result agrees), 1 some stored result
    disagrees with helpers, 2 an error, reported in one line.
    """
    parser = _OneLineParser(
        prog="python -m helpers.sheet",
        description="Write a worked example as a spreadsheet of live formulas, or check an edited example C.",
        epilog="Exit status: 0 done, 1 a stored result of --check disagrees with helpers, 2 an error.",
    )
    parser.add_argument("example", nargs="?", metavar="EXAMPLE", help="A, B, C or D")
    parser.add_argument("out", nargs="?", metavar="OUT.xlsx", help="the workbook to write")
    parser.add_argument("--force", action="store_true", help="replace the file if it exists")
    parser.add_argument("--gain", choices=GAINS, default="linear", help="initial Gain switch (B and C)")
    parser.add_argument("--check", metavar="FILE.xlsx", help="read an edited example-C workbook back")
    args = parser.parse_args(argv)
    if args.check and (args.example or args.out):
        parser.error("--check takes one workbook and no EXAMPLE or OUT")
    if not args.check and not (args.example and args.out):
        parser.error("give EXAMPLE and OUT.xlsx, e.g. C example_c.xlsx, or --check FILE.xlsx")
    try:
        if args.check:
            check = read_workbook(args.check)
            print(check.report())
            return 0 if check.ok else 1
        written = write_workbook(args.example, args.out, force=args.force, gain=args.gain)
    except (ValueError, TypeError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {written}")
    return 0


if __name__ == "__main__":  # python -m helpers.sheet.xlsx (python -m helpers.sheet runs main too)
    sys.exit(main())
