"""Practice an exercise again on new numbers: ``practice("sheet-ndcg3")`` deals a variant (every lesson).

A variant is the same question on new data drawn by a seeded generator: new
grades, a new ranking, a new cut-off where the skill allows. The same seed
gives the same variant, and the same slip catalogue names the mistakes on it
(the generators build their answers with the ``worked_*`` helpers). The
generators live with the answer key (:mod:`helpers.exercises.lessons.variants`),
so an assignment copy has none.

>>> run = practice("fresh-dcg4", seed=7)
>>> run.seed, run.check(None).verdict.name
(7, 'NOT_ANSWERED')
"""

from __future__ import annotations

import html
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace

import pandas as pd

from helpers.exercises import checklog
from helpers.exercises.checking import CheckResult, Revealed, Shown, judge
from helpers.exercises.registry import Exercise, answer_text, get
from helpers.exercises.worked import Worked


@dataclass(frozen=True, eq=False)
class Variant:
    """One variant of an exercise: its question, the data to show (a table), and its worked answer."""

    question: str
    data: pd.DataFrame
    worked: Worked
    hints: tuple[str, ...] = ()  # hints in this variant's own numbers, where its generator writes them

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Variant):
            return NotImplemented
        return self.question == other.question and self.worked == other.worked and self.data.equals(other.data)

    __hash__ = None  # type: ignore[assignment]  # a table inside: compared, never hashed


Generator = Callable[[random.Random], Variant]
VARIANTS: dict[str, Generator] = {}


def variant_of(exercise_id: str) -> Callable[[Generator], Generator]:
    """Declare a function ``(rng) -> Variant`` as the generator of an exercise's variants."""

    def declare(generator: Generator) -> Generator:
        VARIANTS[exercise_id] = generator
        return generator

    return declare


def draw(exercise_id: str, seed: int) -> Variant:
    """The variant of ``exercise_id`` for ``seed`` (the same seed, the same variant)."""
    if exercise_id not in VARIANTS:
        have = ", ".join(sorted(VARIANTS)) or "none in this copy"
        raise ValueError(f"{exercise_id!r} has no variants to practise; these do: {have}")
    return VARIANTS[exercise_id](random.Random(f"{exercise_id}/{seed}"))


@dataclass(frozen=True)
class Practice:
    """A variant dealt to practise: ``.check(answer)``, ``.hint()``, ``.solution()``, ``.reveal()``, ``.seed``."""

    exercise: Exercise
    seed: int
    variant: Variant

    def check(self, answer: object) -> CheckResult:
        """Judge an answer to this variant, naming the slip a wrong one shows (never the expected value)."""
        checklog.record({"event": "practice-check", "exercise": self.exercise.id, "seed": self.seed,
                         "given": checklog.given_text(answer)})
        return replace(judge(self.exercise, answer, self.variant.worked), question=self.variant.question)

    def hint(self, number: int = 1) -> Shown:
        """A hint of the exercise (1: the nudge, 2: the method); the same for every variant."""
        hints = self.exercise.hints
        index = min(max(int(number), 1), len(hints)) - 1
        return Shown(f"Hint {index + 1} of {len(hints)} for {self.exercise.id}", (hints[index],))

    def solution(self) -> Shown:
        """The steps with this variant's numbers, and the answer."""
        checklog.record_event("practice-solution", self.exercise.id, seed=self.seed)
        worked = self.variant.worked
        lines = (*worked.steps, f"answer: {answer_text(worked.value, self.exercise.decimals)}")
        return Shown(f"Solution of {self.exercise.id}, variant {self.seed}", lines, css="helpers-solution")

    def reveal(self) -> Revealed:
        """The value of this variant at its precision, and how it ends (recorded as help, like reveal())."""
        checklog.record_event("practice-reveal", self.exercise.id, seed=self.seed)
        worked = self.variant.worked
        last = worked.steps[-1] if worked.steps else ""
        return Revealed(self.exercise.id, worked.value, self.exercise.decimals, last)

    def __repr__(self) -> str:
        return (f"Practice {self.exercise.id}, variant {self.seed}: {self.variant.question}\n"
                f"{self.variant.data.to_string(index=False)}\n"
                f"  check it with .check(your_answer) ({self.exercise.precision})")

    def _repr_html_(self) -> str:
        from helpers.tables import table

        head = (f"<b>Practice {html.escape(self.exercise.id)}, variant {self.seed}</b>: "
                f"{html.escape(self.variant.question)}")
        how = f"check it with <code>.check(your_answer)</code> ({html.escape(self.exercise.precision)})"
        return (f'<div class="helpers-exercise tex2jax_ignore mathjax_ignore">{head}'
                f"{table(self.variant.data).to_html()}<div>{how}</div></div>")


def practice(exercise_id: str, seed: int | None = None) -> Practice:
    """A new variant of an exercise to practise on (every lesson); ``seed`` deals the same one again.

    >>> practice("fresh-dcg4", seed=3).variant == practice("fresh-dcg4", seed=3).variant
    True
    """
    found = get(exercise_id)
    if not isinstance(found, Exercise):
        raise ValueError(f"{exercise_id!r} asks for a function: practise it with check_function on your own data")
    if seed is None:
        seed = secrets.randbelow(10**6)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    return Practice(found, seed, draw(exercise_id, seed))
