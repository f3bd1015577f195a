"""Assignment copies and the grader's kernel: the questions without the answer key (release --assignment).

An assignment copy holds ``helpers`` without :mod:`helpers.exercises.lessons`
and with ``questions.json``; ``check`` there records what it read and never
judges. These tests write such copies and run a Python inside them, as a
learner's kernel (or the grader's) would.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from helpers.exercises import REGISTRY, Exercise, FunctionExercise
from helpers.exercises.answers import correctly_rounded
from helpers.teacher import release
from helpers.teacher.keyless import copy_course

ROOT = Path(__file__).resolve().parent.parent


def run_in(folder: Path, code: str, log: Path | None = None) -> dict:
    """Run code, from a file as a cell's source would be, with ``folder`` first on the path; its JSON output."""
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(folder), "PYTHONDONTWRITEBYTECODE": "1",
           "MPLBACKEND": "Agg", **({"HELPERS_CHECK_LOG": str(log)} if log else {})}
    script = folder.parent / f"snippet-{abs(hash(code))}.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=folder,
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def assignment(tmp_path_factory):
    target = tmp_path_factory.mktemp("assignment") / "class"
    release.release(target, kind="assignment")
    return target


@pytest.fixture(scope="module")
def practice(tmp_path_factory):
    target = tmp_path_factory.mktemp("practice") / "class"
    release.release(target, kind="practice")
    return target


def key_texts(exercise: Exercise) -> set[str]:
    """An answer at its precision, as it could be written anywhere: every correct rounding, 0.594 and .594."""
    value = exercise.worked().value
    texts = {str(d) for d in correctly_rounded(value, exercise.decimals)}
    return texts | {text.lstrip("0") for text in texts if text.startswith("0.")}


def simple_fraction(value: float) -> bool:
    """1/4, 2/3, 0.5 (and 'undefined'): values a copy cannot avoid holding (a grade, a share, a reciprocal rank)."""
    if not math.isfinite(value):
        return True
    return any(abs(value * d - round(value * d)) < 1e-9 for d in (1, 2, 3, 4, 5, 8, 10))


def test_an_assignment_copy_holds_no_expected_value_and_no_solution(assignment):
    files = [path for path in assignment.rglob("*") if path.is_file()]
    assert not (assignment / "helpers" / "exercises" / "lessons").exists()
    assert not (assignment / "exercises").exists()
    text = "\n".join(path.read_text(encoding="utf-8", errors="replace") for path in files)
    for exercise in REGISTRY.values():
        if isinstance(exercise, FunctionExercise):
            for case in exercise.cases():  # judged to 1e-6: the value at 6 decimals (worked-example figures
                # such as IDCG 4.2619 are taught in the lesson itself, at 4)
                assert f"{case.expected:.6f}" not in text or simple_fraction(case.expected), exercise.id
            body = exercise.code.strip().splitlines()[1:]  # the def line is the template's too
            assert not body or "\n".join(body) not in text, f"{exercise.id}: its solution code is in the copy"
            continue
        if simple_fraction(exercise.worked().value):
            continue
        for written in key_texts(exercise):
            found = re.search(rf"(?<![\d.]){re.escape(written)}(?!\d)", text)
            assert found is None, f"{exercise.id}: {written} is in the assignment copy"
        if exercise.code:
            assert exercise.code not in text, f"{exercise.id}: its solution code is in the copy"


def test_the_copy_says_what_it_promises(assignment, practice):
    assert "does not say whether it is right" in (assignment / "README.md").read_text()
    assert "says whether it is right" in (practice / "README.md").read_text()
    notebook = nbformat.read(next((assignment / "notebooks").glob("03_*.ipynb")), as_version=4)
    assert "Assignment copy" in notebook.cells[1].source
    questions = json.loads((assignment / "helpers" / "exercises" / "questions.json").read_text())["questions"]
    assert {q["id"] for q in questions} == set(REGISTRY)
    assert all(q["hints"] == [] for q in questions), "hints only with --hints"
    assert (practice / "helpers" / "exercises" / "lessons").is_dir()
    assert not (practice / "helpers" / "exercises" / "questions.json").exists()


