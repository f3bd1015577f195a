"""Lesson 05 · The metrics lab (example E): the exercises."""

from __future__ import annotations

from helpers import metrics
from helpers.exercises.lessons._shared import load_example, move_to
from helpers.exercises.registry import Exercise, register
from helpers.exercises.worked import Worked, with_slips, worked_difference, worked_ndcg, worked_recall
from helpers.slips import graded as graded_slips

LESSON = "05"
START = "Start from the lab as it opens (press reset first)."
R4_USEFUL = {"r4": 1.0}  # exercise 1's click
UNSEEN_USEFUL = 2  # exercise 1: useful pages the search never returned, which the lab cannot add
R1_PERFECT = {"r1": 3.0}  # exercise 2: a grade above the lab's three (2^3 - 1 = 7)


def lab_grades(changes: dict | None = None, swapped: bool = False) -> tuple[list[float], list[float]]:
    """The lab's grades in rank order and every judged grade, in one state (clicks, the top two swapped)."""
    example = load_example("E")
    judgments = {**example.judgments_for("e1"), **(changes or {})}
    ranked = example.ranking("lab", "e1")
    if swapped:
        ranked = move_to(ranked, "r1", 1)
    return metrics.grades_in_rank_order(ranked, judgments), list(judgments.values())


def lab_ndcg(k: int, gain, changes: dict | None = None, swapped: bool = False) -> float:
    """nDCG@k of the lab's list in one state: grades changed by clicks, the top two swapped or not."""
    grades, judged = lab_grades(changes, swapped)
    return metrics.ndcg(grades, k, ideal=judged, gain=gain)


def with_unseen(judgments: dict) -> dict:
    """The judgments with the useful pages the search never returned (exercise 1) added."""
    return {**judgments, **{f"unseen-{n}": 1.0 for n in range(1, UNSEEN_USEFUL + 1)}}


def r4_useful_recall3() -> Worked:
    """lab-r4-useful-recall3: recall@3 once r4 is graded useful and two unseen useful pages are judged."""
    example = load_example("E")
    ranked, opening = example.ranking("lab", "e1"), example.judgments_for("e1")
    judgments = {**opening, **R4_USEFUL}
    worked = worked_recall(ranked, metrics.relevant_ids(with_unseen(judgments)), k=3)
    shown_by_the_lab = metrics.recall_at_k(ranked, metrics.relevant_ids(judgments), 3)
    before_the_click = metrics.recall_at_k(ranked, metrics.relevant_ids(with_unseen(opening)), 3)
    return with_slips(worked, (("before-the-change",), shown_by_the_lab), (("before-the-change",), before_the_click))


register(
    Exercise(
        id="lab-r4-useful-recall3",
        lesson=LESSON,
        question=f"Example E (the lab). {START} Click r4, at rank 3, once so it becomes 'useful' (grade 1); the lab "
        "shows Recall@3. Then the judges find two more useful pages that the search never returned (the lab "
        "cannot add them). What is Recall@3 now, with grade >= 1 relevant?",
        answer=r4_useful_recall3,
        hints=(
            "The two new pages are not in the list, so the top 3 finds what it found; only R, the number of "
            "relevant pages, grows.",
            "Count the relevant pages in the top 3 after the click, then divide by R: the useful pages among the "
            "six, r4 included, plus the two the search missed.",
        ),
        code="""example = load_example("E")
judgments = {**example.judgments_for("e1"), "r4": 1, "unseen-1": 1, "unseen-2": 1}
metrics.recall_at_k(example.ranking("lab", "e1"), metrics.relevant_ids(judgments), k=3)""",
    )
)


def swap_top_two_ndcg3() -> Worked:
    """lab-swap-ndcg3: exponential nDCG@3 once r1 and r2 trade places and r1 is graded 3 (beyond the lab)."""
    grades, judged = lab_grades(R1_PERFECT, swapped=True)
    worked = worked_ndcg(grades, judged, k=3, gain="exponential")
    shown_by_the_lab = (("before-the-change",), lab_ndcg(3, "exponential", swapped=True))
    opening = (("before-the-change",), lab_ndcg(3, "exponential", R1_PERFECT))
    stale = (("stale-ideal",), graded_slips.ndcg_stale_ideal(grades, lab_grades()[1], 3, "exponential"))
    earlier = (("lab-earlier-state",), lab_ndcg(3, "exponential", {**R4_USEFUL, **R1_PERFECT}, swapped=True))
    return with_slips(worked, shown_by_the_lab, opening, stale, earlier)


