"""Slips of the graded metrics, DCG, ideal DCG and nDCG: each wrong computation with its catalogue entry.

Grades are in rank order, as in :mod:`helpers.metrics`. Example B: swapped order 2, 0, 3, 0, 0,
judged 3, 2; example C: 2, 0, 3, 1, 0, 2 plus a missed grade-3 document, k = 5. A division by
zero (log2(rank) at rank 1) gives ``math.inf`` (a gain over 0) or ``math.nan`` (0 / 0).
"""

from __future__ import annotations

import math

from helpers import metrics as m
from helpers._checks import check_exponential_grades
from helpers.metrics import Gain
from helpers.slips._catalogue import declare, slip


def is_undefined(value: float) -> bool:
    """True when a value is not a finite number (a division by zero: inf or nan) (lesson 07).

    >>> is_undefined(dcg_log2_rank([3, 2]))
    True
    """
    return not math.isfinite(value)


def _discounted_sum(grades, k, gain: Gain, discount) -> float:
    """Sum of gain(grade) / discount(rank) over the top k, with a division by zero made explicit."""
    grades, k = m.check_grades(grades), m.check_k(k)
    total = 0.0
    for rank, grade in enumerate(m.cut(grades, k), start=1):
        value, divisor = m.gain_of(grade, gain), discount(rank)
        if divisor == 0:
            total += math.inf if value > 0 else math.nan
        else:
            total += value / divisor
    return total


def _normalised(dcg_of, grades, k, ideal, gain: Gain) -> float:
    """A wrong DCG divided by the same wrong DCG of the sorted ideal (nan when undefined)."""
    ideal = m.check_grades(grades if ideal is None else ideal, name="ideal")
    best = dcg_of(sorted(ideal, reverse=True), k, gain)
    actual = dcg_of(grades, k, gain)
    if best == 0 or is_undefined(best) or is_undefined(actual):
        return math.nan
    return actual / best


def ratio_or_nan(actual: float, best: float) -> float:
    """actual / best, or nan where the best is 0 (an undefined ratio, as a number a lesson can show)."""
    return actual / best if best else math.nan


