"""The metrics lab of lesson 05 on screen: ipywidgets around :mod:`helpers.widgets.lab_model`.

Clicks, the K slider and the switches become transitions of the lab's state;
:func:`helpers.widgets.lab_model.compute` gives every number and text; this
module only lays them out. Stable CSS classes (``grade-btn-1``, ``k-slider``,
``metric-ndcg``, ...) are there for the browser tests.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from functools import partial

import ipywidgets as widgets

from helpers.data import load_example
from helpers.widgets import lab_model as model
from helpers.widgets._arithmetic import grade_name
from helpers.widgets._common import (
    IDEAL_LABELS,
    StateView,
    checkbox,
    control_layout,
    gain_toggle,
    html_box,
    k_slider,
    metric_box,
    metric_label,
    note_box,
    pre_lines,
    text,
    toggle,
)
from helpers.widgets._plot import DiscountedGainPlot
from helpers.widgets.lab_model import Judged, LabResult, LabSetup, LabState, Listed
from helpers.widgets.lab_text import Note
from helpers.widgets.table import table_sheet_html

# (background, text) of a grade button by grade: none, partly, relevant and above; every pair has a
# contrast of at least 4.5:1 (WCAG AA), which ipywidgets' "info" and "success" styles do not
GRADE_COLOURS = (("#ececec", "#1a1a1a"), ("#cfe3f5", "#0b3a6b"), ("#1e6b34", "#ffffff"), ("#1e6b34", "#ffffff"))
# results past K: the theme's secondary text (4.6:1 on white, 9:1 on JupyterLab Dark); #6b6b6b without a theme
GREYED_FALLBACK = "#6b6b6b"
GREYED = f"var(--jp-content-font-color2,{GREYED_FALLBACK})"
# (background, text) of the small marks beside a result: a chip of their own, so they read on a light or a dark page
RELEVANT_MARK = ("#e3f1e5", "#1b5e20")
MISSED_MARK = ("#fdf0dc", "#6b4200")


class MetricsLab(StateView[LabSetup, LabState, LabResult]):
    """The metrics lab of lesson 05: clickable grades, K and conventions; Recall@K, MRR and nDCG@K live.

    ``results`` are (doc_id, title, grade) in rank order (the fixed list);
    ``missed`` are judged documents the system did not return, (doc_id, title,
    grade), shown below the list with their own grade buttons. "ideal = all
    judged" sorts the grades of every result and every missed document as they
    are set now (in the lab the clicks *are* the judgments); "returned only"
    sorts the results' grades alone. The relevance ``threshold`` makes the
    binary judgments of Recall@K and MRR; nDCG uses the grades.

    K runs from 1 to ``max_k`` (default: the number of results). With a larger
    ``max_k`` the lab counts K past the list as the returned results plus empty
    ranks that add 0, and says so on screen.

    The lab holds ``setup`` and ``state`` (:mod:`helpers.widgets.lab_model`) and
    ``result``, the last :func:`~helpers.widgets.lab_model.compute`. Reachable
    parts: ``grade_buttons`` (results in rank order), ``missed_buttons``,
    ``k_slider``, ``gain_toggle``, ``ideal_toggle``, ``threshold_toggle``,
    ``formulas_checkbox``, ``reset_button``, ``metric_labels`` (dict of HTML),
    ``formula_label`` (its text: ``formula_text``), ``table_html``, ``plot`` /
    ``plot_image``, the notes ``k_note``, ``gain_note``, ``ideal_note``,
    ``threshold_note``, and ``metric_values`` (the numbers shown, None where
    undefined; plain, JSON-serialisable values).
    """

    def __init__(
        self,
        results: Sequence[Judged],
        missed: Sequence[Judged] = (),
        *,
        k: int = 3,
        gain: str = "exponential",
        ideal: str = "judged",
        threshold: int = 1,
        max_grade: int | None = None,
        max_k: int | None = None,
        heading: str = "",
    ):
        setup = model.lab_setup(
            results,
            missed,
            k=k,
            gain=gain,
            ideal=ideal,
            threshold=threshold,
            max_grade=max_grade,
            max_k=max_k,
        )
        opening = setup.opening
        self.setup = setup
        self.grade_buttons = [
            _grade_button(f"grade-btn-{rank}", f"{doc_id} at rank {rank}")
            for rank, doc_id in enumerate(setup.ids, start=1)
        ]
        self.missed_buttons = [
            _grade_button(f"grade-btn-missed-{number}", f"{doc_id}, missed by the search")
            for number, doc_id in enumerate(setup.missed_ids, start=1)
        ]
        self.row_labels = [html_box(css=f"result-{rank}") for rank in range(1, len(setup.ids) + 1)]
        self.k_slider = k_slider(opening.k, setup.max_k, "K")
        self.gain_toggle = gain_toggle(opening.gain)
        ideals = [(label, name) for name, label in IDEAL_LABELS.items()]
        self.ideal_toggle = toggle(ideals, opening.ideal, "ideal", "ideal-toggle")
        levels = [(f"grade ≥ {level}", level) for level in range(1, setup.max_grade + 1)]
        self.threshold_toggle = toggle(levels, opening.threshold, "relevant", "threshold-toggle")
        self.formulas_checkbox = checkbox(False, "show the sheet's formulas", "show-formulas")
        self.reset_button = widgets.Button(
            description="reset", tooltip="grades from the data, lab defaults", layout=widgets.Layout(width="auto")
        )
        self.reset_button.add_class("reset-btn")
        self.k_note, self.gain_note = note_box("k-note"), note_box("gain-note")
        self.ideal_note, self.threshold_note = note_box("ideal-note"), note_box("threshold-note")
        self.metric_labels = {name: metric_box(name) for name in ("recall", "mrr", "mrr-k", "ndcg")}
        self.formula_label = html_box(css="formula-out")
        self.table_html = html_box(css="arithmetic-table")
        self.plot = DiscountedGainPlot(max(setup.max_k, len(setup.ids) + len(setup.missed_ids)))
        self.plot_image = self.plot.image
        self._wire()
        super().__init__(self._layout(heading))
        self.add_class("metrics-lab")
        self.show(opening)

    def _wire(self) -> None:
        """Every control's event -> a transition of the model."""
        for rank, button in enumerate(self.grade_buttons, start=1):
            self.follow_clicks(button, partial(model.click_grade, rank=rank))
        for number, button in enumerate(self.missed_buttons, start=1):
            self.follow_clicks(button, partial(model.click_missed, number=number))
        self.follow(self.k_slider, model.with_k)
        self.follow(self.gain_toggle, model.with_gain)
        self.follow(self.ideal_toggle, model.with_ideal)
        self.follow(self.threshold_toggle, model.with_threshold)
        self.follow(self.formulas_checkbox, model.with_formulas)
        self.follow_clicks(self.reset_button, model.reset)

    def _layout(self, heading: str) -> list[widgets.Widget]:
        """Numbers on top; grade buttons and switches beside the plot; notes, formulas and table below."""
        setup = self.setup
        rows = [
            widgets.HBox([button, label])
            for button, label in zip(self.grade_buttons, self.row_labels, strict=True)
        ]
        for button, doc_id, title in zip(
            self.missed_buttons, setup.missed_ids, setup.missed_titles, strict=True
        ):
            label = html_box(f"{_mark('missed', MISSED_MARK)} {text(doc_id)} · {text(title)}")
            rows.append(widgets.HBox([button, label]))
        cycle = [grade_name(grade, setup.max_grade) for grade in (*range(setup.max_grade + 1), 0)]
        return control_layout(
            html_box(heading or "<b>Metrics lab</b>"),
            numbers=list(self.metric_labels.values()),
            inputs=[
                html_box(f"<i>Click a grade: {text(' → '.join(cycle))}</i>"),
                *rows,
                self.k_slider,
                self.gain_toggle,
                self.ideal_toggle,
                self.threshold_toggle,
                widgets.HBox([self.formulas_checkbox, self.reset_button]),
            ],
            readout=[self.plot.box],
            details=[
                self.k_note,
                self.gain_note,
                self.ideal_note,
                self.threshold_note,
                self.formula_label,
                self.table_html,
            ],
        )

    # -- the state, as the lessons and tests read and set it --------------------

    def compute(self, state: LabState) -> LabResult:
        return model.compute(self.setup, state)

    @property
    def ids(self) -> list[str]:
        """The results' ids in rank order."""
        return list(self.setup.ids)

    @property
    def missed_ids(self) -> list[str]:
        """The ids of the judged documents the system missed."""
        return list(self.setup.missed_ids)

    @property
    def max_grade(self) -> int:
        return self.setup.max_grade

    @property
    def grades(self) -> list[int]:
        """The current grades of the results, in rank order."""
        return list(self.state.grades)

    @property
    def missed_grades(self) -> list[int]:
        """The current grades of the judged documents the system missed."""
        return list(self.state.missed_grades)

    @property
    def formula_text(self) -> str:
        """The formula lines shown now, as plain text."""
        return self.result.formula_text

    def judgments(self) -> dict[str, int]:
        """The current judgments: every result and missed document with the grade set now."""
        setup, state = self.setup, self.state
        return dict(zip(setup.ids + setup.missed_ids, state.grades + state.missed_grades, strict=True))

    def set_grades(self, grades: Sequence[int], missed: Sequence[int] | None = None) -> None:
        """Set every result's grade at once (and optionally the missed ones), then recompute once."""
        self.show(model.with_grades(self.setup, self.state, grades, missed))

    def reset(self) -> None:
        """Back to the data's grades and the lab's opening conventions."""
        self.show(model.reset(self.setup, self.state))

    # -- render: the result into the widgets ----------------------------------

    def render(self, result: LabResult) -> None:
        numbers = result.numbers
        self.k_slider.value = numbers.k
        self.gain_toggle.value = numbers.gain
        self.ideal_toggle.value = numbers.ideal
        self.threshold_toggle.value = numbers.threshold
        self.formulas_checkbox.value = result.show_formulas
        for button, entry in zip(
            self.grade_buttons + self.missed_buttons, result.results + result.missed, strict=True
        ):
            button.description = entry.button
            button.style.button_color, button.style.text_color = GRADE_COLOURS[min(entry.grade, 3)]
        for rank, (label, entry) in enumerate(zip(self.row_labels, result.results, strict=True), start=1):
            label.value = _result_row(rank, entry)
        for box, note in (
            (self.k_note, result.k_note),
            (self.gain_note, result.gain_note),
            (self.ideal_note, result.ideal_note),
            (self.threshold_note, result.threshold_note),
        ):
            box.value = _note(note)
        for name, label in self.metric_labels.items():
            label.value = metric_label(result.labels[name])
        self.formula_label.value = pre_lines(result.formula_lines)
        rows = [row.record() for row in result.rows]
        self.table_html.value = table_sheet_html(
            rows, numbers.gain, result.sheet_ideal_range, result.table_title, result.show_formulas
        )
        self.plot.update(result.rows, numbers.k, numbers.gain, result.plot_top)


