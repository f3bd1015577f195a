"""Every exercise of the lessons is finished, says the precision it is judged at, and sits where it is numbered
(quick tier): what a contributor's new exercise must pass, each fault named in one message.

- no TODO is left anywhere in an exercise's entry (question, hints, solution code, the functions computing its
  answer, slips or cases) or in its two cells;
- the precision a question states ("Give 4 decimals (3 are accepted)") is the one the checker judges at
  (``decimals``, ``min_decimals``);
- a lesson asks its exercises after its "Try it yourself" heading, in the order the register lists them, their
  questions numbered 1, 2, 3, ... in that order.

The register itself refuses a misspelt slip and a slip that gives the right answer when a lesson module is
imported (tests/test_register.py); tests/conftest.py imports it before any test, so that fault stops the run
with its own message once.
"""

from __future__ import annotations

import inspect
import json
import re
from types import SimpleNamespace

import pytest

from helpers.exercises import REGISTRY, Exercise
from helpers.exercises.calls import ids_checked
from helpers.teacher.release import lesson_notebooks
from tests.notebook_runner import notebook_path

TODO = re.compile(r"\bTODO\b")
STATED = re.compile(r"\b(\d+) decimals?\b")
ACCEPTED = re.compile(r"\((\d+) (?:are|is) accepted\)")
NUMBERED = re.compile(r"^\*\*(\d+)\. ")


def from_the_lessons(exercise) -> bool:
    """True for an exercise registered by a module of helpers.exercises.lessons (not a teacher's file)."""
    computed_by = exercise.answer if isinstance(exercise, Exercise) else exercise.cases
    return getattr(inspect.getmodule(computed_by), "__name__", "").startswith("helpers.exercises.lessons")


LESSON_EXERCISES = {found.id: found for found in REGISTRY.values() if from_the_lessons(found)}
LESSONS = sorted(lesson for lesson in lesson_notebooks() if lesson != "00")


def cells_of(lesson: str) -> list[dict]:
    return [
        {**cell, "source": "".join(cell["source"])}
        for cell in json.loads(notebook_path(lesson).read_text(encoding="utf-8"))["cells"]
    ]


def exercise_cells(exercise) -> list[dict]:
    """The exercise's answer cell and the question cell right before it (none if the lesson lacks them)."""
    cells = cells_of(exercise.lesson) if exercise.lesson in LESSONS else []
    for index, cell in enumerate(cells):
        if cell["cell_type"] == "code" and exercise.id in ids_checked(cell["source"]):
            return cells[max(index - 1, 0): index + 1]
    return []


def todo_places(exercise) -> list[str]:
    """Where a TODO is left in an exercise's entry and cells."""
    parts = {"its question": exercise.question, "its hints": "\n".join(exercise.hints), "its solution code":
             exercise.code}
    for name in ("answer", "slips", "cases"):
        function = getattr(exercise, name, None)
        if callable(function):
            try:
                parts[f"its {name} function ({function.__name__})"] = inspect.getsource(function)
            except (OSError, TypeError):
                pass
    for cell in exercise_cells(exercise):
        parts[f"its {'question' if cell['cell_type'] == 'markdown' else 'answer'} cell in the lesson"] = cell["source"]
    return [f"{where} ({next(line.strip() for line in text.splitlines() if TODO.search(line))!r})"
            for where, text in parts.items() if TODO.search(text)]


@pytest.mark.parametrize("exercise_id", sorted(LESSON_EXERCISES))
def test_no_todo_is_left_in_the_exercise(exercise_id):
    places = todo_places(LESSON_EXERCISES[exercise_id])
    assert not places, f"exercise {exercise_id!r} still has a TODO in " + "; ".join(places)


def precision_problem(exercise) -> str:
    """What the question says about decimals that the checker does not judge by ('' when they agree)."""
    stated, accepted = STATED.search(exercise.question), ACCEPTED.search(exercise.question)
    fewest = exercise.min_decimals if exercise.min_decimals != exercise.decimals else None
    if stated and int(stated.group(1)) != exercise.decimals:
        return (f"its question says {stated.group(0)!r} but it is judged at decimals={exercise.decimals}: make the "
                "two agree")
    if accepted and fewest is None:
        return f"its question says {accepted.group(0)!r} but min_decimals is not set: set it, or drop the words"
    if accepted and int(accepted.group(1)) != fewest:
        return f"its question says {accepted.group(0)!r} but min_decimals={fewest}: make the two agree"
    if stated and fewest is not None and not accepted:
        return f"it accepts {fewest} decimals (min_decimals) but its question does not say so: add '({fewest} are " \
            "accepted)'"
    return ""


