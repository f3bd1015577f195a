"""Check an answer, name the slip a wrong one shows, and give hints and solutions on demand (every lesson).

- ``exercise(id)`` shows the question (its text lives once, in the register);
- ``check(id, answer)`` judges the number the learner wrote and, when it is
  wrong, names the slip whose value it matches; it never shows the expected value;
- ``check_function(id, fn)`` runs the learner's function on hidden cases;
- ``hint(id)`` shows the next hint each time it is called (a nudge first, then
  the method, never the number); ``solution(id)`` the worked solution: the
  steps with the real numbers and the few lines of code that compute it;
  ``reveal(id)`` the short form (the value and its last step).

Nothing prints unless asked: an untouched lesson shows each exercise as "not
answered yet". Every check, hint and solution is recorded for the grader
(:mod:`helpers.exercises.checklog`). This module judges with the answer key, so it
serves practice copies; an assignment copy, and the kernel the grader runs a
notebook in, use :mod:`helpers.exercises.assignment` instead, which only records.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import lru_cache
from numbers import Real
from typing import Any

import pandas as pd

from helpers.exercises import checklog, combined, record
from helpers.exercises._display import AMBER, GREEN, GREY, RED, verdict_html
from helpers.exercises.answers import (
    Answer,
    NumberVerdict,
    UnreadableAnswer,
    judge_number,
    matches,
    read_answer,
)
from helpers.exercises.fresh import VARIANTS
from helpers.exercises.registry import (
    REGISTRY,
    Exercise,
    FunctionExercise,
    answer_text,
    get,
)
from helpers.exercises.runner import FunctionReport, run_cases
from helpers.exercises.worked import Slip, Worked
from helpers.slips import describe as describe_slip


class Verdict(Enum):
    """The verdict of a check. Only RIGHT earns the points."""

    NOT_ANSWERED = "not answered yet"
    RIGHT = "right"
    UNREADABLE = "could not be read"
    TOO_FEW_DECIMALS = "too few decimals"
    TRUNCATED = "truncated"
    SLIP = "wrong: a known slip"
    CLOSE = "close"
    WRONG = "wrong"
    RECORDED = "recorded for the grader"  # an assignment copy: the grader judges


@dataclass(frozen=True)
class CheckResult:
    """The outcome of ``check``: ``.verdict``, ``.correct``, ``.slips`` (codes) and ``.message``.

    ``.answer`` is the answer as read (its text) and ``.question`` the exercise's
    question from the register; the expected value is never part of it.
    ``.slip_groups`` keeps the slips apart: each the codes of one slip (two codes,
    a combination); several when different slips give the same number.
    """

    exercise: str
    verdict: Verdict
    message: str
    answer: str = ""
    slips: tuple[str, ...] = ()
    question: str = ""
    slip_groups: tuple[tuple[str, ...], ...] = ()

    @property
    def correct(self) -> bool:
        return self.verdict is Verdict.RIGHT

    @property
    def mistake(self) -> str | None:
        """The slip codes, '+' within a combination and '|' between different slips (:func:`mistake_code`), or None."""
        return mistake_code(self.slip_groups) or None

    def __repr__(self) -> str:
        question = f"{self.exercise}: {self.question}\n" if self.question else ""
        return (
            f"{question}{_mark(self.verdict)} {self.message}"
            if question
            else (f"{_mark(self.verdict)} {self.exercise}: {self.message}")
        )

    def _repr_html_(self) -> str:
        return verdict_html(self.exercise, self.question, _mark(self.verdict), _colour(self.verdict), self.message)


def _mark(verdict: Verdict) -> str:
    return {Verdict.RIGHT: "✓", Verdict.NOT_ANSWERED: "·", Verdict.RECORDED: "·"}.get(verdict, "✗")


def _colour(verdict: Verdict) -> str:
    if verdict is Verdict.RIGHT:
        return GREEN
    if verdict in (Verdict.NOT_ANSWERED, Verdict.UNREADABLE, Verdict.RECORDED):
        return GREY
    if verdict in (Verdict.TOO_FEW_DECIMALS, Verdict.TRUNCATED, Verdict.CLOSE):
        return AMBER
    return RED


# --- check ----------------------------------------------------------------------


def check(exercise_id: str, answer: Any) -> CheckResult:
    """Judge an answer to an exercise and name the slip a wrong one matches (every lesson).

    ``answer`` is a number (float, int, numpy scalar, Fraction) or text such as
    ``"0.55"``, ``"0,55"``, ``"55%"``, ``"3/4"`` or ``"undefined"``; a float and
    the same digits as text get the same verdict.

    >>> check("new-hit-rate-at-2", None).verdict.name
    'NOT_ANSWERED'
    """
    exercise = _answer_exercise(exercise_id)
    checklog.record_check(exercise.id, answer)
    result = replace(judge(exercise, answer, exercise.worked()), question=exercise.question)
    record_verdict("check", exercise, result)
    return result


def record_verdict(event: str, exercise: Exercise | FunctionExercise, result: CheckResult, **details: Any) -> None:
    """Add a verdict to the learner's own record (:mod:`helpers.exercises.record`): right, or the slips named."""
    record.record(event, exercise.id, exercise.lesson, verdict=result.verdict.name.lower(),
                  slips=[list(group) for group in result.slip_groups], **details)


