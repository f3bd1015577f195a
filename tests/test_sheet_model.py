"""The one worksheet model: blocks, widths, the arithmetic layout, and the HTML every sheet is shown as."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from helpers import metrics
from helpers.sheet import (
    Sheet,
    arithmetic_worksheet,
    example_sheets,
    frame_to_sheet,
    mrr_worksheet,
    ndcg_worksheet,
)
from helpers.sheet.html import STYLE
from helpers.sheet.model import uniform_decimals
from helpers.widgets.table import table_records, table_sheet_html

# --- reading the HTML back ---------------------------------------------------


class Outline(HTMLParser):
    """The top-level elements of an HTML fragment and every <td> with its classes and text."""

    def __init__(self):
        super().__init__()
        self.depth, self.top, self.stray_text = 0, [], ""
        self.cells: list[tuple[set[str], str]] = []
        self._cell: list | None = None

    def handle_starttag(self, tag, attrs):
        if self.depth == 0:
            self.top.append((tag, dict(attrs)))
        self.depth += 1
        if tag == "td":
            self._cell = [set((dict(attrs).get("class") or "").split()), ""]

    def handle_endtag(self, tag):
        self.depth -= 1
        if tag == "td" and self._cell is not None:
            self.cells.append((self._cell[0], self._cell[1]))
            self._cell = None

    def handle_data(self, data):
        if self.depth == 0:
            self.stray_text += data
        elif self._cell is not None:
            self._cell[1] += data


def outline(page: str) -> Outline:
    parser = Outline()
    parser.feed(page)
    parser.close()
    return parser


def every_sheet_html() -> dict[str, str]:
    """The HTML of every kind of sheet the lessons, the widgets and the examples show."""
    table = metrics.arithmetic_table([2, 0, 3], k=2, ideal=[3, 3, 2, 0], ids=["D1", "D2", "D3"])
    pages = {
        "ndcg": ndcg_worksheet([2, 0, 3, 1, 0, 2], [3], k=5, show_formulas=True).to_html(),
        "mrr": mrr_worksheet(["a", "b"], [1, 0], k=1).to_html(),
        "arithmetic": arithmetic_worksheet(table, totals_k=2, show_formulas=True).to_html(),
        "widget": table_sheet_html(table_records(table), "exponential", "$C$2:$C$4", "t", True),
        "frame": frame_to_sheet(table[["rank", "grade"]], formulas={"grade": "=$A${row}"}).to_html(),
    }
    for letter in "ABCD":
        for sheet in example_sheets(letter):
            sheet.show_formulas = True
            pages[f"{letter}: {sheet.name}"] = sheet.to_html()
    return pages


SHEETS = every_sheet_html()  # drawn once, as each worker collects the module


# --- HTML: MathJax, alignment, wrapping, precision ----------------------------


@pytest.mark.parametrize(("name", "page"), SHEETS.items())
def test_every_sheet_is_one_element_that_mathjax_leaves_alone(name, page):
    found = outline(page)
    assert len(found.top) == 1 and not found.stray_text.strip(), f"{name}: more than one outer element"
    tag, attrs = found.top[0]
    classes = attrs["class"].split()
    assert tag == "div" and "tex2jax_ignore" in classes and "mathjax_ignore" in classes
    assert found.depth == 0


def test_formulas_with_dollar_signs_sit_inside_the_ignored_element():
    page = ndcg_worksheet([2, 0, 3], [3], k=2, show_formulas=True).to_html()
    inner = page[page.index(">") + 1 : page.rindex("</div>")]  # everything inside the outer div
    assert "=LARGE($B$2:$B$5,A2)" in inner and "$" not in page.replace(inner, "")


@pytest.mark.parametrize(("name", "page"), SHEETS.items())
def test_numbers_are_right_aligned_and_text_left_aligned(name, page):
    for classes, text in outline(page).cells:
        value = text.split("=", 1)[0]  # the value, without the formula shown under it
        is_number = re.fullmatch(r"-?\d+(\.\d+)?", value.strip()) is not None
        assert ("number" in classes) == is_number and ("text" in classes) != is_number, (name, text)
    assert ".sheet-view td.number{text-align:right" in STYLE
    assert ".sheet-view td.text{text-align:left" in STYLE


def test_long_text_wraps_instead_of_being_cut():
    rule = re.search(r"\.sheet-view td\.text\{([^}]*)\}", STYLE).group(1)
    assert "white-space:normal" in rule and "overflow-wrap:anywhere" in rule
    assert "overflow:hidden" not in STYLE and "text-overflow" not in STYLE and "nowrap}" not in rule
    c_sheet = example_sheets("C")[0]
    notes = [text for classes, text in outline(c_sheet.to_html()).cells if "note" in classes]
    assert any("(judged, not returned)" in note for note in notes)


def shown_decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def test_one_precision_per_column_of_a_table():
    sheet = example_sheets("C")[0]
    for rows in (range(2, 9), range(16, 21)):  # the result rows, the query rows
        for column in "BCDE":
            numbers = [sheet.cell(f"{column}{row}") for row in rows]
            places = {shown_decimals(cell.shown()) for cell in numbers if cell.is_number}
            assert len(places) <= 1, (column, rows, places)
    fractional = arithmetic_worksheet(metrics.arithmetic_table([2, 1.5, 0], ideal=[2, 1.5, 0]))
    assert [fractional.cell(f"C{row}").shown() for row in (2, 3, 4)] == ["2.000", "1.500", "0.000"]
    whole = arithmetic_worksheet(metrics.arithmetic_table([2, 1, 0], ideal=[2, 1, 0]))
    assert [whole.cell(f"C{row}").shown() for row in (2, 3, 4)] == ["2", "1", "0"]
    assert (uniform_decimals([1, 2.0, "none"]), uniform_decimals([0.5])) == (0, 3)


# --- the arithmetic layout: the widgets' table and lesson 02's sheet ----------


def test_widget_table_keeps_columns_a_to_j_with_formulas():
    table = metrics.arithmetic_table([2, 0, 3], k=2, ideal=[2, 0, 3], gain="exponential", ids=["x", "y", "z"])
    page = table_sheet_html(table_records(table), "exponential", "$C$2:$C$4", "title", True)
    cells = outline(page).cells
    header = [text for _, text in cells[:10]]
    assert header == ["rank", "id", "grade", "gain", "log2(rank+1)", "discounted gain", "ideal grade",
                      "ideal gain", "ideal DG", "in top K"]
    first = [text for _, text in cells[10:20]]
    assert first[3] == "3=2^C2-1" and first[4] == "1.000=LOG(A2+1,2)" and first[5] == "3.000=D2/E2"
    assert first[6] == "3=LARGE($C$2:$C$4,A2)" and first[8] == "7.000=H2/E2" and first[9] == "yes"
    assert "input" in cells[12][0] and "input" not in cells[16][0]
    third = [text for _, text in cells[30:40]]
    assert third[9] == "no"


def test_arithmetic_sheet_values_come_from_the_table():
    table = metrics.arithmetic_table([2, 0, 3], k=5, ideal=[3, 3, 2, 0], gain="exponential")
    sheet = arithmetic_worksheet(table, "exponential", totals_k=5)
    for row, line in enumerate(table.itertuples(), start=2):
        assert sheet.value(f"F{row}") == pytest.approx(line.discounted_gain)
        assert sheet.value(f"I{row}") == pytest.approx(line.ideal_discounted_gain)
    assert len(table) == 4  # the ideal reaches rank 4: a row with no result carries it
    assert sheet.value("G5") == 0 and "G5" in sheet.input_refs()  # typed: no LARGE range given
    assert (sheet.value("A7"), sheet.formula("B7")) == ("DCG@5", "=SUM(F2:F5)")
    assert sheet.value("B7") == pytest.approx(metrics.dcg([2, 0, 3], 5, "exponential"))
    assert sheet.value("B8") == pytest.approx(metrics.ideal_dcg([3, 3, 2, 0], 5, "exponential"))
    assert sheet.value("B9") == pytest.approx(metrics.ndcg([2, 0, 3], 5, [3, 3, 2, 0], "exponential"))
    assert sheet.formula("B9") == "=B7/B8"


def test_arithmetic_totals_add_only_the_rows_within_k_and_say_undefined_at_zero():
    sheet = arithmetic_worksheet(metrics.arithmetic_table([0, 0, 1], ideal=[1, 0, 0]), totals_k=2)
    assert sheet.formula("B6") == "=SUM(F2:F3)" and sheet.value("B6") == 0  # rank 3 is past k
    assert sheet.value("B8") == 0 and sheet.formula("B8") == "=B6/B7"
    zero = arithmetic_worksheet(metrics.arithmetic_table([0, 0]), totals_k=2)
    assert (zero.value("B7"), zero.formula("B7")) == ("undefined", '=IF(B6=0,"undefined",B5/B6)')


def test_lesson_02_columns_and_headers():
    table = metrics.arithmetic_table([3, 0, 2], k=3, ideal=[3, 2, 0], ids=["D4", "D9", "D11"])
    sheet = arithmetic_worksheet(
        table, columns=["rank", "id", "grade", "discount", "discounted_gain", "ideal_grade",
                        "ideal_discounted_gain"], headers={"id": "passage", "discount": "discount"},
        totals_k=3, total_decimals=4,
    )
    assert [sheet.value(f"{c}1") for c in "ABCDEFG"] == [
        "rank", "passage", "grade", "discount", "discounted gain", "ideal grade", "ideal DG"]
    formulas = (sheet.formula("E3"), sheet.formula("G3"), sheet.formula("B6"))
    assert formulas == ("=C3/D3", "=F3/D3", "=SUM(E2:E4)")
    assert sheet.cell("B8").shown() == f"{metrics.ndcg([3, 0, 2], 3, [3, 2, 0]):.4f}"


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"columns": ["rank", "grade", "gian"]}, ValueError, "unknown column 'gian'"),
        ({"columns": ["rank", "discount"]}, ValueError, "must include 'rank' and 'grade'"),
        ({"columns": ["rank", "grade"], "totals_k": 2}, ValueError, "totals need the columns"),
        ({"gain": "cubic"}, ValueError, "unknown gain 'cubic'"),
        ({"totals_k": 0}, ValueError, "k must be at least 1"),
    ],
)
def test_arithmetic_sheet_refuses_bad_options(kwargs, error, message):
    with pytest.raises(error, match=message):
        arithmetic_worksheet(metrics.arithmetic_table([1, 0]), **kwargs)


# --- the model: blocks, widths, rules ------------------------------------------


def test_blocks_mark_the_printed_pages_and_the_repeated_header():
    c_sheet = example_sheets("C")[0]
    assert [(b.first_row, b.last_row, b.header_rows) for b in c_sheet.print_blocks()] == [
        (1, 13, (1,)), (15, 23, (15,))]
    assert c_sheet.print_title_rows() == ()  # each block starts its own page under its own header
    a_sheet = example_sheets("A")[0]
    assert len(a_sheet.print_blocks()) == 1 and a_sheet.print_title_rows() == (1,)
    sheet = Sheet()
    sheet.set("A1", "x", role="header")
    sheet.set("A3", 1)
    assert sheet.print_blocks()[0].header_rows == (1,) and sheet.print_title_rows() == (1,)
    with pytest.raises(ValueError, match="overlap"):
        c_sheet.add_block(10, 16)
    with pytest.raises(ValueError, match="header rows"):
        sheet.add_block(2, 3, header_rows=(1,))


def test_column_widths_fit_headers_labels_and_values():
    sheet = Sheet()
    sheet.set("A1", "Rank", role="header")
    sheet.set("B1", "pushed_down: discounted gain", role="header")
    sheet.set("A2", "Cut-off k (MRR@k)", role="label")
    sheet.set("B2", 0.123456, decimals=3)
    sheet.set("C2", "a long title " * 8, role="note")
    sheet.set("D1", "a question that may run on over the empty cells", role="title")
    widths = sheet.column_widths()
    assert widths[1] == pytest.approx(len("Cut-off k (MRR@k)") * 1.1 + 2, abs=0.05)  # bold text
    assert widths[2] == pytest.approx(len("discounted gain") * 1.1 + 2, abs=0.05)  # the longer of 2 lines
    assert widths[3] == pytest.approx(44 * 0.9 + 2, abs=0.05) and 4 not in widths  # a note: 44 characters
    assert sheet.row_lines(widths) == {1: 2, 2: 3}  # the header on two lines, the note on three
    with pytest.raises(ValueError, match="unknown role"):
        sheet.set("A5", "x", role="heading")


def test_input_rules_and_names_of_example_c():
    sheet = example_sheets("C")[0]
    assert sheet.names == {"Gain": "B9"}
    assert sheet.rules["B9"].choices == ("linear", "exponential")
    assert (sheet.rules["B10"].minimum, sheet.rules["B10"].maximum) == (1, 6)
    assert sheet.rules["B2:B8"].kind == "decimal" and sheet.rules["B22"].maximum is None


def test_formulas_table_and_frame():
    sheet = ndcg_worksheet([2, 0], [3], k=2)
    formulas = sheet.formulas()
    assert list(formulas.columns) == ["cell", "formula", "value"]
    assert formulas.set_index("cell").at["B9", "value"] == pytest.approx(metrics.ndcg([2, 0], 2, [2, 0, 3]))
    assert sheet.to_frame().loc[4, "A"] == "missed"
    assert repr(sheet) == "Sheet('nDCG worksheet', 9 rows x 5 columns)"


def test_every_coloured_cell_sets_its_own_text_colour():
    """JupyterLab Dark turns the text white: a cell with a light background of its own keeps dark text."""
    for rule in re.findall(r"\.sheet-view [^{]+\{[^}]*\}", STYLE):
        body = rule.split("{", 1)[1]
        if "background:" in body:
            assert "color:" in body.replace("background", ""), rule
    formula = re.search(r"\.sheet-view \.formula\{[^}]*\}", STYLE).group(0)
    # text on the notebook's own background follows the theme, in its body colour: the secondary one is 4.5:1
    assert "color:var(--jp-content-font-color1" in formula and "font-color2" not in STYLE
