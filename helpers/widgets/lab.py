"""Interactive controls for the lessons: click grades, move results, change K, watch the metrics move.

Four builders, each returning an ipywidgets container whose parts the tests
(and curious learners) can reach as attributes:

- :func:`metrics_lab` (lesson 05, example E): six results with clickable grades,
  a K slider and switches for gain, ideal and relevance threshold; Recall@K, MRR,
  MRR@K and nDCG@K, the arithmetic table, the formula with its numbers and a bar
  plot of the discounted gain per position, all live.
- :func:`mrr_control` (lesson 01, example A): move each question's first
  relevant passage; reciprocal ranks, MRR and hit rate@k of OLD and NEW.
- :func:`ndcg_control` (lesson 02, example B): choose the positions and grades
  of D11 and D4; DCG, ideal DCG, nDCG and the arithmetic.
- :func:`worksheet_control` (lesson 03, example C): edit the grades of the
  worksheet and k; DCG@k, IDCG@k and NDCG@k in the spreadsheet layout.

Every number comes from :mod:`helpers.metrics`; this module only lays out what
it returns. A metric with no defined value is shown as "undefined — ..."
(never NaN) and stored as ``None`` in ``metric_values``. Stable CSS classes
(``grade-btn-1``, ``k-slider``, ``metric-ndcg``, ...) are set with
``add_class`` for the browser tests.
"""

from __future__ import annotations

import contextlib
import html
import io
from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from helpers import metrics
from helpers.data import load_example
from helpers.sheet.view import ndcg_worksheet
from helpers.widgets.table import table_records, table_sheet_html

GRADE_NAMES = {
    2: {0: "none", 1: "useful", 2: "answers it"},
    3: {0: "not relevant", 1: "partly", 2: "relevant", 3: "highly relevant"},
}
GAIN_LABELS = {"linear": "linear: gain = grade", "exponential": "exponential: 2^grade − 1"}
IDEAL_LABELS = {"judged": "all judged", "returned": "returned only"}
UNDEFINED_NDCG = "undefined — no relevant document (ideal DCG = 0)"
UNDEFINED_RECALL = "undefined — no relevant document (R = 0)"
MONO = "font-family:monospace"


def grade_name(grade: int, max_grade: int) -> str:
    """The word for a grade on a 0..max_grade scale, e.g. 1 -> 'useful' on 0..2."""
    return GRADE_NAMES.get(max_grade, {}).get(grade, f"grade {grade}")


def short_number(value: float, decimals: int = 3) -> str:
    """A number for a formula, without trailing zeros: 2.0 -> '2', 1.5849 -> '1.585'."""
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def shown(value, decimals: int = 4, undefined: str = "undefined") -> str:
    """A metric value to the given decimals, or the text for an undefined value (None)."""
    return undefined if value is None else f"{value:.{decimals}f}"


def metric_label(name: str, value, undefined: str, decimals: int = 4) -> str:
    """The bold label of one metric: ``nDCG@3 = 0.7003``, or ``nDCG@3: undefined — ...`` for None."""
    return f"<b>{name} = {value:.{decimals}f}</b>" if value is not None else f"<b>{name}: {undefined}</b>"


def pre_lines(lines: Sequence[str]) -> str:
    """Lines of text as one preformatted HTML block (monospace, so the sums line up)."""
    return f"<pre style='{MONO};margin:4px 0'>" + "\n".join(html.escape(line) for line in lines) + "</pre>"


def _ndcg_or_none(grades, k, ideal, gain):
    """nDCG@k, or None when it is undefined (no relevant document in the ideal)."""
    try:
        return metrics.ndcg(grades, k, ideal=ideal, gain=gain)
    except metrics.UndefinedMetricError:
        return None


def _html(value: str = "", css: str | None = None, **layout) -> widgets.HTML:
    box = widgets.HTML(value, layout=widgets.Layout(**layout)) if layout else widgets.HTML(value)
    if css:
        box.add_class(css)
    return box


def _toggle(options, value, description: str, css: str) -> widgets.ToggleButtons:
    """A row of toggle buttons wide enough for their labels, with a CSS class for the tests."""
    toggle = widgets.ToggleButtons(
        options=options,
        value=value,
        description=description,
        style={"button_width": "auto", "description_width": "5em"},
        layout=widgets.Layout(flex="0 0 auto", width="auto"),
    )
    toggle.add_class(css)
    return toggle


def _note(css: str) -> widgets.HTML:
    """A short text beside a control, taking the rest of the row."""
    return _html(css=css, flex="1 1 0%", min_width="18em", margin="0 0 0 1em")


# --- the plot: one figure, redrawn in place ----------------------------------


def png_bytes(pixels: np.ndarray, text: dict[str, str] | None = None, level: int = 1) -> bytes:
    """A PNG file of an RGBA pixel array (height x width x 4), encoded by Pillow.

    ``text`` adds text chunks (keyword -> text), e.g. a description of the plot;
    a low compression ``level`` keeps a click fast.
    """
    height, width, channels = pixels.shape
    if channels != 4 or pixels.dtype != np.uint8:
        raise ValueError(f"expected RGBA uint8 pixels, got shape {pixels.shape} and dtype {pixels.dtype}")
    notes = PngInfo()
    for keyword, value in (text or {}).items():
        notes.add_text(keyword, value)
    buffer = io.BytesIO()
    Image.fromarray(pixels, "RGBA").save(buffer, format="PNG", pnginfo=notes, compress_level=level)
    return buffer.getvalue()


