"""The classic slips a learner makes, named by check on the exercises where they apply (lesson feedback).

Each case is a wrong answer computed here from the data the way the slip computes it (or read off the lesson),
and the code check must name. And lesson 05's exercises replayed in order on the lab's own model, without a
reset: each answer is either right or named as the lab's earlier state.
"""

from __future__ import annotations

import math
from functools import cache

import pytest

from helpers import metrics
from helpers.data import load_example
from helpers.exercises import REGISTRY, CheckResult, Worked, check, check_function, judge
from helpers.exercises.lessons._shared import query_grades
from helpers.slips import graded as graded_slips
from helpers.widgets import lab_model as lab


def value_of(exercise_id: str) -> float:
    return REGISTRY[exercise_id].worked().value


@cache
def worked_once(exercise_id: str) -> Worked:
    return REGISTRY[exercise_id].worked()


def judged(exercise_id: str, answer: str) -> CheckResult:
    """check's verdict, from the worked value computed once (check computes it again on every call)."""
    return judge(REGISTRY[exercise_id], answer, worked_once(exercise_id))


def at(exercise_id: str, value: float) -> str:
    return f"{value:.{REGISTRY[exercise_id].decimals}f}"


def cases() -> list[tuple[str, str, str]]:
    """(exercise, a wrong answer, the slip code check must name)."""
    sheet, judged = query_grades("C", "search", "reset-password")
    _, judged_kb21_at_4 = query_grades("C", "search", "reset-password", changes={"kb21": 4.0})  # exercise 1's grade
    kb04_at_2, _ = query_grades("C", "search", "reset-password", changes={"kb04": 2.0})
    lab_grades, lab_judged = query_grades("E", "lab", "e1")
    new_ranks = [
        metrics.first_relevant_rank(load_example("A").ranking("NEW", q), load_example("A").relevant_for(q))
        for q in load_example("A").query_ids
    ]
    d8_first = [1 if q == "q1" else r for q, r in zip(load_example("A").query_ids, new_ranks, strict=True)]
    ndcg5_before, ndcg5_after = metrics.ndcg(sheet, 5, ideal=judged), metrics.ndcg(kb04_at_2, 5, ideal=[*judged, 2.0])
    found = []
    for exercise_id in (
        "sheet-ndcg3",
        "kb04-graded-2",
        "new-hit-rate-at-2",
        "lab-r4-useful-recall3",
        "helpdesk-mean-ndcg5",
    ):
        found.append((exercise_id, f"{100 * value_of(exercise_id):.1f}", "percent-without-sign"))
    found += [
        # ln for log2 cancels in nDCG (every discount scaled alike): the slip shows in DCG alone
        ("fresh-dcg4", at("fresh-dcg4", graded_slips.dcg_natural_log([3, 0, 2, 1], 4)), "natural-log"),
        ("reset-dcg6-exp", at("reset-dcg6-exp", graded_slips.dcg_natural_log(sheet, 6, "exponential")), "natural-log"),
        (
            "fresh-dcg4",
            at("fresh-dcg4", graded_slips.dcg_exp_without_minus_one([3, 0, 2, 1], 4)),
            "exp-without-minus-one",
        ),
        (
            "lab-ndcg5-linear",
            at("lab-ndcg5-linear", metrics.ndcg(lab_grades, 5, ideal=[*lab_judged, 2])),  # the new page's 2
            "one-side-of-a-gap",
        ),
        (  # the lab's two readings at K = 5 subtracted: the page it cannot add left out
            "lab-ndcg5-linear",
            at("lab-ndcg5-linear", metrics.ndcg(lab_grades, 5, ideal=lab_judged)
               - metrics.ndcg(lab_grades, 5, ideal=lab_judged, gain="exponential")),
            "before-the-change",
        ),
        (
            "lab-swap-ndcg3",
            at(
                "lab-swap-ndcg3",
                metrics.ndcg(lab_grades[1::-1] + lab_grades[2:], 3, ideal=lab_judged, gain="exponential"),
            ),
            "before-the-change",
        ),
        (
            "sheet-ndcg3",
            at("sheet-ndcg3", graded_slips.ndcg_exp_without_minus_one(sheet, 3, judged_kb21_at_4)),
            "exp-without-minus-one",
        ),
        (
            "kb04-graded-2",
            at("kb04-graded-2", metrics.ndcg(kb04_at_2, 5, ideal=kb04_at_2) - metrics.ndcg(sheet, 5, ideal=sheet)),
            "retrieved-only-ideal",
        ),
        (
            "kb04-graded-2",
            at("kb04-graded-2", metrics.dcg(kb04_at_2, 5) / metrics.ideal_dcg(judged, 5) - ndcg5_before),
            "stale-ideal",
        ),
        ("sheet-ndcg3", "0.55", "before-the-change"),
        ("sheet-ndcg3", at("sheet-ndcg3", metrics.ndcg(sheet, 3, ideal=judged)), "before-the-change"),
        ("kb04-graded-2", f"{ndcg5_before:.3f}", "one-side-of-a-gap"),
        ("kb04-graded-2", f"{ndcg5_after:.3f}", "one-side-of-a-gap"),
        ("kb04-graded-2", at("kb04-graded-2", ndcg5_before - ndcg5_after), "a-minus-b"),
        ("kb04-graded-2", f"{round(ndcg5_after, 3) - round(ndcg5_before, 3):.3f}", "rounded-early"),
        ("new-mrr-d8-first", at("new-mrr-d8-first", metrics.mean_reciprocal_rank(d8_first)), "before-the-change"),
        ("new-mrr-d8-first", at("new-mrr-d8-first", metrics.mean_reciprocal_rank(d8_first)), "ignored-cutoff"),
        ("new-mrr-d8-first", at("new-mrr-d8-first", metrics.mean_reciprocal_rank(new_ranks, 2)), "before-the-change"),
        ("new-mrr-d8-first", at("new-mrr-d8-first", metrics.mean_reciprocal_rank(d8_first, 3)), "cutoff-off-by-one"),
        ("sheet-ndcg3", at("sheet-ndcg3", metrics.dcg(sheet, 3)), "dcg-for-ndcg"),
        ("sheet-ndcg3", at("sheet-ndcg3", metrics.ndcg(sheet, 3, ideal=sheet)), "retrieved-only-ideal"),
    ]
    early = sum(round(metrics.reciprocal_rank_of(r, 2), 2) for r in d8_first) / len(d8_first)
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
    """Exercise 3: the lab's grades in their state, K at 5, the page it cannot add (grade 2) put in the ideal by
    hand; nDCG@5 with linear gain minus nDCG@5 with exponential gain."""
    setup, state = lab_state_after([*steps, k5])
    ideal = [*state.grades, *state.missed_grades, 2]
    return (metrics.ndcg(list(state.grades), 5, ideal=ideal)
            - metrics.ndcg(list(state.grades), 5, ideal=ideal, gain="exponential"))


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
                assert not judged(exercise_id, at(exercise_id, reading)).correct, (exercise_id, reading)


