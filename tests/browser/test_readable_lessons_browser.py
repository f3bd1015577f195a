"""Lessons a learner can read in JupyterLab Dark on a 1366 px laptop, checked in Chromium.

The JupyterLab server of this module starts with the JupyterLab Dark theme (a
user setting in its isolated settings folder) and the page is 1366 px wide.

- lessons 03 and 05, after Run All: axe-core's color-contrast rule finds no
  violation in the tables and widgets of the outputs, and the switches' chosen
  option stands 3:1 apart from the others with a focus ring of 3 px at 3:1. Every element with a light
  background of its own must set its own dark text, and text on the notebook's
  background must take a colour that reads on dark as well as on white;
- lesson 00 with the file browser open: no markdown table is wider than its cell.

A stitched screenshot of each lesson goes to test-output/browser/ when its test fails, or with
TEST_STITCHED_SHOTS=1 (no check reads it).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import page_checks, servers
from tests.browser.test_lessons_in_jupyterlab import add_axe, close_lesson, open_lesson, run_all

pytestmark = pytest.mark.browser

DARK = "JupyterLab Dark"
LESSONS = ["03_the_ndcg_spreadsheet.ipynb", "05_metrics_lab.ipynb"]
SCROLLER = ".jp-NotebookPanel:visible .jp-WindowedPanel-outer"

# axe's color-contrast rule on the tables, widgets and checker's verdicts of the outputs, every impact; one
# notebook is open at a time
CONTRAST_IN_OUTPUTS = """
async () => (await axe.run(
    {include: [['.jp-OutputArea-output table'], ['.jp-OutputArea-output .jupyter-widgets'],
               ['.jp-OutputArea-output .helpers-check']]},
    {runOnly: {type: 'rule', values: ['color-contrast']}, resultTypes: ['violations']}))
  .violations.flatMap(v => v.nodes.map(n => `${n.target.join(' ')}: ${n.any.map(a => a.message).join('; ')}`))
"""

# markdown tables wider than the rendered cell that holds them: the reader scrolls sideways
WIDE_MARKDOWN_TABLES = """
() => [...document.querySelectorAll('.jp-RenderedMarkdown table')]
  .filter(t => t.getBoundingClientRect().width > t.closest('.jp-RenderedMarkdown').clientWidth + 1)
  .map(t => `${t.querySelector('th').textContent.trim()}...: ${Math.round(t.getBoundingClientRect().width)} px in `
    + `${t.closest('.jp-RenderedMarkdown').clientWidth}`)
"""


@pytest.fixture(scope="module")
def dark_copy(tmp_path_factory):
    """The notebooks and data in a temporary folder laid out like the repository."""
    return servers.lessons_copy(tmp_path_factory.mktemp("repository"))


@pytest.fixture(scope="module")
def dark_lab(dark_copy, tmp_path_factory):
    """JupyterLab serving the copy, its user settings set to the dark theme."""
    server = servers.start_jupyterlab(dark_copy, tmp_path_factory.mktemp("dark-lab-home"), theme=DARK)
    yield server
    servers.stop(server)


@pytest.fixture(scope="module")
def dark_page(browser):
    """One page at a laptop's width for every lesson."""
    context = browser.new_context(viewport={"width": 1366, "height": 1400})
    context.set_default_timeout(30_000)
    yield context.new_page()
    context.close()


def contrast_violations(page) -> list[str]:
    """axe's color-contrast violations in the open notebook's tables and widgets, screen by screen, top to bottom."""
    add_axe(page)
    return sorted(set(page_checks.on_every_screen(page, SCROLLER, CONTRAST_IN_OUTPUTS)))


def test_the_contrast_check_sees_grey_text_and_a_light_cell_left_to_the_theme(dark_lab, dark_copy, dark_page):
    """The check can fail: grey text on the dark page and a yellow cell whose text stays the theme's white."""
    cell = (
        "from IPython.display import HTML\n"
        "HTML(\"<table><tr><td style='color:#6b6b6b'>grey text</td>"
        "<td style='background:#fff3bf'>text left to the theme</td></tr></table>\")"
    )
    servers.write_notebook(dark_copy / "notebooks" / "control_contrast.ipynb", [cell])
    open_lesson(dark_page, dark_lab, "notebooks/control_contrast.ipynb")
    try:
        run_all(dark_page)
        expect(dark_page.locator(".jp-NotebookPanel:visible .jp-OutputArea-output td")).to_have_count(2)
        violations = contrast_violations(dark_page)
        assert len(violations) == 2
        assert any("#6b6b6b" in found for found in violations) and any("#fff3bf" in found for found in violations)
    finally:
        close_lesson(dark_page, dark_lab)


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_in_jupyterlab_dark_has_no_contrast_violation_in_its_outputs(lesson, dark_lab, dark_page, shots):
    open_lesson(dark_page, dark_lab, f"notebooks/{lesson}")
    shot = shots / f"jupyterlab_dark_{lesson.removesuffix('.ipynb')}.png"
    try:
        with page_checks.stitched_screenshot_when_asked(dark_page, SCROLLER, shot):
            assert dark_page.evaluate("() => document.body.dataset.jpThemeName") == DARK
            assert dark_page.evaluate("() => document.body.dataset.jpThemeLight") == "false"
            run_all(dark_page)
            expect(dark_page.locator(".jp-NotebookPanel:visible .jp-OutputArea-output table").first).to_be_visible()
            dark_page.wait_for_timeout(500)  # MathJax typesets after the outputs arrive
            violations = contrast_violations(dark_page)
            assert violations == [], "\n".join(violations)
            look = page_checks.switch_contrast(dark_page, ".jp-NotebookPanel")  # the switches, Dark
            assert look["chosen against other"] >= 3 and look["ring against background"] >= 3, look
            assert look["ring width"] >= 3, look
    finally:
        close_lesson(dark_page, dark_lab)


def test_lesson_00_tables_fit_1366_px_with_the_file_browser_open(dark_lab, dark_page, shots):
    open_lesson(dark_page, dark_lab, "notebooks/00_start_here.ipynb")
    shot = shots / "jupyterlab_dark_00_start_here.png"
    try:
        with page_checks.stitched_screenshot_when_asked(dark_page, SCROLLER, shot):
            browser_tab = dark_page.get_by_role("tab", name="File Browser")
            if browser_tab.get_attribute("aria-selected") != "true":
                browser_tab.click()
            expect(dark_page.locator(".jp-FileBrowser")).to_be_visible()
            tables = dark_page.locator(".jp-NotebookPanel:visible .jp-RenderedMarkdown table")
            expect(tables.filter(has_text="trec_eval (pytrec_eval)")).to_have_count(1)
            assert tables.count() >= 4
            assert dark_page.evaluate(WIDE_MARKDOWN_TABLES) == []
    finally:
        dark_page.screenshot(path=str(shots / "jupyterlab_dark_00_file_browser_open.png"))
        close_lesson(dark_page, dark_lab)
