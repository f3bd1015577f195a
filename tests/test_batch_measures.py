"""The measures trec_eval has and lesson 09 added (Rprec, bpref, num_rel, num_rel_ret, num_ret, Judged@k,
gain maps, comma lists): against the trec_eval 10.0 binary on 200 random pairs, and against ir_measures.

``tests/data/trec_eval/random_pairs.json.gz`` holds 200 small random qrels/run pairs (ties, negative
grades, missing queries) and what the trec_eval 10.0 binary printed for each, to 17 digits, with ``-c``,
``-c -l2`` and ``-c -J -M4``; ``make_random_pairs.py`` beside it wrote it (CI has no trec_eval). The
pairs are evaluated in one call per option set, each pair's queries renamed ``p<pair>:<qid>`` (every
measure is per query, so the pairs do not meet).

Where they differ, a test names it:

- Judged@k is ir_measures' Judged: the judged share of the top k, over min(k, documents returned), a
  judgment of any grade counting; trec_eval's nearest measure, ``unj_k``, divides by k and counts a
  negative grade as unjudged;
- ir_measures breaks score ties by docno ascending, trec_eval (and ``evaluate``) descending;
- trec_eval sorts a gain map's gains by their whole-number difference, so gains less than 1 apart may
  be ordered wrongly in its ideal ranking (``ndcg.2=0.5`` gave nDCG 1.3155 > 1); ``evaluate`` sorts
  them exactly;
- the ``all`` line of num_rel with ``-c`` counts every judgment with grade >= 1, whatever ``-l`` says.
"""

from __future__ import annotations

import gzip
import io
import json
import warnings
from dataclasses import replace
from functools import cache

import numpy as np
import pandas as pd
import pytest

from helpers.batch import RunOrderWarning, evaluate, parse_measure, parse_measures, rank_run
from helpers.batch.measures import COUNTS, MEASURES
from tests.test_evaluate import EXACT, TREC_EVAL, qrels_of, run_of

PAIRS = TREC_EVAL / "random_pairs.json.gz"
OURS = {  # trec_eval's printed name -> our measure (before -l)
    "num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret", "Rprec": "Rprec",
    "bpref": "bpref", "ndcg_1=3,2=1": "nDCG(gains={1:3,2:1})", "unj_1": "unj@1", "unj_3": "unj@3", "unj_5": "unj@5",
}
SETS = {"c": {}, "c_l2": {"rel": 2}, "c_J_M4": {"judged_only": True, "depth": 4}}
JUDGED_CUTOFFS = (1, 3, 5)


@cache
def random_pairs() -> dict:
    with gzip.open(PAIRS, "rt") as handle:
        return json.load(handle)


def read_lines(text: str, columns: list[str]) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), sep=" ", header=None, names=columns, dtype=str)


@cache
def all_pairs() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every pair's qrels and run in one frame each, query ids renamed p<pair>:<qid>."""
    qrels, runs = [], []
    for number, pair in enumerate(random_pairs()["pairs"]):
        judged = read_lines(pair["qrels"], ["qid", "iter", "docno", "grade"])
        run = read_lines(pair["run"], ["qid", "iter", "docno", "rank", "score", "tag"])
        qrels.append(judged.assign(qid=f"p{number}:" + judged["qid"], grade=judged["grade"].astype(int)))
        runs.append(run.assign(qid=f"p{number}:" + run["qid"], score=run["score"].astype(float),
                               rank=run["rank"].astype(int)))
    return (pd.concat(qrels, ignore_index=True)[["qid", "docno", "grade"]],
            pd.concat(runs, ignore_index=True)[["qid", "docno", "score", "rank"]])


def binary_values(option_set: str) -> pd.DataFrame:
    """What trec_eval printed: one row per (pair, qid, measure), qid "all" for the summary."""
    rows = []
    for number, output in enumerate(random_pairs()["outputs"][option_set]):
        for line in output.splitlines():
            name, qid, value = line.split("\t")
            rows.append((number, qid, name.strip(), float(value)))
    return pd.DataFrame(rows, columns=["pair", "qid", "measure", "value"])


def our_values(option_set: str) -> pd.DataFrame:
    options = dict(SETS[option_set])
    rel = options.pop("rel", 1)  # trec_eval's -l, on every measure that takes it
    measures = [parse_measure(text) for text in OURS.values()]
    measures = [replace(m, rel=rel) if "rel" in MEASURES[m.name][2] else m for m in measures]
    judged = [parse_measure(f"Judged@{k}") for k in JUDGED_CUTOFFS]
    qrels, run = all_pairs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RunOrderWarning)  # random scores: some rise with the rank
        result = evaluate(qrels, run, [*measures, *judged], **options)
    table = result.per_query.copy()
    table.columns = [*OURS, *(f"Judged@{k}" for k in JUDGED_CUTOFFS)]
    return table


