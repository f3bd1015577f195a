"""Every lesson as a learner sees it in JupyterLab: opened with the README's command, Run All, then read from the DOM.

One JupyterLab server serves a temporary copy of the repository (notebooks,
data, README) started with the arguments of the README's open command, so the
repository itself is never touched (JupyterLab autosaves, and the lessons'
save cells write .xlsx files next to the notebooks). One browser page opens
the ten lessons in turn from the File menu. For each lesson: no error output, no MathJax inside
an output table, no table cell cut or shortened with "…", no widget label
clipped; at a laptop's 1366 px wide with the file browser open, no output wider than the notebook
(an arithmetic table scrolled sideways hides its last columns) and no box scrolling
inside an output, and no markdown table wider than its cell (read screen by screen in a window as wide and 4,800 px
tall, TALL_SCREEN). Lessons 03 and 05 are then read again in JupyterLab
Dark, chosen from the Settings menu as a learner does (not run again): axe-core's color-contrast rule finds no
violation in the tables, widgets and verdicts of the outputs, and the switches' chosen option stands 3:1 apart from
the others with a focus ring of 3 px at 3:1 (an element with a light background of its own must set its own dark
text, and text on the notebook's background must read on dark as on white); the theme goes back to Light after.
A screenshot of the whole notebook (stitched screen by screen, since
JupyterLab scrolls inside its panel) goes to test-output/browser/ when a lesson's test fails, or for every
lesson with TEST_STITCHED_SHOTS=1: no check reads it, and it doubles the passes down each lesson.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
import shlex
import shutil
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import expect

from tests.browser import page_checks, servers
from tests.browser.conftest import AXE, JUPYTERLAB_THEMES, ROOT
from tests.test_readme import readme_commands

pytestmark = pytest.mark.browser

LESSONS = sorted(path.name for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
IDLE = "Python 3 (ipykernel) | Idle"
SCROLLER = ".jp-NotebookPanel:visible .jp-WindowedPanel-outer"
SWITCHES = ("02", "03", "05")  # the lessons whose controls have switches (gain, ideal, relevant, question)
LIGHT, DARK = "JupyterLab Light", "JupyterLab Dark"
READ_IN_DARK = ("03", "05")  # the lessons whose outputs are read again in JupyterLab Dark
# px: the window's height while a lesson is read screen by screen, at the laptop's width (every check is of widths,
# clipping or colours): each screen's reading reads the whole page, JupyterLab's menus and panels too (axe's runs
# above all), so fewer, taller screens cost less: the ten lessons' checks 17 -> 9 CPU seconds, the Dark reading of
# lessons 03 and 05 20 -> 6 (9,600 px cost more again)
TALL_SCREEN = 4_800

# axe's color-contrast rule on the tables, widgets and checker's verdicts of the outputs, every impact; one
# notebook is open at a time
CONTRAST_IN_OUTPUTS = """
async () => (await axe.run(
    {include: [['.jp-OutputArea-output table'], ['.jp-OutputArea-output .jupyter-widgets'],
               ['.jp-OutputArea-output .helpers-check']]},
    {runOnly: {type: 'rule', values: ['color-contrast']}, resultTypes: ['violations']}))
  .violations.flatMap(v => v.nodes.map(n => `${n.target.join(' ')}: ${n.any.map(a => a.message).join('; ')}`))
"""


def readme_lab_arguments() -> list[str]:
    """The arguments the README's open command gives `jupyter lab` (root folder and the first lesson)."""
    command = readme_commands()[0].split("&&")[-1]
    words = shlex.split(command)
    return words[words.index("lab") + 1 :]


@pytest.fixture(scope="module")
def repository_copy(tmp_path_factory) -> Path:
    """The notebooks, data and README in a temporary folder laid out like the repository."""
    copy = servers.lessons_copy(tmp_path_factory.mktemp("repository"))
    shutil.copy(ROOT / "README.md", copy / "README.md")
    return copy


