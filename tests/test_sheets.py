"""Tests of helpers.sheet.xlsx, the spreadsheet twin of the worked examples A-D (lessons 01-04).

The LibreOffice tests recalculate the exported workbooks in a real spreadsheet
application (a fresh profile that recalculates on every load) and compare every
formula cell with helpers; then they edit input cells and recalculate again.
They also print every workbook to PDF and count its landscape pages.
The conversions run in three soffice calls, because each call costs about 2 s.
"""

from __future__ import annotations

import dataclasses
import math
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import openpyxl
import pytest

from helpers.data import load_example
from helpers.metrics import (
    dcg,
    grades_in_rank_order,
    ideal_dcg,
    mean_hit_rate,
    mean_reciprocal_rank,
    ndcg,
)
from helpers.sheet import Sheet, example_sheets
from helpers.sheet import xlsx as sheets
from helpers.sheet.layouts import example_c_inputs, example_c_sheet, expected_c_cells

ROOT = Path(__file__).resolve().parent.parent
SOFFICE = shutil.which("soffice")
RECALC_ALWAYS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
</oor:items>
"""
C_GRADES, C_MISSED, C_RANKS = [2, 0, 3, 1, 0, 2], [3], [1, 3, 2, 0, 1]


# --- reading workbooks ----------------------------------------------------


def formulas_of(path: Path) -> dict[str, str]:
    """Every formula cell of the first sheet: ref -> formula."""
    sheet = openpyxl.load_workbook(path).worksheets[0]
    return {
        cell.coordinate: cell.value
        for row in sheet.iter_rows()
        for cell in row
        if isinstance(cell.value, str) and cell.value.startswith("=")
    }


def values_of(path: Path, refs) -> dict[str, object]:
    """The stored (cached) values of some cells of the first sheet."""
    sheet = openpyxl.load_workbook(path, data_only=True).worksheets[0]
    return {ref: sheet[ref].value for ref in refs}


def cached_of(path: Path) -> dict[str, object]:
    """The cached value of every formula cell of the first sheet."""
    return values_of(path, formulas_of(path))


def same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b, abs_tol=1e-9)


def assert_cells(path: Path, expected: dict[str, object]) -> None:
    """Each listed cell of the first sheet holds the expected value (to 1e-9)."""
    found = values_of(path, expected)
    wrong = {ref: (found[ref], value) for ref, value in expected.items() if not same(found[ref], value)}
    assert not wrong, f"{path.name}: cells (found, expected): {wrong}"


def edit(source: Path, target: Path, change) -> Path:
    """A copy of a workbook with input cells changed by openpyxl (which drops every cached value)."""
    workbook = openpyxl.load_workbook(source)
    change(workbook.worksheets[0])
    workbook.save(target)
    return target


def setting(ref: str, value):
    """An edit that puts one value (or formula) in one cell."""

    def change(sheet):
        sheet[ref] = value

    return change


def expected_for(example, gain: str = "linear") -> dict[str, object]:
    """The value helpers computes for each formula cell of an example's sheet (maybe an edited copy)."""
    sheet = example_sheets(example, gain)[0]
    return {ref: cell.value for ref, cell in sheet.formula_cells().items()}


def with_runs(example, change):
    """A copy of a loaded example with its runs table changed."""
    return dataclasses.replace(example, runs=change(example.runs.copy()))


# --- the written workbooks (no LibreOffice needed) -------------------------


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("written")
    paths = {letter: sheets.write_workbook(letter, folder / f"example_{letter}.xlsx") for letter in "ABCD"}
    for letter in "BC":
        paths[f"{letter}_exp"] = sheets.write_workbook(
            letter, folder / f"example_{letter}_exp.xlsx", gain="exponential"
        )
    return paths


