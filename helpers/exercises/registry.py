"""Check the answers to the exercises of the lessons, and say which common mistake a wrong one shows.

Two kinds of exercise:

- **answer** exercises: ``check("old-mrr", 0.75)`` reads a number (float, int,
  numpy scalar, Fraction, or a string such as ``"0.55"``, ``"3/4"``, ``"55%"``,
  ``" 0,55 "``) and compares it with the expected value at the precision the
  exercise states;
- **function** exercises: ``check_function("mrr-function", mrr)`` runs the
  learner's own function on hidden cases, each in its own forked process that
  is killed after a time limit (a thread where fork is missing), and shows a
  table of input, expected, got and ✓/✗. Values within 1e-6 pass; a value
  rounded to 2-4 decimals passes with a note. A case whose value is undefined
  (an MRR over no query, an nDCG whose grades are all 0) accepts 0.0, nan, or a
  ValueError / ZeroDivisionError, shown as a note and not as a failure.

Expected values are computed at check time from ``data/`` through
:mod:`helpers.metrics`; the numbers of the common mistakes through
:mod:`helpers.mistakes`. A wrong answer that equals a mistake's number gets
that mistake's title and fix (every mistake, when several give the number).
A check never shows the expected value: ``reveal(exercise_id)`` does, with
how it is computed. ``list_exercises()`` lists every id with its lesson and
question; ``mistake_values(exercise_id)`` the number of each mistake (lesson 07).

When the environment variable ``HELPERS_CHECK_LOG`` names a file, every check,
function check and reveal appends one JSON line to it (the teacher's grader,
``python -m helpers.grade``, sets it).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Real
from typing import NamedTuple

import pandas as pd

from helpers import metrics as m
from helpers import mistakes as mk
from helpers.data import load_example
from helpers.exercises.answers import (
    GREEN,
    GREY,
    RED,
    Answer,
    UnreadableAnswer,
    is_close,
    judge,
    read_answer,
    short_text,
)
from helpers.exercises.checklog import LOG_ENV, record, result_fields  # noqa: F401 (LOG_ENV: the grader reads it here)
from helpers.exercises.runner import UNDEFINED, Case, FunctionExercise, FunctionReport, run_cases

# Codes about the form of an answer rather than about the metric.
ANSWER_ISSUES = {
    "no-answer": "the answer is still None: nothing to check yet",
    "unreadable": "the answer could not be read as a number",
    "too-few-decimals": "right as far as it goes, but with fewer decimals than the exercise asks",
    "close": "close, but not right at the asked precision (rounded too early, or cut off digits)",
}



# --- the exercises -----------------------------------------------------------


class Solution(NamedTuple):
    """The expected value of an exercise, how it is computed, and the values of the mistakes."""

    value: float
    how: str
    variants: list[tuple[tuple[str, ...], float]]


@dataclass(frozen=True)
class Exercise:
    """One answer exercise: id, lesson, question, precision and the function that solves it."""

    id: str
    lesson: str
    question: str
    hint: str
    solve: Callable[[], Solution]
    decimals: int = 3
    min_decimals: int | None = None

    @property
    def rounding(self) -> str:
        """The rounding rule in words."""
        if self.min_decimals is None:
            return f"give {self.decimals} decimals"
        return f"{self.decimals} decimals, {self.min_decimals} accepted"


def _fmt(values, decimals: int = 3) -> str:
    return ", ".join(f"{value:.{decimals}f}" for value in values)


def _grades_text(values) -> str:
    return ", ".join(f"{value:g}" for value in values)


def answerable_first_ranks(example: str, system: str, k: int | None = None) -> tuple[list[int], int]:
    """First relevant rank of each answerable query (0 = miss) and the count of unanswerable ones.

    With k, a first hit past k is a miss (the system keeps only k results).

    >>> answerable_first_ranks("D", "advisor", k=4)
    ([1, 3, 0], 1)
    """
    data = load_example(example)
    ranks, unanswerable = [], 0
    for query_id in data.query_ids:
        relevant = data.relevant_for(query_id)
        if not relevant:
            unanswerable += 1
            continue
        ranks.append(m.first_relevant_rank(data.ranking(system, query_id), relevant, k))
    return ranks, unanswerable


def mrr_solution(
    ranks: list[int], k: int | None, label: str, hit_k: int | None, unanswerable: int = 0
) -> Solution:
    """Solution of an MRR exercise with the values of the MRR mistakes."""
    value = m.mean_reciprocal_rank(ranks, k)
    reciprocals = [m.reciprocal_rank_of(rank, k) for rank in ranks]
    shown = ", ".join(str(rank) if rank else "none" for rank in ranks)
    name = "MRR" if k is None else f"MRR@{k}"
    how = (
        f"{label}: first relevant ranks {shown} -> reciprocal ranks {_fmt(reciprocals)} -> "
        f"{name} = {sum(reciprocals):.4f} / {len(ranks)} = {value:.4f} (metrics.mean_reciprocal_rank)"
    )
    variants = [
        (("hit-rate-for-mrr",), mk.hit_rate_instead_of_mrr(ranks, hit_k)),
        (("dropped-misses",), mk.mrr_dropping_misses(ranks, k)),
        (("ranks-from-zero",), mk.mrr_ranks_from_zero(ranks, k)),
        (("sum-not-mean",), mk.mrr_sum_instead_of_mean(ranks, k)),
    ]
    if k is not None:
        variants.append((("ignored-cutoff",), mk.mrr_ignoring_cutoff(ranks)))
    if unanswerable:
        variants.append((("kept-unanswerable",), mk.mrr_keeping_unanswerable(ranks, unanswerable, k)))
    return Solution(value, how, variants)


def ndcg_solution(grades, ideal, k: int | None, gain: str, label: str) -> Solution:
    """Solution of an nDCG exercise with the values of the nDCG mistakes."""
    ideal = grades if ideal is None else ideal
    actual, best = m.dcg(grades, k, gain), m.ideal_dcg(ideal, k, gain)
    value = m.ndcg(grades, k, ideal=ideal, gain=gain)
    at = "" if k is None else f"@{k}"
    how = (
        f"{label}: grades in rank order {_grades_text(grades)}, {gain} gain -> DCG{at} {actual:.4f}; "
        f"ideal grades {_grades_text(sorted(ideal, reverse=True))} -> IDCG{at} {best:.4f}; "
        f"nDCG{at} = {actual:.4f} / {best:.4f} = {value:.4f} (metrics.ndcg)"
    )
    return Solution(value, how, ndcg_variants(grades, ideal, k, gain))


def ndcg_variants(grades, ideal, k: int | None, gain: str) -> list[tuple[tuple[str, ...], float]]:
    """The nDCG values that the common nDCG mistakes give for one query."""
    other = "exponential" if gain == "linear" else "linear"
    swap = "exponential-for-linear" if gain == "linear" else "linear-for-exponential"
    variants = [
        (("dcg-for-ndcg",), m.dcg(grades, k, gain)),
        (("no-discount",), mk.ndcg_no_discount(grades, k, ideal, gain)),
        (("log2-rank",), mk.ndcg_log2_rank(grades, k, ideal, gain)),
        (("log2-rank-first-undiscounted",), mk.ndcg_log2_rank_first_undiscounted(grades, k, ideal, gain)),
        (("ranks-from-zero",), mk.ndcg_ranks_from_zero(grades, k, ideal, gain)),
        ((swap,), m.ndcg(grades, k, ideal=ideal, gain=other)),
        (("retrieved-only-ideal",), mk.undefined_as_zero(mk.ndcg_retrieved_only_ideal, grades, k, gain)),
        ((swap, "retrieved-only-ideal"),
         mk.undefined_as_zero(mk.ndcg_retrieved_only_ideal, grades, k, other)),
    ]
    if k is not None and k < max(len(grades), len(ideal)):
        variants.append((("ignored-cutoff",), mk.ndcg_ignoring_cutoff(grades, ideal, gain)))
    return variants


def query_grades(example: str, system: str, query_id: str, changes: dict | None = None, drop=()):
    """Grades in rank order and judged grades of one query, after optional edits of the data.

    ``changes`` sets new grades (doc -> grade); ``drop`` removes ids from the ranking. Whole
    grades come back as int, so that a learner's function sees [2, 0, 3] as in the lessons.
    """
    data = load_example(example)
    judgments = {**data.judgments_for(query_id), **(changes or {})}
    ranked = [doc for doc in data.ranking(system, query_id) if doc not in set(drop)]
    return _whole(m.grades_in_rank_order(ranked, judgments)), _whole(judgments.values())


def _whole(grades) -> list:
    return [int(grade) if float(grade).is_integer() else float(grade) for grade in grades]


# Lesson 01: hit rate and MRR (example A) ---------------------------------------


def solve_mrr_practice() -> Solution:
    """mrr-practice: MRR of the first ranks 1, 3, 0, 2."""
    return mrr_solution([1, 3, 0, 2], None, "mrr([1, 3, 0, 2])", hit_k=None)


def solve_system_mrr(system: str) -> Solution:
    """old-mrr / new-mrr: MRR of one system of example A."""
    ranks, _ = answerable_first_ranks("A", system)
    return mrr_solution(ranks, None, f"example A, {system}", hit_k=3)


def solve_hit_rate_at_3() -> Solution:
    """hit-rate-at-3: hit rate@3 of NEW in example A."""
    ranks, _ = answerable_first_ranks("A", "NEW")
    value = m.mean_hit_rate(ranks, 3)
    how = (
        f"example A, NEW: first relevant ranks {', '.join(map(str, ranks))}; "
        f"{sum(1 for rank in ranks if 1 <= rank <= 3)} of {len(ranks)} are 1..3 -> "
        f"hit rate@3 {value:.3f} (metrics.mean_hit_rate)"
    )
    variants = [
        (("mrr-for-hit-rate",), mk.mrr_instead_of_hit_rate(ranks)),
        (("mrr-for-hit-rate",), mk.mrr_instead_of_hit_rate(ranks, 3)),
        (("ignored-cutoff",), mk.hit_rate_ignoring_cutoff(ranks)),
        (("cutoff-off-by-one",), mk.hit_rate_cutoff_off_by_one(ranks, 3)),
    ]
    return Solution(value, how, variants)


def solve_new_mrr_d8_first() -> Solution:
    """new-mrr-d8-first: NEW's MRR once D8 is moved to rank 1 for q1."""
    data = load_example("A")
    ranks = []
    for query_id in data.query_ids:
        ranked = data.ranking("NEW", query_id)
        if query_id == "q1":
            ranked = ["D8"] + [doc for doc in ranked if doc != "D8"]
        ranks.append(m.first_relevant_rank(ranked, data.relevant_for(query_id)))
    return mrr_solution(ranks, None, "example A, NEW with D8 moved to rank 1 for q1", hit_k=3)


