"""Worked problems: the value of an exercise, its steps with the real numbers, and the values of its slips.

Each function takes the inputs of one kind of problem (first ranks for MRR,
grades for DCG/nDCG, a ranking and relevant ids for AP and recall, paired
scores for a comparison) and returns a :class:`Worked`: the right value
(through :mod:`helpers.metrics`), the steps a learner would write down, and
the value each diagnosable slip of that topic gives on the same inputs
(through :mod:`helpers.slips`). An exercise states only its inputs; the
checker, ``hint``, ``solution`` and the grader all read the same ``Worked``.

>>> worked_mrr([1, 3, 0, 2]).value
0.4583333333333333
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from helpers import metrics as m
from helpers.metrics import Denominator, Gain
from helpers.slips import counting as counting_slips
from helpers.slips import graded as graded_slips
from helpers.slips import ranks as rank_slips
from helpers.tables import dcg_sum, short_number

Slip = tuple[tuple[str, ...], float]  # the mistake codes (one, or a combination) and the value they give


@dataclass(frozen=True)
class Worked:
    """The right value of a problem, its steps with numbers, and the value of each slip of its topic."""

    value: float
    steps: tuple[str, ...]
    slips: tuple[Slip, ...] = field(default=())
    topic: str = ""  # the kind of problem ("mrr", "ndcg", ...), and its inputs: what a test recomputes slips from
    inputs: dict = field(default_factory=dict, compare=False)
    own_slips: tuple[Slip, ...] = field(default=(), compare=False)  # those an exercise added: each must be nameable


def with_slips(worked: Worked, *slips: Slip) -> Worked:
    """The same worked problem with more slips: an exercise's own (the value before the change, ...)."""
    return replace(worked, slips=worked.slips + tuple(slips), own_slips=worked.own_slips + tuple(slips))


def worked_difference(first: Worked, second: Worked, steps: Sequence[str], label: str) -> Worked:
    """first - second, e.g. how far one change moves nDCG@5: either side alone, or the sign flipped, is a slip.

    ``steps`` are the steps to both sides; the last step, ``label = first - second = value``, is added here.
    A slip both sides share (the same formula slip made twice: a rank as the discount, exponential gain
    for linear) gives its own difference; so do both sides read off at 3 or 4 decimals and subtracted.

    >>> difference = worked_difference(Worked(0.75, ()), Worked(0.5, ()), (), "the rise")
    >>> difference.steps[-1], difference.slips[2]
    ('the rise = 0.7500 - 0.5000 = 0.2500', (('a-minus-b',), -0.25))
    """
    value = first.value - second.value
    steps = (*steps, f"{label} = {first.value:.4f} - {second.value:.4f} = {value:.4f}")
    slips: list[Slip] = [
        (("one-side-of-a-gap",), first.value),
        (("one-side-of-a-gap",), second.value),
        (("a-minus-b",), -value),
        *((("rounded-early",), round(first.value, places) - round(second.value, places)) for places in (3, 4)),
        *_shared_slips(first, second),
        *_one_side_slips(first, second),
    ]
    sides = {"first": (first.topic, first.inputs), "second": (second.topic, second.inputs)}
    return Worked(value, tuple(steps), tuple(slips), "difference", sides)


def both_sides(first_label: str, first: Worked, second_label: str, second: Worked) -> tuple[str, ...]:
    """The steps of both sides of a difference, each labelled ("before: ...", "after: ..."), for its solution."""
    return (*(f"{first_label}: {step}" for step in first.steps), *(f"{second_label}: {step}" for step in second.steps))


NOT_SHARED = {"undefined-as-zero", "before-the-change", "lab-earlier-state"}


def _one_side_slips(first: Worked, second: Worked) -> list[Slip]:
    """A slip only one side can make (2^g without - 1 on the exponential side), that side wrong, the other right."""
    first_codes, second_codes = {codes for codes, _ in first.slips}, {codes for codes, _ in second.slips}
    found = [(codes, value - second.value) for codes, value in first.slips
             if codes not in second_codes and not NOT_SHARED & set(codes)]
    found += [(codes, first.value - value) for codes, value in second.slips
              if codes not in first_codes and not NOT_SHARED & set(codes)]
    return [(codes, value) for codes, value in found if math.isfinite(value)]


def _shared_slips(first: Worked, second: Worked) -> list[Slip]:
    """The slips of both sides made on both, each as the difference it gives (the n-th of a code with the n-th)."""
    seen: dict[tuple[str, ...], list[float]] = {}
    for codes, value in second.slips:
        seen.setdefault(codes, []).append(value)
    used: dict[tuple[str, ...], int] = {}
    shared = []
    for codes, value in first.slips:
        if NOT_SHARED & set(codes):
            continue
        index = used.get(codes, 0)
        others = seen.get(codes, [])
        if index < len(others) and math.isfinite(value) and math.isfinite(others[index]):
            shared.append((codes, value - others[index]))
        used[codes] = index + 1
    return shared


def _numbers(values: Sequence[float], decimals: int = 4) -> str:
    return ", ".join(_short(value, decimals) for value in values)


def _short(value: float, decimals: int = 4) -> str:
    """A number with at most ``decimals`` decimals and no trailing zeros: 2.0 -> '2', 1/3 -> '0.3333'."""
    return short_number(value, decimals)


