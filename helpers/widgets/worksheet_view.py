"""The nDCG worksheet (lesson 03) on screen: ipywidgets around :mod:`helpers.widgets.worksheet_model`."""

from __future__ import annotations

from functools import partial

import ipywidgets as widgets

from helpers.data import load_example
from helpers.sheet import Sheet, ndcg_worksheet
from helpers.widgets import worksheet_model as model
from helpers.widgets._common import (
    StateView,
    checkbox,
    control_layout,
    gain_toggle,
    html_box,
    k_slider,
    metric_box,
    metric_label,
    text,
)
from helpers.widgets.worksheet_model import WorksheetResult, WorksheetSetup, WorksheetState


class WorksheetControl(StateView[WorksheetSetup, WorksheetState, WorksheetResult]):
    """Lesson 03: edit the worksheet's grades (six results and the missed document) and k.

    The sheet is :func:`helpers.sheet.ndcg_worksheet` (example C's layout)
    redrawn on every change; DCG@k, IDCG@k and NDCG@k are shown to 3 decimals
    like the source, with the "ideal from the returned results only" mistake
    beside them. k runs from 1 to the number of returned results.

    Reachable parts: ``grade_inputs`` (results in rank order), ``missed_inputs``,
    ``k_slider``, ``gain_toggle``, ``formulas_checkbox``, ``sheet`` (the last
    Sheet drawn), ``sheet_html``, ``metric_labels`` (dcg, idcg, ndcg,
    ndcg-returned), ``setup``, ``state``, ``result`` and ``metric_values``.
    """

    def __init__(self, example: str = "C", query: str | None = None, system: str | None = None, k: int = 5):
        self.setup = setup = model.worksheet_setup(load_example(example), query, system, k)
        opening = setup.opening
        self.grade_inputs = [
            _grade_input(f"{rank}. {doc_id}", opening.grades[rank - 1], f"ws-grade-{rank}")
            for rank, doc_id in enumerate(setup.ids, start=1)
        ]
        self.missed_inputs = [
            _grade_input(f"missed {doc_id}", opening.missed_grades[number - 1], f"ws-grade-missed-{number}")
            for number, doc_id in enumerate(setup.missed_ids, start=1)
        ]
        for rank, box in enumerate(self.grade_inputs, start=1):
            self.follow(box, partial(model.with_grade, rank=rank))
        for number, box in enumerate(self.missed_inputs, start=1):
            self.follow(box, partial(model.with_missed_grade, number=number))
        self.k_slider = k_slider(opening.k, len(setup.ids))
        self.follow(self.k_slider, model.with_k)
        self.gain_toggle = gain_toggle(opening.gain)
        self.follow(self.gain_toggle, model.with_gain)
        self.formulas_checkbox = checkbox(opening.show_formulas, "show formulas", "show-formulas")
        self.follow(self.formulas_checkbox, model.with_formulas)
        self.sheet_html = html_box(css="worksheet")
        self.metric_labels = {name: metric_box(name) for name in ("dcg", "idcg", "ndcg")}
        self.metric_labels["ndcg-returned"] = html_box(css="ndcg-returned")
        self.sheet: Sheet | None = None
        wrap = widgets.Layout(flex_flow="row wrap")
        super().__init__(
            control_layout(
                html_box(
                    f"<b>The nDCG worksheet</b> · “{text(setup.query_text)}” · "
                    "type grades 0–3 (yellow cells) and pick k"
                ),
                numbers=list(self.metric_labels.values()),
                inputs=[
                    widgets.HBox(self.grade_inputs + self.missed_inputs, layout=wrap),
                    widgets.HBox([self.k_slider, self.gain_toggle, self.formulas_checkbox], layout=wrap),
                ],
                details=[self.sheet_html],
            )
        )
        self.add_class("worksheet-control")
        self.show(opening)

    def compute(self, state: WorksheetState) -> WorksheetResult:
        return model.compute(self.setup, state)

    def render(self, result: WorksheetResult) -> None:
        for box, grade in zip(
            self.grade_inputs + self.missed_inputs, result.grades + result.missed_grades, strict=True
        ):
            box.value = grade
        self.k_slider.value = result.k
        self.gain_toggle.value = result.gain
        self.formulas_checkbox.value = result.show_formulas
        self.sheet = ndcg_worksheet(
            [float(grade) for grade in result.grades],
            [float(grade) for grade in result.missed_grades],
            k=result.k,
            gain=result.gain,
            show_formulas=result.show_formulas,
        )
        self.sheet_html.value = self.sheet.to_html()
        for name in ("dcg", "idcg", "ndcg"):
            self.metric_labels[name].value = metric_label(result.labels[name])
        self.metric_labels["ndcg-returned"].value = text(result.labels["ndcg-returned"])


def _grade_input(description: str, grade: int, css: str) -> widgets.BoundedIntText:
    """A box for one grade, 0..3 (the worksheet's yellow cells)."""
    box = widgets.BoundedIntText(
        value=grade,
        min=0,
        max=model.MAX_GRADE,
        description=description,
        style={"description_width": "initial"},
        layout=widgets.Layout(width="11em"),
    )
    box.add_class(css)
    return box


def worksheet_control(example: str = "C") -> WorksheetControl:
    """Lesson 03: edit example C's grades and k in the worksheet; DCG@k, IDCG@k and NDCG@k live."""
    return WorksheetControl(example)
