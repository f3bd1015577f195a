"""A right answer is right however it is written: as a float (no trailing zero), as text, with more decimals.

Every exercise of the register and 40 variants of each exercise with variants are answered with the key rounded
to the asked decimals typed as a float (0.830 arrives as 0.83), and with one and two more decimals than asked (as
text and as a float). Each answer must be right in ``check`` (or ``practice(...).check``) and in the grader, which
judges the line ``check`` logged, in its own process (:mod:`helpers.teacher.judging`). Pure Python: no kernel.
"""

from __future__ import annotations

import math
from functools import cache

import pytest

from helpers.exercises import REGISTRY, Exercise, check, checklog, practice
from helpers.exercises.fresh import VARIANTS
from helpers.exercises.practising import Practice
from helpers.exercises.registry import register
from helpers.teacher.judging import AnswerKey, judge_exercise
from tests.tiers import tiered

SEEDS = range(40)  # one in four in the quick tier, the rest in the slow one
ANSWER_IDS = sorted(i for i, e in REGISTRY.items() if isinstance(e, Exercise))


@cache
def key() -> AnswerKey:
    return AnswerKey.build()


@cache
def dealt(exercise_id: str, seed: int) -> Practice:
    run = practice(exercise_id, seed=seed)
    assert isinstance(run, Practice)
    return run


def right_ways(value: float, decimals: int) -> list:
    """The key written as a learner may: a float at the asked decimals, and one step of the binary numbers either
    side of it, as arithmetic on decimals leaves it (0.5 + 0.33 is 0.8300000000000001); one and two more
    decimals, text and float."""
    asked = float(f"{value:.{decimals}f}")
    computed = [math.nextafter(asked, math.inf), math.nextafter(asked, -math.inf)]
    longer = [f"{value:.{decimals + extra}f}" for extra in (1, 2)]
    return [asked, *computed, *longer, *(float(text) for text in longer)]


def graded(exercise_id: str, answer, worked=None):
    """The grader's verdict on the line check logs for this answer (a learner's own variant: its worked key)."""
    events = [{"event": "check", "exercise": exercise_id, "given": checklog.given_text(answer)}]
    if exercise_id not in key().points:  # an exercise registered by the test itself
        own = AnswerKey({exercise_id: worked}, {}, {exercise_id: 1.0})
    else:
        own = key() if worked is None else key().for_learner({exercise_id: worked})
    return judge_exercise(exercise_id, events, own)


@pytest.mark.parametrize("exercise_id", ANSWER_IDS)
def test_the_lessons_key_as_a_float_and_with_more_decimals_is_right_in_check_and_in_the_grader(exercise_id):
    found = REGISTRY[exercise_id]
    value = key().worked[exercise_id].value
    if not math.isfinite(value):
        pytest.skip("an undefined key has no digits")
    for answer in right_ways(value, found.decimals):
        result = check(exercise_id, answer)
        assert result.correct, (answer, result.message)
        judged = graded(exercise_id, answer)
        assert judged.correct and judged.points == key().points[exercise_id], (answer, judged.message)


@pytest.mark.parametrize("seeds", tiered(SEEDS))
@pytest.mark.parametrize("exercise_id", sorted(VARIANTS))
def test_forty_variants_as_a_float_and_with_more_decimals_are_right_in_check_and_in_the_grader(exercise_id, seeds):
    decimals = REGISTRY[exercise_id].decimals
    for seed in seeds:
        run = dealt(exercise_id, seed)
        worked = run.variant.worked
        for answer in right_ways(worked.value, decimals):
            result = run.check(answer)
            assert result.correct, (seed, answer, result.message)
            assert graded(exercise_id, answer, worked).correct, (seed, answer)


def test_a_float_with_its_trailing_zero_lost_is_right_in_the_grader_and_quoted_as_a_number():
    """0.830 typed as a float is logged as '0.83': the grader judges the float (right), the text '0.83' is short."""
    register(Exercise(id="ends-in-zero", lesson="01", question="How much?", answer=lambda: 0.83004,
                      hints=("a", "b")))
    try:
        worked = REGISTRY["ends-in-zero"].worked()
        assert checklog.given_text(0.830) == {"type": "float", "text": "0.83"}
        judged = graded("ends-in-zero", 0.830, worked)
        assert judged.correct and judged.verdict == "right" and "0.83 (a number)" in judged.message
        short = graded("ends-in-zero", "0.83", worked)
        assert not short.correct and short.verdict == "too few decimals"
        assert check("ends-in-zero", 0.830).correct and not check("ends-in-zero", "0.83").correct
        # more decimals than asked, never rounded a second time
        assert graded("ends-in-zero", "0.8300", worked).correct and not graded("ends-in-zero", "0.8301", worked).correct
    finally:
        REGISTRY.pop("ends-in-zero")


def test_a_float_arithmetic_left_binary_digits_in_is_quoted_with_the_digits_it_was_read_as():
    """0.4 + 0.01 is 0.41000000000000003: read as 0.41, and a message about its decimals says so (17 as shown)."""
    register(Exercise(id="computed-float", lesson="01", question="How much?", answer=lambda: 0.4, hints=("a", "b")))
    try:
        short = check("computed-float", 0.4 + 0.01)
        assert not short.correct and short.verdict.value == "too few decimals"
        assert short.message.startswith("0.41000000000000003 (a number, read as 0.41) has fewer decimals")
        right = check("computed-float", 1.1 - 0.7)  # 0.40000000000000013
        assert right.correct and "0.40000000000000013 (a number, read as 0.4) is correct" in right.message
        assert "read as" not in check("computed-float", 0.41).message  # a float that shows its digits as they are
    finally:
        REGISTRY.pop("computed-float")


def test_the_issues_cases():
    found = dealt("sheet-ndcg3", 7)
    text = f"{found.variant.worked.value:.3f}"
    assert found.check(float(text)).correct and found.check(text).correct
    assert text == "0.830" and found.check(0.5 + 0.33).correct  # 0.8300000000000001: the right answer, computed
    as_a_float = check("fresh-dcg4", 4.430)  # 4.4307 at 3 decimals is 4.431; 4.43 is what 2-decimal terms add to
    assert not as_a_float.correct and "4.43 (a number)" in as_a_float.message and "4.430" not in as_a_float.message
    as_text = check("fresh-dcg4", "4.430")  # quoted as typed; a truncation (and the 2-decimal terms' sum)
    assert "4.430 is what" in as_text.message and ("digits-cut-off",) in as_text.slip_groups
    register(Exercise(id="key-0-446466", lesson="01", question="How much?", answer=lambda: 0.446466,
                      hints=("a", "b")))
    try:
        assert check("key-0-446466", "0.4465").correct  # a correct rounding at its own 4 decimals
        assert not check("key-0-446466", "0.4464").correct  # a truncation, right only if rounded a second time
    finally:
        REGISTRY.pop("key-0-446466")
