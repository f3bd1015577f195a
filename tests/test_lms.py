"""The gradebook for Canvas and Moodle, read back with the rules each one's grade import applies.

Canvas (Grades > Import, a CSV): the header's first column holds "Student" and
its second "ID"; "SIS User ID" then "SIS Login ID" may follow; the student
columns end with "Section"; every later column is an assignment, matched by
title (or by "Title (id)"), except Canvas's own total columns (Current/Final
Score, Points, Grade), which it ignores; a row whose first cell holds "Points
Possible" gives each assignment's points; a student is found by ID, else SIS
User ID, else SIS Login ID, else name; a blank grade (or "-") leaves the grade
as it was.

Moodle (Grade administration > Import > CSV file): the first line is the
header; the teacher maps one column to a user field (id, username, ID number or
email); every other line is a learner, and a learner the field does not find
stops the whole import; each other column is mapped to a grade item (or a new
one named by the header); a grade is a number, or blank / "-" for no grade.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from helpers.exercises import REGISTRY, exercises_of
from helpers.teacher import lms, reports
from helpers.teacher.plan import Plan
from helpers.teacher.results import Judged, NotebookResult, Problem

CANVAS_TOTALS = ("Current Score", "Current Points", "Current Grade", "Final Score", "Final Points", "Final Grade",
                 "Override Score", "Override Grade", "Override Status")
CANVAS_NUMBER = re.compile(r"^-?[0-9.,]+%?$")


def answer(exercise_id: str, points: float, max_points: float = 1.0) -> Judged:
    found = REGISTRY[exercise_id]
    return Judged(exercise_id, found.lesson, found.kind, "0.5" if points else "", "right" if points else "wrong",
                  bool(points), points, max_points)


LESSON_03 = [exercise.id for exercise in exercises_of("03")]
LESSON_01 = [exercise.id for exercise in exercises_of("01")]


@pytest.fixture()
def results() -> list[NotebookResult]:
    """Four learners: lesson 03 right, half right, a duplicate hand-in; lesson 01 for two; one broken notebook."""
    return [
        NotebookResult("ann", "ann/03.ipynb", "03", answers=[answer(x, 2.0, 2.0) for x in LESSON_03]),
        NotebookResult("ann", "ann/01.ipynb", "01", answers=[answer(x, 1.0) for x in LESSON_01]),
        NotebookResult("bob@uni.example", "bob/03.ipynb", "03",
                       answers=[answer(x, 2.0 if i % 2 else 0.0, 2.0) for i, x in enumerate(LESSON_03)]),
        NotebookResult("cé, \"quoted\"", "ce/03.ipynb", "03", answers=[answer(x, 0.0, 2.0) for x in LESSON_03],
                       problems=[Problem("raised", "cell 4 raised")]),
        NotebookResult("dan", "dan/01.ipynb", "01", answers=[answer(x, 0.5) for x in LESSON_01]),
        NotebookResult("dan", "dan/01-copy.ipynb", "01", answers=[answer(x, 1.0) for x in LESSON_01]),
    ]


def read_rows(path: Path) -> list[list[str]]:
    raw = path.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf"), "plain UTF-8, as both imports read it"
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def canvas_import(path: Path) -> tuple[dict[str, float], dict[str, dict[str, float | None]]]:
    """Read the file as Canvas's importer does: (points possible per assignment, SIS id -> assignment -> grade)."""
    header, *rows = read_rows(path)
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1], "Canvas's header test"
    assert re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3])
    student_columns = 5
    assert "Section" in header[student_columns - 1], "the student columns end with Section"
    assignments = header[student_columns:]
    assert assignments and len(set(assignments)) == len(assignments)
    assert not any(total in title for title in assignments for total in CANVAS_TOTALS), "Canvas would ignore it"
    possible: dict[str, float] = {}
    found: dict[str, dict[str, float | None]] = {}
    for row in rows:
        assert len(row) == len(header)
        if "Points Possible" in row[0]:
            possible = {title: float(value) for title, value in zip(assignments, row[student_columns:], strict=True)}
            continue
        sis_user, sis_login = row[2], row[3]
        assert sis_user and sis_login, "a student Canvas can find without its own ID"
        grades: dict[str, float | None] = {}
        for title, value in zip(assignments, row[student_columns:], strict=True):
            if value.strip() in ("", "-"):
                grades[title] = None
            else:
                assert CANVAS_NUMBER.match(value), f"{value!r} is not a number Canvas reads"
                grades[title] = float(value.replace(",", "."))
        found[sis_user] = grades
    assert set(possible) == set(assignments), "a Points Possible row"
    return possible, found


