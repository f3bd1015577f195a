"""The spreadsheet twin of the worked examples A-D (lessons 01-04).

``save_example_workbook("C", "example_c.xlsx")`` writes an .xlsx workbook in
which every derived number is a live formula (``=B2/LOG(A2+1,2)``,
``=LARGE($B$2:$B$8,A2)``, ``=IFERROR(1/B16,0)``, ...) and the yellow cells are
the inputs, read from ``data/`` through ``helpers.data``. openpyxl saves
formulas without results, so after saving, the value that ``helpers.metrics``
computes for each formula cell is written into the sheet XML as the cell's
cached result: a viewer that does not calculate still shows the numbers, and
Excel or LibreOffice recalculate them from the formulas.

``read_workbook("example_c.xlsx")`` reads a learner's edited example-C sheet
back, computes its metrics with ``helpers.metrics`` and lists every cell whose
stored value disagrees.

Command line::

    python -m helpers.sheets C example_c.xlsx [--force] [--gain exponential]
    python -m helpers.sheets --check example_c.xlsx
"""

from __future__ import annotations

import argparse
import html
import io
import math
import os
import re
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from openpyxl import Workbook, load_workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import absolute_coordinate, get_column_letter, quote_sheetname
from openpyxl.utils.exceptions import InvalidFileException
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation

from helpers.data import DATA_DIR, Example, load_example
from helpers.metrics import (
    GAINS,
    UndefinedMetricError,
    arithmetic_table,
    check_choice,
    dcg,
    discount,
    first_relevant_rank,
    grades_in_rank_order,
    ideal_dcg,
    mean_hit_rate,
    mean_reciprocal_rank,
    ndcg,
    reciprocal_rank_of,
)

__all__ = [
    "CUTOFFS",
    "CheckedCell",
    "add_cached_values",
    "build_workbook",
    "SheetCheck",
    "SheetInputs",
    "example_c_inputs",
    "expected_c_cells",
    "main",
    "read_workbook",
    "save_example_workbook",
    "write_workbook",
]

# The cut-offs of the worked examples (WORKED_EXAMPLES.md); in the workbook they are yellow inputs.
CUTOFFS = {"A": {"hit": 3}, "B": {"ndcg": 5}, "C": {"ndcg": 5, "mrr": 2}, "D": {"mrr_hit": 4}}
UNDEFINED = "undefined"
YELLOW = PatternFill("solid", fgColor="FFFF99")
BOLD = Font(bold=True)

# Example C follows the cell layout of the source spreadsheet (seed 001).
C_SHEET = "Example C"
C_RANK_ROWS = range(2, 8)  # the six returned results, rank 1..6 in column A
C_MISSED_ROW = 8  # the judged document the search missed: A8 "missed", B8 its grade
C_GAIN, C_K, C_DCG, C_IDCG, C_NDCG = "B9", "B10", "B11", "B12", "B13"
C_QUERY_ROWS = range(16, 21)  # five queries: first relevant rank in B, reciprocal rank in C
C_MRR, C_MRR_K, C_MRR_AT_K = "C21", "B22", "C23"


# --- one worksheet being written -----------------------------------------


class _Sheet:
    """A worksheet under construction that remembers the cached value of every formula cell."""

    def __init__(self, worksheet, number_format: str = "0.000"):
        self.ws = worksheet
        self.number_format = number_format
        self.cached: dict[str, float | str] = {}

    def label(self, ref: str, text: str, bold: bool = False) -> None:
        self.ws[ref] = text
        if bold:
            self.ws[ref].font = BOLD

    def put(self, ref: str, value, yellow: bool = False) -> None:
        """A constant: an input (yellow) or a fixed label such as a rank."""
        self.ws[ref] = _plain(value)
        if yellow:
            self.ws[ref].fill = YELLOW

    def formula(self, ref: str, formula: str, cached, number_format: str | None = None) -> None:
        """A live formula with the value helpers computes for it, stored as its cached result."""
        self.ws[ref] = formula
        self.ws[ref].number_format = number_format or self.number_format
        self.cached[ref] = _plain(cached)

    def widths(self, **columns: float) -> None:
        for column, width in columns.items():
            self.ws.column_dimensions[column].width = width

    def validate(self, cells: str, **rule) -> None:
        """Let Excel/LibreOffice refuse a bad entry in an input cell (the formulas stay simple)."""
        rule.setdefault("showErrorMessage", True)
        validation = DataValidation(**rule)
        self.ws.add_data_validation(validation)
        validation.add(cells)


def _plain(value):
    """Numbers as the sheet should show them: 2.0 -> 2, numpy floats -> float."""
    if isinstance(value, str) or value is None:
        return value
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _gain(grade_ref: str) -> str:
    """The gain of a grade cell under the Gain switch: linear = grade, exponential = 2^grade - 1."""
    return f'IF(Gain="exponential",2^{grade_ref}-1,{grade_ref})'


