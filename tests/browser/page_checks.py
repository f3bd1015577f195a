"""What the browser tests read from a rendered page (JupyterLab or the classroom view), as small JS functions.

Each function returns the offending elements (empty when the page is right),
described well enough to say what is wrong in an assertion message.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PIL import Image

# a widget label, button text, readout or HTML box whose text is wider than the box: the end is cut off
CLIPPED_WIDGET_TEXT = """
() => [...document.querySelectorAll(
    '.jupyter-widgets .widget-label, .jupyter-widgets .widget-html-content, '
    + '.jupyter-widgets button, .jupyter-widgets .widget-readout')]
  .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
  .map(e => `${e.className}: "${e.textContent.trim().slice(0, 60)}" needs ${e.scrollWidth} px, has ${e.clientWidth}`)
"""

# a table cell of an output that is cut (wider than its box) or shortened with an ellipsis
CUT_TABLE_CELLS = """
() => [...document.querySelectorAll('.jp-OutputArea-output table td, .jp-OutputArea-output table th')]
  .filter(c => c.offsetParent !== null)
  .filter(c => c.scrollWidth > c.clientWidth + 1 || /(…|\\.\\.\\.)$/.test(c.textContent.trim()))
  .map(c => `"${c.textContent.trim().slice(0, 60)}" (${c.scrollWidth} px in ${c.clientWidth})`)
"""

# an output (a table, the arithmetic sheet, a widget) wider than the notebook: the reader scrolls it sideways,
# and a column past the edge is hidden until then; and any box inside an output that scrolls on its own (a plot
# in its own scroll box)
SIDEWAYS_OUTPUTS = """
() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output')]
  .filter(o => o.offsetParent !== null)
  .flatMap(o => {
    const found = [];
    if (o.scrollWidth > o.clientWidth + 1) {
      found.push(`an output scrolls sideways (${o.scrollWidth} px in ${o.clientWidth}): `
                 + o.innerText.trim().slice(0, 80));
    }
    for (const e of o.querySelectorAll('*')) {
      const style = getComputedStyle(e);
      const scrolls = /(auto|scroll)/.test(style.overflowX + style.overflowY);
      if (scrolls && (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)) {
        found.push(`a box scrolls inside an output (${e.scrollWidth}x${e.scrollHeight} in `
                   + `${e.clientWidth}x${e.clientHeight}): ${e.tagName} ${e.className}`.slice(0, 160));
      }
    }
    return found;
  })
"""

# MathJax typeset inside an output table: dollar signs of a formula were read as maths
MATHS_IN_TABLES = """
() => [...document.querySelectorAll('.jp-OutputArea-output table mjx-container')]
  .map(m => m.closest('td, th') ? m.closest('td, th').textContent.trim().slice(0, 60) : 'a table')
"""

# the text of every error or stderr output (JupyterLab renders both with the stderr MIME type)
ERROR_OUTPUTS = """
() => [...document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
  .map(e => e.textContent.trim().slice(0, 300))
"""

# font sizes (px) of the visible elements a selector matches, with their text
FONT_SIZES = """
(selector) => [...document.querySelectorAll(selector)]
  .filter(e => e.offsetParent !== null && e.textContent.trim())
  .map(e => [parseFloat(getComputedStyle(e).fontSize), e.textContent.trim().slice(0, 40)])
"""

# where the elements a selector matches are in the viewport: [top, bottom, left, right] each
BOXES = """
(selector) => [...document.querySelectorAll(selector)]
  .filter(e => e.offsetParent !== null)
  .map(e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; })
