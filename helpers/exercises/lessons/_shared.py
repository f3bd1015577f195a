"""Small readers of the golden sets shared by the lessons' exercises."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache

from helpers import data as golden_sets
from helpers import metrics
from helpers.data import COLUMNS, Example, example_dir
from helpers.data import load_example as _load_example


def load_example(name: str) -> Example:
    """The example as its files are now: read again only when one of its files changed."""
    folder = example_dir(name)
    return _cached(name, tuple((folder / file).stat().st_mtime_ns for file in COLUMNS))


@lru_cache(maxsize=16)
def _cached(name: str, _file_times: tuple[int, ...]) -> Example:
    return _load_example(name)


def golden_set_times() -> tuple[int, ...]:
    """When each file of every golden set last changed: a cache key that any saved edit of ``data/`` changes."""
    folder_time = golden_sets.DATA_DIR.stat().st_mtime_ns
    try:
        return tuple(os.stat(path).st_mtime_ns for path in _golden_set_files(folder_time))
    except FileNotFoundError:  # a file removed since the folder was last listed
        _golden_set_files.cache_clear()
        return tuple(os.stat(path).st_mtime_ns for path in _golden_set_files(folder_time))


@lru_cache(maxsize=1)
def _golden_set_files(_folder_time: int) -> tuple[str, ...]:
    """The golden sets' files, listed again when an example is added or removed (a quarter of the time: practice
    asks on every draw)."""
    return tuple(str(path) for path in sorted(golden_sets.DATA_DIR.glob("example_*/*.csv")))


def first_ranks(
    example: str, system: str, k: int | None = None, edit: Callable[[str, list[str]], list[str]] | None = None
) -> tuple[list[int], int]:
    """First relevant rank of each answerable query (0 = miss) and the number of unanswerable queries.

    ``edit(query_id, ranking)`` may change a ranking first (e.g. move a document up).

    >>> first_ranks("D", "advisor", k=4)
    ([1, 3, 0], 1)
    """
    data = load_example(example)
    ranks, unanswerable = [], 0
    for query_id in data.query_ids:
        relevant = data.relevant_for(query_id)
        if not relevant:
            unanswerable += 1
            continue
        ranked = data.ranking(system, query_id)
        if edit is not None:
            ranked = edit(query_id, ranked)
        ranks.append(metrics.first_relevant_rank(ranked, relevant, k))
    return ranks, unanswerable


def query_grades(
    example: str,
    system: str,
    query_id: str,
    changes: dict | None = None,
    drop: tuple[str, ...] = (),
    edit: Callable[[list[str]], list[str]] | None = None,
) -> tuple[list[float], list[float]]:
    """Grades in rank order and every judged grade (in the judgments' order) of one query, after edits.

    ``changes`` sets new grades (doc -> grade); ``drop`` removes ids from the ranking; ``edit`` reorders it.
    """
    data = load_example(example)
    judgments = {**data.judgments_for(query_id), **(changes or {})}
    ranked = [doc for doc in data.ranking(system, query_id) if doc not in drop]
    if edit is not None:
        ranked = edit(ranked)
    return metrics.grades_in_rank_order(ranked, judgments), list(judgments.values())


def whole(grades: list[float]) -> list:
    """Whole grades as int ([2.0, 0.0] -> [2, 0]), as a learner's function sees them in the lessons."""
    return [int(grade) if float(grade).is_integer() else grade for grade in grades]


def move_to_top(ranked: list[str], doc_id: str) -> list[str]:
    """The ranking with one document moved to rank 1, the others keeping their order."""
    return [doc_id] + [doc for doc in ranked if doc != doc_id]


def move_to(ranked: list[str], doc_id: str, rank: int) -> list[str]:
    """The ranking with one document moved to ``rank`` (1-based), the others keeping their order."""
    rest = [doc for doc in ranked if doc != doc_id]
    return rest[: rank - 1] + [doc_id] + rest[rank - 1 :]
