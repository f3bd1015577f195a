"""Lessons 00-04 run top to bottom and show every figure of worked examples A-D.

Each notebook is executed once, from a temporary copy, by ``shared_run``; its
figures are read back from its variables (and a few from its printed text), and
compared twice: with the worked example's figure written in this file, at the
decimals it prints, and with the same figure computed here, independently,
through ``helpers.metrics`` from ``data/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import helpers
from helpers import load_example, metrics, rank_by_score
from tests.notebook_runner import notebook_path, printed_text, shared_run

pytestmark = pytest.mark.notebook  # every test here runs lesson notebooks in a kernel

ROOT = Path(__file__).resolve().parent.parent


def approx(value, decimals):
    """Equal to the printed figure at its number of decimals."""
    return pytest.approx(value, abs=0.5 * 10**-decimals + 1e-12)


class Lesson:
    """One executed lesson: the notebook, its variables and its printed text."""

    def __init__(self, prefix, variables):
        self.notebook, self.values, self.folder = shared_run(prefix, variables)
        self.text = printed_text(self.notebook)
        self.html = "\n".join(
            output["data"]["text/html"]
            for cell in self.notebook.cells
            for output in cell.get("outputs", [])
            if "text/html" in output.get("data", {})
        )

    def __getitem__(self, name):
        return self.values[name]

    def sources(self, cell_type="code"):
        return [cell.source for cell in self.notebook.cells[:-1] if cell.cell_type == cell_type]


# --- independent figures, computed here from data/ through helpers.metrics ----


def first_ranks(example, system, rankings=None, k=None):
    rankings = rankings or example.rankings(system)
    return [metrics.first_relevant_rank(rankings[q], example.relevant_for(q), k) for q in example.query_ids]


@pytest.fixture(scope="module")
def example_a():
    return load_example("A")


@pytest.fixture(scope="module")
def example_b():
    return load_example("B")


@pytest.fixture(scope="module")
def example_c():
    return load_example("C")


@pytest.fixture(scope="module")
def example_d():
    return load_example("D")


# --- the executed lessons ------------------------------------------------------


@pytest.fixture(scope="module")
def lesson_00():
    return Lesson("00", ["first_taste", "slip_messages"])


def conventions_table() -> list[dict]:
    """The rows of lesson 00's conventions tables (metric by metric, the columns of both joined), from its markdown."""
    cells = json.loads(notebook_path("00").read_text(encoding="utf-8"))["cells"]
    source = next("".join(c["source"]) for c in cells if "".join(c["source"]).startswith("| metric |"))
    blocks = [block.splitlines() for block in re.split(r"\n\s*\n", source) if block.startswith("| metric |")]

    def split(line: str) -> list[str]:
        return [part.strip().replace("\\|", "|") for part in re.split(r"(?<!\\)\|", line)[1:-1]]

    tables = [[dict(zip(split(lines[0]), split(line), strict=True)) for line in lines[2:]] for lines in blocks]
    assert all([row["metric"] for row in rows] == [row["metric"] for row in tables[0]] for rows in tables)
    return [{key: value for row in rows for key, value in row.items()} for rows in zip(*tables, strict=True)]


@pytest.fixture(scope="module")
def lesson_01():
    return Lesson(
        "01",
        [
            "first_ranks",
            "reciprocal_ranks",
            "mrr_old",
            "mrr_new",
            "hit_rate_at_3",
            "score_per_rank",
            "mrr_at_k",
            "broken_new_mrr_at_3",
            "new_mrr_at_3",
            "broken_mrr_from_zero",
        ],
    )


@pytest.fixture(scope="module")
def lesson_02():
    return Lesson(
        "02",
        [
            "gains_b",
            "discounts",
            "dcg_b",
            "ideal_b",
            "ndcg_b",
            "dcg_arithmetic",
            "sheet_b_cells",
            "dcg_b_exponential",
            "ideal_b_exponential",
            "ndcg_b_exponential",
            "no_discount",
        ],
    )


