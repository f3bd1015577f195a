"""The nDCG worksheet (lesson 03, example C) as pure data: the grades typed in, k and the gain form.

:func:`compute` gives DCG@k, IDCG@k and NDCG@k (ideal from every judged
document, the missed one included) and, beside them, nDCG with the ideal from
the returned results only: the mistake the lesson warns about. No ipywidgets
here; the worksheet itself is drawn by :func:`helpers.sheet.ndcg_worksheet`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from helpers import metrics
from helpers._checks import check_k, check_whole
from helpers.data import Example
from helpers.metrics import Gain
from helpers.widgets._arithmetic import (
    UNDEFINED_NDCG,
    check_at_most,
    check_gain,
    metric_text,
    or_none,
    value_text,
)

MAX_GRADE = 3


@dataclass(frozen=True)
class WorksheetState:
    """What the learner set in lesson 03."""

    grades: tuple[int, ...]  # of the returned results, in rank order
    missed_grades: tuple[int, ...]  # of the judged documents the search missed
    k: int
    gain: Gain
    show_formulas: bool = False


@dataclass(frozen=True)
class WorksheetSetup:
    """One query of an example: the returned ids, the missed judged ids, and the opening state."""

    query_text: str
    ids: tuple[str, ...]
    missed_ids: tuple[str, ...]
    opening: WorksheetState


def worksheet_setup(
    data: Example, query: str | None = None, system: str | None = None, k: int = 5
) -> WorksheetSetup:
    """The worksheet of one query and system (lesson 03: example C); k stops at the number of results."""
    query = data.query_ids[0] if query is None else query
    system = data.systems[0] if system is None else system
    judgments = data.judgments_for(query)
    ids = tuple(data.ranking(system, query))
    missed = tuple(doc_id for doc_id, grade in judgments.items() if doc_id not in ids and grade > 0)
    opening = WorksheetState(
        grades=tuple(int(judgments.get(doc_id, 0)) for doc_id in ids),
        missed_grades=tuple(int(judgments[doc_id]) for doc_id in missed),
        k=min(check_k(k, allow_none=False), len(ids)),
        gain="linear",
    )
    return WorksheetSetup(data.query_text(query), ids, missed, opening)


# --- the transitions -----------------------------------------------------------


def _grade(grade: int) -> int:
    return check_at_most(check_whole(grade, "grade", minimum=0), MAX_GRADE, "grade")


def with_grade(setup: WorksheetSetup, state: WorksheetState, grade: int, *, rank: int) -> WorksheetState:
    """The grade of the result at ``rank`` (1-based) typed in (0..3)."""
    index = check_at_most(check_whole(rank, "rank"), len(setup.ids), "rank") - 1
    grades = list(state.grades)
    grades[index] = _grade(grade)
    return replace(state, grades=tuple(grades))


def with_missed_grade(
    setup: WorksheetSetup, state: WorksheetState, grade: int, *, number: int
) -> WorksheetState:
    """The grade of the ``number``-th missed document (1-based) typed in (0..3)."""
    index = check_at_most(check_whole(number, "number"), len(setup.missed_ids), "missed number") - 1
    grades = list(state.missed_grades)
    grades[index] = _grade(grade)
    return replace(state, missed_grades=tuple(grades))


def with_k(setup: WorksheetSetup, state: WorksheetState, k: int) -> WorksheetState:
    """k moved (1..the number of returned results)."""
    return replace(state, k=check_at_most(check_k(k, allow_none=False), len(setup.ids), "k"))


def with_gain(setup: WorksheetSetup, state: WorksheetState, gain: str) -> WorksheetState:
    """The gain form switched: linear or exponential."""
    return replace(state, gain=check_gain(gain))


def with_formulas(setup: WorksheetSetup, state: WorksheetState, shown: bool) -> WorksheetState:
    """The worksheet shows its formulas (True) or its values (False)."""
    return replace(state, show_formulas=bool(shown))


# --- compute ---------------------------------------------------------------------


@dataclass(frozen=True)
class WorksheetResult:
    """The worksheet's numbers for one state (None where undefined) and the labels beside it."""

    k: int
    gain: Gain
    grades: tuple[int, ...]
    missed_grades: tuple[int, ...]
    show_formulas: bool
    dcg: float
    idcg: float
    ndcg: float | None
    ndcg_returned_only: float | None  # the mistake: the ideal from the returned results alone
    labels: dict[str, str]  # dcg, idcg, ndcg, ndcg-returned

    def values(self) -> dict:
        """The numbers as plain values."""
        names = ("k", "gain", "dcg", "idcg", "ndcg", "ndcg_returned_only")
        return {
            **{name: getattr(self, name) for name in names},
            "grades": list(self.grades),
            "missed_grades": list(self.missed_grades),
        }


def compute(setup: WorksheetSetup, state: WorksheetState) -> WorksheetResult:
    """DCG@k, IDCG@k, NDCG@k and the returned-only NDCG@k of a state, through helpers.metrics (3 decimals)."""
    k, gain = state.k, state.gain
    grades = [float(grade) for grade in state.grades]
    judged = grades + [float(grade) for grade in state.missed_grades]
    dcg, idcg = metrics.dcg(grades, k, gain), metrics.ideal_dcg(judged, k, gain)
    ndcg = or_none(metrics.ndcg, grades, k, ideal=judged, gain=gain)
    returned_only = or_none(metrics.ndcg, grades, k, ideal=grades, gain=gain)
    return WorksheetResult(
        k=k,
        gain=gain,
        grades=state.grades,
        missed_grades=state.missed_grades,
        show_formulas=state.show_formulas,
        dcg=dcg,
        idcg=idcg,
        ndcg=ndcg,
        ndcg_returned_only=returned_only,
        labels={
            "dcg": metric_text(f"DCG@{k}", dcg, "", 3),
            "idcg": metric_text(f"IDCG@{k}", idcg, "", 3),
            "ndcg": metric_text(f"NDCG@{k}", ndcg, UNDEFINED_NDCG, 3),
            "ndcg-returned": "ideal from returned results only (the mistake): "
            + value_text(returned_only, 3),
        },
    )
