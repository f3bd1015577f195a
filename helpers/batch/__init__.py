"""Whole runs at once (lesson 09): TREC files, ``evaluate`` with trec_eval's conventions, ``compare``.

>>> from helpers.batch import evaluate, compare, read_qrels, read_run
"""

from helpers.batch.comparison import (
    Comparison,
    compare,
    compare_all,
    differences_by_group,
    plot_by_group,
    plot_comparison,
)
from helpers.batch.evaluation import DocnoMatchWarning, Evaluation, evaluate, parse_measure, rank_run
from helpers.batch.trec_io import read_qrels, read_run, write_qrels, write_run

__all__ = [
    "Comparison",
    "DocnoMatchWarning",
    "Evaluation",
    "compare",
    "compare_all",
    "differences_by_group",
    "evaluate",
    "parse_measure",
    "plot_by_group",
    "plot_comparison",
    "rank_run",
    "read_qrels",
    "read_run",
    "write_qrels",
    "write_run",
]