def moodle_import(path: Path, map_from: str) -> dict[str, dict[str, float | None]]:
    """Read the file as Moodle's CSV import does, with the teacher's 'Map from' column: id -> grade item -> grade."""
    header, *rows = read_rows(path)
    assert map_from in header, f"no column {map_from!r} to map users from"
    key = header.index(map_from)
    items = [title for index, title in enumerate(header) if index != key]
    assert all(title.strip() for title in items) and len(set(items)) == len(items), "one new grade item per title"
    found: dict[str, dict[str, float | None]] = {}
    for row in rows:
        if len(row) <= 1:
            continue  # Moodle skips a line with no data
        learner = row[key].strip()
        assert learner, "a line with no user stops Moodle's import"
        grades: dict[str, float | None] = {}
        for index, value in enumerate(row):
            if index == key:
                continue
            value = value.strip()
            grades[header[index]] = None if value in ("", "-") else float(value)  # else Moodle says 'bad grade'
        found[learner] = grades
    return found


def gradebook(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="", encoding="utf-8-sig") as handle:
        return {row["learner"]: row for row in csv.DictReader(handle)}


def lesson_sum(row: dict[str, str], exercises: list[str]) -> float | None:
    values = [float(row[x]) for x in exercises if row.get(x, "") != ""]
    return sum(values) if values else None


