"""Predict, then reveal (helpers/widgets/reveal.py, lessons 03 and 05): new numbers on a click, the value only on
"reveal", and then the value helpers.metrics gives for the data shown.

The value is recomputed here from what the control shows (the grades of its table, the cut-off and the missed
grades its question states), independently of the variant's own worked answer.
"""

from __future__ import annotations

import json
import re

import ipywidgets as widgets
import pytest

from helpers import metrics
from helpers.exercises import LOG_ENV, REGISTRY
from helpers.widgets import PredictThenReveal, predict_then_reveal

LESSON_05 = {"nDCG@3, swapped and regraded": "lab-swap-ndcg3", "nDCG@K, linear minus exponential": "lab-ndcg5-linear"}
LESSON_03 = {"NDCG@k, a grade beyond the sheet": "sheet-ndcg3", "NDCG@5, the rise after a regrade": "kb04-graded-2"}
EXERCISES = [*LESSON_05.values(), *LESSON_03.values()]


def expected_from_the_data(exercise: str, grades: list[int], question: str) -> float:
    """The value of a dealt question, from the grades shown and what its question states, by helpers.metrics."""
    if exercise == "lab-swap-ndcg3":  # the table shows the lab's list; the question swaps two and regrades one
        to, up = map(int, re.search(r"Swap the results at ranks (\d) and (\d)", question).groups())
        perfect = int(re.search(r"grade it 'perfect', (\d)", question).group(1))
        changed = grades.copy()
        changed[to - 1], changed[up - 1] = perfect, grades[to - 1]
        return metrics.ndcg(changed, 3, ideal=changed, gain="exponential")
    if exercise == "lab-ndcg5-linear":  # the gap between the two gains on the same list, one more page judged
        k = int(re.search(r"Move K to (\d+)", question).group(1))
        unseen = int(re.search(r"\(grade (\d)\) was never returned", question).group(1))
        ideal = [*grades, unseen]
        return metrics.ndcg(grades, k, ideal=ideal) - metrics.ndcg(grades, k, ideal=ideal, gain="exponential")
    if exercise == "sheet-ndcg3":  # a missed article graded above the sheet's 0-3, perhaps another one
        k = int(re.search(r"NDCG@(\d+)", question).group(1))
        above = int(re.search(r"never returned a grade of (\d+), above", question).group(1))
        others = [int(g) for g in re.findall(r"another article it never returned has grade (\d)", question)]
        assert above > 3 and max(grades) <= 3, "the table stays on the sheet's scale, the question leaves it"
        return metrics.ndcg(grades, k, ideal=[*grades, above, *others])
    if exercise == "kb04-graded-2":
        missed = int(re.search(r"has grade (\d)\)", question).group(1))
        rank, old, new = map(int, re.search(r"changes rank (\d)'s grade from (\d) to (\d)", question).groups())
        assert grades[rank - 1] == old, "the table shows the grades before the change"
        regraded = [*grades[: rank - 1], new, *grades[rank:]]  # the rise: NDCG@5 after minus before
        return metrics.ndcg(regraded, 5, ideal=regraded + [missed]) - metrics.ndcg(grades, 5, ideal=grades + [missed])
    raise AssertionError(f"no reference computation for {exercise}")


def shown_grades(control: PredictThenReveal) -> list[int]:
    """The grades as the control's table shows them (list: the row after 'grade'; sheet: the yellow cells)."""
    html = control.data_box.value
    if "sheet-view" in html:
        return [int(cell) for cell in re.findall(r"<td class='number input'>(\d+)</td>", html)]
    row = re.search(r"<tr class='reveal-grade'>(.*?)</tr>", html).group(1)
    return [int(cell) for cell in re.findall(r"<td[^>]*>(\d+)</td>", row)]


def shown_question(control: PredictThenReveal) -> str:
    return re.sub(r"<[^>]+>", "", control.question_box.value)


