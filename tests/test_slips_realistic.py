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


def statistics_slips():
    from scipy import stats

    a, b = [0.50, 0.60, 0.70, 0.80, 0.90], [0.60, 0.60, 0.80, 0.80, 1.00]
    differences = [y - x for x, y in zip(a, b, strict=True)]
    mean = sum(differences) / 5
    sd = math.sqrt(sum((d - mean) ** 2 for d in differences) / 4)
    pooled = math.sqrt((stats.tvar(a) + stats.tvar(b)) / 2)
    return [
        ("tie-rr-trec", "0.2", "ranks-from-zero"),  # d2 at rank 4, 1 / (4 + 1)
        ("tie-rr-trec", "0.200", "ranks-from-zero"),
        ("paired-mean-difference", "0.1", "zero-differences-dropped"),  # 0.3 over the 3 non-zero differences
        ("golden-new-map", "0.431", "map-over-relevant"),
        ("paired-sign-flip-p", f"{stats.ttest_rel(b, a).pvalue:.3f}", "t-test-for-sign-flip"),
        ("paired-sign-flip-p", f"{stats.ttest_ind(b, a).pvalue:.3f}", "unpaired-test"),
        ("paired-sign-flip-p", f"{(8 + 1) / (32 + 1):.3f}", "plus-one-p"),  # 8 of 32 patterns as extreme
        ("paired-cohens-d", f"{mean / pooled:.3f}", "pooled-sd-d"),
        ("paired-cohens-d", f"{mean / (sd / math.sqrt(5)):.3f}", "t-for-d"),
    ]


@pytest.mark.parametrize(("exercise_id", "answer", "code"), statistics_slips())
def test_the_slips_of_lessons_08_and_09_are_named_before_any_short_answer_verdict(exercise_id, answer, code):
    result = check(exercise_id, answer)
    assert not result.correct and code in result.slips, (answer, result.message)
    assert "as far as it goes" not in result.message
