"""The gradebook is one model (helpers.teacher.results.Gradebook); CSV, xlsx, Canvas and Moodle are its exporters.

Every exporter writes a class into a folder; read back (csv, openpyxl: no LibreOffice), they hold the same
learners, the same points and the same totals as the model (Canvas and Moodle by lesson; Moodle without the
learners it leaves out).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from helpers.exercises import REGISTRY, exercises_of
from helpers.teacher import lms, reports
from helpers.teacher.plan import Plan
from helpers.teacher.results import Gradebook, Judged, NotebookResult, Problem

LESSON_03 = [exercise.id for exercise in exercises_of("03")]
LESSON_01 = [exercise.id for exercise in exercises_of("01")]


def answer(exercise_id: str, points: float, max_points: float) -> Judged:
    exercise = REGISTRY[exercise_id]
    return Judged(exercise_id, exercise.lesson, exercise.kind, "0.5", "right" if points else "wrong", bool(points),
                  points, max_points)


def class_results() -> list[NotebookResult]:
    return [
        NotebookResult("ann", "ann/03.ipynb", "03", answers=[answer(x, 2.0, 2.0) for x in LESSON_03]),
        NotebookResult("ann", "ann/01.ipynb", "01", answers=[answer(x, 0.5, 1.0) for x in LESSON_01]),
        NotebookResult("bob", "bob/03.ipynb", "03",
                       answers=[answer(x, 2.0 if n % 2 else 0.0, 2.0) for n, x in enumerate(LESSON_03)]),
        NotebookResult("cid", "cid/01.ipynb", "01", answers=[answer(x, 1.0, 1.0) for x in LESSON_01],
                       problems=[Problem("raised", "cell 2 raised")]),
        NotebookResult("dan", "dan.ipynb", problems=[Problem("invalid-notebook", "not JSON")]),
    ]


def read_csv(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8-sig") as handle:
        return list(csv.reader(handle))


def value(text: str) -> float | None:
    return None if text == "" else float(text)


def lesson_sums(book: Gradebook, learner: str) -> dict[str, float | None]:
    row = next(row for row in book.rows if row.learner == learner)
    sums: dict[str, float | None] = {}
    for exercise in book.exercises:
        title = lms.lesson_title(REGISTRY[exercise].lesson)
        points = row.points[exercise]
        sums.setdefault(title, None)
        if points is not None:
            sums[title] = (sums[title] or 0.0) + points
    return sums


@pytest.mark.parametrize("plan", [Plan(), Plan(expect={x: 2.0 for x in LESSON_03} | {LESSON_01[0]: 1.0})],
                         ids=["hand-ins", "expect"])
def test_every_exporter_writes_the_same_learners_points_and_totals(tmp_path, plan):
    from openpyxl import load_workbook

    results = class_results()
    book = reports.class_gradebook(results, plan=plan)
    for exporter in reports.exporters():
        exporter.write(tmp_path / exporter.file, book, results)
    assert {exporter.file for exporter in reports.exporters()} == {
        "gradebook.csv", "gradebook.xlsx", lms.CANVAS_FILE, lms.MOODLE_FILE}
    titles = [column.title for column in book.columns]
    model = {row.learner: book.cells(row) for row in book.rows}
    assert list(model) == ["ann", "bob", "cid", "dan"]

    header, *lines = read_csv(tmp_path / "gradebook.csv")
    assert header == titles
    from_csv = {line[0]: [line[0], *map(value, line[1:-1]), line[-1]] for line in lines}
    sheet = load_workbook(tmp_path / "gradebook.xlsx").active
    header, *cells = [[cell.value for cell in row] for row in sheet.iter_rows()]
    assert header == titles
    from_xlsx = {row[0]: [row[0], *row[1:-1], row[-1] or ""] for row in cells}
    assert from_csv == from_xlsx == model

    header, possible, *lines = read_csv(tmp_path / lms.CANVAS_FILE)
    lessons = header[5:]
    canvas = {line[2]: dict(zip(lessons, map(value, line[5:]), strict=True)) for line in lines}
    assert list(canvas) == list(model)
    moodle_header, *moodle_lines = read_csv(tmp_path / lms.MOODLE_FILE)
    assert moodle_header[1:] == lessons
    moodle = {line[0]: dict(zip(lessons, map(value, line[1:]), strict=True)) for line in moodle_lines}
    for row in book.rows:
        sums = lesson_sums(book, row.learner)
        assert canvas[row.learner] == sums
        assert sum(mark or 0.0 for mark in canvas[row.learner].values()) == pytest.approx(row.total)
        if all(mark is not None for mark in sums.values()):
            assert moodle[row.learner] == sums
        else:
            assert row.learner not in moodle
    assert set(moodle) <= set(model) and moodle, "Moodle writes the learners with a mark on every lesson"
    assert possible[0] == "Points Possible"
