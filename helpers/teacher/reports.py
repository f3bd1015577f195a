"""What the grader writes: the gradebook, every answer, a feedback page per learner, the class report.

- ``gradebook.csv``: one row per learner, a column of points per exercise,
  ``total``, ``out_of`` and ``problems``; UTF-8 with a byte-order mark so Excel
  reads accents, numbers written as plain numbers, and text that a spreadsheet
  would take for a formula (``=``, ``+``, ``-``, ``@``) prefixed with ``'``;
- ``answers.csv``: one row per learner × exercise: the answer given, the
  verdict, correct (1/0), points, the named mistake and the message;
- ``feedback/<learner>.html``: per exercise the verdict, the named mistake and
  a hint; never the expected value;
- ``class-report.html``: per exercise the share right and the most common named
  mistakes, with plots, for the teacher. Every page is standalone (no network).
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import math
import os
import re
import shutil
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from helpers.exercises import REGISTRY
from helpers.teacher.results import PROBLEMS, Judged, NotebookResult, Problem

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from helpers.teacher.sandbox import OutsideWatch
    from helpers.teacher.submissions import (
        Submission,  # matplotlib is imported when a plot is drawn, so the grader's command line starts fast
    )

GREEN, RED, GREY, AMBER, BLUE = "#1e7b34", "#b3261e", "#555555", "#8a5a00", "#2b5d9b"
STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#1a1a1a;line-height:1.45}
table{border-collapse:collapse;margin:1em 0;width:100%}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f2f2f2} td.num{text-align:right;font-variant-numeric:tabular-nums}
.right{color:#1e7b34;font-weight:bold} .wrong{color:#b3261e;font-weight:bold} .none{color:#555}
.problem{border-left:4px solid #8a5a00;padding-left:8px;margin:.5em 0}
figure{margin:1em 0} figcaption{color:#555} svg{max-width:100%;height:auto}
"""


# --- one row per learner ------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """A learner's line of the gradebook: points per exercise (None: not graded on it), and the problems."""

    learner: str
    points: dict[str, float | None]
    out_of: float
    problems: list[str]

    @property
    def total(self) -> float:
        return sum(value for value in self.points.values() if value is not None)


def best_answers(results: Iterable[NotebookResult]) -> dict[str, dict[str, Judged]]:
    """learner -> exercise -> the answer that counts (the most points when several notebooks answer it)."""
    best: dict[str, dict[str, Judged]] = defaultdict(dict)
    for result in results:
        for answer in result.answers:
            kept = best[result.learner].get(answer.exercise)
            if kept is None or answer.points > kept.points or (answer.points == kept.points and answer.correct):
                best[result.learner][answer.exercise] = answer
    return best


def exercise_columns(results: Sequence[NotebookResult], expect: Iterable[str] = ()) -> list[str]:
    """The exercises anyone was graded on (and the expected ones), in the register's order."""
    seen = {answer.exercise for result in results for answer in result.answers} | set(expect)
    return [exercise_id for exercise_id in REGISTRY if exercise_id in seen] + sorted(seen - set(REGISTRY))


def gradebook_rows(
    results: Sequence[NotebookResult], expect: Iterable[str] = (), points: dict[str, float] | None = None
) -> tuple[list[str], list[Row]]:
    """The columns and one :class:`Row` per learner; ``expect``-ed exercises never graded count 0."""
    expect = list(expect)
    columns = exercise_columns(results, expect)
    best = best_answers(results)
    rows = []
    for learner in sorted({result.learner for result in results}):
        own = [result for result in results if result.learner == learner]
        answers = best.get(learner, {})
        values: dict[str, float | None] = {
            column: answers[column].points if column in answers else (0.0 if column in expect else None)
            for column in columns
        }
        out_of = sum(_max_points(column, answers, points) for column in columns if values[column] is not None)
        rows.append(Row(learner, values, out_of, _problems_of(own)))
    return columns, rows


