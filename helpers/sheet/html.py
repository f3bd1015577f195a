"""A worksheet as HTML for the notebooks and the widgets (lessons 02, 03, 05).

Column letters on top, row numbers on the left, yellow input cells, and on
demand each formula under its value. Borders, letters, row numbers and
header cells take the notebook theme's colours (light or dark); the yellow
input cells keep dark text in either. The outermost element carries the
classes ``tex2jax_ignore`` and ``mathjax_ignore``: JupyterLab's MathJax would
otherwise read the dollar signs of ``=LARGE($B$2:$B$8,A2)`` as maths.

This module holds the markup only, from plain values: the sheet model
(:meth:`helpers.sheet.model.Sheet.to_html`) hands it the letters, the cells and the blocks.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Sequence

INPUT_COLOUR = "#fff3b0"
OUTER_CLASSES = "sheet-view tex2jax_ignore mathjax_ignore"
STYLE = (
    "<style>"
    ".sheet-view table{border-collapse:collapse;table-layout:auto;width:auto;margin:0}"
    ".sheet-view caption{text-align:left;font-weight:bold;padding:2px 0}"
    ".sheet-view td,.sheet-view th{border:1px solid var(--jp-border-color1,#ccc);padding:2px 8px;vertical-align:top;"
    "font-family:monospace;line-height:1.4}"
    ".sheet-view th{background:var(--jp-layout-color2,#eee);color:var(--jp-ui-font-color1,#555);"
    "text-align:center;font-weight:normal}"
    ".sheet-view td.number{text-align:right;white-space:nowrap}"
    ".sheet-view td.text{text-align:left;white-space:normal;overflow-wrap:anywhere;max-width:32em}"
    ".sheet-view td.header{font-weight:bold;background:var(--jp-layout-color2,#f6f6f6);"
    "color:var(--jp-content-font-color1,#1a1a1a)}"
    ".sheet-view td.label,.sheet-view td.title{font-weight:bold}"
    f".sheet-view td.input{{background:{INPUT_COLOUR};color:#1a1a1a}}"
    ".sheet-view tr.block-start td,.sheet-view tr.block-start th{border-top:2px solid #888}"
    # a formula in the theme's body text colour, in italics to set it apart from its value: at least 7:1 in
    # JupyterLab Light and Dark (the secondary text colour is 4.5:1, too faint from the back of a room)
    ".sheet-view .formula{color:var(--jp-content-font-color1,#1a1a1a);font-style:italic;font-size:85%;"
    "text-align:left;white-space:nowrap}"
    ".sheet-view td.input .formula{color:#333}"
    "</style>"
)


def sheet_html(title: str, letters: Sequence[str], rows: Sequence[Sequence[str]], block_starts: Collection[int]) -> str:
    """The sheet as one HTML element: a table with column letters, numbered rows of cells (each from
    :func:`cell_html`), a thicker line above each row of ``block_starts``, and the title as its caption."""
    head = "".join(f"<th>{letter}</th>" for letter in letters)
    body = []
    for row, cells in enumerate(rows, start=1):
        css = " class='block-start'" if row in block_starts else ""
        body.append(f"<tr{css}><th class='row-number'>{row}</th>{''.join(cells)}</tr>")
    caption = f"<caption>{html.escape(title)}</caption>" if title else ""
    return (
        f"<div class='{OUTER_CLASSES}'>{STYLE}<table>{caption}<thead><tr><th></th>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def cell_html(shown: str, formula: str | None, classes: Sequence[str], show_formulas: bool) -> str:
    """One <td>: the shown value with these classes, its formula under it when asked (and as its title)."""
    text = html.escape(shown)
    if formula and show_formulas:
        text += f"<div class='formula'>{html.escape(formula)}</div>"
    title = f" title='{html.escape(formula)}'" if formula else ""
    return f"<td class='{' '.join(classes)}'{title}>{text}</td>"