def _or_nan(metric, *args, **kwargs) -> float:
    """A metric's value, or nan where it is undefined (a slip may divide by zero)."""
    try:
        return float(metric(*args, **kwargs))
    except (ValueError, ZeroDivisionError):
        return math.nan


def _whole(grades: Sequence[float]) -> bool:
    """True for whole, non-negative grades (2^grade is a gain a learner would write for them)."""
    return all(float(grade).is_integer() and grade >= 0 for grade in grades)


EARLY_PLACES = (1, 2, 3)  # a learner's table of terms rounded to 1, 2 or 3 decimals, then the last step


def _rounded_early(reciprocals: Sequence[float]) -> list[Slip]:
    """The mean of the values each rounded first, to 2 and to 3 decimals (a learner's table, then the mean)."""
    return [(("rounded-early",), sum(round(r, places) for r in reciprocals) / len(reciprocals))
            for places in EARLY_PLACES]


def _rounded_sum(terms: Sequence[float], divisor: float) -> list[Slip]:
    """A sum over a divisor with the terms rounded first, or the sum itself rounded first, to 2 and to 3 decimals.

    (1 + 0.67) / 5 = 0.334 for (1 + 2/3) / 5 = 0.3333: a learner's column of rounded terms, then the last step.
    """
    if not terms or not divisor:
        return []
    early = [sum(round(term, places) for term in terms) / divisor for places in EARLY_PLACES]
    early += [round(sum(terms), places) / divisor for places in (2, 3)]
    return [(("rounded-early",), value) for value in early]


def _shifted_cutoffs(k: int | None) -> list[int]:
    return [] if k is None else [cut for cut in (k - 1, k + 1) if cut >= 1]


def _other_cutoffs(k: int | None) -> list[int]:
    """Two ranks short or long: another k than the question's (a table of the lesson at another k)."""
    return [] if k is None else [cut for cut in (k - 2, k + 2) if cut >= 1]


# --- first hit: MRR and hit rate -----------------------------------------------


def worked_mrr(first_ranks: Sequence[int], k: int | None = None, unanswerable: int = 0) -> Worked:
    """MRR (or MRR@k) of first relevant ranks, 0 = miss; ``unanswerable`` questions already left out.

    >>> [codes for codes, _ in worked_mrr([1, 3, 0, 2]).slips][:3]
    [('mean-of-ranks',), ('one-over-mean-rank',), ('dropped-misses',)]
    """
    ranks = m.check_first_ranks(first_ranks)
    value = m.mean_reciprocal_rank(ranks, k)
    reciprocals = [m.reciprocal_rank_of(rank, k) for rank in ranks]
    name = "MRR" if k is None else f"MRR@{k}"
    steps = [
        "first relevant rank per query: " + ", ".join(str(rank) if rank else "miss" for rank in ranks),
        f"reciprocal rank per query (1 / rank, 0 for a miss{'' if k is None else f' or a hit past {k}'}): "
        + _numbers(reciprocals),
        f"{name} = ({' + '.join(_short(r) for r in reciprocals)}) / {len(ranks)} = {_short(value)}",
    ]
    slips: list[Slip] = [
        (("mean-of-ranks",), rank_slips.mrr_mean_of_ranks(ranks, k)),
        (("one-over-mean-rank",), rank_slips.mrr_one_over_mean_rank(ranks, k)),
        (("dropped-misses",), rank_slips.mrr_dropping_misses(ranks, k)),
        (("hit-rate-for-mrr",), rank_slips.hit_rate_instead_of_mrr(ranks, k)),
        (("ranks-from-zero",), rank_slips.mrr_ranks_from_zero(ranks, k)),
        (("sum-not-mean",), rank_slips.mrr_sum_instead_of_mean(ranks, k)),
    ]
    if k is not None:
        slips.append((("ignored-cutoff",), rank_slips.mrr_ignoring_cutoff(ranks)))
        slips += [(("cutoff-off-by-one",), m.mean_reciprocal_rank(ranks, cut)) for cut in _shifted_cutoffs(k)]
        slips += [(("other-cutoff",), m.mean_reciprocal_rank(ranks, cut)) for cut in _other_cutoffs(k)]
        # the mean of every first rank found, past k too: a learner who averages ranks does not cut them
        slips.append((("mean-of-ranks",), rank_slips.mrr_mean_of_ranks(ranks)))
        slips.append((("one-over-mean-rank",), rank_slips.mrr_one_over_mean_rank(ranks)))
    if unanswerable:
        slips.append((("kept-unanswerable",), rank_slips.mrr_keeping_unanswerable(ranks, unanswerable, k)))
        stays = "question with nothing relevant to find stays" if unanswerable == 1 else (
            "questions with nothing relevant to find stay")
        steps.append(f"{unanswerable} {stays} out of the mean")
    if ranks:
        slips += _rounded_early(reciprocals)
    return Worked(value, tuple(steps), tuple(slips), "mrr", dict(first_ranks=ranks, k=k, unanswerable=unanswerable))


