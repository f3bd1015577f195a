"""A Sphinx maths renderer that writes MathML into the page: maths without MathJax, so without a CDN.

Chromium, Firefox and Safari draw MathML themselves. The lessons' maths is
short (sums, logarithms, fractions), which latex2mathml converts whole.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from latex2mathml.converter import convert


def visit_inline(translator: Any, node: nodes.Element) -> None:
    translator.body.append(f'<span class="math notranslate">{convert(node.astext())}</span>')
    raise nodes.SkipNode


def visit_block(translator: Any, node: nodes.Element) -> None:
    translator.body.append(f'<div class="math notranslate">{convert(node.astext(), display="block")}</div>')
    raise nodes.SkipNode


def setup(app: Any) -> dict[str, Any]:
    app.add_html_math_renderer("mathml", (visit_inline, None), (visit_block, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
