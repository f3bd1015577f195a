"""Practise an exercise again on new numbers: ``practice("sheet-ndcg3")`` deals a variant (every lesson).

``practice(id, seed)`` deals the variant of that seed (:mod:`helpers.exercises.fresh` draws it); ``practice()``
without an id deals the exercise your own record says you most need
(:mod:`helpers.exercises.own_progress`), on numbers where your latest slip gives a number of its own.

>>> run = practice("fresh-dcg4", seed=7)
>>> run.seed, run.check(None).verdict.name
(7, 'NOT_ANSWERED')
"""

from __future__ import annotations

import html
import math
import secrets
from dataclasses import dataclass, field, replace

from helpers.exercises import checklog, record
from helpers.exercises.answers import matches, read_answer
from helpers.exercises.checking import CheckResult, Revealed, Shown, distinct_slips, judge, record_verdict
from helpers.exercises.fresh import VARIANTS, Variant, draw, with_variants
from helpers.exercises.own_progress import in_order, most_needed, summarise
from helpers.exercises.registry import Exercise, answer_text, get
from helpers.exercises.worked import Worked


@dataclass(eq=False)
class Practice:
    """A variant dealt to practise: ``.check(answer)``, ``.hint()``, ``.solution()``, ``.reveal()``, ``.seed``."""

    exercise: Exercise
    seed: int
    variant: Variant
    hints_shown: int = field(default=0, repr=False)
    reason: str = ""  # why practice() without an id dealt this one, in one line ('' when asked by id)

    @property
    def hints(self) -> tuple[str, ...]:
        """The variant's own hints (the exercise's for a generator that writes none)."""
        return self.variant.hints or self.exercise.hints

    def check(self, answer: object) -> CheckResult:
        """Judge an answer to this variant, naming the slip a wrong one shows (never the expected value)."""
        checklog.record({"event": "practice-check", "exercise": self.exercise.id, "seed": self.seed,
                         "given": checklog.given_text(answer)})
        result = judge(self.exercise, answer, self.variant.worked)
        record_verdict("practice-check", self.exercise, result, seed=self.seed)
        # this variant's own hints, not the lesson's
        said = result.message.replace(f"hint('{self.exercise.id}')", ".hint()")
        return replace(result, question=self.variant.question, message=said)

    def hint(self, number: int | None = None) -> Shown:
        """The next hint of this variant each time it is called (a nudge, then the method); ``number`` picks one."""
        hints = self.hints
        if number is not None:
            if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(hints):
                raise ValueError(f"hint number must be 1 to {len(hints)}, got {number!r}")
            index = number - 1
        elif self.hints_shown >= len(hints):
            return Shown(f"No more hints for {self.exercise.id}, variant {self.seed}",
                         ("That was the last one; .solution() shows the worked solution.",))
        else:
            index = self.hints_shown
        self.hints_shown = max(self.hints_shown, index + 1)
        checklog.record_event("practice-hint", self.exercise.id, seed=self.seed, number=index + 1)
        record.record("practice-hint", self.exercise.id, self.exercise.lesson, seed=self.seed, number=index + 1)
        return Shown(f"Hint {index + 1} of {len(hints)} for {self.exercise.id}, variant {self.seed}", (hints[index],))

    def solution(self) -> Shown:
        """The steps with this variant's numbers, and the answer."""
        checklog.record_event("practice-solution", self.exercise.id, seed=self.seed)
        record.record("practice-solution", self.exercise.id, self.exercise.lesson, seed=self.seed)
        worked = self.variant.worked
        lines = (*worked.steps, f"answer: {answer_text(worked.value, self.exercise.decimals)}")
        return Shown(f"Solution of {self.exercise.id}, variant {self.seed}", lines, css="helpers-solution")

    def reveal(self) -> Revealed:
        """The value of this variant at its precision, and how it ends (recorded as help, like reveal())."""
        checklog.record_event("practice-reveal", self.exercise.id, seed=self.seed)
        record.record("practice-reveal", self.exercise.id, self.exercise.lesson, seed=self.seed)
        worked = self.variant.worked
        last = worked.steps[-1] if worked.steps else ""
        return Revealed(self.exercise.id, worked.value, self.exercise.decimals, last)

    def __repr__(self) -> str:
        why = f"Chosen for you: {self.reason}.\n" if self.reason else ""
        return (f"{why}Practice {self.exercise.id}, variant {self.seed}: {self.variant.question}\n"
                f"{self.variant.data.to_string(index=False)}\n"
                f"  check it with .check(your_answer) ({self.exercise.precision})")

    def _repr_html_(self) -> str:
        from helpers.tables import table

        head = (f"<b>Practice {html.escape(self.exercise.id)}, variant {self.seed}</b>: "
                f"{html.escape(self.variant.question)}")
        how = (f"check it with <code>.check(your_answer)</code> ({html.escape(self.exercise.precision)}); "
               "<code>.hint()</code> gives the next hint, <code>.solution()</code> the worked solution")
        why = f"<div><i>Chosen for you: {html.escape(self.reason)}.</i></div>" if self.reason else ""
        return (f'<div class="helpers-exercise tex2jax_ignore mathjax_ignore">{why}{head}'
                f"{table(self.variant.data, index=False).to_html()}<div>{how}</div></div>")