class DiscountedGainPlot:
    """A bar plot of the discounted gain per position that redraws in place (lessons 02, 05).

    One matplotlib Figure is made once, outside pyplot (so no figure ever piles
    up in a notebook), with its axes, labels and legend drawn once as a
    background. An update only redraws the bars on that background and puts the
    PNG bytes into the same :class:`ipywidgets.Image`: the picture changes, the
    widget stays, nothing flickers. The background is drawn once per gain form
    (each has its own y-axis) and reused.
    """

    TOP_K, BEYOND_K, IDEAL = "#1f77b4", "#c9c9c9", "#222222"
    HALF_WIDTH = 0.35

    def __init__(self, positions: int, width: float = 6.0, height: float = 2.9, dpi: int = 80):
        self.positions = positions
        self.figure = Figure(figsize=(width, height), dpi=dpi)
        self.canvas = FigureCanvasAgg(self.figure)
        self.axes = self.figure.add_subplot()
        self.figure.subplots_adjust(left=0.1, right=0.98, bottom=0.16, top=0.78)
        self.title = self.figure.text(0.01, 0.98, "", va="top", fontsize=9)
        zeros = [0.0] * positions
        # two collections of rectangles (not one patch per bar): drawing them is what a click costs
        self.bars = PolyCollection(self._rectangles(zeros), facecolors=self.TOP_K, animated=True)
        self.ideal_bars = PolyCollection(
            self._rectangles(zeros), facecolors="none", edgecolors=self.IDEAL, linestyles="--", animated=True
        )
        self.axes.add_collection(self.bars)
        self.axes.add_collection(self.ideal_bars)
        self.cutoff = self.axes.axvline(0.5, color="#d62728", linestyle=":", linewidth=2, animated=True)
        self.axes.set_xlim(0.4, positions + 0.6)
        self.axes.set_xticks(range(1, positions + 1))
        self.axes.set_xlabel("rank", fontsize=9)
        self.axes.set_ylabel("gain / log2(rank + 1)", fontsize=9)
        self.axes.tick_params(labelsize=8)
        self.axes.legend(
            handles=[
                Patch(color=self.TOP_K, label="counted (rank ≤ K)"),
                Patch(color=self.BEYOND_K, label="beyond K"),
                Patch(fill=False, edgecolor=self.IDEAL, linestyle="--", label="ideal"),
            ],
            loc="lower right",
            bbox_to_anchor=(1.0, 1.0),
            ncol=3,
            frameon=False,
            fontsize=8,
        )
        self.image = widgets.Image(format="png", layout=widgets.Layout(width=f"{int(width * dpi)}px"))
        self.image.add_class("dg-plot")
        self.heights: list[float] = zeros
        self.ideal_heights: list[float] = zeros
        self.description = ""
        self._backgrounds: dict = {}  # (y_max, gain) -> the pixels of axes, labels and legend
        self._background_key = None
        self._background = None

    def _rectangles(self, heights: Sequence[float]) -> list[list[tuple[float, float]]]:
        w = self.HALF_WIDTH
        return [
            [(rank - w, 0.0), (rank - w, h), (rank + w, h), (rank + w, 0.0)]
            for rank, h in enumerate(heights, start=1)
        ]

    def _draw_background(self, y_max: float, gain: str) -> None:
        """Set the y-axis and title for a gain form; draw them once per form, then reuse the pixels."""
        key = (y_max, gain)
        if key == self._background_key:
            return
        self.axes.set_ylim(0, y_max * 1.08)
        self.title.set_text(f"Discounted gain per position ({gain} gain; dashed: the ideal ranking)")
        if key not in self._backgrounds:
            self.canvas.draw()
            self._backgrounds[key] = self.canvas.copy_from_bbox(self.figure.bbox)
        self._background = self._backgrounds[key]
        self._background_key = key

    def update(self, rows: Sequence[dict], k: int, gain: str, y_max: float) -> None:
        """Draw the discounted gains of the rows of an arithmetic table, greying the ranks past K.

        ``rows`` are the records of :func:`helpers.metrics.arithmetic_table`
        (see :func:`table_records`); positions without a row are drawn as 0.
        """
        self._draw_background(y_max, gain)
        heights, ideal = [0.0] * self.positions, [0.0] * self.positions
        for row in rows:
            if row["rank"] <= self.positions:
                heights[row["rank"] - 1] = row["discounted_gain"]
                ideal[row["rank"] - 1] = row["ideal_discounted_gain"]
        self.heights, self.ideal_heights = heights, ideal
        in_top = [rank <= k for rank in range(1, self.positions + 1)]
        self.bars.set_verts(self._rectangles(heights))
        self.bars.set_facecolors([self.TOP_K if top else self.BEYOND_K for top in in_top])
        self.ideal_bars.set_verts(self._rectangles(ideal))
        self.ideal_bars.set_edgecolors([self.IDEAL if top else self.BEYOND_K for top in in_top])
        self.cutoff.set_xdata([k + 0.5, k + 0.5])
        self.canvas.restore_region(self._background)
        for artist in (self.bars, self.ideal_bars, self.cutoff):
            self.axes.draw_artist(artist)
        self.description = self.describe(k, gain)
        # the description travels inside the PNG (a tEXt chunk), so it can never lag behind the picture
        self.image.value = png_bytes(np.asarray(self.canvas.buffer_rgba()), {"Description": self.description})

    def describe(self, k: int, gain: str) -> str:
        """The plot in words (stored in the PNG): the bar heights of both rankings, to 3 decimals."""
        bars = " ".join(f"{height:.3f}" for height in self.heights)
        ideal = " ".join(f"{height:.3f}" for height in self.ideal_heights)
        return f"{gain} gain, K = {k}; discounted gain by rank: {bars}; ideal: {ideal}"


def dcg_formula(rows: Sequence[dict], gain: str, ideal: bool = False) -> str:
    """The sum of DCG@k written out with an arithmetic table's numbers, e.g. '2/1 + 0/1.585 + 3/2'.

    Only the rows within the cutoff count. With exponential gain the powers come
    first: '(2^2−1)/1 + ... = 3/1 + ...'. ``ideal=True`` writes the ideal ranking's sum.
    """
    grade_key, gain_key = ("ideal_grade", "ideal_gain") if ideal else ("grade", "gain")
    counted = [row for row in rows if row["in_top_k"]]
    if not counted:
        return "0"
    gains = " + ".join(f"{short_number(row[gain_key])}/{short_number(row['discount'])}" for row in counted)
    if gain == "linear":
        return gains
    powers = " + ".join(
        f"(2^{short_number(row[grade_key])}−1)/{short_number(row['discount'])}" for row in counted
    )
    return f"{powers} = {gains}"


# --- lesson 05: the metrics lab ----------------------------------------------


class _Control(widgets.VBox):
    """A lesson widget whose controls all call ``refresh``; code that sets several controls holds it back."""

    _quiet = False

    @contextlib.contextmanager
    def _quietly(self):
        """Set several controls at once, recomputing only when asked afterwards."""
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    def _on_change(self, _change) -> None:
        if not self._quiet:
            self.refresh()

    def refresh(self) -> None:
        raise NotImplementedError


