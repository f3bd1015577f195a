"""The rules of a lesson's exercise cells, read statically (quick tier): what the release, the grader and a
contributor's new exercise rely on.

- every registered exercise of a lesson has one markdown cell and, right after it, one code cell, both tagged
  ``exercise``; the code cell holds the line ``check("id", answer)`` (or ``check_function("id", name)``) exactly;
- the lesson checks exactly its registered exercises, nothing else;
- every cell has one role, the first code cell is the setup; cell ids are unique;
- no cell calls check with a value or shows a solution.
"""

from __future__ import annotations

import json
import re

import pytest

from helpers.exercises import exercises_of
from helpers.exercises.calls import check_calls, ids_checked
from helpers.teacher.release import lesson_notebooks
from helpers.teacher.roles import ROLES
from tests.notebook_runner import notebook_path

LESSONS = sorted(lesson for lesson in lesson_notebooks() if lesson != "00")


def cells_of(prefix: str) -> list[dict]:
    return json.loads(notebook_path(prefix).read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


@pytest.mark.parametrize("prefix", LESSONS)
def test_the_lesson_checks_exactly_its_registered_exercises(prefix):
    cells = json.loads(notebook_path(prefix).read_text(encoding="utf-8"))["cells"]
    checked = [found for cell in cells if cell["cell_type"] == "code" for found in ids_checked(source(cell))]
    registered = [found.id for found in exercises_of(prefix)]
    assert sorted(checked) == sorted(registered), "one check cell per exercise of the lesson, nothing else"
    assert len(registered) >= 3


@pytest.mark.parametrize("prefix", ["00", *LESSONS])
def test_every_cell_has_one_role(prefix):
    cells = json.loads(notebook_path(prefix).read_text(encoding="utf-8"))["cells"]
    for number, cell in enumerate(cells):
        tags = set(cell["metadata"].get("tags", [])) & set(ROLES)
        assert len(tags) == 1, f"lesson {prefix}, cell {number}: roles {tags or 'none'}"
    first_code = next(cell for cell in cells if cell["cell_type"] == "code")
    assert first_code["metadata"]["tags"] == ["setup"]
    for cell in cells:
        if cell["cell_type"] == "code" and ids_checked(source(cell)):
            assert cell["metadata"]["tags"] == ["exercise"]


@pytest.mark.parametrize("prefix", LESSONS)
def test_no_cell_calls_check_with_a_value_or_shows_a_solution(prefix):
    code = "\n".join(
        "".join(cell["source"])
        for cell in json.loads(notebook_path(prefix).read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
    )
    for call in check_calls(code):
        said = f"lesson {prefix}: check is called with {call.argument!r}"
        assert call.function != "check" or call.passes_answer, said
    assert not re.search(r"^\s*(solution|reveal|hint)\(", code, flags=re.M), "solutions only on demand"


def exercise_cell_problems(cells: list[dict], exercises) -> list[str]:
    """What is wrong with the exercise cells of a lesson for these registered exercises ([] when all is well)."""
    problems = []
    for found in exercises:
        line = f'check("{found.id}", answer)'
        if found.kind == "function":
            line = f'check_function("{found.id}", {found.name})'
        holders = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and line in source(c).splitlines()]
        if len(holders) != 1:
            problems.append(f"{found.id}: {len(holders)} code cells hold the line {line} (one is needed)")
            continue
        index = holders[0]
        if cells[index]["metadata"].get("tags") != ["exercise"]:
            problems.append(f"{found.id}: its code cell is not tagged exercise")
        question = cells[index - 1] if index else {}
        if question.get("cell_type") != "markdown" or question.get("metadata", {}).get("tags") != ["exercise"]:
            problems.append(f"{found.id}: no markdown cell tagged exercise right before its code cell")
    return problems


@pytest.mark.parametrize("prefix", LESSONS)
def test_each_exercise_has_its_question_cell_and_its_answer_cell(prefix):
    assert exercise_cell_problems(cells_of(prefix), exercises_of(prefix)) == []


def test_a_registered_exercise_without_its_cells_fails_the_quick_tier():
    from helpers.exercises import Exercise

    missing = Exercise(id="new-one", lesson="03", question="q?", answer=lambda: 0.5, hints=("a",))
    assert exercise_cell_problems(cells_of("03"), [missing]) == [
        'new-one: 0 code cells hold the line check("new-one", answer) (one is needed)'
    ]
    cells = cells_of("03")
    answer_cell = next(i for i, c in enumerate(cells) if 'check("sheet-ndcg3", answer)' in source(c))
    cells[answer_cell - 1]["metadata"]["tags"] = ["lesson"]
    assert exercise_cell_problems(cells, exercises_of("03"))[0].startswith("sheet-ndcg3: no markdown cell")


@pytest.mark.parametrize("prefix", ["00", *LESSONS])
def test_cell_ids_are_unique(prefix):
    ids = [cell.get("id") for cell in cells_of(prefix)]
    assert all(ids) and len(set(ids)) == len(ids)
