"""The catalogue of slips: one entry per slip, declared where its wrong computation is written.

A slip is declared once, by :func:`slip` on the function that computes it (its code, a title
and the fix), or by :func:`declare` where no function of ours computes it (a value read off
the lesson, a library's other convention). A second function of the same slip is attached
with ``@slip(code)`` alone. The checker (``helpers.exercises``), lesson 07 and the slip list of
docs/learners.md all read this one catalogue.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple, TypeVar

import pandas as pd

CODE_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{1,48}$")


MEASURES = frozenset({
    "mrr", "hit-rate", "cg", "dcg", "ideal-dcg", "ndcg", "precision", "recall", "ap", "p-value", "effect-size",
})  # fmt: skip
KINDS = frozenset({"value", "mean", "difference", "count"})  # one query's value, a mean over queries, a gap, a count
SHARES = ("mrr", "hit-rate", "ndcg", "precision", "recall", "ap")  # measures between 0 and 1
EVERY_MEASURE = tuple(sorted(MEASURES))
EVERY_KIND = ("value", "mean", "difference")


class Mistake(NamedTuple):
    """One slip: a short title, how to fix it, the functions that compute its wrong value, and what it applies to.

    ``measures`` and ``kinds`` say on which questions the slip can be made (the slip sweep applies it to every
    such exercise); a slip with no measures is one an exercise's own story sets (the value before a change,
    a library's convention), named where that exercise declares it.
    """

    title: str
    fix: str
    computed_by: tuple[str, ...] = ()
    measures: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()


CATALOGUE: dict[str, Mistake] = {}
_attached: dict[str, list[str]] = {}  # functions of a slip met before the slip's declaration

Function = TypeVar("Function", bound=Callable)


def declare(
    code: str, title: str, fix: str, computed_by: tuple[str, ...] = (),
    measures: tuple[str, ...] = (), kinds: tuple[str, ...] = (),
) -> Mistake:
    """Put one slip in the catalogue, with the measures and kinds of question it applies to; the same code twice
    with another title or fix is refused."""
    if not isinstance(code, str) or not CODE_PATTERN.match(code):
        raise ValueError(f"slip code {code!r}: use 2-49 lower-case letters, digits and dashes, e.g. 'my-slip'")
    for name, text in (("title", title), ("fix", fix)):
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"slip {code!r}: {name} must be a non-empty text")
    unknown = sorted(set(measures) - MEASURES) + sorted(set(kinds) - KINDS)
    if unknown or bool(measures) != bool(kinds):
        raise ValueError(f"slip {code!r}: give measures from {sorted(MEASURES)} and kinds from {sorted(KINDS)} "
                         f"together (unknown: {unknown})")
    entry = Mistake(title, fix, (*computed_by, *_attached.pop(code, ())), tuple(measures), tuple(kinds))
    known = CATALOGUE.get(code)
    if known is not None and known[:2] != entry[:2]:
        raise ValueError(f"slip {code!r} is already in the catalogue as {known.title!r}: choose another code")
    CATALOGUE[code] = entry
    return entry


def slip(
    code: str, title: str | None = None, fix: str | None = None,
    measures: tuple[str, ...] = (), kinds: tuple[str, ...] = (),
) -> Callable[[Function], Function]:
    """Declare (with a title, a fix and what it applies to) or extend (code alone) the slip a wrong function
    computes."""

    def register(function: Function) -> Function:
        if title is None or fix is None:
            known = CATALOGUE.get(code)
            if known is None:
                _attached.setdefault(code, []).append(function.__name__)
            else:
                CATALOGUE[code] = known._replace(computed_by=(*known.computed_by, function.__name__))
        else:
            declare(code, title, fix, (function.__name__,), measures, kinds)
        function.slip = code  # type: ignore[attr-defined]
        return function

    return register


def check_complete() -> None:
    """Refuse a function attached to a slip nobody declared (run once every module is imported)."""
    if _attached:
        raise ValueError(f"slips computed but never declared with a title and fix: {', '.join(_attached)}")


def describe(code: str) -> Mistake:
    """The title and fix of one slip code, with a clear error for an unknown code (lesson 07).

    >>> describe("no-discount").title
    'no discount: the gains added up (CG) instead of DCG'
    """
    if not isinstance(code, str):
        raise TypeError(f"a slip code is a string such as 'no-discount', got {code!r}")
    if code not in CATALOGUE:
        raise ValueError(f"unknown slip code {code!r}: choose one of {', '.join(CATALOGUE)}")
    return CATALOGUE[code]


def slips_table(codes: list[str] | None = None) -> pd.DataFrame:
    """The slips (all, or those named) as a table: code, title, fix and what computes them (lesson 07)."""
    chosen = list(CATALOGUE) if codes is None else codes
    rows = []
    for code in chosen:
        entry = describe(code)
        rows.append({"code": code, "title": entry.title, "fix": entry.fix, "computed by": ", ".join(entry.computed_by)})
    return pd.DataFrame(rows, columns=["code", "title", "fix", "computed by"])
