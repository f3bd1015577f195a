"""Grading mode inside a kernel: the signed log, the locked answer key, solution() still working (no kernel needed).

Locking the answer key is for the rest of a process, so each test here runs a
small Python in a subprocess, the way the grader's start-up file does it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.exercises import REGISTRY, checklog
from helpers.teacher.in_kernel import GRADING_ENV
from helpers.teacher.logbook import read_log

ROOT = Path(__file__).resolve().parent.parent
KEY = b"k" * 32

SCRIPT = r'''
import json, sys
from helpers.teacher.in_kernel import enter_grading_mode, finish
assert enter_grading_mode()
from helpers.exercises import REGISTRY, check, check_function, reveal, solution, mistake_values, hint
from helpers.exercises.registry import AnswerKeyLocked
said = {}
def attempt(name, call):
    try:
        call()
        said[name] = "worked"
    except AnswerKeyLocked as error:
        said[name] = "locked: " + str(error)
attempt("worked", lambda: REGISTRY["explain-rr-mean"].worked())
attempt("answer", lambda: REGISTRY["explain-rr-mean"].answer())
attempt("cases", lambda: REGISTRY["mrr-function"].cases())
said["code"] = REGISTRY["mrr-function"].code
shown = solution("mrr-function")
said["solution_code"] = shown.code
said["reveal"] = reveal("explain-rr-mean").text
said["check"] = check("explain-rr-mean", "0.5667").verdict.name
said["slips"] = len(mistake_values("explain-rr-mean"))
hint("new-hit-rate-at-2")
def mrr(ranks):
    return sum(1 / r for r in ranks if r) / len(ranks)
report = check_function("mrr-function", mrr)
said["function"] = [report.correct, report.answered, report.message]
finish()
print(json.dumps(said))
'''


def run_graded(tmp_path: Path, script: str) -> tuple[dict, Path]:
    """Run a script as a graded kernel would start: key file and log named in the environment."""
    key_file, log = tmp_path / "key", tmp_path / "log.jsonl"
    key_file.write_bytes(KEY)
    env = {**os.environ, GRADING_ENV: str(key_file), checklog.LOG_ENV: str(log), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not key_file.exists(), "the key file is deleted once read"
    return json.loads(done.stdout.strip().splitlines()[-1]), log


@pytest.fixture(scope="module")
def graded_run(tmp_path_factory):
    return run_graded(tmp_path_factory.mktemp("graded"), SCRIPT)


def test_the_answer_key_is_locked_but_solution_and_reveal_work(graded_run):
    said, _ = graded_run
    for name in ("worked", "answer", "cases"):
        assert said[name].startswith("locked: "), (name, said[name])
    assert "solution('explain-rr-mean')" in said["worked"]
    assert said["code"] == "", "the solution code is set aside for solution() only"
    assert said["solution_code"] == REGISTRY["mrr-function"].code
    assert said["reveal"] == f"{REGISTRY['explain-rr-mean'].worked().value:.4f}"
    assert said["slips"] > 0, "mistake_values (lesson 07) still lists the slips"


def test_check_only_records_while_graded(graded_run):
    said, _ = graded_run
    assert said["check"] == "RECORDED"
    correct, answered, message = said["function"]
    assert not correct and answered and message == "Recorded for the grader."


def test_every_line_is_signed_and_numbered_and_refusals_are_recorded(graded_run):
    _, log = graded_run
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [entry["seq"] for entry in entries] == list(range(1, len(entries) + 1))
    assert all(entry["mac"] == checklog.signature(entry, KEY) for entry in entries)
    events = [(entry["event"], entry["exercise"]) for entry in entries]
    assert events[:3] == [("answer-key", "explain-rr-mean")] * 2 + [("answer-key", "mrr-function")]
    assert [entry["via"] for entry in entries[:3]] == ["worked()", "answer()", "cases()"]
    assert ("solution", "mrr-function") in events and ("reveal", "explain-rr-mean") in events
    assert events[-1] == ("end", "-") and entries[-1]["replaced"] == []
    reading = read_log(log, KEY, REGISTRY)
    assert reading.problems == [] and reading.ended
    check = next(event for event in reading.events if event["event"] == "check")
    assert check["given"] == {"type": "str", "text": "0.5667"}


def test_a_replaced_check_is_named_in_the_end_line(tmp_path):
    script = (
        "from helpers.teacher.in_kernel import enter_grading_mode, finish\n"
        "enter_grading_mode()\n"
        "import helpers.exercises.checking as checking\n"
        "checking.check = lambda exercise_id, answer: 'Right!'\n"
        "finish()\nprint('{}')\n"
    )
    _, log = run_graded(tmp_path, script)
    reading = read_log(log, KEY, REGISTRY)
    assert reading.replaced == ["helpers.exercises.checking.check"]


def test_without_the_grader_nothing_is_locked_or_signed(tmp_path, monkeypatch):
    from helpers.exercises import check
    from helpers.teacher.in_kernel import enter_grading_mode

    monkeypatch.delenv(GRADING_ENV, raising=False)
    assert enter_grading_mode() is False
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv(checklog.LOG_ENV, str(log))
    assert check("explain-rr-mean", "0.5667").correct
    assert "mac" not in json.loads(log.read_text())
