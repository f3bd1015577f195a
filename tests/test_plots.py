"""Plot helpers return figures whose axes, labels and data come from helpers.metrics."""

import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from helpers import metrics, plots  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_discount_plot():
    axes = plots.plot_discount(5).axes[0]
    assert axes.get_xlabel() == "rank" and "log2" in axes.get_ylabel()
    assert list(axes.lines[0].get_ydata()) == pytest.approx([1 / metrics.discount(r) for r in range(1, 6)])


def test_reciprocal_rank_plot():
    axes = plots.plot_reciprocal_rank(4).axes[0]
    assert list(axes.lines[0].get_ydata()) == pytest.approx([1, 0.5, 1 / 3, 0.25])


def test_reciprocal_ranks_by_system():
    figure = plots.plot_reciprocal_ranks_by_system(
        {"OLD": [1, 2, 1, 4, 1], "NEW": [2, 3, 2, 4, 2]}, list("12345")
    )
    axes = figure.axes[0]
    heights = [patch.get_height() for patch in axes.patches]
    assert heights[:5] == pytest.approx([1, 0.5, 1, 0.25, 1])
    assert heights[5:] == pytest.approx([0.5, 1 / 3, 0.5, 0.25, 0.5])
    assert [text.get_text() for text in axes.get_legend().get_texts()] == [
        "OLD (MRR 0.750)",
        "NEW (MRR 0.417)",
    ]
    with pytest.raises(ValueError, match="3 ranks for 5 questions"):
        plots.plot_reciprocal_ranks_by_system({"OLD": [1, 2, 1]}, list("12345"))


def test_discounted_gains_plot():
    figure = plots.plot_discounted_gains({"swapped": [2, 0, 3, 0, 0]}, k=5)
    axes = figure.axes[0]
    assert [patch.get_height() for patch in axes.patches] == pytest.approx([2, 0, 1.5, 0, 0])
    assert "DCG 3.5000" in axes.get_legend().get_texts()[0].get_text()


def test_rank_axes_have_whole_number_ticks_only():
    two = plots.plot_discounted_gains({"a": [2, 0, 3], "b": [3, 2, 0]}, k=3).axes[0]
    assert [tick.get_text() for tick in two.get_xticklabels()] == ["1", "2", "3"]
    centres = [patch.get_x() + patch.get_width() for patch in two.patches[:3]]  # between a's and b's bars
    assert list(two.get_xticks()) == pytest.approx(centres)
    for figure in (plots.plot_discount(6), plots.plot_reciprocal_rank(6), plots.plot_ndcg_by_k({"x": [1, 0, 2]})):
        assert all(float(tick).is_integer() for tick in figure.axes[0].get_xticks())


def test_ndcg_by_k_plot_leaves_gaps_where_undefined():
    axes = plots.plot_ndcg_by_k({"nothing relevant": [0, 0, 0], "pushed": [0, 0, 2]}).axes[0]
    nothing, pushed = (list(line.get_ydata()) for line in axes.lines)
    assert all(value != value for value in nothing)  # NaN: a gap, not a fake 0
    assert pushed == pytest.approx([metrics.ndcg([0, 0, 2], k) for k in (1, 2, 3)])
    assert axes.get_xlabel() == "cut-off k"


def test_gain_forms_plot():
    axes = plots.plot_gain_forms(3).axes[0]
    heights = [patch.get_height() for patch in axes.patches]
    assert heights == pytest.approx([0, 1, 2, 3, 0, 1, 3, 7])


def test_no_legend_warns_of_slowness_on_a_busy_machine(monkeypatch):
    """A lesson's figure prints no warning when placing its legend takes over a second (matplotlib's clock)."""
    from matplotlib import legend

    from helpers.batch.comparison import compare, plot_by_group, plot_comparison

    ticks = iter(range(0, 10_000, 5))  # every reading of the clock 5 s after the last: a very busy machine
    monkeypatch.setattr(legend.time, "perf_counter", lambda: next(ticks))
    a = pd.Series([0.2, 0.5, 0.9, 0.4], index=list("abcd"))
    b = pd.Series([0.6, 0.5, 0.3, 0.8], index=list("abcd"))
    figures = [
        plots.plot_reciprocal_rank(5),
        plots.plot_reciprocal_ranks_by_system({"OLD": [1, 2], "NEW": [3, 0]}, ["q1", "q2"]),
        plots.plot_discounted_gains({"returned": [3, 2, 0], "ideal": [3, 2, 0]}),
        plots.plot_ndcg_by_k({"returned": [0, 2, 3]}),
        plots.plot_gain_forms(3),
        plot_comparison(compare(a, b)),
        plot_by_group(compare(a, b), {"a": "x", "b": "x", "c": "y", "d": "y"}),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for figure in figures:
            figure.canvas.draw()
    assert all(axes.get_legend() is not None for figure in figures for axes in figure.axes[:1])
