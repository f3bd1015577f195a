"""Lessons 01-05 tried as a learner would (issue 46): slips, hints and practice; the progress page says what to
do next, and practice() without an id goes where the learner slipped.

Every slipped answer is computed from the exercise's own inputs by the slip's own function (helpers.slips, or
a slip of writing from helpers.exercises.combined), never typed in; the same function on a practice variant's
inputs gives the learner's slip there. The record lives in this test's JUPYTER_DATA_DIR (tmp_path).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers.exercises import REGISTRY, check, hint, progress, record
from helpers.exercises.combined import writings
from helpers.exercises.practising import practice
from helpers.exercises.worked import Worked
from helpers.slips import graded, ranks

ROOT = Path(__file__).resolve().parents[1]


def percent_without_sign(worked: Worked, decimals: int) -> float:
    """The right value written as a percentage without its % sign (a slip of writing)."""
    return next(found for found in writings(worked, decimals) if found.code == "percent-without-sign").apply(
        worked.value)


@dataclass(frozen=True)
class Step:
    """One lesson's exercise, the slip the learner makes on it, and that slip's number on any worked problem."""

    lesson: str
    exercise: str
    slip: str
    slipped: Callable[[Worked, int], float]

    def answer(self, worked: Worked) -> str:
        """The learner's slipped answer, written at the decimals the exercise asks."""
        return f"{self.slipped(worked, REGISTRY[self.exercise].decimals):.{REGISTRY[self.exercise].decimals}f}"


STEPS = {step.lesson: step for step in [
    Step("01", "new-mrr-d8-first", "dropped-misses",
         lambda w, _: ranks.mrr_dropping_misses(w.inputs["first_ranks"], w.inputs["k"])),
    Step("02", "explain-ndcg-03", "rank-as-discount",
         lambda w, _: graded.ndcg_rank_discount(w.inputs["grades"], w.inputs["k"], ideal=w.inputs["judged"],
                                                gain=w.inputs["gain"])),
    Step("03", "sheet-ndcg3", "retrieved-only-ideal",
         lambda w, _: graded.ndcg_retrieved_only_ideal(w.inputs["grades"], w.inputs["k"], gain=w.inputs["gain"])),
    Step("04", "advisor-fifth-question-mrr4", "kept-unanswerable",
         lambda w, _: ranks.mrr_keeping_unanswerable(w.inputs["first_ranks"], w.inputs["unanswerable"], w.inputs["k"])),
    Step("05", "lab-swap-ndcg3", "percent-without-sign", percent_without_sign),
]}


@pytest.fixture
def learner(tmp_path, monkeypatch):
    """The record on, in a Jupyter data folder of this test's own; nothing in the repository is written."""
    before = repository_files()
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))
    monkeypatch.setenv(record.PROGRESS_ENV, "on")
    for name in record.GRADED_ENVS:
        monkeypatch.delenv(name, raising=False)
    yield tmp_path / "jupyter-data"
    assert repository_files() == before


def repository_files() -> set[str]:
    """Every file of the repository's folder that git does not ignore, tracked or not."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True)
    return set(listed.stdout.splitlines())


def row(lesson: str, exercise_id: str) -> dict:
    """The exercise's row in its lesson's progress (the lesson's closing cell)."""
    return progress(lesson=lesson).table.set_index("exercise").loc[exercise_id].to_dict()


def slip_on_the_lesson(step: Step) -> None:
    """Answer the lesson's exercise with the slip, then take a hint: the checker names the slip."""
    said = check(step.exercise, step.answer(REGISTRY[step.exercise].worked()))
    assert said.verdict.name == "SLIP" and said.slip_groups == ((step.slip,),), said.message
    hint(step.exercise)


def practice_deals_it(step: Step):
    """practice() without an id deals the exercise of the slip, on numbers where that slip shows."""
    run = practice()
    assert run.exercise.id == step.exercise
    assert run.reason.startswith(f"last time, on {step.exercise}, your answer was what this slip gives")
    decimals = REGISTRY[step.exercise].decimals
    right, own = f"{run.variant.worked.value:.{decimals}f}", step.answer(run.variant.worked)
    assert own != right, f"{step.exercise}: the learner's slip gives the right number on the variant"
    said = run.check(own)  # the same slip on the new numbers: named again
    assert said.slip_groups == ((step.slip,),), said.message
    return run, right


def test_lessons_01_to_05_with_slips_hints_and_practice(learner):
    for lesson in ("01", "02", "03"):  # slip, see the page, practise where it points, put it right
        step = STEPS[lesson]
        slip_on_the_lesson(step)
        assert progress().next_step.startswith(f"Next: run practice(): it deals {step.exercise} on new numbers")
        run, right = practice_deals_it(step)
        run.hint()
        assert run.check(right).verdict.name == "RIGHT"
        assert row(lesson, step.exercise) == {"lesson": lesson, "status": "right", "tries": 3, "slips": step.slip,
                                              "hints": 2, "solutions": 0, "practice": 1}

    fourth, fifth = STEPS["04"], STEPS["05"]
    slip_on_the_lesson(fourth)  # the learner moves on without putting it right
    assert row("04", fourth.exercise)["status"] == "not right yet"
    slip_on_the_lesson(fifth)
    shown = progress()
    assert shown.next_step.startswith(f"Next: run practice(): it deals {fifth.exercise} on new numbers")
    assert progress(lesson="05").next_step.startswith(f"Next: run practice('{fifth.exercise}')")
    run, right = practice_deals_it(fifth)
    assert run.check(right).verdict.name == "RIGHT"

    shown = progress()  # 05 put right: the page now points at 04's slip, the latest not put right
    assert shown.next_step.startswith(f"Next: run practice(): it deals {fourth.exercise} on new numbers (last "
                                      f"time, on {fourth.exercise}, your answer was what this slip gives")
    practice_deals_it(fourth)  # and practice goes there: the slip again, on new numbers
    shown = progress()
    assert shown.counts() == {"right": 4, "not right yet": 1, "not tried": len(REGISTRY) - 5}
    assert shown.slips.set_index("slip")["times"].to_dict() == {step.slip: 2 for step in STEPS.values()}
    assert row("04", fourth.exercise) == {"lesson": "04", "status": "not right yet", "tries": 2,
                                          "slips": fourth.slip, "hints": 1, "solutions": 0, "practice": 0}
