"""What the browser's own work costs for one classroom page, by front end: would a lighter one than Voila's do?

Run: ``.venv/bin/python benchmarks/bench_frontends.py [--lesson 05] [--loads 3]`` (needs npm and the network once,
for ``npm pack`` of the widgets' HTML manager and RequireJS, both into a temporary folder).

Five pages opened together take 13-14 s on two cores (bench_classroom.py), and most of it is Chromium's work, not
the server's. This asks where a lighter front end would land. It loads the classroom's copy of a lesson (the
lesson without its exercises) in Chromium at 1280x720, three ways:

- **Voila**: the classroom command's page, live, until its control's numbers are shown and its first input is
  enabled (what bench_classroom.py calls usable);
- **HTML manager**: the same copy run by nbconvert with the widgets' state saved, exported to HTML and drawn by
  ``@jupyter-widgets/html-manager`` (the widgets' own light manager, with no kernel connection), until the control's
  numbers are shown;
- **HTML alone**: that export with no widget script: the floor, the lesson's text, tables and plots only.

For each it prints the CPU seconds of Chromium's renderer and of its other processes (browser, GPU, network), from
psutil, half a second after the page was ready, median of ``--loads`` new browser contexts. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import functools
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from nbconvert import HTMLExporter
from nbconvert.preprocessors import ExecutePreprocessor

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_classroom import CHROMIUM, CHROMIUM_ARGS, CONTROLS, ROOT, Classroom, cpu_by_kind  # noqa: E402

from helpers.teacher.classroom import classroom_notebook, lesson_path  # noqa: E402

NPM_PACKAGES = {"@jupyter-widgets/html-manager@1.0.15": "dist/embed-amd.js", "requirejs@2.3.7": "require.js"}
VIEWPORT = {"width": 1280, "height": 720}


def renderer_or_other(command: bytes) -> str | None:
    """Chromium's renderers apart from its other processes (browser, GPU, network); None for any other program."""
    if b"chrom" not in command:
        return None
    return "renderer" if b"--type=renderer" in command else "other"


def chromium_cpu() -> dict[str, float]:
    """CPU seconds used so far by Chromium's processes, the renderers apart from the rest (psutil)."""
    return {"renderer": 0.0, "other": 0.0} | cpu_by_kind(renderer_or_other)


def fetch_scripts(folder: Path) -> list[str]:
    """The HTML manager's AMD bundle and RequireJS, from the npm registry, into folder: their file names."""
    names = []
    for package, inside in NPM_PACKAGES.items():
        tarball = subprocess.run(["npm", "pack", package, "--silent"], cwd=folder, capture_output=True, text=True,
                                 check=True).stdout.strip().splitlines()[-1]  # fmt: skip
        unpacked = folder / tarball.removesuffix(".tgz")
        unpacked.mkdir()
        subprocess.run(["tar", "xzf", tarball, "-C", str(unpacked), "--strip-components=1"], cwd=folder, check=True)
        names.append(str((unpacked / inside).relative_to(folder)))
    return names


def exported_pages(lesson: str, folder: Path) -> dict[str, str]:
    """The classroom copy run with its widgets' state saved, as two HTML pages: drawn by the HTML manager, alone."""
    notebook = classroom_notebook(lesson_path(lesson))
    ExecutePreprocessor(timeout=300, store_widget_state=True).preprocess(
        notebook, {"metadata": {"path": str(ROOT / "notebooks")}}
    )
    html, _ = HTMLExporter(template_name="lab").from_notebook_node(notebook)
    html = re.sub(r"<script[^>]*mathjax[^>]*></script>", "", html, flags=re.IGNORECASE)  # its CDN is not reached
    manager, requirejs = fetch_scripts(folder)
    html = re.sub(r"https://cdnjs\.cloudflare\.com/ajax/libs/require\.js/[^\"']+", requirejs, html)
    with_manager = re.sub(r"https://unpkg\.com/@jupyter-widgets/html-manager@[^/]+/dist/embed-amd\.js", manager, html)
    alone = with_manager.replace(f'<script src="{requirejs}"></script>', "").replace(
        "document.addEventListener('DOMContentLoaded', addWidgetsRenderer);", ""
    )
    if manager not in with_manager or "addWidgetsRenderer);" in alone:
        raise RuntimeError("nbconvert's lab export no longer loads the widgets the way this script expects")
    pages = {"HTML manager": "manager.html", "HTML alone": "alone.html"}
    (folder / pages["HTML manager"]).write_text(with_manager)
    (folder / pages["HTML alone"]).write_text(alone)
    return pages


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def serve(folder: Path) -> tuple[ThreadingHTTPServer, int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def load_once(browser, url: str, ready) -> tuple[float, dict[str, float]]:
    """One page in a new browser context: seconds to ready, and Chromium's CPU seconds by kind until then + 0.5 s."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    before, start = chromium_cpu(), time.monotonic()
    page.goto(url, wait_until="commit")
    ready(page)
    seconds = time.monotonic() - start
    time.sleep(0.5)
    after = chromium_cpu()
    page.close(run_before_unload=True)
    context.close()
    return seconds, {kind: after[kind] - before[kind] for kind in after}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", default="05", choices=sorted(CONTROLS))
    parser.add_argument("--loads", type=int, default=3, help="new browser contexts per front end (default 3)")
    args = parser.parse_args(argv)
    numbers, first_input, _ = CONTROLS[args.lesson]
    enabled = "s => { const e = document.querySelector(s); return e && !e.disabled; }"
    from playwright.sync_api import sync_playwright

    rows = {}
    with tempfile.TemporaryDirectory() as temporary, sync_playwright() as playwright:
        folder = Path(temporary)
        pages = exported_pages(args.lesson, folder)
        server, port = serve(folder)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        classroom = Classroom(args.lesson, folder, cull=120)
        try:
            classroom.wait_for_port()
            classroom.wait_for_preheat(1)

            def voila_ready(page):
                page.locator(numbers).first.wait_for(state="visible", timeout=120_000)
                page.wait_for_function(enabled, arg=first_input, timeout=120_000)

            load_once(browser, classroom.url, voila_ready)  # Voila's first page also heats its own caches
            fronts = {
                "Voila": (classroom.url, voila_ready),
                "HTML manager": (f"http://127.0.0.1:{port}/{pages['HTML manager']}",
                                 lambda page: page.locator(numbers).first.wait_for(state="visible", timeout=60_000)),
                "HTML alone": (f"http://127.0.0.1:{port}/{pages['HTML alone']}",
                               lambda page: page.wait_for_load_state("load")),
            }  # fmt: skip
            for name, (url, ready) in fronts.items():
                loads = []
                for _ in range(args.loads):
                    if name == "Voila":
                        classroom.wait_until_heated(0)
                    loads.append(load_once(browser, url, ready))
                rows[name] = loads
        finally:
            classroom.stop()
            browser.close()
            server.shutdown()
    print(f"lesson {args.lesson}, {args.loads} loads each, median (Chromium CPU seconds until ready + 0.5 s)")
    print(f"{'front end':<14} {'ready s':>8} {'renderer':>9} {'other':>7} {'total':>7}")
    for name, loads in rows.items():
        seconds = statistics.median(s for s, _ in loads)
        renderer = statistics.median(cpu["renderer"] for _, cpu in loads)
        other = statistics.median(cpu["other"] for _, cpu in loads)
        print(f"{name:<14} {seconds:8.2f} {renderer:9.2f} {other:7.2f} {renderer + other:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
