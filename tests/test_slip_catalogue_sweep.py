"""Every slip of the catalogue applied to every exercise it applies to, and named by check (lesson feedback).

Each slip declares the measures and kinds of question it applies to (``helpers.slips.CATALOGUE``). This
sweep works each exercise's measure out again from the inputs its worked problem records, written here
from the formulas, with one twist per slip (the rank as the discount, a miss dropped from the mean, each
term rounded first, ...). Wherever a slip applies and changes the answer at the asked precision, ``check``
must name a slip (that one, or another slip giving the same number) and never show the expected value.
Every exercise of lessons 01-09 and a few variants of each run in the quick tier (lessons 08 and
09: those whose measure the sweep writes out, the nDCG of scikit-learn and the MAP; the library conventions and
the statistics are checked slip by slip in tests/test_practice.py); every seed of the
variants under ``slow``. ``python -m tests.test_slip_catalogue_sweep`` prints the table per lesson.
"""

from __future__ import annotations

import math
from collections import Counter
from decimal import ROUND_DOWN, Decimal
from functools import cache
from pathlib import Path

import pytest

from helpers.exercises import REGISTRY, judge
from helpers.exercises.combined import TOPICS  # the worked problem's topic -> (measure, kind)
from helpers.exercises.fresh import VARIANTS, draw
from helpers.exercises.registry import Exercise
from helpers.slips import CATALOGUE

GOAL = 0.95
QUICK_SEEDS, SLOW_SEEDS = range(3), range(40)


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else math.nan


def cut(values, k):
    return list(values) if k is None else list(values)[:k]


# --- the measures, written out, each with the twists a slip makes ---------------------------------------


def gain_of(grade, gain, twist):
    if twist.get("gain") == "swap":
        gain = "linear" if gain == "exponential" else "exponential"
    if gain == "exponential":
        return 2**grade if twist.get("no-minus-one") else 2**grade - 1
    return grade


def discount(rank, twist):
    return twist.get("discount", lambda r: math.log2(r + 1))(rank) or math.nan  # a division by zero: undefined


def new_k(k, twist):
    if k is None:
        return None
    if twist.get("k") == "none":
        return None
    return k + twist.get("k-shift", 0)


def dcg(grades, k, gain, twist):
    terms = [gain_of(g, gain, twist) / discount(r, twist) for r, g in enumerate(cut(grades, new_k(k, twist)), 1)]
    places = twist.get("round-terms")
    return sum(round(t, places) if places else t for t in terms)


def ndcg(grades, judged, k, gain, ideal, twist):
    source = {"judged": judged, "returned": grades}[ideal]
    if twist.get("ideal") == "returned":
        source = grades
    if twist.get("ideal") == "judged":
        source = judged
    if twist.get("ideal") == "listed":
        best = dcg(list(source), k, gain, twist)
    else:
        best = dcg(sorted(source, reverse=True), k, gain, twist)
    actual = dcg(grades, k, gain, twist)
    if twist.get("dcg-only"):
        return actual
    if twist.get("round-parts"):
        actual, best = round(actual, twist["round-parts"]), round(best, twist["round-parts"])
    return actual / best if best else math.nan


def reciprocal(rank, k, twist):
    k = new_k(k, twist)
    if rank == 0 or (k is not None and rank > k):
        return 0.0
    score = twist.get("rr", lambda r: 1 / r)(rank)
    return round(score, twist["round-terms"]) if twist.get("round-terms") else score


def aggregate(scores, twist, hits=None):
    how = twist.get("mean", "mean")
    if how == "drop-zero":
        return mean(s for s in scores if s > 0)
    if how == "sum":
        return sum(scores)
    if twist.get("round-query"):
        scores = [round(s, twist["round-query"]) for s in scores]
    return mean(scores)


