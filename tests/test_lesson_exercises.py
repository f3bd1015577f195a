"""Running an untouched lesson gives nothing away: every exercise is 'not answered yet', no answer shows.

Each lesson 01-09 is executed from a temporary copy as a learner would run it
(Run All, nothing typed in). Its outputs must hold no right verdict, no worked
solution and no expected value of an exercise; and most exercises ask for a
number the lesson itself never prints.
"""

from __future__ import annotations

import json
import math
import re

import pytest

from helpers.exercises import REGISTRY, exercises_of
from tests.notebook_runner import merged_outputs, run_notebook, shared_run

pytestmark = pytest.mark.notebook

LESSONS = [f"0{number}" for number in range(1, 10)]


@pytest.fixture(scope="module", params=LESSONS)
def untouched(request, tmp_path_factory):
    prefix = request.param
    if prefix == "09":  # tests/test_lesson09.py runs its own copy, which saves its data for the test
        notebook, _ = run_notebook(prefix, tmp_path_factory.mktemp(f"untouched{prefix}"))
    else:  # the run the lesson's own module reads too
        notebook, _, _ = shared_run(prefix)
    return prefix, notebook


def outputs_of(cells) -> str:
    parts = []
    for cell in cells:
        for output in merged_outputs(cell):
            parts.append(output.get("text", ""))
            for value in output.get("data", {}).values():
                parts.append(value if isinstance(value, str) else json.dumps(value))
    return "\n".join(parts)


def expected_texts(exercise_id: str) -> list[str]:
    found = REGISTRY[exercise_id]
    if found.kind != "answer":
        return []
    value = found.worked().value
    if not math.isfinite(value):
        return []
    return [f"{value:.{found.decimals}f}"]


def test_no_right_verdict_no_solution_and_every_exercise_not_answered(untouched):
    prefix, notebook = untouched
    text = outputs_of(notebook.cells)
    exercise_text = outputs_of(c for c in notebook.cells if c.metadata.get("tags") == ["exercise"])
    assert "✓" not in exercise_text and "Right:" not in text, f"lesson {prefix} shows a right verdict"
    assert "answer: " not in text and "Solution of" not in text, f"lesson {prefix} shows a worked solution"
    for found in exercises_of(prefix):
        assert f"{found.id}" in text and "Not answered yet" in text


def test_no_expected_value_in_the_exercise_outputs(untouched):
    prefix, notebook = untouched
    exercise_text = outputs_of(c for c in notebook.cells if c.metadata.get("tags") == ["exercise"])
    for found in exercises_of(prefix):
        for expected in expected_texts(found.id):
            assert not re.search(rf"(?<![\d.]){re.escape(expected)}(?!\d)", exercise_text), (found.id, expected)


def test_most_exercises_ask_for_a_number_the_lesson_does_not_print(untouched):
    prefix, notebook = untouched
    text = outputs_of(notebook.cells)
    unprinted = [
        found.id
        for found in exercises_of(prefix)
        if found.kind == "function"
        or any(not re.search(rf"(?<![\d.]){re.escape(t)}(?!\d)", text) for t in expected_texts(found.id))
    ]
    assert len(unprinted) >= 2, f"lesson {prefix}: only {unprinted} ask for a number the lesson does not print"


def simple_fraction(value: float) -> bool:
    """1/4, 2/3, 0.6: shares a lesson cannot help printing somewhere (a grade, a reciprocal rank, a hit rate)."""
    return any(abs(value * d - round(value * d)) < 1e-9 for d in (1, 2, 3, 4, 5, 8, 10))


def test_no_exercise_answer_is_printed_in_its_lesson(untouched):
    """Own work: what an exercise asks is never a figure the lesson already printed (simple fractions aside)."""
    prefix, notebook = untouched
    text = outputs_of(notebook.cells)
    printed = [
        (found.id, written)
        for found in exercises_of(prefix)
        for written in expected_texts(found.id)
        if not simple_fraction(REGISTRY[found.id].worked().value)
        and re.search(rf"(?<![\d.]){re.escape(written)}(?!\d)", text)
    ]
    assert printed == [], f"lesson {prefix} prints the answer of {printed}"
