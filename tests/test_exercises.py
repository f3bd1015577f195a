"""Tests of helpers.exercises (answer checks, reveal, function checks) and helpers.mistakes."""

from __future__ import annotations

import doctest
import json
import math
import shutil
import time
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from helpers import mistakes as mk
from helpers.data import DATA_DIR, load_example
from helpers.exercises import registry as ex

# The figures of shared/WORKED_EXAMPLES.md, at the precision each exercise asks for.
EXPECTED = {
    "mrr-practice": "0.458",
    "ndcg-practice": "0.7602",
    "old-mrr": "0.750",
    "new-mrr": "0.417",
    "hit-rate-at-3": "0.800",
    "new-mrr-d8-first": "0.517",
    "swapped-ndcg": "0.8212",
    "d4-grade-1-swapped": "0.6885",
    "d11-removed-swapped": "0.4693",
    "explain-rr-mean": "0.5667",
    "explain-ndcg-03": "0.6309",
    "sheet-dcg5": "3.931",
    "sheet-idcg5": "7.141",
    "sheet-ndcg5": "0.550",
    "helpdesk-mrr": "0.567",
    "helpdesk-mrr-at-2": "0.500",
    "helpdesk-mean-ndcg5": "0.536",
    "advisor-mrr4": "0.444",
    "advisor-hit4": "0.667",
    "d4-ndcg4": "undefined",
    "lab-ndcg-exp": "0.7003",
    "lab-recall-at-3": "0.500",
    "c-ap3": "0.3333",
    "c-ap5": "0.4833",
}


@pytest.fixture(autouse=True)
def no_check_log(monkeypatch):
    """Checks in these tests write no log unless a test sets one."""
    monkeypatch.delenv(ex.LOG_ENV, raising=False)


def right_answers(exercise_id: str) -> list:
    """The right answer of an exercise in several formats."""
    revealed = ex.reveal(exercise_id)
    if revealed.text == "undefined":
        return ["undefined", " Undefined ", "nan", float("nan"), "#DIV/0!", "inf", "∞"]
    value, decimals = revealed.value, revealed.decimals
    text = f"{value:.{decimals}f}"
    return [
        value,
        np.float64(value),
        np.float32(value) if decimals <= 4 else value,
        Fraction(value),
        Decimal(text),
        text,
        f"  {text.replace('.', ',')} ",
        f"{value * 100:.{decimals - 2}f}%",
        f"{value:.{decimals + 3}f}",
    ]


# --- the exercises and their expected values ---------------------------------------


def test_every_required_id_exists_with_its_expected_value():
    assert set(EXPECTED) == set(ex.EXERCISES)
    for exercise_id, text in EXPECTED.items():
        assert ex.reveal(exercise_id).text == text, exercise_id


@pytest.mark.parametrize("exercise_id", sorted(EXPECTED))
def test_right_answer_in_several_formats(exercise_id):
    for answer in right_answers(exercise_id):
        result = ex.check(exercise_id, answer)
        assert result.correct, (exercise_id, answer, result)
        assert result.mistake is None


def test_whole_numbers_and_fractions():
    assert ex.check("old-mrr", "3/4").correct
    assert ex.check("old-mrr", Fraction(3, 4)).correct
    assert ex.check("helpdesk-mrr", "2.8333 / 5").correct
    assert ex.check("helpdesk-mrr-at-2", "0.5").correct  # exact, no trailing zeros needed
    assert ex.check("helpdesk-mrr-at-2", "50%").correct
    assert ex.check("hit-rate-at-3", np.float64(0.8)).correct