def mrr(first_ranks, k, twist, unanswerable=0):
    if twist.get("mean") == "of-ranks":
        return mean(r for r in first_ranks if r > 0 and (twist.get("k") == "none" or k is None or r <= k))
    if twist.get("mean") == "one-over-mean-rank":
        ranks = [r for r in first_ranks if r > 0 and (twist.get("k") == "none" or k is None or r <= k)]
        return 1 / mean(ranks) if ranks else math.nan
    if twist.get("as") == "hit-rate":
        return hit_rate(first_ranks, k, {}, 0)
    scores = [reciprocal(r, k, twist) for r in first_ranks]
    if twist.get("keep-unanswerable"):
        scores += [0.0] * unanswerable
    return aggregate(scores, twist)


def hit_rate(first_ranks, k, twist, unanswerable=0):
    if twist.get("as") == "mrr":
        return mrr(first_ranks, k, {})
    k = new_k(k, twist)
    scores = [1.0 if r > 0 and (k is None or r <= k) else 0.0 for r in first_ranks]
    if twist.get("keep-unanswerable"):
        scores += [0.0] * unanswerable
    return mean(scores)


def precision(ranked, relevant, k, twist):
    k2 = new_k(k, twist)
    found = sum(d in relevant for d in cut(ranked, k2))
    return found / len(relevant) if twist.get("as") == "recall" else found / k2


def recall(ranked, relevant, k, denominator, twist):
    k2 = new_k(k, twist) or len(ranked)
    found = sum(d in relevant for d in cut(ranked, k2))
    if twist.get("as") == "precision":
        return found / k
    r = len(set(relevant))
    bottom = min(k, r) if denominator == "min_k_R" else r
    if twist.get("denominator") == "other":
        bottom = r if denominator == "min_k_R" else min(k, r)
    return found / bottom


def ap(ranked, relevant, k, denominator, twist):
    k2 = new_k(k, twist)
    top = cut(ranked, k2)
    if twist.get("as") == "precision":
        return sum(d in relevant for d in top) / k
    if twist.get("as") == "rr":
        return next((1 / r for r, d in enumerate(top, 1) if d in relevant), 0.0)
    precisions = [sum(x in relevant for x in top[:i]) / i for i, d in enumerate(top, 1) if d in relevant]
    if twist.get("round-terms"):
        precisions = [round(p, twist["round-terms"]) for p in precisions]
    total = round(sum(precisions), twist["round-sum"]) if twist.get("round-sum") else sum(precisions)
    r = len(set(relevant))
    bottom = min(k2, r) if denominator == "min_k_R" and k2 is not None else r
    if twist.get("denominator") == "other" and k2 is not None:
        bottom = r if denominator == "min_k_R" else min(k2, r)
    if twist.get("denominator") == "hits":
        bottom = len(precisions)
    return total / bottom if bottom else 0.0


def measure_of(topic, inputs, twist):
    """The exercise's measure from its recorded inputs, with a slip's twist (nan where it cannot apply)."""
    if topic == "mrr":
        return mrr(inputs["first_ranks"], inputs["k"], twist, inputs.get("unanswerable", 0))
    if topic == "hit-rate":
        return hit_rate(inputs["first_ranks"], inputs["k"], twist, inputs.get("unanswerable", 0))
    if topic == "dcg":
        if twist.get("as") == "cg":
            return math.nan
        return dcg(inputs["grades"], inputs["k"], inputs["gain"], twist)
    if topic == "ndcg":
        return ndcg(inputs["grades"], inputs["judged"], inputs["k"], inputs["gain"], inputs["ideal"], twist)
    if topic == "mean-ndcg":
        scores = [ndcg(g, j, inputs["k"], inputs["gain"], "judged", twist) for g, j in inputs["queries"]]
        if twist.get("undefined") == "zero":
            scores = [0.0 if not math.isfinite(s) else s for s in scores]
        return aggregate([s for s in scores if math.isfinite(s)], twist)
    if topic == "cg":  # one side of cg-minus-dcg
        if twist.get("as") == "dcg":
            return dcg(inputs["grades"], inputs["k"], "linear", {})
        return float(sum(cut(inputs["grades"], new_k(inputs["k"], twist))))
    if topic == "precision":
        return precision(inputs["ranked"], inputs["relevant"], inputs["k"], twist)
    if topic == "recall":
        return recall(inputs["ranked"], inputs["relevant"], inputs["k"], inputs["denominator"], twist)
    if topic == "ap":
        return ap(inputs["ranked"], inputs["relevant"], inputs["k"], inputs["denominator"], twist)
    if topic == "map":
        if twist.get("as") == "pooled":
            found = [ap(r, rel, inputs["k"], "R", {"round-sum": None}) * len(set(rel)) for r, rel in inputs["queries"]]
            return sum(found) / sum(len(set(rel)) for _, rel in inputs["queries"])
        if twist.get("as") == "rr":
            return mean(ap(r, rel, inputs["k"], inputs["denominator"], twist) for r, rel in inputs["queries"])
        scores = [ap(r, rel, inputs["k"], inputs["denominator"], twist) for r, rel in inputs["queries"]]
        return aggregate(scores, twist)
    raise AssertionError(f"the sweep does not write out {topic!r}")


