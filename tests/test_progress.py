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
from helpers.exercises.checking import distinct_slips
from helpers.exercises.fresh import VARIANTS
from helpers.exercises.own_progress import lessons
from helpers.exercises.practising import practice

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


def test_the_test_run_keeps_the_record_off_by_its_name():
    from tests import conftest

    assert conftest.PROGRESS_ENV == record.PROGRESS_ENV
    assert os.environ[record.PROGRESS_ENV] == "off"  # outside a test that turns it on


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
        handle.write(b'{"time": "noon", "event": "check", "exercise": "sheet-ndcg3", "verdict": "right"}\n')
        handle.write(b'{"event": "check", "exercise": "sheet-ndcg3", "verdict": "slip", "slips": "no-discount"}\n')
    check(SHEET, 0.912)
    with pytest.warns(UserWarning, match=r"skipped 4 damaged line\(s\).*line 2, 3, 4, 5"):
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


@pytest.mark.slow  # two fresh Pythons
def test_two_kernels_writing_at_once_keep_every_line_whole(data_dir):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, "50"], env=env, cwd=data_dir.parent)
               for _ in range(2)]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    events = lines_of(data_dir)  # json.loads of every line: none torn
    assert len(events) == 100
    assert sorted(event["verdict"] for event in events) == ["slip"] * 50 + ["wrong"] * 50


# --- progress() ------------------------------------------------------------------------------------------


def row(table, exercise_id: str) -> dict:
    return table.set_index("exercise").loc[exercise_id].to_dict()


def test_progress_has_a_row_per_exercise_with_its_status_tries_slips_hints_and_practice(data_dir):
    from helpers.exercises import REGISTRY, progress

    check(SHEET, RETRIEVED_ONLY)
    check(SHEET, 0.556)  # no discount
    hint(SHEET)
    hint(SHEET)
    solution(SHEET)
    check("new-mrr-d8-first", None)  # not answered: no try
    run = practice(SHEET, seed=5)
    run.check(run.variant.worked.value)
    shown = progress()
    assert list(shown.table.columns) == ["lesson", "exercise", "status", "tries", "slips", "hints", "solutions",
                                         "practice"]
    assert len(shown.table) == len(REGISTRY)
    assert row(shown.table, SHEET) == {"lesson": "03", "status": "right", "tries": 3,
                                       "slips": "retrieved-only-ideal, no-discount", "hints": 2, "solutions": 1,
                                       "practice": 1}
    assert row(shown.table, "new-mrr-d8-first")["status"] == "not tried"
    assert shown.counts() == {"right": 1, "not right yet": 0, "not tried": len(REGISTRY) - 1}
    assert shown.slips.set_index("slip")["times"].to_dict() == {"retrieved-only-ideal": 1, "no-discount": 1}
    assert shown.events == 7


def test_progress_of_one_lesson_and_its_next_step(data_dir):
    from helpers.exercises import exercises_of, progress

    check("kb04-graded-2", 0.5)
    shown = progress(lesson="03")
    assert list(shown.table["exercise"]) == [found.id for found in exercises_of("03")]
    assert set(shown.table["lesson"]) == {"03"}
    assert row(shown.table, "kb04-graded-2")["status"] == "not right yet"
    assert shown.next_step == ("Next: run practice('kb04-graded-2'): kb04-graded-2 on new numbers (your last answer "
                               "to kb04-graded-2 was not right yet).")
    check("kb04-graded-2", None)  # running the cell untouched changes nothing
    assert progress(lesson="04").next_step == "Next: answer advisor-mrr2 in lesson 04 (not tried yet)."
    assert "lesson 03" in shown.headline()


@pytest.mark.parametrize(("lesson", "error", "words"), [
    ("3", ValueError, r"unknown lesson '3': the lessons with exercises are 01, .*09; did you mean '03'\?"),
    ("10", ValueError, "unknown lesson '10'"),
    (3, TypeError, "lesson is a text such as '03', got int 3"),
])
def test_progress_refuses_an_unknown_lesson_naming_it(data_dir, lesson, error, words):
    from helpers.exercises import progress

    with pytest.raises(error, match=words):
        progress(lesson=lesson)


