"""Read a learner's answer (a number, a fraction, a percentage, a decimal comma) and compare it
at the precision an exercise states (lessons 01-08, through :func:`helpers.exercises.check`)."""


import math
import re
from decimal import Decimal
from numbers import Integral, Rational, Real
from typing import NamedTuple

# --- reading an answer -------------------------------------------------------


class Answer(NamedTuple):
    """A learner's answer as read: its value, its decimals (None: full precision) and its text."""

    value: float
    decimals: int | None
    text: str


class UnreadableAnswer(ValueError):
    """The answer is not a number the checker can read; the message says what it got."""


UNDEFINED_WORDS = {
    "inf", "+inf", "infinity", "∞", "nan", "undefined", "not defined", "#div/0!", "#div/0", "div/0",
    "division by zero", "zerodivisionerror", "0/0",
}
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def read_answer(answer) -> Answer:
    """Read a number from a float, int, numpy scalar, Fraction, Decimal or string (all lessons).

    Strings may use a decimal comma (``"0,55"``), a percent sign (``"55%"``), a
    fraction (``"3/4"``) and surrounding spaces; words such as ``"undefined"``,
    ``"inf"`` or ``"#DIV/0!"`` read as an undefined value (``nan``). A string
    keeps its number of decimals, which the checks use for precision.

    >>> read_answer(" 0,55 ")
    Answer(value=0.55, decimals=2, text='0.55')
    >>> read_answer("3/4").value
    0.75
    """
    if getattr(answer, "shape", None) == () and hasattr(answer, "item"):
        answer = answer.item()  # a numpy scalar or 0-d array
    if isinstance(answer, bool):
        raise UnreadableAnswer(f"{answer!r} is a yes/no value, not a number")
    if isinstance(answer, Decimal):
        return read_text(str(answer))
    if isinstance(answer, Integral | Rational):
        return Answer(float(answer), None, str(answer))
    if isinstance(answer, Real):
        value = float(answer)
        return Answer(value, None, format_number(value))
    if isinstance(answer, str):
        return read_text(answer)
    raise UnreadableAnswer(f"got {type(answer).__name__} {short_text(answer)}")


def read_text(text: str) -> Answer:
    """Read a number written as text (decimal comma, percent, fraction, 'undefined')."""
    cleaned = text.strip().replace("−", "-").lstrip("≈~= ").strip()
    if cleaned.lower() in UNDEFINED_WORDS:
        return Answer(math.nan, None, "undefined")
    if cleaned.endswith("%"):
        value, decimals = read_decimal(cleaned[:-1].strip(), text)
        return Answer(value / 100, decimals + 2, cleaned)
    if "/" in cleaned:
        return read_fraction(cleaned, text)
    value, decimals = read_decimal(cleaned, text)
    return Answer(value, decimals, format(Decimal(cleaned.replace(",", ".")), "f"))


def read_decimal(text: str, original: str) -> tuple[float, int | None]:
    """A plain decimal number and its number of decimals (None with an exponent)."""
    if text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")
    if not NUMBER.fullmatch(text):
        raise UnreadableAnswer(f"{original!r} is not a number")
    number = Decimal(text)
    decimals = None if "e" in text.lower() else max(0, -number.as_tuple().exponent)
    return float(number), decimals


def read_fraction(text: str, original: str) -> Answer:
    """A fraction such as '3/4' or '2.8333 / 5'; 'x/0' reads as undefined."""
    top, _, bottom = text.partition("/")
    numerator, _ = read_decimal(top.strip(), original)
    denominator, _ = read_decimal(bottom.strip(), original)
    if denominator == 0:
        return Answer(math.nan, None, "undefined")
    return Answer(numerator / denominator, None, text)


def format_number(value: float) -> str:
    """A number for messages: 'undefined' for inf/nan, else up to 6 significant digits."""
    return "undefined" if not math.isfinite(value) else f"{value:.6g}"


def short_text(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- comparing at a precision --------------------------------------------------

EPSILON = 1e-9


def judge(answer: Answer, target: float, decimals: int, min_decimals: int | None) -> str:
    """Compare an answer with a value: 'match', 'too-few-decimals' or 'no'.

    ``decimals`` is the precision the exercise asks for: an answer within half a
    unit of its last decimal matches. A string answer with fewer decimals is
    judged at its own precision only when ``min_decimals`` allows it (and it has
    at least that many); exact answers such as ``"0.5"`` for 0.500 always match.
    Undefined (inf or nan) matches undefined only.

    >>> judge(read_answer("0.4583"), 5 / 12 + 1 / 24, decimals=3, min_decimals=None)
    'match'
    >>> judge(read_answer("0.46"), 5 / 12 + 1 / 24, decimals=3, min_decimals=None)
    'too-few-decimals'
    """
    if not math.isfinite(target) or not math.isfinite(answer.value):
        return "match" if math.isfinite(target) == math.isfinite(answer.value) else "no"
    gap = abs(answer.value - target)
    if answer.decimals is None or answer.decimals >= decimals or gap <= EPSILON:
        return "match" if gap <= 0.5 * 10**-decimals + EPSILON else "no"
    if gap > 0.5 * 10**-answer.decimals + EPSILON:
        return "no"
    if min_decimals is not None and answer.decimals >= min_decimals:
        return "match"
    return "too-few-decimals"


def is_close(answer: Answer, target: float, decimals: int) -> bool:
    """True when an answer misses by at most 5 units of the asked last decimal."""
    if not (math.isfinite(target) and math.isfinite(answer.value)):
        return False
    return abs(answer.value - target) <= 5 * 10**-decimals + EPSILON


# colours of a verdict, shared by the answer and the function checks
GREEN, RED, GREY = "#1e7b34", "#b3261e", "#555"
