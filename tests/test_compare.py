"""helpers.batch.compare: paired differences, randomization test, t-test, Cohen's d, bootstrap, plots."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from scipy import stats  # noqa: E402

from helpers.batch.comparison import (  # noqa: E402
    Comparison,
    bootstrap_ci,
    cohens_d,
    compare,
    compare_all,
    compare_systems,
    differences_by_group,
    effect_size_word,
    format_p,
    holm,
    paired_scores,
    paired_t_test,
    plot_by_group,
    plot_comparison,
    randomization_test,
    read_all,
    readable_summary,
    readable_table,
    reading,
    wilcoxon_test,
)
from helpers.batch.evaluation import evaluate  # noqa: E402

TREC_EVAL = Path(__file__).resolve().parent / "data" / "trec_eval"


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def scores(values, prefix="q") -> pd.Series:
    return pd.Series(values, index=[f"{prefix}{i}" for i in range(len(values))], dtype="float64")


def random_scores(n: int, seed: int) -> pd.Series:
    return scores(np.random.default_rng(seed).random(n))


# --- identical systems, a constant shift, known answers ---------------------


def test_identical_systems_give_p_1_and_no_effect():
    a = random_scores(40, seed=1)
    summary = compare(a, a.copy()).summary
    assert summary["p_randomization"] == 1.0
    assert (summary["t_statistic"], summary["p_t_test"]) == (0.0, 1.0)
    assert summary["cohens_d"] == 0.0
    assert (summary["ci_low"], summary["ci_high"]) == (0.0, 0.0)
    assert (summary["wins"], summary["losses"], summary["ties"]) == (0, 0, 40)


def test_identical_systems_give_p_1_also_when_every_pattern_is_enumerated():
    a = random_scores(5, seed=2)
    assert randomization_test(paired_scores(a, a)["difference"]) == 1.0


def test_a_constant_large_shift_is_significant_but_has_no_t_or_d():
    a = scores(np.arange(30) / 60)  # multiples of 1/60: a + 0.5 - a is exactly 0.5
    summary = compare(a, a + 0.5).summary
    assert summary["p_randomization"] == pytest.approx(1 / 10_001)  # no random pattern reaches the mean
    # no spread: t, its p-value and d are undefined (NaN), never infinite
    assert np.isnan(summary[["t_statistic", "p_t_test", "cohens_d"]].astype(float)).all()
    assert summary["ci_low"] == summary["ci_high"] == pytest.approx(0.5)
    assert summary["wins"] == 30


def test_a_constant_loss_has_no_t_or_d_either():
    a = scores(np.arange(20) / 40)
    summary = compare(a, a - 0.25).summary
    assert np.isnan(summary["t_statistic"]) and np.isnan(summary["cohens_d"])
    assert summary["mean_difference"] == pytest.approx(-0.25) and summary["losses"] == 20


@pytest.mark.reference
def test_one_system_scored_by_two_libraries_is_identical_not_infinitely_different():
    # the same run scored by pytrec_eval and by helpers differs only by float rounding
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path = TREC_EVAL / "qrels.test", TREC_EVAL / "results.test"
    ours = evaluate(qrels_path, run_path, "nDCG").per_query["nDCG"]
    from helpers.batch import read_qrels, read_run

    qrels, run = read_qrels(qrels_path), read_run(run_path)
    nested = {}
    for qid, docno, grade in qrels[["qid", "docno", "grade"]].itertuples(index=False):
        nested.setdefault(qid, {})[docno] = int(grade)
    ranked = {}
    for qid, docno, score in run[["qid", "docno", "score"]].itertuples(index=False):
        ranked.setdefault(qid, {})[docno] = float(score)
    theirs = pd.Series({qid: v["ndcg"] for qid, v in
                        pytrec_eval.RelevanceEvaluator(nested, {"ndcg"}).evaluate(ranked).items()})
    noise = pd.Series([0.0, 1e-16, -2e-16, 5e-17], index=["a", "b", "c", "d"])  # plus rounding-size noise
    a, b = pd.concat([ours, noise * 0]), pd.concat([theirs, noise])
    summary = compare(a, b).summary
    assert summary["t_statistic"] == 0.0 and summary["p_t_test"] == 1.0
    assert summary["cohens_d"] == 0.0 and summary["p_randomization"] == 1.0
    assert paired_t_test(noise.to_numpy()) == (0.0, 1.0) and cohens_d(noise.to_numpy()) == 0.0


@pytest.mark.parametrize(
    ("differences", "expected"),
    [
        ([1.0, 2.0, 3.0], 2 / 8),  # only +++ and --- reach |mean| 2
        ([1.0, 1.0, 1.0, 1.0], 2 / 16),
        ([3.0, 1.0], 2 / 4),  # ++ and -- give |mean| 2, +- and -+ give 1
        ([1.0, -1.0], 1.0),  # observed mean 0: every pattern is at least as extreme
        ([0.5], 1.0),  # one query: +0.5 and -0.5 are equally extreme
        ([2.0, 1.0, 1.0], 2 / 8),  # sums +-4, +-2, +-2, +-0: only +++ and --- reach 4
        ([1.0, 0.0, 0.0], 8 / 8),  # a zero difference flips to itself: every pattern reaches |mean| 1/3
    ],
)
def test_exact_randomization_p_values(differences, expected):
    assert brute_force_p(differences) == pytest.approx(expected)
    assert randomization_test(differences) == pytest.approx(expected)


def brute_force_p(differences) -> float:
    """Every sign pattern, written with itertools: the definition of the exact test."""
    from itertools import product

    observed = abs(sum(differences) / len(differences))
    patterns = list(product([1, -1], repeat=len(differences)))
    extreme = sum(
        abs(sum(sign * d for sign, d in zip(signs, differences, strict=True))) / len(differences)
        >= observed - 1e-12
        for signs in patterns
    )
    return extreme / len(patterns)


def test_random_patterns_approach_the_exact_p_value():
    differences = np.random.default_rng(3).normal(0.1, 0.3, 12)
    exact = randomization_test(differences, n_resamples=4096)  # 2**12 = 4096: every pattern
    assert exact == pytest.approx(brute_force_p(list(differences)))
    sampled = randomization_test(differences, n_resamples=4095, seed=7)  # one less: random draws
    assert sampled == pytest.approx(exact, abs=0.03)


def test_randomization_is_repeatable_with_a_seed():
    differences = np.random.default_rng(4).normal(0.02, 0.2, 60)
    assert randomization_test(differences, seed=11) == randomization_test(differences, seed=11)
    assert bootstrap_ci(differences, seed=11) == bootstrap_ci(differences, seed=11)
    assert bootstrap_ci(differences, seed=11) != bootstrap_ci(differences, seed=12)


def test_t_test_matches_scipy_ttest_rel():
    a, b = random_scores(25, seed=5), random_scores(25, seed=6)
    expected = stats.ttest_rel(b, a)
    t, p = paired_t_test(b - a)
    assert (t, p) == (pytest.approx(expected.statistic), pytest.approx(expected.pvalue))


def test_cohens_d_known_answer():
    assert cohens_d([0.1, 0.2, 0.3]) == pytest.approx(2.0)  # mean 0.2, sd 0.1
    assert cohens_d([1.0, -1.0, 1.0, -1.0]) == 0.0


def test_bootstrap_interval_contains_the_mean_and_is_close_to_the_normal_one():
    differences = np.random.default_rng(8).normal(0.05, 0.2, 400)
    low, high = bootstrap_ci(differences, confidence=0.95, n_resamples=4000, seed=1)
    half_width = 1.96 * differences.std(ddof=1) / np.sqrt(len(differences))
    assert low < differences.mean() < high
    assert (high - low) / 2 == pytest.approx(half_width, rel=0.1)
    narrow = bootstrap_ci(differences, confidence=0.5, n_resamples=4000, seed=1)
    assert low < narrow[0] < narrow[1] < high


def test_bootstrap_needs_two_queries_and_a_constant_gives_that_constant():
    with pytest.raises(ValueError, match="at least 2 queries"):
        bootstrap_ci([0.25])
    assert bootstrap_ci([0.25, 0.25]) == (0.25, 0.25)


def test_bootstrap_is_scipy_percentile_bootstrap():
    differences = np.random.default_rng(3).normal(0.02, 0.1, 300)
    expected = stats.bootstrap((differences,), np.mean, n_resamples=2000, confidence_level=0.9,
                               method="percentile", random_state=np.random.default_rng(7)).confidence_interval
    ours = bootstrap_ci(differences, 0.9, 2000, seed=7)
    assert ours == pytest.approx((expected.low, expected.high), abs=1e-12)


@pytest.mark.parametrize("differences", [[0.1, -0.3, 0.25, 0.05], [1.0, 2.0, 3.0, -0.5, 0.0, 0.75]])
def test_exact_randomization_test_equals_scipy_permutation_test(differences):
    expected = stats.permutation_test((np.array(differences),), np.mean, permutation_type="samples",
                                      vectorized=True).pvalue
    assert randomization_test(differences) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("shift", [0.0, 0.01, 0.03])
def test_sampled_randomization_test_agrees_with_scipy_permutation_test(shift):
    differences = np.random.default_rng(11).normal(shift, 0.2, 400)
    ours = randomization_test(differences, n_resamples=20_000, seed=1)
    theirs = stats.permutation_test((differences,), np.mean, permutation_type="samples", vectorized=True,
                                    n_resamples=20_000, random_state=np.random.default_rng(2)).pvalue
    # two independent Monte Carlo estimates of one p-value: within 4 standard errors of each other
    assert abs(ours - theirs) <= 4 * np.sqrt(2 * theirs * (1 - theirs) / 20_000) + 2e-4


# --- pairing and what is refused ---------------------------------------------


def test_paired_scores_lines_up_queries_by_id_not_by_position():
    a = pd.Series({"q1": 0.2, "q2": 0.9})
    b = pd.Series({"q2": 1.0, "q1": 0.1})
    table = paired_scores(a, b, names=("old", "new"))
    assert list(table.columns) == ["old", "new", "difference"]
    assert table.loc["q1", "difference"] == pytest.approx(-0.1)
    assert table.loc["q2", "difference"] == pytest.approx(0.1)


def test_different_query_sets_are_refused():
    a, b = scores([0.1, 0.2, 0.3]), scores([0.1, 0.2])
    with pytest.raises(ValueError, match=r"different queries: 1 only in A \(e.g. \['q2'\]\)"):
        compare(a, b)


def test_queries_blank_for_both_are_left_out_and_blank_for_one_is_refused():
    a = pd.Series({"q1": 0.5, "q2": np.nan, "q3": 0.1})
    b = pd.Series({"q1": 0.7, "q2": np.nan, "q3": 0.2})
    assert list(paired_scores(a, b).index) == ["q1", "q3"]
    with pytest.raises(ValueError, match="one system only"):
        paired_scores(a, b.fillna(0.3))


@pytest.mark.parametrize(
    ("a", "b", "options", "error", "message"),
    [
        ([0.1, 0.2], scores([0.1, 0.2]), {}, TypeError, "must be an Evaluation, a per-query DataFrame"),
        (pd.Series([0.1, 0.2], index=["q", "q"]), scores([1, 2]), {}, ValueError, "more than once"),
        (scores([0.1]), scores([0.2]), {}, ValueError, "at least 2 queries"),
        (scores([0.1, 0.2]), scores([0.1, 0.2]), {"names": ("A", "A")}, ValueError, "two different labels"),
        (scores([0.1, 0.2]), scores([0.1, 0.2]), {"names": ("A", "difference")}, ValueError, "computed"),
        (scores([0.1, 0.2]), scores([0.1, 0.2]), {"n_resamples": 0}, ValueError, "n_resamples"),
        (scores([0.1, 0.2]), scores([0.1, 0.2]), {"seed": -1}, ValueError, "seed must be at least 0"),
        (scores([0.1, 0.2]), scores([0.1, 0.2]), {"seed": "x"}, TypeError, "seed must be"),
        (scores([0.1, 0.2]), scores([0.1, 0.2]), {"confidence": 95}, ValueError, "must be below 1"),
        (pd.DataFrame({"AP": [0.1], "RR": [0.2]}), scores([0.1]), {}, ValueError, "pick one with measure="),
        (pd.DataFrame({"AP": [0.1]}), scores([0.1]), {"measure": "RR"}, ValueError, "has no measure 'RR'"),
    ],
)
def test_bad_comparisons_are_refused(a, b, options, error, message):
    with pytest.raises(error, match=message):
        compare(a, b, **options)


@pytest.mark.parametrize(
    ("differences", "error", "message"),
    [
        ([], ValueError, "empty"),
        ([0.1, np.nan], ValueError, "finite"),
        ([[0.1, 0.2]], ValueError, "1-D"),
        ("0.1", TypeError, "list or array"),
    ],
)
def test_bad_differences_are_refused(differences, error, message):
    for function in (randomization_test, bootstrap_ci, cohens_d, paired_t_test):
        with pytest.raises(error, match=message):
            function(differences)


def test_t_test_and_cohens_d_need_two_queries():
    for function in (paired_t_test, cohens_d):
        with pytest.raises(ValueError, match="at least 2 queries"):
            function([0.3])


# --- with helpers.batch.evaluate ---------------------------------------------------


def test_compare_two_evaluations_and_every_measure():
    qrels = TREC_EVAL / "qrels.test"
    full = evaluate(qrels, TREC_EVAL / "results.test", ["AP", "nDCG@10"])
    cut = evaluate(qrels, TREC_EVAL / "results.test", ["AP", "nDCG@10"], depth=20)
    comparison = compare(full, cut, "AP", names=("full", "top20"), n_resamples=2000)
    assert isinstance(comparison, Comparison) and comparison.measure == "AP"
    assert comparison.summary["mean_full"] == pytest.approx(full.means["AP"])
    assert comparison.summary["losses"] == 3  # cutting the run can only lower AP here
    table = compare_all(full, cut, n_resamples=2000)
    assert list(table.index) == ["AP", "nDCG@10"] and table.index.name == "measure"
    assert table.loc["AP", "mean_difference"] == pytest.approx(comparison.summary["mean_difference"])


def test_compare_all_takes_evaluations():
    with pytest.raises(TypeError, match="two Evaluation results"):
        compare_all(scores([0.1, 0.2]), scores([0.1, 0.2]))


def test_differences_by_group_shows_what_the_mean_hides():
    a = scores([0.5, 0.5, 0.5, 0.5])
    b = scores([0.9, 0.9, 0.1, 0.1])  # B wins the first type and loses the second
    comparison = compare(a, b)
    groups = {"q0": "lookup", "q1": "lookup", "q2": "how-to", "q3": "how-to"}
    table = differences_by_group(comparison, groups)
    assert comparison.summary["mean_difference"] == pytest.approx(0.0)
    assert table.loc["lookup", "mean_difference"] == pytest.approx(0.4)
    assert table.loc["how-to", "mean_difference"] == pytest.approx(-0.4)
    assert table.loc["how-to", ["wins", "losses"]].tolist() == [0, 2]
    with pytest.raises(ValueError, match="no group for the queries"):
        differences_by_group(comparison, {"q0": "lookup"})


# --- plots ---------------------------------------------------------------------


def test_plot_comparison_draws_both_distributions_and_every_difference():
    a, b = random_scores(30, seed=9), random_scores(30, seed=10)
    comparison = compare(a, b, names=("BM25", "dense"))
    figure = plot_comparison(comparison)
    assert isinstance(figure, Figure) and len(figure.axes) == 2
    left, right = figure.axes
    assert [text.get_text().split(" ")[0] for text in left.get_legend().get_texts()] == ["BM25", "dense"]
    wins, losses = (patch.get_data().values for patch in right.patches[:2])
    assert wins + losses == pytest.approx(sorted(b - a, reverse=True))  # one column per query, best first
    assert min(wins) >= 0 >= max(losses)
    assert right.get_ylabel() == "dense - BM25"


def test_plot_by_group_has_one_bar_pair_per_group_and_the_overall_mean():
    a, b = scores([0.5, 0.5, 0.5, 0.5]), scores([0.9, 0.9, 0.1, 0.1])
    figure = plot_by_group(compare(a, b), {"q0": "x", "q1": "x", "q2": "y", "q3": "y"})
    axes = figure.axes[0]
    assert [label.get_text() for label in axes.get_xticklabels()] == ["x", "y", "all queries"]
    assert [patch.get_height() for patch in axes.patches] == pytest.approx([0.5, 0.5, 0.5, 0.9, 0.1, 0.5])


def test_plots_take_a_comparison():
    with pytest.raises(TypeError, match="result of compare"):
        plot_comparison(scores([0.1, 0.2]))


def test_float_noise_counts_as_ties_with_the_tolerance_of_identical_systems():
    a = random_scores(100, seed=3)
    noise = np.random.default_rng(4).uniform(-1e-12, 1e-12, len(a))
    noise[:5] = 0.0
    b = a + noise
    summary = compare(a, b).summary
    assert summary["p_randomization"] == 1.0 and summary["cohens_d"] == 0.0
    assert (summary["wins"], summary["losses"], summary["ties"]) == (0, 0, 100)
    shifted = b.copy()
    shifted.iloc[:3] += 0.1  # three real wins, and one real loss
    shifted.iloc[3] -= 0.1
    summary = compare(a, shifted).summary
    assert (summary["wins"], summary["losses"], summary["ties"]) == (3, 1, 96)
    groups = differences_by_group(compare(a, shifted), {q: "first" if i < 50 else "second"
                                                        for i, q in enumerate(a.index)})
    assert groups["wins"].tolist() == [3, 0] and groups["losses"].tolist() == [1, 0]


# --- Wilcoxon, Holm's correction, the resample counts ----------------------------------


@pytest.mark.parametrize(("n", "seed"), [(8, 1), (30, 2), (120, 3)])  # exact, exact, normal approximation
def test_p_wilcoxon_is_scipy_wilcoxon_of_the_differences(n, seed):
    a = random_scores(n, seed)
    b = (a + np.random.default_rng(seed + 10).normal(0.05, 0.2, n)).round(2)  # rounding makes ties
    b.iloc[0] = a.iloc[0]  # and a zero difference, which scipy leaves out
    summary = compare(a, b, n_resamples=500).summary
    assert summary["p_wilcoxon"] == stats.wilcoxon(b - a).pvalue
    assert wilcoxon_test((b - a).to_numpy()) == summary["p_wilcoxon"]


def test_wilcoxon_of_identical_systems_or_float_noise_is_1():
    a = random_scores(20, seed=5)
    assert compare(a, a.copy()).summary["p_wilcoxon"] == 1.0
    assert wilcoxon_test(np.full(20, 1e-13)) == 1.0


def test_holm_on_the_published_example():
    # the example of the Holm-Bonferroni method's article (Wikipedia): four hypotheses, p = 0.01, 0.04,
    # 0.03 and 0.005, level 0.05: H1 and H4 are rejected, H2 and H3 are not
    corrected = holm([0.01, 0.04, 0.03, 0.005])
    assert corrected.tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert (corrected <= 0.05).tolist() == [True, False, False, True]


def closed_testing(p_values) -> list[float]:
    """Holm's adjusted p-values from their definition: the largest Bonferroni p over every set of
    hypotheses that contains this one (closed testing with Bonferroni's test of each intersection)."""
    m = len(p_values)
    adjusted = []
    for i in range(m):
        worst = 0.0
        for mask in range(1, 2**m):
            members = [j for j in range(m) if mask >> j & 1]
            if i in members:
                worst = max(worst, min(1.0, len(members) * min(p_values[j] for j in members)))
        adjusted.append(worst)
    return adjusted


@pytest.mark.parametrize("seed", range(5))
def test_holm_equals_closed_testing_with_bonferroni(seed):
    p_values = np.random.default_rng(seed).uniform(0, 0.3, 6).round(3).tolist()
    p_values[1] = p_values[4]  # a tie
    assert holm(p_values).tolist() == pytest.approx(closed_testing(p_values))


def test_holm_refuses_what_is_not_a_p_value():
    for bad in ([0.2, 1.5], [[0.1]], [-0.1]):
        with pytest.raises(ValueError, match="between 0 and 1"):
            holm(bad)


def test_compare_all_corrects_over_the_measures_and_compare_systems_over_the_systems():
    qrels, run = TREC_EVAL / "qrels.test", TREC_EVAL / "results.test"
    full = evaluate(qrels, run, ["AP", "nDCG@10", "P@5"])
    cut = evaluate(qrels, run, ["AP", "nDCG@10", "P@5"], depth=20)
    table = compare_all(full, cut, n_resamples=500)
    for column in ("p_randomization", "p_t_test", "p_wilcoxon"):
        assert table[f"{column}_holm"].tolist() == pytest.approx(holm(table[column]).tolist())
    a = random_scores(25, seed=7)
    systems = {"small": a + 0.01 * random_scores(25, seed=8), "large": a + 0.2, "same": a.copy()}
    rows = compare_systems(a, systems, n_resamples=500, seed=3)
    assert list(rows.index) == ["small", "large", "same"] and rows.index.name == "system"
    for name, system in systems.items():
        alone = compare(a, system, n_resamples=500, seed=3, names=("baseline", "system")).summary
        assert rows.loc[name, "p_wilcoxon"] == alone["p_wilcoxon"]
        assert rows.loc[name, "mean_system"] == alone["mean_system"]
    assert rows["p_wilcoxon_holm"].tolist() == pytest.approx(holm(rows["p_wilcoxon"]).tolist())
    assert np.isnan(rows.loc["large", "p_t_test"]) and np.isnan(rows.loc["large", "p_t_test_holm"])
    with pytest.raises(TypeError, match="dict of at least one"):
        compare_systems(a, [a])


def test_the_summary_says_how_many_resamples_it_drew():
    small = compare(scores([0.1, 0.5, 0.2]), scores([0.3, 0.6, 0.2]), n_resamples=1000).summary
    assert (small["bootstrap_resamples"], small["randomization_resamples"]) == (1000, 8)  # 2**3: exact
    large = compare(random_scores(40, 1), random_scores(40, 2), n_resamples=1000).summary
    assert (large["bootstrap_resamples"], large["randomization_resamples"]) == (1000, 1000)


# --- reading the numbers ---------------------------------------------------------


@pytest.mark.parametrize(("p", "options", "text"), [
    (1 / 10_001, {"resamples": 10_000}, "p < 0.0001"), (1 / 1_001, {"resamples": 1_000}, "p < 0.001"),
    (2 / 10_001, {"resamples": 10_000}, "p = 0.0002"), (1e-42, {}, "p < 0.0001"), (0.04321, {}, "p = 0.0432"),
    (0.125, {"resamples": 32, "exact": True}, "p = 0.125"), (1 / 33, {"resamples": 32, "exact": True}, "p = 0.030303"),
    (1.0, {}, "p = 1.0000"), (float("nan"), {}, "p undefined (the differences do not vary)"),
])
def test_format_p_shows_a_floor_as_a_bound(p, options, text):
    assert format_p(p, **options) == text


def test_format_p_refuses_a_negative_p():
    with pytest.raises(ValueError, match="p must be at least 0"):
        format_p(-0.1)


@pytest.mark.parametrize(("d", "word"), [(0.0, "negligible"), (-0.19, "negligible"), (0.2, "small"),
                                         (-0.5, "medium"), (0.79, "medium"), (0.8, "large"), (-2.0, "large")])
def test_effect_size_words_follow_cohen_s_bands(d, word):
    assert effect_size_word(d) == word


def test_wilcoxon_zero_rules_are_scipy_s():
    differences = [0.0, 0.0, 0.0, 0.1, 0.2, -0.05, 0.3, 0.15, 0.25, -0.02]
    for rule in ("wilcox", "pratt", "zsplit"):
        assert wilcoxon_test(differences, zero_method=rule) == pytest.approx(
            stats.wilcoxon(differences, zero_method=rule).pvalue)
    with pytest.raises(ValueError, match="zero_method must be one of"):
        wilcoxon_test(differences, zero_method="drop")


def test_readable_summary_states_how_each_number_was_computed():
    a = random_scores(200, seed=1)
    b = (a + np.where(np.arange(200) % 4 == 0, 0.0, 0.3)).clip(0, 1)  # a quarter of the questions unchanged
    comparison = compare(a, b, names=("old", "new"), n_resamples=2_000, confidence=0.9)
    shown = readable_summary(comparison)
    summary = comparison.summary
    assert shown.loc["queries", "value"] == "200"
    assert shown.loc["randomization test", "value"] == "p < 0.0005"  # 1/2001, the floor of 2000 draws
    assert summary["p_randomization"] == pytest.approx(1 / 2_001)
    assert "90 % bootstrap interval" in shown.index
    zeros = int((comparison.per_query["difference"].abs() <= 1e-12).sum())
    wilcoxon_row = shown.loc["Wilcoxon signed-rank test", "how it is computed"]
    assert zeros >= 50 and f"{zeros} zero differences left out" in wilcoxon_row
    pratt = stats.wilcoxon(comparison.per_query["difference"], zero_method="pratt").pvalue
    assert format_p(pratt) in wilcoxon_row
    assert "SD of the 200 differences" in shown.loc["Cohen's d", "how it is computed"]
    wins, losses, ties = (int(part) for part in shown.loc["new wins / losses / ties", "value"].split(" / "))
    assert (wins, losses, ties) == (summary["wins"], summary["losses"], summary["ties"]) and ties == zeros


def test_reading_never_calls_a_large_p_the_same_system():
    a = random_scores(60, seed=4)
    text = reading(compare(a, random_scores(60, seed=5), n_resamples=1_000))
    assert "no evidence of a difference" in text and "not evidence that the two systems are the same" in text
    big_and_tiny = compare(scores(np.linspace(0, 1, 400)), scores(np.linspace(0, 1, 400) + np.where(
        np.arange(400) % 2 == 0, 0.06, -0.045)), n_resamples=1_000)
    assert big_and_tiny.summary["p_randomization"] <= 0.05 and abs(big_and_tiny.summary["cohens_d"]) < 0.2
    assert "too small to matter" in reading(big_and_tiny)


def test_read_all_names_the_measures_that_survive_holm():
    table = pd.DataFrame({
        "mean_difference": [0.05, -0.01, 0.02], "cohens_d": [0.4, -0.05, 0.1],
        "p_randomization": [0.001, 0.03, 0.6], "p_randomization_holm": [0.003, 0.06, 0.6],
    }, index=pd.Index(["AP", "RR", "P@5"], name="measure"))
    text = read_all(table)
    assert "a difference on AP (+0.0500, d = +0.40, small)" in text
    assert "before the correction only, so not evidence of a difference: RR (raw p 0.030, Holm 0.060)" in text
    assert "No evidence of a difference on P@5." in text
    assert read_all(table.assign(p_randomization_holm=0.5, p_randomization=0.5)).count("no measure shows") == 1


def test_readable_table_keeps_counts_whole_and_bounds_a_floor_p():
    table = compare_all_from_scores(random_scores(40, seed=6))
    shown = readable_table(table)
    assert shown["n_queries"].tolist() == [40, 40] and shown["n_queries"].dtype.kind == "i"
    assert shown.loc["big", "p_randomization"] == "p < 0.002"  # 1/501
    assert shown.loc["big", "p_randomization_holm"].startswith("p < ")
    assert shown.loc["none", "p_randomization"] == format_p(float(table.loc["none", "p_randomization"]))


def compare_all_from_scores(a: pd.Series) -> pd.DataFrame:
    """Two 'measures' of the same questions: one moves a lot, one not at all; Holm-corrected like compare_all."""
    from helpers.batch.comparison import _with_holm

    rows = [compare(a, (a + 0.2).clip(0, 1.5), n_resamples=500).summary.rename("big"),
            compare(a, a[::-1].set_axis(a.index), n_resamples=500).summary.rename("none")]
    return _with_holm(pd.DataFrame(rows))


def test_plot_comparison_draws_the_interval_where_it_can_be_seen():
    a, b = random_scores(50, seed=9), random_scores(50, seed=10)
    comparison = compare(a, b, n_resamples=500)
    right = plot_comparison(comparison).axes[1]
    labels = [text.get_text() for text in right.get_legend().get_texts()]
    interval = f"95 % interval {comparison.summary['ci_low']:+.3f} to {comparison.summary['ci_high']:+.3f}"
    assert interval in labels
    summary = comparison.summary
    wins, losses, ties = (int(summary[key]) for key in ("wins", "losses", "ties"))
    assert right.get_title() == f"{wins} wins, {losses} losses, {ties} ties"
