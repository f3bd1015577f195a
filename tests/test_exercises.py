"""The exercises: one number reader, verdicts, named slips, hints and solutions on demand, function checks."""

from __future__ import annotations

import ast
import doctest
import math
import re
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from helpers import load_example, metrics, mistakes, slips
from helpers.exercises import (
    REGISTRY,
    Exercise,
    Verdict,
    answers,
    calls,
    check,
    check_function,
    checking,
    checklog,
    combined,
    exercise,
    exercises_of,
    hint,
    list_exercises,
    load_extra_exercises,
    mistake_values,
    register,
    registry,
    reveal,
    runner,
    solution,
    worked,
)
from helpers.exercises.answers import NumberVerdict, correctly_rounded, judge_number, read_answer, truncated
from helpers.slips import counting as counting_slips
from helpers.slips import graded as graded_slips
from helpers.slips import ranks as rank_slips

ANSWER_IDS = sorted(i for i, e in REGISTRY.items() if isinstance(e, Exercise))
FUNCTION_IDS = sorted(i for i, e in REGISTRY.items() if e.kind == "function")
LESSONS = [f"0{number}" for number in range(1, 10)]


@pytest.fixture(autouse=True)
def fresh_hints(monkeypatch):
    monkeypatch.setattr(checking, "_hints_shown", {})
    monkeypatch.delenv(checklog.LOG_ENV, raising=False)


def value_of(exercise_id: str) -> float:
    return REGISTRY[exercise_id].worked().value


def defined(exercise_id: str) -> bool:
    return math.isfinite(value_of(exercise_id))


DEFINED_IDS = [i for i in ANSWER_IDS if defined(i)]  # worked out once, as each worker collects the module


# --- the register -----------------------------------------------------------------------


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_lesson_has_at_least_three_checked_exercises(lesson):
    assert len(exercises_of(lesson)) >= 3


def test_ids_are_unique_and_belong_to_one_lesson():
    assert len(REGISTRY) == len(set(REGISTRY))
    assert list_exercises()["id"].is_unique
    with pytest.raises(ValueError, match="already registered"):
        register(REGISTRY["c-ap3"])


@pytest.mark.parametrize("exercise_id", sorted(REGISTRY))
def test_every_exercise_has_a_question_hints_and_a_solution(exercise_id):
    found = REGISTRY[exercise_id]
    assert found.question.strip() and len(found.hints) >= 2
    assert found.code.strip(), "a worked solution shows the code that computes it"
    shown = solution(exercise_id)
    assert shown.lines and shown.code == found.code
    assert exercise_id in repr(exercise(exercise_id))


def run_solution_code(code: str):
    """Run a solution's code and return its last expression, as a learner would see it."""
    tree = ast.parse(code)
    namespace = {"load_example": load_example, "metrics": metrics}
    exec(compile(ast.Module(tree.body[:-1], []), "<solution>", "exec"), namespace)
    return eval(compile(ast.Expression(tree.body[-1].value), "<solution>", "eval"), namespace)


@pytest.mark.parametrize("exercise_id", ANSWER_IDS)
def test_the_code_of_a_solution_computes_its_answer(exercise_id):
    if "TODO" in REGISTRY[exercise_id].code:
        pytest.skip("the code is still the scaffold's TODO (tests/test_exercise_entries.py names it)")
    got, expected = run_solution_code(REGISTRY[exercise_id].code), value_of(exercise_id)
    if math.isfinite(expected):
        assert got == pytest.approx(expected, abs=1e-12)
    else:
        assert math.isnan(got)


def _texts_of(value: float, decimals: int) -> set[str]:
    """The ways an answer could be written: at the asked precision and one either side, and as a %."""
    texts = {f"{value:.{places}f}" for places in range(max(decimals - 1, 2), decimals + 2)}
    return texts | {f"{value * 100:.{max(decimals - 2, 1)}f}%"}


@pytest.mark.parametrize("exercise_id", ANSWER_IDS)
def test_hints_never_contain_the_answer(exercise_id):
    found = REGISTRY[exercise_id]
    shown = " ".join(" ".join(hint(exercise_id).lines) for _ in found.hints)
    value = value_of(exercise_id)
    if math.isfinite(value):
        for text in _texts_of(value, found.decimals):
            assert not re.search(rf"(?<![\d.]){re.escape(text)}(?!\d)", shown), (exercise_id, text)
    else:
        assert "undefined" not in shown.lower()


def test_hints_come_one_at_a_time_then_point_to_the_solution():
    first, second, third = (hint("c-ap3") for _ in range(3))
    assert first.lines == (REGISTRY["c-ap3"].hints[0],)
    assert second.lines == (REGISTRY["c-ap3"].hints[1],)
    assert "solution('c-ap3')" in third.lines[0]


