"""Waiting in a test: poll a condition until it holds or a deadline passes, never sleep a fixed time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(ready: Callable[[], T], what: str, timeout: float = 60, every: float = 0.02) -> T:
    """Call ``ready`` every ``every`` seconds until it gives a true value (returned); TimeoutError naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        found = ready()
        if found:
            return found
        if time.monotonic() > deadline:
            raise TimeoutError(f"not within {timeout:g} s: {what}")
        time.sleep(every)
