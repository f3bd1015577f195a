"""A lesson's control as static HTML: the widgets' state after the cell that shows them, drawn without a kernel.

The website has no kernel, so each ipywidgets control of lessons 01, 02, 03 and
05 becomes a picture of its first state, made from the widget state that
nbclient records while it runs the lesson: boxes lay out their children, an
HTML widget keeps its HTML, the plot's PNG becomes an image, and every input
(button, list, slider, number box) is drawn as text that shows its current
value. Nothing here can be clicked; the note above it says so, and where to run it live.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
REFERENCE = "IPY_MODEL_"

# the layout properties a box passes on to CSS, in ipywidgets' own names
LAYOUT_CSS = {
    "width": "width",
    "min_width": "min-width",
    "max_width": "max-width",
    "flex_flow": "flex-flow",
    "align_items": "align-items",
    "justify_content": "justify-content",
    "gap": "gap",
    "flex": "flex",
}


def snapshot(models: Mapping[str, Mapping[str, Any]], model_id: str, images: Mapping[str, str] | None = None) -> str:
    """The HTML of the widget ``model_id`` and its children, from nbclient's ``{model id: state}`` record.

    ``images`` gives each Image widget's picture as a data URI (:func:`image_sources`).
    """
    return Drawing(models, images).draw(model_id)


class Drawing:
    """Draws one widget tree; ``models`` maps a model id to its state (nbclient's record of the comm messages)."""

    def __init__(self, models: Mapping[str, Mapping[str, Any]], images: Mapping[str, str] | None = None):
        self.models = models
        self.images = dict(images or {})

    def state(self, reference: Any) -> Mapping[str, Any]:
        key = reference[len(REFERENCE):] if isinstance(reference, str) and reference.startswith(REFERENCE) else ""
        return self.models.get(key, {})

    def draw(self, model_id: str) -> str:
        state = self.models.get(model_id)
        if state is None:
            return ""
        layout = self.state(state.get("layout"))
        if layout.get("display") == "none" or layout.get("visibility") == "hidden":
            return ""
        name = str(state.get("_model_name", ""))
        classes = " ".join(["snapshot-" + name.removesuffix("Model").lower(), *state.get("_dom_classes", ())])
        style = "; ".join(f"{css}: {layout[key]}" for key, css in LAYOUT_CSS.items() if layout.get(key))
        inner = self.inner(model_id, name, state)
        return f'<div class="{html.escape(classes)}" style="{html.escape(style)}">{inner}</div>'

    def inner(self, model_id: str, name: str, state: Mapping[str, Any]) -> str:
        if name in ("VBoxModel", "HBoxModel", "BoxModel", "GridBoxModel"):
            return "".join(self.draw(child[len(REFERENCE):]) for child in state.get("children", ()))
        label = html.escape(str(state.get("description", "")))
        described = f'<span class="snapshot-label">{label}</span> ' if label else ""
        if name in ("HTMLModel", "HTMLMathModel"):
            return described + str(state.get("value", ""))
        if name == "LabelModel":
            return html.escape(str(state.get("value", "")))
        if name == "ButtonModel":
            return f'<span class="snapshot-input">{label or html.escape(str(state.get("tooltip") or ""))}</span>'
        if name == "ImageModel":
            source = self.images.get(model_id, "")
            return f'<img src="{source}" alt="the plot of the control in its first state">' if source else ""
        if name in ("DropdownModel", "SelectModel", "RadioButtonsModel", "ToggleButtonsModel"):
            return described + self.choices(state, spread=name == "ToggleButtonsModel")
        if name in ("CheckboxModel", "ToggleButtonModel"):
            mark = "☑" if state.get("value") else "☐"
            return f'<span class="snapshot-input">{mark} {label}</span>'
        if "value" in state:  # sliders and number boxes
            return described + f'<span class="snapshot-input">{html.escape(str(state["value"]))}</span>'
        return described

    @staticmethod
    def choices(state: Mapping[str, Any], spread: bool) -> str:
        labels = [str(option) for option in state.get("_options_labels", ())]
        chosen = state.get("index")
        if not spread:
            shown = labels[chosen] if isinstance(chosen, int) and 0 <= chosen < len(labels) else ""
            return f'<span class="snapshot-input">{html.escape(shown)} ▾</span>'
        return "".join(
            f'<span class="snapshot-input{" snapshot-chosen" if index == chosen else ""}">'
            f'{"✓ " if index == chosen else ""}{html.escape(option)}</span>'
            for index, option in enumerate(labels)
        )


def image_sources(models: Mapping[str, Mapping[str, Any]], buffers: Mapping[str, Any]) -> dict[str, str]:
    """Every Image widget's picture as a data URI, from nbclient's buffers (base64 already)."""
    sources = {}
    for model_id, state in models.items():
        if state.get("_model_name") != "ImageModel":
            continue
        for buffer in (buffers.get(model_id) or {}).values():
            if list(buffer.get("path", ())) == ["value"]:
                kind = state.get("format", "png")
                sources[model_id] = f"data:image/{kind};base64,{buffer['data']}"
    return sources
