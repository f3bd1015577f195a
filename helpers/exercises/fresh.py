"""New numbers for an exercise: its variants, their generators and ``draw`` (every lesson; ``practice()``).

A variant is the same question on new data drawn by a seeded generator: new
grades, a new ranking, a new cut-off where the skill allows. The same seed
gives the same variant, and the same slip catalogue names the mistakes on it
(the generators build their answers with the ``worked_*`` helpers). The
generators live with the answer key (:mod:`helpers.exercises.lessons.variants`),
so an assignment copy has none. Dealing one to practise on is :mod:`helpers.exercises.practising`.

>>> draw("fresh-dcg4", seed=7) == draw("fresh-dcg4", seed=7)
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

import pandas as pd

from helpers.exercises.registry import Exercise, get, with_precision
from helpers.exercises.worked import Worked


@dataclass(frozen=True, eq=False)
class Variant:
    """One variant of an exercise: its question, the data to show (a table), its worked answer and its hints.

    The hints are written from the variant's own numbers (a nudge first, then the method); a generator
    that gives none falls back on the exercise's hints, which speak of the lesson's numbers.
    """

    question: str
    data: pd.DataFrame
    worked: Worked
    hints: tuple[str, ...] = ()  # hints in this variant's own numbers (every generator writes them)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Variant):
            return NotImplemented
        return (self.question == other.question and self.worked == other.worked and self.hints == other.hints
                and self.data.equals(other.data))

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
    """The variant of ``exercise_id`` for ``seed`` (the same seed, the same variant).

    Its question ends with the precision sentence made from the exercise's ``decimals`` / ``min_decimals``.
    """
    if exercise_id not in VARIANTS:
        raise ValueError(f"{exercise_id!r} has no variants to practise; {with_variants()}")
    variant = VARIANTS[exercise_id](random.Random(f"{exercise_id}/{seed}"))
    found = get(exercise_id)
    if isinstance(found, Exercise):
        variant = replace(variant, question=with_precision(variant.question, found.decimals, found.min_decimals))
    return variant


def with_variants() -> str:
    """'these have variants: a, b, c' (or that this copy has none)."""
    return f"these have variants: {', '.join(sorted(VARIANTS))}" if VARIANTS else "no exercise has variants here"