def worked_hit_rate(first_ranks: Sequence[int], k: int, unanswerable: int = 0) -> Worked:
    """Hit rate@k of first relevant ranks, 0 = miss.

    >>> worked_hit_rate([2, 3, 2, 4, 2], k=2).value
    0.6
    """
    ranks = m.check_first_ranks(first_ranks)
    value = m.mean_hit_rate(ranks, k)
    hits = [1 if 1 <= rank <= k else 0 for rank in ranks]
    steps = (
        "first relevant rank per query: " + ", ".join(str(rank) if rank else "miss" for rank in ranks),
        f"a hit when the rank is 1..{k}: " + ", ".join(map(str, hits)),
        f"Hit@{k} = {sum(hits)} / {len(ranks)} = {_short(value)}",
    )
    slips: list[Slip] = [
        (("mrr-for-hit-rate",), rank_slips.mrr_instead_of_hit_rate(ranks, k)),
        (("ignored-cutoff",), rank_slips.hit_rate_ignoring_cutoff(ranks)),
        (("cutoff-off-by-one",), rank_slips.hit_rate_cutoff_off_by_one(ranks, k)),
        (("cutoff-off-by-one",), m.mean_hit_rate(ranks, k + 1)),
    ]
    if unanswerable:
        slips.append((("kept-unanswerable",), rank_slips.hit_rate_keeping_unanswerable(ranks, unanswerable, k)))
    return Worked(value, steps, tuple(slips), "hit-rate", dict(first_ranks=ranks, k=k, unanswerable=unanswerable))


# --- graded: DCG, ideal DCG, nDCG, CG -----------------------------------------


def _gain_slips(grades: list[float], k: int | None, gain: Gain, measure) -> list[Slip]:
    """The slips of the gain form for one measure: the other gain, and 2^g without - 1."""
    other: Gain = "exponential" if gain == "linear" else "linear"
    code = "exponential-for-linear" if gain == "linear" else "linear-for-exponential"
    return [((code,), measure(other))]


def _discount_slips(grades: list[float], k: int | None, gain: Gain) -> list[Slip]:
    """The DCG values of the discount slips: none, log2(rank) patched at rank 1, rank, log2(rank + 2)."""
    return [
        (("no-discount",), graded_slips.dcg_no_discount(grades, k, gain)),
        (("log2-rank-first-undiscounted",), graded_slips.dcg_log2_rank_first_undiscounted(grades, k, gain)),
        (("rank-as-discount",), graded_slips.dcg_rank_discount(grades, k, gain)),
        (("ranks-from-zero",), graded_slips.dcg_ranks_from_zero(grades, k, gain)),
        (("natural-log",), graded_slips.dcg_natural_log(grades, k, gain)),
        (("log10-discount",), graded_slips.dcg_log10(grades, k, gain)),
    ]


def _gain_and_discount_slips(grades: list[float], k: int | None, gain: Gain) -> list[Slip]:
    """Two slips at once, as a learner's trial found them: the other gain together with no discount or the rank
    as the discount (each DCG value; nDCG divides each by the same slips' ideal)."""
    other: Gain = "exponential" if gain == "linear" else "linear"
    swap = "exponential-for-linear" if gain == "linear" else "linear-for-exponential"
    return [
        ((swap, "no-discount"), graded_slips.dcg_no_discount(grades, k, other)),
        ((swap, "rank-as-discount"), graded_slips.dcg_rank_discount(grades, k, other)),
    ]


def _dcg_steps(label: str, grades: list[float], k: int | None, gain: Gain) -> list[str]:
    counted = m.cut(grades, k)
    gains = [m.gain_of(grade, gain) for grade in counted]
    at = "" if k is None else f"@{k}"
    lines = [f"{label} grades in rank order: {_numbers(grades)}"]
    if gain == "exponential":
        lines.append(f"gains 2^grade - 1: {_numbers(gains)}")
    total = m.dcg(grades, k, gain)
    discounts = [m.discount(rank) for rank in range(1, len(gains) + 1)]
    lines.append(f"{label} DCG{at} = {dcg_sum(gains, discounts)} = {_short(total)}")
    return lines


def _powers_zero_kept(grades: Sequence[float]) -> list[float]:
    """2^grade as the gain, with a grade-0 result left at 0: the - 1 forgotten where it shows."""
    return [2.0**grade if grade > 0 else 0.0 for grade in grades]


def _dcg_of_rounded_terms(grades: Sequence[float], k: int | None, gain: Gain, places: int) -> float:
    """DCG@k added up from terms each rounded first (a learner's column of gain / discount, then its sum)."""
    counted = m.cut(list(grades), k)
    return sum(round(m.gain_of(grade, gain) / m.discount(rank), places) for rank, grade in enumerate(counted, start=1))


