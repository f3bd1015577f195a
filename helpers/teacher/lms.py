"""The gradebook in the import formats of Canvas and Moodle: one column per lesson, the learner id where each looks.

Both files are exporters of the gradebook model (:class:`helpers.teacher.results.Gradebook`, as ``gradebook.csv``):
a learner's mark for a lesson is the sum of their points on that lesson's
exercises, or none when they were graded on none of them. The learner id is
written exactly as in ``gradebook.csv``, the id on your roster.

``gradebook-canvas.csv``, for Canvas's Grades > Import: the student columns
Canvas reads first (``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``,
``Section``), one column per lesson titled ``Lesson 03``, and a ``Points
Possible`` row under the header. ``ID`` (Canvas's own number) is left blank:
Canvas then finds the student by SIS User ID, else by SIS Login ID, and both
hold the roster id, so it matches whichever kind of id the roster uses. A
lesson with no mark is a blank cell, which Canvas's import leaves as it was.

``gradebook-moodle.csv``, for Moodle's Grade administration > Import > CSV
file: the id column first, then one column per lesson. Moodle asks which
column identifies the user ("Map from") and which user field it holds ("Map
to": username, ID number or email address); the id column is titled for the
field the ids look like (``Email address`` when every id holds an @, ``ID
number`` when every id is digits, else ``Username``). Moodle reads a blank
cell (or ``-``) as "no grade" and writes it over the grade already there, so
the file holds no blank cell: a learner with no mark on some lesson of the file
is left out (:func:`moodle_left_out` names them, and the grader's summary
too). Graded by a manifest or ``--expect``, every learner has a mark for every
lesson (0 without a hand-in), so nobody is left out.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from helpers.exercises import REGISTRY
from helpers.teacher.files import atomic_open
from helpers.teacher.gradebook import class_gradebook, number, safe_text
from helpers.teacher.results import Gradebook, NotebookResult, Row

if TYPE_CHECKING:
    from helpers.teacher.plan import Rows

CANVAS_FILE, MOODLE_FILE = "gradebook-canvas.csv", "gradebook-moodle.csv"
CANVAS_STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_POINTS_ROW = "Points Possible"


@dataclass(frozen=True)
class LessonMarks:
    """Each learner's points per lesson (None: graded on none of its exercises), and each lesson's points."""

    lessons: list[str]
    points_possible: dict[str, float]
    marks: dict[str, dict[str, float | None]]  # learner -> lesson -> points


def lesson_title(lesson: str) -> str:
    """The column of a lesson in both files: 'Lesson 03' (its assignment or grade item in the LMS)."""
    return f"Lesson {lesson}"


def lesson_marks(
    columns: Sequence[str], rows: Iterable[Row], lesson_of: Mapping[str, str], max_points: Mapping[str, float]
) -> LessonMarks:
    """Sum the gradebook's exercise columns by lesson: ``lesson_of`` and ``max_points`` give each column's."""
    lessons = list(dict.fromkeys(lesson_of[column] for column in columns))
    possible = {lesson: 0.0 for lesson in lessons}
    for column in columns:
        possible[lesson_of[column]] += max_points[column]
    marks: dict[str, dict[str, float | None]] = {}
    for row in rows:
        own: dict[str, float | None] = dict.fromkeys(lessons)
        for column in columns:
            value = row.points[column]
            if value is not None:
                own[lesson_of[column]] = (own[lesson_of[column]] or 0.0) + value
        marks[row.learner] = own
    return LessonMarks(lessons, possible, marks)


def class_marks(
    results: Sequence[NotebookResult], expect: Iterable[str] = (), points=None, plan: Rows | None = None,
    book: Gradebook | None = None,
) -> LessonMarks:
    """The lesson marks of a class, from the same gradebook as gradebook.csv (``book``: that one, computed)."""
    book = book or class_gradebook(results, expect, points, plan)
    lesson_of: dict[str, str] = {}
    max_points: dict[str, float] = {}
    for result in results:
        for answer in result.answers:
            lesson_of.setdefault(answer.exercise, answer.lesson)
            max_points[answer.exercise] = max(max_points.get(answer.exercise, 0.0), answer.max_points)
    for row in book.rows:  # a manifest's (or --expect's) points, for exercises nobody answered
        for column, possible in row.expected.items():
            max_points.setdefault(column, possible)
    for column in book.exercises:  # expected of everyone but graded for nobody: the register (or --points) says
        exercise = REGISTRY.get(column)
        lesson_of.setdefault(column, exercise.lesson if exercise else "?")
        max_points.setdefault(column, float((points or {}).get(column, exercise.points if exercise else 0.0)))
    return lesson_marks(book.exercises, book.rows, lesson_of, max_points)


def canvas_table(marks: LessonMarks) -> list[list[str]]:
    """Canvas's import: the header, the Points Possible row, one row per learner (id in both SIS columns)."""
    titles = [lesson_title(lesson) for lesson in marks.lessons]
    table = [CANVAS_STUDENT_COLUMNS + titles]
    table.append([CANVAS_POINTS_ROW, "", "", "", ""] + [number(marks.points_possible[x]) for x in marks.lessons])
    for learner, own in marks.marks.items():
        table.append([learner, "", learner, learner, ""] + [number(own[lesson]) for lesson in marks.lessons])
    return table


