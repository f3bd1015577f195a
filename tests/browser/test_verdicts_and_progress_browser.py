"""The checker's verdicts, hints and practice, and a learner's progress (lesson 00's section), in JupyterLab Light
and Dark, read from the page in Chromium at a laptop's 1366 px wide (screen by screen in a window 4,800 px tall, as
tests/browser/test_lessons_in_jupyterlab.py reads the lessons).

One JupyterLab per theme serves a temporary copy of the repository with two notebooks, each opened in turn in the
same page:

- verdicts.ipynb checks an exercise as a learner does (not answered, a slip, the right answer typed as a float, a
  hint, a practice variant with its hint and a check). In each theme, every verdict box takes the theme's background
  (dark on JupyterLab Dark, light on Light), its text keeps at least 4.5:1 contrast against it, and so does the
  verdict's mark; axe's color-contrast rule finds nothing.
- progress.ipynb records two slips, a wrong answer, a hint and a right answer in a record of its own
  (JUPYTER_DATA_DIR under the test's folder), then shows ``progress()`` and its chart as lesson 00 does, and lesson
  03's closing progress cell. In each theme each table is there whole, with its rows (every exercise's; lesson 03's
  only), the slips by name and the next step; axe's color-contrast rule finds nothing in them; the chart is drawn.

A stitched screenshot of each notebook in each theme goes to test-output/browser/ when its test fails, or with
TEST_STITCHED_SHOTS=1 (no check reads it).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from helpers.exercises import REGISTRY, exercises_of
from tests.browser import page_checks, servers
from tests.browser.conftest import JUPYTERLAB_THEMES as THEMES
from tests.browser.test_lessons_in_jupyterlab import (
    SCROLLER,
    add_axe,
    close_lesson,
    open_lesson,
    run_all,
    tall_window,
)

pytestmark = pytest.mark.browser


# each verdict box: its own background, its text colour, and its mark's colour on the mark's background
VERDICT_COLOURS = """
() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .helpers-check')].map(box => {
  const mark = box.querySelector('span');
  const style = getComputedStyle(box), marked = getComputedStyle(mark);
  return {text: mark.parentElement.textContent.trim().slice(0, 120), background: style.backgroundColor,
          colour: style.color, mark: marked.color, markBackground: marked.backgroundColor};
})
"""

CONTRAST_OF_VERDICTS = """
async () => (await axe.run({include: [['.jp-OutputArea-output .helpers-check'],
                                       ['.jp-OutputArea-output .helpers-note'],
                                       ['.jp-OutputArea-output .helpers-exercise']]},
    {runOnly: {type: 'rule', values: ['color-contrast']}, resultTypes: ['violations']}))
  .violations.flatMap(v => v.nodes.map(n => `${n.target.join(' ')}: ${n.any.map(a => a.message).join('; ')}`))
"""


def rgb(css: str) -> tuple[float, float, float, float]:
    """'rgb(1, 2, 3)' or 'rgba(1, 2, 3, 0.5)' as numbers (alpha 1 when absent)."""
    parts = [float(p) for p in css[css.index("(") + 1 : -1].split(",")]
    return (*parts[:3], parts[3] if len(parts) == 4 else 1.0)


def luminance(css: str) -> float:
    """WCAG relative luminance of an opaque colour."""
    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue, _ = rgb(css)
    return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)


def over(colour: str, background: str) -> str:
    """A colour with an alpha drawn over an opaque background, as the eye sees it."""
    red, green, blue, alpha = rgb(colour)
    under = rgb(background)
    mixed = [round(alpha * c + (1 - alpha) * u) for c, u in zip((red, green, blue), under[:3], strict=True)]
    return f"rgb({mixed[0]}, {mixed[1]}, {mixed[2]})"


def contrast(colour: str, background: str) -> float:
    lighter, darker = sorted((luminance(over(colour, background)), luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


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
    """JupyterLab in one theme (a user setting in its isolated settings folder) serving a copy of the repository with
    the verdicts notebook and the progress notebook (which keeps its own record)."""
    right = f"{REGISTRY['fresh-dcg4'].worked().value:.3f}"
    verdicts = [
        "from helpers.exercises import check, hint, practice",
        'check("fresh-dcg4", None)',
        'check("fresh-dcg4", "4.430")',
        f'check("fresh-dcg4", {right})  # the right answer, typed as a number',
        'hint("fresh-dcg4")',
        'run = practice("fresh-dcg4", seed=3)\nrun',
        "run.hint()",
        "run.check(0.5)",
    ]
    record = tmp_path_factory.mktemp("jupyter-data")
    progress = [
        f"import os\nos.environ['JUPYTER_DATA_DIR'] = {str(record)!r}\nos.environ['RANKING_METRICS_PROGRESS'] = 'on'",
        "from helpers.exercises import check, hint, progress",
        f'_ = check("sheet-ndcg3", 0.665), check("sheet-ndcg3", 0.556), check("advisor-mrr2", 0.123), '
        f'hint("advisor-mrr2"), check("fresh-dcg4", {right})',
        "mine = progress()\nmine",
        "mine.chart();",
        closing_cell("03"),  # lesson 03's closing cell, as the lesson has it
    ]
    server = servers.start_themed_lab(
        tmp_path_factory, request.param, {"verdicts.ipynb": verdicts, "progress.ipynb": progress}
    )
    yield server
    servers.stop(server)


@contextmanager
def run_in_theme(page, themed_lab, notebook: str, shots: Path) -> Iterator[None]:
    """The notebook opened in the themed JupyterLab and run; after the block, closed (its screenshot when asked)."""
    theme = themed_lab.theme
    shot = shots / f"jupyterlab_{theme.split()[-1].lower()}_{notebook}.png"
    open_lesson(page, themed_lab, f"notebooks/{notebook}.ipynb")
    try:
        with page_checks.stitched_screenshot_when_asked(page, SCROLLER, shot):
            assert page.evaluate("() => document.body.dataset.jpThemeLight") == THEMES[theme]
            run_all(page)
            with tall_window(page):  # read screen by screen, as the lessons are
                yield
    finally:
        close_lesson(page, themed_lab)


def test_verdict_boxes_take_the_theme_and_read_in_it(themed_lab, laptop_page, shots):
    page, theme = laptop_page, themed_lab.theme
    with run_in_theme(page, themed_lab, "verdicts", shots):
        boxes = page_checks.on_every_screen(page, SCROLLER, VERDICT_COLOURS)
        assert len(boxes) == 4, boxes  # three checks and the practice check
        assert any(box["text"].startswith("✓") for box in boxes) and any("4.430" in box["text"] for box in boxes)
        for box in boxes:
            shade = luminance(box["background"])
            assert (shade < 0.1) if theme.endswith("Dark") else (shade > 0.7), (theme, box)
            assert contrast(box["colour"], box["background"]) >= 4.5, (theme, box)
            assert contrast(box["mark"], box["markBackground"]) >= 4.5, (theme, box)
        add_axe(page)
        assert page_checks.on_every_screen(page, SCROLLER, CONTRAST_OF_VERDICTS) == []


def test_progress_table_and_chart_read_in_light_and_dark(themed_lab, laptop_page, shots):
    page = laptop_page
    with run_in_theme(page, themed_lab, "progress", shots):
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
        add_axe(page)
        assert page_checks.on_every_screen(page, SCROLLER, CONTRAST) == []
