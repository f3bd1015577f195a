"""The classic slips, recomputed here from each exercise's own inputs, are named by check (lesson feedback).

Every slip below is written out in this file from its description (the mean of the ranks, ln for log2, a hit
past k counted, ...), not taken from helpers.slips, and applied to the inputs each exercise's worked problem
records (``Worked.topic`` and ``Worked.inputs``). Where the slip applies and changes the answer at the
exercise's precision, ``check`` must call the answer wrong, name that slip, and not show the expected value.
The sweep covers every exercise of the register and 40 variants of each exercise with variants; at least 95%
of the cases must be named, and every miss is listed (``python -m tests.test_slip_sweep`` prints them).
"""

from __future__ import annotations

import math

import pytest

from helpers.exercises import REGISTRY, judge
from helpers.exercises.fresh import VARIANTS, draw
from helpers.exercises.registry import Exercise

SHARE_TOPICS = {"mrr", "hit-rate", "ndcg", "mean-ndcg", "precision", "recall", "ap", "map"}


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else math.nan


def dcg_with(grades, k, gain_of, discount_of) -> float:
    top = grades if k is None else grades[:k]
    return sum(gain_of(g) / discount_of(rank) for rank, g in enumerate(top, start=1))


def linear(grade):
    return grade


def exponential(grade):
    return 2**grade - 1


def log2_discount(rank):
    return math.log2(rank + 1)


DISCOUNT_SLIPS = {
    "natural-log": lambda rank: math.log(rank + 1),
    "rank-as-discount": float,
    "ranks-from-zero": lambda rank: math.log2(rank + 2),  # log2 of the rank off by one
    "log2-rank-first-undiscounted": lambda rank: max(1.0, math.log2(rank)),
}


def ndcg_with(grades, ideal, k, gain_of, discount_of) -> float:
    best = dcg_with(sorted(ideal, reverse=True), k, gain_of, discount_of)
    return dcg_with(grades, k, gain_of, discount_of) / best if best else math.nan


def mrr_slips(first_ranks, k, unanswerable=0):
    hits = [r for r in first_ranks if r > 0 and (k is None or r <= k)]
    yield "mean-of-ranks", mean(hits)
    yield "one-over-mean-rank", 1 / mean(hits) if hits else math.nan
    yield "rounded-early", mean(round(1 / r, 2) if r in hits else 0 for r in first_ranks)
    if k is not None:
        yield "ignored-cutoff", mean(1 / r if r > 0 else 0 for r in first_ranks)  # a hit past k counted
    if unanswerable:  # the questions with nothing to find kept in the mean, as misses
        yield "kept-unanswerable", sum(1 / r for r in hits) / (len(first_ranks) + unanswerable)


def hit_rate_slips(first_ranks, k, unanswerable=0):
    yield "ignored-cutoff", mean(1 if r > 0 else 0 for r in first_ranks)


def dcg_slips(grades, k, gain):
    gain_of = exponential if gain == "exponential" else linear
    for code, discount in DISCOUNT_SLIPS.items():
        yield code, dcg_with(grades, k, gain_of, discount)
    if all(float(g).is_integer() for g in grades):
        yield "exp-without-minus-one", dcg_with(grades, k, lambda g: 2**g, log2_discount)


def ndcg_slips(grades, judged, k, gain, ideal):
    gain_of = exponential if gain == "exponential" else linear
    ideal_grades = judged if ideal == "judged" else grades
    yield "dcg-for-ndcg", dcg_with(grades, k, gain_of, log2_discount)
    for code in ("rank-as-discount", "ranks-from-zero", "log2-rank-first-undiscounted"):
        yield code, ndcg_with(grades, ideal_grades, k, gain_of, DISCOUNT_SLIPS[code])
    if all(float(g).is_integer() for g in [*grades, *ideal_grades]):
        yield "exp-without-minus-one", ndcg_with(grades, ideal_grades, k, lambda g: 2**g, log2_discount)
    if ideal == "judged":
        yield "retrieved-only-ideal", ndcg_with(grades, grades, k, gain_of, log2_discount)
    if k is not None:
        yield "ignored-cutoff", ndcg_with(grades, ideal_grades, None, gain_of, log2_discount)


def mean_ndcg_slips(queries, k, gain):
    gain_of = exponential if gain == "exponential" else linear
    yield "mean-dcg", mean(dcg_with(grades, k, gain_of, log2_discount) for grades, _ in queries)


def ap_slips(ranked, relevant, k, denominator):
    top = ranked if k is None else ranked[:k]
    precisions = [sum(d in relevant for d in top[:i]) / i for i, doc in enumerate(top, start=1) if doc in relevant]
    if precisions:
        yield "ap-hits-denominator", sum(precisions) / len(precisions)


