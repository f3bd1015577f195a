"""Shared helpers of the ranking-metrics lessons: metrics, data loaders, views and plots.

Import what a lesson needs, e.g. ``from helpers import metrics, load_example``.
"""

from helpers import metrics
from helpers.data import load_example, rank_by_score
from helpers.metrics import (
    UndefinedMetricError,
    arithmetic_table,
    average_precision,
    cumulative_gain,
    dcg,
    first_relevant_rank,
    grades_in_rank_order,
    hit_at_k,
    ideal_dcg,
    mean_hit_rate,
    mean_reciprocal_rank,
    ndcg,
    precision_at_k,
    query_ndcg,
    recall_at_k,
    reciprocal_rank,
    relevant_ids,
)

__all__ = [
    "UndefinedMetricError",
    "arithmetic_table",
    "average_precision",
    "cumulative_gain",
    "dcg",
    "first_relevant_rank",
    "grades_in_rank_order",
    "hit_at_k",
    "ideal_dcg",
    "load_example",
    "mean_hit_rate",
    "mean_reciprocal_rank",
    "metrics",
    "ndcg",
    "precision_at_k",
    "query_ndcg",
    "rank_by_score",
    "recall_at_k",
    "reciprocal_rank",
    "relevant_ids",
]
