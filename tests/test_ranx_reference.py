"""The collection against ranx (requirements-test.txt), on the golden sets and on random runs (lessons 08, 09).

Every measure ranx shares with the collection is compared query by query, to 1e-9, with
``helpers.batch.evaluate`` (DCG with ``helpers.metrics.dcg``): ``hit_rate@k`` is Hit@k, ``hits@k`` is k·P@k,
``hits`` num_rel_ret, ``precision@k`` P@k, ``recall@k`` R@k, ``r-precision`` Rprec, ``mrr`` and ``mrr@k`` RR and
RR@k (ranx honours the cutoff, as the collection does and trec_eval's ``recip_rank`` does not), ``map`` and
``map@k`` AP and AP@k (both over R), ``ndcg`` and ``ndcg@k`` nDCG and nDCG@k (linear gain, the ideal from every
judged document), ``ndcg_burges@k`` nDCG(gain=exp)@k, ``dcg@k`` and ``dcg_burges@k`` DCG@k with linear and
exponential gain, ``bpref`` bpref, and a ranx name ending in ``-l2`` the collection's ``rel=2``.

Where the conventions differ, a test names the difference and asserts it (lesson 08, "ranx"):

- ties: ranx keeps tied documents in the order they were given (five tied: every one of the 120 orders), but not
  from 16 tied documents on; trec_eval and the collection order them by doc id, descending. The golden sets hold
  one tie (example D, question d2), where the two give different numbers;
- a query of the qrels missing from the run: ``AssertionError``, unless ``make_comparable=True``, which scores it
  0, as the collection's default ``missing="zero"`` does;
- ``-l2`` also takes the gains of grade-1 documents out of nDCG (the collection's ``nDCG(gains={1:0})``), which
  trec_eval's relevance level does not do;
- bpref of a query with no judged non-relevant document: 0/0, NaN, in ranx; trec_eval and the collection count
  each relevant document retrieved as 1. And in ranx 0.3.21, a query without a relevant judged document stops
  bpref's loop over the queries (in id order): it and every query after it score 0; the collection scores that
  query 0 and the others as they are.

ranx compiles its numba code on first use (once per machine and venv path: numba caches it in the NUMBA_CACHE_DIR
tests/conftest.py sets), for each width of doc id it meets; every doc id ranx is given here is renamed to one width
first (``ranx_input``). On a whole run tests/conftest.py compiles it in the background from the start
(tests/ranx_warm_up.py), and this module waits for that (ranx_compiled).
"""

from __future__ import annotations

import itertools
import json
import math
import os
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # ranx's parallel loops: one thread, beside the other test worker

import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from ranx import Qrels, Run  # noqa: E402
from ranx import evaluate as ranx_evaluate  # noqa: E402

from helpers import load_example, metrics  # noqa: E402
from helpers.batch import evaluate  # noqa: E402
from tests.test_evaluate import MATCHES_LITTLE  # noqa: E402

pytestmark = [pytest.mark.reference, pytest.mark.usefixtures("ranx_compiled")]  # the field's against ours

K = 3
# ranx's name -> the collection's, for every measure both have
SHARED = {
    f"hit_rate@{K}": f"Hit@{K}", f"precision@{K}": f"P@{K}", f"recall@{K}": f"R@{K}", "r-precision": "Rprec",
    "mrr": "RR", f"mrr@{K}": f"RR@{K}", "map": "AP", f"map@{K}": f"AP@{K}", "ndcg": "nDCG", f"ndcg@{K}": f"nDCG@{K}",
    f"ndcg_burges@{K}": f"nDCG(gain=exp)@{K}", "bpref": "bpref", "hits": "num_rel_ret",
    "mrr-l2": "RR(rel=2)", f"map@{K}-l2": f"AP(rel=2)@{K}", f"precision@{K}-l2": f"P(rel=2)@{K}",
    f"recall@{K}-l2": f"R(rel=2)@{K}", f"hit_rate@{K}-l2": f"Hit(rel=2)@{K}", "r-precision-l2": "Rprec(rel=2)",
    f"ndcg@{K}-l2": f"nDCG(gains={{1:0}})@{K}", f"ndcg_burges@{K}-l2": f"nDCG(gains={{1:0,2:3,3:7}})@{K}",
}
EXAMPLES = ["A", "B", "C", "D", "E"]


def nested(table: pd.DataFrame, value: str, kind=float) -> dict:
    """qid -> docno -> value, in the table's row order (ranx keeps the order of tied documents as given)."""
    result: dict = {}
    for qid, docno, number in table[["qid", "docno", value]].itertuples(index=False):
        result.setdefault(str(qid), {})[str(docno)] = kind(number)
    return result


