"""``check`` and its friends in an assignment copy, where there is no answer key to judge with (graded work).

An assignment copy (and the grader's kernel) holds the questions
(:mod:`helpers.exercises.questions`) and nothing that knows an answer. Here:

- ``check(id, answer)`` records the answer and says what it read ("recorded:
  0.125, a number with 3 decimals"), never right or wrong;
- ``check_function(id, fn)`` keeps the function; the grader later sends the
  hidden inputs (:func:`run_hidden_cases`) and judges the outputs in its own
  process;
- ``hint(id)`` shows the teacher's hints when the copy holds them;
- ``solution(id)`` and ``reveal(id)`` say that an assignment has no solutions.
"""

from __future__ import annotations

import ast
import inspect
import json
from functools import cache
from numbers import Real
from typing import Any

import pandas as pd

from helpers.exercises import checklog
from helpers.exercises.answers import UnreadableAnswer, read_answer, short_text
from helpers.exercises.checking import CheckResult, Revealed, Shown, Verdict
from helpers.exercises.questions import Question, find, read_questions, unknown_id
from helpers.exercises.runner import FunctionReport, _recorded, run_with_timeout

_functions: dict[str, Any] = {}  # exercise id -> the last function given to check_function


@cache
def questions() -> dict[str, Question]:
    """The questions of this copy, read once."""
    return read_questions()


def get(exercise_id: object) -> Question:
    """The question with this id, or a clear error naming the nearest known ids."""
    return find(exercise_id, questions())


def _unknown(exercise_id: object, answer: Any, event: str) -> CheckResult | None:
    """A check of an id this copy does not know: recorded (the grader names it) and said, never raised."""
    if not isinstance(exercise_id, str) or exercise_id in questions():
        return None
    checklog.record({"event": event, "exercise": exercise_id[:60], "given": checklog.given_text(answer)})
    said = f"Not recorded for grading: {unknown_id(exercise_id, questions())} Copy the id from the exercise's question."
    return CheckResult(exercise_id, Verdict.UNREADABLE, said, "", (), "")


def check(exercise_id: str, answer: Any) -> CheckResult:
    """Record an answer for the grader and say what was read; an assignment never says right or wrong."""
    unknown = _unknown(exercise_id, answer, "check")
    if unknown is not None:
        return unknown
    found = get(exercise_id)
    if found.kind == "function":
        raise ValueError(f"{exercise_id!r} asks for a function: use check_function({exercise_id!r}, {found.name})")
    checklog.record_check(found.id, answer)
    asked = "" if found.variants else found.question  # the cell above may hold this learner's own numbers
    if answer is None:
        said = "Not answered yet: replace None with your answer."
        return CheckResult(found.id, Verdict.NOT_ANSWERED, said, "", (), asked)
    try:
        given = read_answer(answer)
    except UnreadableAnswer as error:
        said = f"Could not read your answer: {error}. Give one number such as 0.125, 12.5%, 1/8 or 0,125."
        return CheckResult(found.id, Verdict.UNREADABLE, said, "", (), asked)
    return CheckResult(found.id, Verdict.RECORDED, recorded_message(given, found), given.text, (), asked)


def recorded_message(given, found: Question) -> str:
    """What check read, in words, and a word when fewer decimals were typed than asked."""
    if given.undefined:
        return "Recorded: 'undefined'. The grader judges it after you hand in."
    if given.typed == "number":  # a float has no trailing zeros: the grader judges its value
        return f"Recorded: {given.quoted}. The grader judges it after you hand in."
    if given.decimals is None:
        what = "an exact fraction"
    else:
        what = f"a number with {given.decimals} decimal{'s' * (given.decimals != 1)}"
    said = f"Recorded: {given.quoted}, {what}. The grader judges it after you hand in."
    fewest = found.min_decimals if found.min_decimals is not None else found.decimals
    if given.decimals is not None and fewest is not None and given.decimals < fewest:
        said += f" This exercise asks for {found.precision}."
    return said


def check_function(exercise_id: str, fn: Any, timeout: float = 2.0) -> FunctionReport | CheckResult:
    """Keep a learner's function for the grader, who runs it on the hidden cases after the notebook ran."""
    unknown = _unknown(exercise_id, None, "check_function")
    if unknown is not None:
        return unknown
    found = get(exercise_id)
    if found.kind != "function":
        raise ValueError(f"{exercise_id!r} asks for a number: use check({exercise_id!r}, your_answer)")
    if isinstance(timeout, bool) or not isinstance(timeout, Real) or not timeout > 0:
        raise ValueError(f"timeout must be a number of seconds above 0, got {timeout!r}")
    if fn is None:
        _functions.pop(found.id, None)
        checklog.record({"event": "check_function", "exercise": found.id, "kept": False})
        said = f"Not answered yet: define {found.name} and pass it instead of None."
        return FunctionReport(found.id, False, (), said, pd.DataFrame(), answered=False, question=found.question)
    if not callable(fn):
        raise TypeError(f"check_function needs your function {found.name}, got {type(fn).__name__}")
    _functions[found.id] = (fn, float(timeout))
    if still_the_template(fn):
        checklog.record({"event": "check_function", "exercise": found.id, "kept": True})
        said = f"Not answered yet: write the body of {found.name} in place of the raise NotImplementedError line."
        return FunctionReport(found.id, False, (), said, pd.DataFrame(), answered=False, question=found.question)
    checklog.record({"event": "check_function", "exercise": found.id, "kept": True})
    said = f"Recorded: your function {found.name}. The grader runs it on hidden cases after you hand in."
    return FunctionReport(found.id, False, (), said, pd.DataFrame(), question=found.question, recorded=True)