def test_the_solution_shows_the_steps_with_the_real_numbers():
    shown = solution("sheet-ndcg3")
    text = "\n".join(shown.lines)
    grades, judged = metrics.grades_in_rank_order, load_example("C").judgments_for("reset-password")
    ranked = load_example("C").ranking("search", "reset-password")
    regraded = {**judged, "kb21": 4}  # the question's grade for the missed article, above the worksheet's 3
    expected = metrics.ndcg(grades(ranked, regraded), 3, ideal=regraded.values())
    assert f"answer: {expected:.3f}" in text
    assert "IDCG@3" in text and "4, 3, 2, 2, 1, 0, 0" in text


def test_reveal_is_the_short_form():
    revealed = reveal("fresh-dcg4")
    assert revealed.text == f"{metrics.dcg([3, 0, 2, 1], 4):.3f}"
    assert "DCG@4" in revealed.how


def test_unknown_ids_and_kinds_are_clear_errors():
    with pytest.raises(ValueError, match="unknown exercise id 'nope'"):
        check("nope", 1)
    with pytest.raises(TypeError, match="exercise id is a string"):
        check(3, 1)
    with pytest.raises(ValueError, match="asks for a function"):
        check("mrr-function", 0.5)
    with pytest.raises(ValueError, match="asks for a number"):
        check_function("c-ap3", lambda ranks: 0)


def test_register_refuses_a_malformed_entry():
    good = dict(id="my-exercise", lesson="01", question="q?", answer=lambda: 0.5, hints=("nudge", "method"))
    with pytest.raises(ValueError, match="exercise id 'My Ex'"):
        register(Exercise(**{**good, "id": "My Ex"}))
    with pytest.raises(ValueError, match="hints must be"):
        register(Exercise(**{**good, "hints": "one string"}))
    with pytest.raises(ValueError, match="question must be a non-empty text"):
        register(Exercise(**{**good, "question": "  "}))  # the precision sentence alone is no question
    with pytest.raises(ValueError, match="points must be at least 0"):
        register(Exercise(**{**good, "points": -1}))
    with pytest.raises(TypeError, match="decimals must be a whole number"):
        register(Exercise(**{**good, "decimals": 2.5}))
    assert "my-exercise" not in REGISTRY


def test_a_teachers_exercise_file_is_registered_and_checked(tmp_path, monkeypatch):
    teacher = tmp_path / "my_exercises.py"
    teacher.write_text(
        "from helpers import metrics\n"
        "from helpers.exercises import Exercise, register\n"
        "register(Exercise(id='teacher-mrr', lesson='01', question='MRR of first ranks 2, 0 and 1?',\n"
        "                  answer=lambda: metrics.mean_reciprocal_rank([2, 0, 1]),\n"
        "                  hints=('A miss stays in the mean.', '1/2, 0 and 1, then the mean.'), points=2,\n"
        "                  slips=lambda: [(('dropped-misses',), 0.75)]))\n"
    )
    try:
        assert load_extra_exercises(str(teacher)) == ["teacher-mrr"]
        assert check("teacher-mrr", 0.5).correct
        assert check("teacher-mrr", "0.750").mistake == "dropped-misses"
        assert REGISTRY["teacher-mrr"].points == 2
    finally:
        REGISTRY.pop("teacher-mrr", None)
    with pytest.raises(ValueError, match="no exercise file"):
        load_extra_exercises(str(tmp_path / "missing.py"))


# --- one number reader -------------------------------------------------------------------


def right_answers(exercise_id: str) -> list:
    """The right answer typed as float, text, decimal comma, percentage and fraction."""
    found = REGISTRY[exercise_id]
    value = value_of(exercise_id)
    text = f"{value:.{found.decimals}f}"
    fraction = Fraction(value).limit_denominator(1000)  # a fraction a learner would write, e.g. 31/60
    return [float(text), text, text.replace(".", ","), f"{value * 100:.{found.decimals - 2}f}%",
            f"{fraction.numerator}/{fraction.denominator}", np.float64(text), Decimal(text)]


@pytest.mark.parametrize("exercise_id", DEFINED_IDS)
def test_the_right_answer_is_accepted_whatever_its_type(exercise_id):
    for answer in right_answers(exercise_id):
        if str(answer).endswith("%") and REGISTRY[exercise_id].decimals < 3:
            continue
        result = check(exercise_id, answer)
        assert result.correct, (answer, result.message)


