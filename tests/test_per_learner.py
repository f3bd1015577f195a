"""Per-learner numbers: each learner of a roster gets their own variants, and a neighbour's answers do not fit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from functools import cache
from pathlib import Path

import nbformat
import pytest

from helpers.exercises import REGISTRY, exercises_of
from helpers.exercises.fresh import VARIANTS
from helpers.teacher import release
from helpers.teacher.judging import AnswerKey, judge_notebook
from helpers.teacher.per_learner import learner_key, learner_seed, read_roster, read_secret
from tests.tiers import tiered

ROOT = Path(__file__).resolve().parent.parent
SECRET = bytes(range(32))
ROSTER = [f"learner{number:02d}" for number in range(30)]
LESSONS = sorted({REGISTRY[exercise_id].lesson for exercise_id in VARIANTS})


@cache
def roster_key(learner: str) -> dict:
    """A learner's own answer key under SECRET, drawn once per run (each of the 30 is needed four times)."""
    return learner_key(SECRET, learner)


def answers_of(learner: str) -> list[dict]:
    """The check events of a learner who answers every variant exercise right, on their own numbers."""
    own = roster_key(learner)
    return [{"event": "check", "exercise": i, "given": {"type": "str",
             "text": f"{worked.value:.{REGISTRY[i].decimals}f}"}} for i, worked in own.items()]


def variant_points(learner: str, events: list[dict], key: AnswerKey) -> tuple[int, int]:
    judged = judge_notebook(LESSONS, events, key.for_learner(roster_key(learner)))
    graded = [answer for answer in judged if answer.exercise in VARIANTS]
    return sum(answer.correct for answer in graded), len(graded)


@pytest.mark.parametrize("learners", tiered(range(len(ROSTER)), every=3))
def test_a_roster_of_30_own_answers_score_full_a_neighbours_almost_nothing(learners):
    key = AnswerKey.build()
    for learner in (ROSTER[n] for n in learners):
        right, out_of = variant_points(learner, answers_of(learner), key)
        assert right == out_of == len(VARIANTS), learner
    copied = [variant_points(ROSTER[n], answers_of(ROSTER[(n + 1) % len(ROSTER)]), key) for n in learners]
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
                           str(tmp_path / "roster.txt"), "--secret", str(secret_file), "--lessons", "03"],
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


# --- the manifest: what the release decides for the grader -------------------------------------------------


def test_the_manifest_lists_the_roster_their_exercises_points_and_seeds(tmp_path):
    from helpers.teacher.manifest import FORMAT, VERSION, Manifest

    path = tmp_path / "teacher" / "week3.json"
    roster = ["ann", unicodedata.normalize("NFC", "José")]
    release.release(tmp_path / "class", roster=roster, secret=SECRET, lessons="03", manifest=path,
                    points={"sheet-ndcg3": 2})
    assert path.stat().st_mode & 0o077 == 0, "it holds every learner's seeds: only the teacher reads it"
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert (raw["format"], raw["version"], raw["lessons"]) == (FORMAT, VERSION, ["03"])
    manifest = Manifest.read(path)
    assert manifest.roster == roster and manifest.per_learner
    ann = manifest.learner("ann")
    assert [e.id for e in ann.exercises] == [e.id for e in exercises_of("03")]
    assert ann.points["sheet-ndcg3"] == 2 and ann.points["kb04-graded-2"] == 1
    assert ann.seeds == {i: learner_seed(SECRET, "ann", i) for i in ann.seeds} and set(ann.seeds) <= set(VARIANTS)
    assert manifest.learner(unicodedata.normalize("NFD", "José")) is manifest.learner("José"), "compared in NFC"
    assert manifest.learner("nobody") is None
    assert sorted(path.name for path in (tmp_path / "class" / "notebooks").glob("*.ipynb")) == [
        "00_start_here.ipynb", "03_the_ndcg_spreadsheet.ipynb"], "--lessons: only those lessons (and the start)"
    # the digest of a learner's entry is stable and changes exactly when what they are graded on changes
    again = Manifest.from_json(json.loads(json.dumps(manifest.to_json())))
    assert again.learner("ann").digest() == ann.digest() != manifest.learner("José").digest()
    raw["learners"][0]["exercises"][0]["points"] = 3
    assert Manifest.from_json(raw).learner("ann").digest() != ann.digest()


def test_a_manifest_is_refused_inside_the_copy_and_read_only_in_its_own_format(tmp_path):
    from helpers.teacher.manifest import Manifest

    with pytest.raises(ValueError, match="inside the learners' copy"):
        release.release(tmp_path / "class", roster=["ann"], secret=SECRET, manifest=tmp_path / "class" / "m.json")
    assert not (tmp_path / "class").exists(), "refused before anything was written"
    with pytest.raises(ValueError, match="assignment copy with a roster"):
        release.release(tmp_path / "other", manifest=tmp_path / "m.json")
    (tmp_path / "other.json").write_text('{"format": "something else"}')
    with pytest.raises(ValueError, match="not an assignment manifest"):
        Manifest.read(tmp_path / "other.json")
    (tmp_path / "newer.json").write_text('{"format": "ranking-metrics-assignment", "version": 99, "learners": []}')
    with pytest.raises(ValueError, match="update helpers"):
        Manifest.read(tmp_path / "newer.json")


