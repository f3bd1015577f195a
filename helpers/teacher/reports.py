"""What the grader writes: the gradebook, every answer, a feedback page per learner, the class report.

- ``gradebook.csv``: one row per learner, a column of points per exercise,
  ``total``, ``out_of`` and ``problems``; UTF-8 with a byte-order mark so Excel
  reads accents, numbers written as plain numbers. The learner is written
  exactly as on the roster (an LMS import matches on it: a release refuses
  roster ids a spreadsheet would take for a formula); any text that could
  still start one (``=``, ``+``, ``-``, ``@``: a hand-in's folder named so,
  an answer) gets a ``'``, in every CSV file;
- ``gradebook.xlsx``: the same table for a spreadsheet, every text a text
  cell, so no learner id is ever run as a formula;
- ``answers.csv``: one row per learner × exercise: the answer given, the
  verdict, correct (1/0), points, the named mistake and the message;
- ``feedback/<learner>.html``: per exercise the verdict, the named mistake and
  a hint; never the expected value;
- ``class-report.html``: per exercise the share right and the most common named
  mistakes, with plots, for the teacher. Every page is standalone (no network).

The gradebook is one model (:class:`helpers.teacher.results.Gradebook`: its
columns declared once), built by :mod:`helpers.teacher.gradebook`; ``gradebook.csv``,
``gradebook.xlsx`` and the Canvas and Moodle files (:mod:`helpers.teacher.lms`)
are exporters of it (:func:`exporters`), as nbgrader's export plugins are.

Everything is built from the records in ``results/`` (:mod:`helpers.teacher.results`),
in the order of (learner, notebook): a class graded in one run, resumed, or
graded in shards and merged gives the same files. The class report is dated by
its latest record, not by the clock.

The pages come from Jinja2 templates (``templates/``) with autoescape on:
whatever a notebook puts in an answer, an error or a file name is shown as text.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from helpers.exercises import REGISTRY, exercises_of
from helpers.teacher.files import atomic_open, atomic_path, temporary_for, write_text_atomic
from helpers.teacher.gradebook import class_gradebook, counted_answers, gradebook_rows, number, safe_text
from helpers.teacher.lms import MOODLE_FILE, CanvasCsv, MoodleCsv, class_marks, moodle_left_out
from helpers.teacher.manifest import canonical
from helpers.teacher.names import shown
from helpers.teacher.results import (
    PROBLEMS,
    Column,
    Gradebook,
    Judged,
    NotebookResult,
    Problem,
    Row,
    read_result,
    result_file,
    write_result,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from helpers.teacher.manifest import Manifest
    from helpers.teacher.plan import Rows
    from helpers.teacher.sandbox import OutsideWatch
    from helpers.teacher.submissions import (
        Submission,  # matplotlib is imported when a plot is drawn, so the grader's command line starts fast
    )

GREEN, RED, GREY, AMBER, BLUE = "#1e7b34", "#b3261e", "#555555", "#8a5a00", "#2b5d9b"
TEMPLATES = Environment(
    loader=FileSystemLoader(Path(__file__).resolve().parent / "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
)


# --- the CSV files ----------------------------------------------------------------------------


def write_csv(path: Path, header: list[str], rows: Iterable[list[str]]) -> None:
    """Write a CSV atomically (a temporary file, then renamed), UTF-8 with a byte-order mark; every cell
    :func:`safe_text`."""
    with atomic_open(path, newline="", encoding="utf-8-sig") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows([safe_text(cell) for cell in row] for row in rows)


class Exporter(Protocol):
    """One file the gradebook is written into (as nbgrader's export plugins): its name, and the writing."""

    file: str

    def write(self, path: Path, book: Gradebook, results: Sequence[NotebookResult]) -> None: ...


class GradebookCsv:
    """gradebook.csv: every column of the gradebook; points as plain numbers, text defused (:func:`write_csv`)."""

    file = "gradebook.csv"

    def write(self, path: Path, book: Gradebook, results: Sequence[NotebookResult] = ()) -> None:
        columns = book.columns
        write_csv(path, [column.title for column in columns],
                  ([cell_text(column, column.value(row)) for column in columns] for row in book.rows))


def cell_text(column: Column, value: str | float | None) -> str:
    """A cell as CSV text: points as :func:`number` writes them, text as it is."""
    return number(value) if column.is_points and not isinstance(value, str) else str(value)


class GradebookXlsx:
    """gradebook.xlsx: every column of the gradebook, points as numbers and every text a text cell (never a
    formula), dated as its latest record (so the same results give the same file)."""

    file = "gradebook.xlsx"

    def write(self, path: Path, book: Gradebook, results: Sequence[NotebookResult] = ()) -> None:
        import xlsxwriter

        with atomic_path(path) as temporary:
            self._fill(xlsxwriter.Workbook(str(temporary), {"strings_to_formulas": False,
                                                            "strings_to_numbers": False}), book, results)

    @staticmethod
    def _fill(workbook, book: Gradebook, results: Sequence[NotebookResult]) -> None:
        """Every cell of the gradebook into an open xlsxwriter workbook, then close it (the file is written)."""
        workbook.set_properties({"created": graded_when(results) or datetime(2000, 1, 1, tzinfo=UTC)})
        sheet = workbook.add_worksheet("gradebook")
        columns = book.columns
        for place, column in enumerate(columns):
            sheet.write_string(0, place, column.title)
        for line, row in enumerate(book.rows, start=1):  # row by row: the strings are shared in this order
            for place, column in enumerate(columns):
                value = column.value(row)
                if not column.is_points:
                    sheet.write_string(line, place, str(value))
                elif value is not None:
                    sheet.write_number(line, place, float(value))
        workbook.close()


def exporters() -> list[Exporter]:
    """Every format the gradebook is written in, beside answers.csv: CSV, xlsx, Canvas, Moodle."""
    return [GradebookCsv(), GradebookXlsx(), CanvasCsv(), MoodleCsv()]


def write_gradebook(path: Path, results: Sequence[NotebookResult], expect=(), points=None, plan=None) -> None:
    """gradebook.csv of these results (:class:`GradebookCsv`)."""
    GradebookCsv().write(path, class_gradebook(results, expect, points, plan), results)


def write_gradebook_xlsx(path: Path, results: Sequence[NotebookResult], expect=(), points=None, plan=None) -> None:
    """gradebook.xlsx of these results (:class:`GradebookXlsx`)."""
    GradebookXlsx().write(path, class_gradebook(results, expect, points, plan), results)


ANSWER_COLUMNS = [
    "learner", "notebook", "lesson", "exercise", "answer", "verdict", "correct", "points", "max_points",
    "mistake", "mistake_title", "message", "help_used",
]


def write_answers(path: Path, results: Sequence[NotebookResult]) -> None:
    """answers.csv: one row per learner × exercise of each notebook."""
    write_csv(
        path,
        ANSWER_COLUMNS,
        (
            [result.learner, result.notebook, answer.lesson, answer.exercise,
             safe_text(answer.answer), answer.verdict, "1" if answer.correct else "0", number(answer.points),
             number(answer.max_points), answer.mistake, safe_text(answer.mistake_title), safe_text(answer.message),
             ", ".join(answer.help_used)]
            for result in sorted(results, key=lambda r: (r.learner, r.notebook))
            for answer in result.answers
        ),
    )


# --- feedback for each learner ---------------------------------------------------------------------


def feedback_name(learner: str) -> str:
    """A file name for a learner's page: letters, digits, dot, dash, underscore; a short hash when changed.

    >>> feedback_name("ann"), feedback_name("a b") != feedback_name("a_b")
    ('ann.html', True)
    """
    plain = re.sub(r"[^A-Za-z0-9._-]+", "_", learner).strip("._") or "learner"
    if plain != learner:
        plain += "-" + hashlib.sha256(learner.encode("utf-8")).hexdigest()[:6]
    return plain + ".html"


def feedback_html(
    learner: str, results: Sequence[NotebookResult], row: Row | None = None, questions: dict[str, str] | None = None
) -> str:
    """A learner's page: per notebook the problems, then per exercise the verdict, the mistake and a hint.

    With the learner's gradebook ``row`` the total is the gradebook's, out of the same points, and the
    exercises they are graded on that no hand-in answered are listed too, asked as ``questions`` says
    (their own numbers) or as the register does.
    """
    total = row.total if row else sum(result.total for result in results)
    out_of = row.out_of if row else sum(answer.max_points for result in results for answer in result.answers)
    notebooks = [
        {
            "name": result.notebook,
            "problems": [{"meaning": PROBLEMS.get(p.code, p.code), "message": p.message} for p in result.problems],
            "answers": [_answer_row(answer) for answer in result.answers if not row or _counts(answer, row)],
        }
        for result in results
    ]
    answered = {answer.exercise for result in results for answer in result.answers}
    asked = {i: exercise.question for i, exercise in REGISTRY.items()} | (questions or {})
    missing = [
        {"exercise": i, "question": asked.get(i, ""), "max_points": number(points)}
        for i, points in (row.expected.items() if row else []) if i not in answered
    ]
    return TEMPLATES.get_template("feedback.html.j2").render(
        title=f"Feedback: {learner}", learner=learner, total=number(total), out_of=number(out_of),
        notebooks=notebooks, missing=missing, no_hand_in=not results,
    )


def _counts(answer: Judged, row: Row) -> bool:
    """True for an answer the learner's row grades (with a manifest or --expect: one of their exercises)."""
    return not row.expected or answer.exercise in row.expected or row.points.get(answer.exercise) is not None


def _answer_row(answer: Judged) -> dict:
    exercise = REGISTRY.get(answer.exercise)
    mark, css = ("✓", "right") if answer.correct else (("·", "none") if not answer.answer else ("✗", "wrong"))
    question = answer.question or (exercise.question if exercise else "")
    return {
        "exercise": answer.exercise, "question": question, "given": answer.answer,
        "mark": mark, "css": css, "verdict": answer.verdict, "points": number(answer.points),
        "max_points": number(answer.max_points), "mistake_title": answer.mistake_title, "message": answer.message,
        "hint": answer.hint, "help_used": ", ".join(answer.help_used),
    }


def write_feedback(
    folder: Path, learner: str, results: Sequence[NotebookResult], row: Row | None = None,
    questions: dict[str, str] | None = None,
) -> Path:
    """Write one learner's page into folder; return its path."""
    path = folder / feedback_name(learner)
    _write_text(path, feedback_html(learner, results, row, questions))
    return path


# --- the class report -------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One exercise across the class: how many were graded on it, right, wrong by a named mistake, not answered."""

    exercise: str
    graded: int
    right: int
    named: int
    not_answered: int
    mistakes: list[tuple[str, str, int]]  # (codes, title, learners), most common first

    @property
    def wrong(self) -> int:
        return self.graded - self.right - self.named - self.not_answered

    def share(self, count: int) -> float:
        return count / self.graded if self.graded else math.nan


def item_analysis(results: Sequence[NotebookResult], rows: Sequence[Row] | None = None) -> list[Item]:
    """Per exercise: the counts of :class:`Item`, over the learners the gradebook grades on it.

    A learner graded on an exercise that no hand-in of theirs answered counts as not answered; an
    exercise answered in two hand-ins of one learner (a duplicate) counts for neither.
    """
    columns, graded_rows = gradebook_rows(results) if rows is None else (None, rows)
    counted, _ = counted_answers(results)
    exercises = columns if columns is not None else list(dict.fromkeys(c for row in graded_rows for c in row.points))
    items = []
    for exercise in exercises:
        graded = [row for row in graded_rows if row.points.get(exercise) is not None]
        answers = [counted[row.learner][exercise] for row in graded if exercise in counted.get(row.learner, {})]
        mistakes = Counter((a.mistake, a.mistake_title) for a in answers if a.mistake and not a.correct)
        items.append(
            Item(
                exercise,
                len(graded),
                sum(a.correct for a in answers),
                sum(bool(a.mistake) and not a.correct for a in answers),
                sum(not a.answer for a in answers) + len(graded) - len(answers),
                [(codes, title, count) for (codes, title), count in mistakes.most_common()],
            )
        )
    return items


def graded_when(results: Sequence[NotebookResult]) -> datetime | None:
    """When the latest of these records was graded (UTC), or None (no record says)."""
    found = []
    for result in results:
        try:
            found.append(datetime.fromisoformat(result.graded_at))
        except ValueError:
            continue
    return max(found) if found else None


def class_report_html(
    results: Sequence[NotebookResult], sandbox: str = "", interrupted: str = "", plan: Rows | None = None,
    unmatched: Sequence[str] = (), expect: Iterable[str] = (), points: dict[str, float] | None = None,
    rows: Sequence[Row] | None = None,
) -> str:
    """The teacher's page: the plots, the item table with the common mistakes, the scores, the problems.

    It counts as the gradebook does (the same rows: ``plan``, ``expect``, ``points``, or ``rows`` as
    computed); ``unmatched`` names the hand-ins of no roster learner, which were not graded. Its date is
    the latest record's.
    """
    if rows is None:
        _, rows = gradebook_rows(results, expect, points, plan)
    latest = graded_when(results)
    items = item_analysis(results, rows)
    missing = [{"learner": row.learner, "notebook": "", "code": "no-hand-in",
                "message": f"no notebook for this roster id: 0 of {number(row.out_of)}"}
               for row in rows if row.problems == ["no-hand-in"]]
    return TEMPLATES.get_template("class-report.html.j2").render(
        title="Class report",
        learners=len(rows),
        notebooks=len(results),
        when=f"{latest:%Y-%m-%d %H:%M} UTC" if latest else "(no date recorded)",
        sandbox=sandbox,
        interrupted=interrupted,
        item_plot=Markup(svg(item_plot(items), "items")) if items else "",
        score_plot=Markup(svg(score_plot(rows), "scores")) if rows else "",
        items=[_item_row(item) for item in items],
        problems=[
            {"learner": r.learner, "notebook": r.notebook, "code": p.code, "message": p.message}
            for r in results
            for p in r.problems
        ] + missing,
        unmatched=list(unmatched),
    )


def _item_row(item: Item) -> dict:
    exercise = REGISTRY.get(item.exercise)
    return {
        "exercise": item.exercise, "lesson": exercise.lesson if exercise else "", "graded": item.graded,
        "right": _percent(item.share(item.right)), "not_answered": _percent(item.share(item.not_answered)),
        "mistakes": [
            {"share": _percent(item.share(count)), "title": title, "codes": codes}
            for codes, title, count in item.mistakes[:3]
        ],
    }


def item_plot(items: Sequence[Item]) -> Figure:
    """One horizontal bar per exercise, split into right / named mistake / other wrong / not answered."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 0.32 * len(items) + 1.4))
    axes = figure.subplots()
    labels = [item.exercise for item in items][::-1]
    ordered = items[::-1]
    left = [0.0] * len(items)
    parts = [("right", GREEN, "right"), ("named mistake", RED, "named"), ("other wrong", AMBER, "wrong"),
             ("not answered", "#bbbbbb", "not_answered")]
    for label, colour, attribute in parts:
        shares = [100 * item.share(getattr(item, attribute)) if item.graded else 0.0 for item in ordered]
        axes.barh(labels, shares, left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, shares, strict=True)]
    axes.set_xlim(0, 100)
    axes.set_xlabel("% of the learners graded on the exercise")
    axes.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=4, frameon=False)
    figure.tight_layout()
    return figure


def score_plot(rows: Sequence[Row]) -> Figure:
    """A histogram of the learners' share of their points (0-100 %)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6, 2.8))
    axes = figure.subplots()
    shares = [100 * row.total / row.out_of if row.out_of else 0.0 for row in rows]
    axes.hist(shares, bins=[0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100.001], color=BLUE, edgecolor="white")
    axes.set_xlabel("% of the points")
    axes.set_ylabel("learners")
    figure.tight_layout()
    return figure


def write_class_report(
    path: Path, results: Sequence[NotebookResult], sandbox: str = "", interrupted: str = "", plan: Rows | None = None,
    unmatched: Sequence[str] = (), rows: Sequence[Row] | None = None,
) -> None:
    _write_text(path, class_report_html(results, sandbox, interrupted, plan, unmatched, rows=rows))


# --- the output folder, filled as notebooks finish -----------------------------------------------

RESULTS, FEEDBACK, CLASS_REPORT = "results", "feedback", "class-report.html"
TABLES = ("gradebook.csv", "gradebook.xlsx", "gradebook-canvas.csv", "gradebook-moodle.csv", "answers.csv")
UNSANDBOXED = ".unsandboxed"  # in results/: a run without a sandbox wrote here (see OutputFolder)


GRADED_ASSIGNMENT = "graded-assignment.json"  # which assignment the records of an output folder are of


def assignment_stamp(manifest: Manifest | None, manifest_file: Path | None, expect: Iterable[str] | None) -> dict:
    """What identifies the assignment a run grades, written beside its records (:data:`GRADED_ASSIGNMENT`).

    With a manifest: the lessons and the released notebooks (a release again for a late learner or new points
    is the same assignment: its records are graded again where a learner's entry changed), and the manifest's
    file name, to name it. Without: the exercises of ``--expect`` (none: the hand-ins' own lessons).
    """
    if manifest is not None:
        released = {"lessons": list(manifest.lessons), "released": dict(manifest.released)}
        return {"assignment": hashlib.sha256(canonical(released)).hexdigest(),
                "manifest": manifest_file.name if manifest_file else "", "lessons": list(manifest.lessons)}
    chosen = sorted(expect) if expect is not None else None
    return {"assignment": hashlib.sha256(canonical({"expect": chosen})).hexdigest(), "manifest": "",
            "expect": chosen}


def described(stamp: dict) -> str:
    """An assignment as the refusal names it: its manifest and lessons, or --expect."""
    if stamp.get("manifest") or stamp.get("lessons"):
        return f"{shown(stamp.get('manifest') or 'a manifest')} (lessons {', '.join(stamp.get('lessons', []))})"
    if stamp.get("expect"):
        return f"--expect {','.join(stamp['expect'])}"
    return "hand-ins graded without --assignment or --expect"


def read_stamp(out: Path) -> dict | None:
    """The assignment an output folder's records are of (:func:`assignment_stamp`), or None (not said)."""
    try:
        found = json.loads((out / GRADED_ASSIGNMENT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and isinstance(found.get("assignment"), str) else None


def other_assignment(out: Path, stamp: dict) -> str:
    """'' when ``out`` holds no records, or records of this assignment; else a refusal naming both."""
    earlier = read_stamp(out)
    if earlier is None or earlier["assignment"] == stamp["assignment"] or not any((out / RESULTS).glob("*.json")):
        return ""
    return (f"--out {shown(out)} holds the records of {described(earlier)}; this run grades {described(stamp)}: "
            "give each assignment its own --out folder (pass --out-reuse to grade into it anyway: the other "
            "assignment's records there are then replaced)")


def write_stamp(out: Path, stamp: dict) -> None:
    _write_text(out / GRADED_ASSIGNMENT, json.dumps(stamp, indent=1, sort_keys=True) + "\n")


HAND_IN_GONE = "hand-in-gone"


def gone(out: Path, present: set[str], wanted: Callable[[str], bool]) -> list[NotebookResult]:
    """The earlier records in ``out`` of learners graded now (``wanted``) who hand in nothing now (``present``:
    the learners who do), each kept as graded then and flagged :data:`HAND_IN_GONE`, never turned into 0."""
    found = []
    for path in sorted((out / RESULTS).glob("*.json")):
        record = read_result(path)
        if record is None or record.learner in present or not wanted(record.learner):
            continue
        if HAND_IN_GONE not in record.codes:
            when = record.graded_at or "in an earlier run"
            record.problems.append(Problem(HAND_IN_GONE, f"{record.notebook} was graded ({when}) and is no longer "
                                           "among the hand-ins: its grade is kept as it was then"))
        found.append(record)
    return found


def stored(out: Path, notebook: str) -> NotebookResult | None:
    """The record an earlier run saved in ``out`` for a hand-in, or None."""
    return read_result(out / RESULTS / result_file(notebook))


def tainted(out: Path) -> bool:
    """True when a run without a sandbox wrote into ``out/results`` (nothing there is taken as it is)."""
    return (out / RESULTS / UNSANDBOXED).exists()


class OutputFolder:
    """The output folder: each record saved the moment it arrives, the tables and pages rewritten from them.

    Records (``results/``, :func:`helpers.teacher.results.result_file`) are kept from run to run: a rerun
    takes a hand-in's record as it is (:meth:`reuse`) when it may, and grades the rest. The tables and the
    feedback of learners with new records are rewritten at most every ``every`` seconds while a run goes on
    (rewriting them for each notebook costs a time that grows with the square of the class), and all of it
    at the end (:meth:`finish`).

    No sandboxed notebook sees this folder (bubblewrap shows a kernel its own folder and read-only system
    and Python folders, and ``--out`` may lie in none of them: :func:`helpers.teacher.grade.check_out`), so
    a record here was written by the grader. A run without a sandbox marks ``results/`` (:data:`UNSANDBOXED`):
    its notebooks ran with your rights and could have written records, so no later run takes any record
    from there until a sandboxed run has graded the whole class again.
    """

    def __init__(self, out: Path, plan: Rows, watch: OutsideWatch | None, unmatched: Sequence[str] = (),
                 every: float = 5.0):
        self.out, self.plan, self.watch, self.unmatched = out, plan, watch, sorted(unmatched)
        self.results: dict[str, NotebookResult] = {}
        self.every = every
        self.flushed = time.monotonic()
        self.changed: set[str] = set()  # learners with records not yet in their feedback page
        shutil.rmtree(out / FEEDBACK, ignore_errors=True)
        for name in (RESULTS, FEEDBACK):
            (out / name).mkdir(parents=True, exist_ok=True)
        if watch:
            watch.ignored.append((out / RESULTS).resolve())
            watch.ignored.append((out / FEEDBACK).resolve())
            for name in (*TABLES, CLASS_REPORT):
                watch.own |= {(out / name).resolve(), temporary_for(out / name).resolve()}

    @property
    def files(self) -> list[str]:
        """Every file and folder a run writes, for the summary."""
        return [*TABLES, f"{FEEDBACK}/", CLASS_REPORT, f"{RESULTS}/"]

    def tainted(self) -> bool:
        return tainted(self.out)

    def mark_unsandboxed(self) -> None:
        (self.out / RESULTS / UNSANDBOXED).write_text(
            "A run without a sandbox wrote here: its notebooks could have written records too, so no record of "
            "this folder is reused until a sandboxed run has graded the whole class again.\n", encoding="utf-8")

    def reuse(self, result: NotebookResult) -> None:
        """Take an earlier run's record as this run's (not saved again: it is on disk as it is)."""
        self.results[result.notebook] = result
        self.changed.add(result.learner)

    def add(self, result: NotebookResult) -> None:
        """A notebook is graded: save its record now; rewrite the tables if the last time was ``every`` s ago."""
        self.results[result.notebook] = result
        write_result(self.out / RESULTS, result)
        self.changed.add(result.learner)
        if time.monotonic() - self.flushed >= self.every:
            self.flush()

    def flush(self) -> None:
        """The tables, and the feedback pages of the learners with new records."""
        rows = self.write_tables()
        results = self.ordered()
        for learner in sorted(self.changed):
            write_feedback(self.out / FEEDBACK, learner, [r for r in results if r.learner == learner],
                           rows.get(learner), self.plan.questions(learner))
        self.changed.clear()
        self.flushed = time.monotonic()

    def write_tables(self) -> dict[str, Row]:
        """The gradebook in every format (:func:`exporters`) and answers.csv; the gradebook's rows by learner."""
        results = self.ordered()
        book = class_gradebook(results, plan=self.plan)
        for exporter in exporters():
            exporter.write(self.out / exporter.file, book, results)
        write_answers(self.out / "answers.csv", results)
        return {row.learner: row for row in book.rows}

    def ordered(self) -> list[NotebookResult]:
        """The records by (learner, notebook): the same order however the class was graded."""
        return sorted(self.results.values(), key=lambda result: (result.learner, result.notebook))

    def finish(self, said: Sequence[str], interrupted: str = "") -> None:
        """Save every record again, rewrite every table and page and the class report; drop stale records.

        Saved again: a notebook run without a sandbox could have edited them. A record of a hand-in that is
        no longer there (or no longer graded) is removed, so ``results/`` holds this class alone.
        """
        results = self.ordered()
        for result in results:
            write_result(self.out / RESULTS, result)
        kept = {result_file(result.notebook) for result in results}
        for path in (self.out / RESULTS).iterdir():
            if path.name != UNSANDBOXED and path.name not in kept and path.is_file():
                path.unlink()
        rows = self.write_tables()
        for learner, row in rows.items():
            write_feedback(self.out / FEEDBACK, learner, [r for r in results if r.learner == learner], row,
                           self.plan.questions(learner))
        self.changed.clear()
        write_class_report(self.out / CLASS_REPORT, results, "; ".join(said), interrupted, self.plan,
                           self.unmatched, rows=list(rows.values()))

    def mark_changed(self, submissions: Sequence[Submission]) -> None:
        """After grading: a submission whose file changed or vanished gets a problem (graded as first read)."""
        from helpers.teacher.submissions import not_a_file, read_plain

        for submission in submissions:
            result = self.results.get(submission.notebook)
            if submission.refused or result is None:
                continue
            if not_a_file(submission.path) or read_plain(submission.path) != submission.data:
                said = f"{submission.path} changed or was deleted while the class was graded; graded as first read"
                result.problems.append(Problem("submission-changed", said))
                self.add(result)

    def summary(self, reused: int = 0) -> str:
        """The lines printed at the end: learners, points, problems, every file written."""
        results = self.ordered()
        book = class_gradebook(results, plan=self.plan)
        rows = book.rows
        lines = [f"{shown(row.learner)}: {number(row.total)} of {number(row.out_of)}"
                 + (f" ({shown('; '.join(row.problems))})" if row.problems else "") for row in rows]
        if self.unmatched:
            lines.append(f"not graded (no roster id): {', '.join(map(shown, self.unmatched))}")
        left_out = moodle_left_out(class_marks(results, book=book))
        if left_out:
            lines.append(f"not in {MOODLE_FILE} (a mark on some of its lessons only, and Moodle would write 'no "
                         f"grade' over the others): {', '.join(map(shown, left_out))}: enter theirs by hand")
        again = f" ({reused} taken as graded before: unchanged)" if reused else ""
        lines.append(f"\n{len(rows)} learners, {len(results)} notebooks{again}, in {shown(self.out)}: "
                     + ", ".join(self.files))
        return "\n".join(lines)


# --- small pieces -------------------------------------------------------------------------------


def svg(figure: Figure, name: str = "") -> str:
    """A figure as inline SVG (text drawn as paths: no font needed), the same bytes for the same figure.

    No date in its metadata, and its element ids drawn from ``name`` and the figure rather than at random
    (matplotlib's ``svg.hashsalt``), so a class graded twice gives the same page.
    """
    from matplotlib import rc_context

    buffer = io.StringIO()
    with rc_context({"svg.hashsalt": f"class-report {name}"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _percent(share: float) -> str:
    return "—" if math.isnan(share) else f"{100 * share:.0f} %"


def _write_text(path: Path, text: str) -> None:
    write_text_atomic(path, text)
