"""Interactive controls of the lessons: the metrics lab (05) and the controls of lessons 01-03.

Each control is a pure model and a thin view:

- ``*_model``: a frozen state (everything the learner can set), one pure
  function per action that returns the next state, and ``compute(setup, state)``
  that returns every number and text to show (through :mod:`helpers.metrics`);
- ``*_view``: the ipywidgets that turn events into those actions and lay out
  the result.

``lab_*`` is lesson 05's metrics lab, ``mrr_*`` lesson 01, ``ndcg_*`` lesson 02,
``worksheet_*`` lesson 03, ``reveal`` the predict-then-reveal control of
lessons 03 and 05 (its small model and view in one module); ``_arithmetic``
holds what the models share, ``_common`` and ``_plot`` what the views share.
The views are imported only when a builder is asked for, so the models work
without ipywidgets.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from helpers.widgets.lab_view import MetricsLab, metrics_lab
    from helpers.widgets.mrr_view import MrrControl, mrr_control
    from helpers.widgets.ndcg_view import NdcgControl, ndcg_control
    from helpers.widgets.reveal import PredictThenReveal, predict_then_reveal
    from helpers.widgets.worksheet_view import WorksheetControl, worksheet_control

# public name -> the view module that defines it
BUILDERS = {
    "MetricsLab": "lab_view",
    "metrics_lab": "lab_view",
    "MrrControl": "mrr_view",
    "mrr_control": "mrr_view",
    "NdcgControl": "ndcg_view",
    "ndcg_control": "ndcg_view",
    "PredictThenReveal": "reveal",
    "predict_then_reveal": "reveal",
    "WorksheetControl": "worksheet_view",
    "worksheet_control": "worksheet_view",
}

__all__ = [
    "MetricsLab",
    "MrrControl",
    "NdcgControl",
    "PredictThenReveal",
    "WorksheetControl",
    "metrics_lab",
    "mrr_control",
    "ndcg_control",
    "predict_then_reveal",
    "worksheet_control",
]


def __getattr__(name: str) -> Any:
    """A builder or control class, imported from its view module on first use."""
    if name not in BUILDERS:
        raise AttributeError(f"module 'helpers.widgets' has no attribute {name!r}")
    return getattr(importlib.import_module(f"helpers.widgets.{BUILDERS[name]}"), name)
