"""The pure models of the four controls (helpers/widgets/*_model.py), without any widget.

State transitions are checked for what they change and what they leave alone;
every number of ``compute`` is asserted against helpers.metrics and, for the
documented states, against arithmetic written out here (math.log2 and the
grades), with undefined metrics as None.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from dataclasses import FrozenInstanceError, replace

import pytest

from helpers import metrics
from helpers.data import load_example
from helpers.widgets import lab_model, mrr_model, ndcg_model, worksheet_model
from helpers.widgets._arithmetic import dcg_formula, or_none

LOG2_3, LOG2_5, LOG2_6 = math.log2(3), math.log2(5), math.log2(6)


@pytest.mark.slow  # a fresh Python
def test_the_models_need_no_ipywidgets():
    code = (
        "import sys\n"
        "from helpers.widgets import lab_model, mrr_model, ndcg_model, worksheet_model\n"
        "print(sorted(m for m in ('ipywidgets', 'matplotlib', 'PIL') if m in sys.modules))"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"


def test_or_none_is_the_value_or_none_where_undefined():
    assert or_none(metrics.ndcg, [0, 0], 2) is None
    assert or_none(metrics.recall_at_k, ["a"], set(), 1) is None
    assert or_none(metrics.ndcg, [1, 0], 2) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="k must be at least 1"):
        or_none(metrics.ndcg, [1], 0)  # a wrong input is still an error, not None


# --- lesson 05: the metrics lab ------------------------------------------------


def lab_e(**options):
    data = load_example("E")
    return lab_model.lab_setup(*lab_model.example_documents(data, "e1", "lab"), **options)


def lab_c(**options):
    data = load_example("C")
    return lab_model.lab_setup(*lab_model.example_documents(data, data.query_ids[0], "search"), **options)


def expected_lab(setup, state):
    """The lab's numbers for a state, straight from helpers.metrics (independent of lab_model.compute)."""
    grades = [float(grade) for grade in state.grades]
    missed = [float(grade) for grade in state.missed_grades]
    ideal = grades + missed if state.ideal == "judged" else grades
    judged = dict(zip(setup.ids + setup.missed_ids, grades + missed, strict=True))
    relevant = {doc_id for doc_id, grade in judged.items() if grade >= state.threshold}
    first = metrics.first_relevant_rank(setup.ids, relevant)
    return {
        "recall": metrics.recall_at_k(setup.ids, relevant, state.k) if relevant else None,
        "first_relevant_rank": first,
        "mrr": metrics.reciprocal_rank_of(first),
        "mrr_at_k": metrics.reciprocal_rank_of(first, state.k),
        "dcg": metrics.dcg(grades, state.k, state.gain),
        "idcg": metrics.ideal_dcg(ideal, state.k, state.gain),
        "ndcg": metrics.ndcg(grades, state.k, ideal, state.gain) if any(ideal) else None,
    }


def assert_numbers(numbers, expected):
    for name, value in expected.items():
        shown = getattr(numbers, name)
        if value is None:
            assert shown is None, name
        else:
            assert shown == pytest.approx(value, abs=1e-12), name


def test_lab_opening_state_is_the_data_and_the_lab_conventions():
    setup = lab_e()
    assert setup.ids == ("r2", "r1", "r4", "r6", "r3", "r5") and setup.missed_ids == ()
    assert (setup.max_grade, setup.max_k) == (2, 6)
    assert setup.opening == lab_model.LabState((1, 2, 0, 0, 1, 1), (), 3, "exponential", "judged", 1)
    with pytest.raises(FrozenInstanceError):
        setup.opening.k = 4  # type: ignore[misc]