class MetricsLab(_Control):
    """The metrics lab of lesson 05: clickable grades, K and conventions; Recall@K, MRR and nDCG@K live.

    ``results`` are (doc_id, title, grade) in rank order (the fixed list);
    ``missed`` are judged documents the system did not return, (doc_id, title,
    grade), shown below the list with their own grade buttons. "ideal = all
    judged" sorts the grades of every result and every missed document as they
    are set now (in the lab the clicks *are* the judgments); "returned only"
    sorts the results' grades alone. The relevance ``threshold`` (grade >= 1 or
    >= 2) makes the binary judgments of Recall@K and MRR; nDCG uses the grades.

    K runs from 1 to ``max_k`` (default: the number of results, so K never
    exceeds the list). With a larger ``max_k`` the lab counts K past the list as
    the returned results plus empty ranks that add 0, and says so on screen.

    Reachable parts: ``grade_buttons`` (results in rank order), ``missed_buttons``,
    ``k_slider``, ``gain_toggle``, ``ideal_toggle``, ``threshold_toggle``,
    ``formulas_checkbox``, ``reset_button``, ``metric_labels`` (dict of HTML),
    ``formula_label`` (the same lines as plain text: ``formula_text``), ``table_html``,
    ``plot`` / ``plot_image``, the notes ``k_note``, ``gain_note``, ``ideal_note``,
    ``threshold_note``, and ``metric_values`` (a dict of the numbers shown, None
    where undefined; plain values, JSON-serialisable).
    """

    def __init__(
        self,
        results: Sequence[tuple[str, str, int]],
        missed: Sequence[tuple[str, str, int]] = (),
        *,
        k: int = 3,
        gain: str = "exponential",
        ideal: str = "judged",
        threshold: int = 1,
        max_grade: int | None = None,
        max_k: int | None = None,
        heading: str = "",
    ):
        results, missed = [tuple(row) for row in results], [tuple(row) for row in missed]
        if not results:
            raise ValueError("the lab needs at least one result")
        metrics.check_ranking([doc_id for doc_id, _, _ in results + missed])
        metrics.check_choice(gain, metrics.GAINS, "gain")
        metrics.check_choice(ideal, metrics.IDEALS, "ideal")
        self.ids = [doc_id for doc_id, _, _ in results]
        self.titles = [title for _, title, _ in results]
        self.missed_ids = [doc_id for doc_id, _, _ in missed]
        self.missed_titles = [title for _, title, _ in missed]
        self.initial_grades = [int(grade) for _, _, grade in results]
        self.initial_missed = [int(grade) for _, _, grade in missed]
        self.max_grade = (
            max([2, *self.initial_grades, *self.initial_missed]) if max_grade is None else max_grade
        )
        self.max_k = len(results) if max_k is None else metrics.check_k(max_k, allow_none=False)
        self.initial = {"k": min(metrics.check_k(k, allow_none=False), self.max_k), "gain": gain}
        self.initial.update(ideal=ideal, threshold=threshold)
        self.metric_values: dict = {}
        self.formula_text = ""
        self.refresh_count = 0

        self.grade_buttons = [self._grade_button(f"grade-btn-{rank}") for rank in range(1, len(results) + 1)]
        self.missed_buttons = [
            self._grade_button(f"grade-btn-missed-{number}") for number in range(1, len(missed) + 1)
        ]
        self.row_labels = [_html(css=f"result-{rank}") for rank in range(1, len(results) + 1)]
        missed_labels = [
            _html(f"<span style='color:#8a5a00'>missed</span> {html.escape(doc_id)} · {html.escape(title)}")
            for doc_id, title in zip(self.missed_ids, self.missed_titles, strict=True)
        ]
        self.k_slider = widgets.IntSlider(
            value=self.initial["k"], min=1, max=self.max_k, description="K", continuous_update=True
        )
        self.k_slider.add_class("k-slider")
        gains = [(GAIN_LABELS[name], name) for name in metrics.GAINS]
        self.gain_toggle = _toggle(gains, gain, "gain", "gain-toggle")
        ideals = [(IDEAL_LABELS[name], name) for name in metrics.IDEALS]
        self.ideal_toggle = _toggle(ideals, ideal, "ideal", "ideal-toggle")
        levels = [(f"grade ≥ {level}", level) for level in (1, 2)]
        self.threshold_toggle = _toggle(levels, threshold, "relevant", "threshold-toggle")
        self.formulas_checkbox = widgets.Checkbox(value=False, description="show the sheet's formulas")
        self.formulas_checkbox.add_class("show-formulas")
        self.reset_button = widgets.Button(description="reset", tooltip="grades from the data, lab defaults")
        self.reset_button.add_class("reset-btn")
        self.k_note, self.gain_note = _note("k-note"), _note("gain-note")
        self.ideal_note, self.threshold_note = _note("ideal-note"), _note("threshold-note")
        self.metric_labels = {
            name: _html(css=f"metric-{name}", min_width="11em") for name in ("recall", "mrr", "mrr-k", "ndcg")
        }
        self.formula_label = _html(css="formula-out")
        self.table_html = _html(css="arithmetic-table")
        positions = max(self.max_k, len(results) + len(missed))
        self.plot = DiscountedGainPlot(positions)
        self.plot_image = self.plot.image

        for button in self.grade_buttons + self.missed_buttons:
            button.on_click(self._cycle_grade)
        for control in (self.k_slider, self.gain_toggle, self.ideal_toggle, self.threshold_toggle):
            control.observe(self._on_change, names="value")
        self.formulas_checkbox.observe(self._on_change, names="value")
        self.reset_button.on_click(lambda _: self.reset())

        rows = [
            widgets.HBox([button, label])
            for button, label in zip(self.grade_buttons, self.row_labels, strict=True)
        ]
        rows += [
            widgets.HBox([button, label])
            for button, label in zip(self.missed_buttons, missed_labels, strict=True)
        ]
        hint = " → ".join(grade_name(grade, self.max_grade) for grade in range(self.max_grade + 1))
        children = [
            _html(heading or "<b>Metrics lab</b>"),
            _html(f"<i>Click a grade: {html.escape(hint)} → {grade_name(0, self.max_grade)}</i>"),
            *rows,
            widgets.HBox([self.k_slider, self.k_note]),
            widgets.HBox([self.gain_toggle, self.gain_note]),
            widgets.HBox([self.ideal_toggle, self.ideal_note]),
            widgets.HBox([self.threshold_toggle, self.threshold_note]),
            widgets.HBox(list(self.metric_labels.values())),
            self.formula_label,
            widgets.HBox([self.table_html, self.plot_image], layout=widgets.Layout(flex_flow="row wrap")),
            widgets.HBox([self.formulas_checkbox, self.reset_button]),
        ]
        super().__init__(children)
        self.add_class("metrics-lab")
        self._grades = list(self.initial_grades)
        self._missed = list(self.initial_missed)
        self.refresh()

    # -- state ---------------------------------------------------------------

    @property
    def grades(self) -> list[int]:
        """The current grades of the results, in rank order."""
        return list(self._grades)

    @property
    def missed_grades(self) -> list[int]:
        """The current grades of the judged documents the system missed."""
        return list(self._missed)

    def judgments(self) -> dict[str, int]:
        """The current judgments: every result and missed document with the grade set now."""
        return dict(zip(self.ids + self.missed_ids, self._grades + self._missed, strict=True))

    def set_grades(self, grades: Sequence[int], missed: Sequence[int] | None = None) -> None:
        """Set every result's grade at once (and optionally the missed ones), then recompute once."""
        grades = [int(grade) for grade in metrics.check_grades(grades)]
        missed = self._missed if missed is None else [int(g) for g in metrics.check_grades(missed, "missed")]
        if len(grades) != len(self.ids) or len(missed) != len(self.missed_ids):
            raise ValueError(f"expected {len(self.ids)} grades and {len(self.missed_ids)} missed grades")
        if max(grades + missed, default=0) > self.max_grade:
            raise ValueError(f"grades run from 0 to {self.max_grade} in this lab")
        self._grades, self._missed = grades, list(missed)
        self.refresh()

    def reset(self) -> None:
        """Back to the data's grades and the lab's opening conventions."""
        with self._quietly():
            self.k_slider.value = self.initial["k"]
            self.gain_toggle.value = self.initial["gain"]
            self.ideal_toggle.value = self.initial["ideal"]
            self.threshold_toggle.value = self.initial["threshold"]
        self.set_grades(self.initial_grades, self.initial_missed)

    def _grade_button(self, css: str) -> widgets.Button:
        button = widgets.Button(layout=widgets.Layout(width="9.5em"))
        button.add_class(css)
        button.add_class("grade-btn")
        return button

    def _cycle_grade(self, button: widgets.Button) -> None:
        if button in self.grade_buttons:
            grades, index = self._grades, self.grade_buttons.index(button)
        else:
            grades, index = self._missed, self.missed_buttons.index(button)
        grades[index] = (grades[index] + 1) % (self.max_grade + 1)
        self.refresh()

    # -- recompute and show --------------------------------------------------

    def compute(self) -> dict:
        """Every number of the current state, through helpers.metrics (None where undefined)."""
        k, gain = self.k_slider.value, self.gain_toggle.value
        ideal, threshold = self.ideal_toggle.value, self.threshold_toggle.value
        grades = [float(grade) for grade in self._grades]
        ideal_grades = grades + [float(g) for g in self._missed] if ideal == "judged" else grades
        relevant = metrics.relevant_ids(self.judgments(), threshold)
        try:
            recall = metrics.recall_at_k(self.ids, relevant, k)
        except metrics.UndefinedMetricError:
            recall = None
        first_rank = metrics.first_relevant_rank(self.ids, relevant)
        best = metrics.ideal_dcg(ideal_grades, k, gain)
        return {
            "k": k,
            "gain": gain,
            "ideal": ideal,
            "threshold": threshold,
            "grades": list(self._grades),
            "missed_grades": list(self._missed),
            "relevant": [doc_id for doc_id in self.ids + self.missed_ids if doc_id in relevant],
            "found_in_top_k": [doc_id for doc_id in self.ids[:k] if doc_id in relevant],
            "recall": recall,
            "first_relevant_rank": first_rank,
            "mrr": metrics.mean_reciprocal_rank([first_rank]),
            "mrr_at_k": metrics.mean_reciprocal_rank([first_rank], k),
            "dcg": metrics.dcg(grades, k, gain),
            "idcg": best,
            "ndcg": _ndcg_or_none(grades, k, ideal_grades, gain),
            "ideal_grades": sorted((int(g) for g in ideal_grades), reverse=True),
        }

    def refresh(self) -> None:
        """Recompute every number and update every part of the lab in place."""
        values = self.compute()
        k, gain = values["k"], values["gain"]
        grades = [float(grade) for grade in self._grades]
        ideal_grades = [float(g) for g in values["ideal_grades"]]
        table = metrics.arithmetic_table(grades, k, ideal=ideal_grades, gain=gain, ids=self.ids)
        rows = table_records(table)
        with self.hold_sync():
            self._show_rows(k, values["relevant"])
            self._show_notes(values)
            self._show_metrics(values)
            self.formula_label.value = self._formula_html(rows, values)
            whole_range = f"$C$2:$C${len(self.ids) + 1}"
            ideal_range = whole_range if values["ideal"] == "returned" or not self.missed_ids else None
            self.table_html.value = table_sheet_html(
                rows,
                gain,
                ideal_range,
                f"The arithmetic, rank by rank ({gain} gain, K = {k})",
                self.formulas_checkbox.value,
            )
            self.plot.update(rows, k, gain, metrics.gain_of(self.max_grade, gain))
        self.metric_values = values
        self.refresh_count += 1

    def _show_rows(self, k: int, relevant: list[str]) -> None:
        for button, grade in zip(
            self.grade_buttons + self.missed_buttons, self._grades + self._missed, strict=True
        ):
            button.description = f"{grade} · {grade_name(grade, self.max_grade)}"
            button.button_style = ("", "info", "success", "success")[min(grade, 3)]
        for rank, (label, doc_id, title) in enumerate(
            zip(self.row_labels, self.ids, self.titles, strict=True), 1
        ):
            colour = "inherit" if rank <= k else "#999"
            mark = " ✓ relevant" if doc_id in relevant else ""
            label.value = (
                f"<span style='color:{colour}'><b>{rank}.</b> {html.escape(doc_id)} · "
                f"{html.escape(title)}<small style='color:#2a7d2a'>{mark}</small></span>"
            )

    def _show_notes(self, values: dict) -> None:
        k, n = values["k"], len(self.ids)
        if k < n:
            self.k_note.value = f"K = {k}: the top {k} of {n} results count; ranks {k + 1}–{n} are greyed."
        elif k == n:
            self.k_note.value = f"K = {k}: all {n} results count."
        else:
            self.k_note.value = (
                f"K = {k} > {n} results: counted as {n} returned + padding — ranks {n + 1}–{k} are empty "
                "and add 0 to DCG and recall; the ideal fills them only with judged documents "
                "the search missed."
            )
        if values["gain"] == "exponential":
            self.gain_note.value = (
                "Active: <b>exponential gain, 2^grade − 1</b> — this lab's convention, as in its source "
                "lesson. The collection's default is linear gain (gain = grade): flip the switch to compare."
            )
        else:
            self.gain_note.value = (
                "Active: <b>linear gain, gain = grade</b> — the collection's default. "
                "This lab opens with exponential gain, 2^grade − 1."
            )
        n_missed = len(self.missed_ids)
        if values["ideal"] == "judged":
            missed = f" plus the {n_missed} judged document(s) the search missed" if n_missed else ""
            same = (
                ""
                if n_missed
                else f" Every judged document is among the results, so this is also the lab's "
                f"'same {n} grades, sorted'."
            )
            self.ideal_note.value = (
                "Active: <b>ideal from all judged documents</b> (the collection's default): the grades you "
                f"set on the {n} results{missed}, sorted high to low — your clicks are the judgments.{same}"
            )
        else:
            consequence = (
                "this leaves out the judged document(s) the search missed and overstates nDCG "
                "(the mistake of lesson 03)"
                if n_missed
                else "nothing judged was missed here, so both ideals agree"
            )
            self.ideal_note.value = (
                f"Active: <b>ideal from the returned results only</b>: the same {n} grades, sorted; "
                f"{consequence}."
            )
        level = values["threshold"]
        names = " or ".join(grade_name(g, self.max_grade) for g in range(level, self.max_grade + 1))
        self.threshold_note.value = (
            f"Relevant for Recall and MRR: grade ≥ {level} ({html.escape(names)}). "
            "nDCG ignores the threshold: it uses the grades themselves."
        )

    def _show_metrics(self, values: dict) -> None:
        k = values["k"]
        self.metric_labels["recall"].value = metric_label(f"Recall@{k}", values["recall"], UNDEFINED_RECALL)
        self.metric_labels["mrr"].value = f"<b>MRR = {values['mrr']:.4f}</b>"
        self.metric_labels["mrr-k"].value = f"<b>MRR@{k} = {values['mrr_at_k']:.4f}</b>"
        self.metric_labels["ndcg"].value = metric_label(f"nDCG@{k}", values["ndcg"], UNDEFINED_NDCG)

    def _formula_html(self, rows: Sequence[dict], values: dict) -> str:
        k, gain = values["k"], values["gain"]
        found, relevant = values["found_in_top_k"], values["relevant"]
        if values["recall"] is None:
            recall = f"Recall@{k} = found / R with R = 0: {UNDEFINED_RECALL}"
        else:
            recall = (
                f"Recall@{k} = {len(found)} / {len(relevant)} = {values['recall']:.4f}"
                f"   (relevant: {', '.join(relevant)}; in the top {k}: {', '.join(found) or 'none'})"
            )
        first = values["first_relevant_rank"]
        if first:
            where = f"first relevant: {self.ids[first - 1]} at rank {first}"
            mrr = f"MRR = 1/{first} = {values['mrr']:.4f}   ({where})"
            mrr += f";  MRR@{k} = {values['mrr_at_k']:.4f}" + (f" (rank {first} > K)" if first > k else "")
        else:
            mrr = f"MRR = 0.0000   (no relevant result in the list: a miss scores 0);  MRR@{k} = 0.0000"
        dcg_line = f"DCG@{k} = {dcg_formula(rows, gain)} = {values['dcg']:.4f}"
        idcg_line = f"IDCG@{k} = {dcg_formula(rows, gain, ideal=True)} = {values['idcg']:.4f}"
        if values["ndcg"] is None:
            ndcg_line = f"nDCG@{k} = DCG@{k} / IDCG@{k} = {values['dcg']:.4f} / 0: {UNDEFINED_NDCG}"
        else:
            ndcg_line = (
                f"nDCG@{k} = DCG@{k} / IDCG@{k} = {values['dcg']:.4f} / {values['idcg']:.4f}"
                f" = {values['ndcg']:.4f}"
            )
        self.formula_text = "\n".join([recall, mrr, dcg_line, idcg_line, ndcg_line])
        return pre_lines(self.formula_text.splitlines())