# --- each slip of the catalogue as the twists it makes ----------------------------------------------------

TWISTS: dict[str, list[dict]] = {
    "retrieved-only-ideal": [{"ideal": "returned"}],
    "judged-for-returned-ideal": [{"ideal": "judged"}],
    "unsorted-ideal": [{"ideal": "listed"}],
    "log2-rank": [{"discount": lambda r: math.log2(r) if r > 1 else 0.0}],
    "discount-zero-at-top": [{"discount": lambda r: math.log2(r) if r > 1 else 0.0}],
    "log2-rank-first-undiscounted": [{"discount": lambda r: max(1.0, math.log2(r))}],
    "no-discount": [{"discount": lambda r: 1.0}],
    "rank-as-discount": [{"discount": float}],
    "natural-log": [{"discount": lambda r: math.log(r + 1)}],
    "log10-discount": [{"discount": lambda r: math.log10(r + 1)}],
    "ranks-from-zero": [{"discount": lambda r: math.log2(r + 2)}, {"rr": lambda r: 1 / (r + 1)}],
    "dcg-for-ndcg": [{"dcg-only": True}],
    "mean-dcg": [{"dcg-only": True}],
    "dropped-misses": [{"mean": "drop-zero"}],
    "kept-unanswerable": [{"keep-unanswerable": True}],
    "mean-of-ranks": [{"mean": "of-ranks"}, {"mean": "of-ranks", "k": "none"}],
    "one-over-mean-rank": [{"mean": "one-over-mean-rank"}, {"mean": "one-over-mean-rank", "k": "none"}],
    "hit-rate-for-mrr": [{"as": "hit-rate"}],
    "mrr-for-hit-rate": [{"as": "mrr"}],
    "sum-not-mean": [{"mean": "sum"}],
    "ignored-cutoff": [{"k": "none"}],
    "cutoff-off-by-one": [{"k-shift": -1}, {"k-shift": 1}],
    "rounded-early": [{"round-terms": 2}, {"round-terms": 3}, {"round-parts": 2}, {"round-parts": 3},
                      {"round-query": 2}, {"round-query": 3}, {"round-sum": 2}, {"round-sum": 3}],
    "exp-without-minus-one": [{"no-minus-one": True}],
    "exponential-for-linear": [{"gain": "swap"}],
    "linear-for-exponential": [{"gain": "swap"}],
    "undefined-as-zero": [{"undefined": "zero"}],
    "ap-min-k-r": [{"denominator": "other"}],
    "ap-r-for-min-k-r": [{"denominator": "other"}],
    "ap-hits-denominator": [{"denominator": "hits"}],
    "recall-min-k-r": [{"denominator": "other"}],
    "recall-r-for-min-k-r": [{"denominator": "other"}],
    "precision-for-recall": [{"as": "precision"}],
    "recall-for-precision": [{"as": "recall"}],
    "precision-for-ap": [{"as": "precision"}],
    "mrr-for-map": [{"as": "rr"}],
    "rr-for-ap": [{"as": "rr"}],
    "map-over-relevant": [{"as": "pooled"}],
    "dcg-for-cg": [{"as": "dcg"}],
}
# slips read off the answer itself, whatever the measure
ON_THE_ANSWER = {
    "digits-cut-off", "percent-without-sign", "a-minus-b", "one-side-of-a-gap", "decimal-point-shifted",
    "one-minus-the-answer",
}
# twists that only make sense for one form of the question (the slip's own condition)
APPLIES_WHEN = {
    "retrieved-only-ideal": lambda topic, inputs: inputs.get("ideal", "judged") == "judged",
    "judged-for-returned-ideal": lambda topic, inputs: inputs.get("ideal") == "returned",
    "exp-without-minus-one": lambda topic, inputs: inputs.get("gain") == "exponential",
    "exponential-for-linear": lambda topic, inputs: inputs.get("gain") == "linear",
    "linear-for-exponential": lambda topic, inputs: inputs.get("gain") == "exponential",
    "ap-min-k-r": lambda topic, inputs: inputs.get("denominator") == "R",
    "ap-r-for-min-k-r": lambda topic, inputs: inputs.get("denominator") == "min_k_R",
    "recall-min-k-r": lambda topic, inputs: inputs.get("denominator") == "R",
    "recall-r-for-min-k-r": lambda topic, inputs: inputs.get("denominator") == "min_k_R",
    "kept-unanswerable": lambda topic, inputs: inputs.get("unanswerable", 0) > 0,
    "ignored-cutoff": lambda topic, inputs: inputs.get("k") is not None,
    "cutoff-off-by-one": lambda topic, inputs: inputs.get("k") is not None,
}