def judge(exercise: Exercise, answer: Any, worked: Worked) -> CheckResult:
    """The verdict on one answer given the worked solution (the grader calls this in its own process)."""
    if answer is None:
        return CheckResult(exercise.id, Verdict.NOT_ANSWERED, "Not answered yet: replace None with your answer.")
    try:
        given = read_answer(answer)
    except UnreadableAnswer as error:
        message = f"Could not read your answer: {error}. Give one number such as 0.125, 12.5%, 1/8 or 0,125."
        return CheckResult(exercise.id, Verdict.UNREADABLE, message)
    return diagnose(exercise, given, worked)


def diagnose(exercise: Exercise, given: Answer, worked: Worked) -> CheckResult:
    """Right; a slip (at the asked precision, or its exact value with the trailing zeros left off); far from the
    key, two slips at once (:mod:`~helpers.exercises.combined`); zeros added after a right rounding; too few
    decimals, in the same words whatever the digits; truncated; close; a slip's value rounded early; wrong."""
    expected, decimals, fewest = worked.value, exercise.decimals, exercise.min_decimals
    if not math.isfinite(expected) or given.undefined:
        return _undefined(exercise, given, worked)
    verdict = judge_number(given, expected, decimals, fewest)
    if verdict is NumberVerdict.RIGHT:
        return CheckResult(exercise.id, Verdict.RIGHT, f"Right: {given.quoted} is correct.", given.text)
    slips = matching_slips(exercise, given, worked, exact=True) or matching_slips(exercise, given, worked, exact=False)
    if slips:
        if verdict is NumberVerdict.TRUNCATED:  # the truncated key is also a slip's value: name both
            slips = [*slips, ("digits-cut-off",)]
        return _slip_result(exercise, given, slips)
    singles = distinct_slips(exercise, worked)
    # two slips at once, far from the key (never near its digits); a short answer whatever its digits, as above
    if verdict in (NumberVerdict.WRONG, NumberVerdict.TOO_FEW_DECIMALS):
        slips = combined.matching_pairs(given, worked, singles, exercise.decimals, exercise.min_decimals)
        slips = slips or combined.padded_slips(given, singles, exercise.decimals)
        if slips:
            return _slip_result(exercise, given, slips)
    if combined.zeros_added(given, expected, exercise.decimals if fewest is None else fewest):
        return _zeros_added(exercise, given)
    if too_short(given, exercise):
        # whatever its digits (a rounding of the key or not), the same words: a short answer reveals nothing
        message = f"{given.quoted} has fewer decimals than this exercise asks for: give {exercise.precision}."
        return CheckResult(exercise.id, Verdict.TOO_FEW_DECIMALS, message, given.text)
    if verdict is NumberVerdict.TRUNCATED:
        message = f"{given.quoted} cuts the digits off: round instead (look at the next digit: 5 or more rounds up)."
        return CheckResult(exercise.id, Verdict.TRUNCATED, message, given.text, ("digits-cut-off",),
                           slip_groups=(("digits-cut-off",),))
    if verdict in (NumberVerdict.ROUNDED_WRONGLY, NumberVerdict.CLOSE):
        # the same words on either side of the answer: a message naming one neighbour would give the answer away
        message = (
            f"{given.quoted} is close but off in the last digits: keep full precision in every step and round "
            "only the final answer, to the nearest value (5 or more rounds up)."
        )
        return CheckResult(exercise.id, Verdict.CLOSE, message, given.text)
    near = combined.near_slips(given, worked, singles, exercise.decimals)
    if near:
        return _slip_result(exercise, given, near, near=True)
    return CheckResult(
        exercise.id, Verdict.WRONG, f"{given.quoted} is not right yet. hint('{exercise.id}') gives a nudge.", given.text
    )


