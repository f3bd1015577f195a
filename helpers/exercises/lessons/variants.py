"""Variants of the lessons' exercises: the same question on new numbers (``practice``, lessons 01-09).

Each generator draws new data from the seeded ``rng`` it is given and builds
its answer with a ``worked_*`` helper, so the steps and the slips come with it;
its question and hints are written from the same numbers (the ids, the k, the
grades of that variant, never the lesson's). The question's precision sentence
is added by :func:`helpers.exercises.fresh.draw`, from the exercise's decimals.

A draw is kept only when it is well made (:func:`well_made`): the answer is
defined and neither 0 nor 1 (something to compute); every slip the skill is
about (``must_change``) changes the answer; and no slip that changes the number
gives the right answer at a precision the exercise accepts (it would be judged
right and never named). A slip that leaves the number exactly as it is here (no
miss to drop, say) does not apply to that draw.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

import pandas as pd

from helpers import metrics
from helpers.exercises.answers import correctly_rounded
from helpers.exercises.fresh import Variant, variant_of
from helpers.exercises.lessons._shared import golden_set_times
from helpers.exercises.registry import REGISTRY, Exercise
from helpers.exercises.worked import (
    Slip,
    Worked,
    both_sides,
    with_slips,
    worked_average_precision,
    worked_cohens_d,
    worked_dcg,
    worked_difference,
    worked_mean_average_precision,
    worked_mean_difference,
    worked_mrr,
    worked_ndcg,
    worked_sign_flip_p,
)
from helpers.slips import counting as counting_slips
from helpers.slips import graded as graded_slips
from helpers.tables import short_number

TRIES = 400
APPLIES = 1e-9  # a slip whose value is this close to the answer does not apply to the draw
CLOSE_BY_NATURE = {"rounded-early"}  # slips that are a rounding of the answer: near it by design
TRIVIAL = (0.0, 1.0)  # an answer with nothing to compute (no hit at all, a list already in its ideal order)


def well_made(
    exercise_id: str, rng: random.Random, make: Callable[[random.Random], Variant], must_change: Sequence[str] = ()
) -> Variant:
    """Draw until the variant is well made (module docstring); ``must_change``: slip codes the skill is about."""
    found = REGISTRY[exercise_id]
    assert isinstance(found, Exercise)
    own = own_answer(found, golden_set_times())  # a variant never deals the exercise's own answer
    for _ in range(TRIES):
        variant = make(rng)
        if changes(variant.worked.value, own, found.decimals) and not degenerate(
            variant, found.decimals, found.min_decimals, must_change
        ):
            return variant
    raise RuntimeError(f"no well-made variant of {exercise_id} in {TRIES} draws")


@lru_cache(maxsize=64)
def own_answer(exercise: Exercise, _golden_set_times: tuple[int, ...]) -> float:
    """The exercise's own answer on the golden sets, worked out again only when one of their files changed."""
    return exercise.worked().value


def degenerate(variant: Variant, decimals: int, min_decimals: int | None, must_change: Sequence[str] = ()) -> list:
    """Why a variant is not well made ([] when it is): an undefined or trivial answer, a slip the skill is about
    that does not change it, or a slip that changes it yet gives it at an accepted precision."""
    value = variant.worked.value
    if not math.isfinite(value):
        return ["undefined answer"]
    if any(abs(value - trivial) <= APPLIES for trivial in TRIVIAL):
        return [f"nothing to compute: the answer is {short_number(value)}"]
    fewest = decimals if min_decimals is None else min_decimals
    unchanged = [
        code for code in must_change
        if not any(code in codes for codes, _ in variant.worked.slips)
        or any(code in codes and not changes(v, value, fewest) for codes, v in variant.worked.slips)
    ]
    return [f"{code} does not change the answer" for code in unchanged] + collisions(
        value, variant.worked.slips, decimals, fewest
    )


def changes(slip_value: float, value: float, fewest: int) -> bool:
    """True when a slip's value is another answer at the fewest decimals accepted."""
    if not math.isfinite(slip_value):
        return True
    return not correctly_rounded(slip_value, fewest) & correctly_rounded(value, fewest)


