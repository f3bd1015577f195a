"""Every worksheet of the collection, built on the one model: values from helpers, formulas alongside.

The lesson layouts (:func:`ndcg_worksheet`, :func:`mrr_worksheet`,
:func:`arithmetic_worksheet`) are shown in the notebooks and the widgets; the
example layouts (:func:`example_sheets` for A, B, C and D) are what
``python -m helpers.sheet`` saves as .xlsx. Example C is the nDCG and MRR
worksheets in lesson 03's cell layout (nDCG@k in rows 1-13, the MRR block from row 15),
a document column and a ``Gain`` switch. Every value comes from :mod:`helpers.metrics`; each formula says how a
spreadsheet computes the same value from the yellow input cells.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import pandas as pd

from helpers import metrics
from helpers._checks import check_choice, check_first_ranks, check_grades, check_k
from helpers.data import DATA_DIR, Example, load_example
from helpers.sheet.model import InputRule, Sheet, column_letter, is_number, uniform_decimals, whole

# The cut-offs of the worked examples (data/README.md, lessons 01-04); in the workbook they are yellow inputs.
CUTOFFS = {"A": {"hit": 3}, "B": {"ndcg": 5}, "C": {"ndcg": 5, "mrr": 2}, "D": {"mrr_hit": 4}}
UNDEFINED = "undefined"
GRADED = ("B", "C")

GRADE_RULE = InputRule("decimal", "Grade", "A grade is a number >= 0 (0 = not relevant).", minimum=0)
GAIN_RULE = InputRule("list", "Gain", "Type linear or exponential.", choices=tuple(metrics.GAINS))


def cutoff_rule(highest: int | None = None) -> InputRule:
    """A cut-off k: a whole number from 1 (up to ``highest`` when the sheet has only that many ranks)."""
    if highest is None:
        return InputRule("whole", "Cut-off k", "k is a whole number >= 1.", minimum=1)
    message = f"k is a whole number from 1 to {highest}."
    return InputRule("whole", "Cut-off k", message, minimum=1, maximum=highest)


def checked_gain(gain: object) -> metrics.Gain:
    """The gain option after checking it is "linear" or "exponential"."""
    return cast(metrics.Gain, check_choice(gain, metrics.GAINS, "gain"))


def gain_formula(grade_ref: str, gain: str, switch: bool = False) -> str:
    """The gain of a grade cell: the grade, (2^grade-1), or either one chosen by the cell named Gain."""
    if switch:
        return f'IF(Gain="exponential",2^{grade_ref}-1,{grade_ref})'
    return f"(2^{grade_ref}-1)" if gain == "exponential" else grade_ref


def first_rank_cell(rank: int):
    """How a first relevant rank is shown: the rank, or "none" for a miss (rank 0)."""
    return rank if rank else "none"


def ndcg_or_undefined(grades, k: int, ideal, gain: metrics.Gain) -> float | str:
    """nDCG@k from helpers, or the text the sheet shows when IDCG is 0."""
    return metrics.value_or(UNDEFINED, metrics.ndcg, grades, k, ideal=ideal, gain=gain)


def _first_rank(example: Example, system: str, query: str) -> int:
    """The first relevant rank of one system on one query of an example (0 for a miss)."""
    return metrics.first_relevant_rank(example.ranking(system, query), example.relevant_for(query))


def _grades(ranked: Sequence, judgments: Mapping) -> list[float]:
    """The grades of the returned documents in rank order (0 for an unjudged one)."""
    return metrics.grades_in_rank_order(ranked, dict(judgments))


# --- the lesson layouts -------------------------------------------------------


def ndcg_worksheet(
    grades,
    missed=(),
    k: int = 5,
    gain: str = "linear",
    show_formulas: bool = False,
    *,
    gain_switch: bool = False,
    documents: Sequence[str] | None = None,
) -> Sheet:
    """The nDCG worksheet of example C: results, missed documents, gain, k, DCG@k, IDCG@k, NDCG@k (lesson 03).

    Row 1 holds the headers; the returned results fill the next rows (grades are
    input cells; when k reaches past the returned list, rank rows with no result
    carry the rest of the ideal), the judged documents the search missed follow
    with the label "missed", then the gain, the cut-off k, DCG@k, IDCG@k and
    NDCG@k one row each. With ``gain_switch`` the gain cell is an input named
    Gain that the formulas read (the .xlsx); ``documents`` (returned, then
    missed) fill a column F.

    >>> sheet = ndcg_worksheet([2, 0, 3, 1, 0, 2], [3], k=5)
    >>> sheet.formula("C2"), sheet.cell("B13").shown()
    ('=B2/LOG(A2+1,2)', '0.550')
    """
    grades, missed = check_grades(grades), check_grades(missed, name="missed")
    k = check_k(k, allow_none=False)
    gain = checked_gain(gain)
    if not grades:
        raise ValueError("grades is empty: the worksheet needs at least one returned result")
    if documents is not None and len(documents) != len(grades) + len(missed):
        raise ValueError(
            f"documents must name every returned and missed document: {len(documents)} names for "
            f"{len(grades)} returned and {len(missed)} missed"
        )
    # one row per returned result; when k reaches past them and the ideal still has
    # judged documents there, rank rows with no result follow so IDCG@k sees them
    table = metrics.arithmetic_table(grades, k=k, ideal=grades + missed, gain=gain)
    sheet = Sheet("nDCG worksheet", show_formulas, name="nDCG worksheet")
    headers = ["Rank", "Relevance (0–3)", "Discounted gain", "Ideal relevance", "Ideal DG"]
    for number, header in enumerate(headers + ["Document"] * (documents is not None), start=1):
        sheet.set(f"{column_letter(number)}1", header, role="header")
    final = len(table) + 1  # the last rank row
    last = final + len(missed)  # the last grade row
    places = uniform_decimals(grades + missed)
    for row, line in enumerate(table.to_dict("records"), start=2):
        sheet.set(f"A{row}", line["rank"], decimals=0)
        if line["rank"] <= len(grades):
            sheet.set(f"B{row}", whole(line["grade"]), is_input=True, decimals=places)
            discounted = f"={gain_formula(f'B{row}', gain, gain_switch)}/LOG(A{row}+1,2)"
            sheet.set(f"C{row}", float(line["discounted_gain"]), discounted, decimals=3)
        sheet.set(f"D{row}", whole(line["ideal_grade"]), f"=LARGE($B$2:$B${last},A{row})", decimals=places)
        ideal = f"={gain_formula(f'D{row}', gain, gain_switch)}/LOG(A{row}+1,2)"
        sheet.set(f"E{row}", float(line["ideal_discounted_gain"]), ideal, decimals=3)
    for row, grade in enumerate(missed, start=final + 1):
        sheet.set(f"A{row}", "missed", role="label")
        sheet.set(f"B{row}", whole(grade), is_input=True, decimals=places)
    sheet.rules[f"B2:B{last}"] = GRADE_RULE
    if documents is not None:
        grade_rows = [*range(2, 2 + len(grades)), *range(final + 1, last + 1)]
        for row, document in zip(grade_rows, documents, strict=True):
            sheet.set(f"F{row}", document, role="note")

    gain_row, k_row = last + 1, last + 2
    dcg_row, idcg_row, ndcg_row = k_row + 1, k_row + 2, k_row + 3
    sheet.set(f"A{gain_row}", "Gain", role="label")
    sheet.set(f"B{gain_row}", gain, is_input=gain_switch)
    if gain_switch:
        sheet.names["Gain"] = f"B{gain_row}"
        sheet.rules[f"B{gain_row}"] = GAIN_RULE
    sheet.set(f"A{k_row}", "Cut-off k", role="label")
    sheet.set(f"B{k_row}", k, is_input=True, decimals=0)
    sheet.rules[f"B{k_row}"] = cutoff_rule(highest=len(table))
    in_cut = f"(A2:A{final}<=B{k_row})"
    sheet.set(f"A{dcg_row}", "DCG@k", role="label")
    sheet.set(f"B{dcg_row}", metrics.dcg(grades, k, gain), f"=SUMPRODUCT({in_cut}*C2:C{final})", decimals=3)
    sheet.set(f"A{idcg_row}", "IDCG@k", role="label")
    idcg = metrics.ideal_dcg(grades + missed, k, gain)
    sheet.set(f"B{idcg_row}", idcg, f"=SUMPRODUCT({in_cut}*E2:E{final})", decimals=3)
    sheet.set(f"A{ndcg_row}", "NDCG@k", role="label")
    ndcg_formula = f'=IF(B{idcg_row}=0,"{UNDEFINED}",B{dcg_row}/B{idcg_row})'
    sheet.set(f"B{ndcg_row}", ndcg_or_undefined(grades, k, grades + missed, gain), ndcg_formula, decimals=3)
    sheet.add_block(1, ndcg_row, header_rows=(1,))
    return sheet


def mrr_worksheet(
    labels,
    first_ranks,
    k: int | None = None,
    start_row: int = 1,
    sheet: Sheet | None = None,
    *,
    questions: Sequence[str] | None = None,
) -> Sheet:
    """The MRR block of example C: query, first relevant rank ('none' for a miss), reciprocal rank, MRR.

    With ``k`` a column of reciprocal ranks @k, a cut-off row and an MRR@k row
    follow; ``questions`` fill a last column. ``start_row`` and ``sheet`` place
    the block below another one (row 15 of lesson 03's worksheet).
    """
    first_ranks = check_first_ranks(first_ranks)
    labels = list(labels)
    if len(labels) != len(first_ranks):
        raise ValueError(
            f"labels and first_ranks must have the same length: {len(labels)} vs {len(first_ranks)}"
        )
    if questions is not None and len(questions) != len(first_ranks):
        raise ValueError(f"questions must have one text per query: {len(questions)} for {len(first_ranks)}")
    if k is not None:
        k = check_k(k, allow_none=False)
    sheet = sheet if sheet is not None else Sheet("MRR worksheet", name="MRR worksheet")
    headers = ["Query", "First relevant rank", "Reciprocal rank"]
    headers += ["Reciprocal rank @k"] * (k is not None) + ["Question"] * (questions is not None)
    for number, header in enumerate(headers, start=1):
        sheet.set(f"{column_letter(number)}{start_row}", header, role="header")
    first, last = start_row + 1, start_row + len(first_ranks)
    k_row = last + 2
    for row, (label, rank) in enumerate(zip(labels, first_ranks, strict=True), start=first):
        sheet.set(f"A{row}", label)
        sheet.set(f"B{row}", first_rank_cell(rank), is_input=True, decimals=0)
        sheet.set(f"C{row}", metrics.reciprocal_rank_of(rank), f"=IFERROR(1/B{row},0)", decimals=3)
        if k is not None:
            within = f"AND(ISNUMBER(B{row}),B{row}<=$B${k_row})"
            sheet.set(f"D{row}", metrics.reciprocal_rank_of(rank, k), f"=IF({within},C{row},0)", decimals=3)
    if questions is not None:
        column = column_letter(len(headers))
        for row, question in enumerate(questions, start=first):
            sheet.set(f"{column}{row}", question, role="note")
    sheet.set(f"A{last + 1}", "MRR", role="label")
    mrr = metrics.mean_reciprocal_rank(first_ranks)
    sheet.set(f"C{last + 1}", mrr, f"=AVERAGE(C{first}:C{last})", decimals=3)
    end = last + 1
    if k is not None:
        sheet.set(f"A{k_row}", "Cut-off k (MRR@k)", role="label")
        sheet.set(f"B{k_row}", k, is_input=True, decimals=0)
        sheet.rules[f"B{k_row}"] = cutoff_rule()
        sheet.set(f"A{k_row + 1}", "MRR@k", role="label")
        mrr_at_k = metrics.mean_reciprocal_rank(first_ranks, k)
        sheet.set(f"C{k_row + 1}", mrr_at_k, f"=AVERAGE(D{first}:D{last})", decimals=3)
        end = k_row + 1
    sheet.add_block(start_row, end, header_rows=(start_row,))
    return sheet


# --- the arithmetic table of one query (lesson 02, the widgets) -------------

ARITHMETIC_HEADERS = {
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
ARITHMETIC_COLUMNS = tuple(ARITHMETIC_HEADERS)
DECIMALS = {"rank": 0, "discount": 3, "discounted_gain": 3, "ideal_discounted_gain": 3}


def arithmetic_worksheet(
    rows: pd.DataFrame | Sequence[Mapping],
    gain: str = "linear",
    *,
    columns: Sequence[str] = ARITHMETIC_COLUMNS,
    headers: Mapping[str, str] | None = None,
    ideal_range: str | None = None,
    totals_k: int | None = None,
    total_decimals: int = 3,
    title: str = "",
    show_formulas: bool = False,
) -> Sheet:
    """The arithmetic table of one query as a sheet, one rank per row (lesson 02, the widgets).

    ``rows`` is :func:`helpers.metrics.arithmetic_table` (or its records);
    ``columns`` picks and orders its columns, ``headers`` renames them.
    ``ideal_range`` is the cell range whose LARGE values are the ideal grades
    (None: the ideal holds judged documents that are not rows of the sheet, so
    its grades are typed in). With ``totals_k`` the rows DCG@k, IDCG@k and
    nDCG@k follow the table (when the ideal is 0, nDCG says undefined).

    >>> table = metrics.arithmetic_table([2, 0, 3], ideal=[3, 2, 0])
    >>> arithmetic_worksheet(table, columns=["rank", "grade", "discounted_gain"]).formula("C2")
    '=B2/LOG(A2+1,2)'
    """
    gain = checked_gain(gain)
    records = rows.to_dict("records") if isinstance(rows, pd.DataFrame) else [dict(row) for row in rows]
    unknown = [name for name in [*columns, *(headers or {})] if name not in ARITHMETIC_HEADERS]
    if unknown:
        raise ValueError(f"unknown column {unknown[0]!r}: choose from {', '.join(ARITHMETIC_COLUMNS)}")
    if "rank" not in columns or "grade" not in columns:
        raise ValueError("the columns must include 'rank' and 'grade': every formula starts from them")
    names = {**ARITHMETIC_HEADERS, **(headers or {})}
    letters = {name: column_letter(number) for number, name in enumerate(columns, start=1)}
    sheet = Sheet(title, show_formulas, name="arithmetic")
    for name in columns:
        sheet.set(f"{letters[name]}1", names[name], role="header")
    places = {name: DECIMALS.get(name, uniform_decimals(rec[name] for rec in records)) for name in columns}
    for row, record in enumerate(records, start=2):
        formulas = _arithmetic_formulas(letters, row, gain, ideal_range)
        for name in columns:
            value = record[name]
            if name == "in_top_k":
                value = "yes" if value else "no"
            typed_grade = name == "grade" or (name == "ideal_grade" and name not in formulas)
            sheet.set(
                f"{letters[name]}{row}",
                whole(value) if is_number(value) else value,
                formulas.get(name),
                is_input=typed_grade,
                decimals=places[name] if is_number(value) else None,
            )
    last = len(records) + 1
    if totals_k is not None:
        k = check_k(totals_k, allow_none=False)
        last = _arithmetic_totals(sheet, records, letters, gain, k, total_decimals)
    sheet.add_block(1, last, header_rows=(1,))
    return sheet


def _arithmetic_formulas(letters: Mapping[str, str], row: int, gain: str, ideal_range: str | None) -> dict:
    """The formula of each derived column of one row of the arithmetic table, from the columns present."""
    at = {name: f"{letter}{row}" for name, letter in letters.items()}
    rank = at["rank"]
    discount = at.get("discount", f"LOG({rank}+1,2)")
    formulas = {"discount": f"=LOG({rank}+1,2)"}
    sources = {"": at["grade"]}
    if ideal_range:
        formulas["ideal_grade"] = f"=LARGE({ideal_range},{rank})"
    if "ideal_grade" in at:
        sources["ideal_"] = at["ideal_grade"]
    for prefix, grade in sources.items():
        formulas[f"{prefix}gain"] = "=" + (f"2^{grade}-1" if gain == "exponential" else grade)
        numerator = at.get(f"{prefix}gain", gain_formula(grade, gain))
        formulas[f"{prefix}discounted_gain"] = f"={numerator}/{discount}"
    return {name: formula for name, formula in formulas.items() if name in letters}


def _arithmetic_totals(sheet: Sheet, records, letters, gain: metrics.Gain, k: int, decimals: int) -> int:
    """DCG@k, IDCG@k and nDCG@k under the table, as sums of the rows within the cut-off; the last row."""
    missing = {"discounted_gain", "ideal_discounted_gain", "ideal_grade"} - set(letters)
    if missing:
        raise ValueError(f"totals need the columns {', '.join(sorted(missing))}")
    grades = [record["grade"] for record in records]
    ideal = [record["ideal_grade"] for record in records]
    top = 1 + min(k, len(records))  # the last row within the cut-off
    dcg_row, idcg_row, ndcg_row = len(records) + 3, len(records) + 4, len(records) + 5
    dg, ideal_dg = letters["discounted_gain"], letters["ideal_discounted_gain"]
    idcg = metrics.ideal_dcg(ideal, k, gain)
    sheet.set(f"A{dcg_row}", f"DCG@{k}", role="label")
    sheet.set(f"B{dcg_row}", metrics.dcg(grades, k, gain), f"=SUM({dg}2:{dg}{top})", decimals=decimals)
    sheet.set(f"A{idcg_row}", f"IDCG@{k}", role="label")
    sheet.set(f"B{idcg_row}", idcg, f"=SUM({ideal_dg}2:{ideal_dg}{top})", decimals=decimals)
    sheet.set(f"A{ndcg_row}", f"nDCG@{k}", role="label")
    ratio = f"B{dcg_row}/B{idcg_row}"
    if idcg:
        ndcg = metrics.ndcg(grades, k, ideal=ideal, gain=gain)
        sheet.set(f"B{ndcg_row}", ndcg, f"={ratio}", decimals=decimals)
    else:
        sheet.set(f"B{ndcg_row}", UNDEFINED, f'=IF(B{idcg_row}=0,"{UNDEFINED}",{ratio})')
    return ndcg_row


# --- example C: lesson 03's layout ----------------------------------------

C_SHEET = "Example C"
C_RANK_ROWS = range(2, 8)  # the six returned results, rank 1..6 in column A
C_MISSED_ROW = 8  # the judged document the search missed: A8 "missed", B8 its grade
C_GAIN, C_K, C_DCG, C_IDCG, C_NDCG = "B9", "B10", "B11", "B12", "B13"
C_MRR_HEADER_ROW = 15
C_QUERY_ROWS = range(16, 21)  # five queries: first relevant rank in B, reciprocal rank in C
C_MRR, C_MRR_K, C_MRR_AT_K = "C21", "B22", "C23"


@dataclass(frozen=True)
class SheetInputs:
    """The yellow input cells of the example-C sheet, as written or as a learner edited them (lesson 03)."""

    grades: tuple[float, ...]  # B2:B7, the returned results in rank order
    missed: tuple[float, ...]  # B8, judged documents the search did not return
    gain: metrics.Gain  # B9, "linear" or "exponential"
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
    gain = checked_gain(gain)
    system, query = example.systems[0], example.query_ids[0]
    judgments = example.judgments_for(query)
    ranked = example.ranking(system, query)
    grades = _grades(ranked, judgments)
    missed = [grade for doc_id, grade in judgments.items() if doc_id not in ranked]
    first_ranks = [_first_rank(example, system, q) for q in example.query_ids]
    shape = (len(grades), len(missed), len(first_ranks))
    if shape != (len(C_RANK_ROWS), 1, len(C_QUERY_ROWS)):
        raise ValueError(
            "example C no longer fits lesson 03's cell layout (6 returned results, 1 missed document, "
            f"5 queries): the data has {shape[0]} returned, {shape[1]} missed, {shape[2]} queries"
        )
    cutoffs = CUTOFFS["C"]
    return SheetInputs(
        grades=tuple(grades), missed=tuple(missed), gain=gain, k=cutoffs["ndcg"],
        queries=tuple(example.query_ids), first_ranks=tuple(first_ranks), mrr_k=cutoffs["mrr"],
    )


def expected_c_cells(inputs: SheetInputs) -> dict[str, tuple[str, float | str]]:
    """Each derived cell of the example-C sheet -> (what it holds, helpers' value for it) (lesson 03).

    Computed straight from :mod:`helpers.metrics`, apart from the sheet builder,
    so that reading a workbook back checks the sheet against a second path.
    """
    table = metrics.arithmetic_table(list(inputs.grades), ideal=inputs.judged, gain=inputs.gain)
    cells: dict[str, tuple[str, float | str]] = {}
    for row in C_RANK_ROWS:
        line = table.iloc[row - 2]
        cells[f"C{row}"] = (f"discounted gain at rank {row - 1}", float(line["discounted_gain"]))
        cells[f"D{row}"] = (f"ideal relevance at rank {row - 1}", float(line["ideal_grade"]))
        cells[f"E{row}"] = (f"ideal DG at rank {row - 1}", float(line["ideal_discounted_gain"]))
    cells[C_DCG] = ("DCG@k", metrics.dcg(inputs.grades, inputs.k, inputs.gain))
    cells[C_IDCG] = ("IDCG@k", metrics.ideal_dcg(inputs.judged, inputs.k, inputs.gain))
    cells[C_NDCG] = ("nDCG@k", ndcg_or_undefined(inputs.grades, inputs.k, inputs.judged, inputs.gain))
    for row, query, rank in zip(C_QUERY_ROWS, inputs.queries, inputs.first_ranks, strict=True):
        cells[f"C{row}"] = (f"reciprocal rank of {query}", metrics.reciprocal_rank_of(rank))
        cells[f"D{row}"] = (f"reciprocal rank @k of {query}", metrics.reciprocal_rank_of(rank, inputs.mrr_k))
    cells[C_MRR] = ("MRR", metrics.mean_reciprocal_rank(inputs.first_ranks))
    cells[C_MRR_AT_K] = ("MRR@k", metrics.mean_reciprocal_rank(inputs.first_ranks, inputs.mrr_k))
    return cells


def example_c_sheet(
    inputs: SheetInputs, documents: Sequence[str] | None = None, questions: Sequence[str] | None = None
) -> Sheet:
    """Example C in lesson 03's layout: nDCG@k of one query (rows 1-13) and MRR of five (rows 15-23)."""
    sheet = ndcg_worksheet(
        inputs.grades, inputs.missed, inputs.k, inputs.gain, gain_switch=True, documents=documents
    )
    mrr_worksheet(
        inputs.queries, inputs.first_ranks, k=inputs.mrr_k, start_row=C_MRR_HEADER_ROW, sheet=sheet,
        questions=questions,
    )
    sheet.name, sheet.title = C_SHEET, "Example C: nDCG@k of one query, MRR of five"
    return sheet


def _example_c(example: Example, gain: metrics.Gain) -> tuple[Sheet, list[str]]:
    """Example C from data/example_c, with document titles and questions, and its notes."""
    inputs = example_c_inputs(example, gain)
    query = example.query_ids[0]
    ranked = example.ranking(example.systems[0], query)
    missed_ids = [doc_id for doc_id in example.judgments_for(query) if doc_id not in ranked]
    documents = [f"{doc_id}: {example.title(doc_id)}" for doc_id in ranked]
    documents += [f"{doc_id}: {example.title(doc_id)} (judged, not returned)" for doc_id in missed_ids]
    questions = [example.query_text(query_id) for query_id in inputs.queries]
    sheet = example_c_sheet(inputs, documents, questions)
    returned_only = metrics.ndcg(list(inputs.grades), inputs.k, gain=gain)
    judged = ndcg_or_undefined(inputs.grades, inputs.k, inputs.judged, gain)
    notes = [
        f"Rows 2–8: query {query!r} ({example.query_text(query)}), system {example.systems[0]!r}.",
        "Row 8 is a judged document the search missed: it counts for the ideal column only.",
        f"Building the ideal from the returned results only would give nDCG@{inputs.k} = "
        f"{returned_only:.3f} instead of {judged:.3f}: it hides the missed document.",
        "Rows 16–20: first relevant rank of each query; type none for a query with no relevant result.",
        "D16:D20 give credit only when the first hit is within the cut-off in B22 (MRR@k).",
        f"The cut-off k in B10 goes from 1 to {len(C_RANK_ROWS)}: the sheet lists {len(C_RANK_ROWS)} ranks.",
        "Check an edited copy against helpers: python -m helpers.sheet --check FILE.xlsx",
    ]
    return sheet, notes


# --- example A: first relevant ranks, MRR and hit rate (lesson 01) -----------


def _example_a(example: Example, gain: metrics.Gain) -> tuple[Sheet, list[str]]:
    """Example A: per-system first relevant ranks -> reciprocal ranks -> MRR, and hit rate@k."""
    sheet = Sheet("Example A: MRR and hit rate@k of two systems", name="Example A")
    queries, systems, k = example.query_ids, example.systems, CUTOFFS["A"]["hit"]
    first, last = 2, 1 + len(queries)
    mrr_row, hit_row, k_row = last + 1, last + 2, last + 4
    k_ref = f"$B${k_row}"
    sheet.set("A1", "Query", role="header")
    sheet.set("B1", "Question", role="header")
    for i, system in enumerate(systems):
        rank_col, rr_col, hit_col = (column_letter(3 + 3 * i + j) for j in range(3))
        ranks = [_first_rank(example, system, q) for q in queries]
        sheet.set(f"{rank_col}1", f"{system}: first relevant rank", role="header")
        sheet.set(f"{rr_col}1", f"{system}: reciprocal rank", role="header")
        sheet.set(f"{hit_col}1", f"{system}: hit@k", role="header")
        for row, rank in zip(range(first, last + 1), ranks, strict=True):
            sheet.set(f"{rank_col}{row}", first_rank_cell(rank), is_input=True, decimals=0)
            reciprocal = f"=IFERROR(1/{rank_col}{row},0)"
            sheet.set(f"{rr_col}{row}", metrics.reciprocal_rank_of(rank), reciprocal, decimals=3)
            within = f"AND(ISNUMBER({rank_col}{row}),{rank_col}{row}>=1,{rank_col}{row}<={k_ref})"
            sheet.set(f"{hit_col}{row}", metrics.mean_hit_rate([rank], k), f"=IF({within},1,0)", decimals=0)
        sheet.set(f"{rr_col}{mrr_row}", metrics.mean_reciprocal_rank(ranks),
                  f"=AVERAGE({rr_col}{first}:{rr_col}{last})", decimals=3)
        sheet.set(f"{hit_col}{hit_row}", metrics.mean_hit_rate(ranks, k),
                  f"=AVERAGE({hit_col}{first}:{hit_col}{last})", decimals=3)
    for row, query_id in zip(range(first, last + 1), queries, strict=True):
        sheet.set(f"A{row}", query_id)
        sheet.set(f"B{row}", example.query_text(query_id), role="note")
    sheet.set(f"A{mrr_row}", "MRR", role="label")
    sheet.set(f"A{hit_row}", "Hit rate@k", role="label")
    sheet.set(f"A{k_row}", "Cut-off k (hit rate)", role="label")
    sheet.set(f"B{k_row}", k, is_input=True, decimals=0)
    sheet.rules[f"B{k_row}"] = cutoff_rule()
    sheet.add_block(1, k_row, header_rows=(1,))
    notes = [
        f"Each system answered the same {len(queries)} questions; a row is one question.",
        "First relevant rank: the rank of the first passage judged relevant (grade >= 1); none = a miss.",
        "MRR uses the whole list (no cut-off); hit@k is 1 when the first relevant rank is 1..k.",
        f"Exercise: type 1 as NEW's first relevant rank of {queries[0]} (move the relevant passage "
        "to the top) and watch NEW's MRR change while its hit rate stays the same.",
    ]
    return sheet, notes


# --- example B: three orderings of one query, graded (lesson 02) -------------


@dataclass(frozen=True)
class _FrameB:
    """Where things sit on the example-B sheet: rank rows, summary rows, the judged table."""

    rows: range  # one row per rank
    judged_rows: range  # the judged documents table: id in A, grade in B
    k: int
    gain: metrics.Gain
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


def _gain_columns_b(sheet: Sheet, frame: _FrameB, columns: tuple[str, str], title: str,
                    grade_formula: str, grades: list[float] | None) -> None:
    """A grade column, its discounted gains and their DCG@k; grades None means the ideal ranking."""
    grade_col, dg_col = columns
    padded = [0.0] * len(frame.rows) if grades is None else grades
    table = metrics.arithmetic_table(padded, ideal=frame.judged, gain=frame.gain)
    keys = ("ideal_grade", "ideal_discounted_gain") if grades is None else ("grade", "discounted_gain")
    places = uniform_decimals(frame.judged)
    sheet.set(f"{grade_col}5", f"{title}: grade", role="header")
    sheet.set(f"{dg_col}5", f"{title}: discounted gain", role="header")
    for row, line in zip(frame.rows, table.to_dict("records"), strict=True):
        sheet.set(f"{grade_col}{row}", whole(line[keys[0]]), grade_formula.format(row=row), decimals=places)
        discounted = f"={gain_formula(f'{grade_col}{row}', frame.gain, switch=True)}/$B{row}"
        sheet.set(f"{dg_col}{row}", float(line[keys[1]]), discounted, decimals=4)
    if grades is None:
        total = metrics.ideal_dcg(frame.judged, frame.k, frame.gain)
    else:
        total = metrics.dcg(grades, frame.k, frame.gain)
    in_top_k = f"($A${frame.rows[0]}:$A${frame.rows[-1]}<=$B$3)"
    sheet.set(f"{dg_col}{frame.dcg_row}", total, f"=SUMPRODUCT({in_top_k}*{frame.span(dg_col)})", decimals=4)


def _example_b(example: Example, gain: metrics.Gain) -> tuple[Sheet, list[str]]:
    """Example B: the three orderings' grades, discounts, DCG, the ideal, and nDCG@k."""
    sheet = Sheet("Example B: DCG and nDCG@k of three orderings", name="Example B")
    sheet.names["Gain"] = "B2"
    query, k = example.query_ids[0], CUTOFFS["B"]["ndcg"]
    judgments = example.judgments_for(query)
    rankings = {system: example.ranking(system, query) for system in example.systems}
    n_rows = max(len(judgments), *(len(ranked) for ranked in rankings.values()))
    rows = range(6, 6 + n_rows)
    judged_rows = range(rows[-1] + 5, rows[-1] + 5 + len(judgments))
    frame = _FrameB(rows, judged_rows, k, gain, list(judgments.values()))

    sheet.set("A1", "Question", role="label")
    sheet.set("B1", example.query_text(query), role="title")
    sheet.set("A2", "Gain", role="label")
    sheet.set("B2", gain, is_input=True)
    sheet.rules["B2"] = GAIN_RULE
    sheet.set("A3", "Cut-off k", role="label")
    sheet.set("B3", k, is_input=True, decimals=0)
    sheet.rules["B3"] = cutoff_rule(highest=n_rows)
    sheet.set("A5", "Rank", role="header")
    sheet.set("B5", "Discount log2(rank+1)", role="header")
    for rank, row in enumerate(rows, start=1):
        sheet.set(f"A{row}", rank, decimals=0)
        sheet.set(f"B{row}", metrics.discount(rank), f"=LOG(A{row}+1,2)", decimals=4)

    ideal_grade, ideal_dg = (column_letter(3 + 3 * len(rankings) + j) for j in range(2))
    _gain_columns_b(sheet, frame, (ideal_grade, ideal_dg), "Ideal",
                    f"=IFERROR(LARGE({frame.judged_span('B', 'B')},A{{row}}),0)", None)
    for i, (system, ranked) in enumerate(rankings.items()):
        doc_col, grade_col, dg_col = (column_letter(3 + 3 * i + j) for j in range(3))
        sheet.set(f"{doc_col}5", f"{system}: document", role="header")
        for row, doc_id in zip(rows, ranked + [None] * (n_rows - len(ranked)), strict=True):
            sheet.set(f"{doc_col}{row}", doc_id, is_input=True)
        grades = _grades(ranked, judgments) + [0.0] * (n_rows - len(ranked))
        lookup = f"=IFERROR(VLOOKUP({doc_col}{{row}},{frame.judged_span('A', 'B')},2,FALSE),0)"
        _gain_columns_b(sheet, frame, (grade_col, dg_col), system, lookup, grades)
        idcg_ref = f"${ideal_dg}${frame.dcg_row}"
        ratio = f'=IF({idcg_ref}=0,"{UNDEFINED}",{dg_col}{frame.dcg_row}/{idcg_ref})'
        ndcg = ndcg_or_undefined(grades, k, frame.judged, gain)
        sheet.set(f"{dg_col}{frame.ndcg_row}", ndcg, ratio, decimals=4)
    sheet.set(f"A{frame.dcg_row}", "DCG@k (ideal: IDCG@k)", role="label")
    sheet.set(f"A{frame.ndcg_row}", "nDCG@k", role="label")
    sheet.add_block(1, frame.ndcg_row, header_rows=(5,))

    header_row = frame.judged_rows[0] - 1
    for column, header in zip("ABC", ["Judged document", "Grade", "Title"], strict=True):
        sheet.set(f"{column}{header_row}", header, role="header")
    places = uniform_decimals(judgments.values())
    for row, (doc_id, grade) in zip(frame.judged_rows, judgments.items(), strict=True):
        sheet.set(f"A{row}", doc_id, is_input=True)
        sheet.set(f"B{row}", whole(grade), is_input=True, decimals=places)
        sheet.set(f"C{row}", example.title(doc_id), role="note")
    sheet.rules[f"B{frame.judged_rows[0]}:B{frame.judged_rows[-1]}"] = GRADE_RULE
    sheet.add_block(header_row, frame.judged_rows[-1], header_rows=(header_row,))
    notes = [
        f"One question ({query}); each ordering is the same passages in a different order.",
        "A grade is looked up in the judged documents table below (VLOOKUP); an unjudged passage scores 0.",
        "The ideal column sorts every judged grade from high to low with LARGE.",
        "Exercise: set D4's grade to 1 in the judged table; or delete D11 from every ordering "
        "(shift the cells below it up) and see why nDCG stays below 1.",
    ]
    return sheet, notes


# --- example D: MRR@k and Hit@k with an unanswerable question (lesson 04) -----


def _example_d(example: Example, gain: metrics.Gain) -> tuple[Sheet, list[str]]:
    """Example D: MRR@k and Hit@k over the answerable questions; an unanswerable one is shown, not counted."""
    sheet = Sheet("Example D: MRR@k and Hit@k of a retrieval advisor", name="Example D")
    system, queries, k = example.systems[0], example.query_ids, CUTOFFS["D"]["mrr_hit"]
    first, last = 2, 1 + len(queries)
    mrr_row, hit_row, k_row, count_row = last + 1, last + 2, last + 4, last + 5
    k_ref = f"$B${k_row}"
    counted = f"$E${first}:$E${last}"
    headers = ["Question", "Question text", "Relevant chunks (judged)", "First relevant rank",
               "Counted", "Reciprocal rank @k", "Hit@k"]
    for column, header in zip("ABCDEFG", headers, strict=True):
        sheet.set(f"{column}1", header, role="header")
    answerable_ranks = []
    for row, query_id in zip(range(first, last + 1), queries, strict=True):
        relevant = example.relevant_for(query_id)
        rank = metrics.first_relevant_rank(example.ranking(system, query_id), relevant)
        if relevant:
            answerable_ranks.append(rank)
        sheet.set(f"A{row}", query_id)
        sheet.set(f"B{row}", example.query_text(query_id), role="note")
        sheet.set(f"C{row}", len(relevant), is_input=True, decimals=0)
        sheet.set(f"D{row}", first_rank_cell(rank), is_input=True, decimals=0)
        status = "yes" if relevant else "no (unanswerable)"
        sheet.set(f"E{row}", status, f'=IF(C{row}>0,"yes","no (unanswerable)")')
        within_k = f"AND(ISNUMBER(D{row}),D{row}>=1,D{row}<={k_ref})"
        sheet.set(f"F{row}", metrics.reciprocal_rank_of(rank, k) if relevant else "excluded",
                  f'=IF(E{row}="yes",IF({within_k},1/D{row},0),"excluded")', decimals=3)
        sheet.set(f"G{row}", metrics.mean_hit_rate([rank], k) if relevant else "excluded",
                  f'=IF(E{row}="yes",IF({within_k},1,0),"excluded")', decimals=0)
    sheet.set(f"A{mrr_row}", "MRR@k", role="label")
    sheet.set(f"F{mrr_row}", metrics.mean_reciprocal_rank(answerable_ranks, k),
              f'=AVERAGEIF({counted},"yes",F{first}:F{last})', decimals=3)
    sheet.set(f"A{hit_row}", "Hit@k", role="label")
    sheet.set(f"G{hit_row}", metrics.mean_hit_rate(answerable_ranks, k),
              f'=AVERAGEIF({counted},"yes",G{first}:G{last})', decimals=3)
    sheet.set(f"A{k_row}", "Cut-off k", role="label")
    sheet.set(f"B{k_row}", k, is_input=True, decimals=0)
    sheet.rules[f"B{k_row}"] = cutoff_rule()
    sheet.set(f"A{count_row}", "Questions counted", role="label")
    sheet.set(f"B{count_row}", len(answerable_ranks), f'=COUNTIF({counted},"yes")', decimals=0)
    sheet.add_block(1, count_row, header_rows=(1,))
    notes = [
        f"System {system!r} keeps the top k chunks; k is the same for MRR@k and Hit@k.",
        "A question with no relevant chunk at all is unanswerable: it is shown but left out of both means.",
        "First relevant rank is over the whole returned list; a first hit below k scores 0 at k.",
        "Equal similarity scores are ordered by chunk id, so the ranks are reproducible.",
    ]
    return sheet, notes


LAYOUTS: dict[str, Callable[[Example, metrics.Gain], tuple[Sheet, list[str]]]] = {
    "A": _example_a, "B": _example_b, "C": _example_c, "D": _example_d,
}


def conventions_sheet(letter: str, notes: Sequence[str]) -> Sheet:
    """The second sheet of a workbook: the conventions the formulas follow, then the example's notes."""
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
        "Printing: landscape, one page wide, one page per table.",
        "",
        *notes,
    ]
    sheet = Sheet(f"Example {letter}: conventions", name="Conventions")
    for row, line in enumerate(lines, start=1):
        sheet.set(f"A{row}", line, role="title" if row == 1 else "note")
    sheet.widths[1] = 110
    return sheet


def resolve_example(example) -> tuple[str, Example]:
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


def example_sheets(example, gain: str = "linear") -> list[Sheet]:
    """The sheets of one example's workbook: the worked example, then its conventions (lessons 01-04).

    ``example`` is a name ("C") or a loaded Example; ``gain`` sets the Gain
    switch of the graded examples B and C.
    """
    letter, data = resolve_example(example)
    gain = checked_gain(gain)
    if gain != "linear" and letter not in GRADED:
        raise ValueError(f"example {letter} has no graded gain: only examples B and C have a gain switch")
    sheet, notes = LAYOUTS[letter](data, gain)
    return [sheet, conventions_sheet(letter, notes)]
