"""Predict, then reveal (lessons 03 and 05): new numbers for a question of the lesson, the value only on demand.

The teacher clicks "new numbers": a fresh variant of one of the lesson's
exercises is dealt (:func:`helpers.exercises.practice`, the generators of
:mod:`helpers.exercises.lessons.variants`), and the question and its data are
shown: a ranked list with its grades, or the spreadsheet-style table of the
worksheet (``show_as="sheet"``). The room works the number out by hand; "reveal"
then shows the value at the exercise's precision and its worked steps.

Until "reveal" is clicked, the value is in no widget: not in a value, a
description, an option or any other state the browser receives. The text of the
reveal is built only when the click arrives (:func:`compute` with
``revealed=True``), from the variant's worked answer (:mod:`helpers.metrics`).

The state is pure, as in the other controls (:class:`helpers.widgets._common.StateView`):
which question, how many deals so far, whether the value is shown; the seed
of each deal follows from the first seed, so the same seed deals the same
sequence of numbers.

>>> control = predict_then_reveal({"nDCG@3": "lab-swap-ndcg3"}, seed=4)
>>> control.result.value is None, control.state.revealed
(True, False)
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

import ipywidgets as widgets
import pandas as pd

from helpers.sheet import frame_to_sheet
from helpers.widgets._common import StateView, boxed, html_box, style_box, text, toggle

ShowAs = Literal["list", "sheet"]
SEEDS = 10**6  # a variant's seed is below this, as practice() draws them
# the sentence about the precision a checker accepts: the room predicts, nobody is checked
PRECISION_SENTENCE = re.compile(r"\s*Give \d+ decimals.*$")
# the worksheet's column titles (lesson 03's sheet: A Rank, B Relevance)
SHEET_HEADERS = {"rank": "Rank", "grade": "Relevance (0–3)"}
CELL_STYLE = "border:1px solid #ccc;padding:2px 14px;text-align:center"
HEAD_STYLE = "border:1px solid #ccc;padding:2px 10px;text-align:left;font-weight:normal"
# the theme's secondary text (4.6:1 on white, 9:1 on JupyterLab Dark), as in the metrics lab
QUIET = "color:var(--jp-content-font-color2,#6b6b6b)"
NO_VARIANTS = (
    "<b>Predict, then reveal</b> · new numbers are dealt from the answer key, which this copy does not hold: "
    "they come with the classroom view and the practice copies."
)


# --- the model: a pure state, its transitions, what to show -------------------------------------------------


@dataclass(frozen=True)
class RevealSetup:
    """The questions to deal (label -> exercise id, in order), how to show their data, and the first seed."""

    questions: tuple[tuple[str, str], ...]
    show_as: ShowAs
    first_seed: int


@dataclass(frozen=True)
class RevealState:
    """Which question, the number of the deal (0: the first), and whether its value is shown."""

    exercise: str
    deal: int = 0
    revealed: bool = False


@dataclass(frozen=True)
class RevealResult:
    """What the control shows: the question, its data (HTML), and after the reveal the value and its steps."""

    exercise: str
    seed: int
    question: str
    data: pd.DataFrame
    data_html: str
    value: float | None = None  # None until revealed
    value_text: str = ""
    name: str = ""
    steps: tuple[str, ...] = ()

    def values(self) -> dict:
        """The numbers shown, as plain values (``value`` None before the reveal)."""
        return {"exercise": self.exercise, "seed": self.seed, "grades": [int(g) for g in self.data["grade"]],
                "value": self.value}


def seed_of(setup: RevealSetup, deal: int) -> int:
    """The variant seed of deal number ``deal``: the first seed itself, then a fixed sequence that follows from it."""
    if deal == 0:
        return setup.first_seed
    return random.Random(f"reveal/{setup.first_seed}/{deal}").randrange(SEEDS)


def dealt(setup: RevealSetup, state: RevealState) -> RevealState:
    """New numbers for the same question, the value hidden again."""
    return replace(state, deal=state.deal + 1, revealed=False)


def with_question(setup: RevealSetup, state: RevealState, exercise: str) -> RevealState:
    """Another question: new numbers for it, the value hidden."""
    if exercise == state.exercise:
        return state
    return RevealState(exercise, state.deal + 1, False)


def revealed(setup: RevealSetup, state: RevealState) -> RevealState:
    """The value of the numbers shown, with its steps."""
    return replace(state, revealed=True)


def compute(setup: RevealSetup, state: RevealState) -> RevealResult:
    """The question and data of the state's variant; the value and steps only once it is revealed."""
    from helpers.exercises import practice

    seed = seed_of(setup, state.deal)
    run = practice(state.exercise, seed=seed)
    question = PRECISION_SENTENCE.sub("", run.variant.question)
    data = run.variant.data
    shown = sheet_html(data) if setup.show_as == "sheet" else list_html(data)
    result = RevealResult(state.exercise, seed, question, data, shown)
    if not state.revealed:
        return result
    answer = run.reveal()  # recorded as help, as practice(...).reveal() is
    return replace(result, value=answer.value, value_text=answer.text, name=value_name(answer.how),
                   steps=run.variant.worked.steps)