def _ndcg_or_undefined(grades, k, ideal, gain) -> float | str:
    """nDCG@k from helpers, or the text the sheet shows when IDCG is 0."""
    try:
        return ndcg(grades, k, ideal=ideal, gain=gain)
    except UndefinedMetricError:
        return UNDEFINED


def _first_rank_cell(rank: int):
    """How a first relevant rank is shown: the rank, or "none" for a miss (rank 0)."""
    return rank if rank else "none"


def _name_gain_cell(workbook: Workbook, sheet_title: str, ref: str) -> None:
    """Name the gain switch "Gain" so formulas read IF(Gain="exponential", ...)."""
    target = f"{quote_sheetname(sheet_title)}!{absolute_coordinate(ref)}"
    workbook.defined_names["Gain"] = DefinedName("Gain", attr_text=target)


def _gain_switch(sheet: _Sheet, ref: str, gain: str) -> None:
    sheet.put(ref, gain, yellow=True)
    sheet.validate(
        ref, type="list", formula1='"linear,exponential"', allow_blank=False,
        errorTitle="Gain", error="Type linear or exponential.",
    )


def _cutoff(sheet: _Sheet, ref: str, k: int, highest: int | None = None) -> None:
    sheet.put(ref, k, yellow=True)
    if highest is None:
        sheet.validate(ref, type="whole", operator="greaterThanOrEqual", formula1="1",
                       errorTitle="Cut-off k", error="k is a whole number >= 1.")
    else:
        sheet.validate(ref, type="whole", operator="between", formula1="1", formula2=str(highest),
                       errorTitle="Cut-off k", error=f"k is a whole number from 1 to {highest}.")


def _grade_inputs(sheet: _Sheet, cells: str) -> None:
    sheet.validate(cells, type="decimal", operator="greaterThanOrEqual", formula1="0",
                   errorTitle="Grade", error="A grade is a number >= 0 (0 = not relevant).")


# --- example C: the source's layout --------------------------------------


@dataclass(frozen=True)
class SheetInputs:
    """The yellow input cells of the example-C sheet, as written or as a learner edited them (lesson 03)."""

    grades: tuple[float, ...]  # B2:B7, the returned results in rank order
    missed: tuple[float, ...]  # B8, judged documents the search did not return
    gain: str  # B9, "linear" or "exponential"
    k: int  # B10, the cut-off of DCG, IDCG and nDCG
    queries: tuple[str, ...]  # A16:A20
    first_ranks: tuple[int, ...]  # B16:B20, 0 for "none"
    mrr_k: int  # B22, the cut-off of MRR@k

    @property
    def judged(self) -> list[float]:
        """Every judged grade of the query, returned or missed: the ideal ranking sorts these."""
        return [*self.grades, *self.missed]


def example_c_inputs(example: Example | None = None, gain: str = "linear") -> SheetInputs:
    """The inputs of the example-C sheet read from data/example_c through helpers (lesson 03).

    The nDCG query is the first query of the file (reset-password) and the
    system the first system; the MRR block holds every query's first relevant rank.
    """
    example = load_example("C") if example is None else example
    check_choice(gain, GAINS, "gain")
    system, query = example.systems[0], example.query_ids[0]
    judgments = example.judgments_for(query)
    ranked = example.ranking(system, query)
    grades = grades_in_rank_order(ranked, judgments)
    missed = [grade for doc_id, grade in judgments.items() if doc_id not in ranked]
    first_ranks = [
        first_relevant_rank(example.ranking(system, q), example.relevant_for(q)) for q in example.query_ids
    ]
    shape = (len(grades), len(missed), len(first_ranks))
    if shape != (len(C_RANK_ROWS), 1, len(C_QUERY_ROWS)):
        raise ValueError(
            "example C no longer fits the source's cell layout (6 returned results, 1 missed document, "
            f"5 queries): the data has {shape[0]} returned, {shape[1]} missed, {shape[2]} queries"
        )
    cutoffs = CUTOFFS["C"]
    return SheetInputs(
        grades=tuple(grades), missed=tuple(missed), gain=gain, k=cutoffs["ndcg"],
        queries=tuple(example.query_ids), first_ranks=tuple(first_ranks), mrr_k=cutoffs["mrr"],
    )