def test_expected_values_come_from_the_data_at_check_time(tmp_path, monkeypatch):
    copy = tmp_path / "example_a"
    shutil.copytree(DATA_DIR / "example_a", copy)
    runs = (copy / "runs.csv").read_text().replace("OLD,q1,1,D8", "OLD,q1,1,DX").replace(
        "OLD,q1,2,D2", "OLD,q1,1,D2"
    ).replace("OLD,q1,1,DX", "OLD,q1,2,D8")
    (copy / "runs.csv").write_text(runs)  # OLD now finds q1's D8 at rank 2: MRR 0.650
    monkeypatch.setattr(ex, "load_example", lambda name: load_example(name, copy) if name == "A" else None)
    assert ex.reveal("old-mrr").text == "0.650"
    assert ex.check("old-mrr", "0.650").correct
    assert not ex.check("old-mrr", "0.750").correct


# --- mistakes -------------------------------------------------------------------------

DIAGNOSED = [
    ("d11-removed-swapped", 1.0, {"retrieved-only-ideal"}),
    ("sheet-ndcg5", "0.690", {"retrieved-only-ideal"}),
    ("sheet-ndcg5", "0.475", {"exponential-for-linear"}),
    ("sheet-ndcg5", "0.640", {"exponential-for-linear", "retrieved-only-ideal"}),
    ("sheet-ndcg5", "0.650", {"ignored-cutoff"}),
    ("sheet-ndcg5", "0.505", {"log2-rank-first-undiscounted"}),
    ("sheet-ndcg5", "#DIV/0!", {"log2-rank"}),
    ("sheet-dcg5", "inf", {"log2-rank"}),
    ("sheet-dcg5", "6.931", {"exponential-for-linear"}),
    ("sheet-idcg5", "14.595", {"exponential-for-linear"}),
    ("sheet-idcg5", "5.693", {"retrieved-only-ideal"}),
    ("swapped-ndcg", 3.5, {"dcg-for-ndcg"}),
    ("swapped-ndcg", "1", {"no-discount"}),
    ("swapped-ndcg", "0.7309", {"exponential-for-linear"}),
    ("d4-grade-1-swapped", "0.5866", {"stale-ideal"}),
    ("d11-removed-swapped", "0.4", {"no-discount", "log2-rank-first-undiscounted"}),
    ("old-mrr", "0.800", {"hit-rate-for-mrr"}),
    ("old-mrr", "3.75", {"sum-not-mean"}),
    ("old-mrr", "0.407", {"ranks-from-zero"}),
    ("hit-rate-at-3", "0.417", {"mrr-for-hit-rate"}),
    ("hit-rate-at-3", "0.600", {"cutoff-off-by-one"}),
    ("hit-rate-at-3", 1, {"ignored-cutoff"}),
    ("helpdesk-mrr", "0.708", {"dropped-misses"}),
    ("helpdesk-mrr-at-2", "0.567", {"ignored-cutoff"}),
    ("helpdesk-mean-ndcg5", "1.212", {"mean-dcg"}),
    ("advisor-mrr4", "0.667", {"hit-rate-for-mrr", "dropped-misses"}),
    ("advisor-mrr4", "0.67", {"hit-rate-for-mrr", "dropped-misses"}),
    ("advisor-mrr4", "0.333", {"kept-unanswerable"}),
    ("advisor-mrr4", "0.511", {"ignored-cutoff"}),
    ("advisor-hit4", "0.444", {"mrr-for-hit-rate"}),
    ("advisor-hit4", "0.5", {"kept-unanswerable"}),
    ("d4-ndcg4", 0, {"undefined-as-zero"}),
    ("lab-ndcg-exp", "0.7224", {"linear-for-exponential"}),
    ("lab-recall-at-3", "0.667", {"recall-min-k-r", "precision-for-recall"}),
    ("c-ap3", "0.5556", {"ap-min-k-r"}),
    ("c-ap5", "0.8056", {"ap-hits-denominator"}),
]


@pytest.mark.parametrize(("exercise_id", "answer", "codes"), DIAGNOSED)
def test_named_mistakes(exercise_id, answer, codes):
    result = ex.check(exercise_id, answer)
    assert not result.correct
    assert set(result.mistakes) == codes
    assert set(result.mistake.split("+")) == codes
    for code in codes:
        title, fix = mk.MISTAKES[code]
        assert title in result.message and fix in result.message