@pytest.fixture(scope="module")
def lesson_03():
    return Lesson(
        "03",
        [
            "grades_c",
            "missed_c",
            "discounted_gains_c",
            "ideal_grades_c",
            "ideal_discounted_gains_c",
            "dcg5_c",
            "idcg5_c",
            "ndcg5_c",
            "ndcg5_c_returned_only",
            "exponential_c",
            "worksheet_shown",
            "helpdesk_first_ranks",
            "helpdesk_reciprocal_ranks",
            "helpdesk_mrr",
            "helpdesk_mrr_at_2",
            "broken_log2_rank",
        ],
    )


@pytest.fixture(scope="module")
def lesson_04():
    return Lesson(
        "04",
        [
            "advisor_mrr4",
            "advisor_hit4",
            "advisor_first_hits",
            "advisor_reciprocal_ranks",
            "score_per_rank",
            "advisor_mrr4_with_unanswerable",
            "advisor_hit4_with_unanswerable",
            "advisor_mrr4_by_tie_break",
            "d2_top_4",
            "advisor_mrr_no_cutoff",
            "advisor_first_ranks_no_cutoff",
            "broken_advisor_mrr4",
            "broken_advisor_hit4",
        ],
    )


@pytest.fixture(scope="module")
def lessons(lesson_00, lesson_01, lesson_02, lesson_03, lesson_04):
    return {"00": lesson_00, "01": lesson_01, "02": lesson_02, "03": lesson_03, "04": lesson_04}


# --- every lesson -----------------------------------------------------------------


PREFIXES = ["00", "01", "02", "03", "04"]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_lesson_runs_every_cell_to_the_end(lessons, prefix):
    """Every code cell ran, none raised (how long a lesson takes is measured by benchmarks/time_notebooks.py)."""
    code = [cell for cell in lessons[prefix].notebook.cells if cell.cell_type == "code"]
    assert code and all(cell.execution_count for cell in code)
    assert not [output for cell in code for output in cell.outputs if output.output_type == "error"]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_lesson_has_the_lesson_shape(prefix):
    cells = json.loads(notebook_path(prefix).read_text(encoding="utf-8"))["cells"]
    markdown = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    code = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    assert re.match(rf"# {prefix} · \S", "".join(cells[0]["source"]))
    for heading in (
        "## Try it yourself",
        "## Break it on purpose",
        "## Myths vs facts",
        "## Remember",
        "## Done when",
    ):
        assert heading in markdown, f"lesson {prefix} has no {heading!r} section"
    assert "\n%matplotlib inline\n" in code[0], "the first code cell is the set-up cell (after the collection's check)"
    assert not any("sys.path" in source for source in code), "helpers is installed: no sys.path tricks"
    for number in range(1, len(cells)):
        if cells[number]["cell_type"] == "code":
            assert cells[number - 1]["cell_type"] == "markdown", (
                f"lesson {prefix}: code cell {number} is not introduced by a markdown cell"
            )










@pytest.mark.parametrize(
    "prefix, widget",
    [("01", "mrr_control"), ("02", "ndcg_control"), ("03", "worksheet_control")],
)
def test_widget_cell_comes_before_try_it_yourself(prefix, widget):
    cells = json.loads(notebook_path(prefix).read_text(encoding="utf-8"))["cells"]
    sources = ["".join(cell["source"]) for cell in cells]
    widget_cell = sources.index(f"from helpers.widgets import {widget}\n\n{widget}()")
    try_it = next(i for i, source in enumerate(sources) if "## Try it yourself" in source)
    assert widget_cell < try_it


@pytest.mark.parametrize("prefix, letter", [("01", "A"), ("02", "B"), ("03", "C"), ("04", "D")])
def test_lesson_saves_its_example_as_a_spreadsheet(lessons, prefix, letter):
    lesson = lessons[prefix]
    call = f'save_example_workbook("{letter}", "example_{letter.lower()}.xlsx")'
    assert any(call in source for source in lesson.sources())
    assert (lesson.folder / f"example_{letter.lower()}.xlsx").is_file()


# --- 00 start here ---------------------------------------------------------------


