"""Lesson 09 runs top to bottom, and its key numbers match what helpers computes independently."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from nbclient import NotebookClient

from helpers import load_example, metrics
from helpers.batch.comparison import compare, compare_all
from helpers.batch.evaluation import evaluate, rank_run
from helpers.batch.registry import DECLARATIONS
from tests.notebook_runner import IpcKernelManager

pytestmark = pytest.mark.notebook  # every test here runs lesson notebooks in a kernel

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "09_from_golden_set_to_benchmark.ipynb"
VARIABLES = [
    "golden_mrr_old", "golden_mrr_new", "means_a", "means_b", "comparison_summary", "by_type",
    "group_p_values", "inflated_mean_b", "zeroed_mean_b", "dropped_full_mean_b", "different_sets_error", "SEED",
    "MEASURES", "mrr4_by_convention", "canonical_names", "comparison_reading", "all_measures_reading",
    "measures_listed",
]
DATA = ("qrels", "run_a", "run_b", "query_type")  # generated in the notebook, saved by the test


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    """Run a copy of the notebook; return its variables and the data it generated."""
    folder = tmp_path_factory.mktemp("lesson09")
    copy = folder / NOTEBOOK.name
    shutil.copy(NOTEBOOK, copy)
    notebook = nbformat.read(copy, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(
        "import json as _json\n"
        f"for _name in {DATA!r}:\n"
        "    globals()[_name].to_pickle(f'{_name}.pkl')\n"
        "def _plain(value):\n"
        "    return value.to_dict() if hasattr(value, 'to_dict') else float(value)\n"
        f"print('__VARS__' + _json.dumps({{n: globals()[n] for n in {VARIABLES!r}}}, default=_plain))"
    ))
    NotebookClient(notebook, timeout=180, kernel_name="python3",
                   resources={"metadata": {"path": str(folder)}}, kernel_manager_class=IpcKernelManager).execute()
    printed = "".join(output.get("text", "") for output in notebook.cells[-1].outputs)
    values = json.loads(printed.split("__VARS__", 1)[1])
    data = {name: pd.read_pickle(folder / f"{name}.pkl") for name in DATA}
    return values, data


def test_golden_set_gives_lesson_01_mrr(lesson):
    values, _ = lesson
    riding = load_example("A")
    for system, name in [("OLD", "golden_mrr_old"), ("NEW", "golden_mrr_new")]:
        first = [
            metrics.first_relevant_rank(riding.ranking(system, qid), riding.relevant_for(qid))
            for qid in riding.query_ids
        ]
        assert values[name] == pytest.approx(metrics.mean_reciprocal_rank(first))
    assert (round(values["golden_mrr_old"], 3), round(values["golden_mrr_new"], 3)) == (0.75, 0.417)


def test_benchmark_means_and_comparison_match_helpers(lesson):
    values, data = lesson
    a = evaluate(data["qrels"], data["run_a"], values["MEASURES"])
    b = evaluate(data["qrels"], data["run_b"], values["MEASURES"])
    assert data["qrels"]["qid"].nunique() == 1000
    assert values["means_a"] == pytest.approx(a.means.to_dict())
    assert values["means_b"] == pytest.approx(b.means.to_dict())
    summary = compare(a, b, "nDCG@10", seed=values["SEED"]).summary
    assert values["comparison_summary"] == pytest.approx(summary.to_dict())


def test_a_sample_of_queries_matches_helpers_metrics(lesson):
    values, data = lesson
    per_query = evaluate(data["qrels"], data["run_a"], "nDCG@10").per_query["nDCG@10"]
    for qid in sorted(data["query_type"].index)[:40]:
        judged = data["qrels"][data["qrels"]["qid"] == qid]
        judgments = dict(zip(judged["docno"], judged["grade"].astype(float), strict=True))
        ranked = data["run_a"][data["run_a"]["qid"] == qid].sort_values("rank")["docno"].tolist()
        assert per_query[qid] == pytest.approx(metrics.query_ndcg(ranked, judgments, k=10))


def test_the_average_hides_two_opposite_query_types(lesson):
    values, data = lesson
    a = evaluate(data["qrels"], data["run_a"], "nDCG@10").per_query["nDCG@10"]
    b = evaluate(data["qrels"], data["run_b"], "nDCG@10").per_query["nDCG@10"]
    by_type = (b - a).groupby(data["query_type"]).mean()
    assert values["by_type"] == pytest.approx(by_type.to_dict())
    assert values["by_type"]["explain"] > 0.1 and values["by_type"]["lookup"] < -0.1
    # "`wins` counts the questions where B scores above A and `losses` those where it scores below"
    from helpers.batch.comparison import differences_by_group

    table = differences_by_group(compare(a, b, seed=values["SEED"], n_resamples=100), data["query_type"])
    assert table["wins"].to_dict() == ((b - a) > 1e-12).groupby(data["query_type"]).sum().to_dict()
    assert table["losses"].to_dict() == ((b - a) < -1e-12).groupby(data["query_type"]).sum().to_dict()
    assert "`wins` counts the questions where B scores above A" in " ".join(markdown_of("580bf7ed").split())
    assert abs(values["comparison_summary"]["mean_difference"]) < 0.02
    assert values["comparison_summary"]["p_randomization"] > 0.05
    assert max(values["group_p_values"].values()) < 0.01


def test_breaking_it_shows_the_inflated_mean_and_the_refusal(lesson):
    values, data = lesson
    assert values["inflated_mean_b"] > values["means_b"]["nDCG@10"] > values["zeroed_mean_b"]
    assert "scored on different queries" in values["different_sets_error"]
    # why counting the dropped questions as 0 is too low: in the full run they were worth more than 0
    b = evaluate(data["qrels"], data["run_b"], ["nDCG@10", "Hit@3"]).per_query
    dropped = b.index[b["Hit@3"] == 0]
    assert values["dropped_full_mean_b"] == pytest.approx(b.loc[dropped, "nDCG@10"].mean())
    assert values["dropped_full_mean_b"] > 0
    n = len(b)
    assert values["zeroed_mean_b"] == pytest.approx(values["means_b"]["nDCG@10"] - len(dropped) / n
                                                    * values["dropped_full_mean_b"])


def markdown_of(cell_id: str) -> str:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    return next(cell.source for cell in notebook.cells if cell.get("id") == cell_id)


def test_example_d_shows_trec_eval_s_and_the_collection_s_conventions(lesson):
    """Section 1: evaluate's MRR@4 of example D (trec_eval's conventions) next to lesson 04's."""
    values, _ = lesson
    advisor = load_example("D")
    answerable = [q for q in advisor.query_ids if advisor.relevant_for(q)]
    lesson_04 = metrics.mean_reciprocal_rank(
        [metrics.first_relevant_rank(advisor.ranking("advisor", q), advisor.relevant_for(q), k=4) for q in answerable],
        k=4)
    trec, kept, helpers_value = values["mrr4_by_convention"].values()
    assert round(lesson_04, 3) == 0.444 and "MRR@4 0.444" in markdown_of("09-conv-md")
    assert kept == pytest.approx(lesson_04) and helpers_value == pytest.approx(lesson_04)
    assert round(trec, 3) == 0.375  # ties by id descending and d4 scored 0


