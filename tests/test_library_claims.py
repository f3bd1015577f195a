"""Every claim lessons 00 and 08 make about a library, tested on the library itself.

One test per claim, run against the installed library (pytrec_eval, ir_measures, scikit-learn) on
the golden sets, so that a claim that stops being true with a new version fails here. The lesson
and the place of each claim are named in the test's docstring.

Libraries the project does not install are quoted, not run: torchmetrics and ml_metrics by the
line of their source that decides the claim (with its version), re-computed here on example C;
ranx (lesson 08 quotes the project's measurements of ranx 0.3.21) by checking that each example
figure quoted is the value of the convention it names; tests/test_ranx_reference.py checks each
of lesson 08's facts on ranx itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import ir_measures
import numpy as np
import pytest
import pytrec_eval
from ir_measures import AP, RR, P, nDCG
from sklearn.metrics import average_precision_score, dcg_score, ndcg_score, top_k_accuracy_score

from helpers import load_example, metrics, rank_by_score
from helpers.slips import counting as counting_slips

pytestmark = pytest.mark.reference  # runs the field's implementations

ROOT = Path(__file__).resolve().parent.parent
RESET = "reset-password"
EXPONENTIAL = {grade: 2**grade - 1 for grade in range(4)}
TIED = {"d1": 0.5, "d2": 0.5, "d3": 0.5, "d4": 0.5, "d5": 0.5}  # five documents, one score; d2 relevant


def qrels_of(example, query_ids=None) -> dict:
    query_ids = example.query_ids if query_ids is None else query_ids
    return {q: {doc: int(grade) for doc, grade in example.judgments_for(q).items()} for q in query_ids}


def run_of(example, system) -> dict:
    rows = example.runs[example.runs["system"] == system]
    return {
        q: dict(zip(group["doc_id"], group["score"].astype(float), strict=True))
        for q, group in rows.groupby("query_id", sort=False)
    }


@pytest.fixture(scope="module")
def helpdesk():
    example = load_example("C")
    ranked = example.ranking("search", RESET)
    return {
        "example": example, "qrels": qrels_of(example), "run": run_of(example, "search"),
        "ranked": ranked, "judgments": example.judgments_for(RESET), "relevant": example.relevant_for(RESET),
    }


def lesson_text(prefix: str) -> str:
    path = next((ROOT / "notebooks").glob(f"{prefix}_*.ipynb"))
    return "\n".join("".join(cell["source"]) for cell in json.loads(path.read_text(encoding="utf-8"))["cells"])


# --- trec_eval (pytrec_eval) ---------------------------------------------------------------------


def test_trec_eval_names_compute_the_collection_s_formulas(helpdesk):
    """Lesson 00, second conventions table: success.k, recip_rank, P.k, recall.k, map, map_cut.k, ndcg_cut.k."""
    h = helpdesk
    names = {"success.1", "recip_rank", "P.5", "recall.5", "map", "map_cut.5", "ndcg_cut.5"}
    values = pytrec_eval.RelevanceEvaluator(h["qrels"], names).evaluate(h["run"])[RESET]
    ranked, relevant = h["ranked"], h["relevant"]
    assert values["success_1"] == metrics.hit_at_k(ranked, relevant, 1)
    assert values["recip_rank"] == pytest.approx(metrics.reciprocal_rank(ranked, relevant))
    assert values["P_5"] == pytest.approx(metrics.precision_at_k(ranked, relevant, 5))
    assert values["recall_5"] == pytest.approx(metrics.recall_at_k(ranked, relevant, 5))
    assert values["map"] == pytest.approx(metrics.average_precision(ranked, relevant))
    assert values["map_cut_5"] == pytest.approx(metrics.average_precision(ranked, relevant, k=5))
    assert values["ndcg_cut_5"] == pytest.approx(metrics.query_ndcg(ranked, h["judgments"], k=5))


def test_trec_eval_takes_both_spellings_of_a_cutoff_and_returns_the_underscore_key(helpdesk):
    """Lessons 00 and 08: `ndcg_cut.5` (trec_eval's command line) and `ndcg_cut_5` (its printed name): one measure."""
    h = helpdesk
    dotted = pytrec_eval.RelevanceEvaluator(h["qrels"], {"ndcg_cut.5"}).evaluate(h["run"])[RESET]
    underscored = pytrec_eval.RelevanceEvaluator(h["qrels"], {"ndcg_cut_5"}).evaluate(h["run"])[RESET]
    assert list(dotted) == list(underscored) == ["ndcg_cut_5"]
    assert dotted["ndcg_cut_5"] == underscored["ndcg_cut_5"]


def test_trec_eval_ignores_the_cutoff_of_recip_rank(helpdesk):
    """Lesson 00 (MRR@k row) and lesson 08 step 6: `recip_rank.2` returns the full-list RR under `recip_rank`."""
    h = helpdesk
    per_query = pytrec_eval.RelevanceEvaluator(h["qrels"], {"recip_rank.2"}).evaluate(h["run"])
    example = h["example"]
    first = [metrics.first_relevant_rank(example.ranking("search", q), example.relevant_for(q)) for q in per_query]
    assert all(list(values) == ["recip_rank"] for values in per_query.values())
    mean = sum(values["recip_rank"] for values in per_query.values()) / len(per_query)
    assert mean == pytest.approx(metrics.mean_reciprocal_rank(first))
    assert mean != pytest.approx(metrics.mean_reciprocal_rank(first, k=2))  # example C: 0.5667, not 0.5000


def test_trec_eval_divides_map_cut_and_recall_by_r(helpdesk):
    """Lesson 00 (AP@k row) and lesson 08 step 9: `map_cut_k` and `recall_k` divide by R, not by min(k, R)."""
    h = helpdesk
    values = pytrec_eval.RelevanceEvaluator(h["qrels"], {"map_cut.4", "recall.4"}).evaluate(h["run"])[RESET]
    ranked, relevant = h["ranked"], h["relevant"]
    assert len(relevant) > 4  # R = 5: the two denominators differ at k = 4
    assert values["map_cut_4"] == pytest.approx(metrics.average_precision(ranked, relevant, k=4, denominator="R"))
    assert values["map_cut_4"] != pytest.approx(
        metrics.average_precision(ranked, relevant, k=4, denominator="min_k_R"))
    assert values["recall_4"] == pytest.approx(metrics.recall_at_k(ranked, relevant, 4, denominator="R"))


def test_trec_eval_breaks_ties_by_id_descending():
    """Lesson 00 (ties row) and lesson 08 step 7: equal scores are ordered by doc id descending."""
    values = pytrec_eval.RelevanceEvaluator({"q": {"d2": 1}}, {"recip_rank"}).evaluate({"q": TIED})["q"]
    assert values["recip_rank"] == pytest.approx(1 / 4)  # d5, d4, d3, d2, d1


def test_trec_eval_relevance_level_is_not_applied_to_ndcg():
    """Lesson 00 (threshold row): `relevance_level` changes P and RR, never nDCG."""
    qrels = {"q": {"a": 1, "b": 2, "c": 3}}
    run = {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "x": 2.0, "y": 1.0}}
    names = {"ndcg_cut.5", "recip_rank", "P.5"}
    level_1 = pytrec_eval.RelevanceEvaluator(qrels, names, relevance_level=1).evaluate(run)["q"]
    level_2 = pytrec_eval.RelevanceEvaluator(qrels, names, relevance_level=2).evaluate(run)["q"]
    assert level_2["ndcg_cut_5"] == level_1["ndcg_cut_5"]
    assert (level_1["recip_rank"], level_2["recip_rank"]) == (1.0, 0.5)
    assert level_2["P_5"] < level_1["P_5"]


