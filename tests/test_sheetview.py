"""The spreadsheet view: letters, row numbers, inputs, formulas, and example C's worksheet."""

import pytest

from helpers import load_example, metrics
from helpers.sheet import Sheet, column_letter, frame_to_sheet, mrr_worksheet, ndcg_worksheet, split_ref


def test_column_letters_and_references():
    assert [column_letter(n) for n in (1, 2, 26, 27, 52)] == ["A", "B", "Z", "AA", "AZ"]
    assert split_ref("B10") == (10, 2)
    with pytest.raises(ValueError, match="not a cell reference"):
        split_ref("10B")
    with pytest.raises(ValueError, match="whole number >= 1"):
        column_letter(0)


def test_formulas_must_start_with_equals():
    with pytest.raises(ValueError, match="must start with '='"):
        Sheet().set("A1", 1, formula="B2/2")


@pytest.fixture(scope="module")
def worksheet():
    example = load_example("C")
    judgments = example.judgments_for("reset-password")
    ranking = example.ranking("search", "reset-password")
    grades = metrics.grades_in_rank_order(ranking, judgments)
    missed = [grade for doc, grade in judgments.items() if doc not in ranking and grade > 0]
    sheet = ndcg_worksheet(grades, missed, k=5)
    labels = ["reset password", "export invoices", "change plan", "webhook retries", "add a user"]
    ranks = [
        metrics.first_relevant_rank(example.ranking("search", q), example.relevant_for(q))
        for q in example.query_ids
    ]
    return mrr_worksheet(labels, ranks, k=2, start_row=15, sheet=sheet)


def test_example_c_worksheet_has_the_sources_cells(worksheet):
    sheet = worksheet
    assert [sheet.value(f"{c}1") for c in "ABCDE"] == [
        "Rank",
        "Relevance (0–3)",
        "Discounted gain",
        "Ideal relevance",
        "Ideal DG",
    ]
    assert [sheet.value(f"B{r}") for r in range(2, 9)] == [2, 0, 3, 1, 0, 2, 3]
    assert [sheet.cell(f"C{r}").shown() for r in range(2, 8)] == [
        "2.000",
        "0.000",
        "1.500",
        "0.431",
        "0.000",
        "0.712",
    ]
    assert [sheet.value(f"D{r}") for r in range(2, 8)] == [3, 3, 2, 2, 1, 0]
    assert [sheet.cell(f"E{r}").shown() for r in range(2, 8)] == [
        "3.000",
        "1.893",
        "1.000",
        "0.861",
        "0.387",
        "0.000",
    ]
    assert sheet.value("A8") == "missed"
    assert (sheet.value("A10"), sheet.value("B10")) == ("Cut-off k", 5)
    assert [sheet.cell(f"B{r}").shown() for r in (11, 12, 13)] == ["3.931", "7.141", "0.550"]
    assert sheet.formula("C2") == "=B2/LOG(A2+1,2)"
    assert sheet.formula("D2") == "=LARGE($B$2:$B$8,A2)"
    assert sheet.formula("C16") == "=IFERROR(1/B16,0)"
    assert [sheet.value(f"B{r}") for r in range(16, 21)] == [1, 3, 2, "none", 1]
    assert [sheet.cell(f"C{r}").shown() for r in range(16, 21)] == [
        "1.000",
        "0.333",
        "0.500",
        "0.000",
        "1.000",
    ]
    assert sheet.value("A21") == "MRR" and sheet.cell("C21").shown() == "0.567"
    assert sheet.cell("C23").shown() == "0.500"
    assert "B2" in sheet.input_refs() and "B10" in sheet.input_refs() and "C2" not in sheet.input_refs()


def test_html_shows_letters_row_numbers_inputs_and_formulas(worksheet):
    worksheet.show_formulas = True
    page = worksheet.to_html()
    worksheet.show_formulas = False
    assert "<th>A</th>" in page and "<th class='row-number'>13</th>" in page
    assert "<td class='number input'>2</td>" in page
    assert "=B2/LOG(A2+1,2)</div>" in page and ">0.550<" in page
    assert "=B2/LOG(A2+1,2)</div>" not in worksheet.to_html()  # formulas only on demand
    assert "title='=B2/LOG(A2+1,2)'" in worksheet.to_html()  # but always as a tooltip