def worked_dcg(grades: Sequence[float], k: int | None = None, gain: Gain = "linear") -> Worked:
    """DCG@k of grades in rank order.

    >>> worked_dcg([2, 0, 3, 0, 0], k=5).value
    3.5
    """
    grades = m.check_grades(grades)
    value = m.dcg(grades, k, gain)
    slips = _discount_slips(grades, k, gain) + _gain_slips(grades, k, gain, lambda g: m.dcg(grades, k, g))
    slips += _gain_and_discount_slips(grades, k, gain)
    if gain == "exponential":
        slips.append((("exp-without-minus-one",), graded_slips.dcg_exp_without_minus_one(grades, k)))
    elif _whole(grades):  # linear asked, 2^grade written and its - 1 forgotten too
        forgot = graded_slips.dcg_exp_without_minus_one(grades, k)
        slips.append((("exponential-for-linear", "exp-without-minus-one"), forgot))
    if gain == "exponential" and _whole(grades):
        slips.append((("exp-without-minus-one",), m.dcg(_powers_zero_kept(grades), k)))
    if k is not None:
        slips.append((("ignored-cutoff",), m.dcg(grades, None, gain)))
        slips += [(("cutoff-off-by-one",), m.dcg(grades, cut, gain)) for cut in _shifted_cutoffs(k)]
        slips += [(("other-cutoff",), m.dcg(grades, cut, gain)) for cut in _other_cutoffs(k)]
    slips += [(("rounded-early",), _dcg_of_rounded_terms(grades, k, gain, places)) for places in EARLY_PLACES]
    return Worked(
        value, tuple(_dcg_steps("the list's", grades, k, gain)), tuple(slips),
        "dcg", dict(grades=grades, k=k, gain=gain),
    )


def worked_ndcg(
    grades: Sequence[float],
    judged: Sequence[float] | None = None,
    k: int | None = None,
    gain: Gain = "linear",
    ideal: m.Ideal = "judged",
) -> Worked:
    """nDCG@k of grades in rank order against ``judged`` (every judged grade, in listed order).

    ``ideal="judged"`` sorts every judged grade; ``"returned"`` only the returned ones (and then
    the judged ideal is the slip). Without ``judged`` the ideal is the returned grades.

    >>> round(worked_ndcg([2, 0, 3, 1, 0, 2], [2, 0, 3, 1, 0, 2, 3], k=5).value, 4)
    0.5504
    """
    grades = m.check_grades(grades)
    listed = grades if judged is None else m.check_grades(judged, "judged")
    ideal_grades = listed if ideal == "judged" else grades
    value = _or_nan(m.ndcg, grades, k, ideal=ideal_grades, gain=gain)
    if not math.isfinite(value):
        slips: list[Slip] = [(("undefined-as-zero",), 0.0)]
    else:
        unsorted = ideal_grades if ideal == "returned" else listed
        slips = [
            *_ndcg_formula_slips(grades, ideal_grades, unsorted, k, gain),
            *_ndcg_power_slips(grades, ideal_grades, k, gain),
            *_ndcg_ideal_slips(grades, None if judged is None else listed, k, gain, ideal),
            *_ndcg_cutoff_slips(grades, ideal_grades, k, gain),
            *_ndcg_rounded_slips(grades, ideal_grades, k, gain),
        ]
    return Worked(
        value, tuple(_ndcg_steps(grades, ideal_grades, k, gain, ideal, value)), tuple(slips),
        "ndcg", dict(grades=grades, judged=listed, k=k, gain=gain, ideal=ideal),
    )


def _ndcg_steps(grades: list[float], ideal_grades: list[float], k: int | None, gain: Gain, ideal: m.Ideal,
                value: float) -> list[str]:
    """The steps of nDCG: the list's DCG, the ideal's, then their ratio (or why it is undefined)."""
    best = m.ideal_dcg(ideal_grades, k, gain)
    at = "" if k is None else f"@{k}"
    return [
        *_dcg_steps("the list's", grades, k, gain),
        f"ideal: {'every judged' if ideal == 'judged' else 'the returned'} grade sorted high to low: "
        f"{_numbers(sorted(ideal_grades, reverse=True))} -> IDCG{at} = {_short(best)}",
        f"nDCG{at} = {_short(m.dcg(grades, k, gain))} / {_short(best)} = {_short(value)}"
        if math.isfinite(value)
        else f"IDCG{at} is 0: nothing relevant to find, nDCG{at} is undefined",
    ]


def _other_gain(gain: Gain) -> tuple[Gain, str]:
    """The gain not asked for, and the slip of using it."""
    return ("exponential", "exponential-for-linear") if gain == "linear" else ("linear", "linear-for-exponential")


def _ndcg_formula_slips(grades: list[float], ideal_grades: list[float], unsorted: list[float], k: int | None,
                        gain: Gain) -> list[Slip]:
    """DCG given for nDCG, a wrong discount, the ideal left unsorted; the other gain, alone or with one of them."""

    def normalised(wrong_dcg, with_gain: Gain = gain) -> float:
        best = wrong_dcg(sorted(ideal_grades, reverse=True), with_gain)
        return graded_slips.ratio_or_nan(wrong_dcg(grades, with_gain), best)

    other, swap = _other_gain(gain)
    return [
        (("dcg-for-ndcg",), m.dcg(grades, k, gain)),
        (("no-discount",), normalised(lambda g, gn: graded_slips.dcg_no_discount(g, k, gn))),
        (
            ("log2-rank-first-undiscounted",),
            normalised(lambda g, gn: graded_slips.dcg_log2_rank_first_undiscounted(g, k, gn)),
        ),
        (("rank-as-discount",), normalised(lambda g, gn: graded_slips.dcg_rank_discount(g, k, gn))),
        (("ranks-from-zero",), normalised(lambda g, gn: graded_slips.dcg_ranks_from_zero(g, k, gn))),
        (("unsorted-ideal",), graded_slips.ndcg_unsorted_ideal(grades, unsorted, k, gain)),
        ((swap,), _or_nan(m.ndcg, grades, k, ideal=ideal_grades, gain=other)),
        ((swap, "dcg-for-ndcg"), m.dcg(grades, k, other)),  # DCG given, with the other gain too
        # two slips at once: the other gain with no discount, or with the rank as the discount
        ((swap, "no-discount"), normalised(lambda g, gn: graded_slips.dcg_no_discount(g, k, gn), other)),
        ((swap, "rank-as-discount"), normalised(lambda g, gn: graded_slips.dcg_rank_discount(g, k, gn), other)),
    ]


