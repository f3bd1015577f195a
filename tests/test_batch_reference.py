"""The fast engine against the readable reference evaluator, the named conventions against the
libraries they reproduce, and DataFrame ids (helpers.batch, lesson 09)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import ndcg_score

from helpers._checks import MAX_EXPONENTIAL_GRADE
from helpers.batch import evaluate, read_qrels, read_run
from helpers.batch.reference import reference_evaluate
from tests.test_evaluate import EXACT, MATCHES_LITTLE, TREC_EVAL, collections, qrels_of, run_of, to_dicts

pytestmark = pytest.mark.reference  # the field's implementations against ours

MEASURES = ["nDCG", "nDCG@3", "nDCG(gain=exp)@3", "CG@3", "RR", "RR@2", "RR(rel=2)@3", "AP", "AP@3",
            "AP(rel=2)@2", "P@3", "R@3", "R(rel=2)@5", "Hit@1", "Rprec", "Rprec(rel=2)", "bpref",
            "bpref(rel=2)", "num_rel", "num_rel(rel=2)", "num_rel_ret", "num_ret", "Judged", "Judged@3",
            "nDCG(gains={0:0.5,1:3,2:1})@3", "nDCG(gains={1:-1,3:2})", "CG(gains={2:5})@2"]

OPTIONS = st.fixed_dictionaries({
    "missing": st.sampled_from(["zero", "skip"]),
    "depth": st.sampled_from([None, 1, 2, 4]),
    "judged_only": st.booleans(),
    "ideal": st.sampled_from(["judged", "returned"]),
    "denominator": st.sampled_from(["R", "min_k_R"]),
    "fractional_grades": st.sampled_from(["truncate", "keep"]),
})


def with_fractions(qrels: pd.DataFrame, draw_fraction: bool) -> pd.DataFrame:
    """Some grades made fractional (1.5, -0.5, 2.7) so that truncate and keep differ."""
    if not draw_fraction:
        return qrels
    return qrels.assign(grade=qrels["grade"] + np.where(np.arange(len(qrels)) % 3 == 0, 0.5, 0.0))


@MATCHES_LITTLE
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), OPTIONS, st.booleans())
def test_engine_matches_the_reference_evaluator_with_every_option(collection, options, fractional):
    qrels, run = collection
    qrels = with_fractions(qrels, fractional)
    fast = evaluate(qrels, run, MEASURES, **options).per_query
    slow = reference_evaluate(qrels, run, MEASURES, **options)
    assert list(fast.index) == list(slow.index)
    np.testing.assert_allclose(fast.to_numpy(), slow.to_numpy(), atol=EXACT, rtol=0)


def test_engine_matches_the_reference_on_trec_eval_files():
    qrels, run = read_qrels(TREC_EVAL / "qrels.rel_level"), read_run(TREC_EVAL / "results.test")
    measures = ["nDCG@10", "AP", "RR(rel=2)", "P@20", "R@100"]
    for options in ({}, {"judged_only": True, "depth": 50}, {"ideal": "returned", "denominator": "min_k_R"}):
        fast = evaluate(qrels, run, measures, **options).per_query
        slow = reference_evaluate(qrels, run, measures, **options)
        np.testing.assert_allclose(fast.to_numpy(), slow.to_numpy(), atol=EXACT, rtol=0)


# --- each named convention against the library it reproduces ----------------------


@MATCHES_LITTLE
@settings(max_examples=100, deadline=None)
@given(collections(all_negative_allowed=False), st.sampled_from([1, 2]))
def test_judged_only_matches_trec_eval_minus_j_in_pytrec_eval(collection, rel):
    qrels, run = collection
    judged = run[run["qid"].isin(qrels["qid"])]
    expected = pytrec_eval.RelevanceEvaluator(
        to_dicts(qrels, "grade", int), {"map", "P.3", "recip_rank", "ndcg_cut.3", "recall.3"},
        relevance_level=rel, judged_docs_only_flag=True,
    ).evaluate(to_dicts(judged, "score"))
    names = {"map": f"AP(rel={rel})", "P_3": f"P(rel={rel})@3", "recip_rank": f"RR(rel={rel})",
             "ndcg_cut_3": "nDCG@3", "recall_3": f"R(rel={rel})@3"}
    ours = evaluate(qrels, run, list(names.values()), missing="skip", judged_only=True).per_query
    for qid, values in expected.items():
        for trec_name, measure in names.items():
            name = measure.replace("(rel=1)", "")
            assert ours.loc[qid, name] == pytest.approx(values[trec_name], abs=EXACT), (qid, trec_name)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 3, allow_nan=False).map(lambda g: round(g * 2) / 2), min_size=2, max_size=12),
       st.sampled_from([None, 1, 3, 5]))
def test_ideal_returned_and_kept_fractions_match_scikit_learn(grades, k):
    if max(grades) == 0:
        grades[0] = 1.5
    n = len(grades)
    scores = np.linspace(1.0, 0.1, n)  # distinct scores: scikit-learn averages over ties
    run = run_of([("q", f"d{i}", score) for i, score in enumerate(scores)])
    judged = [("q", f"d{i}", grade) for i, grade in enumerate(grades)] + [("q", "unreturned", 3.0)]
    ours = evaluate(qrels_of(judged), run, "nDCG" if k is None else f"nDCG@{k}", ideal="returned",
                    fractional_grades="keep").means.iloc[0]
    assert ours == pytest.approx(ndcg_score([grades], [scores], k=k), abs=EXACT)


def test_the_default_ideal_takes_every_judged_document():
    run = run_of([("q", "a", 2.0), ("q", "b", 1.0)])
    qrels = qrels_of([("q", "a", 1), ("q", "missed", 3)])
    judged = evaluate(qrels, run, "nDCG").means.iloc[0]
    returned = evaluate(qrels, run, "nDCG", ideal="returned").means.iloc[0]
    assert judged == pytest.approx(1 / (3 + 1 / np.log2(3))) and returned == 1.0


def test_min_k_r_divides_ap_and_recall_by_min_k_and_r():
    # R = 3, relevant at ranks 1 and 3: AP@2 is 1/3 over R, 1/2 over min(2, 3) (library notes, section 5)
    qrels = qrels_of([("q", doc, 1) for doc in ("a", "c", "z")])
    run = run_of([("q", doc, 3.0 - i) for i, doc in enumerate("abc")])
    over_r = evaluate(qrels, run, ["AP@2", "R@2", "AP"]).means
    over_min = evaluate(qrels, run, ["AP@2", "R@2", "AP"], denominator="min_k_R").means
    assert over_r.tolist() == pytest.approx([1 / 3, 1 / 3, (1 + 2 / 3) / 3])
    assert over_min.tolist() == pytest.approx([1 / 2, 1 / 2, (1 + 2 / 3) / 3])  # AP without k: still R


# --- DataFrame ids --------------------------------------------------------------


def test_int_docnos_in_the_qrels_match_float_docnos_in_the_run():
    qrels = pd.DataFrame({"qid": ["q1", "q2"], "docno": [7, 8], "grade": [1, 1]})
    run = pd.DataFrame({"qid": ["q1", "q2"], "docno": [7.0, 8.0], "score": [1.0, 1.0]})
    result = evaluate(qrels, run, "RR")
    assert result.means["RR"] == 1.0 and result.missing_queries == ()
    as_text = evaluate(qrels.assign(docno=["7", "8"]), run, "RR")
    assert as_text.means["RR"] == 1.0


def test_mixed_qid_types_in_one_column_are_one_kind_of_id():
    qrels = pd.DataFrame({"qid": pd.Series([1, "1", "q2"], dtype=object), "docno": ["a", "b", "c"],
                          "grade": [1, 1, 1]})
    run = pd.DataFrame({"qid": ["1", "1", "q2"], "docno": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    result = evaluate(qrels, run, ["AP", "P@2"])
    assert result.means.tolist() == [1.0, 0.75] and result.missing_queries == ()


@pytest.mark.parametrize(
    ("column", "values", "error", "message"),
    [
        ("docno", [7.5], ValueError, "7.5 is not an id"),
        ("docno", [np.nan], ValueError, "an id is missing"),
        ("qid", [True], TypeError, "True/False"),
        ("qid", pd.Series([("q", 1)], dtype=object), TypeError, "ids are text or whole numbers"),
    ],
)
def test_ids_that_are_not_ids_are_refused(column, values, error, message):
    run = run_of([("q", "a", 1.0)]).assign(**{column: values})
    with pytest.raises(error, match=message):
        evaluate(qrels_of([("q", "a", 1)]), run, "AP")


@pytest.mark.parametrize("docnos", [
    ["abcdefgh", "abcdefg", "abcdef", "bbcdefgh"],  # up to 8 bytes: the bytes are the key
    ["abcdefg\x00", "abcdefg", "abc\x00", "abc"],  # a NUL byte: padding could mislead, so a hash
    ["d\u00e9j\u00e0-vu", "d\u00e9j\u00e0", "x" * 30, "x" * 29],  # multi-byte text, long ids
])
def test_docnos_of_every_length_match_exactly(docnos):
    qrels = qrels_of([("q", doc, grade) for doc, grade in zip(docnos, [1, 2, 0, 3], strict=True)])
    run = run_of([("q", doc, 1.0) for doc in docnos[::-1]] + [("r", docnos[0], 1.0)])
    measures = ["nDCG", "AP", "RR", "P@2"]
    np.testing.assert_allclose(evaluate(qrels, run, measures).per_query.to_numpy(),
                               reference_evaluate(qrels, run, measures).to_numpy(), atol=EXACT, rtol=0)
    with pytest.raises(ValueError, match="appears twice"):
        evaluate(qrels, pd.concat([run, run.iloc[:1]]), measures)


def test_missing_queries_are_the_queries_with_no_run_line():
    qrels = qrels_of([("q1", 1, 1), ("q2", 2, 1), ("q3", 3, 1)])
    run = pd.DataFrame({"qid": ["q1", "q3"], "docno": [1.0, 9.0], "score": [1.0, 1.0]})
    result = evaluate(qrels, run, "RR")
    assert result.missing_queries == ("q2",)
    assert result.per_query["RR"].tolist() == [1.0, 0.0, 0.0]


# --- exponential gain that would overflow ---------------------------------------


def test_exponential_gain_refuses_grades_whose_gain_overflows():
    run = run_of([("q", "a", 1.0)])
    fine = evaluate(qrels_of([("q", "a", MAX_EXPONENTIAL_GRADE)]), run, "nDCG(gain=exp)")
    assert fine.means.iloc[0] == 1.0
    too_high = qrels_of([("q", "a", MAX_EXPONENTIAL_GRADE + 1)])
    with pytest.raises(ValueError, match=f"overflows a float above grade {MAX_EXPONENTIAL_GRADE}"):
        evaluate(too_high, run, ["AP", "nDCG(gain=exp)@10"])
    assert evaluate(too_high, run, "nDCG").means.iloc[0] == 1.0  # linear gain has no limit