def test_progress_renders_as_one_readable_table_in_light_and_dark(data_dir):
    from helpers.exercises import progress

    check(SHEET, RETRIEVED_ONLY)
    page = progress()._repr_html_()
    assert page.count("<table") == 1 and "retrieved-only-ideal" in page
    assert "lesson-table" in page  # helpers.tables.table: theme colours, aligned, never typeset as maths
    assert "Your progress (all lessons): 0 of" in page and "not right yet" in page
    figure = progress().chart()
    bars = figure.axes[0].patches
    assert sum(bar.get_width() for bar in bars) == len(progress().table)


def test_reset_empties_the_record(data_dir):
    from helpers.exercises import progress

    check(SHEET, RETRIEVED_ONLY)
    progress().reset()
    assert record.read_events() == []
    assert set(progress().table["status"]) == {"not tried"}
    check(SHEET, RETRIEVED_ONLY)  # the record goes on after a reset
    assert len(record.read_events()) == 1


def test_progress_says_when_nothing_is_recorded(data_dir, monkeypatch):
    from helpers.exercises import progress

    monkeypatch.setenv(record.PROGRESS_ENV, "off")
    shown = progress()
    assert f"the record is off here ({record.PROGRESS_ENV}=off)" in shown._repr_html_()


# --- practice() without an id ----------------------------------------------------------------------------


def own_number(run, codes: tuple[str, ...]) -> float:
    """What these slips give on the variant dealt (from its worked answer, as the checker reads it)."""
    return next(value for found, value in run.variant.worked.slips if found == codes)


def test_practice_deals_the_exercise_of_the_latest_slip_on_numbers_where_that_slip_shows(data_dir):
    check("new-mrr-d8-first", 0.5)  # not right: older
    check(SHEET, RETRIEVED_ONLY)
    run = practice()
    assert run.exercise.id == SHEET
    assert run.reason == ('last time, on sheet-ndcg3, your answer was what this slip gives: "ideal ranking built '
                          'from the retrieved results only"; here that slip gives a different number')
    assert f"Chosen for you: {run.reason}." in repr(run) and "Chosen for you" in run._repr_html_()
    mine = own_number(run, ("retrieved-only-ideal",))
    # the slips the checker can name: a combination that gives what one of its parts gives is that part
    # (with 0/1 grades, exponential-for-linear + retrieved-only-ideal is retrieved-only-ideal)
    worked = run.variant.worked
    right, others = worked.value, [value for codes, value in distinct_slips(run.exercise, worked)
                                   if codes != ("retrieved-only-ideal",)]
    assert f"{mine:.3f}" != f"{right:.3f}"
    assert f"{mine:.3f}" not in {f"{value:.3f}" for value in others}
    said = run.check(round(mine, 3))  # the same slip on these numbers is named, and only it
    assert said.slip_groups == (("retrieved-only-ideal",),)


def test_a_slip_put_right_gives_way_to_an_exercise_not_right_yet(data_dir):
    check(SHEET, RETRIEVED_ONLY)
    check("advisor-mrr2", 0.123)  # wrong, no slip named
    run = practice(SHEET, seed=1)
    run.check(run.variant.worked.value)  # the slip put right on a variant
    run = practice()
    assert run.exercise.id == "advisor-mrr2"
    assert run.reason == "your last answer to advisor-mrr2 was not right yet"


def test_then_the_first_exercise_not_tried_then_the_right_answer_seen_longest_ago(data_dir):
    from helpers.exercises import REGISTRY

    run = practice()
    first = next(exercise_id for exercise_id in REGISTRY if exercise_id in VARIANTS)
    assert run.exercise.id == first == "new-mrr-d8-first"
    assert run.reason == "new-mrr-d8-first (lesson 01) is not tried yet"
    path = record.progress_file()
    path.parent.mkdir(parents=True)
    oldest = "c-ap3"
    lines = [{"time": 1_800_000_000 + (0 if exercise_id == oldest else 100 + number), "event": "check",
              "exercise": exercise_id, "lesson": REGISTRY[exercise_id].lesson, "verdict": "right", "slips": []}
             for number, exercise_id in enumerate(REGISTRY)]
    lines.sort(key=lambda line: line["time"])
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run = practice()
    assert run.exercise.id == oldest
    assert run.reason.startswith("your right answer to c-ap3 is the oldest (")


