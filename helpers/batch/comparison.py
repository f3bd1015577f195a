"""Compare two systems on the same queries: differences, significance, effect size, plots (lesson 09).

The unit of comparison is the query. For every query both systems were scored
on, ``difference = B - A``; everything else is computed from those differences:

- a paired randomization (sign-flip permutation) test: if A and B were
  interchangeable, each difference would be as likely to be +d as -d; the
  p-value is the share of random sign flips whose mean difference is at least
  as far from 0 as the observed one (two-sided). It is written out here
  because it is short and 5-20x faster than ``scipy.stats.permutation_test``,
  which the tests check it against;
- a paired t-test (``scipy.stats.ttest_rel``);
- the Wilcoxon signed-rank test (``scipy.stats.wilcoxon``): ranks the sizes of
  the differences, so one huge query cannot decide it; zero differences are
  left out (scipy's default, ``zero_method="wilcox"``);
- Cohen's d of the differences (often written d_z): mean / standard deviation;
- a bootstrap confidence interval of the mean difference: resample the
  queries with replacement, take the percentile interval of the means
  (``scipy.stats.bootstrap``).

The summary says how many random draws each random procedure made
(``bootstrap_resamples``, ``randomization_resamples``: 2**n when every sign
pattern of n queries was tried, which makes p exact).

Several comparisons at once (several measures in :func:`compare_all`, several
systems against one baseline in :func:`compare_systems`) also get each
p-value corrected with Holm's step-down method (Holm 1979, "A simple
sequentially rejective multiple test procedure"): sort the m p-values, multiply
the i-th smallest by m - i + 1, keep them increasing, cap at 1. It controls the
chance of any false "significant" among the m at the chosen level, like
Bonferroni, and rejects at least as often.

Differences within 1e-12 of 0 (one system scored twice, e.g. by two
libraries) mean identical systems: p = 1 and d = 0. When every query moves by
the same non-zero amount there is no spread: the t-test and d are undefined
(NaN), never infinite.

Every random step takes a ``seed``, so the same call gives the same numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from helpers._checks import check_number, check_whole
from helpers.batch.evaluation import Evaluation

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_CHUNK_CELLS = 2_000_000  # random draws held in memory at once
ZERO_DIFFERENCE = 1e-12  # differences this close to 0 are float rounding, not a difference


# --- input checks ----------------------------------------------------------


def _check_differences(differences) -> np.ndarray:
    """Return the differences as a 1-D float array after checking they are finite numbers."""
    if isinstance(differences, str | bytes | dict):
        raise TypeError(f"differences must be a list or array of numbers, got {type(differences).__name__}")
    values = np.asarray(differences, dtype="float64")
    if values.ndim != 1:
        raise ValueError(f"differences must be one number per query (1-D), got shape {values.shape}")
    if len(values) == 0:
        raise ValueError("differences is empty: a comparison needs at least one query")
    if not np.isfinite(values).all():
        raise ValueError("differences must be finite numbers (no NaN or infinity)")
    return values


def _check_resamples(n_resamples) -> int:
    return check_whole(n_resamples, "n_resamples")


def _check_seed(seed) -> int:
    return check_whole(seed, "seed", minimum=0)


def _check_confidence(confidence) -> float:
    confidence = check_number(confidence, "confidence", above=0)
    if not confidence < 1:
        raise ValueError(f"confidence must be below 1 (e.g. 0.95), got {confidence:g}")
    return confidence


# --- the four statistics ---------------------------------------------------


def randomization_test(differences, n_resamples: int = 10_000, seed: int = 0) -> float:
    """Two-sided p-value of a paired randomization (sign-flip) test of mean difference 0 (lesson 09).

    p = share of sign patterns s with |mean(s * d)| >= |mean(d)|. With at most
    ``n_resamples`` possible patterns (2**n for n queries) every pattern is
    tried and p is exact; otherwise ``n_resamples`` random patterns are drawn
    and p = (hits + 1) / (n_resamples + 1), which is never 0. Identical
    systems (all differences 0) give p = 1.

    >>> randomization_test([1.0, 2.0, 3.0])  # 8 patterns; only +++ and --- reach |mean| 2
    0.25
    """
    values = _check_differences(differences)
    n_resamples, seed = _check_resamples(n_resamples), _check_seed(seed)
    observed = abs(values.mean())
    tolerance = 1e-12 * max(1.0, observed)  # equal means computed in a different order still count
    if 2 ** len(values) <= n_resamples:
        patterns = np.arange(2 ** len(values))[:, None] >> np.arange(len(values)) & 1
        means = np.abs((1 - 2 * patterns) @ values) / len(values)
        return float(np.mean(means >= observed - tolerance))
    rng, hits, done = np.random.default_rng(seed), 0, 0
    while done < n_resamples:
        rows = min(n_resamples - done, max(1, _CHUNK_CELLS // len(values)))
        flips = rng.integers(0, 2, size=(rows, len(values)), dtype=np.int8)  # 1 = this sign flips
        flipped_sums = values.sum() - 2.0 * (flips @ values)  # sum of s * d with s = 1 - 2 * flip
        hits += int(np.sum(np.abs(flipped_sums) / len(values) >= observed - tolerance))
        done += rows
    return (hits + 1) / (n_resamples + 1)


def paired_t_test(differences) -> tuple[float, float]:
    """t statistic and two-sided p-value of the paired t-test: t = mean(d) / (sd(d) / sqrt(n)) (lesson 09).

    Same as ``scipy.stats.ttest_rel(b, a)``. Differences all within 1e-12 of 0
    (identical systems, up to float rounding) give (0.0, 1.0). Differences
    that are all the same non-zero number have no spread: t and p are
    undefined and returned as NaN.

    >>> t, p = paired_t_test([0.1, 0.2, 0.3])
    >>> round(t, 3), round(p, 3)
    (3.464, 0.074)
    """
    values = _check_differences(differences)
    if len(values) < 2:
        raise ValueError("the paired t-test needs at least 2 queries")
    if _all_zero(values):
        return 0.0, 1.0
    if _no_spread(values):
        return math.nan, math.nan
    from scipy import stats  # imported here: scipy.stats takes a second to load, most evaluations never test

    result = stats.ttest_1samp(values, 0.0)
    return float(result.statistic), float(result.pvalue)


def cohens_d(differences) -> float:
    """Effect size of paired differences: d = mean(d) / sd(d), with sd using n - 1 (lesson 09).

    Rough reading: 0.2 small, 0.5 medium, 0.8 large. Differences all within
    1e-12 of 0 give 0.0; the same non-zero difference on every query (sd = 0)
    leaves d undefined: NaN.

    >>> round(cohens_d([0.1, 0.2, 0.3]), 3)
    2.0
    """
    values = _check_differences(differences)
    if len(values) < 2:
        raise ValueError("Cohen's d needs at least 2 queries (the standard deviation uses n - 1)")
    if _all_zero(values):
        return 0.0
    if _no_spread(values):
        return math.nan
    return float(values.mean() / values.std(ddof=1))


def _all_zero(values: np.ndarray) -> bool:
    """True when every difference is 0 up to float rounding (ZERO_DIFFERENCE)."""
    return bool(np.max(np.abs(values)) <= ZERO_DIFFERENCE)


def _no_spread(values: np.ndarray) -> bool:
    """True when every difference is the same number (up to float rounding)."""
    return bool(np.ptp(values) <= ZERO_DIFFERENCE * max(1.0, abs(values.mean())))


ZERO_METHODS = ("wilcox", "pratt", "zsplit")


def wilcoxon_test(differences, zero_method: str = "wilcox") -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test of the differences (lesson 09).

    The same as ``scipy.stats.wilcoxon(differences, zero_method=...).pvalue``
    with scipy's other defaults (the exact distribution for up to 50 queries
    without ties, the normal approximation otherwise). Zero differences are
    left out by default (``"wilcox"``, Wilcoxon's rule); ``"pratt"`` ranks
    them with the others and then drops their ranks, ``"zsplit"`` splits
    their ranks between the two signs. With many ties the rules can disagree
    a lot, so say which one a p-value used. Differences within 1e-12 of 0
    count as 0; when every difference is 0 (identical systems) p = 1.

    >>> round(wilcoxon_test([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]), 4)
    0.0312
    """
    values = _check_differences(differences)
    if zero_method not in ZERO_METHODS:
        raise ValueError(f"zero_method must be one of {', '.join(ZERO_METHODS)}, got {zero_method!r}")
    values = np.where(np.abs(values) <= ZERO_DIFFERENCE, 0.0, values)
    if not values.any():
        return 1.0
    from scipy import stats

    return float(stats.wilcoxon(values, zero_method=zero_method).pvalue)