def test_the_controls_of_lessons_01_and_02_do_not_show_these_answers():
    """Each reading the control gives in the state its exercise names is judged wrong for that exercise."""
    from helpers.widgets import mrr_model, ndcg_model

    mrr = mrr_model.mrr_setup(load_example("A"))
    at_2 = mrr_model.compute(mrr, mrr_model.with_hit_k(mrr, mrr.opening, 2)).systems["NEW"]
    readings = {"new-hit-rate-at-2": [at_2.hit_rate, at_2.mrr]}
    graded = ndcg_model.ndcg_setup(load_example("B"))
    assert set(graded.movable) == {"D11", "D4"}, "the control regrades D11 and D4 only (not D9, D10, D12)"
    opening = ndcg_model.compute(graded, graded.opening)
    # the nearest state each lesson 02 exercise names that the control reaches: the rest of its change is by hand
    missed = ndcg_model.compute(graded, ndcg_model.move(graded, graded.opening, 0, doc_id="D11"))
    moved = ndcg_model.compute(graded, ndcg_model.move(graded, graded.opening, 2, doc_id="D11"))
    assert moved.ranking[:3] == ("D4", "D11", "D9"), "the move exercise 3 asks for"
    regraded = ndcg_model.compute(graded, ndcg_model.with_grade(graded, graded.opening, 1, doc_id="D4"))
    for exercise_id, state in (("d11-removed-swapped", missed), ("swapped-d11-second", moved),
                               ("d4-grade-1-swapped", regraded)):
        shown = [state.ndcg, state.dcg, state.idcg, opening.ndcg, opening.dcg]
        # a reading alone, or two readings subtracted either way, is never the answer
        readings[exercise_id] = [*shown, opening.ndcg - state.ndcg, state.ndcg - opening.ndcg]
    for exercise_id, shown in readings.items():
        assert check(exercise_id, at(exercise_id, value_of(exercise_id))).correct
        for reading in shown:
            assert not judged(exercise_id, at(exercise_id, reading)).correct, (exercise_id, reading)
            assert not judged(exercise_id, f"{reading:.3f}").correct, (exercise_id, reading)


