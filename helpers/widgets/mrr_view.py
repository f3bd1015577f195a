"""MRR vs hit rate (lesson 01) on screen: ipywidgets around :mod:`helpers.widgets.mrr_model`."""

from __future__ import annotations

from functools import partial

import ipywidgets as widgets

from helpers.data import load_example
from helpers.widgets import mrr_model as model
from helpers.widgets._common import MONO, WHOLE_LABEL, StateView, control_layout, html_box, k_slider, text
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
        # "miss", lesson 01's word for rank 0 (its plot says it too): short enough to read whole in the classroom's
        # narrowest pickers (5.6em, the width of "rank N"), where "not returned" did not fit
        options = [(f"rank {rank}", rank) for rank in range(1, setup.longest + 1)] + [("miss", 0)]
        self.rank_pickers: dict[Key, widgets.Dropdown] = {}
        self.rr_labels: dict[Key, widgets.HTML] = {}
        for key, doc_id in setup.moved.items():
            picker = widgets.Dropdown(
                options=options,
                value=setup.opening.ranks[key],
                description=f"{doc_id} at" if doc_id else "no hit",
                disabled=doc_id is None,
                style=WHOLE_LABEL,
                layout=widgets.Layout(width="10em", flex="0 0 auto", margin="0 0.5em 0 0"),
            )
            picker.add_class(f"mrr-rank-{key[0]}-{key[1]}")
            self.follow(picker, partial(model.move, key=key))
            self.rank_pickers[key] = picker
            self.rr_labels[key] = html_box(css=f"mrr-rr-{key[0]}-{key[1]}", flex="1 1 8em", min_width="0")
        self.hit_k_slider = k_slider(setup.opening.hit_k, setup.longest, "hit rate k", "hit-k-slider")
        self.follow(self.hit_k_slider, model.with_hit_k)
        self.reset_button = widgets.Button(
            description="reset to the data",
            tooltip=f"every passage back where the data has it, hit rate k back to {setup.opening.hit_k}",
            layout=widgets.Layout(width="auto", flex="0 0 auto"),
        )
        self.reset_button.add_class("reset-btn")
        self.follow_clicks(self.reset_button, model.reset)
        self.summary_html = html_box(css="mrr-summary")
        super().__init__(self._layout())
        self.add_class("mrr-control")
        self.show(setup.opening)

    def _layout(self) -> list[widgets.Widget]:
        """The summary (MRR and hit rate per system) on top; one row per question, one column per system."""
        question_column = widgets.Layout(flex="0.8 1 0%", min_width="0", margin="0 1em 0 0")
        system_column = widgets.Layout(flex="1.3 1 0%", min_width="0", margin="0 1em 0 0", flex_flow="row wrap")
        titles = [html_box(f"<b>{text(system)}</b>", layout=system_column) for system in self.systems]
        last = widgets.Layout(flex="1.3 1 0%", min_width="0", margin="0 1em 0 0", justify_content="space-between")
        titles[-1] = widgets.HBox([html_box(f"<b>{text(self.systems[-1])}</b>"), self.reset_button], layout=last)
        header = widgets.HBox([html_box("<b>question</b>", layout=question_column), *titles])  # reset at its end
        header.add_class("mrr-header")
        rows = [header]
        for query in self.query_ids:
            question = text(self.setup.query_texts[query])
            words = f"<b>{text(query)}</b><span class='mrr-question-text'> · {question}</span>"
            cells = [html_box(words, layout=question_column)]
            for system in self.systems:
                parts = [self.rank_pickers[system, query], self.rr_labels[system, query]]
                cells.append(widgets.HBox(parts, layout=system_column))
            row = widgets.HBox(cells)
            row.add_class("mrr-question")
            rows.append(row)
        return control_layout(
            html_box("<b>MRR vs hit rate</b>: move a question's first relevant passage and watch both."),
            numbers=[self.summary_html],
            # the slider on a row of its own, wide enough to show its value at any text size
            inputs=[*rows, self.hit_k_slider],
        )

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
        # the parts a small screen leaves out have classes of their own: the classroom shows the value alone there
        if query.first_rank:
            rr = f"<span class='mrr-rr-part'>1/{query.first_rank} = </span>{query.reciprocal_rank:.3f}"
        else:
            rr = f"{query.reciprocal_rank:.3f}<span class='mrr-rr-part'> (no relevant passage)</span>"
        rr = f"<span class='mrr-rr-name'>RR = </span>{rr}"
        return f"<span class='mrr-rr' style='{MONO}'>{rr}</span><br><small class='mrr-ranking'>{shown}</small>"

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
            f"<table style='{MONO};border-collapse:separate;border-spacing:1em 0.1em;margin-left:-1em'>"
            "<tr><th>system</th><th>first relevant ranks</th><th>MRR</th>"
            f"<th>hit rate@{result.hit_k}</th></tr>{''.join(rows)}</table>"
            f"<p class='mrr-verdict'>{text(result.verdict)}</p>"
        )


def mrr_control(example: str = "A") -> MrrControl:
    """Lesson 01: first relevant ranks per question for OLD and NEW; RR, MRR and hit rate@3 live."""
    return MrrControl(example)