def test_lab_opening_numbers_by_hand():
    """Example E at K = 3, exponential gain: grades 1, 2, 0 on top; the ideal 2, 1, 1."""
    setup = lab_e()
    numbers = lab_model.compute(setup, setup.opening).numbers
    dcg = (2**1 - 1) / 1 + (2**2 - 1) / LOG2_3 + 0 / 2
    idcg = (2**2 - 1) / 1 + (2**1 - 1) / LOG2_3 + (2**1 - 1) / 2
    assert numbers.dcg == pytest.approx(dcg, abs=1e-12)
    assert numbers.idcg == pytest.approx(idcg, abs=1e-12)
    assert numbers.ndcg == pytest.approx(dcg / idcg, abs=1e-12)
    assert numbers.recall == pytest.approx(2 / 4)  # r2, r1 of the four relevant in the top 3
    assert numbers.mrr == numbers.mrr_at_k == 1.0 and numbers.first_relevant_rank == 1
    assert numbers.relevant == ("r2", "r1", "r3", "r5") and numbers.found_in_top_k == ("r2", "r1")
    assert numbers.ideal_grades == (2, 1, 1, 1, 0, 0)
    assert_numbers(numbers, expected_lab(setup, setup.opening))


def test_click_grade_cycles_and_changes_nothing_else():
    setup = lab_e()
    state = setup.opening
    seen = []
    for _ in range(4):
        state = lab_model.click_grade(setup, state, 3)  # r4, graded 0
        seen.append(state.grades[2])
    assert seen == [1, 2, 0, 1]
    assert state.grades[:2] + state.grades[3:] == setup.opening.grades[:2] + setup.opening.grades[3:]
    assert (state.k, state.gain, state.ideal, state.threshold) == (3, "exponential", "judged", 1)
    assert setup.opening.grades == (1, 2, 0, 0, 1, 1)  # the old state is untouched
    with pytest.raises(ValueError, match="rank runs up to 6"):
        lab_model.click_grade(setup, state, 7)
    with pytest.raises(ValueError, match="rank must be at least 1"):
        lab_model.click_grade(setup, state, 0)


def test_switches_k_and_reset():
    setup = lab_e()
    state = lab_model.with_k(setup, setup.opening, 6)
    state = lab_model.with_gain(setup, state, "linear")
    state = lab_model.with_ideal(setup, state, "returned")
    state = lab_model.with_threshold(setup, state, 2)
    state = lab_model.with_formulas(setup, state, True)
    state = lab_model.click_grade(setup, state, 1)
    assert state == lab_model.LabState((2, 2, 0, 0, 1, 1), (), 6, "linear", "returned", 2, True)
    assert lab_model.reset(setup, state) == replace(setup.opening, show_formulas=True)
    with pytest.raises(ValueError, match="K runs up to 6"):
        lab_model.with_k(setup, state, 7)
    with pytest.raises(TypeError, match="whole number"):
        lab_model.with_k(setup, state, 2.5)
    with pytest.raises(ValueError, match="unknown gain"):
        lab_model.with_gain(setup, state, "quadratic")
    with pytest.raises(TypeError, match="gain must be one of"):
        lab_model.with_gain(setup, state, 1)
    with pytest.raises(ValueError, match="unknown ideal"):
        lab_model.with_ideal(setup, state, "best")
    with pytest.raises(ValueError, match="threshold runs up to 2"):
        lab_model.with_threshold(setup, state, 3)


def test_with_grades_checks_count_scale_and_type():
    setup = lab_e()
    state = lab_model.with_grades(setup, setup.opening, [0, 0, 2, 0, 0, 0])
    assert state.grades == (0, 0, 2, 0, 0, 0)
    with pytest.raises(ValueError, match="6 grades"):
        lab_model.with_grades(setup, state, [1, 2])
    with pytest.raises(ValueError, match="from 0 to 2"):
        lab_model.with_grades(setup, state, [3, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="cannot be negative"):
        lab_model.with_grades(setup, state, [-1, 0, 0, 0, 0, 0])
    with pytest.raises(TypeError, match="whole numbers"):
        lab_model.with_grades(setup, state, [1.5, 0, 0, 0, 0, 0])
    with pytest.raises(TypeError, match="list of numbers"):
        lab_model.with_grades(setup, state, "120011")


def test_bad_lab_setups_are_refused():
    with pytest.raises(ValueError, match="at least one result"):
        lab_model.lab_setup([])
    with pytest.raises(ValueError, match="duplicate id 'a'"):
        lab_model.lab_setup([("a", "A", 1), ("a", "A again", 0)])
    with pytest.raises(TypeError, match=r"\(doc_id, title, grade\)"):
        lab_model.lab_setup([("a", 1)])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="unknown ideal"):
        lab_model.lab_setup([("a", "A", 1)], ideal="best")
    with pytest.raises(ValueError, match="a grade runs up to 2"):
        lab_model.lab_setup([("a", "A", 3)], max_grade=2)


