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
        ("lab-ndcg5-linear", at("lab-ndcg5-linear", metrics.ndcg(lab_grades, 5, ideal=lab_judged)),
         "one-side-of-a-gap"),
        ("lab-swap-ndcg3", at("lab-swap-ndcg3", metrics.ndcg(lab_grades[1::-1] + lab_grades[2:], 3, ideal=lab_judged,
                                                            gain="exponential")), "before-the-change"),
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


def lab_state_after(steps) -> tuple[lab.LabSetup, lab.LabState]:
    example = load_example("E")
    results, missed = lab.example_documents(example, "e1", "lab")
    setup = lab.lab_setup(results, missed)
    state = setup.opening
    for step in steps:
        state = step(setup, state)
    return setup, state


def click_r4(setup, state):
    return lab.click_grade(setup, state, setup.ids.index("r4") + 1)


def swap_top_two(setup, state):
    grades = list(state.grades)
    grades[0], grades[1] = grades[1], grades[0]
    return lab.with_grades(setup, state, grades)


def k5(setup, state):
    return lab.with_k(setup, state, 5)


def linear(setup, state):
    return lab.with_gain(setup, state, "linear")


def recall3_with_two_unseen(steps) -> float:
    """Exercise 1 as a learner does it: the lab's Recall@3, then R grown by the two pages it cannot add."""
    setup, state = lab_state_after(steps)
    shown = lab.lab_numbers(setup, state)
    return len(shown.found_in_top_k) / (len(shown.relevant) + 2)


def ndcg3_with_r1_perfect(steps) -> float:
    """Exercise 2: the lab's grades in their state, r1's set to 3 by hand (the lab stops at 2)."""
    setup, state = lab_state_after(steps)
    grades = list(state.grades)
    r1_at = 0 if swap_top_two in steps else setup.ids.index("r1")  # the swap moves r1 (grade 2) to the top
    grades[r1_at] = 3
    return metrics.ndcg(grades, 3, ideal=grades + list(state.missed_grades), gain="exponential")


def gain_gap_read_off(steps) -> float:
    """Exercise 3: nDCG@5 read off the lab with exponential gain, then with linear gain, and subtracted."""
    exponential = lab.lab_numbers(*lab_state_after([*steps, k5])).ndcg
    linear_gain = lab.lab_numbers(*lab_state_after([*steps, k5, linear])).ndcg
    return linear_gain - exponential


def test_lesson_05_replayed_without_a_reset_is_right_or_named_as_the_earlier_state():
    assert load_example("E").judgments_for("e1")["r4"] == 0, "r4 starts not useful: one click makes it 1"
    answers = [
        ("lab-r4-useful-recall3", recall3_with_two_unseen([click_r4])),
        ("lab-swap-ndcg3", ndcg3_with_r1_perfect([click_r4, swap_top_two])),
        ("lab-ndcg5-linear", gain_gap_read_off([click_r4, swap_top_two])),
    ]
    for exercise_id, given in answers:
        assert math.isfinite(given)
        result = check(exercise_id, at(exercise_id, given))
        assert result.correct or "lab-earlier-state" in result.slips, (exercise_id, given, result.message)
    assert not check("lab-swap-ndcg3", at("lab-swap-ndcg3", answers[1][1])).correct, "the click still holds"
    assert not check("lab-ndcg5-linear", at("lab-ndcg5-linear", answers[2][1])).correct
    after_a_reset = [
        ("lab-r4-useful-recall3", recall3_with_two_unseen([click_r4])),
        ("lab-swap-ndcg3", ndcg3_with_r1_perfect([swap_top_two])),
        ("lab-ndcg5-linear", gain_gap_read_off([])),
    ]
    for exercise_id, given in after_a_reset:
        assert check(exercise_id, at(exercise_id, given)).correct, (exercise_id, given)
        assert "press reset" in REGISTRY[exercise_id].question


def test_each_lab_exercise_asks_for_what_the_lab_cannot_show():
    """Every number the lab shows in the state an exercise asks for differs from that exercise's answer."""
    states = {
        "lab-r4-useful-recall3": [click_r4],
        "lab-swap-ndcg3": [swap_top_two],
        "lab-ndcg5-linear": [k5, linear],
    }
    for exercise_id, steps in states.items():
        shown = lab.lab_numbers(*lab_state_after(steps))
        readings = [shown.recall, shown.mrr, shown.mrr_at_k, shown.dcg, shown.idcg, shown.ndcg]
        assert check(exercise_id, at(exercise_id, value_of(exercise_id))).correct
        for reading in readings:
            if reading is not None:
                assert not check(exercise_id, at(exercise_id, reading)).correct, (exercise_id, reading)


def test_the_controls_of_lessons_01_and_02_do_not_show_these_answers():
    """Each reading the control gives in the state its exercise names is judged wrong for that exercise."""
    from helpers.widgets import mrr_model, ndcg_model

    mrr = mrr_model.mrr_setup(load_example("A"))
    at_2 = mrr_model.compute(mrr, mrr_model.with_hit_k(mrr, mrr.opening, 2)).systems["NEW"]
    readings = {"new-hit-rate-at-2": [at_2.hit_rate, at_2.mrr]}
    graded = ndcg_model.ndcg_setup(load_example("B"))
    opening = ndcg_model.compute(graded, graded.opening)
    missed = ndcg_model.compute(graded, ndcg_model.move(graded, graded.opening, 0, doc_id="D11"))
    moved = ndcg_model.compute(graded, ndcg_model.move(graded, graded.opening, 2, doc_id="D11"))
    assert moved.ranking[:3] == ("D4", "D11", "D9"), "the state exercise 3 asks for"
    readings["d11-removed-swapped"] = [missed.ndcg, missed.dcg, opening.ndcg]
    readings["swapped-d11-second"] = [moved.ndcg, moved.dcg, opening.ndcg]
    regraded = ndcg_model.compute(graded, ndcg_model.with_grade(graded, graded.opening, 1, doc_id="D4"))
    readings["d4-grade-1-swapped"] = [regraded.ndcg, regraded.dcg, regraded.idcg, opening.ndcg]
    for exercise_id, shown in readings.items():
        assert check(exercise_id, at(exercise_id, value_of(exercise_id))).correct
        for reading in shown:
            assert not check(exercise_id, at(exercise_id, reading)).correct, (exercise_id, reading)
