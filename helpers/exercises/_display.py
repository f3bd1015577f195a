"""How a verdict looks in a notebook: colours that keep WCAG AA contrast on white, and one layout."""

from __future__ import annotations

import html

GREEN, RED, GREY, AMBER = "#1e7b34", "#b3261e", "#555555", "#8a5a00"


def verdict_html(exercise_id: str, question: str, mark: str, colour: str, message: str, table: str = "") -> str:
    """The question (grey) and the verdict (coloured) of a check, as one block for the notebook."""
    asked = (
        f'<div style="color:{GREY}"><b>{html.escape(exercise_id)}</b>: {html.escape(question)}</div>'
        if question
        else ""
    )
    said = f'<div><span style="color:{colour};font-weight:bold">{mark}</span> {html.escape(message)}</div>'
    # tex2jax_ignore / mathjax_ignore: a question may hold dollar signs or formulas, never maths.
    # The block brings its own light background and dark text, so its colours read in JupyterLab Dark too.
    return (
        f'<div class="helpers-check tex2jax_ignore mathjax_ignore" style="border-left:4px solid {colour};'
        f'padding:4px 8px;background:#fafafa;color:#1a1a1a">{asked}{said}{table}</div>'
    )