def test_every_grade_zero_is_undefined_not_zero():
    setup = lab_e()
    state = lab_model.with_grades(setup, setup.opening, [0] * 6)
    result = lab_model.compute(setup, state)
    numbers = result.numbers
    assert numbers.recall is None and numbers.ndcg is None
    assert numbers.dcg == numbers.idcg == numbers.mrr == numbers.mrr_at_k == 0.0
    assert numbers.first_relevant_rank == 0 and numbers.relevant == ()
    assert result.labels["recall"] == "Recall@3: undefined — no relevant document (R = 0)"
    assert result.labels["ndcg"] == "nDCG@3: undefined — no relevant document (ideal DCG = 0)"
    assert result.formula_lines[1].startswith(
        "MRR = 0.0000   (no relevant result in the list: a miss scores 0)"
    )
    assert (
        result.formula_lines[4]
        == "nDCG@3 = DCG@3 / IDCG@3 = 0.0000 / 0: undefined — no relevant document (ideal DCG = 0)"
    )
    assert "nan" not in result.formula_text.lower()


def test_threshold_two_without_an_answer_leaves_recall_undefined_but_ndcg_defined():
    setup = lab_e()
    state = lab_model.with_threshold(
        setup, lab_model.with_grades(setup, setup.opening, [1, 1, 0, 0, 1, 0]), 2
    )
    numbers = lab_model.compute(setup, state).numbers
    assert numbers.recall is None and numbers.mrr == 0.0
    # nDCG uses the grades: 1, 1, 0 on top against the ideal 1, 1, 1, exponential gain 2^1 - 1 = 1
    assert numbers.ndcg == pytest.approx((1 + 1 / LOG2_3) / (1 + 1 / LOG2_3 + 1 / 2), abs=1e-12)
    assert_numbers(numbers, expected_lab(setup, state))


def test_the_ideal_switch_with_a_missed_document_by_hand():
    """Example C in the lab: kb21 (grade 3) was missed; it counts in the judged ideal only."""
    setup = lab_c(k=5, gain="linear")
    assert setup.missed_ids == ("kb21",) and setup.opening.missed_grades == (3,)
    judged = lab_model.compute(setup, setup.opening)
    dcg = 2 / 1 + 0 / LOG2_3 + 3 / 2 + 1 / LOG2_5 + 0 / LOG2_6
    ideal = 3 / 1 + 3 / LOG2_3 + 2 / 2 + 2 / LOG2_5 + 1 / LOG2_6  # grades 3, 3, 2, 2, 1 of all seven
    assert judged.numbers.dcg == pytest.approx(dcg, abs=1e-12)
    assert judged.numbers.idcg == pytest.approx(ideal, abs=1e-12)
    assert judged.numbers.ndcg == pytest.approx(dcg / ideal, abs=1e-12)
    assert judged.numbers.ndcg == pytest.approx(0.550, abs=5e-4)  # the worked example C (lesson 03)
    assert (
        judged.sheet_ideal_range is None
    )  # the judged ideal holds a document that is not a row of the sheet
    returned = lab_model.compute(setup, lab_model.with_ideal(setup, setup.opening, "returned"))
    returned_ideal = 3 / 1 + 2 / LOG2_3 + 2 / 2 + 1 / LOG2_5 + 0 / LOG2_6
    assert returned.numbers.ndcg == pytest.approx(dcg / returned_ideal, abs=1e-12)
    assert returned.numbers.ndcg == pytest.approx(0.690, abs=5e-4)
    assert returned.sheet_ideal_range == "$C$2:$C$7"
    assert "overstates nDCG" in returned.ideal_note.text
    # the missed document loses its grade: recall's R drops from 5 to 4
    state = lab_model.click_missed(setup, setup.opening, 1)
    assert state.missed_grades == (0,)
    numbers = lab_model.compute(setup, state).numbers
    assert numbers.recall == pytest.approx(
        metrics.recall_at_k(setup.ids, {"kb01", "kb07", "kb03", "kb06"}, 5)
    )
    assert_numbers(numbers, expected_lab(setup, state))


