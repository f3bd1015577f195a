"""Lesson 06 · The metric family (example C): the exercises."""

from __future__ import annotations

from helpers import metrics
from helpers.exercises.lessons._shared import load_example, query_grades
from helpers.exercises.registry import Exercise, register
from helpers.exercises.worked import (
    Worked,
    with_slips,
    worked_average_precision,
    worked_dcg,
    worked_mean_average_precision,
)
from helpers.slips import graded as graded_slips

LESSON = "06"
QUERY = "reset-password"


def reset_ap(k: int, denominator) -> Worked:
    """AP@k of reset-password over R or over min(k, R)."""
    example = load_example("C")
    return worked_average_precision(example.ranking("search", QUERY), example.relevant_for(QUERY), k, denominator)


register(
    Exercise(
        id="c-ap3",
        lesson=LESSON,
        question="Example C, reset-password: AP@3 with grade >= 1 relevant, divided by R (every relevant "
        "article of the query).",
        answer=lambda: reset_ap(3, "R"),
        decimals=4,
        min_decimals=3,
        hints=(
            "AP adds a precision only at the ranks where a relevant article sits.",
            "Within the top 3, take P@i at each relevant rank i, add them, and divide by R, the relevant articles "
            "judged for the query (found or not).",
        ),
        code="""example = load_example("C")
metrics.average_precision(example.ranking("search", "reset-password"),
                          example.relevant_for("reset-password"), k=3)""",
    )
)

register(
    Exercise(
        id="c-ap3-min-k-r",
        lesson=LESSON,
        question="Example C, reset-password: the same AP@3, but divided by min(k, R) (the other convention).",
        answer=lambda: reset_ap(3, "min_k_R"),
        decimals=4,
        min_decimals=3,
        hints=(
            "Only the denominator changes: with k = 3 places, at most 3 relevant articles could appear.",
            "Keep the sum of precisions at the relevant ranks within the top 3, and divide by min(3, R).",
        ),
        code="""example = load_example("C")
metrics.average_precision(example.ranking("search", "reset-password"),
                          example.relevant_for("reset-password"), k=3, denominator="min_k_R")""",
    )
)


LESSON_CUTOFF = 5  # the k of the lesson's tables (MAP@5, CG@5, ...)


def helpdesk_map3() -> Worked:
    """helpdesk-map3: MAP@3 over the five help-desk queries (the lesson prints MAP@5: another cut-off)."""
    example = load_example("C")
    queries = [(example.ranking("search", q), example.relevant_for(q)) for q in example.query_ids]
    printed = worked_mean_average_precision(queries, k=LESSON_CUTOFF).value
    return with_slips(worked_mean_average_precision(queries, k=3), (("other-cutoff",), printed))


register(
    Exercise(
        id="helpdesk-map3",
        lesson=LESSON,
        question="Example C: MAP@3 over the five help-desk queries (AP@3 of each, divided by R, then the mean).",
        answer=helpdesk_map3,
        decimals=4,
        min_decimals=3,
        hints=(
            "A query whose relevant article is not in its top 3 has AP@3 = 0 and still counts.",
            "Compute AP@3 for each of the five queries (each over its own R), then the mean of the five.",
        ),
        code="""example = load_example("C")
scores = [metrics.average_precision(example.ranking("search", q), example.relevant_for(q), k=3)
          for q in example.query_ids]
sum(scores) / len(scores)""",
    )
)


def reset_dcg6_exponential() -> Worked:
    """reset-dcg6-exp: DCG@6 of reset-password with exponential gain (the whole list; Step 3 prints DCG@5)."""
    grades, _ = query_grades("C", "search", QUERY)
    return worked_dcg(grades, k=6, gain="exponential")


register(
    Exercise(
        id="reset-dcg6-exp",
        lesson=LESSON,
        question="Example C, reset-password: DCG@6, the whole returned list, with exponential gain (2^grade - 1).",
        answer=reset_dcg6_exponential,
        hints=(
            "Turn the grades into gains first; the discount does not change. Rank 6 counts now.",
            "Grades 2, 0, 3, 1, 0, 2 give gains 3, 0, 7, 1, 0, 3; divide each by log2(rank + 1) and add.",
        ),
        code="""example = load_example("C")
judgments = example.judgments_for("reset-password")
grades = metrics.grades_in_rank_order(example.ranking("search", "reset-password"), judgments)
metrics.dcg(grades, k=6, gain="exponential")""",
    )
)


