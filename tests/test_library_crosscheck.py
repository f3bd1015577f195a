"""helpers.metrics against the reference libraries, on random small cases (hypothesis).

Where the conventions match, the numbers must be equal (to 1e-9): trec_eval through pytrec_eval
(ndcg_cut, recip_rank, map, map_cut, P, recall, success), ir_measures (nDCG@k, RR, RR@k, AP, AP@k,
P@k, R@k, Success@k) and scikit-learn's ndcg_score. Each known difference in convention has its own
test that names it and asserts it:

- scikit-learn builds the ideal from the items it is given: it equals ``ideal="returned"``, and
  equals the default ``ideal="judged"`` only once the unreturned judged documents are appended
  below every returned one, and only if at least k documents were returned (otherwise an appended
  document lands inside the top k and earns gain it was never given);
- trec_eval's ``recip_rank`` has no cutoff: ``recip_rank.k`` is accepted and ignored;
- trec_eval breaks score ties by doc id descending (``rank_by_score(tie_break="id_descending")``),
  ir_measures' ``RR@k`` (its msmarco provider) by doc id ascending;
- AP@k over min(k, R) is not trec_eval's ``map_cut_k``, which divides by R;
- a query with only grade-0 judgments scores 0 in trec_eval; the helpers call it undefined;
- a query missing from the run is left out by pytrec_eval and scored 0 by ir_measures.

In the random cases every returned document has its own score (no ties) unless a test is about ties.
"""

from __future__ import annotations

from dataclasses import dataclass

import ir_measures
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from ir_measures import AP, RR, P, R, Success, nDCG
from sklearn.metrics import ndcg_score

from helpers import metrics, rank_by_score

pytestmark = pytest.mark.reference  # the field's implementations against ours

# Ids of different lengths and prefixes, so that string order is not number order ("d10" < "d2").
IDS = ["d1", "d2", "d10", "d11", "d05", "a7", "b20", "kb3", "z", "x9", "m", "c12"]
EXPONENTIAL = {grade: 2**grade - 1 for grade in range(4)}
CHECKED = settings(max_examples=50, deadline=None)
Q = "q1"


@dataclass(frozen=True)
class Case:
    """One query: the returned ids in rank order, their scores, the judgments and a cutoff."""

    ranked: list[str]
    scores: list[float]
    judgments: dict[str, int]
    k: int

    @property
    def relevant(self) -> frozenset:
        return metrics.relevant_ids(self.judgments)

    @property
    def grades(self) -> list[float]:
        return metrics.grades_in_rank_order(self.ranked, self.judgments)

    @property
    def qrels(self) -> dict:
        return {Q: dict(self.judgments)}

    @property
    def run(self) -> dict:
        return {Q: dict(zip(self.ranked, self.scores, strict=True))}

    @property
    def unreturned(self) -> list[str]:
        return [doc for doc in self.judgments if doc not in self.ranked]


@st.composite
def cases(draw, ties: bool = False, needs_relevant: bool = True, grades=(None, 0, 1, 2, 3)):
    """A query with 1-9 documents in play: some returned, some judged (grades 0-3), some both."""
    pool = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=9, unique=True))
    returned = draw(st.permutations(pool))[: draw(st.integers(1, len(pool)))]
    judgments = {}
    for doc in pool:
        grade = draw(st.sampled_from(grades))  # None: not judged
        if grade is not None:
            judgments[doc] = grade
    assume(judgments)  # a query with no judgment at all is dropped by trec_eval before evaluation
    if needs_relevant:
        assume(any(grade >= 1 for grade in judgments.values()))
    if ties:
        scores = [float(draw(st.integers(0, 2))) for _ in returned]
        order = sorted(range(len(returned)), key=lambda index: -scores[index])  # stable: keeps ties as drawn
        returned, scores = [returned[i] for i in order], [scores[i] for i in order]
    else:
        scores = [float(len(returned) - index) for index in range(len(returned))]
    return Case(list(returned), scores, judgments, draw(st.integers(1, 10)))


def trec(case: Case, measures, qrels=None) -> dict:
    """pytrec_eval's values for the one query of a case."""
    evaluator = pytrec_eval.RelevanceEvaluator(case.qrels if qrels is None else qrels, set(measures))
    return evaluator.evaluate(case.run)[Q]