def value_name(last_step: str) -> str:
    """The name of the value from the last worked step: 'nDCG@3 = 5.13 / 6.39 = 0.80' -> 'nDCG@3'."""
    name = last_step.split(" = ", 1)[0].strip()
    return name if " = " in last_step and len(name) <= 12 else "value"


def list_html(data: pd.DataFrame) -> str:
    """A ranked list as one table on its side: the ranks in the first row, each result's grade (and gains) under it."""
    rows = []
    for column in data.columns:
        cells = "".join(f"<td style='{CELL_STYLE}'>{text(str(value))}</td>" for value in data[column])
        head = f"<th scope='row' style='{HEAD_STYLE}'>{text(str(column))}</th>"
        rows.append(f"<tr class='reveal-{css_name(column)}'>{head}{cells}</tr>")
    return f"<table class='reveal-list' style='border-collapse:collapse'><tbody>{''.join(rows)}</tbody></table>"


def css_name(column: object) -> str:
    """A column's name as one CSS class name: 'exponential gain' -> 'exponential-gain'."""
    return re.sub(r"[^a-z0-9]+", "-", str(column).lower()).strip("-")


def sheet_html(data: pd.DataFrame) -> str:
    """The data as a worksheet: column letters, row numbers, the grades as its yellow input cells."""
    frame = data.rename(columns=SHEET_HEADERS)
    return frame_to_sheet(frame, input_columns=[SHEET_HEADERS["grade"]]).to_html()


# --- the view --------------------------------------------------------------------------------------------------