@pytest.mark.parametrize("exercise_id", DEFINED_IDS)
def test_too_few_decimals_typed_as_text_gets_one_verdict_and_a_float_is_judged_by_its_value(exercise_id):
    found = REGISTRY[exercise_id]
    fewest = found.min_decimals if found.min_decimals is not None else found.decimals
    places = fewest - 1
    value = value_of(exercise_id)
    short = f"{value:.{places}f}"
    if abs(float(short) - value) < 1e-9:  # an exact short key (0.6): a shorter answer is simply wrong
        below = Decimal(short) - Decimal(1).scaleb(-max(places, 1))
        for answer in (float(below), str(below)):
            result = check(exercise_id, answer)
            assert not result.correct and result.verdict is not Verdict.TRUNCATED, (answer, result.message)
            assert "cut" not in result.message
        return
    verdicts = {check(exercise_id, answer).verdict for answer in (short, short.replace(".", ","), f" {short} ")}
    assert len(verdicts) == 1
    assert verdicts.pop() in (Verdict.TOO_FEW_DECIMALS, Verdict.SLIP)
    # the same digits as a float: 0.86 may be 0.860 typed as a number, right when that is the key's rounding
    as_number = check(exercise_id, float(short))
    rounded_with_zeros = any(f"{value:.{p}f}" == f"{float(short):.{p}f}" for p in range(fewest, found.decimals + 1))
    assert as_number.correct == rounded_with_zeros, (short, as_number.message)
    assert as_number.correct or as_number.verdict in (Verdict.TOO_FEW_DECIMALS, Verdict.SLIP)


@pytest.mark.parametrize("exercise_id", DEFINED_IDS)
def test_a_truncation_is_named_as_one_and_a_short_key_never_is(exercise_id):
    found = REGISTRY[exercise_id]
    value = value_of(exercise_id)
    cut = truncated(value, found.decimals)
    if cut in correctly_rounded(value, found.decimals):
        for wrong in (cut - Decimal(1).scaleb(-found.decimals),):  # 0.599 for 0.6: close, never "cut off"
            assert "cut" not in check(exercise_id, str(wrong)).message
        return
    result = check(exercise_id, str(cut))
    assert result.verdict in (Verdict.TRUNCATED, Verdict.SLIP), (str(cut), result.message)
    if result.verdict is Verdict.SLIP:  # a slip gives the truncated value too: the truncation is named beside it
        assert ("digits-cut-off",) in result.slip_groups, result.message


def test_a_float_reads_its_digits_from_its_shortest_repr():
    assert read_answer(0.821).decimals == read_answer("0.821").decimals == 3
    assert read_answer(0.42).decimals == 2 and read_answer(np.float32(0.5)).decimals == 1
    assert read_answer(1).decimals == 0 and read_answer("5.5e-1").decimals == 2
    assert read_answer("3/4").decimals is None and read_answer("3/4").value == 0.75
    assert read_answer(" 0,55 ").text == "0.55" and read_answer("55%").value == pytest.approx(0.55)
    for word in ("undefined", "#DIV/0!", "nan", float("nan"), float("inf"), "1/0"):
        assert read_answer(word).undefined


@pytest.mark.parametrize("answer", ["abc", "", "0.5.5", "1,2.3", "3/x", [0.75], {"a": 1}, True, np.bool_(1)])
def test_an_unreadable_answer_is_a_friendly_verdict(answer):
    result = check("c-ap3", answer)
    assert result.verdict is Verdict.UNREADABLE and "Could not read your answer" in result.message


@pytest.mark.parametrize(
    ("answer", "expected", "decimals", "verdict"),
    [
        (0.821, 0.8212, 3, NumberVerdict.RIGHT),
        ("0.821", 0.8212, 3, NumberVerdict.RIGHT),
        (0.42, 0.4167, 2, NumberVerdict.RIGHT),  # correctly rounded: never "cut off digits"
        ("0.82", 0.8212, 3, NumberVerdict.TOO_FEW_DECIMALS),
        (0.821, 0.8218, 3, NumberVerdict.TRUNCATED),
        ("0.821", 0.8218, 3, NumberVerdict.TRUNCATED),
        (0.822, 0.8212, 3, NumberVerdict.ROUNDED_WRONGLY),
        (0.818, 0.8212, 3, NumberVerdict.CLOSE),
        (0.9, 0.8212, 3, NumberVerdict.WRONG),
        ("0.5", 0.5, 3, NumberVerdict.RIGHT),  # exact, no trailing zeros needed
        (0.125, 0.125, 2, NumberVerdict.RIGHT),
        ("0.13", 0.125, 2, NumberVerdict.RIGHT),  # a tie rounds either way
        ("0.12", 0.125, 2, NumberVerdict.RIGHT),
        ("0.55038", 0.5503841, 3, NumberVerdict.RIGHT),  # more digits than asked, right at the asked precision
        ("0.5", 0.6, 3, NumberVerdict.WRONG),  # an exact short key: 0.5 is not 0.6 cut off
        (0.5, 0.6, 3, NumberVerdict.WRONG),
        ("0.599", 0.6, 3, NumberVerdict.CLOSE),
        # a float cannot carry a trailing zero: 0.830 typed as a number is 0.83, right when the key rounds to 0.830
        (0.830, 0.8304, 3, NumberVerdict.RIGHT),
        ("0.83", 0.8304, 3, NumberVerdict.TOO_FEW_DECIMALS),
        (0.83, 0.8254, 3, NumberVerdict.TOO_FEW_DECIMALS),  # 0.825 at 3 decimals: 0.83 is right only at 2
        # more decimals than asked: right when a correct rounding at its own decimals, never rounded twice
        ("0.4465", 0.446466, 3, NumberVerdict.RIGHT),
        (0.4465, 0.446466, 3, NumberVerdict.RIGHT),
        ("0.4464", 0.446466, 3, NumberVerdict.TRUNCATED),
        ("0.44647", 0.446466, 3, NumberVerdict.RIGHT),
        ("0.4466", 0.446466, 3, NumberVerdict.CLOSE),
        ("0.6", 0.6667, 3, NumberVerdict.WRONG),  # too few decimals and not a rounding: never 'cut off'
    ],
)
def test_judging_a_number_by_its_digits(answer, expected, decimals, verdict):
    assert judge_number(read_answer(answer), expected, decimals) is verdict