def test_trec_eval_scores_an_all_zero_query_0_and_drops_a_query_without_judgments():
    """Lesson 00 (last row) and lesson 08 step 8: grade-0 judgments only: 0, counted; no judgments: dropped."""
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "b": 1.0}}
    all_zero = pytrec_eval.RelevanceEvaluator({"q1": {"a": 1}, "q2": {"a": 0}}, {"recip_rank"}).evaluate(run)
    assert all_zero["q2"]["recip_rank"] == 0.0 and len(all_zero) == 2
    empty = pytrec_eval.RelevanceEvaluator({"q1": {"a": 1}, "q2": {}}, {"recip_rank"}).evaluate(run)
    assert list(empty) == ["q1"]


def test_pytrec_eval_leaves_a_query_missing_from_the_run_out(helpdesk):
    """Lesson 08 step 8: pytrec_eval reports only the queries of the run; a plain mean drops the missing one."""
    h = helpdesk
    run = {q: docs for q, docs in h["run"].items() if q != "webhook-retries"}
    per_query = pytrec_eval.RelevanceEvaluator(h["qrels"], {"recip_rank"}).evaluate(run)
    assert set(per_query) == set(h["qrels"]) - {"webhook-retries"}


def test_pytrec_eval_refuses_float_grades(helpdesk):
    """Lesson 08, break 1: grades must be int; floats raise TypeError."""
    with pytest.raises(TypeError):
        pytrec_eval.RelevanceEvaluator({RESET: helpdesk["example"].judgments_for(RESET)}, {"ndcg_cut_5"})


