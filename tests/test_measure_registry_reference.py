"""The measures declared past trec_eval against the field's implementations (helpers.batch.registry, lesson 09).

- ERR@k against ir_measures' ERR (0.4.3), whose provider is gdeval (TREC Web track's script, run with perl): its
  maximum grade is 4 ((2^grade - 1) / 2^4), a query without a relevant document is left out, and it prints 5
  decimals;
- RBP against ranx's ``rbp.P`` (``rbp.8`` is p = 0.8). ranx weighs each relevant document by its grade, so it is
  given binary judgments (1 where the grade is rel or more), which makes it Moffat and Zobel's binary RBP.
  ir_measures has RBP, but only through cwl_eval or trectools, neither of them installed here; RBP's residual has
  no provider: tests/test_measure_registry.py checks both against hand computations.
"""

from __future__ import annotations

import itertools
import os
import warnings

# ranx's parallel loops: one thread, as tests/test_ranx_reference.py sets it (numba reads it once, at its import)
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import ir_measures  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from ranx import evaluate as ranx_evaluate  # noqa: E402

from helpers.batch import DocnoMatchWarning, RunOrderWarning, evaluate, parse_measure, rank_run  # noqa: E402
from tests.test_measure_registry import random_collection  # noqa: E402
from tests.test_ranx_reference import ranx_input  # noqa: E402

pytestmark = pytest.mark.reference  # the field's implementations against ours

GDEVAL_DECIMALS = 5e-6  # gdeval prints 5 decimals
SEEDS = range(12)


def collection(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A random collection with whole-number grades and query ids (gdeval reads only those)."""
    qrels, run = random_collection(seed)
    qrels = qrels.assign(qid=qrels["qid"].str[1:], grade=np.trunc(qrels["grade"]).astype(int))
    return qrels, run.assign(qid=run["qid"].str[1:])


def ours(qrels: pd.DataFrame, run: pd.DataFrame, measures: list[str]) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DocnoMatchWarning)
        warnings.simplefilter("ignore", RunOrderWarning)
        return evaluate(qrels, run, measures).per_query


def test_err_equals_ir_measures_gdeval_with_ties():
    cutoffs = (1, 3, 5, 10, 20)
    compared, highest = 0, 0.0
    for seed in SEEDS:
        qrels, run = collection(seed)
        theirs = ir_measures.iter_calc(
            [ir_measures.ERR @ k for k in cutoffs],
            qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "grade": "relevance"}),
            run.rename(columns={"qid": "query_id", "docno": "doc_id"}))
        table = ours(qrels, run, [f"ERR@{k}" for k in cutoffs])
        for metric in theirs:
            assert table.loc[metric.query_id, str(metric.measure)] == pytest.approx(metric.value,
                                                                                   abs=GDEVAL_DECIMALS)
            compared += 1
        highest = max(highest, float(table.to_numpy().max()))
    assert compared > 200 and highest > 15 / 16  # a grade of 4 first: a stopping probability of 15/16


@pytest.mark.usefixtures("ranx_compiled")
def test_rbp_equals_ranx_on_binary_judgments():
    compared = 0
    for seed, rel, p in itertools.product(SEEDS, (1, 2), (5, 8, 95)):
        qrels, run = collection(seed)
        ranked = rank_run(run)  # trec_eval's order, as scores: ranx keeps tied documents in the order given
        ranked = ranked.assign(score=-ranked["rank"].astype(float))
        binary = {qid: {docno: 1 for docno in group.loc[group["grade"] >= rel, "docno"]} or {"none": 0}
                  for qid, group in qrels.groupby("qid")}
        ranx_qrels, ranx_run = ranx_input(binary, {qid: dict(zip(group["docno"], group["score"], strict=True))
                                                   for qid, group in ranked.groupby("qid")})
        ranx_evaluate(ranx_qrels, ranx_run, [f"rbp.{p}"], make_comparable=True)
        name = str(parse_measure(f"RBP(p=0.{p},rel={rel})"))
        table = ours(qrels, ranked, [name])
        for qid, value in ranx_run.scores[f"rbp.{p}"].items():
            assert table.loc[qid, name] == pytest.approx(value, abs=1e-9), (name, seed, qid)
            compared += 1
    assert compared > 300
