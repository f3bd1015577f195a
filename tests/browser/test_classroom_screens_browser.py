"""The classroom view of every lesson at every screen a room has (issue 43): 1024x768, 1280x720 and 1920x1080, at
scales 1, 1.5 and 2, in light and dark.

One classroom command per lesson (started when its tests begin, stopped before the next lesson's), and one page
load per lesson and theme: the page is then resized and rescaled in place for each of the nine screens, as
``?scale=`` would set it (the page script reads the scale from one CSS variable and lays the page out again on a
resize). On each screen, at the page's top, asserted:

- every text is at least 4.5:1 against what is behind it (the page's whole text on the first screen size, the
  first screen's on the others).

Found and written to test-output/browser/classroom_screens_findings.json, not yet asserted (issue 43's item 7,
the layout of the smaller screens at larger scales, is not done):

- a control of the lesson's demonstration outside the first screen;
- a text cut by an edge (the screen's, or a box that clips), or two texts that overlap;
- a lesson without a control whose first data row is not on the first screen.

A screenshot of each first screen goes to test-output/browser/classroom-screens/ (gitignored).
"""

from __future__ import annotations

import json
import os

import pytest
from playwright.sync_api import expect

from tests.browser import servers
from tests.browser.conftest import ROOT

pytestmark = pytest.mark.browser

LESSONS = ["01", "02", "03", "04", "05", "06", "07", "08", "09"]
WITH_CONTROL = {"01": ".mrr-control", "02": ".ndcg-control", "03": ".worksheet-control", "05": ".metrics-lab"}
SCREENS = [{"width": 1024, "height": 768}, {"width": 1280, "height": 720}, {"width": 1920, "height": 1080}]
SCALES = [1, 1.5, 2]
THEMES = ["light", "dark"]
# the contrast is asserted on the first screen (the page's whole text: colours do not change with the screen); the
# other eight only add to the findings, so CI looks at the first one and CLASSROOM_SCREENS=all at every one
ALL_SCREENS = os.environ.get("CLASSROOM_SCREENS") == "all"
LOOKED_AT = [(screen, scale) for screen in SCREENS for scale in SCALES] if ALL_SCREENS else [(SCREENS[0], SCALES[0])]

# every control of the demonstration: [what, top, bottom, left, right]
CONTROLS = """
(scope) => [...document.querySelectorAll(
    `${scope} button, ${scope} select, ${scope} input, ${scope} .noUi-handle, ${scope} .widget-readout`)]
  .filter(e => e.offsetParent !== null && !e.closest('.control-details'))
  .map(e => { const r = e.getBoundingClientRect(), words = (e.textContent || e.value || '').trim().slice(0, 30);
              return [`${e.tagName.toLowerCase()}.${e.className} "${words}"`, r.top, r.bottom, r.left, r.right]; })
"""

# every visible line of text on the page (a text node's box on each line), and what is wrong with it: cut by the
# screen's edge or by a box that clips it (a box that scrolls can be scrolled to it), overlapping another text, or
# below 4.5:1 against what is behind it
TEXTS = r"""
(first) => {
  const skip = '.dg-plot-text, mjx-assistive-mml, .classroom-hidden, .classroom-keys, .classroom-blank, script, style';
  const lines = [];
  const walker = document.createTreeWalker(document.querySelector('#rendered_cells'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.textContent.trim() || !element || element.closest(skip) || element.offsetParent === null) continue;
    const folded = element.closest('details');  // a folded "About this example" keeps its text laid out, unseen
    if (folded && !folded.open && !element.closest('summary')) continue;
    const style = getComputedStyle(element);
    if (style.visibility === 'hidden' || parseFloat(style.opacity) === 0) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width < 1 || r.height < 1) continue;
      if (first && (r.top >= innerHeight || r.bottom <= 0)) continue;
      lines.push({node, element, r, text: node.textContent.trim().slice(0, 40)});
    }
  }
  const found = {cut: [], overlap: [], contrast: []};
  // cut: by the screen's left or right edge, unless a box that scrolls sideways holds it; by a box that clips
  for (const line of lines) {
    let scrolls = false;
    for (let box = line.element; box && box.id !== 'rendered_cells'; box = box.parentElement) {
      const s = getComputedStyle(box);
      const b = box.getBoundingClientRect();
      if (/(auto|scroll)/.test(s.overflowX) && box.scrollWidth > box.clientWidth + 1) { scrolls = true; break; }
      const clipsX = /(hidden|clip)/.test(s.overflowX), clipsY = /(hidden|clip)/.test(s.overflowY);
      if ((clipsX && (line.r.left < b.left - 1 || line.r.right > b.right + 1))
          || (clipsY && (line.r.top < b.top - 1 || line.r.bottom > b.bottom + 1))) {
        found.cut.push(`"${line.text}" clipped by ${box.tagName.toLowerCase()}.${box.className}`.slice(0, 160));
        break;
      }
    }
    if (!scrolls && (line.r.left < -1 || line.r.right > innerWidth + 1)) {
      found.cut.push(`"${line.text}" at ${Math.round(line.r.left)}-${Math.round(line.r.right)} px`);
    }
  }
  // overlap: two lines of different text nodes sharing more than 2 px each way
  const sorted = [...lines].sort((a, b) => a.r.top - b.r.top);
  for (let i = 0; i < sorted.length; i += 1) {
    for (let j = i + 1; j < sorted.length && sorted[j].r.top < sorted[i].r.bottom - 2; j += 1) {
      const a = sorted[i], b = sorted[j];
      if (a.node === b.node) continue;
      const wide = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const high = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (wide > 2 && high > 2) found.overlap.push(`"${a.text}" and "${b.text}"`);
    }
  }
  // contrast: the text's colour over the first background behind it that is not transparent
  const channels = c => (c.match(/[\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => {
    const l = [r, g, b].map(v => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  };
  const seen = new Set();
  for (const line of lines) {
    if (seen.has(line.element)) continue;
    seen.add(line.element);
    let behind = [255, 255, 255];
    for (let box = line.element; box; box = box.parentElement) {
      const c = channels(getComputedStyle(box).backgroundColor);
      if (c.length >= 3 && (c.length === 3 || c[3] > 0.5)) { behind = c.slice(0, 3); break; }
    }
    const c = channels(getComputedStyle(line.element).color);
    const alpha = c.length > 3 ? c[3] : 1;
    const text = [0, 1, 2].map(i => alpha * c[i] + (1 - alpha) * behind[i]);
    const [high, low] = [luminance(text), luminance(behind)].sort((x, y) => y - x);
    const ratio = (high + 0.05) / (low + 0.05);
    if (ratio < 4.5) found.contrast.push(`"${line.text}" ${ratio.toFixed(2)}:1`);
  }
  return found;
}
"""

