"""The website (``python -m website.build``), built once into a temporary folder and opened from disk in Chromium.

Every page of it: each lesson with its worked-example figures, images that
load, internal links that lead to a page and a heading that exist, spreadsheet
references left as text (no maths markup ate a ``$B$2:$B$8``), no request
leaving the disk (no CDN), and axe-core with no serious or critical finding.
``TEST_SITE=DIR`` tests a site built already instead of building one.
Without a browser too: no exercise's expected value, hidden case or solution
anywhere in the built files, and each control drawn as a still picture with
its run-it-live note.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import nbformat
import pytest

from helpers.exercises import REGISTRY
from website.build import GUIDES, lessons

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
LESSONS = lessons()
# the worked-example figures each lesson prints (issue 22); a lesson not named here is checked for its outputs
FIGURES = {
    "01": ("0.750", "0.417"),  # example A: MRR of OLD and NEW
    "02": ("0.8212",),  # example B: nDCG@5 of 'good'
    "03": ("0.550", "3.931", "7.141"),  # example C: NDCG@5, DCG@5, IDCG@5
}
CONTROLS = ("01", "02", "03", "05")  # the lessons with an ipywidgets control
SPREADSHEET_REFERENCE = re.compile(r"\$[A-Z]+\$\d+")
BUILD_SECONDS: dict[str, float] = {}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The website, built once by the README's command (its build step) into a temporary folder."""
    if os.environ.get("TEST_SITE"):  # a site built already (python -m website.build --out DIR), to look at again
        return Path(os.environ["TEST_SITE"])
    pytest.importorskip("jupyter_book", reason="the website's builder: pip install -r requirements-site.txt")
    out = tmp_path_factory.mktemp("website") / "site"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "website.build", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=1200)
    BUILD_SECONDS["build"] = time.monotonic() - started
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    warnings = [line for line in (done.stdout + done.stderr).splitlines() if "WARNING:" in line]  # Sphinx's
    assert warnings == [], "the pages were built with warnings (a broken cross-reference, a missing page)"
    return out


def page_path(site: Path, source: str) -> Path:
    """The built page of a repository file: README.md is the home page."""
    return site / ("index.html" if source == "README.md" else str(Path(source).with_suffix(".html")))


def pages(site: Path) -> list[Path]:
    return [page_path(site, source) for source in ("README.md", *LESSONS, *GUIDES)] + [site / "search.html"]


# What one visit of a page reads from it, in one evaluation (each page is loaded once for every check)
READ_PAGE = """
() => ({
  text: document.querySelector('main').innerText,
  prose: (() => { const m = document.querySelector('main').cloneNode(true);
                  m.querySelectorAll('.cell_output').forEach(o => o.remove()); return m.textContent; })(),
  headings: [...document.querySelectorAll('main section > h1')].map(h => h.firstChild.data),
  outputs: document.querySelectorAll('main .cell_output').length,
  images: [...document.images].map(i => [i.src.slice(0, 80), i.complete && i.naturalWidth > 0]),
  links: [...document.querySelectorAll('a[href]')].map(a => a.href),
  maths: [...document.querySelectorAll('main math, main .math')].map(m => [m.textContent,
                                                                          m.getBoundingClientRect().width]),
  snapshots: [...document.querySelectorAll('main .widget-snapshot')].map(w => ({
    text: w.innerText,
    note: (w.querySelector('.snapshot-note') || {innerText: ''}).innerText,
    links: [...w.querySelectorAll('.snapshot-note a')].map(a => a.href),
    images: [...w.querySelectorAll('img')].map(i => i.naturalWidth),
  })),
})
"""
AXE_FINDINGS = """
async () => (await axe.run(document, {resultTypes: ['violations']})).violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical')
  .map(v => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)
"""


@pytest.fixture(scope="module")
def visits(site, browser) -> dict[str, dict]:
    """Every page opened once from disk (file://) at 1366x900: what it shows, and every request off the disk."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.set_default_timeout(60_000)
    page = context.new_page()
    read = {}
    for path in pages(site):
        requested: list[str] = []

        def record(request, seen=requested):
            seen.append(request.url)

        page.on("request", record)
        page.goto(path.as_uri(), wait_until="load")
        page.remove_listener("request", record)
        visit = page.evaluate(READ_PAGE)
        visit["off_disk"] = [url for url in requested if not url.startswith(("file:", "data:"))]
        if AXE.is_file():
            page.add_script_tag(path=str(AXE))
            visit["axe"] = page.evaluate(AXE_FINDINGS)
        read[path.relative_to(site).as_posix()] = visit
    context.close()
    return read


def test_one_page_per_lesson_and_guide_in_order_from_the_home_page(site):
    for path in pages(site):
        assert path.is_file(), f"{path.relative_to(site)} was not built"
    home = (site / "index.html").read_text(encoding="utf-8")
    navigation = home.split('class="bd-sidebar-primary', 1)[1].split("</nav>", 1)[0]
    linked = re.findall(r'href="(notebooks/[^"#]+)\.html"', navigation)
    assert linked == [Path(path).with_suffix("").as_posix() for path in LESSONS]
    for lesson in LESSONS:  # the lesson map: every lesson linked from the home page's own table
        assert f'href="{Path(lesson).with_suffix(".html").as_posix()}"' in home.split("<main", 1)[1]


def executed_cells(site: Path, lesson: str) -> list:
    """The lesson's cells as the site holds them (its executed copy under _sources/)."""
    return nbformat.read(site / "_sources" / lesson, as_version=4).cells


