"""The keys of a lecturer's clicker (issue 43), and "Predict, then reveal" driven from the keyboard, on the classroom
view of lessons 01, 03 and 05 served by the real command (python -m helpers.teacher.classroom NN, the three started
together).

On lesson 01 at 1024x768: the first ``b`` blanks the screen; Home and End move the page, never the control that has
the focus, while the arrow keys still move it; ``?`` shows and hides the legend of the keys, and the first screen says
so; a page whose kernel does not answer says so and recovers.

On lessons 05 and 03 at 1280x720, the way a teacher would: the n key ("new numbers") deals a question, the room
predicts while no number of the answer is on the page or on its way to it (neither in the DOM nor in any websocket
frame the kernel sends), the r key ("reveal") shows the value, which must equal the value helpers.metrics gives for
the grades and the question the page shows. The control must fit one 1280x720 screen with text of 20 px and targets
of 44 px. Screenshots of each state go to test-output/browser/classroom/ (gitignored) for a person to look at.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser import servers
from tests.browser.conftest import AXE, ROOT
from tests.browser.page_checks import contrast, rgb
from tests.browser.test_classroom_browser import FOCUSED, NOT_SHOWN, TEXT_SIZES, axe_violations, wait_settled
from tests.test_reveal_widget import expected_from_the_data

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1024, "height": 768}  # the clicker's keys
ROOM = {"width": 1280, "height": 720}  # predict, then reveal
SCROLL_TOP = "() => document.querySelector('#rendered_cells').scrollTop"
SLIDER = ".mrr-control .hit-k-slider"
KERNEL = 30_000  # ms for a click's round trip through the kernel on a busy two-core machine
# the question each lesson opens on, how its data is shown, and the control that opens the page
REVEAL_LESSONS = {
    "05": ("lab-swap-ndcg3", ".metrics-lab .control-numbers [class*='metric-']"),
    "03": ("sheet-ndcg3", ".worksheet-control .control-numbers [class*='metric-']"),
}
DEAL = ".reveal-control .reveal-deal"
REVEAL = ".reveal-control .reveal-show"
# the page's cells in order: where the control, "Predict, then reveal" and "About this example" are
ORDER = """
() => { const cells = [...document.querySelector('#rendered_cells [cell-index]').parentElement.children];
        const at = (selector) => cells.findIndex(cell => cell.matches(selector) || cell.querySelector(selector));
        return [at('.classroom-control'), at('.reveal-control'), at('.classroom-about')]; }
"""
# the control's targets: [text, height, width]
REVEAL_TARGETS = """
() => [...document.querySelectorAll('.classroom-reveal button')].filter(e => e.offsetParent !== null)
  .map(e => { const r = e.getBoundingClientRect(); return [e.textContent.trim(), r.height, r.width]; })