@pytest.fixture(scope="module")
def readme_lab(repository_copy, tmp_path_factory):
    """JupyterLab started in the copy with the README's arguments (plus a port and a token).

    Its "web browser" is a command that writes down the address JupyterLab asks it to open.
    """
    home = tmp_path_factory.mktemp("lab-home")
    record = "import sys, pathlib; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])"
    browser = f"{shlex.quote(sys.executable)} -c {shlex.quote(record)} {shlex.quote(str(home / 'opened.txt'))} %s"
    arguments = [
        *readme_lab_arguments(),
        "--ServerApp.open_browser=True",
        "--LabApp.open_browser=True",  # after --no-browser: this server opens its "browser"
        f"--ServerApp.browser={browser}",
    ]
    server = servers.start_jupyterlab(repository_copy, home, extra=arguments)
    server.opened = home / "opened.txt"
    yield server
    servers.stop(server)


@pytest.fixture(scope="module")
def lab_page(laptop_page):
    """One page for all lessons, a laptop's screen (the conftest's): JupyterLab loads once, each lesson opens in
    it (File > Open from Path); the file browser the first test opens stays open, as a learner leaves it."""
    return laptop_page


def open_lesson(page, server, path: str) -> None:
    """Open a notebook from the File menu in the JupyterLab already on the page (loading it first if need be).

    A notebook a failed test left open is closed first: each test starts from no open document.
    """
    file_menu = page.get_by_role("menuitem", name="File", exact=True)
    if not page.url.startswith(server.url) or not file_menu.is_visible():
        page.goto(server.page("lab?reset"))
    if page.locator(".jp-NotebookPanel").count():
        close_lesson(page, server)
    file_menu.click()
    page.get_by_role("menuitem", name="Open from Path…").click()
    box = page.get_by_placeholder("/path/relative/to/jlab/root")
    box.fill(path)
    box.press("Enter")
    # a busy machine can take more than expect's default (tests/conftest.py) to read and draw a lesson
    opened = page.locator(".lm-TabBar-tab.lm-mod-current", has_text=Path(path).name)
    expect(opened).to_have_count(1, timeout=30_000)


def close_lesson(page, server) -> None:
    """Shut the kernels down, save the open copies (so closing asks nothing) and close their tabs.

    Every open document is saved and closed, not only the current one: a lesson that opened late (after its
    test gave up waiting) would otherwise stay open, and unsaved, into the next test.
    """
    shut_kernels_down(server)
    file_menu = page.get_by_role("menuitem", name="File", exact=True)
    file_menu.click()
    page.get_by_role("menuitem", name="Save All", exact=True).click()
    expect(page.locator(".lm-TabBar-tab.jp-mod-dirty")).to_have_count(0)
    file_menu.click()
    page.get_by_role("menuitem", name="Close All Tabs", exact=True).click()
    expect(page.locator(".jp-NotebookPanel")).to_have_count(0)


def shut_kernels_down(server) -> None:
    """End every session (and its kernel) of the server: each lesson starts with a fresh kernel."""
    headers = {"Authorization": f"token {server.token}"}
    with urllib.request.urlopen(urllib.request.Request(server.page("api/sessions"), headers=headers)) as reply:
        sessions = json.load(reply)
    for session in sessions:
        request = urllib.request.Request(server.page(f"api/sessions/{session['id']}"), headers=headers, method="DELETE")
        urllib.request.urlopen(request).close()


def add_axe(page) -> None:
    """axe-core added to the JupyterLab page, with the page's body given its height for axe to measure against."""
    page.add_script_tag(path=str(AXE))
    # JupyterLab's body is 0 px high (its shell is positioned absolutely): axe would take every output for clipped
    page.add_style_tag(content="html, body { height: 100%; }")


