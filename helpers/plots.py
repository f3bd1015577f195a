"""Plots of the lessons: each function takes data, draws with matplotlib and returns the Figure.

Every number drawn comes from :mod:`helpers.metrics`. A legend says ``loc="best"`` out loud: left to its
default, matplotlib warns that placing it "can be slow with large amounts of data" whenever that took a
second, as it can on a busy machine with a handful of points.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from helpers import metrics
from helpers._checks import check_first_ranks, check_k, check_whole
from helpers.metrics import Gain


def _new_figure(width: float = 6.0, height: float = 3.2) -> tuple[Figure, plt.Axes]:
    figure, axes = plt.subplots(figsize=(width, height), layout="constrained")
    return figure, axes


def plot_discount(max_rank: int = 10) -> Figure:
    """The weight 1/log2(rank + 1) of each rank: rank 1 counts fully, rank 3 half (lesson 02)."""
    max_rank = check_whole(max_rank, "max_rank")
    ranks = list(range(1, max_rank + 1))
    figure, axes = _new_figure()
    axes.plot(ranks, [1 / metrics.discount(rank) for rank in ranks], marker="o")
    axes.set(
        xlabel="rank", ylabel="1 / log2(rank + 1)", title="How much of its gain a rank keeps", ylim=(0, 1.05)
    )
    axes.set_xticks(ranks)
    return figure


def plot_reciprocal_rank(max_rank: int = 10) -> Figure:
    """Reciprocal rank 1/rank against rank: the steep fall from rank 1 to rank 2 (lesson 01)."""
    max_rank = check_whole(max_rank, "max_rank")
    ranks = list(range(1, max_rank + 1))
    figure, axes = _new_figure()
    axes.plot(ranks, [metrics.reciprocal_rank_of(rank) for rank in ranks], marker="o", label="1 / rank")
    axes.plot(ranks, [1 / metrics.discount(rank) for rank in ranks], ls="--", label="1 / log2(rank + 1)")
    axes.set(xlabel="rank of the first relevant result", ylabel="score", title="Reciprocal rank falls fast")
    axes.set_xticks(ranks)
    axes.legend(loc="best")
    return figure


def plot_reciprocal_ranks_by_system(first_ranks: dict[str, list[int]], labels: list[str]) -> Figure:
    """Reciprocal rank per question, one bar group per question, one bar per system (lesson 01)."""
    if not isinstance(first_ranks, dict) or not first_ranks:
        raise TypeError("first_ranks must be a dict: system name -> list of first relevant ranks")
    figure, axes = _new_figure(7, 3.2)
    width = 0.8 / len(first_ranks)
    for index, (system, ranks) in enumerate(first_ranks.items()):
        ranks = check_first_ranks(ranks)
        if len(ranks) != len(labels):
            raise ValueError(f"{system}: {len(ranks)} ranks for {len(labels)} questions")
        values = [metrics.reciprocal_rank_of(rank) for rank in ranks]
        positions = [number + index * width for number in range(len(labels))]
        mrr = metrics.mean_reciprocal_rank(ranks)
        axes.bar(positions, values, width, label=f"{system} (MRR {mrr:.3f})")
    axes.set_xticks([number + width * (len(first_ranks) - 1) / 2 for number in range(len(labels))], labels)
    axes.set(ylabel="reciprocal rank", title="Reciprocal rank per question", ylim=(0, 1.1))
    axes.legend(loc="best")
    return figure


def plot_discounted_gains(
    orderings: dict[str, list[float]], k: int | None = None, gain: Gain = "linear"
) -> Figure:
    """Discounted gain at each position for several orderings, side by side (lessons 02, 05)."""
    if not isinstance(orderings, dict) or not orderings:
        raise TypeError("orderings must be a dict: name -> grades in rank order")
    figure, axes = _new_figure(7, 3.2)
    width = 0.8 / len(orderings)
    ranks: set[int] = set()
    for index, (name, grades) in enumerate(orderings.items()):
        table = metrics.arithmetic_table(grades, k=k, gain=gain)
        table = table[table["in_top_k"]]
        ranks.update(int(rank) for rank in table["rank"])
        positions = [rank + index * width for rank in table["rank"]]
        total = metrics.dcg(grades, k, gain)
        axes.bar(positions, table["discounted_gain"], width, label=f"{name} (DCG {total:.4f})")
    axes.set(
        xlabel="rank", ylabel="gain / log2(rank + 1)", title=f"Discounted gain per position ({gain} gain)"
    )
    shift = width * (len(orderings) - 1) / 2  # each rank's tick under the middle of its group of bars
    axes.set_xticks([rank + shift for rank in sorted(ranks)], [str(rank) for rank in sorted(ranks)])
    axes.legend(loc="best")
    return figure


def plot_ndcg_by_k(
    orderings: dict[str, list[float]], ideal=None, gain: Gain = "linear", max_k: int | None = None
) -> Figure:
    """nDCG@k as k grows, one line per ordering; ``ideal`` as in metrics.ndcg (lessons 02, 03)."""
    if not isinstance(orderings, dict) or not orderings:
        raise TypeError("orderings must be a dict: name -> grades in rank order")
    longest = max(len(grades) for grades in orderings.values())
    max_k = longest if max_k is None else check_k(max_k, allow_none=False)
    ks = list(range(1, max_k + 1))
    figure, axes = _new_figure()
    for name, grades in orderings.items():
        axes.plot(ks, [_ndcg_or_nan(grades, k, ideal, gain) for k in ks], marker="o", label=name)
    axes.set(
        xlabel="cut-off k", ylabel=f"nDCG@k ({gain} gain)", title="nDCG as the cut-off grows", ylim=(0, 1.05)
    )
    axes.set_xticks(ks)
    axes.legend(loc="best")
    return figure


def _ndcg_or_nan(grades, k, ideal, gain) -> float:
    """nDCG@k, or NaN (a gap in the line) where no relevant document is within reach."""
    return metrics.value_or(float("nan"), metrics.ndcg, grades, k, ideal, gain)


def plot_gain_forms(max_grade: int = 3) -> Figure:
    """Linear gain (the grade) against exponential gain (2^grade - 1) per grade (lessons 02, 06)."""
    max_grade = check_whole(max_grade, "max_grade")
    grades = list(range(0, max_grade + 1))
    figure, axes = _new_figure()
    width = 0.4
    axes.bar(
        [g - width / 2 for g in grades], [metrics.gain_of(g, "linear") for g in grades], width, label="linear"
    )
    axes.bar(
        [g + width / 2 for g in grades],
        [metrics.gain_of(g, "exponential") for g in grades],
        width,
        label="exponential",
    )
    axes.set(xlabel="grade", ylabel="gain", title="Linear vs exponential gain")
    axes.set_xticks(grades)
    axes.legend(loc="best")
    return figure


PROGRESS_COLOURS = {"right": "#1e7b34", "not right yet": "#b3261e", "not tried": "#9e9e9e"}


def plot_progress(progress_table, slips) -> Figure:
    """Your progress (lesson 00): per lesson, exercises right / not right yet / not tried; the slips made, by kind.

    ``progress_table`` and ``slips`` are ``progress().table`` and ``progress().slips``.
    """
    figure, (by_lesson, by_slip) = plt.subplots(1, 2, figsize=(9.0, 3.4), layout="constrained")
    counts = progress_table.groupby(["lesson", "status"]).size().unstack(fill_value=0)
    lessons = list(counts.index)
    left = [0] * len(lessons)
    for status, colour in PROGRESS_COLOURS.items():
        values = [int(counts.at[lesson, status]) if status in counts.columns else 0 for lesson in lessons]
        by_lesson.barh(lessons, values, left=left, color=colour, label=status)
        left = [start + value for start, value in zip(left, values, strict=True)]
    by_lesson.invert_yaxis()
    by_lesson.set(xlabel="exercises", ylabel="lesson", title="Exercises by lesson")
    by_lesson.xaxis.get_major_locator().set_params(integer=True)
    by_lesson.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=3, fontsize="small", frameon=False)
    if len(slips):
        shown = slips.head(8)
        by_slip.barh(list(shown["slip"]), list(shown["times"]), height=0.6, color=PROGRESS_COLOURS["not right yet"])
        by_slip.set_ylim(max(len(shown), 4) - 0.5, -0.5)  # top down; a single slip keeps a bar's width
        by_slip.xaxis.get_major_locator().set_params(integer=True)
        by_slip.set(xlabel="answers that made it", title="Your slips, by kind")
    else:
        by_slip.set_axis_off()
        by_slip.text(0.5, 0.5, "no slip recorded yet", ha="center", va="center", transform=by_slip.transAxes)
    return figure