"""
BOX = "(e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; }"



@pytest.fixture(scope="module")
def classrooms(tmp_path_factory):
    """The classroom command for lessons 01, 05 and 03, run from the repository root (started together)."""
    with servers.classrooms(["01", *REVEAL_LESSONS], ROOT, lambda lesson: tmp_path_factory.mktemp(f"keys-{lesson}"),
                            cull=60, pool=1) as started:
        yield started


@pytest.fixture(scope="module")
def lesson_01(classrooms):
    return classrooms["01"]


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


def shown_grades(page, lesson: str) -> list[int]:
    """The grades the page shows: the row under the ranks (05), the yellow column of the worksheet (03)."""
    selector = ".reveal-data .reveal-grade td" if lesson == "05" else ".reveal-data td.input"
    return [int(cell) for cell in page.locator(selector).all_inner_texts()]


def texts(frames: list) -> str:
    return "\n".join(frame if isinstance(frame, str) else frame.decode("utf-8", "replace") for frame in frames)


def found(secrets: set[str], text: str) -> list[str]:
    """The secrets in text as numbers of their own: 0.625 in '0.6250' or '-0.625', not in a message's
    timestamp '16:33:40.625123Z' (a digit before it), which once failed this test in CI with no answer sent."""
    return sorted(secret for secret in secrets if re.search(r"(?<!\d)" + re.escape(secret), text))


@pytest.mark.parametrize("lesson", list(REVEAL_LESSONS))
def test_deal_predict_and_reveal_from_the_keyboard_at_1280x720(lesson, classrooms, browser, shots):
    exercise, numbers = REVEAL_LESSONS[lesson]
    folder = shots / "classroom"
    folder.mkdir(exist_ok=True)
    context = browser.new_context(viewport=ROOM)
    page = context.new_page()
    frames: list = []  # what the kernel sends the page over its websockets
    page.on("websocket", lambda socket: socket.on("framereceived", lambda payload: frames.append(payload)))
    try:
        page.goto(classrooms[lesson].page(""), wait_until="commit")
        expect(page.locator(numbers).first).to_be_visible(timeout=90_000)
        expect(page.locator(DEAL)).to_be_enabled(timeout=90_000)
        wait_settled(page)  # the page script has arranged the page
        # the page still opens on the control; "Predict, then reveal" comes right after it, before "About"
        control, reveal, about = page.evaluate(ORDER)
        assert 0 <= control < reveal < about, (control, reveal, about)
        top = page.locator(numbers).first.evaluate(BOX)[0]
        assert 0 <= top < ROOM["height"], "the control's numbers open the page"

        # deal: n, "new numbers", from wherever the page is
        first = page.locator(".reveal-heading").inner_text()  # it names the variant
        frames.clear()
        page.keyboard.press("n")
        expect(page.locator(".reveal-heading")).not_to_have_text(first, timeout=KERNEL)
        page.wait_for_timeout(300)  # the rest of the deal's messages
        question = page.locator(".reveal-question-text").inner_text()
        dealt = page.locator(".reveal-heading").inner_text()
        assert re.search(r"variant \d+", dealt)
        grades = shown_grades(page, lesson)
        assert len(grades) == 6 and all(0 <= grade <= 3 for grade in grades), grades
        if lesson == "05":
            assert page.locator(".reveal-data .reveal-rank td").all_inner_texts() == ["1", "2", "3", "4", "5", "6"]
        else:
            assert "Relevance (0–3)" in page.locator(".reveal-data").inner_text()
        expected = expected_from_the_data(exercise, grades, question)
        secrets = {f"{expected:.3f}", f"{expected:.4f}"}

        # predict: no number of the answer on the page, nor sent to it
        assert not re.search(r"\d", page.locator(".reveal-value").inner_text())
        assert page.locator(".reveal-steps").inner_text().strip() == ""
        reveal_html = page.locator(".reveal-control").evaluate("e => e.outerHTML")
        assert found(secrets, reveal_html) == []
        assert frames, "the deal's new numbers reached the page"
        assert found(secrets, texts(frames)) == []
        page.locator(".classroom-reveal").evaluate("e => (e.previousElementSibling || e).scrollIntoView()")
        in_screen(page)
        page.screenshot(path=str(folder / f"{lesson}_reveal_1280x720_predict.png"))

        # reveal: r (here with the focus on "reveal", whose ring shows where the teacher is)
        page.locator(DEAL).focus()
        page.keyboard.press("Tab")
        what, style, width, colour, _ = page.evaluate(FOCUSED)
        assert '"reveal"' in what and style != "none" and width >= 3
        assert contrast(rgb(colour), (255, 255, 255)) >= 3
        page.keyboard.press("r")
        expect(page.locator(".reveal-value")).to_have_text(re.compile(r"= -?\d\.\d{3}"), timeout=KERNEL)
        shown = float(re.search(r"= (-?\d+\.\d+)", page.locator(".reveal-value").inner_text()).group(1))
        assert shown == pytest.approx(expected, abs=0.5e-4 if lesson == "05" else 0.5e-3)
        assert len(page.locator(".reveal-steps li").all_inner_texts()) >= 4
        assert found(secrets, texts(frames))  # the check above could find it
        assert NOT_SHOWN.findall(page.locator(".classroom-reveal").inner_text()) == []
        page.locator(".classroom-reveal").evaluate("e => (e.previousElementSibling || e).scrollIntoView()")
        in_screen(page)
        page.screenshot(path=str(folder / f"{lesson}_reveal_1280x720_revealed.png"))
        if AXE.is_file():
            assert axe_violations(page) == []

        # the next question: n again, new numbers, the value hidden again
        page.keyboard.press("n")
        expect(page.locator(".reveal-heading")).not_to_have_text(dealt, timeout=KERNEL)
        expect(page.locator(".reveal-value")).not_to_contain_text(".", timeout=KERNEL)
        assert page.locator(".reveal-steps").inner_text().strip() == ""
        if lesson == "05":
            the_gap_on_one_screen(page, folder)
    finally:
        page.screenshot(path=str(folder / f"{lesson}_reveal_1280x720_last.png"))  # the state a failure left
        context.close()


def the_gap_on_one_screen(page, folder) -> None:
    """Lesson 05's second question, linear minus exponential nDCG@K: both gains of each result shown, on one screen."""
    dealt = page.locator(".reveal-heading").inner_text()
    page.locator(".reveal-question button", has_text="linear minus exponential").click()
    expect(page.locator(".reveal-heading")).not_to_have_text(dealt, timeout=KERNEL)
    expect(page.locator(".reveal-question-text")).to_contain_text("exceed", timeout=KERNEL)
    page.wait_for_timeout(300)
    grades = shown_grades(page, "05")
    gains = [int(cell) for cell in page.locator(".reveal-data .reveal-exponential-gain td").all_inner_texts()]
    assert gains == [2**grade - 1 for grade in grades]
    assert [int(c) for c in page.locator(".reveal-data .reveal-linear-gain td").all_inner_texts()] == grades
    expected = expected_from_the_data("lab-ndcg5-linear", grades, page.locator(".reveal-question-text").inner_text())
    page.locator(".classroom-reveal").evaluate("e => (e.previousElementSibling || e).scrollIntoView()")
    in_screen(page)
    page.locator(REVEAL).click()
    expect(page.locator(".reveal-value")).to_have_text(re.compile(r"gap = -?\d\.\d{4}"), timeout=KERNEL)
    shown = float(re.search(r"= (-?\d+\.\d+)", page.locator(".reveal-value").inner_text()).group(1))
    assert shown == pytest.approx(expected, abs=0.5e-4)
    in_screen(page)
    page.screenshot(path=str(folder / "05_reveal_1280x720_gap_revealed.png"))


def in_screen(page) -> None:
    """The whole control on the screen at once, its text at least 20 px, its buttons at least 44 px high."""
    top, bottom, left, right = page.locator(".classroom-reveal").evaluate(BOX)
    assert 0 <= top and bottom <= ROOM["height"] + 1, f"the control runs from {top} to {bottom} px"
    assert 0 <= left and right <= ROOM["width"] + 1
    small = [(size, words) for size, words in page.evaluate(TEXT_SIZES, ".classroom-reveal") if size < 20 - 0.01]
    assert small == []
    grades = page.locator(".reveal-data td").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert grades >= 20
    targets = page.evaluate(REVEAL_TARGETS)
    assert {"new numbers", "reveal"} <= {what for what, _, _ in targets}
    assert all(height >= 44 and width >= 44 for _, height, width in targets), targets
