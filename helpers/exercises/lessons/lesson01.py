"""Lesson 01 · Hit rate and MRR (example A): the exercises."""

from __future__ import annotations

from helpers import metrics
from helpers.exercises.lessons._shared import first_ranks, move_to_top
from helpers.exercises.registry import Exercise, FunctionExercise, register
from helpers.exercises.runner import Case
from helpers.exercises.worked import Worked, with_slips, worked_hit_rate, worked_mrr
from helpers.slips import ranks as rank_slips

LESSON = "01"


def new_ranks_d8_first() -> list[int]:
    """NEW's first relevant ranks once D8 is moved to rank 1 for q1."""
    ranks, _ = first_ranks("A", "NEW", edit=lambda q, ranked: move_to_top(ranked, "D8") if q == "q1" else ranked)
    return ranks


SHOWN_TO_A_READER = 2  # exercise 1: MRR@2, a cut-off the control does not have (it shows MRR without one)


def new_mrr_d8_first() -> Worked:
    """new-mrr-d8-first: NEW's MRR@2 once D8 is moved to rank 1 for q1.

    The control can make that move, but it shows MRR without a cut-off: its reading there (NEW's MRR after the
    move) and NEW's MRR@2 before the move (printed in the lesson's MRR@k table) are the values before the change.
    """
    after, before = new_ranks_d8_first(), first_ranks("A", "NEW")[0]
    worked = worked_mrr(after, k=SHOWN_TO_A_READER)
    shown_by_the_control = (("before-the-change",), metrics.mean_reciprocal_rank(after))
    table_before = (("before-the-change",), metrics.mean_reciprocal_rank(before, SHOWN_TO_A_READER))
    plain_before = (("before-the-change", "ignored-cutoff"), metrics.mean_reciprocal_rank(before))
    return with_slips(worked, shown_by_the_control, table_before, plain_before)


register(
    Exercise(
        id="new-mrr-d8-first",
        lesson=LESSON,
        question="Example A: in NEW's list for question q1, move D8 to rank 1 (the other passages keep their "
        f"order). The control can make that move, but it shows MRR with no cut-off. Only the top "
        f"{SHOWN_TO_A_READER} passages of each list are shown to a reader: what is NEW's MRR@{SHOWN_TO_A_READER} "
        "over the five questions now?",
        answer=new_mrr_d8_first,
        hints=(
            "Two things happen: q1's first relevant rank becomes 1, and every first hit below rank "
            f"{SHOWN_TO_A_READER} now scores 0.",
            "Take NEW's five first relevant ranks with q1's set to 1; a rank of 1 scores 1, a rank of 2 scores "
            f"1/2, a rank above {SHOWN_TO_A_READER} or a miss scores 0. Add the five and divide by 5.",
        ),
        code="""example = load_example("A")
ranks = []
for q in example.query_ids:
    ranked = example.ranking("NEW", q)
    if q == "q1":
        ranked = ["D8"] + [doc for doc in ranked if doc != "D8"]
    ranks.append(metrics.first_relevant_rank(ranked, example.relevant_for(q)))
metrics.mean_reciprocal_rank(ranks, k=2)""",
    )
)


NEW_QUESTIONS = (1, 0)  # exercise 2: two questions the control does not have: answered at rank 1, and missed


def new_hit_rate_at_2() -> Worked:
    """new-hit-rate-at-2: NEW's hit rate at 2 once two more questions join the five (one answered first, one missed).

    The control's reading at k = 2 (the five questions) and the rate with only the answered question added
    are values before (part of) the change; leaving the missed question out of the count drops a miss; the
    seven questions' hits over the five of the control keep the old number of questions.
    """
    ranks, _ = first_ranks("A", "NEW")
    every = [*ranks, *NEW_QUESTIONS]
    worked = worked_hit_rate(every, 2)
    answered_only = [*ranks, *(rank for rank in NEW_QUESTIONS if rank)]
    return with_slips(
        worked,
        (("before-the-change",), metrics.mean_hit_rate(ranks, 2)),
        (("before-the-change",), metrics.mean_hit_rate(answered_only, 2)),
        (("dropped-misses",), metrics.mean_hit_rate(answered_only, 2)),
        (("old-question-count",), metrics.mean_hit_rate(every, 2) * len(every) / len(ranks)),
    )


