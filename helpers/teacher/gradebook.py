"""The class's gradebook from the graded results: one row per learner, the points of each exercise (grader).

:func:`class_gradebook` builds the one model (:class:`helpers.teacher.results.Gradebook`) that every file of
the grader is written from: ``gradebook.csv`` and ``gradebook.xlsx`` (:mod:`helpers.teacher.reports`) and the
Canvas and Moodle files (:mod:`helpers.teacher.lms`). :func:`number` and :func:`safe_text` are how each CSV
writes a number and a text.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from helpers.exercises import REGISTRY, exercises_of
from helpers.teacher.results import Gradebook, Judged, NotebookResult, Row

if TYPE_CHECKING:
    from helpers.teacher.plan import Rows



def counted_answers(results: Iterable[NotebookResult]) -> tuple[dict[str, dict[str, Judged]], dict[str, list[str]]]:
    """learner -> exercise -> the answer that counts; and learner -> the hand-ins answering the same exercises.

    An exercise answered in several hand-ins of one learner counts for none of them (never the best of
    several): each is graded and shown, and the learner's row is flagged ``duplicate`` until one is chosen.
    """
    seen: dict[str, dict[str, list[tuple[str, Judged]]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        for answer in result.answers:
            seen[result.learner][answer.exercise].append((result.notebook, answer))
    counted: dict[str, dict[str, Judged]] = defaultdict(dict)
    duplicates: dict[str, list[str]] = {}
    for learner, exercises in seen.items():
        for exercise, answers in exercises.items():
            if len(answers) == 1:
                counted[learner][exercise] = answers[0][1]
            else:
                notebooks = duplicates.setdefault(learner, [])
                notebooks += [name for name, _ in answers if name not in notebooks]
    return counted, duplicates


def class_lessons(results: Sequence[NotebookResult]) -> list[str]:
    """The exercises every learner is graded on when --expect is not given: the lesson all hand-ins share.

    A class graded together hands in one lesson; a hand-in that could not be read is then still out of
    that lesson's points. Hand-ins of several lessons expect nothing beyond their own.
    """
    lessons = {result.lesson for result in results if result.lesson and result.answers}
    if len(lessons) != 1 or "," in next(iter(lessons)):
        return []
    return [exercise.id for exercise in exercises_of(next(iter(lessons)))]


def exercise_columns(results: Sequence[NotebookResult], expect: Iterable[str] = ()) -> list[str]:
    """The exercises anyone was graded on (and the expected ones), in the register's order."""
    seen = {answer.exercise for result in results for answer in result.answers} | set(expect)
    return [exercise_id for exercise_id in REGISTRY if exercise_id in seen] + sorted(seen - set(REGISTRY))


def expected_of(
    learner: str, plan: Rows | None, fallback: Sequence[str], points: dict[str, float] | None
) -> tuple[dict[str, float], bool]:
    """The exercises a learner is graded on whatever they handed in, with points; and whether only those count."""
    chosen = plan.exercises(learner) if plan is not None else None
    if chosen is not None:
        return chosen, True
    return {i: (points or {}).get(i, REGISTRY[i].points if i in REGISTRY else 0.0) for i in fallback}, False


def class_gradebook(
    results: Sequence[NotebookResult], expect: Iterable[str] = (), points: dict[str, float] | None = None,
    plan: Rows | None = None,
) -> Gradebook:
    """The gradebook: one :class:`Row` per learner (each of ``plan``'s roster, and each who handed in).

    Expected exercises never graded count 0; with a plan that names a learner's exercises (a manifest,
    ``--expect``), only those count, out of their points.
    """
    fallback = list(expect) or class_lessons(results)
    learners = sorted({*(plan.roster if plan else []), *(result.learner for result in results)})
    expected = {learner: expected_of(learner, plan, fallback, points) for learner in learners}
    wanted_ids = [i for wanted, _ in expected.values() for i in wanted]
    strict_all = bool(expected) and all(strict for _, strict in expected.values())  # a manifest or --expect
    columns = exercise_columns([] if strict_all else results, wanted_ids)
    counted, duplicates = counted_answers(results)
    graded: dict[str, dict[str, Judged]] = defaultdict(dict)
    for result in results:
        for answer in result.answers:
            graded[result.learner][answer.exercise] = answer
    rows = []
    for learner in learners:
        own = [result for result in results if result.learner == learner]
        problems = _problems_of(own, duplicates.get(learner, [])) if own else ["no-hand-in"]
        rows.append(learner_row(learner, *expected[learner], columns, counted.get(learner, {}), graded[learner],
                                problems))
    return Gradebook(columns, rows)


def learner_row(learner: str, wanted: dict[str, float], strict: bool, columns: Sequence[str],
                counted: dict[str, Judged], graded: dict[str, Judged], problems: list[str]) -> Row:
    """One learner's :class:`Row`: the points of each answer that counts, 0 for an expected exercise not
    answered, none for an exercise answered in two hand-ins (a duplicate, counted out of its points)."""
    counts = [column for column in columns if not strict or column in wanted]
    answers = {column: counted[column] for column in counts if column in counted}
    held = {column: graded[column] for column in counts if column in graded and column not in answers}
    values: dict[str, float | None] = {
        column: answers[column].points if column in answers else 0.0 if column in wanted and column not in held
        else None for column in columns
    }
    out_of = sum(wanted[column] if column in wanted else {**answers, **held}[column].max_points
                 for column in columns if values[column] is not None or column in held)
    return Row(learner, values, out_of, problems, wanted)


def gradebook_rows(
    results: Sequence[NotebookResult], expect: Iterable[str] = (), points: dict[str, float] | None = None,
    plan: Rows | None = None,
) -> tuple[list[str], list[Row]]:
    """The exercise columns and the rows of :func:`class_gradebook`."""
    book = class_gradebook(results, expect, points, plan)
    return book.exercises, book.rows


def _problems_of(results: Sequence[NotebookResult], duplicates: Sequence[str]) -> list[str]:
    """Problem codes of a learner's notebooks, with the notebook when there are several; 'duplicate' too."""
    several = len(results) > 1
    found = [f"{code} ({result.notebook})" if several else code for result in results for code in result.codes]
    if duplicates:
        found.append(f"duplicate ({', '.join(duplicates)}: each graded, their shared exercises count 0 "
                     "until one is chosen)")
    return found



# --- how a CSV writes a number and a text ----------------------------------------------------------


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


