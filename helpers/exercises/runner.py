"""Run a learner's own function on hidden cases, judge each case, and name the slip behind the misses.

:func:`helpers.exercises.check_function` runs each case in its own forked
process that is killed after a time limit (a thread where fork is missing). The
report lists each case's input, what the function returned and ✓/✗; the
expected value is shown only for the few cases marked public, never for a case
that is also a question. Values within 1e-6 pass; a value rounded to 2-4
decimals passes with a note. A case whose value is undefined (an MRR over no
query, an nDCG whose grades are all 0) accepts 0.0, nan, or a ValueError /
ZeroDivisionError, shown as a note. The function as a whole is then compared
with each slip of its topic: when it behaves like one slip on every case, the
report names that slip.
"""

import copy
import io
import math
import multiprocessing
import os
import sys
import threading
import warnings
from dataclasses import dataclass, field
from enum import Enum
from numbers import Real
from typing import NamedTuple

import pandas as pd

from helpers.exercises._display import GREEN, GREY, RED, verdict_html
from helpers.exercises.answers import short_text
from helpers.slips import describe as describe_slip

UNDEFINED = math.nan


@dataclass(frozen=True)
class Case:
    """One hidden case of a function exercise: the arguments, the expected value and what it tests.

    An expected value of nan means "undefined": the learner's function may
    return 0.0 or nan, or raise ValueError or ZeroDivisionError; that is
    shown as a note, not a failure. ``slips`` hold the value each slip of the
    topic gives on this case; ``public`` cases show their expected value.
    """

    args: tuple
    expected: float
    about: str
    slips: tuple[tuple[tuple[str, ...], float], ...] = field(default=())
    public: bool = False


class Outcome(NamedTuple):
    """What one run of the learner's function gave: kind 'value', 'error', 'timeout' or 'crash'."""

    kind: str
    value: object = None
    error: str = ""
    error_types: tuple[str, ...] = ()
    mutated: bool = False


def _plain(value):
    """The function's return value in a form that can cross a process boundary."""
    if isinstance(value, bool) or value is None:
        return value
    if getattr(value, "shape", None) == () and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, Real):
        return float(value)
    return f"{type(value).__name__} {short_text(value)}"


def _call(fn, args) -> Outcome:
    """Call fn(*args): its value (or error) and whether it changed the arguments it was given."""
    saved = copy.deepcopy(args)
    try:
        value = fn(*args)
    except BaseException as error:  # the learner's code may raise anything, SystemExit included
        names = tuple(kind.__name__ for kind in type(error).__mro__)
        return Outcome("error", error=f"{type(error).__name__}: {error}"[:300], error_types=names)
    return Outcome("value", _plain(value), mutated=args != saved)


def _child(fn, args, connection) -> None:
    """Body of the forked process: run one case with its output silenced, send the outcome, exit."""
    sys.stdout = sys.stderr = io.StringIO()
    try:
        connection.send(_call(fn, args))
    finally:
        connection.close()
        os._exit(0)


