"""The pure parts the four widget models share (lessons 01, 02, 03, 05): no ipywidgets here.

- :func:`or_none`: a metric of :mod:`helpers.metrics`, or None where it is undefined;
- :class:`Row` and :func:`arithmetic_rows`: the arithmetic table as typed rows;
- :func:`dcg_formula`, :func:`ndcg_ratio`, :func:`metric_text`: the numbers written out as text;
- :func:`move_to`: a ranking with one id moved (lessons 01 and 02).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ParamSpec, cast

from helpers import metrics
from helpers._checks import check_choice
from helpers.metrics import GAINS, IDEALS, Gain, Ideal
from helpers.tables import dcg_sum

P = ParamSpec("P")

UNDEFINED_NDCG = "undefined — no relevant document (ideal DCG = 0)"
UNDEFINED_RECALL = "undefined — no relevant document (R = 0)"
GRADE_NAMES = {
    2: {0: "none", 1: "useful", 2: "answers it"},
    3: {0: "not relevant", 1: "partly", 2: "relevant", 3: "highly relevant"},
}


def or_none(metric: Callable[P, float], *args: P.args, **kwargs: P.kwargs) -> float | None:
    """The metric's value, or None where helpers.metrics calls it undefined (e.g. nDCG with ideal DCG 0).

    >>> or_none(metrics.ndcg, [0, 0], 2) is None
    True
    """
    return metrics.value_or(None, metric, *args, **kwargs)


def check_gain(gain: object) -> Gain:
    """Return the gain form after checking it is one of helpers.metrics.GAINS."""
    return cast(Gain, check_choice(gain, GAINS, "gain"))


def check_ideal(ideal: object) -> Ideal:
    """Return the ideal convention after checking it is one of helpers.metrics.IDEALS."""
    return cast(Ideal, check_choice(ideal, IDEALS, "ideal"))


def check_at_most(value: int, maximum: int, name: str) -> int:
    """Return ``value`` after checking it is at most ``maximum`` (a control's upper end)."""
    if value > maximum:
        raise ValueError(f"{name} runs up to {maximum} here, got {value}")
    return value


def grade_name(grade: int, max_grade: int) -> str:
    """The word for a grade on a 0..max_grade scale, e.g. 1 -> 'useful' on 0..2."""
    return GRADE_NAMES.get(max_grade, {}).get(grade, f"grade {grade}")


def value_text(value: float | None, decimals: int = 4, undefined: str = "undefined") -> str:
    """A metric value to the given decimals, or the text for an undefined value (None)."""
    return undefined if value is None else f"{value:.{decimals}f}"


def metric_text(name: str, value: float | None, undefined: str, decimals: int = 4) -> str:
    """One metric as a label: ``nDCG@3 = 0.7003``, or ``nDCG@3: undefined — ...`` for None."""
    return f"{name} = {value:.{decimals}f}" if value is not None else f"{name}: {undefined}"


def ndcg_ratio(dcg: float, idcg: float, ndcg: float | None, decimals: int = 4) -> str:
    """DCG / IDCG with its value: ``3.5000 / 4.2619 = 0.8212``, or ``0.0000 / 0: undefined — ...``."""
    if ndcg is None:
        return f"{dcg:.{decimals}f} / 0: {UNDEFINED_NDCG}"
    return f"{dcg:.{decimals}f} / {idcg:.{decimals}f} = {ndcg:.{decimals}f}"


def move_to(ranking: Sequence[str], doc_id: str, rank: int) -> list[str]:
    """The ranking with one id moved to ``rank`` (1-based) and the rest in order; rank 0 drops it."""
    rest = [other for other in ranking if other != doc_id]
    if rank == 0:
        return rest
    rank = min(rank, len(rest) + 1)
    return rest[: rank - 1] + [doc_id] + rest[rank - 1 :]


# --- the arithmetic table of one query, as typed rows -------------------------


@dataclass(frozen=True)
class Row:
    """One rank of :func:`helpers.metrics.arithmetic_table` (lessons 02, 03, 05)."""

    rank: int
    doc_id: str
    grade: float
    gain: float
    discount: float
    discounted_gain: float
    ideal_grade: float
    ideal_gain: float
    ideal_discounted_gain: float
    in_top_k: bool

    def record(self) -> dict[str, object]:
        """The row as the dict that ``table_sheet_html`` reads (the table's column names)."""
        return {
            "rank": self.rank,
            "id": self.doc_id,
            "grade": self.grade,
            "gain": self.gain,
            "discount": self.discount,
            "discounted_gain": self.discounted_gain,
            "ideal_grade": self.ideal_grade,
            "ideal_gain": self.ideal_gain,
            "ideal_discounted_gain": self.ideal_discounted_gain,
            "in_top_k": self.in_top_k,
        }


ROW_COLUMNS = [
    "rank", "id", "grade", "gain", "discount", "discounted_gain",
    "ideal_grade", "ideal_gain", "ideal_discounted_gain", "in_top_k",
]  # fmt: skip


def arithmetic_rows(
    grades: Sequence[float], k: int, ideal: Sequence[float], gain: Gain, ids: Sequence[str] | None = None
) -> tuple[Row, ...]:
    """The rows of helpers.metrics.arithmetic_table for one state, as plain Python values."""
    table = metrics.arithmetic_table(grades, k, ideal=ideal, gain=gain, ids=ids)
    where = [list(table.columns).index(name) for name in ROW_COLUMNS]
    # one conversion of the whole table to Python values: selecting columns in pandas costs more than a click
    return tuple(Row(*(values[i] for i in where)) for values in table.to_numpy(dtype=object).tolist())


def dcg_formula(rows: Sequence[Row], gain: Gain, ideal: bool = False) -> str:
    """The sum of DCG@k written out with the rows' numbers, e.g. '2/1 + 0/1.585 + 3/2'.

    Only the rows within the cutoff count. With exponential gain the powers come
    first: '(2^2−1)/1 + ... = 3/1 + ...'. ``ideal=True`` writes the ideal ranking's sum.
    """
    counted = [row for row in rows if row.in_top_k]
    grades = [row.ideal_grade if ideal else row.grade for row in counted]
    gains = [row.ideal_gain if ideal else row.gain for row in counted]
    return dcg_sum(gains, [row.discount for row in counted], grades if gain == "exponential" else None)
