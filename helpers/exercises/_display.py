"""How a verdict looks in a notebook: the theme's own background and text, and a mark that reads on both.

The box takes JupyterLab's layout and text colours (light on a light theme, dark on JupyterLab Dark; a page
without JupyterLab's variables, such as the website, gets the light fallbacks). The mark (✓, ✗, ·) is white on
the verdict's colour, which keeps WCAG AA contrast (at least 4.5:1) whatever the background around it.
"""

from __future__ import annotations

import html

GREEN, RED, GREY, AMBER = "#1e7b34", "#b3261e", "#555555", "#8a5a00"
BOX = "background:var(--jp-layout-color2,#f3f3f3);color:var(--jp-content-font-color1,#1a1a1a)"
QUESTION = "color:var(--jp-content-font-color1,#1a1a1a);opacity:.85"


def verdict_html(exercise_id: str, question: str, mark: str, colour: str, message: str, table: str = "") -> str:
    """The question and the verdict (a coloured mark) of a check, as one block for the notebook."""
    asked = (
        f'<div style="{QUESTION}"><b>{html.escape(exercise_id)}</b>: {html.escape(question)}</div>'
        if question
        else ""
    )
    badge = (
        f'<span style="background:{colour};color:#ffffff;font-weight:bold;border-radius:3px;padding:0 5px">'
        f"{mark}</span>"
    )
    said = f"<div>{badge} {html.escape(message)}</div>"
    # tex2jax_ignore / mathjax_ignore: a question may hold dollar signs or formulas, never maths.
    return (
        f'<div class="helpers-check tex2jax_ignore mathjax_ignore" style="border-left:4px solid {colour};'
        f'padding:4px 8px;{BOX}">{asked}{said}{table}</div>'
    )