def test_a_roster_is_read_in_nfc_and_a_name_twice_in_any_form_is_refused(tmp_path):
    nfd = unicodedata.normalize("NFD", "José")
    (tmp_path / "roster.txt").write_text(f"{nfd}\nann\n", encoding="utf-8")
    assert read_roster(tmp_path / "roster.txt") == ["José", "ann"]
    (tmp_path / "twice.txt").write_text(f"{nfd}\nJosé\n", encoding="utf-8")
    with pytest.raises(ValueError, match="listed twice"):
        read_roster(tmp_path / "twice.txt")


def test_the_plan_gives_each_learner_their_exercises_points_and_numbers(tmp_path):
    from helpers.teacher.manifest import Manifest
    from helpers.teacher.plan import Plan

    release.release(tmp_path / "class", roster=["ann", "bob"], secret=SECRET, lessons="03",
                    manifest=tmp_path / "m.json", points={"sheet-ndcg3": 2})
    plan = Plan(manifest=Manifest.read(tmp_path / "m.json"))
    assert plan.roster == ["ann", "bob"] and plan.on_roster("ann") and not plan.on_roster("eve")
    assert plan.exercises("ann") == {"sheet-ndcg3": 2.0, "kb04-graded-2": 1.0, "helpdesk-mean-ndcg5": 1.0}
    key = plan.key(AnswerKey.build(), "ann")
    assert key.worked["sheet-ndcg3"] == learner_key(SECRET, "ann")["sheet-ndcg3"] and key.points["sheet-ndcg3"] == 2
    events = [{"event": "check", "exercise": i, "given": {"type": "str", "text": "0.5"}}
              for i in ("sheet-ndcg3", "explain-rr-mean")]
    judged = judge_notebook(["03"], events, key, plan.exercises("ann"))
    assert [answer.exercise for answer in judged] == list(plan.exercises("ann")), "explain-rr-mean is not ann's"
    asked = {answer.exercise: answer.question for answer in judged}
    assert "your own numbers" in asked["sheet-ndcg3"] and asked["sheet-ndcg3"] != REGISTRY["sheet-ndcg3"].question
    assert asked["helpdesk-mean-ndcg5"].endswith("not on your table."), "the lesson's numbers, said so"
    # without a manifest: --expect the same for everyone, or today's rule (None)
    assert Plan(expect={"sheet-ndcg3": 1.0}).exercises("anyone") == {"sheet-ndcg3": 1.0}
    assert Plan().exercises("anyone") is None and Plan().roster == [] and Plan().on_roster("anyone")


def test_a_copy_is_anothers_only_by_cells_that_are_not_also_the_learners_own():
    from nbformat.v4 import new_markdown_cell, new_notebook

    from helpers.teacher.grading import copy_problems
    from helpers.teacher.manifest import LearnerEntry, Manifest, notebook_digest, text_digest
    from helpers.teacher.plan import Plan

    shared, anns, bobs = "numbers both drew", "ann's own numbers", "bob's own numbers"
    released = new_notebook(cells=[new_markdown_cell("the lesson")])
    manifest = Manifest(("03",), (
        LearnerEntry("ann", ("03",), (), {}, (text_digest(shared), text_digest(anns))),
        LearnerEntry("bob", ("03",), (), {}, (text_digest(shared), text_digest(bobs))),
    ), released={"03.ipynb": notebook_digest(released)})
    plan = Plan(manifest=manifest)

    def codes(learner: str, *texts: str) -> dict[str, str]:
        notebook = new_notebook(cells=[new_markdown_cell(text) for text in texts])
        return {problem.code: problem.message for problem in copy_problems(notebook, learner, plan)}

    assert codes("ann", shared, anns) == {}, "a cell bob drew too is still ann's own"
    assert codes("bob", shared, anns) == {"other-learners-copy": "it holds the own numbers of ann, not of bob"}
    assert codes("ann", "the lesson") == {"released-copy": "it is the notebook as released to the class, with "
                                                           "nothing changed"}


def test_a_hand_in_that_is_the_learners_own_released_copy_unchanged_is_a_released_copy():
    from nbformat.v4 import new_markdown_cell, new_notebook

    from helpers.teacher.grading import copy_problems
    from helpers.teacher.manifest import LearnerEntry, Manifest, notebook_digest, text_digest
    from helpers.teacher.plan import Plan

    released = new_notebook(cells=[new_markdown_cell("the lesson"), new_markdown_cell("{table}")])
    anns = new_notebook(cells=[new_markdown_cell("the lesson"), new_markdown_cell("ann's own numbers")])
    bobs = new_notebook(cells=[new_markdown_cell("the lesson"), new_markdown_cell("bob's own numbers")])
    manifest = Manifest(("03",), (
        LearnerEntry("ann", ("03",), (), {"03.ipynb": notebook_digest(anns)}, (text_digest("ann's own numbers"),)),
        LearnerEntry("bob", ("03",), (), {"03.ipynb": notebook_digest(bobs)}, (text_digest("bob's own numbers"),)),
    ), released={"03.ipynb": notebook_digest(released)})
    plan = Plan(manifest=manifest)
    found = {problem.code: problem.message for problem in copy_problems(anns, "ann", plan)}
    assert found == {"released-copy": "it is ann's own copy as released (their numbers), with nothing changed"}
    anns.cells.append(new_markdown_cell("my answer: 0.5"))
    assert copy_problems(anns, "ann", plan) == [], "changed: her own work"
    assert [problem.code for problem in copy_problems(bobs, "ann", plan)] == ["other-learners-copy"]
