"""nDCG by hand (lesson 02, example B) as pure data: where the relevant passages sit and their grades.

The passages judged relevant in the data (D11 and D4 in example B) can be
moved (a rank, or out of the list) and regraded (0..3); the others keep the
order of the starting system. Moving one onto the other's rank swaps them. The
ideal is built from every judged document with the grades set now (a removed
passage stays in the ideal). No ipywidgets here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from helpers import metrics
from helpers._checks import check_choice, check_k, check_whole
from helpers.data import Example
from helpers.metrics import Gain
from helpers.widgets._arithmetic import (
    UNDEFINED_NDCG,
    Row,
    arithmetic_rows,
    check_at_most,
    check_gain,
    dcg_formula,
    metric_text,
    move_to,
    ndcg_ratio,
    or_none,
)

MAX_GRADE = 3


@dataclass(frozen=True)
class NdcgState:
    """What the learner set in lesson 02 (read-only: each action makes a new state)."""

    start: str  # the system whose order the list started from
    order: tuple[str, ...]  # the ranked list now
    grades: Mapping[str, int]  # the movable passages' grades now
    k: int
    gain: Gain


@dataclass(frozen=True)
class NdcgSetup:
    """One query of an example: its judgments, the movable passages and each system's starting order."""

    query: str
    query_text: str
    judged: Mapping[str, float]  # doc_id -> grade in the data
    movable: tuple[str, ...]  # the passages judged relevant
    starts: Mapping[str, tuple[str, ...]]  # system -> its ranking in the data
    n: int  # the longest list: ranks and k run up to it
    opening: NdcgState


def ndcg_setup(data: Example, query: str | None = None, start: str = "swapped", k: int = 5) -> NdcgSetup:
    """The control's setup for one query (lesson 02: example B); ``start`` falls back to the first system."""
    query = data.query_ids[0] if query is None else query
    judged = data.judgments_for(query)
    movable = tuple(doc_id for doc_id, grade in judged.items() if grade > 0)
    starts = {system: tuple(data.ranking(system, query)) for system in data.systems}
    n = max(len(order) for order in starts.values())
    start = start if start in starts else data.systems[0]
    grades = {doc_id: int(judged[doc_id]) for doc_id in movable}
    opening = NdcgState(start, starts[start], grades, min(check_k(k, allow_none=False), n), "linear")
    return NdcgSetup(query, data.query_text(query), judged, movable, starts, n, opening)


# --- the transitions -----------------------------------------------------------


def start_from(setup: NdcgSetup, state: NdcgState, system: str) -> NdcgState:
    """The list reloaded from a system's order (the grades set stay)."""
    system = check_choice(system, list(setup.starts), "start")
    return replace(state, start=system, order=setup.starts[system])


def move(setup: NdcgSetup, state: NdcgState, rank: int, *, doc_id: str) -> NdcgState:
    """A movable passage moved to ``rank`` (0 = not returned); onto the other movable one, they swap."""
    check_choice(doc_id, setup.movable, "passage")
    rank = check_at_most(check_whole(rank, "rank", minimum=0), setup.n, "rank")
    old_rank = position(state.order, doc_id)
    occupant = state.order[rank - 1] if 0 < rank <= len(state.order) else None
    order = move_to(state.order, doc_id, rank)
    if occupant in setup.movable and occupant != doc_id and old_rank:
        order = move_to(order, occupant, old_rank)
    return replace(state, order=tuple(order))


def with_grade(setup: NdcgSetup, state: NdcgState, grade: int, *, doc_id: str) -> NdcgState:
    """A movable passage regraded (0..3)."""
    check_choice(doc_id, setup.movable, "passage")
    grade = check_at_most(check_whole(grade, "grade", minimum=0), MAX_GRADE, "grade")
    return replace(state, grades={**state.grades, doc_id: grade})


def with_k(setup: NdcgSetup, state: NdcgState, k: int) -> NdcgState:
    """k moved (1..the longest list)."""
    return replace(state, k=check_at_most(check_k(k, allow_none=False), setup.n, "k"))


def with_gain(setup: NdcgSetup, state: NdcgState, gain: str) -> NdcgState:
    """The gain form switched: linear or exponential."""
    return replace(state, gain=check_gain(gain))


def position(order: tuple[str, ...], doc_id: str) -> int:
    """The rank of an id in a list (1-based), 0 when it is not there."""
    return order.index(doc_id) + 1 if doc_id in order else 0


# --- compute ---------------------------------------------------------------------


@dataclass(frozen=True)
class NdcgResult:
    """Everything the control shows for one state."""

    k: int
    gain: Gain
    start: str
    ranking: tuple[str, ...]
    grades: tuple[float, ...]  # in rank order
    positions: Mapping[str, int]  # movable passage -> its rank now (0 = not returned)
    passage_grades: Mapping[str, int]  # movable passage -> its grade now
    dcg: float
    idcg: float
    ndcg: float | None
    rows: tuple[Row, ...]
    labels: dict[str, str]  # dcg, idcg, ndcg
    formula_lines: tuple[str, ...]
    table_title: str
    plot_top: float  # the largest gain a grade can have

    def values(self) -> dict:
        """The numbers as plain values (None where undefined)."""
        return {
            "k": self.k,
            "gain": self.gain,
            "ranking": list(self.ranking),
            "grades": list(self.grades),
            "dcg": self.dcg,
            "idcg": self.idcg,
            "ndcg": self.ndcg,
        }


def compute(setup: NdcgSetup, state: NdcgState) -> NdcgResult:
    """DCG@k, ideal DCG@k and nDCG@k of the list now, with the arithmetic, through helpers.metrics."""
    k, gain = state.k, state.gain
    judgments: dict[metrics.DocId, float] = {
        doc_id: float(state.grades.get(doc_id, grade)) for doc_id, grade in setup.judged.items()
    }
    grades = metrics.grades_in_rank_order(state.order, judgments)
    ideal = list(judgments.values())
    rows = arithmetic_rows(grades or [0.0], k, ideal, gain, state.order or None)
    dcg, idcg = metrics.dcg(grades, k, gain), metrics.ideal_dcg(ideal, k, gain)
    ndcg = or_none(metrics.ndcg, grades, k, ideal=ideal, gain=gain)
    return NdcgResult(
        k=k,
        gain=gain,
        start=state.start,
        ranking=state.order,
        grades=tuple(grades),
        positions={doc_id: position(state.order, doc_id) for doc_id in setup.movable},
        passage_grades=dict(state.grades),
        dcg=dcg,
        idcg=idcg,
        ndcg=ndcg,
        rows=rows,
        labels={
            "dcg": metric_text(f"DCG@{k}", dcg, ""),
            "idcg": metric_text(f"ideal DCG@{k}", idcg, ""),
            "ndcg": metric_text(f"nDCG@{k}", ndcg, UNDEFINED_NDCG),
        },
        formula_lines=(
            f"DCG@{k} = {dcg_formula(rows, gain)} = {dcg:.4f}",
            f"ideal DCG@{k} = {dcg_formula(rows, gain, ideal=True)} = {idcg:.4f}",
            f"nDCG@{k} = {ndcg_ratio(dcg, idcg, ndcg)}",
        ),
        table_title=f"The arithmetic, rank by rank ({gain} gain, k = {k})",
        plot_top=metrics.gain_of(MAX_GRADE, gain),
    )