def expected_c_cells(inputs: SheetInputs) -> dict[str, tuple[str, float | str]]:
    """Each derived cell of the example-C sheet -> (what it holds, helpers' value for it) (lesson 03)."""
    table = arithmetic_table(list(inputs.grades), ideal=inputs.judged, gain=inputs.gain)
    cells: dict[str, tuple[str, float | str]] = {}
    for row in C_RANK_ROWS:
        line = table.iloc[row - 2]
        cells[f"C{row}"] = (f"discounted gain at rank {row - 1}", float(line["discounted_gain"]))
        cells[f"D{row}"] = (f"ideal relevance at rank {row - 1}", float(line["ideal_grade"]))
        cells[f"E{row}"] = (f"ideal DG at rank {row - 1}", float(line["ideal_discounted_gain"]))
    cells[C_DCG] = ("DCG@k", dcg(inputs.grades, inputs.k, inputs.gain))
    cells[C_IDCG] = ("IDCG@k", ideal_dcg(inputs.judged, inputs.k, inputs.gain))
    cells[C_NDCG] = ("nDCG@k", _ndcg_or_undefined(inputs.grades, inputs.k, inputs.judged, inputs.gain))
    for row, query, rank in zip(C_QUERY_ROWS, inputs.queries, inputs.first_ranks, strict=True):
        cells[f"C{row}"] = (f"reciprocal rank of {query}", reciprocal_rank_of(rank))
        cells[f"D{row}"] = (f"reciprocal rank @k of {query}", reciprocal_rank_of(rank, inputs.mrr_k))
    cells[C_MRR] = ("MRR", mean_reciprocal_rank(inputs.first_ranks))
    cells[C_MRR_AT_K] = ("MRR@k", mean_reciprocal_rank(inputs.first_ranks, inputs.mrr_k))
    return cells


def _sheet_c(workbook: Workbook, example: Example, gain: str) -> tuple[_Sheet, list[str]]:
    """Example C in the source's layout: nDCG@k of one query (rows 1-13) and MRR of five (rows 15-23)."""
    inputs = example_c_inputs(example, gain)
    expected = {ref: value for ref, (_, value) in expected_c_cells(inputs).items()}
    sheet = _Sheet(workbook.create_sheet(C_SHEET))
    _name_gain_cell(workbook, C_SHEET, C_GAIN)
    query = example.query_ids[0]
    ranked = example.ranking(example.systems[0], query)
    missed_ids = [doc_id for doc_id in example.judgments_for(query) if doc_id not in ranked]

    for column, header in zip("ABCDEF", ["Rank", "Relevance (0–3)", "Discounted gain", "Ideal relevance",
                                         "Ideal DG", "Document"], strict=True):
        sheet.label(f"{column}1", header, bold=True)
    for row, grade, doc_id in zip(C_RANK_ROWS, inputs.grades, ranked, strict=True):
        sheet.put(f"A{row}", row - 1)
        sheet.put(f"B{row}", grade, yellow=True)
        sheet.formula(f"C{row}", f"={_gain(f'B{row}')}/LOG(A{row}+1,2)", expected[f"C{row}"])
        sheet.formula(f"D{row}", f"=LARGE($B$2:$B${C_MISSED_ROW},A{row})", expected[f"D{row}"], "0")
        sheet.formula(f"E{row}", f"={_gain(f'D{row}')}/LOG(A{row}+1,2)", expected[f"E{row}"])
        sheet.label(f"F{row}", f"{doc_id}: {example.title(doc_id)}")
    sheet.label(f"A{C_MISSED_ROW}", "missed")
    sheet.put(f"B{C_MISSED_ROW}", inputs.missed[0], yellow=True)
    sheet.label(f"F{C_MISSED_ROW}", f"{missed_ids[0]}: {example.title(missed_ids[0])} (judged, not returned)")
    _grade_inputs(sheet, f"B2:B{C_MISSED_ROW}")

    sheet.label("A9", "Gain")
    _gain_switch(sheet, C_GAIN, gain)
    sheet.label("A10", "Cut-off k")
    _cutoff(sheet, C_K, inputs.k, highest=len(C_RANK_ROWS))
    ranks, gains, ideal_gains = "A2:A7", "C2:C7", "E2:E7"
    sheet.label("A11", "DCG@k")
    sheet.formula(C_DCG, f"=SUMPRODUCT(({ranks}<={C_K})*{gains})", expected[C_DCG])
    sheet.label("A12", "IDCG@k")
    sheet.formula(C_IDCG, f"=SUMPRODUCT(({ranks}<={C_K})*{ideal_gains})", expected[C_IDCG])
    sheet.label("A13", "NDCG@k")
    sheet.formula(C_NDCG, f'=IFERROR({C_DCG}/{C_IDCG},"{UNDEFINED}")', expected[C_NDCG])

    mrr_k = absolute_coordinate(C_MRR_K)
    for column, header in zip("ABCDE", ["Query", "First relevant rank", "Reciprocal rank",
                                        "Reciprocal rank @k", "Question"], strict=True):
        sheet.label(f"{column}15", header, bold=True)
    for row, query_id, rank in zip(C_QUERY_ROWS, inputs.queries, inputs.first_ranks, strict=True):
        sheet.label(f"A{row}", query_id)
        sheet.put(f"B{row}", _first_rank_cell(rank), yellow=True)
        sheet.formula(f"C{row}", f"=IFERROR(1/B{row},0)", expected[f"C{row}"])
        sheet.formula(f"D{row}", f"=IF(AND(ISNUMBER(B{row}),B{row}<={mrr_k}),C{row},0)", expected[f"D{row}"])
        sheet.label(f"E{row}", example.query_text(query_id))
    first, last = C_QUERY_ROWS[0], C_QUERY_ROWS[-1]
    sheet.label("A21", "MRR")
    sheet.formula(C_MRR, f"=AVERAGE(C{first}:C{last})", expected[C_MRR])
    sheet.label("A22", "Cut-off k (MRR@k)")
    _cutoff(sheet, C_MRR_K, inputs.mrr_k)
    sheet.label("A23", "MRR@k")
    sheet.formula(C_MRR_AT_K, f"=AVERAGE(D{first}:D{last})", expected[C_MRR_AT_K])
    sheet.widths(A=18, B=18, C=16, D=18, E=16, F=48)

    returned_only = ndcg(list(inputs.grades), inputs.k, gain=gain)
    judged = _ndcg_or_undefined(inputs.grades, inputs.k, inputs.judged, gain)
    notes = [
        f"Rows 2–8: query {query!r} ({example.query_text(query)}), system {example.systems[0]!r}.",
        "Row 8 is a judged document the search missed: it counts for the ideal column only.",
        f"Building the ideal from the returned results only would give nDCG@{inputs.k} = "
        f"{returned_only:.3f} instead of {judged:.3f}: "
        "it hides the missed document.",
        "Rows 16–20: first relevant rank of each query; type none for a query with no relevant result.",
        "D16:D20 give credit only when the first hit is within the cut-off in B22 (MRR@k).",
        "The cut-off k in B10 goes from 1 to 6: the sheet lists six ranks.",
        "Check an edited copy against helpers: python -m helpers.sheets --check FILE.xlsx",
    ]
    return sheet, notes


