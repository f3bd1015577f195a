"""Tables of the lessons as people read them: whole text, words left, numbers right, one precision per column.

``table(frame)`` returns a pandas ``Styler`` that JupyterLab and Voilà show as
HTML. Unlike a bare DataFrame it never cuts a long cell with "…", wraps long
text instead (never inside a short identifier such as ``kb21``), aligns text
columns left and number columns right, prints every number of a column with
the same decimals, escapes every text cell, label and the caption (``<b>`` in a
golden set shows as written), and marks the table so MathJax
never typesets its dollar signs (``=LARGE($B$2:$B$8,A2)`` stays a formula).

>>> import pandas as pd
>>> html = table(pd.DataFrame({"metric": ["nDCG@5"], "value": [0.55038]})).to_html()
>>> "0.550" in html and "mathjax_ignore" in html
True
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd
from pandas.api.types import is_bool_dtype, is_float_dtype, is_integer_dtype, is_numeric_dtype

from helpers._checks import check_whole

if TYPE_CHECKING:  # pandas 2.x imports matplotlib.pyplot with its Styler: frame.style imports it when a table is made
    from pandas.io.formats.style import Styler


def short_number(value: float, decimals: int = 3) -> str:
    """A number with at most ``decimals`` decimals and no trailing zeros, for formulas and steps (every lesson).

    >>> short_number(2.0), short_number(1.5849625), short_number(1 / 3, 4), short_number(float("nan"))
    ('2', '1.585', '0.3333', 'undefined')
    """
    if not math.isfinite(value):
        return "undefined"
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def dcg_sum(gains, discounts, grades=None) -> str:
    """DCG written out as its sum of gain/discount terms, for steps and widgets (lessons 02, 03 and 05).

    With the grades (exponential gain), the powers come first, then the gains they give.

    >>> dcg_sum([2, 0, 3], [1, 1.5849625, 2])
    '2/1 + 0/1.585 + 3/2'
    >>> dcg_sum([3, 0], [1, 1.5849625], grades=[2, 0])
    '(2^2−1)/1 + (2^0−1)/1.585 = 3/1 + 0/1.585'
    """
    gains, discounts = list(gains), list(discounts)
    if not gains:
        return "0"
    terms = " + ".join(f"{short_number(g)}/{short_number(d)}" for g, d in zip(gains, discounts, strict=True))
    if grades is None:
        return terms
    powers = " + ".join(f"(2^{short_number(g)}−1)/{short_number(d)}" for g, d in zip(grades, discounts, strict=True))
    return f"{powers} = {terms}"

# tex2jax_ignore / mathjax_ignore: the class names MathJax 2 and 3 skip (JupyterLab uses 3, Voilà 2 or 3)
TABLE_CLASSES = "lesson-table tex2jax_ignore mathjax_ignore"
TEXT_STYLE = "text-align: left; white-space: normal; overflow-wrap: anywhere; max-width: 32em;"
NUMBER_STYLE = "text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums;"
# short identifiers (kb21, r2, reset-password) stay whole: never one letter per line in a narrow notebook
ID_STYLE = "text-align: left; white-space: nowrap;"
ID_LENGTH = 24


def table(
    frame: pd.DataFrame | pd.Series,
    decimals: int | Mapping[str, int] = 3,
    index: bool = True,
    caption: str | None = None,
    keep_decimals: bool = False,
) -> Styler:
    """A DataFrame styled for a lesson: whole text, aligned, one precision per column (every lesson).

    ``decimals`` is the number of decimals of every float column, or a mapping
    column -> decimals (columns not named keep 3). Whole-number columns show no
    decimals (also a float column whose values are all whole, such as grades).
    ``keep_decimals=True`` shows every float with its decimals, whole or not: a
    metric that is 1 for every K reads 1.0000 beside its neighbours' 0.5000.
    ``index=False`` hides the row labels.
    """
    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"table needs a pandas DataFrame or Series, got {type(frame).__name__}")
    places = _decimals_by_column(frame, decimals)
    styler = _with_escaped_axis_names(frame).style.set_table_attributes(f'class="{TABLE_CLASSES}"')
    for column in frame.columns:
        subset = pd.IndexSlice[:, [column]]
        if _is_number_column(frame[column]):
            styler = styler.set_properties(subset=subset, **_props(NUMBER_STYLE))
            styler = styler.format(_number_format(frame[column], places[column], keep_decimals), subset=subset,
                                   na_rep="—", escape="html")
        else:
            style = ID_STYLE if _is_identifier_column(frame[column]) else TEXT_STYLE
            styler = styler.set_properties(subset=subset, **_props(style))
            styler = styler.format(
                _number_format(frame[column], places[column]), subset=subset, na_rep="—", escape="html"
            )
    styler = styler.set_table_styles(
        [
            {"selector": "th", "props": "text-align: left; white-space: normal; vertical-align: bottom;"},
            {"selector": "caption", "props": "caption-side: top; text-align: left; font-weight: bold;"},
        ],
        overwrite=False,
    )
    styler = styler.format_index(escape="html", axis=0)
    if isinstance(frame.columns, pd.MultiIndex):
        styler = styler.format_index(escape="html", axis=1)
    else:  # a long snake_case header may wrap after each "_" (_breakable escapes it)
        styler = styler.format_index(_breakable, axis=1)
    if not index:
        styler = styler.hide(axis="index")
    if caption:
        styler = styler.set_caption(html.escape(caption))  # the Styler writes a caption as it is
    return styler


def _with_escaped_axis_names(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its axis names escaped: the Styler writes them as they are (pandas 2.2: no format_index_names)."""

    def escaped(names) -> list:
        return [html.escape(name) if isinstance(name, str) else name for name in names]

    return frame.rename_axis(index=escaped(frame.index.names), columns=escaped(frame.columns.names))