def every_widget(root: widgets.Widget) -> list[widgets.Widget]:
    """The control and every widget under it (children, layouts, styles): everything the browser is sent."""
    found: list[widgets.Widget] = []
    queue = [root]
    while queue:
        widget = queue.pop()
        if any(widget is seen for seen in found):
            continue
        found.append(widget)
        for name in widget.keys:
            value = getattr(widget, name)
            values = value if isinstance(value, (list, tuple)) else [value]
            queue += [part for part in values if isinstance(part, widgets.Widget)]
    return found


def state_texts(root: widgets.Widget) -> list[str]:
    """Every string in the state of every widget of the control (values, descriptions, options, tooltips, ...)."""
    texts: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            for part in value.values():
                walk(part)
        elif isinstance(value, (list, tuple)):
            for part in value:
                walk(part)

    for widget in every_widget(root):
        walk(widget.get_state())
    return texts


def leaks(control: PredictThenReveal, exercise: str, seed: int) -> list[str]:
    """The texts of the answer (at 3 and 4 decimals, and every worked step) found in any widget's state."""
    from helpers.exercises.fresh import draw

    worked = draw(exercise, seed).worked
    secrets = {f"{worked.value:.3f}", f"{worked.value:.4f}", *worked.steps}
    return sorted({secret for secret in secrets for text in state_texts(control) if secret in text})


@pytest.mark.parametrize("exercise", EXERCISES)
def test_the_same_seed_deals_the_same_numbers_and_each_deal_new_ones(exercise):
    first, again = predict_then_reveal(exercise, seed=123), predict_then_reveal(exercise, seed=123)
    dealt = []
    for _ in range(12):
        assert shown_grades(first) == shown_grades(again) and shown_question(first) == shown_question(again)
        assert first.data_box.value == again.data_box.value
        dealt.append((tuple(shown_grades(first)), shown_question(first)))
        first.deal_button.click()
        again.deal_button.click()
    assert len(set(dealt)) >= 11, "a deal gives new numbers (two of twelve may meet by chance)"
    other = predict_then_reveal(exercise, seed=124)
    assert (shown_grades(other), shown_question(other)) != dealt[0]


@pytest.mark.parametrize("exercise", EXERCISES)
def test_before_reveal_no_widget_holds_the_answer_after_it_the_value_of_the_data(exercise):
    control = predict_then_reveal(exercise, seed=5)
    for _ in range(3):
        control.deal_button.click()
        seed = control.result.seed
        assert leaks(control, exercise, seed) == []
        assert control.result.value is None and control.metric_values["value"] is None
        assert "= ?" in control.value_box.value and control.steps_box.value == ""

        control.reveal_button.click()
        expected = expected_from_the_data(exercise, shown_grades(control), shown_question(control))
        assert control.result.value == pytest.approx(expected, abs=1e-12)
        decimals = REGISTRY[exercise].decimals
        shown = re.search(r"= (-?\d+\.\d+)</b>", control.value_box.value).group(1)
        assert len(shown.split(".")[1]) == decimals
        assert float(shown) == pytest.approx(expected, abs=0.5 * 10**-decimals + 1e-12)
        assert leaks(control, exercise, seed) != []  # the check can fail: the answer is now there to find
        assert control.steps_box.value.count("<li>") >= 3


def test_a_new_deal_hides_the_value_again_and_switching_question_deals_new_numbers():
    control = predict_then_reveal(LESSON_05, seed=9)
    assert control.question_toggle is not None and control.question_toggle.value == "lab-swap-ndcg3"
    control.reveal_button.click()
    assert control.result.value is not None
    before = (shown_grades(control), control.result.seed)
    control.deal_button.click()
    assert control.result.value is None and not re.search(r"\d\.\d", control.value_box.value)
    assert (shown_grades(control), control.result.seed) != before

    control.reveal_button.click()
    control.question_toggle.value = "lab-ndcg5-linear"
    assert control.result.exercise == "lab-ndcg5-linear" and control.result.value is None
    assert "linear" in shown_question(control) and leaks(control, "lab-ndcg5-linear", control.result.seed) == []
    control.reveal_button.click()
    grades = shown_grades(control)
    assert control.result.value == pytest.approx(
        expected_from_the_data("lab-ndcg5-linear", grades, shown_question(control)), abs=1e-12
    )