def test_exponential_worksheet_matches_the_helpers():
    sheet = ndcg_worksheet([2, 0, 3, 1, 0, 2], [3], k=5, gain="exponential")
    assert sheet.formula("C2") == "=(2^B2-1)/LOG(A2+1,2)"
    assert sheet.value("B13") == pytest.approx(
        metrics.ndcg([2, 0, 3, 1, 0, 2], 5, [2, 0, 3, 1, 0, 2, 3], "exponential")
    )


def test_all_zero_grades_show_undefined():
    sheet = ndcg_worksheet([0, 0], [], k=2)
    assert (sheet.value("A8"), sheet.value("B8")) == ("NDCG@k", "undefined")
    assert sheet.formula("B8") == '=IF(B7=0,"undefined",B6/B7)'


def test_gain_row_names_the_gain_and_the_switch_is_an_input_only_in_the_workbook():
    lesson = ndcg_worksheet([2, 0, 3, 1, 0, 2], [3], k=5, gain="exponential")
    assert (lesson.value("A9"), lesson.value("B9")) == ("Gain", "exponential")
    assert "B9" not in lesson.input_refs() and lesson.names == {}
    switch = ndcg_worksheet([2, 0, 3, 1, 0, 2], [3], k=5, gain="exponential", gain_switch=True)
    assert "B9" in switch.input_refs() and switch.names == {"Gain": "B9"}
    assert switch.formula("C2") == '=IF(Gain="exponential",2^B2-1,B2)/LOG(A2+1,2)'
    assert switch.value("B13") == pytest.approx(lesson.value("B13"))


def test_mrr_block_with_a_cutoff_has_a_reciprocal_rank_at_k_column(worksheet):
    assert worksheet.value("D15") == "Reciprocal rank @k"
    assert worksheet.formula("D16") == "=IF(AND(ISNUMBER(B16),B16<=$B$22),C16,0)"
    assert [worksheet.value(f"D{row}") for row in range(16, 21)] == pytest.approx([1, 0, 0.5, 0, 1])
    assert (worksheet.value("A22"), worksheet.value("B22")) == ("Cut-off k (MRR@k)", 2)
    assert worksheet.formula("C23") == "=AVERAGE(D16:D20)"
    alone = mrr_worksheet(["a", "b"], [2, 0])
    assert alone.n_columns == 3 and alone.value("C4") == pytest.approx(0.25)
    with pytest.raises(ValueError, match="same length"):
        mrr_worksheet(["a"], [1, 2])


def test_frame_to_sheet_puts_the_header_in_row_1():
    table = metrics.arithmetic_table([3, 2], ideal=[3, 2])[["rank", "grade", "discounted_gain"]]
    sheet = frame_to_sheet(
        table, formulas={"discounted_gain": "=B{row}/LOG(A{row}+1,2)"}, input_columns=["grade"]
    )
    assert sheet.value("A1") == "rank" and sheet.value("B3") == 2.0
    assert sheet.formula("C3") == "=B3/LOG(A3+1,2)"
    assert sheet.input_refs() == ["B2", "B3"]
    assert sheet.to_frame().loc[3, "C"] == pytest.approx(2 / metrics.discount(2))
    with pytest.raises(ValueError, match="no column named 'gian'"):
        frame_to_sheet(table, input_columns=["gian"])


def test_a_cutoff_past_the_returned_list_still_counts_the_whole_ideal():
    sheet = ndcg_worksheet([2, 0], missed=[3, 3], k=4)
    assert [sheet.value(f"A{row}") for row in range(2, 8)] == [1, 2, 3, 4, "missed", "missed"]
    assert sheet.value("B4") is None and sheet.value("C4") is None  # rank 3: nothing was returned there
    assert [sheet.value(f"D{row}") for row in range(2, 6)] == [3, 3, 2, 0]
    assert sheet.formula("D5") == "=LARGE($B$2:$B$7,A5)"
    assert (sheet.value("A9"), sheet.value("B9")) == ("Cut-off k", 4)
    assert sheet.formula("B11") == "=SUMPRODUCT((A2:A5<=B9)*E2:E5)"
    assert sheet.value("B11") == pytest.approx(metrics.ideal_dcg([2, 0, 3, 3], 4))
    assert sheet.value("B12") == pytest.approx(metrics.ndcg([2, 0], 4, ideal=[2, 0, 3, 3]))
    assert sheet.input_refs() == ["B2", "B3", "B6", "B7", "B9"]
