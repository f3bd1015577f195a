"""Interactive controls of the lessons: the metrics lab (05) and the controls of lessons 01-03."""

from helpers.widgets.lab import (
    MetricsLab,
    MrrControl,
    NdcgControl,
    WorksheetControl,
    metrics_lab,
    mrr_control,
    ndcg_control,
    worksheet_control,
)

__all__ = [
    "MetricsLab",
    "MrrControl",
    "NdcgControl",
    "WorksheetControl",
    "metrics_lab",
    "mrr_control",
    "ndcg_control",
    "worksheet_control",
]
