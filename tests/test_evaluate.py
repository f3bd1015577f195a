"""helpers.batch's evaluate and TREC reader: trec_eval's own test files, pytrec_eval, helpers.metrics."""

from __future__ import annotations

import gzip
import math
import re
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import helpers.batch._engine as engine
from helpers import metrics
from helpers.batch import DocnoMatchWarning, RunOrderWarning
from helpers.batch.evaluation import (
    MATCH_SHARE,
    MEASURES,
    Evaluation,
    evaluate,
    parse_measure,
    parse_measures,
    rank_run,
)
from helpers.batch.measures import COUNTS
from helpers.batch.trec_io import TrecFormatWarning, read_qrels, read_run, write_qrels, write_run
from helpers.metrics import UndefinedMetricError

TREC_EVAL = Path(__file__).resolve().parent / "data" / "trec_eval"
PRINT_ROUNDING = 5e-5  # trec_eval prints 4 decimals
EXACT = 1e-12


def frame(rows, columns):
    return pd.DataFrame(rows, columns=columns)


def qrels_of(rows):
    return frame(rows, ["qid", "docno", "grade"])


def run_of(rows):
    return frame(rows, ["qid", "docno", "score"])


# --- 1. trec_eval's own test suite (trec_eval 9.0.8, test/ folder) --------


def read_trec_eval_output(name: str) -> dict[str, dict[str, float]]:
    """measure -> qid (or "all") -> value, from a file trec_eval printed with -q."""
    values: dict[str, dict[str, float]] = {}
    for line in (TREC_EVAL / name).read_text().splitlines():
        measure, qid, value = line.split()
        try:
            values.setdefault(measure, {})[qid] = float(value)
        except ValueError:
            pass  # runid and relstring are text
    return values


def our_measure(trec_name: str, rel: int):
    """Our measure for a trec_eval name, with trec_eval's -l level on every measure that takes one."""
    try:
        measure = parse_measure(trec_name)
    except ValueError:
        return None  # a trec_eval measure we do not offer (gm_map, iprec_at_recall, infAP, ...)
    return replace(measure, rel=rel) if "rel" in MEASURES[measure.name][2] else measure


def all_line(result: Evaluation, measure) -> float:
    """What trec_eval prints in its "all" line: the sum for the counts (num_ret, ...), else the mean."""
    column = str(measure)
    return result.per_query[column].sum() if measure.name in COUNTS else result.means[column]


NEW = {"num_ret", "num_rel", "num_rel_ret", "Rprec", "bpref"}
FAMILIES = {"map", "recip_rank", "P", "recall", "ndcg", "ndcg_cut", "success", "map_cut", *NEW}
# results.trunc has fields after the tag on 5 lines: trec_eval ignores them, lenient=True does too
TRUNC = {"missing": "zero", "lenient": True}

TREC_EVAL_CASES = {
    # expected output: (qrels, run, evaluate options, -l level, measure families it must cover)
    "out.test": ("qrels.test", "results.test", {"missing": "skip"}, 1, {"map", "recip_rank", "P", *NEW}),
    "out.test.aq": ("qrels.test", "results.test", {"missing": "skip"}, 1, FAMILIES),
    "out.test.aqc": ("qrels.test", "results.trunc", TRUNC, 1, FAMILIES),
    "out.test.aqcM": ("qrels.test", "results.trunc", {**TRUNC, "depth": 100}, 1, FAMILIES),
    "out.test.aql": ("qrels.rel_level", "results.test", {"missing": "skip"}, 2, FAMILIES),
    # trec_eval 10.0's outputs: the measures 10.0 computes differently (below) are compared here only
    "10.0/out.test.aq": ("qrels.test", "results.test", {"missing": "skip"}, 1, FAMILIES),
    "10.0/out.test.aqc": ("qrels.test", "results.trunc", TRUNC, 1, FAMILIES),
    "10.0/out.test.aqcM": ("qrels.test", "results.trunc", {**TRUNC, "depth": 100}, 1, FAMILIES),
    "out.test.meas_params": (
        "qrels.test", "results.test", {"missing": "skip"}, 1, {"P", "recall", "ndcg_cut", "success"}
    ),
}


def family(trec_name: str) -> str:
    return trec_name.rstrip("0123456789").rstrip("_.")


# trec_eval 10.0 rounds a recall level's share of R where 9.0.8 added 0.9 and truncated
CHANGED_IN_10 = {"11pt_avg"}


@pytest.mark.parametrize("expected_file", TREC_EVAL_CASES)
def test_agrees_with_trec_eval_test_suite(expected_file):
    qrels_file, run_file, options, rel, families = TREC_EVAL_CASES[expected_file]
    expected = read_trec_eval_output(expected_file)
    names = {name: our_measure(name, rel) for name in expected}
    names = {name: measure for name, measure in names.items()
             if measure is not None and (expected_file.startswith("10.0/") or family(name) not in CHANGED_IN_10)}
    assert {family(name) for name in names} >= families, "some trec_eval measures were not compared"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrecFormatWarning)  # results.trunc: tested in test_trec_io
        result = evaluate(TREC_EVAL / qrels_file, TREC_EVAL / run_file, list(names.values()), **options)
    mismatches, compared = [], 0
    for name, measure in names.items():
        for qid, value in expected[name].items():
            ours = all_line(result, measure) if qid == "all" else result.per_query.loc[qid, str(measure)]
            compared += 1
            if abs(ours - value) > PRINT_ROUNDING:
                mismatches.append(f"{name} {qid}: trec_eval {value:.4f}, ours {ours:.6f}")
    assert compared >= len(names)
    assert not mismatches, "\n".join(mismatches)


