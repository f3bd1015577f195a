"""The grader's parts that need no kernel: the log check, judging, the reports, the --out check, the sandbox."""

from __future__ import annotations

import csv
import html
import json
import math
import os
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

from helpers.exercises import REGISTRY, check, checking
from helpers.exercises.checking import mistake_code
from helpers.slips import describe as describe_slip
from helpers.teacher import grade, limits, logbook, reports, sandbox
from helpers.teacher.judging import AnswerKey, judge_notebook, mistake_title, read_points
from helpers.teacher.logbook import read_log
from helpers.teacher.results import Judged, NotebookResult, Problem, load_results
from helpers.teacher.submissions import learner_of, lesson_of, lessons_of, read_notebook

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def key():
    return AnswerKey.build({"explain-rr-mean": 3})


def value_text(exercise_id: str) -> str:
    found = REGISTRY[exercise_id]
    return f"{found.worked().value:.{found.decimals}f}"


def check_event(exercise_id: str, text: str | None, kind: str = "str") -> dict:
    return {"event": "check", "exercise": exercise_id, "given": {"type": kind, "text": text}}


# --- the log ------------------------------------------------------------------------------------


def test_the_log_gives_its_events_in_order_and_names_unknown_ids(tmp_path):
    log = tmp_path / "log.jsonl"
    lines = [json.dumps(check_event("explain-rr-mean", "0.5667")), "not json at all", "[1, 2]",
             json.dumps(check_event("made-up-exercise", "1")), json.dumps(check_event("explain-rr-mean", "0.5"))]
    log.write_text("\n".join(lines) + "\n")
    reading = read_log(log, REGISTRY)
    assert [event["given"]["text"] for event in reading.events] == ["0.5667", "0.5"]
    assert [problem.code for problem in reading.problems] == ["unknown-exercise"]
    assert "made-up-exercise" in reading.problems[0].message
    assert read_log(tmp_path / "missing.jsonl", REGISTRY).events == []


def test_a_log_past_the_limit_is_read_up_to_it(tmp_path, monkeypatch):
    from helpers.teacher import logbook

    monkeypatch.setattr(logbook, "MAX_LOG_BYTES", 200)
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(json.dumps(check_event("explain-rr-mean", str(n))) for n in range(20)) + "\n")
    reading = read_log(log, REGISTRY)
    assert [problem.code for problem in reading.problems] == ["log-too-long"]
    assert 0 < len(reading.events) < 20 and reading.events[0]["given"]["text"] == "0"


# --- judging in the grader's process -------------------------------------------------------------


def test_the_last_answer_counts_and_slips_are_named(key):
    slips = REGISTRY["new-hit-rate-at-2"].worked().slips
    slip = next(value for codes, value in slips if codes == ("mrr-for-hit-rate",))
    events = [
        check_event("explain-rr-mean", "0.1"),
        check_event("explain-rr-mean", value_text("explain-rr-mean")),
        check_event("new-hit-rate-at-2", f"{slip:.3f}"),
        {"event": "hint", "exercise": "new-hit-rate-at-2", "number": 1},
        check_event("new-mrr-d8-first", None, kind="list"),
    ]
    judged = {answer.exercise: answer for answer in judge_notebook(["01"], events, key)}
    assert list(judged) == ["new-mrr-d8-first", "new-hit-rate-at-2", "explain-rr-mean", "mrr-function"]
    right = judged["explain-rr-mean"]
    assert right.correct and right.points == 3 and right.max_points == 3 and right.hint == ""
    wrong = judged["new-hit-rate-at-2"]
    assert (wrong.correct, wrong.points, wrong.mistake) == (False, 0, "mrr-for-hit-rate")
    assert wrong.mistake_title and wrong.hint == REGISTRY["new-hit-rate-at-2"].hints[1]  # the next one not seen
    assert wrong.help_used == ("1 hint",)
    assert judged["new-mrr-d8-first"].verdict == "could not be read" and "list" in judged["new-mrr-d8-first"].message
    assert judged["mrr-function"].verdict == "not checked"


def test_an_exercise_whose_cell_raised_says_which_cell_and_what_it_raised(key):
    """A slip found by hand: a cell that never ran its check (a SyntaxError) was only 'never recorded an answer'."""
    from helpers.teacher.grading import silent_cells_named
    from helpers.teacher.kernel import CellError, Run

    sources = ["", "from helpers.exercises import check", 'answer = 57.1%\ncheck("new-hit-rate-at-2", answer)',
               "1 / 0", "check('explain-rr-mean', answer)"]
    events = [check_event("explain-rr-mean", "0.1")]
    errors = [CellError(3, "SyntaxError", "invalid syntax"), CellError(4, "ZeroDivisionError", "division by zero")]
    run = Run(errors=errors)
    judged = {a.exercise: a for a in silent_cells_named(judge_notebook(["01"], events, key), events, run, sources)}
    assert judged["new-hit-rate-at-2"].message == (
        "The exercise cell never recorded an answer: cell 3, where it is checked, stopped with SyntaxError.")
    assert judged["new-mrr-d8-first"].message == "The exercise cell never recorded an answer."  # no cell of its raised
    assert judged["explain-rr-mean"].verdict != "not checked" and "cell" not in judged["explain-rr-mean"].message
    assert judged["mrr-function"].message == "The exercise cell never recorded your function."


def slip_value(exercise_id: str, codes: tuple[str, ...]) -> str:
    """The answer one slip gives on an exercise, at its precision."""
    found = REGISTRY[exercise_id]
    value = next(value for slip, value in found.worked().slips if slip == codes)
    return f"{value:.{found.decimals}f}"