def test_k_past_the_list_adds_padding_rows_only_for_missed_documents():
    setup = lab_c(gain="linear", max_k=7)
    state = lab_model.with_k(setup, setup.opening, 7)
    result = lab_model.compute(setup, state)
    assert len(result.rows) == 7 and result.rows[-1].doc_id == "" and result.rows[-1].grade == 0.0
    assert result.rows[-1].ideal_grade == 0.0  # grades 3, 3, 2, 2, 1, 0, 0 sorted: the seventh is 0
    assert result.k_note.text.startswith("K = 7 > 6 results: counted as 6 returned + padding")
    assert result.numbers.idcg == pytest.approx(metrics.ideal_dcg([2, 0, 3, 1, 0, 2, 3], 7), abs=1e-12)
    e = lab_e(max_k=8)
    assert (
        len(lab_model.compute(e, lab_model.with_k(e, e.opening, 8)).rows) == 6
    )  # nothing missed: no padding


def test_the_rows_and_the_written_sums_agree_with_the_arithmetic_table():
    setup = lab_e()
    state = lab_model.with_gain(setup, setup.opening, "linear")
    result = lab_model.compute(setup, state)
    table = metrics.arithmetic_table(
        [1, 2, 0, 0, 1, 1], 3, ideal=[1, 2, 0, 0, 1, 1], gain="linear", ids=setup.ids
    )
    assert [row.doc_id for row in result.rows] == table["id"].tolist()
    assert [row.discounted_gain for row in result.rows] == pytest.approx(table["discounted_gain"].tolist())
    assert [row.ideal_grade for row in result.rows] == pytest.approx(table["ideal_grade"].tolist())
    assert [row.in_top_k for row in result.rows] == [True, True, True, False, False, False]
    assert dcg_formula(result.rows, "linear") == "1/1 + 2/1.585 + 0/2"
    assert result.formula_lines[2] == f"DCG@3 = 1/1 + 2/1.585 + 0/2 = {1 + 2 / LOG2_3:.4f}"
    exponential = lab_model.compute(setup, setup.opening)
    assert exponential.formula_lines[2].startswith(
        "DCG@3 = (2^1−1)/1 + (2^2−1)/1.585 + (2^0−1)/2 = 1/1 + 3/1.585"
    )
    assert exponential.plot_top == 3.0 and result.plot_top == 2.0  # the largest gain of grade 2


def test_the_result_lists_buttons_and_marks():
    setup = lab_e()
    result = lab_model.compute(setup, lab_model.with_threshold(setup, setup.opening, 2))
    assert [entry.button for entry in result.results] == [
        "1 · useful",
        "2 · answers it",
        "0 · none",
        "0 · none",
        "1 · useful",
        "1 · useful",
    ]
    assert [entry.counted for entry in result.results] == [True, True, True, False, False, False]
    assert [entry.relevant for entry in result.results] == [False, True, False, False, False, False]
    assert result.threshold_note.text.startswith("Relevant for Recall and MRR: grade ≥ 2 (answers it).")


def test_metric_values_are_plain_json():
    setup = lab_c(k=5)
    values = lab_model.compute(setup, lab_model.with_grades(setup, setup.opening, [0] * 6, [0])).values()
    assert json.loads(json.dumps(values)) == values
    assert values["grades"] == [0] * 6 and values["missed_grades"] == [0] and values["ndcg"] is None
    assert set(values) == {
        "k", "gain", "ideal", "threshold", "grades", "missed_grades", "ideal_grades", "relevant",
        "found_in_top_k", "recall", "first_relevant_rank", "mrr", "mrr_at_k", "dcg", "idcg", "ndcg",
    }  # fmt: skip


