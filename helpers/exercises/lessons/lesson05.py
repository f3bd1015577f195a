"""Lesson 05 · The metrics lab (example E): the exercises."""

from __future__ import annotations

from helpers import metrics
from helpers.exercises.lessons._shared import load_example, move_to, query_grades
from helpers.exercises.registry import Exercise, register
from helpers.exercises.worked import Worked, worked_ndcg, worked_recall

LESSON = "05"


def r4_useful_recall3() -> Worked:
    """lab-r4-useful-recall3: recall@3 once r4 is graded useful (1)."""
    example = load_example("E")
    judgments = {**example.judgments_for("e1"), "r4": 1.0}
    return worked_recall(example.ranking("lab", "e1"), metrics.relevant_ids(judgments), k=3)


register(
    Exercise(
        id="lab-r4-useful-recall3",
        lesson=LESSON,
        question="Example E (the lab): click r4, at rank 3, once so it becomes 'useful' (grade 1). What is "
        "Recall@3 now, with grade >= 1 relevant? Give 3 decimals.",
        answer=r4_useful_recall3,
        hints=(
            "The click changes the top of the list and the count of relevant pages at the same time.",
            "Count the relevant pages in the top 3, then divide by R, the number of relevant pages among all "
            "six, r4 included now.",
        ),
        code="""example = load_example("E")
judgments = {**example.judgments_for("e1"), "r4": 1}
metrics.recall_at_k(example.ranking("lab", "e1"), metrics.relevant_ids(judgments), k=3)""",
    )
)


def swap_top_two_ndcg3() -> Worked:
    """lab-swap-ndcg3: exponential nDCG@3 once r1 and r2 trade places."""
    example = load_example("E")
    judgments = example.judgments_for("e1")
    ranked = move_to(example.ranking("lab", "e1"), "r1", 1)
    grades = metrics.grades_in_rank_order(ranked, judgments)
    return worked_ndcg(grades, list(judgments.values()), k=3, gain="exponential")


register(
    Exercise(
        id="lab-swap-ndcg3",
        lesson=LESSON,
        question="Example E: swap the first two results, so the page that answers the question (r1) comes "
        "first. What is nDCG@3 with exponential gain (ideal from all six grades)? Give 4 decimals "
        "(3 are accepted).",
        answer=swap_top_two_ndcg3,
        decimals=4,
        min_decimals=3,
        hints=(
            "Only the order of the first two changes; the ideal stays where it was.",
            "Gains 2^grade - 1 in the new order 3, 1, 0 over discounts 1, 1.585, 2; divide by the ideal DCG@3 of "
            "the sorted gains.",
        ),
        code="""example = load_example("E")
judgments = example.judgments_for("e1")
ranked = ["r1"] + [doc for doc in example.ranking("lab", "e1") if doc != "r1"]
grades = metrics.grades_in_rank_order(ranked, judgments)
metrics.ndcg(grades, k=3, ideal=judgments.values(), gain="exponential")""",
    )
)


def ndcg5_linear() -> Worked:
    """lab-ndcg5-linear: nDCG@5 of the lab's list with linear gain."""
    grades, judged = query_grades("E", "lab", "e1")
    return worked_ndcg(grades, judged, k=5, gain="linear")


register(
    Exercise(
        id="lab-ndcg5-linear",
        lesson=LESSON,
        question="Example E: flip the gain to linear and move K to 5. What is nDCG@5 of the lab's list (ideal "
        "from all six grades)? Give 4 decimals (3 are accepted).",
        answer=ndcg5_linear,
        decimals=4,
        min_decimals=3,
        hints=(
            "Linear gain means the gain is the grade itself: 0, 1 or 2.",
            "Add grade / log2(rank + 1) over ranks 1-5 of the list, do the same for the six grades sorted high to "
            "low, and divide.",
        ),
        code="""example = load_example("E")
judgments = example.judgments_for("e1")
grades = metrics.grades_in_rank_order(example.ranking("lab", "e1"), judgments)
metrics.ndcg(grades, k=5, ideal=judgments.values(), gain="linear")""",
    )
)