def test_trec_eval_c_counts_missing_queries_and_default_skips_them():
    # results.trunc has no line for query 302; trec_eval -c gives it 0, the default leaves it out
    qrels, run = TREC_EVAL / "qrels.test", TREC_EVAL / "results.trunc"
    with pytest.warns(TrecFormatWarning, match="5 line"):
        counted = evaluate(qrels, run, "AP", missing="zero", lenient=True)
        skipped = evaluate(qrels, run, "AP", missing="skip", lenient=True)
    assert counted.missing_queries == ("302",) == skipped.missing_queries
    assert list(counted.per_query.index) == ["301", "302", "303"]
    assert list(skipped.per_query.index) == ["301", "303"]
    assert counted.per_query.loc["302", "AP"] == 0
    assert counted.means["AP"] == pytest.approx(skipped.per_query["AP"].sum() / 3)


@pytest.mark.reference
def test_pytrec_eval_matches_every_query_of_results_test():
    qrels, run = read_qrels(TREC_EVAL / "qrels.test"), read_run(TREC_EVAL / "results.test")
    expected = pytrec_eval.RelevanceEvaluator(
        to_dicts(qrels, "grade"), {"map", "ndcg", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"}
    ).evaluate(to_dicts(run, "score"))
    ours = evaluate(qrels, run, ["AP", "nDCG", "nDCG@10", "P@10", "R@100", "RR"]).per_query
    for qid, values in expected.items():
        for trec_name, value in values.items():
            assert ours.loc[qid, str(parse_measure(trec_name))] == pytest.approx(value, abs=EXACT)


# --- 2. random small cases with ties: pytrec_eval and helpers.metrics ------

# short ids are exact keys in the engine, ids over 7 bytes are hashed: both kinds meet here
DOCNOS = ["a", "b", "d1", "d10", "d2", "D3", "z9", "10", "9", "doc-0000001", "doc-0000001-b", "doc-0000002"]
SCORES = [0.0, 0.5, 1.0, 1.0, 2.0, -1.5]  # few values, so ties are frequent


# random collections of a few documents often return nothing judged, or tie every score of a query:
# those warnings are expected there
def MATCHES_LITTLE(test):  # noqa: N802 (a decorator, named like the marks it stands for)
    ignore_ids = pytest.mark.filterwarnings("ignore::helpers.batch.DocnoMatchWarning")
    return ignore_ids(pytest.mark.filterwarnings("ignore::helpers.batch.RunOrderWarning")(test))


@st.composite
def collections(draw, all_negative_allowed: bool = True):
    """A few queries: judgments (grades -1..3) and a run with tied scores; some queries missing.

    trec_eval 9.0.8 (inside pytrec_eval) loops forever on a query whose every
    grade is negative, so comparisons with pytrec_eval keep one grade >= 0.
    """
    n_queries = draw(st.integers(1, 4))
    qrels_rows, run_rows = [], []
    for number in range(n_queries):
        qid = f"q{number}"
        judged = draw(st.lists(st.sampled_from(DOCNOS), min_size=1, max_size=6, unique=True))
        grades = [draw(st.integers(-1, 3)) for _ in judged]
        if not all_negative_allowed:
            grades[0] = max(grades[0], 0)
        qrels_rows += list(zip([qid] * len(judged), judged, grades, strict=True))
        if number == 0 or draw(st.integers(0, 4)):  # about one other query in five is missing from the run
            returned = draw(st.lists(st.sampled_from(DOCNOS), min_size=1, max_size=8, unique=True))
            run_rows += [(qid, doc, draw(st.sampled_from(SCORES))) for doc in returned]
    if draw(st.booleans()):
        run_rows.append(("not-judged", "a", 1.0))  # a run query without judgments is ignored
    return qrels_of(qrels_rows), run_of(run_rows)


def to_dicts(table: pd.DataFrame, value: str, transform=lambda v: v) -> dict:
    nested: dict = {}
    for qid, docno, number in table[["qid", "docno", value]].itertuples(index=False):
        nested.setdefault(str(qid), {})[str(docno)] = transform(number)
    return nested


PYTREC_NAMES = {"ndcg", "ndcg_cut.3", "map", "map_cut.3", "recip_rank", "P.3", "recall.3", "success.1,3",
                "Rprec", "bpref", "num_rel", "num_rel_ret", "num_ret"}
PYTREC_KEYS = ["ndcg", "ndcg_cut_3", "map", "map_cut_3", "recip_rank", "P_3", "recall_3", "success_1",
               "success_3", "Rprec", "bpref", "num_rel", "num_rel_ret", "num_ret"]


@MATCHES_LITTLE
@pytest.mark.reference
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(all_negative_allowed=False), st.sampled_from([1, 2]))
def test_random_cases_match_pytrec_eval(collection, rel):
    qrels, run = collection
    judged = run[run["qid"].isin(qrels["qid"])]
    expected = pytrec_eval.RelevanceEvaluator(
        to_dicts(qrels, "grade", int), PYTREC_NAMES, relevance_level=rel
    ).evaluate(to_dicts(judged, "score"))
    measures = [our_measure(name, rel) for name in PYTREC_KEYS]
    ours = evaluate(qrels, run, measures, missing="skip").per_query
    assert sorted(ours.index) == sorted(expected)
    for qid, values in expected.items():
        for name, measure in zip(PYTREC_KEYS, measures, strict=True):
            assert ours.loc[qid, str(measure)] == pytest.approx(values[name], abs=EXACT), (qid, name)