def test_random_walks_of_the_lab_agree_with_helpers_metrics():
    rng = random.Random(20261130)
    for setup in (lab_e(), lab_c(k=5), lab_c(max_k=7)):
        state = setup.opening
        for _ in range(120):
            action = rng.choice(["click", "click", "missed", "k", "gain", "ideal", "threshold"])
            if action == "click":
                state = lab_model.click_grade(setup, state, rng.randint(1, len(setup.ids)))
            elif action == "missed" and setup.missed_ids:
                state = lab_model.click_missed(setup, state, 1)
            elif action == "k":
                state = lab_model.with_k(setup, state, rng.randint(1, setup.max_k))
            elif action == "gain":
                state = lab_model.with_gain(setup, state, rng.choice(metrics.GAINS))
            elif action == "ideal":
                state = lab_model.with_ideal(setup, state, rng.choice(metrics.IDEALS))
            elif action == "threshold":
                state = lab_model.with_threshold(setup, state, rng.randint(1, setup.max_grade))
            assert_numbers(lab_model.compute(setup, state).numbers, expected_lab(setup, state))


# --- lesson 01: MRR vs hit rate ------------------------------------------------


def test_mrr_opening_by_hand():
    setup = mrr_model.mrr_setup(load_example("A"))
    result = mrr_model.compute(setup, setup.opening)
    old, new = result.systems["OLD"], result.systems["NEW"]
    assert old.first_ranks == (1, 2, 1, 4, 1) and new.first_ranks == (2, 3, 2, 4, 2)
    assert old.mrr == pytest.approx((1 + 1 / 2 + 1 + 1 / 4 + 1) / 5, abs=1e-12)
    assert new.mrr == pytest.approx((1 / 2 + 1 / 3 + 1 / 2 + 1 / 4 + 1 / 2) / 5, abs=1e-12)
    assert old.hit_rate == new.hit_rate == pytest.approx(4 / 5)  # q4's hit at rank 4 misses the top 3
    assert result.verdict.startswith("Same hit rate, different MRR")
    assert setup.moved["NEW", "q1"] == "D8" and setup.opening.ranks["NEW", "q1"] == 2
    assert json.loads(json.dumps(result.values())) == result.values()


def test_mrr_moves_are_pure_and_read_the_first_relevant_rank_again():
    setup = mrr_model.mrr_setup(load_example("A"))
    first = mrr_model.move(setup, setup.opening, 1, key=("NEW", "q1"))
    assert setup.opening.ranks["NEW", "q1"] == 2 and first.ranks["NEW", "q1"] == 1
    result = mrr_model.compute(setup, first)
    assert result.queries["NEW", "q1"].ranking == ("D8", "D2", "D10", "D5", "D1")
    assert result.systems["NEW"].mrr == pytest.approx((1 + 1 / 3 + 1 / 2 + 1 / 4 + 1 / 2) / 5, abs=1e-12)
    assert result.systems["NEW"].mrr == pytest.approx(0.517, abs=5e-4)  # the exercise of example A
    assert result.systems["NEW"].hit_rate == pytest.approx(0.8)
    # q2 in OLD: D3 moved below D6 makes D6 (rank 2) the first relevant passage
    below = mrr_model.compute(setup, mrr_model.move(setup, setup.opening, 4, key=("OLD", "q2")))
    assert below.queries["OLD", "q2"].first_rank == 2 and below.queries["OLD", "q2"].reciprocal_rank == 0.5
    gone = mrr_model.compute(setup, mrr_model.move(setup, setup.opening, 0, key=("OLD", "q4")))
    assert gone.queries["OLD", "q4"].first_rank == 0 and gone.queries["OLD", "q4"].reciprocal_rank == 0.0
    assert gone.systems["OLD"].mrr == pytest.approx((1 + 1 / 2 + 1 + 0 + 1) / 5, abs=1e-12)