@pytest.mark.parametrize("exercise_id", sorted(i for i, e in LESSON_EXERCISES.items() if isinstance(e, Exercise)))
def test_the_question_states_the_precision_it_is_judged_at(exercise_id):
    problem = precision_problem(LESSON_EXERCISES[exercise_id])
    assert not problem, f"exercise {exercise_id!r}: {problem}"


def placement_problems(cells: list[dict], registered: list[str]) -> list[str]:
    """Where a lesson's exercise cells are not in the register's order, numbered 1, 2, 3, ..., after its heading."""
    problems = []
    asked = [(index, found) for index, cell in enumerate(cells) if cell["cell_type"] == "code"
             for found in ids_checked(cell["source"])]
    if [found for _, found in asked] != registered:
        problems.append(f"the lesson asks {', '.join(found for _, found in asked)} but the register lists "
                        f"{', '.join(registered)}: put the cells (or the entries) in the same order")
    heading = next((index for index, cell in enumerate(cells) if cell["cell_type"] == "markdown"
                    and cell["source"].startswith("## Try it yourself")), None)
    early = [found for index, found in asked if heading is not None and index < heading]
    if early:
        problems.append(f"{', '.join(early)} come(s) before the 'Try it yourself' heading: move the cells below it")
    numbers = [int(found.group(1)) for cell in cells if cell["cell_type"] == "markdown"
               and "exercise" in cell["metadata"].get("tags", []) and (found := NUMBERED.match(cell["source"]))]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"its exercise questions are numbered {', '.join(map(str, numbers))}: number them 1 to "
                        f"{len(numbers)} in order")
    return problems


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_lesson_asks_its_exercises_in_order_numbered_in_order(lesson):
    registered = [found.id for found in LESSON_EXERCISES.values() if found.lesson == lesson]
    problems = placement_problems(cells_of(lesson), registered)
    assert not problems, f"lesson {lesson}: " + "; ".join(problems)


# --- each check can fail -----------------------------------------------------------------------------------------


def scaffolded_answer() -> float:
    """x-new: DCG@3 of the worksheet's list."""
    return 1.0  # TODO: compute the inputs from the data


def test_a_todo_left_anywhere_is_found():
    scaffolded = Exercise(id="x-new", lesson="03", question="Example C: what is DCG@3? Give 3 decimals.",
                          answer=scaffolded_answer, hints=("a nudge", "TODO: the method"), code="dcg(grades, 3)")
    assert todo_places(scaffolded) == [
        "its hints ('TODO: the method')",
        "its answer function (scaffolded_answer) ('return 1.0  # TODO: compute the inputs from the data')",
    ]


def test_a_precision_the_question_does_not_say_is_found():
    def asked(question: str, decimals: int = 3, min_decimals: int | None = None) -> str:
        # an entry as a contributor could leave it (Exercise itself rewrites its question's last sentence)
        return precision_problem(SimpleNamespace(question=question, decimals=decimals, min_decimals=min_decimals))

    assert asked("Give 3 decimals.", decimals=2).startswith("its question says '3 decimals' but it is judged at")
    assert asked("Give 4 decimals (3 are accepted).", decimals=4).startswith("its question says '(3 are accepted)'")
    assert asked("Give 4 decimals.", decimals=4, min_decimals=3).startswith("it accepts 3 decimals")
    assert asked("Give 4 decimals (2 are accepted).", decimals=4, min_decimals=3) != ""
    assert asked("Give 4 decimals (3 are accepted).", decimals=4, min_decimals=3) == ""
    written = Exercise(id="x-new", lesson="03", question="What is DCG@3? Give 3 decimals.", answer=lambda: 1.0,
                       hints=("a",), decimals=2)
    assert written.question == "What is DCG@3? Give 2 decimals." and precision_problem(written) == ""


def test_an_exercise_out_of_place_is_found():
    cells = cells_of("03")
    registered = [found.id for found in LESSON_EXERCISES.values() if found.lesson == "03"]
    assert placement_problems(cells, registered) == []
    answer = next(i for i, cell in enumerate(cells) if f'check("{registered[1]}", answer)' in cell["source"])
    moved = cells[:answer - 1] + cells[answer + 1:]
    heading = next(i for i, cell in enumerate(moved) if cell["source"].startswith("## Try it yourself"))
    moved[heading:heading] = cells[answer - 1: answer + 1]  # the old scaffold's place: above the heading
    said = placement_problems(moved, registered)
    asked = [registered[1], registered[0], *registered[2:]]
    assert said[0].startswith(f"the lesson asks {', '.join(asked)} but the register lists")
    assert said[1].startswith(f"{registered[1]} come(s) before the 'Try it yourself' heading")
    assert said[2].startswith("its exercise questions are numbered 2, 1, 3")
