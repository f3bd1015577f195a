"""Every measure declared in helpers.batch.registry: the engine's kernel against the single-query formula on
random runs with every option, the names made from the declarations, and RBP and ERR by hand (lesson 09)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from helpers.batch import DocnoMatchWarning, RunOrderWarning, evaluate, parse_measure, registry
from helpers.batch._engine import rr_values
from helpers.batch.measures import ALIASES, MEASURES, Measure, supported_measures
from helpers.batch.reference import reference_evaluate
from helpers.batch.registry import DECLARATIONS, PARAMETERS, declare

EXACT = 1e-12
SEEDS = (0, 1, 2)
CUTOFFS = {"required": (1, 3, 10), "optional": (None, 1, 3, 10), "none": (None,)}
# evaluate's options that change values: nDCG's ideal, AP@k's and R@k's denominator, depth, judged_only, grades
OPTIONS = (
    {},
    {"ideal": "returned"},
    {"denominator": "min_k_R"},
    {"ideal": "returned", "denominator": "min_k_R", "judged_only": True, "depth": 6},
    {"fractional_grades": "keep", "missing": "skip"},
)


def random_collection(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Six queries of judgments -1..4 (some with nothing relevant) and a run with tied scores and unjudged
    documents; grades get a half here and there, so that truncating and keeping them differ; one query of
    the qrels is missing from the run."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for query in range(6):
        docs = [f"d{query}_{i:02d}" for i in range(14)]
        judged = rng.choice(docs, size=9, replace=False)
        top = 0 if query == 1 else 4  # query 1 has no relevant document at any rel
        grades = rng.integers(-1, top + 1, size=len(judged)) + np.where(rng.random(len(judged)) < 0.3, 0.5, 0.0)
        qrels += [(f"q{query}", doc, min(float(grade), 4.0)) for doc, grade in zip(judged, grades, strict=True)]
        if query != 5:
            returned = rng.choice(docs, size=int(rng.integers(3, 13)), replace=False)
            run += [(f"q{query}", doc, float(rng.integers(0, 5))) for doc in returned]  # few scores: ties
    return (pd.DataFrame(qrels, columns=["qid", "docno", "grade"]),
            pd.DataFrame(run, columns=["qid", "docno", "score"]))


def variants(declaration) -> list[Measure]:
    """The measure at every cutoff its rule allows, with each parameter's example values one at a time (a
    parameter without a default, such as IPrec's recall, always at its first example when another varies)."""
    needed = {name: PARAMETERS[name].examples[0] for name in declaration.parameters
              if PARAMETERS[name].default is None and name != "gains"}
    settings = [needed] + [{**needed, name: value} for name in declaration.parameters
                           for value in PARAMETERS[name].examples]
    return [Measure(declaration.name, cutoff, **{**dict(declaration.defaults), **setting})
            for cutoff, setting in itertools.product(CUTOFFS[declaration.cutoff], settings)]


@pytest.fixture(scope="module")
def both_evaluators() -> list[tuple[str, pd.DataFrame, pd.DataFrame]]:
    """For each seed and set of options: (what they are, the engine's table, the reference's table), every
    variant of every declared measure in one call of each (one call is much cheaper than one per measure)."""
    measures = [measure for declaration in DECLARATIONS.values() for measure in variants(declaration)]
    tables = []
    for seed, options in itertools.product(SEEDS, OPTIONS):
        qrels, run = random_collection(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DocnoMatchWarning)
            warnings.simplefilter("ignore", RunOrderWarning)
            fast = evaluate(qrels, run, measures, **options).per_query
        tables.append((f"seed {seed}, options {options}", fast, reference_evaluate(qrels, run, measures, **options)))
    return tables


@pytest.mark.parametrize("name", list(DECLARATIONS))
def test_every_kernel_equals_its_single_query_formula(name, both_evaluators):
    columns = [str(measure) for measure in variants(DECLARATIONS[name])]
    for case, fast, slow in both_evaluators:
        assert list(fast.index) == list(slow.index)
        for column in columns:
            if DECLARATIONS[name].kind == "text":  # relstring: the same strings
                assert fast[column].tolist() == slow[column].tolist(), f"{column}, {case}"
                continue
            np.testing.assert_allclose(fast[column].to_numpy(), slow[column].to_numpy(), atol=EXACT, rtol=0,
                                       err_msg=f"{column}, {case}")


def test_the_random_runs_reach_every_case():
    """The collections hold what the comparison needs: ties, unjudged, negative, fractional, nothing relevant."""
    qrels, run = random_collection(0)
    assert run.duplicated(["qid", "score"]).any()
    assert (~run.set_index(["qid", "docno"]).index.isin(qrels.set_index(["qid", "docno"]).index)).any()
    assert (qrels["grade"] < 0).any() and (qrels["grade"] % 1 != 0).any() and (qrels["grade"] == 4).any()
    assert qrels.loc[qrels["qid"] == "q1", "grade"].max() < 1 and "q5" not in set(run["qid"])