def _zeros_added(exercise: Exercise, given: Answer) -> CheckResult:
    """A right rounding with zeros written after it: they claim digits the value does not have."""
    message = (f"{given.quoted} has zeros written after a rounded answer: give {exercise.precision}; a 0 past "
               "them says that digit of the value is 0.")
    return CheckResult(exercise.id, Verdict.CLOSE, message, given.text, ("zeros-added",),
                       slip_groups=(("zeros-added",),))


def too_short(given: Answer, exercise: Exercise) -> bool:
    """True when the answer is written with fewer decimals than the exercise accepts (a fraction never is)."""
    fewest = exercise.decimals if exercise.min_decimals is None else exercise.min_decimals
    return given.decimals is not None and given.decimals < fewest


def _undefined(exercise: Exercise, given: Answer, worked: Worked) -> CheckResult:
    """Either side undefined: right only when both are."""
    if given.undefined and not math.isfinite(worked.value):
        return CheckResult(exercise.id, Verdict.RIGHT, "Right: this value is undefined.", given.text)
    if given.undefined:
        return CheckResult(
            exercise.id,
            Verdict.WRONG,
            "This one has a value: something relevant exists to be found.",
            given.text,
        )
    slips = matching_slips(exercise, given, worked, exact=True)
    if slips:
        return _slip_result(exercise, given, slips)
    return CheckResult(exercise.id, Verdict.WRONG, f"{given.quoted} is not right yet.", given.text)


def _slip_result(
    exercise: Exercise, given: Answer, slips: list[tuple[str, ...]], near: bool = False
) -> CheckResult:
    """The answer is what these slips give (``near``: off in the last digits of it), each named, kept apart
    (``slip_groups``), and their codes together."""
    codes = tuple(dict.fromkeys(code for group in slips for code in group))
    message = slip_message(given, slips, near)
    return CheckResult(exercise.id, Verdict.SLIP, message, given.text, codes, slip_groups=tuple(slips))


def mistake_code(slips: Iterable[Sequence[str]]) -> str:
    """Slips as one code: '+' joins the codes of a combination, '|' different slips that give the same number.

    >>> mistake_code([("no-discount",), ("exponential-for-linear", "retrieved-only-ideal")])
    'no-discount|exponential-for-linear+retrieved-only-ideal'
    """
    return "|".join("+".join(codes) for codes in slips if codes)


def read_mistake_code(code: str) -> tuple[tuple[str, ...], ...]:
    """The slips of a code :func:`mistake_code` wrote ('' none); an older code, codes joined by '+' alone, is one."""
    return tuple(tuple(part for part in group.split("+") if part) for group in code.split("|") if group.strip("+"))


def distinct_slips(exercise: Exercise, worked: Worked) -> list[Slip]:
    """The slips that change the answer at the asked precision; a combination only where its parts differ."""
    # the measure and kind too: the slips of writing depend on them, and a difference's are in its inputs, which a
    # Worked leaves out of its equality
    return list(_distinct_slips(exercise.decimals, worked, combined.measure_and_kind(worked)))


@lru_cache(maxsize=256)  # every answer checked against one worked problem (a learner's tries, a test's) asks again
def _distinct_slips(decimals: int, worked: Worked, _measure_and_kind: tuple[str, str] | None) -> tuple[Slip, ...]:
    expected = worked.value

    def same(value: float, target: float) -> bool:
        if not (math.isfinite(value) and math.isfinite(target)):
            return math.isfinite(value) == math.isfinite(target)
        return matches(read_answer(f"{value:.{decimals}f}"), target, decimals)

    slips = [*worked.slips, *combined.writing_slips(worked, decimals)]  # 12.5 written for 0.125, ...
    distinct = [(codes, value) for codes, value in slips if not same(value, expected)]
    return tuple(
        (codes, value)
        for codes, value in distinct
        if len(codes) == 1 or not any(set(other) < set(codes) and same(value, v) for other, v in distinct)
    )