def _grade_button(css: str, document: str) -> widgets.Button:
    """A grade button; its text is the grade, its tooltip names the document it grades."""
    button = widgets.Button(
        layout=widgets.Layout(width="9.5em", flex="0 0 auto"), tooltip=f"grade of {document}: click for the next"
    )
    button.add_class(css)
    button.add_class("grade-btn")
    return button


def _result_row(rank: int, entry: Listed) -> str:
    """One result of the list: greyed past K, marked when relevant."""
    colour = "inherit" if entry.counted else GREYED
    mark = " " + _mark("✓", RELEVANT_MARK, "small", more=" relevant") if entry.relevant else ""
    title = f"<span class='lab-title'> · {text(entry.title)}</span>"  # left out on the classroom's smallest screen
    return f"<span style='color:{colour}'><b>{rank}.</b> {text(entry.doc_id)}{title}{mark}</span>"


def _mark(label: str, colours: tuple[str, str], tag: str = "span", more: str = "") -> str:
    """A short label with its own background and its own text colour; ``more`` is the rest of its words, which the
    classroom leaves out on a small screen (the mark alone says it)."""
    background, colour = colours
    rest = f"<span class='mark-words'>{text(more)}</span>" if more else ""
    return f"<{tag} style='background:{background};color:{colour}'>{text(label)}{rest}</{tag}>"


def _note(note: Note) -> str:
    """A note beside a switch: 'Active: <b>convention</b>' and its explanation."""
    active = f"Active: <b>{text(note.active)}</b>" if note.active else ""
    return active + text(note.text)


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
    results, missed = model.example_documents(data, query, system)
    heading = (
        f"<b>Metrics lab</b> · example {html.escape(example.upper())}, query {html.escape(query)}: "
        f"“{html.escape(data.query_text(query))}” · system {html.escape(system)} · {len(results)} results"
    )
    return MetricsLab(
        results, missed, k=k, gain=gain, ideal=ideal, threshold=threshold, max_k=max_k, heading=heading
    )
