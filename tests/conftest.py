"""Test tiers by marker; the quick core is ``pytest -n 2 -m core`` (the README gives the command).

Markers set here by rule (the others are set in the test modules):
``browser`` for every test under ``tests/browser/``, ``libreoffice`` for every
test that uses the ``libreoffice`` fixture, ``core`` for every test of no
other tier. Browser tests are skipped, saying
why, where /usr/bin/chromium is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TIERS = ("browser", "notebook", "libreoffice", "hub", "install", "reference")
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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    no_chromium = pytest.mark.skip(reason=f"{CHROMIUM} is missing: apt-get install chromium")
    for item in items:
        if "browser" in item.path.parent.parts[-1:]:
            item.add_marker(pytest.mark.browser)
        if "libreoffice" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.libreoffice)
        if "browser" in item.keywords and not CHROMIUM.exists():
            item.add_marker(no_chromium)
        if not any(tier in item.keywords for tier in TIERS):
            item.add_marker(pytest.mark.core)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium through Playwright, one per test module.

    Every test that drives a browser takes it from here: a second
    ``sync_playwright()`` while one is open fails ("Sync API inside the asyncio
    loop"). It is closed when its module ends, because while it is open an
    event loop counts as running and ``asyncio.run`` in later tests would fail.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()