def test_mrr_hit_k_reset_and_bad_moves():
    setup = mrr_model.mrr_setup(load_example("A"))
    state = mrr_model.with_hit_k(setup, mrr_model.move(setup, setup.opening, 5, key=("OLD", "q1")), 1)
    result = mrr_model.compute(setup, state)
    assert result.systems["OLD"].hit_rate == pytest.approx(metrics.mean_hit_rate([5, 2, 1, 4, 1], 1))
    assert result.systems["OLD"].hit_rate == pytest.approx(2 / 5)
    back = mrr_model.reset(setup, state)
    assert back.ranks == setup.opening.ranks and back.hit_k == setup.opening.hit_k == 3  # passages and k
    with pytest.raises(ValueError, match="rank runs up to 5"):
        mrr_model.move(setup, state, 6, key=("OLD", "q1"))
    with pytest.raises(ValueError, match="rank must be at least 0"):
        mrr_model.move(setup, state, -1, key=("OLD", "q1"))
    with pytest.raises(ValueError, match="no relevant passage to move"):
        mrr_model.move(setup, state, 1, key=("OLD", "q9"))
    with pytest.raises(ValueError, match="hit rate k runs up to 5"):
        mrr_model.with_hit_k(setup, state, 6)


# --- lesson 02: positions and grades ------------------------------------------------


def test_ndcg_opening_swapped_by_hand():
    setup = ndcg_model.ndcg_setup(load_example("B"))
    assert setup.movable == ("D11", "D4") and setup.opening.order == ("D4", "D9", "D11", "D1", "D2")
    result = ndcg_model.compute(setup, setup.opening)
    dcg, ideal = 2 / 1 + 3 / 2, 3 / 1 + 2 / LOG2_3
    assert result.dcg == pytest.approx(dcg, abs=1e-12) and result.idcg == pytest.approx(ideal, abs=1e-12)
    assert result.ndcg == pytest.approx(dcg / ideal, abs=1e-12)
    assert result.ndcg == pytest.approx(0.8212, abs=5e-5)
    assert result.positions == {"D11": 3, "D4": 1}
    assert result.formula_lines[0] == "DCG@5 = 2/1 + 0/1.585 + 3/2 + 0/2.322 + 0/2.585 = 3.5000"
    assert result.formula_lines[2] == f"nDCG@5 = 3.5000 / {ideal:.4f} = {dcg / ideal:.4f}"


def test_ndcg_moving_onto_the_other_swaps_and_removing_keeps_the_ideal():
    setup = ndcg_model.ndcg_setup(load_example("B"))
    swapped = ndcg_model.move(setup, setup.opening, 1, doc_id="D11")
    assert swapped.order == ("D11", "D9", "D4", "D1", "D2")
    result = ndcg_model.compute(setup, swapped)
    assert result.positions == {"D11": 1, "D4": 3}
    assert result.dcg == pytest.approx(3 + 2 / 2, abs=1e-12)
    plain = ndcg_model.move(setup, swapped, 2, doc_id="D4")  # onto D9: an ordinary move
    assert plain.order == ("D11", "D4", "D9", "D1", "D2")
    assert ndcg_model.compute(setup, plain).ndcg == pytest.approx(1.0)
    removed = ndcg_model.compute(setup, ndcg_model.move(setup, setup.opening, 0, doc_id="D11"))
    assert removed.ranking == ("D4", "D9", "D1", "D2") and removed.positions["D11"] == 0
    assert removed.ndcg == pytest.approx(2 / (3 + 2 / LOG2_3), abs=1e-12)  # D11 stays in the ideal
    assert removed.ndcg == pytest.approx(0.4693, abs=5e-5)


def test_ndcg_grades_start_gain_and_undefined():
    setup = ndcg_model.ndcg_setup(load_example("B"))
    state = ndcg_model.with_grade(setup, setup.opening, 1, doc_id="D4")
    state = ndcg_model.start_from(setup, state, "good")
    assert state.order == ("D11", "D4", "D1", "D9", "D2") and state.grades == {"D11": 3, "D4": 1}
    result = ndcg_model.compute(setup, state)
    assert result.idcg == pytest.approx(3 + 1 / LOG2_3, abs=1e-12) and result.ndcg == pytest.approx(1.0)
    exponential = ndcg_model.compute(setup, ndcg_model.with_gain(setup, setup.opening, "exponential"))
    assert exponential.ndcg == pytest.approx((3 / 1 + 7 / 2) / (7 / 1 + 3 / LOG2_3), abs=1e-12)
    zero = ndcg_model.with_grade(
        setup, ndcg_model.with_grade(setup, setup.opening, 0, doc_id="D11"), 0, doc_id="D4"
    )
    undefined = ndcg_model.compute(setup, zero)
    assert undefined.ndcg is None and undefined.values()["ndcg"] is None
    assert undefined.labels["ndcg"] == "nDCG@5: undefined — no relevant document (ideal DCG = 0)"
    assert (
        "undefined" in undefined.formula_lines[2] and "nan" not in " ".join(undefined.formula_lines).lower()
    )
    with pytest.raises(ValueError, match="grade runs up to 3"):
        ndcg_model.with_grade(setup, setup.opening, 4, doc_id="D4")
    with pytest.raises(ValueError, match="unknown passage 'D9'"):
        ndcg_model.move(setup, setup.opening, 1, doc_id="D9")
    with pytest.raises(ValueError, match="unknown start 'best'"):
        ndcg_model.start_from(setup, setup.opening, "best")