def solve_explain_rr_mean() -> Solution:
    """explain-rr-mean: mean reciprocal rank of first ranks 1, 2, 5."""
    return mrr_solution([1, 2, 5], None, "first ranks 1, 2, 5", hit_k=None)


# Lesson 02: DCG and nDCG (example B) -------------------------------------------


def solve_ndcg_practice() -> Solution:
    """ndcg-practice: nDCG@3 of gains 1, 0, 2 with the ideal from the same gains."""
    return ndcg_solution([1, 0, 2], None, 3, "linear", "ndcg([1, 0, 2], k=3), ideal from the same gains")


def solve_swapped_ndcg() -> Solution:
    """swapped-ndcg: nDCG@5 of example B's swapped ordering."""
    grades, judged = query_grades("B", "swapped", "b1")
    return ndcg_solution(grades, judged, 5, "linear", "example B, swapped order")


def solve_d4_grade_1_swapped() -> Solution:
    """d4-grade-1-swapped: the swapped ordering once D4's grade is 1 (and the stale ideal)."""
    grades, judged = query_grades("B", "swapped", "b1", changes={"D4": 1.0})
    solution = ndcg_solution(grades, judged, 5, "linear", "example B, swapped order, D4 graded 1")
    _, old_judged = query_grades("B", "swapped", "b1")
    stale = (("stale-ideal",), mk.ndcg_stale_ideal(grades, old_judged, k=5))
    return solution._replace(variants=solution.variants + [stale])


