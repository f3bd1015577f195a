"""A term of grading: one --out folder per assignment, and no silent zeros.

Week 1 (lesson 01) is graded for a roster of four (three hand-ins, tiny notebooks). Then, as a teaching
assistant would get it wrong:

- week 2 (lesson 03) graded into week 1's ``--out``: refused (exit 2) naming both manifests, week 1's
  records untouched; ``--out-reuse`` grades into it anyway;
- an empty (or wrongly mounted) submissions folder: an error (exit 2), not a complete run of zeros, unless
  ``--allow-empty``;
- a learner graded in week 1 whose hand-in is gone on the next run: named, the earlier record kept and
  flagged ``hand-in-gone``, not replaced by 0, unless ``--accept-missing``.
"""

from __future__ import annotations

import csv
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from helpers.exercises import exercises_of
from helpers.teacher import sandbox
from helpers.teacher.manifest import Assigned, LearnerEntry, Manifest
from tests.test_grade_resume import EXERCISES, hand_in

pytestmark = pytest.mark.notebook

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ROSTER = ["ann", "bob", "cid", "dan"]  # dan hands in nothing


def write_manifest(path: Path, lesson: str, exercises: dict[str, float]) -> None:
    assigned = tuple(Assigned(i, lesson, points) for i, points in exercises.items())
    learners = tuple(LearnerEntry(learner, (lesson,), assigned) for learner in ROSTER)
    Manifest((lesson,), learners, released={f"{lesson}_x.ipynb": lesson * 32},
             created="2025-01-31T12:00:00+00:00").write(path)


def grade(submissions: Path, out: Path, manifest: Path, *options: str) -> subprocess.CompletedProcess:
    mode = "bwrap" if sandbox.find_sandbox("auto").bwrap else "none"
    command = [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(out), "--assignment",
               str(manifest), "--sandbox", mode, "--timeout", "60", *options]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=out.parent, env=ENV)


def gradebook(out: Path) -> dict[str, dict[str, str]]:
    with (out / "gradebook.csv").open(newline="", encoding="utf-8-sig") as handle:
        return {row["learner"]: row for row in csv.DictReader(handle)}


def tree(folder: Path) -> dict[str, str]:
    return {path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.fixture(scope="module")
def week1(tmp_path_factory):
    base = tmp_path_factory.mktemp("term")
    submissions = base / "week1"
    for number, learner in enumerate(ROSTER[:3]):
        (submissions / learner).mkdir(parents=True)
        nbformat.write(hand_in(learner, number), submissions / learner / "01_hit_rate.ipynb")
    write_manifest(base / "week1.json", "01", EXERCISES)
    lesson_03 = {exercise.id: exercise.points for exercise in exercises_of("03")}
    write_manifest(base / "week2.json", "03", lesson_03)
    done = grade(submissions, base / "out-week1", base / "week1.json")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {"base": base, "submissions": submissions, "out": base / "out-week1", "rows": gradebook(base / "out-week1")}


def test_week_1_gives_every_roster_learner_a_row(week1):
    rows = week1["rows"]
    assert list(rows) == ROSTER
    assert float(rows["ann"]["total"]) == sum(EXERCISES.values()) and rows["dan"]["problems"] == "no-hand-in"
    assert float(rows["bob"]["total"]) == EXERCISES["new-hit-rate-at-2"]


def test_week_2_into_week_1s_out_is_refused_naming_both_and_week_1_stays(week1, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(week1["out"], out)
    before = tree(out)
    done = grade(week1["submissions"], out, week1["base"] / "week2.json")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "week1.json (lessons 01)" in done.stderr and "week2.json (lessons 03)" in done.stderr
    assert "--out-reuse" in done.stderr and "Traceback" not in done.stderr
    assert tree(out) == before, "week 1's records, tables and pages untouched"
    again = grade(week1["submissions"], out, week1["base"] / "week2.json", "--out-reuse")
    assert again.returncode == 0, again.stderr[-2000:]
    assert set(gradebook(out)["ann"]) >= {exercise.id for exercise in exercises_of("03")}


def test_an_empty_submissions_folder_is_an_error_unless_allowed(week1, tmp_path):
    (tmp_path / "empty").mkdir()
    done = grade(tmp_path / "empty", tmp_path / "out", week1["base"] / "week1.json")
    assert done.returncode == 2 and "no learner of the roster has a hand-in" in done.stderr
    assert "--allow-empty" in done.stderr
    assert not (tmp_path / "out" / "gradebook.csv").exists()
    allowed = grade(tmp_path / "empty", tmp_path / "out", week1["base"] / "week1.json", "--allow-empty")
    assert allowed.returncode == 0, allowed.stderr[-2000:]
    assert {row["problems"] for row in gradebook(tmp_path / "out").values()} == {"no-hand-in"}


def test_a_vanished_hand_in_keeps_its_grade_flagged_unless_the_loss_is_accepted(week1, tmp_path):
    out, submissions = tmp_path / "out", tmp_path / "submissions"
    shutil.copytree(week1["out"], out)
    shutil.copytree(week1["submissions"], submissions)
    shutil.rmtree(submissions / "bob")
    done = grade(submissions, out, week1["base"] / "week1.json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "kept as graded before, their hand-ins gone: bob/01_hit_rate.ipynb" in done.stdout
    bob = gradebook(out)["bob"]
    assert bob["total"] == week1["rows"]["bob"]["total"] and bob["problems"] == "hand-in-gone"
    assert "bob: 1 of 3 (hand-in-gone)" in done.stdout
    dropped = grade(submissions, out, week1["base"] / "week1.json", "--accept-missing")
    assert dropped.returncode == 0, dropped.stderr[-2000:]
    assert gradebook(out)["bob"]["total"] == "0" and gradebook(out)["bob"]["problems"] == "no-hand-in"


def test_a_merge_into_another_assignments_folder_is_refused(tmp_path, capsys):
    from helpers.teacher import grade as grader
    from helpers.teacher import reports
    from tests.test_grade_incremental import make_shards

    week1 = {"assignment": "1" * 64, "manifest": "week1.json", "lessons": ["01"]}
    week2 = {"assignment": "2" * 64, "manifest": "week2.json", "lessons": ["03"]}
    first, second = make_shards(tmp_path / "week1"), make_shards(tmp_path / "week2")
    for folder in first:
        reports.write_stamp(folder, week1)
    for folder in second:
        reports.write_stamp(folder, week2)
    merged = tmp_path / "merged"
    assert grader.main(["--merge", str(merged), *map(str, first)]) == 0
    assert reports.read_stamp(merged) == week1
    before = tree(merged)
    capsys.readouterr()
    assert grader.main(["--merge", str(merged), *map(str, second)]) == 2
    said = capsys.readouterr().err
    assert "week1.json (lessons 01)" in said and "week2.json (lessons 03)" in said
    assert tree(merged) == before
    assert grader.main(["--merge", str(merged), *map(str, second), "--out-reuse"]) == 0
    assert reports.read_stamp(merged) == week2
