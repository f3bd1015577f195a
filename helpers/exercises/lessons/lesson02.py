"""Lesson 02 · DCG and nDCG by hand (example B): the exercises."""

from __future__ import annotations

import math

from helpers import metrics
from helpers.exercises.lessons._shared import load_example, move_to, query_grades, whole
from helpers.exercises.registry import Exercise, FunctionExercise, register
from helpers.exercises.runner import Case
from helpers.exercises.worked import Worked, both_sides, with_slips, worked_difference, worked_ndcg
from helpers.slips import graded as graded_slips

LESSON = "02"


def swapped(changes: dict | None = None, drop: tuple[str, ...] = (), add: dict | None = None) -> Worked:
    """nDCG@5 of the swapped ordering after edits: grades changed, passages dropped, new passages appended.

    ``add`` maps a passage the data does not have to its grade: it joins the end of the list and the judgments.
    """
    grades, judged = query_grades("B", "swapped", "b1", changes=changes, drop=drop)
    extra = list((add or {}).values())
    return worked_ndcg([*grades, *extra], [*judged, *extra], k=5)


D10_USEFUL = {"D10": 1.0}  # exercise 1: D10, judged but never returned, found useful (the control cannot regrade it)


def d4_grade_1_swapped() -> Worked:
    """d4-grade-1-swapped: how far nDCG@5 of the swapped ordering falls once D4 is graded 1 and D10 (missed) 1.

    The control regrades D4, not D10: its reading with D4 at 1 alone is the value before part of the change.
    """
    before, after = swapped(), swapped({"D4": 1.0, **D10_USEFUL})
    old_grades, old_judged = query_grades("B", "swapped", "b1")
    new_grades, _ = query_grades("B", "swapped", "b1", changes={"D4": 1.0})
    part = (("before-the-change",), before.value - swapped({"D4": 1.0}).value)
    stale = (("stale-ideal",), before.value - graded_slips.ndcg_stale_ideal(new_grades, old_judged, k=5))
    steps = both_sides("before", before, "after", after)
    return with_slips(worked_difference(before, after, steps, "nDCG@5 fall"), part, stale)


register(
    Exercise(
        id="d4-grade-1-swapped",
        lesson=LESSON,
        question="Example B: the judges lower D4's grade from 2 to 1, and find that D10, a passage the search "
        "never returned, helps a little: grade 1 (the control regrades only D11 and D4). By how much does "
        "nDCG@5 of the swapped ordering fall (linear gain, the ideal from every judged passage)?",
        answer=d4_grade_1_swapped,
        decimals=4,
        min_decimals=3,
        hints=(
            "Two things change, not one: the list's DCG (D4 is in it) and the ideal (both D4 and D10 are judged). "
            "The answer is the difference of two nDCG@5 values, not either of them.",
            "Put D4's new grade in the swapped list (D4 is at rank 1) and recompute its DCG@5; sort every judged "
            "grade, D10's 1 included, for the ideal DCG@5; divide; subtract that from the nDCG@5 before the change.",
        ),
        code="""example = load_example("B")
judgments = example.judgments_for("b1")
regraded = {**judgments, "D4": 1, "D10": 1}
ranked = example.ranking("swapped", "b1")
(metrics.ndcg(metrics.grades_in_rank_order(ranked, judgments), k=5, ideal=judgments.values())
 - metrics.ndcg(metrics.grades_in_rank_order(ranked, regraded), k=5, ideal=regraded.values()))""",
    )
)


D12_FIFTH = {"D12": 2.0}  # exercise 2: a passage the data does not have, graded 2, fills the fifth place


def d11_removed_swapped() -> Worked:
    """d11-removed-swapped: how much nDCG@5 of the swapped ordering loses when the search misses D11 and
    returns D12 (graded 2, not in the control) fifth.

    The control can drop D11 but has no D12: its reading there is the value before part of the change.
    """
    with_d11, without = swapped(), swapped(drop=("D11",), add=D12_FIFTH)
    steps = both_sides("with D11", with_d11, "without D11", without)
    left = without.inputs["grades"]
    part = (("before-the-change",), with_d11.value - swapped(drop=("D11",)).value)
    forgot_the_ideal = (("retrieved-only-ideal",), with_d11.value - metrics.ndcg(left, 5, ideal=left))
    stale = (("stale-ideal",), with_d11.value - metrics.ndcg(left, 5, ideal=with_d11.inputs["judged"]))
    return with_slips(worked_difference(with_d11, without, steps, "what missing D11 costs"), part, forgot_the_ideal,
                      stale)