def solve_d11_removed_swapped() -> Solution:
    """d11-removed-swapped: the swapped ordering without D11, D11 still judged."""
    grades, judged = query_grades("B", "swapped", "b1", drop=["D11"])
    return ndcg_solution(grades, judged, 5, "linear", "example B, swapped order without D11")


def solve_explain_ndcg_03() -> Solution:
    """explain-ndcg-03: gains 0, 3 against the ideal 3, 0."""
    return ndcg_solution([0, 3], [3, 0], None, "linear", "gains 0, 3 against the ideal 3, 0")


# Lesson 03: the spreadsheet and the help desk (example C) ---------------------


def sheet_grades() -> tuple[list[float], list[float]]:
    """Example C, query reset-password: the grades in rank order and every judged grade."""
    return query_grades("C", "search", "reset-password")


def dcg_variants(grades, k: int, gain: str = "linear") -> list[tuple[tuple[str, ...], float]]:
    """The DCG values that the common DCG mistakes give."""
    return [
        (("exponential-for-linear",), m.dcg(grades, k, "exponential")),
        (("no-discount",), mk.dcg_no_discount(grades, k, gain)),
        (("log2-rank",), mk.dcg_log2_rank(grades, k, gain)),
        (("log2-rank-first-undiscounted",), mk.dcg_log2_rank_first_undiscounted(grades, k, gain)),
        (("ranks-from-zero",), mk.dcg_ranks_from_zero(grades, k, gain)),
        (("ignored-cutoff",), m.dcg(grades, None, gain)),
    ]


def solve_sheet_dcg5() -> Solution:
    """sheet-dcg5: DCG@5 of example C."""
    grades, _ = sheet_grades()
    value = m.dcg(grades, 5)
    how = f"example C: grades {_grades_text(grades[:5])} in the top 5 -> DCG@5 {value:.4f} (metrics.dcg)"
    return Solution(value, how, dcg_variants(grades, 5))


def solve_sheet_idcg5() -> Solution:
    """sheet-idcg5: IDCG@5 of example C, the missed document included."""
    grades, judged = sheet_grades()
    ideal = sorted(judged, reverse=True)
    value = m.ideal_dcg(judged, 5)
    how = (
        f"example C: every judged grade sorted {_grades_text(ideal)} (the missed grade-3 document "
        f"included) -> IDCG@5 {value:.4f} (metrics.ideal_dcg)"
    )
    variants = dcg_variants(ideal, 5) + [(("retrieved-only-ideal",), m.ideal_dcg(grades, 5))]
    return Solution(value, how, variants)


def solve_sheet_ndcg5() -> Solution:
    """sheet-ndcg5: NDCG@5 of example C."""
    grades, judged = sheet_grades()
    return ndcg_solution(grades, judged, 5, "linear", "example C, reset-password")


def solve_helpdesk_mrr(k: int | None) -> Solution:
    """helpdesk-mrr / helpdesk-mrr-at-2: MRR (or MRR@k) of the five help-desk queries."""
    ranks, _ = answerable_first_ranks("C", "search")
    return mrr_solution(ranks, k, "example C, help desk", hit_k=k)


def solve_helpdesk_mean_ndcg5() -> Solution:
    """helpdesk-mean-ndcg5: mean NDCG@5 of the five help-desk queries."""
    data = load_example("C")
    queries = [query_grades("C", "search", query_id) for query_id in data.query_ids]
    scores = [m.ndcg(grades, 5, ideal=judged) for grades, judged in queries]
    value = sum(scores) / len(scores)
    how = f"example C: nDCG@5 per query {_fmt(scores, 4)} -> mean {value:.4f} (metrics.ndcg)"
    retrieved_only = [mk.undefined_as_zero(mk.ndcg_retrieved_only_ideal, grades, 5) for grades, _ in queries]
    exponential = [m.ndcg(grades, 5, ideal=judged, gain="exponential") for grades, judged in queries]
    found = [score for score in scores if score > 0]
    variants = [
        (("mean-dcg",), mk.mean_dcg_instead_of_ndcg([grades for grades, _ in queries], 5)),
        (("dropped-misses",), sum(found) / len(found)),
        (("retrieved-only-ideal",), sum(retrieved_only) / len(retrieved_only)),
        (("exponential-for-linear",), sum(exponential) / len(exponential)),
    ]
    return Solution(value, how, variants)


# Lesson 04: MRR@4 of the retrieval advisor (example D) -------------------------


