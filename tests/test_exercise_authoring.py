"""Writing an exercise safely: a typo'd slip is refused at register, collisions are reported, one exercise that
fails to judge costs only itself, and the grader refuses to run on exercise ids it does not know."""

from __future__ import annotations

import dataclasses
import warnings

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from helpers import metrics
from helpers.exercises import REGISTRY, Exercise, check, declare_slip, register
from helpers.exercises.registry import ExerciseWarning
from helpers.teacher import grade
from helpers.teacher.judging import AnswerKey, judge_notebook
from helpers.teacher.submissions import Submission


def teachers_mrr(slips, **extra) -> Exercise:
    return Exercise(id="t-mrr", lesson="01", question="MRR of first ranks 2, 0 and 1? 3 decimals.",
                    answer=lambda: metrics.mean_reciprocal_rank([2, 0, 1]), hints=("a",), slips=slips, **extra)


def test_a_typo_in_a_slip_name_is_refused_with_the_closest_names(scratch):
    with pytest.raises(ValueError, match=r"unknown slip 'ignored-cutof'; did you mean 'ignored-cutoff'"):
        register(teachers_mrr(lambda: [(("ignored-cutof",), 0.75)]))
    assert "t-mrr" not in REGISTRY
    with pytest.raises(ValueError, match=r"each slip is \(\(code, \.\.\.\), value\)"):
        register(teachers_mrr(lambda: [("dropped-misses", 0.75)]))


def test_a_teacher_declares_a_new_slip_and_check_names_it(scratch):
    declare_slip("mean-of-ranks-teacher", "the mean of the ranks, not of 1/rank", "Average 1/rank instead.")
    register(teachers_mrr(lambda: [(("mean-of-ranks-teacher",), 0.25)]))
    result = check("t-mrr", "0.250")
    assert result.slips == ("mean-of-ranks-teacher",) and "the mean of the ranks" in result.message
    with pytest.raises(ValueError, match="already in the catalogue"):
        declare_slip("no-discount", "something else", "a fix")
    with pytest.raises(ValueError, match="title must be a non-empty text"):
        declare_slip("my-slip", " ", "a fix")


def test_a_slip_that_gives_the_right_answer_is_refused(scratch):
    with pytest.raises(ValueError, match="slip dropped-misses gives the right answer 0.500 at the asked 3 decimals"):
        register(teachers_mrr(lambda: [(("dropped-misses",), 0.5)]))
    assert "t-mrr" not in REGISTRY


def test_collisions_are_reported_to_the_author(scratch):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        register(teachers_mrr(lambda: [(("ignored-cutoff",), 0.75), (("sum-not-mean",), 0.75)]))
    said = [str(warning.message) for warning in caught if warning.category is ExerciseWarning]
    assert any("slip sum-not-mean gives 0.750, as ignored-cutoff does" in text for text in said)
    assert "Or:" in check("t-mrr", "0.750").message, "an ambiguous value names both slips as possible"


def test_an_exercise_that_fails_to_judge_costs_only_itself(scratch):
    with pytest.raises(ValueError, match="its answer could not be computed: ZeroDivisionError"):
        register(Exercise(id="t-broken", lesson="01", question="q?", answer=lambda: 1 / 0, hints=("a",)))
    # one that computes when registered and fails in the grader's process (its data gone there, say)
    register(Exercise(id="t-broken", lesson="01", question="q?", answer=lambda: 0.5, hints=("a",)))
    REGISTRY["t-broken"] = dataclasses.replace(REGISTRY["t-broken"], answer=lambda: 1 / 0)
    key = AnswerKey.build()
    assert "ZeroDivisionError" in key.broken["t-broken"]
    right = f"{REGISTRY['explain-rr-mean'].worked().value:.4f}"
    events = [{"event": "check", "exercise": "explain-rr-mean", "given": {"type": "str", "text": right}},
              {"event": "check", "exercise": "t-broken", "given": {"type": "str", "text": "1"}}]
    judged = {answer.exercise: answer for answer in judge_notebook(["01"], events, key)}
    assert judged["t-broken"].verdict == "grader-error" and "ZeroDivisionError" in judged["t-broken"].message
    assert judged["t-broken"].max_points == 1 and judged["t-broken"].points == 0
    assert judged["explain-rr-mean"].correct, "the other answers are still judged"


def test_the_grader_names_unknown_exercise_ids_before_running_anything(tmp_path):
    notebook = new_notebook(cells=[new_code_cell("check('my-mrr', 0.5)"), new_code_cell("check('sheet-ndcg3', 1)")])
    data = nbformat.writes(notebook).encode()
    said = grade.unknown_exercises([Submission(tmp_path / "ann.ipynb", "ann", "ann.ipynb", data)])
    assert "my-mrr (ann.ipynb)" in said and "--exercises FILE" in said and "sheet-ndcg3" not in said
    assert grade.unknown_exercises([Submission(tmp_path / "b.ipynb", "b", "b.ipynb", b"{broken")]) == ""
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    submissions.mkdir()
    (submissions / "ann.ipynb").write_bytes(data)
    assert grade.main([str(submissions), "--out", str(out)]) == 2
    assert not (out / "results").exists(), "nothing ran"