"""


# resolves once the panel is drawn: its elements and text the same two frames running (a second at most)
DRAWN = """
async (e) => {
  const frame = () => new Promise(done => requestAnimationFrame(() => done()));
  const look = () => `${e.getElementsByTagName('*').length}:${e.innerText.length}`;
  let before = look();
  for (let frames = 0; frames < 60; frames++) {
    await frame();
    const now = look();
    if (frames > 0 && now === before) return frames;
    before = now;
  }
  return -1;
}
"""


def screens(page, scroller_selector: str):
    """Scroll a panel from the top one screen at a time; yield each screen's top once it is drawn (``DRAWN``).

    JupyterLab draws only the cells in view (and a few around them): a check of the whole notebook reads it
    screen by screen. Waiting for the drawing to hold still, not a fixed pause, took a third of the time of
    100 ms a screen (1.7 s a lesson) and saw every cell's last state that pause saw.
    """
    scroller = page.locator(scroller_selector).first
    total, screen = scroller.evaluate("e => [e.scrollHeight, e.clientHeight]")
    top = 0
    while True:
        reached = scroller.evaluate("(e, y) => { e.scrollTop = y; return e.scrollTop; }", top)
        scroller.evaluate(DRAWN)
        yield reached
        if reached + screen >= total or reached < top:
            return
        top += screen


def on_every_screen(page, scroller_selector: str, script: str) -> list:
    """What ``script`` finds on each screen of a scrolling panel, top to bottom, without repeats."""
    return on_every_screen_each(page, scroller_selector, {"found": script})["found"]


def on_every_screen_each(page, scroller_selector: str, scripts: dict[str, str]) -> dict[str, list]:
    """What each of ``scripts`` (by name) finds on each screen of a scrolling panel: one pass from the top."""
    found: dict[str, list] = {name: [] for name in scripts}
    for _ in screens(page, scroller_selector):
        for name, script in scripts.items():
            found[name] += [item for item in page.evaluate(script) if item not in found[name]]
    page.locator(scroller_selector).first.evaluate("e => { e.scrollTop = 0; }")
    return found


def scroll_to_first(page, scroller_selector: str, selector: str) -> bool:
    """Scroll a panel screen by screen until an element matching ``selector`` is drawn; bring it into view."""
    for _ in screens(page, scroller_selector):
        if page.locator(selector).count():
            page.locator(selector).first.scroll_into_view_if_needed()
            return True
    return False


def stitched_screenshot(page, scroller_selector: str, path: Path) -> Path:
    """A screenshot of everything inside a scrolling element, taken screen by screen and stitched together.

    JupyterLab scrolls the notebook inside a panel, so Playwright's full-page
    screenshot would show one screen only.
    """
    scroller = page.locator(scroller_selector).first
    total, screen = scroller.evaluate("e => [e.scrollHeight, e.clientHeight]")
    pieces = [(top, Image.open(io.BytesIO(scroller.screenshot()))) for top in screens(page, scroller_selector)]
    width = pieces[0][1].width
    scale = pieces[0][1].height / screen  # image pixels per CSS pixel
    sheet = Image.new("RGB", (width, round(total * scale)), "white")
    for reached, piece in pieces:
        sheet.paste(piece, (0, round(reached * scale)))
    sheet.save(path, compress_level=1)
    scroller.evaluate("e => { e.scrollTop = 0; }")
    return path


@contextmanager
def stitched_screenshot_when_asked(page, scroller_selector: str, path: Path) -> Iterator[None]:
    """The stitched screenshot after the block, when it fails or when the run asks (``TEST_STITCHED_SHOTS=1``).

    No check reads it and it costs a second pass down the panel (up to 14 s for lesson 09): taken to be looked at.
    """
    try:
        yield
    except BaseException:
        try:
            stitched_screenshot(page, scroller_selector, path)
        except Exception:  # a page too broken to photograph: the block's own error says more
            pass
        raise
    if stitched_shots_asked():
        stitched_screenshot(page, scroller_selector, path)


def stitched_shots_asked() -> bool:
    """True when the run asks for every stitched screenshot (``TEST_STITCHED_SHOTS=1``), not only a failure's."""
    return os.environ.get("TEST_STITCHED_SHOTS", "") not in ("", "0")