def test_two_different_slips_that_give_the_answer_are_alternatives_and_a_combination_is_one_slip(key):
    def title(code: str) -> str:
        return describe_slip(code).title

    alternative, combined = ("no-discount",), ("exponential-for-linear", "retrieved-only-ideal")
    # these two slips of sheet-ndcg3 gave the same number (0.625) while its question kept kb21 at grade 3; it asks
    # about grade 4 now, so the key here makes them coincide again: the combination gives what the slip alone gives
    found, real = REGISTRY["sheet-ndcg3"], REGISTRY["sheet-ndcg3"].worked()
    no_discount = next(value for codes, value in real.slips if codes == alternative)
    assert slip_value("sheet-ndcg3", alternative) != slip_value("sheet-ndcg3", combined), "apart in the register"
    coinciding = replace(real, slips=tuple((codes, no_discount if codes == combined else value)
                                           for codes, value in real.slips))
    key = replace(key, worked={**key.worked, "sheet-ndcg3": coinciding})
    both = f"{no_discount:.{found.decimals}f}"
    single = ("exponential-for-linear", "exp-without-minus-one")
    alone = slip_value("sheet-ndcg3", single)
    assert checking.judge(found, both, coinciding).slip_groups == (alternative, combined)
    assert checking.judge(found, alone, coinciding).slip_groups == (single,)

    def graded(answer: str) -> Judged:
        return next(a for a in judge_notebook(["03"], [check_event("sheet-ndcg3", answer)], key)
                    if a.exercise == "sheet-ndcg3")

    two = graded(both)
    assert two.mistake == "no-discount|exponential-for-linear+retrieved-only-ideal"
    assert two.mistake_title == (f"(1) {title('no-discount')}; or (2) {title('exponential-for-linear')} together "
                                 f"with {title('retrieved-only-ideal')}")
    assert "2 different slips" in two.message
    one = graded(alone)
    assert one.mistake == "exponential-for-linear+exp-without-minus-one"
    assert one.mistake_title == f"{title('exponential-for-linear')} together with {title('exp-without-minus-one')}"

    # the learner's page names both as alternatives; the record reads back, and so does an older one
    result = NotebookResult("dana", "dana/03.ipynb", "03", answers=[two])
    page = reports.feedback_html("dana", [result])
    assert f"Named mistake: (1) {title('no-discount')}; or (2)" in html.unescape(page)
    assert NotebookResult.from_json(result.to_json()).answers == [two]
    older = json.loads(result.to_json())
    older["answers"][0].update(mistake="no-discount+exponential-for-linear+retrieved-only-ideal",
                               mistake_title="no discount together with exponential gain")  # as graded before
    assert NotebookResult.from_json(json.dumps(older)).answers[0].mistake_title.startswith("no discount together")
    assert mistake_title("no-discount+natural-log") == f"{title('no-discount')} together with {title('natural-log')}"
    assert mistake_title(["no-discount", "natural-log"]) == mistake_title("no-discount+natural-log")


def test_a_recorded_answer_gets_the_verdict_check_gives(key):
    for answer in ("0.5667", "0,567", "56.67%", "0.57", "0.5666", "17/30", "abc"):
        events = [check_event("explain-rr-mean", answer)]
        judged = judge_notebook(["01"], events, key)[2]
        assert judged.verdict == check("explain-rr-mean", answer).verdict.value, answer


def test_function_outputs_are_judged_and_a_template_is_not_answered(key):
    from helpers.exercises.runner import Outcome, _recorded

    cases = key.cases["mrr-function"]
    right = [_recorded(Outcome("value", float(case.expected) if not math.isnan(case.expected) else 0.0))
             for case in cases]
    template = [_recorded(Outcome("error", error="NotImplementedError: x",
                                  error_types=("NotImplementedError", "RuntimeError", "Exception")))] * len(cases)
    kept = {"event": "check_function", "exercise": "mrr-function", "kept": True}
    cases_of = [
        ([kept, {"event": "outputs", "exercise": "mrr-function", "outputs": right}], "right", 1),
        ([kept, {"event": "outputs", "exercise": "mrr-function", "outputs": template}], "not answered yet", 0),
        ([{**kept, "kept": False}], "not answered yet", 0),
        ([kept], "not checked", 0),  # the grader's last cell never ran the function
        ([kept, {"event": "outputs", "exercise": "mrr-function", "outputs": right[:2]}], "could not be read", 0),
        ([], "not checked", 0),
    ]
    for events, verdict, points in cases_of:
        judged = judge_notebook(["01"], events, key)[-1]
        assert (judged.verdict, judged.points) == (verdict, points), events


def test_solution_use_is_noted(key):
    events = [
        {"event": "solution", "exercise": "explain-rr-mean"},
        check_event("explain-rr-mean", value_text("explain-rr-mean")),
    ]
    judged = {answer.exercise: answer for answer in judge_notebook(["01"], events, key)}
    assert judged["explain-rr-mean"].points == 3 and judged["explain-rr-mean"].help_used == ("solution()",)


def test_the_hidden_inputs_sent_to_a_kernel_hold_no_expected_value(key):
    sent = repr(key.hidden_inputs())
    assert set(key.hidden_inputs()) == {i for i, e in REGISTRY.items() if e.kind == "function"}
    for exercise_id, cases in key.cases.items():
        assert [case.args for case in cases] == key.hidden_inputs()[exercise_id]
    assert "expected" not in sent and "slips" not in sent