def choose_theme(page, theme: str) -> None:
    """Settings > Theme > the theme, as a learner chooses it, and wait until the page has taken it."""
    page.get_by_role("menuitem", name="Settings", exact=True).click()
    page.locator(".lm-Menu").get_by_text("Theme", exact=True).hover()  # a submenu: its items have no role
    page.locator(".lm-Menu").get_by_text(theme, exact=True).click()
    page.wait_for_function("(theme) => document.body.dataset.jpThemeName === theme", arg=theme, timeout=30_000)
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", JUPYTERLAB_THEMES[theme])


def assert_switches_read(page) -> None:
    """The open notebook's switches in the current theme: the chosen option 3:1 apart from the others, a focus ring
    of 3 px at 3:1 (scrolled to first: JupyterLab draws only the cells in view)."""
    assert page_checks.scroll_to_first(page, SCROLLER, ".jp-NotebookPanel .dg-switch"), "no switch drawn"
    look = page_checks.switch_contrast(page, ".jp-NotebookPanel")
    assert look["chosen against other"] >= 3 and look["ring against background"] >= 3, look
    assert look["ring width"] >= 3, look


@contextlib.contextmanager
def tall_window(page) -> Iterator[None]:
    """The page TALL_SCREEN px high at its width inside the block, as on a tall monitor; its own height after."""
    laptop = page.viewport_size
    page.set_viewport_size({"width": laptop["width"], "height": TALL_SCREEN})
    try:
        yield
    finally:
        page.set_viewport_size(laptop)


def contrast_violations(page) -> list[str]:
    """axe's color-contrast violations in the open notebook's tables and widgets, screen by screen, top to bottom."""
    add_axe(page)
    with tall_window(page):
        return sorted(set(page_checks.on_every_screen(page, SCROLLER, CONTRAST_IN_OUTPUTS)))


def read_in_dark(page) -> None:
    """The open notebook's outputs in JupyterLab Dark: no contrast violation, switches that read (then Light again)."""
    choose_theme(page, DARK)
    try:
        page.wait_for_timeout(500)  # the outputs' colours follow the theme's stylesheet
        violations = contrast_violations(page)
        assert violations == [], "\n".join(violations)
        assert_switches_read(page)
    finally:
        choose_theme(page, LIGHT)


def run_all(page) -> None:
    """Run All from the Run menu, once the kernel is really idle, and wait until no cell is queued or running."""
    expect(page.locator("#jp-main-statusbar").get_by_text(IDLE)).to_be_visible(timeout=90_000)
    page.locator(".jp-NotebookPanel:visible .jp-Cell").first.click()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    run_all_cells = page.get_by_role("menuitem", name="Run All Cells", exact=True)
    expect(run_all_cells).to_be_enabled()
    run_all_cells.click()
    prompts = page.locator(".jp-NotebookPanel:visible .jp-InputArea-prompt")
    expect(prompts.filter(has_text="[*]")).to_have_count(0, timeout=120_000)
    expect(page.locator("#jp-main-statusbar").get_by_text(IDLE)).to_be_visible(timeout=60_000)