@MATCHES_LITTLE
@pytest.mark.reference
@settings(max_examples=100, deadline=None)
@given(collections(all_negative_allowed=False))
def test_random_cases_exponential_gain_matches_pytrec_eval_on_remapped_grades(collection):
    qrels, run = collection
    judged = run[run["qid"].isin(qrels["qid"])]
    expected = pytrec_eval.RelevanceEvaluator(
        to_dicts(qrels, "grade", lambda g: int(2**g - 1) if g > 0 else int(g)), {"ndcg", "ndcg_cut.3"}
    ).evaluate(to_dicts(judged, "score"))
    ours = evaluate(qrels, run, ["nDCG(gain=exp)", "nDCG(gain=exp)@3"], missing="skip").per_query
    for qid, values in expected.items():
        assert ours.loc[qid, "nDCG(gain=exp)"] == pytest.approx(values["ndcg"], abs=EXACT)
        assert ours.loc[qid, "nDCG(gain=exp)@3"] == pytest.approx(values["ndcg_cut_3"], abs=EXACT)


def trec_order(rows: pd.DataFrame) -> list[str]:
    """Score descending, ties by docno descending: written with two stable sorts, no helpers."""
    pairs = sorted(zip(rows["docno"], rows["score"], strict=True), key=lambda p: str(p[0]), reverse=True)
    return [doc for doc, _ in sorted(pairs, key=lambda p: p[1], reverse=True)]


def or_zero(function, *args, **kwargs) -> float:
    try:
        return function(*args, **kwargs)
    except UndefinedMetricError:
        return 0.0


def expected_from_metrics(measure, ranked: list, judgments: dict) -> float:
    """One query's value computed with the single-query reference helpers.metrics."""
    k = measure.cutoff
    relevant = {doc for doc, grade in judgments.items() if grade >= measure.rel}
    judgments = {doc: max(grade, 0.0) for doc, grade in judgments.items()}  # negative: gain 0, as trec_eval
    grades = metrics.grades_in_rank_order(ranked, judgments)
    ideal = list(judgments.values())
    gain = "exponential" if measure.gain == "exp" else "linear"
    if measure.name == "nDCG":
        return or_zero(metrics.ndcg, grades, k, ideal=ideal, gain=gain)
    if measure.name == "CG":
        return metrics.cumulative_gain(grades, k) if gain == "linear" else sum(2**g - 1 for g in grades[:k])
    if measure.name == "RR":
        return metrics.reciprocal_rank(ranked, relevant, k)
    if measure.name == "AP":
        return or_zero(metrics.average_precision, ranked, relevant, k)
    functions = {"P": metrics.precision_at_k, "R": metrics.recall_at_k, "Hit": metrics.hit_at_k}
    return or_zero(functions[measure.name], ranked, relevant, k)


METRICS_MEASURES = parse_measures([
    "nDCG", "nDCG@3", "nDCG(gain=exp)@3", "CG@3", "CG(gain=exp)@2", "RR", "RR@2", "RR(rel=2)@3",
    "AP", "AP@3", "AP(rel=2)", "P@3", "P(rel=2)@2", "R@3", "R(rel=2)@5", "Hit@1", "Hit(rel=3)@4",
])


@MATCHES_LITTLE
@settings(max_examples=150, deadline=None)
@given(collections())
def test_random_cases_match_helpers_metrics_query_by_query(collection):
    qrels, run = collection
    ours = evaluate(qrels, run, METRICS_MEASURES).per_query
    assert sorted(ours.index) == sorted(qrels["qid"].unique())
    for qid, judged in qrels.groupby("qid"):
        judgments = {doc: float(grade) for doc, grade in zip(judged["docno"], judged["grade"], strict=True)}
        ranked = trec_order(run[run["qid"] == qid])
        for measure in METRICS_MEASURES:
            expected = expected_from_metrics(measure, ranked, judgments)
            assert ours.loc[qid, str(measure)] == pytest.approx(expected, abs=EXACT), (qid, str(measure))


@MATCHES_LITTLE
@settings(max_examples=60, deadline=None)
@given(collections(), st.integers(1, 4))
def test_depth_is_the_same_as_cutting_the_run_first(collection, depth):
    qrels, run = collection
    cut = rank_run(run, depth=depth)
    measures = ["nDCG", "AP", "RR", "R@5"]
    cut_then_evaluated = evaluate(qrels, cut, measures).per_query
    pd.testing.assert_frame_equal(evaluate(qrels, run, measures, depth=depth).per_query, cut_then_evaluated)