def solve_advisor_mrr4() -> Solution:
    """advisor-mrr4: MRR@4 of example D, the unanswerable question left out."""
    ranks, unanswerable = answerable_first_ranks("D", "advisor", k=4)
    solution = mrr_solution(ranks, 4, "example D, advisor (d4 unanswerable, left out)", 4, unanswerable)
    full_ranks, _ = answerable_first_ranks("D", "advisor")
    ignored = (("ignored-cutoff",), mk.mrr_ignoring_cutoff(full_ranks))
    variants = [variant for variant in solution.variants if variant[0] != ("ignored-cutoff",)]
    return solution._replace(variants=variants + [ignored])


def solve_advisor_hit4() -> Solution:
    """advisor-hit4: Hit@4 of example D."""
    ranks, unanswerable = answerable_first_ranks("D", "advisor", k=4)
    full_ranks, _ = answerable_first_ranks("D", "advisor")
    value = m.mean_hit_rate(ranks, 4)
    shown = ", ".join(str(rank) if rank else "none" for rank in ranks)
    how = (
        f"example D, advisor: first hits within the top 4 {shown} (d4 unanswerable, left out) "
        f"-> Hit@4 {value:.3f} (metrics.mean_hit_rate)"
    )
    variants = [
        (("mrr-for-hit-rate",), mk.mrr_instead_of_hit_rate(ranks, 4)),
        (("kept-unanswerable",), mk.hit_rate_keeping_unanswerable(ranks, unanswerable, 4)),
        (("ignored-cutoff",), mk.hit_rate_ignoring_cutoff(full_ranks)),
        (("cutoff-off-by-one",), mk.hit_rate_cutoff_off_by_one(full_ranks, 4)),
    ]
    return Solution(value, how, variants)


def solve_d4_ndcg4() -> Solution:
    """d4-ndcg4: nDCG@4 of the unanswerable question d4 (undefined)."""
    grades, judged = query_grades("D", "advisor", "d4")
    try:
        value = m.ndcg(grades, 4, ideal=judged)
    except m.UndefinedMetricError:
        value = math.nan
    how = (
        f"example D, d4: judged grades {_grades_text(judged)}, none relevant -> IDCG@4 "
        f"{m.ideal_dcg(judged, 4):g}, nDCG@4 = DCG / 0: undefined (metrics.ndcg raises UndefinedMetricError)"
    )
    return Solution(value, how, [(("undefined-as-zero",), 0.0)])


# Lesson 05: the metrics lab (example E) ----------------------------------------


def solve_lab_ndcg_exp() -> Solution:
    """lab-ndcg-exp: nDCG@3 of example E with exponential gain, ideal from the same grades."""
    grades, _ = query_grades("E", "lab", "e1")
    return ndcg_solution(grades, None, 3, "exponential", "example E, the lab at K = 3")


def solve_lab_recall_at_3() -> Solution:
    """lab-recall-at-3: recall@3 of example E, divided by R."""
    data = load_example("E")
    ranked, relevant = data.ranking("lab", "e1"), data.relevant_for("e1")
    value = m.recall_at_k(ranked, relevant, 3)
    found = sum(1 for doc in ranked[:3] if doc in relevant)
    how = (
        f"example E: {found} relevant in the top 3, R = {len(relevant)} -> recall@3 {value:.3f} "
        "(metrics.recall_at_k)"
    )
    variants = [
        (("recall-min-k-r",), mk.recall_min_k_r(ranked, relevant, 3)),
        (("precision-for-recall",), mk.precision_instead_of_recall(ranked, relevant, 3)),
        (("ignored-cutoff",), m.recall_at_k(ranked, relevant, len(ranked))),
    ]
    return Solution(value, how, variants)


# Lesson 06: average precision (example C) --------------------------------------


def solve_c_ap(k: int) -> Solution:
    """c-ap3 / c-ap5: AP@k of example C's reset-password query, divided by R."""
    data = load_example("C")
    ranked, relevant = data.ranking("search", "reset-password"), data.relevant_for("reset-password")
    value = m.average_precision(ranked, relevant, k)
    hits = [rank for rank, doc in enumerate(ranked[:k], start=1) if doc in relevant]
    precisions = [(number + 1) / rank for number, rank in enumerate(hits)]
    how = (
        f"example C, reset-password: relevant at ranks {', '.join(map(str, hits))} of the top {k}, "
        f"precision there {_fmt(precisions, 4)}; sum {sum(precisions):.4f} / R = {len(relevant)} "
        f"-> AP@{k} {value:.4f} (metrics.average_precision)"
    )
    variants = [
        (("ap-min-k-r",), mk.average_precision_min_k_r(ranked, relevant, k)),
        (("ap-hits-denominator",), mk.average_precision_hits_denominator(ranked, relevant, k)),
        (("ignored-cutoff",), mk.average_precision_ignoring_cutoff(ranked, relevant)),
    ]
    return Solution(value, how, variants)


