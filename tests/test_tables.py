"""helpers.tables: whole text, words left and numbers right, one precision per column, never typeset."""

import re

import pandas as pd
import pytest

from helpers import metrics
from helpers.tables import table


def cells_of(html: str, column: int) -> list[str]:
    return re.findall(rf'<td id="T_\w+_row\d+_col{column}" class="[^"]*" >([^<]*)</td>', html)


def style_of(html: str, row: int, column: int) -> str:
    selector = re.search(rf"([^{{}}]*#T_\w+_row{row}_col{column}\b[^{{}}]*)\{{([^}}]*)\}}", html)
    return selector.group(2) if selector else ""


@pytest.fixture
def frame():
    return pd.DataFrame({
        "when": ["a long sentence that a bare pandas table would cut off after fifty characters, with an ellipsis",
                 "short"],
        "value": [0.55038, 2.0],
        "count": [3, 10],
        "grade": [2.0, 0.0],
        "formula": ["=LARGE($B$2:$B$8,A2)", "=B2/LOG(A2+1,2)"],
    })


def test_no_cell_is_cut(frame):
    html = table(frame).to_html()
    assert frame.loc[0, "when"] in html and "…" not in html


def test_one_precision_per_column_and_whole_numbers_without_decimals(frame):
    html = table(frame, decimals={"value": 4}).to_html()
    assert cells_of(html, 1) == ["0.5504", "2.0000"]
    assert cells_of(html, 2) == ["3", "10"]
    assert cells_of(html, 3) == ["2", "0"]  # grades stored as floats read as whole numbers
    assert cells_of(table(frame).to_html(), 1) == ["0.550", "2.000"]
    kept = table(frame, decimals=4, keep_decimals=True).to_html()
    assert cells_of(kept, 3) == ["2.0000", "0.0000"] and cells_of(kept, 2) == ["3", "10"], "integers stay whole"


def test_words_left_numbers_right(frame):
    html = table(frame).to_html()
    assert "text-align: left" in style_of(html, 0, 0) and "white-space: normal" in style_of(html, 0, 0)
    assert "text-align: right" in style_of(html, 0, 1)
    formatted = table(pd.DataFrame({"MRR": ["0.750", "0.417"]})).to_html()
    assert "text-align: right" in style_of(formatted, 0, 0)


def test_short_ids_never_break_inside_a_word():
    ids = pd.DataFrame({"rank": [1, 2], "id": ["kb21", "reset-password"], "title": ["Reset a password", "x" * 30]})
    html = table(ids, index=False).to_html()
    assert "white-space: nowrap" in style_of(html, 0, 1) and "overflow-wrap" not in style_of(html, 0, 1)
    assert "text-align: left" in style_of(html, 1, 1)
    assert "white-space: normal" in style_of(html, 0, 2) and "overflow-wrap: anywhere" in style_of(html, 1, 2)


def test_the_id_column_of_an_arithmetic_table_stays_whole():
    arithmetic = metrics.arithmetic_table([3, 0, 2], k=3, ids=["kb21", "kb07", "kb13"])
    column = list(arithmetic.columns).index("id")
    assert "white-space: nowrap" in style_of(table(arithmetic, index=False).to_html(), 0, column)


def test_never_typeset_as_maths(frame):
    html = table(frame).to_html()
    assert re.search(r'<table id="T_\w+" class="lesson-table tex2jax_ignore mathjax_ignore"', html)
    assert "=LARGE($B$2:$B$8,A2)" in html


def test_series_hidden_index_caption_and_bad_input():
    html = table(pd.Series([1.5, 2.25], name="x"), index=False, caption="two numbers").to_html()
    assert "<caption>two numbers</caption>" in html and "1.500" in html
    with pytest.raises(TypeError, match="DataFrame or Series"):
        table([1, 2])
    with pytest.raises(ValueError, match="columns the table does not have"):
        table(pd.DataFrame({"a": [1.0]}), decimals={"b": 2})
    with pytest.raises(ValueError, match="decimals must be at least 0"):
        table(pd.DataFrame({"a": [1.0]}), decimals=-1)


def test_text_labels_and_caption_are_escaped():
    markup = "<b>x</b> & y"
    frame = pd.DataFrame({markup: [markup, "plain"], "value": [0.5, 1.25]}, index=pd.Index([markup, "q2"], name=markup))
    html = table(frame, caption=markup).to_html()
    escaped = "&lt;b&gt;x&lt;/b&gt; &amp; y"
    assert "<b>" not in html and "& y" not in html
    assert f"<caption>{escaped}</caption>" in html
    assert re.search(rf'<td id="T_\w+_row0_col0" class="[^"]*" >{escaped}</td>', html)  # a text cell
    assert re.search(rf'<th id="T_\w+_level0_row0" class="row_heading[^"]*" >{escaped}</th>', html)  # a row label
    assert re.search(rf'<th id="T_\w+_level0_col0" class="col_heading[^"]*" >{escaped}</th>', html)  # a column label
    assert re.search(rf'<th class="index_name level0" >{escaped}</th>', html)  # the index's name
    assert cells_of(html, 1) == ["0.500", "1.250"]  # numbers are untouched


def test_labels_of_several_levels_are_escaped():
    frame = pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([("<a>", "b & c"), ("<a>", "d")]),
                         index=pd.MultiIndex.from_tuples([("<q>", 1)]))
    html = table(frame).to_html()
    assert "<a>" not in html and "<q>" not in html
    assert html.count("&lt;a&gt;") == 1 and "b &amp; c" in html and "&lt;q&gt;" in html