# a text chunk (tEXt) of the PNG an <img> shows, by key; null if absent, or if the picture was replaced
# (its URL revoked) while it was read: the caller tries again
READ_PNG_TEXT = """
async (img, key) => {
  try {
    const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    for (let i = 8; i + 8 <= bytes.length; ) {
      const length = ((bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3]) >>> 0;
      const type = String.fromCharCode(...bytes.slice(i + 4, i + 8));
      if (type === "tEXt") {
        const data = bytes.slice(i + 8, i + 8 + length);
        const zero = data.indexOf(0);
        if (String.fromCharCode(...data.slice(0, zero)) === key) {
          return new TextDecoder("latin1").decode(data.slice(zero + 1));
        }
      }
      if (type === "IDAT") break;
      i += 12 + length;
    }
  } catch (error) {
    return null;
  }
  return null;
}
"""


# the first row of switches (ToggleButtons) inside a selector: the chosen option's background, another option's, the
# background behind the row, and the chosen option's outline once it has the focus (style, width in px, colour)
SWITCH_LOOK = r"""
(scope) => {
  const behind = (e) => { for (let x = e; x; x = x.parentElement) { const c = getComputedStyle(x).backgroundColor;
                           if (c && c !== 'transparent' && !/rgba\(.*, 0\)$/.test(c)) return c; }
                         return 'rgb(255, 255, 255)'; };
  const chosen = document.querySelector(scope + ' .widget-toggle-button.mod-active');
  if (!chosen) return null;
  const row = chosen.parentElement;
  const other = [...row.querySelectorAll('.widget-toggle-button')].find(b => !b.classList.contains('mod-active'));
  chosen.focus();
  const s = getComputedStyle(chosen);
  return {chosen: s.backgroundColor, other: getComputedStyle(other).backgroundColor, behind: behind(row.parentElement),
          outline: [s.outlineStyle, parseFloat(s.outlineWidth), s.outlineColor], name: chosen.textContent.trim()};
}
"""


def rgb(colour: str) -> tuple[float, ...]:
    """The channels of a computed colour, 'rgb(26, 95, 180)' or 'rgba(...)', from 0 to 255."""
    return tuple(float(part) for part in re.findall(r"[\d.]+", colour)[:3])


def contrast(first: tuple[float, ...], second: tuple[float, ...]) -> float:
    """The WCAG contrast ratio of two colours."""

    def luminance(colour):
        linear = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in colour]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def switch_contrast(page, scope: str) -> dict:
    """What the back of a room sees of a row of switches: the chosen option against the others, the focus ring's
    width and its contrast with the background behind the row (a ring of 1 px, or chosen and unchosen options a
    shade of grey apart, are what issue 34 found)."""
    look = page.evaluate(SWITCH_LOOK, scope)
    assert look, f"no switch in {scope}"
    style, width, colour = look["outline"]
    return {
        "name": look["name"],
        "chosen against other": contrast(rgb(look["chosen"]), rgb(look["other"])),
        "ring width": width if style != "none" else 0.0,
        "ring against background": contrast(rgb(colour), rgb(look["behind"])),
    }


# each visible element a selector matches: its text colour and the background behind it
TEXT_ON_BACKGROUND = r"""
(selector) => [...document.querySelectorAll(selector)].filter(e => e.offsetParent !== null).map(e => {
  for (let x = e; x; x = x.parentElement) { const c = getComputedStyle(x).backgroundColor;
    if (c && c !== 'transparent' && !/rgba\(.*, 0\)$/.test(c)) return [getComputedStyle(e).color, c]; }
  return [getComputedStyle(e).color, 'rgb(255, 255, 255)']; })
"""


def lowest_contrast(page, selector: str) -> float:
    """The lowest contrast of the text of the elements a selector matches against what is behind it."""
    pairs = page.evaluate(TEXT_ON_BACKGROUND, selector)
    assert pairs, f"nothing shown for {selector}"
    return min(contrast(rgb(colour), rgb(behind)) for colour, behind in pairs)


# markdown tables wider than the rendered cell that holds them: the reader scrolls sideways
WIDE_MARKDOWN_TABLES = """
() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown table')]
  .filter(t => t.getBoundingClientRect().width > t.closest('.jp-RenderedMarkdown').clientWidth + 1)
  .map(t => `${t.querySelector('th').textContent.trim()}...: ${Math.round(t.getBoundingClientRect().width)} px in `
    + `${t.closest('.jp-RenderedMarkdown').clientWidth}`)
"""