def test_cached_values_of_example_c_are_the_worked_figures(written):
    values = values_of(written["C"], ["B11", "B12", "B13", "C21", "C23"])
    assert [round(values[ref], 3) for ref in values] == [3.931, 7.141, 0.550, 0.567, 0.500]
    rows = values_of(written["C"], [f"{column}{row}" for column in "CDE" for row in range(2, 8)])
    assert [round(rows[f"C{row}"], 3) for row in range(2, 8)] == [2.0, 0.0, 1.5, 0.431, 0.0, 0.712]
    assert [rows[f"D{row}"] for row in range(2, 8)] == [3, 3, 2, 2, 1, 0]
    assert [round(rows[f"E{row}"], 3) for row in range(2, 8)] == [3.0, 1.893, 1.0, 0.861, 0.387, 0.0]
    ranks = values_of(written["C"], [f"C{row}" for row in range(16, 21)])
    assert [round(value, 3) for value in ranks.values()] == [1.0, 0.333, 0.5, 0.0, 1.0]
    exponential = values_of(written["C_exp"], ["B11", "B12", "B13"])
    assert [round(value, 3) for value in exponential.values()] == [6.931, 14.595, 0.475]


def test_cached_values_of_examples_a_b_d_are_the_worked_figures(written):
    a = values_of(written["A"], ["D7", "G7", "E8", "H8"])
    assert [round(value, 3) for value in a.values()] == [0.750, 0.417, 0.800, 0.800]
    b = values_of(written["B"], ["E12", "H12", "K12", "M12", "E13", "H13", "K13"])
    assert [round(value, 4) for value in b.values()] == [4.2619, 3.5, 2.0219, 4.2619, 1.0, 0.8212, 0.4744]
    b_exp = values_of(written["B_exp"], ["E13", "H13", "K13"])
    assert [round(value, 4) for value in b_exp.values()] == [1.0, 0.7309, 0.4498]
    d = values_of(written["D"], ["F6", "G7", "B10", "E5", "F5"])
    assert (round(d["F6"], 3), round(d["G7"], 3), d["B10"]) == (0.444, 0.667, 3)
    assert (d["E5"], d["F5"]) == ("no (unanswerable)", "excluded")


@pytest.mark.parametrize("name", ["A", "B", "C", "D", "B_exp", "C_exp"])
def test_every_formula_cell_has_a_cached_value(written, name):
    cached = cached_of(written[name])
    assert len(cached) >= 15
    assert all(value is not None for value in cached.values()), cached


@pytest.mark.parametrize("name", ["A", "B", "C", "D", "B_exp", "C_exp"])
def test_the_workbook_holds_the_model_sheet(written, name):
    """Every cell of the model is in the file: the formulas, their stored values, the typed inputs."""
    letter, gain = name[0], "exponential" if name.endswith("_exp") else "linear"
    model = example_sheets(letter, gain)[0]
    assert formulas_of(written[name]) == {ref: cell.formula for ref, cell in model.formula_cells().items()}
    assert_cells(written[name], expected_for(letter, gain))
    typed = {ref: model.value(ref) for ref in model.input_refs() if model.value(ref) is not None}
    assert_cells(written[name], typed)


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_example_c_formula_cells_are_the_cells_read_back(gain):
    """The sheet builder and the read-back check compute every derived cell the same way, apart."""
    inputs = example_c_inputs(gain=gain)
    built = {ref: cell.value for ref, cell in example_c_sheet(inputs).formula_cells().items()}
    checked = {ref: value for ref, (_, value) in expected_c_cells(inputs).items()}
    assert set(built) == set(checked)
    assert all(same(built[ref], checked[ref]) for ref in built), (built, checked)