def test_lesson_03_shows_the_worksheet_and_lesson_05_the_ranked_list():
    sheet = predict_then_reveal(LESSON_03, show_as="sheet", seed=2)
    assert "sheet-view" in sheet.data_box.value and "Relevance (0–3)" in sheet.data_box.value
    assert len(shown_grades(sheet)) == 6 and all(0 <= g <= 3 for g in shown_grades(sheet))
    ranked = predict_then_reveal(LESSON_05, seed=2)
    assert "reveal-list" in ranked.data_box.value
    assert re.findall(r"<td[^>]*>(\d)</td>", ranked.data_box.value)[:6] == ["1", "2", "3", "4", "5", "6"]
    assert len(shown_grades(ranked)) == 6 and all(0 <= g <= 2 for g in shown_grades(ranked))
    # the precision sentence of the exercise is not the room's business
    assert "decimals" not in shown_question(sheet) + shown_question(ranked)


def test_lesson_05_deals_its_own_questions_a_swap_with_a_regrade_and_the_gap_between_the_gains():
    control = predict_then_reveal(LESSON_05, seed=11)
    assert "Swap the results at ranks" in shown_question(control) and "'perfect', 3" in shown_question(control)
    control.reveal_button.click()
    assert re.search(r"<b>nDCG@3 = \d\.\d{4}</b>", control.value_box.value)

    control.question_toggle.value = "lab-ndcg5-linear"
    assert "exceed" in shown_question(control) and "negative if it is lower" in shown_question(control)
    html, grades = control.data_box.value, shown_grades(control)

    def row(name: str) -> list[int]:
        cells = re.search(rf"<tr class='reveal-{name}'>(.*?)</tr>", html).group(1)
        return [int(cell) for cell in re.findall(r"<td[^>]*>(\d+)</td>", cells)]

    # both sides of the gap on the screen: the gain of each result, linear and exponential
    assert row("linear-gain") == grades and row("exponential-gain") == [2**grade - 1 for grade in grades]
    control.reveal_button.click()
    assert re.search(r"<b>nDCG@\d gap = -?\d\.\d{4}</b>", control.value_box.value)


def test_only_the_reveal_is_recorded_as_help(tmp_path, monkeypatch):
    log = tmp_path / "checks.jsonl"
    monkeypatch.setenv(LOG_ENV, str(log))
    control = predict_then_reveal("sheet-ndcg3", show_as="sheet", seed=3)
    control.deal_button.click()
    assert not log.exists()
    control.reveal_button.click()
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(e["event"], e["exercise"], e["seed"]) for e in events] == [
        ("practice-reveal", "sheet-ndcg3", control.result.seed)
    ]


def test_bad_arguments_are_refused_and_an_assignment_copy_gets_a_note(monkeypatch):
    with pytest.raises(ValueError, match="no variants for lab-r4-useful-recall3"):
        predict_then_reveal("lab-r4-useful-recall3")
    with pytest.raises(ValueError, match="show_as"):
        predict_then_reveal("sheet-ndcg3", show_as="grid")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        predict_then_reveal("sheet-ndcg3", seed=-1)
    with pytest.raises(ValueError, match="empty"):
        predict_then_reveal({})
    import helpers.exercises

    monkeypatch.setattr(helpers.exercises, "is_assignment_copy", lambda: True)
    note = predict_then_reveal(LESSON_05)
    assert isinstance(note, widgets.HTML) and "does not hold" in note.value


def test_the_module_examples_hold():
    import doctest

    from helpers.widgets import reveal

    assert doctest.testmod(reveal).attempted >= 2 and doctest.testmod(reveal).failed == 0