def _max_points(column: str, answers: dict[str, Judged], points: dict[str, float] | None) -> float:
    if column in answers:
        return answers[column].max_points
    return (points or {}).get(column, REGISTRY[column].points if column in REGISTRY else 0.0)


def _problems_of(results: Sequence[NotebookResult]) -> list[str]:
    """Problem codes of a learner's notebooks, with the notebook when there are several; 'duplicate' too."""
    several = len(results) > 1
    found = [f"{code} ({result.notebook})" if several else code for result in results for code in result.codes]
    answered = Counter(answer.exercise for result in results for answer in result.answers)
    if any(count > 1 for count in answered.values()):
        found.append("duplicate")
    return found


# --- the CSV files ----------------------------------------------------------------------------


def number(value: float | None) -> str:
    """A number as a spreadsheet reads it: '2', '0.5' ('' for none)."""
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"^[+-]?\d+([.,]\d+)?%?$")


def safe_text(text: str) -> str:
    """Text a spreadsheet will not run as a formula: a leading = + - @ gets a ' (a plain number stays)."""
    if text.startswith(FORMULA_START) and not PLAIN_NUMBER.match(text):
        return "'" + text
    return text


def write_csv(path: Path, header: list[str], rows: Iterable[list[str]]) -> None:
    """Write a CSV atomically (a temporary file, then renamed), UTF-8 with a byte-order mark."""
    temporary = path.with_name(path.name + ".part")
    with temporary.open("w", newline="", encoding="utf-8-sig") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    os.replace(temporary, path)