def test_lesson_06s_printed_cg5_and_dcg5_subtracted_are_the_value_before_the_change():
    """Lesson 06 prints CG@5 and DCG@5 of reset-password as returned: their gap is named, never right."""
    grades, _ = query_grades("C", "search", "reset-password")
    printed_gap = f"{metrics.cumulative_gain(grades, 5):g}", f"{metrics.dcg(grades, 5):.3f}"
    gap = float(printed_gap[0]) - float(printed_gap[1])
    result = check("reset-cg-minus-dcg5", at("reset-cg-minus-dcg5", gap))
    assert not result.correct and "before-the-change" in result.slips, result.message


def test_lesson_04s_printed_undefined_is_not_the_answer_of_its_d4_exercise():
    """Lesson 04 prints 'nDCG@4 of d4: nDCG is undefined'; the exercise on d4 asks for a mean that leaves it out."""
    assert math.isfinite(value_of("d4-ndcg4"))
    assert not check("d4-ndcg4", "undefined").correct


def numbers_on(sheet) -> list[float]:
    """Every number a worksheet shows (a grade, a discounted gain, k, DCG@k, IDCG@k, NDCG@k, ...)."""
    cells = (
        sheet.at(row, column).value for row in range(1, sheet.n_rows + 1) for column in range(1, sheet.n_columns + 1)
    )
    return [float(value) for value in cells if isinstance(value, int | float) and not isinstance(value, bool)]


def test_the_controls_of_lessons_01_and_03_do_not_show_these_answers():
    """In the state each exercise names (or the nearest the control reaches), every number shown is judged wrong."""
    from helpers.sheet import ndcg_worksheet
    from helpers.widgets import mrr_model, worksheet_model

    readings: dict[str, list[float]] = {}
    # lesson 01, exercise 1: D8 moved to rank 1 in NEW's q1; the control has no cut-off for MRR, only for hit rate
    mrr = mrr_model.mrr_setup(load_example("A"))
    moved = mrr_model.move(mrr, mrr.opening, 1, key=("NEW", "q1"))
    assert mrr.moved["NEW", "q1"] == "D8" and mrr_model.ranking(mrr, moved, ("NEW", "q1"))[0] == "D8"
    readings["new-mrr-d8-first"] = []
    for k in range(1, mrr.longest + 1):
        shown = mrr_model.compute(mrr, mrr_model.with_hit_k(mrr, moved, k))
        for numbers in shown.systems.values():
            readings["new-mrr-d8-first"] += [
                numbers.mrr,
                numbers.hit_rate,
                *numbers.reciprocal_ranks,
                *numbers.first_ranks,
            ]
    # no picker can make q2 a miss in NEW: a second relevant passage (D6) stays at rank 3 at most
    q2_ranks = {
        mrr_model.compute(mrr, mrr_model.move(mrr, moved, rank, key=("NEW", "q2"))).queries["NEW", "q2"].first_rank
        for rank in range(0, mrr.longest + 1)
    }
    assert 0 not in q2_ranks and max(q2_ranks) > 2, q2_ranks

    # lesson 03: the worksheet's yellow cells take grades 0..3 and k 1..6
    sheet = worksheet_model.worksheet_setup(load_example("C"))
    assert sheet.missed_ids == ("kb21",) and sheet.ids[4] == "kb04"
    with pytest.raises(ValueError):
        worksheet_model.with_missed_grade(sheet, sheet.opening, 4, number=1)  # exercise 1's grade: out of reach

    def shown_by_the_worksheet(state) -> list[float]:
        result = worksheet_model.compute(sheet, state)
        drawn = ndcg_worksheet(
            [float(g) for g in result.grades], [float(g) for g in result.missed_grades], k=result.k, gain=result.gain
        )
        values = [result.dcg, result.idcg, result.ndcg, result.ndcg_returned_only]
        return [value for value in values if value is not None] + numbers_on(drawn)

    at_3 = worksheet_model.with_k(sheet, worksheet_model.with_missed_grade(sheet, sheet.opening, 3, number=1), 3)
    readings["sheet-ndcg3"] = [
        *shown_by_the_worksheet(sheet.opening),
        *shown_by_the_worksheet(at_3),
        *shown_by_the_worksheet(worksheet_model.with_gain(sheet, at_3, "exponential")),
    ]
    regraded = worksheet_model.with_grade(sheet, sheet.opening, 2, rank=5)  # kb04 typed 2, k at 5
    readings["kb04-graded-2"] = [*shown_by_the_worksheet(sheet.opening), *shown_by_the_worksheet(regraded)]

    for exercise_id, shown in readings.items():
        assert check(exercise_id, at(exercise_id, value_of(exercise_id))).correct
        for reading in shown:
            assert not judged(exercise_id, at(exercise_id, reading)).correct, (exercise_id, reading)
            assert not judged(exercise_id, f"{reading:.3f}").correct, (exercise_id, reading)