KB21_AT = 2  # exercise 5: kb21, the missed grade-3 article, put in place of the article at rank 2


def reset_with_kb21() -> list[float]:
    """reset-password's grades in rank order once kb21 takes the place of the article at rank 2."""
    example = load_example("C")
    judgments = example.judgments_for(QUERY)
    ranked = example.ranking("search", QUERY)
    ranked = [*ranked[: KB21_AT - 1], "kb21", *ranked[KB21_AT:]]
    return metrics.grades_in_rank_order(ranked, judgments)


def reset_cg5_minus_dcg5() -> Worked:
    """reset-cg-minus-dcg5: how much the discount takes from reset-password's top 5 once kb21 is at rank 2.

    The lesson prints CG@5 and DCG@5 of the list as it is: their gap is the value before the change.
    """
    grades = reset_with_kb21()
    cg, dcg = metrics.cumulative_gain(grades, 5), metrics.dcg(grades, 5)
    steps = (
        f"grades in rank order with kb21 at rank {KB21_AT}: {', '.join(f'{g:g}' for g in grades)}",
        f"CG@5 adds the grades of the top 5: {cg:g}",
        f"DCG@5 divides each by log2(rank + 1) first: {dcg:.4f}",
        f"CG@5 - DCG@5 = {cg:g} - {dcg:.4f} = {cg - dcg:.4f}",
    )
    old, _ = query_grades("C", "search", QUERY)
    slips = (
        (("no-discount",), 0.0),
        (("log2-rank-first-undiscounted",), cg - graded_slips.dcg_log2_rank_first_undiscounted(grades, 5)),
        (("rank-as-discount",), cg - graded_slips.dcg_rank_discount(grades, 5)),
        (("natural-log",), cg - graded_slips.dcg_natural_log(grades, 5)),
        (
            ("exponential-for-linear",),
            metrics.cumulative_gain([2**g - 1 for g in grades], 5) - metrics.dcg(grades, 5, "exponential"),
        ),
        (("cutoff-off-by-one",), metrics.cumulative_gain(grades, 6) - metrics.dcg(grades, 6)),
        (("cutoff-off-by-one",), metrics.cumulative_gain(grades, 4) - metrics.dcg(grades, 4)),
        (("one-side-of-a-gap",), cg),
        (("one-side-of-a-gap",), dcg),
        (("a-minus-b",), dcg - cg),
        (("before-the-change",), metrics.cumulative_gain(old, 5) - metrics.dcg(old, 5)),
        *((("rounded-early",), cg - round(dcg, places)) for places in (2, 3)),
    )
    return Worked(cg - dcg, steps, slips, "cg-minus-dcg", dict(grades=grades, k=5))


register(
    Exercise(
        id="reset-cg-minus-dcg5",
        lesson=LESSON,
        question="Example C, reset-password: put kb21, the grade-3 article the search missed, in place of the "
        f"article at rank {KB21_AT} (the others keep their ranks). By how much does CG@5 exceed DCG@5 then "
        "(linear gain)? That gap is what the discount takes away from results below rank 1.",
        answer=reset_cg5_minus_dcg5,
        hints=(
            "CG and DCG add the same grades; only DCG divides them first. The new article changes both sums.",
            f"Put kb21's grade 3 at rank {KB21_AT}; CG@5 is the plain sum of the top-5 grades; DCG@5 divides each by "
            "log2(rank + 1) before adding; subtract the second from the first.",
        ),
        code="""example = load_example("C")
judgments = example.judgments_for("reset-password")
ranked = example.ranking("search", "reset-password")
ranked[1] = "kb21"
grades = metrics.grades_in_rank_order(ranked, judgments)
metrics.cumulative_gain(grades, k=5) - metrics.dcg(grades, k=5)""",
    )
)