def test_a_trec_eval_gain_map_aborts_the_python_process():
    """Lesson 08 step 4: trec_eval's gain-map parameter, passed through pytrec_eval, aborts Python (SIGABRT)."""
    code = (
        "import pytrec_eval\n"
        "evaluator = pytrec_eval.RelevanceEvaluator({'q': {'a': 1}}, {'ndcg.1=1,2=3,3=7'})\n"
        "evaluator.evaluate({'q': {'a': 1.0}})\n"
        "print('survived')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode < 0 and "survived" not in result.stdout  # killed by a signal


def test_trec_eval_linear_gain_and_remapped_qrels_give_the_exponential_ndcg(helpdesk):
    """Lesson 00 (exponential row) and lesson 08 step 4: trec_eval's gain is the grade; remap it for 2^g - 1."""
    h = helpdesk
    remapped = {q: {doc: EXPONENTIAL[g] for doc, g in docs.items()} for q, docs in h["qrels"].items()}
    linear = pytrec_eval.RelevanceEvaluator(h["qrels"], {"ndcg_cut.5"}).evaluate(h["run"])[RESET]["ndcg_cut_5"]
    exponential = pytrec_eval.RelevanceEvaluator(remapped, {"ndcg_cut.5"}).evaluate(h["run"])[RESET]["ndcg_cut_5"]
    assert linear == pytest.approx(metrics.query_ndcg(h["ranked"], h["judgments"], k=5))
    assert exponential == pytest.approx(metrics.query_ndcg(h["ranked"], h["judgments"], k=5, gain="exponential"))


# --- ir_measures -----------------------------------------------------------------------------


def test_ir_measures_names_compute_the_collection_s_formulas(helpdesk):
    """Lesson 00, second table: Success@k, RR, RR@k, P@k, R@k, AP, AP@k, nDCG@k."""
    h = helpdesk
    wanted = [ir_measures.parse_measure(name) for name in
              ("Success@1", "RR", "RR@2", "P@5", "R@5", "AP", "AP@5", "nDCG@5")]
    values = {str(m.measure): m.value
              for m in ir_measures.iter_calc(wanted, h["qrels"], h["run"]) if m.query_id == RESET}
    ranked, relevant = h["ranked"], h["relevant"]
    assert values["Success@1"] == metrics.hit_at_k(ranked, relevant, 1)
    assert values["RR"] == pytest.approx(metrics.reciprocal_rank(ranked, relevant))
    assert values["RR@2"] == pytest.approx(metrics.reciprocal_rank(ranked, relevant, k=2))
    assert values["P@5"] == pytest.approx(metrics.precision_at_k(ranked, relevant, 5))
    assert values["R@5"] == pytest.approx(metrics.recall_at_k(ranked, relevant, 5))
    assert values["AP"] == pytest.approx(metrics.average_precision(ranked, relevant))
    assert values["AP@5"] == pytest.approx(metrics.average_precision(ranked, relevant, k=5))
    assert values["nDCG@5"] == pytest.approx(metrics.query_ndcg(ranked, h["judgments"], k=5))


def test_ir_measures_breaks_ties_by_id_descending_except_rr_at_k():
    """Lesson 00 (ties row) and lesson 08 step 7: RR goes to trec_eval (descending), RR@k to msmarco (ascending)."""
    values = {str(m.measure): m.value for m in ir_measures.iter_calc([RR, RR @ 5], {"q": {"d2": 1}}, {"q": TIED})}
    assert values == {"RR": pytest.approx(1 / 4), "RR@5": pytest.approx(1 / 2)}


def test_ir_measures_gain_map_gives_the_exponential_ndcg(helpdesk):
    """Lesson 00 (exponential row) and lesson 08 step 4: nDCG(gains={0:0,1:1,2:3,3:7})@k."""
    h = helpdesk
    measure = nDCG(gains=EXPONENTIAL) @ 5
    value = next(m.value for m in ir_measures.iter_calc([measure], h["qrels"], h["run"]) if m.query_id == RESET)
    assert value == pytest.approx(metrics.query_ndcg(h["ranked"], h["judgments"], k=5, gain="exponential"))


@pytest.mark.parametrize("letter", ["A", "B", "C", "D", "E"])
def test_ir_measures_gdeval_ndcg_fails_on_every_golden_set(letter):
    """Lesson 00 (exponential row): nDCG(dcg='exp-log2') runs gdeval.pl, which takes numeric query ids only."""
    example = load_example(letter)
    system = example.systems[0]
    assert not any(q.isdigit() for q in example.query_ids)
    with pytest.raises(Exception):  # noqa: B017 (a failed perl run: whatever ir_measures raises for it)
        ir_measures.calc_aggregate([nDCG(dcg="exp-log2") @ 5], qrels_of(example), run_of(example, system))


def test_ir_measures_rel_parameter_sets_the_relevance_threshold():
    """Lesson 00 (threshold row): rel=1 by default; RR(rel=2)@k counts grade 2 and above only."""
    qrels, run = {"q": {"a": 1, "b": 2}}, {"q": {"a": 2.0, "b": 1.0}}
    values = {str(m.measure): m.value for m in ir_measures.iter_calc(
        [ir_measures.parse_measure("RR(rel=2)@5"), RR @ 5], qrels, run)}
    assert values == {"RR(rel=2)@5": 0.5, "RR@5": 1.0}


def test_ir_measures_scores_an_all_zero_query_and_a_missing_query_0():
    """Lesson 00 (last row) and lesson 08 step 8: both are 0 and counted in the mean."""
    qrels = {"q1": {"a": 1}, "q2": {"a": 0}, "q3": {"a": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"a": 1.0}}  # q3 is missing from the run
    per_query = {m.query_id: m.value for m in ir_measures.iter_calc([RR], qrels, run)}
    assert per_query == {"q1": 1.0, "q2": 0.0, "q3": 0.0}
    assert ir_measures.calc_aggregate([RR], qrels, run)[RR] == pytest.approx(1 / 3)


@pytest.mark.parametrize("name", ["Hit@3", "CG@5", "nDCG(gain=exp)@10"])
def test_ir_measures_refuses_the_collection_s_own_spellings(name):
    """Lesson 09 and docs/learners.md: `Hit@3`, `CG@5` and `nDCG(gain=exp)@10` are the collection's own spellings."""
    with pytest.raises(Exception):  # noqa: B017 (ir_measures raises its own parse errors)
        ir_measures.parse_measure(name)


def test_ir_measures_reads_trec_eval_names():
    """Lesson 00: the trec_eval name and the ir_measures name are one measure."""
    assert ir_measures.parse_trec_measure("ndcg_cut_5") == [nDCG @ 5]
    assert ir_measures.parse_trec_measure("P_5") == [P @ 5]
    assert ir_measures.parse_trec_measure("map") == [AP]


# --- scikit-learn ------------------------------------------------------------------------------


def test_sklearn_ndcg_score_builds_the_ideal_from_the_row_only(helpdesk):
    """Lesson 00 (nDCG row) and lesson 08 step 5: a missed relevant document never lowers ndcg_score."""
    h = helpdesk
    grades = metrics.grades_in_rank_order(h["ranked"], h["judgments"])
    scores = [h["run"][RESET][doc] for doc in h["ranked"]]
    value = float(ndcg_score([grades], [scores], k=5))
    assert value == pytest.approx(metrics.query_ndcg(h["ranked"], h["judgments"], k=5, ideal="returned"))
    assert value > metrics.query_ndcg(h["ranked"], h["judgments"], k=5)  # example C: 0.6905 > 0.5504


def test_sklearn_dcg_score_is_the_linear_dcg(helpdesk):
    """Lesson 00 (DCG row): dcg_score takes the grades as they are (linear gain)."""
    h = helpdesk
    grades = metrics.grades_in_rank_order(h["ranked"], h["judgments"])
    scores = [h["run"][RESET][doc] for doc in h["ranked"]]
    assert float(dcg_score([grades], [scores], k=5)) == pytest.approx(metrics.dcg(grades, k=5))


def test_sklearn_averages_the_gains_of_tied_documents():
    """Lesson 00 (ties row) and lesson 08 step 7: nDCG of a tied group lies between its two id orders."""
    grades = [0, 1, 0, 0, 0]  # d1..d5 tied, d2 relevant
    value = float(ndcg_score([grades], [list(TIED.values())], k=5))
    orders = [rank_by_score_order(rule) for rule in ("id_ascending", "id_descending")]
    by_order = [metrics.query_ndcg(order, {"d2": 1}, k=5) for order in orders]
    assert min(by_order) < value < max(by_order)
    average_gain = sum(grades) / len(grades)
    assert value == pytest.approx(sum(average_gain / np.log2(rank + 1) for rank in range(1, 6)))


def rank_by_score_order(rule: str) -> list[str]:
    import pandas as pd

    run = pd.DataFrame({"system": "s", "query_id": "q", "doc_id": list(TIED), "rank": range(1, 6),
                        "score": list(TIED.values())})
    return list(rank_by_score(run, tie_break=rule)["doc_id"])


def test_sklearn_top_k_accuracy_takes_one_relevant_item_per_row():
    """Lesson 00 (hit rate row): top_k_accuracy_score is a hit rate only when each row has one relevant item."""
    example = load_example("A")
    single = [q for q in example.query_ids if len(example.relevant_for(q)) == 1]
    assert 1 < len(single) < len(example.query_ids)  # one question of example A has two relevant passages
    for system in example.systems:
        docs = sorted(set(example.runs["doc_id"]) | set(example.judgments["doc_id"]))
        labels, rows = [], []
        for q in single:
            (relevant,) = example.relevant_for(q)
            ranked = example.ranking(system, q)
            rows.append([len(ranked) - ranked.index(doc) if doc in ranked else 0 for doc in docs])
            labels.append(docs.index(relevant))
        first = [metrics.first_relevant_rank(example.ranking(system, q), example.relevant_for(q)) for q in single]
        value = top_k_accuracy_score(labels, np.array(rows, dtype=float), k=3, labels=range(len(docs)))
        assert value == pytest.approx(metrics.mean_hit_rate(first, k=3))
    with pytest.raises(ValueError):  # two relevant items in a row cannot be given
        top_k_accuracy_score([[1, 1, 0], [0, 1, 1]], [[0.9, 0.5, 0.1], [0.2, 0.8, 0.4]], k=1)


def test_sklearn_average_precision_divides_by_the_positives_in_the_row(helpdesk):
    """Lesson 00 (AP row): average_precision_score divides by the relevant items it is given, not by R."""
    h = helpdesk
    ranked, relevant = h["ranked"], h["relevant"]
    y_true = [1 if doc in relevant else 0 for doc in ranked]
    scores = [h["run"][RESET][doc] for doc in ranked]
    value = float(average_precision_score(y_true, scores))
    found = sum(y_true)
    assert found < len(relevant)  # example C's reset-password misses one relevant article
    assert value == pytest.approx(metrics.average_precision(ranked, relevant) * len(relevant) / found)


def test_sklearn_refuses_ndcg_of_a_single_document():
    """Lesson 08, break 2: ndcg_score needs more than one document."""
    with pytest.raises(ValueError, match="more than 1 document"):
        ndcg_score([[3]], [[0.9]])


# --- libraries quoted, not installed ----------------------------------------------------------

# torchmetrics 1.9.0, src/torchmetrics/functional/retrieval/average_precision.py, the last lines of
# retrieval_average_precision (target already cut to the top k by preds.topk):
TORCHMETRICS_1_9_0_AP = (
    "positions = torch.arange(1, len(target) + 1, device=target.device, dtype=torch.float32)[target > 0]\n"
    "return torch.div((torch.arange(len(positions), device=positions.device, dtype=torch.float32) + 1), "
    "positions).mean()"
)
# ml_metrics 0.1.4 (benhamner/Metrics), Python/ml_metrics/average_precision.py, the last line of apk:
ML_METRICS_0_1_4_APK = "return score / min(len(actual), k)"


def test_torchmetrics_ap_divides_by_the_relevant_results_it_finds(helpdesk):
    """Lesson 08, exercise 1: torchmetrics' AP averages i / position_i over the relevant results in the top k."""
    assert ".mean()" in TORCHMETRICS_1_9_0_AP and "[target > 0]" in TORCHMETRICS_1_9_0_AP
    h = helpdesk
    target = np.array([1.0 if doc in h["relevant"] else 0.0 for doc in h["ranked"][:5]])
    positions = np.arange(1, len(target) + 1)[target > 0]  # the quoted lines, in numpy
    quoted = float(np.mean((np.arange(len(positions)) + 1) / positions))
    assert quoted == pytest.approx(counting_slips.average_precision_hits_denominator(h["ranked"], h["relevant"], 5))
    assert quoted != pytest.approx(metrics.average_precision(h["ranked"], h["relevant"], k=5))


def test_ml_metrics_apk_divides_by_min_k_r(helpdesk):
    """Lesson 00 (AP row): ml_metrics' apk divides by min(len(actual), k), the helpers' denominator="min_k_R"."""
    h = helpdesk
    ranked, relevant, k = h["ranked"], h["relevant"], 4
    score, hits = 0.0, 0
    for i, doc in enumerate(ranked[:k]):
        if doc in relevant:
            hits += 1
            score += hits / (i + 1)
    assert ML_METRICS_0_1_4_APK.endswith("min(len(actual), k)")
    quoted = score / min(len(relevant), k)
    assert quoted == pytest.approx(metrics.average_precision(ranked, relevant, k=k, denominator="min_k_R"))


def test_lesson_08_s_ranx_figures_are_the_values_of_the_conventions_it_names(helpdesk):
    """Lesson 08, ranx: the quoted example C figures (nDCG@5 over every judged document, MRR@2) are those values."""
    text = lesson_text("08")
    h = helpdesk
    example = h["example"]
    ndcg = metrics.query_ndcg(h["ranked"], h["judgments"], k=5)
    first = [metrics.first_relevant_rank(example.ranking("search", q), example.relevant_for(q))
             for q in example.query_ids]
    assert f"(example C: {ndcg:.4f})" in text
    assert f"(example C: MRR@2 {metrics.mean_reciprocal_rank(first, k=2):.4f})" in text
    assert "ranx 0.3.21" in text and "120 insertion orders" in text


@pytest.mark.parametrize(("trec_name", "key", "ours"), [("recip_rank.2", "recip_rank", "recip_rank.2"),
                                                         ("map.5", "map", "map.5")])
def test_the_batch_reads_a_trec_eval_name_as_trec_eval_does(helpdesk, trec_name, key, ours):
    """Lesson 09 (measure names): `recip_rank.2` and `map.5` in `evaluate` give pytrec_eval's value, with a warning."""
    from helpers.batch import evaluate
    from helpers.batch.measures import TrecNameWarning

    h = helpdesk
    per_query = pytrec_eval.RelevanceEvaluator(h["qrels"], {trec_name}).evaluate(h["run"])
    assert all(list(values) == [key] for values in per_query.values())
    example = h["example"]
    with pytest.warns(TrecNameWarning):
        evaluation = evaluate(example.judgments, example.runs[example.runs["system"] == "search"], ours)
    assert evaluation.means.iloc[0] == pytest.approx(sum(v[key] for v in per_query.values()) / len(per_query))


HASH_SEED_PROBE = """
import json, ir_measures
from ir_measures import nDCG
qrels, run = json.loads(input())
gains = nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7}) @ 5
together = ir_measures.calc_aggregate([nDCG @ 5, gains], qrels, run)
print(json.dumps([together[nDCG @ 5], together[gains]]))
"""


def test_ir_measures_can_mix_up_a_plain_and_a_gain_mapped_ndcg_asked_together(helpdesk):
    """Lesson 08 step 4: asked in one call, the two nDCG@5 can swap values, depending on Python's hash seed.

    Measured with ir_measures 0.4.3: hash seed 4 mixes them up on example C, seed 0 does not.
    """
    h = helpdesk
    payload = json.dumps([h["qrels"], h["run"]])
    plain = np.mean([v["ndcg_cut_5"] for v in pytrec_eval.RelevanceEvaluator(h["qrels"], {"ndcg_cut.5"})
                     .evaluate(h["run"]).values()])
    gain_mapped = ir_measures.calc_aggregate([nDCG(gains=EXPONENTIAL) @ 5], h["qrels"], h["run"])
    results = {}
    for seed in ("0", "4"):
        done = subprocess.run([sys.executable, "-c", HASH_SEED_PROBE], input=payload, capture_output=True,
                              text=True, timeout=180, env={**os.environ, "PYTHONHASHSEED": seed},
                              check=True)
        results[seed] = json.loads(done.stdout)
    right = [pytest.approx(plain), pytest.approx(next(iter(gain_mapped.values())))]
    assert results["0"] == right
    assert results["4"] != right and results["4"][1] == 0.0  # the gain-mapped nDCG comes back as 0
