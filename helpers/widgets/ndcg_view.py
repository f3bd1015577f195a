"""nDCG by hand (lesson 02) on screen: ipywidgets around :mod:`helpers.widgets.ndcg_model`."""

from __future__ import annotations

from functools import partial

import ipywidgets as widgets

from helpers.data import load_example
from helpers.widgets import ndcg_model as model
from helpers.widgets._common import (
    MONO,
    WHOLE_LABEL,
    StateView,
    control_layout,
    gain_toggle,
    html_box,
    k_slider,
    metric_box,
    metric_label,
    pre_lines,
    text,
)
from helpers.widgets._plot import DiscountedGainPlot
from helpers.widgets.ndcg_model import NdcgResult, NdcgSetup, NdcgState
from helpers.widgets.table import table_sheet_html


class NdcgControl(StateView[NdcgSetup, NdcgState, NdcgResult]):
    """Lesson 02: choose where the relevant passages sit and their grades; DCG, ideal DCG and nDCG live.

    Each passage judged relevant in the data (D11 and D4 in example B) gets a
    position picker (1..n or "not returned") and a grade slider (0..3); moving
    one onto the other's position swaps them (:mod:`helpers.widgets.ndcg_model`).
    K and the gain form can be changed too.

    Reachable parts: ``start_picker``, ``position_pickers[doc_id]``,
    ``grade_sliders[doc_id]``, ``k_slider``, ``gain_toggle``, ``metric_labels``
    (dcg, idcg, ndcg), ``formula_label``, ``table_html``, ``plot_image``,
    ``setup``, ``state``, ``result`` and ``metric_values``.
    """

    def __init__(self, example: str = "B", query: str | None = None, start: str = "swapped", k: int = 5):
        self.setup = setup = model.ndcg_setup(load_example(example), query, start, k)
        opening = setup.opening
        self.start_picker = widgets.Dropdown(
            options=list(setup.starts), value=opening.start, description="start from", style=WHOLE_LABEL
        )
        self.start_picker.add_class("ndcg-start")
        self.follow(self.start_picker, model.start_from)
        options = [(f"rank {rank}", rank) for rank in range(1, setup.n + 1)] + [("not returned", 0)]
        self.position_pickers: dict[str, widgets.Dropdown] = {}
        self.grade_sliders: dict[str, widgets.IntSlider] = {}
        for doc_id in setup.movable:
            picker = widgets.Dropdown(
                options=options,
                value=model.position(opening.order, doc_id),
                description=f"{doc_id} at",
                style=WHOLE_LABEL,
                layout=widgets.Layout(width="auto"),
            )
            picker.add_class(f"ndcg-pos-{doc_id}")
            self.follow(picker, partial(model.move, doc_id=doc_id))
            slider = widgets.IntSlider(
                value=opening.grades[doc_id],
                min=0,
                max=model.MAX_GRADE,
                description=f"{doc_id} grade",
                style=WHOLE_LABEL,
            )
            slider.add_class(f"ndcg-grade-{doc_id}")
            self.follow(slider, partial(model.with_grade, doc_id=doc_id))
            self.position_pickers[doc_id], self.grade_sliders[doc_id] = picker, slider
        self.k_slider = k_slider(opening.k, setup.n)
        self.follow(self.k_slider, model.with_k)
        self.gain_toggle = gain_toggle(opening.gain)
        self.follow(self.gain_toggle, model.with_gain)
        self.ranking_html = html_box(css="ndcg-ranking")
        self.metric_labels = {name: metric_box(name) for name in ("dcg", "idcg", "ndcg")}
        self.formula_label = html_box(css="formula-out")
        self.table_html = html_box(css="arithmetic-table")
        self.plot = DiscountedGainPlot(setup.n)
        self.plot_image = self.plot.image
        super().__init__(self._layout())
        self.add_class("ndcg-control")
        self.show(opening)

    def _layout(self) -> list[widgets.Widget]:
        """Numbers on top; pickers, K and gain beside the plot; formulas and table below."""
        pickers = [
            widgets.HBox(
                [self.position_pickers[d], self.grade_sliders[d]], layout=widgets.Layout(flex_flow="row wrap")
            )
            for d in self.setup.movable
        ]
        return control_layout(
            html_box(
                f"<b>nDCG by hand</b> · “{text(self.setup.query_text)}” · "
                "move the relevant passages, change their grades"
            ),
            numbers=list(self.metric_labels.values()),
            inputs=[self.start_picker, *pickers, self.k_slider, self.gain_toggle, self.ranking_html],
            readout=[self.plot.box],
            details=[self.formula_label, self.table_html],
        )

    def compute(self, state: NdcgState) -> NdcgResult:
        return model.compute(self.setup, state)

    def ranking(self) -> list[str]:
        """The current ranked list of ids."""
        return list(self.state.order)

    def render(self, result: NdcgResult) -> None:
        self.start_picker.value = result.start
        for doc_id in self.setup.movable:
            self.position_pickers[doc_id].value = result.positions[doc_id]
            self.grade_sliders[doc_id].value = result.passage_grades[doc_id]
        self.k_slider.value = result.k
        self.gain_toggle.value = result.gain
        entries = zip(result.ranking, result.grades, strict=True)
        listed = " · ".join(
            f"{rank}. {text(doc)} (grade {int(grade)})" for rank, (doc, grade) in enumerate(entries, 1)
        )
        self.ranking_html.value = f"<span style='{MONO}'>{listed}</span>"
        for name, label in self.metric_labels.items():
            label.value = metric_label(result.labels[name])
        self.formula_label.value = pre_lines(result.formula_lines)
        rows = [row.record() for row in result.rows]
        self.table_html.value = table_sheet_html(rows, result.gain, None, result.table_title, False)
        self.plot.update(result.rows, result.k, result.gain, result.plot_top)


def ndcg_control(example: str = "B") -> NdcgControl:
    """Lesson 02: move D11 and D4 and change their grades; DCG, ideal DCG and nDCG@k live."""
    return NdcgControl(example)
