"""The quick tier's sample of a sweep of seeds, and the rest for the slow tier (CI runs both)."""

from __future__ import annotations

import pytest


def tiered(seeds: range, every: int = 4) -> list:
    """The seeds as two parameters of a test: one in ``every`` (the quick tier), and the rest, marked slow."""
    sample = seeds[::every]
    rest = [seed for seed in seeds if seed not in sample]
    return [pytest.param(sample, id="sample"), pytest.param(rest, id="rest", marks=pytest.mark.slow)]
