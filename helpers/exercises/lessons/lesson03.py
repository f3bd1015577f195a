"""Lesson 03 · The nDCG spreadsheet (example C): the exercises."""

from __future__ import annotations

from helpers import metrics
from helpers.exercises.lessons._shared import load_example, query_grades
from helpers.exercises.registry import Exercise, register
from helpers.exercises.worked import Worked, with_slips, worked_mean_ndcg, worked_ndcg

LESSON = "03"
QUERY = "reset-password"


def sheet_ndcg5() -> float:
    """The worksheet's own NDCG@5, printed in the lesson: the value before any change."""
    grades, judged = query_grades("C", "search", QUERY)
    return metrics.ndcg(grades, 5, ideal=judged)


def sheet_ndcg3() -> Worked:
    """sheet-ndcg3: NDCG@3 of the worksheet's query (k left at 5 is the value before the change)."""
    grades, judged = query_grades("C", "search", QUERY)
    return with_slips(worked_ndcg(grades, judged, k=3), (("before-the-change",), sheet_ndcg5()))


register(
    Exercise(
        id="sheet-ndcg3",
        lesson=LESSON,
        question="Example C (the worksheet): set the cut-off k to 3. What is NDCG@3 (linear gain, the ideal "
        "from every judged article)? Give 3 decimals.",
        answer=sheet_ndcg3,
        hints=(
            "Both sums stop at rank 3: the list's and the ideal's.",
            "DCG@3 adds column C over ranks 1-3; IDCG@3 adds column E over ranks 1-3 (the three highest judged "
            "grades, the missed article's included); divide.",
        ),
        code="""example = load_example("C")
judgments = example.judgments_for("reset-password")
grades = metrics.grades_in_rank_order(example.ranking("search", "reset-password"), judgments)
metrics.ndcg(grades, k=3, ideal=judgments.values())""",
    )
)


def kb04_graded_2() -> Worked:
    """kb04-graded-2: NDCG@5 once kb04 (rank 5) is judged grade 2."""
    grades, judged = query_grades("C", "search", QUERY, changes={"kb04": 2.0})
    old_grades, _ = query_grades("C", "search", QUERY)
    stale_returned = metrics.dcg(grades, 5) / metrics.ideal_dcg(old_grades, 5)  # the old list's grades as ideal
    return with_slips(worked_ndcg(grades, judged, k=5), (("before-the-change",), sheet_ndcg5()),
                      (("retrieved-only-ideal", "stale-ideal"), stale_returned))


register(
    Exercise(
        id="kb04-graded-2",
        lesson=LESSON,
        question="Example C: a second judge finds that kb04 (rank 5) does help and grades it 2 instead of 0. "
        "Change that yellow cell: what is NDCG@5 now? Give 3 decimals.",
        answer=kb04_graded_2,
        hints=(
            "A judgment feeds both columns B and D: the list and the ideal move together.",
            "Rank 5 now adds 2/log2(6) to DCG@5, and the ideal gains one more 2 among its five highest grades; "
            "recompute both sums, then divide.",
        ),
        code="""example = load_example("C")
judgments = {**example.judgments_for("reset-password"), "kb04": 2}
grades = metrics.grades_in_rank_order(example.ranking("search", "reset-password"), judgments)
metrics.ndcg(grades, k=5, ideal=judgments.values())""",
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
        "the five help-desk queries. Give 3 decimals.",
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
