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
from helpers.batch.comparison import compare
from helpers.batch.evaluation import evaluate

pytestmark = pytest.mark.notebook  # every test here runs lesson notebooks in a kernel

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "09_from_golden_set_to_benchmark.ipynb"
VARIABLES = [
    "golden_mrr_old", "golden_mrr_new", "means_a", "means_b", "comparison_summary", "by_type",
    "group_p_values", "inflated_mean_b", "honest_mean_b", "different_sets_error", "SEED", "MEASURES",
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
                   resources={"metadata": {"path": str(folder)}}).execute()
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
    assert abs(values["comparison_summary"]["mean_difference"]) < 0.02
    assert values["comparison_summary"]["p_randomization"] > 0.05
    assert max(values["group_p_values"].values()) < 0.01


def test_breaking_it_shows_the_inflated_mean_and_the_refusal(lesson):
    values, _ = lesson
    assert values["inflated_mean_b"] > values["means_b"]["nDCG@10"] > values["honest_mean_b"]
    assert "scored on different queries" in values["different_sets_error"]
