"""The common mistakes, computed on purpose (lesson 07, and the answer checks of every lesson).

Each function here computes one *wrong* variant of a metric with the same
building blocks as :mod:`helpers.metrics`, so that a lesson can show the
number a mistake produces next to the right one, and so that
:mod:`helpers.exercises` can recognise a learner's answer as "the number you
get when you make mistake X".

``MISTAKES`` maps a short code to ``(title, fix)``; ``mistakes_table()``
shows them with the functions that compute them. The numbers quoted in the
docstrings are those of the worked examples in ``data/``:

- example A: OLD first ranks 1, 2, 1, 4, 1; NEW 2, 3, 2, 4, 2;
- example B: swapped ordering, grades 2, 0, 3, 0, 0, judged grades 3, 2;
- example C: grades 2, 0, 3, 1, 0, 2 plus a missed grade-3 document, k = 5;
  help-desk first ranks 1, 3, 2, none, 1;
- example D: first hits within the top 4 at 1, 3, none, one unanswerable question.

A division by zero (the discount log2(rank) at rank 1) is reported as
``math.inf`` (a positive gain divided by 0) or ``math.nan`` (0 / 0): the
value is undefined, and :func:`is_undefined` says so.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import pandas as pd

from helpers import metrics as m
from helpers._checks import check_exponential_grades
from helpers.metrics import Gain


class Mistake(NamedTuple):
    """One common mistake: a short title and how to fix it."""

    title: str
    fix: str


MISTAKES: dict[str, Mistake] = {
    "retrieved-only-ideal": Mistake(
        "ideal ranking built from the retrieved results only",
        "Sort the grades of every judged document of the query, also those the system missed, then cut at k.",
    ),
    "log2-rank": Mistake(
        "discount log2(rank) instead of log2(rank + 1)",
        "log2(1) = 0, so rank 1 divides by zero: the discount is log2(rank + 1), which is 1 at rank 1.",
    ),
    "log2-rank-first-undiscounted": Mistake(
        "discount log2(rank) with rank 1 left undiscounted",
        "Dodging the division by zero this way gives another formula (ranks 1 and 2 both count "
        "in full); divide every gain by log2(rank + 1).",
    ),
    "no-discount": Mistake(
        "no discount: the gains added up (CG) instead of DCG",
        "Divide each gain by log2(rank + 1) before adding.",
    ),
    "dcg-for-ndcg": Mistake(
        "DCG given where nDCG was asked",
        "Divide the DCG by the ideal DCG (IDCG) at the same k.",
    ),
    "mean-dcg": Mistake(
        "DCG averaged over the queries instead of nDCG",
        "Normalise each query first (nDCG = DCG / IDCG), then average the nDCG values.",
    ),
    "dropped-misses": Mistake(
        "queries without a hit left out of the mean",
        "A miss scores 0 and stays in the denominator: divide by the number of answerable queries.",
    ),
    "kept-unanswerable": Mistake(
        "unanswerable questions counted as misses",
        "A question with no relevant document has nothing to find: leave it out of the denominator.",
    ),
    "mean-of-ranks": Mistake(
        "the mean of the first relevant ranks given as the MRR",
        "MRR averages 1 / rank, not the rank: take the reciprocal of each query's first relevant "
        "rank first (0 for a miss), then the mean.",
    ),
    "one-over-mean-rank": Mistake(
        "1 / (mean rank) instead of the mean of 1 / rank",
        "Averaging first and inverting after is another number: take 1 / rank per query, then the mean.",
    ),
    "hit-rate-for-mrr": Mistake(
        "hit rate given where MRR was asked",
        "Hit rate only asks whether a relevant result is in the top k; MRR averages "
        "1 / rank of the first relevant result.",
    ),
    "mrr-for-hit-rate": Mistake(
        "MRR given where hit rate was asked",
        "Hit rate scores each query 1 (a relevant result in the top k) or 0 and averages: no 1/rank.",
    ),
    "sum-not-mean": Mistake(
        "reciprocal ranks added up, not averaged",
        "Divide the sum by the number of queries.",
    ),
    "ignored-cutoff": Mistake(
        "the cutoff k ignored",
        "Only ranks 1..k count: a first hit past k is a miss, and DCG and the ideal stop at rank k.",
    ),
    "cutoff-off-by-one": Mistake(
        "the cut-off moved by one: k - 1 or k + 1 ranks counted",
        "The top k are the ranks 1..k, k included: test rank <= k (or cut the list with [:k]).",
    ),
    "ranks-from-zero": Mistake(
        "rank shifted by one: the formula for positions counted from 0 used on ranks counted from 1",
        "Pick one convention: ranks from 1 (enumerate(..., start=1)) give 1/rank and log2(rank + 1); "
        "positions i from 0 give 1/(i + 1) and log2(i + 2).",
    ),
    "rank-as-discount": Mistake(
        "each gain divided by the rank instead of log2(rank + 1)",
        "The discount is log2(rank + 1): 1, 1.585, 2, 2.322, ... It falls much more slowly than the rank.",
    ),
    "discount-zero-at-top": Mistake(
        "the first result divided by log2(1) = 0",
        "Rank 1 must be divided by log2(1 + 1) = 1. Either the discount is written log2(rank) "
        "(write log2(rank + 1)), or the ranks start at 0 (enumerate(..., start=1) fixes that).",
    ),
    "unsorted-ideal": Mistake(
        "ideal DCG computed on the judged grades in their listed order, not sorted",
        "The ideal ranking puts the highest grades first: sort every judged grade from high to "
        "low, then cut at k.",
    ),
    "natural-log": Mistake(
        "natural log ln(rank + 1) in the discount instead of log2(rank + 1)",
        "The discount is the base-2 logarithm: math.log2(rank + 1) (math.log(x) alone is base e).",
    ),
    "rounded-early": Mistake(
        "each step rounded before the last one",
        "Keep full precision in every step (each 1/rank, each gain / discount) and round only the final answer.",
    ),
    "percent-without-sign": Mistake(
        "a percentage written without its % sign",
        "12.5 means twelve and a half, not 0.125: write the share (0.125) or add the sign (12.5%).",
    ),
    "before-the-change": Mistake(
        "this is the value before the change",
        "The lesson prints the value before the change; make the change the question asks and compute again.",
    ),
    "lab-earlier-state": Mistake(
        "the lab still holds an earlier exercise's change",
        "Press reset (the lab's opening state) before each exercise, then make only this exercise's change.",
    ),
    "exp-without-minus-one": Mistake(
        "exponential gain 2^grade instead of 2^grade - 1",
        "Without the - 1 a grade-0 document still earns 2^0 = 1: the gain is 2^grade - 1 (0, 1, 3, 7).",
    ),
    "exponential-for-linear": Mistake(
        "exponential gain (2^grade - 1) where linear gain was asked",
        "With linear gain the gain is the grade itself.",
    ),
    "linear-for-exponential": Mistake(
        "linear gain where exponential gain (2^grade - 1) was asked",
        "With exponential gain a grade g is worth 2^g - 1: 0, 1, 3, 7 for grades 0 to 3.",
    ),
    "stale-ideal": Mistake(
        "ideal not recomputed after a grade changed",
        "The ideal sorts the current grades: change a grade and the ideal DCG changes too.",
    ),
    "undefined-as-zero": Mistake(
        "an undefined metric scored as 0",
        "With no relevant document the ideal DCG is 0 and nDCG is 0 / 0: undefined. Leave the "
        "query out of the mean, or state how you score it.",
    ),
    "ap-min-k-r": Mistake(
        "AP divided by min(k, R) where R was asked",
        "This exercise divides by R, every relevant document of the query; min(k, R) is "
        "another convention, to be named when used.",
    ),
    "ap-r-for-min-k-r": Mistake(
        "AP divided by R where min(k, R) was asked",
        "This exercise divides by min(k, R): with fewer than R places, a perfect top k should score 1.",
    ),
    "ap-hits-denominator": Mistake(
        "AP divided by the number of relevant results found in the top k",
        "Divide by R, the number of relevant documents judged for the query, found or not.",
    ),
    "precision-for-recall": Mistake(
        "precision@k given where recall@k was asked",
        "Recall divides the relevant results found in the top k by R, the relevant documents of "
        "the query; precision divides them by k.",
    ),
    "dcg-for-cg": Mistake(
        "the gains discounted where CG (no discount) was asked",
        "CG@k adds the gains of the top k as they are; only DCG divides by log2(rank + 1).",
    ),
    "precision-for-ap": Mistake(
        "precision@k given where AP@k was asked",
        "AP averages the precision at each relevant rank (P@i where rank i is relevant) and divides by R.",
    ),
    "mrr-for-map": Mistake(
        "MRR given where MAP was asked: only the first relevant result of each query counted",
        "AP adds the precision at every relevant rank, not only the first, and divides by R.",
    ),
    "r-for-hits-denominator": Mistake(
        "AP divided by R where the library divides by the relevant results it found",
        "torchmetrics divides the sum of precisions by the number of relevant results in the top k.",
    ),
    "ties-ascending": Mistake(
        "equal scores ordered by id ascending where the tool orders them descending",
        "trec_eval (and pytrec_eval) sort equal scores by document id from the highest to the lowest.",
    ),
    "ties-descending": Mistake(
        "equal scores ordered by id descending where the tool orders them ascending",
        "ir_measures' RR@k (msmarco provider) sorts equal scores by document id from the lowest to the highest.",
    ),
    "recall-r-for-min-k-r": Mistake(
        "recall divided by R where min(k, R) was asked",
        "This exercise divides by min(k, R): with fewer than R places, finding k relevant results scores 1.",
    ),
    "recall-for-precision": Mistake(
        "recall@k given where precision@k was asked",
        "Precision divides the relevant results in the top k by k; recall divides them by R.",
    ),
    "judged-for-returned-ideal": Mistake(
        "ideal built from every judged document where the returned list alone was asked",
        "This convention (scikit-learn's) sorts only the grades of the documents passed in: the "
        "returned list.",
    ),
    "a-minus-b": Mistake(
        "the difference taken the other way round",
        "The question asks for B - A: a positive number means B scores higher.",
    ),
    "one-sided-p": Mistake(
        "a one-sided p-value where the two-sided one was asked",
        "Count the sign flips whose mean difference is at least as far from 0 as the observed one, "
        "on either side.",
    ),
    "population-sd": Mistake(
        "standard deviation divided by n instead of n - 1",
        "Cohen's d for paired differences divides the mean by the sample standard deviation (n - 1).",
    ),
    "recall-min-k-r": Mistake(
        "recall divided by min(k, R) where R was asked",
        "Recall@k divides by R, every relevant document of the query; min(k, R) is another "
        "convention, to be named when used.",
    ),
}

FUNCTIONS: dict[str, tuple[str, ...]] = {
    "retrieved-only-ideal": ("ndcg_retrieved_only_ideal",),
    "log2-rank": ("dcg_log2_rank", "ndcg_log2_rank"),
    "log2-rank-first-undiscounted": ("dcg_log2_rank_first_undiscounted", "ndcg_log2_rank_first_undiscounted"),
    "no-discount": ("dcg_no_discount", "ndcg_no_discount"),
    "dcg-for-ndcg": ("dcg_instead_of_ndcg",),
    "mean-dcg": ("mean_dcg_instead_of_ndcg",),
    "dropped-misses": ("mrr_dropping_misses",),
    "kept-unanswerable": ("mrr_keeping_unanswerable", "hit_rate_keeping_unanswerable"),
    "mean-of-ranks": ("mrr_mean_of_ranks",),
    "one-over-mean-rank": ("mrr_one_over_mean_rank",),
    "hit-rate-for-mrr": ("hit_rate_instead_of_mrr",),
    "mrr-for-hit-rate": ("mrr_instead_of_hit_rate",),
    "sum-not-mean": ("mrr_sum_instead_of_mean",),
    "ignored-cutoff": (
        "mrr_ignoring_cutoff",
        "hit_rate_ignoring_cutoff",
        "ndcg_ignoring_cutoff",
        "average_precision_ignoring_cutoff",
    ),
    "cutoff-off-by-one": ("hit_rate_cutoff_off_by_one",),
    "rank-as-discount": ("dcg_rank_discount", "ndcg_rank_discount"),
    "discount-zero-at-top": ("dcg_log2_rank",),
    "unsorted-ideal": ("ndcg_unsorted_ideal",),
    "exp-without-minus-one": ("dcg_exp_without_minus_one", "ndcg_exp_without_minus_one"),
    "natural-log": ("dcg_natural_log",),
    "ranks-from-zero": ("mrr_ranks_from_zero", "dcg_ranks_from_zero", "ndcg_ranks_from_zero"),
    "exponential-for-linear": ("ndcg_exponential_instead_of_linear",),
    "linear-for-exponential": ("ndcg_linear_instead_of_exponential",),
    "stale-ideal": ("ndcg_stale_ideal",),
    "undefined-as-zero": ("undefined_as_zero",),
    "ap-min-k-r": ("average_precision_min_k_r",),
    "ap-r-for-min-k-r": ("average_precision",),
    "ap-hits-denominator": ("average_precision_hits_denominator",),
    "precision-for-recall": ("precision_instead_of_recall",),
    "recall-for-precision": ("recall_instead_of_precision",),
    "recall-r-for-min-k-r": ("helpers.metrics.recall_at_k",),
    "dcg-for-cg": ("helpers.metrics.dcg",),
    "precision-for-ap": ("helpers.metrics.precision_at_k",),
    "r-for-hits-denominator": ("helpers.metrics.average_precision",),
    "mrr-for-map": ("helpers.metrics.reciprocal_rank",),
    "ties-ascending": ("helpers.data.rank_by_score(tie_break='id_ascending')",),
    "ties-descending": ("helpers.data.rank_by_score(tie_break='id_descending')",),
    "judged-for-returned-ideal": ("helpers.metrics.ndcg with the judged ideal",),
    "a-minus-b": ("the difference A - B",),
    "one-sided-p": ("a one-sided sign-flip test",),
    "population-sd": ("numpy.std with ddof=0",),
    "recall-min-k-r": ("recall_min_k_r",),
}


def mistakes_table() -> pd.DataFrame:
    """Every mistake as a table: code, title, fix and the functions computing it (lesson 07).

    >>> mistakes_table().loc[0, "code"]
    'retrieved-only-ideal'
    """
    rows = [
        {"code": code, "title": mistake.title, "fix": mistake.fix, "functions": ", ".join(FUNCTIONS.get(code, ()))}
        for code, mistake in MISTAKES.items()
    ]
    return pd.DataFrame(rows)


def describe(code: str) -> Mistake:
    """The (title, fix) of one mistake code, with a clear error for an unknown code (lesson 07).

    >>> describe("no-discount").title
    'no discount: the gains added up (CG) instead of DCG'
    """
    if not isinstance(code, str):
        raise TypeError(f"a mistake code is a string such as 'no-discount', got {code!r}")
    if code not in MISTAKES:
        raise ValueError(f"unknown mistake code {code!r}: choose one of {', '.join(MISTAKES)}")
    return MISTAKES[code]


def is_undefined(value: float) -> bool:
    """True when a value is not a finite number (a division by zero: inf or nan) (lesson 07).

    >>> is_undefined(dcg_log2_rank([3, 2]))
    True
    """
    return not math.isfinite(value)


# --- nDCG: the ideal ---------------------------------------------------------


def ndcg_retrieved_only_ideal(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """nDCG@k with the ideal sorted from the *returned* grades only (mistake "retrieved-only-ideal").

    Example C (k = 5) gives 0.690 instead of 0.550 (exponential gain: 0.640
    instead of 0.475): the missed grade-3 document vanishes from the ideal.

    >>> round(ndcg_retrieved_only_ideal([2, 0, 3, 1, 0, 2], k=5), 3)
    0.69
    """
    return m.ndcg(grades, k, ideal=None, gain=gain)


def ndcg_stale_ideal(grades, old_ideal, k: int | None = None, gain: Gain = "linear") -> float:
    """nDCG@k divided by the ideal of the grades *before* a change (mistake "stale-ideal").

    Example B with D4's grade lowered to 1: the swapped order is 1, 0, 3, 0, 0;
    against the old ideal (3, 2) it scores 0.5866, less than against the new one.

    >>> round(ndcg_stale_ideal([1, 0, 3, 0, 0], old_ideal=[3, 2], k=5), 4)
    0.5866
    """
    return _ratio(m.dcg(grades, k, gain), m.ideal_dcg(old_ideal, k, gain))


def undefined_as_zero(metric, *args, **kwargs) -> float:
    """Call a metric and score 0.0 where it is undefined (mistake "undefined-as-zero").

    Example D: question d4 has no relevant chunk, its nDCG is undefined; this
    turns it into 0.0, which then drags every mean down.

    >>> undefined_as_zero(m.ndcg, [0, 0, 0], k=4)
    0.0
    """
    return m.value_or(0.0, metric, *args, **kwargs)


# --- DCG: the discount -------------------------------------------------------


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


def _ratio(actual: float, best: float) -> float:
    """actual / best, or nan where the best is 0 (an undefined ratio, as a number a lesson can show)."""
    return actual / best if best else math.nan


def dcg_log2_rank(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """DCG with the discount log2(rank): rank 1 divides by 0 (mistake "log2-rank").

    Returns ``math.inf`` when the grade at rank 1 is above 0 and ``math.nan``
    for 0 / 0: either way the DCG is undefined (example C: inf).

    >>> dcg_log2_rank([2, 0, 3, 1, 0, 2], k=5)
    inf
    """
    return _discounted_sum(grades, k, gain, lambda rank: math.log2(rank))


def ndcg_log2_rank(grades, k: int | None = None, ideal=None, gain: Gain = "linear") -> float:
    """nDCG with the discount log2(rank): undefined (``nan``) as soon as rank 1 holds a gain.

    >>> is_undefined(ndcg_log2_rank([2, 0, 3, 1, 0, 2], k=5, ideal=[2, 0, 3, 1, 0, 2, 3]))
    True
    """
    return _normalised(dcg_log2_rank, grades, k, ideal, gain)


def dcg_log2_rank_first_undiscounted(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """DCG dividing by log2(rank) from rank 2 on, rank 1 undivided ("log2-rank-first-undiscounted").

    This is how the division by zero of log2(rank) is often patched (and the
    form of the 2002 DCG paper); ranks 1 and 2 both count in full. Example C:
    4.393 instead of 3.931.

    >>> round(dcg_log2_rank_first_undiscounted([2, 0, 3, 1, 0, 2], k=5), 3)
    4.393
    """
    return _discounted_sum(grades, k, gain, lambda rank: max(1.0, math.log2(rank)))


def ndcg_log2_rank_first_undiscounted(
    grades, k: int | None = None, ideal=None, gain: Gain = "linear"
) -> float:
    """nDCG with the patched log2(rank) discount on both DCG and ideal (example C: 0.505).

    >>> round(ndcg_log2_rank_first_undiscounted([2, 0, 3, 1, 0, 2], k=5, ideal=[2, 0, 3, 1, 0, 2, 3]), 3)
    0.505
    """
    return _normalised(dcg_log2_rank_first_undiscounted, grades, k, ideal, gain)


def dcg_no_discount(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """The gains of the top k added up with no discount: CG@k (mistake "no-discount").

    Example B: every ordering of grades 3 and 2 gives 5.0; example C: 6.0.

    >>> dcg_no_discount([2, 0, 3, 0, 0])
    5.0
    """
    return _discounted_sum(grades, k, gain, lambda rank: 1.0)


def ndcg_no_discount(grades, k: int | None = None, ideal=None, gain: Gain = "linear") -> float:
    """CG@k divided by the ideal CG@k: example B gives 1.0 for every ordering, example C 0.545.

    >>> ndcg_no_discount([0, 0, 0, 2, 3], k=5)
    1.0
    """
    return _normalised(dcg_no_discount, grades, k, ideal, gain)


def dcg_ranks_from_zero(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """DCG with the discount log2(rank + 2): one added twice to the rank (mistake "ranks-from-zero").

    log2(i + 2) is right for a position i counted from 0, wrong for a rank
    that already starts at 1. Example C: 2.941 instead of 3.931.

    >>> round(dcg_ranks_from_zero([2, 0, 3, 1, 0, 2], k=5), 3)
    2.941
    """
    return _discounted_sum(grades, k, gain, lambda rank: math.log2(rank + 2))


def ndcg_ranks_from_zero(grades, k: int | None = None, ideal=None, gain: Gain = "linear") -> float:
    """nDCG with the discount log2(rank + 2) on both DCG and ideal (example B swapped: 0.8828).

    >>> round(ndcg_ranks_from_zero([2, 0, 3, 0, 0], k=5, ideal=[3, 2]), 4)
    0.8828
    """
    return _normalised(dcg_ranks_from_zero, grades, k, ideal, gain)


def dcg_instead_of_ndcg(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """The DCG, reported as if it were the nDCG (mistake "dcg-for-ndcg"; example B swapped: 3.5).

    >>> dcg_instead_of_ndcg([2, 0, 3, 0, 0], k=5)
    3.5
    """
    return m.dcg(grades, k, gain)


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


def ndcg_ignoring_cutoff(grades, ideal=None, gain: Gain = "linear") -> float:
    """nDCG over the whole list and the whole ideal, k forgotten (mistake "ignored-cutoff").

    Example C: all six results count, 0.650 instead of NDCG@5 0.550.

    >>> round(ndcg_ignoring_cutoff([2, 0, 3, 1, 0, 2], ideal=[2, 0, 3, 1, 0, 2, 3]), 3)
    0.65
    """
    return m.ndcg(grades, None, ideal=ideal, gain=gain)


def ndcg_exponential_instead_of_linear(grades, k: int | None = None, ideal=None) -> float:
    """nDCG@k with gain 2^grade - 1 where the grade itself was asked ("exponential-for-linear").

    Example C: 0.475 instead of 0.550; example B swapped: 0.7309 instead of 0.8212.

    >>> round(ndcg_exponential_instead_of_linear([2, 0, 3, 0, 0], k=5, ideal=[3, 2]), 4)
    0.7309
    """
    return m.ndcg(grades, k, ideal=ideal, gain="exponential")


def ndcg_linear_instead_of_exponential(grades, k: int | None = None, ideal=None) -> float:
    """nDCG@k with linear gain where 2^grade - 1 was asked ("linear-for-exponential").

    Example E (the lab, K = 3): 0.7224 instead of 0.7003.

    >>> round(ndcg_linear_instead_of_exponential([1, 2, 0, 0, 1, 1], k=3), 4)
    0.7224
    """
    return m.ndcg(grades, k, ideal=ideal, gain="linear")


# --- MRR and hit rate --------------------------------------------------------


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


def mrr_keeping_unanswerable(first_ranks, unanswerable: int, k: int | None = None) -> float:
    """MRR with ``unanswerable`` extra questions scored 0 (mistake "kept-unanswerable").

    Example D: first hits 1, 3, none within 4 and one unanswerable question:
    0.333 instead of 0.444.

    >>> round(mrr_keeping_unanswerable([1, 3, 0], unanswerable=1, k=4), 3)
    0.333
    """
    return m.mean_reciprocal_rank(_with_unanswerable(first_ranks, unanswerable), k)


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


def mrr_instead_of_hit_rate(first_ranks, k: int | None = None) -> float:
    """The MRR@k, given as the hit rate (mistake "mrr-for-hit-rate"; example D: 0.444 for 0.667).

    >>> round(mrr_instead_of_hit_rate([1, 3, 0], k=4), 3)
    0.444
    """
    return m.mean_reciprocal_rank(first_ranks, k)


def mrr_sum_instead_of_mean(first_ranks, k: int | None = None) -> float:
    """The sum of the reciprocal ranks, not divided by the number of queries ("sum-not-mean").

    Example A, OLD: 3.75 instead of 0.750.

    >>> mrr_sum_instead_of_mean([1, 2, 1, 4, 1])
    3.75
    """
    first_ranks, k = m.check_first_ranks(first_ranks), m.check_k(k)
    return sum(m.reciprocal_rank_of(rank, k) for rank in first_ranks)


def mrr_ignoring_cutoff(first_ranks) -> float:
    """MRR with no cutoff where MRR@k was asked (mistake "ignored-cutoff").

    Example D: 0.511 instead of MRR@4 0.444 (the hit at rank 5 scores 0.2);
    example C: 0.567 instead of MRR@2 0.500.

    >>> round(mrr_ignoring_cutoff([1, 3, 5]), 3)
    0.511
    """
    return m.mean_reciprocal_rank(first_ranks, None)


def hit_rate_ignoring_cutoff(first_ranks) -> float:
    """The share of queries with a hit at any rank where Hit@k was asked ("ignored-cutoff").

    Example D: 1.000 instead of Hit@4 0.667.

    >>> hit_rate_ignoring_cutoff([1, 3, 5])
    1.0
    """
    return hit_rate_instead_of_mrr(first_ranks, None)


def hit_rate_cutoff_off_by_one(first_ranks, k: int) -> float:
    """Hit rate counting ranks 1..k-1 only, i.e. ``rank < k`` (mistake "cutoff-off-by-one").

    Example A, NEW (2, 3, 2, 4, 2): 0.600 instead of Hit@3 0.800.

    >>> hit_rate_cutoff_off_by_one([2, 3, 2, 4, 2], k=3)
    0.6
    """
    first_ranks, k = m.check_first_ranks(first_ranks), m.check_k(k, allow_none=False)
    return sum(1 for rank in first_ranks if 1 <= rank < k) / len(first_ranks)


def mrr_ranks_from_zero(first_ranks, k: int | None = None) -> float:
    """MRR with 1 / (rank + 1): one added twice to the rank (mistake "ranks-from-zero").

    A miss (0) still scores 0. Example A, OLD: 0.407 instead of 0.750.

    >>> round(mrr_ranks_from_zero([1, 2, 1, 4, 1]), 3)
    0.407
    """
    first_ranks, k = m.check_first_ranks(first_ranks), m.check_k(k)
    scores = [0.0 if m.reciprocal_rank_of(rank, k) == 0 else 1.0 / (rank + 1) for rank in first_ranks]
    return sum(scores) / len(scores)


# --- precision, recall and AP (lesson 06) ------------------------------------


def average_precision_min_k_r(ranked, relevant, k: int) -> float:
    """AP@k divided by min(k, R) where R was asked (mistake "ap-min-k-r").

    With 5 relevant documents and k = 3 it divides by 3 instead of 5.

    >>> round(average_precision_min_k_r(["a", "b", "c"], {"b", "c", "x", "y", "z"}, k=3), 4)
    0.3889
    """
    return m.average_precision(ranked, relevant, k, denominator="min_k_R")


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


def average_precision_ignoring_cutoff(ranked, relevant) -> float:
    """AP over the whole list where AP@k was asked (mistake "ignored-cutoff"; example C: 0.617).

    >>> round(average_precision_ignoring_cutoff(["a", "b", "c"], {"a", "c"}), 4)
    0.8333
    """
    return m.average_precision(ranked, relevant, None)


def recall_min_k_r(ranked, relevant, k: int) -> float:
    """Recall@k divided by min(k, R) where R was asked (mistake "recall-min-k-r").

    Example E at K = 3: 0.667 instead of 0.500 (R = 4).

    >>> round(recall_min_k_r(["r2", "r1", "r4"], {"r1", "r2", "r3", "r5"}, k=3), 3)
    0.667
    """
    return m.recall_at_k(ranked, relevant, k, denominator="min_k_R")


def precision_instead_of_recall(ranked, relevant, k: int) -> float:
    """Precision@k given as the recall@k (mistake "precision-for-recall").

    Example E at K = 3: 0.667 (two relevant results in three) instead of 0.500
    (two of the four relevant documents).

    >>> round(precision_instead_of_recall(["r2", "r1", "r4"], {"r1", "r2", "r3", "r5"}, k=3), 3)
    0.667
    """
    return m.precision_at_k(ranked, relevant, k)


# --- more slips: the mean of the ranks, the rank as discount, 2^g, the ideal's order ---


def _ranks_of_hits(first_ranks, k: int | None) -> list[int]:
    first_ranks, k = m.check_first_ranks(first_ranks), m.check_k(k)
    return [rank for rank in first_ranks if rank > 0 and (k is None or rank <= k)]


def mrr_mean_of_ranks(first_ranks, k: int | None = None) -> float:
    """The mean of the first relevant ranks (misses left out), given as the MRR ("mean-of-ranks").

    Example A, OLD (1, 2, 1, 4, 1): 1.8 instead of MRR 0.750.

    >>> mrr_mean_of_ranks([1, 2, 1, 4, 1])
    1.8
    """
    hits = _ranks_of_hits(first_ranks, k)
    return sum(hits) / len(hits) if hits else math.nan


def mrr_one_over_mean_rank(first_ranks, k: int | None = None) -> float:
    """1 / (mean first relevant rank) instead of the mean of 1 / rank ("one-over-mean-rank").

    Example A, OLD: 1 / 1.8 = 0.556 instead of 0.750.

    >>> round(mrr_one_over_mean_rank([1, 2, 1, 4, 1]), 3)
    0.556
    """
    mean_rank = mrr_mean_of_ranks(first_ranks, k)
    return 1 / mean_rank if math.isfinite(mean_rank) else math.nan


def dcg_rank_discount(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """DCG dividing each gain by its rank instead of log2(rank + 1) ("rank-as-discount").

    Example C: 2 + 0 + 3/3 + 1/4 + 0 = 3.25 instead of DCG@5 3.931.

    >>> dcg_rank_discount([2, 0, 3, 1, 0, 2], k=5)
    3.25
    """
    return _discounted_sum(grades, k, gain, lambda rank: float(rank))


def ndcg_rank_discount(grades, k: int | None = None, ideal=None, gain: Gain = "linear") -> float:
    """nDCG with the rank as discount on both DCG and ideal (example C: 0.554 instead of 0.550).

    >>> round(ndcg_rank_discount([2, 0, 3, 1, 0, 2], k=5, ideal=[2, 0, 3, 1, 0, 2, 3]), 3)
    0.554
    """
    return _normalised(dcg_rank_discount, grades, k, ideal, gain)


def dcg_natural_log(grades, k: int | None = None, gain: Gain = "linear") -> float:
    """DCG discounted by ln(rank + 1) instead of log2(rank + 1) (mistake "natural-log").

    >>> round(dcg_natural_log([2, 0, 3, 0, 0], k=5), 4)
    5.0494
    """
    return _discounted_sum(grades, k, gain, lambda rank: math.log(rank + 1))


def dcg_exp_without_minus_one(grades, k: int | None = None) -> float:
    """DCG with the gain 2^grade (the - 1 forgotten): a grade-0 result earns 1 ("exp-without-minus-one").

    >>> round(dcg_exp_without_minus_one([1, 2, 0], k=3), 4)
    5.0237
    """
    grades, k = m.check_grades(grades), m.check_k(k)
    check_exponential_grades(grades)
    return sum(2.0**grade / m.discount(rank) for rank, grade in enumerate(m.cut(grades, k), start=1))


def ndcg_exp_without_minus_one(grades, k: int | None = None, ideal=None) -> float:
    """nDCG with the gain 2^grade on both DCG and ideal (example E at K = 3: 0.8023 instead of 0.7003).

    >>> round(ndcg_exp_without_minus_one([1, 2, 0, 0, 1, 1], k=3), 4)
    0.8023
    """
    ideal = m.check_grades(grades if ideal is None else ideal, name="ideal")
    best = dcg_exp_without_minus_one(sorted(ideal, reverse=True), k)
    return _ratio(dcg_exp_without_minus_one(grades, k), best)


def ndcg_unsorted_ideal(grades, ideal_in_listed_order, k: int | None = None, gain: Gain = "linear") -> float:
    """nDCG whose ideal DCG is computed on the judged grades in their listed order ("unsorted-ideal").

    Example B (judged D11 3, D4 2, D1 0 ...) happens to be sorted already; example C's judgments
    file lists 2, 0, 3, 1, 0, 2, 3 and gives 1.000 instead of NDCG@5 0.550.

    >>> ndcg_unsorted_ideal([2, 0, 3, 1, 0, 2], [2, 0, 3, 1, 0, 2, 3], k=5)
    1.0
    """
    listed = m.check_grades(ideal_in_listed_order, name="ideal")
    return _ratio(m.dcg(grades, k, gain), m.dcg(listed, k, gain))


def recall_instead_of_precision(ranked, relevant, k: int) -> float:
    """Recall@k given as the precision@k ("recall-for-precision"; example E at K = 3: 0.500 for 0.667).

    >>> recall_instead_of_precision(["r2", "r1", "r4"], {"r1", "r2", "r3", "r5"}, k=3)
    0.5
    """
    return m.recall_at_k(ranked, relevant, k)