@pytest.mark.parametrize("option_set", SETS)
def test_new_measures_equal_the_trec_eval_binary_per_query(option_set):
    ours = our_values(option_set)
    expected = binary_values(option_set)
    per_query = expected[(expected["qid"] != "all") & expected["measure"].isin(OURS)]
    assert per_query["pair"].nunique() == 200 and len(per_query) > 3000
    keys = "p" + per_query["pair"].astype(str) + ":" + per_query["qid"]
    got = [ours.loc[key, name] for key, name in zip(keys, per_query["measure"], strict=True)]
    np.testing.assert_allclose(got, per_query["value"].to_numpy(), atol=1e-12, rtol=0)
    assert len(ours) == len(set(keys))  # the same queries: every qrels query of every pair (-c)


@pytest.mark.parametrize("option_set", SETS)
def test_the_all_lines_equal_the_trec_eval_binary(option_set):
    ours = our_values(option_set)
    pair = ours.index.str.extract(r"^p(\d+):", expand=False).astype(int).to_numpy()
    expected = binary_values(option_set)
    summary = expected[(expected["qid"] == "all") & expected["measure"].isin(OURS)]
    qrels, _ = all_pairs()
    graded_one_or_more = (qrels["grade"] >= 1).groupby(qrels["qid"].str.extract(r"^p(\d+):", expand=False)
                                                       .astype(int)).sum()
    for number, name, value in summary[["pair", "measure", "value"]].itertuples(index=False):
        column = ours[name][pair == number]
        if name == "num_rel":  # -c: trec_eval counts every grade >= 1, whatever -l says
            assert value == graded_one_or_more[number]
            assert value == column.sum() or option_set == "c_l2"
        elif name in COUNTS:
            assert value == column.sum()
        else:
            assert value == pytest.approx(column.mean(), abs=1e-12), (number, name)


@pytest.mark.parametrize("option_set", SETS)
def test_judged_at_k_is_trec_eval_s_unjudged_turned_round_with_ir_measures_rules(option_set):
    # unj_k: unjudged (no judgment, or a negative grade) in the top k, over k. Judged@k (ir_measures):
    # judged (any grade) in the top k, over min(k, documents returned)
    ours = our_values(option_set)
    expected = binary_values(option_set)
    options = {key: value for key, value in SETS[option_set].items() if key != "rel"}
    qrels, run = all_pairs()
    ranked = rank_run(run, depth=options.get("depth"))
    grades = ranked.merge(qrels, on=["qid", "docno"], how="left")
    if options.get("judged_only"):
        grades = grades[grades["grade"] >= 0].assign(rank=lambda frame: frame.groupby("qid").cumcount() + 1)
    checked = 0
    for k in JUDGED_CUTOFFS:
        unj = expected[expected["measure"] == f"unj_{k}"]
        unj = unj[unj["qid"] != "all"]
        top = grades[grades["rank"] <= k]
        shown = top.groupby("qid").size()
        negative = (top["grade"] < 0).groupby(top["qid"]).sum()
        for number, qid, value in unj[["pair", "qid", "value"]].itertuples(index=False):
            key = f"p{number}:{qid}"
            n = shown.get(key, 0)
            judged = k * (1 - value) - (k - n) + negative.get(key, 0)  # unj's fill-in for a short list undone
            assert ours.loc[key, f"Judged@{k}"] == pytest.approx(judged / n if n else 0.0, abs=1e-12)
            checked += 1
    assert checked > 1500


@pytest.mark.reference
def test_judged_at_k_equals_ir_measures_judged_on_the_random_pairs():
    import ir_measures
    from ir_measures import Judged

    qrels, run = all_pairs()
    ranked = rank_run(run)  # scores by trec_eval's order, so ir_measures' ascending tie order cannot differ
    ranked = ranked.assign(score=-ranked["rank"].astype(float))
    measures = [Judged @ k for k in JUDGED_CUTOFFS]
    theirs = {(metric.query_id, str(metric.measure)): metric.value for metric in ir_measures.iter_calc(
        measures, qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "grade": "relevance"}),
        ranked.rename(columns={"qid": "query_id", "docno": "doc_id"}))}
    ours = evaluate(qrels, ranked, [f"Judged@{k}" for k in JUDGED_CUTOFFS]).per_query  # a missing query: 0
    assert len(theirs) == len(ours) * len(JUDGED_CUTOFFS) > 1500
    for (qid, name), value in theirs.items():
        assert ours.loc[qid, name] == pytest.approx(value, abs=EXACT)


