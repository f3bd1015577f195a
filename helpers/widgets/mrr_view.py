"""MRR vs hit rate (lesson 01) on screen: ipywidgets around :mod:`helpers.widgets.mrr_model`."""

from __future__ import annotations

from functools import partial

import ipywidgets as widgets

from helpers.data import load_example
from helpers.widgets import mrr_model as model
from helpers.widgets._common import MONO, StateView, html_box, k_slider, text
from helpers.widgets.mrr_model import Key, MrrResult, MrrSetup, MrrState


class MrrControl(StateView[MrrSetup, MrrState, MrrResult]):
    """Lesson 01: move each question's first relevant passage in OLD and NEW; RR, MRR and hit rate@k live.

    Each dropdown moves the passage that is the question's first relevant one in
    the data (e.g. D8 for q1) to another rank, or out of the list; the other
    passages keep their order (:mod:`helpers.widgets.mrr_model`).

    Reachable parts: ``rank_pickers[(system, query)]``, ``rr_labels[(system, query)]``,
    ``hit_k_slider``, ``reset_button``, ``summary_html``, ``setup``, ``state``,
    ``result`` and ``metric_values`` (per system: first_ranks, reciprocal_ranks,
    mrr, hit_rate, plus hit_k).
    """

    def __init__(self, example: str = "A", hit_k: int = 3):
        self.setup = setup = model.mrr_setup(load_example(example), hit_k)
        self.systems, self.query_ids = list(setup.systems), list(setup.query_ids)
        options = [(f"rank {rank}", rank) for rank in range(1, setup.longest + 1)] + [("not returned", 0)]
        self.rank_pickers: dict[Key, widgets.Dropdown] = {}
        self.rr_labels: dict[Key, widgets.HTML] = {}
        for key, doc_id in setup.moved.items():
            picker = widgets.Dropdown(
                options=options,
                value=setup.opening.ranks[key],
                description=f"{doc_id} at" if doc_id else "no hit",
                disabled=doc_id is None,
                layout=widgets.Layout(width="15em"),
            )
            picker.add_class(f"mrr-rank-{key[0]}-{key[1]}")
            self.follow(picker, partial(model.move, key=key))
            self.rank_pickers[key] = picker
            self.rr_labels[key] = html_box(css=f"mrr-rr-{key[0]}-{key[1]}", min_width="15em")
        self.hit_k_slider = k_slider(setup.opening.hit_k, setup.longest, "hit rate k", "hit-k-slider")
        self.follow(self.hit_k_slider, model.with_hit_k)
        self.reset_button = widgets.Button(description="reset to the data")
        self.reset_button.add_class("reset-btn")
        self.follow_clicks(self.reset_button, model.reset)
        self.summary_html = html_box(css="mrr-summary")
        super().__init__(self._layout())
        self.add_class("mrr-control")
        self.show(setup.opening)

    def _layout(self) -> list[widgets.Widget]:
        header = widgets.HBox(
            [html_box("<b>question</b>", width="22em")]
            + [html_box(f"<b>{text(system)}</b>", width="30em") for system in self.systems]
        )
        rows = []
        for query in self.query_ids:
            cells = [html_box(f"{text(query)} · {text(self.setup.query_texts[query])}", width="22em")]
            for system in self.systems:
                parts = [self.rank_pickers[system, query], self.rr_labels[system, query]]
                cells.append(widgets.HBox(parts, layout=widgets.Layout(width="30em")))
            rows.append(widgets.HBox(cells))
        return [
            html_box("<b>MRR vs hit rate</b>: move a question's first relevant passage and watch both."),
            header,
            *rows,
            widgets.HBox([self.hit_k_slider, self.reset_button]),
            self.summary_html,
        ]

    def compute(self, state: MrrState) -> MrrResult:
        return model.compute(self.setup, state)

    def ranking(self, system: str, query: str) -> list[str]:
        """The list as it is now, with the moved passage at the picked rank."""
        return model.ranking(self.setup, self.state, (system, query))

    def reset(self) -> None:
        """Every passage back where the data has it."""
        self.show(model.reset(self.setup, self.state))

    def render(self, result: MrrResult) -> None:
        self.hit_k_slider.value = result.hit_k
        for key, picker in self.rank_pickers.items():
            picker.value = result.ranks[key]
            self.rr_labels[key].value = self._rr_label(key, result)
        self.summary_html.value = self._summary(result)

    def _rr_label(self, key: Key, result: MrrResult) -> str:
        query = result.queries[key]
        relevant = self.setup.relevant[key[1]]
        shown = " ".join(f"<b>{text(doc)}</b>" if doc in relevant else text(doc) for doc in query.ranking)
        where = f"first relevant at rank {query.first_rank}" if query.first_rank else "no relevant passage"
        rr = f"<span style='{MONO}'>RR = {query.reciprocal_rank:.3f}</span>"
        return f"{rr} <small>({where})<br>{shown}</small>"

    def _summary(self, result: MrrResult) -> str:
        rows = []
        for system, numbers in result.systems.items():
            name = text(system)
            ranks = ", ".join(str(rank or "none") for rank in numbers.first_ranks)
            rows.append(
                f"<tr class='mrr-row-{name}'><td>{name}</td><td>{ranks}</td>"
                f"<td class='metric-mrr-{name}'>{numbers.mrr:.3f}</td>"
                f"<td class='metric-hit-{name}'>{numbers.hit_rate:.3f}</td></tr>"
            )
        return (
            f"<table style='{MONO}'><tr><th>system</th><th>first relevant ranks</th><th>MRR</th>"
            f"<th>hit rate@{result.hit_k}</th></tr>{''.join(rows)}</table><p>{text(result.verdict)}</p>"
        )


def mrr_control(example: str = "A") -> MrrControl:
    """Lesson 01: first relevant ranks per question for OLD and NEW; RR, MRR and hit rate@3 live."""
    return MrrControl(example)