# --- the names come from the declarations ------------------------------------------------------------


def test_every_name_and_table_comes_from_a_declaration():
    assert set(MEASURES) == set(DECLARATIONS) and set(ALIASES.values()) <= set(DECLARATIONS)
    for name, declaration in DECLARATIONS.items():
        assert declaration.definition and declaration.kind in registry.KINDS
        assert name + {"required": "@k", "optional": "[@k]", "none": ""}[declaration.cutoff] in supported_measures()
        for measure in variants(declaration):
            assert parse_measure(str(measure)) == measure  # every variant the test runs is a name one can write


@pytest.mark.parametrize("typed", ["RPB@10", "rpb.5,10", "RPB_5", "ndgc_cut_10", "recip_rnak", "nDGC@10", "ERRR"])
def test_a_misspelt_name_is_a_value_error_that_suggests_the_measure(typed):
    with pytest.raises(ValueError, match="did you mean"):
        parse_measure(typed)


def test_trec_eval_s_lower_case_rbp_is_its_graded_rbp_and_rbp_is_moffat_and_zobel_s():
    assert parse_measure("rbp") == Measure("rbp", p=0.9) and parse_measure("rbp_resid") == Measure("rbp_resid", p=0.9)
    assert parse_measure("RBP") == Measure("RBP") and parse_measure("Rbp(p=0.5)") == Measure("RBP", p=0.5)
    assert parse_measure("err@5") == Measure("ERR", 5)
    assert parse_measure("rbp.p=0.95") == Measure("rbp", p=0.95)
    with pytest.raises(ValueError, match="its gain map is not read"):
        parse_measure("rbp.p=0.5,1=3")


def test_a_declaration_that_contradicts_itself_or_another_is_refused():
    fields = {"kind": "binary", "cutoff": "optional", "parameters": ("rel",), "definition": "a test",
              "formula": registry.rr_formula, "kernel": rr_values}
    with pytest.raises(ValueError, match="did you mean 'rel'"):
        declare(name="Shadow", **{**fields, "parameters": ("rell",)})
    with pytest.raises(ValueError, match="'mrr' is already RR's"):
        declare(name="Shadow", aliases=("mrr",), **fields)
    with pytest.raises(ValueError, match="did you mean 'binary'"):
        declare(name="Shadow", **{**fields, "kind": "binery"})
    assert "Shadow" not in DECLARATIONS


@pytest.mark.parametrize("typed", ["RBP(p=1)", "RBP(p=0)", "RBP(p=high)", "RBP_resid(rel=2)", "ERR(rel=2)"])
def test_a_wrong_parameter_is_a_value_error(typed):
    with pytest.raises(ValueError, match=typed.split("(")[0]):
        parse_measure(typed)


# --- RBP, its residual and ERR by hand ----------------------------------------------------------------

# one query: d1 (grade 4), d2 (2), d3 (unjudged), d4 (1) in that order; d5 (3) and d6 (0) judged, not returned
HAND_QRELS = pd.DataFrame({"qid": "q", "docno": ["d1", "d2", "d4", "d5", "d6"], "grade": [4, 2, 1, 3, 0]})
HAND_RUN = pd.DataFrame({"qid": "q", "docno": ["d1", "d2", "d3", "d4"], "score": [4.0, 3.0, 2.0, 1.0]})


@pytest.mark.parametrize(("name", "by_hand"), [
    ("RBP(p=0.5)", 0.5 * (1 + 0.5 + 0.5**3)),  # relevant at ranks 1, 2, 4: (1 - p) p^(rank - 1)
    ("RBP(p=0.5,rel=2)", 0.5 * (1 + 0.5)),  # relevant at ranks 1, 2
    ("RBP@3", 0.2 * (1 + 0.8)),  # p = 0.8 by default; rank 4 is cut
    ("RBP_resid(p=0.5)", 0.5 * 0.5**2 + 0.5**4),  # the unjudged rank 3, then every rank after the 4th
    ("RBP_resid(p=0.5)@2", 0.5**2),  # nothing unjudged in the top 2: every rank after the 2nd
    ("ERR@2", 15 / 16 + (1 / 16) * (3 / 16) / 2),  # stop at rank 1 with (2^4 - 1) / 2^4, rank 2 with 3/16
    ("ERR", 15 / 16 + (1 / 16) * (3 / 16) / 2 + (1 / 16) * (13 / 16) * (1 / 16) / 4),  # d3 stops no one
])
def test_rbp_its_residual_and_err_equal_a_hand_computation(name, by_hand):
    assert evaluate(HAND_QRELS, HAND_RUN, [name]).per_query[str(parse_measure(name))].iloc[0] == pytest.approx(
        by_hand, abs=EXACT)
    assert reference_evaluate(HAND_QRELS, HAND_RUN, [name]).iloc[0, 0] == pytest.approx(by_hand, abs=EXACT)