def metrics_lab(
    example: str = "E",
    query: str | None = None,
    system: str | None = None,
    *,
    k: int = 3,
    gain: str = "exponential",
    ideal: str = "judged",
    threshold: int = 1,
    max_k: int | None = None,
) -> MetricsLab:
    """The metrics lab of lesson 05 on one query of an example (default: example E, query e1, system lab).

    Opens with the lab's conventions: exponential gain (2^grade − 1), ideal from
    every judged document (in example E, the same six grades sorted), relevant =
    grade >= 1, K = 3. ``query`` and ``system`` default to the example's first
    ones. Judged documents the system missed get their own rows (example C).
    """
    data = load_example(example)
    query = data.query_ids[0] if query is None else query
    system = data.systems[0] if system is None else system
    judgments = data.judgments_for(query)
    ranking = data.ranking(system, query)
    results = [(doc_id, data.title(doc_id), int(judgments.get(doc_id, 0))) for doc_id in ranking]
    missed = [
        (doc_id, data.title(doc_id), int(grade))
        for doc_id, grade in judgments.items()
        if doc_id not in ranking and grade > 0
    ]
    heading = (
        f"<b>Metrics lab</b> · example {html.escape(example.upper())}, query {html.escape(query)}: "
        f"“{html.escape(data.query_text(query))}” · system {html.escape(system)} · {len(results)} results"
    )
    return MetricsLab(
        results, missed, k=k, gain=gain, ideal=ideal, threshold=threshold, max_k=max_k, heading=heading
    )