def test_practice_without_a_record_says_so(data_dir, monkeypatch):
    monkeypatch.setenv(record.PROGRESS_ENV, "off")
    run = practice()
    assert run.reason == ("new-mrr-d8-first (lesson 01) is not tried yet "
                          f"(the record is off here ({record.PROGRESS_ENV}=off))")


def test_practice_without_an_id_takes_no_seed(data_dir):
    with pytest.raises(ValueError, match="seed= deals one variant of one exercise: give its id too"):
        practice(seed=3)


SLIP_IN_ONE = """
from helpers.exercises import check
print(check("sheet-ndcg3", 0.665).verdict.name)
"""
PROGRESS_AND_PRACTICE_IN_ANOTHER = """
import json
from helpers.exercises import practice, progress
shown = progress(lesson="03")
run = practice()
said = run.check(run.variant.worked.value)
print(json.dumps({"status": shown.table.set_index("exercise").loc["sheet-ndcg3", "status"],
                  "slips": shown.table.set_index("exercise").loc["sheet-ndcg3", "slips"],
                  "dealt": run.exercise.id, "reason": run.reason, "verdict": said.verdict.name}))
"""
RIGHT_THEN_RESET = """
import json
from helpers.exercises import progress
row = progress().table.set_index("exercise").loc["sheet-ndcg3"]
status, practised = row["status"], int(row["practice"])
progress().reset()
print(json.dumps({"status": status, "practice": practised,
                  "after": sorted(set(progress().table["status"]))}))
"""


def in_a_process(code: str) -> str:
    """Run code in a Python of its own (a second kernel's process), the record in this test's data folder."""
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.slow  # three fresh Pythons, one after the other
def test_across_two_processes_a_slip_then_progress_then_practice_then_right_then_reset(data_dir):
    before = repository_files()
    assert in_a_process(SLIP_IN_ONE) == "SLIP"
    second = json.loads(in_a_process(PROGRESS_AND_PRACTICE_IN_ANOTHER))
    assert second["status"] == "not right yet" and second["slips"] == "retrieved-only-ideal"
    assert second["dealt"] == SHEET and "retrieved results only" in second["reason"]
    assert second["verdict"] == "RIGHT"
    first = json.loads(in_a_process(RIGHT_THEN_RESET))
    assert first == {"status": "right", "practice": 1, "after": ["not tried"]}
    assert repository_files() == before  # nothing written in the repository
    assert record.progress_file().is_file() and record.progress_file().read_bytes() == b""


# --- lesson 00's section ---------------------------------------------------------------------------------


@pytest.mark.notebook
def test_lesson_00_shows_the_learners_table_chart_and_next_step(data_dir, tmp_path):
    from helpers.exercises import REGISTRY
    from tests.notebook_runner import printed_text, run_notebook

    check(SHEET, RETRIEVED_ONLY)
    check("new-mrr-d8-first", 0.5)
    notebook, _ = run_notebook("00", tmp_path)
    assert not [output for cell in notebook.cells for output in cell.get("outputs", [])
                if output.output_type == "error"]
    text = printed_text(notebook)
    assert f"Your progress (all lessons): 0 of {len(REGISTRY)} exercises right, 2 not right yet" in text
    assert "Next: run practice(): it deals sheet-ndcg3 on new numbers (last time, on sheet-ndcg3, your answer" in text
    pages = [output["data"]["text/html"] for cell in notebook.cells for output in cell.get("outputs", [])
             if "text/html" in output.get("data", {})]
    assert any("retrieved-only-ideal" in page and "lesson-table" in page for page in pages)
    charts = [cell for cell in notebook.cells if "mine.chart()" in "".join(cell.source)]
    assert len(charts) == 1 and any("image/png" in output.get("data", {}) for output in charts[0].outputs)


ASSIGNMENT_KERNEL = """
import json
from helpers.exercises import check, hint, is_assignment_copy, practice, progress
check("sheet-ndcg3", 0.665)
hint("sheet-ndcg3")
shown = progress(lesson="03")
shown.reset()
try:
    practice()
    refused = ""
except ValueError as error:
    refused = str(error)
print(json.dumps({"mode": is_assignment_copy(), "note": shown.note, "rows": len(shown.table), "refused": refused}))
"""