@MATCHES_LITTLE
@settings(max_examples=60, deadline=None)
@given(collections())
def test_no_relevant_skip_blanks_exactly_the_queries_with_nothing_to_find(collection):
    qrels, run = collection
    measures = ["AP", "RR(rel=3)@5", "nDCG@3"]
    zero = evaluate(qrels, run, measures).per_query
    skip = evaluate(qrels, run, measures, no_relevant="skip").per_query
    for measure in parse_measures(measures):
        threshold = 1e-9 if MEASURES[measure.name][0] == "graded" else measure.rel
        has_relevant = qrels[qrels["grade"] >= threshold].groupby("qid").size()
        for qid in zero.index:
            value = skip[str(measure)].get(qid, np.nan)
            if qid in has_relevant.index:
                assert value == zero.loc[qid, str(measure)]
            else:
                assert math.isnan(value) and zero.loc[qid, str(measure)] == 0


# --- 3. known answers and stated conventions -------------------------------


def test_worked_example_c_of_the_library_notes():
    # grades in rank order 2,0,3,1,0,2 and one judged grade-3 document the run missed
    grades = [2, 0, 3, 1, 0, 2]
    run = run_of([("c", f"r{i}", 10.0 - i) for i in range(6)])
    qrels = qrels_of([("c", f"r{i}", g) for i, g in enumerate(grades)] + [("c", "missed", 3)])
    means = evaluate(qrels, run, ["nDCG@5", "nDCG(gain=exp)@5", "AP", "AP@5", "R@5", "CG@5"]).means
    assert means.round(4).to_dict() == {
        "nDCG@5": 0.5504, "nDCG(gain=exp)@5": 0.4749, "AP": 0.6167, "AP@5": 0.4833, "R@5": 0.6, "CG@5": 6.0,
    }
    assert evaluate(qrels, run, "CG(gain=exp)@5").means.iloc[0] == 3 + 7 + 1


@pytest.mark.parametrize(("relevant", "expected_rr"), [("a", 0.2), ("e", 1.0)])
def test_ties_are_broken_by_docno_descending(relevant, expected_rr):
    run = run_of([("q", doc, 1.0) for doc in "abcde"])
    qrels = qrels_of([("q", relevant, 1)])
    assert evaluate(qrels, run, "RR").means["RR"] == expected_rr
    assert evaluate(qrels, run.iloc[::-1], "RR").means["RR"] == expected_rr  # row order does not matter


def test_numeric_docnos_tie_break_as_text_like_trec_eval():
    run = run_of([("q", 10, 1.0), ("q", 9, 1.0)])  # as text "9" > "10", so 9 comes first
    assert list(rank_run(run)["docno"]) == [9, 10]
    assert evaluate(qrels_of([("q", 10, 1)]), run, "RR").means["RR"] == 0.5


def test_rank_column_is_ignored_and_scores_decide():
    run = pd.DataFrame({"qid": ["q", "q"], "docno": ["x", "y"], "score": [1.0, 2.0], "rank": [1, 2]})
    with pytest.warns(RunOrderWarning, match="scores rise with the rank"):  # they disagree: said, not hidden
        assert evaluate(qrels_of([("q", "y", 1)]), run, "RR").means["RR"] == 1.0
    agreeing = run.assign(rank=[2, 1])
    assert never_warns(qrels_of([("q", "y", 1)]), agreeing, "RR").means["RR"] == 1.0


def test_relevance_threshold_applies_to_binary_measures_not_to_ndcg():
    qrels = qrels_of([("q", "a", 1), ("q", "b", 2), ("q", "c", 3)])
    run = run_of([("q", doc, 5.0 - i) for i, doc in enumerate("abcxy")])
    means = evaluate(qrels, run, ["RR(rel=2)", "P(rel=2)@5", "AP(rel=2)", "nDCG@5"]).means.round(4)
    assert means.to_dict() == {"RR(rel=2)": 0.5, "P(rel=2)@5": 0.4, "AP(rel=2)": 0.5833, "nDCG@5": 0.79}