def visit_of(visits: dict[str, dict], lesson: str) -> dict:
    return visits[Path(lesson).with_suffix(".html").as_posix()]


@pytest.mark.parametrize("lesson", LESSONS, ids=[Path(path).stem[:2] for path in LESSONS])
def test_every_lesson_page_renders_with_its_outputs_and_figures(site, visits, lesson):
    visit, number = visit_of(visits, lesson), Path(lesson).stem[:2]
    title = next(line for cell in nbformat.read(ROOT / lesson, as_version=4).cells if cell.cell_type == "markdown"
                 for line in cell.source.splitlines() if line.startswith("# "))[2:]
    assert visit["headings"] == [title], f"lesson {number}: one page, titled as the lesson"
    outputs = sum(bool(cell.get("outputs")) for cell in executed_cells(site, lesson))
    assert visit["outputs"] == outputs > 0, f"lesson {number}: every output of the run is on the page"
    for figure in FIGURES.get(number, ()):
        assert re.search(rf"(?<![\d.]){re.escape(figure)}(?!\d)", visit["text"]), f"lesson {number}: no {figure}"
    assert "Traceback" not in visit["text"], f"lesson {number} shows an error"


def test_images_load_and_no_page_asks_anything_off_the_disk(visits):
    for name, visit in visits.items():
        assert [src for src, loaded in visit["images"] if not loaded] == [], f"{name}: images that did not load"
        assert visit["off_disk"] == [], f"{name} asked the network for {visit['off_disk']}"
    assert sum(len(visit["images"]) for visit in visits.values()) >= 10  # the lessons' plots among them


def test_spreadsheet_references_stay_text_and_maths_is_drawn_without_a_cdn(visits):
    for lesson in LESSONS:
        visit = visit_of(visits, lesson)
        source = "\n".join(c.source for c in nbformat.read(ROOT / lesson, as_version=4).cells)
        for reference in set(SPREADSHEET_REFERENCE.findall(source)):  # the lesson's own text and code, not outputs
            assert visit["prose"].count(reference) >= source.count(reference), f"{lesson}: {reference} became maths"
        if not re.search(r"\$\\", source):  # a lesson without formulas ($\log_2 ...$) has no maths markup at all
            assert visit["maths"] == [], f"{lesson}: maths markup where the lesson writes none"
        eaten = [text for text, _ in visit["maths"] if "$" in text or re.fullmatch(r"[A-Z]+\d*", text.strip())]
        assert eaten == [], f"{lesson}: maths markup around a spreadsheet reference"
    drawn = [width for _, width in visit_of(visits, "notebooks/06_the_metric_family.ipynb")["maths"]]
    assert len(drawn) >= 5 and min(drawn) > 0, "lesson 06's formulas are drawn (MathML)"
    assert "\\sum" not in visit_of(visits, "notebooks/06_the_metric_family.ipynb")["text"]


def test_every_internal_link_leads_to_a_page_and_a_heading_that_exist(site, visits):
    ids: dict[Path, set[str]] = {}
    for name, visit in visits.items():
        for href in visit["links"]:
            parts = urllib.parse.urlsplit(href)
            if parts.scheme != "file":
                continue
            target = Path(urllib.parse.unquote(parts.path))
            assert target.exists(), f"{name} links to {href}, which is not there"
            if parts.fragment and target.suffix == ".html":
                if target not in ids:
                    ids[target] = set(re.findall(r'\bid="([^"]+)"', target.read_text(encoding="utf-8")))
                assert urllib.parse.unquote(parts.fragment) in ids[target], f"{name} links to {href}: no such heading"
    assert sum(len(visit["links"]) for visit in visits.values()) > 200


def test_the_search_box_finds_a_lesson(site, browser):
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'class="btn search-button-field' in home and (site / "searchindex.js").is_file()
    page = browser.new_page()
    try:
        page.goto((site / "search.html").as_uri() + "?q=reciprocal", wait_until="load")
        page.wait_for_selector("#search-results ul.search li", timeout=60_000)
        found = page.evaluate("() => [...document.querySelectorAll('#search-results ul.search li a')].map(a => a.href)")
    finally:
        page.close()
    assert any("01_hit_rate_and_mrr" in href for href in found), found