def test_the_readme_command_opens_lesson_00_with_the_repository_root_in_the_file_browser(readme_lab, lab_page):
    opened = readme_lab_arguments()[-1]
    assert opened == "notebooks/00_start_here.ipynb"
    # the URL JupyterLab gave the browser: the README's lesson, served from the repository root
    deadline = time.monotonic() + 30
    while not readme_lab.opened.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    # it is a page that redirects to the lesson (how JupyterLab opens a browser); follow it as a browser would
    redirect = Path(urllib.request.url2pathname(urllib.parse.urlparse(readme_lab.opened.read_text()).path))
    url = html.unescape(re.search(r'url=([^"]+)"', redirect.read_text()).group(1))
    assert f"/lab/tree/{opened}" in url
    lab_page.goto(url)
    expect(lab_page.locator(".jp-NotebookPanel:visible")).to_have_count(1, timeout=60_000)
    expect(lab_page.locator(".lm-TabBar-tab.lm-mod-current", has_text=Path(opened).name)).to_have_count(1)
    browser_tab = lab_page.get_by_role("tab", name="File Browser")
    if browser_tab.get_attribute("aria-selected") != "true":
        browser_tab.click()  # the side bar starts closed: open the file browser
    # the file browser shows the lesson's folder, notebooks/, as a folder below the root ...
    expect(lab_page.locator(".jp-BreadCrumbs")).to_contain_text("notebooks")
    listing = lab_page.locator(".jp-DirListing-itemText")
    expect(listing.filter(has_text="00_start_here.ipynb")).to_be_visible()
    # ... and the root is the repository: its folders and README are one level up
    lab_page.locator(".jp-BreadCrumbs-home").click()
    for entry in ("notebooks", "data", "README.md"):
        expect(listing.filter(has_text=entry).first).to_be_visible()
    expect(listing.filter(has_text="00_start_here.ipynb")).to_have_count(0)
    # the repository's settings (JUPYTER_CONFIG_PATH, as the command sets it) keep the news pop-up away;
    # without them JupyterLab asks within seconds of opening
    lab_page.wait_for_timeout(3_000)
    assert "official Jupyter news" not in lab_page.inner_text("body")
    close_lesson(lab_page, readme_lab)


def test_the_table_checks_see_mathjax_and_cut_cells(readme_lab, repository_copy, lab_page):
    """The checks can fail: a bare DataFrame with dollar signs and a long cell trips both; helpers.tables does not."""
    cells = [
        "import pandas as pd\nfrom helpers.tables import table\n"
        "frame = pd.DataFrame({'formula': ['=LARGE($B$2:$B$8,A2)'], 'note': ['x' * 80]})",
        "pd.set_option('display.max_colwidth', 20)\nframe",
        "table(frame)",
    ]
    servers.write_notebook(repository_copy / "notebooks" / "control_tables.ipynb", cells)
    open_lesson(lab_page, readme_lab, "notebooks/control_tables.ipynb")
    run_all(lab_page)
    outputs = lab_page.locator(".jp-NotebookPanel:visible .jp-OutputArea-output table")
    expect(outputs).to_have_count(2)
    expect(outputs.first.locator("mjx-container").first).to_be_attached(timeout=15_000)  # MathJax ate the $ signs
    assert lab_page.evaluate(page_checks.MATHS_IN_TABLES)
    assert any(cell.startswith('"xxxxxxxx') for cell in lab_page.evaluate(page_checks.CUT_TABLE_CELLS))
    expect(outputs.nth(1).locator("mjx-container")).to_have_count(0)
    expect(outputs.nth(1)).to_contain_text("=LARGE($B$2:$B$8,A2)")
    close_lesson(lab_page, readme_lab)


def test_the_sideways_check_sees_a_wide_table_and_a_scroll_box(readme_lab, repository_copy, lab_page):
    """The check can fail: the arithmetic table as a bare DataFrame, and a box that scrolls; helpers.tables fits."""
    cells = [
        "from IPython.display import HTML\nfrom helpers import metrics\nfrom helpers.tables import table\n"
        "arithmetic = metrics.arithmetic_table([1, 2, 0, 0, 1, 1], k=3, ideal=[2, 1, 1, 1, 0, 0], "
        "gain='exponential', ids=['r2', 'r1', 'r4', 'r6', 'r3', 'r5'])",
        "arithmetic",
        "HTML('<div style=\"height:80px;overflow:auto\"><div style=\"height:400px\">tall</div></div>')",
        "table(arithmetic, decimals=4, index=False)",
    ]
    servers.write_notebook(repository_copy / "notebooks" / "control_sideways.ipynb", cells)
    open_lesson(lab_page, readme_lab, "notebooks/control_sideways.ipynb")
    try:
        run_all(lab_page)
        expect(lab_page.locator(".jp-NotebookPanel:visible .jp-OutputArea-output table")).to_have_count(2)
        found = lab_page.evaluate(page_checks.SIDEWAYS_OUTPUTS)
        assert len(found) == 2, found
        assert any("an output scrolls sideways" in item for item in found)
        assert any("a box scrolls inside an output" in item for item in found)
    finally:
        close_lesson(lab_page, readme_lab)


