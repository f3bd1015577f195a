"""Read a learner's answer and judge the number by the digits the learner wrote (every lesson).

One reader for every type: ``0.821`` (a float), ``"0.821"``, ``"0,821"``,
``"82.1%"`` and ``np.float64(0.821)`` are the same answer with 3 decimals. A
float is read from its shortest repr, cut to the 15 significant digits a float
holds (``0.5 + 0.33`` is 0.8300000000000001 and reads as 0.83); it cannot carry a trailing zero
(0.830 typed as a number arrives as 0.83), so a number is judged by its value: it is
right when it equals the key rounded at any precision the exercise accepts.
Text keeps the digits as written (``"0.83"`` has 2 decimals). A fraction
(``"3/4"``, ``Fraction(3, 4)``) is exact. Words such as ``"undefined"`` or
``"#DIV/0!"`` read as an undefined value.

The verdict on the number alone (:func:`judge_number`) is one of
:class:`NumberVerdict`: right, too few decimals (right as far as it goes),
truncated (digits cut off instead of rounded), rounded the wrong way, close
(off in the last digits: rounded too early), or wrong. An answer with more
decimals than asked is right when it is a correct rounding of the key at its
own number of decimals (it is never rounded a second time). The checker
(:mod:`helpers.exercises.checking`) words these verdicts so that none tells the
key's digits: a short answer is only told how many decimals to give, and both
neighbours of the key get the same "close" words.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation
from enum import Enum
from fractions import Fraction
from numbers import Integral, Rational, Real
from typing import Any


class UnreadableAnswer(ValueError):
    """The answer is not a number the checker can read; the message says what it got."""


@dataclass(frozen=True)
class Answer:
    """A learner's answer as read: the exact number, its decimals as written, and its text.

    ``decimals`` is None for an exact answer (a fraction) and for "undefined".
    ``typed`` is "text" for a string, "number" for a float, int or numpy scalar (a
    number has no trailing zeros to count); ``given`` is the text as the learner wrote it.
    """

    number: Decimal | Fraction | None
    decimals: int | None
    text: str
    typed: str = "text"
    given: str = ""

    @property
    def quoted(self) -> str:
        """The answer as messages quote it: text as written, a number with the words "(a number)", and a float
        whose repr carries arithmetic's binary digits with the digits it was read as.

        >>> read_answer(0.830).quoted, read_answer(" 0,830 ").quoted, read_answer(0.4 + 0.01).quoted
        ('0.83 (a number)', '0,830', '0.41000000000000003 (a number, read as 0.41)')
        """
        if self.typed == "number":
            if self.given and self.given != self.text:
                return f"{self.given} (a number, read as {self.text})"
            return f"{self.text} (a number)"
        return self.given or self.text

    @property
    def undefined(self) -> bool:
        """True when the learner answered 'undefined' (or gave nan / inf / x/0)."""
        return self.number is None

    @property
    def value(self) -> float:
        """The answer as a float (nan when undefined)."""
        return math.nan if self.number is None else float(self.number)


UNDEFINED_WORDS = {
    "inf",
    "+inf",
    "infinity",
    "∞",
    "nan",
    "undefined",
    "not defined",
    "#div/0!",
    "#div/0",
    "div/0",
    "division by zero",
    "zerodivisionerror",
    "0/0",
    "none of them",
    "no value",
}
DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
MAX_DIGITS = 40  # more than any metric's answer needs; reading a longer number can take the grader seconds
MAX_EXPONENT = 50
EXPONENT = re.compile(r"[eE]\s*[+-]?\s*(\d+)")


def refuse_oversized(text: str) -> None:
    """UnreadableAnswer for a number no ranking metric needs: more than :data:`MAX_DIGITS` digits, or an
    exponent past :data:`MAX_EXPONENT` (``1e12000000/3`` would hold the grader for most of a minute).

    >>> refuse_oversized("0.8212")
    >>> refuse_oversized("1e12000000/3")
    Traceback (most recent call last):
    ...
    helpers.exercises.answers.UnreadableAnswer: '1e12000000/3' has an exponent past 50, which no answer here needs
    """
    digits = sum(character.isdigit() for character in text)
    if digits > MAX_DIGITS:
        raise UnreadableAnswer(f"{short_text(text)} has {digits} digits, more than the {MAX_DIGITS} any answer here "
                               "needs")
    for found in EXPONENT.finditer(text):
        if int(found.group(1)) > MAX_EXPONENT:
            raise UnreadableAnswer(f"{short_text(text)} has an exponent past {MAX_EXPONENT}, which no answer here "
                                   "needs")


def read_answer(answer: Any) -> Answer:
    """Read a number from a float, int, numpy scalar, Fraction, Decimal or text (every lesson).

    >>> read_answer(0.821).decimals == read_answer("0.821").decimals == 3
    True
    >>> read_answer(" 0,55 ").text, read_answer("55.5%").decimals, read_answer("3/4").value
    ('0.55', 3, 0.75)
    """
    if getattr(answer, "shape", None) == () and hasattr(answer, "item"):
        answer = number_of_numpy(answer)  # a numpy scalar or a 0-d array
    if isinstance(answer, bool):
        raise UnreadableAnswer(f"{answer!r} is a yes/no value, not a number")
    if isinstance(answer, Integral):
        if abs(int(answer)) >= 10**MAX_DIGITS:
            raise UnreadableAnswer(f"a whole number of more than {MAX_DIGITS} digits, which no answer here needs")
        return Answer(Decimal(int(answer)), 0, str(int(answer)), "number")
    if isinstance(answer, Rational):
        return replace(_exact(Fraction(int(answer.numerator), int(answer.denominator)), str(answer)), typed="number")
    if isinstance(answer, Decimal):
        return read_text(str(answer))
    if isinstance(answer, Real):
        value = float(answer)
        if not math.isfinite(value):
            return Answer(None, None, "undefined", "number")
        return replace(read_text(float_digits(value)), typed="number", given=repr(value))  # quoted as Python shows it
    if isinstance(answer, str):
        return read_text(answer)
    raise UnreadableAnswer(f"got {type(answer).__name__} {short_text(answer)}")


def float_digits(value: float) -> str:
    """A float's decimal digits: its shortest repr, or 15 significant digits where the repr needs 16 or 17.

    A float holds 15 significant decimal digits; a 16th or 17th in its repr only names the binary number
    that arithmetic on decimals left (0.5 + 0.33 is 0.8300000000000001), so they are not the learner's.

    >>> float_digits(0.830), float_digits(0.5 + 0.33), float_digits(0.1 + 0.2), float_digits(2.0)
    ('0.83', '0.83', '0.3', '2.0')
    """
    fifteen = format(value, ".15g")
    return repr(value) if float(fifteen) == value else fifteen


def number_of_numpy(value: Any) -> Any:
    """A numpy scalar as a Python number; a float32 or float16 by its own shortest text (0.83, not 0.8299999833)."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None and dtype.kind == "f" and dtype.itemsize < 8:
        return float(str(value))
    return value.item()


