"""The keys of a lecturer's clicker on the classroom view (issue 43), on lesson 01 served by the real command.

The first ``b`` blanks the screen; Home and End move the page, never the control that has the focus, while the
arrow keys still move it; ``?`` shows and hides the legend of the keys, and the first screen says so.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser import servers
from tests.browser.conftest import ROOT

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1024, "height": 768}
SCROLL_TOP = "() => document.querySelector('#rendered_cells').scrollTop"
SLIDER = ".mrr-control .hit-k-slider"


@pytest.fixture(scope="module")
def lesson_01(tmp_path_factory):
    with servers.classrooms(["01"], ROOT, lambda lesson: tmp_path_factory.mktemp(f"keys-{lesson}"), pool=1) as started:
        yield started["01"]


@pytest.fixture(scope="module")
def page(lesson_01, browser):
    """Lesson 01 opened once at 1024x768; each test starts with the page at its top and nothing focused."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(lesson_01.page(""), wait_until="commit")
    expect(page.locator(f"{SLIDER} .noUi-handle")).to_be_visible(timeout=90_000)
    expect(page.locator(".classroom-hint")).to_be_visible(timeout=30_000)
    yield page
    page.close(run_before_unload=True)
    context.close()


@pytest.fixture(autouse=True)
def at_the_top(page):
    page.evaluate("() => { document.activeElement.blur(); document.querySelector('#rendered_cells').scrollTop = 0; }")


def test_the_first_b_blanks_the_screen_and_the_next_shows_it_again(page):
    cover = page.locator(".classroom-blank")
    page.keyboard.press("b")
    expect(cover).to_be_visible()
    box = cover.bounding_box()
    assert box == {"x": 0, "y": 0, "width": VIEWPORT["width"], "height": VIEWPORT["height"]}
    page.keyboard.press("b")
    expect(cover).to_be_hidden()
    page.keyboard.press(".")  # a clicker's blank key
    expect(cover).to_be_visible()
    page.keyboard.press("Escape")
    expect(cover).to_be_hidden()


def readout(page) -> str:
    return page.locator(f"{SLIDER} .widget-readout").inner_text().strip()


def test_home_and_end_move_the_page_never_a_focused_control(page):
    handle = page.locator(f"{SLIDER} .noUi-handle")
    handle.focus()
    before = readout(page)
    page.keyboard.press("End")
    bottom = page.evaluate(
        "() => { const box = document.querySelector('#rendered_cells'); return box.scrollHeight - box.clientHeight; }"
    )
    assert bottom > 0 and page.evaluate(SCROLL_TOP) >= bottom - 1
    page.keyboard.press("Home")
    assert page.evaluate(SCROLL_TOP) == 0
    page.wait_for_timeout(500)  # a change of the slider would have reached its readout by now
    assert readout(page) == before
    # a list (a question's pick) keeps its choice too
    picker = page.locator(".mrr-control select").first
    chosen = picker.evaluate("e => e.value")
    picker.focus()
    page.keyboard.press("End")
    page.keyboard.press("Home")
    assert picker.evaluate("e => e.value") == chosen
    # the arrow keys still move the focused slider
    handle.focus()
    page.keyboard.press("ArrowLeft" if before != "1" else "ArrowRight")
    expect(page.locator(f"{SLIDER} .widget-readout")).not_to_have_text(before)


def test_question_mark_shows_and_hides_the_legend_and_the_first_screen_says_so(page):
    hint = page.locator(".classroom-hint")
    expect(hint).to_have_text("? keys")
    box = hint.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= VIEWPORT["width"]
    legend = page.locator(".classroom-keys")
    expect(legend).to_be_hidden()
    page.keyboard.press("?")
    expect(legend).to_be_visible()
    shown = legend.inner_text()
    for words in ("PgDn PgUp next, back", "Home End top, end", "b blank screen", "? these keys"):
        assert words in shown
    box = legend.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"] + 0.5
    page.keyboard.press("?")
    expect(legend).to_be_hidden()
    page.keyboard.press("?")
    page.keyboard.press("Escape")
    expect(legend).to_be_hidden()


def test_a_page_whose_kernel_does_not_answer_says_so_and_recovers(lesson_01, browser):
    """The lab's kernel connection never made (issue 43 saw a reload stay empty in its place): the page says
    "Starting the lab…", tries again by itself once, then says the lab did not start and offers "Try again", which
    brings the lab once the connection works."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script("window.classroomLabWait = 4")  # seconds before giving up (60 in the room)
    page = context.new_page()
    blocked = {"on": True, "pages": 0}

    def kernel_socket(socket):
        if blocked["on"]:
            blocked["pages"] += 1  # held open, never answered: the widgets wait for their kernel
        else:
            socket.connect_to_server()

    page.route_web_socket(re.compile(r"/api/kernels/"), kernel_socket)
    try:
        page.goto(lesson_01.page(""), wait_until="commit")
        status = page.locator(".classroom-status")
        expect(status.first).to_be_visible(timeout=90_000)
        expect(status.first).to_contain_text("The lab did not start", timeout=120_000)
        assert blocked["pages"] >= 2  # the page tried again by itself once before saying so
        expect(page.locator(f"{SLIDER} .noUi-handle")).to_have_count(0)
        blocked["on"] = False
        page.get_by_role("button", name="Try again").first.click()
        expect(page.locator(f"{SLIDER} .noUi-handle")).to_be_visible(timeout=90_000)
        expect(page.locator(".classroom-status")).to_have_count(0, timeout=10_000)
    finally:
        page.close(run_before_unload=True)
        context.close()
