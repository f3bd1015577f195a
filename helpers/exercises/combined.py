"""Slips of writing the answer (its % sign, its decimal point, 1 minus it) and two slips at once (every lesson).

A slip of writing changes a number however it was computed: 12.5 for 0.125 (the % sign left off), a tenth
or ten times the value (the point moved by one place), 1 minus a share. The checker tries each on the right
value like any other slip (:func:`writing_slips`). When no single slip gives an answer, it tries two at once
(:func:`matching_pairs`): a slip of writing made on a slip's value, or a slip's value with its digits cut
off; a pair is named only where its number is its own at the asked decimals (not the right one, nor a single
slip's). Last, an answer off in the last digits of exactly one slip's value is that slip with a step rounded
early (:func:`near_slips`), as far off as rounding early moves this exercise's own answer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from helpers.exercises.answers import Answer, NumberVerdict, correctly_rounded, judge_number, matches, truncated
from helpers.exercises.worked import Slip, Worked
from helpers.slips import CATALOGUE

# the worked problem's topic -> (the measure, the kind of question), as the catalogue names them
TOPICS = {
    "mrr": ("mrr", "mean"), "hit-rate": ("hit-rate", "mean"), "dcg": ("dcg", "value"),
    "ndcg": ("ndcg", "value"), "mean-ndcg": ("ndcg", "mean"), "precision": ("precision", "value"),
    "recall": ("recall", "value"), "ap": ("ap", "value"), "map": ("ap", "mean"), "cg-minus-dcg": ("cg", "difference"),
}  # fmt: skip
WRITING = {"percent-without-sign", "decimal-point-shifted", "one-minus-the-answer", "digits-cut-off", "a-minus-b"}
NEAR_BAND_UNITS = 5  # a slip's value off by at most this many units of the last decimal asked ("close" to it)


@dataclass(frozen=True)
class Written:
    """A slip of writing: its code, what it does to a number, and the decimals it moves (12.5 has 2 fewer)."""

    code: str
    apply: Callable[[float], float]
    shift: int = 0


@dataclass(frozen=True)
class Candidate:
    """Slip codes, the number they give and the decimals it is written with beyond (+) or short of (-) those asked."""

    codes: tuple[str, ...]
    value: float
    shift: int = 0


def measure_and_kind(worked: Worked) -> tuple[str, str] | None:
    """The measure and kind of question of a worked problem (None where its topic is not a ranking measure)."""
    if worked.topic == "difference":
        first = TOPICS.get(worked.inputs.get("first", ("",))[0])
        return None if first is None else (first[0], "difference")
    return TOPICS.get(worked.topic)


def applies(code: str, worked: Worked) -> bool:
    """True when the catalogue says the slip can be made on this problem's measure and kind of question."""
    found = measure_and_kind(worked)
    entry = CATALOGUE[code]
    return found is not None and found[0] in entry.measures and found[1] in entry.kinds


def writings(worked: Worked, decimals: int) -> list[Written]:
    """The slips of writing this problem allows: the % sign (always, as before), the point, 1 minus a share."""
    found = [Written("percent-without-sign", lambda v: 100 * v, -2)]
    if decimals > 0:  # a count or a rank has no decimal point to move
        found += [Written("decimal-point-shifted", lambda v: 10 * v, -1),
                  Written("decimal-point-shifted", lambda v: v / 10, 1)]
    if applies("one-minus-the-answer", worked):
        found.append(Written("one-minus-the-answer", lambda v: 1 - v))
    return found


def writing_slips(worked: Worked, decimals: int) -> list[Slip]:
    """Each slip of writing made on the right value (0 and undefined values have none)."""
    value = worked.value
    if not math.isfinite(value) or value == 0:
        return []
    return [((written.code,), written.apply(value)) for written in writings(worked, decimals)]


def written_shift(codes: Sequence[str], value: float, expected: float) -> int:
    """The decimals a single slip's number is written with beyond the asked ones (12.5 for 0.125: -2)."""
    if tuple(codes) == ("percent-without-sign",):
        return -2
    if tuple(codes) == ("decimal-point-shifted",):
        return -1 if abs(value) > abs(expected) else 1
    return 0


def hits(given: Answer, candidate: Candidate, decimals: int, fewest: int | None, exact: bool) -> bool:
    """True when the answer gives the candidate's number at the decimals it is written with."""
    if not math.isfinite(candidate.value):
        return False
    places = max(decimals + candidate.shift, 0)
    least = None if fewest is None else max(fewest + candidate.shift, 0)
    if exact:
        return judge_number(given, candidate.value, places, least) is NumberVerdict.RIGHT
    return matches(given, candidate.value, places, least)