def _ndcg_power_slips(grades: list[float], ideal_grades: list[float], k: int | None, gain: Gain) -> list[Slip]:
    """2^grade without its - 1 (asked for the exponential gain, or written for the linear one too)."""
    whole = _whole(grades) and _whole(ideal_grades)
    if gain == "exponential":
        without = graded_slips.ndcg_exp_without_minus_one(grades, k, ideal_grades)
        slips: list[Slip] = [(("exp-without-minus-one",), without)]
        if whole:
            kept = graded_slips.ratio_or_nan(
                m.dcg(_powers_zero_kept(grades), k), m.dcg(_powers_zero_kept(sorted(ideal_grades, reverse=True)), k)
            )
            slips.append((("exp-without-minus-one",), kept))
        return slips
    if whole:
        return [(("exponential-for-linear", "exp-without-minus-one"),
                 graded_slips.ndcg_exp_without_minus_one(grades, k, ideal_grades))]
    return []


def _ndcg_ideal_slips(grades: list[float], judged: list[float] | None, k: int | None, gain: Gain,
                      ideal: m.Ideal) -> list[Slip]:
    """The other ideal than the one asked for: the returned grades only, or every judged grade."""
    if judged is None:
        return []
    other, swap = _other_gain(gain)
    if ideal == "judged":
        return [(("retrieved-only-ideal",), _or_nan(m.ndcg, grades, k, ideal=grades, gain=gain)),
                ((swap, "retrieved-only-ideal"), _or_nan(m.ndcg, grades, k, ideal=grades, gain=other))]
    if ideal == "returned":
        return [(("judged-for-returned-ideal",), _or_nan(m.ndcg, grades, k, ideal=judged, gain=gain))]
    return []


def _ndcg_cutoff_slips(grades: list[float], ideal_grades: list[float], k: int | None, gain: Gain) -> list[Slip]:
    """The cut-off ignored, one off, or two off."""
    if k is None:
        return []
    cuts: list[tuple[tuple[str, ...], int]] = [(("cutoff-off-by-one",), cut) for cut in _shifted_cutoffs(k)]
    cuts += [(("other-cutoff",), cut) for cut in _other_cutoffs(k)]
    return [(("ignored-cutoff",), _or_nan(m.ndcg, grades, None, ideal=ideal_grades, gain=gain))] + [
        (codes, _or_nan(m.ndcg, grades, cut, ideal=ideal_grades, gain=gain)) for codes, cut in cuts
    ]


def _ndcg_rounded_slips(grades: list[float], ideal_grades: list[float], k: int | None, gain: Gain) -> list[Slip]:
    """DCG and IDCG each rounded before the division, or each added up from rounded terms."""
    best = m.ideal_dcg(ideal_grades, k, gain)
    ranked_ideal = sorted(ideal_grades, reverse=True)
    slips: list[Slip] = [
        (("rounded-early",), graded_slips.ratio_or_nan(round(m.dcg(grades, k, gain), places), round(best, places)))
        for places in (2, 3)
    ]
    slips += [
        (("rounded-early",), graded_slips.ratio_or_nan(
            _dcg_of_rounded_terms(grades, k, gain, places), _dcg_of_rounded_terms(ranked_ideal, k, gain, places)))
        for places in EARLY_PLACES
    ]
    return slips


MEAN_DISCOUNT_SLIPS = {
    "no-discount": graded_slips.dcg_no_discount,
    "log2-rank-first-undiscounted": graded_slips.dcg_log2_rank_first_undiscounted,
    "rank-as-discount": graded_slips.dcg_rank_discount,
    "ranks-from-zero": graded_slips.dcg_ranks_from_zero,
}