def test_each_control_is_a_still_picture_with_a_live_note_and_a_binder_link(site, visits):
    for lesson in LESSONS:
        number = Path(lesson).stem[:2]
        built = page_path(site, lesson).read_text(encoding="utf-8")
        assert "widget-view+json" not in built and "jupyter-widgets/html-manager" not in built
        snapshots = visit_of(visits, lesson)["snapshots"]
        assert bool(snapshots) == (number in CONTROLS), f"lesson {number}: {len(snapshots)} snapshots"
        for snapshot in snapshots:
            assert "Run it live" in snapshot["note"] and snapshot["text"].strip()
            assert any(href.startswith("https://mybinder.org/v2/gh/") and "labpath=notebooks" in href
                       for href in snapshot["links"])
            assert any(href.endswith("index.html#set-up-two-commands") for href in snapshot["links"])
    lab = visit_of(visits, "notebooks/05_metrics_lab.ipynb")["snapshots"][0]
    assert len(lab["images"]) == 1 and lab["images"][0] > 100, "the lab's plot, as it first was"
    assert re.search(r"nDCG@3 = 0\.\d{4}", lab["text"]), "the lab's numbers in its first state"


@pytest.mark.skipif(not AXE.is_file(), reason=f"{AXE} is missing: .ci/run installs axe-core with npm")
def test_axe_finds_no_serious_or_critical_violation_on_any_page(visits):
    assert {name: visit["axe"] for name, visit in visits.items() if visit["axe"]} == {}


def simple_fraction(value: float) -> bool:
    """1/4, 2/3, 0.6: shares a lesson cannot help printing somewhere (as tests/test_lesson_exercises.py allows)."""
    return any(abs(value * d - round(value * d)) < 1e-9 for d in (1, 2, 3, 4, 5, 8, 10))


# A figure another lesson prints as part of its own worked content, equal at the exercise's precision to the answer
# of an exercise elsewhere: (exercise, the page that prints it). Lesson tests allow them (each lesson is checked
# against its own exercises only); on a website every lesson is one click away, so each is named here.
PRINTED_ELSEWHERE = {
    ("advisor-fifth-question-mrr4", "notebooks/01_hit_rate_and_mrr.html"): "NEW's MRR@3 with the miss dropped",
}


def site_texts(site: Path) -> dict[str, str]:
    """Every text file of the site (pages, search index, sources) by its path, HTML entities read as characters."""
    return {
        path.relative_to(site).as_posix(): html.unescape(path.read_text(encoding="utf-8", errors="replace"))
        for path in sorted(site.rglob("*"))
        if path.suffix in (".html", ".js", ".ipynb", ".md", ".txt", ".json") and "_static" not in path.parts
    }


def answers_written() -> list[tuple[str, str]]:
    """(exercise id, text) for every expected value and hidden case, as a checker or a solution would write it."""
    written = []
    for exercise in REGISTRY.values():
        if exercise.kind == "answer":
            value = exercise.worked().value
            if math.isfinite(value) and not simple_fraction(value):
                written.append((exercise.id, f"{value:.{exercise.decimals}f}"))
        else:  # a function exercise: the expected values of its hidden cases
            for case in exercise.cases():
                expected = case.expected
                if isinstance(expected, float) and math.isfinite(expected) and not simple_fraction(expected):
                    written += [(exercise.id, repr(expected)), (exercise.id, f"{expected:.6f}")]
    return written


def test_no_expected_value_hidden_case_or_solution_anywhere_in_the_site(site):
    texts = site_texts(site)
    assert sum(map(len, texts.values())) > 100_000
    # every decimal number each file shows, whole (0.5940 is not 0.594, nor is 10.594)
    numbers = {name: set(re.findall(r"(?<![\d.])\d+\.\d+", text)) for name, text in texts.items()}
    leaked = {}
    for exercise_id, written in answers_written():
        for name, shown in numbers.items():
            page = name.removeprefix("_sources/").replace(".ipynb", ".html")
            if written in shown and (exercise_id, page) not in PRINTED_ELSEWHERE:
                leaked[(exercise_id, name)] = written
    assert leaked == {}, "the site shows exercises' answers"
    for lesson in LESSONS:  # what solution() and a right check() print (lesson 07's markdown says "Right:" itself)
        outputs = json.dumps([cell.get("outputs", []) for cell in executed_cells(site, lesson)])
        assert "Solution of" not in outputs and "Right:" not in outputs, f"{lesson} shows a solution or a right verdict"


def test_the_figures_printed_elsewhere_are_still_printed_there(site):
    """The list above is kept short: a figure a lesson no longer prints leaves it."""
    texts = site_texts(site)
    answers = dict(answers_written())
    for exercise_id, page in PRINTED_ELSEWHERE:
        assert re.search(rf"(?<![\d.]){re.escape(answers[exercise_id])}(?!\d)", texts[page]), (exercise_id, page)


def test_no_solution_cell_reaches_the_site(site):
    for lesson in LESSONS:
        tags = [cell.get("metadata", {}).get("tags", []) for cell in executed_cells(site, lesson)]
        assert not [t for t in tags if "solution" in t], f"{lesson} holds a solution cell"
        sources = [cell.source for cell in executed_cells(site, lesson) if cell.cell_type == "code"]
        assert not [s for s in sources if re.search(r"\bsolution\(|\breveal\(", s)], f"{lesson} calls solution()"