def test_00_first_taste_matches_example_a(lesson_00, example_a):
    for system, mrr, hit_rate in (("OLD", 0.750, 0.800), ("NEW", 0.417, 0.800)):
        ranks = first_ranks(example_a, system)
        assert lesson_00["first_taste"][system]["mrr"] == approx(mrr, 3)
        assert lesson_00["first_taste"][system]["mrr"] == pytest.approx(metrics.mean_reciprocal_rank(ranks))
        assert lesson_00["first_taste"][system]["hit_rate"] == approx(hit_rate, 3)
        assert f"{system}: hit rate at 3 {hit_rate:.3f}   MRR {mrr:.3f}" in lesson_00.text


def test_00_shows_the_readme_commands(lesson_00):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if ".venv/bin/jupyter lab" in line)
    markdown = "\n".join(lesson_00.sources("markdown"))
    assert command.strip() in markdown
    assert "python -m helpers.teacher.classroom 05" in markdown


def test_00_map_links_the_ten_lessons_named_in_the_readme(lesson_00):
    markdown = "\n".join(lesson_00.sources("markdown"))
    linked = re.findall(r"\]\((\d\d_\w+)\.ipynb\)", markdown)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert sorted(set(linked)) == [
        f"{number:02d}_{name}"
        for number, name in (
            (0, "start_here"),
            (1, "hit_rate_and_mrr"),
            (2, "dcg_and_ndcg_by_hand"),
            (3, "the_ndcg_spreadsheet"),
            (4, "mrr_at_4_for_a_retrieval_advisor"),
            (5, "metrics_lab"),
            (6, "the_metric_family"),
            (7, "common_mistakes"),
            (8, "how_libraries_compute_it"),
            (9, "from_golden_set_to_benchmark"),
        )
    ]
    for name in linked:
        assert f"`{name}`" in readme, f"{name} is not in the README's lesson table"
    for prefix in PREFIXES:
        assert notebook_path(prefix).stem in linked


def test_00_conventions_name_real_helpers():
    rows = {row["metric"]: row for row in conventions_table()}
    assert len(rows) == len(conventions_table()) >= 10
    for row in rows.values():
        names = re.findall(r"(?:^|, )([A-Za-z_]+)(?=\(|,|$)", row["helpers"])
        assert names, row["metric"]
        for name in names:
            assert hasattr(helpers, name) or hasattr(metrics, name), f"helpers has no {name}"


def test_00_conventions_name_real_trec_eval_measures():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rows = {row["metric"]: row["trec_eval (pytrec_eval)"] for row in conventions_table()}
    expected = {
        "Hit rate@k": ["success"],
        "Reciprocal rank, MRR": ["recip_rank"],
        "Precision@k": ["P"],
        "Recall@k": ["recall"],
        "AP@k, MAP": ["map", "map_cut"],
        "nDCG@k, linear gain": ["ndcg_cut"],
    }
    for metric, measures in expected.items():
        for measure in measures:
            assert re.search(rf"(^|, ){measure}(\.k)?\b", rows[metric]), (metric, measure)
            assert measure in pytrec_eval.supported_measures
    assert rows["MRR@k"].startswith("none")


def test_00_conventions_name_real_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    rows = {row["metric"]: row["ir_measures"] for row in conventions_table()}
    expected = {
        "Hit rate@k": ["Success@k"],
        "Reciprocal rank, MRR": ["RR"],
        "MRR@k": ["RR@k"],
        "Precision@k": ["P@k"],
        "Recall@k": ["R@k"],
        "AP@k, MAP": ["AP", "AP@k"],
        "nDCG@k, linear gain": ["nDCG@k"],
        "nDCG@k, exponential gain": ["nDCG(gains={0:0,1:1,2:3,3:7})@k", "nDCG(dcg='exp-log2')@k"],
        "Relevance threshold": ["RR(rel=2)@k"],
    }
    for metric, names in expected.items():
        for name in names:
            assert name in rows[metric], (metric, name)
            ir_measures.parse_measure(name.replace("@k", "@5"))


def test_00_conventions_name_real_scikit_learn_functions():
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    text = " ".join(row["scikit-learn"] for row in conventions_table())
    for name in ("top_k_accuracy_score", "average_precision_score", "dcg_score", "ndcg_score"):
        assert name in text and hasattr(sklearn_metrics, name)