def irm(case: Case, measures, qrels=None) -> dict:
    """ir_measures' values for the one query of a case, keyed by measure."""
    qrels = case.qrels if qrels is None else qrels
    return {metric.measure: metric.value for metric in ir_measures.iter_calc(measures, qrels, case.run)}


def close(value):
    return pytest.approx(value, abs=1e-9)


# --- equal where the conventions match ----------------------------------------------------


@CHECKED
@given(cases())
def test_trec_eval_agrees_with_the_helpers(case):
    k = case.k
    values = trec(
        case, [f"ndcg_cut.{k}", "recip_rank", "map", f"map_cut.{k}", f"P.{k}", f"recall.{k}", f"success.{k}"]
    )
    assert values[f"ndcg_cut_{k}"] == close(metrics.query_ndcg(case.ranked, case.judgments, k))
    assert values["recip_rank"] == close(metrics.reciprocal_rank(case.ranked, case.relevant))
    assert values["map"] == close(metrics.average_precision(case.ranked, case.relevant))
    assert values[f"map_cut_{k}"] == close(metrics.average_precision(case.ranked, case.relevant, k, "R"))
    assert values[f"P_{k}"] == close(metrics.precision_at_k(case.ranked, case.relevant, k))
    assert values[f"recall_{k}"] == close(metrics.recall_at_k(case.ranked, case.relevant, k, "R"))
    assert values[f"success_{k}"] == close(metrics.hit_at_k(case.ranked, case.relevant, k))


@CHECKED
@given(cases())
def test_trec_eval_with_remapped_grades_gives_exponential_gain(case):
    remapped = {Q: {doc: EXPONENTIAL[grade] for doc, grade in case.judgments.items()}}
    value = trec(case, [f"ndcg_cut.{case.k}"], qrels=remapped)[f"ndcg_cut_{case.k}"]
    assert value == close(metrics.query_ndcg(case.ranked, case.judgments, case.k, gain="exponential"))


@CHECKED
@given(cases())
def test_ir_measures_agrees_with_the_helpers(case):
    k = case.k
    values = irm(case, [nDCG @ k, RR, RR @ k, AP, AP @ k, P @ k, R @ k, Success @ k])
    # nDCG(gains=...) gets its own call: in ir_measures 0.4.3, asking for nDCG@k and
    # nDCG(gains=...)@k in one call can put both into the same pytrec_eval invocation (the
    # pytrec_eval provider files a plain nDCG under "an existing invocation", which may be the
    # remapped one, and both are named ndcg_cut_k there): the plain nDCG may then report the
    # gain-mapped value and the gain-mapped one come back as 0, depending on the hash seed.
    exponential = nDCG(gains=EXPONENTIAL) @ k
    exponential_value = irm(case, [exponential])[exponential]
    ranked, relevant = case.ranked, case.relevant
    assert values[nDCG @ k] == close(metrics.query_ndcg(ranked, case.judgments, k))
    assert exponential_value == close(metrics.query_ndcg(ranked, case.judgments, k, gain="exponential"))
    assert values[RR] == close(metrics.reciprocal_rank(ranked, relevant))
    assert values[RR @ k] == close(metrics.reciprocal_rank(ranked, relevant, k))
    assert values[AP] == close(metrics.average_precision(ranked, relevant))
    assert values[AP @ k] == close(metrics.average_precision(ranked, relevant, k, "R"))
    assert values[P @ k] == close(metrics.precision_at_k(ranked, relevant, k))
    assert values[R @ k] == close(metrics.recall_at_k(ranked, relevant, k, "R"))
    assert values[Success @ k] == close(metrics.hit_at_k(ranked, relevant, k))


@CHECKED
@given(st.lists(cases(), min_size=1, max_size=5))
def test_mean_reciprocal_rank_over_queries_agrees(query_cases):
    qrels = {f"q{n}": dict(case.judgments) for n, case in enumerate(query_cases)}
    run = {f"q{n}": case.run[Q] for n, case in enumerate(query_cases)}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    trec_mean = sum(values["recip_rank"] for values in per_query.values()) / len(per_query)
    first_ranks = [metrics.first_relevant_rank(case.ranked, case.relevant) for case in query_cases]
    assert trec_mean == close(metrics.mean_reciprocal_rank(first_ranks))
    assert ir_measures.calc_aggregate([RR], qrels, run)[RR] == close(
        metrics.mean_reciprocal_rank(first_ranks)
    )