def worked_mean_ndcg(
    queries: Sequence[tuple[Sequence[float], Sequence[float]]], k: int | None = None, gain: Gain = "linear"
) -> Worked:
    """The mean nDCG@k over queries, each given as (grades in rank order, every judged grade).

    >>> round(worked_mean_ndcg([([1, 0], [1, 0]), ([0, 1], [1])], k=2).value, 4)
    0.8155
    """
    queries = [(m.check_grades(grades), m.check_grades(judged, "judged")) for grades, judged in queries]
    if not queries:
        raise ValueError("queries is empty: a mean needs at least one query")
    scores = [m.ndcg(grades, k, ideal=judged, gain=gain) for grades, judged in queries]
    value = sum(scores) / len(scores)
    at = "" if k is None else f"@{k}"
    steps = (
        f"nDCG{at} per query: {_numbers(scores)}",
        f"mean nDCG{at} = ({' + '.join(_short(s) for s in scores)}) / {len(scores)} = {_short(value)}",
    )
    found = [score for score in scores if score > 0]
    other: Gain = "exponential" if gain == "linear" else "linear"
    swap = "exponential-for-linear" if gain == "linear" else "linear-for-exponential"
    slips: list[Slip] = [
        (("mean-dcg",), graded_slips.mean_dcg_instead_of_ndcg([grades for grades, _ in queries], k, gain)),
        (("dropped-misses",), sum(found) / len(found) if found else math.nan),
        (("retrieved-only-ideal",), _mean(graded_slips.undefined_as_zero(m.ndcg, g, k, gain=gain) for g, _ in queries)),
        ((swap,), _mean(m.ndcg(g, k, ideal=j, gain=other) for g, j in queries)),
    ]
    if k is not None:
        slips.append((("ignored-cutoff",), _mean(m.ndcg(g, None, ideal=j, gain=gain) for g, j in queries)))
        slips += [(("cutoff-off-by-one",), _mean(m.ndcg(g, cut, ideal=j, gain=gain) for g, j in queries))
                  for cut in _shifted_cutoffs(k)]
        slips += [(("other-cutoff",), _mean(m.ndcg(g, cut, ideal=j, gain=gain) for g, j in queries))
                  for cut in _other_cutoffs(k)]
    returned = [_or_nan(m.ndcg, g, k, gain=gain) for g, _ in queries]  # each ideal from the returned grades
    slips.append((("retrieved-only-ideal",), _mean(v for v in returned if math.isfinite(v))))
    for code, wrong_dcg in MEAN_DISCOUNT_SLIPS.items():  # the same wrong discount in every query and its ideal
        slips.append(((code,), _mean(
            graded_slips.ratio_or_nan(wrong_dcg(g, k, gain), wrong_dcg(sorted(j, reverse=True), k, gain))
            for g, j in queries)))
    slips += _rounded_sum(scores, len(scores))
    return Worked(value, steps, tuple(slips), "mean-ndcg", dict(queries=queries, k=k, gain=gain))


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values)


# --- counting relevant results: precision, recall, AP, MAP -----------------------


def _hits(ranked: Sequence[Hashable], relevant: Collection[Hashable], k: int | None) -> list[int]:
    return [rank for rank, doc in enumerate(m.cut(list(ranked), k), start=1) if doc in relevant]


def worked_precision(ranked: Sequence[Hashable], relevant: Collection[Hashable], k: int) -> Worked:
    """Precision@k.

    >>> worked_precision(["a", "b", "c", "d"], {"a", "c", "x"}, k=4).value
    0.5
    """
    value = m.precision_at_k(ranked, relevant, k)
    hits = _hits(ranked, relevant, k)
    steps = (
        f"relevant results in the top {k}: {len(hits)} (ranks {', '.join(map(str, hits)) or 'none'})",
        f"P@{k} = {len(hits)} / {k} = {_short(value)}",
    )
    slips: list[Slip] = [(("recall-for-precision",), counting_slips.recall_instead_of_precision(ranked, relevant, k))]
    slips += [(("cutoff-off-by-one",), m.precision_at_k(ranked, relevant, cut)) for cut in _shifted_cutoffs(k)]
    return Worked(value, steps, tuple(slips), "precision", dict(ranked=ranked, relevant=relevant, k=k))


def worked_recall(
    ranked: Sequence[Hashable], relevant: Collection[Hashable], k: int, denominator: Denominator = "R"
) -> Worked:
    """Recall@k over R (or over min(k, R)).

    >>> worked_recall(["r2", "r1", "r4"], {"r1", "r2", "r3", "r5"}, k=3).value
    0.5
    """
    value = m.recall_at_k(ranked, relevant, k, denominator)
    hits = _hits(ranked, relevant, k)
    total = len(set(relevant)) if denominator == "R" else min(k, len(set(relevant)))
    shown = "R" if denominator == "R" else "min(k, R)"
    steps = (
        f"relevant results in the top {k}: {len(hits)}; R = {len(set(relevant))}",
        f"R@{k} = {len(hits)} / {shown} = {len(hits)} / {total} = {_short(value)}",
    )
    other: Denominator = "min_k_R" if denominator == "R" else "R"
    slips: list[Slip] = [
        (("precision-for-recall",), counting_slips.precision_instead_of_recall(ranked, relevant, k)),
        (
            ("recall-min-k-r",) if denominator == "R" else ("recall-r-for-min-k-r",),
            m.recall_at_k(ranked, relevant, k, other),
        ),
        (("ignored-cutoff",), m.recall_at_k(ranked, relevant, max(len(ranked), 1), denominator)),
    ]
    return Worked(
        value, steps, tuple(slips),
        "recall", dict(ranked=ranked, relevant=relevant, k=k, denominator=denominator),
    )