def test_the_list_of_measures_is_the_registry_s(lesson):
    """Section 1 lists every declared measure, in the registry's order, each with its definition."""
    values, _ = lesson
    listed = values["measures_listed"]
    assert list(listed["what it is"].keys()) == [d.name for d in DECLARATIONS.values()]
    assert listed["what it is"] == {d.name: d.definition for d in DECLARATIONS.values()}
    assert listed["trec_eval"]["AP"] == "map, map_cut_k" and listed["write it"]["P"] == "P@k"


def test_trec_eval_names_mean_what_trec_eval_computes(lesson):
    values, _ = lesson
    names = values["canonical_names"]
    assert (names["recip_rank.2"], names["map.5"], names["ndcg_cut_10"]) == ("RR", "AP", "nDCG@10")
    assert names["ndcg.5"].startswith("refused: ")


def test_the_sentences_around_the_comparison_are_true(lesson):
    values, data = lesson
    a = evaluate(data["qrels"], data["run_a"], values["MEASURES"])
    b = evaluate(data["qrels"], data["run_b"], values["MEASURES"])
    summary = values["comparison_summary"]
    # "On nDCG@10 the two means are almost equal; ... B's P@5 is about a quarter above A's"
    assert abs(summary["mean_difference"]) < 0.01
    assert 0.2 < b.means["P@5"] / a.means["P@5"] - 1 < 0.3
    # "its 95 % interval contains 0 and every p-value is large": no evidence of a difference
    assert summary["confidence"] == 0.95 and summary["ci_low"] < 0 < summary["ci_high"]
    assert min(summary["p_randomization"], summary["p_t_test"], summary["p_wilcoxon"]) > 0.05
    assert "no evidence of a difference" in values["comparison_reading"]
    read = " ".join(markdown_of("3da070b7").split())
    assert "*no evidence of a difference*" in read and "A and B are the same system" not in read
    # "The measures do not even agree on the direction"
    differences = b.means - a.means
    assert differences.max() > 0 > differences.min()
    # the reading of compare_all names the measures that survive Holm, from the numbers
    table = compare_all(a, b, seed=values["SEED"])
    survive = [m for m in table.index if table.loc[m, "p_randomization_holm"] <= 0.05]
    raw_only = [m for m in table.index
                if table.loc[m, "p_randomization"] <= 0.05 < table.loc[m, "p_randomization_holm"]]
    assert survive == ["AP", "P@5"] and raw_only == ["Hit@3"]
    # "`ci_low` and `ci_high` bound the 95 % bootstrap interval and `cohens_d` is d_z"
    assert "bound the 95 % bootstrap interval and `cohens_d` is d_z" in " ".join(markdown_of("a269e15c").split())
    assert (table["confidence"] == 0.95).all()
    for measure in table.index:
        difference = b.per_query[measure] - a.per_query[measure]
        assert table.loc[measure, "cohens_d"] == pytest.approx(difference.mean() / difference.std(ddof=1))
    reading_text = values["all_measures_reading"]
    assert "a difference on AP" in reading_text and "and P@5" in reading_text
    assert "Hit@3 (raw p" in reading_text and "AP: significant, but the effect is negligible" in reading_text
    # both query types on their own: at the randomization test's floor
    assert values["group_p_values"] == {"lookup": pytest.approx(1 / 10_001), "explain": pytest.approx(1 / 10_001)}