def matching_slips(exercise: Exercise, given: Answer, worked: Worked, exact: bool) -> list[tuple[str, ...]]:
    """The slips whose value the answer gives: at the asked precision (``exact``), or with its trailing zeros
    left off ("0.55" for a slip worth 0.550); never by its leading digits alone ("0.5" is not 0.511)."""
    found = []
    for codes, value in distinct_slips(exercise, worked):
        if not math.isfinite(value):
            continue
        # 12.5 for 0.125: a percentage has two decimals fewer, the point moved right one fewer
        candidate = combined.Candidate(codes, value, combined.written_shift(codes, value, worked.value))
        if combined.hits(given, candidate, exercise.decimals, exercise.min_decimals, exact):
            found.append(codes)
    return list(dict.fromkeys(found))


def slip_message(given: Answer, slips: list[tuple[str, ...]], near: bool = False) -> str:
    """Name the slip(s) an answer matches and how to fix each (``near``: it is off in the last digits of theirs)."""

    def explain(codes: tuple[str, ...]) -> str:
        parts = [describe_slip(code) for code in codes]
        title = " together with ".join(part.title for part in parts)
        return f"{title}. Fix: {' '.join(part.fix for part in parts)}"

    if near:
        listed = " Or: ".join(explain(codes) for codes in slips)
        return (f"Not right: {given.quoted} is off only in its last digits from what this slip gives, as a step "
                f"rounded early (or the last digit rounded the other way) leaves it: {listed}")
    if len(slips) == 1:
        return f"Not right: {given.quoted} is what you get with this slip: {explain(slips[0])}"
    listed = " Or: ".join(f"({number}) {explain(codes)}" for number, codes in enumerate(slips, start=1))
    return f"Not right: {given.quoted} is what {len(slips)} different slips give. {listed}"


# --- function exercises ---------------------------------------------------------------


def check_function(exercise_id: str, fn: Any, timeout: float = 2.0) -> FunctionReport:
    """Run a learner's function on the hidden cases of an exercise and show a table (lessons 01, 02).

    Each case runs in its own forked process stopped after ``timeout`` seconds.
    The table shows each input, what your function returned and ✓/✗, never the
    expected value of a hidden case; a slip that explains every miss is named.
    """
    exercise = get(exercise_id)
    if not isinstance(exercise, FunctionExercise):
        raise ValueError(f"{exercise_id!r} asks for a number: use check({exercise_id!r}, your_answer)")
    if isinstance(timeout, bool) or not isinstance(timeout, Real) or not timeout > 0:
        raise ValueError(f"timeout must be a number of seconds above 0, got {timeout!r}")
    if fn is None:
        message = f"Not answered yet: define {exercise.name} and pass it instead of None."
        checklog.record_function(exercise.id, None)
        record.record("check", exercise.id, exercise.lesson, verdict="not_answered", slips=[])
        return FunctionReport(
            exercise.id, False, (), message, pd.DataFrame(), answered=False, question=exercise.question
        )
    if not callable(fn):
        raise TypeError(f"check_function needs your function {exercise.name}, got {type(fn).__name__}")
    report = run_cases(exercise.id, exercise.name, exercise.cases(), fn, float(timeout))
    checklog.record_function(exercise.id, list(report.outputs))
    record.record("check", exercise.id, exercise.lesson, verdict="right" if report.correct else "wrong",
                  slips=[list(report.slips)] if report.slips else [])
    return replace(report, question=exercise.question)


# --- questions, hints and solutions -------------------------------------------------------


@dataclass(frozen=True)
class Shown:
    """A block of text for the notebook: a title, lines, and optional code; plain in a terminal."""

    title: str
    lines: tuple[str, ...] = ()
    code: str = ""
    css: str = "helpers-note"

    def __repr__(self) -> str:
        body = "\n".join(f"  {line}" for line in self.lines)
        code = "" if not self.code else "\n  code:\n" + "\n".join(f"    {line}" for line in self.code.splitlines())
        return f"{self.title}\n{body}{code}".rstrip()

    def _repr_html_(self) -> str:
        lines = "".join(f"<li>{html.escape(line)}</li>" for line in self.lines)
        code = f"<pre><code>{html.escape(self.code)}</code></pre>" if self.code else ""
        # tex2jax_ignore / mathjax_ignore: spreadsheet-like text ($B$2) must not be typeset as maths
        return (
            f'<div class="{self.css} tex2jax_ignore mathjax_ignore" style="border-left:4px solid {GREY};'
            f'padding-left:8px"><b>{html.escape(self.title)}</b><ul>{lines}</ul>{code}</div>'
        )