def test_truncated_rounded_wrongly_and_too_few_decimals_are_told_apart_in_words():
    value = value_of("lab-swap-ndcg3")  # 0.93851...: rounding gives 0.939 at 3 decimals, 0.9385 at 4
    assert check("lab-swap-ndcg3", f"{value:.3f}").correct
    assert check("lab-swap-ndcg3", f"{value:.2f}").verdict is Verdict.TOO_FEW_DECIMALS
    before = metrics.ndcg(C_GRADES, 5, ideal=C_JUDGED)  # NDCG@5 before kb04 (rank 5) is graded 2
    after = metrics.ndcg([*C_GRADES[:4], 2, *C_GRADES[5:]], 5, ideal=[*C_JUDGED[:4], 2, *C_JUDGED[5:]])
    early = check("kb04-graded-2", f"{round(after, 3) - round(before, 3):.3f}")  # the worksheet's readings subtracted
    assert early.verdict is Verdict.SLIP and "rounded-early" in early.slips and "round only the final" in early.message
    cut = check("kb04-graded-2", "0.0744")  # cut to 0.0744, rounded to 0.0745; also each term rounded first
    assert cut.verdict is Verdict.SLIP and {"digits-cut-off", "rounded-early"} <= set(cut.slips)
    assert check("c-ap3-min-k-r", 0.5555).verdict is Verdict.TRUNCATED  # 0.5556 rounded
    assert "round instead" in check("c-ap3-min-k-r", "0.5555").message
    wrong_way = check("d4-grade-1-swapped", 0.2161)  # 0.216047...: rounds down to 0.2160
    below = check("d4-grade-1-swapped", 0.2159)
    # either neighbour of the key gets the same words: none singles out the answer's side
    assert wrong_way.verdict is below.verdict is Verdict.CLOSE
    assert wrong_way.message.replace("0.2161", "X") == below.message.replace("0.2159", "X")
    assert "wrong way" not in wrong_way.message and "last digit:" not in wrong_way.message
    assert "cut" not in check("new-hit-rate-at-2", "0.57").message  # 0.5714...: too few decimals, not a cut


def test_an_unanswered_exercise_says_so_and_nothing_more():
    result = check("c-ap3", None)
    assert result.verdict is Verdict.NOT_ANSWERED and not result.correct
    assert "Not answered yet" in result.message and result.answer == ""


@pytest.mark.parametrize("exercise_id", ANSWER_IDS)
def test_no_verdict_shows_the_expected_value(exercise_id):
    found = REGISTRY[exercise_id]
    value = value_of(exercise_id)
    if not math.isfinite(value):
        return
    expected = f"{value:.{found.decimals}f}"
    for answer in (None, value + 0.37, value * 1.013, "0", "abc"):
        result = check(exercise_id, answer)
        assert expected not in result.message.replace(result.answer, ""), (answer, result.message)
        assert expected not in result._repr_html_().replace(result.answer, "")


def test_undefined_answers():
    nothing_relevant = Exercise(id="nothing-relevant", lesson="04", question="nDCG@2 of grades 0, 0?",
                                answer=lambda: worked.worked_ndcg([0, 0], [0, 0], k=2), hints=("a", "b"))
    register(nothing_relevant)
    try:
        assert check("nothing-relevant", "undefined").correct and check("nothing-relevant", float("nan")).correct
        assert check("nothing-relevant", 0).mistake == "undefined-as-zero"
    finally:
        REGISTRY.pop("nothing-relevant")
    assert check("c-ap3", "undefined").verdict is Verdict.WRONG
    assert check("d4-ndcg4", "undefined").verdict is Verdict.WRONG  # d4's nDCG is undefined; the mean is not
    zero_for_d4 = f"{REGISTRY['d4-ndcg4'].worked().value * 3 / 4:.3f}"  # d4 scored 0 and kept: 4 in the mean
    assert check("d4-ndcg4", zero_for_d4).mistake == "undefined-as-zero"


# --- naming the slip -------------------------------------------------------------------------