def test_two_mistakes_giving_one_number_are_both_named():
    message = ex.check("advisor-mrr4", "0.667").message
    assert "two different mistakes" in message
    assert mk.MISTAKES["hit-rate-for-mrr"].title in message
    assert mk.MISTAKES["dropped-misses"].title in message


def test_every_distinct_mistake_value_of_every_exercise_is_diagnosed():
    for exercise in ex.EXERCISES.values():
        solution = exercise.solve()
        for codes, value in solution.variants:
            assert set(codes) <= set(mk.MISTAKES), codes
            if ex.judge(ex.Answer(value, None, ""), solution.value, exercise.decimals, None) == "match":
                continue  # the mistake changes nothing here
            result = ex.check(exercise.id, value)
            assert not result.correct, (exercise.id, codes)
            assert set(codes) <= set(result.mistakes) or any(
                set(other) < set(codes) for other, _ in solution.variants
            ), (exercise.id, codes, result)


def test_answer_issues():
    fewer = ex.check("sheet-ndcg5", "0.55")  # right, but 2 decimals where 3 are asked
    assert (fewer.correct, fewer.mistake) == (False, "too-few-decimals")
    assert ex.check("advisor-mrr4", "0.44").correct  # this exercise accepts 2 decimals
    assert ex.check("advisor-mrr4", "0.4").mistake == "too-few-decimals"
    assert ex.check("swapped-ndcg", "0.821").correct  # 4 asked, 3 accepted
    assert ex.check("helpdesk-mrr", "0.566").mistake == "close"  # rounded too early
    assert ex.check("new-mrr", "0.416").mistake == "close"  # cut off instead of rounded
    wrong = ex.check("old-mrr", 0.1)
    assert (wrong.correct, wrong.mistake) == (False, None)
    assert wrong.hint


@pytest.mark.parametrize("answer", ["abc", "", "0.5.5", "1,2.3", "3/x", [0.75], {"a": 1}, True, np.bool_(1)])
def test_unreadable_answer_is_a_friendly_result(answer):
    result = ex.check("old-mrr", answer)
    assert (result.correct, result.mistake) == (False, "unreadable")
    assert result.message.startswith("Could not read your answer")


def test_an_answer_left_as_none():
    result = ex.check("old-mrr", None)
    assert (result.correct, result.mistake) == (False, "no-answer")
    assert "replace None" in result.message
    report = ex.check_function("mrr-function", None)
    assert (report.correct, report.mistake) == (False, "no-answer")


def test_read_answer():
    assert ex.read_answer(" 0,55 ") == ex.Answer(0.55, 2, "0.55")
    assert ex.read_answer("55%") == ex.Answer(0.55, 2, "55%")
    assert ex.read_answer("55.0 %")[:2] == (0.55, 3)
    assert ex.read_answer("3/4")[:2] == (0.75, None)
    assert ex.read_answer("−0.5")[:2] == (-0.5, 1)
    assert ex.read_answer("≈ 0.458")[:2] == (0.458, 3)
    assert ex.read_answer("4.58e-1")[:2] == (0.458, None)
    assert ex.read_answer(Decimal("0.550"))[:2] == (0.55, 3)
    assert ex.read_answer(np.int64(1))[:2] == (1.0, None)
    assert ex.read_answer(np.array(0.25))[:2] == (0.25, None)
    assert math.isnan(ex.read_answer("1/0").value)


def test_unknown_ids_are_clear_errors():
    with pytest.raises(ValueError, match="old-mrr") as error:
        ex.check("no-such-exercise", 1)
    assert "mrr-function" in str(error.value)
    with pytest.raises(ValueError, match="check_function"):
        ex.check("mrr-function", 1)
    with pytest.raises(TypeError, match="string"):
        ex.check(3, 1)
    with pytest.raises(ValueError, match="unknown"):
        ex.reveal("nope")
    with pytest.raises(ValueError, match="function exercise"):
        ex.reveal("dcg-function")


