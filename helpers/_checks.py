"""Every input check of the helpers, with one policy for the error it raises.

- the wrong *type* (a string where a list belongs, a float where a whole number
  belongs) raises ``TypeError``;
- the right type with a wrong *value* (k = 0, a negative grade, an unknown
  option, a repeated id) raises ``ValueError``.

Each message names the parameter, what it got and what it needs. The metric
modules call these first and compute afterwards (scikit-learn's habit).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from numbers import Integral, Real
from typing import Any, Literal, overload

# 2.0 ** 1024 no longer fits in a float: exponential gain 2^grade - 1 needs grade <= 1023.
MAX_EXPONENTIAL_GRADE = 1023
# int and float pass the number checks at once: numbers.Real's own isinstance is slow, and the practice
# sweeps and widgets check millions of grades (bool is neither: type(True) is bool)
PLAIN_NUMBERS = (int, float)
PLAIN_LISTS = (list, tuple)  # and a list or a tuple passes Iterable's check at once, for the same reason


def check_whole(value: Any, name: str, minimum: int = 1) -> int:
    """Return ``value`` as an int after checking it is a whole number >= ``minimum``.

    >>> check_whole(3, "k")
    3
    """
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, Integral)):
        if isinstance(value, float) and value.is_integer():
            raise TypeError(
                f"{name} must be a whole number (int), got the float {value!r}; write {int(value)}"
            )
        raise TypeError(
            f"{name} must be a whole number (int) >= {minimum}, got {type(value).__name__} {value!r}"
        )
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


@overload
def check_k(k: Any, *, allow_none: Literal[False]) -> int: ...
@overload
def check_k(k: Any, *, allow_none: bool = True) -> int | None: ...
def check_k(k: Any, *, allow_none: bool = True) -> int | None:
    """Return the cut-off k after checking it is a whole number >= 1 (or None, meaning no cut-off)."""
    if k is None:
        if allow_none:
            return None
        raise TypeError("k is required here: give the cutoff as a whole number >= 1")
    if isinstance(k, Integral) and not isinstance(k, bool) and k < 1:
        raise ValueError(f"k must be at least 1 (ranks count from 1), got {int(k)}")
    return check_whole(k, "k")


def check_number(
    value: Any, name: str, *, above: float | None = None, at_least: float | None = None
) -> float:
    """Return ``value`` as a float after checking it is a finite real number within the bound given."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    if above is not None and not value > above:
        raise ValueError(f"{name} must be above {above:g}, got {value:g}")
    if at_least is not None and value < at_least:
        raise ValueError(f"{name} must be at least {at_least:g}, got {value:g}")
    return value


def check_choice(value: Any, options: Sequence[str], name: str) -> str:
    """Return ``value`` after checking it is one of the named options (a string)."""
    if isinstance(value, str) and value in options:
        return value
    names = ", ".join(repr(option) for option in options)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {names} (a string), got {type(value).__name__} {value!r}")
    raise ValueError(f"unknown {name} {value!r}: choose one of {names}")


def close_names(name: str, known: Iterable[str], most: int = 3) -> list[str]:
    """The known names closest to a misspelt one, closest first, at most ``most`` ([] when none is close): the one
    "did you mean" of every message (difflib's ratio of 0.6 or more).

    >>> close_names("explain-rr-mea", ["explain-rr-mean", "ndcg-3", "mrr-1"])
    ['explain-rr-mean']
    """
    return difflib.get_close_matches(name, list(known), n=most, cutoff=0.6)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """'; did you mean 'x' or 'y'?' for the known names closest to a misspelt one ('' when none is close).

    >>> did_you_mean("ignored-cutof", ["ignored-cutoff", "no-discount"])
    "; did you mean 'ignored-cutoff'?"
    """
    close = close_names(name, known)
    return f"; did you mean {' or '.join(repr(found) for found in close)}?" if close else ""


def check_ranking(ranked: Any) -> list:
    """Return the ranking as a list after checking it is an ordered sequence of distinct ids."""
    if isinstance(ranked, str | bytes):
        raise TypeError(
            "ranked must be a list of document ids in rank order, not a single string "
            f"({ranked!r}); write e.g. ['D1', 'D2']"
        )
    if isinstance(ranked, Mapping | set | frozenset) or not isinstance(ranked, Iterable):
        raise TypeError(
            f"ranked must be an ordered sequence (list or tuple) of document ids, got {type(ranked).__name__}"
        )
    ranked = list(ranked)
    seen: set[Hashable] = set()
    for position, doc_id in enumerate(ranked, start=1):
        if not isinstance(doc_id, Hashable):
            raise TypeError(
                f"the id at rank {position} is a {type(doc_id).__name__}; ids are strings or numbers"
            )
        if doc_id in seen:
            raise ValueError(
                f"duplicate id {doc_id!r} in the ranking (again at rank {position}): "
                "a document can appear only once in a ranked list"
            )
        seen.add(doc_id)
    return ranked