# --- example A: first relevant ranks, MRR and hit rate --------------------


def _sheet_a(workbook: Workbook, example: Example, gain: str) -> tuple[_Sheet, list[str]]:
    """Example A: per-system first relevant ranks -> reciprocal ranks -> MRR, and hit rate@k."""
    sheet = _Sheet(workbook.create_sheet("Example A"))
    queries, systems, k = example.query_ids, example.systems, CUTOFFS["A"]["hit"]
    first, last = 2, 1 + len(queries)
    mrr_row, hit_row, k_row = last + 1, last + 2, last + 4
    k_ref = f"$B${k_row}"
    sheet.label("A1", "Query", bold=True)
    sheet.label("B1", "Question", bold=True)
    for i, system in enumerate(systems):
        rank_col, rr_col, hit_col = (get_column_letter(3 + 3 * i + j) for j in range(3))
        ranks = [first_relevant_rank(example.ranking(system, q), example.relevant_for(q)) for q in queries]
        sheet.label(f"{rank_col}1", f"{system}: first relevant rank", bold=True)
        sheet.label(f"{rr_col}1", f"{system}: reciprocal rank", bold=True)
        sheet.label(f"{hit_col}1", f"{system}: hit@k", bold=True)
        for row, rank in zip(range(first, last + 1), ranks, strict=True):
            sheet.put(f"{rank_col}{row}", _first_rank_cell(rank), yellow=True)
            sheet.formula(f"{rr_col}{row}", f"=IFERROR(1/{rank_col}{row},0)", reciprocal_rank_of(rank))
            sheet.formula(
                f"{hit_col}{row}",
                f"=IF(AND(ISNUMBER({rank_col}{row}),{rank_col}{row}>=1,{rank_col}{row}<={k_ref}),1,0)",
                mean_hit_rate([rank], k), "0",
            )
        sheet.formula(f"{rr_col}{mrr_row}", f"=AVERAGE({rr_col}{first}:{rr_col}{last})",
                      mean_reciprocal_rank(ranks))
        sheet.formula(f"{hit_col}{hit_row}", f"=AVERAGE({hit_col}{first}:{hit_col}{last})",
                      mean_hit_rate(ranks, k))
        sheet.widths(**{rank_col: 14, rr_col: 14, hit_col: 10})
    for row, query_id in zip(range(first, last + 1), queries, strict=True):
        sheet.label(f"A{row}", query_id)
        sheet.label(f"B{row}", example.query_text(query_id))
    sheet.label(f"A{mrr_row}", "MRR", bold=True)
    sheet.label(f"A{hit_row}", "Hit rate@k", bold=True)
    sheet.label(f"A{k_row}", "Cut-off k (hit rate)")
    _cutoff(sheet, f"B{k_row}", k)
    sheet.widths(A=20, B=44)
    notes = [
        f"Each system answered the same {len(queries)} questions; a row is one question.",
        "First relevant rank: the rank of the first passage judged relevant (grade >= 1); none = a miss.",
        "MRR uses the whole list (no cut-off); hit@k is 1 when the first relevant rank is 1..k.",
        f"Exercise: type 1 as NEW's first relevant rank of {queries[0]} (move the relevant passage "
        "to the top) and watch NEW's MRR change while its hit rate stays the same.",
    ]
    return sheet, notes