def test_results_never_show_the_expected_value():
    for exercise_id, text in EXPECTED.items():
        for answer in (123.456, "abc", "0.1"):
            result = ex.check(exercise_id, answer)
            shown = repr(result) + result._repr_html_()
            if text != "undefined":
                assert text not in shown, (exercise_id, answer)
                assert text.rstrip("0") not in shown, (exercise_id, answer)


def test_result_display():
    right, wrong = ex.check("old-mrr", "0.750"), ex.check("helpdesk-mrr", "0.708")
    assert repr(right).startswith("✓ old-mrr: Correct")
    assert repr(wrong).startswith("✗ helpdesk-mrr: Not right") and "Hint:" in repr(wrong)
    assert ex.GREEN in right._repr_html_() and ex.RED not in right._repr_html_()
    assert ex.RED in wrong._repr_html_() and "Hint:" in wrong._repr_html_()
    assert "<script" not in ex.check("old-mrr", "<script>")._repr_html_()


def test_reveal_shows_value_and_how():
    revealed = ex.reveal("sheet-ndcg5")
    assert revealed.text == "0.550"
    assert "3.9307" in revealed.how and "7.1410" in revealed.how
    assert repr(revealed).startswith("sheet-ndcg5 = 0.550")
    assert "0.550" in revealed._repr_html_()
    assert "undefined" in ex.reveal("d4-ndcg4").how


def test_mistake_values_for_lesson_07():
    table = ex.mistake_values("sheet-ndcg5").set_index("mistake")
    assert table.at["retrieved-only-ideal", "value"] == "0.690"
    assert table.at["exponential-for-linear", "value"] == "0.475"
    assert table.at["exponential-for-linear+retrieved-only-ideal", "value"] == "0.640"
    assert table.at["log2-rank", "value"] == "undefined"
    assert "retrieved-only-ideal" not in set(ex.mistake_values("swapped-ndcg")["mistake"])  # no change there


def test_exercises_doctests():
    assert doctest.testmod(ex).failed == 0


def test_list_exercises():
    table = ex.list_exercises()
    assert list(table.columns) == ["id", "lesson", "kind", "question", "precision"]
    assert set(table["id"]) == set(ex.EXERCISES) | set(ex.FUNCTION_EXERCISES)
    assert table["lesson"].str.fullmatch(r"\d\d").all()
    assert table.set_index("id").at["sheet-ndcg5", "lesson"] == "03"
    assert table.set_index("id").at["ndcg-function", "kind"] == "function"


def test_checks_are_logged_when_asked(tmp_path, monkeypatch):
    log = tmp_path / "checks.jsonl"
    monkeypatch.setenv(ex.LOG_ENV, str(log))
    ex.check("old-mrr", "0.750")
    ex.check("helpdesk-mrr", "0.708")
    ex.reveal("new-mrr")
    ex.check_function("mrr-function", lambda ranks: 0.0, timeout=1)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [entry["event"] for entry in entries] == ["check", "check", "reveal", "check_function"]
    assert entries[0] == {
        "event": "check", "exercise": "old-mrr", "correct": True, "mistake": None,
        "message": "Correct: 0.750 is right.",
    }
    assert entries[1]["mistake"] == "dropped-misses"
    assert entries[3]["correct"] is False


# --- the mistakes module ----------------------------------------------------------------


def test_mistakes_doctests_give_the_numbers_of_the_examples():
    assert doctest.testmod(mk).failed == 0


