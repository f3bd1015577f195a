"""One worksheet model for the lessons, the widgets and the .xlsx twin (lessons 01-05).

A :class:`Sheet` holds cells addressed like a spreadsheet (``"B2"``). Each cell
has the value the helpers computed and, for derived cells, the spreadsheet
formula that computes it, so a learner can read ``=B2/LOG(A2+1,2)`` next to
``2.000``. Input cells (grades, k) are the yellow cells of the worksheet
(the golden sets of ``data/``). Rows are grouped in blocks (a table and the figures under it): the
printed sheet starts each block on a new page. :mod:`helpers.sheet.html` shows
a sheet in a notebook and :mod:`helpers.sheet.xlsx` saves it as a workbook.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Literal, TypeGuard

import pandas as pd

from helpers.sheet.html import cell_html, sheet_html

CELL_REF = re.compile(r"^([A-Z]+)([1-9][0-9]*)$")
Role = Literal["header", "label", "note", "title"]
ROLES: tuple[Role, ...] = ("header", "label", "note", "title")
MOST_DECIMALS = 3
WRAPPED: tuple[Role, ...] = ("header", "note")
PADDING = 2  # characters of room around a cell's text
NOTE_WIDTH = 44  # a note wraps at this many characters


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


def cell_ref(row: int, column: int) -> str:
    """The reference of a (row, column) pair: (10, 2) -> 'B10'."""
    return f"{column_letter(column)}{row}"


def is_number(value: object) -> TypeGuard[Real]:
    """True for a real number that a sheet shows right-aligned (not a bool)."""
    return isinstance(value, Real) and not isinstance(value, bool)


def whole(value):
    """A whole number as an int (2.0 -> 2), anything else unchanged: grades as a learner types them."""
    if is_number(value) and math.isfinite(float(value)) and float(value).is_integer():
        return int(value)
    return value


def uniform_decimals(values: Iterable[object], most: int = MOST_DECIMALS) -> int:
    """One precision for a column: 0 when every number is whole, else ``most`` (lessons 02, 03).

    >>> uniform_decimals([2, 0, 3.0]), uniform_decimals([2, 1.5])
    (0, 3)
    """
    numbers = [float(value) for value in values if is_number(value)]
    return 0 if all(number.is_integer() for number in numbers) else most


@dataclass
class Cell:
    """One cell: its value, the formula that computes it (None for typed cells), and whether it is input.

    ``decimals`` is the number format (None: as typed); ``role`` says how a
    text cell is shown: header (bold column title), label (row label), note
    (long text that wraps) or title.
    """

    value: object
    formula: str | None = None
    is_input: bool = False
    decimals: int | None = None
    role: Role | None = None

    def shown(self) -> str:
        """The value as the sheet displays it."""
        if is_number(self.value):
            number = float(self.value)
            if self.decimals is not None:
                return f"{number:.{self.decimals}f}"
            return str(int(number)) if number.is_integer() else str(self.value)
        return "" if self.value is None else str(self.value)

    @property
    def is_number(self) -> bool:
        """True when the value is a number (shown right-aligned)."""
        return is_number(self.value)

    def to_html(self, show_formulas: bool) -> str:
        """The cell as a <td>: right-aligned if a number, yellow if input, its formula under it when asked."""
        classes = ["number" if self.is_number else "text", *([self.role] if self.role else [])]
        if self.is_input:
            classes.append("input")
        return cell_html(self.shown(), self.formula, classes, show_formulas)


def _weight(cell: Cell) -> float:
    """Room per character, in widths of the digit 0: bold text takes 10% more, prose 10% less."""
    if cell.role in ("header", "label", "title"):
        return 1.1
    return 0.9 if cell.role == "note" else 1.0


def _characters_needed(cell: Cell) -> float:
    """The width a cell's text needs: a long header on its best two lines, a note wrapped at 40."""
    text = cell.shown()
    words = text.split()
    if cell.role == "note":
        return min(len(text), NOTE_WIDTH) * _weight(cell)
    if cell.role == "header" and len(text) > 12 and len(words) > 1:
        halves = (max(len(" ".join(words[:cut])), len(" ".join(words[cut:]))) for cut in range(1, len(words)))
        return min(halves) * _weight(cell)
    return len(text) * _weight(cell)