register(
    Exercise(
        id="d11-removed-swapped",
        lesson=LESSON,
        question="Example B: suppose the search never finds D11 (remove it from the swapped ordering; its "
        "judgment stays), and a new passage, D12, which the control does not have, comes in fifth; the judges "
        "grade it 2. By how much does nDCG@5 of the swapped ordering fall?",
        answer=d11_removed_swapped,
        decimals=4,
        min_decimals=3,
        hints=(
            "Two nDCG@5 values, before and after; the answer is how far apart they are. A passage the search "
            "misses still belongs to the ideal, and a newly judged one joins it.",
            "After the change the list is D4, D9, D1, D2, D12: compute its DCG@5; the ideal sorts every judged "
            "grade (D11's 3 and D12's 2 included); divide, and subtract that from the swapped ordering's nDCG@5.",
        ),
        code="""example = load_example("B")
judgments = example.judgments_for("b1")
ranked = example.ranking("swapped", "b1")
judged_after = {**judgments, "D12": 2}
left = [doc for doc in ranked if doc != "D11"] + ["D12"]
(metrics.ndcg(metrics.grades_in_rank_order(ranked, judgments), k=5, ideal=judgments.values())
 - metrics.ndcg(metrics.grades_in_rank_order(left, judged_after), k=5, ideal=judged_after.values()))""",
    )
)


D9_USEFUL = {"D9": 1.0}  # exercise 3: D9 found useful (the control regrades only D11 and D4)


def d11_second_swapped() -> Worked:
    """swapped-d11-second: how much nDCG@5 of the swapped ordering gains when D11 moves up to rank 2, D9 graded 1.

    The control can make the move with D9 at 0: that gain is the value before part of the change.
    """
    example = load_example("B")
    judgments = {**example.judgments_for("b1"), **D9_USEFUL}
    ranked = example.ranking("swapped", "b1")
    judged = list(judgments.values())
    moved = metrics.grades_in_rank_order(move_to(ranked, "D11", 2), judgments)
    before = worked_ndcg(metrics.grades_in_rank_order(ranked, judgments), judged, k=5)
    after = worked_ndcg(moved, judged, k=5)
    plain = example.judgments_for("b1")
    read_off = metrics.ndcg(metrics.grades_in_rank_order(move_to(ranked, "D11", 2), plain), 5, ideal=plain.values())
    part = (("before-the-change",), read_off - metrics.ndcg(metrics.grades_in_rank_order(ranked, plain), 5,
                                                           ideal=plain.values()))
    steps = both_sides("before the move", before, "after the move", after)
    return with_slips(worked_difference(after, before, steps, "the gain of the move"), part)


register(
    Exercise(
        id="swapped-d11-second",
        lesson=LESSON,
        question="Example B: the judges find D9 (rank 2 of the swapped ordering) partly useful and grade it 1 "
        "(the control regrades only D11 and D4). Then move D11 from rank 3 up to rank 2 (D9 drops to rank 3). "
        "How much does nDCG@5 gain by that one move?",
        answer=d11_second_swapped,
        decimals=4,
        min_decimals=3,
        hints=(
            "The move does not change the ideal: only the list's DCG changes. The answer is the difference of two "
            "nDCG@5 values (D9 graded 1 in both), not either of them.",
            "The grades in rank order go from 2, 1, 3, 0, 0 to 2, 3, 1, 0, 0; divide each by log2(rank + 1) and "
            "add, divide both by the ideal DCG@5 of the grades 3, 2, 1, and subtract.",
        ),
        code="""example = load_example("B")
judgments = {**example.judgments_for("b1"), "D9": 1}
ranked = example.ranking("swapped", "b1")
moved = [doc for doc in ranked if doc != "D11"]
moved.insert(1, "D11")
(metrics.ndcg(metrics.grades_in_rank_order(moved, judgments), k=5, ideal=judgments.values())
 - metrics.ndcg(metrics.grades_in_rank_order(ranked, judgments), k=5, ideal=judgments.values()))""",
    )
)


register(
    Exercise(
        id="explain-ndcg-03",
        lesson=LESSON,
        question="A list has the gains 1, 2 and the ideal order is 2, 1. What is its nDCG (no cut-off)?",
        answer=lambda: worked_ndcg([1, 2], [2, 1]),
        decimals=4,
        min_decimals=3,
        hints=(
            "Both lists hold the same gains; only where the 2 stands differs.",
            "DCG = 1/log2(2) + 2/log2(3); IDCG = 2/log2(2) + 1/log2(3); nDCG = DCG / IDCG.",
        ),
        code="metrics.ndcg([1, 2], ideal=[2, 1])",
    )
)


# --- the function exercises ---------------------------------------------------------------


def dcg_slips(gains: list) -> tuple:
    """The value each DCG slip gives on one list of gains."""
    return (
        (("no-discount",), graded_slips.dcg_no_discount(gains)),
        (("discount-zero-at-top",), math.inf if gains else 0.0),  # log2(1) = 0: the first division fails
        (("log2-rank-first-undiscounted",), graded_slips.dcg_log2_rank_first_undiscounted(gains)),
        (("rank-as-discount",), graded_slips.dcg_rank_discount(gains)),
        (("ranks-from-zero",), graded_slips.dcg_ranks_from_zero(gains)),
        (("exponential-for-linear",), metrics.dcg(gains, gain="exponential")),
        (("natural-log",), graded_slips.dcg_natural_log(gains)),
    )