def test_precision_divides_by_k_even_for_a_short_list():
    qrels = qrels_of([("q", "a", 1), ("q", "b", 1)])
    run = run_of([("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0)])
    assert evaluate(qrels, run, "P@5").means["P@5"] == pytest.approx(0.4)


def test_rr_cutoff_is_honoured():
    qrels = qrels_of([("q", "c", 1)])
    run = run_of([("q", doc, 3.0 - i) for i, doc in enumerate("abc")])
    assert evaluate(qrels, run, ["RR", "RR@2", "RR@3"]).means.tolist() == [pytest.approx(1 / 3), 0.0,
                                                                          pytest.approx(1 / 3)]


def test_queries_without_relevant_documents_zero_skip_or_error():
    qrels = qrels_of([("q1", "a", 1), ("q2", "b", 0)])
    run = run_of([("q1", "a", 1.0), ("q2", "b", 1.0)])
    assert evaluate(qrels, run, "RR").means["RR"] == 0.5  # trec_eval: 0 and counted
    skipped = evaluate(qrels, run, ["RR", "nDCG"], no_relevant="skip")
    assert skipped.means.tolist() == [1.0, 1.0]
    assert list(skipped.per_query.index) == ["q1"]  # q2 is left out of every measure, so dropped
    with pytest.raises(UndefinedMetricError, match="q2"):
        evaluate(qrels, run, "RR", no_relevant="error")


def test_skip_keeps_a_query_for_the_measures_where_it_has_something_to_find():
    qrels = qrels_of([("q1", "a", 2), ("q2", "b", 1)])
    run = run_of([("q1", "a", 1.0), ("q2", "b", 1.0)])
    per_query = evaluate(qrels, run, ["RR", "RR(rel=2)"], no_relevant="skip").per_query
    assert per_query.loc["q2", "RR"] == 1.0 and math.isnan(per_query.loc["q2", "RR(rel=2)"])


def test_missing_queries_count_as_zero_or_are_skipped():
    qrels = qrels_of([("q1", "a", 1), ("q2", "b", 1)])
    run = run_of([("q1", "a", 1.0)])
    zero, skip = evaluate(qrels, run, "RR"), evaluate(qrels, run, "RR", missing="skip")
    assert (zero.means["RR"], skip.means["RR"]) == (0.5, 1.0)
    assert zero.missing_queries == skip.missing_queries == ("q2",)


def test_run_queries_absent_from_the_qrels_are_ignored():
    qrels = qrels_of([("q1", "a", 1)])
    run = run_of([("q1", "a", 1.0), ("extra", "a", 9.0), ("extra", "b", 8.0)])
    result = evaluate(qrels, run, "RR")
    assert list(result.per_query.index) == ["q1"] and result.means["RR"] == 1.0


def test_numeric_and_text_query_ids_match():
    qrels = pd.DataFrame({"qid": [301, 302], "docno": ["a", "b"], "grade": [1, 1]})
    run = run_of([("301", "a", 1.0), ("302", "x", 1.0)])
    assert evaluate(qrels, run, "RR").per_query["RR"].to_dict() == {301: 1.0, 302: 0.0}


def test_whole_number_and_text_docnos_give_the_same_result():
    qrels = qrels_of([("q", 7, 2), ("q", 3, 1), ("r", 7, 1)])
    run = run_of([("q", 3, 0.9), ("q", 5, 0.8), ("q", 7, 0.1), ("r", 7, 0.3)])
    as_text = qrels.assign(docno=qrels["docno"].astype(str)), run.assign(docno=run["docno"].astype(str))
    measures = ["nDCG@2", "AP", "RR"]
    pd.testing.assert_frame_equal(evaluate(qrels, run, measures).per_query,
                                  evaluate(*as_text, measures).per_query)
    mixed = evaluate(qrels, as_text[1], measures).per_query  # numbers in the qrels, text in the run
    pd.testing.assert_frame_equal(mixed, evaluate(*as_text, measures).per_query)


def test_hash_collisions_fall_back_to_exact_codes(monkeypatch):
    qrels, run = read_qrels(TREC_EVAL / "qrels.test"), read_run(TREC_EVAL / "results.test")
    expected = evaluate(qrels, run, ["AP", "nDCG@10"]).per_query

    def colliding(text, longest, exact):  # every document gets the same "hash"
        return np.zeros_like(original(text, longest, exact))

    original = engine.text_keys
    monkeypatch.setattr(engine, "text_keys", colliding)
    monkeypatch.setattr(engine, "_longest", lambda text: 9)  # every key a hash, never exact
    pd.testing.assert_frame_equal(evaluate(qrels, run, ["AP", "nDCG@10"]).per_query, expected)
    with pytest.raises(ValueError, match="document 'b' appears twice"):  # a real repeat is still found
        evaluate(qrels, run_of([("301", "b", 1.0), ("301", "b", 2.0)]), "AP")


def test_rows_taken_chunk_by_chunk_are_arrows_take():
    import pyarrow as pa

    text = pa.chunked_array([pa.array([f"c{i}r{j}" for j in range(n)], type=pa.large_string())
                             for i, n in enumerate([3, 0, 5, 1, 7])])
    rng = np.random.default_rng(7)
    for rows in [np.array([], dtype=np.int64), np.array([15, 0, 3, 3, 8]), *rng.integers(0, 16, (20, 12))]:
        assert engine.take_rows(text, rows).to_pylist() == text.take(pa.array(rows, type=pa.int64())).to_pylist()
    with pytest.raises(IndexError, match="row 16 is out of range"):
        engine.take_rows(text, [16])


def test_ir_measures_column_names_are_accepted():
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [0.3]})
    assert evaluate(qrels, run, "RR").means["RR"] == 1.0


def test_result_unpacks_and_means_are_column_means():
    qrels = qrels_of([("q1", "a", 1), ("q2", "b", 2)])
    run = run_of([("q1", "a", 1.0), ("q2", "x", 1.0), ("q2", "b", 0.5)])
    result = evaluate(qrels, run, ["ndcg_cut_10", "nDCG@10", "P_1"])
    per_query, means = result
    assert isinstance(result, Evaluation)
    assert list(per_query.columns) == ["nDCG@10", "P@1"]  # the same measure is kept once
    assert per_query.index.name == "qid"
    pd.testing.assert_series_equal(means, per_query.mean().rename("mean"))


def test_rank_run_orders_like_trec_eval_and_cuts_at_depth():
    run = run_of([("q", "a", 1.0), ("q", "c", 1.0), ("q", "b", 2.0), ("p", "x", 0.0)])
    ranked = rank_run(run, depth=2)
    assert ranked[["qid", "docno", "rank"]].values.tolist() == [["q", "b", 1], ["q", "c", 2], ["p", "x", 1]]


# --- 4. measure names -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("nDCG@10", "nDCG@10"), ("nDCG@10(gain=exp)", "nDCG(gain=exp)@10"),
        ("nDCG(gain='exponential')@10", "nDCG(gain=exp)@10"), ("ndcg", "nDCG"), ("RR", "RR"),
        ("RR@10", "RR@10"), ("RR(rel=2)@10", "RR(rel=2)@10"), ("RR@10(rel=2)", "RR(rel=2)@10"),
        ("MRR@10", "RR@10"), ("AP", "AP"), ("MAP@100", "AP@100"), ("P@5", "P@5"), ("R@100", "R@100"),
        ("Hit@3", "Hit@3"), ("Success@3", "Hit@3"), ("CG@5", "CG@5"), ("ndcg_cut_10", "nDCG@10"),
        ("ndcg_cut.10", "nDCG@10"), ("P_5", "P@5"), ("recall_100", "R@100"), ("map", "AP"),
        ("map_cut_10", "AP@10"), ("recip_rank", "RR"), ("success_1", "Hit@1"), ("RR(rel=1)", "RR"),
        ("nDCG(gain=linear)@5", "nDCG@5"), (" RR ( rel = 2 ) @ 10 ", "RR(rel=2)@10"),
    ],
)
def test_measure_names(text, canonical):
    assert str(parse_measure(text)) == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("BM25@10", "unknown measure 'BM25'.*supported: nDCG"),
        ("P", "P needs a cutoff"),
        ("R", "R needs a cutoff"),
        ("Hit", "Hit needs a cutoff"),
        ("nDCG(rel=2)@10", "rel applies to RR, AP, P, R, Hit, Rprec, bpref"),
        ("RR(gain=exp)", "RR takes only rel"),
        ("nDCG(gain=log)", "gain must be 'linear' or 'exp'"),
        ("RR@0", "whole number >= 1"),
        ("RR@ten", "whole number >= 1"),
        ("RR(rel=0)", "rel must be above 0"),
        ("RR(rel=high)", "rel must be the lowest relevant grade"),
        ("RR(rel=2)@3(rel=1)", "cannot read the measure"),
        ("RR(rel)", "RR takes only rel"),
    ],
)
def test_bad_measure_names_are_refused_with_a_reason(text, message):
    with pytest.raises(ValueError, match=message):
        parse_measure(text)