def still_the_template(fn: Any) -> bool:
    """True when the function's body is still the template's ``raise NotImplementedError`` (and nothing else)."""
    try:
        lines = [line.strip() for line in inspect.getsource(fn).splitlines()[1:]]
    except (OSError, TypeError):
        return False
    body = [line for line in lines if line and not line.startswith("#")]
    return len(body) == 1 and body[0].startswith("raise NotImplementedError")


class HiddenOutputs:
    """What the learner's functions returned on the hidden inputs: the grader's last cell's result.

    The outputs travel as JSON text (NaN and infinities kept, which a Jupyter message's JSON drops).
    """

    def __init__(self, outputs: dict[str, list]) -> None:
        self.outputs = outputs

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        shown = f"your functions ran on the hidden cases of {len(self.outputs)} exercise(s)"
        return {"text/plain": shown, "application/json": {"outputs": json.dumps(self.outputs)}}


def run_hidden_cases(inputs: str) -> HiddenOutputs:
    """The grader's last cell: run each kept function on the inputs it sends; the outputs are the cell's result.

    ``inputs`` is the text of a dict ``{exercise id: [args, ...]}`` (Python literals). The grader reads
    the result of this cell only, so nothing a function (or a thread) writes afterwards counts.
    """
    found: dict[str, list] = {}
    for exercise_id, cases in ast.literal_eval(inputs).items():
        if exercise_id not in _functions:
            continue
        fn, timeout = _functions[exercise_id]
        found[exercise_id] = [_recorded(run_with_timeout(fn, tuple(args), timeout)) for args in cases]
        checklog.record({"event": "outputs", "exercise": exercise_id, "outputs": found[exercise_id]})
    return HiddenOutputs(found)


def exercise(exercise_id: str) -> Shown:
    """The question of an exercise, with how to answer it."""
    found = get(exercise_id)
    how = (
        f"check_function('{found.id}', {found.name}) keeps your {found.name} for the grader"
        if found.kind == "function"
        else f"check('{found.id}', your_answer) records it ({found.precision})"
    )
    return Shown(f"Exercise {found.id} (lesson {found.lesson})", (found.question, how), css="helpers-exercise")


_hints_shown: dict[str, int] = {}


def hint(exercise_id: str) -> Shown:
    """The next of the teacher's hints, when this assignment has them."""
    found = get(exercise_id)
    if not found.hints:
        return Shown(f"No hints for {found.id}", ("This assignment comes without hints.",))
    number = _hints_shown.get(found.id, 0)
    checklog.record_event("hint", found.id, number=number + 1)
    if number >= len(found.hints):
        return Shown(f"No more hints for {found.id}", ("That was the last one.",))
    _hints_shown[found.id] = number + 1
    return Shown(f"Hint {number + 1} of {len(found.hints)} for {found.id}", (found.hints[number],))


def solution(exercise_id: str) -> Shown:
    """An assignment holds no solutions: say so (the practice copy has them)."""
    found = get(exercise_id)
    return Shown(f"No solution for {found.id}", ("This is an assignment copy: it holds the questions, no answers. "
                                                 "The grader judges your answers after you hand in.",))


def reveal(exercise_id: str) -> Revealed:
    """An assignment holds no answers: refuse clearly."""
    found = get(exercise_id)
    raise ValueError(f"{found.id}: this is an assignment copy, it holds no answers to reveal")


def mistake_values(exercise_id: str) -> pd.DataFrame:
    """Slip values come from the answer key, which an assignment copy does not hold."""
    found = get(exercise_id)
    raise ValueError(f"{found.id}: this is an assignment copy, it holds no answer key to compute slips from")


def practice(exercise_id: str | None = None, seed: int | None = None):
    """Variants are computed from the answer key, which an assignment copy does not hold."""
    if exercise_id is None:
        raise ValueError("practice() needs a practice copy; this assignment copy holds no answer key")
    found = get(exercise_id)
    raise ValueError(f"{found.id}: practice() needs a practice copy; this assignment copy holds no answer key")


def list_exercises(lesson: str | None = None) -> pd.DataFrame:
    """Every exercise of this copy (or one lesson's): id, lesson, kind, question, precision, points."""
    rows = [
        {"id": q.id, "lesson": q.lesson, "kind": q.kind, "question": q.question, "precision": q.precision,
         "points": q.points}
        for q in questions().values()
        if lesson is None or q.lesson == lesson
    ]
    return pd.DataFrame(rows, columns=["id", "lesson", "kind", "question", "precision", "points"])
