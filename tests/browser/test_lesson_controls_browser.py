"""The controls of lessons 01-03 rendered by Voilà in a real browser, one interaction each.

The notebook served here is written by the test into a temporary folder (three
cells calling mrr_control, ndcg_control and worksheet_control, as lessons 01-03
do); the numbers on the page must equal helpers.metrics for each state.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from helpers import metrics
from helpers.data import load_example
from tests.browser import servers

pytestmark = pytest.mark.browser

CELLS = [
    "from helpers.widgets import mrr_control, ndcg_control, worksheet_control\n\nmrr_control()",
    "ndcg_control()",
    "worksheet_control()",
]


@pytest.fixture(scope="module")
def controls_voila(tmp_path_factory):
    folder = tmp_path_factory.mktemp("controls")
    notebook = servers.write_notebook(folder / "controls.ipynb", CELLS)
    server = servers.start_voila(notebook, tmp_path_factory.mktemp("controls-home"))
    yield server
    servers.stop(server)


def first_ranks(system: str, moved=None) -> list[int]:
    data = load_example("A")
    ranks = []
    for query in data.query_ids:
        ranked = data.ranking(system, query)
        if moved and moved[0] == query:
            ranked = [moved[1]] + [doc for doc in ranked if doc != moved[1]]
        ranks.append(metrics.first_relevant_rank(ranked, data.relevant_for(query)))
    return ranks


def test_lesson_controls_in_voila(page, controls_voila, shots):
    page.goto(controls_voila.page(""))
    expect(page.locator(".worksheet-control .metric-ndcg")).to_contain_text("NDCG@5", timeout=90_000)

    # lesson 01: OLD vs NEW, then D8 moved to rank 1 in NEW
    for system in ("OLD", "NEW"):
        ranks = first_ranks(system)
        expect(page.locator(f".metric-mrr-{system}")).to_have_text(
            f"{metrics.mean_reciprocal_rank(ranks):.3f}"
        )
        expect(page.locator(f".metric-hit-{system}")).to_have_text(f"{metrics.mean_hit_rate(ranks, 3):.3f}")
    expect(page.locator(".metric-mrr-OLD")).to_have_text("0.750")
    expect(page.locator(".metric-mrr-NEW")).to_have_text("0.417")
    page.locator(".mrr-rank-NEW-q1 select").select_option(label="rank 1")
    moved = first_ranks("NEW", ("q1", "D8"))
    expect(page.locator(".metric-mrr-NEW")).to_have_text(f"{metrics.mean_reciprocal_rank(moved):.3f}")
    expect(page.locator(".metric-mrr-NEW")).to_have_text("0.517")
    expect(page.locator(".metric-hit-NEW")).to_have_text("0.800")
    page.locator(".mrr-control").screenshot(path=str(shots / "controls_1_mrr_d8_first.png"))

    # lesson 02: swapped (0.8212), then D11 moved to rank 1 (it swaps with D4)
    expect(page.locator(".ndcg-control .metric-ndcg")).to_have_text("nDCG@5 = 0.8212")
    page.locator(".ndcg-pos-D11 select").select_option(label="rank 1")
    judgments = load_example("B").judgments_for("b1")
    grades = metrics.grades_in_rank_order(["D11", "D9", "D4", "D1", "D2"], judgments)
    expected = metrics.ndcg(grades, 5, ideal=list(judgments.values()))
    expect(page.locator(".ndcg-control .metric-ndcg")).to_have_text(f"nDCG@5 = {expected:.4f}")
    expect(page.locator(".ndcg-pos-D4 select")).to_have_value("rank 3")  # D4 took D11's old rank
    page.locator(".ndcg-control").screenshot(path=str(shots / "controls_2_ndcg_d11_first.png"))

    # lesson 03: the worksheet (0.550), then the missed document's grade typed as 0
    expect(page.locator(".worksheet-control .metric-ndcg")).to_have_text("NDCG@5 = 0.550")
    expect(page.locator(".worksheet-control .ndcg-returned")).to_contain_text("0.690")
    missed = page.locator(".ws-grade-missed-1 input")
    missed.fill("0")
    missed.press("Enter")
    returned = [2, 0, 3, 1, 0, 2]
    expected = metrics.ndcg(returned, 5, ideal=returned + [0])
    expect(page.locator(".worksheet-control .metric-ndcg")).to_have_text(f"NDCG@5 = {expected:.3f}")
    expect(page.locator(".worksheet-control .worksheet")).to_contain_text(f"{expected:.3f}")
    page.locator(".worksheet-control").screenshot(path=str(shots / "controls_3_worksheet_missed_0.png"))