FIRST_ROW = """
() => { const row = [...document.querySelectorAll('#rendered_cells .jp-OutputArea-output tr')]
          .find(r => r.offsetParent !== null && r.querySelector('td'));
        return row ? [row.getBoundingClientRect().top, row.getBoundingClientRect().bottom, row.textContent.trim()]
                   : null; }
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The classroom command of one lesson at a time: the last one asked for runs, the one before is stopped."""
    running: dict[str, servers.Server] = {}

    def serve(lesson: str) -> servers.Server:
        if lesson not in running:
            for server in running.values():
                servers.stop(server)
            running.clear()
            home = tmp_path_factory.mktemp(f"screens-{lesson}")
            server = servers.launch_classroom(lesson, ROOT, home, cull=120, pool=2)
            servers.wait_for_preheat(server)
            running[lesson] = server
        return running[lesson]

    yield serve
    for server in running.values():
        servers.stop(server)


def rescale(page, screen: dict, scale: float) -> None:
    """The page at another screen size and scale, laid out again (as a new page with ?scale= would be)."""
    page.set_viewport_size(screen)
    page.evaluate(
        """(scale) => { document.documentElement.style.setProperty('--classroom-scale', String(scale));
                        window.dispatchEvent(new Event('resize'));
                        document.querySelector('#rendered_cells').scrollTop = 0; }""",
        scale,
    )
    page.wait_for_timeout(400)  # the page script's next frame, the widgets' own layout


FINDINGS: dict[str, list[str]] = {}


@pytest.fixture(scope="module")
def findings(shots):
    """What the layout checks found on each screen, written to classroom_screens_findings.json at the end."""
    yield FINDINGS
    (shots / "classroom_screens_findings.json").write_text(json.dumps(FINDINGS, indent=2), encoding="utf-8")


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("lesson", LESSONS)
def test_every_screen_of_a_lesson(lesson, theme, served, browser, shots, findings):
    """Every text at 4.5:1 or more on every screen, in both themes (asserted); where the controls, the first data
    row and the texts lie (written to the findings: the layout of the smaller screens at larger scales is not yet
    right everywhere, issue 43's item 7)."""
    server = served(lesson)
    folder = shots / "classroom-screens"
    folder.mkdir(exist_ok=True)
    context = browser.new_context(viewport=SCREENS[0])
    page = context.new_page()
    low_contrast: list[str] = []
    try:
        page.goto(server.page(f"?theme={theme}"), wait_until="commit")
        control = WITH_CONTROL.get(lesson)
        if control:
            expect(page.locator(f"{control} .jupyter-widgets").first).to_be_visible(timeout=120_000)
        else:
            expect(page.locator("#rendered_cells .jp-OutputArea-output").first).to_be_visible(timeout=120_000)
        page.wait_for_function("() => document.querySelector('.classroom-hint') !== null", timeout=60_000)
        expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false" if theme == "dark" else "true")
        for screen, scale in LOOKED_AT:
            name = f"{lesson} {screen['width']}x{screen['height']} scale {scale:g} {theme}"
            rescale(page, screen, scale)
            page.screenshot(path=str(folder / f"{name.replace(' ', '_')}.png"))
            layout: list[str] = []
            if control:
                for what, top, bottom, left, right in page.evaluate(CONTROLS, f"#rendered_cells {control}"):
                    if top < -1 or bottom > screen["height"] + 1 or left < -1 or right > screen["width"] + 1:
                        layout.append(f"{what} not on the first screen ({top:.0f}-{bottom:.0f} px)")
            else:
                row = page.evaluate(FIRST_ROW)
                if row is None or row[1] > screen["height"] + 1:
                    layout.append(f"the first data row is not on the first screen ({row})")
            # the page's whole text once per theme for the contrast (colours do not change with the screen),
            # the first screen's on every screen for the layout
            found = page.evaluate(TEXTS, not (screen is SCREENS[0] and scale == SCALES[0]))
            layout += [f"{kind}: {what}" for kind in ("cut", "overlap") for what in found[kind]]
            if layout:
                findings[name] = layout
            low_contrast += [f"{name}: {what}" for what in found["contrast"]]
    finally:
        page.close(run_before_unload=True)
        context.close()
    assert low_contrast == [], "\n".join(low_contrast[:100])
