"""Per-learner numbers: each learner of a roster gets their own variants, and a neighbour's answers do not fit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from helpers.exercises import REGISTRY, exercises_of
from helpers.exercises.fresh import VARIANTS
from helpers.teacher import release
from helpers.teacher.judging import AnswerKey, judge_notebook
from helpers.teacher.per_learner import learner_key, learner_seed, read_roster, read_secret

ROOT = Path(__file__).resolve().parent.parent
SECRET = bytes(range(32))
ROSTER = [f"learner{number:02d}" for number in range(30)]
LESSONS = sorted({REGISTRY[exercise_id].lesson for exercise_id in VARIANTS})


def answers_of(learner: str) -> list[dict]:
    """The check events of a learner who answers every variant exercise right, on their own numbers."""
    own = learner_key(SECRET, learner)
    return [{"event": "check", "exercise": i, "given": {"type": "str",
             "text": f"{worked.value:.{REGISTRY[i].decimals}f}"}} for i, worked in own.items()]


def variant_points(learner: str, events: list[dict], key: AnswerKey) -> tuple[int, int]:
    judged = judge_notebook(LESSONS, events, key.for_learner(learner_key(SECRET, learner)))
    graded = [answer for answer in judged if answer.exercise in VARIANTS]
    return sum(answer.correct for answer in graded), len(graded)


def test_a_roster_of_30_own_answers_score_full_a_neighbours_almost_nothing():
    key = AnswerKey.build()
    for learner in ROSTER:
        right, out_of = variant_points(learner, answers_of(learner), key)
        assert right == out_of == len(VARIANTS), learner
    copied = [variant_points(learner, answers_of(ROSTER[(n + 1) % len(ROSTER)]), key)
              for n, learner in enumerate(ROSTER)]
    share = sum(right for right, _ in copied) / sum(out_of for _, out_of in copied)
    assert share <= 0.05, f"{share:.1%} of a neighbour's variant answers are right"


def test_the_seed_needs_the_secret_and_differs_by_learner_and_exercise():
    assert learner_seed(SECRET, "ann", "sheet-ndcg3") == learner_seed(SECRET, "ann", "sheet-ndcg3")
    assert learner_seed(SECRET, "ann", "sheet-ndcg3") != learner_seed(SECRET, "bob", "sheet-ndcg3")
    assert learner_seed(SECRET, "ann", "sheet-ndcg3") != learner_seed(SECRET, "ann", "kb04-graded-2")
    assert learner_seed(SECRET, "ann", "sheet-ndcg3") != learner_seed(bytes(32), "ann", "sheet-ndcg3")


def test_roster_and_secret_files(tmp_path):
    (tmp_path / "roster.csv").write_text("learner,name\nann,Ann A.\nbob,Bob B.\n")
    (tmp_path / "roster.txt").write_text("ann\n\nbob\n")
    assert read_roster(tmp_path / "roster.csv") == read_roster(tmp_path / "roster.txt") == ["ann", "bob"]
    (tmp_path / "twice.txt").write_text("ann\nann\n")
    with pytest.raises(ValueError, match="listed twice: ann"):
        read_roster(tmp_path / "twice.txt")
    secret = read_secret(tmp_path / "course.secret", create=True)
    assert len(secret) == 32 and read_secret(tmp_path / "course.secret") == secret
    assert (tmp_path / "course.secret").stat().st_mode & 0o077 == 0, "only the teacher reads it"
    (tmp_path / "bad.secret").write_text("not hex")
    with pytest.raises(ValueError, match="not a course secret"):
        read_secret(tmp_path / "bad.secret")


def test_each_learner_of_the_roster_gets_notebooks_with_their_own_numbers(tmp_path):
    target = tmp_path / "class"
    release.release(target, roster=["ann", "bob"], secret=SECRET)
    ann = nbformat.read(next((target / "notebooks" / "ann").glob("03_*.ipynb")), as_version=4)
    bob = nbformat.read(next((target / "notebooks" / "bob").glob("03_*.ipynb")), as_version=4)
    own = [cell.source for cell in ann.cells if cell.source.startswith("**Your own numbers** (exercise `sheet-ndcg3`)")]
    theirs = [cell.source for cell in bob.cells if cell.source.startswith("**Your own numbers** (exercise `sheet")]
    assert len(own) == 1 and own[0] not in theirs and ann.metadata["helpers"]["per_learner"] is True
    copy_text = "\n".join(p.read_text(errors="replace") for p in target.rglob("*") if p.is_file())
    assert SECRET.hex() not in copy_text, "the secret never goes into a copy"
    for learner in ("ann", "bob"):
        for exercise_id, worked in learner_key(SECRET, learner).items():
            text = f"{worked.value:.{REGISTRY[exercise_id].decimals}f}"
            if abs(worked.value * 4 - round(worked.value * 4)) > 1e-9:  # simple fractions aside
                assert f"= {text}" not in copy_text and f"answer: {text}" not in copy_text
    with pytest.raises(ValueError, match="needs an assignment copy, and the course secret"):
        release.release(tmp_path / "other", roster=["ann"], secret=None)


@pytest.mark.notebook
def test_the_grader_recomputes_each_learners_key_from_the_roster_id(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    (tmp_path / "roster.txt").write_text("ann\nbob\n")
    secret_file = tmp_path / "course.secret"
    done = subprocess.run([sys.executable, "-m", "helpers.release", str(tmp_path / "class"), "--roster",
                           str(tmp_path / "roster.txt"), "--secret", str(secret_file)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    secret = read_secret(secret_file)
    submissions = tmp_path / "submissions"
    for learner, whose in (("ann", "ann"), ("bob", "ann")):  # bob hands in ann's answers
        notebook = nbformat.read(next((tmp_path / "class" / "notebooks" / learner).glob("03_*.ipynb")), as_version=4)
        key = learner_key(secret, whose)
        for cell in notebook.cells:
            for exercise in exercises_of("03"):
                if f'check("{exercise.id}", answer)' in cell.source and exercise.id in key:
                    value = f"{key[exercise.id].value:.{exercise.decimals}f}"
                    cell.source = cell.source.replace("answer = None", f"answer = {value!r}", 1)
        (submissions / learner).mkdir(parents=True)
        nbformat.write(notebook, submissions / learner / "03_the_ndcg_spreadsheet.ipynb")
    command = [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(tmp_path / "out"), "--jobs", "2"]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert refused.returncode == 2 and "--secret FILE" in refused.stderr
    graded = subprocess.run([*command, "--secret", str(secret_file)], capture_output=True, text=True, timeout=600,
                            env=env)
    assert graded.returncode == 0, graded.stderr
    results = {json.loads(p.read_text())["learner"]: json.loads(p.read_text())
               for p in (tmp_path / "out" / "results").glob("*.json")}
    variant_ids = [exercise.id for exercise in exercises_of("03") if exercise.id in VARIANTS]
    ann = {a["exercise"]: a for a in results["ann"]["answers"]}
    bob = {a["exercise"]: a for a in results["bob"]["answers"]}
    assert all(ann[i]["correct"] for i in variant_ids), "her own numbers, her own right answers"
    assert not any(bob[i]["correct"] for i in variant_ids), "a neighbour's answers do not fit"