def _ap_steps(ranked, relevant, k: int | None, denominator: Denominator) -> list[str]:
    hits = _hits(ranked, relevant, k)
    precisions = [number / rank for number, rank in enumerate(hits, start=1)]
    r = len(set(relevant))
    bottom = r if denominator == "R" or k is None else min(k, r)
    shown = "R" if denominator == "R" or k is None else "min(k, R)"
    at = "" if k is None else f"@{k}"
    return [
        f"relevant results at ranks {', '.join(map(str, hits)) or 'none'}"
        + ("" if k is None else f" within the top {k}"),
        "precision at each of those ranks: "
        + (", ".join(f"{n}/{rank} = {_short(n / rank)}" for n, rank in enumerate(hits, start=1)) or "none"),
        f"AP{at} = {_short(sum(precisions))} / {shown} ({bottom}) = {_short(sum(precisions) / bottom)}",
    ]


def worked_average_precision(
    ranked: Sequence[Hashable],
    relevant: Collection[Hashable],
    k: int | None = None,
    denominator: Denominator = "R",
) -> Worked:
    """AP@k over R (or over min(k, R)).

    >>> round(worked_average_precision(["a", "b", "c"], {"b", "c", "x"}, k=3).value, 4)
    0.3889
    """
    value = m.average_precision(ranked, relevant, k, denominator)
    found_only = counting_slips.average_precision_hits_denominator(ranked, relevant, k)
    slips: list[Slip] = [(("ap-hits-denominator",), found_only)]
    if k is not None:
        other: Denominator = "min_k_R" if denominator == "R" else "R"
        code = "ap-min-k-r" if denominator == "R" else "ap-r-for-min-k-r"
        slips.append(((code,), m.average_precision(ranked, relevant, k, other)))
        slips.append((("ignored-cutoff",), counting_slips.average_precision_ignoring_cutoff(ranked, relevant)))
        slips += [
            (("cutoff-off-by-one",), m.average_precision(ranked, relevant, cut, denominator))
            for cut in _shifted_cutoffs(k)
        ]
        slips.append((("precision-for-ap",), m.precision_at_k(ranked, relevant, k)))
    slips.append((("rr-for-ap",), m.reciprocal_rank(ranked, relevant, k)))
    hits = _hits(ranked, relevant, k)
    precisions = [number / rank for number, rank in enumerate(hits, start=1)]
    r = len(set(relevant))
    slips += _rounded_sum(precisions, r if denominator == "R" or k is None else min(k, r))
    return Worked(
        value, tuple(_ap_steps(ranked, relevant, k, denominator)), tuple(slips),
        "ap", dict(ranked=ranked, relevant=relevant, k=k, denominator=denominator),
    )


def _ap_of_rounded_terms(ranked, relevant, k: int | None, denominator: Denominator, places: int) -> float:
    """AP@k with each precision rounded to ``places`` before the sum (a learner's column of P@i)."""
    hits = _hits(ranked, relevant, k)
    r = len(set(relevant))
    bottom = r if denominator == "R" or k is None else min(k, r)
    return sum(round(n / rank, places) for n, rank in enumerate(hits, start=1)) / bottom if bottom else 0.0


def _pooled_precisions(queries, k: int | None) -> float:
    """Every question's precisions at its relevant ranks, added up and divided by all their relevant documents."""
    total = sum(n / rank for ranked, relevant in queries for n, rank in enumerate(_hits(ranked, relevant, k), 1))
    relevant_count = sum(len(set(relevant)) for _, relevant in queries)
    return total / relevant_count if relevant_count else math.nan


def worked_mean_average_precision(
    queries: Sequence[tuple[Sequence[Hashable], Collection[Hashable]]],
    k: int | None = None,
    denominator: Denominator = "R",
) -> Worked:
    """MAP@k: the mean of AP@k over queries, each given as (ranking, relevant ids).

    >>> worked_mean_average_precision([(["a", "b"], {"a"}), (["a", "b"], {"b"})]).value
    0.75
    """
    queries = list(queries)
    if not queries:
        raise ValueError("queries is empty: a mean needs at least one query")
    scores = [m.average_precision(ranked, relevant, k, denominator) for ranked, relevant in queries]
    value = _mean(scores)
    at = "" if k is None else f"@{k}"
    steps = (
        f"AP{at} per query: {_numbers(scores)}",
        f"MAP{at} = ({' + '.join(_short(s) for s in scores)}) / {len(scores)} = {_short(value)}",
    )
    found = [score for score in scores if score > 0]
    reciprocal = [m.reciprocal_rank(ranked, relevant, k) for ranked, relevant in queries]
    slips: list[Slip] = [
        (("mrr-for-map",), _mean(reciprocal)),
        (
            ("ap-hits-denominator",),
            _mean(counting_slips.average_precision_hits_denominator(r, rel, k) for r, rel in queries),
        ),
        (("dropped-misses",), _mean(found) if found else math.nan),
        (("map-over-relevant",), _pooled_precisions(queries, k)),
    ]
    if k is not None:
        other: Denominator = "min_k_R" if denominator == "R" else "R"
        code = "ap-min-k-r" if denominator == "R" else "ap-r-for-min-k-r"
        slips.append(((code,), _mean(m.average_precision(r, rel, k, other) for r, rel in queries)))
        slips.append((("ignored-cutoff",), _mean(m.average_precision(r, rel) for r, rel in queries)))
        slips += [(("cutoff-off-by-one",), _mean(m.average_precision(r, rel, cut, denominator) for r, rel in queries))
                  for cut in _shifted_cutoffs(k)]
    slips += _rounded_sum(scores, len(scores))
    for places in (2, 3):  # each query's precisions rounded before its AP
        slips.append((("rounded-early",), _mean(
            _ap_of_rounded_terms(ranked, relevant, k, denominator, places) for ranked, relevant in queries)))
    return Worked(value, steps, tuple(slips), "map", dict(queries=queries, k=k, denominator=denominator))