def test_canvas_reads_one_column_per_lesson_with_its_points_and_finds_each_learner(tmp_path, results):
    reports.write_gradebook(tmp_path / "gradebook.csv", results)
    lms.write_lms_files(tmp_path, results)
    possible, found = canvas_import(tmp_path / lms.CANVAS_FILE)
    assert possible == {"Lesson 01": float(len(LESSON_01)), "Lesson 03": 2.0 * len(LESSON_03)}
    book = gradebook(tmp_path / "gradebook.csv")
    assert set(found) == set(book) == {"ann", "bob@uni.example", "cé, \"quoted\"", "dan"}
    for learner, row in book.items():
        assert found[learner] == {"Lesson 01": lesson_sum(row, LESSON_01), "Lesson 03": lesson_sum(row, LESSON_03)}
    assert found["ann"] == {"Lesson 01": float(len(LESSON_01)), "Lesson 03": 2.0 * len(LESSON_03)}
    assert found["bob@uni.example"]["Lesson 03"] == 2.0 * (len(LESSON_03) // 2)
    assert found["cé, \"quoted\""] == {"Lesson 01": None, "Lesson 03": 0.0}, "0 is a mark, blank is none"
    assert found["dan"] == {"Lesson 01": None, "Lesson 03": None}, "a duplicate counts nothing until one is chosen"
    header, points_row, *students = read_rows(tmp_path / lms.CANVAS_FILE)
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lesson 01", "Lesson 03"]
    assert all(row[0] == row[2] == row[3] and row[1] == "" for row in students), "the roster id, exactly"


@pytest.mark.parametrize(("ids", "column"), [
    (["ann", "bob@uni.example"], "Username"), (["ann@uni.example", "b@x.org"], "Email address"),
    (["20240017", "20240018"], "ID number"),
])
def test_moodle_reads_the_id_column_the_teacher_maps_and_one_grade_item_per_lesson(tmp_path, results, ids, column):
    renamed = {"ann": ids[0], "bob@uni.example": ids[1]}
    class_ = [result for result in results if result.learner in renamed]
    for result in class_:
        result.learner = renamed[result.learner]
    reports.write_gradebook(tmp_path / "gradebook.csv", class_)
    lms.write_lms_files(tmp_path, class_)
    found = moodle_import(tmp_path / lms.MOODLE_FILE, map_from=column)
    book = gradebook(tmp_path / "gradebook.csv")
    assert set(book) == set(ids) and set(found) == {ids[0]}, "the other has no mark on lesson 01: left out"
    row = book[ids[0]]
    assert found[ids[0]] == {"Lesson 01": lesson_sum(row, LESSON_01), "Lesson 03": lesson_sum(row, LESSON_03)}
    assert found[ids[0]]["Lesson 01"] == float(len(LESSON_01))
    assert lms.moodle_left_out(lms.class_marks(class_)) == [ids[1]]


def test_marks_are_the_gradebooks_rows_summed_by_lesson():
    rows = [reports.Row("ann", {"a1": 1.0, "a2": 0.5, "b1": None}, 3.0, []),
            reports.Row("bob", {"a1": None, "a2": None, "b1": 2.0}, 2.0, [])]
    marks = lms.lesson_marks(["a1", "a2", "b1"], rows, {"a1": "01", "a2": "01", "b1": "02"},
                             {"a1": 1.0, "a2": 2.0, "b1": 2.0})
    assert marks.lessons == ["01", "02"]
    assert marks.points_possible == {"01": 3.0, "02": 2.0}
    assert marks.marks == {"ann": {"01": 1.5, "02": None}, "bob": {"01": None, "02": 2.0}}
    assert lms.canvas_table(marks)[1] == ["Points Possible", "", "", "", "", "3", "2"]
    assert lms.moodle_table(marks) == [["Username", "Lesson 01", "Lesson 02"]], "no blank: both left out"
    assert lms.moodle_left_out(marks) == ["ann", "bob"]


def test_the_moodle_file_leaves_out_learners_with_nothing_to_write_and_holds_no_blank():
    rows = [reports.Row("ann", {"a1": 1.0, "b1": 0.0}, 3.0, []),
            reports.Row("bob", {"a1": None, "b1": 2.0}, 2.0, []),
            reports.Row("cid", {"a1": None, "b1": None}, 0.0, ["no-hand-in"])]
    marks = lms.lesson_marks(["a1", "b1"], rows, {"a1": "01", "b1": "02"}, {"a1": 1.0, "b1": 2.0})
    table = lms.moodle_table(marks)
    assert table == [["Username", "Lesson 01", "Lesson 02"], ["ann", "1", "0"]]
    assert not [cell for row in table for cell in row if cell.strip() in ("", "-")]
    assert lms.moodle_left_out(marks) == ["bob"], "cid has nothing to write; bob's lesson 02 is entered by hand"
    assert [row[0] for row in lms.canvas_table(marks)[2:]] == ["ann", "bob", "cid"], "Canvas keeps a blank as it was"


def test_the_summary_names_who_the_moodle_file_leaves_out(tmp_path, results):
    folder = reports.OutputFolder(tmp_path, Plan(), None)
    for result in results:
        folder.add(result)
    said = folder.summary()
    assert "not in gradebook-moodle.csv" in said
    left = said.split("not in gradebook-moodle.csv", 1)[1]
    assert "bob@uni.example" in left and "cé" in left and "ann" not in left.split(":")[1]


def test_an_expected_lesson_nobody_handed_in_counts_0_out_of_its_points(tmp_path, results):
    lesson_02 = exercises_of("02")
    lms.write_lms_files(tmp_path, results, expect=[exercise.id for exercise in lesson_02])  # --expect 02
    possible, found = canvas_import(tmp_path / lms.CANVAS_FILE)
    assert possible["Lesson 02"] == sum(exercise.points for exercise in lesson_02)
    assert {learner: grades["Lesson 02"] for learner, grades in found.items()} == dict.fromkeys(found, 0.0)


def test_the_grader_writes_both_beside_the_gradebook_and_counts_them_as_its_own(tmp_path, results):
    from helpers.teacher.sandbox import OutsideWatch

    watch = OutsideWatch([tmp_path], [], [])
    folder = reports.OutputFolder(tmp_path, Plan(), watch)
    before = watch.snapshot()
    for result in results:
        folder.add(result)
    folder.flush()
    assert (tmp_path / lms.CANVAS_FILE).is_file() and (tmp_path / lms.MOODLE_FILE).is_file()
    owned, _ = watch.changes(before, watch.snapshot())
    assert not [change for change in owned if "gradebook-" in change], owned
    _, found = canvas_import(tmp_path / lms.CANVAS_FILE)
    assert set(found) == {result.learner for result in results}


@pytest.mark.parametrize("learner", ["=HYPERLINK(\"http://x\")", "+1", "-rf", "@SUM(A1)", "ann\x1b[2J", "bo\u202eb"])
def test_a_roster_id_a_spreadsheet_or_a_terminal_would_run_is_refused_naming_its_line(tmp_path, learner):
    from helpers.teacher.per_learner import read_roster
    from helpers.teacher.release import release

    (tmp_path / "roster.txt").write_text(f"ann\n\nbob\n{learner}\ncid\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"roster.txt line 4: the id ") as refused:
        read_roster(tmp_path / "roster.txt")
    assert "\x1b" not in str(refused.value) and "\u202e" not in str(refused.value)
    (tmp_path / "roster.csv").write_text(f"name,learner\nAnn,ann\nX,\"{learner}\"\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"roster.csv line 3: "):
        read_roster(tmp_path / "roster.csv")
    with pytest.raises(ValueError, match="--roster: the id "):
        release(tmp_path / "class", roster=["ann", learner], secret=bytes(32))
    assert not (tmp_path / "class").exists()


def test_text_that_could_start_a_formula_is_neutralised_in_every_csv(tmp_path):
    from helpers.teacher.sandbox import OutsideWatch

    formula = "=HYPERLINK(\"http://x\",\"y\")"
    handed = [NotebookResult(formula, f"{formula}/03.ipynb", "03", answers=[
                  Judged(x, "03", "number", "-1+1", "wrong", False, 0.0, 2.0, message="@x") for x in LESSON_03]),
              NotebookResult("ann", "ann/03.ipynb", "03", answers=[answer(x, 2.0, 2.0) for x in LESSON_03])]
    folder = reports.OutputFolder(tmp_path, Plan(), OutsideWatch([tmp_path], [], []))
    for result in handed:
        folder.add(result)
    folder.flush()
    for name in ("gradebook.csv", "answers.csv", lms.CANVAS_FILE, lms.MOODLE_FILE):
        with (tmp_path / name).open(newline="", encoding="utf-8-sig") as handle:
            cells = [cell for row in csv.reader(handle) for cell in row]
        assert f"'{formula}" in cells, name
        assert not [cell for cell in cells if cell.startswith(("=", "+", "@")) or cell.startswith("-")
                    and not CANVAS_NUMBER.match(cell)], name
    with (tmp_path / "answers.csv").open(newline="", encoding="utf-8-sig") as handle:
        answers = list(csv.reader(handle))
    assert "'-1+1" in answers[1] and "'@x" in answers[1]