# --- example B: three orderings of one query, graded -----------------------


@dataclass(frozen=True)
class _FrameB:
    """Where things sit on the example-B sheet: rank rows, summary rows, the judged table."""

    rows: range  # one row per rank
    judged_rows: range  # the judged documents table: id in A, grade in B
    k: int
    gain: str
    judged: list[float]  # every judged grade of the query

    @property
    def dcg_row(self) -> int:
        return self.rows[-1] + 1

    @property
    def ndcg_row(self) -> int:
        return self.rows[-1] + 2

    def span(self, column: str) -> str:
        return f"{column}{self.rows[0]}:{column}{self.rows[-1]}"

    def judged_span(self, first: str, last: str) -> str:
        return f"${first}${self.judged_rows[0]}:${last}${self.judged_rows[-1]}"


def _gain_columns_b(sheet: _Sheet, frame: _FrameB, columns: tuple[str, str], title: str,
                    grade_formula: str, grades: list[float] | None) -> None:
    """A grade column, its discounted gains and their DCG@k; grades None means the ideal ranking."""
    grade_col, dg_col = columns
    padded = [0.0] * len(frame.rows) if grades is None else grades
    table = arithmetic_table(padded, ideal=frame.judged, gain=frame.gain)
    keys = ("ideal_grade", "ideal_discounted_gain") if grades is None else ("grade", "discounted_gain")
    sheet.label(f"{grade_col}5", f"{title}: grade", bold=True)
    sheet.label(f"{dg_col}5", f"{title}: discounted gain", bold=True)
    for row, (_, line) in zip(frame.rows, table.iterrows(), strict=True):
        sheet.formula(f"{grade_col}{row}", grade_formula.format(row=row), line[keys[0]], "0")
        sheet.formula(f"{dg_col}{row}", f"={_gain(f'{grade_col}{row}')}/$B{row}", line[keys[1]])
    if grades is None:
        total = ideal_dcg(frame.judged, frame.k, frame.gain)
    else:
        total = dcg(grades, frame.k, frame.gain)
    in_top_k = f"($A${frame.rows[0]}:$A${frame.rows[-1]}<=$B$3)"
    sheet.formula(f"{dg_col}{frame.dcg_row}", f"=SUMPRODUCT({in_top_k}*{frame.span(dg_col)})", total)
    sheet.widths(**{grade_col: 13, dg_col: 13})


def _sheet_b(workbook: Workbook, example: Example, gain: str) -> tuple[_Sheet, list[str]]:
    """Example B: the three orderings' grades, discounts, DCG, the ideal, and nDCG@k."""
    sheet = _Sheet(workbook.create_sheet("Example B"), "0.0000")
    _name_gain_cell(workbook, "Example B", "B2")
    query, k = example.query_ids[0], CUTOFFS["B"]["ndcg"]
    judgments = example.judgments_for(query)
    rankings = {system: example.ranking(system, query) for system in example.systems}
    n_rows = max(len(judgments), *(len(ranked) for ranked in rankings.values()))
    rows = range(6, 6 + n_rows)
    judged_rows = range(rows[-1] + 5, rows[-1] + 5 + len(judgments))
    frame = _FrameB(rows, judged_rows, k, gain, list(judgments.values()))

    sheet.label("A1", "Question", bold=True)
    sheet.label("B1", example.query_text(query))
    sheet.label("A2", "Gain")
    _gain_switch(sheet, "B2", gain)
    sheet.label("A3", "Cut-off k")
    _cutoff(sheet, "B3", k, highest=n_rows)
    sheet.label("A5", "Rank", bold=True)
    sheet.label("B5", "Discount log2(rank+1)", bold=True)
    for rank, row in enumerate(rows, start=1):
        sheet.put(f"A{row}", rank)
        sheet.formula(f"B{row}", f"=LOG(A{row}+1,2)", discount(rank))

    ideal_grade, ideal_dg = (get_column_letter(3 + 3 * len(rankings) + j) for j in range(2))
    _gain_columns_b(sheet, frame, (ideal_grade, ideal_dg), "Ideal",
                    f"=IFERROR(LARGE({frame.judged_span('B', 'B')},A{{row}}),0)", None)
    for i, (system, ranked) in enumerate(rankings.items()):
        doc_col, grade_col, dg_col = (get_column_letter(3 + 3 * i + j) for j in range(3))
        sheet.label(f"{doc_col}5", f"{system}: document", bold=True)
        for row, doc_id in zip(rows, ranked + [None] * (n_rows - len(ranked)), strict=True):
            sheet.put(f"{doc_col}{row}", doc_id, yellow=True)
        grades = grades_in_rank_order(ranked, judgments) + [0.0] * (n_rows - len(ranked))
        lookup = f"=IFERROR(VLOOKUP({doc_col}{{row}},{frame.judged_span('A', 'B')},2,FALSE),0)"
        _gain_columns_b(sheet, frame, (grade_col, dg_col), system, lookup, grades)
        sheet.formula(f"{dg_col}{frame.ndcg_row}",
                      f'=IFERROR({dg_col}{frame.dcg_row}/${ideal_dg}${frame.dcg_row},"{UNDEFINED}")',
                      _ndcg_or_undefined(grades, k, frame.judged, gain))
        sheet.widths(**{doc_col: 13})
    sheet.label(f"A{frame.dcg_row}", "DCG@k (ideal: IDCG@k)", bold=True)
    sheet.label(f"A{frame.ndcg_row}", "nDCG@k", bold=True)

    header_row = frame.judged_rows[0] - 1
    for column, header in zip("ABC", ["Judged document", "Grade", "Title"], strict=True):
        sheet.label(f"{column}{header_row}", header, bold=True)
    for row, (doc_id, grade) in zip(frame.judged_rows, judgments.items(), strict=True):
        sheet.put(f"A{row}", doc_id, yellow=True)
        sheet.put(f"B{row}", grade, yellow=True)
        sheet.label(f"C{row}", example.title(doc_id))
    _grade_inputs(sheet, f"B{frame.judged_rows[0]}:B{frame.judged_rows[-1]}")
    sheet.widths(A=22, B=20)
    notes = [
        f"One question ({query}); each ordering is the same passages in a different order.",
        "A grade is looked up in the judged documents table below (VLOOKUP); an unjudged passage scores 0.",
        "The ideal column sorts every judged grade from high to low with LARGE.",
        "Exercise: set D4's grade to 1 in the judged table; or delete D11 from every ordering "
        "(shift the cells below it up) and see why nDCG stays below 1.",
    ]
    return sheet, notes


