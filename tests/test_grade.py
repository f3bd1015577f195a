"""Tests of the teacher's grader, helpers.grade: one real run over a folder of learner notebooks."""

from __future__ import annotations

import csv
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from helpers.teacher import grade
from helpers.teacher.grade import NOTEBOOK, Row

pytestmark = pytest.mark.notebook  # every test here runs lesson notebooks in a kernel

PROJECT = Path(__file__).resolve().parent.parent
TIMEOUT = 5  # seconds per notebook (the others need about 1 s): the endless one is stopped after this

IMPORT = "from helpers.exercises import check, check_function"
MRR = "def mrr(first_ranks):\n    return sum(1 / r for r in first_ranks if r) / len(first_ranks)"
SUBMISSIONS = {
    "good": [IMPORT, "check('old-mrr', 0.5)", "check('old-mrr', '0,750')", MRR,
             "check_function('mrr-function', mrr, timeout=2)"],
    "wrong": [IMPORT, "check('sheet-ndcg5', '0.690')", "check('advisor-mrr4', 0.667)"],
    "raising": [IMPORT, "check('old-mrr', 0.75)", "1 / 0", "check('new-mrr', '0.417')"],
    "endless": [IMPORT, "check('old-mrr', 0.75)", "while True:\n    pass", "check('new-mrr', '0.417')"],
    "class/writer": ["open('answers.txt', 'w').write('0.75')", "print('and no check at all')"],
}


def make_submissions(folder: Path) -> None:
    """The learner notebooks of the test, plus one file that is not JSON and one checkpoint copy."""
    for name, cells in SUBMISSIONS.items():
        path = folder / f"{name}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(new_notebook(cells=[new_code_cell(source) for source in cells]), path)
    (folder / "broken.ipynb").write_text("{ this is not json", encoding="utf-8")
    checkpoint = folder / ".ipynb_checkpoints" / "good-checkpoint.ipynb"
    checkpoint.parent.mkdir()
    checkpoint.write_text("{}", encoding="utf-8")


