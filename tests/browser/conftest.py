"""Fixtures of the real-browser tests: Chromium (its headless shell) driven by Playwright, JupyterLab and Voilà servers.

Run them with ``pytest tests/browser -m browser``; leave them out with
``-m "not browser"``. They need Chromium's headless shell (``apt-get install
chromium-headless-shell``; never ``playwright install``), or else Debian's full
``/usr/bin/chromium``, and are skipped, with that reason, when both are missing.
Screenshots of every state go to ``test-output/browser/`` (gitignored).
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.browser import servers

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-output" / "browser"
# axe-core, which .ci/run installs with npm under .venv/axe: in the checkout's venv, else in the running Python's (a
# worktree run with another checkout's venv); the accessibility checks skip or stop, saying so, where it is missing
AXE = next((path for path in (folder / "axe" / "node_modules" / "axe-core" / "axe.min.js"
                              for folder in (ROOT / ".venv", Path(sys.prefix))) if path.is_file()),
           ROOT / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js")
LAB_NOTEBOOK = "05_metrics_lab.ipynb"
JUPYTERLAB_THEMES = {"JupyterLab Light": "true", "JupyterLab Dark": "false"}  # theme -> body's data-jp-theme-light


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: drives JupyterLab or Voilà in headless Chromium (needs chromium-headless-shell)"
    )


@pytest.fixture(scope="session")
def shots() -> Path:
    """The folder for screenshots (gitignored)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


@pytest.fixture(scope="session")
def notebook_copy(tmp_path_factory) -> Path:
    """A temporary copy of the lab notebook: the servers may autosave it, the repository stays untouched."""
    folder = tmp_path_factory.mktemp("notebooks")
    shutil.copy(ROOT / "notebooks" / LAB_NOTEBOOK, folder / LAB_NOTEBOOK)
    return folder / LAB_NOTEBOOK


@pytest.fixture()
def page(browser, request, shots):
    """A fresh page (own context); a screenshot of the last state is saved when the test ends."""
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    context.set_default_timeout(30_000)
    page = context.new_page()
    yield page
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    try:
        page.screenshot(path=str(shots / f"{name}_last.png"))
    finally:
        context.close()


@pytest.fixture(scope="module")
def laptop_page(browser):
    """One page at a laptop's 1366 x 768 for a module's tests."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.set_default_timeout(30_000)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="module")
def jupyterlab(notebook_copy, tmp_path_factory):
    server = servers.start_jupyterlab(notebook_copy.parent, tmp_path_factory.mktemp("jupyterlab-home"))
    yield server
    servers.stop(server)


@pytest.fixture(scope="module")
def voila(notebook_copy, tmp_path_factory):
    server = servers.start_voila(notebook_copy, tmp_path_factory.mktemp("voila-home"))
    yield server
    servers.stop(server)