EXERCISES: dict[str, Exercise] = {
    exercise.id: exercise
    for exercise in [
        Exercise(
            "mrr-practice", "01",
            "Write mrr(first_ranks) (0 for a miss) and give mrr([1, 3, 0, 2]) to 3 decimals.",
            "Reciprocal ranks 1/1, 1/3, 0 and 1/2, then the mean over all four queries.",
            solve_mrr_practice,
        ),
        Exercise(
            "old-mrr", "01", "Example A: the MRR of the OLD system over its five questions, to 3 decimals.",
            "Find each question's first relevant rank in OLD, take 1/rank, then the mean over the 5.",
            lambda: solve_system_mrr("OLD"),
        ),
        Exercise(
            "new-mrr", "01", "Example A: the MRR of the NEW system over its five questions, to 3 decimals.",
            "Find each question's first relevant rank in NEW, take 1/rank, then the mean over the 5.",
            lambda: solve_system_mrr("NEW"),
        ),
        Exercise(
            "hit-rate-at-3", "01", "Example A: the hit rate at 3 of the NEW system, to 3 decimals.",
            "Count the questions whose first relevant passage is at rank 1, 2 or 3; divide by 5.",
            solve_hit_rate_at_3,
        ),
        Exercise(
            "new-mrr-d8-first", "01",
            "Example A: move D8 to rank 1 for q1 in NEW. What is NEW's MRR now, to 3 decimals?",
            "Only q1 changes: its first relevant rank becomes 1. Recompute the mean over all 5 questions.",
            solve_new_mrr_d8_first,
        ),
        Exercise(
            "explain-rr-mean", "01",
            "The mean of the reciprocal ranks for first relevant ranks 1, 2 and 5, to 4 decimals.",
            "1/1, 1/2 and 1/5, then their mean.",
            solve_explain_rr_mean, decimals=4, min_decimals=3,
        ),
        Exercise(
            "ndcg-practice", "02",
            "Write ndcg(gains, k) with the ideal made by sorting the same gains; give ndcg([1, 0, 2], k=3) "
            "to 4 decimals.",
            "DCG = 1/log2(2) + 0/log2(3) + 2/log2(4); the ideal sorts the gains to 2, 1, 0.",
            solve_ndcg_practice, decimals=4, min_decimals=3,
        ),
        Exercise(
            "swapped-ndcg", "02",
            "Example B by hand: nDCG@5 of the swapped ordering (gains 2, 0, 3, 0, 0), to 4 decimals.",
            "Divide each gain by log2(rank + 1): 1, 1.585, 2, 2.322, 2.585; add; divide by the ideal DCG.",
            solve_swapped_ndcg, decimals=4, min_decimals=3,
        ),
        Exercise(
            "d4-grade-1-swapped", "02",
            "Example B: set D4's grade to 1. nDCG@5 of the swapped ordering, to 4 decimals?",
            "The DCG changes, and so does the ideal: it sorts the new grades 3 and 1.",
            solve_d4_grade_1_swapped, decimals=4, min_decimals=3,
        ),
        Exercise(
            "d11-removed-swapped", "02",
            "Example B: remove D11 from every ranking. nDCG@5 of the swapped ordering, to 4 decimals?",
            "D11 is still judged grade 3, so the ideal still holds it although no ranking does.",
            solve_d11_removed_swapped, decimals=4, min_decimals=3,
        ),
        Exercise(
            "explain-ndcg-03", "02", "nDCG of the gains 0, 3 when the ideal is 3, 0, to 4 decimals.",
            "DCG = 0/log2(2) + 3/log2(3); IDCG = 3/log2(2) + 0/log2(3).",
            solve_explain_ndcg_03, decimals=4, min_decimals=3,
        ),
        Exercise(
            "sheet-dcg5", "03", "Example C (the spreadsheet): DCG@5 with linear gain, to 3 decimals.",
            "Add grade / log2(rank + 1) over ranks 1 to 5 (column C of the sheet).",
            solve_sheet_dcg5,
        ),
        Exercise(
            "sheet-idcg5", "03", "Example C: IDCG@5 with linear gain, to 3 decimals.",
            "Sort every judged grade, the missed document's too, keep the top 5, and compute their DCG.",
            solve_sheet_idcg5,
        ),
        Exercise(
            "sheet-ndcg5", "03", "Example C: NDCG@5 with linear gain, to 3 decimals.",
            "DCG@5 / IDCG@5, the ideal built from every judged document.",
            solve_sheet_ndcg5,
        ),
        Exercise(
            "helpdesk-mrr", "03", "Example C: the MRR over the five help-desk queries, to 3 decimals.",
            "First relevant ranks 1, 3, 2, none, 1: the query with none scores 0 and stays in the mean.",
            lambda: solve_helpdesk_mrr(None),
        ),
        Exercise(
            "helpdesk-mrr-at-2", "03", "Example C: the MRR@2 over the five help-desk queries, to 3 decimals.",
            "With k = 2 a first hit at rank 3 also scores 0.",
            lambda: solve_helpdesk_mrr(2),
        ),
        Exercise(
            "helpdesk-mean-ndcg5", "03",
            "Example C: the mean NDCG@5 (linear gain) over the five help-desk queries, to 3 decimals.",
            "Compute NDCG@5 for each query against all its judged documents, then average; a query "
            "whose relevant document was never returned scores 0.",
            solve_helpdesk_mean_ndcg5,
        ),
        Exercise(
            "advisor-mrr4", "04",
            "Example D: MRR@4 of the advisor over the questions it can answer, to 3 decimals.",
            "The advisor keeps 4 chunks: a hit at rank 5 is a miss; d4 has no relevant chunk, leave it out.",
            solve_advisor_mrr4, min_decimals=2,
        ),
        Exercise(
            "advisor-hit4", "04", "Example D: Hit@4 of the advisor, to 3 decimals.",
            "Share of the answerable questions with a relevant chunk in the top 4.",
            solve_advisor_hit4, min_decimals=2,
        ),
        Exercise(
            "d4-ndcg4", "04",
            "Example D: nDCG@4 of question d4 (no chunk is relevant). A number, or 'undefined'?",
            "Compute the ideal DCG first: what is left to divide by?",
            solve_d4_ndcg4,
        ),
        Exercise(
            "lab-ndcg-exp", "05",
            "Example E (the lab): nDCG@3 with exponential gain, the ideal from the same six grades, "
            "to 4 decimals.",
            "Gains 2^grade - 1, discount log2(rank + 1), top 3 only, for the list and for the sorted grades.",
            solve_lab_ndcg_exp, decimals=4, min_decimals=3,
        ),
        Exercise(
            "lab-recall-at-3", "05", "Example E: recall@3 (grade >= 1 is relevant), to 3 decimals.",
            "Relevant results in the top 3, divided by all relevant documents of the query.",
            solve_lab_recall_at_3,
        ),
        Exercise(
            "c-ap3", "06",
            "Example C, reset-password: AP@3 (grade >= 1 relevant, divided by R), to 4 decimals.",
            "Precision at each relevant rank within the top 3, added up, divided by R (all relevant).",
            lambda: solve_c_ap(3), decimals=4, min_decimals=3,
        ),
        Exercise(
            "c-ap5", "06",
            "Example C, reset-password: AP@5 (grade >= 1 relevant, divided by R), to 4 decimals.",
            "Precision at each relevant rank within the top 5, added up, divided by R (all relevant).",
            lambda: solve_c_ap(5), decimals=4, min_decimals=3,
        ),
    ]
}