def exercise(exercise_id: str) -> Shown:
    """The question of an exercise, from the register, with how to answer it (every lesson)."""
    found = get(exercise_id)
    how = (
        f"check('{found.id}', your_answer) judges it ({found.precision})"
        if isinstance(found, Exercise)
        else f"check_function('{found.id}', {found.name}) runs your {found.name} on hidden cases"
    )
    lines = (
        found.question,
        how,
        f"stuck? hint('{found.id}') gives a nudge; solution('{found.id}') the worked solution",
    )
    return Shown(f"Exercise {found.id} (lesson {found.lesson})", lines, css="helpers-exercise")


_hints_shown: dict[str, int] = {}


def hint(exercise_id: str) -> Shown:
    """The next hint of an exercise: a nudge first, then the method; never the answer (every lesson)."""
    found = get(exercise_id)
    number = _hints_shown.get(found.id, 0)
    checklog.record_event("hint", found.id, number=number + 1)
    record.record("hint", found.id, found.lesson, number=number + 1)
    if number >= len(found.hints):
        return Shown(
            f"No more hints for {found.id}",
            (f"That was the last one; solution('{found.id}') shows the worked solution.",),
        )
    _hints_shown[found.id] = number + 1
    return Shown(f"Hint {number + 1} of {len(found.hints)} for {found.id}", (found.hints[number],))


def solution(exercise_id: str) -> Shown:
    """The worked solution: the steps with the real numbers and the code that computes it (every lesson)."""
    found = get(exercise_id)
    checklog.record_event("solution", found.id)
    record.record("solution", found.id, found.lesson)
    code = found.code
    if isinstance(found, FunctionExercise):
        return Shown(f"Solution of {found.id}", (found.question, f"one way to write {found.name}:"), code)
    worked = found.worked()
    answer = answer_text(worked.value, found.decimals)
    lines = (*worked.steps, f"answer: {answer}")
    return Shown(f"Solution of {found.id}", lines, code, css="helpers-solution")


@dataclass(frozen=True)
class Revealed:
    """The expected value of an exercise and its last step (returned by ``reveal``)."""

    exercise: str
    value: float
    decimals: int
    how: str

    @property
    def text(self) -> str:
        return answer_text(self.value, self.decimals)

    def __repr__(self) -> str:
        return f"{self.exercise} = {self.text}\n  {self.how}"

    def _repr_html_(self) -> str:
        title = f"<b>{html.escape(self.exercise)} = {html.escape(self.text)}</b>"
        return f"<div>{title}<div>{html.escape(self.how)}</div></div>"


def reveal(exercise_id: str) -> Revealed:
    """The short form of ``solution``: the expected value and how it ends (every lesson)."""
    found = _answer_exercise(exercise_id)
    checklog.record_event("reveal", found.id)
    record.record("reveal", found.id, found.lesson)
    worked = found.worked()
    return Revealed(found.id, worked.value, found.decimals, worked.steps[-1] if worked.steps else "")


def _answer_exercise(exercise_id: str) -> Exercise:
    found = get(exercise_id)
    if isinstance(found, FunctionExercise):
        raise ValueError(f"{exercise_id!r} asks for a function: use check_function({exercise_id!r}, {found.name})")
    return found


# --- lists for the lessons and the teacher ---------------------------------------------


def mistake_values(exercise_id: str) -> pd.DataFrame:
    """The number each distinct slip gives on an answer exercise (lesson 07); never the right one.

    Columns: mistake (codes joined by "+"), title, value at the exercise's precision.
    """
    found = _answer_exercise(exercise_id)
    worked = found.worked()  # the slips only: the right value is never listed
    rows = [
        {
            "mistake": "+".join(codes),
            "title": " together with ".join(describe_slip(c).title for c in codes),
            "value": answer_text(value, found.decimals),
        }
        for codes, value in distinct_slips(found, worked)
    ]
    return pd.DataFrame(rows, columns=["mistake", "title", "value"])


def list_exercises(lesson: str | None = None) -> pd.DataFrame:
    """Every exercise (or one lesson's): id, lesson, kind, question, precision, points, variants (every lesson).

    ``variants`` is True for an exercise ``practice(id)`` can deal new numbers for.
    """
    rows = [
        {
            "id": found.id,
            "lesson": found.lesson,
            "kind": found.kind,
            "question": found.question,
            "precision": found.precision,
            "points": found.points,
            "variants": found.id in VARIANTS,
        }
        for found in REGISTRY.values()
        if lesson is None or found.lesson == lesson
    ]
    return pd.DataFrame(rows, columns=["id", "lesson", "kind", "question", "precision", "points", "variants"])