def test_measures_must_be_names():
    with pytest.raises(TypeError, match="name such as"):
        parse_measure(10)
    with pytest.raises(TypeError, match="a name or a list"):
        parse_measures({"AP"})
    with pytest.raises(ValueError, match="at least one measure"):
        parse_measures([])


# --- 5. TREC files: reading, writing, and errors with file name and line --


def test_results_trunc_extra_fields_after_the_tag_are_refused_or_ignored_when_lenient():
    with pytest.raises(ValueError, match=r"results.trunc, line 1: a run line has 6 fields .* found 9.*lenient=True"):
        read_run(TREC_EVAL / "results.trunc")
    cut = r"results.trunc: 5 line\(s\) had fields after the run tag, first on line 1; lenient=True"
    with pytest.warns(TrecFormatWarning, match=cut):
        run = read_run(TREC_EVAL / "results.trunc", lenient=True)
    assert len(run) == 584 and list(run.columns) == ["qid", "docno", "score", "rank", "tag"]
    assert set(run["tag"]) == {"STANDARD"}


def test_negative_grades_are_kept_and_never_relevant():
    qrels = read_qrels(TREC_EVAL / "qrels.rel_level")
    assert qrels["grade"].min() == -1 and qrels["grade"].dtype == np.int64


def test_gzip_round_trip_gives_the_same_evaluation(tmp_path):
    qrels, run = read_qrels(TREC_EVAL / "qrels.test"), read_run(TREC_EVAL / "results.test")
    qrels_path = write_qrels(qrels, tmp_path / "qrels.txt.gz")
    run_path = write_run(run, tmp_path / "run.txt.gz", tag="again")
    with gzip.open(run_path, "rt") as handle:
        assert handle.readline().split()[1::4] == ["Q0", "again"]
    measures = ["AP", "nDCG@10", "P@5"]
    pd.testing.assert_frame_equal(
        evaluate(qrels_path, run_path, measures).per_query, evaluate(qrels, run, measures).per_query
    )


