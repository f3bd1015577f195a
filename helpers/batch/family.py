"""Lesson 06's metric family, declared once: the question each member answers, when to reach for it, its value.

A member that ``evaluate`` computes names its measure (``nDCG(gain=exp)@{k}``): whether it uses grades and its
value come from that measure's declaration in :mod:`helpers.batch.registry` (its kind, its single-query
formula). DCG, which ``evaluate`` does not compute, states both here. What no declaration holds, the question a
member answers, whether it uses the order and when to reach for it, is written here once, not in the lesson.
``user_models`` shows, rank by rank, the reader behind DCG, RR, RBP and ERR (lesson 06, step 9).

>>> values = family_values(["kb02", "kb09", "kb21"], {"kb09": 3, "kb21": 1}, k=2)
>>> values["P@2"], values["RR"]
(0.5, 0.5)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from helpers import metrics
from helpers.batch._engine import ERR_MAX_GRADE
from helpers.batch.measures import parse_measure
from helpers.batch.registry import OneQuery, declaration_of


@dataclass(frozen=True)
class Member:
    """One metric of lesson 06's family; ``{k}`` in its label and measure stands for the lesson's cut-off."""

    label: str
    question: str
    uses_order: bool
    reach_for_it_when: str
    decimals: int
    measure: str | None = None  # evaluate's name; None for a metric evaluate does not compute
    graded: bool | None = None  # only without a measure: whether it uses the grades
    value: Callable[[list[float], int], float] | None = None  # only without a measure: (grades, k) -> value


def _dcg_exponential(grades: list[float], k: int) -> float:
    return metrics.dcg(grades, k, gain="exponential")


FAMILY = (
    Member("CG@{k}", "how much relevance is in the top K, in any order?", False,
           "when order truly does not matter (rare): a sanity check", 0, measure="CG@{k}"),
    Member("DCG@{k} (exponential)", "how much relevance, weighted by position?", True,
           "inside nDCG; never average it across queries", 3, graded=True, value=_dcg_exponential),
    Member("nDCG@{k} (exponential)", "how close is the order to the best possible one?", True,
           "graded judgments and several useful results", 3, measure="nDCG(gain=exp)@{k}"),
    Member("nDCG@{k} (linear)", "the same, with the grade itself as gain", True,
           "the same; say which gain you used", 3, measure="nDCG@{k}"),
    Member("P@{k}", "how much of the top K is relevant?", False,
           "a short list the user reads in full", 3, measure="P@{k}"),
    Member("R@{k} over R", "how much of everything relevant is in the top K?", False,
           "RAG: a chunk never retrieved cannot be used", 4, measure="R@{k}"),
    Member("AP (over R)", "precision at every relevant rank, averaged", True,
           "several relevant items, binary judgments (MAP over queries)", 4, measure="AP"),
    Member("AP@{k} (over R)", "the same, stopping at rank K", True,
           "the same, when only the top K is shown", 4, measure="AP@{k}"),
    Member("Hit@1", "is a relevant item within the top K?", False,
           "did the reader (or the LLM) get any chance at all?", 0, measure="Hit@1"),
    Member("RR", "how high is the first relevant item?", True,
           "one good answer is enough (navigational search, FAQ)", 3, measure="RR"),
    Member("RBP (p = 0.8)", "how much relevance does a reader collect who goes on with probability p?", True,
           "you can say how patient your readers are; report its residual with it", 3, measure="RBP(p=0.8)"),
    Member("ERR", "how likely is the reader to stop satisfied, and how early?", True,
           "graded judgments, and one very good result ends the search", 3, measure="ERR"),
)
YES_NO = {True: "yes", False: "no"}


def measure_value(name: str, ranked: Sequence, judgments: Mapping) -> float:
    """One query's value of a measure of ``evaluate``, by its declared single-query formula (lessons 06, 09)."""
    measure = parse_measure(name)
    query = OneQuery(list(ranked), {doc: float(grade) for doc, grade in judgments.items()})
    return float(declaration_of(measure.name).formula(measure, query))


def _not_negative(judgments: Mapping) -> dict:
    """The judgments with negative grades as 0, as ``evaluate`` gains them (judged, not relevant)."""
    return {doc: max(float(grade), 0.0) for doc, grade in judgments.items()}


def _uses_grades(member: Member) -> bool:
    if member.measure is None:
        return bool(member.graded)
    return declaration_of(parse_measure(member.measure.format(k=1)).name).kind == "graded"


def family_values(ranked: Sequence, judgments: Mapping, k: int) -> dict[str, float]:
    """Each member's value for one ranked list, by its label at cut-off k (lesson 06)."""
    grades = metrics.grades_in_rank_order(ranked, _not_negative(judgments))
    values = {}
    for member in FAMILY:
        if member.measure is not None:
            values[member.label.format(k=k)] = measure_value(member.measure.format(k=k), ranked, judgments)
        elif member.value is not None:
            values[member.label.format(k=k)] = member.value(grades, k)
    return values


def family_table(ranked: Sequence, judgments: Mapping, k: int, query: str = "value") -> pd.DataFrame:
    """The family side by side: question, what it uses, when to reach for it, evaluate's name, value (lesson 06)."""
    values = family_values(ranked, judgments, k)
    rows = [
        {
            "metric": member.label.format(k=k),
            "question it answers": member.question,
            "uses grades": YES_NO[_uses_grades(member)],
            "uses order": YES_NO[member.uses_order],
            "reach for it when": member.reach_for_it_when,
            "in evaluate": str(parse_measure(member.measure.format(k=k))) if member.measure else "—",
            query: f"{values[member.label.format(k=k)]:.{member.decimals}f}",
        }
        for member in FAMILY
    ]
    return pd.DataFrame(rows).set_index("metric")


def user_models(ranked: Sequence, judgments: Mapping, p: float = 0.8) -> pd.DataFrame:
    """Rank by rank, what each reader gives a ranked list: DCG's discount, RR's stop, RBP's patience p, ERR's cascade.

    The gain columns add up to RR, RBP (rel=1) and ERR over the whole list, as ``evaluate`` computes them (lesson 06).
    """
    judgments = _not_negative(judgments)
    grades = metrics.grades_in_rank_order(ranked, judgments)
    first = metrics.first_relevant_rank(ranked, metrics.relevant_ids(judgments))
    rows, reaches = [], 1.0
    for rank, (doc, grade) in enumerate(zip(ranked, grades, strict=True), start=1):
        stops = (2**grade - 1) / 2**ERR_MAX_GRADE  # ERR's formula in the registry
        rbp_weight = (1 - p) * p ** (rank - 1)
        rows.append({"rank": rank, "id": doc, "grade": grade, "DCG weight": 1 / metrics.discount(rank),
                     "RR gain": 1 / rank if rank == first else 0.0, "RBP weight": rbp_weight,
                     "RBP gain": rbp_weight if grade >= 1 else 0.0, "ERR reaches": reaches, "ERR stops": stops,
                     "ERR gain": reaches * stops / rank})
        reaches *= 1 - stops
    return pd.DataFrame(rows).set_index("rank")