# --- lesson 03: the worksheet --------------------------------------------------------


def test_worksheet_opening_by_hand():
    setup = worksheet_model.worksheet_setup(load_example("C"))
    result = worksheet_model.compute(setup, setup.opening)
    dcg = 2 + 3 / 2 + 1 / LOG2_5
    ideal = 3 + 3 / LOG2_3 + 2 / 2 + 2 / LOG2_5 + 1 / LOG2_6
    returned_ideal = 3 + 2 / LOG2_3 + 2 / 2 + 1 / LOG2_5
    assert result.dcg == pytest.approx(dcg, abs=1e-12) and result.idcg == pytest.approx(ideal, abs=1e-12)
    assert result.ndcg == pytest.approx(dcg / ideal, abs=1e-12)
    assert result.ndcg_returned_only == pytest.approx(dcg / returned_ideal, abs=1e-12)
    assert (round(result.dcg, 3), round(result.idcg, 3), round(result.ndcg, 3)) == (3.931, 7.141, 0.550)
    assert result.labels == {
        "dcg": "DCG@5 = 3.931",
        "idcg": "IDCG@5 = 7.141",
        "ndcg": "NDCG@5 = 0.550",
        "ndcg-returned": "ideal from returned results only (the mistake): 0.690",
    }


def test_worksheet_edits_and_undefined():
    setup = worksheet_model.worksheet_setup(load_example("C"))
    state = worksheet_model.with_missed_grade(setup, setup.opening, 0, number=1)
    result = worksheet_model.compute(setup, state)
    assert result.ndcg == pytest.approx(result.ndcg_returned_only)  # nothing missed: both ideals agree
    state = worksheet_model.with_k(setup, worksheet_model.with_grade(setup, state, 3, rank=2), 2)
    grades = [2, 3, 3, 1, 0, 2]
    assert worksheet_model.compute(setup, state).ndcg == pytest.approx(
        metrics.ndcg(grades, 2, ideal=grades + [0])
    )
    exponential = worksheet_model.compute(
        setup, worksheet_model.with_gain(setup, setup.opening, "exponential")
    )
    assert exponential.ndcg == pytest.approx(
        metrics.ndcg([2, 0, 3, 1, 0, 2], 5, [2, 0, 3, 1, 0, 2, 3], "exponential")
    )
    assert exponential.ndcg == pytest.approx(0.475, abs=5e-4)
    zero = setup.opening
    for rank in range(1, 7):
        zero = worksheet_model.with_grade(setup, zero, 0, rank=rank)
    zero = worksheet_model.with_missed_grade(setup, zero, 0, number=1)
    result = worksheet_model.compute(setup, zero)
    assert result.ndcg is None and result.ndcg_returned_only is None and result.dcg == 0.0
    assert result.labels["ndcg-returned"].endswith(": undefined")
    assert json.loads(json.dumps(result.values())) == result.values()
    with pytest.raises(ValueError, match="k runs up to 6"):
        worksheet_model.with_k(setup, zero, 7)
    with pytest.raises(ValueError, match="grade runs up to 3"):
        worksheet_model.with_grade(setup, zero, 4, rank=1)
    assert worksheet_model.with_formulas(setup, zero, True).show_formulas is True