def test_the_contrast_check_sees_grey_text_and_a_light_cell_left_to_the_theme(readme_lab, repository_copy, lab_page):
    """The check can fail: grey text on the dark page and a yellow cell whose text stays the theme's white."""
    cell = (
        "from IPython.display import HTML\n"
        "HTML(\"<table><tr><td style='color:#6b6b6b'>grey text</td>"
        "<td style='background:#fff3bf'>text left to the theme</td></tr></table>\")"
    )
    servers.write_notebook(repository_copy / "notebooks" / "control_contrast.ipynb", [cell])
    open_lesson(lab_page, readme_lab, "notebooks/control_contrast.ipynb")
    try:
        run_all(lab_page)
        expect(lab_page.locator(".jp-NotebookPanel:visible .jp-OutputArea-output td")).to_have_count(2)
        choose_theme(lab_page, DARK)
        violations = contrast_violations(lab_page)
        assert len(violations) == 2
        assert any("#6b6b6b" in found for found in violations) and any("#fff3bf" in found for found in violations)
    finally:
        choose_theme(lab_page, LIGHT)
        close_lesson(lab_page, readme_lab)


LESSON_CHECKS = {
    "error outputs": page_checks.ERROR_OUTPUTS,
    "maths in tables": page_checks.MATHS_IN_TABLES,
    "cut table cells": page_checks.CUT_TABLE_CELLS,
    "clipped widget text": page_checks.CLIPPED_WIDGET_TEXT,
    # 1366 px wide (a laptop's) with the file browser open: no output (an arithmetic table, the lab) scrolls
    # sideways, none hides a column, and no plot sits in a scroll box of its own
    "sideways outputs": page_checks.SIDEWAYS_OUTPUTS,
    "markdown tables wider than their cell": page_checks.WIDE_MARKDOWN_TABLES,
}


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_renders_right_in_jupyterlab(lesson, readme_lab, lab_page, shots):
    shot = shots / f"jupyterlab_{lesson.removesuffix('.ipynb')}.png"
    try:
        open_lesson(lab_page, readme_lab, f"notebooks/{lesson}")
        with page_checks.stitched_screenshot_when_asked(lab_page, SCROLLER, shot):
            run_all(lab_page)
            lab_page.wait_for_timeout(500)  # MathJax typesets after the outputs arrive
            check_the_lesson(lab_page, lesson)
            if lesson[:2] in READ_IN_DARK:
                read_in_dark(lab_page)
    finally:
        close_lesson(lab_page, readme_lab)


def check_the_lesson(lab_page, lesson: str) -> None:
    """The lesson's page checks, its switches' look (lessons with switches) and every code cell run."""
    # JupyterLab draws the cells in view: every check screen by screen, all in one pass down the lesson
    with tall_window(lab_page):
        found = page_checks.on_every_screen_each(lab_page, SCROLLER, LESSON_CHECKS)
    assert {check: items for check, items in found.items() if items} == {}
    if lesson[:2] in SWITCHES:  # the switches, Light
        assert_switches_read(lab_page)
    code_cells = [c for c in nbformat.read(ROOT / "notebooks" / lesson, 4).cells if c.cell_type == "code"]
    numbered = lab_page.locator(".jp-NotebookPanel:visible .jp-InputArea-prompt").filter(has_text="[")
    expect(numbered.filter(has_text="[ ]")).to_have_count(0)  # every code cell ran
    assert numbered.count() == len(code_cells)