# --- function exercises --------------------------------------------------------

def mrr_cases() -> list[Case]:
    """Hidden cases of ``mrr(first_ranks)``: the practice list, example A, misses, an empty list."""
    old, _ = answerable_first_ranks("A", "OLD")
    plain = [
        ([1, 3, 0, 2], "the practice list"),
        (old, "example A, OLD"),
        ([4, 0], "a miss stays in the mean"),
        ([0, 0, 0], "every query a miss"),
        ([1], "one query, hit at rank 1"),
        ((2, 5), "a tuple instead of a list"),
    ]
    cases = [
        Case((ranks,), m.mean_reciprocal_rank(ranks), about, mrr_case_variants(list(ranks)))
        for ranks, about in plain
    ]
    return cases + [Case(([],), UNDEFINED, "no query at all: the mean of nothing is undefined")]


def mrr_case_variants(ranks: list[int]) -> list[tuple[tuple[str, ...], float]]:
    """The values the MRR mistakes give for one list of first ranks."""
    return [
        (("dropped-misses",), mk.mrr_dropping_misses(ranks)),
        (("ranks-from-zero",), mk.mrr_ranks_from_zero(ranks)),
        (("sum-not-mean",), mk.mrr_sum_instead_of_mean(ranks)),
        (("hit-rate-for-mrr",), mk.hit_rate_instead_of_mrr(ranks)),
    ]


def dcg_cases() -> list[Case]:
    """Hidden cases of ``dcg(gains)``: example B's orderings, example C, one result, none."""
    good, _ = query_grades("B", "good", "b1")
    swapped, _ = query_grades("B", "swapped", "b1")
    pushed, _ = query_grades("B", "pushed_down", "b1")
    sheet, _ = sheet_grades()
    plain = [
        (swapped, "example B, swapped"),
        (good, "example B, good order"),
        (pushed, "example B, pushed down"),
        (sheet, "example C, all six results"),
        ([1], "one result"),
        ([0, 0, 0], "nothing relevant: DCG is 0"),
        ([], "nothing returned: a sum of nothing is 0"),
    ]
    return [Case((gains,), m.dcg(gains), about, dcg_case_variants(gains)) for gains, about in plain]


def dcg_case_variants(gains) -> list[tuple[tuple[str, ...], float]]:
    """The values the DCG mistakes give for one list of gains."""
    return [
        (("no-discount",), mk.dcg_no_discount(gains)),
        (("log2-rank",), mk.dcg_log2_rank(gains)),
        (("log2-rank-first-undiscounted",), mk.dcg_log2_rank_first_undiscounted(gains)),
        (("ranks-from-zero",), mk.dcg_ranks_from_zero(gains)),
        (("exponential-for-linear",), m.dcg(gains, gain="exponential")),
    ]


def ndcg_cases() -> list[Case]:
    """Hidden cases of ``ndcg(gains, k)`` (ideal: the same gains sorted), k past the end, all zeros."""
    swapped, _ = query_grades("B", "swapped", "b1")
    good, _ = query_grades("B", "good", "b1")
    sheet, _ = sheet_grades()
    plain = [
        ([1, 0, 2], 3, "the practice list"),
        (swapped, 5, "example B, swapped"),
        (good, 5, "example B, good order: 1"),
        (sheet, 5, "example C, ideal from the returned grades"),
        ([1, 0, 2], 10, "k past the end of the list"),
        ([1, 0, 2], 1, "k = 1"),
        ([0, 0, 3], 2, "sort all the gains, then cut the ideal at k"),
    ]
    cases = [
        Case((gains, k), m.ndcg(gains, k), about, ndcg_variants(gains, gains, k, "linear"))
        for gains, k, about in plain
    ]
    return cases + [Case(([0, 0, 0], 3), UNDEFINED, "all grades 0: the ideal DCG is 0, nDCG undefined")]


FUNCTION_EXERCISES: dict[str, FunctionExercise] = {
    exercise.id: exercise
    for exercise in [
        FunctionExercise(
            "mrr-function", "01",
            "Write mrr(first_ranks): the mean of 1/rank over a list of first relevant ranks (0 = miss).",
            "mrr", mrr_cases,
        ),
        FunctionExercise(
            "dcg-function", "02",
            "Write dcg(gains): the sum of gain / log2(rank + 1) over a list of gains in rank order.",
            "dcg", dcg_cases,
        ),
        FunctionExercise(
            "ndcg-function", "02",
            "Write ndcg(gains, k): DCG@k / IDCG@k, the ideal made by sorting the same gains.",
            "ndcg", ndcg_cases,
        ),
    ]
}


