"""MRR vs hit rate (lesson 01, example A) as pure data: where the learner moved each first relevant passage.

Each (system, query) has one movable passage: the first relevant one in the
data (e.g. D8 for q1 in NEW). :class:`MrrState` holds the rank it was moved
to and the hit-rate cut-off; :func:`compute` reads the first relevant rank off
each changed list (another relevant passage may now come first) and gets RR,
MRR and hit rate@k from :mod:`helpers.metrics`. No ipywidgets here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from helpers import metrics
from helpers._checks import check_k, check_whole
from helpers.data import Example
from helpers.widgets._arithmetic import check_at_most, move_to

Key = tuple[str, str]  # (system, query)


@dataclass(frozen=True)
class MrrState:
    """What the learner set in lesson 01 (read-only: each action makes a new state)."""

    ranks: Mapping[Key, int]  # the rank each movable passage sits at now; 0 = not returned
    hit_k: int


@dataclass(frozen=True)
class MrrSetup:
    """Example A as the control sees it: systems, questions, rankings and the passage each picker moves."""

    systems: tuple[str, ...]
    query_ids: tuple[str, ...]
    query_texts: Mapping[str, str]
    relevant: Mapping[str, frozenset[str]]  # query -> relevant ids
    rankings: Mapping[Key, tuple[str, ...]]  # as in the data
    moved: Mapping[Key, str | None]  # the first relevant passage in the data (None: the query is a miss)
    longest: int  # the longest list: ranks and k run up to it
    opening: MrrState


def mrr_setup(data: Example, hit_k: int = 3) -> MrrSetup:
    """The control's setup for an example with several systems and queries (lesson 01: example A)."""
    systems, query_ids = tuple(data.systems), tuple(data.query_ids)
    relevant = {query: frozenset(data.relevant_for(query)) for query in query_ids}
    rankings = {
        (system, query): tuple(data.ranking(system, query)) for system in systems for query in query_ids
    }
    start = {key: metrics.first_relevant_rank(ranking, relevant[key[1]]) for key, ranking in rankings.items()}
    longest = max(len(ranking) for ranking in rankings.values())
    return MrrSetup(
        systems=systems,
        query_ids=query_ids,
        query_texts={query: data.query_text(query) for query in query_ids},
        relevant=relevant,
        rankings=rankings,
        moved={key: rankings[key][rank - 1] if rank else None for key, rank in start.items()},
        longest=longest,
        opening=MrrState(start, check_at_most(check_k(hit_k, allow_none=False), longest, "hit rate k")),
    )


# --- the transitions -----------------------------------------------------------


def move(setup: MrrSetup, state: MrrState, rank: int, *, key: Key) -> MrrState:
    """The movable passage of (system, query) moved to ``rank`` (1-based; 0 = not returned)."""
    if setup.moved.get(key) is None:
        raise ValueError(
            f"{key} has no relevant passage to move (or is not a (system, query) of the example)"
        )
    rank = check_at_most(check_whole(rank, "rank", minimum=0), setup.longest, "rank")
    return replace(state, ranks={**state.ranks, key: rank})


def with_hit_k(setup: MrrSetup, state: MrrState, k: int) -> MrrState:
    """The cut-off of hit rate@k moved (1..the longest list)."""
    return replace(state, hit_k=check_at_most(check_k(k, allow_none=False), setup.longest, "hit rate k"))


def reset(setup: MrrSetup, state: MrrState, _value: object = None) -> MrrState:
    """Every passage back where the data has it, and the hit-rate cut-off back to the one the lesson opens with."""
    return setup.opening


def ranking(setup: MrrSetup, state: MrrState, key: Key) -> list[str]:
    """The list of (system, query) as it is now, with the movable passage at its chosen rank."""
    doc_id, original = setup.moved[key], list(setup.rankings[key])
    return original if doc_id is None else move_to(original, doc_id, state.ranks[key])


# --- compute ---------------------------------------------------------------------


@dataclass(frozen=True)
class QueryResult:
    """One question of one system: its list now, its first relevant rank (0 = miss) and RR."""

    ranking: tuple[str, ...]
    first_rank: int
    reciprocal_rank: float


@dataclass(frozen=True)
class SystemResult:
    """One system over all questions: first relevant ranks, RRs, MRR and hit rate@k."""

    first_ranks: tuple[int, ...]
    reciprocal_ranks: tuple[float, ...]
    mrr: float
    hit_rate: float


@dataclass(frozen=True)
class MrrResult:
    """Everything the control shows for one state."""

    hit_k: int
    ranks: Mapping[Key, int]  # the pickers' values
    queries: Mapping[Key, QueryResult]
    systems: Mapping[str, SystemResult]
    verdict: str  # what the comparison shows, or ""

    def values(self) -> dict:
        """The numbers as plain values: hit_k, and per system first_ranks, reciprocal_ranks, mrr, hit_rate."""
        values: dict = {"hit_k": self.hit_k}
        for system, numbers in self.systems.items():
            values[system] = {
                "first_ranks": list(numbers.first_ranks),
                "reciprocal_ranks": list(numbers.reciprocal_ranks),
                "mrr": numbers.mrr,
                "hit_rate": numbers.hit_rate,
            }
        return values


def compute(setup: MrrSetup, state: MrrState) -> MrrResult:
    """RR per question, MRR and hit rate@k per system for a state, through helpers.metrics."""
    queries = {}
    for key in setup.rankings:
        now = ranking(setup, state, key)
        relevant = setup.relevant[key[1]]
        queries[key] = QueryResult(
            tuple(now), metrics.first_relevant_rank(now, relevant), metrics.reciprocal_rank(now, relevant)
        )
    systems = {}
    for system in setup.systems:
        first_ranks = [queries[system, query].first_rank for query in setup.query_ids]
        systems[system] = SystemResult(
            first_ranks=tuple(first_ranks),
            reciprocal_ranks=tuple(queries[system, query].reciprocal_rank for query in setup.query_ids),
            mrr=metrics.mean_reciprocal_rank(first_ranks),
            hit_rate=metrics.mean_hit_rate(first_ranks, state.hit_k),
        )
    return MrrResult(state.hit_k, state.ranks, queries, systems, verdict(systems.values()))


def verdict(results: Iterable[SystemResult]) -> str:
    """The lesson's point when the systems tie on hit rate but not on MRR, else ''."""
    results = list(results)
    hit_rates = {round(result.hit_rate, 12) for result in results}
    mrrs = {round(result.mrr, 12) for result in results}
    if len(hit_rates) == 1 and len(mrrs) > 1:
        return (
            "Same hit rate, different MRR: hit rate only asks whether a relevant passage is in the top k, "
            "MRR also asks how high."
        )
    return ""