@pytest.mark.reference
def test_ir_measures_judged_breaks_ties_by_docno_ascending():
    import ir_measures
    from ir_measures import Judged

    qrels = qrels_of([("q", "a", 1)])
    run = run_of([("q", "a", 1.0), ("q", "b", 1.0)])  # tied: trec_eval ranks b first, ir_measures a
    ours = evaluate(qrels, run, "Judged@1", missing="skip").means["Judged@1"]
    theirs = ir_measures.calc_aggregate([Judged @ 1], qrels.rename(
        columns={"qid": "query_id", "docno": "doc_id", "grade": "relevance"}), {"q": {"a": 1.0, "b": 1.0}})
    assert (ours, theirs[Judged @ 1]) == (0.0, 1.0)


def test_judged_on_the_trec_eval_suite_is_one_minus_its_unj():
    # results.test returns 500 documents for every query and qrels.test has no negative grade: there the
    # two measures are one
    expected = pd.read_csv(TREC_EVAL / "10.0" / "out.test.aq", sep="\t", header=None,
                           names=["measure", "qid", "value"], dtype=str)
    expected["measure"] = expected["measure"].str.strip()
    result = evaluate(TREC_EVAL / "qrels.test", TREC_EVAL / "results.test", ["Judged@5", "Judged@10", "Judged@20"],
                      missing="skip")
    compared = 0
    for k in (5, 10, 20):
        for qid, value in expected[expected["measure"] == f"unj_{k}"][["qid", "value"]].itertuples(index=False):
            ours = result.means[f"Judged@{k}"] if qid == "all" else result.per_query.loc[qid, f"Judged@{k}"]
            assert ours == pytest.approx(1 - float(value), abs=5e-5)
            compared += 1
    assert compared == 12


# --- gain maps and lists ------------------------------------------------------------------


def test_a_gain_map_equals_remapped_grades_and_trec_eval_s_syntax_names_it():
    qrels = qrels_of([("q", "a", 1), ("q", "b", 2), ("q", "c", 3), ("q", "d", 0)])
    run = run_of([("q", doc, 4.0 - i) for i, doc in enumerate("dcba")])
    mapped = evaluate(qrels, run, ["nDCG(gains={1:3,2:9,3:1})", "ndcg.1=3,2=9,3=1", "nDCG(gains={1:3,2:9,3:1})@2"])
    remapped = evaluate(qrels.assign(grade=qrels["grade"].map({0: 0, 1: 3, 2: 9, 3: 1})), run, ["nDCG", "nDCG@2"])
    assert list(mapped.per_query.columns) == ["nDCG(gains={1:3,2:9,3:1})", "nDCG(gains={1:3,2:9,3:1})@2"]
    assert mapped.means.tolist() == pytest.approx(remapped.means.tolist(), abs=EXACT)


def test_gains_below_one_apart_are_sorted_exactly_unlike_trec_eval():
    # measured with the trec_eval 10.0 binary: `trec_eval -q -m ndcg.2=0.5` on these files prints
    # ndcg_2=0.5 q1 1.3155 (above 1: its sort of the gains compares their whole-number difference, and
    # the grade-2 document, gain 0.5, fell below grade 0 and out of the ideal ranking)
    trec_eval_q1 = 1.3155
    qrels = qrels_of([("q1", "a", 1), ("q1", "b", 2), ("q1", "c", 0)])
    run = run_of([("q1", "a", 3.0), ("q1", "b", 2.0), ("q1", "d", 1.0)])
    ours = evaluate(qrels, run, "ndcg.2=0.5").means.iloc[0]
    assert ours == pytest.approx(1.0)  # a and b in the ideal order: the ranking is ideal
    dcg = 1 + 0.5 / np.log2(3)
    assert trec_eval_q1 == pytest.approx(dcg / 1.0, abs=5e-5)  # trec_eval's ideal kept only a


def test_a_gain_of_zero_for_grade_zero_and_negative_gains():
    qrels = qrels_of([("q", "a", 0), ("q", "b", 1), ("q", "c", 2)])
    run = run_of([("q", "a", 3.0), ("q", "c", 2.0), ("q", "b", 1.0)])
    values = evaluate(qrels, run, ["CG(gains={0:1,2:-1})", "nDCG(gains={0:1,2:-1})"]).means
    assert values.iloc[0] == 1 - 1 + 1  # a gains 1, c gains -1, b keeps its grade 1
    ideal = 1 + 1 / np.log2(3)  # the two documents with a positive gain, best first
    assert values.iloc[1] == pytest.approx((1 - 1 / np.log2(3) + 1 / 2) / ideal)


