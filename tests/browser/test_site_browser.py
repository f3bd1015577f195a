"""The website (``python -m website.build``), built once into a temporary folder and opened from disk in Chromium.

Every page of it, with every request off the disk blocked: each lesson with
its worked-example figures, images that load, internal links that lead to a
page and a heading that exist, spreadsheet references left as text (no maths
markup ate a ``$B$2:$B$8``), no script error, nothing wider than a 390 px
phone and every table, plot, snapshot and formula inside its column at 1280 px
and 390 px, menus that open at both widths, a colour-mode switch, and axe-core
with no serious or critical finding in light mode (1280 px) and dark mode
(390 px). The site is built without a repository address (as a clone with no
public remote builds it) and again with one, reusing the lessons already run:
no placeholder address in either, and with one, every repository link names
it. ``TEST_SITE=DIR`` tests a site built already instead of building one.
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
import urllib.parse
from pathlib import Path

import nbformat
import pytest

from helpers.exercises import REGISTRY
from tests.browser.conftest import AXE
from website.build import GUIDES, lessons

ROOT = Path(__file__).resolve().parents[2]
LESSONS = lessons()
# the worked-example figures each lesson prints (issue 22); a lesson not named here is checked for its outputs
FIGURES = {
    "01": ("0.750", "0.417"),  # example A: MRR of OLD and NEW
    "02": ("0.8212",),  # example B: nDCG@5 of 'good'
    "03": ("0.550", "3.931", "7.141"),  # example C: NDCG@5, DCG@5, IDCG@5
}
CONTROLS = ("01", "02", "03", "05")  # the lessons with an ipywidgets control
SPREADSHEET_REFERENCE = re.compile(r"\$[A-Z]+\$\d+")
ADDRESS = "https://github.com/example-owner/ranking-metrics-by-hand"  # a well-formed address no test reaches
PLACEHOLDERS = ("your-org", "executablebooks", "binder-examples")  # a template's address, Jupyter Book's default
BUILD_OUTPUT: dict[str, str] = {}
WIDTHS = {"desktop": 1280, "phone": 390}


def build_site(out: Path, runs: Path, repository: str) -> subprocess.CompletedProcess:
    """The README's build command, into ``out``, keeping the lessons as run in ``runs`` for a second build."""
    done = subprocess.run(
        [sys.executable, "-m", "website.build", "--out", str(out), "--runs", str(runs), "--repository", repository],
        cwd=ROOT, capture_output=True, text=True, timeout=1200,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    warnings = [line for line in (done.stdout + done.stderr).splitlines() if "WARNING:" in line]  # Sphinx's
    assert warnings == [], "the pages were built with warnings (a broken cross-reference, a missing page)"
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The folder of this module's builds: the lessons as run (``runs/``) and the sites."""
    pytest.importorskip("jupyter_book", reason="the website's builder: pip install -r requirements-site.txt")
    return tmp_path_factory.mktemp("website")


@pytest.fixture(scope="module")
def site(request) -> Path:
    """The website as a clone without a public remote builds it: no repository address."""
    if os.environ.get("TEST_SITE"):  # a site built already (python -m website.build --out DIR), to look at again
        return Path(os.environ["TEST_SITE"])
    folder = request.getfixturevalue("built")
    done = build_site(folder / "site", folder / "runs", "none")
    BUILD_OUTPUT["none"], BUILD_OUTPUT["none-stderr"] = done.stdout, done.stderr
    return folder / "site"


@pytest.fixture(scope="module")
def site_with_address(built, site) -> Path:
    """The website built again with a repository address, from the lessons the first build ran (no lesson runs)."""
    done = build_site(built / "site-with-address", built / "runs", ADDRESS)
    BUILD_OUTPUT["address"] = done.stdout
    assert "ran notebooks/" not in done.stdout, "the second build ran the lessons again"
    return built / "site-with-address"


def offline_page(browser, width: int, mode: str = "light"):
    """A page of a new context at ``width`` px, every request off the disk aborted, in light or dark mode.

    The mode is the theme's own record in the browser's storage, as another local page of the same
    theme leaves it (file:// pages share one storage): the site opens light unless it says dark.
    """
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.set_default_timeout(60_000)
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:"))
                  else route.abort())
    if mode == "dark":
        context.add_init_script("localStorage.setItem('mode', 'dark'); localStorage.setItem('theme', 'dark');")
    return context.new_page()


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
async () => (await axe.run(document, {resultTypes: ['violations'], preload: false})).violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical')
  .map(v => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)