def ranx_input(qrels: dict, run: dict) -> tuple[Qrels, Run]:
    """ranx's Qrels and Run of two qid -> docno -> value dicts, every docno renamed to one width, the same in both.

    ranx holds a run's doc ids in a NumPy string array as wide as its longest id, and numba compiles ranx's kernels
    again for each width: these tests' ids, of six widths, had cost six compilings (about 100 of their 140 CPU
    seconds in a fresh venv). ranx compares ids only for equality and keeps documents in the order given, so the
    new names change no number.
    """
    names: dict[str, str] = {}

    def renamed(table: dict) -> dict:
        return {qid: {names.setdefault(docno, f"doc{len(names):05d}"): value for docno, value in documents.items()}
                for qid, documents in table.items()}

    return Qrels(renamed(qrels)), Run(renamed(run))


def ranx_per_query(qrels: pd.DataFrame, run: pd.DataFrame, names) -> dict[str, dict[str, float]]:
    """ranx's value of each measure for each query of the qrels (a query missing from the run scores 0)."""
    ranx_qrels, ranx_run = ranx_input(nested(qrels, "grade", int), nested(run, "score"))
    ranx_evaluate(ranx_qrels, ranx_run, list(names), make_comparable=True)
    return {name: dict(ranx_run.scores[name]) for name in names}