def test_err_refuses_a_grade_above_its_maximum():
    with pytest.raises(ValueError, match="grade 5 is above 4"):
        evaluate(HAND_QRELS.assign(grade=[5, 2, 1, 3, 0]), HAND_RUN, ["ERR@10"])


# --- aggregations and trec_eval's parameter lists ---------------------------------------------------


def test_a_geometric_measure_s_mean_is_the_geometric_mean_with_trec_eval_s_floor():
    qrels, run = random_collection(0)
    result = evaluate(qrels, run, ["GMAP", "AP", "gm_bpref", "bpref"])
    ap = reference_evaluate(qrels, run, ["AP"])["AP"].to_numpy()
    assert (ap == 0).any()  # the floor matters here
    assert result.means["GMAP"] == pytest.approx(np.exp(np.mean(np.log(np.maximum(ap, 1e-5)))), abs=EXACT)
    assert result.means["GMAP"] < result.means["AP"]
    np.testing.assert_array_equal(result.per_query["gm_bpref"], result.per_query["bpref"])


def test_interpolated_precision_by_hand():
    # relevant at ranks 1, 3 and 6 of 6 returned, R = 4: precisions 1, 2/3, 1/2 at the relevant documents
    qrels = pd.DataFrame({"qid": "q", "docno": ["a", "c", "f", "z"], "grade": 1})
    run = pd.DataFrame({"qid": "q", "docno": list("abcdef"), "score": [6.0, 5, 4, 3, 2, 1]})
    names = ["IPrec(recall=0)", "IPrec(recall=0.25)", "IPrec(recall=0.5)", "IPrec(recall=0.7)", "IPrec(recall=1)"]
    values = evaluate(qrels, run, names).per_query.iloc[0].tolist()
    assert values == pytest.approx([1.0, 1.0, 2 / 3, 1 / 2, 0.0], abs=EXACT)  # 0.7 x 4 = 2.8 rounds to 3
    assert parse_measure("Rprec_mult(times=0.5)") == Measure("Rprec_mult", times=0.5)
    with pytest.raises(ValueError, match="IPrec needs recall"):
        parse_measure("IPrec")
    assert parse_measure("utility.2,-1,0,0") == parse_measure("utility(weights={2,-1,0})") == \
        Measure("utility", weights=(2.0, -1.0, 0.0, 0.0))
    assert parse_measure("set_F.0.5") == Measure("set_F", recall_weight=0.5)
    assert parse_measure("11pt_avg..25,.5") == Measure("11pt_avg", levels=(0.25, 0.5))
    with pytest.raises(ValueError, match="collection's size"):
        parse_measure("utility.1,-1,0,1")


def test_kernels_hold_when_the_run_lists_the_queries_in_another_order_than_the_qrels():
    qrels = pd.DataFrame({"qid": ["b", "b", "b", "a", "a", "a"], "docno": list("xyzxyz"), "grade": [2, 1, 0, 1, 2, 2]})
    run = pd.DataFrame({"qid": list("bbbbaaaa"), "docno": list("xywvzwvu"), "score": [4, 3, 2, 1, 4, 3, 2, 1.0]})
    measures = [str(measure) for declaration in DECLARATIONS.values() for measure in variants(declaration)]
    fast, slow = evaluate(qrels, run, measures).per_query, reference_evaluate(qrels, run, measures)
    numbers = [column for column in measures if parse_measure(column).kind != "text"]
    np.testing.assert_allclose(fast[numbers].to_numpy(dtype=float), slow[numbers].to_numpy(dtype=float), atol=EXACT,
                               rtol=0)
    assert fast["relstring"].tolist() == slow["relstring"].tolist() == ["2---", "21--"]
    # query a: z (grade 2) first, then three unjudged; ideal 2, 2, 1. z gives nDCG@1 = 1; x and y are not returned
    # and take the DCG at the list's end (2) over the whole ideal DCG
    assert fast.loc["a", "ndcg_rel"] == pytest.approx((1 + 2 * 2 / (2 + 2 / np.log2(3) + 1 / 2)) / 3, abs=EXACT)


def test_relstring_is_text_that_compare_refuses_and_compare_all_leaves_out():
    from helpers.batch import compare
    from helpers.batch.comparison import compare_all

    qrels, run = random_collection(1)
    result = evaluate(qrels, run, ["relstring", "AP"])
    assert list(result.means.index) == ["AP"]  # text has no mean
    with pytest.raises(TypeError, match="relstring is text"):
        compare(evaluate(qrels, run, "relstring"), evaluate(qrels, run, "relstring"), seed=1)
    assert list(compare_all(result, result, seed=1).index) == ["AP"]
