"""Lesson 08's practice variants agree with the libraries they are about, run on each variant's own data."""

from __future__ import annotations

import ir_measures
import pytest
import pytrec_eval
from ir_measures import RR
from sklearn.metrics import ndcg_score

from helpers.exercises.fresh import draw

SEEDS = (0, 1, 2, 7)


def tied_run(table) -> dict:
    return {query: dict(zip(part["document"], part["score"], strict=True)) for query, part in table.groupby("query")}


def relevant_of(variant) -> dict:
    """The relevant document of each query, read from the variant's steps ('q1: ... ; d03 at rank 2')."""
    found = {}
    for step in variant.worked.steps[:2]:
        query, rest = step.split(":", 1)
        found[query] = {rest.rsplit(";", 1)[1].split()[0]: 1}
    return found


@pytest.mark.parametrize("seed", SEEDS)
def test_the_trec_eval_tie_variant_is_what_pytrec_eval_reports(seed):
    variant = draw("tie-rr-trec", seed)
    values = pytrec_eval.RelevanceEvaluator(relevant_of(variant), {"recip_rank"}).evaluate(tied_run(variant.data))
    mean = sum(v["recip_rank"] for v in values.values()) / len(values)
    assert mean == pytest.approx(variant.worked.value)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_ir_measures_tie_variant_is_what_its_rr_at_k_reports(seed):
    variant = draw("tie-rr-ir-measures", seed)
    k = int(variant.question.split("RR@", 1)[1].split()[0])
    mean = ir_measures.calc_aggregate([RR @ k], relevant_of(variant), tied_run(variant.data))[RR @ k]
    assert mean == pytest.approx(variant.worked.value)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_scikit_learn_variant_is_what_ndcg_score_reports(seed):
    variant = draw("sklearn-d11-removed", seed)
    inputs = variant.worked.inputs
    passed = inputs["grades"]
    value = ndcg_score([passed], [list(range(len(passed), 0, -1))], k=inputs["k"])
    assert value == pytest.approx(variant.worked.value)