def a_first_ranks():
    example = load_example("A")
    return {system: [metrics.first_relevant_rank(example.ranking(system, q), example.relevant_for(q))
                     for q in example.query_ids] for system in example.systems}


NEW_D8 = [1, 3, 2, 4, 2]  # NEW with D8 moved to rank 1 for q1 (lesson 01, exercise 1 asks MRR@2 of these)
C_GRADES, C_JUDGED = [2, 0, 3, 1, 0, 2], [2, 0, 3, 1, 0, 2, 3]  # example C, listed order of the judgments
C_JUDGED_KB21_AT_4 = [*C_JUDGED[:-1], 4]  # lesson 03, exercise 1: the missed kb21 graded 4
E_SWAPPED, E_JUDGED = [3, 1, 0, 0, 1, 1], [3, 1, 1, 0, 1, 0]  # lesson 05, exercise 2: r1 first, graded 3

SLIPS = [
    # MRR
    ("new-mrr-d8-first", rank_slips.mrr_mean_of_ranks(NEW_D8, 2), "mean-of-ranks"),
    ("new-mrr-d8-first", rank_slips.mrr_one_over_mean_rank(NEW_D8, 2), "one-over-mean-rank"),
    ("new-mrr-d8-first", rank_slips.hit_rate_instead_of_mrr(NEW_D8, 2), "hit-rate-for-mrr"),
    ("new-mrr-d8-first", rank_slips.mrr_ranks_from_zero(NEW_D8, 2), "ranks-from-zero"),
    ("new-mrr-d8-first", rank_slips.mrr_ignoring_cutoff(NEW_D8), "ignored-cutoff"),
    ("fresh-mrr-unanswerable", rank_slips.mrr_dropping_misses([2, 0, 4]), "dropped-misses"),
    ("fresh-mrr-unanswerable", rank_slips.mrr_keeping_unanswerable([2, 0, 4], 1), "kept-unanswerable"),
    ("advisor-mrr2", rank_slips.mrr_ignoring_cutoff([1, 3, 5]), "ignored-cutoff"),
    ("advisor-mrr2", metrics.mean_reciprocal_rank([1, 3, 5], 3), "cutoff-off-by-one"),
    # hit rate
    # NEW's five first ranks and the sixth question the exercise adds, answered at rank 1
    ("new-hit-rate-at-2", metrics.mean_reciprocal_rank([*a_first_ranks()["NEW"], 1, 0], 2), "mrr-for-hit-rate"),
    ("new-hit-rate-at-2", metrics.mean_hit_rate([*a_first_ranks()["NEW"], 1, 0], 3), "cutoff-off-by-one"),
    ("new-hit-rate-at-2", metrics.mean_hit_rate([*a_first_ranks()["NEW"], 1], 2), "dropped-misses"),
    ("new-hit-rate-at-2", metrics.mean_hit_rate(a_first_ranks()["NEW"], 2), "before-the-change"),
    # the seven questions' hits (the new answered one included) over the five the control has
    ("new-hit-rate-at-2", sum(0 < rank <= 2 for rank in [*a_first_ranks()["NEW"], 1, 0]) / 5, "old-question-count"),
    # DCG and nDCG
    ("fresh-dcg4", graded_slips.dcg_rank_discount([3, 0, 2, 1], 4), "rank-as-discount"),
    ("fresh-dcg4", graded_slips.dcg_log2_rank_first_undiscounted([3, 0, 2, 1], 4), "log2-rank-first-undiscounted"),
    ("fresh-dcg4", graded_slips.dcg_ranks_from_zero([3, 0, 2, 1], 4), "ranks-from-zero"),
    ("fresh-dcg4", graded_slips.dcg_no_discount([3, 0, 2, 1], 4), "no-discount"),
    ("fresh-dcg4", metrics.dcg([3, 0, 2, 1], 4, "exponential"), "exponential-for-linear"),
    ("reset-dcg6-exp", graded_slips.dcg_exp_without_minus_one(C_GRADES, 6), "exp-without-minus-one"),
    ("reset-dcg6-exp", metrics.dcg(C_GRADES, 6), "linear-for-exponential"),
    ("sheet-ndcg3", graded_slips.ndcg_rank_discount(C_GRADES, 3, C_JUDGED_KB21_AT_4), "rank-as-discount"),
    ("sheet-ndcg3", graded_slips.ndcg_retrieved_only_ideal(C_GRADES, 3), "retrieved-only-ideal"),
    ("sheet-ndcg3", graded_slips.ndcg_unsorted_ideal(C_GRADES, C_JUDGED_KB21_AT_4, 3), "unsorted-ideal"),
    ("sheet-ndcg3", metrics.ndcg(C_GRADES, 4, ideal=C_JUDGED_KB21_AT_4), "cutoff-off-by-one"),
    ("sheet-ndcg3", metrics.ndcg(C_GRADES, None, ideal=C_JUDGED_KB21_AT_4), "ignored-cutoff"),
    ("sheet-ndcg3", metrics.ndcg(C_GRADES, 3, ideal=C_JUDGED_KB21_AT_4, gain="exponential"), "exponential-for-linear"),
    ("sheet-ndcg3", metrics.ndcg(C_GRADES, 3, ideal=C_JUDGED), "before-the-change"),
    ("lab-swap-ndcg3", graded_slips.ndcg_exp_without_minus_one(E_SWAPPED, 3, E_JUDGED), "exp-without-minus-one"),
    ("lab-swap-ndcg3", metrics.ndcg(E_SWAPPED, 3, ideal=E_JUDGED), "linear-for-exponential"),
    ("fresh-ndcg3", graded_slips.ndcg_retrieved_only_ideal([0, 3, 1], 3), "retrieved-only-ideal"),
    ("d4-grade-1-swapped", metrics.ndcg([2, 0, 3, 0, 0], 5, ideal=[3, 2])
     - graded_slips.ndcg_stale_ideal([1, 0, 3, 0, 0], [3, 2, 0, 0, 0, 0], 5), "stale-ideal"),
    ("helpdesk-mean-ndcg5", value_of("helpdesk-mean-ndcg5") * 0 + 1.2123, "mean-dcg"),
    # AP, recall, libraries, comparisons
    ("c-ap3", value_of("c-ap3-min-k-r"), "ap-min-k-r"),
    ("c-ap3-min-k-r", value_of("c-ap3"), "ap-r-for-min-k-r"),
    ("lab-r4-useful-recall3", 1.0, "precision-for-recall"),
    ("golden-new-map", metrics.mean_reciprocal_rank(a_first_ranks()["NEW"]), "mrr-for-map"),
    ("torchmetrics-ap5", 0.4833, "r-for-hits-denominator"),
    ("tie-rr-trec", 0.5, "ties-ascending"),
    ("tie-rr-ir-measures", 0.25, "ties-descending"),
    ("sklearn-d11-removed", metrics.ndcg([2, 0, 0, 0], 5, ideal=[3, 2, 0, 0, 0]), "judged-for-returned-ideal"),
    ("paired-mean-difference", -0.06, "a-minus-b"),
    ("paired-sign-flip-p", 0.125, "one-sided-p"),
    ("paired-cohens-d", 1.2247, "population-sd"),
]