@pytest.mark.slow  # a fresh Python
def test_grading_a_lesson_01_notebook_works_out_only_the_exercises_it_is_judged_on():
    code = """
import json, sys
from pathlib import Path
from helpers.teacher import fingerprint
from helpers.teacher.judging import AnswerKey, judge_notebook
key = AnswerKey.build()
fingerprint.key_version(key, Path("data"))
judged = judge_notebook(["01"], [], key)
computed = sorted(key.worked.computed())
print(json.dumps({"judged": len(judged), "scipy": "scipy.stats" in sys.modules, "computed": computed}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    said = json.loads(done.stdout)
    lesson_01 = sorted(i for i, e in REGISTRY.items() if e.lesson == "01" and e.kind == "answer")
    assert said["judged"] == len([e for e in REGISTRY.values() if e.lesson == "01"]) > 0
    assert said["computed"] == lesson_01, "the other lessons' answers are not worked out"
    assert not said["scipy"], "nor is scipy.stats loaded for lesson 09's p-value"


def test_points_file(tmp_path):
    good = tmp_path / "points.csv"
    good.write_text("exercise,points\nexplain-rr-mean,3\nmrr-function,0.5\n")
    assert read_points(good) == {"explain-rr-mean": 3.0, "mrr-function": 0.5}
    for text, message in (("id,points\nx,1\n", "header must be exercise,points"),
                          ("exercise,points\nx,many\n", "line 2: points must be a number"),
                          ("exercise,points\nx,-1\n", "at least 0")):
        good.write_text(text)
        with pytest.raises(ValueError, match=message):
            read_points(good)
    with pytest.raises(ValueError, match="unknown exercise ids: typo"):
        AnswerKey.build({"typo": 2})


# --- the reports -------------------------------------------------------------------------------


def judged(exercise_id: str, answer: str, points: float | None = None, **extra) -> Judged:
    found = REGISTRY[exercise_id]
    result = checking.judge(found, answer, found.worked())
    return Judged(exercise_id, found.lesson, found.kind, result.answer, result.verdict.value, result.correct,
                  points if points is not None else float(result.correct), 1.0, mistake_code(result.slip_groups),
                  mistake_title(result.slip_groups), result.message, **extra)


SLIP = next(value for codes, value in REGISTRY["sheet-ndcg3"].worked().slips if codes == ("no-discount",))
SLIP_CODES = check("sheet-ndcg3", f"{SLIP:.3f}").mistake  # every slip that gives this number, kept apart


@pytest.fixture()
def results():
    slip = SLIP
    return [
        NotebookResult("ann", "ann/03.ipynb", "03", answers=[
            judged("sheet-ndcg3", value_text("sheet-ndcg3")), judged("kb04-graded-2", "0.1"),
            judged("helpdesk-mean-ndcg5", None)]),
        NotebookResult("=cmd|' /C calc'!A0", "evil.ipynb", "03", answers=[
            judged("sheet-ndcg3", f"{slip:.3f}"), judged("kb04-graded-2", value_text("kb04-graded-2")),
            judged("helpdesk-mean-ndcg5", "0.3")], problems=[Problem("raised", "cell 3 raised ValueError")]),
        NotebookResult("bob", "bob/03.ipynb", "03", answers=[
            judged("sheet-ndcg3", f"{slip:.3f}"), judged("kb04-graded-2", None), judged("helpdesk-mean-ndcg5", None)]),
        NotebookResult("bob", "bob/01.ipynb", "01", answers=[judged("explain-rr-mean", value_text("explain-rr-mean"))]),
        NotebookResult("carl", "carl.ipynb", problems=[Problem("invalid-notebook", "not JSON")]),
    ]


def read_csv(path: Path) -> list[dict]:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "UTF-8 with a byte-order mark, for Excel"
    with path.open(newline="", encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def test_gradebook_one_row_per_learner_numbers_as_numbers(tmp_path, results):
    path = tmp_path / "gradebook.csv"
    reports.write_gradebook(path, results, expect=["new-hit-rate-at-2"])
    rows = {row["learner"]: row for row in read_csv(path)}
    assert list(rows) == ["'=cmd|' /C calc'!A0", "ann", "bob", "carl"]  # no roster holds it: defused
    header = list(next(iter(rows.values())))
    assert header == ["learner", "new-hit-rate-at-2", "explain-rr-mean", "sheet-ndcg3", "kb04-graded-2",
                      "helpdesk-mean-ndcg5", "total", "out_of", "problems"]
    assert rows["ann"]["sheet-ndcg3"] == "1" and rows["ann"]["explain-rr-mean"] == "" and rows["ann"]["total"] == "1"
    assert rows["ann"]["new-hit-rate-at-2"] == "0" and rows["ann"]["out_of"] == "4"  # expected, never handed in
    assert rows["bob"]["total"] == "1" and rows["bob"]["out_of"] == "5"
    assert rows["carl"]["problems"] == "invalid-notebook" and rows["carl"]["total"] == "0"
    assert rows["'=cmd|' /C calc'!A0"]["problems"] == "raised"
    for row in rows.values():
        assert float(row["total"]) == sum(float(row[c]) for c in header[1:-3] if row[c])


@pytest.fixture(scope="module")
def libreoffice(tmp_path_factory):
    """soffice, converting a CSV as a teacher opening it would (UTF-8, comma-separated); skipped without it."""
    soffice = shutil.which("soffice")
    if soffice is None:
        pytest.skip("LibreOffice (soffice) is not installed; CI installs libreoffice-calc-nogui")
    profile = tmp_path_factory.mktemp("libreoffice-profile")

    def convert(csv_file: Path) -> Path:
        command = [soffice, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--infilter=CSV:44,34,76,1",
                   "--convert-to", "xlsx", "--outdir", str(csv_file.parent), str(csv_file)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=240)
        assert done.returncode == 0, done.stderr
        return csv_file.with_suffix(".xlsx")

    return convert


def test_the_gradebook_xlsx_holds_ids_as_text_never_as_formulas(tmp_path, results):
    import openpyxl

    path = tmp_path / "gradebook.xlsx"
    reports.write_gradebook_xlsx(path, results)
    sheet = openpyxl.load_workbook(path).active
    ids = [row[0] for row in sheet.iter_rows(min_row=2)]
    assert [cell.value for cell in ids] == ["=cmd|' /C calc'!A0", "ann", "bob", "carl"]
    assert all(cell.data_type == "s" for cell in ids), "a string cell, never a formula"
    totals = [row[-3].value for row in sheet.iter_rows(min_row=2)]
    assert totals == [1, 1, 1, 0]


def test_the_gradebook_opens_in_libreoffice_with_numbers_as_numbers(tmp_path, results, libreoffice):
    import openpyxl

    results[0].learner = "Zoë Ärger"
    results[1].learner = "_leading-underscore"
    path = tmp_path / "gradebook.csv"
    reports.write_gradebook(path, results)
    sheet = openpyxl.load_workbook(libreoffice(path)).active
    rows = [[cell.value for cell in row] for row in sheet.iter_rows()]
    header, body = rows[0], {row[0]: row for row in rows[1:]}
    assert header[0] == "learner" and header[-3:] == ["total", "out_of", "problems"]
    assert set(body) == {"Zoë Ärger", "bob", "carl", "_leading-underscore"}, "accents kept, the id as on the roster"
    for row in body.values():
        numbers = [value for value in row[1:-1] if value is not None]
        assert all(isinstance(value, int | float) for value in numbers), row
    assert body["bob"][header.index("total")] == 1 and body["bob"][header.index("out_of")] == 4


def test_answers_csv_holds_every_judged_answer(tmp_path, results):
    path = tmp_path / "answers.csv"
    reports.write_answers(path, results)
    rows = read_csv(path)
    assert list(rows[0]) == reports.ANSWER_COLUMNS
    assert len(rows) == sum(len(result.answers) for result in results)
    slip_rows = [row for row in rows if row["mistake"] == SLIP_CODES]
    assert len(slip_rows) == 2 and all(row["correct"] == "0" and row["points"] == "0" for row in slip_rows)
    assert all(row["verdict"] for row in rows)


def test_safe_text_keeps_numbers_and_defuses_formulas():
    assert reports.safe_text("-0.5") == "-0.5" and reports.safe_text("12%") == "12%"
    assert reports.safe_text("=1+1") == "'=1+1" and reports.safe_text("@SUM(A1)") == "'@SUM(A1)"
    assert reports.safe_text("-2+3") == "'-2+3" and reports.safe_text("plain") == "plain"
    assert reports.number(2.0) == "2" and reports.number(0.5) == "0.5" and reports.number(None) == ""


def test_feedback_never_shows_the_expected_value_of_a_wrong_answer(results):
    own = [r for r in results if r.learner == "bob"]
    page = reports.feedback_html("bob", own)
    assert "Feedback for bob" in page and "1 of 4 points" in page
    for answer in (a for r in own for a in r.answers if a.answer):
        page = page.replace(answer.answer, "(yours)")  # the learner's own answers may show
    assert value_text("sheet-ndcg3") not in page and value_text("kb04-graded-2") not in page
    assert "Named mistake" in page and "no discount" in page.lower()
    assert "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert reports.feedback_name("bob") == "bob.html" and reports.feedback_name("a/b c").startswith("a_b_c-")
    assert reports.feedback_name("a b") != reports.feedback_name("a_b")
    assert reports.feedback_name("..").startswith("learner-")


def test_item_analysis_and_the_class_report(results):
    items = {item.exercise: item for item in reports.item_analysis(results)}
    sheet = items["sheet-ndcg3"]
    assert (sheet.graded, sheet.right, sheet.named, sheet.not_answered) == (3, 1, 2, 0)
    assert sheet.mistakes[0][0] == SLIP_CODES and sheet.mistakes[0][2] == 2
    assert items["kb04-graded-2"].wrong == 1 and items["helpdesk-mean-ndcg5"].not_answered == 2
    page = reports.class_report_html(results, "sandbox: test")
    assert page.count("<svg") == 2 and "sandbox: test" in page
    title = mistake_title(SLIP_CODES)
    assert f"<li>67 % {title}" in page  # 2 of the 3 learners graded on sheet-ndcg3
    assert "src=" not in page and "<link" not in page, "standalone: nothing fetched"


def test_results_round_trip_as_json(tmp_path, results):
    for number, result in enumerate(results):
        (tmp_path / f"{number:04d}.json").write_text(result.to_json())
    loaded = load_results(tmp_path)
    assert sorted(r.notebook for r in loaded) == sorted(r.notebook for r in results)
    assert next(r for r in loaded if r.learner == "ann").answers == results[0].answers


# --- submissions ----------------------------------------------------------------------------------


def test_learners_lessons_and_unreadable_notebooks():
    assert learner_of(Path("ann/01_x.ipynb")) == "ann" and learner_of(Path("bob.ipynb")) == "bob"
    with pytest.raises(ValueError, match="not a valid notebook"):
        read_notebook(b"{ nope")
    with pytest.raises(ValueError, match="UTF-8"):
        read_notebook(b"\xff\xfe\x00")
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    checks = new_notebook(cells=[new_code_cell('check("sheet-ndcg3", answer)')])
    assert lesson_of(checks, "mine.ipynb") == "03" and lesson_of(checks, "07_x.ipynb") == "07"
    checks.metadata["helpers"] = {"lesson": "10"}
    assert lesson_of(checks, "07_x.ipynb") == "10"
    assert lessons_of(checks, "07_x.ipynb") == ["10", "07", "03"], "an edited mark does not drop a lesson"
    assert lesson_of(nbformat.v4.new_notebook(), "x.ipynb") == ""


def test_a_hand_in_whose_cells_lack_ids_is_read_without_a_warning(recwarn):
    """An older or hand-edited notebook has no cell ids: read as it is, with no nbformat warning for the teacher."""
    bare = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [{"cell_type": "code", "metadata": {}, "source": "answer = 0.5", "outputs": [],
                       "execution_count": None}]}
    notebook = read_notebook(json.dumps(bare).encode())
    assert notebook.cells[0].source == "answer = 0.5" and notebook.cells[0].get("id")
    assert not [w for w in recwarn if "nbformat" in str(w.filename) or "id field" in str(w.message)]


# --- the command line: --out is checked first ------------------------------------------------------


@pytest.mark.parametrize("case", ["file", "inside", "foreign", "unwritable"])
def test_a_bad_out_fails_at_once(tmp_path, case, capsys, monkeypatch):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "endless.ipynb").write_text("{}")
    out = {
        "file": tmp_path / "grades.csv",
        "inside": submissions / "out",
        "foreign": tmp_path / "photos",
        "unwritable": tmp_path / "grades.csv" / "out",
    }[case]
    (tmp_path / "grades.csv").write_text("a file")
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "cat.jpg").write_text("meow")

    def a_notebook_would_run(*args, **kwargs):
        raise AssertionError("the grader went on to find a sandbox, to run the notebooks")

    monkeypatch.setattr(grade.sb, "find_sandbox", a_notebook_would_run)
    with pytest.raises(SystemExit) as stopped:
        grade.main([str(submissions), "--out", str(out)])
    assert stopped.value.code == 2 and "--out" in capsys.readouterr().err  # refused while the arguments are read


def test_a_bad_out_fails_before_any_notebook_runs_on_the_command_line(tmp_path):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "x.ipynb").write_text("{}")
    (tmp_path / "file").write_text("x")
    done = subprocess.run(
        [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(tmp_path / "file")],
        capture_output=True, text=True, timeout=60, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    # how soon: benchmarks/bench_refusals.py (no test asserts a time)
    assert done.returncode == 2 and "is a file" in done.stderr and "sandbox" not in done.stdout


def test_an_earlier_run_can_be_replaced_and_ids_are_checked(tmp_path):
    submissions, out = tmp_path / "s", tmp_path / "out"
    submissions.mkdir()
    out.mkdir()
    (out / "gradebook.csv").write_text("old")
    (out / "notes.txt").write_text("mine")
    assert grade.check_out(out, submissions) == out.resolve()
    assert grade.expected_ids("01, explain-rr-mean") == ["new-mrr-d8-first", "new-hit-rate-at-2",
                                                        "explain-rr-mean", "mrr-function"]
    with pytest.raises(grade.Refused, match="'typo'"):
        grade.expected_ids("typo")
    assert grade.main([str(submissions), "--out", str(out)]) == 1  # no notebook


def test_a_teachers_exercise_can_be_expected(tmp_path):
    from helpers.exercises import Exercise, register

    try:
        register(Exercise(id="teacher-only", lesson="11", question="q?", answer=lambda: 0.5, hints=("a", "b")))
        assert grade.expected_ids("teacher-only,11") == ["teacher-only"]
    finally:
        REGISTRY.pop("teacher-only", None)


# --- the sandbox pieces -------------------------------------------------------------------------------


def test_no_sandbox_when_asked_and_bwrap_found_by_trying_it():
    assert sandbox.find_sandbox("none").bwrap is None
    assert "NOT sandboxed" in sandbox.find_sandbox("none").describe()
    found = sandbox.find_sandbox("auto")
    if found.bwrap is None:
        assert found.reason and "NOT sandboxed" in found.describe()
        with pytest.raises(ValueError, match="--sandbox bwrap"):
            sandbox.find_sandbox("bwrap")
    else:
        assert sandbox.try_bwrap(found.bwrap) == ""
    assert sandbox.try_bwrap("/bin/false").startswith("bwrap is installed but does not work here")


def test_the_kernel_command_carries_the_limits_and_an_allow_list(tmp_path):
    launcher = limits.find_limits("process").launcher(1024, None)
    plain = sandbox.Sandbox(None, "none").command_prefix(tmp_path, tmp_path / "w", tmp_path / "course", launcher, 256)
    assert plain == launcher and plain[:3] == [sys.executable, "-S", "-c"] and plain[4] == str(1024**3)
    course = tmp_path / "course"
    wrapped = sandbox.Sandbox("/usr/bin/bwrap").command_prefix(tmp_path, tmp_path / "w", course, launcher, 256)
    text = " ".join(wrapped)
    assert "--ro-bind / /" not in text, "nothing of the machine by default"
    assert "--unshare-all" in text and "--cap-drop ALL" in text
    assert f"--size {256 * 1024**2} --tmpfs /notebook --copied {tmp_path} /notebook" in text, "one capped tmpfs"
    assert "--dir /notebook/tmp/home --symlink /notebook/tmp /tmp" in text, "/tmp and HOME are in it"
    unsized = sandbox.Sandbox("/usr/bin/bwrap", sized_tmp=False).command_prefix(tmp_path, tmp_path, course, [], 256)
    assert "--size" not in unsized and "--tmpfs" in unsized, "an older bwrap without --size still runs"
    assert f"--tmpfs /opt/course --copied {course} /opt/course --remount-ro /opt/course" in text, "neutral names"
    assert text.endswith("--remount-ro / --unsetenv JPY_PARENT_PID --chdir /notebook/w --"), "a read-only root"
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "01.ipynb").write_text("{}")
    moved, descriptors = sandbox.by_descriptor([*wrapped, "python"])
    try:
        assert moved == [*launcher, "/usr/bin/bwrap", "--args", str(descriptors[0]), "--", "python"]
        said = [word.decode() for word in os.pread(descriptors[0], 1 << 20, 0).split(b"\0")[:-1]]
        assert "--copied" not in said and str(tmp_path) not in " ".join(said), "no path of the grader's folder"
        files = {said[i + 2]: int(said[i + 1]) for i, word in enumerate(said) if word == "--file"}
        assert set(files) == {"/etc/passwd", "/etc/group", "/etc/hosts", "/notebook/etc/passwd",
                              "/notebook/etc/group", "/notebook/etc/hosts", "/notebook/w/01.ipynb"}, files
        assert sorted(files.values()) == sorted(descriptors[1:]), "each copied file by its own descriptor"
        assert os.pread(files["/notebook/w/01.ipynb"], 100, 0) == b"{}"
        assert ["--dir", "/notebook/w"] == said[said.index("/notebook/w") - 1 : said.index("/notebook/w") + 1]
    finally:
        sandbox.close_all(descriptors)
    binds = [wrapped[i + 1] for i, word in enumerate(wrapped) if word in ("--ro-bind", "--bind")]
    for path in binds:
        assert not Path(path).resolve() == Path.home().resolve(), "never the whole home"
        assert Path(path).resolve() != sandbox.PROJECT_ROOT.resolve(), "never the repository"
        assert not str(path).startswith("/etc/") or Path(path).name in sandbox.SYSTEM_ETC
        assert not Path(path).is_relative_to(tmp_path), "no folder of the grader's is mounted"
    assert (tmp_path / "etc" / "passwd").read_text().startswith("learner:x:")
    assert {str(folder) for folder in sandbox.python_folders()} <= set(binds)


def test_limits_apply_to_the_command(tmp_path):
    code = "import resource as r; print(r.getrlimit(r.RLIMIT_AS)[0], r.getrlimit(r.RLIMIT_FSIZE)[0])"
    prefix = limits.find_limits("process").launcher(512, None)
    done = subprocess.run([*prefix, sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.stdout.split() == [str(512 * 1024**2), str(limits.MAX_FILE_BYTES)]


def test_per_process_limits_say_what_they_hold():
    found = limits.find_limits("process")
    said = found.describe(2048)
    assert not found.cgroups and "per process" in said and "2048 MB of address space each" in said
    assert "/tmp 512 MB" in said and limits.tmp_megabytes(found, 2048) == 512
    assert "/tmp 64 MB" in found.describe(2048, 64), "never more than the disk budget"
    assert limits.tmp_megabytes(found, 2048, 64) == 64 and limits.tmp_megabytes(found, 2048, 4096) == 512
    tasks = int(found.launcher(2048, None)[6])
    assert tasks == 0 if os.geteuid() == 0 else tasks > limits.PROCESS_SLACK
    with pytest.raises(ValueError, match="--limits cgroup"):
        limits.find_limits("cgroup", root=Path("/nonexistent"))


def test_a_cgroup_v2_tree_delegated_to_the_grader_is_used(tmp_path, monkeypatch):
    # a cgroup v2 file system is only files: a fake one shows which files the grader writes
    own = tmp_path / "user.slice" / "grader"
    own.mkdir(parents=True)
    (tmp_path / "cgroup.controllers").write_text("memory pids cpu")
    (own / "cgroup.controllers").write_text("memory pids")
    (own / "cgroup.subtree_control").write_text("memory pids")
    monkeypatch.setattr(limits, "own_groups", lambda: {"": "/user.slice/grader"})
    monkeypatch.setattr(limits, "_try", lambda found: "")
    found = limits.find_limits("auto", root=tmp_path)
    assert found.kind == "cgroup v2" and dict(found.parents) == {"memory": own, "pids": own}
    assert "1024 MB for all its processes and its /tmp together" in found.describe(1024)
    monkeypatch.setattr(limits.NotebookGroup, "make", classmethod(lambda cls, lim, name, mb: cls(lim, {
        "memory": own / name, "pids": own / name})))
    group = found.group("hg-test", 1024)
    assert group is not None and group.procs_files() == [own / "hg-test" / "cgroup.procs"]
    assert found.launcher(1024, group)[7] == str(own / "hg-test" / "cgroup.procs")
    (own / "hg-test").mkdir()
    (own / "hg-test" / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    assert group.out_of_memory()


def test_a_notebook_group_limits_memory_and_processes_where_the_machine_has_cgroups(tmp_path):
    found = limits.find_limits("auto")
    if not found.cgroups:
        pytest.skip(f"no cgroups here: {found.reason}")
    group = found.group(f"hg-unit-{os.getpid()}", 256)
    assert group is not None
    try:
        code = ("import os, time\npids = []\ntry:\n    for _ in range(400):\n        pid = os.fork()\n"
                "        if pid == 0:\n            time.sleep(5); os._exit(0)\n        pids.append(pid)\n"
                "except OSError:\n    pass\nprint(len(pids), flush=True)\nfor pid in pids:\n    os.kill(pid, 9)\n"
                "block = bytearray(400 * 1024**2)\nprint('survived')")
        done = subprocess.run([*found.launcher(1024, group), sys.executable, "-c", code], capture_output=True,
                              text=True, timeout=60)
        assert int(done.stdout.split()[0]) < limits.CGROUP_TASKS, "a fork bomb stops at the group's count"
        assert "survived" not in done.stdout and done.returncode == -9, "400 MB touched in a 256 MB group: killed"
        assert group.out_of_memory()
    finally:
        group.remove()
    assert not any(folder.exists() for folder in group.folders.values())


def test_python_folders_are_bound_alone_wherever_python_lives():
    folders = sandbox.python_folders()
    assert Path(sys.prefix).resolve() in folders or Path(sys.prefix).resolve().is_relative_to(Path("/usr"))
    assert Path.home().resolve() not in folders and sandbox.PROJECT_ROOT.resolve() not in folders
    assert all(not a.is_relative_to(b) for a in folders for b in folders if a != b), "no folder twice"


def test_marked_processes_are_found_and_killed():
    marker = f"unit-{os.getpid()}"
    env = {**os.environ, sandbox.MARKER_ENV: marker}
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while not sandbox.marked_processes(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [found.pid for found in sandbox.marked_processes(marker)] == [child.pid]
        assert [found.pid for found in sandbox.marked_processes(marker[:-1], prefix=True)] == [child.pid]
        assert sandbox.marked_processes(marker[:-1]) == []
        (found,) = sandbox.marked_processes(marker)
        assert "time.sleep(60)" in sandbox.command_line(found)
        sandbox.kill_processes([found])
        assert child.wait(timeout=10) == -9
    finally:
        child.kill()


def test_the_outside_watch_names_created_changed_and_deleted_files(tmp_path):
    deep, home, temp, own = tmp_path / "subs", tmp_path / "home", tmp_path / "tmp", tmp_path / "subs" / "g.csv"
    for folder in (deep / "ann", home / ".ssh", temp / "other-program"):
        folder.mkdir(parents=True)
    (deep / "ann" / "01.ipynb").write_text("x")
    (deep / "ann" / "02.ipynb").write_text("x")
    watch = sandbox.OutsideWatch([deep], [home], [deep / "ignored"], loose=[temp])
    watch.own.add(own.resolve())
    before = watch.snapshot()
    time.sleep(0.01)
    (deep / "ann" / "01.ipynb").write_text("changed")
    (deep / "ann" / "02.ipynb").unlink()
    (deep / "ignored").mkdir()
    (deep / "ignored" / "x").write_text("x")
    own.write_text("the grader's own")
    (home / ".ssh" / "authorized_keys").write_text("key")
    (temp / "other-program" / "file").write_text("not ours")
    (temp / "new.txt").write_text("x")
    (temp / "scratch.o").write_text("another program's, gone in a moment")
    after = watch.snapshot()
    (temp / "scratch.o").unlink()
    owned, temporary = watch.changes(before, after, pause=0.01)
    assert owned == [
        f"changed {(home / '.ssh').resolve()} (a folder: something in it was created or deleted)",
        f"changed {(deep / 'ann' / '01.ipynb').resolve()}",
        f"deleted {(deep / 'ann' / '02.ipynb').resolve()}",
    ]
    assert temporary == [str((temp / "new.txt").resolve())], "in /tmp only what appeared and stayed"


def test_the_output_folder_in_the_current_folder_is_watched_file_by_file(tmp_path):
    # grading with --out ./graded from the class folder, no sandbox: the grader writing its results changes
    # the folder's time, which is not the notebook's doing; a file the notebook adds there still counts
    here, out = tmp_path / "class", tmp_path / "class" / "graded"
    out.mkdir(parents=True)
    watch = sandbox.OutsideWatch([out], [here], [])
    before = watch.snapshot()
    time.sleep(0.01)
    (out / "results").mkdir()
    watch.own.add((out / "results" / "ann.json").resolve())
    (out / "results" / "ann.json").write_text("{}")
    (out / "planted.txt").write_text("a notebook's")
    owned, _ = watch.changes(before, watch.snapshot(), pause=0.01)
    assert owned == [f"created {(out / 'planted.txt').resolve()}"]


def test_doctests():
    import doctest

    assert doctest.testmod(reports).failed == 0


# --- what a notebook sends back, read in bounded time and space -------------------------------------------


def test_answers_no_metric_needs_are_refused_at_once_and_said_so():
    from helpers.exercises.answers import MAX_DIGITS, UnreadableAnswer, read_answer, refuse_oversized

    for text in ("1e12000000/3", "1e16000000/3", "9" * 1_000_000, "0." + "3" * 100, "1E+999", "2/1e-99999"):
        with pytest.raises(UnreadableAnswer, match="answer here needs"):
            read_answer(text)
    with pytest.raises(UnreadableAnswer, match="whole number"):
        read_answer(10**MAX_DIGITS)
    for text in ("0.8212", "82.12%", "3/7", "5.5e-1", "0,4", "undefined", "1" * MAX_DIGITS):
        refuse_oversized(text)  # what a learner types: read as before
    assert read_answer("5.5e-1").decimals == 2 and read_answer("0." + "3" * 30).value == pytest.approx(1 / 3)
    result = checking.judge(REGISTRY["explain-rr-mean"], "1e12000000/3", REGISTRY["explain-rr-mean"].worked())
    assert result.verdict.value == "could not be read" and "exponent past 50" in result.message


def test_log_lines_python_cannot_read_are_skipped_not_fatal():
    lines = [json.dumps(check_event("explain-rr-mean", "0.5")),
             '{"event": "check", "exercise": "explain-rr-mean", "given": ' + "7" * 100_000 + "}",
             "[" * 100_000 + "]" * 100_000, json.dumps(check_event("explain-rr-mea", "1"))]
    reading = logbook.read_log_bytes("\n".join(lines).encode(), REGISTRY)
    assert [event["given"]["text"] for event in reading.events] == ["0.5"]
    assert "'explain-rr-mea' (did you mean 'explain-rr-mean'?)" in reading.problems[0].message
    assert logbook.read_log_bytes(b"x" * 10, REGISTRY, overflow=True).problems[0].code == "log-too-long"


def test_a_drain_keeps_its_share_and_never_blocks_the_writer():
    from helpers.teacher.kernel import Drain

    head, tail = Drain(keep=10), Drain(keep=10, tail=True)
    for drain in (head, tail):
        writer = drain.writer
        drain.writer = -1  # the test writes, as the kernel would, then closes its end
        drain.thread.start()
        for _ in range(100):
            os.write(writer, b"0123456789" * 100)  # 100 kB, more than a pipe holds: read and dropped as it comes
        os.close(writer)
        drain.thread.join(timeout=10)
    assert head.close() == b"0123456789" and head.total == 100_000 and head.overflow
    assert tail.close() == b"0123456789"


def test_a_mark_holds_what_was_written_before_it_whether_the_thread_read_it_or_not():
    """The grader's mark (its last cell about to start) reads the pipe itself: on a busy machine the reading thread
    may not have run since the learner's last check wrote its line (a fresh-clone run lost an answer so)."""
    from helpers.teacher.kernel import Drain

    drain = Drain(keep=1000)
    writer, drain.writer = drain.writer, -1  # the test writes, as the kernel would; the reading thread never runs
    os.write(writer, b'{"event": "check"}\n')
    assert drain.mark() == b'{"event": "check"}\n'
    os.write(writer, b"later\n")
    os.close(writer)
    assert drain.close() == b'{"event": "check"}\nlater\n'


