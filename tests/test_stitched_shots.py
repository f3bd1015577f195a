"""When the JupyterLab lesson tests take their stitched screenshots: on a failure, or when the run asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser import page_checks

SHOT = Path("lesson.png")


@pytest.fixture()
def taken(monkeypatch) -> list[Path]:
    """The paths the stitched screenshots were asked for, in place of a browser."""
    paths: list[Path] = []
    monkeypatch.setattr(page_checks, "stitched_screenshot", lambda page, scroller, path: paths.append(path))
    monkeypatch.delenv("TEST_STITCHED_SHOTS", raising=False)
    return paths


def test_a_passing_block_takes_none_unless_asked(taken, monkeypatch):
    with page_checks.stitched_screenshot_when_asked(None, "panel", SHOT):
        pass
    assert taken == []
    monkeypatch.setenv("TEST_STITCHED_SHOTS", "0")
    with page_checks.stitched_screenshot_when_asked(None, "panel", SHOT):
        pass
    assert taken == []


def test_the_run_asks_for_them_with_the_variable(taken, monkeypatch):
    monkeypatch.setenv("TEST_STITCHED_SHOTS", "1")
    with page_checks.stitched_screenshot_when_asked(None, "panel", SHOT):
        pass
    assert taken == [SHOT]


def test_a_failing_block_takes_one_and_keeps_its_own_error(taken):
    with pytest.raises(AssertionError, match="a cut cell"):
        with page_checks.stitched_screenshot_when_asked(None, "panel", SHOT):
            raise AssertionError("a cut cell")
    assert taken == [SHOT]


def test_a_screenshot_that_fails_after_a_failure_leaves_the_first_error(monkeypatch):
    def broken(page, scroller, path):
        raise RuntimeError("the page is gone")

    monkeypatch.setattr(page_checks, "stitched_screenshot", broken)
    with pytest.raises(AssertionError, match="a cut cell"):
        with page_checks.stitched_screenshot_when_asked(None, "panel", SHOT):
            raise AssertionError("a cut cell")