def test_mistake_registry():
    assert set(mk.FUNCTIONS) == set(mk.MISTAKES)
    for code, names in mk.FUNCTIONS.items():
        title, fix = mk.MISTAKES[code]
        assert title and fix.endswith(".")
        for name in names:
            assert callable(getattr(mk, name)), name
    table = mk.mistakes_table()
    assert list(table.columns) == ["code", "title", "fix", "functions"]
    with pytest.raises(ValueError, match="no-discount"):
        mk.describe("nope")


def test_mistakes_on_the_example_data():
    data = load_example("C")
    grades = [float(g) for g in ex.sheet_grades()[0]]
    judged = list(data.judgments_for("reset-password").values())
    assert round(mk.ndcg_retrieved_only_ideal(grades, 5), 3) == 0.690
    assert round(mk.ndcg_retrieved_only_ideal(grades, 5, "exponential"), 3) == 0.640
    assert mk.dcg_log2_rank(grades, 5) == math.inf
    assert math.isnan(mk.dcg_log2_rank([0, 3]))
    assert mk.is_undefined(mk.ndcg_log2_rank(grades, 5, judged))
    assert mk.dcg_no_discount([2, 0, 3, 0, 0]) == 5.0
    assert round(mk.ndcg_no_discount(grades, 5, judged), 3) == 0.545
    assert round(mk.mrr_dropping_misses([1, 3, 2, 0, 1]), 3) == 0.708
    assert math.isnan(mk.mrr_dropping_misses([0, 0]))
    assert round(mk.mrr_keeping_unanswerable([1, 3, 0], 1, k=4), 3) == 0.333
    assert round(mk.mrr_ranks_from_zero([1, 0, 3], k=2), 4) == round(0.5 / 3, 4)
    assert mk.undefined_as_zero(mk.ndcg_retrieved_only_ideal, [0, 0]) == 0.0
    with pytest.raises(ValueError, match="unanswerable"):
        mk.mrr_keeping_unanswerable([1], -1)
    with pytest.raises(ValueError, match="empty"):
        mk.mean_dcg_instead_of_ndcg([])


# --- function exercises --------------------------------------------------------------------


def good_mrr(first_ranks):
    return sum(1 / rank for rank in first_ranks if rank) / len(first_ranks)


def good_dcg(gains):
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))


def good_ndcg(gains, k):
    best = good_dcg(sorted(gains, reverse=True)[:k])
    return good_dcg(gains[:k]) / best if best else 0.0


def mrr_without_misses(first_ranks):
    hits = [rank for rank in first_ranks if rank]
    return sum(1 / rank for rank in hits) / len(hits)


def dcg_from_zero(gains):
    return sum(gain / math.log2(position + 2) for position, gain in enumerate(gains, start=1))


def ndcg_that_hangs_at_k1(gains, k):
    while k == 1:
        pass
    return good_ndcg(gains, k)


def ndcg_that_raises(gains, k):
    if k > len(gains):
        raise IndexError("k past the end")
    return good_ndcg(gains, k)


@pytest.mark.parametrize(
    ("exercise_id", "fn"),
    [("mrr-function", good_mrr), ("dcg-function", good_dcg), ("ndcg-function", good_ndcg)],
)
def test_a_correct_function_passes(exercise_id, fn):
    report = ex.check_function(exercise_id, fn, timeout=2)
    assert report.correct and report.mistake is None, report
    assert list(report.table.columns) == ["input", "tests", "expected", "got", "result", "note"]
    assert set(report.table["result"]) <= {"✓", "note"}
    assert "<table" in report._repr_html_() and ex.GREEN in report._repr_html_()


def test_a_buggy_function_fails_with_the_mistake_named():
    report = ex.check_function("mrr-function", mrr_without_misses, timeout=2)
    assert not report.correct
    assert report.mistake == "dropped-misses"
    practice = report.table.iloc[0]
    assert (practice["expected"], practice["got"], practice["result"]) == ("0.4583", "0.6111", "✗")
    assert "ZeroDivisionError" in report.table.iloc[3]["got"]  # [0, 0, 0]: every query a miss
    assert ex.RED in report._repr_html_()
    report = ex.check_function("dcg-function", dcg_from_zero, timeout=2)
    assert report.mistake == "ranks-from-zero"