def test_only_the_last_cells_result_gives_function_outputs():
    from helpers.teacher.grading import finished_outputs, functions_given
    from helpers.teacher.kernel import Run

    outputs = [{"kind": "value", "value": float("nan")}]
    run = Run(finish_result={"application/json": {"outputs": json.dumps({"mrr-function": outputs, "x": 1})}})
    events = finished_outputs(run)
    assert [event["exercise"] for event in events] == ["mrr-function"] and math.isnan(events[0]["outputs"][0]["value"])
    assert finished_outputs(Run(finish_result={"text/plain": "forged"})) == []
    assert finished_outputs(Run(finish_result={"application/json": {"outputs": "[" * 100_000}})) == []
    kept = [{"event": "check_function", "exercise": "mrr-function", "kept": True},
            {"event": "check_function", "exercise": "dcg-function", "kept": True},
            {"event": "check_function", "exercise": "dcg-function", "kept": False}]
    assert functions_given(kept) == ["mrr-function"]
    assert set(AnswerKey.build().hidden_inputs(["mrr-function"])) == {"mrr-function"}, "only the ones graded"


def test_with_expect_only_those_exercises_count_on_every_page(tmp_path, results):
    from helpers.teacher.plan import Plan

    expect = {"sheet-ndcg3": 1.0, "kb04-graded-2": 1.0, "helpdesk-mean-ndcg5": 1.0}
    plan = Plan(expect=expect)
    columns, rows = reports.gradebook_rows(results, plan=plan)
    by_learner = {row.learner: row for row in rows}
    assert columns == list(expect) and by_learner["bob"].out_of == 3, "bob's lesson-01 answer does not count"
    assert by_learner["carl"].out_of == 3 and by_learner["carl"].total == 0
    page = reports.feedback_html("bob", [r for r in results if r.learner == "bob"], by_learner["bob"])
    assert f"<b>{reports.number(by_learner['bob'].total)} of 3 points</b>" in page
    assert "explain-rr-mean" not in page
    report = reports.class_report_html(results, plan=plan)
    assert "explain-rr-mean" not in report and "4 learners" in report
    store = reports.OutputFolder(tmp_path, plan, None)
    for result in results:
        store.add(result)
    store.finish(["sandbox: test"])
    gradebook = {row["learner"]: row for row in read_csv(tmp_path / "gradebook.csv")}
    assert gradebook["bob"]["out_of"] == "3"
    assert "<b>0 of 3 points</b>" in (tmp_path / "feedback" / "carl.html").read_text()