@pytest.mark.slow  # a fresh Python on the keyless copy
def test_an_assignment_copy_records_nothing_and_its_progress_says_so(data_dir, tmp_path):
    from helpers.exercises import REGISTRY
    from helpers.teacher.keyless import copy_keyless_helpers

    copy = tmp_path / "assignment"
    copy_keyless_helpers(copy, REGISTRY.values())
    done = subprocess.run([sys.executable, "-c", ASSIGNMENT_KERNEL], env={**os.environ, "PYTHONPATH": str(copy)},
                          cwd=copy, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said == {"mode": True, "note": "an assignment copy records nothing", "rows": 0,
                    "refused": "practice() needs a practice copy; this assignment copy holds no answer key"}
    assert not data_dir.exists()


def a_slip_named_alone(exercise_id: str) -> tuple[str, tuple[str, ...]]:
    """An answer to the lesson's exercise that check names as one slip alone, and that slip's codes."""
    from helpers.exercises import mistake_values

    for text in mistake_values(exercise_id)["value"]:
        said = check(exercise_id, text)
        if said.verdict.name == "SLIP" and len(said.slip_groups) == 1:
            return text, said.slip_groups[0]
    raise AssertionError(f"{exercise_id}: no slip named alone")


@pytest.mark.parametrize("exercise_id", sorted(VARIANTS))
def test_every_practised_exercise_is_dealt_on_numbers_where_the_learners_slip_is_named_alone(data_dir, exercise_id):
    from helpers.exercises import get

    text, codes = a_slip_named_alone(exercise_id)
    record.reset()
    check(exercise_id, text)
    run = practice()
    assert run.exercise.id == exercise_id
    assert run.reason.endswith("; here that slip gives a different number")
    own = 100 * run.variant.worked.value if codes == ("percent-without-sign",) else own_number(run, codes)
    said = run.check(f"{own:.{get(exercise_id).decimals}f}")
    assert said.slip_groups == (codes,), (exercise_id, codes, said.message)


# --- each lesson's closing "More practice" cell -----------------------------------------------------------


LESSONS_WITH_EXERCISES = lessons()


def closing_cells(lesson: str) -> tuple:
    """The lesson's "More practice" markdown cell and the cell after it (its progress cell), as committed."""
    import nbformat

    from helpers.exercises.new import CLOSING
    from tests.notebook_runner import notebook_path

    cells = nbformat.read(notebook_path(lesson), as_version=4).cells
    found = [index for index, cell in enumerate(cells) if CLOSING in cell.source]
    assert len(found) == 1, f"lesson {lesson}: {len(found)} cells say {CLOSING}"
    return cells[found[0]], cells[found[0] + 1], cells[: found[0]]


def shown_by(source: str):
    """What a notebook shows for a cell: the value of its last line, the lines before it run first."""
    import ast

    tree = ast.parse(source)
    last = tree.body.pop()
    assert isinstance(last, ast.Expr), "the cell ends with the expression it shows"
    namespace: dict = {}
    exec(compile(tree, "<cell>", "exec"), namespace)
    return eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)


def test_every_lesson_with_exercises_is_listed():
    assert LESSONS_WITH_EXERCISES == [f"0{number}" for number in range(1, 10)]


@pytest.mark.parametrize("lesson", LESSONS_WITH_EXERCISES)
def test_each_lesson_closes_its_exercises_with_more_practice_and_its_progress_cell(lesson):
    from helpers.exercises.calls import ids_checked
    from helpers.exercises.new import PROGRESS_CELL
    from helpers.teacher.roles import role_of

    closing, cell, before = closing_cells(lesson)
    assert closing.cell_type == "markdown" and role_of(closing) == "exercise"
    assert "The cell below shows" in closing.source and "practice(" in closing.source
    assert cell.cell_type == "code" and cell.metadata["tags"] == ["exercise"]
    assert cell.source == PROGRESS_CELL.format(lesson=lesson) and cell.outputs == []
    assert any(ids_checked(earlier.source) for earlier in before if earlier.cell_type == "code"), "after the checks"