def listed_slips() -> list[tuple[str, object, str]]:
    """(exercise, a wrong answer a learner gives on a realistic path, the slip check must name)."""
    sheet, _ = query_grades("C", "search", "reset-password")
    _, kb21_at_4 = query_grades("C", "search", "reset-password", changes={"kb21": 4.0})
    d4 = REGISTRY["d4-grade-1-swapped"].worked().inputs  # both sides of the fall, as the exercise records them
    (_, before), (_, after) = d4["first"], d4["second"]
    exponential_fall = (metrics.ndcg(before["grades"], 5, ideal=before["judged"], gain="exponential")
                        - metrics.ndcg(after["grades"], 5, ideal=after["judged"], gain="exponential"))
    moved = REGISTRY["swapped-d11-second"].worked().inputs
    (_, up), (_, down) = moved["first"], moved["second"]
    rank_gain = (graded_slips.ndcg_rank_discount(up["grades"], 5, up["judged"])
                 - graded_slips.ndcg_rank_discount(down["grades"], 5, down["judged"]))
    kb21_second = REGISTRY["reset-cg-minus-dcg5"].worked().inputs["grades"]
    two_powers = [2**g if g else 0 for g in (3, 1, 0)], [2**g if g else 0 for g in (3, 1, 1)]
    d8_first = [1, 3, 2, 4, 2]
    printed_dcg5, rank_6 = round(metrics.dcg(sheet, 5, "exponential"), 3), round(3 / math.log2(7), 3)
    return [
        ("sheet-ndcg3", at("sheet-ndcg3", metrics.ndcg(sheet, 5, ideal=kb21_at_4)), "other-cutoff"),  # 0.483
        ("helpdesk-map3", "0.4633", "other-cutoff"),  # the MAP@5 lesson 06 prints
        ("d3-chunk-second-mrr4", "0.444", "before-the-change"),  # MRR@4 before c-0310 moves
        ("d4-grade-1-swapped", at("d4-grade-1-swapped", exponential_fall), "exponential-for-linear"),
        ("lab-swap-ndcg3", at("lab-swap-ndcg3", metrics.dcg(two_powers[0], 3) / metrics.dcg(two_powers[1], 3)),
         "exp-without-minus-one"),  # 2^grade, a grade-0 result left at 0: 0.9026
        ("swapped-d11-second", at("swapped-d11-second", rank_gain), "rank-as-discount"),
        ("reset-cg-minus-dcg5", at("reset-cg-minus-dcg5", metrics.dcg(kb21_second, 5)
                                   - metrics.cumulative_gain(kb21_second, 5)), "a-minus-b"),
        ("new-mrr-d8-first", sum(d8_first) / len(d8_first), "mean-of-ranks"),  # 2.4: every first rank averaged
        ("explain-rr-mean", f"{(1 + 3 + 4) / 3:.4f}", "mean-of-ranks"),
        ("reset-dcg6-exp", f"{printed_dcg5 + rank_6:.3f}", "rounded-early"),  # 6.931 + 1.069 = 8.000
        ("d4-ndcg4", at("d4-ndcg4", value_of("d4-ndcg4") * 3 / 4), "undefined-as-zero"),
    ]


@pytest.mark.parametrize(("exercise_id", "answer", "code"), listed_slips())
def test_the_slips_learners_make_on_realistic_paths_are_named(exercise_id, answer, code):
    for given in (answer, float(answer)):
        result = check(exercise_id, given)
        assert not result.correct and code in result.slips, (given, result.message)
        assert at(exercise_id, value_of(exercise_id)) not in result.message.replace(str(given), "")


def test_ln_in_the_dcg_function_is_named():
    def dcg(gains):
        return sum(gain / math.log(rank + 1) for rank, gain in enumerate(gains, start=1))

    report = check_function("dcg-function", dcg)
    assert not report.correct and report.slips == ("natural-log",), report.message


def test_no_slip_is_named_on_its_leading_digits_alone():
    """A float 0.5 for a slip worth 0.511 is not that slip; the text 0.500 and the float get one verdict."""
    as_float, as_text = check("advisor-mrr2", (1 + 1 / 2 + 0) / 3), check("advisor-mrr2", "0.500")
    # 0.5 is exactly the MRR@2 with d2's tie broken by id descending: that slip, never ignored-cutoff's 0.511
    assert as_float.slips == as_text.slips == ("ties-descending",) and not as_float.correct and not as_text.correct
    for exercise_id, answer in (("new-hit-rate-at-2", 0.6), ("explain-ndcg-03", 0.8)):
        result = check(exercise_id, answer)
        assert "digits-cut-off" not in result.slips, result.message  # it would tell the answer's leading digit