def test_comments_and_blank_lines_are_skipped(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("# a comment\n\nq1 Q0 a 1 2.5 sys\n   \nq1 Q0 b 2 1.5 sys\n")
    assert read_run(path)["docno"].tolist() == ["a", "b"]


BAD_FILES = [
    ("qrels", "q1 0 a 1\nq1 0 b\n", r"line 2: a qrels line has 4 fields .* found 3"),
    ("qrels", "q1 0 a 1 extra\n", r"line 1: a qrels line has 4 fields .* found 5"),
    ("qrels", "q1 0 a 1\nq1 0 b high\n", r"line 2: the grade 'high' is not a number"),
    ("qrels", "q1 0 a 1\nq2 0 a 0\nq1 0 a 2\n",
     r"line 3: document 'a' appears twice for query 'q1' \(first on line 1\)"),
    ("qrels", "", r"is empty"),
    ("qrels", "# only a comment\n\n", r"is empty"),
    ("run", "q1 Q0 a 1 2.0 sys\nq1 Q0 b 2 1.0\n", r"line 2: a run line has 6 fields .* found 5"),
    ("run", "q1 Q0 a 1 high sys\n", r"line 1: the score 'high' is not a number"),
    ("run", "q1 Q0 a 1 nan sys\n", r"line 1: the score 'nan' is not a finite number"),
    ("run", "q1 Q0 a 1 2 s\nq1 Q0 b 2 1 s\nq1 Q0 a 3 0 s\n", r"line 3: document 'a' appears twice .*line 1"),
    ("run", "\n\n", r"is empty"),
]


@pytest.mark.parametrize(("kind", "text", "message"), BAD_FILES)
@pytest.mark.parametrize("suffix", [".txt", ".txt.gz"])
def test_malformed_files_name_the_file_and_the_line(tmp_path, kind, text, message, suffix):
    path = tmp_path / f"bad{suffix}"
    if suffix.endswith(".gz"):
        with gzip.open(path, "wt") as handle:
            handle.write(text)
    else:
        path.write_text(text)
    reader = read_qrels if kind == "qrels" else read_run
    with pytest.raises(ValueError, match=message) as error:
        reader(path)
    assert str(path) in str(error.value)


def test_a_missing_file_and_a_wrong_type_are_reported():
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_run("does/not/exist.run")
    with pytest.raises(TypeError, match="file path"):
        read_qrels(42)


def test_evaluate_reads_paths_given_as_text():
    result = evaluate(str(TREC_EVAL / "qrels.test"), str(TREC_EVAL / "results.test"), "map")
    assert round(result.means["AP"], 4) == 0.1785


# --- 6. DataFrame input checks ----------------------------------------------

GOOD_QRELS = qrels_of([("q", "a", 1)])
GOOD_RUN = run_of([("q", "a", 1.0)])


@pytest.mark.parametrize(
    ("qrels", "run", "error", "message"),
    [
        ([("q", "a", 1)], GOOD_RUN, TypeError, "qrels must be a pandas DataFrame or the path"),
        (GOOD_QRELS, GOOD_RUN.drop(columns="score"), ValueError, r"run needs the columns .* \['score'\]"),
        (GOOD_QRELS.rename(columns={"grade": "label"}), GOOD_RUN, ValueError, r"missing \['grade'\]"),
        (GOOD_QRELS, GOOD_RUN.iloc[:0], ValueError, "run is empty"),
        (GOOD_QRELS, GOOD_RUN.assign(score="high"), TypeError, "score' must hold numbers"),
        (GOOD_QRELS.assign(grade=True), GOOD_RUN, TypeError, "grade' must hold numbers"),
        (GOOD_QRELS, GOOD_RUN.assign(score=np.nan), ValueError, "score must be a finite number"),
        (GOOD_QRELS.assign(grade=np.inf), GOOD_RUN, ValueError, "grade must be a finite number"),
        (GOOD_QRELS, GOOD_RUN.assign(qid=None), ValueError, "run: qid, row 0: an id is missing"),
        (GOOD_QRELS, GOOD_RUN.assign(docno=None), ValueError, "run: docno, row 0: an id is missing"),
        (GOOD_QRELS, run_of([("q", "a", 1.0), ("q", "a", 2.0)]), ValueError,
         "run: document 'a' appears twice for query 'q'"),
        (qrels_of([("q", "a", 1), ("q", "a", 0)]), GOOD_RUN, ValueError, "qrels: document 'a' appears twice"),
        (qrels_of([("q", 1, 1), ("q", 1, 0)]), GOOD_RUN.assign(docno=1), ValueError, "document 1 appears"),
        (GOOD_QRELS, GOOD_RUN.assign(qid="Q"), ValueError, "share no query.*'q'.*'Q'"),
    ],
)
def test_bad_frames_are_refused(qrels, run, error, message):
    with pytest.raises(error, match=message):
        evaluate(qrels, run, "AP")


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"missing": "drop"}, ValueError, "unknown missing policy 'drop'"),
        ({"no_relevant": "nan"}, ValueError, "unknown no_relevant policy 'nan'"),
        ({"depth": 0}, ValueError, "depth must be at least 1"),
        ({"depth": 2.5}, TypeError, "depth must be a whole number"),
        ({"ideal": "all"}, ValueError, "unknown ideal 'all'"),
        ({"denominator": "k"}, ValueError, "unknown denominator 'k'"),
        ({"fractional_grades": "round"}, ValueError, "unknown fractional_grades 'round'"),
        ({"judged_only": "yes"}, TypeError, "judged_only must be True or False"),
        ({"missing": 0}, TypeError, "missing policy must be one of"),
    ],
)
def test_bad_options_are_refused(options, error, message):
    with pytest.raises(error, match=message):
        evaluate(GOOD_QRELS, GOOD_RUN, "AP", **options)


