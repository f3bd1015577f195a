"""The realistic slips issue 44 lists, each worked out here by hand from the lesson's data and named by check."""

from __future__ import annotations

import math

import pytest

from helpers import metrics
from helpers.data import load_example
from helpers.exercises import REGISTRY, check
from helpers.exercises.lessons._shared import query_grades


def at(exercise_id: str, value: float) -> str:
    return f"{value:.{REGISTRY[exercise_id].decimals}f}"


def ndcg_rank_discount(grades, judged, k):
    dcg = sum(g / rank for rank, g in enumerate(grades[:k], start=1))
    best = sum(g / rank for rank, g in enumerate(sorted(judged, reverse=True)[:k], start=1))
    return dcg / best


def cases():
    # example D within 4: d1 at rank 1, d2 at 3, d3 missed; Step 7: ties by id descending move d2 up to rank 2
    d2_tie_descending = 2
    helpdesk = [query_grades("C", "search", q) for q in load_example("C").query_ids]
    lab_grades, lab_judged = query_grades("E", "lab", "e1")
    lab_judged = [*lab_judged, 2.0]
    exponential_side_no_minus_one = (
        metrics.ndcg(lab_grades, 5, ideal=lab_judged)
        - sum(2**g / math.log2(r + 1) for r, g in enumerate(lab_grades[:5], 1))
        / sum(2**g / math.log2(r + 1) for r, g in enumerate(sorted(lab_judged, reverse=True)[:5], 1))
    )
    return [
        ("advisor-mrr2", at("advisor-mrr2", (1 + 1 / d2_tie_descending + 0) / 3), "ties-descending"),
        ("d3-chunk-second-mrr4", at("d3-chunk-second-mrr4", (1 + 1 / 2 + 1 / 2) / 3), "ties-descending"),
        ("advisor-fifth-question-mrr4", at("advisor-fifth-question-mrr4", (1 + 1 / 3 + 0) / 3), "before-the-change"),
        ("c-ap3", at("c-ap3", 1.0), "rr-for-ap"),  # reset-password's first relevant article is at rank 1
        ("c-ap3", "0.334", "rounded-early"),  # (1 + 0.67) / 5
        ("lab-ndcg5-linear", at("lab-ndcg5-linear", exponential_side_no_minus_one), "exp-without-minus-one"),
        ("helpdesk-mean-ndcg5", at("helpdesk-mean-ndcg5", sum(
            metrics.ndcg(g, 4, ideal=j) for g, j in helpdesk) / len(helpdesk)), "cutoff-off-by-one"),
        ("helpdesk-mean-ndcg5", at("helpdesk-mean-ndcg5", sum(
            sum(g[:5]) / sum(sorted(j, reverse=True)[:5]) for g, j in helpdesk) / len(helpdesk)), "no-discount"),
        ("d4-ndcg4", at("d4-ndcg4", (1 + (1 / 3) / 1 + (1 / 4) / 1) / 3), "rank-as-discount"),
    ]


@pytest.mark.parametrize(("exercise_id", "answer", "code"), cases())
def test_each_listed_slip_is_named(exercise_id, answer, code):
    result = check(exercise_id, answer)
    assert not result.correct and code in result.slips, (answer, result.message)
