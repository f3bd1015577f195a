"""Ranking metrics for one query, written to be read next to the formulas.

Conventions (the collection's stated defaults, each one a parameter):

- ranks count from 1; a miss scores 0;
- discount(rank) = log2(rank + 1), so rank 1 is divided by 1;
- gain "linear" = the grade, gain "exponential" = 2**grade - 1;
- the ideal ranking sorts the grades of *every judged document* of the query,
  also those the system never returned, and is cut at k;
- a document is relevant for the binary metrics when its grade >= 1
  (``threshold``);
- AP and recall divide by R, the number of relevant documents; min(k, R) is
  a named option (``denominator="min_k_R"``).

Every function validates its input first and raises ``ValueError`` or
``TypeError`` with a message that says what is wrong.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from typing import Any, Literal, ParamSpec, TypeVar, get_args

import pandas as pd

from helpers._checks import (
    check_choice,
    check_exponential_grades,
    check_first_rank,
    check_first_ranks,
    check_grades,
    check_ideal_holds_returned,
    check_judgments,
    check_k,
    check_ranking,
    check_relevant,
    check_threshold,
    check_whole,
)

# The options of the metrics, named once: a type checker sees a typo such as gain="exp".
Gain = Literal["linear", "exponential"]
Ideal = Literal["judged", "returned"]
Denominator = Literal["R", "min_k_R"]
GAINS: tuple[str, ...] = get_args(Gain)
IDEALS: tuple[str, ...] = get_args(Ideal)
DENOMINATORS: tuple[str, ...] = get_args(Denominator)

DocId = Hashable
Ranking = Sequence[DocId]
Grades = Iterable[float]

# The metrics and their options; the input checks they call live in helpers._checks, not here.
__all__ = [
    "DENOMINATORS", "GAINS", "IDEALS", "Denominator", "Gain", "Ideal", "UndefinedMetricError",
    "arithmetic_table", "average_precision", "cumulative_gain", "cut", "dcg", "discount", "first_relevant_rank",
    "gain_of", "grades_in_rank_order", "hit_at_k", "ideal_dcg", "mean_hit_rate", "mean_reciprocal_rank", "ndcg",
    "precision_at_k", "query_ndcg", "recall_at_k", "reciprocal_rank", "reciprocal_rank_of", "relevant_ids",
]


P = ParamSpec("P")
S = TypeVar("S")


class UndefinedMetricError(ValueError):
    """Raised when a metric has no defined value, e.g. nDCG of a query with no relevant document."""


def value_or(stand_in: S, metric: Callable[P, float], *args: P.args, **kwargs: P.kwargs) -> float | S:
    """The metric's value, or ``stand_in`` where it is undefined (a sheet's text, a plot's gap, a widget's None).

    Only an undefined value is replaced: a wrong input still raises.

    >>> value_or("undefined", ndcg, [0, 0], 2), value_or(None, ndcg, [1, 0], 2)
    ('undefined', 1.0)
    """
    try:
        return metric(*args, **kwargs)
    except UndefinedMetricError:
        return stand_in


def cut(values: list, k: int | None) -> list:
    """The first k values of a list (all of them when k is None)."""
    return values if k is None else values[:k]


# --- from judgments to grades ---------------------------------------------


def grades_in_rank_order(ranked: Ranking, judgments: Mapping[Any, float]) -> list[float]:
    """Grades of the ranked ids, looked up in the judgments; unjudged ids get 0 (lessons 02, 03).

    Parameters: ``ranked`` ids in rank order, ``judgments`` a mapping id -> grade.

    >>> grades_in_rank_order(["D4", "D9", "D11"], {"D11": 3, "D4": 2})
    [2.0, 0.0, 3.0]
    """
    ranked, judgments = check_ranking(ranked), check_judgments(judgments)
    return [float(judgments.get(doc_id, 0)) for doc_id in ranked]


def relevant_ids(judgments: Mapping[Any, float], threshold: float = 1) -> frozenset:
    """The ids whose grade is at least ``threshold`` (lessons 01, 06).

    >>> sorted(relevant_ids({"D1": 0, "D2": 1, "D3": 2}, threshold=2))
    ['D3']
    """
    judgments, threshold = check_judgments(judgments), check_threshold(threshold)
    return frozenset(doc_id for doc_id, grade in judgments.items() if grade >= threshold)


# --- first hit: hit rate and reciprocal rank (lessons 01 and 04) ----------


def first_relevant_rank(ranked: Ranking, relevant: Collection[DocId], k: int | None = None) -> int:
    """Rank of the first relevant id, 0 for a miss; with k, a first hit past k is a miss (lesson 01).

    >>> first_relevant_rank(["D3", "D8", "D1"], {"D8"})
    2
    """
    ranked, relevant, k = check_ranking(ranked), check_relevant(relevant), check_k(k)
    for rank, doc_id in enumerate(cut(ranked, k), start=1):
        if doc_id in relevant:
            return rank
    return 0


def reciprocal_rank_of(first_rank: int, k: int | None = None) -> float:
    """1 / first_rank, or 0 for a miss (first_rank 0) or a first hit past k (lesson 01).

    >>> reciprocal_rank_of(4)
    0.25
    """
    first_rank, k = check_first_rank(first_rank), check_k(k)
    if first_rank == 0 or (k is not None and first_rank > k):
        return 0.0
    return 1.0 / first_rank


def reciprocal_rank(ranked: Ranking, relevant: Collection[DocId], k: int | None = None) -> float:
    """RR = 1 / rank of the first relevant id, 0 for a miss; RR@k ignores hits past k (lesson 01).

    >>> reciprocal_rank(["D3", "D8", "D1"], {"D8"})
    0.5
    """
    return reciprocal_rank_of(first_relevant_rank(ranked, relevant, k))


def mean_reciprocal_rank(first_ranks: Iterable[int], k: int | None = None) -> float:
    """MRR = mean of 1/rank over all queries; a miss (rank 0) counts as 0 in the mean (lesson 01).

    ``first_ranks`` holds one first relevant rank per query, 0 for a miss.
    With k (MRR@k) a first hit past k also counts as 0.

    >>> round(mean_reciprocal_rank([1, 2, 0, 4]), 3)
    0.438
    """
    first_ranks, k = check_first_ranks(first_ranks), check_k(k)
    return sum(reciprocal_rank_of(rank, k) for rank in first_ranks) / len(first_ranks)


def hit_at_k(ranked: Ranking, relevant: Collection[DocId], k: int) -> float:
    """Hit@k = 1.0 if any relevant id is in the top k, else 0.0 (lesson 01).

    >>> hit_at_k(["D3", "D8", "D1"], {"D1"}, k=2)
    0.0
    """
    return 1.0 if first_relevant_rank(ranked, relevant, check_k(k, allow_none=False)) else 0.0


def mean_hit_rate(first_ranks: Iterable[int], k: int) -> float:
    """Hit rate@k = share of queries whose first relevant rank is 1..k (0 = miss) (lesson 01).

    >>> mean_hit_rate([1, 2, 1, 4, 1], k=3)
    0.8
    """
    first_ranks, k = check_first_ranks(first_ranks), check_k(k, allow_none=False)
    return sum(1 for rank in first_ranks if 1 <= rank <= k) / len(first_ranks)


# --- counting relevant ids: precision, recall, AP (lesson 06) --------------


def precision_at_k(ranked: Ranking, relevant: Collection[DocId], k: int) -> float:
    """P@k = (relevant ids in the top k) / k; a list shorter than k still divides by k (lesson 06).

    >>> precision_at_k(["D1", "D2", "D3", "D4"], {"D1", "D3"}, k=4)
    0.5
    """
    ranked, relevant = check_ranking(ranked), check_relevant(relevant)
    k = check_k(k, allow_none=False)
    return sum(1 for doc_id in ranked[:k] if doc_id in relevant) / k


def recall_at_k(
    ranked: Ranking, relevant: Collection[DocId], k: int, denominator: Denominator = "R"
) -> float:
    """R@k = (relevant ids in the top k) / R, or / min(k, R) with denominator="min_k_R" (lesson 06).

    R is the number of relevant ids. Recall is undefined when R = 0.

    >>> recall_at_k(["D1", "D2"], {"D1", "D5", "D6"}, k=2)
    0.3333333333333333
    """
    ranked, relevant = check_ranking(ranked), check_relevant(relevant)
    k = check_k(k, allow_none=False)
    check_choice(denominator, DENOMINATORS, "denominator")
    if not relevant:
        raise UndefinedMetricError("recall is undefined: the query has no relevant document (R = 0)")
    found = sum(1 for doc_id in ranked[:k] if doc_id in relevant)
    total = len(relevant) if denominator == "R" else min(k, len(relevant))
    return found / total


def average_precision(
    ranked: Ranking, relevant: Collection[DocId], k: int | None = None, denominator: Denominator = "R"
) -> float:
    """AP@k = sum over ranks i <= k of P@i * rel(i), divided by R (or min(k, R)) (lesson 06).

    R is the number of relevant ids (judged, returned or not). With k None the
    whole list counts. ``denominator="min_k_R"`` divides by min(k, R) instead.

    >>> round(average_precision(["D1", "D2", "D3"], {"D2", "D3", "D9"}), 4)
    0.3889
    """
    ranked, relevant, k = check_ranking(ranked), check_relevant(relevant), check_k(k)
    check_choice(denominator, DENOMINATORS, "denominator")
    if not relevant:
        raise UndefinedMetricError("AP is undefined: the query has no relevant document (R = 0)")
    hits, total = 0, 0.0
    for rank, doc_id in enumerate(cut(ranked, k), start=1):
        if doc_id in relevant:
            hits += 1
            total += hits / rank
    if denominator == "R" or k is None:
        return total / len(relevant)
    return total / min(k, len(relevant))


# --- graded metrics: CG, DCG, nDCG (lessons 02, 03, 06) --------------------


def gain_of(grade: float, gain: Gain = "linear") -> float:
    """Gain of one grade: linear = grade, exponential = 2**grade - 1 (lesson 02).

    >>> gain_of(3, "exponential")
    7.0
    """
    check_choice(gain, GAINS, "gain")
    (grade,) = check_grades([grade], name="grade")
    if gain == "exponential":
        check_exponential_grades([grade], name="grade")
    return _gain(grade, gain)


def _gain(grade: float, gain: Gain) -> float:
    """gain_of for a grade already checked (DCG checks the whole list once, then adds the gains)."""
    return grade if gain == "linear" else 2.0**grade - 1.0


def discount(rank: int) -> float:
    """The discount log2(rank + 1) that divides the gain at a rank (lesson 02).

    >>> round(discount(2), 3)
    1.585
    """
    return math.log2(check_whole(rank, "rank") + 1)


def cumulative_gain(grades: Grades, k: int | None = None) -> float:
    """CG@k = sum of the grades of the top k, no discount (lesson 06).

    >>> cumulative_gain([2, 0, 3, 1, 0, 2], k=5)
    6.0
    """
    grades, k = check_grades(grades), check_k(k)
    return float(sum(cut(grades, k)))


def dcg(grades: Grades, k: int | None = None, gain: Gain = "linear") -> float:
    """DCG@k = sum over ranks i <= k of gain(grade_i) / log2(i + 1) (lesson 02).

    >>> round(dcg([2, 0, 3, 0, 0]), 4)
    3.5
    """
    grades, k = check_grades(grades), check_k(k)
    check_choice(gain, GAINS, "gain")
    if gain == "exponential":
        check_exponential_grades(grades)
    return sum(_gain(grade, gain) / discount(rank) for rank, grade in enumerate(cut(grades, k), start=1))


def ideal_dcg(ideal: Grades, k: int | None = None, gain: Gain = "linear") -> float:
    """IDCG@k = DCG@k of the ideal grades sorted from high to low (lesson 02).

    >>> round(ideal_dcg([0, 2, 3]), 4)
    4.2619
    """
    ideal = check_grades(ideal, name="ideal")
    return dcg(sorted(ideal, reverse=True), k, gain)


def ndcg(grades: Grades, k: int | None = None, ideal: Grades | None = None, gain: Gain = "linear") -> float:
    """nDCG@k = DCG@k / IDCG@k (lesson 02).

    ``grades`` are the grades of the returned list in rank order; ``ideal`` the
    grades of every judged document of the query (any order; default: the same
    grades, i.e. the ideal from the returned list only). A query whose ideal DCG
    is 0 has no relevant document: nDCG is undefined and ``UndefinedMetricError``
    (a ``ValueError``) is raised, never a silent 0 or NaN. An ideal that lacks a
    relevant grade of the returned list is refused with a ``ValueError``.

    >>> round(ndcg([2, 0, 3, 1, 0, 2], k=5, ideal=[2, 0, 3, 1, 0, 2, 3]), 3)
    0.55
    """
    grades, k = check_grades(grades), check_k(k)
    check_choice(gain, GAINS, "gain")
    if ideal is None:
        ideal = grades
    else:
        ideal = check_grades(ideal, name="ideal")
        if not ideal:
            raise ValueError("ideal is empty: give the grades of every judged document")
        check_ideal_holds_returned(grades, ideal)
    best = ideal_dcg(ideal, k, gain)
    if best == 0:
        raise UndefinedMetricError("nDCG is undefined: no relevant document (the ideal DCG is 0)")
    return dcg(grades, k, gain) / best


def query_ndcg(
    ranked: Ranking,
    judgments: Mapping[Any, float],
    k: int | None = None,
    gain: Gain = "linear",
    ideal: Ideal = "judged",
) -> float:
    """nDCG@k of a ranked list of ids against graded judgments (lessons 03, 05).

    ``ideal="judged"`` (default) sorts the grades of every judged document;
    ``ideal="returned"`` only those of the returned list (the mistake of lesson 07,
    and what scikit-learn's ndcg_score does).

    >>> round(query_ndcg(["D4", "D9", "D11"], {"D11": 3, "D4": 2}, k=5), 4)
    0.8212
    """
    check_choice(ideal, IDEALS, "ideal")
    grades = grades_in_rank_order(ranked, judgments)
    ideal_grades = list(judgments.values()) if ideal == "judged" else grades
    return ndcg(grades, k, ideal=ideal_grades or [0.0], gain=gain)


# --- the arithmetic of one query as a table (lessons 02, 03, 05) ----------


def arithmetic_table(
    grades: Grades,
    k: int | None = None,
    ideal: Grades | None = None,
    gain: Gain = "linear",
    ids: Ranking | None = None,
) -> pd.DataFrame:
    """Every step of DCG, IDCG and nDCG for one query, one row per rank (lessons 02, 03).

    Columns: rank, id, grade, gain, discount, discounted_gain, ideal_grade,
    ideal_gain, ideal_discounted_gain, in_top_k, dcg_running, idcg_running
    (the running sums count only ranks within the cutoff). ``ideal`` as in
    :func:`ndcg`. The table has one row per returned result; when k reaches past
    the returned list and the ideal still has documents there, rows for those
    ranks are added with an empty id and grade 0.

    >>> arithmetic_table([2, 0, 3], ideal=[3, 2])["discounted_gain"].tolist()[2]
    1.5
    """
    grades, k = check_grades(grades), check_k(k)
    check_choice(gain, GAINS, "gain")
    ideal_sorted = sorted(grades if ideal is None else check_grades(ideal, name="ideal"), reverse=True)
    if gain == "exponential":
        check_exponential_grades(grades)
        check_exponential_grades(ideal_sorted, name="ideal")
    if ids is None:
        row_ids: list = [""] * len(grades)
    else:
        row_ids = check_ranking(ids)
        if len(row_ids) != len(grades):
            raise ValueError(
                f"ids and grades must have the same length: {len(row_ids)} ids, {len(grades)} grades"
            )
    ideal_rows = len(ideal_sorted) if k is None else min(k, len(ideal_sorted))
    n_rows = max(len(grades), ideal_rows)
    rows = []
    dcg_running = idcg_running = 0.0
    for rank in range(1, n_rows + 1):
        grade = grades[rank - 1] if rank <= len(grades) else 0.0
        ideal_grade = ideal_sorted[rank - 1] if rank <= len(ideal_sorted) else 0.0
        in_top_k = k is None or rank <= k
        row_gain, ideal_gain = gain_of(grade, gain), gain_of(ideal_grade, gain)
        rank_discount = discount(rank)
        if in_top_k:
            dcg_running += row_gain / rank_discount
            idcg_running += ideal_gain / rank_discount
        rows.append(
            {
                "rank": rank,
                "id": row_ids[rank - 1] if rank <= len(row_ids) else "",
                "grade": grade,
                "gain": row_gain,
                "discount": rank_discount,
                "discounted_gain": row_gain / rank_discount,
                "ideal_grade": ideal_grade,
                "ideal_gain": ideal_gain,
                "ideal_discounted_gain": ideal_gain / rank_discount,
                "in_top_k": in_top_k,
                "dcg_running": dcg_running,
                "idcg_running": idcg_running,
            }
        )
    return pd.DataFrame(rows)
