"""Run a learner's own function on hidden cases and judge each one (lessons 01, 02).

:func:`helpers.exercises.check_function` defines the cases; this module runs each
case in its own forked process that is killed after a time limit (a thread where
fork is missing), and shows a table of input, expected, got and ✓/✗. Values within 1e-6 pass; a value rounded
to 2-4 decimals passes with a note. A case whose value is undefined (an MRR over
no query, an nDCG whose grades are all 0) accepts 0.0, nan, or a ValueError /
ZeroDivisionError, shown as a note and not as a failure.
"""


import copy
import html
import io
import math
import multiprocessing
import os
import sys
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Real
from typing import NamedTuple

import pandas as pd

from helpers import mistakes as mk
from helpers.exercises.answers import GREEN, RED, short_text

UNDEFINED = math.nan


@dataclass(frozen=True)
class Case:
    """One hidden case of a function exercise: the arguments, the expected value and what it tests.

    An expected value of nan means "undefined": the learner's function may
    return 0.0 or nan, or raise ValueError or ZeroDivisionError; that is
    shown as a note, not a failure.
    """

    args: tuple
    expected: float
    about: str
    variants: list[tuple[tuple[str, ...], float]] = field(default_factory=list)


@dataclass(frozen=True)
class FunctionExercise:
    """An exercise whose answer is a function, checked on hidden cases."""

    id: str
    lesson: str
    question: str
    name: str
    cases: Callable[[], list[Case]]


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


# --- judging the cases of a function exercise ---------------------------------

UNDEFINED_ERRORS = ("ValueError", "ZeroDivisionError")


def judge_case(case: Case, outcome: Outcome) -> tuple[str, str, tuple[str, ...]]:
    """The mark (✓, ✗ or note), a comment and the mistake codes of one case."""
    if math.isnan(case.expected):
        return judge_undefined_case(outcome)
    if outcome.kind != "value":
        codes = error_mistakes(case, outcome)
        return "✗", _with_codes(outcome.error, codes), codes
    value = outcome.value
    if value is None:
        return "✗", "returned None: is a return statement missing?", ()
    if not isinstance(value, float):
        return "✗", f"returned {value}, not a number", ()
    mutated = " Your function changed the list it was given: sort a copy (sorted(...), not .sort())."
    mutated = mutated if outcome.mutated else ""
    if math.isclose(value, case.expected, rel_tol=1e-6, abs_tol=1e-9):
        return "✓", mutated.strip(), ()
    for decimals in (4, 3, 2):
        if math.isclose(value, round(case.expected, decimals), abs_tol=1e-12):
            comment = f"rounded to {decimals} decimals: return the full value, round when printing."
            return "✓", comment + mutated, ()
    codes = value_mistakes(case, value)
    return "✗", _with_codes("", codes) + mutated, codes


def judge_undefined_case(outcome: Outcome) -> tuple[str, str, tuple[str, ...]]:
    """An undefined case: 0.0, nan, ValueError or ZeroDivisionError are all accepted, as a note."""
    accepted = "undefined case: {what} is accepted; say so in your docstring."
    if outcome.kind == "value" and isinstance(outcome.value, float):
        if math.isnan(outcome.value):
            return "note", accepted.format(what="returning nan"), ()
        if outcome.value == 0:
            return "note", accepted.format(what="returning 0.0 (as scikit-learn does)"), ()
    if outcome.kind == "error" and any(name in UNDEFINED_ERRORS for name in outcome.error_types):
        return "note", accepted.format(what=f"raising {outcome.error_types[0]}"), ()
    got = outcome.error or f"returned {outcome.value}"
    return "✗", f"{got}: expected 0.0, nan, or a ValueError / ZeroDivisionError", ()


def value_mistakes(case: Case, value: float) -> tuple[str, ...]:
    """Codes of the mistakes whose value for this case equals the learner's value."""
    codes = []
    for group, wrong in case.variants:
        if not math.isfinite(wrong) or math.isclose(wrong, case.expected, rel_tol=1e-6, abs_tol=1e-9):
            continue
        if math.isclose(value, wrong, rel_tol=1e-6, abs_tol=1e-9):
            codes.extend(group)
    return tuple(dict.fromkeys(codes))


def error_mistakes(case: Case, outcome: Outcome) -> tuple[str, ...]:
    """A ZeroDivisionError where a mistake divides by zero (log2(rank) at rank 1) names that mistake."""
    if "ZeroDivisionError" not in outcome.error_types:
        return ()
    codes = [code for group, wrong in case.variants if not math.isfinite(wrong) for code in group]
    return tuple(dict.fromkeys(codes))


def _with_codes(text: str, codes: tuple[str, ...]) -> str:
    if not codes:
        return text
    looks = "; or ".join(mk.describe(code).title for code in codes)
    return f"{text} (looks like: {looks})".strip()


@dataclass(frozen=True)
class FunctionReport:
    """The outcome of ``check_function``: a table of cases plus ``.correct``, ``.mistake``, ``.message``."""

    exercise: str
    correct: bool
    mistake: str | None
    message: str
    table: pd.DataFrame

    def __repr__(self) -> str:
        mark = "✓" if self.correct else "✗"
        table = "" if self.table.empty else "\n" + self.table.to_string(index=False)
        return f"{mark} {self.exercise}: {self.message}{table}"

    def _repr_html_(self) -> str:
        colour, mark = (GREEN, "✓") if self.correct else (RED, "✗")
        line = (
            f'<div style="color:{colour};font-weight:bold">{mark} {html.escape(self.exercise)}: '
            f"{html.escape(self.message)}</div>"
        )
        table = "" if self.table.empty else self.table.to_html(index=False)
        return f'<div style="border-left:4px solid {colour};padding-left:8px">{line}{table}</div>'


def run_cases(exercise: FunctionExercise, fn, timeout: float) -> FunctionReport:
    """Run every case and build the report."""
    rows, all_codes = [], []
    for case in exercise.cases():
        outcome = run_with_timeout(fn, case.args, timeout)
        mark, comment, codes = judge_case(case, outcome)
        all_codes.extend(codes if mark == "✗" else ())
        rows.append(
            {
                "input": f"{exercise.name}({', '.join(repr(arg) for arg in case.args)})",
                "tests": case.about,
                "expected": "undefined" if math.isnan(case.expected) else f"{case.expected:.4f}",
                "got": _shown(outcome),
                "result": mark,
                "note": comment,
            }
        )
    table = pd.DataFrame(rows)
    failed = int((table["result"] == "✗").sum())
    notes = int((table["result"] == "note").sum())
    mistake = max(all_codes, key=all_codes.count) if all_codes else None
    message = summary(len(rows), failed, notes, mistake)
    return FunctionReport(exercise.id, failed == 0, mistake, message, table)


def _shown(outcome: Outcome) -> str:
    if outcome.kind != "value":
        return outcome.error.split(":")[0] if outcome.kind == "error" else outcome.kind
    return f"{outcome.value:.4f}" if isinstance(outcome.value, float) else str(outcome.value)


def summary(cases: int, failed: int, notes: int, mistake: str | None) -> str:
    """One line on a function check: how many cases passed, and the likeliest mistake."""
    note = "" if not notes else f"; {notes} note{'s' * (notes > 1)}"
    if failed == 0:
        return f"All {cases - notes} cases right{note}."
    text = f"{failed} of {cases} cases wrong{note}."
    if mistake:
        title, fix = mk.describe(mistake)
        text += f" Most look like this mistake: {title}. Fix: {fix}"
    return text