def read_text(text: str) -> Answer:
    """Read a number written as text: decimal comma, percent, fraction, exponent, 'undefined'."""
    refuse_oversized(text)
    given = text.strip()
    cleaned = given.replace("−", "-").lstrip("≈~= ").strip()
    if cleaned.lower() in UNDEFINED_WORDS:
        return Answer(None, None, "undefined", given=given)
    if cleaned.endswith("%"):
        number, decimals = read_decimal(cleaned[:-1].strip(), text)
        return Answer(number / 100, decimals + 2, cleaned, given=given)
    if "/" in cleaned:
        return replace(read_fraction(cleaned, text), given=given)
    number, decimals = read_decimal(cleaned, text)
    return Answer(number, decimals, _plain_text(number), given=given)


def read_decimal(text: str, original: str) -> tuple[Decimal, int]:
    """A decimal number and the count of its decimals as written (``5.5e-1`` has 2)."""
    if text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")
    if not DECIMAL.fullmatch(text):
        raise UnreadableAnswer(f"{short_text(original)} is not a number")
    try:
        number = Decimal(text)
    except InvalidOperation:
        raise UnreadableAnswer(f"{short_text(original)} is not a number") from None
    return number, max(0, -int(number.as_tuple().exponent))


def read_fraction(text: str, original: str) -> Answer:
    """A fraction such as '3/4' or '2.8333 / 5'; 'x/0' reads as undefined."""
    top, _, bottom = text.partition("/")
    numerator, _ = read_decimal(top.strip(), original)
    denominator, _ = read_decimal(bottom.strip(), original)
    if denominator == 0:
        return Answer(None, None, "undefined")
    return _exact(Fraction(numerator) / Fraction(denominator), text.strip())