def generator(share_lookup: float):
    """The lesson's generator cell, run here with another share of lookups: the two systems' mean nDCG@10."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    source = next(cell.source for cell in notebook.cells if "def make_judgments" in cell.source)
    source = source.replace("SHARE_LOOKUP = 0.4", f"SHARE_LOOKUP = {share_lookup}")
    namespace: dict = {"np": __import__("numpy"), "pd": pd, "rank_run": rank_run}
    exec(compile(source.split("qrels, query_type =")[0], "generator", "exec"), namespace)  # noqa: S102
    qrels, query_type = namespace["make_judgments"](1000, share_lookup, namespace["SEED"])
    runs = {name: namespace["make_run"](qrels, query_type, namespace["SKILL"][name], seed=namespace["SEED"] + offset)
            for name, offset in (("A", 1), ("B", 2))}
    return {name: float(evaluate(qrels, run, "nDCG@10").means["nDCG@10"]) for name, run in runs.items()}


def test_more_to_try_the_mix_decides_who_leads():
    """More to try 1: raising the share of lookups widens A's lead; lowering it enough makes B lead."""
    at = {share: generator(share) for share in (0.2, 0.4, 0.8)}
    lead_of_a = {share: means["A"] - means["B"] for share, means in at.items()}
    assert lead_of_a[0.8] > lead_of_a[0.4] > 0 > lead_of_a[0.2]