def run_with_timeout(fn, args: tuple, timeout: float) -> Outcome:
    """Run fn(*args) in a forked process that is killed after ``timeout`` seconds.

    Where fork is not available (Windows), a thread is used: it cannot be
    killed, so a function that never returns keeps running in the background.
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        return run_in_thread(fn, args, timeout)
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        process = context.Process(target=_child, args=(fn, args, writer), daemon=True)
        process.start()
    writer.close()
    try:
        if not reader.poll(timeout):
            return Outcome("timeout", error=f"still running after {timeout:g} s: stopped (an endless loop?)")
        return reader.recv()
    except (EOFError, OSError):
        process.join(1)
        error = f"the process running your function died (exit code {process.exitcode})"
        return Outcome("crash", error=error)
    finally:
        reader.close()
        if process.is_alive():
            process.kill()
        process.join()


def run_in_thread(fn, args: tuple, timeout: float) -> Outcome:
    """Run fn(*args) in a daemon thread and wait at most ``timeout`` seconds."""
    box = []
    thread = threading.Thread(target=lambda: box.append(_call(fn, args)), daemon=True)
    thread.start()
    thread.join(timeout)
    if not box:
        error = f"still running after {timeout:g} s (it keeps running: restart the kernel)"
        return Outcome("timeout", error=error)
    return box[0]


# --- judging one case ---------------------------------------------------------

UNDEFINED_ERRORS = ("ValueError", "ZeroDivisionError")


class Mark(Enum):
    """The verdict on one case."""

    RIGHT = "✓"
    NOTE = "note"
    WRONG = "✗"


def judge_case(case: Case, outcome: Outcome) -> tuple[Mark, str]:
    """The mark of one case and a comment (never the expected value of a hidden case)."""
    if math.isnan(case.expected):
        return judge_undefined_case(outcome)
    if outcome.kind != "value":
        return Mark.WRONG, outcome.error
    value = outcome.value
    if value is None:
        return Mark.WRONG, "returned None: is a return statement missing?"
    if not isinstance(value, float):
        return Mark.WRONG, f"returned {value}, not a number"
    changed = " It changed the list it was given: sort a copy (sorted(...), not .sort())." * outcome.mutated
    if same(value, case.expected):
        return Mark.RIGHT, changed.strip()
    for decimals in (4, 3, 2):
        if math.isclose(value, round(case.expected, decimals), abs_tol=1e-12):
            note = f"rounded to {decimals} decimals: return the full value, round when printing."
            return Mark.RIGHT, note + changed
    return Mark.WRONG, changed.strip()


def judge_undefined_case(outcome: Outcome) -> tuple[Mark, str]:
    """An undefined case: 0.0, nan, ValueError or ZeroDivisionError are all accepted, as a note."""
    accepted = "undefined case: {what} is accepted; say so in your docstring."
    if outcome.kind == "value" and isinstance(outcome.value, float):
        if math.isnan(outcome.value):
            return Mark.NOTE, accepted.format(what="returning nan")
        if outcome.value == 0:
            return Mark.NOTE, accepted.format(what="returning 0.0 (as scikit-learn does)")
    if outcome.kind == "error" and any(name in UNDEFINED_ERRORS for name in outcome.error_types):
        return Mark.NOTE, accepted.format(what=f"raising {outcome.error_types[0]}")
    got = outcome.error or f"returned {outcome.value}"
    return Mark.WRONG, f"{got}: here 0.0, nan, or a ValueError / ZeroDivisionError is expected"


# --- naming the slip behind the function ----------------------------------------


def behaves_like(outcome: Outcome, slip_value: float) -> bool:
    """True when an output is what a slip gives: the same number, or a failure where the slip divides by 0.

    A slip value of ``inf`` means "this slip divides by zero here": the function
    raising ZeroDivisionError (or returning inf / nan) behaves like it.
    """
    if math.isinf(slip_value):
        failed = outcome.kind == "error" and "ZeroDivisionError" in outcome.error_types
        return failed or (isinstance(outcome.value, float) and not math.isfinite(outcome.value))
    return isinstance(outcome.value, float) and same(outcome.value, slip_value)


def same(value: float, other: float) -> bool:
    """Two function outputs agree: within 1e-6 relative or 1e-9 absolute."""
    return math.isclose(value, other, rel_tol=1e-6, abs_tol=1e-9)


def diagnose_function(cases: list[Case], outcomes: list[Outcome], marks: list[Mark]) -> tuple[str, ...]:
    """The slip whose values the function reproduces on every case it gets wrong, and on the others too.

    A slip counts when it explains every wrong case and disagrees with no right
    one; among those, the one that changes the most cases wins. Cases with an
    undefined expected value say nothing either way.
    """
    wrong = [i for i, mark in enumerate(marks) if mark is Mark.WRONG]
    if not wrong:
        return ()
    best: tuple[str, ...] = ()
    best_reach = 0
    for codes in _slip_codes(cases):
        explains_all, reach = True, 0
        for i, case in enumerate(cases):
            if math.isnan(case.expected):
                continue
            value = dict(case.slips).get(codes)
            if value is None:
                explains_all = False
                break
            if math.isnan(value):  # the slip has no value on this case: it says nothing either way
                continue
            differs = math.isinf(value) or not same(value, case.expected)
            if i in wrong and not (differs and behaves_like(outcomes[i], value)):
                explains_all = False
                break
            if i not in wrong and differs:
                explains_all = False
                break
            reach += differs
        if explains_all and reach > best_reach:
            best, best_reach = codes, reach
    return best


def _slip_codes(cases: list[Case]) -> list[tuple[str, ...]]:
    return list(dict.fromkeys(codes for case in cases for codes, _ in case.slips))


# --- the report -----------------------------------------------------------------


@dataclass(frozen=True)
class FunctionReport:
    """The outcome of ``check_function``: ``.correct``, ``.slips`` (codes), ``.message`` and a table of cases.

    ``outputs`` holds what the function returned on each case (a float, or the
    name of the error), in case order: the grader judges these itself.
    """

    exercise: str
    correct: bool
    slips: tuple[str, ...]
    message: str
    table: pd.DataFrame
    outputs: tuple = ()
    answered: bool = True
    question: str = ""
    recorded: bool = False  # an assignment copy: kept for the grader, not judged here

    @property
    def mistake(self) -> str | None:
        """The slip codes joined by '+', or None."""
        return "+".join(self.slips) or None

    def __repr__(self) -> str:
        mark = "✓" if self.correct else ("·" if not self.answered or self.recorded else "✗")
        question = f"{self.exercise}: {self.question}\n" if self.question else f"{self.exercise}: "
        table = "" if self.table.empty else "\n" + self.table.to_string(index=False)
        return f"{question}{mark} {self.message}{table}"

    def _repr_html_(self) -> str:
        if self.correct:
            colour, mark = GREEN, "✓"
        else:
            colour, mark = (GREY, "·") if not self.answered or self.recorded else (RED, "✗")
        table = "" if self.table.empty else self.table.to_html(index=False, classes="helpers-cases")
        return verdict_html(self.exercise, self.question, mark, colour, self.message, table)


def run_cases(exercise_id: str, name: str, cases: list[Case], fn, timeout: float) -> FunctionReport:
    """Run every case of a function exercise, judge each, name the slip, and build the report."""
    outcomes = [run_with_timeout(fn, case.args, timeout) for case in cases]
    return judge_outputs(exercise_id, name, cases, outcomes)


def not_written_yet(outcomes: list[Outcome]) -> bool:
    """True when every case raised NotImplementedError: the template function is still untouched."""
    return bool(outcomes) and all("NotImplementedError" in outcome.error_types for outcome in outcomes)


def judge_outputs(exercise_id: str, name: str, cases: list[Case], outcomes: list[Outcome]) -> FunctionReport:
    """Judge recorded outputs of a learner's function on the cases (also used by the grader)."""
    if len(outcomes) != len(cases):
        raise ValueError(f"{len(outcomes)} outputs for {len(cases)} cases of {exercise_id}")
    outputs = tuple(_recorded(outcome) for outcome in outcomes)
    if not_written_yet(outcomes):
        message = f"Not answered yet: write the body of {name} in place of the raise NotImplementedError line."
        return FunctionReport(exercise_id, False, (), message, pd.DataFrame(), outputs, answered=False)
    judged = [judge_case(case, outcome) for case, outcome in zip(cases, outcomes, strict=True)]
    marks = [mark for mark, _ in judged]
    slips = diagnose_function(cases, outcomes, marks)
    rows = [
        {
            "input": f"{name}({', '.join(repr(arg) for arg in case.args)})",
            "tests": case.about,
            "expected": _expected(case),
            "yours": _shown(outcome),
            "result": mark.value,
            "note": comment,
        }
        for case, outcome, (mark, comment) in zip(cases, outcomes, judged, strict=True)
    ]
    failed = marks.count(Mark.WRONG)
    notes = marks.count(Mark.NOTE)
    message = summary(len(cases), failed, notes, slips)
    return FunctionReport(exercise_id, failed == 0, slips, message, pd.DataFrame(rows), outputs)


