"""A learner's own progress record, progress() and practice() aimed at the slip just made (every lesson).

The record is off for the whole test run (tests/conftest.py); here each test turns it on in its own
JUPYTER_DATA_DIR under tmp_path, so nothing is written in the real data folder or in the repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers.exercises import check, hint, record, solution
from helpers.exercises.fresh import practice

ROOT = Path(__file__).resolve().parents[1]
SHEET = "sheet-ndcg3"  # lesson 03: nDCG@3 of the worksheet
RETRIEVED_ONLY = 0.665  # what the ideal taken from the returned list alone gives on it (mistake_values says so)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """The record on, in a Jupyter data folder of this test's own."""
    folder = tmp_path / "jupyter-data"
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(folder))
    monkeypatch.setenv(record.PROGRESS_ENV, "on")
    for name in record.GRADED_ENVS:
        monkeypatch.delenv(name, raising=False)
    return folder


def lines_of(folder: Path) -> list[dict]:
    path = folder / record.FOLDER / record.FILE
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def repository_files() -> set[str]:
    """Every file of the repository's folder that git does not ignore, tracked or not."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True)
    return set(listed.stdout.splitlines())


def test_check_hint_solution_and_practice_each_append_one_event(data_dir):
    assert record.progress_file() == data_dir / "ranking-metrics-by-hand" / "progress.jsonl"
    check(SHEET, RETRIEVED_ONLY)
    hint(SHEET)
    solution(SHEET)
    run = practice(SHEET, seed=3)
    run.check(run.variant.worked.value)
    events = lines_of(data_dir)
    assert [event["event"] for event in events] == ["check", "hint", "solution", "practice-check"]
    assert {event["exercise"] for event in events} == {SHEET}
    assert {event["lesson"] for event in events} == {"03"}
    assert events[0]["verdict"] == "slip"
    assert ["retrieved-only-ideal"] in events[0]["slips"]
    assert events[3]["verdict"] == "right" and events[3]["seed"] == 3


@pytest.mark.parametrize("value", ["off", "OFF", "0", "no", "false"])
def test_the_environment_variable_turns_the_record_off(data_dir, monkeypatch, value):
    monkeypatch.setenv(record.PROGRESS_ENV, value)
    check(SHEET, RETRIEVED_ONLY)
    hint(SHEET)
    assert not data_dir.exists()
    assert record.PROGRESS_ENV in record.why_not_recording()


@pytest.mark.parametrize("name", record.GRADED_ENVS)
def test_a_graded_kernel_records_nothing(data_dir, monkeypatch, name):
    monkeypatch.setenv(name, "1" if name.endswith("FD") else "graded-run")
    if name.endswith("FD"):  # the grader's pipe: give the check log a descriptor it can write to
        reader, writer = os.pipe()
        monkeypatch.setenv(name, str(writer))
    check(SHEET, RETRIEVED_ONLY)
    assert not data_dir.exists()
    assert record.why_not_recording() == "a graded run records nothing"
    if name.endswith("FD"):
        os.close(writer)
        assert b'"check"' in os.read(reader, 4096)  # the grader still hears the answer
        os.close(reader)


def test_a_damaged_line_is_skipped_with_a_warning(data_dir):
    check(SHEET, RETRIEVED_ONLY)
    path = record.progress_file()
    with open(path, "ab") as handle:
        handle.write(b'{"time": 1, "event": "check", "exerc\n[1, 2]\n')
    check(SHEET, 0.912)
    with pytest.warns(UserWarning, match=r"skipped 2 damaged line\(s\).*line 2, 3"):
        events = record.read_events()
    assert [event.get("verdict") for event in events] == ["slip", "wrong"]


def test_a_record_inside_the_repository_is_refused(data_dir, monkeypatch):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(ROOT / "notebooks" / ".jupyter-data"))
    assert "inside the collection's folder" in record.why_not_recording()
    before = repository_files()
    check(SHEET, RETRIEVED_ONLY)
    assert not (ROOT / "notebooks" / ".jupyter-data").exists()
    assert repository_files() == before


WRITER = textwrap.dedent("""
    import sys
    from helpers.exercises import check
    for number in range(int(sys.argv[1])):
        check("sheet-ndcg3", 0.665 if number % 2 else 0.912)
""")


def test_two_kernels_writing_at_once_keep_every_line_whole(data_dir):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, "50"], env=env, cwd=data_dir.parent)
               for _ in range(2)]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    events = lines_of(data_dir)  # json.loads of every line: none torn
    assert len(events) == 100
    assert sorted(event["verdict"] for event in events) == ["slip"] * 50 + ["wrong"] * 50