@pytest.mark.parametrize(("exercise_id", "wrong", "slip"), SLIPS)
def test_a_wrong_answer_names_its_slip(exercise_id, wrong, slip):
    decimals = REGISTRY[exercise_id].decimals
    for answer in (round(wrong, decimals), f"{wrong:.{decimals}f}"):
        result = check(exercise_id, answer)
        assert result.verdict is Verdict.SLIP, (answer, result.message)
        assert slip in result.slips, (answer, result.slips)
        assert slips.describe(slip).title in result.message


def test_dividing_by_the_rank_is_named_not_called_a_rounding_problem():
    result = check("sheet-ndcg3", f"{graded_slips.ndcg_rank_discount(C_GRADES, 3, C_JUDGED_KB21_AT_4):.3f}")
    assert result.slips == ("rank-as-discount",) and "round" not in result.message.lower()


@pytest.mark.parametrize("exercise_id", ANSWER_IDS)
def test_every_distinct_slip_value_is_diagnosed(exercise_id):
    found = REGISTRY[exercise_id]
    worked = found.worked()
    for codes, value in checking.distinct_slips(found, worked):
        if not math.isfinite(value):
            continue
        # a tenth of the value (the point moved left) is written with one decimal more than asked
        places = found.decimals + max(combined.written_shift(codes, value, worked.value), 0)
        result = check(exercise_id, f"{value:.{places}f}")
        assert set(codes) <= set(result.slips), (codes, value, result.message)


def test_mistake_values_lists_each_slip_and_never_the_answer():
    table = mistake_values("sheet-ndcg3")
    assert f"{value_of('sheet-ndcg3'):.3f}" not in set(table["value"])
    assert table.set_index("mistake").at["retrieved-only-ideal", "value"] == (
        f"{graded_slips.ndcg_retrieved_only_ideal(C_GRADES, 3):.3f}"
    )


# --- function exercises -------------------------------------------------------------------------


def mrr_right(first_ranks):
    return sum(1 / rank if rank else 0.0 for rank in first_ranks) / len(first_ranks)


def mrr_one_over_mean_rank(first_ranks):
    hits = [rank for rank in first_ranks if rank]
    return 1 / (sum(hits) / len(hits)) if hits else 0.0


def mrr_mean_rank(first_ranks):
    hits = [rank for rank in first_ranks if rank]
    return sum(hits) / len(hits) if hits else 0.0


def mrr_dropping_misses(first_ranks):
    hits = [rank for rank in first_ranks if rank]
    return sum(1 / rank for rank in hits) / len(hits) if hits else 0.0