def get_function_exercise(exercise_id) -> FunctionExercise:
    """The function exercise with this id, or a clear error listing the ids."""
    if not isinstance(exercise_id, str):
        raise TypeError(f"an exercise id is a string such as 'mrr-function', got {short_text(exercise_id)}")
    if exercise_id not in FUNCTION_EXERCISES:
        hint = " (an answer exercise: use check)" if exercise_id in EXERCISES else ""
        raise ValueError(
            f"unknown function exercise {exercise_id!r}{hint}; function exercises: "
            f"{', '.join(FUNCTION_EXERCISES)}"
        )
    return FUNCTION_EXERCISES[exercise_id]


def check_function(exercise_id: str, fn, timeout: float = 2.0) -> FunctionReport:
    """Run a learner's function on the hidden cases of an exercise and show a table (lessons 01, 02).

    Each case runs in its own forked process, stopped after ``timeout``
    seconds, so an exception or an endless loop fails that case only. A case
    whose value is undefined (no query, all grades 0) accepts 0.0, nan, or a
    ValueError / ZeroDivisionError, shown as a note.

    >>> check_function("mrr-function", lambda ranks: sum(1 / r for r in ranks if r) / len(ranks)).message
    'All 6 cases right; 1 note.'
    """
    exercise = get_function_exercise(exercise_id)
    if isinstance(timeout, bool) or not isinstance(timeout, Real) or not timeout > 0:
        raise ValueError(f"timeout must be a number of seconds above 0, got {timeout!r}")
    if fn is None:
        message = f"No function yet: define {exercise.name} and pass it instead of None."
        report = FunctionReport(exercise.id, False, "no-answer", message, pd.DataFrame())
    elif not callable(fn):
        report = FunctionReport(
            exercise.id, False, "not-a-function",
            f"expected your function {exercise.name}, got {type(fn).__name__} {short_text(fn)}",
            pd.DataFrame(),
        )
    else:
        report = run_cases(exercise, fn, float(timeout))
    record({"event": "check_function", **result_fields(report)})
    return report




# --- results -----------------------------------------------------------------



@dataclass(frozen=True)
class CheckResult:
    """The outcome of ``check``: ``.correct``, ``.mistake`` (a code or None), ``.message``, ``.hint``.

    ``.mistakes`` holds every mistake code the answer matches; ``.mistake``
    joins them with "+" (or is an answer issue such as "too-few-decimals").
    """

    exercise: str
    correct: bool
    mistake: str | None
    message: str
    hint: str = ""
    answer: str = ""
    mistakes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        mark = "✓" if self.correct else "✗"
        text = f"{mark} {self.exercise}: {self.message}"
        return text + (f"\n  Hint: {self.hint}" if self.hint else "")

    def _repr_html_(self) -> str:
        colour, mark = (GREEN, "✓") if self.correct else (RED, "✗")
        line = (
            f'<div style="color:{colour};font-weight:bold">{mark} {html.escape(self.exercise)}: '
            f"{html.escape(self.message)}</div>"
        )
        hint = f'<div style="color:{GREY}">Hint: {html.escape(self.hint)}</div>' if self.hint else ""
        return f'<div style="border-left:4px solid {colour};padding-left:8px">{line}{hint}</div>'


@dataclass(frozen=True)
class Revealed:
    """The expected value of an exercise and how it is computed (returned by ``reveal``)."""

    exercise: str
    value: float
    decimals: int
    how: str

    @property
    def text(self) -> str:
        """The value at the exercise's precision ('undefined' for a metric with no value)."""
        return "undefined" if not math.isfinite(self.value) else f"{self.value:.{self.decimals}f}"

    def __repr__(self) -> str:
        return f"{self.exercise} = {self.text}\n  {self.how}"

    def _repr_html_(self) -> str:
        return (
            f"<div><b>{html.escape(self.exercise)} = {html.escape(self.text)}</b>"
            f'<div style="color:{GREY}">{html.escape(self.how)}</div></div>'
        )


# --- check, reveal, list -----------------------------------------------------


def get_exercise(exercise_id) -> Exercise:
    """The answer exercise with this id, or a clear error listing the ids."""
    if not isinstance(exercise_id, str):
        raise TypeError(f"an exercise id is a string such as 'old-mrr', got {short_text(exercise_id)}")
    if exercise_id not in EXERCISES:
        hint = " (a function exercise: use check_function)" if exercise_id in FUNCTION_EXERCISES else ""
        raise ValueError(
            f"unknown exercise id {exercise_id!r}{hint}; answer exercises: {', '.join(EXERCISES)}; "
            f"function exercises: {', '.join(FUNCTION_EXERCISES)}"
        )
    return EXERCISES[exercise_id]


def check(exercise_id: str, answer) -> CheckResult:
    """Check an answer to an exercise and name the mistake a wrong answer shows (all lessons).

    ``answer``: a float, int, numpy scalar, Fraction or a string such as
    ``"0.55"``, ``"3/4"``, ``"55%"`` or ``" 0,55 "``. The expected value is
    never shown; ``reveal(exercise_id)`` shows it.

    >>> check("old-mrr", "0.750").correct
    True
    >>> check("helpdesk-mrr", 0.708).mistake
    'dropped-misses'
    """
    exercise = get_exercise(exercise_id)
    if answer is None:
        result = CheckResult(
            exercise.id, False, "no-answer", "No answer yet: replace None with your number.", exercise.hint
        )
        record({"event": "check", **result_fields(result)})
        return result
    try:
        given = read_answer(answer)
    except UnreadableAnswer as error:
        result = CheckResult(
            exercise.id, False, "unreadable",
            f"Could not read your answer: {error}. Give one number such as 0.125, 12.5%, 1/8 or 0,125.",
            exercise.hint,
        )
    else:
        result = diagnose(exercise, given, exercise.solve())
    record({"event": "check", **result_fields(result)})
    return result


