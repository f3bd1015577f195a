"""The metrics lab of lesson 05 as pure data: what the learner set, and every number and text it shows.

- :class:`LabSetup`: what the lab is about (results, missed documents, grade scale, K's range);
- :class:`LabState`: everything the learner can set (grades, K, gain, ideal, threshold, formulas shown);
- the transitions (:func:`click_grade`, :func:`with_k`, :func:`reset`, ...) each return a new state;
- :func:`compute` turns a state into a :class:`LabResult` through :mod:`helpers.metrics`.

No ipywidgets here: :mod:`helpers.widgets.lab_view` draws the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from helpers import metrics
from helpers._checks import check_grades, check_k, check_ranking, check_whole
from helpers.data import Example
from helpers.metrics import Gain, Ideal
from helpers.widgets import lab_text
from helpers.widgets._arithmetic import (
    UNDEFINED_NDCG,
    UNDEFINED_RECALL,
    Row,
    arithmetic_rows,
    check_at_most,
    check_gain,
    check_ideal,
    grade_name,
    metric_text,
    or_none,
)
from helpers.widgets.lab_text import LabNumbers, Note

Judged = tuple[str, str, int]  # (doc_id, title, grade)


@dataclass(frozen=True)
class LabState:
    """Everything the learner can set in the lab (lesson 05)."""

    grades: tuple[int, ...]  # of the results, in rank order
    missed_grades: tuple[int, ...]  # of the judged documents the system did not return
    k: int
    gain: Gain
    ideal: Ideal
    threshold: int  # grade >= threshold counts as relevant for Recall and MRR
    show_formulas: bool = False  # the arithmetic sheet shows its formulas instead of values


@dataclass(frozen=True)
class LabSetup:
    """What the lab is about and the learner cannot change: the documents, the grade scale, K's range."""

    ids: tuple[str, ...]
    titles: tuple[str, ...]
    missed_ids: tuple[str, ...]
    missed_titles: tuple[str, ...]
    max_grade: int
    max_k: int
    opening: LabState


def lab_setup(
    results: Sequence[Judged],
    missed: Sequence[Judged] = (),
    *,
    k: int = 3,
    gain: str = "exponential",
    ideal: str = "judged",
    threshold: int = 1,
    max_grade: int | None = None,
    max_k: int | None = None,
) -> LabSetup:
    """The lab for results (doc_id, title, grade) in rank order and the judged documents the system missed.

    Grades run from 0 to ``max_grade`` (default: the highest grade given, at
    least 2); K runs from 1 to ``max_k`` (default: the number of results).
    """
    listed, not_returned = (
        [_judged(row, "results") for row in results],
        [_judged(row, "missed") for row in missed],
    )
    if not listed:
        raise ValueError("the lab needs at least one result")
    check_ranking([doc_id for doc_id, _, _ in listed + not_returned])
    grades = whole_grades([grade for _, _, grade in listed], "grades")
    missed_grades = whole_grades([grade for _, _, grade in not_returned], "missed grades")
    top = max([2, *grades, *missed_grades]) if max_grade is None else check_whole(max_grade, "max_grade")
    check_at_most(max(grades + missed_grades), top, "a grade")
    last_k = len(listed) if max_k is None else check_k(max_k, allow_none=False)
    first_k = min(check_k(k, allow_none=False), last_k)
    level = check_at_most(check_whole(threshold, "threshold"), top, "threshold")
    opening = LabState(grades, missed_grades, first_k, check_gain(gain), check_ideal(ideal), level)
    return LabSetup(
        ids=tuple(doc_id for doc_id, _, _ in listed),
        titles=tuple(title for _, title, _ in listed),
        missed_ids=tuple(doc_id for doc_id, _, _ in not_returned),
        missed_titles=tuple(title for _, title, _ in not_returned),
        max_grade=top,
        max_k=last_k,
        opening=opening,
    )


def example_documents(data: Example, query: str, system: str) -> tuple[list[Judged], list[Judged]]:
    """A system's results for a query and the relevant judged documents it missed, as (id, title, grade)."""
    judgments = data.judgments_for(query)
    ranking = data.ranking(system, query)
    results = [(doc_id, data.title(doc_id), int(judgments.get(doc_id, 0))) for doc_id in ranking]
    missed = [
        (doc_id, data.title(doc_id), int(grade))
        for doc_id, grade in judgments.items()
        if doc_id not in ranking and grade > 0
    ]
    return results, missed


def _judged(row: Sequence[object], name: str) -> tuple[str, str, object]:
    if isinstance(row, str | bytes) or len(row) != 3:
        raise TypeError(f"each of the {name} is (doc_id, title, grade), got {row!r}")
    doc_id, title, grade = row
    return str(doc_id), str(title), grade


