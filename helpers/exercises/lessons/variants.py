"""Variants of the lessons' exercises: the same question on new numbers (``practice``, lessons 01-07).

Each generator draws new data from the seeded ``rng`` it is given and builds
its answer with a ``worked_*`` helper, so the steps and the slips come with it.
A draw is kept only when it is well made (:func:`well_made`): the answer is
defined, and every slip that changes the number by a unit of the exercise's
precision or more gives another number at that precision (so it is never
judged right, and always named). A slip that leaves the number as it is here
(no miss to drop, say) does not apply to that draw.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import replace

import pandas as pd

from helpers import metrics
from helpers.exercises.answers import correctly_rounded
from helpers.exercises.fresh import Variant, variant_of
from helpers.exercises.registry import REGISTRY, Exercise
from helpers.exercises.worked import (
    with_slips,
    worked_average_precision,
    worked_dcg,
    worked_difference,
    worked_mrr,
    worked_ndcg,
)
from helpers.slips import graded as graded_slips

TRIES = 200


def well_made(exercise_id: str, rng: random.Random, make: Callable[[random.Random], Variant]) -> Variant:
    """Draw until the variant's answer is defined and differs from every slip at the exercise's precision."""
    found = REGISTRY[exercise_id]
    assert isinstance(found, Exercise)
    decimals = found.decimals
    for _ in range(TRIES):
        variant = make(rng)
        if math.isfinite(variant.worked.value) and not collisions(variant.worked.value, variant.worked.slips, decimals):
            return variant
    raise RuntimeError(f"no well-made variant of {exercise_id} in {TRIES} draws")


def collisions(value: float, slips, decimals: int) -> list:
    """The slips that change the number by a unit of the precision or more, yet round to the right answer."""
    right, unit = correctly_rounded(value, decimals), 10.0**-decimals
    return [
        codes for codes, v in slips
        if math.isfinite(v) and abs(v - value) >= unit and correctly_rounded(v, decimals) & right
    ]


def ranks_table(ranks: list[int]) -> pd.DataFrame:
    return pd.DataFrame({"question": [f"q{i}" for i in range(1, len(ranks) + 1)],
                         "first relevant rank": [rank if rank else "none" for rank in ranks]})


def grades_table(grades: list[int]) -> pd.DataFrame:
    return pd.DataFrame({"rank": range(1, len(grades) + 1), "grade": grades})


def graded(rng: random.Random, length: int, top: int) -> list[int]:
    """Grades 0..top for a ranked list, at least one of them above 0."""
    while True:
        grades = [rng.randint(0, top) for _ in range(length)]
        if any(grades):
            return grades


# --- lesson 01 ---------------------------------------------------------------------------


@variant_of("new-mrr-d8-first")
def mrr_at_k_after_a_move(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        ranks = [rng.choice([0, 1, 1, 2, 2, 3, 4, 5, 6]) for _ in range(rng.randint(4, 7))]
        moved = rng.randrange(len(ranks))
        ranks[moved] = rng.randint(2, 6)  # a first hit below the top that the change brings to rank 1
        after, k = [1 if i == moved else rank for i, rank in enumerate(ranks)], rng.randint(2, 4)
        worked = with_slips(
            worked_mrr(after, k=k),
            (("before-the-change",), metrics.mean_reciprocal_rank(after)),  # what the control shows after the move
            (("before-the-change",), metrics.mean_reciprocal_rank(ranks, k)),
            (("before-the-change", "ignored-cutoff"), metrics.mean_reciprocal_rank(ranks)),
        )
        question = (
            f"{len(ranks)} questions; the table gives each one's first relevant rank (none: no relevant passage "
            f"in the list). The search is changed so that q{moved + 1}'s relevant passage comes first (rank 1); "
            f"the other questions keep their ranks. Only the top {k} passages are shown to a reader: what is "
            f"MRR@{k} over the {len(ranks)} questions now? Give 3 decimals."
        )
        return Variant(question, ranks_table(ranks), worked)

    return well_made("new-mrr-d8-first", rng, make)


@variant_of("explain-rr-mean")
def mrr_of_three(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        ranks = [rng.randint(1, 9) for _ in range(3)]
        return Variant("Three questions have their first relevant passage at the ranks in the table. What is "
                       "their MRR? Give 4 decimals (3 are accepted).", ranks_table(ranks), worked_mrr(ranks))
    return well_made("explain-rr-mean", rng, make)


# --- lesson 02 ---------------------------------------------------------------------------


@variant_of("d4-grade-1-swapped")
def ndcg5_change_after_a_regrade(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades = graded(rng, 5, 3)
        missed = [rng.randint(0, 3) for _ in range(rng.randint(1, 3))]
        rank = rng.randint(1, 5)
        old = grades[rank - 1]
        grades[rank - 1] = rng.choice([g for g in range(4) if g != old])
        old_grades = [*grades[: rank - 1], old, *grades[rank:]]
        after, before = worked_ndcg(grades, grades + missed, k=5), worked_ndcg(old_grades, old_grades + missed, k=5)
        return Variant(f"The judges change the grade at rank {rank} from {old} to {grades[rank - 1]} (the table "
                       f"shows the new grades); the judged documents never returned have grades "
                       f"{', '.join(map(str, missed))}. By how much does nDCG@5 fall (linear gain, the ideal from "
                       "every judged document; negative if it rises)? Give 4 decimals (3 are accepted).",
                       grades_table(grades), worked_difference(before, after, after.steps, "nDCG@5 fall"))
    return well_made("d4-grade-1-swapped", rng, make)


@variant_of("explain-ndcg-03")
def ndcg_of_a_short_list(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        gains = graded(rng, rng.randint(3, 5), 3)
        return Variant("A list has the gains in the table, in rank order; its ideal sorts the same gains high to "
                       "low. What is its nDCG (no cut-off)? Give 4 decimals (3 are accepted).",
                       grades_table(gains).rename(columns={"grade": "gain"}), worked_ndcg(gains))
    return well_made("explain-ndcg-03", rng, make)


# --- lesson 03 ---------------------------------------------------------------------------


SHEET_TOP = 3  # the worksheet's yellow cells take grades 0..3
ABOVE_THE_SHEET = 4  # lesson 03, exercise 1: the missed article's grade, one the worksheet cannot take


def worksheet_question(k: int, missed: list[int]) -> str:
    """The question of a sheet-ndcg3 variant: ``missed[0]`` is the grade above the sheet, any other is 0..3."""
    others = "".join(f"; another article it never returned has grade {grade}" for grade in missed[1:])
    return (
        f"A worksheet: the relevance of each rank is in the table (grades 0-{SHEET_TOP}). The judges give an "
        f"article the search never returned a grade of {missed[0]}, above what the worksheet's cells take"
        f"{others}. What is NDCG@{k} (linear gain, the ideal from every judged article)? Give 3 decimals."
    )


@variant_of("sheet-ndcg3")
def sheet_ndcg_at_k(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades, k = graded(rng, 6, SHEET_TOP), rng.randint(2, 4)
        missed = [ABOVE_THE_SHEET] + [rng.randint(1, SHEET_TOP) for _ in range(rng.randint(0, 1))]
        capped = [min(grade, SHEET_TOP) for grade in missed]  # the most the worksheet can show
        worked = with_slips(
            worked_ndcg(grades, grades + missed, k=k),
            (("before-the-change",), metrics.ndcg(grades, k, ideal=grades + capped)),
            (("before-the-change",), metrics.ndcg(grades, 5, ideal=grades + capped)),
        )
        return Variant(worksheet_question(k, missed), grades_table(grades), worked)

    return well_made("sheet-ndcg3", rng, make)


@variant_of("kb04-graded-2")
def sheet_after_a_regrade(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades, missed = graded(rng, 6, SHEET_TOP), [rng.randint(1, SHEET_TOP)]
        rank = rng.choice([i for i, g in enumerate(grades[:5], start=1) if g < SHEET_TOP] or [5])
        new = grades.copy()
        new[rank - 1] = rng.choice([g for g in range(SHEET_TOP + 1) if g != grades[rank - 1]])
        before, after = worked_ndcg(grades, grades + missed, k=5), worked_ndcg(new, new + missed, k=5)
        worked = with_slips(
            worked_difference(after, before, after.steps, "NDCG@5 rise"),
            (("stale-ideal",), graded_slips.ndcg_stale_ideal(new, grades + missed, k=5) - before.value),
            (("rounded-early",), round(after.value, 3) - round(before.value, 3)),  # two 3-decimal readings
        )
        question = (
            f"A worksheet (table: the relevance of each rank; a judged article never returned has grade "
            f"{missed[0]}). A second judge changes rank {rank}'s grade from {grades[rank - 1]} to "
            f"{new[rank - 1]}: by how much does NDCG@5 rise (linear gain, the ideal from every judged article; "
            "negative if it falls)? Give 4 decimals (3 are accepted)."
        )
        return Variant(question, grades_table(grades), worked)

    return well_made("kb04-graded-2", rng, make)


# --- lesson 04 ---------------------------------------------------------------------------


@variant_of("advisor-mrr2")
def mrr_at_k(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        ranks, k = [rng.randint(0, 6) for _ in range(rng.randint(4, 6))], rng.randint(2, 4)
        return Variant(f"An advisor answers the questions in the table (first relevant chunk's rank; none: not "
                       f"found). What is its MRR@{k}? Give 3 decimals.", ranks_table(ranks), worked_mrr(ranks, k=k))
    return well_made("advisor-mrr2", rng, make)


@variant_of("advisor-fifth-question-mrr4")
def mrr4_with_unanswerable(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        ranks, unanswerable = [rng.randint(0, 6) for _ in range(rng.randint(3, 5))], rng.randint(1, 2)
        question = (f"The table gives the first relevant rank of each answerable question; {unanswerable} more "
                    "question(s) have no relevant chunk at all and stay out of the mean. What is MRR@4? "
                    "Give 3 decimals.")
        return Variant(question, ranks_table(ranks), worked_mrr(ranks, k=4, unanswerable=unanswerable))
    return well_made("advisor-fifth-question-mrr4", rng, make)


# --- lesson 05 ---------------------------------------------------------------------------


PERFECT = 3  # lesson 05's grade beyond the lab's three (gain 2^3 - 1 = 7)
LAB_OPENS_AT = 3  # the lab's K when it opens


def _grades_text(grades: list[int]) -> str:
    return ", ".join(map(str, grades))


@variant_of("lab-swap-ndcg3")
def ndcg3_after_a_swap_and_a_regrade(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades = graded(rng, 6, 2)
        up = rng.randint(2, 4)  # the result that moves up, to a rank in the top 3
        to = rng.randint(1, up - 1)
        while grades[up - 1] == grades[to - 1]:  # a swap that changes the list
            grades = graded(rng, 6, 2)
        swapped = grades.copy()
        swapped[to - 1], swapped[up - 1] = grades[up - 1], grades[to - 1]
        new, in_place = swapped.copy(), grades.copy()
        new[to - 1] = in_place[up - 1] = PERFECT
        worked = worked_ndcg(new, new, k=3, gain="exponential")
        steps = (f"the swap: {_grades_text(swapped)}; rank {to} graded {PERFECT}: {_grades_text(new)}", *worked.steps)
        worked = with_slips(
            replace(worked, steps=steps),
            (("before-the-change",), metrics.ndcg(swapped, 3, ideal=grades, gain="exponential")),  # the lab's value
            (("before-the-change",), metrics.ndcg(in_place, 3, ideal=in_place, gain="exponential")),  # not swapped
            (("stale-ideal",), graded_slips.ndcg_stale_ideal(new, grades, 3, "exponential")),
        )
        question = (
            f"The lab shows six results with the grades in the table (0 none, 1 useful, 2 answers it). "
            f"Swap the results at ranks {to} and {up}, so the one at rank {up} comes to rank {to}; then the "
            f"judges grade it 'perfect', {PERFECT}, which the lab does not offer (its gain is 2^{PERFECT} - 1 "
            f"= {2**PERFECT - 1}). What is nDCG@3 then (exponential gain, ideal from all six grades, the new "
            "one included)? Give 4 decimals (3 are accepted)."
        )
        return Variant(question, grades_table(grades), worked)

    return well_made("lab-swap-ndcg3", rng, make)


@variant_of("lab-ndcg5-linear")
def ndcg_gain_gap(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        while True:  # a list whose two gains give two values (grades 0 and 1 alone have the same gains)
            grades, k = graded(rng, 6, 2), rng.randint(4, 6)
            linear, exponential = worked_ndcg(grades, grades, k=k), worked_ndcg(grades, grades, k=k, gain="exponential")
            if round(linear.value - exponential.value, 4):
                break
        steps = (
            linear.steps[0],
            *(f"linear gain: {step}" for step in linear.steps[1:]),
            *(f"exponential gain: {step}" for step in exponential.steps[1:]),
        )
        at_open = (
            worked_ndcg(grades, grades, k=LAB_OPENS_AT).value
            - worked_ndcg(grades, grades, k=LAB_OPENS_AT, gain="exponential").value
        )
        gap = worked_difference(linear, exponential, steps, f"nDCG@{k} gap = linear - exponential")
        worked = with_slips(gap, (("before-the-change",), at_open))
        data = grades_table(grades).assign(**{"linear gain": grades, "exponential gain": [2**g - 1 for g in grades]})
        question = (
            f"The lab shows six results with the grades in the table (each result's gain both ways under "
            f"it), K at {LAB_OPENS_AT}. Move K to {k} and read nDCG@{k} with exponential gain; then flip the "
            f"gain to linear and read it again (ideal from all six grades both times). By how much does "
            f"nDCG@{k} with linear gain exceed nDCG@{k} with exponential gain (negative if it is lower)? Give 4 "
            "decimals (3 are accepted)."
        )
        return Variant(question, data, worked)

    return well_made("lab-ndcg5-linear", rng, make)


# --- lesson 06 ---------------------------------------------------------------------------


@variant_of("c-ap3")
def ap_at_k(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        flags = [rng.random() < 0.45 for _ in range(6)]
        flags[rng.randrange(6)] = True  # something relevant is returned
        unreturned, k = rng.randint(0, 2), rng.randint(3, 5)
        ranked = [f"d{i}" for i in range(1, 7)]
        relevant = {doc for doc, flag in zip(ranked, flags, strict=True) if flag}
        relevant |= {f"x{i}" for i in range(unreturned)}
        data = pd.DataFrame({"rank": range(1, 7), "document": ranked,
                             "relevant": ["yes" if flag else "no" for flag in flags]})
        return Variant(f"The table marks which returned documents are relevant; {unreturned} more relevant "
                       f"document(s) were never returned. What is AP@{k}, divided by R (every relevant document)? "
                       "Give 4 decimals (3 are accepted).", data, worked_average_precision(ranked, relevant, k=k))
    return well_made("c-ap3", rng, make)


@variant_of("reset-dcg6-exp")
def dcg_exponential(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades, k = graded(rng, 6, 3), rng.randint(3, 6)
        return Variant(f"A list with the grades in the table: what is DCG@{k} with exponential gain "
                       "(2^grade - 1)? Give 3 decimals.", grades_table(grades),
                       worked_dcg(grades, k=k, gain="exponential"))
    return well_made("reset-dcg6-exp", rng, make)


# --- lesson 07 ---------------------------------------------------------------------------


@variant_of("fresh-ndcg3")
def ndcg3_with_a_missed_document(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades, missed = graded(rng, 3, 3), [rng.randint(1, 3)]
        return Variant(f"A new query: the search returns documents with the grades in the table; one more judged "
                       f"document, graded {missed[0]}, was never returned. nDCG@3, linear gain, the ideal from "
                       "every judged document? Give 4 decimals (3 are accepted).", grades_table(grades),
                       worked_ndcg(grades, grades + missed, k=3))
    return well_made("fresh-ndcg3", rng, make)


@variant_of("fresh-dcg4")
def dcg4_linear(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades = graded(rng, 4, 3)
        return Variant("DCG@4 of a list with the grades in the table, in rank order, linear gain. Give 3 decimals.",
                       grades_table(grades), worked_dcg(grades, k=4))
    return well_made("fresh-dcg4", rng, make)
