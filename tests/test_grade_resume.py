"""A class graded as a course is: interrupted and resumed, a hand-in changed, graded in shards and merged.

One class of 12 tiny hand-ins (11 learners, one with two hand-ins; a roster of 13 in a manifest, so two
learners have no hand-in; one stranger on no roster), each a cell or two that runs in a fraction of a
second, graded in bubblewrap. A module fixture grades it once in one run: the reference every other way
of grading it must match.

- interrupted with SIGINT after about half, then run again: the same gradebook, answers, feedback and
  report; the first half's records untouched and not graded again; no process left;
- one hand-in changed, run again: only that one graded, its row changed, the others' not;
- ``--shard 0/3``, ``1/3`` and ``2/3`` run at once, then ``--merge``: the same files as the single run
  (the class report's date aside, which comes from the records).

Most hand-ins write their answer line to the check log's pipe themselves, as ``check`` does, so that a
kernel needs no pandas; two call ``check`` itself.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from helpers.exercises import REGISTRY
from helpers.teacher import sandbox
from helpers.teacher.manifest import Assigned, LearnerEntry, Manifest
from helpers.teacher.plan import shard_of
from tests.processes import alive, descendants
from tests.waiting import wait_until

pytestmark = pytest.mark.notebook

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = {"new-hit-rate-at-2": 1.0, "explain-rr-mean": 2.0}
LEARNERS = [f"learner{n:02d}" for n in range(11)]  # each of the four kinds below twice or more
TWICE = "learner03"  # hands in two notebooks
NOTEBOOKS = len(LEARNERS) + 1  # graded: the stranger's is not
ABSENT = ["nora", "omar"]  # on the roster, no hand-in
STRANGER = "zed"  # a hand-in of no roster learner
REAL_CHECK = {"learner05", "learner10"}  # call check() from the keyless helpers
WRITE = ("import json, os\n"
         "def send(exercise_id, text):\n"
         "    line = {'event': 'check', 'exercise': exercise_id, 'given': {'type': 'str', 'text': text}}\n"
         "    os.write(int(os.environ['HELPERS_CHECK_FD']), (json.dumps(line) + '\\n').encode())")


def right(exercise_id: str) -> str:
    exercise = REGISTRY[exercise_id]
    return f"{exercise.worked().value:.{exercise.decimals}f}"


def hand_in(learner: str, kind: int, wrong: str = "0.999") -> nbformat.NotebookNode:
    """A tiny lesson-01 hand-in: both right (0), one right (1), nothing (2), wrong then a raise (3)."""
    answers = {0: {i: right(i) for i in EXERCISES}, 1: {"new-hit-rate-at-2": right("new-hit-rate-at-2"),
                                                        "explain-rr-mean": wrong},
               2: {}, 3: {"explain-rr-mean": wrong}}[kind]
    if learner in REAL_CHECK:
        cells = ["from helpers.exercises import check"] + [f"check({i!r}, {t!r})" for i, t in answers.items()]
    else:
        cells = [WRITE] + [f"send({i!r}, {t!r})" for i, t in answers.items()]
    if kind == 3:
        cells.append("raise ValueError('my own mistake')")
    return new_notebook(cells=[new_code_cell(cell) for cell in cells])


def write_class(folder: Path) -> None:
    for number, learner in enumerate(LEARNERS):
        (folder / learner).mkdir(parents=True)
        nbformat.write(hand_in(learner, number % 4), folder / learner / "01_hit_rate.ipynb")
    nbformat.write(hand_in(TWICE, 1), folder / TWICE / "01_second_try.ipynb")
    (folder / STRANGER).mkdir()
    nbformat.write(hand_in(STRANGER, 0), folder / STRANGER / "01_hit_rate.ipynb")


def write_manifest(path: Path) -> None:
    exercises = tuple(Assigned(i, "01", points) for i, points in EXERCISES.items())
    learners = tuple(LearnerEntry(learner, ("01",), exercises) for learner in sorted(LEARNERS + ABSENT))
    Manifest(("01",), learners, created="2025-01-31T12:00:00+00:00").write(path)


def grader(submissions: Path, out: Path, manifest: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(out), "--assignment",
            str(manifest), "--sandbox", "bwrap", "--timeout", "30", *options]


def run(command: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=ENV)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    return done


ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def graded_lines(stdout: str) -> set[str]:
    """The notebooks a run graded, from its line per notebook ('[n/N] learner/x.ipynb: ...')."""
    return {match[1] for match in re.finditer(r"^\[\d+/\d+\] (\S+\.ipynb): ", stdout, flags=re.M)}


def read_csv(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def tree(folder: Path) -> dict[str, str]:
    return {path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def same_output(first: Path, second: Path) -> None:
    """Two output folders hold the same class: every table and page alike (the report's date aside)."""
    for name in ("gradebook.csv", "answers.csv", "gradebook-canvas.csv", "gradebook-moodle.csv"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    assert tree(first / "feedback") == tree(second / "feedback")
    dated = re.compile(r"graded \d{4}-\d\d-\d\d \d\d:\d\d UTC")
    report = [dated.sub("graded (date)", (folder / "class-report.html").read_text()) for folder in (first, second)]
    assert report[0] == report[1]
    assert sorted(path.name for path in (first / "results").glob("*.json")) == sorted(
        path.name for path in (second / "results").glob("*.json"))
    from openpyxl import load_workbook

    sheets = [[[cell.value for cell in row] for row in load_workbook(folder / "gradebook.xlsx").active.rows]
              for folder in (first, second)]
    assert sheets[0] == sheets[1]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The class, its manifest, and its output graded in one run (the reference)."""
    if not sandbox.find_sandbox("auto").bwrap:
        pytest.skip("bubblewrap does not work here: records are reused only from sandboxed runs")
    base = tmp_path_factory.mktemp("course")
    write_class(base / "submissions")
    write_manifest(base / "week1.json")
    single = run(grader(base / "submissions", base / "single", base / "week1.json", "--jobs", "2"), base)
    return {"base": base, "manifest": base / "week1.json", "single": base / "single", "run": single}


def test_the_single_run_grades_the_whole_roster(course):
    rows = {row["learner"]: row for row in read_csv(course["single"] / "gradebook.csv")}
    assert sorted(rows) == sorted(LEARNERS + ABSENT), "one row per roster id; the stranger is not graded"
    assert rows["learner00"]["total"] == "3" and rows["learner01"]["total"] == "1"
    assert rows["learner04"]["total"] == "3", "learner04 (kind 0) right on both"
    assert rows["learner05"]["total"] == "1", "check() itself, from the keyless helpers: one right"
    assert rows["nora"]["problems"] == "no-hand-in" and rows["nora"]["out_of"] == "3"
    assert "duplicate" in rows[TWICE]["problems"]
    assert "raised" in rows["learner07"]["problems"]
    assert f"not graded: {STRANGER}/01_hit_rate.ipynb" in course["run"].stdout
    files = course["run"].stdout.strip().splitlines()[-1]
    for name in ("gradebook.csv", "gradebook.xlsx", "gradebook-canvas.csv", "gradebook-moodle.csv", "answers.csv",
                 "feedback/", "class-report.html", "results/"):
        assert name in files, f"the summary names {name}"
    assert len(list((course["single"] / "results").glob("*.json"))) == NOTEBOOKS


def test_an_interrupted_run_resumes_without_grading_the_first_half_again(course, tmp_path):
    submissions = tmp_path / "submissions"
    shutil.copytree(course["base"] / "submissions", submissions)
    out = tmp_path / "out"
    started = subprocess.Popen(grader(submissions, out, course["manifest"], "--jobs", "2"), cwd=tmp_path, env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while len(list((out / "results").glob("*.json"))) < NOTEBOOKS // 2 and time.monotonic() < deadline:
        assert started.poll() is None, started.communicate()
        time.sleep(0.05)
    family = descendants(started.pid)
    started.send_signal(signal.SIGINT)
    first_out, first_err = started.communicate(timeout=120)
    assert started.returncode == 130, first_err
    assert "Traceback" not in first_err and re.search(rf"interrupted: \d+ of {NOTEBOOKS} notebooks graded", first_err)
    assert family  # no kernel left, those started ahead included
    wait_until(lambda: not [pid for pid in family if alive(pid)], "every kernel of the grader ends", 30)
    kept = {path.name: path.read_bytes() for path in (out / "results").glob("*.json")}
    graded_first = graded_lines(first_out)
    assert NOTEBOOKS // 2 <= len(kept) < NOTEBOOKS and len(graded_first) == len(kept)

    again = run(grader(submissions, out, course["manifest"], "--jobs", "2"), tmp_path)
    graded_again = graded_lines(again.stdout)
    assert graded_again and not graded_again & graded_first, "nothing graded twice"
    assert len(graded_first | graded_again) == NOTEBOOKS
    assert f"{len(kept)} of {NOTEBOOKS} notebooks unchanged" in again.stdout
    for name, data in kept.items():
        assert (out / "results" / name).read_bytes() == data, f"{name} was kept as it was"
    same_output(out, course["single"])

    changed = submissions / "learner02" / "01_hit_rate.ipynb"  # kind 2 (nothing answered): now both right
    nbformat.write(hand_in("learner02", 0), changed)
    before = {row["learner"]: row for row in read_csv(out / "gradebook.csv")}
    third = run(grader(submissions, out, course["manifest"], "--jobs", "2"), tmp_path)
    assert graded_lines(third.stdout) == {"learner02/01_hit_rate.ipynb"}, "only the changed hand-in"
    assert f"{NOTEBOOKS - 1} of {NOTEBOOKS} notebooks unchanged" in third.stdout
    after = {row["learner"]: row for row in read_csv(out / "gradebook.csv")}
    assert (before["learner02"]["total"], after["learner02"]["total"]) == ("0", "3")
    assert {k: v for k, v in after.items() if k != "learner02"} == {k: v for k, v in before.items()
                                                                    if k != "learner02"}


def test_three_shards_run_at_once_and_merged_equal_the_single_run(course, tmp_path):
    submissions = course["base"] / "submissions"
    shards = [tmp_path / f"shard-{index}" for index in range(3)]
    running = [subprocess.Popen(grader(submissions, folder, course["manifest"], "--shard", f"{index}/3"),
                                cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for index, folder in enumerate(shards)]
    for process in running:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, out[-1500:] + err[-3000:]
    records = [json.loads((folder / "shard.json").read_text()) for folder in shards]
    roster = sorted(LEARNERS + ABSENT)
    for index, record in enumerate(records):
        assert (record["shard"], record["of"], record["complete"]) == (index, 3, True)
        assert record["roster"] == [learner for learner in roster if shard_of(learner, 3) == index]
        mine = [learner for learner in LEARNERS if shard_of(learner, 3) == index]
        assert sorted(record["learners"]) == sorted(set(record["roster"]) | set(mine))
        assert all(notebook.split("/")[0] in record["learners"] for notebook in record["notebooks"])
    assert sorted(learner for record in records for learner in record["learners"]) == roster
    assert sum(len(record["notebooks"]) for record in records) == NOTEBOOKS
    assert [STRANGER in " ".join(record["unmatched"]) for record in records].count(True) == 1

    retried = run(grader(submissions, shards[0], course["manifest"], "--shard", "0/3"), tmp_path)
    assert not graded_lines(retried.stdout), "a shard run again resumes in its folder: nothing left to grade"
    assert json.loads((shards[0] / "shard.json").read_text()) == records[0]

    merged = tmp_path / "merged"
    done = run([sys.executable, "-m", "helpers.grade", "--merge", str(merged), *map(str, shards)], tmp_path)
    assert "merged 3 shards" in done.stdout
    same_output(merged, course["single"])

    records[1]["complete"] = False  # a shard that stopped half way is refused
    (shards[1] / "shard.json").write_text(json.dumps(records[1]))
    refused = subprocess.run([sys.executable, "-m", "helpers.grade", "--merge", str(tmp_path / "again"),
                              *map(str, shards)], capture_output=True, text=True, cwd=tmp_path, env=ENV, timeout=300)
    assert refused.returncode == 2 and "shard 1/3" in refused.stderr and "not complete" in refused.stderr
