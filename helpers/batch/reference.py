"""A short, readable evaluator of a whole run, one query at a time (lesson 09).

It gives the same numbers as :func:`helpers.batch.evaluate` and follows the
same trec_eval conventions, written as a plain loop over the queries that
calls each measure's single-query formula, declared with the measure in
:mod:`helpers.batch.registry` (most of them from :mod:`helpers.metrics`). ``evaluate`` does
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
from helpers.batch.registry import OneQuery, declaration_of
from helpers.metrics import Denominator, Ideal


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
) -> float | str:
    """One query's value by the measure's single-query formula (its declaration's); 0 when it is undefined."""
    try:
        return declaration_of(measure.name).formula(measure, OneQuery(ranked, judgments, ideal, denominator))
    except metrics.UndefinedMetricError:
        return 0.0  # no relevant document: trec_eval scores 0