"""


# What one look at a page at a width finds: its column, and each table, plot, snapshot or formula past it with no
# scrolling box of its own inside the column; the page's own width; the colour-mode switch.
READ_LAYOUT = """
() => {
  const column = (document.querySelector('.bd-article') || document.querySelector('main')).getBoundingClientRect();
  const inside = r => r.left >= column.left - 1 && r.right <= column.right + 1;
  const scroller = el => { for (let p = el.parentElement; p; p = p.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) return p; } return null; };
  const past = [...document.querySelectorAll(
      '.bd-article img, .bd-article table, .bd-article .widget-snapshot, .bd-article div.math, .bd-article pre')]
    .filter(el => el.getBoundingClientRect().width > 0 && !inside(el.getBoundingClientRect()))
    .filter(el => { const box = ['auto', 'scroll'].includes(getComputedStyle(el).overflowX) ? el : scroller(el);
                    return !box || !inside(box.getBoundingClientRect()); })
    .map(el => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} ends at ${
                Math.round(el.getBoundingClientRect().right)} px`);
  const switches = [...document.querySelectorAll('.theme-switch-button')]
    .filter(b => b.getBoundingClientRect().width > 0 && getComputedStyle(b).visibility === 'visible');
  return {page_width: document.documentElement.scrollWidth, viewport: window.innerWidth, past,
          theme: document.documentElement.dataset.theme, switches: switches.length};
}
"""


# axe's findings started in the page and left running there: the other width's page is looked at meanwhile
START_AXE = f"() => {{ window.axeFindings = ({AXE_FINDINGS.strip()})(); }}"


def open_to_look(browser, width: int, mode: str) -> tuple:
    """A page at ``width`` in ``mode`` and the list its script errors go to."""
    page = offline_page(browser, width, mode)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    return page, errors


def look_at(page, errors: list[str], path: Path, read: str) -> dict:
    """One page opened from disk: what ``read`` finds, its requests off the disk, its script errors; axe started."""
    requested: list[str] = []

    def record(request):
        requested.append(request.url)

    page.on("request", record)
    page.goto(path.as_uri(), wait_until="load")
    page.remove_listener("request", record)
    visit = page.evaluate(read)
    visit["off_disk"] = [url for url in requested if not url.startswith(("file:", "data:"))]
    visit["script_errors"], errors[:] = list(errors), []  # before axe, which reads the stylesheets itself
    if AXE.is_file():
        page.add_script_tag(url=AXE.as_uri())  # from disk, as a file: Chromium keeps its compiled code
        page.evaluate(START_AXE)
    return visit


def look_at_every_page(site: Path, browser, looks: dict[str, tuple[int, str, str]]) -> dict[str, dict[str, dict]]:
    """Every page opened once from disk in each look (``name: (width, mode, read)``): what ``read`` finds, its script
    errors, axe's findings. The looks' pages are side by side, each in its own browser context (its own renderer
    process): axe, most of the time, runs on one width's page while the other's is opened and read."""
    opened = {name: open_to_look(browser, width, mode) for name, (width, mode, _) in looks.items()}
    found: dict[str, dict[str, dict]] = {name: {} for name in looks}
    for path in pages(site):
        for name, (page, errors) in opened.items():
            found[name][path.relative_to(site).as_posix()] = look_at(page, errors, path, looks[name][2])
        for name, (page, _) in opened.items():
            if AXE.is_file():
                found[name][path.relative_to(site).as_posix()]["axe"] = page.evaluate("() => window.axeFindings")
    for page, _ in opened.values():
        page.context.close()
    return found


@pytest.fixture(scope="module")
def looks(site, browser) -> dict[str, dict[str, dict]]:
    """Every page at 1280 px in light mode and at 390 px in dark mode (set by another local page)."""
    return look_at_every_page(site, browser, {
        "desktop": (WIDTHS["desktop"], "light", f"() => Object.assign(({READ_PAGE})(), ({READ_LAYOUT})())"),
        "phone": (WIDTHS["phone"], "dark", READ_LAYOUT),
    })


@pytest.fixture(scope="module")
def visits(looks) -> dict[str, dict]:
    """Every page at 1280 px in light mode: what it shows, its layout, and every request off the disk."""
    return looks["desktop"]


@pytest.fixture(scope="module")
def phone_visits(looks) -> dict[str, dict]:
    """Every page at 390 px in dark mode (set by another local page): its layout, its switch, axe's findings."""
    return looks["phone"]


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


def test_images_load_and_no_page_asks_anything_off_the_disk(visits, phone_visits):
    for name, visit in visits.items():
        assert [src for src, loaded in visit["images"] if not loaded] == [], f"{name}: images that did not load"
        assert visit["off_disk"] == phone_visits[name]["off_disk"] == [], f"{name} asked the network"
    assert sum(len(visit["images"]) for visit in visits.values()) >= 10  # the lessons' plots among them


def test_no_page_throws_a_script_error(visits, phone_visits):
    errors = {f"{width} {name}": visit["script_errors"] for width, looked in (("1280", visits), ("390", phone_visits))
              for name, visit in looked.items() if visit["script_errors"]}
    assert errors == {}


@pytest.mark.parametrize("width", WIDTHS)
def test_tables_plots_snapshots_and_formulas_stay_inside_the_column_and_the_page(visits, phone_visits, width):
    """A wide table scrolls inside itself; nothing pushes the page wider than the screen, not even on a phone."""
    looked = visits if width == "desktop" else phone_visits
    for name, visit in looked.items():
        assert visit["page_width"] <= visit["viewport"], f"{name} is {visit['page_width']} px wide at {width}"
        assert visit["past"] == [], f"{name} at {WIDTHS[width]} px: past the column {visit['past'][:3]}"


def test_the_colour_mode_switch_is_there_wherever_dark_mode_can_be_on(visits, phone_visits):
    for name in visits:
        assert visits[name]["theme"] == "light", f"{name} opens light"
        assert phone_visits[name]["theme"] == "dark", f"{name}: another page's dark mode is taken up"
        assert visits[name]["switches"] == phone_visits[name]["switches"] == 1, f"{name}: no switch to leave it"


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


SEARCH_DONE = """() => /finished/i.test(document.querySelector('#search-results .search-summary')?.textContent || '')
    && [...document.querySelectorAll('#search-results ul.search li')].every(li => li.querySelector('p.context'))"""


def test_the_search_box_finds_a_lesson_and_quotes_it_from_disk(site, browser):
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'class="btn search-button-field' in home and (site / "searchindex.js").is_file()
    page = offline_page(browser, WIDTHS["desktop"])
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    try:
        page.goto((site / "search.html").as_uri() + "?q=reciprocal", wait_until="load")
        page.wait_for_selector("#search-results ul.search li p.context", timeout=60_000)
        # Sphinx lists the results one at a time and fetches each page for its excerpt: wait until it says
        # the search is finished and every result has its excerpt (60 s at most)
        page.wait_for_function(SEARCH_DONE, timeout=60_000)
        found = page.evaluate("""() => [...document.querySelectorAll('#search-results ul.search li')].map(li => [
            li.querySelector('a').href, (li.querySelector('p.context') || {textContent: ''}).textContent])""")
    finally:
        page.context.close()
    assert any("01_hit_rate_and_mrr" in href for href, _ in found), found
    excerpts = [excerpt for _, excerpt in found if excerpt]
    assert len(excerpts) == len(found) and all("reciprocal" in excerpt.lower() for excerpt in excerpts), excerpts
    assert errors == []


CLICK_MENU = """
async ([kind, wide]) => {
  const visible = el => el.getBoundingClientRect().width > 0 && getComputedStyle(el).visibility === 'visible';
  const buttons = [...document.querySelectorAll(`.${kind}-toggle`)].filter(visible);
  if (buttons.length !== 1) return `${buttons.length} visible ${kind} buttons`;
  const sidebar = document.getElementById(`pst-${kind}-sidebar`);
  const dialog = document.getElementById(`pst-${kind}-sidebar-modal`);
  buttons[0].click();
  // the sidebar's fold is animated: wait for the transitions it started (a frame later) to end, not a fixed time
  await new Promise(requestAnimationFrame);
  await Promise.all(document.getAnimations().filter(a => Number.isFinite(a.effect?.getComputedTiming().endTime))
    .map(a => a.finished.catch(() => null)));
  if (wide) return getComputedStyle(sidebar).visibility === 'hidden' ? 'folded' : 'still open';
  const links = [...dialog.querySelectorAll('a[href]')].filter(visible).length;
  return dialog.open && links > 0 ? `opened with ${links} links` : 'nothing opened';
}
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_menu_buttons_open_the_lesson_list_and_the_page_s_contents(site, browser, shots, width):
    """☰ and the contents button on a phone open their panel; on a desktop ☰ folds the list and the contents show."""
    page = offline_page(browser, WIDTHS[width])
    try:
        page.goto(page_path(site, "notebooks/03_the_ndcg_spreadsheet.ipynb").as_uri(), wait_until="load")
        if width == "phone":
            opened = page.evaluate(CLICK_MENU, ["primary", False])
            page.screenshot(path=str(shots / "site_menu_390.png"))
            assert opened.startswith("opened with") and int(opened.split()[2]) >= len(LESSONS), opened
            page.keyboard.press("Escape")
            opened = page.evaluate(CLICK_MENU, ["secondary", False])
            page.screenshot(path=str(shots / "site_contents_390.png"))
            assert opened.startswith("opened with") and int(opened.split()[2]) >= 5, opened
        else:
            contents = page.evaluate("""() => [...document.querySelectorAll('#pst-secondary-sidebar a[href]')]
                .filter(a => a.getBoundingClientRect().width > 0).length""")
            assert contents >= 5, "the page's contents show beside it on a desktop"
            assert page.evaluate(CLICK_MENU, ["primary", True]) == "folded"
            page.screenshot(path=str(shots / "site_menu_1280.png"))
    finally:
        page.context.close()


# a phone, a tablet and a laptop: the widths at which the search box, the switch and the drawer are checked
SCREENS = (390, 768, 1366)
# the search boxes and buttons a reader can see (the search dialog's own field only opens from one of them)
VISIBLE_SEARCH = """() => [...document.querySelectorAll(
    '.search-button-field, .search-button__button, form.bd-search input, input[type=search]')]
  .filter(el => !el.closest('#pst-search-dialog') && el.getBoundingClientRect().width > 0
                && el.getBoundingClientRect().height > 0 && getComputedStyle(el).visibility === 'visible')
  .filter(el => !el.parentElement.closest('.search-button-field, .search-button__button, form.bd-search'))
  .map(el => el.className || el.tagName)"""


@pytest.mark.parametrize("width", SCREENS)
def test_one_search_box_at_every_width(site, browser, width):
    page = offline_page(browser, width)
    try:
        for source in ("README.md", "notebooks/03_the_ndcg_spreadsheet.ipynb"):
            page.goto(page_path(site, source).as_uri(), wait_until="load")
            boxes = page.evaluate(VISIBLE_SEARCH)
            assert len(boxes) == 1, f"{source} at {width} px: {boxes}"
    finally:
        page.context.close()


@pytest.mark.parametrize("width", SCREENS)
def test_the_colour_mode_switch_goes_straight_between_light_and_dark(site, browser, width):
    """One click: light to dark, one more: back to light; its name says which is on; the next page keeps it."""
    page = offline_page(browser, width)
    try:
        page.goto(page_path(site, "notebooks/05_metrics_lab.ipynb").as_uri(), wait_until="load")
        switch = page.locator(".theme-switch-button").filter(visible=True)
        assert switch.count() == 1, f"{switch.count()} visible switches at {width} px"
        seen = []
        for _ in range(3):
            mode, theme = page.evaluate("() => [document.documentElement.dataset.mode, "
                                        "document.documentElement.dataset.theme]")
            label = switch.get_attribute("aria-label")
            assert label.startswith(f"Color mode: {mode.capitalize()}"), (mode, label)
            seen.append((mode, theme))
            switch.click()
        page.goto(page_path(site, "notebooks/01_hit_rate_and_mrr.ipynb").as_uri(), wait_until="load")
        kept = page.evaluate("() => document.documentElement.dataset.theme")
    finally:
        page.context.close()
    assert seen == [("light", "light"), ("dark", "dark"), ("light", "light")]
    assert kept == "dark", "the next page opens in the mode the reader chose"


WHERE_THE_STEP_IS = """
(hash) => ({open: document.getElementById('pst-secondary-sidebar-modal').open, hash: window.location.hash,
            top: Math.round(document.getElementById(decodeURIComponent(hash.slice(1))).getBoundingClientRect().top),
            height: window.innerHeight})
"""


# true once the page has kept still for two polls in a row (the smooth scroll to a chosen step has ended)
SCROLL_ENDED = """() => { const at = `${window.scrollX},${window.scrollY}`;
  window.stillFor = at === window.lastAt ? (window.stillFor || 0) + 1 : 0; window.lastAt = at;
  return window.stillFor >= 2; }"""


@pytest.mark.parametrize("width", SCREENS)
def test_the_contents_drawer_closes_when_a_step_is_chosen(site, browser, shots, width):
    """On a phone and a tablet the page's contents open over it; a tap on a step closes them and shows the step.

    The taps are the mouse's, at the button and the link: a click sent from a script lands at (0, 0), which the
    theme takes for a tap beside the drawer, and closes it for that reason alone.
    """
    page = offline_page(browser, width)
    try:
        page.goto(page_path(site, "notebooks/03_the_ndcg_spreadsheet.ipynb").as_uri(), wait_until="load")
        toggle = page.locator(".secondary-toggle").filter(visible=True)
        drawer = toggle.count() == 1
        if drawer:
            toggle.click()
            page.wait_for_function("() => document.getElementById('pst-secondary-sidebar-modal').open")
        where = "#pst-secondary-sidebar-modal" if drawer else "#pst-secondary-sidebar"
        links = page.locator(f'{where} a[href^="#"]').filter(visible=True)
        link = links.nth(links.count() // 2)  # a step in the middle: the page can scroll it to the top
        wanted = link.get_attribute("href")
        link.click()
        page.wait_for_function("(hash) => window.location.hash === hash", arg=wanted)
        page.wait_for_function(SCROLL_ENDED, polling=100)  # the theme scrolls smoothly: until it stops
        chosen = page.evaluate(WHERE_THE_STEP_IS, wanted)
        page.screenshot(path=str(shots / f"site_step_chosen_{width}.png"))
    finally:
        page.context.close()
    assert drawer == (width < 1200), f"at {width} px the contents are {'over' if drawer else 'beside'} the page"
    assert chosen["open"] is False, f"the contents stay open over the page at {width} px"
    assert 0 <= chosen["top"] < chosen["height"] / 2, f"the chosen step is not at the top of the screen: {chosen}"


def test_each_control_is_a_still_picture_with_a_live_note(site, visits):
    for lesson in LESSONS:
        number = Path(lesson).stem[:2]
        built = page_path(site, lesson).read_text(encoding="utf-8")
        assert "widget-view+json" not in built and "jupyter-widgets/html-manager" not in built
        snapshots = visit_of(visits, lesson)["snapshots"]
        assert bool(snapshots) == (number in CONTROLS), f"lesson {number}: {len(snapshots)} snapshots"
        for snapshot in snapshots:
            assert "Run it live" in snapshot["note"] and snapshot["text"].strip()
            assert [href for href in snapshot["links"] if href.endswith("index.html#set-up-two-commands")]
            assert "Binder" not in snapshot["note"], "no Binder link on a site without the repository's address"
    lab = visit_of(visits, "notebooks/05_metrics_lab.ipynb")["snapshots"][0]
    assert len(lab["images"]) == 1 and lab["images"][0] > 100, "the lab's plot, as it first was"
    assert re.search(r"nDCG@3 = 0\.\d{4}", lab["text"]), "the lab's numbers in its first state"


def site_files(site: Path) -> dict[str, str]:
    """Every text file of the site but the theme's own, by its path: the pages, their sources, the search's texts."""
    return {path.relative_to(site).as_posix(): path.read_text(encoding="utf-8", errors="replace")
            for path in sorted(site.rglob("*")) if path.suffix in (".html", ".js", ".ipynb", ".md", ".txt")
            and ("_static" not in path.parts or path.name in ("site.js", "page-texts.js"))}


def external_links(site: Path) -> list[str]:
    """Every address a page of the site links to off the site."""
    return [html.unescape(href) for text in site_files(site).values()
            for href in re.findall(r'href="(https?://[^"]+)"', text)]


def test_the_build_ends_by_naming_the_page_to_open(site):
    if "none" not in BUILD_OUTPUT:
        pytest.skip("TEST_SITE: the site was built already")
    last = BUILD_OUTPUT["none"].strip().splitlines()[-1]
    opened = Path(urllib.parse.unquote(urllib.parse.urlsplit(re.search(r"file://\S+", last).group(0)).path))
    assert opened == site / "index.html" and opened.is_file(), last
    assert re.match(r"built in \d+ s; open ", last), "the build says how long it took"


def test_the_build_says_what_takes_its_time_and_how_to_keep_the_lessons_run_and_warns_of_no_kernel(site):
    if "none" not in BUILD_OUTPUT:
        pytest.skip("TEST_SITE: the site was built already")
    printed = BUILD_OUTPUT["none"]
    assert f"running {len(LESSONS)} lessons, 2 at a time" in printed
    assert len(re.findall(r"^ran notebooks/\S+ in \d+\.\d s$", printed, flags=re.M)) == len(LESSONS)
    assert "Kernel is running over TCP without encryption" not in printed + BUILD_OUTPUT["none-stderr"]


def test_without_an_address_no_link_leads_to_a_repository_and_the_home_page_says_how_to_get_the_code(site, visits):
    files = site_files(site)
    for placeholder in (*PLACEHOLDERS, "mybinder", "binderhub"):
        assert [name for name, text in files.items() if placeholder in text] == [], placeholder
    assert [href for href in external_links(site) if "ranking-metrics" in href or "mybinder" in href] == []
    home = visits["index.html"]["text"]
    assert "Get the code." in home and "built without the address of its repository" in home
    lesson = visits["notebooks/01_hit_rate_and_mrr.html"]
    assert "helpers/metrics.py" in lesson["prose"], "a link to a file the site does not hold keeps the file's name"


def test_with_an_address_every_repository_link_names_it_and_leads_to_a_file_that_exists(site_with_address):
    files = site_files(site_with_address)
    for placeholder in PLACEHOLDERS:
        assert [name for name, text in files.items() if placeholder in text] == [], placeholder
    links = external_links(site_with_address)
    repository = [href for href in links if "github.com" in href and "/AmenRa/" not in href]
    binder = [href for href in links if "mybinder.org" in href]
    assert all(href == ADDRESS or href.startswith(f"{ADDRESS}/") for href in repository), repository
    for href in repository:  # a file or folder of this checkout
        path = href.removeprefix(ADDRESS).partition("#")[0].strip("/")
        if path:
            kind, _, name = path.partition("/HEAD/")
            assert kind in ("blob", "tree") and (ROOT / name).exists(), href
    prefix = f"https://mybinder.org/v2/gh/{ADDRESS.removeprefix('https://github.com/')}/HEAD?"
    assert binder and all(href.startswith(prefix) for href in binder), binder
    for lesson in LESSONS:  # the theme's launch button on every lesson page; the note under each control
        page = html.unescape(files[page_path(site_with_address, lesson).relative_to(site_with_address).as_posix()])
        assert f"{prefix}urlpath=lab/tree/{lesson}" in page, f"{lesson}: no Binder launch button"
        if Path(lesson).stem[:2] in CONTROLS:
            assert f"{prefix}labpath={urllib.parse.quote(lesson, safe='')}" in page, lesson
    home = files["index.html"]
    assert f"git clone {ADDRESS}.git" in re.sub(r"<[^>]+>", "", home) and f'href="{ADDRESS}"' in home


@pytest.mark.skipif(not AXE.is_file(), reason=f"{AXE} is missing: .ci/run installs axe-core with npm")
def test_axe_finds_no_serious_or_critical_violation_on_any_page_light_or_dark(visits, phone_visits):
    assert {name: visit["axe"] for name, visit in visits.items() if visit["axe"]} == {}, "light, 1280 px"
    assert {name: visit["axe"] for name, visit in phone_visits.items() if visit["axe"]} == {}, "dark, 390 px"


def commonplace(value: float) -> bool:
    """1, 0.5, 0.25, 0.4, 1/3: a reciprocal rank 1/n, or a share of at most two decimals, printed on many pages for its
    own sake. Any other expected value (2/3 = 0.667 among them) must show nowhere on the site."""
    return abs(value * 100 - round(value * 100)) < 1e-9 or any(abs(value * n - 1) < 1e-9 for n in range(1, 11))


def written_forms(exercise) -> list[str]:
    """How a page could show an exercise's expected value: an answer at its precision and rounded to fewer decimals,
    down to 3 (0.5667 also as 0.567); a hidden case's expected value as Python prints it and to 6 decimals."""
    if exercise.kind == "answer":
        value = exercise.worked().value
        if not math.isfinite(value) or commonplace(value):
            return []
        return [f"{value:.{decimals}f}" for decimals in range(min(3, exercise.decimals), exercise.decimals + 1)]
    return [written for case in exercise.cases()
            if isinstance(case.expected, float) and math.isfinite(case.expected) and not commonplace(case.expected)
            for written in (repr(case.expected), f"{case.expected:.6f}")]


def site_texts(site: Path) -> dict[str, str]:
    """Every text file of the site (pages, search index, sources) by its path, HTML entities read as characters."""
    return {
        path.relative_to(site).as_posix(): html.unescape(path.read_text(encoding="utf-8", errors="replace"))
        for path in sorted(site.rglob("*"))
        if path.suffix in (".html", ".js", ".ipynb", ".md", ".txt", ".json") and "_static" not in path.parts
    }


@pytest.fixture(scope="module")
def numbers_shown(site) -> dict[str, set[str]]:
    """Every decimal number each file of the site shows, whole (0.5940 is not 0.594, nor is 10.594)."""
    texts = site_texts(site)
    assert sum(map(len, texts.values())) > 100_000
    return {name: set(re.findall(r"(?<![\d.])\d+\.\d+", text)) for name, text in texts.items()
            if "benchmarks/README" not in name}  # measured seconds, new with every run: no exercise's figure


def test_the_answer_check_reads_every_page_but_the_benchmarks_timings(numbers_shown):
    assert "index.html" in numbers_shown and "notebooks/03_the_ndcg_spreadsheet.html" in numbers_shown
    assert [name for name in numbers_shown if "benchmarks" in name] == []


@pytest.mark.parametrize("exercise_id", sorted(REGISTRY))
def test_no_exercise_s_expected_value_shows_anywhere_on_the_site(numbers_shown, exercise_id):
    """On a website every lesson is one click away: an exercise's answer may not be a figure any page prints."""
    shown = {name: written for written in written_forms(REGISTRY[exercise_id])
             for name, numbers in numbers_shown.items() if written in numbers}
    assert shown == {}, f"{exercise_id}'s expected value shows on the site"


def test_no_solution_or_right_verdict_is_printed_on_the_site(site):
    for lesson in LESSONS:  # what solution() and a right check() print (lesson 07's markdown says "Right:" itself)
        outputs = json.dumps([cell.get("outputs", []) for cell in executed_cells(site, lesson)])
        assert "Solution of" not in outputs and "Right:" not in outputs, f"{lesson} shows a solution or a right verdict"


def test_no_solution_cell_reaches_the_site(site):
    for lesson in LESSONS:
        tags = [cell.get("metadata", {}).get("tags", []) for cell in executed_cells(site, lesson)]
        assert not [t for t in tags if "solution" in t], f"{lesson} holds a solution cell"
        sources = [cell.source for cell in executed_cells(site, lesson) if cell.cell_type == "code"]
        assert not [s for s in sources if re.search(r"\bsolution\(|\breveal\(", s)], f"{lesson} calls solution()"