def lesson_00_markdown() -> str:
    cells = json.loads(notebook_path("00").read_text(encoding="utf-8"))["cells"]
    return " ".join(" ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown").split())


def test_00_myth_five_questions_cannot_show_more_than_chance(example_a):
    """Myth table: on example A the exact sign-flip test gives p = 0.125; 2/32 is the floor of five questions."""
    from helpers.batch.comparison import randomization_test, wilcoxon_test

    text = lesson_00_markdown()
    rr = {system: [metrics.reciprocal_rank_of(rank) for rank in first_ranks(example_a, system)]
          for system in example_a.systems}
    differences = [new - old for old, new in zip(rr["OLD"], rr["NEW"], strict=True)]
    assert len(differences) == 5
    p = randomization_test(differences, n_resamples=10_000)  # 2**5 patterns: exact
    assert p == 0.125 and "exact sign-flip test of lesson 09 gives p = 0.125" in text
    assert wilcoxon_test(differences) == pytest.approx(0.125)
    floor = randomization_test([0.5] * 5)  # every difference the same sign: the smallest p five questions allow
    assert floor == 2 / 32 == 0.0625 and "2/32 = 0.0625" in text


def test_00_says_which_lessons_save_a_spreadsheet_and_where_the_numbers_come_from():
    text = lesson_00_markdown()
    assert "*Save this as a spreadsheet* (lessons 01 to 04)" in text
    saving = sorted(path.name[:2] for path in (ROOT / "notebooks").glob("*.ipynb")
                    if "save_example_workbook(" in path.read_text(encoding="utf-8"))
    assert saving == ["01", "02", "03", "04"]
    assert "nothing is typed in" not in text
    assert "ml_metrics' `apk` does" in text  # test_library_claims quotes apk's source: min(len(actual), k)
    assert "gdeval.pl, which takes numeric query ids only: it fails on every golden set here" in text
    assert "`-m ndcg_cut.5`" in text and "`ndcg_cut_5`" in text


def test_00_break_it_shows_four_refusals(lesson_00):
    messages = lesson_00["slip_messages"]
    assert len(messages) == 4
    assert messages["nDCG of a query with nothing relevant"].startswith("UndefinedMetricError")


# --- 01 hit rate and MRR (example A) ---------------------------------------------


@pytest.mark.parametrize(
    "system, ranks, reciprocal, mrr",
    [
        ("OLD", [1, 2, 1, 4, 1], [1.000, 0.500, 1.000, 0.250, 1.000], 0.750),
        ("NEW", [2, 3, 2, 4, 2], [0.500, 0.333, 0.500, 0.250, 0.500], 0.417),
    ],
)
def test_01_first_ranks_reciprocal_ranks_mrr_and_hit_rate(
    lesson_01, example_a, system, ranks, reciprocal, mrr
):
    assert lesson_01["first_ranks"][system] == ranks == first_ranks(example_a, system)
    assert lesson_01["reciprocal_ranks"][system] == [approx(value, 3) for value in reciprocal]
    shown_mrr = lesson_01["mrr_old"] if system == "OLD" else lesson_01["mrr_new"]
    assert shown_mrr == approx(mrr, 3)
    assert shown_mrr == pytest.approx(metrics.mean_reciprocal_rank(first_ranks(example_a, system)))
    assert lesson_01["hit_rate_at_3"][system] == approx(0.800, 3)
    assert lesson_01["hit_rate_at_3"][system] == metrics.mean_hit_rate(ranks, k=3)
    assert f"{system} first relevant at: {', '.join(map(str, ranks))}" in lesson_01.text
    assert f"{system} reciprocal ranks: {', '.join(f'{value:.3f}' for value in reciprocal)}" in lesson_01.text
    assert f"{system} MRR {mrr:.3f}  hit rate at 3 0.800" in lesson_01.text


def test_01_score_per_rank(lesson_01):
    assert lesson_01["score_per_rank"] == [approx(value, 2) for value in (1.00, 0.50, 0.33, 0.25, 0)]
    assert "rank 1: 1.00  rank 2: 0.50  rank 3: 0.33  rank 4: 0.25  miss: 0" in lesson_01.text