# --- example D: MRR@k and Hit@k with an unanswerable question --------------


def _sheet_d(workbook: Workbook, example: Example, gain: str) -> tuple[_Sheet, list[str]]:
    """Example D: MRR@k and Hit@k over the answerable questions; an unanswerable one is shown, not counted."""
    sheet = _Sheet(workbook.create_sheet("Example D"))
    system, queries, k = example.systems[0], example.query_ids, CUTOFFS["D"]["mrr_hit"]
    first, last = 2, 1 + len(queries)
    mrr_row, hit_row, k_row, count_row = last + 1, last + 2, last + 4, last + 5
    k_ref = f"$B${k_row}"
    counted = f"$E${first}:$E${last}"
    headers = ["Question", "Question text", "Relevant chunks (judged)", "First relevant rank",
               "Counted", "Reciprocal rank @k", "Hit@k"]
    for column, header in zip("ABCDEFG", headers, strict=True):
        sheet.label(f"{column}1", header, bold=True)
    answerable_ranks = []
    for row, query_id in zip(range(first, last + 1), queries, strict=True):
        relevant = example.relevant_for(query_id)
        rank = first_relevant_rank(example.ranking(system, query_id), relevant)
        if relevant:
            answerable_ranks.append(rank)
        sheet.label(f"A{row}", query_id)
        sheet.label(f"B{row}", example.query_text(query_id))
        sheet.put(f"C{row}", len(relevant), yellow=True)
        sheet.put(f"D{row}", _first_rank_cell(rank), yellow=True)
        status = "yes" if relevant else "no (unanswerable)"
        sheet.formula(f"E{row}", f'=IF(C{row}>0,"yes","no (unanswerable)")', status, "General")
        within_k = f"AND(ISNUMBER(D{row}),D{row}>=1,D{row}<={k_ref})"
        sheet.formula(f"F{row}", f'=IF(E{row}="yes",IF({within_k},1/D{row},0),"excluded")',
                      reciprocal_rank_of(rank, k) if relevant else "excluded")
        sheet.formula(f"G{row}", f'=IF(E{row}="yes",IF({within_k},1,0),"excluded")',
                      mean_hit_rate([rank], k) if relevant else "excluded", "0")
    sheet.label(f"A{mrr_row}", "MRR@k", bold=True)
    sheet.formula(f"F{mrr_row}", f'=AVERAGEIF({counted},"yes",F{first}:F{last})',
                  mean_reciprocal_rank(answerable_ranks, k))
    sheet.label(f"A{hit_row}", "Hit@k", bold=True)
    sheet.formula(f"G{hit_row}", f'=AVERAGEIF({counted},"yes",G{first}:G{last})',
                  mean_hit_rate(answerable_ranks, k))
    sheet.label(f"A{k_row}", "Cut-off k")
    _cutoff(sheet, f"B{k_row}", k)
    sheet.label(f"A{count_row}", "Questions counted")
    sheet.formula(f"B{count_row}", f'=COUNTIF({counted},"yes")', len(answerable_ranks), "0")
    sheet.widths(A=18, B=52, C=14, D=14, E=18, F=14, G=10)
    notes = [
        f"System {system!r} keeps the top k chunks; k is the same for MRR@k and Hit@k.",
        "A question with no relevant chunk at all is unanswerable: it is shown but left out of both means.",
        "First relevant rank is over the whole returned list; a first hit below k scores 0 at k.",
        "Equal similarity scores are ordered by chunk id, so the ranks are reproducible.",
    ]
    return sheet, notes


