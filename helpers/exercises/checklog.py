"""Record what a learner did with each exercise, as JSON lines for the grader ($HELPERS_CHECK_LOG).

The log holds the *answers* (the value given to ``check`` as text the reader
reads back the same way, the outputs of a learner's function on the hidden
cases) and the calls of ``hint``, ``solution`` and ``reveal``. It holds no
verdict: the grader judges the answers itself, in its own process.

While the grader runs a notebook (:func:`sign_lines`), each line also carries
its running number ``seq`` and ``mac``, an HMAC-SHA256 of the line under a key
only the grader and this process know; the grader ignores and reports any line
whose number or signature is wrong (appended by hand, edited, reordered).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import warnings
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from numbers import Integral, Rational, Real
from typing import Any

LOG_ENV = "HELPERS_CHECK_LOG"


def given_text(answer: Any) -> dict:
    """An answer as {"type", "text"}: text that read_answer reads as the same answer (None for None)."""
    if getattr(answer, "shape", None) == () and hasattr(answer, "item"):
        answer = answer.item()
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


def signature(entry: dict, key: bytes) -> str:
    """The HMAC-SHA256 (hex) of a log line without its ``mac``, written canonically (sorted keys)."""
    body = {name: value for name, value in entry.items() if name != "mac"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


_signed: Callable[[dict], dict] | None = None
_signed_path: str | None = None


def sign_lines(key: bytes, path: str) -> None:
    """From now on number and sign every line, and write them to ``path`` (the grader's kernel only)."""
    global _signed, _signed_path
    count = 0

    def signed(entry: dict) -> dict:
        nonlocal count
        count += 1
        numbered = {**entry, "seq": count}
        return {**numbered, "mac": signature(numbered, key)}

    _signed, _signed_path = signed, path


def record(entry: dict) -> None:
    """Append one JSON line to the file named by $HELPERS_CHECK_LOG, when it is set."""
    path = _signed_path or os.environ.get(LOG_ENV)
    if not path:
        return
    if _signed is not None:
        entry = _signed(entry)
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
    except OSError as error:
        warnings.warn(f"could not record the check in {path}: {error}", stacklevel=3)


def record_check(exercise_id: str, answer: Any) -> None:
    """Record the answer given to ``check``."""
    record({"event": "check", "exercise": exercise_id, "given": given_text(answer)})


def record_function(exercise_id: str, outputs: list | None) -> None:
    """Record the outputs of the learner's function on the hidden cases (None: no function yet)."""
    record({"event": "check_function", "exercise": exercise_id, "outputs": outputs})


def record_event(event: str, exercise_id: str, **details: Any) -> None:
    """Record a call of hint, solution or reveal."""
    record({"event": event, "exercise": exercise_id, **details})