@pytest.mark.parametrize(("text", "names"), [
    ("P.5,10", ["P@5", "P@10"]), ("ndcg_cut.10,20,23.4", ["nDCG@10", "nDCG@20", "nDCG@23"]),
    ("success.20,2,5", ["Hit@2", "Hit@5", "Hit@20"]), ("map_cut.5,100", ["AP@5", "AP@100"]),
    ("recall.20,2000", ["R@20", "R@2000"]), ("Rprec", ["Rprec"]), ("bpref(rel=2)", ["bpref(rel=2)"]),
    ("judged@10", ["Judged@10"]), ("Judged", ["Judged"]), ("NUM_RET", ["num_ret"]),
    ("nDCG(gains={0:0, 1:1, 2:3})@5", ["nDCG(gains={0:0,1:1,2:3})@5"]),
])
def test_trec_eval_lists_and_the_new_names(text, names):
    assert [str(measure) for measure in parse_measures(text)] == names


@pytest.mark.parametrize(("text", "message"), [
    ("P.5,10", "names 2 measures"), ("P.5,5", "listed twice"), ("P.0,5", "whole number >= 1"),
    ("yaap.0.1,0.2", "lists after a '.' are supported for"), ("Rprec@5", "takes no cutoff"),
    ("num_ret(rel=2)", "num_ret takes no parameters"), ("ndcg.x=1", "grade=gain pairs"),
    ("ndcg.-1=2", "grades 0 and above"), ("ndcg.1=2,1=3", "two gains"), ("nDCG(gains={1:high})", "a number"),
    ("nDCG(gains=1:2)", "write a gain map as"), ("nDCG(gain=exp,gains={1:2})", "not both"),
    ("Judged(rel=2)@5", "Judged takes no parameters"),
])
def test_bad_new_names_are_refused_with_a_reason(text, message):
    with pytest.raises(ValueError, match=message):
        parse_measure(text)


@pytest.mark.parametrize("module", ["trec_io", "measures", "registry", "evaluation", "reference", "comparison"])
def test_the_docstring_examples_of_helpers_batch_hold(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"helpers.batch.{module}"))
    assert result.failed == 0 and result.attempted > 0


# --- a trec_eval name means what trec_eval computes ------------------------------------------


@pytest.mark.parametrize(("text", "canonical", "suggestion"), [
    ("recip_rank.2", "RR", "RR@2?"), ("recip_rank_2", "RR", "RR@2?"), ("map.5", "AP", "AP@5?"),
    ("map_5", "AP", "AP@5?"), ("bpref.3", "bpref", None), ("Rprec.5", "Rprec", None),
    ("num_ret.10", "num_ret", None), ("map.5,10", "AP", None),
])
def test_a_parameter_trec_eval_ignores_is_ignored_with_a_warning(text, canonical, suggestion):
    from helpers.batch.measures import TrecNameWarning

    with pytest.warns(TrecNameWarning, match="trec_eval ignores the parameter") as caught:
        measures = parse_measures(text)
    assert [str(measure) for measure in measures] == [canonical]
    message = str(caught[0].message)
    assert (f"Did you mean {suggestion}" in message) if suggestion else ("Did you mean" not in message)


@pytest.mark.parametrize(("text", "message"), [
    ("ndcg.5", "trec_eval refuses this name.*'ndcg_cut.5'"), ("nDCG_10", "trec_eval refuses"),
    ("MRR.10", "'mrr' is not a trec_eval measure; write 'RR@10'"), ("Hit_3", "write 'Hit@3'"),
    ("RR.2", "write 'RR@2'"),
])
def test_a_name_trec_eval_refuses_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_measure(text)


@pytest.mark.parametrize("text", ["ndcg_cut_10", "ndcg_cut.10", "P_5", "recall.100", "success_1", "map_cut_10"])
def test_trec_eval_cutoffs_stay_cutoffs_without_a_warning(text):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parse_measure(text).cutoff is not None


def test_recip_rank_2_and_map_5_give_trec_eval_s_values_on_example_c():
    """pytrec_eval on example C (test_library_claims runs it): recip_rank.2 0.5667, map.5 0.4900."""
    from helpers import load_example
    from helpers.batch.measures import TrecNameWarning

    example = load_example("C")
    run = example.runs[example.runs["system"] == "search"]
    with pytest.warns(TrecNameWarning):
        trec_names = evaluate(example.judgments, run, ["recip_rank.2", "map.5"]).means
    ours = evaluate(example.judgments, run, ["RR", "AP", "RR@2", "AP@5"]).means
    assert trec_names.tolist() == [ours["RR"], ours["AP"]]
    assert (round(ours["RR"], 4), round(ours["AP"], 4)) == (0.5667, 0.49)
    assert (round(ours["RR@2"], 4), round(ours["AP@5"], 4)) == (0.5, 0.4633)  # what the names used to give
