"""Record what a learner did with each exercise, as JSON lines for the grader.

In the grader's kernel the lines go to a pipe the grader opened before the
kernel started ($HELPERS_CHECK_FD, a file descriptor); elsewhere to the file
named by $HELPERS_CHECK_LOG, when it is set.

The log holds the *answers* (the value given to ``check`` as text the reader
reads back the same way, the outputs of a learner's function on the hidden
cases) and the calls of ``hint``, ``solution`` and ``reveal``. It holds no
verdict: the grader judges the answers itself, in its own process, with a key
the learner's kernel never holds. A line the notebook writes itself can only
say what the learner could have answered anyway.
"""

from __future__ import annotations

import json
import os
import warnings
from decimal import Decimal
from fractions import Fraction
from numbers import Integral, Rational, Real
from typing import Any

LOG_ENV = "HELPERS_CHECK_LOG"
FD_ENV = "HELPERS_CHECK_FD"


NUMBER_TYPES = {"float", "int"}  # types whose text the grader reads back as a number (judged by its value)


def given_text(answer: Any) -> dict:
    """An answer as {"type", "text"}: text that :func:`given_answer` turns back into the same answer (None for None).

    >>> given_text(0.830), given_answer(given_text(0.830))
    ({'type': 'float', 'text': '0.83'}, 0.83)
    """
    if getattr(answer, "shape", None) == () and hasattr(answer, "item"):
        from helpers.exercises.answers import number_of_numpy

        answer = number_of_numpy(answer)
    kind = type(answer).__name__
    if answer is None:
        return {"type": "None", "text": None}
    if isinstance(answer, bool):
        return {"type": kind, "text": repr(answer)}
    if isinstance(answer, Integral):
        return {"type": kind, "text": str(int(answer))}
    if isinstance(answer, Rational):
        fraction = Fraction(int(answer.numerator), int(answer.denominator))
        return {"type": kind, "text": f"{fraction.numerator}/{fraction.denominator}"}
    if isinstance(answer, Decimal):
        return {"type": kind, "text": str(answer)}
    if isinstance(answer, Real):
        return {"type": kind, "text": repr(float(answer))}
    if isinstance(answer, str):
        return {"type": kind, "text": answer[:200]}
    return {"type": kind, "text": None}


def given_answer(given: dict) -> Any:
    """The answer a log line recorded, as ``check`` saw it: a float stays a float, so it is judged by its value.

    A float has no trailing zeros (0.830 is logged as "0.83"): judged as the text "0.83" it would have 2
    decimals, where ``check`` judged the number. Any other type is judged from its text, as ``check`` read it.
    """
    text, kind = given.get("text"), given.get("type")
    if isinstance(text, str) and kind in NUMBER_TYPES:
        try:
            return float(text) if kind == "float" else int(text)
        except ValueError:
            return text
    return text


def record(entry: dict) -> None:
    """Send one JSON line to the grader's pipe ($HELPERS_CHECK_FD), or append it to $HELPERS_CHECK_LOG's file."""
    line = (json.dumps(entry) + "\n").encode("utf-8")
    descriptor = os.environ.get(FD_ENV, "")
    if descriptor.isdigit():
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(int(descriptor), view):]
        except OSError as error:
            warnings.warn(f"could not record the check for the grader: {error}", stacklevel=3)
        return
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    try:
        with open(path, "ab") as handle:
            handle.write(line)
    except OSError as error:
        warnings.warn(f"could not record the check in {path}: {error}", stacklevel=3)


def record_check(exercise_id: str, answer: Any) -> None:
    """Record the answer given to ``check``."""
    record({"event": "check", "exercise": exercise_id, "given": given_text(answer)})


def record_function(exercise_id: str, outputs: list | None) -> None:
    """Record a call of check_function: the outputs on the cases (practice), or None when no function was given."""
    record({"event": "check_function", "exercise": exercise_id, "outputs": outputs})


def record_event(event: str, exercise_id: str, **details: Any) -> None:
    """Record a call of hint, solution or reveal."""
    record({"event": event, "exercise": exercise_id, **details})