register(
    Exercise(
        id="new-hit-rate-at-2",
        lesson=LESSON,
        question="Example A: the control shows NEW's hit rate at k over its five questions. Two more questions "
        "join the golden set (the control cannot add them): NEW puts a relevant passage for the first at rank 1, "
        "and finds nothing relevant for the second in its five passages. What is NEW's Hit@2 over the seven "
        "questions?",
        answer=new_hit_rate_at_2,
        hints=(
            "Hit rate asks one yes/no question per query: is a relevant passage among the top k? Each new "
            "question adds one answer to the count of questions, found or not.",
            "Find each question's first relevant rank in NEW, count the questions whose rank is 1 or 2 (the two new "
            "ones included: a miss counts as no), and divide by seven.",
        ),
        code="""example = load_example("A")
ranks = [metrics.first_relevant_rank(example.ranking("NEW", q), example.relevant_for(q))
         for q in example.query_ids]
metrics.mean_hit_rate(ranks + [1, 0], k=2)""",
    )
)


EXPLAIN_RANKS = [1, 3, 4]

register(
    Exercise(
        id="explain-rr-mean",
        lesson=LESSON,
        question="Three questions have their first relevant passage at ranks 1, 3 and 4. What is their MRR?",
        answer=lambda: worked_mrr(EXPLAIN_RANKS),
        decimals=4,
        min_decimals=3,
        hints=(
            "MRR is a mean of reciprocal ranks, not of ranks.",
            "Take 1/rank for each question, add the three, divide by 3.",
        ),
        code="metrics.mean_reciprocal_rank([1, 3, 4])",
    )
)


# --- the function exercise -----------------------------------------------------------


def mrr_slips(ranks: list[int]) -> tuple:
    """The value each MRR slip gives on one list of first ranks (nan where it has none)."""
    return (
        (("mean-of-ranks",), rank_slips.mrr_mean_of_ranks(ranks)),
        (("one-over-mean-rank",), rank_slips.mrr_one_over_mean_rank(ranks)),
        (("dropped-misses",), rank_slips.mrr_dropping_misses(ranks)),
        (("ranks-from-zero",), rank_slips.mrr_ranks_from_zero(ranks)),
        (("sum-not-mean",), rank_slips.mrr_sum_instead_of_mean(ranks)),
        (("hit-rate-for-mrr",), rank_slips.hit_rate_instead_of_mrr(ranks)),
    )


def mrr_cases() -> list[Case]:
    """Hidden cases of ``mrr(first_ranks)``: example A, misses, a tuple, one query, no query."""
    old, _ = first_ranks("A", "OLD")
    new, _ = first_ranks("A", "NEW")
    plain = [
        (old, "example A, OLD", False),
        (new, "example A, NEW", False),
        ([4, 0], "a miss stays in the mean", False),
        ([0, 0, 0], "every query a miss", True),
        ([1], "one query, hit at rank 1", True),
        ((2, 5), "a tuple instead of a list", False),
    ]
    cases = [
        Case((ranks,), metrics.mean_reciprocal_rank(ranks), about, mrr_slips(list(ranks)), public)
        for ranks, about, public in plain
    ]
    return cases + [Case(([],), float("nan"), "no query at all: the mean of nothing is undefined", public=True)]


register(
    FunctionExercise(
        id="mrr-function",
        lesson=LESSON,
        question="Write mrr(first_ranks): the mean of 1/rank over a list of first relevant ranks, where 0 "
        "means a miss.",
        name="mrr",
        cases=mrr_cases,
        hints=(
            "A miss (0) adds 0 to the sum but still counts in the number of queries.",
            "Loop over the ranks, add 1/rank when the rank is above 0, and divide the sum by len(first_ranks).",
        ),
        code="""def mrr(first_ranks):
    reciprocal = [1 / rank if rank > 0 else 0.0 for rank in first_ranks]
    return sum(reciprocal) / len(reciprocal)""",
    )
)
