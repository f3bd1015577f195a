"""How the lessons lay out their tables and tasks, read statically from the notebooks (quick tier, no kernel).

- a table with a 1-based rank column shows no 0-based index beside it;
- every markdown table fits a 1366 px screen with JupyterLab's file browser open (no sideways scrolling);
- each numbered task of a lesson is a paragraph of its own.
"""

from __future__ import annotations

import json
import re

import pytest

from helpers.teacher.release import lesson_notebooks
from tests.notebook_runner import notebook_path

LESSONS = sorted(lesson_notebooks())
TABLE_CALL = re.compile(r"\btable\((.*)\)\s*$", re.M)
# a frame with a rank column counted from 1: the arithmetic table, or a column named "rank"
RANK_COLUMN = re.compile(r"""arithmetic_table\(|["']rank["']\s*:""")
RANK_AS_INDEX = re.compile(r"""set_index\(\s*["']rank["']|name\s*=\s*["']rank["']|index\s*=\s*["']rank["']""")
TASK = re.compile(r"^\*\*\d+\.", re.M)
# a markdown cell's width at 1366 px with the file browser open (906 px measured);
# the average width of a character of JupyterLab's 13 px table font, rounded up
NOTEBOOK_PX = 900
CHAR_PX = 7.5
CELL_PADDING_PX = 13


def cells_of(prefix: str, kind: str) -> list[tuple[int, str]]:
    """(number, source) of the lesson's cells of one kind."""
    cells = json.loads(notebook_path(prefix).read_text(encoding="utf-8"))["cells"]
    return [(number, "".join(cell["source"])) for number, cell in enumerate(cells) if cell["cell_type"] == kind]


def markdown_tables(text: str) -> list[list[list[str]]]:
    """The markdown tables of a cell, each as rows of cell texts (header first, links as their text)."""
    found = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.splitlines() if line.startswith("|")]
        if len(lines) >= 2 and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[1]):
            rows = [re.split(r"(?<!\\)\|", line)[1:-1] for line in lines[:1] + lines[2:]]
            found.append([[re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", cell).strip() for cell in row] for row in rows])
    return found


def narrowest_px(rows: list[list[str]]) -> float:
    """The least width a table can take: every column as wide as its longest word, plus padding."""
    columns = range(len(rows[0]))
    longest = [max((len(word) for row in rows for word in row[column].split()), default=0) for column in columns]
    return sum(longest) * CHAR_PX + len(longest) * CELL_PADDING_PX


def test_the_width_estimate_sees_a_table_too_wide():
    wide = [[f"column_{n}_header" for n in range(8)], ["mean_reciprocal_rank(first_ranks, k)"] * 8]
    assert narrowest_px(wide) > NOTEBOOK_PX
    assert markdown_tables("| a | [b](x.ipynb) |\n|---|---|\n| 1 | 2 |") == [[["a", "b"], ["1", "2"]]]


@pytest.mark.parametrize("prefix", LESSONS)
def test_no_zero_based_index_beside_a_rank_column(prefix):
    for number, source in cells_of(prefix, "code"):
        if RANK_COLUMN.search(source) and not RANK_AS_INDEX.search(source):
            calls = TABLE_CALL.findall(source)
            assert all("index=False" in call for call in calls), f"lesson {prefix}, cell {number}: {calls}"


@pytest.mark.parametrize("prefix", LESSONS)
def test_every_markdown_table_fits_a_laptop_screen_with_the_file_browser_open(prefix):
    tables = [(number, rows) for number, source in cells_of(prefix, "markdown") for rows in markdown_tables(source)]
    too_wide = [(number, rows[0], narrowest_px(rows)) for number, rows in tables if narrowest_px(rows) > NOTEBOOK_PX]
    assert too_wide == []


@pytest.mark.parametrize("prefix", LESSONS)
def test_each_numbered_task_is_a_paragraph_of_its_own(prefix):
    for number, source in cells_of(prefix, "markdown"):
        for paragraph in re.split(r"\n\s*\n", source):
            assert len(TASK.findall(paragraph)) <= 1, f"lesson {prefix}, cell {number}: {paragraph[:80]!r}"