def test_01_mrr_at_k(lesson_01, example_a):
    for system in example_a.systems:
        ranks = first_ranks(example_a, system)
        for k in range(1, 6):
            assert lesson_01["mrr_at_k"][system][str(k)] == pytest.approx(
                metrics.mean_reciprocal_rank(ranks, k)
            )
    assert lesson_01["mrr_at_k"]["OLD"]["5"] == approx(0.750, 3)
    assert lesson_01["mrr_at_k"]["NEW"]["5"] == approx(0.417, 3)






def test_01_break_it(lesson_01, example_a):
    ranks = first_ranks(example_a, "NEW")
    kept = [rank for rank in ranks if 1 <= rank <= 3]
    assert lesson_01["broken_new_mrr_at_3"] == pytest.approx(metrics.mean_reciprocal_rank(kept))
    assert lesson_01["new_mrr_at_3"] == pytest.approx(metrics.mean_reciprocal_rank(ranks, k=3))
    assert lesson_01["broken_new_mrr_at_3"] > lesson_01["new_mrr_at_3"]
    # counting from 0 makes every top hit a "miss": the worse system wins
    broken = lesson_01["broken_mrr_from_zero"]
    assert broken["OLD"] < broken["NEW"]
    zero_based = {
        system: [rank - 1 for rank in first_ranks(example_a, system)] for system in example_a.systems
    }
    for system, ranks in zero_based.items():
        assert broken[system] == pytest.approx(metrics.mean_reciprocal_rank(ranks))


# --- 02 DCG and nDCG by hand (example B) -----------------------------------------


B_TABLE = {  # ordering: gains, DCG, nDCG (ideal 4.2619), exponential nDCG
    "good": ([3, 2, 0, 0, 0], 4.2619, 1.0000, 1.0000),
    "swapped": ([2, 0, 3, 0, 0], 3.5000, 0.8212, 0.7309),
    "pushed_down": ([0, 0, 0, 2, 3], 2.0219, 0.4744, 0.4498),
}


@pytest.fixture(scope="module")
def b_judged(example_b):
    return example_b.judgments_for("b1")


@pytest.mark.parametrize("system", list(B_TABLE))
def test_02_the_three_orderings(lesson_02, example_b, b_judged, system):
    gains, dcg, ndcg, ndcg_exponential = B_TABLE[system]
    grades = metrics.grades_in_rank_order(example_b.ranking(system, "b1"), b_judged)
    assert lesson_02["gains_b"][system] == gains == grades
    assert lesson_02["dcg_b"][system] == approx(dcg, 4)
    assert lesson_02["dcg_b"][system] == pytest.approx(metrics.dcg(grades, 5))
    assert lesson_02["ideal_b"] == approx(4.2619, 4)
    assert lesson_02["ideal_b"] == pytest.approx(metrics.ideal_dcg(list(b_judged.values()), 5))
    assert lesson_02["ndcg_b"][system] == approx(ndcg, 4)
    assert lesson_02["ndcg_b"][system] == pytest.approx(
        metrics.ndcg(grades, 5, ideal=list(b_judged.values()))
    )
    assert lesson_02["ndcg_b_exponential"][system] == approx(ndcg_exponential, 4)
    assert lesson_02["ndcg_b_exponential"][system] == pytest.approx(
        metrics.ndcg(grades, 5, ideal=list(b_judged.values()), gain="exponential")
    )
    shown = ", ".join(map(str, gains))
    line = f"{system:<12} gains {shown}  DCG {dcg:.4f}  ideal 4.2619  nDCG {ndcg:.4f}"
    assert line in lesson_02.text


def test_02_discounts_and_the_printed_arithmetic(lesson_02):
    assert lesson_02["discounts"] == [approx(value, 3) for value in (1, 1.585, 2, 2.322, 2.585)]
    assert "discounts for ranks 1 to 5: 1, 1.585, 2, 2.322, 2.585" in lesson_02.text
    assert lesson_02["dcg_arithmetic"]["swapped"] == "2/1 + 0/1.585 + 3/2 = 3.5000"
    assert "2/1 + 0/1.585 + 3/2 = 3.5000" in lesson_02.text