def test_exception_and_endless_loop_fail_only_their_case():
    started = time.monotonic()
    report = ex.check_function("ndcg-function", ndcg_that_hangs_at_k1, timeout=0.3)
    assert time.monotonic() - started < 5
    rows = report.table.set_index("tests")
    assert rows.at["k = 1", "got"] == "timeout" and rows.at["k = 1", "result"] == "✗"
    assert "still running after 0.3 s" in rows.at["k = 1", "note"]
    assert (rows["result"] == "✗").sum() == 1
    report = ex.check_function("ndcg-function", ndcg_that_raises, timeout=2)
    rows = report.table.set_index("tests")
    assert rows.at["k past the end of the list", "got"] == "IndexError"
    assert "k past the end" in rows.at["k past the end of the list", "note"]


def test_undefined_cases_accept_zero_nan_or_an_error_as_a_note():
    def raising(gains, k):
        if not any(gains):
            raise ValueError("undefined")
        return good_ndcg(gains, k)

    def nan(gains, k):
        return good_ndcg(gains, k) if any(gains) else float("nan")

    def one(gains, k):
        return good_ndcg(gains, k) if any(gains) else 1.0

    for fn, accepted in [(good_ndcg, True), (raising, True), (nan, True), (one, False)]:
        report = ex.check_function("ndcg-function", fn, timeout=2)
        last = report.table.iloc[-1]
        assert last["expected"] == "undefined"
        assert last["result"] == ("note" if accepted else "✗"), fn.__name__
        assert report.correct is accepted


def test_function_notes_and_wrong_types():
    def rounded(gains, k):
        return round(good_ndcg(gains, k), 3)

    def sorts_in_place(gains, k):
        value = good_ndcg(list(gains), k)
        gains.sort(reverse=True)
        return value

    def forgets_return(gains, k):
        good_ndcg(gains, k)

    report = ex.check_function("ndcg-function", rounded, timeout=2)
    assert report.correct and "round when printing" in report.table.iloc[0]["note"]
    report = ex.check_function("ndcg-function", sorts_in_place, timeout=2)
    assert report.correct and "changed the list" in report.table.iloc[0]["note"]
    report = ex.check_function("ndcg-function", forgets_return, timeout=2)
    assert not report.correct and "return" in report.table.iloc[0]["note"]
    report = ex.check_function("mrr-function", 0.458)
    assert not report.correct and report.mistake == "not-a-function" and report.table.empty
    assert "expected your function mrr" in repr(report)


def test_function_check_errors():
    with pytest.raises(ValueError, match="mrr-function"):
        ex.check_function("nope", good_mrr)
    with pytest.raises(ValueError, match="use check"):
        ex.check_function("old-mrr", good_mrr)
    with pytest.raises(ValueError, match="timeout"):
        ex.check_function("mrr-function", good_mrr, timeout=0)


def test_thread_fallback_without_fork(monkeypatch):
    from helpers.exercises import runner

    monkeypatch.setattr(runner.multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert runner.run_with_timeout(good_mrr, ([1, 2],), 1).value == 0.75
    outcome = runner.run_with_timeout(time.sleep, (0.5,), 0.05)
    assert outcome.kind == "timeout" and "restart the kernel" in outcome.error


def test_a_process_that_dies_is_reported():
    import os

    from helpers.exercises import runner

    outcome = runner.run_with_timeout(os._exit, (3,), 2)
    assert outcome.kind == "crash" and "exit code 3" in outcome.error


def test_report_table_is_a_dataframe():
    report = ex.check_function("dcg-function", good_dcg, timeout=2)
    assert isinstance(report.table, pd.DataFrame)
    assert report.table.iloc[0]["input"] == "dcg([2, 0, 3, 0, 0])"