def test_example_c_keeps_the_source_layout_and_formulas(written):
    workbook = openpyxl.load_workbook(written["C"])
    sheet = workbook["Example C"]
    assert [sheet[f"{c}1"].value for c in "ABCDE"] == [
        "Rank", "Relevance (0–3)", "Discounted gain", "Ideal relevance", "Ideal DG"]
    assert [sheet[f"A{row}"].value for row in range(2, 9)] == [1, 2, 3, 4, 5, 6, "missed"]
    assert [sheet[f"B{row}"].value for row in range(2, 9)] == [*C_GRADES, *C_MISSED]
    assert [sheet[f"A{row}"].value for row in (10, 11, 12, 13, 21)] == [
        "Cut-off k", "DCG@k", "IDCG@k", "NDCG@k", "MRR"]
    assert (sheet["B9"].value, sheet["B10"].value, sheet["B22"].value) == ("linear", 5, 2)
    assert [sheet[f"{c}15"].value for c in "ABC"] == ["Query", "First relevant rank", "Reciprocal rank"]
    assert [sheet[f"B{row}"].value for row in range(16, 21)] == [1, 3, 2, "none", 1]
    assert sheet["C2"].value == '=IF(Gain="exponential",2^B2-1,B2)/LOG(A2+1,2)'
    assert sheet["D2"].value == "=LARGE($B$2:$B$8,A2)"
    assert sheet["B11"].value == "=SUMPRODUCT((A2:A7<=B10)*C2:C7)"
    assert sheet["B13"].value == '=IF(B12=0,"undefined",B11/B12)'
    assert sheet["D16"].value == "=IF(AND(ISNUMBER(B16),B16<=$B$22),C16,0)"
    assert sheet["C16"].value == "=IFERROR(1/B16,0)"
    assert sheet["C21"].value == "=AVERAGE(C16:C20)"
    assert sheet["C23"].value == "=AVERAGE(D16:D20)"
    assert workbook.defined_names["Gain"].attr_text == "'Example C'!$B$9"
    inputs = [f"B{row}" for row in (*range(2, 11), *range(16, 21), 22)]
    assert all(sheet[ref].fill.fgColor.rgb.endswith("FFFF99") for ref in inputs)
    assert not any(sheet[ref].fill.fill_type for ref in formulas_of(written["C"]))
    assert [sheet[f"F{row}"].value.split(":")[0] for row in range(2, 9)] == [
        "kb01", "kb02", "kb07", "kb03", "kb04", "kb06", "kb21"]
    validations = sheet.data_validations.dataValidation
    rules = {str(rule.sqref): (rule.type, rule.formula1, rule.formula2) for rule in validations}
    assert rules["B9"] == ("list", '"linear,exponential"', None)
    assert rules["B10"] == ("whole", "1", "6") and rules["B2:B8"] == ("decimal", "0", None)


# --- print setup: landscape, one page wide, a page per block ----------------


@pytest.mark.parametrize("letter", "ABCD")
def test_print_setup_of_every_sheet(written, letter):
    workbook = openpyxl.load_workbook(written[letter])
    for model, sheet in zip(example_sheets(letter), workbook.worksheets, strict=True):
        setup = sheet.page_setup
        assert (setup.orientation, setup.paperSize, setup.fitToHeight) == ("landscape", 9, 0), model.name
        assert sheet.sheet_properties.pageSetUpPr.fitToPage and (setup.fitToWidth or 1) == 1
        breaks = [block.first_row - 1 for block in model.print_blocks()[1:]]
        assert [brk.id for brk in sheet.row_breaks.brk] == breaks
        titles = model.print_title_rows()
        assert sheet.print_title_rows == (f"${titles[0]}:${titles[-1]}" if titles else None)
    pages = {"A": ([1], "$1:$1"), "B": ([1, 15], None), "C": ([1, 15], None), "D": ([1], "$1:$1")}
    blocks, titles = pages[letter]
    example = workbook.worksheets[0]
    assert [1] + [brk.id + 1 for brk in example.row_breaks.brk] == blocks
    assert example.print_title_rows == titles
    assert example.print_options.headings and example.print_options.gridLines


def column_width(sheet, column: int) -> float:
    """The width of a column as saved (one <col> element may set several adjacent columns)."""
    for dimension in sheet.column_dimensions.values():
        if dimension.min <= column <= dimension.max:
            return dimension.width
    raise AssertionError(f"column {column} has no width of its own")


@pytest.mark.parametrize("letter", "ABCD")
def test_columns_fit_their_headers_and_wrapped_rows_are_tall_enough(written, letter):
    sheet = openpyxl.load_workbook(written[letter]).worksheets[0]
    for row in sheet.iter_rows():
        for cell in row:
            if not (cell.font.b and isinstance(cell.value, str)) or cell.row == 1 and letter == "B":
                continue  # bold text: headers and labels (B1 of example B is a title over the empty cells)
            width = column_width(sheet, cell.column)
            room = int((width - 2) / 1.1 + 0.01)  # characters of bold text that fit
            lines = textwrap.wrap(cell.value, room, break_long_words=False)
            assert len(lines) <= 2 and all(len(line) <= room for line in lines), (cell.coordinate, width)
            if len(lines) == 2:
                height = sheet.row_dimensions[cell.row].height
                assert cell.alignment.wrap_text and height >= 30, cell.coordinate


