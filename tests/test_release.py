"""Student copies (python -m helpers.release): clean lessons, no answer given away, the teacher's exercises."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from helpers.exercises import REGISTRY, Exercise, FunctionExercise, register
from helpers.exercises.runner import Case
from helpers.teacher import release
from tests.conftest import registrations_forgotten

ROOT = Path(__file__).resolve().parent.parent


def tagged(cell, tag: str):
    cell.metadata["tags"] = [tag]
    return cell


def lesson(*cells) -> nbformat.NotebookNode:
    notebook = new_notebook(cells=list(cells))
    notebook.metadata["widgets"] = {"state": {"x": 1}}
    return notebook


def test_the_learner_copy_drops_solutions_outputs_and_widget_state():
    code = tagged(new_code_cell("x = 1"), "lesson")
    code.outputs = [nbformat.v4.new_output("stream", text="1")]
    code.execution_count, code.metadata["scrolled"] = 3, True
    notebook = lesson(
        tagged(new_code_cell("from helpers.exercises import check"), "setup"), code,
        tagged(new_code_cell("answer = None\ncheck('explain-rr-mean', answer)"), "exercise"),
        tagged(new_code_cell("check('explain-rr-mean', 0.5667)"), "solution"),
        tagged(new_markdown_cell("## Break it"), "lesson"),
    )
    copy = release.learner_copy(notebook, "01")
    assert [cell.metadata["tags"] for cell in copy.cells] == [["setup"], ["lesson"], ["exercise"], ["lesson"]]
    assert copy.cells[1].outputs == [] and copy.cells[1].execution_count is None
    assert copy.cells[1].metadata == {"tags": ["lesson"]}
    assert copy.metadata == {"helpers": {"lesson": "01"}}


@pytest.mark.parametrize(("source", "tag", "message"), [
    ("check('explain-rr-mean', 0.5667)", "exercise", "gives the answer away"),
    ("check('explain-rr-mean', round(answer, 2))", "exercise", r"check\('explain-rr-mean', round\(answer, 2\)\) gives"),
    ("check('no-such-exercise', answer)", "exercise", "unknown exercise id"),
    ("check('explain-rr-mean', answer)", "lesson", "outside a cell tagged 'exercise'"),
    ("solution('explain-rr-mean')", "lesson", "calls solution"),
    ("x = 1\nreveal('explain-rr-mean')", "exercise", r"calls solution\(\) or reveal\(\)"),
])
def test_a_lesson_that_gives_an_answer_away_is_refused(source, tag, message):
    with pytest.raises(ValueError, match=message):
        release.refuse_solutions(lesson(tagged(new_code_cell(source), tag)), "01_x.ipynb")
    release.refuse_solutions(lesson(tagged(new_code_cell(source), "solution")), "01_x.ipynb")  # dropped anyway


def test_a_check_in_a_comment_or_a_string_is_no_check():
    source = "# check('explain-rr-mean', 0.5667)\nprint(\"check('no-such-exercise', 1)\")"
    release.refuse_solutions(lesson(tagged(new_code_cell(source), "lesson")), "01_x.ipynb")


def test_teachers_exercises_become_tagged_cells_after_the_lessons_own():
    answer = Exercise(id="t-answer", lesson="01", question="How much?", answer=lambda: 0.5, hints=("a", "b"))
    function = FunctionExercise(
        id="t-function", lesson="01", question="Write f.", name="f", hints=("a", "b"),
        cases=lambda: [Case((1, 2), 3.0, "adds")], code="def f(first, second=0, *rest):\n    return first + second",
    )
    notebook = lesson(tagged(new_code_cell("check('explain-rr-mean', answer)"), "exercise"),
                      tagged(new_markdown_cell("## Break it"), "lesson"))
    copy = release.learner_copy(notebook, "01", [answer, function])
    sources = [cell.source for cell in copy.cells]
    assert sources[1].startswith("**Exercise `t-answer`.** How much?")
    assert sources[2].endswith("check('t-answer', answer)") and sources[2].startswith("answer = None")
    assert sources[4].startswith("def f(first, second=0, *rest):\n    raise NotImplementedError")
    assert sources[4].endswith("check_function('t-function', f)") and sources[5] == "## Break it"
    assert all(cell.metadata["tags"] == ["exercise"] for cell in copy.cells[1:5])
    assert release.parameters_of(replace(function, code="f = 1")) == "*args"


def test_teachers_exercises_go_before_the_lessons_closing_more_practice_and_progress_cells():
    from helpers.exercises.new import CLOSING_NOTE, PROGRESS_CELL

    answer = Exercise(id="t-answer", lesson="01", question="How much?", answer=lambda: 0.5, hints=("a", "b"))
    notebook = lesson(tagged(new_code_cell("check('explain-rr-mean', answer)"), "exercise"),
                      tagged(new_markdown_cell(CLOSING_NOTE), "exercise"),
                      tagged(new_code_cell(PROGRESS_CELL.format(lesson="01")), "exercise"),
                      tagged(new_markdown_cell("## Break it"), "lesson"))
    for kind in ("practice", "assignment"):
        sources = [cell.source for cell in release.learner_copy(notebook.copy(), "01", [answer], kind).cells]
        at = sources.index("answer = None  # your answer: a number such as 0.123 (3/8 or 37.5% work too)\n"
                           "check('t-answer', answer)")
        assert sources[at + 1:] == [CLOSING_NOTE, 'from helpers.exercises import progress\n\nprogress(lesson="01")',
                                    "## Break it"], kind


def test_a_lesson_without_a_notebook_gets_one():
    extra = Exercise(id="t-extra", lesson="12", question="q?", answer=lambda: 1.0, hints=("a", "b"))
    notebook = release.extra_notebook("12", [extra])
    assert notebook.cells[0].source.startswith("# 12 · Exercises")
    assert [cell.metadata["tags"] for cell in notebook.cells] == [["lesson"], ["setup"], ["exercise"], ["exercise"]]
    nbformat.validate(notebook)


def test_the_target_folder_is_checked(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("x")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not empty"):
        release.check_target(tmp_path / "full", force=False)
    assert release.check_target(tmp_path / "full", force=True) == (tmp_path / "full").resolve()
    with pytest.raises(ValueError, match="is a file"):
        release.check_target(tmp_path / "file", force=False)
    for inside in (ROOT, ROOT / "notebooks" / "copy", ROOT.parent):
        with pytest.raises(ValueError, match="project's own files"):
            release.check_target(inside, force=True)


def test_a_release_holds_every_lesson_data_helpers_and_a_readme(tmp_path):
    target = tmp_path / "class"
    written = release.release(target, kind="practice")
    assert sorted(path.name[:2] for path in written) == [f"0{n}" for n in range(10)]
    assert {path.name for path in target.iterdir()} == set(release.WRITTEN)
    assert (target / "helpers" / "exercises" / "lessons").is_dir(), "a practice copy holds the key"
    assert not list(target.rglob("__pycache__")) and not list(target.rglob("*.xlsx"))
    for path in written:
        notebook = nbformat.read(path, as_version=4)
        assert notebook.metadata["helpers"]["lesson"] == path.name[:2]
        assert all(not cell.get("outputs") for cell in notebook.cells)
    assert (target / "data" / "example_c" / "judgments.csv").read_bytes() == (
        ROOT / "data" / "example_c" / "judgments.csv"
    ).read_bytes()
    release.release(target, force=True)  # a second release replaces the first: an assignment this time
    assert not (target / "exercises").exists() and not (target / "helpers" / "exercises" / "lessons").exists()
    (target / "notes.txt").write_text("the teacher's own file")
    release.release(target, force=True)
    assert (target / "notes.txt").is_file(), "--force replaces the release's files only"


@pytest.mark.slow  # fresh Pythons
def test_the_command_line(tmp_path, capsys):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    teacher = tmp_path / "mine.py"
    teacher.write_text(
        "from helpers.exercises import Exercise, register\n"
        "register(Exercise(id='cli-extra', lesson='03', question='q?', answer=lambda: 1.0, hints=('a', 'b')))\n"
    )
    done = subprocess.run([sys.executable, "-m", "helpers.release", str(tmp_path / "out"), "--exercises", str(teacher),
                           "--practice"], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    assert "wrote practice copies of 10 notebooks" in done.stdout and "1 from your files" in done.stdout
    assert (tmp_path / "out" / "exercises" / "mine.py").read_text() == teacher.read_text()
    with registrations_forgotten():
        assert release.main([str(tmp_path / "assignment"), "--exercises", str(teacher)]) == 0
    assert not (tmp_path / "assignment" / "exercises").exists(), "the teacher's key stays with the teacher"
    questions = (tmp_path / "assignment" / "helpers" / "exercises" / "questions.json").read_text()
    assert '"cli-extra"' in questions and "lambda" not in questions
    assert release.main([str(tmp_path / "out")]) == 2  # in this process: one start of the command is enough
    assert "not empty" in capsys.readouterr().err


def test_is_teachers_tells_the_lessons_own_exercises_apart():
    assert not any(release.is_teachers(exercise) for exercise in REGISTRY.values())
    try:
        mine = register(Exercise(id="t-mine", lesson="01", question="q?", answer=lambda: 1.0, hints=("a",)))
        assert release.is_teachers(mine)
    finally:
        REGISTRY.pop("t-mine", None)


def test_the_guides_exercise_entry_is_honoured_by_check_and_the_release(tmp_path):
    from helpers.exercises import check, load_extra_exercises

    guide = (ROOT / "docs" / "teachers.md").read_text(encoding="utf-8")
    section = guide.split("## Adding an exercise", 1)[1]
    snippet = section.split("```python\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "my_exercises.py"
    path.write_text(snippet)
    with registrations_forgotten():
        assert load_extra_exercises(str(path)) == ["my-mrr"]
        assert check("my-mrr", 0.7).correct and REGISTRY["my-mrr"].points == 2  # OLD's ranks 1, 2, 1, 4, 1
        # the hit at rank 4 counted: no cut-off, and a cut-off one past the asked one, give the same 0.750
        assert check("my-mrr", "0.750").mistake.split("|") == ["ignored-cutoff", "other-cutoff"]
        assert check("my-mrr", "1.000").mistake == "median-not-mean", "the guide's own slip is named"
        assert "Not right" in check("my-mrr", "0.875").message
        copy = release.learner_copy(nbformat.read(release.lesson_notebooks()["01"], as_version=4), "01",
                                    [REGISTRY["my-mrr"]])
        assert sum("check('my-mrr', answer)" in cell.source for cell in copy.cells) == 1


def test_the_assignment_copy_s_pyproject_drops_the_key_and_fails_loudly_when_it_cannot():
    import tomllib

    from helpers.teacher.keyless import keyless_pyproject

    text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8")
    setuptools = tomllib.loads(keyless_pyproject(text))["tool"]["setuptools"]
    assert "helpers.exercises.lessons" not in setuptools["packages"] and "helpers.exercises" in setuptools["packages"]
    assert setuptools["package-data"]["helpers.exercises"] == ["questions.json"]
    moved = text.replace('"helpers.exercises.lessons", ', "").replace('"helpers.sheet",', '"helpers.sheet",\n    '
                                                                        '"helpers.exercises.lessons",')
    renamed = text.replace("[tool.setuptools.package-data]", "[tool.setuptools.data-files]")
    for changed in (moved, renamed):
        with pytest.raises(ValueError, match="update helpers/teacher/keyless.py"):
            keyless_pyproject(changed)