def test_the_same_document_in_two_queries_is_fine():
    qrels = qrels_of([("q1", "a", 1), ("q2", "a", 2)])
    run = run_of([("q1", "a", 1.0), ("q2", "a", 1.0)])
    assert evaluate(qrels, run, "nDCG").means["nDCG"] == 1.0


def test_the_input_frames_are_not_changed():
    qrels, run = qrels_of([("q", "b", 1), ("q", "a", 2)]), run_of([("q", "a", 1.0), ("q", "b", 2.0)])
    before = qrels.copy(), run.copy()
    evaluate(qrels, run, ["AP", "nDCG@5"], depth=1)
    rank_run(run)
    pd.testing.assert_frame_equal(qrels, before[0])
    pd.testing.assert_frame_equal(run, before[1])


# --- 7. ids of every kind, and runs that match no judgment ---------------------


@pytest.mark.parametrize("dtype", ["uint64", "UInt64"])
def test_unsigned_ids_of_any_size_match_the_same_id_as_text(dtype):
    big = 2**63 + 5
    def ids(*values):  # through numpy: pd.array([2**63 + 5], dtype="uint64") rounds through a float
        return pd.array(np.array(values, dtype=np.uint64), dtype=dtype)

    qrels = pd.DataFrame({"qid": ["q", "q"], "docno": ids(big, 1), "grade": [1, 0]})
    run = run_of([("q", "1", 2.0), ("q", str(big), 1.0)])
    assert evaluate(qrels, run, "RR").means["RR"] == pytest.approx(0.5)
    numbers = run.assign(docno=ids(1, big))
    assert evaluate(qrels, numbers, "RR").means["RR"] == pytest.approx(0.5)
    small = qrels.assign(docno=ids(7, 1))  # small unsigned ids match signed ones
    assert evaluate(small, run_of([("q", 7, 1.0)]), "RR").means["RR"] == pytest.approx(1.0)


def never_warns(*args, **options) -> Evaluation:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DocnoMatchWarning)
        warnings.simplefilter("error", RunOrderWarning)
        return evaluate(*args, **options)


@pytest.mark.parametrize("returned", ["7.0", "007", "7 "])
def test_a_run_whose_docnos_match_no_judgment_warns_and_strict_refuses(returned):
    qrels = pd.DataFrame({"qid": ["q", "q"], "docno": [7, 8], "grade": [1, 0]})
    run = run_of([("q", returned, 1.0)])
    compared = rf"run docno '{returned}' \(str\) vs qrels docno 7 \(int64\)"
    with pytest.warns(DocnoMatchWarning) as caught:
        result = evaluate(qrels, run, "RR")
    messages = [str(warning.message) for warning in caught]
    assert any(re.search(rf"no returned document has a judgment.*{compared}", text) for text in messages)
    near = f"run docno '{returned}' and qrels docno '7'"  # '007' and '7 ' equal 7 once normalised, '7.0' not
    assert any(near in text for text in messages) == (returned != "7.0")
    assert result.means["RR"] == 0.0
    with pytest.raises(ValueError, match=compared):
        evaluate(qrels, run, "RR", strict=True)
    assert never_warns(qrels, run_of([("q", "7", 1.0)]), "RR").means["RR"] == 1.0


def test_a_run_file_matching_no_judgment_names_both_files(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("q 0 D1 1\n")
    run = tmp_path / "r.txt"
    run.write_text("q Q0 d1 1 1.0 s\n")
    with pytest.raises(ValueError, match=rf"run docno 'd1' \(str, {run}\) vs qrels docno 'D1' \(str, {qrels}\)"):
        evaluate(qrels, run, "RR", strict=True)


def test_fewer_queries_with_a_judged_document_than_the_stated_share_warn():
    n = 40
    qrels = qrels_of([(f"q{i}", "a", 1) for i in range(n)])
    needed = int(np.ceil(MATCH_SHARE * n))  # queries that must return a judged document
    matching = run_of([(f"q{i}", "a" if i < needed else "x", 1.0) for i in range(n)])
    assert never_warns(qrels, matching, "RR").means["RR"] == pytest.approx(needed / n)
    too_few = run_of([(f"q{i}", "a" if i < needed - 1 else "x", 1.0) for i in range(n)])
    with pytest.warns(DocnoMatchWarning, match=f"only {needed - 1} of {n} queries"):
        evaluate(qrels, too_few, "RR")
    with pytest.raises(ValueError, match=f"only {needed - 1} of {n} queries"):
        evaluate(qrels, too_few, "RR", strict=True)


def test_strict_must_be_a_flag():
    with pytest.raises(TypeError, match="strict must be True or False"):
        evaluate(GOOD_QRELS, GOOD_RUN, "AP", strict="yes")


def test_one_judgment_per_query_in_a_deep_run_does_not_warn():
    # MS MARCO's shape: about one judged document per query, a thousand returned (0.1 % judged)
    qrels = qrels_of([(f"q{i}", "d0", 1) for i in range(5)])
    run = run_of([(f"q{i}", f"d{j}", 1000.0 - j) for i in range(5) for j in range(1000)])
    assert never_warns(qrels, run, "RR").means["RR"] == 1.0