def collisions(value: float, slips: Iterable[Slip], decimals: int, min_decimals: int | None = None) -> list:
    """The slips that change the number, yet give the right answer at a precision the exercise accepts."""
    fewest = decimals if min_decimals is None else min_decimals
    right = {precision: correctly_rounded(value, precision) for precision in range(fewest, decimals + 1)}
    found = []
    for codes, v in slips:
        if not math.isfinite(v) or CLOSE_BY_NATURE & set(codes) or abs(v - value) <= APPLIES:
            continue
        if any(correctly_rounded(v, precision) & rounded for precision, rounded in right.items()):
            found.append(codes)
    return found


# --- words from the variant's own numbers ------------------------------------------------------------


def listed(values: Iterable[object]) -> str:
    """1, 2 and 3 (numbers as a learner writes them: 2, not 2.0)."""
    words = [short_number(v, 4) if isinstance(v, float) else str(v) for v in values]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """'1 question', '2 questions'."""
    return f"{count} {singular if count == 1 else (plural or singular + 's')}"


def high_to_low(grades: Iterable[float]) -> list[int]:
    return sorted((int(grade) for grade in grades), reverse=True)


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
        ranks = [rng.choice([0, 1, 1, 2, 2, 3, 4, 5, 6, 7]) for _ in range(rng.randint(4, 7))]
        moved = rng.randrange(len(ranks))
        ranks[moved] = rng.randint(2, 7)  # a first hit below the top that the change brings to rank 1
        after, k = [1 if i == moved else rank for i, rank in enumerate(ranks)], rng.randint(2, 5)
        n, name = len(ranks), f"q{moved + 1}"
        worked = with_slips(
            worked_mrr(after, k=k),
            (("before-the-change",), metrics.mean_reciprocal_rank(after)),  # what the control shows after the move
            (("before-the-change",), metrics.mean_reciprocal_rank(ranks, k)),
            (("before-the-change", "ignored-cutoff"), metrics.mean_reciprocal_rank(ranks)),
        )
        question = (
            f"{n} questions; the table gives each one's first relevant rank (none: no relevant passage "
            f"in the list). The search is changed so that {name}'s relevant passage comes first (rank 1); "
            f"the other questions keep their ranks. Only the top {k} passages are shown to a reader: what is "
            f"MRR@{k} over the {n} questions now?"
        )
        hints = (
            f"Two things happen: {name}'s first relevant rank becomes 1, and every first hit below rank {k} now "
            "scores 0.",
            f"Take the {n} first relevant ranks with {name}'s set to 1; a rank r from 1 to {k} scores 1/r, a rank "
            f"above {k} or none scores 0. Add the {n} and divide by {n}.",
        )
        return Variant(question, ranks_table(ranks), worked, hints)

    return well_made("new-mrr-d8-first", rng, make, must_change=("ignored-cutoff", "before-the-change"))