@pytest.mark.parametrize("lesson", LESSONS_WITH_EXERCISES)
def test_each_lessons_progress_cell_shows_that_lessons_rows_only(data_dir, lesson):
    from helpers.exercises import exercises_of

    other = next(found.id for found in exercises_of("03" if lesson != "03" else "04") if found.kind == "answer")
    ids = [found.id for found in exercises_of(lesson)]
    first = next(found.id for found in exercises_of(lesson) if found.kind == "answer")
    (other_text, _), (text, codes) = a_slip_named_alone(other), a_slip_named_alone(first)
    record.reset()  # finding the slips checked answers: the record starts here
    check(other, other_text)  # another lesson's slip: not in this lesson's table
    check(first, text)
    hint(first)
    hint(ids[-1])
    shown = shown_by(closing_cells(lesson)[1].source)
    assert list(shown.table["exercise"]) == ids and set(shown.table["lesson"]) == {lesson}
    assert row(shown.table, first) == {"lesson": lesson, "status": "not right yet", "tries": 1,
                                       "slips": ", ".join(codes), "hints": 1 + (ids[-1] == first),
                                       "solutions": 0, "practice": 0}
    assert row(shown.table, ids[-1])["hints"] == 1 + (ids[-1] == first)
    assert shown.counts() == {"right": 0, "not right yet": 1, "not tried": len(ids) - 1}
    assert shown.slips.set_index("slip")["times"].to_dict() == dict.fromkeys(codes, 1)
    again = f"run practice('{first}'): {first} on new numbers" if first in VARIANTS else f"open lesson {lesson} and " \
        f"answer {first} again"
    assert shown.next_step.startswith(f"Next: {again} (last time, on {first}, your answer was what this slip gives")
    assert "lesson" not in shown.shown().columns  # compact: the lesson is in the headline
    assert f"Your progress (lesson {lesson}): 0 of {len(ids)} exercises right, 1 not right yet" in repr(shown)


@pytest.mark.parametrize("lesson", ["01", "05", "09"])
def test_a_progress_cell_in_a_fresh_kernel_with_an_empty_record_is_a_table_that_says_nothing_is_tried(
        data_dir, lesson):
    from helpers.exercises import exercises_of

    shown = shown_by(closing_cells(lesson)[1].source)
    ids = [found.id for found in exercises_of(lesson)]
    text = repr(shown)
    assert text.startswith(f"Your progress: nothing tried yet in lesson {lesson} ({len(ids)} exercises).\n")
    assert all(exercise_id in text for exercise_id in ids) and "Empty DataFrame" not in text
    assert text.endswith(f"Next: answer {ids[0]} in lesson {lesson} (not tried yet).")
    assert shown._repr_html_().count("<table") == 1
    assert not data_dir.exists()  # showing the progress writes nothing


CLOSING_CELL_IN_A_KERNEL = """
import json
{body}
shown = {last}
print(json.dumps({{"text": repr(shown), "html_tables": shown._repr_html_().count("<table")}}))
"""


@pytest.mark.slow  # a fresh Python on the keyless copy
@pytest.mark.parametrize("graded", [False, True], ids=["assignment-copy", "graded-run"])
def test_the_progress_cell_in_an_assignment_copy_and_under_the_grader_says_why_it_shows_nothing(
        data_dir, tmp_path, graded):
    from helpers.exercises import REGISTRY
    from helpers.teacher.keyless import copy_keyless_helpers

    copy = tmp_path / "assignment"
    copy_keyless_helpers(copy, REGISTRY.values())
    body, last = closing_cells("04")[1].source.rsplit("\n", 1)  # the cell, its last line kept to be shown
    code = CLOSING_CELL_IN_A_KERNEL.format(body=body, last=last)
    env = {**os.environ, "PYTHONPATH": str(copy), **({name: "1" for name in record.GRADED_ENVS[:1]} if graded else {})}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=copy, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said == {"text": "Your progress (lesson 04): nothing recorded here.\n(an assignment copy records nothing)\n"
                            "Next: answer the exercises; your teacher's grader judges them.", "html_tables": 0}
    assert not data_dir.exists()


def test_a_graded_run_s_progress_cell_says_it_records_nothing(data_dir, monkeypatch):
    check(SHEET, RETRIEVED_ONLY)
    monkeypatch.setenv(record.GRADED_ENVS[0], "1")
    shown = shown_by(closing_cells("03")[1].source)
    assert shown.note == "a graded run records nothing"
    check(SHEET, 0.5)
    assert len(record.read_events()) == 1  # nothing more recorded


def test_the_classroom_view_keeps_no_record(monkeypatch):
    from helpers.teacher.classroom import classroom_environment

    monkeypatch.setenv(record.PROGRESS_ENV, "on")
    assert classroom_environment()[record.PROGRESS_ENV] == "off"
