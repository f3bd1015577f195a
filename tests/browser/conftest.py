"""Fixtures of the real-browser tests: Debian's Chromium driven by Playwright, JupyterLab and Voilà servers.

Run them with ``pytest tests/browser -m browser``; leave them out with
``-m "not browser"``. They need /usr/bin/chromium (installed with apt; never
``playwright install``) and are skipped, with that reason, when it is missing.
Screenshots of every state go to ``test-output/browser/`` (gitignored).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.browser import servers

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = ROOT / "test-output" / "browser"
LAB_NOTEBOOK = "05_metrics_lab.ipynb"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: drives JupyterLab or Voilà in headless Chromium (needs /usr/bin/chromium)"
    )


def pytest_collection_modifyitems(config, items):
    if CHROMIUM.exists():
        return
    reason = f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)"
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


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


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


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
def jupyterlab(notebook_copy, tmp_path_factory):
    server = servers.start_jupyterlab(notebook_copy.parent, tmp_path_factory.mktemp("jupyterlab-home"))
    yield server
    servers.stop(server)


@pytest.fixture(scope="module")
def voila(notebook_copy, tmp_path_factory):
    server = servers.start_voila(notebook_copy, tmp_path_factory.mktemp("voila-home"))
    yield server
    servers.stop(server)