def test_conventions_sheet_states_the_conventions(written):
    sheet = openpyxl.load_workbook(written["C"])["Conventions"]
    text = " ".join(str(cell.value) for row in sheet.iter_rows() for cell in row)
    for phrase in ("log2(rank + 1)", "2^grade − 1", "Linear gain = the grade", "every judged document",
                   "missed", "scores 0", "0.690"):
        assert phrase in text


# --- LibreOffice: recalculate, then edit inputs and recalculate -----------


def edit_c_inputs(sheet):  # a grade, the missed grade, k, a first rank, the MRR cut-off
    sheet["B4"], sheet["B8"], sheet["B10"], sheet["B17"], sheet["B22"] = 0, 2, 3, "none", 3


def edit_c_gain(sheet):
    sheet["B9"] = "exponential"


def edit_c_wrong_formula(sheet):  # a learner's DCG that forgets the cut-off
    sheet["B11"] = "=SUM(C2:C7)"


def edit_b_d4(sheet):  # the exercise: D4's grade set to 1 in the judged table
    (row,) = [row for row in range(16, 22) if sheet[f"A{row}"].value == "D4"]
    sheet[f"B{row}"] = 1


def edit_b_without_d11(sheet):  # the exercise: D11 deleted from every ordering, cells shifted up
    for column in "CFI":
        docs = [sheet[f"{column}{row}"].value for row in range(6, 12)]
        kept = [doc for doc in docs if doc != "D11"] + [None]
        for row, doc in zip(range(6, 12), kept, strict=True):
            sheet[f"{column}{row}"] = doc


def edit_b_k_gain(sheet):
    sheet["B2"], sheet["B3"] = "exponential", 3


def edit_a_d8(sheet):  # the exercise: in NEW, D8 moves to rank 1 of question q1
    sheet["F2"] = 1


def edit_a_k(sheet):
    sheet["B10"] = 1


def edit_d_k(sheet):
    sheet["B9"] = 5


def edit_d_answerable(sheet):  # pretend d4 had a relevant chunk: it now counts, as a miss
    sheet["C5"] = 1


EDITS = {
    "C_inputs": ("C", edit_c_inputs),
    "C_gain": ("C", edit_c_gain),
    "C_wrong_formula": ("C", edit_c_wrong_formula),
    "B_d4": ("B", edit_b_d4),
    "B_without_d11": ("B", edit_b_without_d11),
    "B_k_gain": ("B", edit_b_k_gain),
    "A_d8": ("A", edit_a_d8),
    "A_k": ("A", edit_a_k),
    "D_k": ("D", edit_d_k),
    "D_answerable": ("D", edit_d_answerable),
}


@pytest.fixture(scope="module")
def libreoffice(tmp_path_factory):
    """Convert .xlsx files to .xlsx or .pdf with LibreOffice, in a fresh profile that always recalculates."""
    if SOFFICE is None:
        pytest.skip("LibreOffice (soffice) is not installed; CI installs libreoffice-calc-nogui")
    base = tmp_path_factory.mktemp("libreoffice")
    (base / "profile" / "user").mkdir(parents=True)
    (base / "profile" / "user" / "registrymodifications.xcu").write_text(RECALC_ALWAYS, encoding="utf-8")

    def convert(files: list[Path], name: str, to: str = "xlsx") -> dict[str, Path]:
        out = base / name
        command = [SOFFICE, f"-env:UserInstallation={(base / 'profile').as_uri()}", "--headless",
                   "--convert-to", to, "--outdir", str(out), *map(str, files)]
        run = subprocess.run(command, capture_output=True, text=True, timeout=240)
        results = {file.stem: out / f"{file.stem}.{to}" for file in files}
        missing = [path.name for path in results.values() if not path.is_file()]
        assert run.returncode == 0 and not missing, f"soffice failed: {missing}\n{run.stdout}\n{run.stderr}"
        return results

    return convert


