"""Whole runs at once (lesson 09): TREC files, ``evaluate`` with trec_eval's conventions, ``compare``.

>>> from helpers.batch import evaluate, compare, read_qrels, read_run

From a shell, ``python -m helpers.batch QRELS RUN [RUN ...]`` takes trec_eval's
options and prints its output (see :mod:`helpers.batch.cli`).
"""

from helpers.batch.comparison import (
    Comparison,
    compare,
    compare_all,
    compare_systems,
    differences_by_group,
    holm,
    plot_by_group,
    plot_comparison,
)
from helpers.batch.diagnosis import DocnoMatchWarning, RunOrderWarning
from helpers.batch.evaluation import Evaluation, evaluate, rank_run
from helpers.batch.measures import TrecNameWarning, parse_measure, parse_measures
from helpers.batch.trec_io import TrecFormatWarning, read_qrels, read_run, write_qrels, write_run

__all__ = [
    "compare",
    "compare_all",
    "compare_systems",
    "Comparison",
    "differences_by_group",
    "DocnoMatchWarning",
    "evaluate",
    "Evaluation",
    "holm",
    "parse_measure",
    "parse_measures",
    "plot_by_group",
    "plot_comparison",
    "rank_run",
    "read_qrels",
    "read_run",
    "RunOrderWarning",
    "TrecFormatWarning",
    "TrecNameWarning",
    "write_qrels",
    "write_run",
]