# --- lesson 01: MRR vs hit rate (example A) ---------------------------------


def move_to(ranking: Sequence[str], doc_id: str, rank: int) -> list[str]:
    """The ranking with one id moved to ``rank`` (1-based) and the rest in order; rank 0 drops it."""
    rest = [other for other in ranking if other != doc_id]
    if rank == 0:
        return rest
    rank = min(rank, len(rest) + 1)
    return rest[: rank - 1] + [doc_id] + rest[rank - 1 :]


class MrrControl(_Control):
    """Lesson 01: move each question's first relevant passage in OLD and NEW; RR, MRR and hit rate@k live.

    Each dropdown moves the passage that is the question's first relevant one in
    the data (e.g. D8 for q1) to another rank, or out of the list; the other
    passages keep their order. The first relevant rank is then read off the
    changed list (another relevant passage may now come first), and RR, MRR and
    hit rate@k are computed from those ranks by helpers.metrics.

    Reachable parts: ``rank_pickers[(system, query)]``, ``rr_labels[(system, query)]``,
    ``hit_k_slider``, ``reset_button``, ``summary_html`` and ``metric_values``
    (per system: first_ranks, reciprocal_ranks, mrr, hit_rate, plus hit_k).
    """

    def __init__(self, example: str = "A", hit_k: int = 3):
        self.data = load_example(example)
        self.systems = self.data.systems
        self.query_ids = self.data.query_ids
        self.relevant = {query: self.data.relevant_for(query) for query in self.query_ids}
        self.rankings = {system: self.data.rankings(system) for system in self.systems}
        self.moved, self.start = {}, {}
        for system in self.systems:
            for query in self.query_ids:
                ranking = self.rankings[system][query]
                first = metrics.first_relevant_rank(ranking, self.relevant[query])
                self.moved[system, query] = ranking[first - 1] if first else None
                self.start[system, query] = first
        longest = max(len(ranking) for by_query in self.rankings.values() for ranking in by_query.values())
        options = [(f"rank {rank}", rank) for rank in range(1, longest + 1)] + [("not returned", 0)]
        self.rank_pickers, self.rr_labels = {}, {}
        for key, doc_id in self.moved.items():
            picker = widgets.Dropdown(
                options=options,
                value=self.start[key],
                description=f"{doc_id} at" if doc_id else "no hit",
                disabled=doc_id is None,
                layout=widgets.Layout(width="15em"),
            )
            picker.add_class(f"mrr-rank-{key[0]}-{key[1]}")
            picker.observe(self._on_change, names="value")
            self.rank_pickers[key] = picker
            self.rr_labels[key] = _html(css=f"mrr-rr-{key[0]}-{key[1]}", min_width="15em")
        self.hit_k_slider = widgets.IntSlider(value=hit_k, min=1, max=longest, description="hit rate k")
        self.hit_k_slider.add_class("hit-k-slider")
        self.hit_k_slider.observe(self._on_change, names="value")
        self.reset_button = widgets.Button(description="reset to the data")
        self.reset_button.add_class("reset-btn")
        self.reset_button.on_click(lambda _: self.reset())
        self.summary_html = _html(css="mrr-summary")
        self.metric_values: dict = {}
        header = widgets.HBox(
            [_html("<b>question</b>", width="22em")]
            + [_html(f"<b>{html.escape(system)}</b>", width="30em") for system in self.systems]
        )
        rows = []
        for query in self.query_ids:
            text = f"{html.escape(query)} · {html.escape(self.data.query_text(query))}"
            cells = [_html(text, width="22em")]
            for system in self.systems:
                cells.append(
                    widgets.HBox(
                        [self.rank_pickers[system, query], self.rr_labels[system, query]],
                        layout=widgets.Layout(width="30em"),
                    )
                )
            rows.append(widgets.HBox(cells))
        super().__init__(
            [
                _html("<b>MRR vs hit rate</b>: move a question's first relevant passage and watch both."),
                header,
                *rows,
                widgets.HBox([self.hit_k_slider, self.reset_button]),
                self.summary_html,
            ]
        )
        self.add_class("mrr-control")
        self.refresh()

    def ranking(self, system: str, query: str) -> list[str]:
        """The list as it is now, with the moved passage at the picked rank."""
        doc_id = self.moved[system, query]
        original = self.rankings[system][query]
        return (
            original if doc_id is None else move_to(original, doc_id, self.rank_pickers[system, query].value)
        )

    def reset(self) -> None:
        """Every passage back where the data has it."""
        with self._quietly():
            for key, picker in self.rank_pickers.items():
                picker.value = self.start[key]
        self.refresh()

    def refresh(self) -> None:
        """Recompute every reciprocal rank, MRR and hit rate and update the labels."""
        k = self.hit_k_slider.value
        values: dict = {"hit_k": k}
        with self.hold_sync():
            for system in self.systems:
                first_ranks, reciprocal = [], []
                for query in self.query_ids:
                    ranking = self.ranking(system, query)
                    first = metrics.first_relevant_rank(ranking, self.relevant[query])
                    rr = metrics.reciprocal_rank(ranking, self.relevant[query])
                    first_ranks.append(first)
                    reciprocal.append(rr)
                    shown_list = " ".join(
                        f"<b>{doc_id}</b>" if doc_id in self.relevant[query] else doc_id for doc_id in ranking
                    )
                    where = f"first relevant at rank {first}" if first else "no relevant passage"
                    label = (
                        f"<span style='{MONO}'>RR = {rr:.3f}</span> <small>({where})<br>{shown_list}</small>"
                    )
                    self.rr_labels[system, query].value = label
                values[system] = {
                    "first_ranks": first_ranks,
                    "reciprocal_ranks": reciprocal,
                    "mrr": metrics.mean_reciprocal_rank(first_ranks),
                    "hit_rate": metrics.mean_hit_rate(first_ranks, k),
                }
            rows = "".join(
                f"<tr class='mrr-row-{html.escape(system)}'><td>{html.escape(system)}</td>"
                f"<td>{', '.join(str(rank or 'none') for rank in values[system]['first_ranks'])}</td>"
                f"<td class='metric-mrr-{html.escape(system)}'>{values[system]['mrr']:.3f}</td>"
                f"<td class='metric-hit-{html.escape(system)}'>{values[system]['hit_rate']:.3f}</td></tr>"
                for system in self.systems
            )
            mrrs = {round(values[s]["mrr"], 12) for s in self.systems}
            hits = {round(values[s]["hit_rate"], 12) for s in self.systems}
            verdict = (
                "Same hit rate, different MRR: hit rate only asks <i>whether</i> a relevant passage is "
                "in the top k, MRR also asks <i>how high</i>."
                if len(hits) == 1 and len(mrrs) > 1
                else ""
            )
            self.summary_html.value = (
                f"<table style='{MONO}'><tr><th>system</th><th>first relevant ranks</th><th>MRR</th>"
                f"<th>hit rate@{k}</th></tr>{rows}</table><p>{verdict}</p>"
            )
        self.metric_values = values