def practice(exercise_id: str | None = None, seed: int | None = None) -> Practice | Shown:
    """A new variant of an exercise to practise on (every lesson); ``seed`` deals the same one again.

    Without an id, the exercise you most need, from your own record (:func:`practice_most_needed`).
    An exercise without variants gives a one-line note naming those that have them.

    >>> practice("fresh-dcg4", seed=3).variant == practice("fresh-dcg4", seed=3).variant
    True
    """
    if exercise_id is None:
        if seed is not None:
            raise ValueError("seed= deals one variant of one exercise: give its id too, e.g. "
                             "practice('sheet-ndcg3', seed=7)")
        return practice_most_needed()
    found = get(exercise_id)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    if not isinstance(found, Exercise) or exercise_id not in VARIANTS:
        what = "asks for a function (check_function tries it on any data)" if not isinstance(found, Exercise) else (
            "has no variants")
        return Shown(f"{exercise_id} {what}; practice() deals new numbers for these: {', '.join(sorted(VARIANTS))}")
    if seed is None:
        seed = secrets.randbelow(10**6)
    return Practice(found, seed, draw(exercise_id, seed))


AIM_TRIES = 40  # variants drawn at most to find one where the learner's slip gives its own number
SEEDS = 10**6


def practice_most_needed() -> Practice:
    """The variant you most need, from your record (every lesson): 1) the exercise of your latest slip not yet put
    right, on numbers where that slip gives its own number; 2) one not right yet; 3) one not tried; 4) the right
    answer you gave longest ago. Its ``.reason`` says why, in one line."""
    summaries = summarise(record.read_events())
    candidates = [i for i in in_order() if i in VARIANTS and isinstance(get(i), Exercise)]
    need = most_needed(summaries, candidates)
    if need is None:
        raise ValueError(f"no exercise can be practised here: {with_variants()}")
    found = get(need.exercise)
    assert isinstance(found, Exercise)
    start = secrets.randbelow(SEEDS)
    if not need.slips:
        off = record.why_not_recording()  # with no record, nothing of the learner's to aim at: say so
        return Practice(found, start, draw(found.id, start), reason=f"{need.why} ({off})" if off else need.why)
    seed = aimed_seed(found, need.slips, start)
    if seed is None:  # no variant near this one tells the slip apart: the skill again, without that promise
        return Practice(found, start, draw(found.id, start), reason=f"{need.why}; the same skill on new numbers")
    return Practice(found, seed, draw(found.id, seed), reason=f"{need.why}; here that slip gives a different number")


def aimed_seed(exercise: Exercise, slips: tuple[tuple[str, ...], ...], start: int) -> int | None:
    """The first seed from ``start`` whose variant tells the learner's slips apart (None after AIM_TRIES)."""
    for step in range(AIM_TRIES):
        seed = (start + step) % SEEDS
        if tells_apart(exercise, draw(exercise.id, seed).worked, slips):
            return seed
    return None


def tells_apart(exercise: Exercise, worked: Worked, slips: tuple[tuple[str, ...], ...]) -> bool:
    """True when each of these slips gives, at the asked decimals, a number of its own: not the right one, not
    another slip's, not each other's."""
    decimals = exercise.decimals
    if not math.isfinite(worked.value):
        return False

    def same(value: float, target: float) -> bool:
        if not math.isfinite(target):
            return False
        return matches(read_answer(f"{value:.{decimals}f}"), target, decimals)

    known = distinct_slips(exercise, worked)
    cut = math.trunc(worked.value * 10**decimals) / 10**decimals
    known.append((("digits-cut-off",), cut))
    mine = [next((value for codes, value in known if codes == wanted), None) for wanted in slips]
    if any(value is None or not math.isfinite(value) for value in mine):
        return False
    others = [value for codes, value in known if codes not in slips]
    for number, value in enumerate(mine):
        assert value is not None
        rivals = [worked.value, *others, *(v for n, v in enumerate(mine) if n != number and v is not None)]
        if any(same(value, rival) for rival in rivals):
            return False
    return True
