"""The small view parts the four controls share (lessons 01, 02, 03, 05): boxes, toggles, layout, the state loop.

:class:`StateView` is the loop every control runs: an event turns the current
state into a new one through a pure transition of its model, ``compute`` turns
that state into a result, ``render`` writes the result into the widgets.

:func:`control_layout` gives every control the same arrangement and the same
CSS classes: the heading, the numbers in one row, the inputs beside the readout
(the plot), the details below. The classroom template lays those classes out
for a projector so that inputs, numbers and plot share the first screen.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar

import ipywidgets as widgets

GAIN_LABELS = {"linear": "linear: gain = grade", "exponential": "exponential: 2^grade − 1"}
# The switches (gain, ideal, relevant, the reveal's question): the chosen option filled and bold, the others outlined,
# at 6.4:1 (Light) and 8.5:1 (Dark) from each other, and a focus ring of 3 px in the theme's strongest text colour
# with a gap of the page's colour around it, readable from the back of a room in JupyterLab Light and Dark and in
# Voila. ipywidgets' own differ by a shade of grey (1.6:1) and show focus as a 1 px line.
SWITCH_STYLE = (
    "<style>"
    ".dg-switch .widget-toggle-button{background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color1,#1a1a1a);"
    "border:2px solid var(--jp-border-color1,#757575);box-shadow:none;margin-right:6px}"
    ".dg-switch .widget-toggle-button.mod-active{background:#1a5fb4;color:#fff;border-color:#1a5fb4;font-weight:bold}"
    "[data-jp-theme-light='false'] .dg-switch .widget-toggle-button.mod-active{background:#99c1f1;color:#0b1f33;"
    "border-color:#99c1f1}"
    ".dg-switch .widget-toggle-button:focus,.dg-switch .widget-toggle-button:focus-visible{position:relative;z-index:1;"
    "outline:3px solid var(--jp-ui-font-color0,#000) !important;outline-offset:2px !important;"
    "box-shadow:0 0 0 2px var(--jp-layout-color1,#fff) !important}"
    "</style>"
)
IDEAL_LABELS = {"judged": "all judged", "returned": "returned only"}
MONO = "font-family:monospace"


class HasValues(Protocol):
    """A control's result: it gives its numbers as plain values."""

    def values(self) -> dict: ...


Setup = TypeVar("Setup")
State = TypeVar("State")
Result = TypeVar("Result", bound=HasValues)


def text(value: str) -> str:
    """Plain text made safe for an HTML widget (quotes left as they are)."""
    return html.escape(value, quote=False)


def bold(value: str) -> str:
    """Plain text in bold, e.g. a metric label."""
    return f"<b>{text(value)}</b>"


def pre_lines(lines: Sequence[str]) -> str:
    """Lines of text as one preformatted HTML block (monospace, so the sums line up)."""
    return f"<pre style='{MONO};margin:4px 0'>" + "\n".join(text(line) for line in lines) + "</pre>"


NUMBER = re.compile(r"[-+]?\d+(\.\d+)?")  # a metric's value as a label shows it


def metric_label(label: str) -> str:
    """A metric's label in bold, "name = value" in parts (lessons 02, 03, 05): the classroom's smallest screen stacks
    the name above the value. A label of another shape ("Recall@3: undefined (R = 0)") stays whole."""
    name, equals, value = label.partition(" = ")
    if not equals or ":" in name or not NUMBER.fullmatch(value):
        return bold(label)
    parts = [("label-name", name), ("label-equals", equals), ("label-value", value)]
    return "<b>" + "".join(f"<span class='{css}'>{text(part)}</span>" for css, part in parts) + "</b>"


def metric_box(name: str, min_width: str = "10em") -> widgets.HTML:
    """The box of one number a control shows (CSS class ``metric-<name>``: large in the classroom view)."""
    return html_box(css=f"metric-{name}", min_width=min_width)


def boxed(children: Sequence[widgets.Widget], css: str, vertical: bool = True, **layout: str) -> widgets.Box:
    """A VBox (or a wrapping HBox) of widgets with a CSS class naming its part of the layout."""
    if vertical:
        box: widgets.Box = widgets.VBox(list(children), layout=widgets.Layout(**layout))
    else:
        box = widgets.HBox(list(children), layout=widgets.Layout(flex_flow="row wrap", **layout))
    box.add_class(css)
    return box


