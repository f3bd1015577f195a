"""The metrics lab of lesson 05 in a real browser: JupyterLab (Run All) and Voilà (classroom mode).

Each test clicks grades, moves K with the keyboard, flips the gain and the
threshold, clicks fast, and zeroes every grade; after each step the numbers on
the page must equal helpers.metrics computed here for that state. A screenshot
of the lab is saved for every state under test-output/browser/.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from helpers import metrics
from helpers.data import load_example
from tests.browser.page_checks import READ_PNG_TEXT

pytestmark = pytest.mark.browser

GRADE_NAMES = {0: "none", 1: "useful", 2: "answers it"}
UNDEFINED = "undefined — no relevant document"


class LabState:
    """The state the test has put the lab in, and the numbers helpers.metrics gives for it."""

    def __init__(self):
        data = load_example("E")
        self.ids = data.ranking("lab", "e1")
        judgments = data.judgments_for("e1")
        self.grades = [int(judgments[doc]) for doc in self.ids]
        self.k, self.gain, self.threshold = 3, "exponential", 1

    def texts(self) -> dict[str, str]:
        """The text each metric label must show."""
        k, grades = self.k, [float(grade) for grade in self.grades]
        relevant = {doc for doc, grade in zip(self.ids, grades, strict=True) if grade >= self.threshold}
        first = metrics.first_relevant_rank(self.ids, relevant)
        texts = {
            "mrr": f"MRR = {metrics.reciprocal_rank_of(first):.4f}",
            "mrr-k": f"MRR@{k} = {metrics.reciprocal_rank_of(first, k):.4f}",
        }
        if relevant:
            texts["recall"] = f"Recall@{k} = {metrics.recall_at_k(self.ids, relevant, k):.4f}"
        else:
            texts["recall"] = f"Recall@{k}: {UNDEFINED} (R = 0)"
        try:
            texts["ndcg"] = f"nDCG@{k} = {metrics.ndcg(grades, k, gain=self.gain):.4f}"
        except metrics.UndefinedMetricError:
            texts["ndcg"] = f"nDCG@{k}: {UNDEFINED} (ideal DCG = 0)"
        return texts

    def dcg_line(self) -> str:
        grades = [float(grade) for grade in self.grades]
        return f" = {metrics.dcg(grades, self.k, self.gain):.4f}"

    def plot_title(self) -> str:
        """The description the plot's PNG must carry for this state."""
        table = metrics.arithmetic_table(self.grades, self.k, gain=self.gain)
        bars = " ".join(f"{value:.3f}" for value in table["discounted_gain"])
        ideal = " ".join(f"{value:.3f}" for value in table["ideal_discounted_gain"])
        return f"{self.gain} gain, K = {self.k}; discounted gain by rank: {bars}; ideal: {ideal}"

    def discounted_gains(self) -> list[str]:
        """The sheet's 'discounted gain' column as shown: header, then one value per rank."""
        table = metrics.arithmetic_table(self.grades, self.k, gain=self.gain)
        return ["discounted gain"] + [f"{value:.3f}" for value in table["discounted_gain"]]


def check_page(page, state: LabState) -> None:
    """Every number of the lab on the page equals helpers.metrics for the state."""
    for name, text in state.texts().items():
        expect(page.locator(f".metrics-lab .metric-{name}")).to_have_text(text)
    for rank, grade in enumerate(state.grades, start=1):
        expect(page.locator(f".grade-btn-{rank}")).to_have_text(f"{grade} · {GRADE_NAMES[grade]}")
    expect(page.locator(".metrics-lab .formula-out")).to_contain_text(state.dcg_line())
    expect(page.locator(".metrics-lab .arithmetic-table tr td:nth-of-type(6)")).to_have_text(
        state.discounted_gains()
    )
    # the PNG carries its own description: the plot on the page shows this state, not an older one
    expect_plot(page, state.plot_title())


def expect_plot(page, description: str, timeout: float = 15) -> None:
    """Wait until the one plot image on the page is the picture with this description."""
    plot = page.locator(".metrics-lab img.dg-plot")
    expect(plot).to_have_count(1)
    deadline, seen = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        seen = plot.evaluate(READ_PNG_TEXT, "Description")
        if seen == description:
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"the plot shows {seen!r}, expected {description!r}")


def plot_source(page) -> str:
    plot = page.locator(".metrics-lab img.dg-plot")
    expect(plot).to_have_count(1)
    return plot.get_attribute("src")


def expect_new_plot(page, old: str) -> str:
    """The one plot image got a new picture (its source changed), and there is still one image."""
    plot = page.locator(".metrics-lab img.dg-plot")
    expect(plot).not_to_have_attribute("src", old)
    expect(plot).to_have_count(1)
    return plot.get_attribute("src")