@pytest.fixture(scope="module")
def recalculated(written, libreoffice, tmp_path_factory) -> dict[str, Path]:
    """Every workbook without its cached values, and every edited copy, recalculated by LibreOffice."""
    folder = tmp_path_factory.mktemp("to_recalculate")
    files = [edit(path, folder / f"{name}.xlsx", lambda sheet: None) for name, path in written.items()]
    for name, (letter, change) in EDITS.items():
        files.append(edit(written[letter], folder / f"{name}.xlsx", change))
    for file in files:
        assert all(value is None for value in cached_of(file).values()), "openpyxl kept a cached value"
    return libreoffice(files, "out")


@pytest.mark.parametrize("name", ["A", "B", "C", "D", "B_exp", "C_exp"])
def test_libreoffice_recalculates_every_formula_to_helpers_values(written, recalculated, name):
    expected = cached_of(written[name])  # computed by helpers when the workbook was written
    assert_cells(recalculated[name], expected)


def test_edited_c_inputs_recalculate_to_helpers_values(recalculated):
    grades, judged, k = [2, 0, 0, 1, 0, 2], [2, 0, 0, 1, 0, 2, 2], 3
    ranks, mrr_k = [1, 0, 2, 0, 1], 3
    assert_cells(recalculated["C_inputs"], {
        "B11": dcg(grades, k), "B12": ideal_dcg(judged, k), "B13": ndcg(grades, k, ideal=judged),
        "C17": 0, "C21": mean_reciprocal_rank(ranks), "C23": mean_reciprocal_rank(ranks, mrr_k),
    })
    check = sheets.read_workbook(recalculated["C_inputs"])
    assert check.ok and len(check.compared) == 33, check.report()
    assert check.inputs.grades == tuple(grades) and check.inputs.first_ranks == tuple(ranks)


def test_gain_switch_gives_the_exponential_workbook(written, recalculated):
    assert_cells(recalculated["C_gain"], cached_of(written["C_exp"]))
    values = values_of(recalculated["C_gain"], ["B11", "B12", "B13"])
    assert [round(value, 3) for value in values.values()] == [6.931, 14.595, 0.475]
    assert same(values["B13"], ndcg(C_GRADES, 5, ideal=C_GRADES + C_MISSED, gain="exponential"))


def test_read_workbook_names_the_cells_of_a_wrong_formula(recalculated):
    check = sheets.read_workbook(recalculated["C_wrong_formula"])
    assert {cell.ref for cell in check.disagreements} == {"B11", "B13"}
    assert "B11 (DCG@k)" in check.report() and "2 of 33 cells disagree" in check.report()


def test_edited_b_recalculates_to_helpers_values(recalculated):
    b = load_example("B")
    d4_at_1 = b.judgments.copy()
    d4_at_1.loc[d4_at_1["doc_id"] == "D4", "grade"] = 1.0
    assert_cells(recalculated["B_d4"], expected_for(dataclasses.replace(b, judgments=d4_at_1)))
    values = values_of(recalculated["B_d4"], ["E12", "H12", "K12", "M12", "E13", "H13", "K13"]).values()
    assert [round(value, 4) for value in values] == [3.6309, 2.5, 1.5912, 3.6309, 1.0, 0.6885, 0.4382]

    without_d11 = with_runs(b, lambda runs: runs[runs["doc_id"] != "D11"])
    assert_cells(recalculated["B_without_d11"], expected_for(without_d11))
    values = values_of(recalculated["B_without_d11"], ["H12", "M12", "H13"]).values()
    assert [round(value, 4) for value in values] == [2.0, 4.2619, 0.4693]

    judgments = b.judgments_for("b1")
    expected = {}
    for column, system in zip("EHK", b.systems, strict=True):
        grades = grades_in_rank_order(b.ranking(system, "b1"), judgments)
        expected[f"{column}12"] = dcg(grades, 3, "exponential")
        expected[f"{column}13"] = ndcg(grades, 3, ideal=list(judgments.values()), gain="exponential")
    expected["M12"] = ideal_dcg(list(judgments.values()), 3, "exponential")
    assert_cells(recalculated["B_k_gain"], expected)


