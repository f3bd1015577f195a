"""Shared helpers of the ranking-metrics lessons.

The top level is the part a learner reads: :mod:`helpers.metrics` (the
formulas), :mod:`helpers.data` (the golden sets), :mod:`helpers.plots` and
:mod:`helpers.mistakes`. The sub-packages hold the rest:

- :mod:`helpers.sheet`: one worksheet model, shown as HTML and saved as .xlsx;
- :mod:`helpers.widgets`: the interactive controls (a pure state and a thin view each);
- :mod:`helpers.exercises`: the exercises, the answer checker, hints and solutions;
- :mod:`helpers.batch`: whole runs at once (TREC files, ``evaluate``, ``compare``);
- :mod:`helpers.teacher`: student copies and the grader.

Import what a lesson needs, e.g. ``from helpers import metrics, load_example``.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

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


# Module names from before the sub-packages, and where each one lives now. Old
# notebooks and commands (``from helpers.evaluate import evaluate``,
# ``python -m helpers.grade``) keep working: the old name is the same module
# object as the new one, imported only when asked for.
MOVED_MODULES = {
    "helpers.sheetview": "helpers.sheet",
    "helpers.sheets": "helpers.sheet.xlsx",
    "helpers.answers": "helpers.exercises.answers",
    "helpers.code_exercises": "helpers.exercises.runner",
    "helpers.checklog": "helpers.exercises.checklog",
    "helpers.evaluate": "helpers.batch.evaluation",
    "helpers.trec_io": "helpers.batch.trec_io",
    "helpers.compare": "helpers.batch.comparison",
    "helpers.grade": "helpers.teacher.grade",
    "helpers.release": "helpers.teacher.release",
}


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name of MOVED_MODULES and hands out the module at its new home."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED_MODULES:
            return None
        new_spec = importlib.util.find_spec(MOVED_MODULES[fullname])
        return importlib.machinery.ModuleSpec(fullname, self, origin=new_spec.origin)

    def create_module(self, spec):
        module = importlib.import_module(MOVED_MODULES[spec.name])
        spec.loader_state = module.__spec__  # the import system overwrites it; exec_module puts it back
        return module

    def exec_module(self, module):
        """Nothing to run (the module at its new home has run); keep its own spec."""
        module.__spec__ = module.__spec__.loader_state

    def get_code(self, fullname):
        """The code of the new module, so ``python -m helpers.grade`` runs it as ``__main__``."""
        new_spec = importlib.util.find_spec(MOVED_MODULES[fullname])
        return new_spec.loader.get_code(new_spec.name)


if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModuleFinder())