def holm(p_values) -> np.ndarray:
    """Holm's step-down correction of several p-values, in their order (lesson 09).

    The i-th smallest of m p-values becomes (m - i + 1) * p, raised to the
    one before it if that is larger, capped at 1. Reject a hypothesis when
    its corrected p is at most the level (e.g. 0.05).

    >>> holm([0.01, 0.04, 0.03, 0.005]).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    values = np.asarray(p_values, dtype="float64")
    if values.ndim != 1 or not np.all((values >= 0) & (values <= 1)):
        raise ValueError(f"p-values must be a list of numbers between 0 and 1, got {p_values!r}")
    order = np.argsort(values, kind="stable")
    m = len(values)
    stepped = np.maximum.accumulate((m - np.arange(m)) * values[order])
    corrected = np.empty(m)
    corrected[order] = np.minimum(stepped, 1.0)
    return corrected


def bootstrap_ci(
    differences, confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean difference, with ``scipy.stats.bootstrap`` (lesson 09).

    Draw n queries with replacement ``n_resamples`` times, take each mean, and
    return the (1 - confidence) / 2 and (1 + confidence) / 2 quantiles.

    >>> bootstrap_ci([0.5, 0.5, 0.5])
    (0.5, 0.5)
    """
    values = _check_differences(differences)
    confidence = _check_confidence(confidence)
    n_resamples, seed = _check_resamples(n_resamples), _check_seed(seed)
    if len(values) < 2:
        raise ValueError("a bootstrap interval needs at least 2 queries")
    from scipy import stats

    result = stats.bootstrap(
        (values,), np.mean, n_resamples=n_resamples, confidence_level=confidence, method="percentile",
        vectorized=True, batch=max(1, _CHUNK_CELLS // len(values)), random_state=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


# --- pairing two systems -----------------------------------------------------


def _scores(system, measure, name: str) -> pd.Series:
    """One system's per-query scores for one measure as a Series indexed by query id."""
    if isinstance(system, Evaluation):
        system = system.per_query
    if isinstance(system, pd.DataFrame):
        if measure is None:
            if system.shape[1] != 1:
                raise ValueError(f"{name} has the measures {list(system.columns)}: pick one with measure=")
            measure = system.columns[0]
        if measure not in system.columns:
            raise ValueError(f"{name} has no measure {measure!r}; it has {list(system.columns)}")
        system = system[measure]
    if not isinstance(system, pd.Series):
        raise TypeError(
            f"{name} must be an Evaluation, a per-query DataFrame or a Series of per-query scores, "
            f"got {type(system).__name__}"
        )
    if not system.index.is_unique:
        repeated = list(system.index[system.index.duplicated()][:3])
        raise ValueError(f"{name} lists a query more than once: {repeated}")
    numbers = ("floating", "integer", "mixed-integer-float", "empty")
    if not pd.api.types.is_numeric_dtype(system) and pd.api.types.infer_dtype(system, skipna=True) not in numbers:
        raise TypeError(f"{name}'s {system.name!r} is not a score per query (relstring is text: the grades of the "
                        "top documents); compare a measure with numbers")
    return system.astype("float64")


def paired_scores(a, b, measure: str | None = None, names=("A", "B")) -> pd.DataFrame:
    """Both systems' per-query scores side by side, and ``difference`` = B - A (lesson 09).

    ``a`` and ``b`` are :class:`~helpers.batch.evaluation.Evaluation` results, per-query
    DataFrames (pick a column with ``measure``) or Series indexed by query id.
    Both must cover the same queries: a comparison on different query sets
    raises ``ValueError`` (evaluate both runs against the same qrels with
    ``missing="zero"``). Queries blank (NaN) for both systems, e.g. after
    ``no_relevant="skip"``, are left out.

    >>> a = pd.Series({"q1": 0.5, "q2": 1.0}); b = pd.Series({"q1": 1.0, "q2": 1.0})
    >>> paired_scores(a, b)["difference"].tolist()
    [0.5, 0.0]
    """
    names = _check_names(names)
    first, second = _scores(a, measure, names[0]), _scores(b, measure, names[1])
    only_first, only_second = first.index.difference(second.index), second.index.difference(first.index)
    if len(only_first) or len(only_second):
        raise ValueError(
            f"the systems were scored on different queries: {len(only_first)} only in {names[0]} "
            f"(e.g. {list(only_first[:3])}), {len(only_second)} only in {names[1]} "
            f"(e.g. {list(only_second[:3])}); "
            "compare on the same queries: evaluate both runs with the same qrels and missing='zero'"
        )
    table = pd.DataFrame({names[0]: first, names[1]: second.reindex(first.index)})
    blank = table.isna()
    if (blank.any(axis=1) & ~blank.all(axis=1)).any():
        query = table.index[(blank.any(axis=1) & ~blank.all(axis=1)).to_numpy()][0]
        raise ValueError(f"query {query!r} has a score for one system only (NaN for the other)")
    table = table[~blank.all(axis=1)]
    table["difference"] = table[names[1]] - table[names[0]]
    return table


def _check_names(names) -> tuple[str, str]:
    if not isinstance(names, list | tuple) or len(names) != 2 or len(set(map(str, names))) != 2:
        raise ValueError(f"names must be two different labels such as ('A', 'B'), got {names!r}")
    if "difference" in names:
        raise ValueError("'difference' is the name of the computed column; choose other system names")
    return str(names[0]), str(names[1])


# --- the whole comparison ----------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """What :func:`compare` returns (lesson 09).

    ``per_query``: one row per query with both scores and ``difference`` (B - A).
    ``summary``: n_queries, mean of each system, mean_difference, ci_low and
    ci_high (bootstrap) and its confidence level, p_randomization, t_statistic, p_t_test, p_wilcoxon,
    cohens_d, wins / losses / ties (queries where B is above / below / equal
    to A; a difference within ZERO_DIFFERENCE, 1e-12, is a tie, as for p and
    d), bootstrap_resamples and randomization_resamples (the random draws
    made; 2**n_queries sign patterns when the randomization test tried them all).
    """

    per_query: pd.DataFrame
    summary: pd.Series
    measure: str
    names: tuple[str, str]


def compare(
    a,
    b,
    measure: str | None = None,
    *,
    names=("A", "B"),
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Comparison:
    """Compare system B with system A query by query on one measure (lesson 09).

    Parameters: ``a``, ``b`` and ``measure`` as in :func:`paired_scores`;
    ``names`` label the two systems; ``n_resamples`` random draws for the
    randomization test and the bootstrap; ``confidence`` of the interval;
    ``seed`` makes both random procedures repeatable. Needs at least 2 queries.

    >>> a = pd.Series({"q1": 0.2, "q2": 0.4, "q3": 0.6}); b = a + 0.1
    >>> c = compare(a, b)
    >>> round(float(c.summary["mean_difference"]), 3), float(c.summary["p_randomization"])
    (0.1, 0.25)
    """
    table = paired_scores(a, b, measure, names)
    if len(table) < 2:
        raise ValueError(f"a comparison needs at least 2 queries scored for both systems, got {len(table)}")
    differences = table["difference"].to_numpy()
    low, high = bootstrap_ci(differences, confidence, n_resamples, seed)
    t_statistic, p_t_test = paired_t_test(differences)
    first, second = table.columns[:2]
    summary = pd.Series(
        {
            "n_queries": len(table),
            f"mean_{first}": table[first].mean(),
            f"mean_{second}": table[second].mean(),
            "mean_difference": differences.mean(),
            "ci_low": low,
            "ci_high": high,
            "confidence": confidence,
            "p_randomization": randomization_test(differences, n_resamples, seed),
            "t_statistic": t_statistic,
            "p_t_test": p_t_test,
            "p_wilcoxon": wilcoxon_test(differences),
            "cohens_d": cohens_d(differences),
            **_wins_losses_ties(differences),
            "bootstrap_resamples": n_resamples,
            "randomization_resamples": min(2 ** len(differences), n_resamples),
        },
        name=str(measure or _only_measure(a)),
    )
    return Comparison(table, summary, str(summary.name), (first, second))


def _wins_losses_ties(differences) -> dict[str, int]:
    """Queries where B is above, below or equal to A; within ZERO_DIFFERENCE is equal (for compare and groups)."""
    differences = np.asarray(differences, dtype="float64")
    wins = int(np.sum(differences > ZERO_DIFFERENCE))
    losses = int(np.sum(differences < -ZERO_DIFFERENCE))
    return {"wins": wins, "losses": losses, "ties": len(differences) - wins - losses}


def _only_measure(system) -> str:
    if isinstance(system, Evaluation):
        system = system.per_query
    if isinstance(system, pd.DataFrame):
        return str(system.columns[0])
    return str(system.name) if system.name is not None else "score"


P_VALUES = ("p_randomization", "p_t_test", "p_wilcoxon")


def compare_all(a: Evaluation, b: Evaluation, measures=None, **options) -> pd.DataFrame:
    """One summary row per measure (columns as in ``Comparison.summary``), p-values also Holm-corrected (lesson 09).

    ``measures`` defaults to every measure of ``a``; ``options`` go to
    :func:`compare`. Testing several measures is several tests: the columns
    ``p_randomization_holm``, ``p_t_test_holm`` and ``p_wilcoxon_holm`` hold
    each p-value corrected over the measures with :func:`holm`.
    """
    if not isinstance(a, Evaluation) or not isinstance(b, Evaluation):
        raise TypeError("compare_all takes two Evaluation results of helpers.batch.evaluate")
    if measures is None:  # every measure with numbers (not relstring, which is text)
        measures = [column for column in a.per_query.columns if pd.api.types.is_numeric_dtype(a.per_query[column])]
    measures = list(measures)
    rows = [compare(a, b, measure, **options).summary for measure in measures]
    return _with_holm(pd.DataFrame(rows).rename_axis("measure"))


def compare_systems(baseline, systems: dict, measure: str | None = None, *, baseline_name: str = "baseline",
                    **options) -> pd.DataFrame:
    """Each system against one baseline on one measure: a summary row per system, p-values Holm-corrected (lesson 09).

    ``baseline`` and each value of ``systems`` (name -> system) are what
    :func:`compare` takes; ``options`` go to :func:`compare`. The columns
    ``p_randomization_holm``, ``p_t_test_holm`` and ``p_wilcoxon_holm``
    correct each p-value over the systems with :func:`holm`: with five
    systems, one of them beating the baseline by luck at p < 0.05 is far more
    likely than 5 %.
    """
    if not isinstance(systems, dict) or not systems:
        raise TypeError("systems must be a dict of at least one name -> system (an Evaluation or scores)")
    rows = []
    for name, system in systems.items():
        summary = compare(baseline, system, measure, names=(baseline_name, "system"), **options).summary
        rows.append(summary.rename(str(name)))
    return _with_holm(pd.DataFrame(rows).rename_axis("system"))


def _with_holm(table: pd.DataFrame) -> pd.DataFrame:
    for column in P_VALUES:
        values = table[column].to_numpy(dtype="float64")
        known = ~np.isnan(values)  # a t-test without spread has no p-value: it is left out, not corrected
        corrected = np.full(len(values), np.nan)
        corrected[known] = holm(values[known])
        table[f"{column}_holm"] = corrected
    return table


def differences_by_group(comparison: Comparison, groups) -> pd.DataFrame:
    """Mean scores, mean difference, wins and losses per group of queries (lesson 09).

    ``groups`` maps each query id to a label (a dict or a Series), e.g. the
    query type; every compared query needs one.
    """
    if not isinstance(comparison, Comparison):
        raise TypeError("comparison must be the result of compare()")
    labels = pd.Series(groups) if isinstance(groups, dict) else groups
    if not isinstance(labels, pd.Series):
        raise TypeError("groups must be a dict or a Series: query id -> group label")
    labels = labels.reindex(comparison.per_query.index)
    if labels.isna().any():
        raise ValueError(f"no group for the queries {list(labels.index[labels.isna()][:3])}")
    table = comparison.per_query.assign(group=labels.to_numpy())
    first, second = comparison.names
    return table.groupby("group").agg(
        n_queries=("difference", "size"),
        **{f"mean_{first}": (first, "mean"), f"mean_{second}": (second, "mean")},
        mean_difference=("difference", "mean"),
        wins=("difference", lambda d: _wins_losses_ties(d)["wins"]),
        losses=("difference", lambda d: _wins_losses_ties(d)["losses"]),
    )


# --- reading the numbers -------------------------------------------------------

P_DISPLAY_FLOOR = 1e-4  # a p-value below this prints as "p < 0.0001": more digits say nothing a learner can use
EFFECT_SIZES = ((0.2, "negligible"), (0.5, "small"), (0.8, "medium"), (math.inf, "large"))  # Cohen's rough bands


def format_p(p: float, resamples: int | None = None, exact: bool = False) -> str:
    """A p-value as a learner should read it: "p = 0.0123", or "p < ..." below what the test can show (lesson 09).

    A randomization test that drew ``resamples`` random sign patterns cannot
    give less than 1 / (resamples + 1): at that floor no pattern reached the
    observed mean, and all it says is "p < 1/(resamples + 1)". ``exact=True``
    (every pattern tried) prints the exact share. Any p below 0.0001 prints
    as "p < 0.0001".

    >>> format_p(1 / 10_001, resamples=10_000), format_p(0.04321), format_p(1e-42), format_p(0.125, exact=True)
    ('p < 0.0001', 'p = 0.0432', 'p < 0.0001', 'p = 0.125')
    """
    if isinstance(p, float | np.floating) and math.isnan(p):
        return "p undefined (the differences do not vary)"
    p = check_number(p, "p", at_least=0)
    if resamples is not None and not exact:
        floor = 1 / (check_whole(resamples, "resamples") + 1)
        if p <= floor * (1 + 1e-9):
            return f"p < {_round_up(floor)}"
    if p < P_DISPLAY_FLOOR:
        return "p < 0.0001"
    return f"p = {p:g}" if exact else f"p = {p:.4f}"


def _round_up(value: float) -> str:
    """The smallest one-significant-digit decimal at or above value: 1/10001 -> '0.0001', 1/1001 -> '0.001'."""
    exponent = math.floor(math.log10(value))
    digit = math.ceil(round(value / 10**exponent, 9))
    if digit == 10:
        digit, exponent = 1, exponent + 1
    return f"{digit * 10.0**exponent:.{max(0, -exponent)}f}"


def effect_size_word(d: float) -> str:
    """Cohen's rough reading of |d|: below 0.2 negligible, then small, medium (0.5) and large (0.8) (lesson 09).

    >>> effect_size_word(-0.09), effect_size_word(0.35), effect_size_word(1.2)
    ('negligible', 'small', 'large')
    """
    if math.isnan(d):
        return "undefined (the differences do not vary)"
    return next(word for bound, word in EFFECT_SIZES if abs(d) < bound)


def _randomization_p_text(summary: pd.Series) -> str:
    n_queries, resamples = int(summary["n_queries"]), int(summary["randomization_resamples"])
    return format_p(float(summary["p_randomization"]), resamples, exact=resamples == 2**n_queries)


def readable_summary(comparison: Comparison) -> pd.DataFrame:
    """The summary of :func:`compare` as a learner reads it: value and how it was computed, one row each (lesson 09).

    Counts are whole numbers, p-values at a resampling floor print as
    "p < 1/(n + 1)", and each row says which variant of the statistic it is:
    d is the mean difference over the standard deviation of the differences,
    the interval's level is given, and the Wilcoxon row says how its zero
    differences were treated (and what another standard rule gives).
    """
    if not isinstance(comparison, Comparison):
        raise TypeError("comparison must be the result of compare()")
    summary, (first, second) = comparison.summary, comparison.names
    differences = comparison.per_query["difference"].to_numpy()
    n_queries = int(summary["n_queries"])
    zeros = int(np.sum(np.abs(differences) <= ZERO_DIFFERENCE))
    level = _interval_level(summary)
    resamples = int(summary["randomization_resamples"])
    exact = resamples == 2**n_queries
    pratt = wilcoxon_test(differences, zero_method="pratt")
    rows = [
        ("queries", f"{n_queries}", "questions scored for both systems"),
        (f"mean {first}", f"{summary[f'mean_{first}']:.4f}", comparison.measure),
        (f"mean {second}", f"{summary[f'mean_{second}']:.4f}", comparison.measure),
        (f"mean difference {second} - {first}", f"{summary['mean_difference']:+.4f}",
         "mean of the per-question differences"),
        (f"{level} bootstrap interval", f"{summary['ci_low']:+.4f} to {summary['ci_high']:+.4f}",
         f"percentile interval of {int(summary['bootstrap_resamples'])} means of questions drawn with replacement"),
        ("randomization test", _randomization_p_text(summary),
         f"two-sided sign-flip test: all {resamples} sign patterns, so p is exact" if exact else
         f"two-sided sign-flip test: {resamples} random sign patterns, so p is never below 1/{resamples + 1}"),
        ("paired t-test", f"{format_p(float(summary['p_t_test']))} (t = {summary['t_statistic']:.2f})",
         "t = mean difference / (SD of the differences / sqrt(n)), n - 1 degrees of freedom"),
        ("Wilcoxon signed-rank test", format_p(float(summary["p_wilcoxon"])),
         f"{zeros} zero differences left out (Wilcoxon's rule, scipy's default); ranking them with the "
         f"others (Pratt's rule) gives {format_p(pratt)}"),
        ("Cohen's d", f"{summary['cohens_d']:+.2f} ({effect_size_word(float(summary['cohens_d']))})",
         f"d_z = mean difference / SD of the {n_queries} differences (n - 1); not the pooled-SD d of two groups"),
        (f"{second} wins / losses / ties", " / ".join(str(int(summary[key])) for key in ("wins", "losses", "ties")),
         f"questions where {second} scores above / below / the same as {first}"),
    ]
    return pd.DataFrame(rows, columns=["statistic", "value", "how it is computed"]).set_index("statistic")


def _interval_level(summary: pd.Series) -> str:
    return f"{100 * float(summary['confidence']):g} %"


def reading(comparison: Comparison, level: float = 0.05) -> str:
    """A few sentences that read one comparison: direction, interval, evidence and effect size (lesson 09).

    A p-value above ``level`` is read as "no evidence of a difference", never
    as "the same"; a p-value at or below it with a negligible d is called a
    difference too small to matter.
    """
    if not isinstance(comparison, Comparison):
        raise TypeError("comparison must be the result of compare()")
    level = check_number(level, "level", above=0)
    summary, (first, second) = comparison.summary, comparison.names
    d = float(summary["cohens_d"])
    p = float(summary["p_randomization"])
    sentences = [
        f"On {comparison.measure}, {second} - {first} = {summary['mean_difference']:+.4f} on average over "
        f"{int(summary['n_queries'])} questions ({_interval_level(summary)} bootstrap interval "
        f"{summary['ci_low']:+.4f} to {summary['ci_high']:+.4f}); randomization test {_randomization_p_text(summary)}."
    ]
    if p > level:
        sentences.append(
            f"Above {level:g}: no evidence of a difference on these questions, which is not evidence that "
            "the two systems are the same."
        )
    else:
        sentences.append(f"At or below {level:g}: a difference larger than the noise between questions.")
    word = effect_size_word(d)
    sentences.append(
        f"Cohen's d = {d:+.2f}, {word}"
        + (": too small to matter, however small p is." if word == "negligible" and p <= level else ".")
    )
    return " ".join(sentences)


def readable_table(table: pd.DataFrame) -> pd.DataFrame:
    """A table of :func:`compare_all` with its p-values as text and its counts as whole numbers (lesson 09).

    A randomization p at the test's floor prints as "p < 1/(n + 1)"; its
    Holm-corrected value is then an upper bound too, and prints as "p < ...".
    """
    if not isinstance(table, pd.DataFrame) or "p_randomization" not in table.columns:
        raise TypeError("table must be the result of compare_all() (or compare_systems())")
    shown = table.copy()
    resamples = table["randomization_resamples"].astype(int)
    exact = resamples == 2 ** table["n_queries"].astype(int)
    at_floor = ~exact & (table["p_randomization"] <= (1 + 1e-9) / (resamples + 1))
    shown["p_randomization"] = [
        format_p(p, n, exact=is_exact)
        for p, n, is_exact in zip(table["p_randomization"], resamples, exact, strict=True)
    ]
    for column in [c for c in table.columns if c.startswith("p_") and c != "p_randomization"]:
        bounded = at_floor if column == "p_randomization_holm" else pd.Series(False, index=table.index)
        shown[column] = [
            f"p < {_round_up(p)}" if bound and p < 1 else format_p(p)
            for p, bound in zip(table[column], bounded, strict=True)
        ]
    for column in ("n_queries", "wins", "losses", "ties", "bootstrap_resamples", "randomization_resamples"):
        if column in shown.columns:
            shown[column] = shown[column].astype(int)
    return shown


def read_all(table: pd.DataFrame, level: float = 0.05) -> str:
    """Which measures of :func:`compare_all` show a difference after Holm's correction, and how large (lesson 09)."""
    if not isinstance(table, pd.DataFrame) or "p_randomization_holm" not in table.columns:
        raise TypeError("table must be the result of compare_all() (or compare_systems())")
    level = check_number(level, "level", above=0)
    survive = table.index[table["p_randomization_holm"] <= level]
    raw_only = table.index[(table["p_randomization"] <= level) & (table["p_randomization_holm"] > level)]
    rest = table.index.difference(survive.union(raw_only), sort=False)

    def described(name) -> str:
        row = table.loc[name]
        return (f"{name} ({row['mean_difference']:+.4f}, d = {row['cohens_d']:+.2f}, "
                f"{effect_size_word(float(row['cohens_d']))})")

    sentences = [f"{len(table)} measures are {len(table)} tests; after Holm's correction at {level:g}:"]
    sentences.append(
        "a difference on " + " and ".join(map(described, survive)) + "." if len(survive)
        else "no measure shows a difference."
    )
    if len(raw_only):
        sentences.append(
            "Below " + f"{level:g} before the correction only, so not evidence of a difference: "
            + ", ".join(f"{name} (raw p {table.loc[name, 'p_randomization']:.3f}, Holm "
                        f"{table.loc[name, 'p_randomization_holm']:.3f})" for name in raw_only) + "."
        )
    if len(rest):
        sentences.append("No evidence of a difference on " + " or ".join(map(str, rest)) + ".")
    negligible = [str(name) for name in survive if effect_size_word(float(table.loc[name, "cohens_d"])) == "negligible"]
    if negligible:
        sentences.append(f"{' and '.join(negligible)}: significant, but the effect is negligible (|d| < 0.2).")
    return " ".join(sentences)


# --- plots -------------------------------------------------------------------


def plot_comparison(comparison: Comparison, bins: int = 20) -> Figure:
    """Left: the per-query score distribution of both systems; right: every query's difference (lesson 09).

    The right panel sorts the differences from B's best win to its worst loss
    and draws the mean difference with its bootstrap interval.
    """
    if not isinstance(comparison, Comparison):
        raise TypeError("comparison must be the result of compare()")
    import matplotlib.pyplot as plt  # here, not at the top: `python -m helpers.batch` starts without it

    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4), layout="constrained")
    first, second = comparison.names
    table, summary = comparison.per_query, comparison.summary
    scores = table[[first, second]].to_numpy()
    edges = np.linspace(min(scores.min(), 0), max(scores.max(), 1), bins + 1)
    for name in (first, second):
        left.hist(table[name], bins=edges, histtype="step", linewidth=1.8,
                  label=f"{name} (mean {table[name].mean():.3f})")
    left.set(xlabel=comparison.measure, ylabel="queries", title=f"{comparison.measure} per query")
    left.legend(loc="best")
    ordered = table["difference"].sort_values(ascending=False).to_numpy()
    right.stairs(np.maximum(ordered, 0), fill=True, color="tab:green", label=f"{second} better")
    right.stairs(np.minimum(ordered, 0), fill=True, color="tab:red", label=f"{first} better")
    right.axhline(summary["mean_difference"], color="black", linewidth=1,
                  label=f"mean {summary['mean_difference']:+.3f}")
    # the interval is often too thin to see at this scale: draw it as a bar with caps beside the columns
    right.errorbar(
        [len(ordered) * 1.04], [summary["mean_difference"]],
        yerr=[[summary["mean_difference"] - summary["ci_low"]], [summary["ci_high"] - summary["mean_difference"]]],
        fmt="o", color="black", capsize=6, markersize=4,
        label=f"{_interval_level(summary)} interval {summary['ci_low']:+.3f} to {summary['ci_high']:+.3f}",
    )
    counts = f"{int(summary['wins'])} wins, {int(summary['losses'])} losses, {int(summary['ties'])} ties"
    right.set(xlabel="queries, sorted by difference", ylabel=f"{second} - {first}", title=counts)
    right.legend(loc="upper right")
    return figure


def plot_by_group(comparison: Comparison, groups) -> Figure:
    """Mean score of each system per group of queries, next to the overall mean (lesson 09).

    Shows what an overall average hides when B wins one kind of query and
    loses another.
    """
    table = differences_by_group(comparison, groups)
    first, second = comparison.names
    overall = comparison.per_query[[first, second]].mean()
    labels = [*map(str, table.index), "all queries"]
    heights = {name: [*table[f"mean_{name}"], overall[name]] for name in (first, second)}
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 3.4), layout="constrained")
    positions = np.arange(len(labels))
    for offset, name in zip((-0.2, 0.2), (first, second), strict=True):
        axes.bar(positions + offset, heights[name], width=0.4, label=name)
    axes.set_xticks(positions, labels)
    axes.set(ylabel=f"mean {comparison.measure}", title=f"Mean {comparison.measure} by query group")
    axes.legend(loc="best")
    return figure