# --- scikit-learn: the ideal comes from the items passed ---------------------------------


@CHECKED
@given(cases())
def test_sklearn_ndcg_score_is_the_ideal_from_returned_documents(case):
    assume(len(case.ranked) > 1)  # sklearn refuses a single document
    assume(any(grade > 0 for grade in case.grades))  # otherwise sklearn says 0, the helpers: undefined
    value = ndcg_score([case.grades], [case.scores], k=case.k)
    assert value == close(metrics.query_ndcg(case.ranked, case.judgments, case.k, ideal="returned"))


@CHECKED
@given(cases())
def test_sklearn_matches_the_judged_ideal_once_the_missed_documents_are_appended(case):
    missed = case.unreturned
    assume(len(case.ranked) + len(missed) > 1)
    # appended documents must land below rank k, or sklearn credits them as if they were returned
    assume(len(case.ranked) >= case.k)
    lowest = min(case.scores) - 1.0
    grades = case.grades + [case.judgments[doc] for doc in missed]
    scores = case.scores + [lowest - number for number in range(len(missed))]
    value = ndcg_score([grades], [scores], k=case.k)
    assert value == close(metrics.query_ndcg(case.ranked, case.judgments, case.k, ideal="judged"))


def test_sklearn_appended_documents_inside_the_top_k_earn_gain():
    """One returned document, one missed relevant one, k = 2: appending puts the miss at rank 2."""
    appended = ndcg_score([[0, 1]], [[1.0, 0.0]], k=2)
    assert appended == pytest.approx(1 / metrics.discount(2))
    assert metrics.query_ndcg(["a"], {"a": 0, "b": 1}, k=2) == 0.0


