"""Lesson 07 · Common mistakes: exercises on fresh small cases where each mistake would bite."""

from __future__ import annotations

from helpers.exercises.registry import Exercise, register
from helpers.exercises.worked import worked_dcg, worked_mrr, worked_ndcg

LESSON = "07"

FRESH_RETURNED = [0, 3, 1]  # grades of a new query's top 3, in rank order
FRESH_JUDGED = [3, 2, 1, 0]  # every judged grade of that query: the grade-2 document was missed

register(
    Exercise(
        id="fresh-ndcg3",
        lesson=LESSON,
        question="A new query: the search returns documents graded 0, 3, 1 (in rank order); the judges graded "
        "four documents 3, 2, 1, 0, and the grade-2 one was never returned. nDCG@3, linear gain, the "
        "ideal from every judged document?",
        answer=lambda: worked_ndcg(FRESH_RETURNED, FRESH_JUDGED, k=3),
        decimals=4,
        min_decimals=3,
        hints=(
            "Which document is missing from the list but not from the ideal?",
            "DCG@3 of 0, 3, 1 over log2(2), log2(3), log2(4); the ideal sorts 3, 2, 1, 0 and keeps the top 3.",
        ),
        code="metrics.ndcg([0, 3, 1], k=3, ideal=[3, 2, 1, 0])",
    )
)

FRESH_FIRST_RANKS = [2, 0, 4]  # three answerable questions; a fourth has nothing relevant

register(
    Exercise(
        id="fresh-mrr-unanswerable",
        lesson=LESSON,
        question="Four questions: the first relevant result is at rank 2 for one, missing for another, at rank "
        "4 for the third; the fourth question has no relevant document at all. What is the MRR over the "
        "questions that can be answered?",
        answer=lambda: worked_mrr(FRESH_FIRST_RANKS, unanswerable=1),
        hints=(
            "A miss and an unanswerable question are different things: one stays in the mean, one does not.",
            "Reciprocal ranks 1/2, 0 and 1/4 for the three answerable questions; their mean.",
        ),
        code="metrics.mean_reciprocal_rank([2, 0, 4])",
    )
)

FRESH_GRADES = [3, 0, 2, 1]

register(
    Exercise(
        id="fresh-dcg4",
        lesson=LESSON,
        question="DCG@4 of a list with grades 3, 0, 2, 1 in rank order, linear gain.",
        answer=lambda: worked_dcg(FRESH_GRADES, k=4),
        hints=(
            "The top result keeps its whole gain: what must the discount at rank 1 be?",
            "Divide each grade by log2(rank + 1), which is 1, 1.585, 2 and 2.322, then add the four.",
        ),
        code="metrics.dcg([3, 0, 2, 1], k=4)",
    )
)