def dcg_cases() -> list[Case]:
    """Hidden cases of ``dcg(gains)``: example B's orderings, example C, one result, nothing relevant, none."""
    orderings = [
        (whole(query_grades("B", system, "b1")[0]), f"example B, {system}")
        for system in ("swapped", "good", "pushed_down")
    ]
    sheet = whole(query_grades("C", "search", "reset-password")[0])
    plain = [
        *((gains, about, False) for gains, about in orderings),
        (sheet, "example C, all six results", False),
        ([1], "one result", True),
        ([0, 0, 0], "nothing relevant: DCG is 0", True),
        ([], "nothing returned: a sum of nothing is 0", True),
    ]
    return [Case((gains,), metrics.dcg(gains), about, dcg_slips(gains), public) for gains, about, public in plain]


def ndcg_slips(gains: list, k: int) -> tuple:
    """The value each nDCG slip gives on one list of gains, the ideal sorted from the same gains."""

    def normalised(wrong) -> float:
        best = wrong(sorted(gains, reverse=True))
        return wrong(gains) / best if best and math.isfinite(best) else math.nan

    return (
        (("dcg-for-ndcg",), metrics.dcg(gains, k)),
        (("no-discount",), normalised(lambda g: graded_slips.dcg_no_discount(g, k))),
        (("discount-zero-at-top",), math.inf if gains else 0.0),
        (("log2-rank-first-undiscounted",), normalised(lambda g: graded_slips.dcg_log2_rank_first_undiscounted(g, k))),
        (("rank-as-discount",), normalised(lambda g: graded_slips.dcg_rank_discount(g, k))),
        (("ranks-from-zero",), normalised(lambda g: graded_slips.dcg_ranks_from_zero(g, k))),
        (("unsorted-ideal",), graded_slips.ndcg_unsorted_ideal(gains, gains, k)),
        (("ignored-cutoff",), metrics.dcg(gains, k) / metrics.ideal_dcg(gains)),
        (("exponential-for-linear",), metrics.ndcg(gains, k, gain="exponential")),
    )


def ndcg_cases() -> list[Case]:
    """Hidden cases of ``ndcg(gains, k)`` (ideal: the same gains sorted), k past the end, all zeros."""
    swapped = whole(query_grades("B", "swapped", "b1")[0])
    good = whole(query_grades("B", "good", "b1")[0])
    sheet = whole(query_grades("C", "search", "reset-password")[0])
    plain = [
        (swapped, 5, "example B, swapped", False),
        (good, 5, "example B, good order", False),
        (sheet, 5, "example C, ideal from the returned grades", False),
        ([1, 0, 2], 3, "a short list", False),
        ([1, 0, 2], 10, "k past the end of the list", False),
        ([1, 0, 2], 1, "k = 1", False),
        ([0, 0, 3], 2, "sort all the gains, then cut the ideal at k", False),
    ]
    cases = [
        Case((gains, k), metrics.ndcg(gains, k), about, ndcg_slips(gains, k), public)
        for gains, k, about, public in plain
    ]
    return cases + [Case(([0, 0, 0], 3), math.nan, "all grades 0: the ideal DCG is 0, nDCG undefined", public=True)]


register(
    FunctionExercise(
        id="dcg-function",
        lesson=LESSON,
        question="Write dcg(gains): the sum of gain / log2(rank + 1) over a list of gains in rank order "
        "(linear gain, no cut-off).",
        name="dcg",
        cases=dcg_cases,
        hints=(
            "Rank 1 must be divided by 1, so the discount of rank r is log2(r + 1).",
            "for rank, gain in enumerate(gains, start=1): add gain / math.log2(rank + 1).",
        ),
        code="""import math

def dcg(gains):
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))""",
    )
)

register(
    FunctionExercise(
        id="ndcg-function",
        lesson=LESSON,
        question="Write ndcg(gains, k): DCG@k / IDCG@k, where the ideal sorts the same gains from high to low.",
        name="ndcg",
        cases=ndcg_cases,
        hints=(
            "Cut both the list and the sorted ideal at k before you add.",
            "ndcg = dcg(gains[:k]) / dcg(sorted(gains, reverse=True)[:k]); decide what to do when the ideal DCG is 0.",
        ),
        code="""import math

def dcg(gains):
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))

def ndcg(gains, k):
    best = dcg(sorted(gains, reverse=True)[:k])
    if best == 0:
        raise ValueError("nDCG is undefined: nothing relevant")
    return dcg(gains[:k]) / best""",
    )
)