def write_gradebook(path: Path, results: Sequence[NotebookResult], expect=(), points=None) -> None:
    """gradebook.csv: learner, one column per exercise (points), total, out_of, problems."""
    columns, rows = gradebook_rows(results, expect, points)
    write_csv(
        path,
        ["learner", *columns, "total", "out_of", "problems"],
        (
            [safe_text(row.learner), *(number(row.points[c]) for c in columns), number(row.total),
             number(row.out_of), safe_text("; ".join(row.problems))]
            for row in rows
        ),
    )


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
            [safe_text(result.learner), safe_text(result.notebook), answer.lesson, answer.exercise,
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


def feedback_html(learner: str, results: Sequence[NotebookResult]) -> str:
    """A learner's page: per notebook the problems, then per exercise the verdict, the mistake and a hint."""
    total = sum(result.total for result in results)
    out_of = sum(answer.max_points for result in results for answer in result.answers)
    parts = [f"<h1>Feedback for {_e(learner)}</h1>", f"<p><b>{number(total)} of {number(out_of)} points</b></p>"]
    for result in results:
        parts.append(f"<h2>{_e(result.notebook)}</h2>")
        for problem in result.problems:
            said = f"<b>{_e(PROBLEMS.get(problem.code, problem.code))}</b>"
            parts.append(f'<div class="problem">{said} <span class="none">({_e(problem.message)})</span></div>')
        if result.answers:
            parts.append(_answers_table(result.answers))
    return _page(f"Feedback: {learner}", "".join(parts))


def _answers_table(answers: Sequence[Judged]) -> str:
    rows = []
    for answer in answers:
        exercise = REGISTRY.get(answer.exercise)
        question = exercise.question if exercise else ""
        mark, css = ("✓", "right") if answer.correct else (("·", "none") if not answer.answer else ("✗", "wrong"))
        said = _e(answer.message)
        if answer.mistake_title:
            said = f"<b>Named mistake: {_e(answer.mistake_title)}.</b> {said}"
        if answer.hint:
            said += f"<br><i>Hint: {_e(answer.hint)}</i>"
        if answer.help_used:
            said += f"<br><span class='none'>You used {_e(', '.join(answer.help_used))} for this exercise.</span>"
        rows.append(
            f"<tr><td><b>{_e(answer.exercise)}</b><br><span class='none'>{_e(question)}</span></td>"
            f"<td>{_e(answer.answer) or '—'}</td><td class='{css}'>{mark} {_e(answer.verdict)}</td>"
            f"<td class='num'>{number(answer.points)} / {number(answer.max_points)}</td><td>{said}</td></tr>"
        )
    head = "<tr><th>exercise</th><th>your answer</th><th>verdict</th><th>points</th><th>what to look at</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def write_feedback(folder: Path, learner: str, results: Sequence[NotebookResult]) -> Path:
    """Write one learner's page into folder; return its path."""
    path = folder / feedback_name(learner)
    _write_text(path, feedback_html(learner, results))
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


def item_analysis(results: Sequence[NotebookResult]) -> list[Item]:
    """Per exercise: the counts of :class:`Item`, from each learner's answer that counts."""
    best = best_answers(results)
    items = []
    for exercise in exercise_columns(results):
        answers = [own[exercise] for own in best.values() if exercise in own]
        mistakes = Counter((a.mistake, a.mistake_title) for a in answers if a.mistake and not a.correct)
        items.append(
            Item(
                exercise,
                len(answers),
                sum(a.correct for a in answers),
                sum(bool(a.mistake) and not a.correct for a in answers),
                sum(not a.answer for a in answers),
                [(codes, title, count) for (codes, title), count in mistakes.most_common()],
            )
        )
    return items


def class_report_html(results: Sequence[NotebookResult], sandbox: str = "", interrupted: str = "") -> str:
    """The teacher's page: the plots, the item table with the common mistakes, the scores, the problems."""
    items = item_analysis(results)
    _, rows = gradebook_rows(results)
    learners = len(rows)
    parts = [
        "<h1>Class report</h1>",
        f"<p>{learners} learners, {len(results)} notebooks, graded {datetime.now():%Y-%m-%d %H:%M}. "
        f"{_e(sandbox)}</p>",
    ]
    if interrupted:
        parts.append(f'<p class="problem"><b>{_e(interrupted)}</b></p>')
    if items:
        parts.append(_figure(item_plot(items), "Share of the class per exercise: right, a named mistake, "
                             "another wrong answer, not answered."))
    parts.append(_item_table(items))
    if rows:
        parts.append(_figure(score_plot(rows), "Learners by share of their points."))
    parts.append(_problem_table(results))
    return _page("Class report", "".join(parts))


def _item_table(items: Sequence[Item]) -> str:
    head = (
        "<tr><th>exercise</th><th>lesson</th><th>learners</th><th>right</th><th>not answered</th>"
        "<th>most common named mistakes</th></tr>"
    )
    rows = []
    for item in items:
        exercise = REGISTRY.get(item.exercise)
        said = "".join(
            f"<li>{_percent(item.share(count))} {_e(title)} <span class='none'>({_e(codes)})</span></li>"
            for codes, title, count in item.mistakes[:3]
        )
        rows.append(
            f"<tr><td><b>{_e(item.exercise)}</b></td><td>{_e(exercise.lesson if exercise else '')}</td>"
            f"<td class='num'>{item.graded}</td><td class='num'>{_percent(item.share(item.right))}</td>"
            f"<td class='num'>{_percent(item.share(item.not_answered))}</td>"
            f"<td>{f'<ul>{said}</ul>' if said else '—'}</td></tr>"
        )
    return f"<h2>Exercises</h2><table>{head}{''.join(rows)}</table>"


def _problem_table(results: Sequence[NotebookResult]) -> str:
    rows = [
        f"<tr><td>{_e(result.learner)}</td><td>{_e(result.notebook)}</td><td><b>{_e(problem.code)}</b></td>"
        f"<td>{_e(problem.message)}</td></tr>"
        for result in results
        for problem in result.problems
    ]
    if not rows:
        return "<h2>Problems</h2><p>None.</p>"
    head = "<tr><th>learner</th><th>notebook</th><th>problem</th><th>details</th></tr>"
    return f"<h2>Problems</h2><table>{head}{''.join(rows)}</table>"


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


def write_class_report(path: Path, results: Sequence[NotebookResult], sandbox: str = "", interrupted: str = "") -> None:
    _write_text(path, class_report_html(results, sandbox, interrupted))


# --- the output folder, filled as notebooks finish -----------------------------------------------


class OutputFolder:
    """The output folder: each result saved the moment it arrives, the CSV files and feedback rewritten."""

    def __init__(self, out: Path, expect: list[str], points: dict[str, float], watch: OutsideWatch | None):
        self.out, self.expect, self.points, self.watch = out, expect, points, watch
        self.results: dict[str, NotebookResult] = {}
        for name in ("results", "feedback"):
            shutil.rmtree(out / name, ignore_errors=True)
            (out / name).mkdir()
        if watch:
            watch.ignored.append((out / "results").resolve())
            watch.ignored.append((out / "feedback").resolve())
            for name in ("gradebook.csv", "answers.csv", "class-report.html"):
                watch.own |= {(out / name).resolve(), (out / f"{name}.part").resolve()}

    def add(self, number: int, result: NotebookResult) -> None:
        self.results[f"{number:04d}"] = result
        (self.out / "results" / f"{number:04d}.json").write_text(result.to_json(), encoding="utf-8")
        self.write_tables()
        own = [r for r in self.results.values() if r.learner == result.learner]
        write_feedback(self.out / "feedback", result.learner, own)

    def write_tables(self) -> None:
        results = self.ordered()
        write_gradebook(self.out / "gradebook.csv", results, self.expect, self.points)
        write_answers(self.out / "answers.csv", results)

    def ordered(self) -> list[NotebookResult]:
        return [self.results[key] for key in sorted(self.results)]

    def finish(self, sandbox: str, interrupted: str = "") -> None:
        """Rewrite everything from the results in hand, and the class report."""
        results = self.ordered()
        for key, result in self.results.items():  # again: a notebook run without a sandbox could have edited them
            (self.out / "results" / f"{key}.json").write_text(result.to_json(), encoding="utf-8")
        self.write_tables()
        for learner in {result.learner for result in results}:
            write_feedback(self.out / "feedback", learner, [r for r in results if r.learner == learner])
        write_class_report(self.out / "class-report.html", results, sandbox, interrupted)

    def mark_changed(self, submissions: Sequence[Submission]) -> None:
        """After grading: a submission whose file changed or vanished gets a problem (graded as first read)."""
        for number, submission in enumerate(submissions, start=1):
            key = f"{number:04d}"
            try:
                same = submission.path.read_bytes() == submission.data
            except OSError:
                same = False
            if not same and key in self.results:
                result = self.results[key]
                said = f"{submission.path} changed or was deleted while the class was graded; graded as first read"
                result.problems.append(Problem("submission-changed", said))
                self.add(number, result)

    def summary(self) -> str:
        """The lines printed at the end: learners, points, problems, where the files are."""
        results = self.ordered()
        _, rows = gradebook_rows(results, self.expect, self.points)
        lines = [f"{row.learner}: {number(row.total)} of {number(row.out_of)}"
                 + (f" ({'; '.join(row.problems)})" if row.problems else "") for row in rows]
        lines.append(f"\n{len(rows)} learners, {len(results)} notebooks: {self.out}/gradebook.csv, answers.csv, "
                     "feedback/, class-report.html")
        return "\n".join(lines)


# --- small pieces -------------------------------------------------------------------------------


def svg(figure: Figure) -> str:
    """A figure as inline SVG (text drawn as paths: no font needed)."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg")
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _figure(figure: Figure, caption: str) -> str:
    return f"<figure>{svg(figure)}<figcaption>{_e(caption)}</figcaption></figure>"


def _percent(share: float) -> str:
    return "—" if math.isnan(share) else f"{100 * share:.0f} %"


def _e(text: object) -> str:
    return html.escape(str(text))


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
        f"<style>{STYLE}</style></head><body>{body}</body></html>\n"
    )


def _write_text(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".part")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