def test_02_spreadsheet_view_of_the_swapped_ordering(lesson_02):
    cells = lesson_02["sheet_b_cells"]
    assert [cells[f"C{row}"] for row in range(2, 7)] == ["2", "0", "3", "0", "0"]
    assert [cells[f"D{row}"] for row in range(2, 7)] == ["1.000", "1.585", "2.000", "2.322", "2.585"]
    assert [cells[f"E{row}"] for row in range(2, 7)] == ["2.000", "0.000", "1.500", "0.000", "0.000"]
    assert [cells[f"F{row}"] for row in range(2, 7)] == ["3", "2", "0", "0", "0"]
    assert (cells["B8"], cells["B9"], cells["B10"]) == ("3.5000", "4.2619", "0.8212")
    for formula in ("=LOG(A2+1,2)", "=C2/D2", "=F2/D2", "=SUM(E2:E6)", "=B8/B9"):
        assert formula in lesson_02.html


def test_02_exponential_gain(lesson_02):
    assert lesson_02["ideal_b_exponential"] == approx(8.8928, 4)
    expected = {"good": 8.8928, "swapped": 6.5000, "pushed_down": 4.0000}
    for system, value in expected.items():
        assert lesson_02["dcg_b_exponential"][system] == approx(value, 4)


def test_02_break_it_no_discount(lesson_02):
    for system, figures in lesson_02["no_discount"].items():
        assert figures == {"dcg": approx(5.0, 4), "ideal": approx(5.0, 4), "ndcg": approx(1.0, 4)}
        assert "DCG 5.0000  ideal 5.0000  nDCG 1.0000" in lesson_02.text
        assert figures["dcg"] == metrics.cumulative_gain(lesson_02["gains_b"][system], 5)








# --- 03 the nDCG spreadsheet (example C) -----------------------------------------


C_ROWS = [  # row: rank, grade, discounted gain, ideal grade, ideal DG
    (2, "1", "2", "2.000", "3", "3.000"),
    (3, "2", "0", "0.000", "3", "1.893"),
    (4, "3", "3", "1.500", "2", "1.000"),
    (5, "4", "1", "0.431", "2", "0.861"),
    (6, "5", "0", "0.000", "1", "0.387"),
    (7, "6", "2", "0.712", "0", "0.000"),
]


@pytest.fixture(scope="module")
def c_query(example_c):
    judgments = example_c.judgments_for("reset-password")
    ranked = example_c.ranking("search", "reset-password")
    return ranked, judgments


def test_03_worksheet_rows_2_to_8_exactly(lesson_03):
    shown = lesson_03["worksheet_shown"]
    assert [shown[f"{column}1"] for column in "ABCDE"] == [
        "Rank",
        "Relevance (0–3)",
        "Discounted gain",
        "Ideal relevance",
        "Ideal DG",
    ]
    for row, *values in C_ROWS:
        assert [shown[f"{column}{row}"] for column in "ABCDE"] == values
    assert (shown["A8"], shown["B8"], shown["C8"]) == ("missed", "3", "")


def test_03_worksheet_totals(lesson_03, example_c, c_query):
    shown = lesson_03["worksheet_shown"]
    assert [(shown[f"A{row}"], shown[f"B{row}"]) for row in range(10, 14)] == [
        ("Cut-off k", "5"),
        ("DCG@k", "3.931"),
        ("IDCG@k", "7.141"),
        ("NDCG@k", "0.550"),
    ]
    ranked, judgments = c_query
    grades = metrics.grades_in_rank_order(ranked, judgments)
    assert lesson_03["grades_c"] == grades == [2, 0, 3, 1, 0, 2]
    assert lesson_03["missed_c"] == [3]
    assert lesson_03["dcg5_c"] == approx(3.931, 3) == metrics.dcg(grades, 5)
    assert lesson_03["idcg5_c"] == approx(7.141, 3)
    assert lesson_03["idcg5_c"] == pytest.approx(metrics.ideal_dcg(list(judgments.values()), 5))
    assert lesson_03["ndcg5_c"] == approx(0.550, 3)
    assert lesson_03["ndcg5_c"] == pytest.approx(metrics.query_ndcg(ranked, judgments, 5))
    assert "NDCG@5 = 3.931 / 7.141 = 0.550" in lesson_03.text


