"""Shared helpers of the ranking-metrics lessons.

The top level is the part a learner reads: :mod:`helpers.metrics` (the
formulas), :mod:`helpers.data` (the golden sets), :mod:`helpers.plots` and
:mod:`helpers.mistakes`. The sub-packages hold the rest:

- :mod:`helpers.sheet`: one worksheet model, shown as HTML and saved as .xlsx;
- :mod:`helpers.widgets`: the interactive controls (a pure state and a thin view each);
- :mod:`helpers.exercises`: the exercises, the answer checker, hints and solutions;
- :mod:`helpers.batch`: whole runs at once (TREC files, ``evaluate``, ``compare``);
- :mod:`helpers.teacher`: student copies and the grader (``python -m helpers.release`` and
  ``python -m helpers.grade``, the two commands' short names, run them).

Import what a lesson needs, e.g. ``from helpers import metrics, load_example``.
"""

import importlib

# What ``from helpers import ...`` offers, imported on first use (PEP 562): a command such as
# ``python -m helpers.grade --help`` starts without loading pandas.
_FROM_METRICS = (
    "UndefinedMetricError", "arithmetic_table", "average_precision", "cumulative_gain", "dcg",
    "first_relevant_rank", "grades_in_rank_order", "hit_at_k", "ideal_dcg", "mean_hit_rate",
    "mean_reciprocal_rank", "ndcg", "precision_at_k", "query_ndcg", "recall_at_k", "reciprocal_rank",
    "relevant_ids",
)  # fmt: skip
_FROM_DATA = ("load_example", "rank_by_score")
__all__ = sorted(["metrics", *_FROM_METRICS, *_FROM_DATA])


def __getattr__(name: str):
    if name == "metrics":
        return importlib.import_module("helpers.metrics")
    if name in _FROM_METRICS:
        return getattr(importlib.import_module("helpers.metrics"), name)
    if name in _FROM_DATA:
        return getattr(importlib.import_module("helpers.data"), name)
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