NUMBER_TEXT = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)%?$")


def _is_number_column(column: pd.Series) -> bool:
    """Numbers, or text that is all numbers already formatted ("0.750"): both read right-aligned."""
    if is_bool_dtype(column):
        return False
    if is_numeric_dtype(column):
        return True
    values = column.dropna()
    return len(values) > 0 and all(
        (isinstance(v, int | float) and not isinstance(v, bool)) or (isinstance(v, str) and NUMBER_TEXT.match(v))
        for v in values
    )


def _is_identifier_column(column: pd.Series) -> bool:
    """Text that is all short single words, such as document or query ids."""
    values = column.dropna()
    return len(values) > 0 and all(
        isinstance(v, str) and 0 < len(v) <= ID_LENGTH and not any(c.isspace() for c in v) for v in values
    )


def _decimals_by_column(frame: pd.DataFrame, decimals: int | Mapping[str, int]) -> dict:
    if isinstance(decimals, Mapping):
        unknown = set(decimals) - set(frame.columns)
        if unknown:
            raise ValueError(f"decimals names columns the table does not have: {sorted(map(str, unknown))}")
        return {column: check_whole(decimals.get(column, 3), "decimals", minimum=0) for column in frame.columns}
    places = check_whole(decimals, "decimals", minimum=0)
    return {column: places for column in frame.columns}


def _number_format(column: pd.Series, places: int, keep_decimals: bool = False):
    """Whole numbers without decimals; any other number (every float with ``keep_decimals``) with ``places``."""
    if is_integer_dtype(column):
        return "{:d}"
    values = column.dropna()
    if is_float_dtype(column) and not keep_decimals and len(values) and all(float(v).is_integer() for v in values):
        return "{:.0f}"  # grades and counts stored as floats: 2, not 2.000

    def shown(value) -> str:
        if isinstance(value, float):
            return f"{value:.{places}f}"
        return str(value)  # text (or a number already formatted by the lesson), a whole number

    return shown


def _breakable(label: object) -> str:
    """A column label as HTML that may break after its underscores: ideal_discounted_gain on three lines, not one
    column too wide for the notebook (the text stays the same, so does the name to use in code)."""
    return html.escape(str(label)).replace("_", "_<wbr>")


def _props(css: str) -> dict[str, str]:
    pairs = (item.split(":", 1) for item in css.split(";") if item.strip())
    return {name.strip(): value.strip() for name, value in pairs}