# --- paired comparison (lesson 09) ---------------------------------------------------


def _paired(a: Sequence[float], b: Sequence[float]) -> np.ndarray:
    a_scores, b_scores = m.check_grades(a, "a"), m.check_grades(b, "b")
    if len(a_scores) != len(b_scores) or not a_scores:
        raise ValueError(f"a and b need the same number of queries (at least 1): {len(a_scores)} vs {len(b_scores)}")
    return np.array(b_scores) - np.array(a_scores)


def worked_mean_difference(a: Sequence[float], b: Sequence[float]) -> Worked:
    """The mean of the per-query differences B - A.

    >>> round(worked_mean_difference([0.5, 0.6], [0.6, 0.6]).value, 3)
    0.05
    """
    differences = _paired(a, b)
    value = float(differences.mean())
    steps = (
        f"B - A per query: {_numbers(differences.tolist())}",
        f"mean difference = {_short(float(differences.sum()))} / {len(differences)} = {_short(value)}",
    )
    non_zero = differences[differences != 0]
    dropped = float(non_zero.mean()) if len(non_zero) else math.nan
    return Worked(value, steps, ((("a-minus-b",), -value), (("zero-differences-dropped",), dropped)))


def exact_sign_flip_p(differences: Sequence[float] | np.ndarray, two_sided: bool = True) -> float:
    """The exact p-value of the paired randomization (sign-flip) test, by listing every sign pattern.

    >>> exact_sign_flip_p([0.1, 0.0, 0.1, 0.0, 0.1])
    0.25
    """
    values = np.asarray(differences, dtype=float)
    observed = values.mean()
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(values))))
    means = (signs * values).mean(axis=1)
    tolerance = 1e-12
    extreme = np.abs(means) >= abs(observed) - tolerance if two_sided else means >= observed - tolerance
    return float(extreme.mean())


def worked_sign_flip_p(a: Sequence[float], b: Sequence[float]) -> Worked:
    """The exact two-sided p-value of the sign-flip test of B - A (at most 16 queries: 2^16 patterns)."""
    differences = _paired(a, b)
    if len(differences) > 16:
        raise ValueError("list every sign pattern only for at most 16 queries")
    value = exact_sign_flip_p(differences)
    patterns = 2 ** len(differences)
    steps = (
        f"B - A per query: {_numbers(differences.tolist())}; observed mean {_short(float(differences.mean()))}",
        f"flip the sign of each difference in all {patterns} ways and take each mean",
        f"share of those means at least as far from 0 as the observed one: {_short(value)}",
    )
    from scipy import stats  # imported here: scipy.stats takes a second to load

    a_scores, b_scores = np.array(m.check_grades(a, "a")), np.array(m.check_grades(b, "b"))
    hits = round(value * patterns)
    slips: list[Slip] = [
        (("one-sided-p",), exact_sign_flip_p(differences, two_sided=False)),
        (("plus-one-p",), (hits + 1) / (patterns + 1)),
    ]
    if differences.std(ddof=1) > 0:
        slips.append((("t-test-for-sign-flip",), float(stats.ttest_rel(b_scores, a_scores).pvalue)))
    if a_scores.std() + b_scores.std() > 0:
        slips.append((("unpaired-test",), float(stats.ttest_ind(b_scores, a_scores).pvalue)))
    return Worked(value, steps, tuple(slips))


def worked_cohens_d(a: Sequence[float], b: Sequence[float]) -> Worked:
    """Cohen's d of paired scores: mean(B - A) / sample standard deviation of B - A.

    >>> round(worked_cohens_d([0.5, 0.6, 0.7], [0.6, 0.6, 0.9]).value, 3)
    1.0
    """
    differences = _paired(a, b)
    spread = float(differences.std(ddof=1))
    value = float(differences.mean()) / spread if spread > 0 else math.nan
    steps = (
        f"B - A per query: {_numbers(differences.tolist())}",
        f"mean {_short(float(differences.mean()))}, sample standard deviation (n - 1) {_short(spread)}",
        f"d = mean / sd = {_short(value)}",
    )
    population = float(differences.std(ddof=0))
    a_scores, b_scores = np.array(m.check_grades(a, "a")), np.array(m.check_grades(b, "b"))
    pooled = math.sqrt((a_scores.var(ddof=1) + b_scores.var(ddof=1)) / 2) if len(a_scores) > 1 else 0.0
    mean_difference = float(differences.mean())
    slips = (
        (("population-sd",), mean_difference / population if population > 0 else math.nan),
        (("a-minus-b",), -value),
        (("pooled-sd-d",), mean_difference / pooled if pooled > 0 else math.nan),
        (("t-for-d",), value * math.sqrt(len(differences))),
    )
    return Worked(value, steps, slips)