def dcg_right(gains):
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))


def dcg_enumerate_from_zero(gains):
    return sum(gain / math.log2(i + 1) for i, gain in enumerate(gains))


def dcg_rank_discount(gains):
    return sum(gain / rank for rank, gain in enumerate(gains, start=1))


def dcg_no_discount(gains):
    return float(sum(gains))


def ndcg_right(gains, k):
    best = dcg_right(sorted(gains, reverse=True)[:k])
    return dcg_right(gains[:k]) / best if best else float("nan")


def ndcg_unsorted_ideal(gains, k):
    best = dcg_right(gains[:k])
    return dcg_right(gains[:k]) / best if best else float("nan")


def ndcg_uncut_ideal(gains, k):
    best = dcg_right(sorted(gains, reverse=True))
    return dcg_right(gains[:k]) / best if best else float("nan")


@pytest.mark.parametrize(("exercise_id", "fn"), [
    ("mrr-function", mrr_right), ("dcg-function", dcg_right), ("ndcg-function", ndcg_right),
])
def test_a_right_function_passes(exercise_id, fn):
    report = check_function(exercise_id, fn)
    assert report.correct and report.slips == (), report.message


@pytest.mark.parametrize(("exercise_id", "fn", "slip"), [
    ("mrr-function", mrr_one_over_mean_rank, "one-over-mean-rank"),
    ("mrr-function", mrr_mean_rank, "mean-of-ranks"),
    ("mrr-function", mrr_dropping_misses, "dropped-misses"),
    ("dcg-function", dcg_enumerate_from_zero, "discount-zero-at-top"),
    ("dcg-function", dcg_rank_discount, "rank-as-discount"),
    ("dcg-function", dcg_no_discount, "no-discount"),
    ("ndcg-function", ndcg_unsorted_ideal, "unsorted-ideal"),
    ("ndcg-function", ndcg_uncut_ideal, "ignored-cutoff"),
])
def test_a_buggy_function_is_diagnosed_from_its_outputs(exercise_id, fn, slip):
    report = check_function(exercise_id, fn)
    assert not report.correct and report.slips == (slip,), report.message
    assert slips.describe(slip).title in report.message


def test_enumerate_without_start_is_told_about_enumerate_not_only_the_discount():
    message = check_function("dcg-function", dcg_enumerate_from_zero).message
    assert "enumerate" in message and "log2(rank + 1)" in message


def test_1_over_mean_rank_is_not_called_hit_rate():
    assert "hit rate" not in check_function("mrr-function", mrr_one_over_mean_rank).message.lower()


@pytest.mark.parametrize("exercise_id", FUNCTION_IDS)
def test_the_table_never_shows_the_expected_value_of_a_hidden_case(exercise_id):
    found = REGISTRY[exercise_id]
    report = check_function(exercise_id, lambda *args: -1.0)
    cases = found.cases()
    for case, row in zip(cases, report.table.to_dict("records"), strict=True):
        if not case.public:
            assert row["expected"] == "(hidden)"
            assert f"{case.expected:.4f}" not in f"{row['note']} {row['tests']}"


def test_a_template_function_is_not_answered_yet():
    def mrr(first_ranks):
        raise NotImplementedError("replace this line with your code")

    report = check_function("mrr-function", mrr)
    assert not report.answered and not report.correct and "Not answered yet" in report.message
    assert "Not answered yet" in check_function("mrr-function", None).message


def test_an_exception_and_an_endless_loop_fail_only_their_case():
    def fragile(first_ranks):
        if len(first_ranks) == 2:
            while True:
                pass
        if first_ranks == [1]:
            raise KeyError("boom")
        return mrr_right(first_ranks)

    report = check_function("mrr-function", fragile, timeout=0.5)
    marks = report.table["result"].tolist()
    assert marks.count("✗") == 3  # [4, 0], (2, 5) and [1]
    assert "still running" in " ".join(report.table["note"])


def test_undefined_cases_accept_zero_nan_or_an_error_as_a_note():
    for fn in (mrr_right, lambda ranks: mrr_right(ranks) if ranks else 0.0,
               lambda ranks: mrr_right(ranks) if ranks else float("nan")):
        report = check_function("mrr-function", fn)
        assert report.correct and report.table["result"].tolist().count("note") == 1


def test_function_check_refuses_a_bad_timeout_and_a_non_function():
    with pytest.raises(ValueError, match="timeout"):
        check_function("mrr-function", mrr_right, timeout=0)
    with pytest.raises(TypeError, match="needs your function mrr"):
        check_function("mrr-function", 3)