def control_layout(
    heading: widgets.Widget,
    numbers: Sequence[widgets.Widget],
    inputs: Sequence[widgets.Widget],
    readout: Sequence[widgets.Widget] = (),
    details: Sequence[widgets.Widget] = (),
) -> list[widgets.Widget]:
    """The children of a control: heading, numbers (one row), inputs beside the readout, details below.

    Each part carries a class (``control-heading``, ``control-numbers``,
    ``control-main``, ``control-inputs``, ``control-readout``,
    ``control-details``) for the classroom template. In JupyterLab the inputs
    and the readout sit side by side when the notebook is wide enough and
    wrap one under the other when it is not.
    """
    heading.add_class("control-heading")
    main = [boxed(inputs, "control-inputs", margin="0 1.5em 0 0")]
    if readout:
        main.append(boxed(readout, "control-readout"))
    parts = [
        heading,
        boxed(numbers, "control-numbers", vertical=False, align_items="baseline"),
        boxed(main, "control-main", vertical=False, align_items="flex-start"),
    ]
    if details:
        parts.append(boxed(details, "control-details"))
    parts.append(style_box())
    return parts


def style_box() -> widgets.HTML:
    """The switches' style sheet (:data:`SWITCH_STYLE`) in a widget of its own that takes no room on the page."""
    return html_box(SWITCH_STYLE, css="dg-style", layout=widgets.Layout(display="none"))


def html_box(
    value: str = "", css: str | None = None, layout: widgets.Layout | None = None, **sizes: str
) -> widgets.HTML:
    """An HTML widget, with a CSS class for the browser tests and an optional layout (or layout sizes)."""
    if layout is None and sizes:
        layout = widgets.Layout(**sizes)
    box = widgets.HTML(value, layout=layout) if layout else widgets.HTML(value)
    if css:
        box.add_class(css)
    return box


def note_box(css: str) -> widgets.HTML:
    """A short text explaining a control's setting (in the details, below the control)."""
    box = html_box(css=css)
    box.add_class("control-note")
    return box


def toggle(
    options: Sequence[tuple[str, Any]], value: Any, description: str, css: str
) -> widgets.ToggleButtons:
    """A row of toggle buttons wide enough for their labels, with a CSS class for the tests."""
    buttons = widgets.ToggleButtons(
        options=options,
        value=value,
        description=description,
        style={"button_width": "auto", **WHOLE_LABEL},
        layout=widgets.Layout(flex="0 0 auto", width="auto"),
    )
    buttons.add_class(css)
    buttons.add_class("dg-switch")  # the switches' look: SWITCH_STYLE
    buttons.add_class("widget-inline-hbox")  # the description beside the buttons, as for other controls
    return buttons


def checkbox(value: bool, description: str, css: str) -> widgets.Checkbox:
    """A check box with its whole label beside it (no indent, never clipped), with a CSS class for the tests."""
    box = widgets.Checkbox(value=value, description=description, indent=False, layout=widgets.Layout(width="auto"))
    box.add_class(css)
    return box


def gain_toggle(value: str) -> widgets.ToggleButtons:
    """The switch between linear and exponential gain (lessons 02, 03, 05)."""
    return toggle([(label, name) for name, label in GAIN_LABELS.items()], value, "gain", "gain-toggle")


# a description as wide as its text: a label never clips, whatever the font size
WHOLE_LABEL = {"description_width": "initial"}


def k_slider(value: int, maximum: int, description: str = "k", css: str = "k-slider") -> widgets.IntSlider:
    """A slider for a cut-off from 1 to ``maximum``."""
    slider = widgets.IntSlider(value=value, min=1, max=maximum, description=description, style=WHOLE_LABEL)
    slider.add_class(css)
    return slider


class StateView(widgets.VBox, Generic[Setup, State, Result]):
    """A lesson control that holds a pure state: event -> transition -> new state -> compute -> render.

    Subclasses set ``setup`` and give ``compute`` and ``render``; ``show(state)``
    makes a state the current one. While ``render`` writes the state's values
    back into the controls, their own change events are ignored (they are the
    echo of the state, not a learner's action).
    """

    setup: Setup
    state: State
    result: Result
    refresh_count = 0
    _rendering = False

    def compute(self, state: State) -> Result:
        raise NotImplementedError

    def render(self, result: Result) -> None:
        raise NotImplementedError

    def show(self, state: State) -> None:
        """Make ``state`` the current state: compute its result, then update every widget in place."""
        result = self.compute(state)
        self.state, self.result = state, result
        self._rendering = True
        try:
            with self.hold_sync():
                self.render(result)
        finally:
            self._rendering = False
        self.refresh_count += 1

    @property
    def metric_values(self) -> dict:
        """The numbers shown now (None where undefined), as plain JSON-serialisable values."""
        return self.result.values()

    def follow(self, control: widgets.ValueWidget, transition: Callable[[Setup, State, Any], State]) -> None:
        """A change of the control's value goes through ``transition`` to the next state."""

        def changed(change: dict) -> None:
            if not self._rendering:
                self.show(transition(self.setup, self.state, change["new"]))

        control.observe(changed, names="value")

    def follow_clicks(self, button: widgets.Button, transition: Callable[[Setup, State], State]) -> None:
        """A click on the button goes through ``transition`` to the next state."""
        button.on_click(lambda _button: self.show(transition(self.setup, self.state)))
