"""Slips of the counting metrics, precision, recall and AP: wrong computations and library conventions.

Several of these are another convention rather than an error (min(k, R) for R, the relevant
found for R): each is a slip only where the exercise asked for the other one.
"""

from __future__ import annotations

from helpers import metrics as m
from helpers.slips._catalogue import declare, slip


@slip(
    "ap-hits-denominator",
    'AP divided by the number of relevant results found in the top k',
    'Divide by R, the number of relevant documents judged for the query, found or not.',
    measures=('ap',),
    kinds=('value', 'mean'),
)
def average_precision_hits_denominator(ranked, relevant, k: int | None = None) -> float:
    """AP@k divided by the relevant results found in the top k ("ap-hits-denominator").

    This is what torchmetrics does: a list that finds few of the relevant documents looks better than it is.

    >>> round(average_precision_hits_denominator(["a", "b", "c"], {"a", "c", "x"}, k=3), 4)
    0.8333
    """
    ranked, relevant, k = m.check_ranking(ranked), m.check_relevant(relevant), m.check_k(k)
    found = sum(1 for doc_id in m.cut(ranked, k) if doc_id in relevant)
    if found == 0:
        return 0.0
    return m.average_precision(ranked, relevant, k) * len(relevant) / found


@slip("ignored-cutoff")
def average_precision_ignoring_cutoff(ranked, relevant) -> float:
    """AP over the whole list where AP@k was asked (mistake "ignored-cutoff"; example C: 0.617).

    >>> round(average_precision_ignoring_cutoff(["a", "b", "c"], {"a", "c"}), 4)
    0.8333
    """
    return m.average_precision(ranked, relevant, None)


@slip(
    "precision-for-recall",
    'precision@k given where recall@k was asked',
    'Recall divides the relevant results found in the top k by R, the relevant documents of the '
    'query; precision divides them by k.',
    measures=('recall',),
    kinds=('value',),
)
def precision_instead_of_recall(ranked, relevant, k: int) -> float:
    """Precision@k given as the recall@k (mistake "precision-for-recall").

    Example E at K = 3: 0.667 (two relevant results in three) instead of 0.500
    (two of the four relevant documents).

    >>> round(precision_instead_of_recall(["r2", "r1", "r4"], {"r1", "r2", "r3", "r5"}, k=3), 3)
    0.667
    """
    return m.precision_at_k(ranked, relevant, k)


@slip(
    "recall-for-precision",
    'recall@k given where precision@k was asked',
    'Precision divides the relevant results in the top k by k; recall divides them by R.',
    measures=('precision',),
    kinds=('value',),
)
def recall_instead_of_precision(ranked, relevant, k: int) -> float:
    """Recall@k given as the precision@k ("recall-for-precision"; example E at K = 3: 0.500 for 0.667).

    >>> recall_instead_of_precision(["r2", "r1", "r4"], {"r1", "r2", "r3", "r5"}, k=3)
    0.5
    """
    return m.recall_at_k(ranked, relevant, k)


# --- slips no function of ours computes: another metric, or the other convention ---

declare(
    "ap-min-k-r",
    'AP divided by min(k, R) where R was asked',
    'This exercise divides by R, every relevant document of the query; min(k, R) is another '
    'convention, to be named when used.',
    computed_by=("helpers.metrics.average_precision(denominator='min_k_R')",),
    measures=('ap',),
    kinds=('value', 'mean'),
)

declare(
    "ap-r-for-min-k-r",
    'AP divided by R where min(k, R) was asked',
    'This exercise divides by min(k, R): with fewer than R places, a perfect top k should score 1.',
    computed_by=('helpers.metrics.average_precision',),
    measures=('ap',),
    kinds=('value', 'mean'),
)

declare(
    "recall-min-k-r",
    'recall divided by min(k, R) where R was asked',
    'Recall@k divides by R, every relevant document of the query; min(k, R) is another convention, to'
    ' be named when used.',
    computed_by=("helpers.metrics.recall_at_k(denominator='min_k_R')",),
    measures=('recall',),
    kinds=('value',),
)

declare(
    "recall-r-for-min-k-r",
    'recall divided by R where min(k, R) was asked',
    'This exercise divides by min(k, R): with fewer than R places, finding k relevant results scores 1.',
    computed_by=('helpers.metrics.recall_at_k',),
    measures=('recall',),
    kinds=('value',),
)

declare(
    "precision-for-ap",
    'precision@k given where AP@k was asked',
    'AP averages the precision at each relevant rank (P@i where rank i is relevant) and divides by R.',
    computed_by=('helpers.metrics.precision_at_k',),
    measures=('ap',),
    kinds=('value',),
)

declare(
    "rr-for-ap",
    'the reciprocal rank given where AP was asked: only the first relevant result counted',
    'AP adds the precision at every relevant rank within the top k, not only at the first, and divides by R.',
    computed_by=('helpers.metrics.reciprocal_rank',),
    measures=('ap',),
    kinds=('value',),
)

declare(
    "map-over-relevant",
    'the precisions of every question pooled and divided by all their relevant documents, not averaged per question',
    "MAP is a mean over questions: each question's AP (its precisions over its own R) first, then their mean.",
    measures=('ap',),
    kinds=('mean',),
)

declare(
    "mrr-for-map",
    'MRR given where MAP was asked: only the first relevant result of each query counted',
    'AP adds the precision at every relevant rank, not only the first, and divides by R.',
    computed_by=('helpers.metrics.reciprocal_rank',),
    measures=('ap',),
    kinds=('mean',),
)

declare(
    "r-for-hits-denominator",
    'AP divided by R where the library divides by the relevant results it found',
    'torchmetrics divides the sum of precisions by the number of relevant results in the top k.',
    computed_by=('helpers.metrics.average_precision',),
)
