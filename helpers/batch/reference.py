"""A short, readable evaluator of a whole run, one query at a time (lesson 09).

It gives the same numbers as :func:`helpers.batch.evaluate` and follows the
same trec_eval conventions, written as a plain loop over the queries that
calls the single-query formulas of :mod:`helpers.metrics`. ``evaluate`` does
the same work on flat arrays (:mod:`helpers.batch._engine`) and is much
faster; the tests check the two agree. Read this one to see what is computed.

>>> import pandas as pd
>>> qrels = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "grade": [1, 2]})
>>> run = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["b", "x"], "score": [3.0, 2.0]})
>>> reference_evaluate(qrels, run, ["RR", "AP"]).loc["q1"].tolist()
[1.0, 0.5]
"""

from __future__ import annotations

import math

import pandas as pd

from helpers import metrics
from helpers.batch.evaluation import FractionalGrades, Measure, parse_measures
from helpers.metrics import Denominator, Gain, Ideal


def reference_evaluate(
    qrels: pd.DataFrame,
    run: pd.DataFrame,
    measures,
    *,
    missing: str = "zero",
    depth: int | None = None,
    judged_only: bool = False,
    ideal: Ideal = "judged",
    denominator: Denominator = "R",
    fractional_grades: FractionalGrades = "truncate",
) -> pd.DataFrame:
    """One row per qrels query, one column per measure; the options are those of ``evaluate`` (lesson 09).

    ``qrels`` has columns qid, docno, grade and ``run`` qid, docno, score, with
    ids of one kind (text, or whole numbers) on both sides.
    """
    measures = parse_measures(measures)
    rows = {}
    for qid, judged in qrels.groupby("qid", sort=True):
        returned = run[run["qid"] == qid]
        if returned.empty and missing == "skip":
            continue
        judgments = read_grades(judged, fractional_grades)
        ranked = trec_eval_order(returned)[:depth]
        if judged_only:  # trec_eval -J: only documents with a judgment (grade 0 or more)
            ranked = [doc for doc in ranked if judgments.get(doc, -1) >= 0]
        rows[qid] = [one_measure(m, ranked, judgments, ideal, denominator) for m in measures]
    return pd.DataFrame.from_dict(rows, orient="index", columns=[str(m) for m in measures]).rename_axis("qid")


def read_grades(judged: pd.DataFrame, fractional_grades: FractionalGrades) -> dict:
    """docno -> grade; fractions truncated toward 0 like trec_eval (1.5 -> 1), or kept."""
    grades = dict(zip(judged["docno"], judged["grade"].astype(float), strict=True))
    if fractional_grades == "truncate":
        grades = {doc: float(math.trunc(grade)) for doc, grade in grades.items()}
    return grades


def trec_eval_order(returned: pd.DataFrame) -> list:
    """The docnos by score, highest first; equal scores by docno in descending text order."""
    by_docno = returned.sort_values("docno", key=lambda ids: ids.astype(str), ascending=False)
    return by_docno.sort_values("score", ascending=False, kind="stable")["docno"].tolist()


def one_measure(
    measure: Measure, ranked: list, judgments: dict, ideal: Ideal, denominator: Denominator
) -> float:
    """One query's value, trec_eval style: 0 when the query has nothing to find."""
    k = measure.cutoff
    gains = {doc: max(grade, 0.0) for doc, grade in judgments.items()}  # a negative grade gains nothing
    grades = metrics.grades_in_rank_order(ranked, gains)
    gain: Gain = "exponential" if measure.gain == "exp" else "linear"
    relevant = {doc for doc, grade in judgments.items() if grade >= measure.rel}
    if measure.name in ("num_ret", "num_rel", "num_rel_ret", "Judged", "Rprec", "bpref"):
        return judgment_measure(measure, ranked, judgments, relevant)
    if measure.gains is not None:
        return mapped_gain_measure(measure, ranked, judgments, ideal)
    try:
        if measure.name == "nDCG":
            ideal_grades = list(gains.values()) if ideal == "judged" else grades
            return metrics.ndcg(grades, k, ideal=ideal_grades or [0.0], gain=gain)
        if measure.name == "CG":
            return sum((metrics.gain_of(grade, gain) for grade in metrics.cut(grades, k)), 0.0)
        if measure.name == "RR":
            return metrics.reciprocal_rank(ranked, relevant, k)
        if measure.name == "AP":
            return metrics.average_precision(ranked, relevant, k, denominator=denominator)
        assert k is not None  # P, R and Hit always have a cutoff
        if measure.name == "Hit":
            return metrics.hit_at_k(ranked, relevant, k)
        if measure.name == "P":
            return metrics.precision_at_k(ranked, relevant, k)
        return metrics.recall_at_k(ranked, relevant, k, denominator=denominator)
    except metrics.UndefinedMetricError:
        return 0.0  # no relevant document: trec_eval scores 0


def judgment_measure(measure: Measure, ranked: list, judgments: dict, relevant: set) -> float:
    """The counts, Judged@k, R-precision and bpref of one query, written as trec_eval defines them."""
    R = len(relevant)
    if measure.name == "num_ret":
        return float(len(ranked))
    if measure.name == "num_rel":
        return float(R)
    if measure.name == "num_rel_ret":
        return float(sum(doc in relevant for doc in ranked))
    if measure.name == "Judged":  # ir_measures: judged share of the top k, over min(k, documents returned)
        top = ranked[: measure.cutoff]
        return sum(doc in judgments for doc in top) / len(top) if top else 0.0
    if R == 0:
        return 0.0
    if measure.name == "Rprec":  # precision after R documents
        return sum(doc in relevant for doc in ranked[:R]) / R
    # bpref: each relevant document loses the share of judged non-relevant documents ranked above it
    nonrelevant = sum(0 <= grade < measure.rel for grade in judgments.values())
    total, above = 0.0, 0
    for doc in ranked:
        if doc in relevant:
            total += 1.0 - min(above, R) / min(nonrelevant, R) if above else 1.0
        elif doc in judgments and judgments[doc] >= 0:
            above += 1
    return total / R


def mapped_gain_measure(measure: Measure, ranked: list, judgments: dict, ideal: Ideal) -> float:
    """nDCG or CG with a gain map: each listed grade gets its gain, any other grade its own value."""
    gain_map: dict[float, float] = {float(level): gain for level, gain in measure.gains or ()}

    def gain_of(grade: float) -> float:
        return gain_map.get(grade, max(grade, 0.0)) if grade >= 0 else 0.0

    gained = [gain_of(judgments[doc]) if doc in judgments else 0.0 for doc in ranked]
    top = gained[: measure.cutoff]
    if measure.name == "CG":
        return sum(top, 0.0)
    dcg = sum(value / math.log2(rank + 1) for rank, value in enumerate(top, start=1))
    pool = [gain_of(grade) for grade in judgments.values()] if ideal == "judged" else gained
    best = sorted((value for value in pool if value > 0), reverse=True)[: measure.cutoff]
    ideal_dcg = sum(value / math.log2(rank + 1) for rank, value in enumerate(best, start=1))
    return dcg / ideal_dcg if ideal_dcg > 0 else 0.0