def sides(topic, inputs):
    """The (topic, inputs) of each side of a difference, or of the one value."""
    if topic == "difference":
        return [inputs["first"], inputs["second"]]
    if topic == "cg-minus-dcg":
        return [("cg", inputs), ("dcg", {**inputs, "gain": "linear"})]
    return [(topic, inputs)]


def measure_and_kind(topic, inputs) -> tuple[str, str]:
    if topic == "difference":
        return TOPICS[inputs["first"][0]][0], "difference"
    return TOPICS[topic]


GAIN_SLIPS = {"exponential-for-linear", "linear-for-exponential"}


def slip_values(code, topic, inputs, right, places):
    """The numbers a slip gives on this problem (none where it does not apply)."""
    if code == "digits-cut-off":
        return [float(Decimal(repr(right)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_DOWN))]
    if code == "percent-without-sign":
        return [100 * right]
    if code == "a-minus-b":
        return [-right]
    if code == "decimal-point-shifted":
        return [10 * right, right / 10] if places else []
    if code == "one-minus-the-answer":
        return [1 - right]
    parts = sides(topic, inputs)
    if code in GAIN_SLIPS and len({i.get("gain") for _, i in parts}) > 1:
        return []  # a gap between the two gains: the gain is what the question is about
    if code == "one-side-of-a-gap":
        return [measure_of(t, i, {}) for t, i in parts]
    values = []
    for twist in TWISTS.get(code, []):
        applies = [APPLIES_WHEN.get(code, lambda t, i: True)(t, i) for t, i in parts]
        if not any(applies):
            continue
        twisted = [measure_of(t, i, twist if ok else {}) for (t, i), ok in zip(parts, applies, strict=True)]
        values.append(twisted[0] - twisted[1] if len(twisted) == 2 else twisted[0])
    return values


def applicable(measure, kind) -> list[str]:
    return [code for code, entry in CATALOGUE.items() if measure in entry.measures and kind in entry.kinds]


def problems(seeds):
    for exercise in REGISTRY.values():
        if isinstance(exercise, Exercise) and exercise.lesson <= "09":
            yield exercise.lesson, exercise.id, exercise, exercise.worked()
    for exercise_id in sorted(VARIANTS):
        exercise = REGISTRY[exercise_id]
        assert isinstance(exercise, Exercise)
        for seed in seeds:
            yield exercise.lesson, f"{exercise_id} variant {seed}", exercise, draw(exercise_id, seed).worked