def tree_hash(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Run ``python -m helpers.grade`` once over the test folder (about 12 s, 5 of them the endless loop)."""
    base = tmp_path_factory.mktemp("grading")
    submissions, elsewhere, temp = base / "submissions", base / "cwd", base / "tmp"
    for folder in (submissions, elsewhere, temp):
        folder.mkdir()
    make_submissions(submissions)
    before = tree_hash(submissions)
    out = base / "out" / "grades.csv"
    env = {**os.environ, "TMPDIR": str(temp)}
    env.pop(grade.LOG_ENV, None)
    command = [
        sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(out),
        "--timeout", str(TIMEOUT), "--expect", "old-mrr,new-mrr",
    ]
    run = subprocess.run(command, cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120)
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {"run": run, "rows": rows, "before": before, "after": tree_hash(submissions),
            "elsewhere": elsewhere, "temp": temp}


def rows_of(graded, learner: str) -> dict[str, dict]:
    """The CSV rows of one learner, keyed by exercise (notebook rows keyed by their mistake code)."""
    rows = [row for row in graded["rows"] if row["learner"] == learner]
    return {row["mistake"] if row["exercise"] == NOTEBOOK else row["exercise"]: row for row in rows}


def test_the_run_finishes_and_prints_a_summary(graded):
    run = graded["run"]
    assert run.returncode == 0, run.stderr
    assert "learner" in run.stdout and "not_attempted" in run.stdout
    assert "rows written to" in run.stdout
    assert list(graded["rows"][0]) == ["learner", "exercise", "correct", "mistake", "message"]


def test_good_notebook(graded):
    rows = rows_of(graded, "good")
    assert set(rows) == {"old-mrr", "mrr-function", "new-mrr"}
    assert rows["old-mrr"]["correct"] == "True"  # the last check counts
    assert rows["mrr-function"]["correct"] == "True"
    assert rows["new-mrr"]["mistake"] == "not-attempted"


def test_wrong_notebook_names_the_mistakes(graded):
    rows = rows_of(graded, "wrong")
    assert rows["sheet-ndcg5"]["correct"] == "False"
    assert rows["sheet-ndcg5"]["mistake"] == "retrieved-only-ideal"
    assert rows["advisor-mrr4"]["mistake"] == "hit-rate-for-mrr+dropped-misses"
    assert "two different mistakes" in rows["advisor-mrr4"]["message"]


def test_broken_json(graded):
    rows = rows_of(graded, "broken")
    assert "not a valid notebook" in rows["invalid-notebook"]["message"]
    assert rows["invalid-notebook"]["exercise"] == NOTEBOOK
    assert rows["invalid-notebook"]["correct"] == "False"


def test_raising_notebook_runs_on(graded):
    rows = rows_of(graded, "raising")
    assert "cell 3 raised ZeroDivisionError" in rows["raised"]["message"]
    assert rows["old-mrr"]["correct"] == "True" and rows["new-mrr"]["correct"] == "True"


def test_endless_notebook_is_stopped(graded):
    rows = rows_of(graded, "endless")
    assert f"still running after {TIMEOUT} s" in rows["timeout"]["message"]
    assert rows["old-mrr"]["correct"] == "True"
    assert rows["new-mrr"]["mistake"] == "not-attempted"


def test_file_writing_notebook_without_checks_in_a_subfolder(graded):
    rows = rows_of(graded, "class/writer")
    assert "wrote 1 file(s): answers.txt" in rows["wrote-files"]["message"]
    assert "no check()" in rows["no-checks"]["message"]
    assert rows["old-mrr"]["mistake"] == "not-attempted"
    assert not any("checkpoint" in row["learner"] for row in graded["rows"])


def test_nothing_changes_outside_the_temporary_folders(graded):
    assert graded["after"] == graded["before"]  # the submissions are untouched
    assert not list(graded["elsewhere"].iterdir())  # nothing written in the grader's cwd
    assert not list(graded["temp"].iterdir())  # the temporary folders are removed


# --- the parts that need no kernel ---------------------------------------------------------


def test_read_notebook_rejects_bad_files():
    with pytest.raises(ValueError, match="not a valid notebook"):
        grade.read_notebook(b"{ nope")
    with pytest.raises(ValueError, match="UTF-8"):
        grade.read_notebook(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match="not a valid notebook"):
        grade.read_notebook(b'{"cells": 3}')


def test_outcome_rows_keep_the_last_check_and_mention_reveal():
    entries = [
        {"event": "check", "exercise": "old-mrr", "correct": False, "mistake": None, "message": "no"},
        {"event": "reveal", "exercise": "old-mrr"},
        {"event": "check", "exercise": "old-mrr", "correct": True, "mistake": None, "message": "yes"},
        {"event": "check_function", "exercise": "mrr-function", "correct": False, "mistake": "x",
         "message": "m"},
    ]
    rows = grade.outcome_rows("ann", entries)
    assert rows == [
        Row("ann", "old-mrr", True, None, "yes (reveal() was called for this exercise)"),
        Row("ann", "mrr-function", False, "x", "m"),
    ]
    assert grade.expected_rows("ann", rows, ["old-mrr", "new-mrr"]) == [
        Row("ann", "new-mrr", False, "not-attempted", "this exercise was never checked")
    ]


def test_snapshot_does_not_follow_links(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "link").symlink_to("/dev/zero")
    snap = grade.snapshot(tmp_path)
    assert snap["link"] == "link to /dev/zero" and len(snap["a.txt"]) == 64
    assert grade.written_files(snap, {**snap, "b.txt": "x", "a.txt": "y"}) == ["a.txt", "b.txt"]


def test_unreadable_or_vanished_submission(tmp_path):
    folder = tmp_path / "f.ipynb"
    folder.mkdir()  # a folder named like a notebook cannot be read
    assert grade.grade_notebook(folder, "f", 5)[0].mistake == "invalid-notebook"
    assert not grade.unchanged(tmp_path / "gone.ipynb", "0" * 64)


def test_read_log_skips_garbage(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"event": "check", "exercise": "a", "correct": true}\nnot json\n[1]\n{"exercise": 3}\n')
    assert grade.read_log(log) == [{"event": "check", "exercise": "a", "correct": True}]
    assert grade.read_log(tmp_path / "missing.jsonl") == []


def test_summary_table():
    rows = [
        Row("ann", NOTEBOOK, False, "raised", "cell 2 raised"),
        Row("ann", "old-mrr", True, None, "ok"),
        Row("ann", "new-mrr", False, "not-attempted", "never"),
        Row("bob", "old-mrr", False, "dropped-misses", "no"),
    ]
    table = grade.summary_table(rows).set_index("learner")
    assert table.loc["ann"].tolist() == [1, 1, 0, 1, "raised"]
    assert table.loc["bob"].tolist() == [1, 0, 1, 0, "-"]


def test_command_line_errors(tmp_path, capsys):
    with pytest.raises(SystemExit):
        grade.parse_args([str(tmp_path / "missing"), "--out", "x.csv"])
    with pytest.raises(SystemExit):
        grade.parse_args([str(tmp_path), "--out", "x.csv", "--timeout", "0"])
    with pytest.raises(SystemExit):
        grade.parse_args([str(tmp_path), "--out", "x.csv", "--expect", "old-mrr,typo"])
    assert capsys.readouterr().err.count("typo") == 1
    assert grade.main([str(tmp_path), "--out", str(tmp_path / "g.csv")]) == 1
    assert "no .ipynb" in capsys.readouterr().err
    assert (tmp_path / "g.csv").read_text().strip() == "learner,exercise,correct,mistake,message"