LAYOUTS: dict[str, Callable[[Workbook, Example, str], tuple[_Sheet, list[str]]]] = {
    "A": _sheet_a, "B": _sheet_b, "C": _sheet_c, "D": _sheet_d,
}
GRADED = ("B", "C")


def _conventions(workbook: Workbook, letter: str, notes: list[str]) -> None:
    """The second sheet: the conventions the formulas follow, in a few lines."""
    ws = workbook.create_sheet("Conventions")
    lines = [
        f"Example {letter}: conventions (the same as helpers.metrics)",
        f"Yellow cells are inputs, read from data/example_{letter.lower()}; every other number is a formula.",
        "Ranks count from 1. A miss (no relevant result, typed none) scores 0 and stays in the mean.",
    ]
    if letter in GRADED:
        lines += [
            "Discount = log2(rank + 1): rank 1 is divided by 1, rank 3 by 2. In the sheet: LOG(rank+1,2).",
            "Linear gain = the grade; exponential gain = 2^grade − 1. The cell named Gain switches them.",
            "The ideal ranking sorts the grades of every judged document of the query, also those the "
            "search missed, from high to low (LARGE), cut at k.",
            "nDCG@k = DCG@k / IDCG@k. With no relevant judged document IDCG is 0: the sheet says undefined.",
        ]
    lines += [
        "The stored results were computed by helpers.metrics in Python; Excel and LibreOffice "
        "recalculate them from the formulas when you edit an input.",
        "",
        *notes,
    ]
    for row, line in enumerate(lines, start=1):
        ws.cell(row=row, column=1, value=line).alignment = Alignment(wrap_text=True, vertical="top")
    ws["A1"].font = BOLD
    ws.column_dimensions["A"].width = 110


# --- writing: check the target, build, save with cached values -------------


def _resolve_example(example) -> tuple[str, Example]:
    """The layout letter and the loaded example, from a name such as "C" or a loaded Example."""
    if not isinstance(example, Example | str):
        raise TypeError(f"example must be a name such as 'C' or an Example, got {type(example).__name__}")
    name = example.name if isinstance(example, Example) else example
    letter = name.strip().lower().removeprefix("example_").upper()
    if letter not in LAYOUTS:
        choices = ", ".join(LAYOUTS)
        if (DATA_DIR / f"example_{letter.lower()}").is_dir():
            raise ValueError(f"example {letter} has no spreadsheet twin: choose one of {choices}")
        raise ValueError(f"unknown example {name!r}: choose one of {choices}")
    return letter, example if isinstance(example, Example) else load_example(letter)


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


def build_workbook(example, gain: str = "linear") -> tuple[Workbook, dict[str, dict[str, float | str]]]:
    """The workbook of one example and the cached value of every formula cell, by sheet (lessons 01-04)."""
    letter, data = _resolve_example(example)
    check_choice(gain, GAINS, "gain")
    if gain != "linear" and letter not in GRADED:
        raise ValueError(f"example {letter} has no graded gain: only examples B and C have a gain switch")
    workbook = Workbook()
    workbook.remove(workbook.active)
    sheet, notes = LAYOUTS[letter](workbook, data, gain)
    _conventions(workbook, letter, notes)
    workbook.calculation.fullCalcOnLoad = True  # Excel recalculates on opening; the cache serves viewers
    return workbook, {sheet.ws.title: sheet.cached}


def write_workbook(example, path, *, force: bool = False, gain: str = "linear") -> Path:
    """Write example A, B, C or D as a workbook of live formulas with helpers' values cached (lessons 01-04).

    ``example`` is a name ("C") or a loaded Example; ``gain`` sets the Gain switch
    of the graded examples B and C. An existing file is replaced only with
    ``force=True``. Returns the path written.
    """
    target = _check_target(path, force)
    workbook, cached = build_workbook(example, gain)
    buffer = io.BytesIO()
    workbook.save(buffer)
    content = add_cached_values(buffer.getvalue(), cached)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.part")  # then renamed: never half a file
    try:
        temporary.write_bytes(content)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
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


# --- cached values: add <v> to each formula cell of the saved file --------

_FORMULA_CELL = re.compile(
    r'<c r="(?P<ref>[A-Z]+[0-9]+)"(?P<attrs>[^>]*)>(?P<formula><f>[^<]*</f>)(?:<v\s*/>|<v></v>)'
)
_TYPE_ATTR = re.compile(r'\s+t="[^"]*"')