def test_edited_a_recalculates_to_helpers_values(recalculated):
    a = load_example("A")

    def d8_first(runs):
        q1_new = (runs["system"] == "NEW") & (runs["query_id"] == "q1")
        runs.loc[q1_new, "rank"] = runs.loc[q1_new, "doc_id"].map({"D8": 1, "D2": 2}).fillna(runs["rank"])
        return runs

    assert_cells(recalculated["A_d8"], expected_for(with_runs(a, d8_first)))
    values = values_of(recalculated["A_d8"], ["G7", "H8"])
    assert (round(values["G7"], 3), values["H8"]) == (0.517, 0.8)
    old, new = [1, 2, 1, 4, 1], [2, 3, 2, 4, 2]
    assert_cells(recalculated["A_k"], {"E8": mean_hit_rate(old, 1), "H8": mean_hit_rate(new, 1),
                                       "D7": mean_reciprocal_rank(old), "G7": mean_reciprocal_rank(new)})


def test_edited_d_recalculates_to_helpers_values(recalculated):
    answerable = [1, 3, 5]
    assert_cells(recalculated["D_k"], {"F6": mean_reciprocal_rank(answerable, 5),
                                       "G7": mean_hit_rate(answerable, 5), "F4": 0.2, "F5": "excluded"})
    assert_cells(recalculated["D_answerable"], {
        "E5": "yes", "F5": 0, "B10": 4,
        "F6": mean_reciprocal_rank([*answerable, 0], 4), "G7": mean_hit_rate([*answerable, 0], 4),
    })


PDF_OBJECT = re.compile(rb"\d+\s+\d+\s+obj\b(.*?)\bendobj", re.S)
MEDIA_BOX = re.compile(rb"/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]")


def pdf_pages(path: Path) -> list[tuple[float, float]]:
    """(width, height) in points of every page of a PDF, read from its page objects."""
    data = path.read_bytes()
    assert b"/ObjStm" not in data, "the PDF hides objects in streams: its pages cannot be read from its text"
    objects = PDF_OBJECT.findall(data)
    pages = [body for body in objects if re.search(rb"/Type\s*/Page(?![A-Za-z])", body)]
    trees = [body for body in objects if re.search(rb"/Type\s*/Pages\b", body)]
    (root,) = [tree for tree in trees if b"/Parent" not in tree]
    assert int(re.search(rb"/Count\s+(\d+)", root).group(1)) == len(pages)
    sizes = []
    for body in pages:
        x0, y0, x1, y1 = map(float, (MEDIA_BOX.search(body) or MEDIA_BOX.search(root)).groups())
        sizes.append((x1 - x0, y1 - y0))
    return sizes


@pytest.fixture(scope="module")
def printed(written, libreoffice) -> dict[str, Path]:
    """Every workbook as written, printed to PDF by LibreOffice (all sheets, one after the other)."""
    return libreoffice([written[letter] for letter in "ABCD"], "pdf", to="pdf")


@pytest.mark.parametrize(
    ("letter", "pages"),  # a page per block of the example's sheet, then one for the conventions
    [("A", 2), ("B", 3), ("C", 3), ("D", 2)],
)
def test_libreoffice_prints_one_landscape_page_per_block(written, printed, letter, pages):
    sizes = pdf_pages(printed[f"example_{letter}"])
    blocks = [len(sheet.print_blocks()) for sheet in example_sheets(letter)]
    assert len(sizes) == pages == sum(blocks), (sizes, blocks)
    assert all(width > height for width, height in sizes), f"a portrait page: {sizes}"
    assert all(round(width) == 842 and round(height) == 595 for width, height in sizes)  # A4