def map_slips(queries, k, denominator):
    per_query = []
    for ranked, relevant in queries:
        found = dict(ap_slips(ranked, relevant, k, denominator))
        per_query.append(found.get("ap-hits-denominator", 0.0))
    yield "ap-hits-denominator", mean(per_query)


def ndcg_of(grades, judged, k, gain, ideal):
    """nDCG@k written out here, the ideal from every judged grade or from the returned ones."""
    gain_of = exponential if gain == "exponential" else linear
    return ndcg_with(grades, judged if ideal == "judged" else grades, k, gain_of, log2_discount)


def difference_slips(first, second):
    """A difference of two nDCG values: either side alone, and the difference the other way round."""
    (first_topic, first_inputs), (second_topic, second_inputs) = first, second
    assert first_topic == second_topic == "ndcg", "the sweep writes out differences of nDCG values"
    one, other = ndcg_of(**first_inputs), ndcg_of(**second_inputs)
    yield "one-side-of-a-gap", one
    yield "one-side-of-a-gap", other
    yield "a-minus-b", other - one


def gap_slips(grades, k):
    yield "one-side-of-a-gap", float(sum(grades[:k]))  # CG alone
    yield "one-side-of-a-gap", dcg_with(grades, k, linear, log2_discount)  # DCG alone


SLIPS_OF = {
    "mrr": mrr_slips, "hit-rate": hit_rate_slips, "dcg": dcg_slips, "ndcg": ndcg_slips,
    "mean-ndcg": mean_ndcg_slips, "ap": ap_slips, "map": map_slips, "cg-minus-dcg": gap_slips,
    "difference": difference_slips,
}  # fmt: skip


VARIANT_SEEDS = range(40)


def problems():
    """(label, exercise, worked problem) for every answer exercise of the register, then 40 variants of each
    exercise with variants (their worked problems record their inputs the same way)."""
    for exercise in REGISTRY.values():
        if isinstance(exercise, Exercise):
            yield exercise.id, exercise, exercise.worked()
    for exercise_id in sorted(VARIANTS):
        for seed in VARIANT_SEEDS:
            exercise = REGISTRY[exercise_id]
            assert isinstance(exercise, Exercise)
            yield f"{exercise_id} variant {seed}", exercise, draw(exercise_id, seed).worked


def sweep() -> tuple[list[str], list[str]]:
    """(the cases where a slip applies and changes the answer, those of them check did not name rightly)."""
    applicable, missed = [], []
    for label, exercise, worked in problems():
        if not math.isfinite(worked.value):
            continue
        places = exercise.decimals
        right = f"{worked.value:.{places}f}"
        cases = list(SLIPS_OF.get(worked.topic, lambda **_: [])(**worked.inputs))
        if worked.topic in SHARE_TOPICS:
            cases.append(("percent-without-sign", 100 * worked.value))
        for code, wrong in cases:
            if not math.isfinite(wrong) or f"{wrong:.{places}f}" == right:
                continue  # the slip cannot be told from the right answer here
            answer = f"{wrong:.{places}f}"
            applicable.append(f"{label}: {code} {answer}")
            result = judge(exercise, answer, worked)
            if result.correct or code not in result.slips or right in result.message.replace(answer, ""):
                missed.append(f"{label}: {code} {answer} -> {result.slips} {result.message[:80]!r}")
    return applicable, missed


def report() -> str:
    """The sweep in words: named / applicable, then every case not named."""
    applicable, missed = sweep()
    named = len(applicable) - len(missed)
    lines = [f"slip sweep: {named} of {len(applicable)} applicable slips named ({named / len(applicable):.1%})"]
    return "\n".join([*lines, *(f"  not named: {case}" for case in missed)])


@pytest.mark.slow  # the quick tier runs tests/test_slip_catalogue_sweep.py on a few variants
def test_the_classic_slips_are_named_on_every_exercise_and_variant_where_they_apply():
    applicable, missed = sweep()
    topics = {case.split(":")[0] for case in applicable}
    assert len(applicable) >= 1000 and len(topics) >= 100, "the sweep reaches the exercises and their variants"
    assert len(missed) <= 0.05 * len(applicable), report()


def test_every_numeric_exercise_of_lessons_01_to_07_records_what_the_sweep_needs():
    silent = [
        exercise.id
        for exercise in REGISTRY.values()
        if isinstance(exercise, Exercise) and exercise.lesson <= "07" and not exercise.worked().topic
    ]
    assert silent == []


if __name__ == "__main__":  # python -m tests.test_slip_sweep: the measure and the slips it did not name
    print(report())