def _exact(number: Fraction, text: str) -> Answer:
    return Answer(number, None, text)


def _plain_text(number: Decimal) -> str:
    return format(number, "f")


def short_text(value: Any, limit: int = 60) -> str:
    """The repr of a value cut to ``limit`` characters, for messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- judging a number at a precision ----------------------------------------------


class NumberVerdict(Enum):
    """What the digits of an answer say about it, compared with the expected value."""

    RIGHT = "right"
    TOO_FEW_DECIMALS = "too few decimals"
    TRUNCATED = "truncated"
    ROUNDED_WRONGLY = "rounded the wrong way"
    CLOSE = "close"
    WRONG = "wrong"


EXACT = 1e-9  # an answer this close to the expected value is right whatever its digits


def key_digits(value: float) -> Decimal:
    """An expected value as the digits of its shortest repr: 0.6 is 0.6, not the binary 0.59999999999999997...

    Every comparison with what a learner typed works on these digits, so no binary artefact decides a verdict.
    """
    return Decimal(repr(float(value)))


def correctly_rounded(value: float, decimals: int) -> set[Decimal]:
    """The values at ``decimals`` decimals that are a correct rounding of ``value`` (two at a tie).

    >>> sorted(correctly_rounded(0.125, 2))
    [Decimal('0.12'), Decimal('0.13')]
    """
    exact = key_digits(value)
    unit = Decimal(1).scaleb(-decimals)
    nearest = exact.quantize(unit, rounding=ROUND_HALF_UP)
    roundings = {nearest}
    other = nearest - unit if nearest > exact else nearest + unit
    if abs(other - exact) <= abs(nearest - exact) + Decimal(EXACT):  # a tie, up to float noise
        roundings.add(other)
    return roundings


def truncated(value: float, decimals: int) -> Decimal:
    """``value`` with its digits past ``decimals`` cut off (0.8218 -> 0.821 at 3 decimals; 0.6 stays 0.6).

    >>> truncated(0.8218, 3), truncated(0.6, 1)
    (Decimal('0.821'), Decimal('0.6'))
    """
    return key_digits(value).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_DOWN)


def judge_number(answer: Answer, expected: float, decimals: int, min_decimals: int | None = None) -> NumberVerdict:
    """Judge a defined answer against a defined expected value at the precision asked.

    ``decimals`` is the precision the exercise asks for; ``min_decimals`` (default:
    the same) the fewest decimals it accepts. Text with at least that many decimals
    is right when it is a correct rounding of the expected value at its own
    precision (with more digits than asked too: 0.4465 for 0.446466, never 0.4464).
    A number (a float) is judged by its value: right when it equals the expected
    value rounded at an accepted precision, since 0.830 typed as a float is 0.83.

    >>> judge_number(read_answer(0.821), 0.82125, 3).name, judge_number(read_answer("0.82"), 0.82125, 3).name
    ('RIGHT', 'TOO_FEW_DECIMALS')
    >>> judge_number(read_answer(0.830), 0.8304, 3).name, judge_number(read_answer("0.83"), 0.8304, 3).name
    ('RIGHT', 'TOO_FEW_DECIMALS')
    >>> judge_number(read_answer("0.4465"), 0.446466, 3).name, judge_number(read_answer("0.4464"), 0.446466, 3).name
    ('RIGHT', 'TRUNCATED')
    >>> judge_number(read_answer("0.821"), 0.8218, 3).name, judge_number(read_answer("0.822"), 0.8212, 3).name
    ('TRUNCATED', 'ROUNDED_WRONGLY')
    """
    if answer.number is None or not math.isfinite(expected):
        raise ValueError("judge_number compares defined values only")
    fewest = decimals if min_decimals is None else min_decimals
    if abs(float(answer.number) - expected) <= EXACT * max(1.0, abs(expected)):
        return NumberVerdict.RIGHT
    if decimals == 0 and answer.number != int(answer.number):
        return NumberVerdict.WRONG  # a whole number was asked (a rank, a count): 2.4 is not one
    if answer.decimals is None:  # a fraction: as precise as the value asked, or not
        rounded = key_digits(float(answer.number)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
        if rounded in correctly_rounded(expected, decimals):
            return NumberVerdict.RIGHT
        return _close_or_wrong(answer, expected, decimals)
    assert isinstance(answer.number, Decimal)  # an answer with decimals was written as a decimal number
    places = accepted_places(answer, decimals, fewest)
    if any(answer.number in correctly_rounded(expected, precision) for precision in places):
        return NumberVerdict.RIGHT
    if answer.decimals < fewest and answer.number in correctly_rounded(expected, answer.decimals):
        return NumberVerdict.TOO_FEW_DECIMALS
    if answer.decimals >= fewest and answer.number == truncated(expected, answer.decimals):
        return NumberVerdict.TRUNCATED
    if answer.decimals >= fewest and _other_rounding(answer, expected):
        return NumberVerdict.ROUNDED_WRONGLY
    return _close_or_wrong(answer, expected, decimals)


def accepted_places(answer: Answer, decimals: int, fewest: int) -> range:
    """The precisions at which an answer may be a correct rounding of the key.

    Text: its own decimals, when at least ``fewest``. A number: also any precision
    up to ``decimals`` it could have been typed at with trailing zeros (0.83 is 0.830).
    """
    assert answer.decimals is not None
    own = answer.decimals
    if answer.typed != "number":
        return range(own, own + 1) if own >= fewest else range(0)
    return range(max(own, fewest), max(own, decimals) + 1)


def _other_rounding(answer: Answer, expected: float) -> bool:
    """True when the answer is the neighbour of the right rounding, on the far side of the value."""
    assert answer.decimals is not None and isinstance(answer.number, Decimal)
    unit = Decimal(1).scaleb(-answer.decimals)
    return abs(answer.number - key_digits(expected)) < unit


def _close_or_wrong(answer: Answer, expected: float, decimals: int) -> NumberVerdict:
    if decimals == 0:
        return NumberVerdict.WRONG  # a whole number (a rank, a count) has no last digits to be off in
    near = abs(answer.value - expected) <= 5 * 10**-decimals + EXACT
    return NumberVerdict.CLOSE if near else NumberVerdict.WRONG


def matches(answer: Answer, expected: float, decimals: int, min_decimals: int | None = None) -> bool:
    """True when the answer's value is ``expected`` at the precision asked, trailing zeros left off or not.

    Used to recognise a slip: "0.55" for a slip worth 0.5504 at 3 decimals is that
    slip (0.550); "0.5" for a slip worth 0.511 is not (only its leading digit agrees).
    """
    if answer.undefined or not math.isfinite(expected):
        return answer.undefined and not math.isfinite(expected)
    as_number = replace(answer, typed="number") if answer.decimals is not None else answer
    return judge_number(as_number, expected, decimals, min_decimals) is NumberVerdict.RIGHT