def moodle_id_column(learners: Iterable[str]) -> str:
    """The title of Moodle's id column: the user field the ids look like (the teacher maps it on import)."""
    ids = list(learners)
    if ids and all("@" in learner for learner in ids):
        return "Email address"
    if ids and all(learner.isdigit() for learner in ids):
        return "ID number"
    return "Username"


def moodle_written(marks: LessonMarks) -> list[str]:
    """The learners of the Moodle file: those with a mark on every lesson (a blank would erase a grade)."""
    return [learner for learner, own in marks.marks.items() if all(own[x] is not None for x in marks.lessons)]


def moodle_left_out(marks: LessonMarks) -> list[str]:
    """The learners with a mark on some lessons but not all: left out of the Moodle file, to enter by hand."""
    written = set(moodle_written(marks))
    return [learner for learner, own in marks.marks.items()
            if learner not in written and any(value is not None for value in own.values())]


def moodle_table(marks: LessonMarks) -> list[list[str]]:
    """Moodle's import: the id column and one column per lesson, for the learners with a mark on each (no blank
    cell: Moodle takes a blank for 'no grade' and writes it over the grade there)."""
    written = moodle_written(marks)
    header = [moodle_id_column(written)] + [lesson_title(lesson) for lesson in marks.lessons]
    rows = [[learner] + [number(marks.marks[learner][lesson]) for lesson in marks.lessons] for learner in written]
    return [header, *rows]


def write_table(path: Path, table: list[list[str]]) -> None:
    """A CSV in plain UTF-8 (what both imports read), written atomically; text a spreadsheet would take for a
    formula gets a ``'`` (:func:`helpers.teacher.gradebook.safe_text`)."""
    with atomic_open(path, newline="") as handle:
        csv.writer(handle).writerows([safe_text(cell) for cell in row] for row in table)


class CanvasCsv:
    """gradebook-canvas.csv: the gradebook's marks summed by lesson, in Canvas's import format."""

    file = CANVAS_FILE

    def write(self, path: Path, book: Gradebook, results: Sequence[NotebookResult]) -> None:
        write_table(path, canvas_table(class_marks(results, book=book)))


class MoodleCsv:
    """gradebook-moodle.csv: the gradebook's marks summed by lesson, in Moodle's import format (no blank cell)."""

    file = MOODLE_FILE

    def write(self, path: Path, book: Gradebook, results: Sequence[NotebookResult]) -> None:
        write_table(path, moodle_table(class_marks(results, book=book)))


def write_lms_files(
    out: Path, results: Sequence[NotebookResult], expect: Iterable[str] = (), points=None, plan: Rows | None = None,
) -> None:
    """Write gradebook-canvas.csv and gradebook-moodle.csv into ``out`` (beside gradebook.csv)."""
    marks = class_marks(results, expect, points, plan)
    write_table(out / CANVAS_FILE, canvas_table(marks))
    write_table(out / MOODLE_FILE, moodle_table(marks))