@slip(
    "retrieved-only-ideal",
    'ideal ranking built from the retrieved results only',
    'Sort the grades of every judged document of the query, also those the system missed, then cut at k.',
    measures=('ndcg', 'ideal-dcg'),
    kinds=('value', 'mean', 'difference'),
)
def ndcg_retrieved_only_ideal(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """nDCG@k with the ideal sorted from the *returned* grades only (mistake "retrieved-only-ideal").

    Example C (k = 5) gives 0.690 instead of 0.550 (exponential gain: 0.640
    instead of 0.475): the missed grade-3 document vanishes from the ideal.

    >>> round(ndcg_retrieved_only_ideal([2, 0, 3, 1, 0, 2], k=5), 3)
    0.69
    """
    return m.ndcg(grades, k, ideal=None, gain=gain)


@slip(
    "stale-ideal",
    'ideal not recomputed after a grade changed',
    'The ideal sorts the current grades: change a grade and the ideal DCG changes too.',
)
def ndcg_stale_ideal(grades, old_ideal, k: int | None = None, gain: Gain = "linear") -> float:
    """nDCG@k divided by the ideal of the grades *before* a change (mistake "stale-ideal").

    Example B with D4's grade lowered to 1: the swapped order is 1, 0, 3, 0, 0;
    against the old ideal (3, 2) it scores 0.5866, less than against the new one.

    >>> round(ndcg_stale_ideal([1, 0, 3, 0, 0], old_ideal=[3, 2], k=5), 4)
    0.5866
    """
    return ratio_or_nan(m.dcg(grades, k, gain), m.ideal_dcg(old_ideal, k, gain))


@slip(
    "undefined-as-zero",
    'an undefined metric scored as 0',
    'With no relevant document the ideal DCG is 0 and nDCG is 0 / 0: undefined. Leave the query out '
    'of the mean, or state how you score it.',
    measures=('ndcg',),
    kinds=('mean',),
)
def undefined_as_zero(metric, *args, **kwargs) -> float:
    """Call a metric and score 0.0 where it is undefined (mistake "undefined-as-zero").

    Example D: question d4 has no relevant chunk, its nDCG is undefined; this
    turns it into 0.0, which then drags every mean down.

    >>> undefined_as_zero(m.ndcg, [0, 0, 0], k=4)
    0.0
    """
    return m.value_or(0.0, metric, *args, **kwargs)


@slip(
    "log2-rank",
    'discount log2(rank) instead of log2(rank + 1)',
    'log2(1) = 0, so rank 1 divides by zero: the discount is log2(rank + 1), which is 1 at rank 1.',
    measures=('dcg', 'ideal-dcg', 'ndcg'),
    kinds=('value', 'mean', 'difference'),
)
@slip(
    "discount-zero-at-top",
    'the first result divided by log2(1) = 0',
    'Rank 1 must be divided by log2(1 + 1) = 1. Either the discount is written log2(rank) (write '
    'log2(rank + 1)), or the ranks start at 0 (enumerate(..., start=1) fixes that).',
    measures=('dcg', 'ideal-dcg', 'ndcg', 'mrr'),
    kinds=('value', 'mean', 'difference'),
)
def dcg_log2_rank(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """DCG with the discount log2(rank): rank 1 divides by 0 (mistake "log2-rank").

    Returns ``math.inf`` when the grade at rank 1 is above 0 and ``math.nan``
    for 0 / 0: either way the DCG is undefined (example C: inf).

    >>> dcg_log2_rank([2, 0, 3, 1, 0, 2], k=5)
    inf
    """
    return _discounted_sum(grades, k, gain, lambda rank: math.log2(rank))


@slip(
    "log2-rank-first-undiscounted",
    'discount log2(rank) with rank 1 left undiscounted',
    'Dodging the division by zero this way gives another formula (ranks 1 and 2 both count in full); '
    'divide every gain by log2(rank + 1).',
    measures=('dcg', 'ideal-dcg', 'ndcg'),
    kinds=('value', 'mean', 'difference'),
)
def dcg_log2_rank_first_undiscounted(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """DCG dividing by log2(rank) from rank 2 on, rank 1 undivided ("log2-rank-first-undiscounted").

    This is how the division by zero of log2(rank) is often patched (and the
    form of the 2002 DCG paper); ranks 1 and 2 both count in full. Example C:
    4.393 instead of 3.931.

    >>> round(dcg_log2_rank_first_undiscounted([2, 0, 3, 1, 0, 2], k=5), 3)
    4.393
    """
    return _discounted_sum(grades, k, gain, lambda rank: max(1.0, math.log2(rank)))


@slip(
    "no-discount",
    'no discount: the gains added up (CG) instead of DCG',
    'Divide each gain by log2(rank + 1) before adding.',
    measures=('dcg', 'ideal-dcg', 'ndcg'),
    kinds=('value', 'mean', 'difference'),
)
def dcg_no_discount(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """The gains of the top k added up with no discount: CG@k (mistake "no-discount").

    Example B: every ordering of grades 3 and 2 gives 5.0; example C: 6.0.

    >>> dcg_no_discount([2, 0, 3, 0, 0])
    5.0
    """
    return _discounted_sum(grades, k, gain, lambda rank: 1.0)


@slip("ranks-from-zero")
def dcg_ranks_from_zero(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """DCG with the discount log2(rank + 2): one added twice to the rank (mistake "ranks-from-zero").

    log2(i + 2) is right for a position i counted from 0, wrong for a rank
    that already starts at 1. Example C: 2.941 instead of 3.931.

    >>> round(dcg_ranks_from_zero([2, 0, 3, 1, 0, 2], k=5), 3)
    2.941
    """
    return _discounted_sum(grades, k, gain, lambda rank: math.log2(rank + 2))


@slip(
    "mean-dcg",
    'DCG averaged over the queries instead of nDCG',
    'Normalise each query first (nDCG = DCG / IDCG), then average the nDCG values.',
    measures=('ndcg',),
    kinds=('mean',),
)
def mean_dcg_instead_of_ndcg(queries, k: int | None = None, gain: Gain = "linear") -> float:
    """The mean DCG@k over queries instead of the mean nDCG@k (mistake "mean-dcg").

    ``queries`` is a list with the grades in rank order of each query. The
    help desk of example C gives 1.212, a number that is not even a share.

    >>> round(mean_dcg_instead_of_ndcg([[2, 0, 3, 1, 0, 2], [0, 0, 1], [0, 1], [0], [1]], k=5), 3)
    1.212
    """
    queries = list(queries)
    if not queries:
        raise ValueError("queries is empty: a mean needs at least one query")
    return sum(m.dcg(grades, k, gain) for grades in queries) / len(queries)


@slip(
    "exponential-for-linear",
    'exponential gain (2^grade - 1) where linear gain was asked',
    'With linear gain the gain is the grade itself.',
    measures=('dcg', 'ideal-dcg', 'ndcg'),
    kinds=('value', 'mean', 'difference'),
)
def ndcg_exponential_instead_of_linear(grades, k: int | None = None, ideal=None) -> float:
    """nDCG@k with gain 2^grade - 1 where the grade itself was asked ("exponential-for-linear").

    Example C: 0.475 instead of 0.550; example B swapped: 0.7309 instead of 0.8212.

    >>> round(ndcg_exponential_instead_of_linear([2, 0, 3, 0, 0], k=5, ideal=[3, 2]), 4)
    0.7309
    """
    return m.ndcg(grades, k, ideal=ideal, gain="exponential")


@slip(
    "rank-as-discount",
    'each gain divided by the rank instead of log2(rank + 1)',
    'The discount is log2(rank + 1): 1, 1.585, 2, 2.322, ... It falls much more slowly than the rank.',
    measures=('dcg', 'ideal-dcg', 'ndcg'),
    kinds=('value', 'mean', 'difference'),
)
def dcg_rank_discount(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """DCG dividing each gain by its rank instead of log2(rank + 1) ("rank-as-discount").

    Example C: 2 + 0 + 3/3 + 1/4 + 0 = 3.25 instead of DCG@5 3.931.

    >>> dcg_rank_discount([2, 0, 3, 1, 0, 2], k=5)
    3.25
    """
    return _discounted_sum(grades, k, gain, lambda rank: float(rank))


@slip("rank-as-discount")
def ndcg_rank_discount(grades, k: int | None = None, ideal=None, gain: Gain = "linear") -> float:
    """nDCG with the rank as discount on both DCG and ideal (example C: 0.554 instead of 0.550).

    >>> round(ndcg_rank_discount([2, 0, 3, 1, 0, 2], k=5, ideal=[2, 0, 3, 1, 0, 2, 3]), 3)
    0.554
    """
    return _normalised(dcg_rank_discount, grades, k, ideal, gain)


@slip(
    "natural-log",
    'natural log ln(rank + 1) in the discount instead of log2(rank + 1)',
    'The discount is the base-2 logarithm: math.log2(rank + 1) (math.log(x) alone is base e).',
    measures=('dcg', 'ideal-dcg'),
    kinds=('value', 'mean', 'difference'),
)
def dcg_natural_log(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """DCG discounted by ln(rank + 1) instead of log2(rank + 1) (mistake "natural-log").

    >>> round(dcg_natural_log([2, 0, 3, 0, 0], k=5), 4)
    5.0494
    """
    return _discounted_sum(grades, k, gain, lambda rank: math.log(rank + 1))


@slip(
    "log10-discount",
    "common log log10(rank + 1) in the discount instead of log2(rank + 1) (a calculator's log key)",
    "The discount is the base-2 logarithm: log2(rank + 1) = log10(rank + 1) / log10(2); a calculator's log "
    "key is base 10.",
    measures=('dcg', 'ideal-dcg'),
    kinds=('value', 'mean', 'difference'),
)
def dcg_log10(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """DCG discounted by log10(rank + 1) instead of log2(rank + 1) (mistake "log10-discount").

    >>> round(dcg_log10([2, 0, 3, 0, 0], k=5), 4)
    11.6267
    """
    return _discounted_sum(grades, k, gain, lambda rank: math.log10(rank + 1))


@slip(
    "exp-without-minus-one",
    'exponential gain 2^grade instead of 2^grade - 1',
    'The gain is 2^grade - 1 (0, 1, 3, 7 for grades 0 to 3): without the - 1 every relevant gain is one too '
    'high, and a grade-0 result earns 2^0 = 1.',
    measures=('dcg', 'ideal-dcg', 'ndcg'),
    kinds=('value', 'mean', 'difference'),
)
def dcg_exp_without_minus_one(grades, k: int | None = None) -> float:
    """DCG with the gain 2^grade (the - 1 forgotten): a grade-0 result earns 1 ("exp-without-minus-one").

    >>> round(dcg_exp_without_minus_one([1, 2, 0], k=3), 4)
    5.0237
    """
    grades, k = m.check_grades(grades), m.check_k(k)
    check_exponential_grades(grades)
    return sum(2.0**grade / m.discount(rank) for rank, grade in enumerate(m.cut(grades, k), start=1))


@slip("exp-without-minus-one")
def ndcg_exp_without_minus_one(grades, k: int | None = None, ideal=None) -> float:
    """nDCG with the gain 2^grade on both DCG and ideal (example E at K = 3: 0.8023 instead of 0.7003).

    >>> round(ndcg_exp_without_minus_one([1, 2, 0, 0, 1, 1], k=3), 4)
    0.8023
    """
    ideal = m.check_grades(grades if ideal is None else ideal, name="ideal")
    best = dcg_exp_without_minus_one(sorted(ideal, reverse=True), k)
    return ratio_or_nan(dcg_exp_without_minus_one(grades, k), best)


@slip(
    "unsorted-ideal",
    'ideal DCG computed on the judged grades in their listed order, not sorted',
    'The ideal ranking puts the highest grades first: sort every judged grade from high to low, then cut at k.',
    measures=('ndcg', 'ideal-dcg'),
    kinds=('value', 'difference'),
)
def ndcg_unsorted_ideal(grades, ideal_in_listed_order, k: int | None = None, gain: Gain = "linear") -> float:
    """nDCG whose ideal DCG is computed on the judged grades in their listed order ("unsorted-ideal").

    Example B (judged D11 3, D4 2, D1 0 ...) happens to be sorted already; example C's judgments
    file lists 2, 0, 3, 1, 0, 2, 3 and gives 1.000 instead of NDCG@5 0.550.

    >>> ndcg_unsorted_ideal([2, 0, 3, 1, 0, 2], [2, 0, 3, 1, 0, 2, 3], k=5)
    1.0
    """
    listed = m.check_grades(ideal_in_listed_order, name="ideal")
    return ratio_or_nan(m.dcg(grades, k, gain), m.dcg(listed, k, gain))


# --- slips no function of ours computes: another metric, or the other convention ---

declare(
    "dcg-for-ndcg",
    'DCG given where nDCG was asked',
    'Divide the DCG by the ideal DCG (IDCG) at the same k.', computed_by=('helpers.metrics.dcg',),
    measures=('ndcg',),
    kinds=('value', 'mean', 'difference'),
)

declare(
    "linear-for-exponential",
    'linear gain where exponential gain (2^grade - 1) was asked',
    'With exponential gain a grade g is worth 2^g - 1: 0, 1, 3, 7 for grades 0 to 3.',
    computed_by=("helpers.metrics.ndcg(gain='linear')",),
    measures=('dcg', 'ideal-dcg', 'ndcg'),
    kinds=('value', 'mean', 'difference'),
)

declare(
    "dcg-for-cg",
    'the gains discounted where CG (no discount) was asked',
    'CG@k adds the gains of the top k as they are; only DCG divides by log2(rank + 1).',
    computed_by=('helpers.metrics.dcg',),
    measures=('cg',),
    kinds=('value', 'difference'),
)

declare(
    "judged-for-returned-ideal",
    'ideal built from every judged document where the returned list alone was asked',
    "This convention (scikit-learn's) sorts only the grades of the documents passed in: the returned list.",
    computed_by=('helpers.metrics.ndcg(ideal=judged)',),
    measures=('ndcg',),
    kinds=('value',),
)
