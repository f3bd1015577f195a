"""The grader's budgets on real notebooks: CPU time, the wall-clock safety net, and the labels of its limits.

``--timeout`` counts the CPU seconds of all a notebook's processes, so a busy
machine does not spend it; a notebook that loops is ``cpu-time``; one that
only waits meets the wall-clock net and is ``load-timeout``, the grader's side,
graded again by the next plain run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from helpers.exercises import REGISTRY

pytestmark = pytest.mark.notebook

ROOT = Path(__file__).resolve().parent.parent
IMPORT = "from helpers.exercises import check"
RIGHT = f"{REGISTRY['explain-rr-mean'].worked().value:.{REGISTRY['explain-rr-mean'].decimals}f}"


def write_class(submissions: Path, learners: dict[str, list[str]]) -> None:
    for learner, cells in learners.items():
        (submissions / learner).mkdir(parents=True, exist_ok=True)
        notebook = new_notebook(cells=[new_code_cell(source) for source in cells])
        nbformat.write(notebook, submissions / learner / "01_mine.ipynb")


def grade(submissions: Path, out: Path, *options: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(out), *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=out.parent,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def records(out: Path) -> dict[str, dict]:
    found = [json.loads(path.read_text()) for path in (out / "results").glob("*.json")]
    return {record["learner"]: record for record in found}


def problems(record: dict) -> dict[str, str]:
    return {problem["code"]: problem["message"] for problem in record["problems"]}


def points(record: dict) -> float:
    return sum(answer["points"] for answer in record["answers"])


def test_a_busy_loop_is_cpu_time_and_the_time_line_says_what_is_counted(tmp_path):
    write_class(tmp_path / "submissions", {
        "looper": [IMPORT, f"check('explain-rr-mean', {RIGHT!r})", "while True:\n    pass"],
        "forker": [IMPORT, f"check('explain-rr-mean', {RIGHT!r})",  # the CPU of its children counts too
                   "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'while True: pass'])"],
    })
    done = grade(tmp_path / "submissions", tmp_path / "out", "--timeout", "2", "--jobs", "2")
    assert "time: 2 s of CPU time per notebook, all its processes together" in done.stdout
    assert "a wall-clock safety net of 600 s" in done.stdout
    found = records(tmp_path / "out")
    for learner in ("looper", "forker"):
        said = problems(found[learner])
        assert "cpu-time" in said and "timeout" not in said and "load-timeout" not in said, (learner, said)
        assert "over 2 s of CPU time" in said["cpu-time"]
        assert points(found[learner]) == 1.0, "what it answered before the loop counts"
    assert "WARNING" not in done.stdout


def test_a_notebook_that_only_waits_meets_the_net_as_load_timeout_and_is_graded_again(tmp_path):
    write_class(tmp_path / "submissions", {
        "sleeper": [IMPORT, f"check('explain-rr-mean', {RIGHT!r})", "import time\ntime.sleep(600)"],
        "quick": [IMPORT, f"check('explain-rr-mean', {RIGHT!r})"],
    })
    options = ("--timeout", "3", "--wall-timeout", "8", "--jobs", "2")
    first = grade(tmp_path / "submissions", tmp_path / "out", *options)
    found = records(tmp_path / "out")
    said = problems(found["sleeper"])
    assert set(said) == {"load-timeout"}, said
    assert "still running after 8 s of wall-clock time" in said["load-timeout"]
    assert "WARNING: 1 notebook(s) were not graded fairly" in first.stdout and "sleeper/01_mine.ipynb" in first.stdout
    assert points(found["sleeper"]) == 1.0 and problems(found["quick"]) == {}

    again = grade(tmp_path / "submissions", tmp_path / "out", *options)
    assert "1 of 2 notebooks unchanged" in again.stdout and "grading 1" in again.stdout
    regraded = records(tmp_path / "out")
    assert regraded["quick"]["graded_at"] == found["quick"]["graded_at"], "a fair record stands"
    assert "load-timeout" in problems(regraded["sleeper"]) and "WARNING" in again.stdout


def test_rerunning_only_the_grader_sides_records_needs_no_other_flag(tmp_path):
    from helpers.teacher import grade as grader
    from helpers.teacher.results import NotebookResult, Problem
    from helpers.teacher.submissions import Submission

    submission = Submission(Path("a.ipynb"), "a", "a.ipynb", b"{}")
    stored = NotebookResult("a", "a.ipynb", sandbox="bwrap", fingerprint="f1")
    assert grader.reusable(stored, submission, "f1", "bwrap") == ""
    for code in ("load-timeout", "grader-error"):
        stored.problems = [Problem(code, "x")]
        assert grader.reusable(stored, submission, "f1", "bwrap") != ""
    stored.problems = [Problem("timeout", "an earlier grader's wall-clock limit")]
    assert grader.reusable(stored, submission, "f1", "bwrap") == "", "a plain run keeps it"
    assert grader.reusable(stored, submission, "f1", "bwrap", grader.MAYBE_GRADER_SIDE) != ""
    stored.problems = [Problem("cpu-time", "x")]
    assert grader.reusable(stored, submission, "f1", "bwrap", grader.MAYBE_GRADER_SIDE) == "", "the notebook's own"


BOMB = ("blocks = []\nwhile True:\n    try:\n        blocks.append(b'\\x01' * (32 * 1024**2))\n"
        "    except MemoryError:\n        pass")


@pytest.mark.parametrize("kind", ["auto", "process"])
def test_a_memory_bomb_is_memory_limit_never_a_time_limit(tmp_path, kind):
    # it takes memory until the limit, then holds there and spins: stopped for time, reported for its memory
    write_class(tmp_path / "submissions", {"bomber": [IMPORT, f"check('explain-rr-mean', {RIGHT!r})", BOMB]})
    grade(tmp_path / "submissions", tmp_path / "out", "--timeout", "3", "--memory", "1536", "--limits", kind)
    said = problems(records(tmp_path / "out")["bomber"])
    assert "memory-limit" in said and "1536 MB" in said["memory-limit"], said
    assert not {"timeout", "cpu-time", "load-timeout"} & set(said), said
    assert points(records(tmp_path / "out")["bomber"]) == 1.0