@variant_of("explain-rr-mean")
def mrr_of_three(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        ranks = [rng.randint(1, 9) for _ in range(3)]
        hints = (
            "MRR is a mean of reciprocal ranks, not of ranks.",
            f"Take 1/rank for each question ({listed(f'1/{rank}' for rank in ranks)}), add the three, divide by 3.",
        )
        return Variant("Three questions have their first relevant passage at the ranks in the table. What is "
                       "their MRR?", ranks_table(ranks), worked_mrr(ranks), hints)
    return well_made("explain-rr-mean", rng, make, must_change=("one-over-mean-rank",))


# --- lesson 02 ---------------------------------------------------------------------------


def never_returned(grades: list[int]) -> str:
    """'one judged document never returned has grade 2' / 'the judged documents never returned have grades 1 and 3'."""
    if len(grades) == 1:
        return f"one judged document never returned has grade {grades[0]}"
    return f"the judged documents never returned have grades {listed(grades)}"


@variant_of("d4-grade-1-swapped")
def ndcg5_change_after_a_regrade(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades = graded(rng, 5, 3)
        missed = [rng.randint(0, 3) for _ in range(rng.randint(1, 3))]
        rank = rng.randint(1, 5)
        old = grades[rank - 1]
        new = rng.choice([g for g in range(4) if g != old])
        grades[rank - 1] = new
        old_grades = [*grades[: rank - 1], old, *grades[rank:]]
        after, before = worked_ndcg(grades, grades + missed, k=5), worked_ndcg(old_grades, old_grades + missed, k=5)
        stale = (("stale-ideal",), before.value - graded_slips.ndcg_stale_ideal(grades, old_grades + missed, k=5))
        steps = both_sides("before", before, "after", after)
        worked = with_slips(worked_difference(before, after, steps, "nDCG@5 fall"), stale)
        question = (f"The judges change the grade at rank {rank} from {old} to {new} (the table shows the grades "
                    f"before the change); {never_returned(missed)}. By how much does nDCG@5 fall (linear gain, the "
                    "ideal from every judged document; negative if it rises)?")
        hints = (
            f"Two things change, not one: the list's DCG (rank {rank} is in it) and the ideal (every judged grade, "
            f"the new {new} included). The answer is the difference of two nDCG@5 values, not either of them.",
            f"nDCG@5 before: the list with {old} at rank {rank}, over the ideal DCG@5 of "
            f"{listed(high_to_low(old_grades + missed))}; after: the list with {new} at rank {rank} over the ideal "
            f"DCG@5 of {listed(high_to_low(grades + missed))}; subtract the second from the first.",
        )
        return Variant(question, grades_table(old_grades), worked, hints)
    return well_made("d4-grade-1-swapped", rng, make, must_change=("stale-ideal",))


@variant_of("explain-ndcg-03")
def ndcg_of_a_short_list(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        gains = graded(rng, rng.randint(3, 5), 3)
        terms = " + ".join(f"{gain}/log2({rank + 1})" for rank, gain in enumerate(gains, start=1))
        hints = (
            "The list and its ideal hold the same gains; only their order differs.",
            f"DCG = {terms}; the ideal order is {listed(high_to_low(gains))}: its DCG the same way; "
            "nDCG = DCG / IDCG.",
        )
        return Variant("A list has the gains in the table, in rank order; its ideal sorts the same gains high to "
                       "low. What is its nDCG (no cut-off)?",
                       grades_table(gains).rename(columns={"grade": "gain"}), worked_ndcg(gains), hints)
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
        f"{others}. What is NDCG@{k} (linear gain, the ideal from every judged article)?"
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
        )
        best = high_to_low(grades + missed)[:k]
        hints = (
            f"Both sums stop at rank {k}: the list's and the ideal's. "
            + ("The article never returned is not in the list, so only the ideal feels its grade." if len(missed) == 1
               else "The articles never returned are not in the list, so only the ideal feels their grades."),
            f"DCG@{k} adds grade / log2(rank + 1) over ranks 1-{k} of the table; IDCG@{k} does the same for the "
            f"{k} highest of every judged grade ({listed(best)}); divide.",
        )
        return Variant(worksheet_question(k, missed), grades_table(grades), worked, hints)

    return well_made("sheet-ndcg3", rng, make, must_change=("retrieved-only-ideal", "before-the-change"))


@variant_of("kb04-graded-2")
def sheet_after_a_regrade(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades, missed = graded(rng, 6, SHEET_TOP), [rng.randint(1, SHEET_TOP)]
        rank = rng.choice([i for i, g in enumerate(grades[:5], start=1) if g < SHEET_TOP] or [5])
        old, new_grade = grades[rank - 1], rng.choice([g for g in range(SHEET_TOP + 1) if g != grades[rank - 1]])
        new = grades.copy()
        new[rank - 1] = new_grade
        before, after = worked_ndcg(grades, grades + missed, k=5), worked_ndcg(new, new + missed, k=5)
        worked = with_slips(
            worked_difference(after, before, both_sides("before", before, "after", after), "NDCG@5 rise"),
            (("stale-ideal",), graded_slips.ndcg_stale_ideal(new, grades + missed, k=5) - before.value),
        )
        question = (
            f"A worksheet (table: the relevance of each rank before the change; a judged article never returned has "
            f"grade {missed[0]}). A second judge changes rank {rank}'s grade from {old} to {new_grade}: by how much "
            "does NDCG@5 rise (linear gain, the ideal from every judged article; negative if it falls)?"
        )
        hints = (
            f"A judgment feeds both the list and the ideal: rank {rank}'s new grade moves DCG@5 and IDCG@5 "
            "together. The answer is the difference of two NDCG@5 values, not either of them.",
            f"Rank {rank} now adds {new_grade}/log2({rank + 1}) instead of {old}/log2({rank + 1}) to DCG@5; the "
            f"ideal DCG@5 sorts {listed(high_to_low(new + missed))} (the {missed[0]} never returned included); "
            "divide, and subtract NDCG@5 from before the change.",
        )
        return Variant(question, grades_table(grades), worked, hints)

    return well_made("kb04-graded-2", rng, make, must_change=("stale-ideal",))


# --- lesson 04 ---------------------------------------------------------------------------


@variant_of("advisor-mrr2")
def mrr_at_k(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        ranks, k = [rng.randint(0, 6) for _ in range(rng.randint(4, 6))], rng.randint(2, 4)
        n = len(ranks)
        question = (f"An advisor keeps only its top {k} chunks. The table gives the rank of each question's first "
                    f"relevant chunk in its full list (none: not found). What is its MRR@{k}?")
        hints = (
            f"With {k} chunks kept, a relevant chunk at rank {k + 1} or below is never read.",
            f"A question whose first relevant chunk is past rank {k} (or not found) scores 0 and stays in the "
            f"mean; the others score 1/rank. Add the {n} and divide by {n}.",
        )
        return Variant(question, ranks_table(ranks), worked_mrr(ranks, k=k), hints)
    return well_made("advisor-mrr2", rng, make, must_change=("ignored-cutoff",))


@variant_of("advisor-fifth-question-mrr4")
def mrr4_with_unanswerable(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        ranks, unanswerable = [rng.randint(0, 6) for _ in range(rng.randint(3, 5))], rng.randint(1, 2)
        n = len(ranks)
        more = "1 more question has" if unanswerable == 1 else f"{unanswerable} more questions have"
        question = (f"The table gives the first relevant rank of each answerable question; {more} no relevant "
                    "chunk at all. What is MRR@4 over the questions that can be answered?")
        hints = (
            "A question with nothing relevant to find has no rank to score: it stays out of the mean. A miss "
            "(none) is different: it scores 0 and stays in.",
            f"Reciprocal ranks within the top 4 for the {counted(n, 'answerable question')} (a rank above 4 or "
            f"none scores 0); add them and divide by {n}.",
        )
        return Variant(question, ranks_table(ranks), worked_mrr(ranks, k=4, unanswerable=unanswerable), hints)
    return well_made("advisor-fifth-question-mrr4", rng, make, must_change=("kept-unanswerable",))


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
            "one included)?"
        )
        hints = (
            f"The new grade changes the list's DCG and the ideal's: the result now at rank {to} is one of the six "
            "judged results.",
            f"Gains 2^grade - 1 of the top 3 after the swap and the regrade ({_grades_text(new[:3])}), over the "
            f"discounts 1, 1.585, 2; the ideal sorts the six new grades ({listed(high_to_low(new))}) and keeps the "
            "top 3; divide the first DCG@3 by the second.",
        )
        return Variant(question, grades_table(grades), worked, hints)

    return well_made("lab-swap-ndcg3", rng, make, must_change=("stale-ideal", "before-the-change"))


@variant_of("lab-ndcg5-linear")
def ndcg_gain_gap(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades, k, unseen = graded(rng, 6, 2), rng.randint(4, 6), rng.randint(1, 2)
        judged = [*grades, unseen]
        linear, exponential = worked_ndcg(grades, judged, k=k), worked_ndcg(grades, judged, k=k, gain="exponential")
        steps = (
            linear.steps[0],
            *(f"linear gain: {step}" for step in linear.steps[1:]),
            *(f"exponential gain: {step}" for step in exponential.steps[1:]),
        )

        def gap(cut: int, ideal: list[int]) -> float:
            return metrics.ndcg(grades, cut, ideal=ideal) - metrics.ndcg(grades, cut, ideal=ideal, gain="exponential")

        worked = with_slips(
            worked_difference(linear, exponential, steps, f"nDCG@{k} gap = linear - exponential"),
            (("before-the-change",), gap(k, grades)),  # the lab's two readings: the new page left out
            (("before-the-change",), gap(LAB_OPENS_AT, judged)),  # K left where the lab opens
        )
        data = grades_table(grades).assign(**{"linear gain": grades, "exponential gain": [2**g - 1 for g in grades]})
        kind = "is useful" if unseen == 1 else "answers the question"
        question = (
            f"The lab's six results have the grades in the table (each one's gain both ways beside it), K at "
            f"{LAB_OPENS_AT}. One more page that {kind} (grade {unseen}) was never returned; the lab cannot add it. "
            f"Move K to {k}: by how much does nDCG@{k} with linear gain exceed nDCG@{k} with exponential gain, the "
            "ideal from all seven grades (negative if it is lower)?"
        )
        hints = (
            f"The new page is not in the list, so the list's DCG@{k} is the same as without it, for either gain; "
            f"only the ideal changes. The answer is a difference of two nDCG@{k} values, not either of them.",
            f"For each gain: DCG@{k} of the table's grades over the ideal DCG@{k} of the seven grades sorted high "
            f"to low ({listed(high_to_low(judged))}); linear gain is the grade, exponential 2^grade - 1; subtract "
            "the exponential nDCG from the linear one.",
        )
        return Variant(question, data, worked, hints)

    return well_made("lab-ndcg5-linear", rng, make, must_change=("before-the-change",))


# --- lesson 06 ---------------------------------------------------------------------------


@variant_of("c-ap3")
def ap_at_k(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        flags = [rng.random() < 0.45 for _ in range(6)]
        flags[rng.randrange(6)] = True  # something relevant is returned
        unreturned, k = rng.randint(0, 2), rng.randint(3, 5)
        ranked = [f"d{i}" for i in range(1, 7)]
        relevant = {doc for doc, flag in zip(ranked, flags, strict=True) if flag}
        found = len(relevant)
        relevant |= {f"x{i}" for i in range(unreturned)}
        data = pd.DataFrame({"rank": range(1, 7), "document": ranked,
                             "relevant": ["yes" if flag else "no" for flag in flags]})
        others = ("every relevant document is in the table" if not unreturned
                  else f"{counted(unreturned, 'more relevant document')} {'was' if unreturned == 1 else 'were'} "
                  "never returned")
        question = (f"The table marks which returned documents are relevant; {others}. What is AP@{k}, divided "
                    "by R (every relevant document)?")
        hints = (
            "AP adds a precision only at the ranks where a relevant document sits, and divides by R, found or not.",
            f"Within the top {k}, take P@i at each relevant rank i (relevant so far / i), add them, and divide by "
            f"R = {found + unreturned} (the {found} relevant in the table"
            f"{'' if not unreturned else f' and the {unreturned} never returned'}).",
        )
        return Variant(question, data, worked_average_precision(ranked, relevant, k=k), hints)
    return well_made("c-ap3", rng, make, must_change=("ap-hits-denominator",))


@variant_of("reset-dcg6-exp")
def dcg_exponential(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades, k = graded(rng, 6, 3), rng.randint(3, 6)
        hints = (
            f"Turn the grades into gains 2^grade - 1 first; the discount log2(rank + 1) does not change. Ranks 1 to "
            f"{k} count.",
            f"Grades {_grades_text(grades[:k])} give gains {_grades_text([2**g - 1 for g in grades[:k]])}; divide "
            "each by log2(rank + 1) and add.",
        )
        return Variant(f"A list with the grades in the table: what is DCG@{k} with exponential gain "
                       "(2^grade - 1)?", grades_table(grades), worked_dcg(grades, k=k, gain="exponential"), hints)
    return well_made("reset-dcg6-exp", rng, make, must_change=("no-discount", "linear-for-exponential"))


# --- lesson 07 ---------------------------------------------------------------------------


@variant_of("fresh-ndcg3")
def ndcg3_with_a_missed_document(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades, missed = graded(rng, 3, 3), [rng.randint(1, 3)]
        hints = (
            "One judged document is missing from the list but not from the ideal.",
            f"DCG@3 of {_grades_text(grades)} over log2(2), log2(3), log2(4); the ideal sorts "
            f"{listed(high_to_low(grades + missed))} and keeps the top 3.",
        )
        return Variant(f"A new query: the search returns documents with the grades in the table; one more judged "
                       f"document, graded {missed[0]}, was never returned. nDCG@3, linear gain, the ideal from "
                       "every judged document?", grades_table(grades), worked_ndcg(grades, grades + missed, k=3),
                       hints)
    return well_made("fresh-ndcg3", rng, make, must_change=("retrieved-only-ideal",))


@variant_of("fresh-dcg4")
def dcg4_linear(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades = graded(rng, 4, 3)
        hints = (
            "The top result keeps its whole gain: what must the discount at rank 1 be?",
            f"Divide each grade ({_grades_text(grades)}) by log2(rank + 1), which is 1, 1.585, 2 and 2.322, then "
            "add the four.",
        )
        return Variant("DCG@4 of a list with the grades in the table, in rank order, linear gain?",
                       grades_table(grades), worked_dcg(grades, k=4), hints)
    return well_made("fresh-dcg4", rng, make, must_change=("no-discount",))


# --- lesson 08 ---------------------------------------------------------------------------
# The libraries' conventions are fixed; what varies is the data they meet: another ranking, another tie,
# another list passed. Each answer is the helpers' recomputation of that library's convention (as in the lesson).


def relevance_table(ranked: list[str], flags: list[bool]) -> pd.DataFrame:
    return pd.DataFrame({"rank": range(1, len(ranked) + 1), "document": ranked,
                         "relevant": ["yes" if flag else "no" for flag in flags]})


@variant_of("torchmetrics-ap5")
def ap_over_relevant_found(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        flags = [rng.random() < 0.5 for _ in range(10)]
        flags[rng.randrange(3)] = True  # something relevant near the top
        unreturned, k = rng.randint(0, 2), rng.randint(4, 9)
        ranked = [f"d{i}" for i in range(1, 11)]
        relevant = {doc for doc, flag in zip(ranked, flags, strict=True) if flag} | {f"x{i}" for i in range(unreturned)}
        value = counting_slips.average_precision_hits_denominator(ranked, relevant, k)
        hits = [rank for rank, flag in enumerate(flags[:k], start=1) if flag]
        precisions = [number / rank for number, rank in enumerate(hits, start=1)]
        steps = (
            f"relevant results at ranks {listed(hits) if hits else 'none'} within the top {k}",
            "precision at those ranks: " + ", ".join(f"{n}/{rank} = {short_number(n / rank)}"
                                                     for n, rank in enumerate(hits, start=1)),
            f"torchmetrics divides by the {len(hits)} relevant results found: {short_number(sum(precisions))} / "
            f"{len(hits)} = {short_number(value)}",
        )
        worked = Worked(value, steps, (
            (("r-for-hits-denominator",), metrics.average_precision(ranked, relevant, k)),
            (("ignored-cutoff",), counting_slips.average_precision_hits_denominator(ranked, relevant)),
        ))
        others = ("every relevant document is in the table" if not unreturned
                  else f"{counted(unreturned, 'more relevant document')} {'was' if unreturned == 1 else 'were'} "
                  "never returned")
        question = (f"The table marks which returned documents are relevant; {others}. torchmetrics' retrieval "
                    "average precision divides by the relevant results it finds in the top k, not by R. What "
                    f"does it give at k = {k}?")
        hints = (
            "The precisions added up are the same as trec_eval's; only the number you divide by changes.",
            f"Add P@i at each relevant rank i within the top {k}, then divide by how many relevant results are in "
            f"that top {k} (a relevant document past rank {k} or never returned does not count here).",
        )
        return Variant(question, relevance_table(ranked, flags), worked, hints)

    return well_made("torchmetrics-ap5", rng, make, must_change=("r-for-hits-denominator",))


def tied_variant(exercise_id: str, tie_break: str, rng: random.Random) -> Variant:
    """Two queries whose documents each share one score; trec_eval orders equal scores by id descending,
    ir_measures' msmarco provider ascending (lesson 08's tie exercises). One query's reciprocal rank can only be
    1/2 ... 1/12, so a variant asks for the MRR of two such queries: enough answers that practice is not a guess."""
    descending = tie_break == "id_descending"

    def make(rng: random.Random) -> Variant:
        rows, targets, orders, others = [], [], [], []
        for query in ("q1", "q2"):
            count = rng.randint(3, 12)
            ids = [f"d{i:02d}" for i in range(1, count + 1)]  # d02 before d10 as text too: id order is plain
            targets.append(rng.choice(ids))
            score = rng.choice([0.5, 0.7, 1.5, 2.0])
            rows += [(query, doc_id, rank, score) for rank, doc_id in enumerate(ids, start=1)]
            # one score for the whole query: the tie rule alone orders it (rank_by_score's order, read without
            # pandas: a draw ten times faster; tests/test_practice_libraries.py checks the answers on the libraries)
            orders.append(sorted(ids, reverse=descending))
            others.append(sorted(ids, reverse=not descending))
        ranks = [order.index(target) + 1 for order, target in zip(orders, targets, strict=True)]
        value = metrics.mean_reciprocal_rank(ranks)
        code = "ties-ascending" if descending else "ties-descending"
        flipped = [order.index(target) + 1 for order, target in zip(others, targets, strict=True)]
        steps = (
            *(f"{query}: equal scores ordered by id {'descending' if descending else 'ascending'}: "
              f"{', '.join(order)}; {target} at rank {rank}"
              for query, order, target, rank in zip(("q1", "q2"), orders, targets, ranks, strict=True)),
            f"MRR = (1/{ranks[0]} + 1/{ranks[1]}) / 2 = {short_number(value)}",
        )
        worked = Worked(value, steps, (
            ((code,), metrics.mean_reciprocal_rank(flipped)),
            (("ranks-from-zero",), sum(1 / (rank + 1) for rank in ranks) / 2),
            (("one-over-mean-rank",), 2 / sum(ranks)),
        ))
        longest = max(len(order) for order in orders)  # RR@k with k the longest list: the cut-off changes nothing
        who = "trec_eval (and pytrec_eval)" if descending else f"ir_measures' RR@{longest} (its msmarco provider)"
        question = (f"A run gives every document of a query the same score: q1's documents share one score and "
                    f"q2's another (the table). Only {targets[0]} is relevant for q1 and only {targets[1]} for q2. "
                    f"What MRR over the two queries does {who} report?")
        hints = (
            "The rank column is not read: the documents are sorted by score, and something else has to order "
            "equal scores.",
            f"Equal scores are ordered by document id, from the {'highest' if descending else 'lowest'} id to the "
            f"{'lowest' if descending else 'highest'}; find "
            f"{targets[0]}'s rank in q1 and {targets[1]}'s in q2, take 1/rank of each and their mean.",
        )
        table = pd.DataFrame(rows, columns=["query", "document", "rank", "score"])
        return Variant(question, table, worked, hints)

    return well_made(exercise_id, rng, make, must_change=("ties-ascending" if descending else "ties-descending",))


@variant_of("tie-rr-trec")
def tied_rr_trec_eval(rng: random.Random) -> Variant:
    return tied_variant("tie-rr-trec", "id_descending", rng)


@variant_of("tie-rr-ir-measures")
def tied_rr_ir_measures(rng: random.Random) -> Variant:
    return tied_variant("tie-rr-ir-measures", "id_ascending", rng)


@variant_of("sklearn-d11-removed")
def sklearn_ndcg_of_what_is_passed(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        grades, k = graded(rng, rng.randint(5, 7), 3), rng.randint(3, 5)
        removed = rng.randint(1, len(grades))
        passed = grades[: removed - 1] + grades[removed:]
        worked = worked_ndcg(passed, grades, k=k, ideal="returned")
        question = (f"A search returns passages with the grades in the table, in rank order. Remove the passage "
                    f"at rank {removed} (grade {grades[removed - 1]}) and pass only the {len(passed)} left to "
                    f"scikit-learn's ndcg_score (k = {k}). What does it report?")
        hints = (
            "scikit-learn builds the ideal only from the items you pass it.",
            f"The {len(passed)} grades passed, in their order: {listed(passed)}. DCG@{k} of them over the DCG@{k} "
            f"of the same grades sorted high to low ({listed(high_to_low(passed))}); divide.",
        )
        return Variant(question, grades_table(grades), worked, hints)

    return well_made("sklearn-d11-removed", rng, make, must_change=("judged-for-returned-ideal",))


# --- lesson 09 ---------------------------------------------------------------------------


@variant_of("golden-new-map")
def map_of_a_small_golden_set(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        count, rows, queries = rng.randint(3, 5), [], []
        for number in range(1, count + 1):
            flags = [rng.random() < 0.3 for _ in range(5)]
            unreturned = rng.choice([0, 0, 0, 1])
            if not any(flags) and not unreturned:
                flags[rng.randrange(5)] = True  # every question has something relevant to find
            ranked = [f"q{number}-{rank}" for rank in range(1, 6)]
            relevant = {doc for doc, flag in zip(ranked, flags, strict=True) if flag}
            relevant |= {f"q{number}-x{i}" for i in range(unreturned)}
            queries.append((ranked, relevant))
            hits = [rank for rank, flag in enumerate(flags, start=1) if flag]
            rows.append({"question": f"q{number}", "relevant at ranks": listed(hits) if hits else "none",
                         "relevant never returned": unreturned})
        question = (f"A golden set of {count} questions; each run returns 5 passages. The table gives, for each "
                    "question, the ranks of its relevant passages and how many relevant passages were never "
                    f"returned. Evaluate with the measure 'AP': what is the mean over the {count} questions (MAP)?")
        hints = (
            "Each question's AP divides by its own R, the relevant passages never returned included; a question "
            "with no relevant passage returned scores 0 and stays in the mean.",
            f"For each question add P@i at every relevant rank i (relevant so far / i) and divide by its R; then "
            f"add the {count} APs and divide by {count}.",
        )
        return Variant(question, pd.DataFrame(rows), worked_mean_average_precision(queries), hints)

    return well_made("golden-new-map", rng, make, must_change=("map-over-relevant",))


STEPS_OF_A_SCORE = 20  # per-query scores drawn on a grid of 0.05


def paired_scores(rng: random.Random) -> tuple[list[float], list[float]]:
    """Two systems' scores on 6 to 8 questions (nDCG@10-like, 0..1), some differences 0, some not (at most 2^8
    sign patterns to list; fewer questions give too few distinct p-values to practise on)."""
    count = rng.randint(6, 8)
    a = [rng.randint(4, 18) / STEPS_OF_A_SCORE for _ in range(count)]
    moves = [rng.choice([-4, -3, -2, -1, 0, 0, 1, 2, 3, 3, 4]) for _ in range(count)]
    b = [min(max(round(score + move / STEPS_OF_A_SCORE, 2), 0.0), 1.0) for score, move in zip(a, moves, strict=True)]
    return a, b


def paired_table(a: list[float], b: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"question": [f"q{i}" for i in range(1, len(a) + 1)], "A": a, "B": b})


def paired_question(a: list[float], ask: str) -> str:
    return (f"{len(a)} questions, two systems: the table gives each question's score for A and for B (one measure, "
            f"question by question). {ask}")


def differences_of(a: list[float], b: list[float]) -> list[float]:
    return [round(y - x, 2) for x, y in zip(a, b, strict=True)]


@variant_of("paired-mean-difference")
def mean_difference(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        a, b = paired_scores(rng)
        hints = (
            "Pair the scores question by question before you average; a difference of 0 is a difference too.",
            f"Subtract A from B for each question, then add the {len(a)} differences and divide by {len(a)}.",
        )
        question = paired_question(a, "What is the mean per-question difference B - A?")
        return Variant(question, paired_table(a, b), worked_mean_difference(a, b), hints)

    return well_made("paired-mean-difference", rng, make, must_change=("zero-differences-dropped",))


@variant_of("paired-sign-flip-p")
def sign_flip_p(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        a, b = paired_scores(rng)
        differences = differences_of(a, b)
        moved = sum(1 for d in differences if d)
        hints = (
            "Flipping the sign of a difference of 0 changes nothing: only the non-zero differences matter.",
            ("None of the differences is 0" if moved == len(a) else
             f"{counted(moved, 'difference')} of the {len(a)} {'is' if moved == 1 else 'are'} not 0") + ": of the "
            f"2^{moved} sign patterns of those, count the ones whose mean is as far from 0 as the observed one, on "
            f"either side, and divide by 2^{moved}.",
        )
        question = paired_question(a, "List every way to flip the signs of the differences B - A: what share of "
                                   "those sign patterns gives a mean at least as far from 0 as the observed one (the "
                                   "exact two-sided p-value of the randomization test)?")
        return Variant(question, paired_table(a, b), worked_sign_flip_p(a, b), hints)

    return well_made("paired-sign-flip-p", rng, make, must_change=("one-sided-p",))


@variant_of("paired-cohens-d")
def cohens_d(rng: random.Random) -> Variant:
    def make(rng: random.Random) -> Variant:
        a, b = paired_scores(rng)
        hints = (
            "d compares the mean difference with how much the differences vary from question to question.",
            f"Mean of the {len(a)} differences B - A; their standard deviation with n - 1 = {len(a) - 1} in the "
            "denominator; divide.",
        )
        question = paired_question(a, "Cohen's d of the paired differences B - A: their mean divided by their "
                                   "sample standard deviation (n - 1).")
        return Variant(question, paired_table(a, b), worked_cohens_d(a, b), hints)

    return well_made("paired-cohens-d", rng, make, must_change=("population-sd", "pooled-sd-d"))