def drive_lab(page, shots, prefix: str) -> None:
    """Click through the lab's states, checking the page and saving a screenshot of each."""
    lab = page.locator(".metrics-lab")
    state = LabState()
    step = iter(range(1, 100))

    def snapshot(name: str) -> None:
        lab.screenshot(path=str(shots / f"{prefix}_{next(step)}_{name}.png"))

    check_page(page, state)
    expect(page.locator(".metrics-lab .gain-note")).to_contain_text("exponential gain, 2^grade − 1")
    expect(page.locator(".metrics-lab .gain-note")).to_contain_text("collection's default is linear gain")
    expect(page.locator(".metrics-lab .ideal-note")).to_contain_text("ideal from all judged documents")
    source = plot_source(page)
    snapshot("opening")

    page.locator(".grade-btn-3").click()  # r4: none -> useful
    state.grades[2] = 1
    check_page(page, state)
    source = expect_new_plot(page, source)
    snapshot("r4_useful")

    handle = page.locator(".k-slider .noUi-handle")
    handle.focus()
    page.keyboard.press("ArrowRight")
    state.k = 4
    expect(page.locator(".metrics-lab .k-note")).to_contain_text("K = 4: the top 4 of 6 results count")
    check_page(page, state)
    source = expect_new_plot(page, source)
    snapshot("k4")

    page.locator(".gain-toggle button", has_text="linear: gain = grade").click()
    state.gain = "linear"
    expect(page.locator(".metrics-lab .gain-note")).to_contain_text("linear gain, gain = grade")
    check_page(page, state)
    source = expect_new_plot(page, source)
    snapshot("linear_gain")

    button = page.locator(".grade-btn-1")
    for _ in range(7):  # fast clicks, no waiting: 7 steps of a 3-grade cycle = one step
        button.click(delay=0)
    state.grades[0] = (state.grades[0] + 7) % 3
    check_page(page, state)
    snapshot("seven_fast_clicks")

    page.locator(".threshold-toggle button", has_text="grade ≥ 2").click()
    state.threshold = 2
    expect(page.locator(".metrics-lab .threshold-note")).to_contain_text("grade ≥ 2")
    check_page(page, state)
    snapshot("threshold_2")

    # each click waits for the one before to show: a fresh-clone run under load lost the second of two clicks on
    # one button (the button moved between Playwright's look at it and the click, as the outputs above redrew)
    for rank, grade in enumerate(list(state.grades), start=1):
        for clicks in range(1, (3 - grade) % 3 + 1):
            page.locator(f".grade-btn-{rank}").click()
            shown = (grade + clicks) % 3
            expect(page.locator(f".grade-btn-{rank}")).to_have_text(f"{shown} · {GRADE_NAMES[shown]}")
    state.grades = [0] * 6
    check_page(page, state)
    expect(page.locator(".metrics-lab .formula-out")).not_to_contain_text("nan")
    snapshot("all_zero_undefined")


def test_metrics_lab_in_jupyterlab(page, jupyterlab, shots):
    page.goto(jupyterlab.page("lab/tree/05_metrics_lab.ipynb"))
    status = page.locator("#jp-main-statusbar").get_by_text("Python 3 (ipykernel) | Idle")
    expect(status).to_be_visible(timeout=90_000)
    page.locator(".jp-NotebookPanel .jp-Cell").first.click()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    run_all = page.get_by_role("menuitem", name="Run All Cells", exact=True)
    expect(run_all).to_be_enabled()
    run_all.click()
    expect(page.locator(".metrics-lab")).to_have_count(1, timeout=90_000)
    expect(page.locator(".metrics-lab .metric-ndcg")).to_contain_text("nDCG@3 = ", timeout=60_000)
    # the static part ran too: the opening numbers are printed above the lab
    agreed = page.locator(".jp-OutputArea-output", has_text="The lab's opening numbers agree with Steps 2-4.")
    expect(agreed).to_be_visible(timeout=60_000)
    drive_lab(page, shots, "jupyterlab")


def test_metrics_lab_in_voila(page, voila, shots):
    page.goto(voila.page(""))
    expect(page.locator(".metrics-lab .metric-ndcg")).to_contain_text("nDCG@3 = ", timeout=90_000)
    # classroom mode: code hidden, outputs shown (the printed opening numbers among them)
    agreed = page.locator(".jp-OutputArea-output", has_text="The lab's opening numbers agree with Steps 2-4.")
    expect(agreed).to_be_visible()
    expect(page.locator(".jp-InputArea-editor:visible")).to_have_count(0)
    page.screenshot(path=str(shots / "voila_page.png"))
    drive_lab(page, shots, "voila")
