"""Slips of the first-hit metrics, MRR and hit rate: each wrong computation with its catalogue entry.

First ranks are 1-based, 0 for a miss, as in :mod:`helpers.metrics`. The numbers in the
docstrings are those of the worked examples in ``data/`` (example A: OLD first ranks
1, 2, 1, 4, 1; NEW 2, 3, 2, 4, 2; example D: hits at 1, 3, none and one unanswerable question).
"""

from __future__ import annotations

import math

from helpers import metrics as m
from helpers.slips._catalogue import slip


@slip(
    "dropped-misses",
    'queries without a hit left out of the mean',
    'A query with nothing relevant found scores 0 and stays in the mean: divide by every query that has something '
    'to find, its 0s included.',
    measures=('mrr', 'ap', 'ndcg'),
    kinds=('mean',),
)
def mrr_dropping_misses(first_ranks, k: int | None = None) -> float:
    """MRR averaged over the queries with a hit only (mistake "dropped-misses").

    A query counts as a miss when its first rank is 0. Help desk of example C
    (1, 3, 2, none, 1): 0.708 instead of 0.567.

    >>> round(mrr_dropping_misses([1, 3, 2, 0, 1]), 3)
    0.708
    """
    first_ranks, k = m.check_first_ranks(first_ranks), m.check_k(k)
    hits = [rank for rank in first_ranks if rank > 0 and (k is None or rank <= k)]
    if not hits:
        return math.nan
    return m.mean_reciprocal_rank(hits, k)


@slip(
    "kept-unanswerable",
    'unanswerable questions counted as misses',
    'A question with no relevant document has nothing to find: leave it out of the denominator.',
    measures=('mrr', 'hit-rate'),
    kinds=('mean',),
)
def mrr_keeping_unanswerable(first_ranks, unanswerable: int, k: int | None = None) -> float:
    """MRR with ``unanswerable`` extra questions scored 0 (mistake "kept-unanswerable").

    Example D: first hits 1, 3, none within 4 and one unanswerable question:
    0.333 instead of 0.444.

    >>> round(mrr_keeping_unanswerable([1, 3, 0], unanswerable=1, k=4), 3)
    0.333
    """
    return m.mean_reciprocal_rank(_with_unanswerable(first_ranks, unanswerable), k)


@slip("kept-unanswerable")
def hit_rate_keeping_unanswerable(first_ranks, unanswerable: int, k: int) -> float:
    """Hit rate with unanswerable questions scored 0 (example D: Hit@4 0.500 instead of 0.667).

    >>> hit_rate_keeping_unanswerable([1, 3, 0], unanswerable=1, k=4)
    0.5
    """
    return m.mean_hit_rate(_with_unanswerable(first_ranks, unanswerable), k)


def _with_unanswerable(first_ranks, unanswerable: int) -> list[int]:
    """The first ranks with one extra miss (0) per unanswerable question."""
    if isinstance(unanswerable, bool) or not isinstance(unanswerable, int) or unanswerable < 0:
        raise ValueError(f"unanswerable must be a whole number >= 0, got {unanswerable!r}")
    return m.check_first_ranks(first_ranks) + [0] * unanswerable


@slip(
    "hit-rate-for-mrr",
    'hit rate given where MRR was asked',
    'Hit rate only asks whether a relevant result is in the top k; MRR averages 1 / rank of the first relevant result.',
    measures=('mrr',),
    kinds=('mean',),
)
def hit_rate_instead_of_mrr(first_ranks, k: int | None = None) -> float:
    """The hit rate@k, given as the MRR (mistake "hit-rate-for-mrr").

    Without k, every query with a hit counts. Example A: OLD 0.800 at k = 3
    (MRR 0.750); example D: Hit@4 0.667 (MRR@4 0.444).

    >>> hit_rate_instead_of_mrr([1, 2, 1, 4, 1], k=3)
    0.8
    """
    first_ranks = m.check_first_ranks(first_ranks)
    if k is None:
        return sum(1 for rank in first_ranks if rank > 0) / len(first_ranks)
    return m.mean_hit_rate(first_ranks, k)


@slip(
    "mrr-for-hit-rate",
    'MRR given where hit rate was asked',
    'Hit rate scores each query 1 (a relevant result in the top k) or 0 and averages: no 1/rank.',
    measures=('hit-rate',),
    kinds=('mean',),
)
def mrr_instead_of_hit_rate(first_ranks, k: int | None = None) -> float:
    """The MRR@k, given as the hit rate (mistake "mrr-for-hit-rate"; example D: 0.444 for 0.667).

    >>> round(mrr_instead_of_hit_rate([1, 3, 0], k=4), 3)
    0.444
    """
    return m.mean_reciprocal_rank(first_ranks, k)


@slip(
    "sum-not-mean",
    'reciprocal ranks added up, not averaged',
    'Divide the sum by the number of queries.',
    measures=('mrr',),
    kinds=('mean',),
)
def mrr_sum_instead_of_mean(first_ranks, k: int | None = None) -> float:
    """The sum of the reciprocal ranks, not divided by the number of queries ("sum-not-mean").

    Example A, OLD: 3.75 instead of 0.750.

    >>> mrr_sum_instead_of_mean([1, 2, 1, 4, 1])
    3.75
    """
    first_ranks, k = m.check_first_ranks(first_ranks), m.check_k(k)
    return sum(m.reciprocal_rank_of(rank, k) for rank in first_ranks)