def test_pdf_page_reader_counts_portrait_pages(tmp_path):
    """The page reader of the print test, on a PDF made by hand: two pages, the second portrait."""
    pdf = (b"%PDF-1.4\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n"
           b"2 0 obj <</Type/Pages/Kids[3 0 R 4 0 R]/Count 2/MediaBox[0 0 842 595]>> endobj\n"
           b"3 0 obj <</Type/Page/Parent 2 0 R>> endobj\n"
           b"4 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>> endobj\n%%EOF\n")
    (tmp_path / "two.pdf").write_bytes(pdf)
    assert pdf_pages(tmp_path / "two.pdf") == [(842, 595), (595, 842)]


# --- reading a workbook back without LibreOffice --------------------------


def test_read_workbook_as_written_agrees_with_helpers(written):
    check = sheets.read_workbook(written["C"])
    assert check.ok and len(check.compared) == 33
    judged = C_GRADES + C_MISSED
    assert check.metrics == {
        "DCG@5": dcg(C_GRADES, 5), "IDCG@5": ideal_dcg(judged, 5), "nDCG@5": ndcg(C_GRADES, 5, ideal=judged),
        "MRR": mean_reciprocal_rank(C_RANKS), "MRR@2": mean_reciprocal_rank(C_RANKS, 2),
    }
    assert "nDCG@5   0.5504" in check.report() and "all 33 cells agree" in check.report()


def test_read_workbook_of_an_edit_without_stored_results(written, tmp_path):
    def change(sheet):
        sheet["B2"], sheet["B8"], sheet["B9"], sheet["B10"], sheet["B18"] = 3, None, "Exponential", 6, "None"

    check = sheets.read_workbook(edit(written["C"], tmp_path / "edited.xlsx", change))
    grades = [3, 0, 3, 1, 0, 2]
    assert check.inputs.missed == () and check.inputs.gain == "exponential"
    assert check.compared == ()
    assert check.metrics["nDCG@6"] == ndcg(grades, 6, gain="exponential")
    assert check.metrics["MRR"] == mean_reciprocal_rank([1, 3, 0, 0, 1])
    assert "no stored results to compare" in check.report()


def test_read_workbook_compares_a_typed_number(written, tmp_path):
    check = sheets.read_workbook(edit(written["C"], tmp_path / "typed.xlsx", setting("C2", 2.5)))
    assert [(cell.ref, cell.sheet, cell.helpers) for cell in check.compared] == [("C2", 2.5, 2.0)]
    assert not check.ok


@pytest.mark.parametrize(
    ("ref", "value", "message"),
    [
        ("B3", "abc", "cell B3: a grade"), ("B5", -1, "cell B5"), ("B10", 9, "cell B10"),
        ("B10", 2.5, "cell B10"), ("B9", "cubic", "cell B9"), ("B17", 1.5, "cell B17"),
        ("B22", None, "cell B22"),
    ],
)
def test_read_workbook_refuses_bad_inputs(written, tmp_path, ref, value, message):
    path = edit(written["C"], tmp_path / "bad.xlsx", setting(ref, value))
    with pytest.raises(ValueError, match=message):
        sheets.read_workbook(path)


def test_read_workbook_refuses_other_files(written, tmp_path):
    with pytest.raises(ValueError, match="not an example-C workbook"):
        sheets.read_workbook(written["A"])
    with pytest.raises(FileNotFoundError, match="no such file"):
        sheets.read_workbook(tmp_path / "absent.xlsx")
    (tmp_path / "text.xlsx").write_text("not a workbook")
    with pytest.raises(ValueError, match="not a readable .xlsx"):
        sheets.read_workbook(tmp_path / "text.xlsx")


# --- refusing to write ------------------------------------------------------


def test_existing_file_is_kept_unless_forced(tmp_path):
    path = tmp_path / "c.xlsx"
    path.write_bytes(b"mine")
    with pytest.raises(FileExistsError, match="already exists.*force=True"):
        sheets.write_workbook("C", path)
    assert path.read_bytes() == b"mine"
    assert sheets.write_workbook("C", path, force=True) == path
    assert sheets.read_workbook(path).ok
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.xlsx"]  # no temporary file left


