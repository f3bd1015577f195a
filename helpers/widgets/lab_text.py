"""The texts of the metrics lab (lesson 05): the formula with its numbers and the notes beside the switches.

Pure functions of the lab's numbers (:class:`LabNumbers`, which
:func:`helpers.widgets.lab_model.lab_numbers` computes); plain text, no HTML: the view escapes and lays it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from helpers.metrics import Gain, Ideal
from helpers.widgets._arithmetic import UNDEFINED_RECALL, Row, dcg_formula, grade_name, ndcg_ratio


@dataclass(frozen=True)
class LabNumbers:
    """The lab's numbers for one state, each from helpers.metrics; None where a metric is undefined."""

    k: int
    gain: Gain
    ideal: Ideal
    threshold: int
    grades: tuple[int, ...]
    missed_grades: tuple[int, ...]
    ideal_grades: tuple[int, ...]  # sorted high to low
    relevant: tuple[str, ...]  # results and missed documents with grade >= threshold
    found_in_top_k: tuple[str, ...]
    recall: float | None
    first_relevant_rank: int  # 0 = no relevant result
    mrr: float
    mrr_at_k: float
    dcg: float
    idcg: float
    ndcg: float | None

    def values(self) -> dict:
        """The numbers as plain, JSON-serialisable values (tuples as lists)."""
        return {
            name: list(value) if isinstance(value, tuple) else value for name, value in vars(self).items()
        }


@dataclass(frozen=True)
class Note:
    """A note beside a switch: the convention in force (shown in bold, may be empty), then the explanation."""

    active: str
    text: str


def formula_lines(ids: Sequence[str], numbers: LabNumbers, rows: Sequence[Row]) -> tuple[str, ...]:
    """Recall@K, MRR, DCG@K, IDCG@K and nDCG@K written out with the state's numbers, one line each."""
    k, gain = numbers.k, numbers.gain
    return (
        recall_line(numbers),
        mrr_line(ids, numbers),
        f"DCG@{k} = {dcg_formula(rows, gain)} = {numbers.dcg:.4f}",
        f"IDCG@{k} = {dcg_formula(rows, gain, ideal=True)} = {numbers.idcg:.4f}",
        f"nDCG@{k} = DCG@{k} / IDCG@{k} = {ndcg_ratio(numbers.dcg, numbers.idcg, numbers.ndcg)}",
    )


def recall_line(numbers: LabNumbers) -> str:
    """Recall@K = found / R with the ids behind both counts."""
    k, found, relevant = numbers.k, numbers.found_in_top_k, numbers.relevant
    if numbers.recall is None:
        return f"Recall@{k} = found / R with R = 0: {UNDEFINED_RECALL}"
    return (
        f"Recall@{k} = {len(found)} / {len(relevant)} = {numbers.recall:.4f}"
        f"   (relevant: {', '.join(relevant)}; in the top {k}: {', '.join(found) or 'none'})"
    )


def mrr_line(ids: Sequence[str], numbers: LabNumbers) -> str:
    """MRR = 1 / first relevant rank, and MRR@K, with the document that sets them."""
    k, first = numbers.k, numbers.first_relevant_rank
    at_k = f"MRR@{k} = {numbers.mrr_at_k:.4f}"
    if not first:
        return f"MRR = {numbers.mrr:.4f}   (no relevant result in the list: a miss scores 0);  {at_k}"
    where = f"first relevant: {ids[first - 1]} at rank {first}"
    past_k = f" (rank {first} > K)" if first > k else ""
    return f"MRR = 1/{first} = {numbers.mrr:.4f}   ({where});  {at_k}{past_k}"


def k_note(k: int, n: int) -> Note:
    """What K counts among the n results, padding included when K reaches past them."""
    if k < n:
        return Note("", f"K = {k}: the top {k} of {n} results count; ranks {k + 1}–{n} are greyed.")
    if k == n:
        return Note("", f"K = {k}: all {n} results count.")
    return Note(
        "",
        f"K = {k} > {n} results: counted as {n} returned + padding — ranks {n + 1}–{k} are empty "
        "and add 0 to DCG and recall; the ideal fills them only with judged documents the search missed.",
    )


def gain_note(gain: Gain, opening: Gain) -> Note:
    """The gain form in force, next to the collection's default (linear) and the lab's opening form."""
    if gain == "exponential":
        whose = (
            "this lab's convention, as in its source lesson"
            if opening == "exponential"
            else "switched from this lab's opening form"
        )
        return Note(
            "exponential gain, 2^grade − 1",
            f" — {whose}. The collection's default is linear gain (gain = grade): "
            "flip the switch to compare.",
        )
    opens = " This lab opens with exponential gain, 2^grade − 1." if opening == "exponential" else ""
    return Note("linear gain, gain = grade", f" — the collection's default.{opens}")


def ideal_note(ideal: Ideal, n: int, n_missed: int) -> Note:
    """Which grades the ideal sorts, and what that does to nDCG when judged documents were missed."""
    if ideal == "judged":
        missed = f" plus the {n_missed} judged document(s) the search missed" if n_missed else ""
        same = (
            ""
            if n_missed
            else " Every judged document is among the results, so this is also the lab's "
            f"'same {n} grades, sorted'."
        )
        return Note(
            "ideal from all judged documents",
            f" (the collection's default): the grades you set on the {n} results{missed}, sorted high to low "
            f"— your clicks are the judgments.{same}",
        )
    consequence = (
        "this leaves out the judged document(s) the search missed and overstates nDCG "
        "(the mistake of lesson 03)"
        if n_missed
        else "nothing judged was missed here, so both ideals agree"
    )
    return Note("ideal from the returned results only", f": the same {n} grades, sorted; {consequence}.")


def threshold_note(threshold: int, max_grade: int) -> Note:
    """Which grades count as relevant for Recall and MRR (nDCG uses the grades themselves)."""
    names = " or ".join(grade_name(grade, max_grade) for grade in range(threshold, max_grade + 1))
    return Note(
        "",
        f"Relevant for Recall and MRR: grade ≥ {threshold} ({names}). "
        "nDCG ignores the threshold: it uses the grades themselves.",
    )