def _shown(value: float, places: int) -> str:
    return f"{value:.{max(places, 0)}f}" if math.isfinite(value) else "undefined"


def pairs(worked: Worked, singles: Sequence[Slip], decimals: int) -> list[Candidate]:
    """Two slips at once: a slip of writing on each formula slip's value, or that value with its digits cut off.

    Only pairs whose number, at the decimals it is written with, is neither the right one nor a single slip's.
    """
    formula = [(codes, value) for codes, value in singles if math.isfinite(value) and not WRITING & set(codes)]
    found: list[Candidate] = []
    for codes, value in formula:
        for written in writings(worked, decimals):
            found.append(Candidate((*codes, written.code), written.apply(value), written.shift))
        cut = float(truncated(value, decimals))
        found.append(Candidate((*codes, "digits-cut-off"), cut))
        if worked.topic in ("difference", "cg-minus-dcg"):
            found.append(Candidate((*codes, "a-minus-b"), -value))
    known = [worked.value, *(value for _, value in singles)]
    return [pair for pair in found if math.isfinite(pair.value)
            and all(_shown(pair.value, decimals + pair.shift) != _shown(other, decimals + pair.shift)
                    for other in known)]


def matching_pairs(
    given: Answer, worked: Worked, singles: Sequence[Slip], decimals: int, fewest: int | None
) -> list[tuple[str, ...]]:
    """The pairs of slips whose number the answer gives (several where formula slips give the same number)."""
    candidates = pairs(worked, singles, decimals)
    for exact in (True, False):
        found = list(dict.fromkeys(c.codes for c in candidates if hits(given, c, decimals, fewest, exact)))
        if found:
            return found
    return []


def near_band(worked: Worked, decimals: int, value: float) -> float:
    """How far rounding early moves a slip's value: as far, relative to its size, as it moves this problem's
    own answer; between 1 and 5 units of the last decimal asked (times its size), 0 where nothing is rounded."""
    moved = [abs(slipped - worked.value) for codes, slipped in worked.slips
             if codes == ("rounded-early",) and math.isfinite(slipped)]
    if not moved or not worked.value:
        return 0.0
    scale, unit = max(1.0, abs(value / worked.value)), 10.0**-decimals
    return min(max(max(moved) * scale, unit), NEAR_BAND_UNITS * unit * scale)


def near_slips(given: Answer, worked: Worked, singles: Sequence[Slip], decimals: int) -> list[tuple[str, ...]]:
    """The one formula slip whose value the answer is off from in its last digits only, with rounded-early.

    None when the problem has no rounding early, when the answer is that near the right value too, or when
    two slips with different values are that near.
    """
    if given.undefined or abs(given.value - worked.value) <= near_band(worked, decimals, worked.value) + 1e-12:
        return []
    near = [(codes, value) for codes, value in singles
            if math.isfinite(value) and not (WRITING | {"rounded-early"}) & set(codes)
            and abs(given.value - value) <= near_band(worked, decimals, value) + 1e-12]
    if len({_shown(value, decimals) for _, value in near}) != 1:
        return []
    return list(dict.fromkeys((*codes, "rounded-early") for codes, _ in near))


def padded_slips(given: Answer, singles: Sequence[Slip], decimals: int) -> list[tuple[str, ...]]:
    """The formula slips whose value, rounded to fewer decimals, the answer writes with zeros after it ("0.560")."""
    if given.typed == "number" or given.decimals is None or not isinstance(given.number, Decimal):
        return []
    found = []
    for places in range(1, min(given.decimals, decimals)):
        kept = given.number.quantize(Decimal(1).scaleb(-places))
        if kept != given.number:
            continue
        found += [(*codes, "zeros-added") for codes, value in singles
                  if math.isfinite(value) and not WRITING & set(codes) and kept in correctly_rounded(value, places)]
    return list(dict.fromkeys(found))


def zeros_added(given: Answer, expected: float, fewest: int) -> bool:
    """True when the answer is a right rounding of the key with zeros written after it ('0.5500' for 0.5504)."""
    if given.typed == "number" or given.decimals is None or not isinstance(given.number, Decimal):
        return False
    for places in range(fewest, given.decimals):
        kept = given.number.quantize(Decimal(1).scaleb(-places))
        if kept == given.number and judge_number(
            Answer(kept, places, format(kept, "f")), expected, places
        ) is NumberVerdict.RIGHT:
            return True
    return False