def check_relevant(relevant: Any) -> frozenset:
    """Return the relevant ids as a frozenset after checking they are a collection, not a string."""
    if isinstance(relevant, str | bytes):
        raise TypeError(
            f"relevant must be a set of document ids, not a string ({relevant!r}); write e.g. {{'D8'}}"
        )
    if isinstance(relevant, Mapping):
        raise TypeError(
            "relevant must be a set of ids; for graded judgments use relevant_ids(judgments, threshold=1)"
        )
    if not isinstance(relevant, Collection):
        raise TypeError(f"relevant must be a set of document ids, got {type(relevant).__name__}")
    return frozenset(relevant)


def check_grades(grades: Any, name: str = "grades") -> list[float]:
    """Return the grades as floats after checking each is a finite number >= 0."""
    if type(grades) not in PLAIN_LISTS and (isinstance(grades, str | bytes) or not isinstance(grades, Iterable)):
        raise TypeError(f"{name} must be a list of numbers in rank order, got {type(grades).__name__}")
    values = []
    for position, grade in enumerate(grades, start=1):
        if type(grade) not in PLAIN_NUMBERS and (isinstance(grade, bool) or not isinstance(grade, Real)):
            raise TypeError(
                f"{name}: the value at rank {position} is {grade!r} ({type(grade).__name__}); "
                "every grade must be a number"
            )
        grade = float(grade)
        if math.isnan(grade) or math.isinf(grade):
            raise ValueError(f"{name}: the value at rank {position} is {grade}; grades must be finite")
        if grade < 0:
            raise ValueError(
                f"{name}: the value at rank {position} is {grade:g}; grades cannot be negative "
                "(0 means not relevant)"
            )
        values.append(grade)
    return values


def check_exponential_grades(grades: list[float], name: str = "grades") -> list[float]:
    """Return the grades after checking 2^grade - 1 fits in a float for each (grade <= 1023)."""
    for position, grade in enumerate(grades, start=1):
        if grade > MAX_EXPONENTIAL_GRADE:
            raise ValueError(
                f"{name}: the value at rank {position} is {grade:g}; exponential gain 2^grade - 1 "
                f"overflows above grade {MAX_EXPONENTIAL_GRADE}: use gain='linear' or smaller grades"
            )
    return grades


def check_ideal_holds_returned(returned: list[float], ideal: list[float]) -> None:
    """Refuse an ideal that lacks a relevant grade of the returned list.

    The ideal holds the grades of every judged document, so each relevant
    document the system returned is in it: returned [3, 3] cannot have the
    ideal [1] (that would give an nDCG above 1).
    """
    needed = sorted((grade for grade in returned if grade > 0), reverse=True)
    available = sorted(ideal, reverse=True)
    # the i-th best returned grade needs an i-th best ideal grade at least as high
    for position, grade in enumerate(needed):
        if position >= len(available) or available[position] < grade:
            raise ValueError(
                f"ideal {_short_list(available)} cannot hold the returned grades {_short_list(needed)}: "
                "the ideal takes the grades of every judged document, the returned relevant ones included"
            )


def _short_list(values: list[float], limit: int = 8) -> str:
    shown = ", ".join(f"{value:g}" for value in values[:limit])
    return f"[{shown}{', ...' if len(values) > limit else ''}]"


def check_threshold(threshold: Any) -> float:
    """Return the relevance threshold after checking it is a number > 0."""
    if isinstance(threshold, bool) or not isinstance(threshold, Real):
        raise TypeError(f"threshold must be a number, got {threshold!r}")
    if not float(threshold) > 0:
        raise ValueError(f"threshold must be above 0 (grade 0 means not relevant), got {threshold!r}")
    return float(threshold)


def check_first_rank(first_rank: Any) -> int:
    """Return a first relevant rank after checking it is a whole number >= 0 (0 = miss)."""
    if isinstance(first_rank, bool) or not isinstance(first_rank, Integral):
        raise TypeError(f"a first relevant rank must be a whole number (0 for a miss), got {first_rank!r}")
    first_rank = int(first_rank)
    if first_rank < 0:
        raise ValueError(f"a first relevant rank cannot be negative, got {first_rank} (use 0 for a miss)")
    return first_rank


def check_first_ranks(first_ranks: Any) -> list[int]:
    """Return a non-empty list of first relevant ranks, one per query (0 = miss)."""
    if isinstance(first_ranks, str | bytes) or not isinstance(first_ranks, Iterable):
        raise TypeError("first_ranks must be a list of whole numbers, one per query (0 = miss)")
    first_ranks = [check_first_rank(rank) for rank in first_ranks]
    if not first_ranks:
        raise ValueError("first_ranks is empty: a mean needs at least one query")
    return first_ranks


def check_judgments(judgments: Any) -> Mapping:
    """Return the judgments after checking they map ids to grades (each a number >= 0)."""
    if not isinstance(judgments, Mapping):
        raise TypeError(
            f"judgments must be a mapping of id -> grade (a dict), got {type(judgments).__name__}"
        )
    check_grades(judgments.values(), name="judgments")
    return judgments