def mrr_control(example: str = "A") -> MrrControl:
    """Lesson 01: first relevant ranks per question for OLD and NEW; RR, MRR and hit rate@3 live."""
    return MrrControl(example)


# --- lesson 02: positions and grades of the relevant passages (example B) ----


class NdcgControl(_Control):
    """Lesson 02: choose where the relevant passages sit and their grades; DCG, ideal DCG and nDCG live.

    The passages judged relevant in the data (D11 and D4 in example B) each get a
    position picker (1..n or "not returned") and a grade slider (0..3); the
    others keep the order of the starting system. Moving one onto the other's
    position swaps them. The ideal is built from every judged document with the
    grades set now (a removed passage stays in the ideal). K and the gain form
    can be changed too.

    Reachable parts: ``start_picker``, ``position_pickers[doc_id]``,
    ``grade_sliders[doc_id]``, ``k_slider``, ``gain_toggle``, ``metric_labels``
    (dcg, idcg, ndcg), ``formula_label``, ``table_html``, ``plot_image`` and
    ``metric_values``.
    """

    def __init__(self, example: str = "B", query: str | None = None, start: str = "swapped", k: int = 5):
        self.data = load_example(example)
        self.query = self.data.query_ids[0] if query is None else query
        self.judged = self.data.judgments_for(self.query)
        self.movable = [doc_id for doc_id, grade in self.judged.items() if grade > 0]
        self.n = max(len(self.data.ranking(system, self.query)) for system in self.data.systems)
        start = start if start in self.data.systems else self.data.systems[0]
        self.start_picker = widgets.Dropdown(options=self.data.systems, value=start, description="start from")
        self.start_picker.add_class("ndcg-start")
        options = [(f"rank {rank}", rank) for rank in range(1, self.n + 1)] + [("not returned", 0)]
        self.position_pickers, self.grade_sliders = {}, {}
        for doc_id in self.movable:
            picker = widgets.Dropdown(
                options=options, description=f"{doc_id} at", layout=widgets.Layout(width="14em")
            )
            picker.add_class(f"ndcg-pos-{doc_id}")
            slider = widgets.IntSlider(
                value=int(self.judged[doc_id]), min=0, max=3, description=f"{doc_id} grade"
            )
            slider.add_class(f"ndcg-grade-{doc_id}")
            self.position_pickers[doc_id], self.grade_sliders[doc_id] = picker, slider
        self.k_slider = widgets.IntSlider(value=min(k, self.n), min=1, max=self.n, description="k")
        self.k_slider.add_class("k-slider")
        gains = [(GAIN_LABELS[name], name) for name in metrics.GAINS]
        self.gain_toggle = _toggle(gains, "linear", "gain", "gain-toggle")
        self.ranking_html = _html(css="ndcg-ranking")
        self.metric_labels = {
            name: _html(css=f"metric-{name}", min_width="10em") for name in ("dcg", "idcg", "ndcg")
        }
        self.formula_label = _html(css="formula-out")
        self.table_html = _html(css="arithmetic-table")
        self.plot = DiscountedGainPlot(self.n)
        self.plot_image = self.plot.image
        self.metric_values: dict = {}
        self._order: list[str] = []
        self._load_start()
        self.start_picker.observe(self._on_start, names="value")
        for doc_id in self.movable:
            self.position_pickers[doc_id].observe(self._on_move, names="value")
            self.grade_sliders[doc_id].observe(self._on_change, names="value")
        self.k_slider.observe(self._on_change, names="value")
        self.gain_toggle.observe(self._on_change, names="value")
        pickers = [widgets.HBox([self.position_pickers[d], self.grade_sliders[d]]) for d in self.movable]
        super().__init__(
            [
                _html(
                    f"<b>nDCG by hand</b> · “{html.escape(self.data.query_text(self.query))}” · "
                    "move the relevant passages, change their grades"
                ),
                self.start_picker,
                *pickers,
                widgets.HBox([self.k_slider, self.gain_toggle]),
                self.ranking_html,
                widgets.HBox(list(self.metric_labels.values())),
                self.formula_label,
                widgets.HBox([self.table_html, self.plot_image], layout=widgets.Layout(flex_flow="row wrap")),
            ]
        )
        self.add_class("ndcg-control")
        self.refresh()

    def ranking(self) -> list[str]:
        """The current ranked list of ids."""
        return list(self._order)

    def _load_start(self) -> None:
        self._order = self.data.ranking(self.start_picker.value, self.query)
        self._sync_pickers()

    def _sync_pickers(self) -> None:
        with self._quietly():
            for doc_id in self.movable:
                rank = self._order.index(doc_id) + 1 if doc_id in self._order else 0
                self.position_pickers[doc_id].value = rank

    def _on_start(self, _change) -> None:
        self._load_start()
        self.refresh()

    def _on_move(self, change) -> None:
        if self._quiet:
            return
        doc_id = next(d for d, picker in self.position_pickers.items() if picker is change["owner"])
        target = change["new"]
        old_rank = self._order.index(doc_id) + 1 if doc_id in self._order else 0
        occupant = self._order[target - 1] if 0 < target <= len(self._order) else None
        order = move_to(self._order, doc_id, target)
        if occupant in self.movable and occupant != doc_id and old_rank:
            order = move_to(order, occupant, old_rank)
        self._order = order
        self._sync_pickers()
        self.refresh()

    def refresh(self) -> None:
        """Recompute DCG, ideal DCG and nDCG for the current list and update everything in place."""
        k, gain = self.k_slider.value, self.gain_toggle.value
        judgments = dict(self.judged)
        judgments.update({doc_id: float(slider.value) for doc_id, slider in self.grade_sliders.items()})
        ranking = self.ranking()
        grades = metrics.grades_in_rank_order(ranking, judgments)
        ideal = list(judgments.values())
        table = metrics.arithmetic_table(grades or [0.0], k, ideal=ideal, gain=gain, ids=ranking or None)
        rows = table_records(table)
        values = {
            "k": k,
            "gain": gain,
            "ranking": ranking,
            "grades": grades,
            "dcg": metrics.dcg(grades, k, gain),
            "idcg": metrics.ideal_dcg(ideal, k, gain),
            "ndcg": _ndcg_or_none(grades, k, ideal, gain),
        }
        with self.hold_sync():
            self.ranking_html.value = (
                f"<span style='{MONO}'>"
                + " · ".join(
                    f"{rank}. {html.escape(doc_id)} (grade {int(grade)})"
                    for rank, (doc_id, grade) in enumerate(zip(ranking, grades, strict=True), start=1)
                )
                + "</span>"
            )
            self.metric_labels["dcg"].value = f"<b>DCG@{k} = {values['dcg']:.4f}</b>"
            self.metric_labels["idcg"].value = f"<b>ideal DCG@{k} = {values['idcg']:.4f}</b>"
            self.metric_labels["ndcg"].value = metric_label(f"nDCG@{k}", values["ndcg"], UNDEFINED_NDCG)
            ndcg_text = (
                f"{values['dcg']:.4f} / {values['idcg']:.4f} = {values['ndcg']:.4f}"
                if values["ndcg"] is not None
                else UNDEFINED_NDCG
            )
            lines = [
                f"DCG@{k} = {dcg_formula(rows, gain)} = {values['dcg']:.4f}",
                f"ideal DCG@{k} = {dcg_formula(rows, gain, ideal=True)} = {values['idcg']:.4f}",
                f"nDCG@{k} = {ndcg_text}",
            ]
            self.formula_label.value = pre_lines(lines)
            self.table_html.value = table_sheet_html(
                rows, gain, None, f"The arithmetic, rank by rank ({gain} gain, k = {k})", False
            )
            self.plot.update(rows, k, gain, metrics.gain_of(3, gain))
        self.metric_values = values