@slip(
    "ignored-cutoff",
    'the cutoff k ignored',
    'Only ranks 1..k count: a first hit past k is a miss, and DCG and the ideal stop at rank k.',
    measures=('mrr', 'hit-rate', 'dcg', 'ideal-dcg', 'ndcg', 'recall', 'ap'),
    kinds=('value', 'mean', 'difference'),
)
def mrr_ignoring_cutoff(first_ranks) -> float:
    """MRR with no cutoff where MRR@k was asked (mistake "ignored-cutoff").

    Example D: 0.511 instead of MRR@4 0.444 (the hit at rank 5 scores 0.2);
    example C: 0.567 instead of MRR@2 0.500.

    >>> round(mrr_ignoring_cutoff([1, 3, 5]), 3)
    0.511
    """
    return m.mean_reciprocal_rank(first_ranks, None)


@slip("ignored-cutoff")
def hit_rate_ignoring_cutoff(first_ranks) -> float:
    """The share of queries with a hit at any rank where Hit@k was asked ("ignored-cutoff").

    Example D: 1.000 instead of Hit@4 0.667.

    >>> hit_rate_ignoring_cutoff([1, 3, 5])
    1.0
    """
    return hit_rate_instead_of_mrr(first_ranks, None)


@slip(
    "cutoff-off-by-one",
    'the cut-off moved by one: k - 1 or k + 1 ranks counted',
    'The top k are the ranks 1..k, k included: test rank <= k (or cut the list with [:k]).',
    measures=('mrr', 'hit-rate', 'cg', 'dcg', 'ndcg', 'precision', 'ap'),
    kinds=('value', 'mean', 'difference'),
)
def hit_rate_cutoff_off_by_one(first_ranks, k: int) -> float:
    """Hit rate counting ranks 1..k-1 only, i.e. ``rank < k`` (mistake "cutoff-off-by-one").

    Example A, NEW (2, 3, 2, 4, 2): 0.600 instead of Hit@3 0.800.

    >>> hit_rate_cutoff_off_by_one([2, 3, 2, 4, 2], k=3)
    0.6
    """
    first_ranks, k = m.check_first_ranks(first_ranks), m.check_k(k, allow_none=False)
    return sum(1 for rank in first_ranks if 1 <= rank < k) / len(first_ranks)


@slip(
    "ranks-from-zero",
    'rank shifted by one: the formula for positions counted from 0 used on ranks counted from 1',
    'Pick one convention: ranks from 1 (enumerate(..., start=1)) give 1/rank and log2(rank + 1); '
    'positions i from 0 give 1/(i + 1) and log2(i + 2).',
    measures=('dcg', 'ideal-dcg', 'ndcg', 'mrr'),
    kinds=('value', 'mean', 'difference'),
)
def mrr_ranks_from_zero(first_ranks, k: int | None = None) -> float:
    """MRR with 1 / (rank + 1): one added twice to the rank (mistake "ranks-from-zero").

    A miss (0) still scores 0. Example A, OLD: 0.407 instead of 0.750.

    >>> round(mrr_ranks_from_zero([1, 2, 1, 4, 1]), 3)
    0.407
    """
    first_ranks, k = m.check_first_ranks(first_ranks), m.check_k(k)
    scores = [0.0 if m.reciprocal_rank_of(rank, k) == 0 else 1.0 / (rank + 1) for rank in first_ranks]
    return sum(scores) / len(scores)


def _ranks_of_hits(first_ranks, k: int | None) -> list[int]:
    first_ranks, k = m.check_first_ranks(first_ranks), m.check_k(k)
    return [rank for rank in first_ranks if rank > 0 and (k is None or rank <= k)]


@slip(
    "mean-of-ranks",
    'the mean of the first relevant ranks given as the MRR',
    "MRR averages 1 / rank, not the rank: take the reciprocal of each query's first relevant rank "
    'first (0 for a miss), then the mean.',
    measures=('mrr',),
    kinds=('mean',),
)
def mrr_mean_of_ranks(first_ranks, k: int | None = None) -> float:
    """The mean of the first relevant ranks (misses left out), given as the MRR ("mean-of-ranks").

    Example A, OLD (1, 2, 1, 4, 1): 1.8 instead of MRR 0.750.

    >>> mrr_mean_of_ranks([1, 2, 1, 4, 1])
    1.8
    """
    hits = _ranks_of_hits(first_ranks, k)
    return sum(hits) / len(hits) if hits else math.nan


@slip(
    "one-over-mean-rank",
    '1 / (mean rank) instead of the mean of 1 / rank',
    'Averaging first and inverting after is another number: take 1 / rank per query, then the mean.',
    measures=('mrr',),
    kinds=('mean',),
)
def mrr_one_over_mean_rank(first_ranks, k: int | None = None) -> float:
    """1 / (mean first relevant rank) instead of the mean of 1 / rank ("one-over-mean-rank").

    Example A, OLD: 1 / 1.8 = 0.556 instead of 0.750.

    >>> round(mrr_one_over_mean_rank([1, 2, 1, 4, 1]), 3)
    0.556
    """
    mean_rank = mrr_mean_of_ranks(first_ranks, k)
    return 1 / mean_rank if math.isfinite(mean_rank) else math.nan