def test_the_graders_refusals_name_the_nearest_id(tmp_path):
    from nbformat.v4 import new_code_cell, new_notebook

    from helpers.teacher.submissions import Submission

    notebook = new_notebook(cells=[new_code_cell("check('explain-rr-mea', '0.5')")])
    data = nbformat.writes(notebook).encode()
    said = grade.unknown_exercises([Submission(tmp_path / "ann.ipynb", "ann", "ann.ipynb", data)])
    assert "did you mean 'explain-rr-mean'?" in said and "--allow-unknown" in said
    with pytest.raises(grade.Refused, match="did you mean 'explain-rr-mean'"):
        grade.expected_ids("explain-rr-mea")


def test_the_assignment_decides_and_refuses_what_would_contradict_it(tmp_path, capsys):
    from helpers.teacher import release

    release.release(tmp_path / "class", roster=["ann"], secret=bytes(range(32)), lessons="01",
                    manifest=tmp_path / "m.json")
    (tmp_path / "other.secret").write_text("ab" * 32)
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    base = [str(submissions), "--out", str(tmp_path / "out"), "--assignment", str(tmp_path / "m.json")]
    for extra, said in ((["--expect", "01"], "the manifest decides"),
                        (["--secret", str(tmp_path / "other.secret")], "not the course secret of this release")):
        assert grade.main([*base, *extra]) == 2
        assert said in capsys.readouterr().err

