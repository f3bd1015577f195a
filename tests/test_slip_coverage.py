"""The classic slips a learner makes, named by check on the exercises where they apply (lesson feedback).

Each case is a wrong answer computed here from the data the way the slip computes it (or read off the lesson),
and the code check must name. And lesson 05's exercises replayed in order on the lab's own model, without a
reset: each answer is either right or named as the lab's earlier state.
"""

from __future__ import annotations

import math

import pytest

from helpers import metrics
from helpers.data import load_example
from helpers.exercises import REGISTRY, check
from helpers.exercises.lessons._shared import query_grades
from helpers.slips import graded as graded_slips
from helpers.widgets import lab_model as lab


def value_of(exercise_id: str) -> float:
    return REGISTRY[exercise_id].worked().value


def at(exercise_id: str, value: float) -> str:
    return f"{value:.{REGISTRY[exercise_id].decimals}f}"


def cases() -> list[tuple[str, str, str]]:
    """(exercise, a wrong answer, the slip code check must name)."""
    sheet, judged = query_grades("C", "search", "reset-password")
    lab_grades, lab_judged = query_grades("E", "lab", "e1")
    old_ranks = [metrics.first_relevant_rank(load_example("A").ranking("NEW", q), load_example("A").relevant_for(q))
                 for q in load_example("A").query_ids]
    found = []
    for exercise_id in ("sheet-ndcg3", "kb04-graded-2", "new-hit-rate-at-2", "lab-r4-useful-recall3",
                        "helpdesk-mean-ndcg5"):
        found.append((exercise_id, f"{100 * value_of(exercise_id):.1f}", "percent-without-sign"))
    found += [
        # ln for log2 cancels in nDCG (every discount scaled alike): the slip shows in DCG alone
        ("fresh-dcg4", at("fresh-dcg4", graded_slips.dcg_natural_log([3, 0, 2, 1], 4)), "natural-log"),
        ("reset-dcg6-exp", at("reset-dcg6-exp", graded_slips.dcg_natural_log(sheet, 6, "exponential")), "natural-log"),
        ("fresh-dcg4", at("fresh-dcg4", graded_slips.dcg_exp_without_minus_one([3, 0, 2, 1], 4)),
         "exp-without-minus-one"),
        ("lab-ndcg5-linear", at("lab-ndcg5-linear", graded_slips.ndcg_exp_without_minus_one(lab_grades, 5, lab_judged)),
         "exp-without-minus-one"),
        ("sheet-ndcg3", at("sheet-ndcg3", graded_slips.ndcg_exp_without_minus_one(sheet, 3, judged)),
         "exp-without-minus-one"),
        ("kb04-graded-2", "0.826", "retrieved-only-ideal"),
        ("sheet-ndcg3", "0.55", "before-the-change"),
        ("kb04-graded-2", "0.550", "before-the-change"),
        ("new-mrr-d8-first", at("new-mrr-d8-first", metrics.mean_reciprocal_rank(old_ranks)), "before-the-change"),
        ("sheet-ndcg3", at("sheet-ndcg3", metrics.dcg(sheet, 3)), "dcg-for-ndcg"),
        ("sheet-ndcg3", at("sheet-ndcg3", metrics.ndcg(sheet, 3, ideal=sheet)), "retrieved-only-ideal"),
    ]
    ranks = [1 if q == "q1" else r for q, r in zip(load_example("A").query_ids, old_ranks, strict=True)]
    early = sum(round(1 / r, 2) if r else 0 for r in ranks) / len(ranks)
    if at("new-mrr-d8-first", early) != at("new-mrr-d8-first", value_of("new-mrr-d8-first")):
        found.append(("new-mrr-d8-first", at("new-mrr-d8-first", early), "rounded-early"))
    return found


@pytest.mark.parametrize(("exercise_id", "answer", "code"), cases())
def test_a_classic_slip_is_named(exercise_id, answer, code):
    result = check(exercise_id, answer)
    assert not result.correct and code in result.slips, (answer, result.message)
    expected = value_of(exercise_id)
    assert at(exercise_id, expected) not in result.message.replace(answer, ""), "never the expected value"


def test_a_percentage_with_its_sign_is_right():
    value = value_of("sheet-ndcg3")
    assert check("sheet-ndcg3", f"{100 * value:.1f}%").correct


def lab_numbers_after(steps) -> lab.LabNumbers:
    example = load_example("E")
    results, missed = lab.example_documents(example, "e1", "lab")
    setup = lab.lab_setup(results, missed)
    state = setup.opening
    for step in steps:
        state = step(setup, state)
    return lab.lab_numbers(setup, state)


def click_r4(setup, state):
    return lab.click_grade(setup, state, setup.ids.index("r4") + 1)


def swap_top_two(setup, state):
    grades = list(state.grades)
    grades[0], grades[1] = grades[1], grades[0]
    return lab.with_grades(setup, state, grades)


def linear_k5(setup, state):
    return lab.with_k(setup, lab.with_gain(setup, state, "linear"), 5)


def test_lesson_05_replayed_without_a_reset_is_right_or_named_as_the_earlier_state():
    assert load_example("E").judgments_for("e1")["r4"] == 0, "r4 starts not useful: one click makes it 1"
    answers = [
        ("lab-r4-useful-recall3", lab_numbers_after([click_r4]).recall),
        ("lab-swap-ndcg3", lab_numbers_after([click_r4, swap_top_two]).ndcg),
        ("lab-ndcg5-linear", lab_numbers_after([click_r4, swap_top_two, linear_k5]).ndcg),
    ]
    for exercise_id, shown in answers:
        assert shown is not None and math.isfinite(shown)
        result = check(exercise_id, at(exercise_id, shown))
        assert result.correct or "lab-earlier-state" in result.slips, (exercise_id, shown, result.message)
    assert not check("lab-ndcg5-linear", at("lab-ndcg5-linear", answers[2][1])).correct
    fresh = lab_numbers_after([linear_k5]).ndcg
    assert check("lab-ndcg5-linear", at("lab-ndcg5-linear", fresh)).correct, "after a reset: right"
    assert "press reset" in REGISTRY["lab-ndcg5-linear"].question