def test_03_columns_built_by_hand(lesson_03):
    assert lesson_03["discounted_gains_c"] == [approx(float(row[3]), 3) for row in C_ROWS]
    assert lesson_03["ideal_grades_c"] == [int(row[4]) for row in C_ROWS]
    assert lesson_03["ideal_discounted_gains_c"] == [approx(float(row[5]), 3) for row in C_ROWS]


def test_03_the_retrieved_only_ideal_mistake(lesson_03, c_query):
    ranked, judgments = c_query
    assert lesson_03["ndcg5_c_returned_only"] == approx(0.690, 3)
    assert lesson_03["ndcg5_c_returned_only"] == pytest.approx(
        metrics.query_ndcg(ranked, judgments, 5, ideal="returned")
    )
    assert (
        "NDCG@5: 0.550 with every judged article in the ideal, 0.690 with the returned ones only"
        in lesson_03.text
    )


def test_03_exponential_gain(lesson_03, c_query):
    ranked, judgments = c_query
    figures = lesson_03["exponential_c"]
    assert figures["dcg5"] == approx(6.931, 3)
    assert figures["idcg5"] == approx(14.595, 3)
    assert figures["ndcg5"] == approx(0.475, 3)
    assert figures["ndcg5"] == pytest.approx(metrics.query_ndcg(ranked, judgments, 5, gain="exponential"))
    assert figures["ndcg5_returned_only"] == approx(0.640, 3)
    assert "DCG@5 6.931  IDCG@5 14.595  NDCG@5 0.475 (returned-only ideal: 0.640)" in lesson_03.text


def test_03_helpdesk_mrr_block(lesson_03, example_c):
    ranks = first_ranks(example_c, "search")
    assert lesson_03["helpdesk_first_ranks"] == ranks == [1, 3, 2, 0, 1]
    assert lesson_03["helpdesk_reciprocal_ranks"] == [
        approx(v, 3) for v in (1.000, 0.333, 0.500, 0.000, 1.000)
    ]
    assert lesson_03["helpdesk_mrr"] == approx(0.567, 3)
    assert lesson_03["helpdesk_mrr"] == pytest.approx(metrics.mean_reciprocal_rank(ranks))
    assert lesson_03["helpdesk_mrr_at_2"] == approx(0.500, 3)
    assert lesson_03["helpdesk_mrr_at_2"] == pytest.approx(metrics.mean_reciprocal_rank(ranks, k=2))
    shown = lesson_03["worksheet_shown"]
    assert [shown[f"B{row}"] for row in range(16, 21)] == ["1", "3", "2", "none", "1"]
    assert [shown[f"C{row}"] for row in range(16, 21)] == ["1.000", "0.333", "0.500", "0.000", "1.000"]
    assert (shown["A21"], shown["C21"], shown["A23"], shown["C23"]) == ("MRR", "0.567", "MRR@k", "0.500")


def test_03_shows_the_source_formulas(lesson_03):
    for formula in (
        "=B2/LOG(A2+1,2)",
        "=LARGE($B$2:$B$8,A2)",
        "=D2/LOG(A2+1,2)",
        "=IFERROR(1/B16,0)",
        "=AVERAGE(C16:C20)",
        "=(2^B2-1)/LOG(A2+1,2)",
    ):
        assert formula in lesson_03.html, formula


def test_03_break_it(lesson_03):
    assert lesson_03["broken_log2_rank"].startswith("ZeroDivisionError")


# --- 04 MRR@4 for a retrieval advisor (example D) --------------------------------


@pytest.fixture(scope="module")
def d_answerable(example_d):
    return [q for q in example_d.query_ids if example_d.relevant_for(q)]