@dataclass(frozen=True)
class Block:
    """Rows that print together on one page: a table with its header rows and the figures under it."""

    first_row: int
    last_row: int
    header_rows: tuple[int, ...] = ()

    @property
    def rows(self) -> range:
        return range(self.first_row, self.last_row + 1)


@dataclass(frozen=True)
class InputRule:
    """What an input cell accepts, so a spreadsheet can refuse a bad entry (lessons 01-04).

    ``kind`` is "list" (one of ``choices``), "whole" (a whole number from
    ``minimum``, up to ``maximum`` if given) or "decimal" (a number >= ``minimum``).
    """

    kind: Literal["list", "whole", "decimal"]
    title: str
    message: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None


@dataclass
class Sheet:
    """A small worksheet of cells with values, formulas and highlighted inputs (lessons 01-05).

    >>> sheet = Sheet()
    >>> sheet.set("A1", "Rank"); sheet.set("A2", 1, is_input=True)
    >>> sheet.value("A2"), sheet.n_rows, sheet.n_columns
    (1, 2, 1)
    """

    title: str = ""
    show_formulas: bool = False
    name: str = ""
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  # a defined name -> the cell it names
    rules: dict[str, InputRule] = field(default_factory=dict)  # a cell or range -> what it accepts
    widths: dict[int, float] = field(default_factory=dict)  # column number -> width fixed by a layout

    def __repr__(self) -> str:
        return f"Sheet({self.name or self.title!r}, {self.n_rows} rows x {self.n_columns} columns)"

    def set(
        self,
        ref: str,
        value,
        formula: str | None = None,
        is_input: bool = False,
        decimals: int | None = None,
        role: Role | None = None,
    ) -> None:
        """Put a value (and optionally the formula behind it) in a cell."""
        if formula is not None and not (isinstance(formula, str) and formula.startswith("=")):
            raise ValueError(f"a formula must start with '=', got {formula!r} for {ref}")
        if role is not None and role not in ROLES:
            raise ValueError(f"unknown role {role!r} for {ref}: choose one of {', '.join(ROLES)}")
        self.cells[split_ref(ref)] = Cell(value, formula, is_input, decimals, role)

    def cell(self, ref: str) -> Cell:
        """The cell at a reference; an empty cell if nothing was put there."""
        return self.cells.get(split_ref(ref), Cell(None))

    def at(self, row: int, column: int) -> Cell:
        """The cell at a row and column number; an empty cell if nothing was put there."""
        return self.cells.get((row, column), Cell(None))

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
        return [cell_ref(r, c) for (r, c), cell in sorted(self.cells.items()) if cell.is_input]

    def formula_cells(self) -> dict[str, Cell]:
        """Every cell holding a formula, by reference, row by row."""
        return {cell_ref(r, c): cell for (r, c), cell in sorted(self.cells.items()) if cell.formula}

    def add_block(self, first_row: int, last_row: int, header_rows: Sequence[int] = ()) -> None:
        """Mark rows first_row..last_row as one block (one printed page); header_rows repeat on its pages."""
        if not 1 <= first_row <= last_row:
            raise ValueError(f"a block runs from a row >= 1 to a later row, got {first_row}..{last_row}")
        if any(first_row <= block.last_row and block.first_row <= last_row for block in self.blocks):
            raise ValueError(f"rows {first_row}..{last_row} overlap a block already marked")
        if any(not first_row <= row <= last_row for row in header_rows):
            raise ValueError(f"header rows {list(header_rows)} must lie in rows {first_row}..{last_row}")
        self.blocks.append(Block(first_row, last_row, tuple(header_rows)))
        self.blocks.sort(key=lambda block: block.first_row)

    def print_blocks(self) -> list[Block]:
        """The blocks to print one per page; the whole sheet as one block if none was marked."""
        if self.blocks:
            return list(self.blocks)
        header = (1,) if any(self.at(1, c).role == "header" for c in range(1, self.n_columns + 1)) else ()
        return [Block(1, max(self.n_rows, 1), header)]

    def print_title_rows(self) -> tuple[int, ...]:
        """Rows repeated at the top of each printed page: the header of a sheet with one block.

        A sheet with several blocks starts each block on its own page under its
        own header; repeating the first block's header there would mislabel the rest.
        """
        blocks = self.print_blocks()
        return blocks[0].header_rows if len(blocks) == 1 else ()

    def column_widths(self) -> dict[int, float]:
        """A width in characters for each column that fits its headers, labels and values (lessons 01-04).

        A header of more than 12 characters wraps onto two lines, a note (long
        text) at 44 characters; a title runs over the empty cells to its right;
        a width fixed by the layout wins.
        """
        needs: dict[int, float] = {}
        for (_, column), cell in self.cells.items():
            if cell.role != "title":
                needs[column] = max(needs.get(column, 0), _characters_needed(cell))
        widths = {column: round(max(need, 6) + PADDING, 1) for column, need in needs.items()}
        return widths | self.widths

    def row_lines(self, widths: dict[int, float] | None = None) -> dict[int, int]:
        """The number of text lines of each row whose wrapped headers or notes need more than one."""
        widths = self.column_widths() if widths is None else widths
        lines: dict[int, int] = {}
        for (row, column), cell in self.cells.items():
            if cell.role in WRAPPED and column in widths:
                room = max(int((widths[column] - PADDING) / _weight(cell) + 0.01), 1)  # 0.01: float rounding
                count = len(textwrap.wrap(cell.shown(), room, break_long_words=False)) or 1
                if count > 1:
                    lines[row] = max(lines.get(row, 1), count)
        return lines

    def to_frame(self) -> pd.DataFrame:
        """The displayed values as a DataFrame indexed by row number with letter columns."""
        columns = range(1, self.n_columns + 1)
        rows = range(1, self.n_rows + 1)
        grid = [[self.at(r, c).value for c in columns] for r in rows]
        letters = [column_letter(c) for c in columns]
        return pd.DataFrame(grid, index=pd.Index(rows, name="row"), columns=letters)

    def formulas(self) -> pd.DataFrame:
        """Every formula cell as a table: cell, formula, value (lesson 03)."""
        cells = self.formula_cells().items()
        rows = [{"cell": ref, "formula": cell.formula, "value": cell.value} for ref, cell in cells]
        return pd.DataFrame(rows, columns=["cell", "formula", "value"])

    def to_html(self) -> str:
        """The sheet as HTML: column letters, row numbers, yellow inputs, formulas under values on demand."""
        columns = range(1, self.n_columns + 1)
        rows = [[self.at(row, c).to_html(self.show_formulas) for c in columns] for row in range(1, self.n_rows + 1)]
        block_starts = {block.first_row for block in self.blocks[1:]}
        return sheet_html(self.title, [column_letter(c) for c in columns], rows, block_starts)

    def _repr_html_(self) -> str:
        return self.to_html()


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
    ``input_columns`` are highlighted as inputs. A column of whole numbers is
    shown without decimals, any other number column with ``decimals``.
    """
    formulas = formulas or {}
    unknown = (set(formulas) | set(input_columns)) - set(frame.columns)
    if unknown:
        raise ValueError(f"no column named {', '.join(map(repr, sorted(unknown)))} in the table")
    sheet = Sheet(title, show_formulas)
    for number, name in enumerate(frame.columns, start=1):
        letter = column_letter(number)
        values = frame[name].tolist()
        places = uniform_decimals(values, decimals)
        sheet.set(f"{letter}1", str(name), role="header")
        for row, value in enumerate(values, start=2):
            template = formulas.get(name)
            sheet.set(
                f"{letter}{row}",
                value,
                formula=template.format(row=row) if template else None,
                is_input=name in input_columns,
                decimals=places if is_number(value) else None,
            )
    sheet.add_block(1, len(frame) + 1, header_rows=(1,))
    return sheet
