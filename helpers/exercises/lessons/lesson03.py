"""Lesson 03 · The nDCG spreadsheet (example C): the exercises."""

from __future__ import annotations

from helpers import metrics
from helpers.exercises.lessons._shared import load_example, query_grades
from helpers.exercises.registry import Exercise, register
from helpers.exercises.worked import Worked, both_sides, with_slips, worked_difference, worked_mean_ndcg, worked_ndcg
from helpers.slips import graded as graded_slips

LESSON = "03"
QUERY = "reset-password"


def sheet_ndcg5() -> float:
    """The worksheet's own NDCG@5, printed in the lesson: the value before any change."""
    grades, judged = query_grades("C", "search", QUERY)
    return metrics.ndcg(grades, 5, ideal=judged)


TOP_GRADE = 4  # exercise 1: a grade above the worksheet's yellow cells, which stop at 3
SHEET_CUTOFF = 3


def sheet_ndcg(k: int, changes: dict | None = None) -> float:
    """NDCG@k of the worksheet's query (linear gain, the ideal from every judged article), after edits."""
    grades, judged = query_grades("C", "search", QUERY, changes=changes)
    return metrics.ndcg(grades, k, ideal=judged)


def sheet_ndcg3() -> Worked:
    """sheet-ndcg3: NDCG@3 once kb21, the missed article, is graded 4 (the worksheet's cells stop at 3).

    The worksheet's NDCG@3 with kb21 at 3 (the most its cell takes) and its NDCG@5, printed in the lesson,
    are the values before the change.
    """
    grades, judged = query_grades("C", "search", QUERY, changes={"kb21": float(TOP_GRADE)})
    shown_by_the_worksheet = (("before-the-change",), sheet_ndcg(SHEET_CUTOFF))
    lesson_cutoff = (("other-cutoff",), sheet_ndcg(5, {"kb21": float(TOP_GRADE)}))  # the change, at the lesson's k
    return with_slips(
        worked_ndcg(grades, judged, k=SHEET_CUTOFF), shown_by_the_worksheet, (("before-the-change",), sheet_ndcg5()),
        lesson_cutoff,
    )


register(
    Exercise(
        id="sheet-ndcg3",
        lesson=LESSON,
        question=f"Example C (the worksheet): the help desk adds a top grade, {TOP_GRADE} ('solves it step by "
        f"step'), and the judges give it to kb21, the article the search missed. The worksheet's yellow cells "
        f"stop at 3, so it cannot show this. What is NDCG@{SHEET_CUTOFF} now (linear gain, the ideal from every "
        "judged article)?",
        answer=sheet_ndcg3,
        hints=(
            f"Both sums stop at rank {SHEET_CUTOFF}: the list's and the ideal's. kb21 is not in the list, so only "
            "one of the two sums feels its new grade.",
            f"DCG@{SHEET_CUTOFF} adds column C over ranks 1-{SHEET_CUTOFF} (the worksheet at k = {SHEET_CUTOFF} "
            f"shows it); IDCG@{SHEET_CUTOFF} discounts the {SHEET_CUTOFF} highest judged grades, kb21's new "
            f"{TOP_GRADE} among them, by log2(rank + 1); divide.",
        ),
        code="""example = load_example("C")
judgments = {**example.judgments_for("reset-password"), "kb21": 4}
grades = metrics.grades_in_rank_order(example.ranking("search", "reset-password"), judgments)
metrics.ndcg(grades, k=3, ideal=judgments.values())""",
    )
)


def kb04_graded_2() -> Worked:
    """kb04-graded-2: how far NDCG@5 rises once kb04 (rank 5) is judged grade 2, not 0.

    The worksheet shows NDCG@5 before and after the change, not the rise: either reading alone is one side
    of the gap, the new DCG@5 over the old ideal is the stale ideal, and the two readings subtracted at the
    worksheet's 3 decimals are rounded early.
    """
    grades, judged = query_grades("C", "search", QUERY, changes={"kb04": 2.0})
    old_grades, old_judged = query_grades("C", "search", QUERY)
    before, after = worked_ndcg(old_grades, old_judged, k=5), worked_ndcg(grades, judged, k=5)
    stale = (("stale-ideal",), graded_slips.ndcg_stale_ideal(grades, old_judged, k=5) - before.value)
    returned_only = (
        ("retrieved-only-ideal",),
        metrics.ndcg(grades, 5, ideal=grades) - metrics.ndcg(old_grades, 5, ideal=old_grades),
    )
    read_off = (("rounded-early",), round(after.value, 3) - round(before.value, 3))  # the sheet's 3 decimals
    steps = both_sides("before", before, "after", after)
    return with_slips(worked_difference(after, before, steps, "NDCG@5 rise"), stale, returned_only, read_off)


register(
    Exercise(
        id="kb04-graded-2",
        lesson=LESSON,
        question="Example C: a second judge finds that kb04 (rank 5) does help and grades it 2 instead of 0. "
        "The worksheet shows NDCG@5 before and after you change that yellow cell, not the change itself: by "
        "how much does NDCG@5 rise (linear gain, the ideal from every judged article)?",
        answer=kb04_graded_2,
        decimals=4,
        min_decimals=3,
        hints=(
            "A judgment feeds both columns B and D: the list and the ideal move together. The answer is the "
            "difference of two NDCG@5 values, not either of them.",
            "Rank 5 now adds 2/log2(6) to DCG@5, and the ideal gains one more 2 among its five highest grades; "
            "recompute both sums, divide, and subtract the NDCG@5 from before the change.",
        ),
        code="""example = load_example("C")
judgments = example.judgments_for("reset-password")
regraded = {**judgments, "kb04": 2}
ranked = example.ranking("search", "reset-password")
(metrics.ndcg(metrics.grades_in_rank_order(ranked, regraded), k=5, ideal=regraded.values())
 - metrics.ndcg(metrics.grades_in_rank_order(ranked, judgments), k=5, ideal=judgments.values()))""",
    )
)


def helpdesk_mean_ndcg5() -> Worked:
    """helpdesk-mean-ndcg5: mean NDCG@5 over the five help-desk queries."""
    queries = [query_grades("C", "search", query_id) for query_id in load_example("C").query_ids]
    return worked_mean_ndcg(queries, k=5)


register(
    Exercise(
        id="helpdesk-mean-ndcg5",
        lesson=LESSON,
        question="Example C: the mean NDCG@5 (linear gain, each query's ideal from all its judged articles) over "
        "the five help-desk queries.",
        answer=helpdesk_mean_ndcg5,
        hints=(
            "Normalise each query first, then average: five NDCG values, one mean.",
            "For each query: DCG@5 of its list over IDCG@5 of its judged grades. A query whose relevant article "
            "was never returned scores 0 and stays in the mean.",
        ),
        code="""example = load_example("C")
scores = []
for q in example.query_ids:
    judgments = example.judgments_for(q)
    grades = metrics.grades_in_rank_order(example.ranking("search", q), judgments)
    scores.append(metrics.ndcg(grades, k=5, ideal=judgments.values()))
sum(scores) / len(scores)""",
    )
)