def sweep(seeds) -> tuple[Counter, Counter, list[str]]:
    """(pairs per lesson, pairs named per lesson, the pairs not named) over the exercises and their variants."""
    pairs, named, missed = Counter(), Counter(), []
    for lesson, label, exercise, worked in problems(seeds):
        right = worked.value
        if not math.isfinite(right) or not worked.topic:
            continue
        places = exercise.decimals
        measure, kind = measure_and_kind(worked.topic, worked.inputs)
        shown_right = f"{right:.{places}f}"
        seen: set[str] = set()
        for code in applicable(measure, kind):
            for wrong in slip_values(code, worked.topic, worked.inputs, right, places):
                digits = places + (code == "decimal-point-shifted" and abs(wrong) < abs(right))  # 0.0550 for 0.550
                answer = f"{wrong:.{digits}f}" if math.isfinite(wrong) else ""
                if not answer or answer == shown_right or (code, answer) in seen:
                    continue  # the slip cannot be told from the right answer here
                seen.add((code, answer))
                pairs[lesson] += 1
                result = judge(exercise, answer, worked)
                if code == "digits-cut-off" and result.correct:
                    pairs[lesson] -= 1  # the key sits on a tie: cut off, it is also a right rounding
                    continue
                if result.slips and not result.correct and shown_right not in result.message.replace(answer, ""):
                    named[lesson] += 1
                else:
                    missed.append(f"{label}: {code} {answer} -> {result.verdict.name} {result.message[:70]!r}")
    return pairs, named, missed


def table(pairs: Counter, named: Counter) -> str:
    lines = ["| lesson | (exercise, slip) pairs | named | share |", "|---|---|---|---|"]
    for lesson in sorted(pairs):
        lines.append(f"| {lesson} | {pairs[lesson]} | {named[lesson]} | {named[lesson] / pairs[lesson]:.1%} |")
    return "\n".join(lines)


@cache
def swept(seeds: range) -> tuple[Counter, Counter, list[str]]:
    return sweep(seeds)


def check_sweep(seeds):
    pairs, named, missed = swept(seeds)
    print(table(pairs, named))
    assert set(pairs) >= {"01", "02", "03", "04", "05", "06", "07", "08", "09"}
    short = {lesson: named[lesson] / pairs[lesson] for lesson in pairs if named[lesson] < GOAL * pairs[lesson]}
    assert not short, table(pairs, named) + "\n" + "\n".join(missed)


def test_every_catalogued_slip_that_applies_is_named_in_every_lesson():
    check_sweep(QUICK_SEEDS)


def test_the_learners_guide_shows_the_sweeps_table():
    text = (Path(__file__).parent.parent / "docs" / "learners.md").read_text(encoding="utf-8")
    shown = text.split("<!-- slip-sweep -->", 1)[1].split("<!-- /slip-sweep -->", 1)[0].strip()
    pairs, named, _ = swept(QUICK_SEEDS)
    assert shown == table(pairs, named), "run python -m tests.test_slip_catalogue_sweep and copy its table"


@pytest.mark.slow
def test_every_catalogued_slip_that_applies_is_named_on_every_seed_of_the_variants():
    check_sweep(SLOW_SEEDS)


def test_every_slip_the_catalogue_says_applies_is_written_out_by_the_sweep():
    declared = {code for code, entry in CATALOGUE.items() if entry.measures}
    written = set(TWISTS) | ON_THE_ANSWER
    assert declared - written == set(), "a slip declares measures the sweep cannot apply it to"


if __name__ == "__main__":  # python -m tests.test_slip_catalogue_sweep: the table, then every pair not named
    found_pairs, found_named, found_missed = sweep(QUICK_SEEDS)
    print(table(found_pairs, found_named))
    print("\n".join(found_missed))