@pytest.mark.parametrize(
    ("example", "path", "error", "message"),
    [
        ("C", "no_such_folder/c.xlsx", FileNotFoundError, "folder .*no_such_folder does not exist"),
        ("Z", "z.xlsx", ValueError, "unknown example 'Z'"),
        ("E", "e.xlsx", ValueError, "no spreadsheet twin"),
        ("C", "c.csv", ValueError, "must end in .xlsx"),
        (3, "c.xlsx", TypeError, "example must be a name"),
        ("C", 3, TypeError, "path must be a file name"),
    ],
)
def test_write_refuses_bad_arguments(tmp_path, example, path, error, message):
    target = tmp_path / path if isinstance(path, str) else path
    with pytest.raises(error, match=message):
        sheets.write_workbook(example, target)
    assert list(tmp_path.iterdir()) == []


def test_gain_is_checked(tmp_path):
    with pytest.raises(ValueError, match="unknown gain 'cubic'"):
        sheets.write_workbook("C", tmp_path / "c.xlsx", gain="cubic")
    with pytest.raises(ValueError, match="example A has no graded gain"):
        sheets.write_workbook("A", tmp_path / "a.xlsx", gain="exponential")


def test_save_example_workbook_for_the_notebooks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert sheets.save_example_workbook("c") == Path("example_c.xlsx")
    assert sheets.save_example_workbook("D", "advisor.xlsx") == Path("advisor.xlsx")
    assert sheets.save_example_workbook("C", "example_c.xlsx", force=True).is_file()


@pytest.mark.parametrize("value", [None, math.nan, math.inf])
def test_a_formula_cell_without_a_value_is_refused(tmp_path, value):
    sheet = example_sheets("C")[0]
    sheet.set("B13", value, "=B11/B12")
    with pytest.raises(ValueError, match="sheet 'Example C': formula cell B13 has no cached value"):
        sheets.save_sheets([sheet], tmp_path / "c.xlsx")
    lone = Sheet(name="Lone")
    lone.set("A1", None, "=1+1")
    with pytest.raises(ValueError, match="formula cell A1 has no cached value"):
        sheets.save_sheets([lone], tmp_path / "lone.xlsx")
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_text_results_are_stored_as_text(written):
    cached = values_of(written["D"], ["E5", "F5", "G5"])
    assert cached == {"E5": "no (unanswerable)", "F5": "excluded", "G5": "excluded"}


# --- command line -------------------------------------------------------------


def cli(*args: str, module: str = "helpers.sheet") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def in_process(capsys, *args: str) -> tuple[int, str, str]:
    """The command's main() called here (test_layout runs ``python -m helpers.sheet`` itself): status, out, err."""
    status = sheets.main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.slow  # two fresh Pythons: python -m helpers.sheet
def test_cli_writes_refuses_and_checks(tmp_path, capsys):
    path = tmp_path / "c.xlsx"
    first = cli("C", str(path))
    assert first.returncode == 0 and "wrote" in first.stdout and path.is_file()
    status, _, err = in_process(capsys, "C", str(path))
    assert status != 0 and err.count("\n") == 1 and "--force" in err
    assert in_process(capsys, "C", str(path), "--force", "--gain", "exponential")[0] == 0
    status, out, _ = in_process(capsys, "--check", str(path))
    assert status == 0 and "nDCG@5   0.4749" in out
    by_module = cli("--check", str(path), module="helpers.sheet.xlsx")  # the module run directly says the same
    assert by_module.returncode == 0 and by_module.stdout == out


@pytest.mark.parametrize(
    ("args", "message"),
    [(["Z", "z.xlsx"], "unknown example"), (["C", "missing/c.xlsx"], "does not exist"),
     (["C"], "give EXAMPLE and OUT.xlsx"), (["--check", "absent.xlsx"], "no such file"),
     (["--check", "a.xlsx", "C"], "--check takes one workbook")],
)
def test_cli_errors_are_one_line(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    try:
        status = sheets.main(args)
    except SystemExit as stop:  # argparse usage errors
        status = stop.code
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and message in err


def test_cli_check_exit_status_1_on_disagreement(written, tmp_path, capsys):
    path = edit(written["C"], tmp_path / "typed.xlsx", setting("B13", 0.69))
    status, out, _ = in_process(capsys, "--check", str(path))
    assert status == 1 and "B13 (nDCG@k)" in out
