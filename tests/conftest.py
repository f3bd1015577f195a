"""Test tiers by marker; the quick core is ``pytest -m "not browser and not notebook and not libreoffice and not hub
and not install"`` (the README gives the command).

Markers set here by rule (the others are set in the test modules):
``browser`` for every test under ``tests/browser/``, ``libreoffice`` for every
test that uses the ``libreoffice`` fixture.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "browser" in item.path.parent.parts[-1:]:
            item.add_marker(pytest.mark.browser)
        if "libreoffice" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.libreoffice)