def golden(name: str, system: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A golden set's judgments and one system's run as qrels and run frames, the run in its rank order."""
    example = load_example(name)
    qrels = example.judgments.rename(columns={"query_id": "qid", "doc_id": "docno"})
    run = example.runs[example.runs["system"] == system].sort_values(["query_id", "rank"], kind="stable")
    return qrels, run.rename(columns={"query_id": "qid", "doc_id": "docno"})[["qid", "docno", "score", "rank"]]


def golden_runs():
    return [(name, system) for name in EXAMPLES for system in load_example(name).systems]


def assert_agree(theirs: dict, ours: pd.DataFrame, names=SHARED) -> None:
    for ranx_name in names:
        for qid in ours.index:
            assert theirs[ranx_name][str(qid)] == pytest.approx(ours.loc[qid, SHARED[ranx_name]], abs=1e-9), (
                f"{ranx_name} / {SHARED[ranx_name]}, query {qid}")


# --- the golden sets ------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "system"), golden_runs())
def test_ranx_agrees_with_the_collection_on_the_golden_sets_once_ties_are_in_the_run_s_order(name, system):
    qrels, run = golden(name, system)
    theirs = ranx_per_query(qrels, run, SHARED)
    in_file_order = run.assign(score=-run["rank"].astype(float))  # no ties left: the file's own order
    assert_agree(theirs, evaluate(qrels, in_file_order, list(SHARED.values())).per_query)


@pytest.mark.parametrize(("name", "system"), golden_runs())
def test_the_golden_sets_hold_one_tie_and_only_there_ranx_and_the_collection_differ(name, system):
    """Example D, d2: c-0212 and c-0215 share 0.79; ranx keeps the file's order, trec_eval puts c-0215 first."""
    qrels, run = golden(name, system)
    theirs = ranx_per_query(qrels, run, SHARED)
    ours = evaluate(qrels, run, list(SHARED.values())).per_query
    tied = {qid for qid, scores in run.groupby("qid")["score"] if scores.duplicated().any()}
    assert tied == ({"d2"} if name == "D" else set())
    assert_agree(theirs, ours.drop(index=list(tied)))
    if tied:
        ranked_as_given = list(run[run["qid"] == "d2"]["docno"])
        assert ranked_as_given.index("c-0215") + 1 == 3 == 1 / theirs["mrr"]["d2"]
        assert ours.loc["d2", "RR"] == pytest.approx(1 / 2)  # trec_eval: c-0215 before c-0212 (ids descending)


@pytest.mark.parametrize(("name", "system"), golden_runs())
def test_ranx_dcg_is_the_collection_s_dcg_with_linear_and_exponential_gain(name, system):
    qrels, run = golden(name, system)
    theirs = ranx_per_query(qrels, run, [f"dcg@{K}", f"dcg_burges@{K}"])
    example = load_example(name)
    for qid in example.query_ids:
        grades = metrics.grades_in_rank_order(example.ranking(system, qid), example.judgments_for(qid))
        assert theirs[f"dcg@{K}"][qid] == pytest.approx(metrics.dcg(grades, K), abs=1e-9)
        assert theirs[f"dcg_burges@{K}"][qid] == pytest.approx(metrics.dcg(grades, K, gain="exponential"), abs=1e-9)


def test_lesson_08_s_ranx_figures_are_ranx_s_own_output():
    """Lesson 08, "ranx": example C's nDCG@5 of reset-password and its MRR@2, as ranx computes them."""
    lesson = next((Path(__file__).resolve().parent.parent / "notebooks").glob("08_*.ipynb"))
    text = " ".join("".join(cell["source"]) for cell in json.loads(lesson.read_text(encoding="utf-8"))["cells"])
    qrels, run = golden("C", "search")
    theirs = ranx_per_query(qrels, run, ["ndcg@5", "mrr@2"])
    mrr_at_2 = sum(theirs["mrr@2"].values()) / len(theirs["mrr@2"])
    assert f"(example C: {theirs['ndcg@5']['reset-password']:.4f})" in text
    assert f"(example C: MRR@2 {mrr_at_2:.4f})" in text


def test_ranx_hits_at_k_is_k_times_precision_at_k():
    qrels, run = golden("C", "search")
    theirs = ranx_per_query(qrels, run, [f"hits@{K}"])
    ours = evaluate(qrels, run, [f"P@{K}"]).per_query
    for qid in ours.index:
        assert theirs[f"hits@{K}"][qid] == pytest.approx(K * ours.loc[qid, f"P@{K}"], abs=1e-9)


# --- random runs ----------------------------------------------------------------------------

DOCNOS = [f"d{number}" for number in range(12)]


@st.composite
def collections(draw):
    """1-4 queries, 1-6 judged documents each (grades 0-3), 1-8 returned with distinct scores; some queries not run."""
    qrels_rows, run_rows = [], []
    for number in range(draw(st.integers(1, 4))):
        qid = f"q{number}"
        judged = draw(st.lists(st.sampled_from(DOCNOS), min_size=1, max_size=6, unique=True))
        qrels_rows += [(qid, docno, draw(st.integers(0, 3))) for docno in judged]
        if number == 0 or draw(st.booleans()):
            returned = draw(st.lists(st.sampled_from(DOCNOS), min_size=1, max_size=8, unique=True))
            scores = draw(st.lists(st.integers(0, 99), min_size=len(returned), max_size=len(returned), unique=True))
            run_rows += [(qid, docno, float(score)) for docno, score in zip(returned, scores, strict=True)]
    return (pd.DataFrame(qrels_rows, columns=["qid", "docno", "grade"]),
            pd.DataFrame(run_rows, columns=["qid", "docno", "score"]))


def bpref_comparable(qrels: pd.DataFrame) -> list[str]:
    """The queries whose bpref ranx computes as trec_eval does (if one query has nothing relevant: none)."""
    if set(qrels[qrels["grade"] >= 1]["qid"]) != set(qrels["qid"]):
        return []
    return sorted(set(qrels[qrels["grade"] < 1]["qid"]))  # a judged non-relevant document: no 0/0


@MATCHES_LITTLE  # a random run often returns nothing judged: the collection warns, ranx does not
@settings(max_examples=80, deadline=None)
@given(collections())
def test_ranx_agrees_with_the_collection_on_random_runs(collection):
    qrels, run = collection
    theirs = ranx_per_query(qrels, run, SHARED)
    ours = evaluate(qrels, run, list(SHARED.values())).per_query
    assert_agree(theirs, ours, [name for name in SHARED if name != "bpref"])
    assert_agree(theirs, ours.loc[bpref_comparable(qrels)], ["bpref"])


# --- where the conventions differ -----------------------------------------------------------


def test_ranx_keeps_five_tied_documents_in_the_order_given_and_trec_eval_orders_them_by_id():
    """Lesson 08: in all 120 insertion orders of five tied documents, the relevant one lands where it was put."""
    for order in itertools.permutations(["d1", "d2", "d3", "d4", "d5"]):
        qrels, run = ranx_input({"q": {"d2": 1}}, {"q": dict.fromkeys(order, 0.5)})
        assert ranx_evaluate(qrels, run, "mrr") == 1 / (order.index("d2") + 1)
    tied = pd.DataFrame({"qid": "q", "docno": ["d1", "d2", "d3", "d4", "d5"], "score": 0.5})
    ours = evaluate(pd.DataFrame({"qid": ["q"], "docno": ["d2"], "grade": [1]}), tied, ["RR"]).per_query
    assert ours.loc["q", "RR"] == 1 / 4  # d5, d4, d3, d2: ids descending


def test_ranx_no_longer_keeps_that_order_from_16_tied_documents():
    """Lesson 08: with 16 tied documents, the first one given came 15th."""
    for count, rank in ((15, 1), (16, 15)):
        ids = [f"t{number:02d}" for number in range(count)]
        qrels, run = ranx_input({"q": {ids[0]: 1}}, {"q": dict.fromkeys(ids, 0.5)})
        assert ranx_evaluate(qrels, run, "mrr") == 1 / rank


def test_a_query_missing_from_the_run_is_refused_unless_made_comparable_then_scores_0():
    qrels, run = ranx_input({"q": {"a": 1}, "p": {"b": 1}}, {"q": {"a": 1.0}})
    with pytest.raises(AssertionError, match="make_comparable=True"):
        ranx_evaluate(qrels, run, "mrr")
    assert ranx_evaluate(qrels, run, "mrr", make_comparable=True) == 0.5
    ours = evaluate(pd.DataFrame({"qid": ["q", "p"], "docno": ["a", "b"], "grade": [1, 1]}),
                    pd.DataFrame({"qid": ["q"], "docno": ["a"], "score": [1.0]}), ["RR"])
    assert ours.missing_queries == ("p",) and ours.per_query.loc["p", "RR"] == 0 and ours.means["RR"] == 0.5


def test_ranx_l2_drops_grade_1_gains_from_ndcg_which_trec_eval_s_level_does_not():
    """Lesson 08: ``ndcg@5-l2`` is the collection's nDCG(gains={1:0})@5, not nDCG@5 (trec_eval -l2)."""
    qrels, run = golden("C", "search")
    theirs = ranx_per_query(qrels, run, ["ndcg@5-l2"])["ndcg@5-l2"]
    ours = evaluate(qrels, run, ["nDCG(gains={1:0})@5", "nDCG@5"]).per_query
    assert [theirs[qid] for qid in ours.index] == pytest.approx(list(ours["nDCG(gains={1:0})@5"]), abs=1e-9)
    assert any(not math.isclose(theirs[qid], ours.loc[qid, "nDCG@5"]) for qid in ours.index)


def test_ranx_bpref_without_a_judged_non_relevant_document_is_nan_and_trec_eval_s_counts_each_found():
    qrels = pd.DataFrame({"qid": "q", "docno": ["a", "b"], "grade": [1, 2]})  # both relevant: nothing non-relevant
    run = pd.DataFrame({"qid": "q", "docno": ["a", "x"], "score": [1.0, 0.5]})
    assert math.isnan(ranx_per_query(qrels, run, ["bpref"])["bpref"]["q"])
    assert evaluate(qrels, run, ["bpref"]).per_query.loc["q", "bpref"] == 1 / 2  # a found, b not: (1 + 0) / R


def test_a_query_without_a_relevant_document_makes_ranx_s_bpref_0_from_there_on():
    """Queries a, m, z (ranx's order): m has nothing relevant; a and z find their one relevant document first."""
    qrels = pd.DataFrame({"qid": ["a", "a", "m", "z", "z"], "docno": ["d0", "d1", "x", "d0", "d1"],
                          "grade": [1, 0, 0, 1, 0]})
    run = pd.DataFrame({"qid": ["a", "a", "m", "z", "z"], "docno": ["d0", "d1", "x", "d0", "d1"],
                        "score": [2.0, 1.0, 1.0, 2.0, 1.0]})
    assert ranx_per_query(qrels, run, ["bpref"])["bpref"] == {"a": 1.0, "m": 0.0, "z": 0.0}
    without_m = ranx_per_query(qrels[qrels["qid"] != "m"], run[run["qid"] != "m"], ["bpref"])["bpref"]
    assert without_m == {"a": 1.0, "z": 1.0}
    assert evaluate(qrels, run, ["bpref"]).per_query["bpref"].to_dict() == {"a": 1.0, "m": 0.0, "z": 1.0}


def test_ranx_s_compiled_kernels_are_where_the_next_run_looks_for_them():
    """tests/conftest.py sets NUMBA_CACHE_DIR and skips the warm-up where ranx's kernels are cached: numba wrote them
    where conftest looks (after this module's tests, whichever run compiled them)."""
    import ranx

    from tests.conftest import numba_cache_of, ranx_cached

    measures = Path(ranx.__file__).parent / "metrics"
    cache = numba_cache_of(measures)
    assert cache is not None, "tests/conftest.py sets NUMBA_CACHE_DIR for the run"
    assert any(cache.glob("ndcg.*.nbi")), f"numba cached ranx's nDCG elsewhere than {cache}"
    assert ranx_cached(measures)