def whole_grades(grades: Sequence[object], name: str) -> tuple[int, ...]:
    """Return the grades as ints after checking each is a whole number >= 0 (helpers._checks)."""
    checked = check_grades(grades, name)
    for rank, grade in enumerate(checked, start=1):
        if not grade.is_integer():
            raise TypeError(
                f"{name}: the value at rank {rank} is {grade:g}; the lab's grades are whole numbers"
            )
    return tuple(int(grade) for grade in checked)


# --- the transitions: one user action -> the next state -----------------------


def next_grade(grade: int, max_grade: int) -> int:
    """The grade a click gives: 0 -> 1 -> ... -> max_grade -> 0."""
    return (grade + 1) % (max_grade + 1)


def click_grade(setup: LabSetup, state: LabState, rank: int) -> LabState:
    """A click on the grade of the result at ``rank`` (1-based)."""
    index = check_at_most(check_whole(rank, "rank"), len(setup.ids), "rank") - 1
    grades = list(state.grades)
    grades[index] = next_grade(grades[index], setup.max_grade)
    return replace(state, grades=tuple(grades))


def click_missed(setup: LabSetup, state: LabState, number: int) -> LabState:
    """A click on the grade of the ``number``-th missed document (1-based)."""
    index = check_at_most(check_whole(number, "number"), len(setup.missed_ids), "missed number") - 1
    grades = list(state.missed_grades)
    grades[index] = next_grade(grades[index], setup.max_grade)
    return replace(state, missed_grades=tuple(grades))


def with_grades(
    setup: LabSetup, state: LabState, grades: Sequence[object], missed: Sequence[object] | None = None
) -> LabState:
    """Every result's grade at once, in rank order (and the missed documents' grades, when given)."""
    new = whole_grades(grades, "grades")
    new_missed = state.missed_grades if missed is None else whole_grades(missed, "missed grades")
    if len(new) != len(setup.ids) or len(new_missed) != len(setup.missed_ids):
        raise ValueError(f"expected {len(setup.ids)} grades and {len(setup.missed_ids)} missed grades")
    if max(new + new_missed, default=0) > setup.max_grade:
        raise ValueError(f"grades run from 0 to {setup.max_grade} in this lab")
    return replace(state, grades=new, missed_grades=new_missed)


def with_k(setup: LabSetup, state: LabState, k: int) -> LabState:
    """K moved (1..max_k)."""
    return replace(state, k=check_at_most(check_k(k, allow_none=False), setup.max_k, "K"))


def with_gain(setup: LabSetup, state: LabState, gain: str) -> LabState:
    """The gain form switched: linear (gain = grade) or exponential (2^grade − 1)."""
    return replace(state, gain=check_gain(gain))


def with_ideal(setup: LabSetup, state: LabState, ideal: str) -> LabState:
    """The ideal switched: every judged document, or the returned results only."""
    return replace(state, ideal=check_ideal(ideal))


def with_threshold(setup: LabSetup, state: LabState, threshold: int) -> LabState:
    """The relevance threshold of Recall and MRR switched (1..max_grade)."""
    return replace(
        state, threshold=check_at_most(check_whole(threshold, "threshold"), setup.max_grade, "threshold")
    )


def with_formulas(setup: LabSetup, state: LabState, shown: bool) -> LabState:
    """The arithmetic sheet shows its formulas (True) or its values (False)."""
    return replace(state, show_formulas=bool(shown))


def reset(setup: LabSetup, state: LabState, _value: object = None) -> LabState:
    """Back to the data's grades and the lab's opening conventions (formulas stay shown or hidden)."""
    return replace(setup.opening, show_formulas=state.show_formulas)


# --- compute: a state -> every number and text the lab shows -------------------


@dataclass(frozen=True)
class Listed:
    """One document in the lab's list: its grade button's text and how its row looks."""

    doc_id: str
    title: str
    grade: int
    button: str  # e.g. "2 · answers it"
    counted: bool  # within the top K (a result; False for a missed document)
    relevant: bool  # grade >= threshold


@dataclass(frozen=True)
class LabResult:
    """Everything the lab shows for one state; the view only lays it out."""

    numbers: LabNumbers
    results: tuple[Listed, ...]
    missed: tuple[Listed, ...]
    labels: dict[str, str]  # recall, mrr, mrr-k, ndcg
    formula_lines: tuple[str, ...]
    k_note: Note
    gain_note: Note
    ideal_note: Note
    threshold_note: Note
    rows: tuple[Row, ...]  # the arithmetic table
    table_title: str
    sheet_ideal_range: (
        str | None
    )  # the cells whose LARGE values are the ideal grades (None: not on the sheet)
    show_formulas: bool
    plot_top: float  # the largest gain a grade can have: the plot's y-axis

    @property
    def formula_text(self) -> str:
        """The formula lines as one text."""
        return "\n".join(self.formula_lines)

    def values(self) -> dict:
        """The numbers as plain, JSON-serialisable values (what the lab's ``metric_values`` shows)."""
        return self.numbers.values()