class PredictThenReveal(StateView[RevealSetup, RevealState, RevealResult]):
    """New numbers for a question of the lesson; the value and its steps when the teacher clicks "reveal".

    Reachable parts: ``heading`` (it names the variant's seed),
    ``deal_button`` ("new numbers"), ``reveal_button``, ``question_toggle``
    (None for a single question), ``question_box``, ``data_box``,
    ``value_box``, ``steps_box``, and ``setup``, ``state``, ``result`` and
    ``metric_values`` as in the other controls.
    """

    def __init__(self, setup: RevealSetup):
        self.setup = setup
        self.deal_button = _button("new numbers", "reveal-deal", "Deal new numbers for the question (hides the value)")
        self.reveal_button = _button("reveal", "reveal-show", "Show the value and how it is worked out")
        self.follow_clicks(self.deal_button, dealt)
        self.follow_clicks(self.reveal_button, revealed)
        self.question_toggle: widgets.ToggleButtons | None = None
        buttons: list[widgets.Widget] = [self.deal_button, self.reveal_button]
        if len(setup.questions) > 1:
            self.question_toggle = toggle(list(setup.questions), setup.questions[0][1], "question", "reveal-question")
            self.follow(self.question_toggle, with_question)
            buttons.insert(0, self.question_toggle)
        self.heading = html_box(css="reveal-heading")
        self.question_box = html_box(css="reveal-question-text")
        self.data_box = html_box(css="reveal-data")
        self.value_box = html_box(css="reveal-value")
        self.steps_box = html_box(css="reveal-steps")
        answer = boxed([self.value_box, self.steps_box], "reveal-answer", flex="1 1 30em", min_width="0")
        super().__init__([
            self.heading,
            boxed(buttons, "reveal-buttons", vertical=False, align_items="center"),
            self.question_box,
            boxed([boxed([self.data_box], "reveal-data-box", flex="0 0 auto", margin="0 1.5em 0 0"), answer],
                  "reveal-body", vertical=False, align_items="flex-start"),
            style_box(),
        ])  # fmt: skip
        self.add_class("reveal-control")
        self.show(RevealState(setup.questions[0][1]))

    def compute(self, state: RevealState) -> RevealResult:
        return compute(self.setup, state)

    def render(self, result: RevealResult) -> None:
        if result.value is None:  # the old answer goes first, so no screen shows it beside the new numbers
            wait = f"<span class='reveal-wait' style='{QUIET}'>predict it, then reveal</span>"
            self.steps_box.value = ""
            self.value_box.value = f"<b>= ?</b> {wait}"
        if self.question_toggle is not None:
            self.question_toggle.value = result.exercise
        self.heading.value = (f"<b>Predict, then reveal</b> · work the number out by hand, then reveal it "
                              f"<span style='{QUIET}'>· variant {result.seed}</span>")
        self.question_box.value = text(result.question)
        self.data_box.value = result.data_html
        if result.value is None:
            return
        # the steps go first, so the value never shows without its arithmetic (each box is its own message)
        items = "".join(f"<li>{text(step)}</li>" for step in result.steps)
        self.steps_box.value = f"<ol class='reveal-step-list'>{items}</ol>"
        self.value_box.value = f"<b>{text(result.name)} = {text(result.value_text)}</b>"


def _button(label: str, css: str, tooltip: str) -> widgets.Button:
    button = widgets.Button(description=label, tooltip=tooltip, layout=widgets.Layout(width="auto"))
    button.add_class(css)
    return button


def predict_then_reveal(
    questions: Mapping[str, str] | str, show_as: ShowAs = "list", seed: int | None = None
) -> PredictThenReveal | widgets.HTML:
    """Lessons 03 and 05: deal new numbers for a question (label -> exercise id), reveal the value on a click.

    ``show_as="sheet"`` shows the data as the worksheet of lesson 03, ``"list"``
    as a ranked list with its grades. ``seed`` deals the same numbers again
    (default: new ones). In a copy without the answer key (an assignment) there
    are no variants to deal: a short note says so.
    """
    from helpers.exercises import is_assignment_copy

    pairs = ((questions, questions),) if isinstance(questions, str) else tuple(questions.items())
    if not pairs:
        raise ValueError("questions is empty: give at least one exercise id with variants")
    if show_as not in ("list", "sheet"):
        raise ValueError(f"show_as must be 'list' or 'sheet', got {show_as!r}")
    if seed is None:
        seed = secrets.randbelow(SEEDS)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEEDS:
        raise ValueError(f"seed must be a whole number from 0 to {SEEDS - 1}, got {seed!r}")
    if is_assignment_copy():
        return html_box(NO_VARIANTS, css="reveal-control")
    from helpers.exercises.fresh import VARIANTS

    missing = [exercise for _, exercise in pairs if exercise not in VARIANTS]
    if missing:
        raise ValueError(f"no variants for {', '.join(missing)}: these have some: {', '.join(sorted(VARIANTS))}")
    return PredictThenReveal(RevealSetup(pairs, show_as, seed))


__all__ = ["PredictThenReveal", "RevealResult", "RevealSetup", "RevealState", "predict_then_reveal"]