def add_cached_values(xlsx: bytes, cached: dict[str, dict[str, float | str]]) -> bytes:
    """The .xlsx bytes with each formula cell's result stored in its <v> element (lessons 01-04).

    openpyxl writes a formula cell as ``<c r="C2"><f>B2/LOG(A2+1,2)</f><v/></c>``
    (or with ``<v></v>``, depending on whether lxml is installed);
    this fills the ``<v>`` (``t="str"`` for text results). Every formula cell of
    a listed sheet must get a value, and every value must land on a formula cell.
    """
    with zipfile.ZipFile(io.BytesIO(xlsx)) as source:
        parts = _sheet_parts(source)
        unknown = set(cached) - set(parts)
        if unknown:
            raise ValueError(f"no sheet named {', '.join(sorted(unknown))} in the workbook")
        output = io.BytesIO()
        with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as target:
            for info in source.infolist():
                content = source.read(info.filename)
                for title, values in cached.items():
                    if info.filename == parts[title]:
                        content = _fill_values(content.decode("utf-8"), values, title).encode("utf-8")
                target.writestr(info, content)
    return output.getvalue()


def _sheet_parts(archive: zipfile.ZipFile) -> dict[str, str]:
    """Sheet title -> the zip member that holds its XML, from workbook.xml and its relationships."""
    workbook_xml = archive.read("xl/workbook.xml").decode("utf-8")
    relations = archive.read("xl/_rels/workbook.xml.rels").decode("utf-8")
    targets = {}
    for relation in re.finditer(r"<Relationship\b[^>]*>", relations):
        attrs = dict(re.findall(r'(\w+)="([^"]*)"', relation.group(0)))
        target = attrs["Target"]
        targets[attrs["Id"]] = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
    parts = {}
    for sheet in re.finditer(r"<sheet\b[^>]*>", workbook_xml):
        name = re.search(r'\bname="([^"]*)"', sheet.group(0)).group(1)
        rid = re.search(r'\br:id="([^"]*)"', sheet.group(0)).group(1)
        parts[html.unescape(name)] = targets[rid]
    return parts


def _fill_values(xml: str, values: dict[str, float | str], title: str) -> str:
    """The sheet XML with the cached values filled in; refuses a formula cell left without one."""
    filled = set()

    def fill(match: re.Match) -> str:
        ref = match.group("ref")
        if ref not in values:
            raise ValueError(f"sheet {title!r}: formula cell {ref} has no cached value")
        filled.add(ref)
        value = values[ref]
        attrs = _TYPE_ATTR.sub("", match.group("attrs"))
        if isinstance(value, str):
            return f'<c r="{ref}"{attrs} t="str">{match.group("formula")}<v>{escape(value)}</v>'
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError(f"sheet {title!r}, cell {ref}: cannot cache {value!r}")
        return f'<c r="{ref}"{attrs}>{match.group("formula")}<v>{value!r}</v>'

    xml = _FORMULA_CELL.sub(fill, xml)
    if xml.count("<f>") != len(filled) or set(values) != filled:
        missing = sorted(set(values) - filled)
        raise ValueError(f"sheet {title!r}: formula cells and cached values do not match (unused: {missing})")
    return xml


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
        ranks = ", ".join(str(_first_rank_cell(rank)) for rank in inputs.first_ranks)
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
    """The example-C sheet: by its name, else the first sheet if it has the source's headers."""
    sheet = workbook[C_SHEET] if C_SHEET in workbook.sheetnames else workbook.worksheets[0]
    if sheet["A1"].value != "Rank" or sheet["A15"].value != "Query":
        raise ValueError(
            f"{path}: not an example-C workbook (expected 'Rank' in A1 and 'Query' in A15 of sheet "
            f"{C_SHEET!r}); write one with python -m helpers.sheets C FILE.xlsx"
        )
    return sheet


def _read_inputs(sheet) -> SheetInputs:
    """The yellow input cells of the example-C sheet, each checked with a message naming the cell."""
    grades = tuple(_grade(sheet, f"B{row}") for row in C_RANK_ROWS)
    missed_value = sheet[f"B{C_MISSED_ROW}"].value
    missed = () if missed_value in (None, "") else (_grade(sheet, f"B{C_MISSED_ROW}"),)
    gain_value = sheet[C_GAIN].value
    gain = "linear" if gain_value in (None, "") else str(gain_value).strip().lower()
    if gain not in GAINS:
        raise ValueError(f"cell {C_GAIN} (Gain) must be linear or exponential, got {gain_value!r}")
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
    """``python -m helpers.sheets EXAMPLE OUT.xlsx [--force]`` or ``--check FILE.xlsx`` (lessons 01-04).

    Exit status: 0 done (or every stored result agrees), 1 some stored result
    disagrees with helpers, 2 an error, reported in one line.
    """
    parser = _OneLineParser(
        prog="python -m helpers.sheets",
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


if __name__ == "__main__":
    sys.exit(main())