def compute(setup: LabSetup, state: LabState) -> LabResult:
    """Every number and text of the lab for a state, through helpers.metrics."""
    numbers = lab_numbers(setup, state)
    grades = [float(grade) for grade in state.grades]
    rows = arithmetic_rows(grades, state.k, [float(g) for g in numbers.ideal_grades], state.gain, setup.ids)
    k = state.k
    whole_column = f"$C$2:$C${len(setup.ids) + 1}"
    return LabResult(
        numbers=numbers,
        results=_listed(setup, setup.ids, setup.titles, state.grades, numbers, counted=k),
        missed=_listed(setup, setup.missed_ids, setup.missed_titles, state.missed_grades, numbers, counted=0),
        labels={
            "recall": metric_text(f"Recall@{k}", numbers.recall, UNDEFINED_RECALL),
            "mrr": metric_text("MRR", numbers.mrr, ""),
            "mrr-k": metric_text(f"MRR@{k}", numbers.mrr_at_k, ""),
            "ndcg": metric_text(f"nDCG@{k}", numbers.ndcg, UNDEFINED_NDCG),
        },
        formula_lines=lab_text.formula_lines(setup.ids, numbers, rows),
        k_note=lab_text.k_note(k, len(setup.ids)),
        gain_note=lab_text.gain_note(state.gain, setup.opening.gain),
        ideal_note=lab_text.ideal_note(state.ideal, len(setup.ids), len(setup.missed_ids)),
        threshold_note=lab_text.threshold_note(state.threshold, setup.max_grade),
        rows=rows,
        table_title=f"The arithmetic, rank by rank ({state.gain} gain, K = {k})",
        sheet_ideal_range=whole_column if state.ideal == "returned" or not setup.missed_ids else None,
        show_formulas=state.show_formulas,
        plot_top=metrics.gain_of(setup.max_grade, state.gain),
    )


def lab_numbers(setup: LabSetup, state: LabState) -> LabNumbers:
    """Recall@K, MRR, MRR@K, DCG@K, IDCG@K and nDCG@K of a state (None where undefined)."""
    k, gain = state.k, state.gain
    grades = [float(grade) for grade in state.grades]
    ideal_grades = grades + [float(g) for g in state.missed_grades] if state.ideal == "judged" else grades
    everyone = setup.ids + setup.missed_ids
    judgments: dict[metrics.DocId, float] = dict(
        zip(everyone, state.grades + state.missed_grades, strict=True)
    )
    relevant = metrics.relevant_ids(judgments, state.threshold)
    first = metrics.first_relevant_rank(setup.ids, relevant)
    return LabNumbers(
        k=k,
        gain=gain,
        ideal=state.ideal,
        threshold=state.threshold,
        grades=state.grades,
        missed_grades=state.missed_grades,
        ideal_grades=tuple(sorted((int(grade) for grade in ideal_grades), reverse=True)),
        relevant=tuple(doc_id for doc_id in everyone if doc_id in relevant),
        found_in_top_k=tuple(doc_id for doc_id in setup.ids[:k] if doc_id in relevant),
        recall=or_none(metrics.recall_at_k, setup.ids, relevant, k),
        first_relevant_rank=first,
        mrr=metrics.mean_reciprocal_rank([first]),
        mrr_at_k=metrics.mean_reciprocal_rank([first], k),
        dcg=metrics.dcg(grades, k, gain),
        idcg=metrics.ideal_dcg(ideal_grades, k, gain),
        ndcg=or_none(metrics.ndcg, grades, k, ideal=ideal_grades, gain=gain),
    )


def _listed(
    setup: LabSetup,
    ids: Sequence[str],
    titles: Sequence[str],
    grades: Sequence[int],
    numbers: LabNumbers,
    counted: int,
) -> tuple[Listed, ...]:
    """The list's entries: the first ``counted`` of them are within the top K."""
    return tuple(
        Listed(
            doc_id=doc_id,
            title=title,
            grade=grade,
            button=f"{grade} · {grade_name(grade, setup.max_grade)}",
            counted=rank <= counted,
            relevant=doc_id in numbers.relevant,
        )
        for rank, (doc_id, title, grade) in enumerate(zip(ids, titles, grades, strict=True), start=1)
    )