def d_mrr(example, rankings, questions, k):
    ranks = [metrics.first_relevant_rank(rankings[q], example.relevant_for(q)) for q in questions]
    return metrics.mean_reciprocal_rank(ranks, k), metrics.mean_hit_rate(ranks, k)


def test_04_mrr4_and_hit4(lesson_04, example_d, d_answerable):
    assert d_answerable == ["d1", "d2", "d3"]
    mrr4, hit4 = d_mrr(example_d, example_d.rankings("advisor"), d_answerable, 4)
    assert lesson_04["advisor_mrr4"] == approx(0.444, 3) == mrr4
    assert f"{lesson_04['advisor_mrr4']:.2f}" == "0.44"
    assert lesson_04["advisor_hit4"] == approx(0.667, 3) == hit4
    assert f"{lesson_04['advisor_hit4']:.2f}" == "0.67"
    assert "MRR@4 0.444 (shown as 0.44)  Hit@4 0.667 (shown as 0.67)" in lesson_04.text


def shown_rows(html: str) -> list[list[str]]:
    """Every row of every table in the lesson's HTML output, as the texts of its cells."""
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.S)
    return [[re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in rows]


def test_04_per_question_table(lesson_04):
    assert lesson_04["advisor_first_hits"] == [1, 3, 0]
    assert lesson_04["advisor_reciprocal_ranks"] == [approx(v, 2) for v in (1.00, 0.33, 0.00)]
    rows = shown_rows(lesson_04.html)
    assert ["d1", "1", "1.00", "1"] in rows
    assert ["d2", "3", "0.33", "1"] in rows
    assert ["d3", "none", "0.00", "0"] in rows
    assert ["mean", "", "0.44 (MRR@4)", "0.67"] in rows


def test_04_score_per_rank(lesson_04):
    assert lesson_04["score_per_rank"] == [approx(value, 2) for value in (1.00, 0.50, 0.33, 0.25, 0)]
    assert "rank 1: 1.00  rank 2: 0.50  rank 3: 0.33  rank 4: 0.25  miss: 0" in lesson_04.text


def test_04_unanswerable_question_kept(lesson_04, example_d):
    mrr4, hit4 = d_mrr(example_d, example_d.rankings("advisor"), example_d.query_ids, 4)
    assert lesson_04["advisor_mrr4_with_unanswerable"] == approx(0.333, 3) == mrr4
    assert lesson_04["advisor_hit4_with_unanswerable"] == approx(0.500, 3) == hit4


def test_04_ties_broken_by_chunk_id(lesson_04, example_d, d_answerable):
    by_tie_break = lesson_04["advisor_mrr4_by_tie_break"]
    assert by_tie_break["id_ascending"] == approx(0.444, 3)
    assert by_tie_break["id_descending"] == approx(0.500, 3)
    for tie_break, value in by_tie_break.items():
        run = rank_by_score(example_d.runs, tie_break=tie_break)
        rankings = {
            q: run[run["query_id"] == q].sort_values("rank")["doc_id"].tolist() for q in example_d.query_ids
        }
        assert value == pytest.approx(d_mrr(example_d, rankings, d_answerable, 4)[0])
        assert lesson_04["d2_top_4"][tie_break] == rankings["d2"][:4]
    assert lesson_04["d2_top_4"]["id_descending"][1] == "c-0215"


def test_04_without_the_cutoff(lesson_04, example_d, d_answerable):
    assert lesson_04["advisor_first_ranks_no_cutoff"] == [1, 3, 5]
    assert lesson_04["advisor_mrr_no_cutoff"] == approx(0.511, 3)
    ranks = [
        metrics.first_relevant_rank(example_d.ranking("advisor", q), example_d.relevant_for(q))
        for q in d_answerable
    ]
    assert lesson_04["advisor_mrr_no_cutoff"] == pytest.approx(metrics.mean_reciprocal_rank(ranks))
    # the off-by-one slice lets rank 5 in: it gives the no-cut-off figure
    assert lesson_04["broken_advisor_mrr4"] == pytest.approx(lesson_04["advisor_mrr_no_cutoff"])
    assert lesson_04["broken_advisor_hit4"] == approx(1.0, 3)