def test_thread_fallback_without_fork(monkeypatch):
    monkeypatch.setattr(runner.multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert check_function("mrr-function", mrr_right).correct


# --- the check log, for the grader ---------------------------------------------------------------


def test_the_log_records_answers_and_calls_but_no_verdict(tmp_path, monkeypatch):
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv(checklog.LOG_ENV, str(log))
    check("c-ap3", 0.3333)
    check("c-ap3", Fraction(1, 3))
    check("c-ap3", None)
    check_function("mrr-function", mrr_right)
    hint("c-ap3")
    solution("c-ap3")
    import json

    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["event"] for e in entries] == ["check", "check", "check", "check_function", "hint", "solution"]
    assert entries[0]["given"] == {"type": "float", "text": "0.3333"}
    assert entries[1]["given"] == {"type": "Fraction", "text": "1/3"}
    assert entries[2]["given"] == {"type": "None", "text": None}
    assert all("correct" not in e and "verdict" not in e for e in entries)
    outcomes = [runner.outcome_from_record(record) for record in entries[3]["outputs"]]
    found = REGISTRY["mrr-function"]
    assert runner.judge_outputs(found.id, found.name, found.cases(), outcomes).correct


@pytest.mark.parametrize("answer", [0.333, "0.333", np.float64(0.333), Fraction(1, 3), 1, "33.33%", "abc"])
def test_a_recorded_answer_is_judged_as_the_original(answer):
    recorded = checklog.given_text(answer)["text"]
    found = REGISTRY["c-ap3"]
    assert checking.judge(found, recorded, found.worked()).verdict == check("c-ap3", answer).verdict


# --- the worked problems and the doctests -----------------------------------------------------------


def test_worked_problems_agree_with_the_metrics():
    assert worked.worked_mrr([1, 3, 0, 2]).value == metrics.mean_reciprocal_rank([1, 3, 0, 2])
    assert worked.worked_ndcg(C_GRADES, C_JUDGED, 5).value == pytest.approx(0.5504, abs=5e-5)
    assert worked.exact_sign_flip_p([0.1, 0.0, 0.1, 0.0, 0.1]) == 0.25
    assert worked.exact_sign_flip_p([0.0, 0.0]) == 1.0  # identical systems: every pattern is as extreme


@pytest.mark.parametrize(
    "module",
    [answers, calls, checking, checklog, registry, runner, worked, graded_slips, rank_slips, counting_slips, mistakes,
     slips],
)
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


def test_a_whole_number_asked_is_right_or_wrong_never_close():
    assert judge_number(read_answer("2"), 2.0, 0) is NumberVerdict.RIGHT
    assert judge_number(read_answer("1"), 2.0, 0) is NumberVerdict.WRONG, "rank 1 for rank 2 is not 'close'"
    assert judge_number(read_answer("2.4"), 2.0, 0) is NumberVerdict.WRONG, "2.4 is not a whole number"
    assert judge_number(read_answer("4/2"), 2.0, 0) is NumberVerdict.RIGHT


def test_the_question_states_the_precision_the_checker_judges_at_once_made_from_decimals():
    from helpers.exercises.fresh import VARIANTS, draw
    from helpers.exercises.registry import precision_sentence

    for found in REGISTRY.values():
        if not isinstance(found, Exercise):
            continue
        sentence = precision_sentence(found.decimals, found.min_decimals)
        assert found.question.endswith(f" {sentence}"), found.id
        assert found.question.count("decimal") == sentence.count("decimal"), found.id  # said once, never twice
        if found.id in VARIANTS:
            assert draw(found.id, 5).question.endswith(f" {sentence}"), found.id
    changed = Exercise(id="precision-x", lesson="01", question="How much? Give 2 decimals.", answer=lambda: 0.5,
                       hints=("a", "b"), decimals=4, min_decimals=3)
    assert changed.question == "How much? Give 4 decimals (3 are accepted)."
    assert replace(changed, decimals=3, min_decimals=None).question == "How much? Give 3 decimals."


def test_a_sum_rounded_early_is_named_rounded_early_and_no_message_singles_out_a_neighbour():
    result = check("c-ap3", 0.334)  # (1 + 0.67) / 5: the precision at rank 3 rounded before the sum
    assert result.verdict is Verdict.SLIP and result.slips == ("rounded-early",)
    assert "wrong way" not in result.message and "0.333" not in result.message


def test_a_short_answer_gets_the_same_words_whatever_its_digits_and_an_exact_short_one_is_right():
    first, second = check("c-ap3", "0.3"), check("c-ap3", "0.4")  # one a rounding of the key, one not
    assert first.verdict is second.verdict is Verdict.TOO_FEW_DECIMALS
    assert first.message.replace("0.3", "X") == second.message.replace("0.4", "X")
    assert "4 decimals" in first.message and "as far as it goes" not in first.message
    assert check("new-mrr-d8-first", "0.4").correct and check("new-mrr-d8-first", "40%").correct  # 0.400 exactly


def test_a_truncated_answer_carries_its_digits_cut_off_code():
    cut = check("c-ap3-min-k-r", "0.5555")
    assert cut.verdict is Verdict.TRUNCATED and cut.slips == ("digits-cut-off",) and cut.mistake == "digits-cut-off"