def test_sklearn_and_trec_eval_differ_on_the_spreadsheet_example():
    """Example C's reset-password grades with the missed grade-3 document: 0.6905 vs 0.5504."""
    grades, scores = [2, 0, 3, 1, 0, 2], [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    judged = grades + [3]
    assert ndcg_score([grades], [scores], k=5) == pytest.approx(0.6905, abs=5e-5)
    assert metrics.ndcg(grades, 5, ideal=judged) == pytest.approx(0.5504, abs=5e-5)
    assert ndcg_score([judged], [scores + [0.0]], k=5) == close(metrics.ndcg(grades, 5, ideal=judged))


# --- trec_eval: recip_rank has no cutoff -------------------------------------------------


@CHECKED
@given(cases())
def test_trec_eval_recip_rank_ignores_its_cutoff(case):
    k = case.k
    values = trec(case, [f"recip_rank.{k}"])
    assert set(values) == {"recip_rank"}  # no recip_rank_k key: the cutoff was dropped
    assert values["recip_rank"] == close(metrics.reciprocal_rank(case.ranked, case.relevant))
    first = metrics.first_relevant_rank(case.ranked, case.relevant)
    if first > k:  # a first hit past k: MRR@k scores 0, trec_eval still gives 1/rank
        assert metrics.reciprocal_rank(case.ranked, case.relevant, k) == 0.0
        assert values["recip_rank"] == close(1 / first)


@CHECKED
@given(cases())
def test_trec_eval_recip_rank_on_a_run_cut_to_k_is_rr_at_k(case):
    cut = Case(case.ranked[: case.k], case.scores[: case.k], case.judgments, case.k)
    value = trec(cut, ["recip_rank"])["recip_rank"]
    assert value == close(metrics.reciprocal_rank(case.ranked, case.relevant, case.k))


# --- ties -------------------------------------------------------------------------


def order_by(case: Case, tie_break: str) -> list[str]:
    """The case's documents re-ranked by score with helpers.data.rank_by_score."""
    run = pd.DataFrame(
        {
            "system": "s",
            "query_id": Q,
            "rank": range(1, len(case.ranked) + 1),
            "doc_id": case.ranked,
            "score": case.scores,
        }
    )
    return list(rank_by_score(run, tie_break=tie_break)["doc_id"])


@CHECKED
@given(cases(ties=True))
def test_trec_eval_breaks_ties_by_doc_id_descending(case):
    trec_order = order_by(case, "id_descending")
    values = trec(case, ["recip_rank", f"ndcg_cut.{case.k}", "map"])
    assert values["recip_rank"] == close(metrics.reciprocal_rank(trec_order, case.relevant))
    assert values[f"ndcg_cut_{case.k}"] == close(metrics.query_ndcg(trec_order, case.judgments, case.k))
    assert values["map"] == close(metrics.average_precision(trec_order, case.relevant))


@CHECKED
@given(cases(ties=True))
def test_ir_measures_rr_at_k_breaks_ties_by_doc_id_ascending(case):
    k = case.k
    values = irm(case, [RR @ k, RR])
    assert values[RR @ k] == close(metrics.reciprocal_rank(order_by(case, "id_ascending"), case.relevant, k))
    assert values[RR] == close(metrics.reciprocal_rank(order_by(case, "id_descending"), case.relevant))


def test_one_tie_two_orders():
    """Five documents with one score, only "a" relevant: trec_eval ranks it last, RR@k first."""
    case = Case(["a", "b", "c", "d", "e"], [1.0] * 5, {"a": 1}, 10)
    assert trec(case, ["recip_rank"])["recip_rank"] == pytest.approx(0.2)
    assert irm(case, [RR @ 10])[RR @ 10] == pytest.approx(1.0)


# --- AP@k denominators ------------------------------------------------------------


@CHECKED
@given(cases())
def test_ap_over_min_k_r_is_not_trec_eval_map_cut(case):
    k = case.k
    map_cut = trec(case, [f"map_cut.{k}"])[f"map_cut_{k}"]
    over_r = metrics.average_precision(case.ranked, case.relevant, k, "R")
    over_min = metrics.average_precision(case.ranked, case.relevant, k, "min_k_R")
    assert map_cut == close(over_r)
    assert over_min >= over_r - 1e-12
    found = metrics.first_relevant_rank(case.ranked, case.relevant, k) > 0
    if len(case.relevant) > k and found:
        assert over_min > over_r + 1e-12
        assert over_min == close(over_r * len(case.relevant) / k)


def test_ap_denominators_on_a_fixed_case():
    """R = 3, relevant at ranks 1 and 3: AP@2 is 1/3 over R (trec_eval) and 1/2 over min(k, R)."""
    case = Case(["a", "b", "c"], [3.0, 2.0, 1.0], {"a": 1, "c": 1, "z": 1}, 2)
    assert trec(case, ["map_cut.2"])["map_cut_2"] == pytest.approx(1 / 3)
    assert metrics.average_precision(case.ranked, case.relevant, 2, "R") == pytest.approx(1 / 3)
    assert metrics.average_precision(case.ranked, case.relevant, 2, "min_k_R") == pytest.approx(1 / 2)


# --- queries that are unanswerable or missing --------------------------------------


@CHECKED
@given(cases(needs_relevant=False, grades=(None, 0)))
def test_only_grade_0_judgments_score_0_in_trec_eval_and_are_undefined_in_the_helpers(case):
    values = trec(case, [f"ndcg_cut.{case.k}", "recip_rank", "map"])
    assert values == {f"ndcg_cut_{case.k}": 0.0, "recip_rank": 0.0, "map": 0.0}
    assert metrics.reciprocal_rank(case.ranked, case.relevant) == 0.0  # RR: a miss, 0
    with pytest.raises(metrics.UndefinedMetricError):
        metrics.query_ndcg(case.ranked, case.judgments, case.k)
    with pytest.raises(metrics.UndefinedMetricError):
        metrics.average_precision(case.ranked, case.relevant)


def test_a_query_missing_from_the_run():
    """pytrec_eval reports only the queries it was given; ir_measures scores a missing one 0."""
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 2.0, "x": 1.0}}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert set(per_query) == {"q1"}
    assert ir_measures.calc_aggregate([RR], qrels, run)[RR] == pytest.approx(0.5)
    assert metrics.mean_reciprocal_rank([1, 0]) == pytest.approx(0.5)