register(
    Exercise(
        id="lab-swap-ndcg3",
        lesson=LESSON,
        question=f"Example E. {START} Swap the first two results, so the page that answers the question (r1) "
        "comes first; the lab shows nDCG@3 with exponential gain. Now suppose the judges call r1 'perfect', "
        "grade 3, which the lab does not offer (its gain is 2^3 - 1 = 7). What is nDCG@3 then (exponential "
        "gain, ideal from all six grades)?",
        answer=swap_top_two_ndcg3,
        decimals=4,
        min_decimals=3,
        hints=(
            "r1's new grade changes the list's DCG and the ideal's, since r1 is one of the six judged grades.",
            "Gains 2^grade - 1 in the new order 7, 1, 0 over discounts 1, 1.585, 2; the ideal sorts the six "
            "grades 3, 1, 1, 1, 0, 0 into gains 7, 1, 1; divide the first DCG@3 by the second.",
        ),
        code="""example = load_example("E")
judgments = {**example.judgments_for("e1"), "r1": 3}
ranked = ["r1"] + [doc for doc in example.ranking("lab", "e1") if doc != "r1"]
grades = metrics.grades_in_rank_order(ranked, judgments)
metrics.ndcg(grades, k=3, ideal=judgments.values(), gain="exponential")""",
    )
)


UNSEEN_ANSWER = 2  # exercise 3: one more page that answers the question (grade 2), never returned


def gain_gap(k: int, changes: dict | None = None, swapped: bool = False, unseen: tuple[float, ...] = ()) -> float:
    """nDCG@k with linear gain minus nDCG@k with exponential gain, the ideal from the lab's grades and ``unseen``."""
    grades, judged = lab_grades(changes, swapped)
    ideal = [*judged, *unseen]
    return metrics.ndcg(grades, k, ideal=ideal) - metrics.ndcg(grades, k, ideal=ideal, gain="exponential")


def ndcg5_linear() -> Worked:
    """lab-ndcg5-linear: how much nDCG@5 of the lab's list gains when the gain turns linear, once a page that
    answers the question (grade 2), never returned, joins the judgments (the lab cannot add it).

    The lab's two readings subtracted leave that page out: the value before the change.
    """
    grades, judged = lab_grades()
    judged = [*judged, float(UNSEEN_ANSWER)]
    linear, exponential = worked_ndcg(grades, judged, k=5), worked_ndcg(grades, judged, k=5, gain="exponential")
    steps = (
        linear.steps[0],
        *(f"linear gain: {step}" for step in linear.steps[1:]),
        *(f"exponential gain: {step}" for step in exponential.steps[1:]),
    )
    unseen = (float(UNSEEN_ANSWER),)
    read_off = (("before-the-change",), gain_gap(5))
    k_left_at_3 = (("before-the-change",), gain_gap(3, unseen=unseen))
    earlier = [(("lab-earlier-state",), gain_gap(5, changes, swapped, unseen)) for changes, swapped in
               [(R4_USEFUL, False), ({}, True), (R4_USEFUL, True), (R1_PERFECT, True)]]
    gap = worked_difference(linear, exponential, steps, "linear minus exponential")
    return with_slips(gap, read_off, k_left_at_3, *earlier)


register(
    Exercise(
        id="lab-ndcg5-linear",
        lesson=LESSON,
        question=f"Example E. {START} The judges find one more page that answers the question (grade "
        f"{UNSEEN_ANSWER}), which the search never returned; the lab cannot add it. Move K to 5: by how much does "
        "nDCG@5 with linear gain exceed nDCG@5 with exponential gain now (the ideal from all seven grades, the "
        "new page's included; negative if it is lower)?",
        answer=ndcg5_linear,
        decimals=4,
        min_decimals=3,
        hints=(
            "The new page is not in the list, so the list's DCG@5 stays as the lab shows it for either gain; only "
            "the ideal changes. The answer is a difference of two nDCG@5 values, not either of them.",
            "For each gain: the lab's DCG@5 over the ideal DCG@5 of the seven grades sorted high to low "
            f"(the new {UNSEEN_ANSWER} among them); linear gain is the grade, exponential 2^grade - 1; subtract the "
            "exponential nDCG@5 from the linear one.",
        ),
        code="""example = load_example("E")
judgments = {**example.judgments_for("e1"), "unseen": 2}
grades = metrics.grades_in_rank_order(example.ranking("lab", "e1"), judgments)
(metrics.ndcg(grades, k=5, ideal=judgments.values(), gain="linear")
 - metrics.ndcg(grades, k=5, ideal=judgments.values(), gain="exponential"))""",
    )
)