def _expected(case: Case) -> str:
    if not case.public:
        return "(hidden)"
    return "undefined" if math.isnan(case.expected) else f"{case.expected:.4f}"


def _shown(outcome: Outcome) -> str:
    if outcome.kind != "value":
        return outcome.error.split(":")[0] if outcome.kind == "error" else outcome.kind
    return f"{outcome.value:.4f}" if isinstance(outcome.value, float) else str(outcome.value)


def _recorded(outcome: Outcome) -> dict:
    """One output as plain JSON for the check log."""
    return {
        "kind": outcome.kind,
        "value": outcome.value,
        "error_types": list(outcome.error_types),
        "mutated": outcome.mutated,
        "error": outcome.error[:200],
    }


def outcome_from_record(record: dict) -> Outcome:
    """The Outcome back from what :func:`_recorded` wrote (the grader's side)."""
    value = record.get("value")
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = float(value)
    return Outcome(
        str(record.get("kind", "crash")),
        value,
        str(record.get("error", "")),
        tuple(record.get("error_types", ())),
        bool(record.get("mutated", False)),
    )


def summary(cases: int, failed: int, notes: int, slips: tuple[str, ...]) -> str:
    """One line on a function check: how many cases passed, and the slip that explains the misses."""
    note = "" if not notes else f"; {notes} note{'s' * (notes > 1)}"
    if failed == 0:
        return f"All {cases - notes} cases right{note}."
    text = f"{failed} of {cases} cases wrong{note}."
    for code in slips:
        title, fix = describe_slip(code)[:2]
        text += f" Your function behaves like this slip on every case: {title}. Fix: {fix}"
    return text