def diagnose(exercise: Exercise, given: Answer, solution: Solution) -> CheckResult:
    """Judge an answer against the solution, then against the values of the common mistakes.

    Order: right; a mistake's value at the asked precision; right but with too few
    decimals; a mistake's value at the answer's own precision; close; wrong.
    """
    verdict = judge(given, solution.value, exercise.decimals, exercise.min_decimals)
    if verdict == "match":
        return CheckResult(exercise.id, True, None, f"Correct: {given.text} is right.", answer=given.text)
    matched = matching_mistakes(exercise, given, solution, ("match",))
    if not matched and verdict == "too-few-decimals":
        message = (
            f"{given.text} is right as far as it goes, but this exercise asks for "
            f"{exercise.decimals} decimals: give them all."
        )
        return CheckResult(exercise.id, False, "too-few-decimals", message, answer=given.text)
    matched = matched or matching_mistakes(exercise, given, solution, ("match", "too-few-decimals"))
    if matched:
        codes = tuple(dict.fromkeys(code for group in matched for code in group))
        return CheckResult(
            exercise.id, False, "+".join(codes), mistake_message(given, matched), exercise.hint,
            given.text, codes,
        )
    if is_close(given, solution.value, exercise.decimals):
        message = (
            f"{given.text} is close but not right to {exercise.decimals} decimals: keep full precision "
            "in every step and round only the final answer (round, do not cut off digits)."
        )
        return CheckResult(exercise.id, False, "close", message, exercise.hint, given.text)
    return CheckResult(exercise.id, False, None, f"{given.text} is not right yet.", exercise.hint, given.text)


def matching_mistakes(
    exercise: Exercise, given: Answer, solution: Solution, verdicts: tuple[str, ...]
) -> list[tuple[str, ...]]:
    """The groups of mistake codes whose value the answer matches with one of ``verdicts``."""
    hits = [
        codes
        for codes, value in distinct_variants(exercise, solution)
        if judge(given, value, exercise.decimals, exercise.min_decimals) in verdicts
    ]
    return list(dict.fromkeys(hits))


def distinct_variants(exercise: Exercise, solution: Solution) -> list[tuple[tuple[str, ...], float]]:
    """The mistakes that change the answer at the exercise's precision.

    Left out: a mistake giving the right value, and a combination of mistakes
    giving the same value as one of its parts.
    """

    def same(value: float, target: float) -> bool:
        answer = Answer(value, None, "")
        return judge(answer, target, exercise.decimals, exercise.min_decimals) == "match"

    distinct = [(codes, value) for codes, value in solution.variants if not same(value, solution.value)]
    return [
        (codes, value)
        for codes, value in distinct
        if len(codes) == 1 or not any(set(other) < set(codes) and same(value, v) for other, v in distinct)
    ]


def mistake_message(given: Answer, matched: list[tuple[str, ...]]) -> str:
    """Name the mistake(s) an answer matches and how to fix each."""

    def explain(codes: tuple[str, ...]) -> str:
        parts = [mk.describe(code) for code in codes]
        title = " together with ".join(part.title for part in parts)
        fix = " ".join(part.fix for part in parts)
        return f"{title}. Fix: {fix}"

    if len(matched) == 1:
        return f"Not right: {given.text} is what you get with this mistake: {explain(matched[0])}"
    listed = " Or: ".join(f"({number}) {explain(codes)}" for number, codes in enumerate(matched, start=1))
    count = {2: "two", 3: "three"}.get(len(matched), str(len(matched)))
    return f"Not right: {given.text} is what {count} different mistakes give. {listed}"


def reveal(exercise_id: str) -> Revealed:
    """The expected value of an exercise with how it is computed from the data (all lessons).

    >>> reveal("old-mrr").text
    '0.750'
    """
    if exercise_id in FUNCTION_EXERCISES:
        raise ValueError(
            f"{exercise_id!r} is a function exercise: check_function shows the expected value of each case"
        )
    exercise = get_exercise(exercise_id)
    solution = exercise.solve()
    record({"event": "reveal", "exercise": exercise.id})
    return Revealed(exercise.id, solution.value, exercise.decimals, solution.how)


def mistake_values(exercise_id: str) -> pd.DataFrame:
    """The number each common mistake gives on an answer exercise, for lesson 07 (not the right one).

    Columns: mistake (codes joined by "+"), title, value. Mistakes that give the
    right value at the exercise's precision are left out.

    >>> mistake_values("sheet-ndcg5").set_index("mistake").at["retrieved-only-ideal", "value"]
    '0.690'
    """
    exercise = get_exercise(exercise_id)
    rows = [
        {
            "mistake": "+".join(codes),
            "title": " together with ".join(mk.describe(code).title for code in codes),
            "value": "undefined" if not math.isfinite(value) else f"{value:.{exercise.decimals}f}",
        }
        for codes, value in distinct_variants(exercise, exercise.solve())
    ]
    return pd.DataFrame(rows, columns=["mistake", "title", "value"])


def list_exercises() -> pd.DataFrame:
    """Every exercise: id, lesson, kind (answer or function), question and precision (all lessons).

    >>> list_exercises().set_index("id").at["old-mrr", "lesson"]
    '01'
    """
    rows = [
        {"id": ex.id, "lesson": ex.lesson, "kind": "answer", "question": ex.question,
         "precision": ex.rounding}
        for ex in EXERCISES.values()
    ]
    rows += [
        {"id": ex.id, "lesson": ex.lesson, "kind": "function", "question": ex.question,
         "precision": "1e-6 (values rounded to 2-4 decimals pass with a note)"}
        for ex in FUNCTION_EXERCISES.values()
    ]
    return pd.DataFrame(rows).sort_values(["lesson", "kind"], kind="stable").reset_index(drop=True)