def ndcg_control(example: str = "B") -> NdcgControl:
    """Lesson 02: move D11 and D4 and change their grades; DCG, ideal DCG and nDCG@k live."""
    return NdcgControl(example)


# --- lesson 03: the worksheet of example C ----------------------------------


class WorksheetControl(_Control):
    """Lesson 03: edit the worksheet's grades (six results and the missed document) and k.

    The sheet is :func:`helpers.sheetview.ndcg_worksheet` (example C's layout)
    redrawn on every change; DCG@k, IDCG@k and NDCG@k are shown to 3 decimals
    like the source, with the "ideal from the returned results only" mistake
    beside them. k runs from 1 to the number of returned results (the sheet's
    IDCG sums the rows of the returned results).

    Reachable parts: ``grade_inputs`` (results in rank order), ``missed_inputs``,
    ``k_slider``, ``gain_toggle``, ``formulas_checkbox``, ``sheet`` (the last
    Sheet drawn), ``sheet_html``, ``metric_labels`` (dcg, idcg, ndcg,
    ndcg-returned) and ``metric_values``.
    """

    def __init__(self, example: str = "C", query: str | None = None, system: str | None = None, k: int = 5):
        data = load_example(example)
        query = data.query_ids[0] if query is None else query
        system = data.systems[0] if system is None else system
        judgments = data.judgments_for(query)
        self.ids = data.ranking(system, query)
        self.missed_ids = [
            doc_id for doc_id, grade in judgments.items() if doc_id not in self.ids and grade > 0
        ]
        self.grade_inputs = [
            self._grade_input(f"{rank}. {doc_id}", judgments.get(doc_id, 0), f"ws-grade-{rank}")
            for rank, doc_id in enumerate(self.ids, start=1)
        ]
        self.missed_inputs = [
            self._grade_input(f"missed {doc_id}", judgments[doc_id], f"ws-grade-missed-{number}")
            for number, doc_id in enumerate(self.missed_ids, start=1)
        ]
        self.k_slider = widgets.IntSlider(
            value=min(k, len(self.ids)), min=1, max=len(self.ids), description="k"
        )
        self.k_slider.add_class("k-slider")
        gains = [(GAIN_LABELS[name], name) for name in metrics.GAINS]
        self.gain_toggle = _toggle(gains, "linear", "gain", "gain-toggle")
        self.formulas_checkbox = widgets.Checkbox(value=False, description="show formulas")
        self.formulas_checkbox.add_class("show-formulas")
        self.sheet_html = _html(css="worksheet")
        self.metric_labels = {
            name: _html(css=f"metric-{name}", min_width="10em")
            for name in ("dcg", "idcg", "ndcg", "ndcg-returned")
        }
        self.metric_values: dict = {}
        self.sheet = None
        for control in (*self.grade_inputs, *self.missed_inputs, self.k_slider, self.gain_toggle):
            control.observe(self._on_change, names="value")
        self.formulas_checkbox.observe(self._on_change, names="value")
        super().__init__(
            [
                _html(
                    f"<b>The nDCG worksheet</b> · “{html.escape(data.query_text(query))}” · "
                    "type grades 0–3 (yellow cells) and pick k"
                ),
                widgets.HBox(self.grade_inputs[:4]),
                widgets.HBox(self.grade_inputs[4:] + self.missed_inputs),
                widgets.HBox([self.k_slider, self.gain_toggle, self.formulas_checkbox]),
                widgets.HBox(list(self.metric_labels.values())),
                self.sheet_html,
            ]
        )
        self.add_class("worksheet-control")
        self.refresh()

    @staticmethod
    def _grade_input(description: str, grade: float, css: str) -> widgets.BoundedIntText:
        box = widgets.BoundedIntText(
            value=int(grade),
            min=0,
            max=3,
            description=description,
            style={"description_width": "initial"},
            layout=widgets.Layout(width="11em"),
        )
        box.add_class(css)
        return box

    def refresh(self) -> None:
        """Redraw the worksheet and the three numbers for the grades and k set now."""
        grades = [float(box.value) for box in self.grade_inputs]
        missed = [float(box.value) for box in self.missed_inputs]
        k, gain = self.k_slider.value, self.gain_toggle.value
        values = {
            "k": k,
            "gain": gain,
            "grades": [int(g) for g in grades],
            "missed_grades": [int(g) for g in missed],
            "dcg": metrics.dcg(grades, k, gain),
            "idcg": metrics.ideal_dcg(grades + missed, k, gain),
            "ndcg": _ndcg_or_none(grades, k, grades + missed, gain),
            "ndcg_returned_only": _ndcg_or_none(grades, k, grades, gain),
        }
        self.sheet = ndcg_worksheet(
            grades, missed, k=k, gain=gain, show_formulas=self.formulas_checkbox.value
        )
        with self.hold_sync():
            self.sheet_html.value = self.sheet.to_html()
            self.metric_labels["dcg"].value = f"<b>DCG@{k} = {values['dcg']:.3f}</b>"
            self.metric_labels["idcg"].value = f"<b>IDCG@{k} = {values['idcg']:.3f}</b>"
            self.metric_labels["ndcg"].value = metric_label(f"NDCG@{k}", values["ndcg"], UNDEFINED_NDCG, 3)
            self.metric_labels["ndcg-returned"].value = (
                f"<small>ideal from returned results only (the mistake): "
                f"{shown(values['ndcg_returned_only'], 3, 'undefined')}</small>"
            )
        self.metric_values = values


def worksheet_control(example: str = "C") -> WorksheetControl:
    """Lesson 03: edit example C's grades and k in the worksheet; DCG@k, IDCG@k and NDCG@k live."""
    return WorksheetControl(example)
