"""A learner's progress (lesson 00's section) in JupyterLab Light and Dark, read from the page in Chromium.

A notebook in a temporary copy of the repository records two slips, a wrong answer, a hint and a right answer in
a record of its own (JUPYTER_DATA_DIR under the test's folder), then shows ``progress()`` and its chart as lesson
00 does, and lesson 03's closing progress cell, at 1366 x 768. In each theme each table is there whole, with its
rows (every exercise's; lesson 03's only), the slips by name and the next step; axe's color-contrast rule finds
nothing in them; the chart is drawn. A screenshot of each theme goes to test-output/browser/.
"""

from __future__ import annotations

import pytest

from helpers.exercises import REGISTRY, exercises_of
from tests.browser import page_checks, servers
from tests.browser.conftest import AXE
from tests.browser.conftest import JUPYTERLAB_THEMES as THEMES
from tests.browser.test_lessons_in_jupyterlab import SCROLLER, close_lesson, open_lesson, run_all

pytestmark = pytest.mark.browser


PROGRESS_SHOWN = """
() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .helpers-progress')].map(box => ({
  text: box.textContent, rows: box.querySelectorAll('tbody tr').length,
  background: getComputedStyle(box.querySelector('td')).backgroundColor}))
"""
CHARTS = """
() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedImage img')]
  .map(image => image.naturalWidth)
"""
CONTRAST = """
async () => (await axe.run({include: [['.jp-OutputArea-output .helpers-progress']]},
    {runOnly: {type: 'rule', values: ['color-contrast']}, resultTypes: ['violations']}))
  .violations.flatMap(v => v.nodes.map(n => `${n.target.join(' ')}: ${n.any.map(a => a.message).join('; ')}`))
"""


def closing_cell(lesson: str) -> str:
    """The source of a lesson's progress cell, the one after its "More practice" cell."""
    import nbformat

    from helpers.exercises.new import CLOSING
    from tests.notebook_runner import notebook_path

    cells = nbformat.read(notebook_path(lesson), as_version=4).cells
    return next(cells[i + 1].source for i, cell in enumerate(cells) if CLOSING in cell.source)


@pytest.fixture(scope="module", params=list(THEMES))
def themed_lab(request, tmp_path_factory):
    """JupyterLab in one theme serving a copy of the repository, with a notebook that keeps its own record."""
    record = tmp_path_factory.mktemp("jupyter-data")
    right = f"{REGISTRY['fresh-dcg4'].worked().value:.3f}"
    cells = [
        f"import os\nos.environ['JUPYTER_DATA_DIR'] = {str(record)!r}\nos.environ['RANKING_METRICS_PROGRESS'] = 'on'",
        "from helpers.exercises import check, hint, progress",
        f'_ = check("sheet-ndcg3", 0.665), check("sheet-ndcg3", 0.556), check("advisor-mrr2", 0.123), '
        f'hint("advisor-mrr2"), check("fresh-dcg4", {right})',
        "mine = progress()\nmine",
        "mine.chart();",
        closing_cell("03"),  # lesson 03's closing cell, as the lesson has it
    ]
    server = servers.start_themed_lab(tmp_path_factory, request.param, "progress.ipynb", cells)
    yield server
    servers.stop(server)


def test_progress_table_and_chart_read_in_light_and_dark(themed_lab, laptop_page, shots):
    page, theme = laptop_page, themed_lab.theme
    open_lesson(page, themed_lab, "notebooks/progress.ipynb")
    try:
        assert page.evaluate("() => document.body.dataset.jpThemeLight") == THEMES[theme]
        run_all(page)
        shown = page_checks.on_every_screen(page, SCROLLER, PROGRESS_SHOWN)
        assert len(shown) == 2, shown
        assert shown[0]["rows"] == len(REGISTRY)
        assert shown[1]["rows"] == len(exercises_of("03"))  # the lesson's closing cell: its rows only
        assert shown[1]["text"].startswith(f"Your progress (lesson 03): 0 of {len(exercises_of('03'))} exercises "
                                           "right, 1 not right yet")
        assert "Next: run practice('sheet-ndcg3'): sheet-ndcg3 on new numbers" in shown[1]["text"]
        text = shown[0]["text"]
        assert f"Your progress (all lessons): 1 of {len(REGISTRY)} exercises right, 2 not right yet" in text
        assert "retrieved-only-ideal, no-discount" in text
        assert "Next: run practice(): it deals sheet-ndcg3 on new numbers" in text
        assert [width for width in page_checks.on_every_screen(page, SCROLLER, CHARTS) if width > 400]
        page.add_script_tag(path=str(AXE))
        page.add_style_tag(content="html, body { height: 100%; }")  # JupyterLab's body is 0 px high for axe
        assert page_checks.on_every_screen(page, SCROLLER, CONTRAST) == []
    finally:
        name = theme.split()[-1].lower()
        page_checks.stitched_screenshot(page, SCROLLER, shots / f"jupyterlab_{name}_progress.png")
        close_lesson(page, themed_lab)