@pytest.mark.slow  # a fresh Python on the keyless copy
def test_check_in_an_assignment_records_and_never_judges(assignment, tmp_path):
    log = tmp_path / "log.jsonl"
    right = f"{REGISTRY['sheet-ndcg3'].worked().value:.3f}"
    said = run_in(assignment, f"""
import json
from helpers.exercises import check, hint, solution, exercise, list_exercises, REGISTRY, is_assignment_copy
from helpers.exercises import reveal, check_function
out = {{"mode": is_assignment_copy(), "registry": len(REGISTRY)}}
for given in ({right!r}, "0.5", "59.4%", "1/3", "undefined", None, "abc"):
    result = check("sheet-ndcg3", given)
    out[str(given)] = [result.verdict.name, result.message, result.correct]
out["hint"] = repr(hint("sheet-ndcg3"))
out["solution"] = repr(solution("sheet-ndcg3"))
try:
    reveal("sheet-ndcg3")
except ValueError as error:
    out["reveal"] = str(error)
out["function"] = repr(check_function("mrr-function", lambda ranks: 0.0))
out["exercises"] = len(list_exercises("03"))
try:
    import helpers.exercises.lessons
    out["key"] = "importable"
except ImportError:
    out["key"] = "absent"
print(json.dumps(out))
""", log)
    assert said["mode"] is True and said["registry"] == 0 and said["key"] == "absent"
    assert said[right][:1] == ["RECORDED"] and said["0.5"][0] == "RECORDED"
    assert said[right][1] == f"Recorded: {right}, a number with 3 decimals. The grader judges it after you hand in."
    assert "asks for 3 decimals" in said["0.5"][1]
    assert "exact fraction" in said["1/3"][1] and "'undefined'" in said["undefined"][1]
    assert said["None"][0] == "NOT_ANSWERED" and said["abc"][0] == "UNREADABLE"
    assert not any(value[2] for key, value in said.items() if isinstance(value, list)), "never right"
    assert "without hints" in said["hint"] and "assignment copy" in said["solution"]
    assert "no answers to reveal" in said["reveal"] and "hidden cases after you hand in" in said["function"]
    assert said["exercises"] == len([e for e in REGISTRY.values() if e.lesson == "03"])
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["given"]["text"] for e in events if e["event"] == "check"][:2] == [right, "0.5"]
    assert {"event": "check_function", "exercise": "mrr-function", "kept": True} in events


@pytest.mark.slow  # a fresh Python on the keyless copy
def test_hints_travel_only_when_the_teacher_allows_them(tmp_path):
    target = tmp_path / "class"
    release.release(target, kind="assignment", hints=True)
    code = "import json; from helpers.exercises import hint; print(json.dumps(repr(hint('sheet-ndcg3'))))"
    said = run_in(target, code)
    assert REGISTRY["sheet-ndcg3"].hints[0] in said


@pytest.mark.slow  # a fresh Python on the keyless copy
def test_the_grader_kernel_runs_kept_functions_on_the_inputs_it_is_sent(tmp_path):
    course = copy_course(tmp_path / "course", REGISTRY.values())
    log = tmp_path / "log.jsonl"
    inputs = {"mrr-function": [([1, 2],), ([],)], "dcg-function": [([3, 2],)]}
    run_in(course, f"""
import json
from helpers.exercises import check_function
from helpers.exercises.assignment import run_hidden_cases
def mrr(ranks):
    return sum(1 / r for r in ranks if r) / len(ranks)
check_function("mrr-function", lambda ranks: 1.0)
check_function("mrr-function", mrr)  # the last one given counts
run_hidden_cases({repr(inputs)!r})
print(json.dumps(1))
""", log)
    events = [json.loads(line) for line in log.read_text().splitlines()]
    outputs = [e for e in events if e["event"] == "outputs"]
    assert [e["exercise"] for e in outputs] == ["mrr-function"], "only functions that were given run"
    first, empty = outputs[0]["outputs"]
    assert first["kind"] == "value" and first["value"] == pytest.approx(0.75)
    assert empty["kind"] == "error" and "ZeroDivisionError" in empty["error_types"]


def test_the_repository_is_a_practice_copy():
    from helpers.exercises import check, is_assignment_copy

    assert not is_assignment_copy()
    assert check("sheet-ndcg3", f"{REGISTRY['sheet-ndcg3'].worked().value:.3f}").correct


@pytest.mark.slow  # a fresh Python on the keyless copy
def test_an_untouched_function_template_says_not_answered_yet(assignment):
    said = run_in(assignment, """
import json
from helpers.exercises import check_function
def mrr(first_ranks):
    # your code
    raise NotImplementedError("replace this line with your code")
def mine(first_ranks):
    if not first_ranks:
        raise NotImplementedError("no empty lists in my version")
    return 0.5
print(json.dumps([check_function("mrr-function", mrr).message, check_function("mrr-function", mine).message]))
""")
    assert said[0].startswith("Not answered yet") and said[1].startswith("Recorded: your function mrr.")
