"""The classroom view (python -m helpers.teacher.classroom NN) as a room sees it: lessons 01, 02, 03, 05 (with a
control) and 06, 07 (without) at 1280x720; lessons 01, 03, 05 and 07 also with ?scale=1.5 and 2 and at 1024x768, and
01 and 05 at 150 % browser zoom. On each page: the numbers and the controls that change them on the first screen,
"Predict, then reveal" dealt with n and revealed with r (the value on the screen), and on the first view a presenter
clicker's PageDown/PageUp/arrows moving the page, never a focused control, and the switches' contrast.

Each lesson is served by the real command, run from the repository root. One page load per lesson and view (but the
larger type's page, opened with ?scale=1.5, is then rescaled in place to scale 2, resized to 1024x768 and, for 01
and 05, zoomed to 150 %, as a window moved to another screen is), and on it: the first screen (a control's buttons,
numbers and plot, or a lesson's first worked output), every visible text at least 20 px times the scale (tables,
formulas, maths, the control's plot), no control cut off or collapsed, targets at least 44 px high, a focus ring of
3 px at 3:1, no link answering 4xx, no exercise, solution or narrative about them, and axe-core's serious and
critical findings. A screenshot of each state goes to test-output/browser/classroom/ (gitignored) for a person to
look at, and of each lesson's whole page on the first view with TEST_STITCHED_SHOTS=1 (no check reads it). The time
from the URL to a usable control is reported in test-output/browser/classroom_measurements.json, never asserted. On
the first view (1280x720, scale 1) each control is also driven with keys only. Pages are closed as tabs are (their
kernels end at once). The reload tests check that back-to-back reloads keep the kernels' memory flat and that a page
left without a goodbye loses its kernel to the culler (left first, checked last, so the other tests run meanwhile).
Nothing may be written into the repository meanwhile.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from helpers.teacher.classroom import FILL_DELAY
from tests.browser import page_checks, servers
from tests.browser.conftest import AXE, ROOT
from tests.browser.page_checks import contrast, rgb
from tests.waiting import wait_until

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 720}
TEST_POOL = 1  # one preheated kernel per lesson: six servers share two cores (the command's default is 3)
RELOADS = 4  # each runs lesson 05 in a new kernel (the one preheated kernel is taken by the first): 10 s apiece
CULL_SECONDS = 30  # short for the test; long enough for a page to connect on a busy machine


class Lesson:
    """What the first screen of a lesson must hold, by CSS selector (no control: its first worked output).

    ``inputs``: every control that changes the numbers, on the first screen at every view; ``wide_inputs``: more of
    them, on the first screen where the room's units leave the height for them (not at scale 2, where they are the
    next PageDown); ``plot``: the control's plot, on the first screen at scale 1 (larger type moves it below);
    ``reveal``: the lesson has "Predict, then reveal" (n, r).
    """

    def __init__(
        self, control: str | None, inputs: str, numbers: str, plot: str | None = None, wide_inputs: str | None = None,
        reveal: bool = False,
    ):  # fmt: skip
        self.control, self.inputs, self.numbers, self.plot = control, inputs, numbers, plot
        self.wide_inputs, self.reveal = wide_inputs, reveal


FIRST_OUTPUT = "#rendered_cells .jp-OutputArea-output"
LESSONS = {
    "01": Lesson(
        ".mrr-control",
        ".mrr-control select, .mrr-control .hit-k-slider .noUi-handle, .mrr-control .hit-k-slider .widget-readout, "
        ".mrr-control .reset-btn",
        ".mrr-control [class*='metric-']",
    ),
    "02": Lesson(
        ".ndcg-control",
        ".ndcg-control select, .ndcg-control .noUi-handle, .ndcg-control .gain-toggle button",
        ".ndcg-control .control-numbers [class*='metric-']",
        ".ndcg-control img.dg-plot",
    ),
    "03": Lesson(
        ".worksheet-control",
        ".worksheet-control input, .worksheet-control .noUi-handle, .worksheet-control .widget-toggle-button",
        ".worksheet-control .control-numbers [class*='metric-']",
        reveal=True,
    ),
    "05": Lesson(
        ".metrics-lab",
        ".metrics-lab .grade-btn, .metrics-lab .k-slider .noUi-handle",
        ".metrics-lab .control-numbers [class*='metric-']",
        ".metrics-lab img.dg-plot",
        wide_inputs=".metrics-lab .widget-toggle-button, .metrics-lab .reset-btn",
        reveal=True,
    ),
    "06": Lesson(None, FIRST_OUTPUT, FIRST_OUTPUT),
    "07": Lesson(None, FIRST_OUTPUT, FIRST_OUTPUT),
}
# (name, viewport, scale, zoom): the projector at three sizes of type, a smaller screen, and 1280x720 at 150 %
# browser zoom (the page 853x480 CSS pixels, each drawn 1.5 times)
VIEWS = [
    ("1280x720-scale1", {"width": 1280, "height": 720}, 1.0, 1),
    ("1280x720-scale1.5", {"width": 1280, "height": 720}, 1.5, 1),
    ("1280x720-scale2", {"width": 1280, "height": 720}, 2.0, 1),
    ("1024x768-scale1", {"width": 1024, "height": 768}, 1.0, 1),
    ("1280x720-zoom150", {"width": 853, "height": 480}, 1.0, 1.5),
]
# the views that hold fewer than twelve rows of targets: the wide_inputs are the next PageDown
TINY = ("1280x720-scale2", "1280x720-zoom150")
# what the classroom leaves out: instructions, exercises, answer boxes, solutions and the narrative about them
NOT_SHOWN = re.compile(
    r"run this cell first|try it yourself|not answered yet|no answer yet|save this as a spreadsheet|checker"
    r"|\btasks? \d|your answers?\b|hint\(|solution\(",
    re.IGNORECASE,
)

# what points at code the room cannot see: a lesson's "Read the code: ..." lines, "the next cell" (lessons 06, 07)
POINTS_AT_CODE = re.compile(r"read the code|next cell|cell below|code below", re.IGNORECASE)

# direct text of every visible element inside a selector, with its font size: what a reader reads (the plot's
# words for screen readers and MathJax's copy for them are off screen, not read)
TEXT_SIZES = """
(selector) => [...document.querySelectorAll(selector + ' *')]
  .filter(e => e.offsetParent !== null && !e.closest('.dg-plot-text, mjx-assistive-mml, .classroom-hidden'))
  .filter(e => [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
  .map(e => [parseFloat(getComputedStyle(e).fontSize), e.textContent.trim().slice(0, 40)])
"""
# MathJax draws each glyph (mjx-c) from CSS, without a text node: their font sizes, a subscript's included
MATHS_SIZES = """
() => [...document.querySelectorAll('#rendered_cells mjx-container mjx-c')]
  .filter(e => e.getBoundingClientRect().width > 0)
  .map(e => [parseFloat(getComputedStyle(e).fontSize), e.closest('mjx-container').textContent.slice(0, 30)])
"""
# every visible target a teacher clicks: [what, height, width]
TARGETS = """
() => [...document.querySelectorAll(
    '#rendered_cells button, #rendered_cells select, #rendered_cells input:not([type=checkbox]), '
    + '#rendered_cells .noUi-handle, #rendered_cells summary, #rendered_cells .widget-checkbox')]
  .filter(e => e.offsetParent !== null)
  .map(e => { const r = e.getBoundingClientRect();
              return [`${e.tagName.toLowerCase()}.${e.className} "${e.textContent.trim().slice(0, 30)}"`,
                      r.height, r.width]; })
"""
# a control part that sticks out of the page or is narrower than its own content (collapsed)
OUT_OF_PAGE = """
(width) => [...document.querySelectorAll(
    '.control-inputs, .control-readout, .control-numbers, .jupyter-widgets button, .jupyter-widgets select, '
    + '.jupyter-widgets .widget-label, .jupyter-widgets .noUi-handle')]
  .filter(e => e.offsetParent !== null)
  .filter(e => { const r = e.getBoundingClientRect();
                 return r.left < -1 || r.right > width + 1 || r.width < 1 || e.scrollWidth > e.clientWidth + 1; })
  .map(e => `${e.className}: "${e.textContent.trim().slice(0, 40)}" at ${Math.round(e.getBoundingClientRect().left)}`
            + `-${Math.round(e.getBoundingClientRect().right)}, needs ${e.scrollWidth} px, has ${e.clientWidth}`)
"""
# the element that has the focus: which stop it is (from 0), what it is, its outline (style, width in px, colour)
# and, for a link, where it goes
FOCUSED = """
() => { const e = document.activeElement; if (!e || e === document.body) return null;
        const s = getComputedStyle(e);
        window.tabStops = window.tabStops || [];
        if (!window.tabStops.includes(e)) window.tabStops.push(e);
        return [`${window.tabStops.indexOf(e)} ${e.tagName.toLowerCase()}.${e.className} `
                + `"${(e.textContent || '').trim().slice(0, 30)}"`,
                s.outlineStyle, parseFloat(s.outlineWidth), s.outlineColor, e.tagName === 'A' ? e.href : null]; }
"""
# every link: [where it goes, whether it is a place on this page (a heading's anchor), whether that place exists]
# (as a browser finds it: an element whose id or name is the fragment as written, else the fragment decoded; the
# lessons' heading ids are written percent-encoded)
LINKS = """
() => [...document.querySelectorAll('#rendered_cells a[href]')].map(a => {
  const here = a.href.split('#')[0] === location.href.split('#')[0] && a.hash !== '';
  const exists = id => document.getElementById(id) !== null || document.getElementsByName(id).length > 0;
  return [a.href, here, here && (exists(a.hash.slice(1)) || exists(decodeURIComponent(a.hash.slice(1))))];
})
"""

MEASURED: dict[str, dict] = {}


@pytest.fixture(scope="module")
def repository_files():
    """The files under notebooks/ with their modification times, before any lesson is shown."""
    return {path: path.stat().st_mtime_ns for path in (ROOT / "notebooks").rglob("*") if path.is_file()}


@pytest.fixture(scope="module")
def classrooms(tmp_path_factory, repository_files, shots):
    """The classroom command for each lesson, run from the repository root (all started at once)."""
    def home_of(lesson: str):
        return tmp_path_factory.mktemp(f"classroom-{lesson}")

    try:
        with servers.classrooms(LESSONS, ROOT, home_of, cull=CULL_SECONDS, pool=TEST_POOL) as started:
            yield started
    finally:
        (shots / "classroom_measurements.json").write_text(json.dumps(MEASURED, indent=2), encoding="utf-8")


# the kernel a Voila page works with
KERNEL_ID = "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"


@pytest.fixture(scope="module")
def reloads_of_05(classrooms, browser):
    """RELOADS reloads of lesson 05, then the page left without a goodbye (a crashed or sleeping laptop).

    Returns the kernels after each reload and once settled, the left page's kernel id and when it was left. The
    culler's verdict on that kernel is read at the end of the module (test_an_abandoned_page_is_culled), so the
    other tests run while the kernel idles out.
    """
    server, lesson = classrooms["05"], LESSONS["05"]
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    samples = []
    for _ in range(RELOADS):
        open_usable(page, server.page(""), lesson)
        running = servers.kernels(server)
        samples.append({"kernels": len(running), "MiB": round(sum(running.values()) / 1024)})
    # settle: the pool full again, the last closed page's kernel gone
    time.sleep(FILL_DELAY + 1)
    deadline = time.monotonic() + 60
    while len(servers.kernels(server)) > TEST_POOL + 1 and time.monotonic() < deadline:
        time.sleep(0.5)
    settled = servers.kernels(server)
    MEASURED["05 reloads"] = {
        "after each reload": samples,
        "settled": {"kernels": len(settled), "MiB": round(sum(settled.values()) / 1024)},
    }
    kernel_id = page.evaluate(KERNEL_ID)
    context.close()  # no unload handlers run: the page says no goodbye
    return {"samples": samples, "settled": settled, "kernel id": kernel_id, "left at": time.monotonic()}


def test_reloads_keep_kernel_memory_flat(reloads_of_05):
    """Reloads of lesson 05: each closed page shuts its kernel down, so kernels and memory stay flat."""
    samples, settled = reloads_of_05["samples"], reloads_of_05["settled"]
    # flat: the page's kernel, the preheated ones and at most two still closing down (shutting a kernel down
    # takes a moment on a busy machine); a leak would give one more per reload, RELOADS + TEST_POOL in all
    assert max(sample["kernels"] for sample in samples) <= TEST_POOL + 3
    assert len(settled) <= TEST_POOL + 1


def test_the_kernels_speak_to_voila_over_local_sockets_not_tcp_ports(classrooms):
    """Six servers heat kernels at once: on ports picked in advance, one kernel could find its port taken by another
    and never start (see classroom.py). Each kernel's five channels are local sockets instead."""
    for lesson, server in classrooms.items():
        running = servers.kernels(server)
        assert running, f"no kernel in classroom {lesson}"
        for pid in running:
            # ipykernel_launcher -f <connection file> (a forked kernel's command is one string: forked_kernels.py)
            connection_file = Path(re.search(r"-f\s+(\S+)", " ".join(psutil.Process(pid).cmdline())).group(1))
            channels = json.loads(connection_file.read_text(encoding="utf-8"))
            assert channels["transport"] == "ipc", f"classroom {lesson}: kernel {pid}"
            for name in ("shell", "iopub", "stdin", "control", "hb"):
                assert Path(f"{channels['ip']}-{channels[name + '_port']}").is_socket(), (lesson, name)


def open_usable(page, url: str, lesson: Lesson) -> float:
    """Open the URL; return the seconds until the control's numbers show and its first input is enabled."""
    start = time.monotonic()
    response = page.goto(url, wait_until="commit")
    assert response is not None and response.status == 200, url
    expect(page.locator(lesson.numbers).first).to_be_visible(timeout=90_000)
    expect(page.locator(lesson.inputs).first).to_be_enabled(timeout=90_000)
    return round(time.monotonic() - start, 2)


def wait_settled(page) -> None:
    """Wait until the page script has arranged the page after its last change and it has been quiet since (it marks
    the page's root element data-classroom-settled then; a change of the page or its size takes the mark away)."""
    page.wait_for_selector("html[data-classroom-settled]", state="attached", timeout=30_000)


def rescale(page, screen: dict, scale: float, zoom: float = 1) -> None:
    """The page at another screen size and scale, laid out again (as a new page with ?scale= would be: the page
    script reads the scale from one CSS variable and lays the page out again on a resize); with a ``zoom``, each CSS
    pixel drawn that many times (the browser's zoom, as a new page of that device scale factor would be)."""
    page.set_viewport_size(screen)
    if zoom != 1:  # Chromium's own screen emulation: Playwright sets the device scale factor only for a new context
        # (the session stays attached: Chromium ends a session's emulation with it)
        page.context.new_cdp_session(page).send("Emulation.setDeviceMetricsOverride", {
            "width": screen["width"], "height": screen["height"], "deviceScaleFactor": zoom, "mobile": False})
        assert page.evaluate("() => window.devicePixelRatio") == zoom
    page.evaluate(
        """(scale) => { document.documentElement.style.setProperty('--classroom-scale', String(scale));
                        window.dispatchEvent(new Event('resize'));
                        document.querySelector('#rendered_cells').scrollTop = 0; }""",
        scale,
    )
    wait_settled(page)  # the page script's next frame, the widgets' own layout, and quiet since


def screenshot(page, path: Path) -> None:
    """The screen as the page draws it, in its own device pixels: a page zoomed in place (:func:`rescale`) too, whose
    zoom Playwright's own screenshot does not know (it would draw it at its context's scale)."""
    width, height, zoom = page.evaluate("() => [innerWidth, innerHeight, devicePixelRatio]")
    screen = {"x": 0, "y": 0, "width": width, "height": height, "scale": zoom}
    session = page.context.new_cdp_session(page)
    try:
        path.write_bytes(base64.b64decode(session.send("Page.captureScreenshot", {"clip": screen})["data"]))
    finally:
        session.detach()


def in_view(page, selector: str, viewport: dict) -> list:
    """The boxes of the selector's elements that are not wholly inside the viewport (the first screen)."""
    return [
        box
        for box in page.evaluate(page_checks.BOXES, selector)
        if box[0] < -1 or box[1] > viewport["height"] + 1 or box[2] < -1 or box[3] > viewport["width"] + 1
    ]


def axe_violations(page) -> list[str]:
    """axe-core's serious and critical findings on the page, as 'impact id: targets'."""
    page.add_script_tag(path=str(AXE))
    return page.evaluate(
        """async (exclude) => (await axe.run({exclude: exclude.map(s => [s])}, {resultTypes: ['violations']}))
             .violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
             .map(v => `${v.impact} ${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`)""",
        list(NOT_OURS),
    )


# third-party page parts whose findings are not the project's (none needed so far); selector -> reason
NOT_OURS: dict[str, str] = {}
# Every lesson in the projector's first view; the larger type and the smaller screen on the lessons a lecture hall
# uses most (issue 34: 01, 03, 05, 07), 150 % zoom on lessons 01 and 05, the densest first screens. Each page load
# takes a preheated kernel, forked and heated in about a second (helpers/teacher/forked_kernels.py).
LARGER_VIEWS_ON = ("01", "03", "05", "07")
ZOOMED = ("01", "05")
MATRIX = [
    (view, number)
    for view in VIEWS
    for number in LESSONS
    if view is VIEWS[0] or (number in LARGER_VIEWS_ON and (view[3] == 1 or number in ZOOMED))
]


# The views looked at on the page of the view before them (the lesson's larger-type page, opened with ?scale=1.5),
# resized, rescaled and zoomed in place as a teacher's window moved to another screen is: a page load (a kernel that
# runs the lesson) less for each; the page goes on to the lesson's next view when its view's checks pass
IN_PLACE = {"1280x720-scale2": "1280x720-scale1.5", "1024x768-scale1": "1280x720-scale2",
            "1280x720-zoom150": "1024x768-scale1"}


def next_in_place(view, number: str) -> bool:
    """Whether the lesson's next view is looked at on this view's page (IN_PLACE)."""
    following = [later for later, lesson in MATRIX[MATRIX.index((view, number)) + 1 :] if lesson == number]
    return bool(following) and IN_PLACE.get(following[0][0]) == view[0]


@pytest.fixture(scope="module")
def kept_pages(classrooms):
    """The pages kept for a lesson's next view (lesson -> context, page, the view it was last looked at in), closed
    at the module's end if a failure left one open."""
    kept: dict[str, tuple] = {}
    yield kept
    for number, (context, page, _) in kept.items():
        close_with_goodbye(page, context, classrooms[number])


@pytest.mark.parametrize("view, number", MATRIX, ids=[f"{number}-{view[0]}" for view, number in MATRIX])
def test_classroom_page_in_the_room(view, number, classrooms, browser, shots, kept_pages):
    name, viewport, scale, zoom = view
    lesson, server = LESSONS[number], classrooms[number]
    kept = kept_pages.pop(number, None)
    if kept and kept[2] == IN_PLACE.get(name):
        context, page, _ = kept
    else:
        if kept:
            close_with_goodbye(kept[1], kept[0], server)
        context, page = None, None
    folder = shots / "classroom"
    folder.mkdir(exist_ok=True)
    looked_at = False
    try:
        if page is None:
            context = browser.new_context(viewport=viewport, device_scale_factor=zoom)
            page = context.new_page()
            seconds = open_usable(page, server.page(f"?scale={scale:g}"), lesson)
            MEASURED.setdefault(number, {})[f"seconds to usable, {name}"] = seconds
        else:
            rescale(page, viewport, scale, zoom)
        wait_settled(page)  # the page script has arranged the page and named sliders and plots
        page.evaluate("() => document.querySelector('#rendered_cells').scrollTop = 0")
        screenshot(page, folder / f"{number}_{name}_first_screen.png")

        # the demonstration only: no code, no exercise, no solution, no instruction, nothing said about them
        expect(page.locator(".jp-InputArea-editor:visible")).to_have_count(0)
        text = page.locator("#rendered_cells").inner_text() + page.locator(".classroom-about").inner_text()
        assert NOT_SHOWN.findall(text) == []
        assert POINTS_AT_CODE.findall(text) == []  # the room sees no code: nothing points at it
        hidden = page.evaluate("() => [...document.querySelectorAll('[data-role]')].map(e => e.textContent.trim())")
        assert hidden and all(re.fullmatch(r"voila_process\(\d+, \d+\)", part) for part in hidden)
        assert page.evaluate(page_checks.ERROR_OUTPUTS) == []

        # the first screen: the numbers and the controls that change them at every view, the plot at scale 1 (or
        # the lesson's first worked output)
        if lesson.control:
            first_screen = [lesson.numbers, lesson.inputs]
            first_screen += [lesson.wide_inputs] if lesson.wide_inputs and name not in TINY else []
            wide = scale == 1 and zoom == 1 and viewport["width"] > 1100  # the plot beside the inputs
            first_screen += [lesson.plot] if lesson.plot and wide else []
            for selector in first_screen:
                assert page.evaluate(page_checks.BOXES, selector), f"nothing shown for {selector}"
                assert in_view(page, selector, viewport) == [], f"{selector} is not all on the first screen"
        else:
            top = page.evaluate(page_checks.BOXES, FIRST_OUTPUT)[0][0]
            assert 0 <= top < 0.8 * viewport["height"], f"the first worked output starts at {top} px"
            assert page.locator("details.classroom-about").get_attribute("open") is None  # the goals folded away

        # legible: every text at least 20 px times the scale (tables, formulas, maths, the plot's labels)
        floor = 20 * scale - 0.01
        small = [(size, words) for size, words in page.evaluate(TEXT_SIZES, "#rendered_cells") if size < floor]
        assert small == [], f"text below {floor:.0f} px"
        small = [(size, words) for size, words in page.evaluate(MATHS_SIZES) if size < floor]
        assert small == [], f"maths below {floor:.0f} px"
        if lesson.control:
            for size, words in page.evaluate(page_checks.FONT_SIZES, lesson.numbers):
                assert size >= 28 * scale - 0.01, f"{words!r} is {size} px"
        if lesson.plot:
            plot = page.locator(lesson.plot)
            natural, shown = plot.evaluate("img => [img.naturalWidth, img.clientWidth]")
            # two image pixels per screen pixel at scale 1 (sharp); larger type enlarges the picture as much
            assert natural >= 2 * shown / scale - 1
            smallest = float(plot.evaluate(page_checks.READ_PNG_TEXT, "Smallest-Text-Px"))
            assert smallest * shown / natural >= 20 * scale - 0.05, "the plot's smallest text"
            assert plot.get_attribute("alt").startswith("Bar plot of the discounted gain per position")

        # usable: nothing cut off, collapsed or outside the page; every target at least 44 px high
        for check in (page_checks.CLIPPED_WIDGET_TEXT, page_checks.CUT_TABLE_CELLS, page_checks.MATHS_IN_TABLES):
            wrong = page.evaluate(check)
            assert wrong == []
        wrong = page.evaluate(OUT_OF_PAGE, viewport["width"])
        assert wrong == []
        wrong = [target for target in page.evaluate(TARGETS) if target[1] < 44 or target[2] < 24]
        assert wrong == []
        checkboxes = page.evaluate(page_checks.BOXES, "#rendered_cells input[type=checkbox]:enabled")
        wrong = [box for box in checkboxes if box[1] - box[0] < 24]
        assert wrong == []

        # no dead link: a place on this page (a heading's anchor) exists on it, and every other address of the
        # page's own server answers (each asked once: asking for the lesson's page again would run the lesson in a
        # new kernel); the project's files are not linked
        links = page.evaluate(LINKS)
        assert [href for href, here, found in links if here and not found] == []
        elsewhere = {href.split("#")[0] for href, here, _ in links if not here and href.startswith(server.url)}
        for href in sorted(elsewhere):
            assert page.request.get(href).status < 400, href
        if view is VIEWS[0] and page_checks.stitched_shots_asked():  # the whole page, a dozen screenshots: asked
            page_checks.stitched_screenshot(page, "#rendered_cells", folder / f"{number}_{name}_page.png")

        # the focus ring of every stop of the first Tab presses: at least 3 px, 3:1 on the page's white
        # Tab from the page's start, as on a page just opened (a page looked at before has a focus to leave: blurred,
        # Tab would go on from where it was)
        page.evaluate("""() => { const body = document.body; body.tabIndex = -1; body.focus();
                                 body.removeAttribute('tabindex'); window.tabStops = [];
                                 document.querySelector('#rendered_cells').scrollTop = 0; }""")
        stops = []
        for press in range(12):
            page.keyboard.press("Tab")
            if press == 0 and lesson.control:  # Tab starts at the control
                assert page.evaluate("() => document.activeElement.closest('.classroom-control') !== null")
            focused = page.evaluate(FOCUSED)
            if focused is None or (stops and focused[0] == stops[0][0]):
                break
            stops.append(focused)
        assert stops, "nothing takes the focus"
        for what, style, width, colour, href in stops:
            assert style != "none" and width >= 3, f"{what}: outline {style} {width} px"
            assert contrast(rgb(colour), (255, 255, 255)) >= 3, f"{what}: outline {colour}"
            assert href is None or href.startswith(("http://127.0.0.1", "https://")), href
        if lesson.control:
            assert len(stops) >= 3
        screenshot(page, folder / f"{number}_{name}_focus.png")

        if AXE.is_file() and scale == 1:  # the same page at larger type: the same names, roles and colours
            violations = axe_violations(page)
            MEASURED.setdefault(f"{number} axe", {})[name] = len(violations)
            assert violations == []

        # the control works from the keyboard, and a clicker moves through the page without touching it (on the
        # projector's first view: the same page, one load less)
        if view is VIEWS[0]:
            drive_with_a_clicker(page, number)
        if lesson.control and view is VIEWS[0]:
            drive_from_the_keyboard(page, number)
            for scope in (".classroom-control", ".classroom-reveal"):
                if page.locator(f"{scope} .widget-toggle-button").count():
                    look = page_checks.switch_contrast(page, scope)
                    MEASURED.setdefault(f"{number} switches", {})[scope] = look
                    assert look["chosen against other"] >= 3 and look["ring against background"] >= 3, look
                    assert look["ring width"] >= 4, look  # 4 px in the classroom, 3 in JupyterLab

        # the worksheet's formulas read from the back of the room: 7:1 against their cells (white and yellow)
        if number == "03" and view is VIEWS[0]:
            page.locator(".worksheet-control .show-formulas input").check()
            expect(page.locator(".worksheet-control .sheet-view .formula").first).to_be_visible(timeout=30_000)
            assert page_checks.lowest_contrast(page, ".worksheet-control .sheet-view .formula") >= 7

        # predict, then reveal with n and r: the value on the screen at every view
        if lesson.reveal:
            deal_and_reveal_with_keys(page, viewport)
            screenshot(page, folder / f"{number}_{name}_revealed.png")
        looked_at = True
    finally:
        if looked_at and next_in_place(view, number):
            kept_pages[number] = (context, page, name)
        elif page is not None:
            close_with_goodbye(page, context, server)


SCROLL_TOP = "() => document.querySelector('#rendered_cells').scrollTop"
# the value a control shows: a list's choice, a slider's readout
VALUE = "(e) => e.tagName === 'SELECT' ? e.value : e.textContent.trim()"
# per lesson: the control a teacher moves with its own arrow keys, where its value shows, and the key
CLICKED_AWAY = {
    "01": (".mrr-control select", ".mrr-control select", "ArrowDown"),
    "02": (".ndcg-control .k-slider .noUi-handle", ".ndcg-control .k-slider .widget-readout", "ArrowLeft"),
    "03": (".worksheet-control .k-slider .noUi-handle", ".worksheet-control .k-slider .widget-readout", "ArrowLeft"),
    "05": (".metrics-lab .k-slider .noUi-handle", ".metrics-lab .k-slider .widget-readout", "ArrowRight"),
}


def drive_with_a_clicker(page, number: str) -> None:
    """A presenter clicker's keys on the page as it opened: PageDown moves to the next section, PageUp back; with a
    control focused and moved by its own arrow keys, PageDown still moves the page and leaves its value alone."""
    page.evaluate("() => { document.activeElement.blur(); document.querySelector('#rendered_cells').scrollTop = 0; }")
    page.keyboard.press("PageDown")
    first_stop = page.evaluate(SCROLL_TOP)
    assert first_stop > 0, "PageDown did not move the page"
    page.keyboard.press("PageDown")
    assert page.evaluate(SCROLL_TOP) > first_stop
    page.keyboard.press("PageUp")
    assert page.evaluate(SCROLL_TOP) == first_stop
    page.keyboard.press("PageUp")
    assert page.evaluate(SCROLL_TOP) == 0
    page.keyboard.press("ArrowDown")  # some clickers send arrows: with no control focused, the same steps
    assert page.evaluate(SCROLL_TOP) == first_stop
    page.keyboard.press("ArrowUp")
    assert page.evaluate(SCROLL_TOP) == 0
    if number not in CLICKED_AWAY:
        return
    control, shown, key = CLICKED_AWAY[number]
    page.locator(control).first.focus()
    before = page.locator(shown).first.evaluate(VALUE)
    page.keyboard.press(key)  # the control's own keys still move it
    page.wait_for_function(f"(old) => ({VALUE})(document.querySelector({shown!r})) !== old", arg=before)
    moved = page.locator(shown).first.evaluate(VALUE)
    top = page.evaluate(SCROLL_TOP)
    for key in ("PageDown", "PageUp", "PageDown"):
        page.keyboard.press(key)
    page.wait_for_timeout(500)  # a change would have reached the readout by now
    assert page.locator(shown).first.evaluate(VALUE) == moved  # a slider takes PageDown as a big step, a list a jump
    assert page.evaluate(SCROLL_TOP) != top


def deal_and_reveal_with_keys(page, viewport: dict) -> None:
    """n deals new numbers, r reveals: the revealed value ends on the screen, wherever the page was."""
    page.evaluate("() => { document.activeElement.blur(); document.querySelector('#rendered_cells').scrollTop = 0; }")
    heading = page.locator(".classroom-reveal .reveal-heading").inner_text()
    page.keyboard.press("n")
    expect(page.locator(".classroom-reveal .reveal-heading")).not_to_have_text(heading, timeout=30_000)
    page.keyboard.press("r")
    expect(page.locator(".classroom-reveal .reveal-value")).to_have_text(re.compile(r"= -?\d\.\d{3}"), timeout=30_000)
    page.wait_for_timeout(300)  # the page script brings the answer into view
    assert in_view(page, ".classroom-reveal .reveal-value", viewport) == [], "the revealed value is off the screen"
    keys = page.locator(".classroom-keys").text_content() or ""  # the legend ? shows
    assert "n new numbers" in keys and "r reveal" in keys


def close_with_goodbye(page, context, server: servers.Server) -> None:
    """Close the page as a tab is closed (its unload handler asks Voila to end its kernel at once), then its context.

    The context is closed once Voila has logged that kernel's shutdown (10 s at most), not at once: closing it ends
    the page's requests, and fresh-clone runs found a page's goodbye cut off so, its kernel still running when
    test_an_abandoned_page_is_culled counted them (after ``page.close(run_before_unload=True)``, which returns before
    the page has closed, and again after the page's close event).
    """
    ended = ""
    try:
        kernel_id = page.evaluate(KERNEL_ID)
        ended = f"Kernel shutdown: {kernel_id}"
        page.close(run_before_unload=True)
    except PlaywrightError:  # the page is gone already: the context ends what is left
        pass
    if ended:
        with contextlib.suppress(TimeoutError):  # no goodbye logged: the test that counts the kernels says so
            wait_until(lambda: ended in server.log_text(), f"Voila to log {ended}", 10, every=0.1)
    context.close()


def drive_from_the_keyboard(page, number: str) -> None:
    """One change per lesson made with keys only, through controls found by their accessible names."""
    if number == "01":
        picker = page.get_by_role("combobox", name="D8 at").last  # NEW's q1
        before = page.locator(".metric-mrr-NEW").inner_text()
        picker.focus()
        page.keyboard.press("ArrowUp")  # rank 2 -> rank 1
        expect(page.locator(".metric-mrr-NEW")).not_to_have_text(before)
    elif number == "02":
        slider = page.get_by_role("slider", name="k")
        before = page.locator(".ndcg-control .metric-ndcg").inner_text()
        slider.focus()
        page.keyboard.press("ArrowLeft")
        expect(page.locator(".ndcg-control .metric-ndcg")).not_to_have_text(before)
    elif number == "03":
        box = page.get_by_role("spinbutton", name="missed kb21")
        box.focus()
        page.keyboard.press("ArrowDown")  # 3 -> 2
        page.keyboard.press("Enter")
        expect(page.locator(".worksheet-control .metric-idcg")).not_to_have_text("IDCG@5 = 7.141")
    else:
        button = page.get_by_role("button", name="0 · none").first  # r4, rank 3
        expect(page.get_by_role("slider", name="K")).to_have_count(1)
        before = page.locator(".metrics-lab .metric-recall").inner_text()
        button.focus()
        page.keyboard.press("Enter")
        expect(page.locator(".metrics-lab .metric-recall")).not_to_have_text(before)
        page.keyboard.press("Space")  # the same button, again
        expect(page.locator(".grade-btn-3")).to_have_text("2 · answers it")


def test_showing_lessons_wrote_nothing_into_the_repository(classrooms, repository_files):
    """The lessons' save cells are exercises: left out, so no example_*.xlsx appears next to the notebooks."""
    now = {path: path.stat().st_mtime_ns for path in (ROOT / "notebooks").rglob("*") if path.is_file()}
    assert sorted(set(now) - set(repository_files)) == []  # no new file (example_c.xlsx, checkpoints, ...)
    assert now == repository_files  # and no file changed


def test_an_abandoned_page_is_culled(classrooms, reloads_of_05):
    """The page left without a goodbye after the reloads (module start) loses its kernel to the culler."""
    server = classrooms["05"]
    deadline = reloads_of_05["left at"] + CULL_SECONDS + 40
    culled = f"Culling 'idle' kernel 'python3' ({reloads_of_05['kernel id']})"
    while culled not in server.log_text() and time.monotonic() < deadline:
        time.sleep(1)
    assert reloads_of_05["kernel id"] and culled in server.log_text()
    # and nothing else is left: every other page of lesson 05 said goodbye, the preheated kernels are never culled
    # (the last page's kernel may still be closing, its successor starting)
    deadline = time.monotonic() + 30
    while len(servers.kernels(server)) != TEST_POOL and time.monotonic() < deadline:
        time.sleep(1)
    assert len(servers.kernels(server)) == TEST_POOL


# what a teacher's terminal must not show when the view starts (issue 34 saw a DeprecationWarning and eight "not
# trusted" lines; a forked kernel's "Ctrl-C will not work" banner would be another)
ALARMING = re.compile(r"warning|deprecat|not trusted|traceback|error|ctrl-c will not work|signing key", re.IGNORECASE)


def test_start_up_prints_the_link_and_nothing_alarming(classrooms):
    for number, server in classrooms.items():
        log = server.log_text()
        first = log.splitlines()[0]
        assert first.startswith(f"Classroom view of {number}_") and f"{server.url}/?scale=1 " in first
        start_up = log[: log.index("is filled with")]  # what the terminal showed until the pool was ready
        assert ALARMING.findall(start_up) == [], start_up


def test_a_second_view_on_a_busy_port_says_so_and_leaves_the_link_to_its_lesson(classrooms, tmp_path):
    """With lesson 05 served, lesson 03 asked for the same port: a clear error, no link, lesson 05 still there."""
    server = classrooms["05"]
    port = int(server.url.rsplit(":", 1)[1])
    second = subprocess.run(
        [sys.executable, "-m", "helpers.teacher.classroom", "03", f"--port={port}", "--no-browser"],
        cwd=ROOT, env=servers.isolated_env(tmp_path), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert second.returncode == 2
    assert f"port {port} is in use" in second.stderr and "--port" in second.stderr
    assert "http://" not in second.stdout
    assert server.process.poll() is None and servers.port_open(port)  # the link still goes to lesson 05
