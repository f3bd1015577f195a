"""Lesson 05 · The metrics lab (example E): the exercises."""

from __future__ import annotations

from helpers import metrics
from helpers.exercises.lessons._shared import load_example, move_to, query_grades
from helpers.exercises.registry import Exercise, register
from helpers.exercises.worked import Worked, with_slips, worked_ndcg, worked_recall

LESSON = "05"
START = "Start from the lab as it opens (press reset first)."
R4_USEFUL = {"r4": 1.0}  # exercise 1's click


def lab_ndcg(k: int, gain, changes: dict | None = None, swapped: bool = False) -> float:
    """nDCG@k of the lab's list in one state: grades changed by clicks, the top two swapped or not."""
    example = load_example("E")
    judgments = {**example.judgments_for("e1"), **(changes or {})}
    ranked = example.ranking("lab", "e1")
    if swapped:
        ranked = move_to(ranked, "r1", 1)
    return metrics.ndcg(metrics.grades_in_rank_order(ranked, judgments), k, ideal=list(judgments.values()), gain=gain)


def earlier_states(k: int, gain, states: list[tuple[dict, bool]]) -> tuple:
    """The slip 'the lab still holds an earlier exercise's change', for each earlier state given."""
    return tuple((("lab-earlier-state",), lab_ndcg(k, gain, changes, swapped)) for changes, swapped in states)


def r4_useful_recall3() -> Worked:
    """lab-r4-useful-recall3: recall@3 once r4 is graded useful (1)."""
    example = load_example("E")
    judgments = {**example.judgments_for("e1"), **R4_USEFUL}
    before = metrics.recall_at_k(example.ranking("lab", "e1"), example.relevant_for("e1", 1), 3)
    worked = worked_recall(example.ranking("lab", "e1"), metrics.relevant_ids(judgments), k=3)
    return with_slips(worked, (("before-the-change",), before))


register(
    Exercise(
        id="lab-r4-useful-recall3",
        lesson=LESSON,
        question=f"Example E (the lab). {START} Click r4, at rank 3, once so it becomes 'useful' (grade 1). What "
        "is Recall@3 now, with grade >= 1 relevant? Give 3 decimals.",
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
    worked = worked_ndcg(grades, list(judgments.values()), k=3, gain="exponential")
    before = (("before-the-change",), lab_ndcg(3, "exponential"))
    return with_slips(worked, before, *earlier_states(3, "exponential", [(R4_USEFUL, True)]))


register(
    Exercise(
        id="lab-swap-ndcg3",
        lesson=LESSON,
        question=f"Example E. {START} Swap the first two results, so the page that answers the question (r1) "
        "comes first. What is nDCG@3 with exponential gain (ideal from all six grades)? Give 4 decimals "
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
    worked = worked_ndcg(grades, judged, k=5, gain="linear")
    before = (("before-the-change",), lab_ndcg(3, "exponential"))
    states = [(R4_USEFUL, False), ({}, True), (R4_USEFUL, True)]
    return with_slips(worked, before, *earlier_states(5, "linear", states))


register(
    Exercise(
        id="lab-ndcg5-linear",
        lesson=LESSON,
        question=f"Example E. {START} Flip the gain to linear and move K to 5. What is nDCG@5 of the lab's list "
        "(ideal from all six grades)? Give 4 decimals (3 are accepted).",
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
