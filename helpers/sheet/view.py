"""Spreadsheet-style views: a table shown with column letters, row numbers and formulas.

A :class:`Sheet` holds cells addressed like a spreadsheet (``"B2"``). Each cell
has the value the helpers computed and, for derived cells, the spreadsheet
formula that computes it, so a learner can read ``=B2/LOG(A2+1,2)`` next to
``2.000``. Input cells (grades, k) are highlighted, like the yellow cells of
the source's worksheet.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from numbers import Real

import pandas as pd

from helpers import metrics

INPUT_COLOUR = "#fff3b0"
CELL_REF = re.compile(r"^([A-Z]+)([1-9][0-9]*)$")


def column_letter(number: int) -> str:
    """Spreadsheet letters of a 1-based column number: 1 -> A, 27 -> AA (lesson 03)."""
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValueError(f"a column number must be a whole number >= 1, got {number!r}")
    letters = ""
    while number:
        number, remainder = divmod(number - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


def column_number(letters: str) -> int:
    """1-based column number of spreadsheet letters: A -> 1, AA -> 27."""
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - ord("A") + 1
    return number


def split_ref(ref: str) -> tuple[int, int]:
    """(row, column) numbers of a cell reference such as 'B10'."""
    match = CELL_REF.match(ref) if isinstance(ref, str) else None
    if not match:
        raise ValueError(f"{ref!r} is not a cell reference such as 'B2'")
    return int(match.group(2)), column_number(match.group(1))


@dataclass
class Cell:
    """One cell: its value, the formula that computes it (None for typed cells), and whether it is input."""

    value: object
    formula: str | None = None
    is_input: bool = False
    decimals: int | None = None

    def shown(self) -> str:
        """The value as the sheet displays it."""
        if isinstance(self.value, Real) and not isinstance(self.value, bool) and self.decimals is not None:
            return f"{float(self.value):.{self.decimals}f}"
        return "" if self.value is None else str(self.value)


class Sheet:
    """A small worksheet of cells with values, formulas and highlighted inputs (lesson 03).

    >>> sheet = Sheet()
    >>> sheet.set("A1", "Rank"); sheet.set("A2", 1, is_input=True)
    >>> sheet.value("A2"), sheet.n_rows, sheet.n_columns
    (1, 2, 1)
    """

    def __init__(self, title: str = "", show_formulas: bool = False):
        self.title = title
        self.show_formulas = show_formulas
        self.cells: dict[tuple[int, int], Cell] = {}

    def set(self, ref: str, value, formula: str | None = None, is_input: bool = False, decimals=None) -> None:
        """Put a value (and optionally the formula behind it) in a cell."""
        if formula is not None and not formula.startswith("="):
            raise ValueError(f"a formula must start with '=', got {formula!r} for {ref}")
        self.cells[split_ref(ref)] = Cell(value, formula, is_input, decimals)

    def cell(self, ref: str) -> Cell:
        """The cell at a reference; an empty cell if nothing was put there."""
        return self.cells.get(split_ref(ref), Cell(None))

    def value(self, ref: str):
        """The value of a cell."""
        return self.cell(ref).value

    def formula(self, ref: str) -> str | None:
        """The formula of a cell (None for typed or empty cells)."""
        return self.cell(ref).formula

    @property
    def n_rows(self) -> int:
        return max((row for row, _ in self.cells), default=0)

    @property
    def n_columns(self) -> int:
        return max((column for _, column in self.cells), default=0)

    def input_refs(self) -> list[str]:
        """References of the highlighted input cells, row by row."""
        return [f"{column_letter(c)}{r}" for (r, c), cell in sorted(self.cells.items()) if cell.is_input]

    def to_frame(self) -> pd.DataFrame:
        """The displayed values as a DataFrame indexed by row number with letter columns."""
        letters = [column_letter(c) for c in range(1, self.n_columns + 1)]
        rows = range(1, self.n_rows + 1)
        grid = [
            [self.cells.get((r, c), Cell(None)).value for c in range(1, self.n_columns + 1)] for r in rows
        ]
        return pd.DataFrame(grid, index=pd.Index(rows, name="row"), columns=letters)

    def formulas(self) -> pd.DataFrame:
        """Every formula cell as a table: cell, formula, value (lesson 03)."""
        rows = [
            {"cell": f"{column_letter(c)}{r}", "formula": cell.formula, "value": cell.value}
            for (r, c), cell in sorted(self.cells.items())
            if cell.formula
        ]
        return pd.DataFrame(rows, columns=["cell", "formula", "value"])

    def _repr_html_(self) -> str:
        return self.to_html()

    def to_html(self) -> str:
        """The sheet as an HTML table with column letters, row numbers and highlighted inputs."""
        head = "".join(f"<th>{column_letter(c)}</th>" for c in range(1, self.n_columns + 1))
        body = []
        for row in range(1, self.n_rows + 1):
            cells = "".join(self._cell_html(row, c) for c in range(1, self.n_columns + 1))
            body.append(f"<tr><th class='row-number'>{row}</th>{cells}</tr>")
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        style = (
            "<style>.sheet-view td,.sheet-view th{border:1px solid #ccc;padding:2px 8px;"
            "font-family:monospace}.sheet-view th{background:#eee;text-align:center}"
            ".sheet-view .formula{color:#666;font-size:85%}.sheet-view .input{background:"
            f"{INPUT_COLOUR}}}</style>"
        )
        return (
            f"{style}<table class='sheet-view'>{caption}<thead><tr><th></th>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>"
        )

    def _cell_html(self, row: int, column: int) -> str:
        cell = self.cells.get((row, column), Cell(None))
        text = html.escape(cell.shown())
        if cell.formula and self.show_formulas:
            text += f"<div class='formula'>{html.escape(cell.formula)}</div>"
        css = " class='input'" if cell.is_input else ""
        title = f" title='{html.escape(cell.formula)}'" if cell.formula else ""
        align = " style='text-align:right'" if isinstance(cell.value, Real) else ""
        return f"<td{css}{title}{align}>{text}</td>"


def frame_to_sheet(
    frame: pd.DataFrame,
    formulas: dict[str, str] | None = None,
    input_columns=(),
    decimals: int = 3,
    title: str = "",
    show_formulas: bool = False,
) -> Sheet:
    """Lay a DataFrame out as a sheet: header in row 1, data from row 2 (lesson 03).

    ``formulas`` maps a column name to a formula template in which ``{row}`` is
    the sheet row, e.g. ``{"discounted gain": "=B{row}/LOG(A{row}+1,2)"}``;
    ``input_columns`` are highlighted as inputs.
    """
    formulas = formulas or {}
    unknown = (set(formulas) | set(input_columns)) - set(frame.columns)
    if unknown:
        raise ValueError(f"no column named {', '.join(map(repr, sorted(unknown)))} in the table")
    sheet = Sheet(title, show_formulas)
    for number, name in enumerate(frame.columns, start=1):
        letter = column_letter(number)
        sheet.set(f"{letter}1", str(name))
        for row, value in enumerate(frame[name].tolist(), start=2):
            template = formulas.get(name)
            sheet.set(
                f"{letter}{row}",
                value,
                formula=template.format(row=row) if template else None,
                is_input=name in input_columns,
                decimals=decimals if isinstance(value, float) else None,
            )
    return sheet


# --- the worksheet of worked example C (lesson 03) -------------------------

GAIN_FORMULA = {"linear": "B{row}", "exponential": "(2^B{row}-1)"}
IDEAL_GAIN_FORMULA = {"linear": "D{row}", "exponential": "(2^D{row}-1)"}


def ndcg_worksheet(grades, missed=(), k: int = 5, gain: str = "linear", show_formulas: bool = False) -> Sheet:
    """The nDCG worksheet of example C: rows of results, missed documents, k, DCG@k, IDCG@k, NDCG@k.

    Row 1 holds the headers; the returned results fill the next rows (grades are
    input cells; when k reaches past the returned list, rank rows with no result
    carry the rest of the ideal), the judged documents the search missed follow
    with the label "missed", then the cut-off k, DCG@k, IDCG@k and NDCG@k one row each after a
    blank row. Values come from :mod:`helpers.metrics`; the formulas say how a
    spreadsheet would compute them.
    """
    grades, missed = metrics.check_grades(grades), metrics.check_grades(missed, name="missed")
    k = metrics.check_k(k, allow_none=False)
    metrics.check_choice(gain, metrics.GAINS, "gain")
    if not grades:
        raise ValueError("grades is empty: the worksheet needs at least one returned result")
    # one row per returned result; when k reaches past them and the ideal still has
    # judged documents there, rank rows with no result follow so IDCG@k sees them
    table = metrics.arithmetic_table(grades, k=k, ideal=grades + missed, gain=gain)
    sheet = Sheet("nDCG worksheet", show_formulas)
    for letter, header in zip(
        "ABCDE", ["Rank", "Relevance (0–3)", "Discounted gain", "Ideal relevance", "Ideal DG"], strict=True
    ):
        sheet.set(f"{letter}1", header)
    final = len(table) + 1
    last = final + len(missed)
    for row, line in enumerate(table.itertuples(), start=2):
        sheet.set(f"A{row}", line.rank)
        if line.rank <= len(grades):
            sheet.set(f"B{row}", _number(line.grade), is_input=True)
            gain_formula = f"={GAIN_FORMULA[gain].format(row=row)}/LOG(A{row}+1,2)"
            sheet.set(f"C{row}", line.discounted_gain, gain_formula, decimals=3)
        sheet.set(f"D{row}", _number(line.ideal_grade), f"=LARGE($B$2:$B${last},A{row})")
        ideal_formula = f"={IDEAL_GAIN_FORMULA[gain].format(row=row)}/LOG(A{row}+1,2)"
        sheet.set(f"E{row}", line.ideal_discounted_gain, ideal_formula, decimals=3)
    for row, grade in enumerate(missed, start=final + 1):
        sheet.set(f"A{row}", "missed")
        sheet.set(f"B{row}", _number(grade), is_input=True)
    k_row = last + 2
    first = 2
    sheet.set(f"A{k_row}", "Cut-off k")
    sheet.set(f"B{k_row}", k, is_input=True)
    dcg_value = metrics.dcg(grades, k, gain)
    idcg_value = metrics.ideal_dcg(grades + missed, k, gain)
    in_cut = f"(A{first}:A{final}<=B{k_row})"
    sheet.set(f"A{k_row + 1}", "DCG@k")
    sheet.set(f"B{k_row + 1}", dcg_value, f"=SUMPRODUCT({in_cut}*C{first}:C{final})", decimals=3)
    sheet.set(f"A{k_row + 2}", "IDCG@k")
    sheet.set(f"B{k_row + 2}", idcg_value, f"=SUMPRODUCT({in_cut}*E{first}:E{final})", decimals=3)
    sheet.set(f"A{k_row + 3}", "NDCG@k")
    ndcg_value = dcg_value / idcg_value if idcg_value else "undefined"
    ndcg_formula = f'=IF(B{k_row + 2}=0,"undefined",B{k_row + 1}/B{k_row + 2})'
    sheet.set(f"B{k_row + 3}", ndcg_value, ndcg_formula, decimals=3)
    return sheet


def mrr_worksheet(
    labels, first_ranks, k: int | None = None, start_row: int = 1, sheet: Sheet | None = None
) -> Sheet:
    """The MRR block of example C: query, first relevant rank ('none' for a miss), reciprocal rank, MRR.

    With ``k`` a cut-off row and an MRR@k row follow. ``start_row`` and ``sheet``
    place the block below another one (row 15 in the source's worksheet).
    """
    first_ranks = metrics.check_first_ranks(first_ranks)
    labels = list(labels)
    if len(labels) != len(first_ranks):
        raise ValueError(
            f"labels and first_ranks must have the same length: {len(labels)} vs {len(first_ranks)}"
        )
    sheet = sheet if sheet is not None else Sheet("MRR worksheet")
    for letter, header in zip("ABC", ["Query", "First relevant rank", "Reciprocal rank"], strict=True):
        sheet.set(f"{letter}{start_row}", header)
    first, last = start_row + 1, start_row + len(first_ranks)
    for row, (label, rank) in enumerate(zip(labels, first_ranks, strict=True), start=first):
        sheet.set(f"A{row}", label)
        sheet.set(f"B{row}", rank if rank else "none", is_input=True)
        sheet.set(f"C{row}", metrics.reciprocal_rank_of(rank), f"=IFERROR(1/B{row},0)", decimals=3)
    sheet.set(f"A{last + 1}", "MRR")
    sheet.set(
        f"C{last + 1}", metrics.mean_reciprocal_rank(first_ranks), f"=AVERAGE(C{first}:C{last})", decimals=3
    )
    if k is not None:
        k = metrics.check_k(k)
        sheet.set(f"A{last + 2}", "Cut-off k")
        sheet.set(f"B{last + 2}", k, is_input=True)
        sheet.set(f"A{last + 3}", "MRR@k")
        ranks, reciprocal = f"B{first}:B{last}", f"C{first}:C{last}"
        formula = f"=SUMPRODUCT(ISNUMBER({ranks})*({ranks}<=B{last + 2})*{reciprocal})/{len(first_ranks)}"
        sheet.set(f"C{last + 3}", metrics.mean_reciprocal_rank(first_ranks, k), formula, decimals=3)
    return sheet


def _number(value: float):
    """Show whole grades as ints (2, not 2.0) the way a learner types them."""
    return int(value) if float(value).is_integer() else value
