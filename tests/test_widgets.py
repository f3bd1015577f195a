"""The interactive controls, driven through .value and .click() without a browser (helpers/widgets/*_view.py).

Every number a control shows is compared with helpers.metrics computed here,
independently, from data/ for the same state; the worked examples' figures
(data/README.md names them) are asserted where a control can reach them.
"""

from __future__ import annotations

import html
import io
import itertools
import random
import re
from dataclasses import replace
from html.parser import HTMLParser

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.text import Text
from PIL import Image

from helpers import metrics
from helpers.data import load_example
from helpers.tables import dcg_sum, short_number
from helpers.widgets import MetricsLab, lab_model, metrics_lab, mrr_control, ndcg_control, worksheet_control
from helpers.widgets._arithmetic import move_to
from helpers.widgets._plot import png_bytes
from helpers.widgets.lab_view import GRADE_COLOURS, GREYED, GREYED_FALLBACK, MISSED_MARK, RELEVANT_MARK

UNDEFINED = "undefined — no relevant document"


# --- independent expectations ------------------------------------------------


def example_e():
    """Ids, titles and grades of example E's six results (system lab, query e1), in rank order."""
    data = load_example("E")
    ranked = data.ranking("lab", "e1")
    judgments = data.judgments_for("e1")
    return ranked, [data.title(doc) for doc in ranked], [int(judgments[doc]) for doc in ranked]


def expected_lab(ids, grades, k, gain="exponential", threshold=1, missed=(), ideal="judged"):
    """What the lab must show for a state, computed straight from helpers.metrics.

    ``missed`` are the grades of judged documents the system did not return.
    """
    grades = [float(grade) for grade in grades]
    ideal_grades = grades + [float(grade) for grade in missed] if ideal == "judged" else grades
    relevant = {doc for doc, grade in zip(ids, grades, strict=True) if grade >= threshold}
    relevant |= {f"missed-{number}" for number, grade in enumerate(missed) if grade >= threshold}
    first = metrics.first_relevant_rank(ids, relevant)
    try:
        recall = metrics.recall_at_k(ids, relevant, k)
    except metrics.UndefinedMetricError:
        recall = None
    try:
        ndcg = metrics.ndcg(grades, k, ideal=ideal_grades, gain=gain)
    except metrics.UndefinedMetricError:
        ndcg = None
    return {
        "recall": recall,
        "mrr": metrics.reciprocal_rank_of(first),
        "mrr_at_k": metrics.reciprocal_rank_of(first, k),
        "first_relevant_rank": first,
        "dcg": metrics.dcg(grades, k, gain),
        "idcg": metrics.ideal_dcg(ideal_grades, k, gain),
        "ndcg": ndcg,
    }


def plain(html_text):
    """The text of an HTML fragment, its tags left out (a metric is in parts: name, " = ", value)."""
    return html.unescape(re.sub(r"<[^>]+>", "", html_text))


def assert_lab_shows(lab, expected):
    """The lab's numbers, labels and formula match the expected values for its current state."""
    values, k = lab.metric_values, lab.k_slider.value
    for name, value in expected.items():
        if value is None:
            assert values[name] is None, name
        else:
            assert values[name] == pytest.approx(value, abs=1e-12), name
    recall_text = plain(lab.metric_labels["recall"].value)
    ndcg_text = plain(lab.metric_labels["ndcg"].value)
    if expected["recall"] is None:
        assert f"Recall@{k}: {UNDEFINED}" in recall_text
    else:
        assert f"Recall@{k} = {expected['recall']:.4f}" in recall_text
    assert f"MRR = {expected['mrr']:.4f}" in plain(lab.metric_labels["mrr"].value)
    assert f"MRR@{k} = {expected['mrr_at_k']:.4f}" in plain(lab.metric_labels["mrr-k"].value)
    if expected["ndcg"] is None:
        assert f"nDCG@{k}: {UNDEFINED}" in ndcg_text
    else:
        assert f"nDCG@{k} = {expected['ndcg']:.4f}" in ndcg_text
    assert_formula(lab.formula_text, k, expected)
    for text in (recall_text, ndcg_text, lab.formula_label.value, lab.table_html.value):
        assert not re.search(r"\bnan\b", text, re.IGNORECASE), text


def assert_formula(text, k, expected):
    """The written-out sums add up (from their rounded numbers) to the totals they print."""
    lines = {line.split(" = ", 1)[0]: line for line in text.splitlines()}
    for name, total in ((f"DCG@{k}", expected["dcg"]), (f"IDCG@{k}", expected["idcg"])):
        line = lines[name]
        assert line.endswith(f"= {total:.4f}")
        terms = line.split(" = ")[-2].split(" + ")
        summed = sum(float(top) / float(bottom) for top, bottom in (term.split("/") for term in terms))
        assert summed == pytest.approx(total, abs=2e-3)  # the discounts are shown to 3 decimals
    if expected["ndcg"] is None:
        assert UNDEFINED in lines[f"nDCG@{k}"]
    else:
        assert lines[f"nDCG@{k}"].endswith(f"= {expected['ndcg']:.4f}")


class CellParser(HTMLParser):
    """The text of each <td> of an HTML table, row by row (header cells skipped)."""

    def __init__(self):
        super().__init__()
        self.rows, self._cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.rows[-1].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def table_cells(html_text):
    parser = CellParser()
    parser.feed(html_text)
    return [row for row in parser.rows if row]


def assert_table(lab, grades, k, gain, ideal_grades, ids):
    """The lab's sheet holds, row by row, the arithmetic table of helpers.metrics for the state."""
    table = metrics.arithmetic_table(grades, k, ideal=ideal_grades, gain=gain, ids=ids)
    rows = table_cells(lab.table_html.value)
    header, body = rows[0], rows[1:]
    assert header[:3] == ["rank", "id", "grade"]
    assert len(body) == len(table)
    for shown, row in zip(body, table.itertuples(), strict=True):
        assert shown[0] == str(row.rank) and shown[1] == row.id
        assert float(shown[2]) == row.grade
        assert shown[5] == f"{row.discounted_gain:.3f}"
        assert float(shown[6]) == row.ideal_grade
        assert shown[8] == f"{row.ideal_discounted_gain:.3f}"
        assert shown[9] == ("yes" if row.in_top_k else "no")


# --- the metrics lab: opening state ------------------------------------------


def test_lab_opens_on_example_e_with_its_conventions():
    lab = metrics_lab()
    ids, titles, grades = example_e()
    assert lab.ids == ids and lab.grades == grades and len(lab.grade_buttons) == 6
    assert (lab.k_slider.value, lab.k_slider.min, lab.k_slider.max) == (3, 1, 6)
    assert lab.gain_toggle.value == "exponential"
    assert lab.ideal_toggle.value == "judged"
    assert lab.threshold_toggle.value == 1
    names = {0: "none", 1: "useful", 2: "answers it"}
    for button, label, grade, doc, title in zip(
        lab.grade_buttons, lab.row_labels, grades, ids, titles, strict=True
    ):
        assert button.description == f"{grade} · {names[grade]}"
        assert f"{doc} · {title}" in plain(label.value)
    assert_lab_shows(lab, expected_lab(ids, grades, 3))
    assert_table(lab, grades, 3, "exponential", grades, ids)
    # the screen says which convention is active, next to the switch to the collection's default
    assert "exponential gain, 2^grade − 1" in lab.gain_note.value
    assert "collection's default is linear gain" in lab.gain_note.value
    assert "ideal from all judged documents" in lab.ideal_note.value
    assert "same 6 grades, sorted" in lab.ideal_note.value
    assert "grade ≥ 1" in lab.threshold_note.value
    assert "nDCG ignores the threshold" in lab.threshold_note.value


def test_lab_opening_numbers():
    """Example E's opening state: Recall@3 2/4, MRR 1, nDCG@3 with exponential gain."""
    lab = metrics_lab()
    values = lab.metric_values
    ids, _, grades = example_e()
    data = load_example("E")
    relevant = data.relevant_for("e1")
    assert values["recall"] == pytest.approx(metrics.recall_at_k(ids, relevant, 3))
    assert values["recall"] == pytest.approx(0.5)
    assert values["mrr"] == values["mrr_at_k"] == pytest.approx(1.0)
    expected = metrics.ndcg(grades, 3, ideal=list(data.judgments_for("e1").values()), gain="exponential")
    assert values["ndcg"] == pytest.approx(expected, abs=1e-12)
    assert values["ndcg"] == pytest.approx(0.7003, abs=5e-5)
    assert "DCG@3 = (2^1−1)/1 + (2^2−1)/1.585 + (2^0−1)/2 = 1/1 + 3/1.585 + 0/2 = 2.8928" in lab.formula_text


# --- the metrics lab: clicks, K and switches ----------------------------------


def test_a_click_cycles_a_grade_none_useful_answers_it():
    lab = metrics_lab()
    button = lab.grade_buttons[2]  # r4, graded 0
    seen = []
    for _ in range(4):
        button.click()
        seen.append((lab.grades[2], button.description))
    assert seen == [(1, "1 · useful"), (2, "2 · answers it"), (0, "0 · none"), (1, "1 · useful")]


@pytest.mark.parametrize("k", range(1, 7))
@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("threshold", [1, 2])
def test_every_k_gain_and_threshold(k, gain, threshold):
    lab = metrics_lab()
    lab.k_slider.value = k
    lab.gain_toggle.value = gain
    lab.threshold_toggle.value = threshold
    ids, _, grades = example_e()
    assert_lab_shows(lab, expected_lab(ids, grades, k, gain, threshold))
    assert_table(lab, grades, k, gain, grades, ids)


def test_random_clicks_and_switches_stay_consistent():
    """Interleave clicks, K moves and convention switches; after every step the screen is right."""
    lab = metrics_lab()
    ids, _, grades = example_e()
    grades = list(grades)
    rng = random.Random(20261129)
    for _ in range(150):
        action = rng.choice(["click", "click", "click", "k", "gain", "ideal", "threshold"])
        if action == "click":
            index = rng.randrange(6)
            lab.grade_buttons[index].click()
            grades[index] = (grades[index] + 1) % 3
        elif action == "k":
            lab.k_slider.value = rng.randint(1, 6)
        elif action == "gain":
            lab.gain_toggle.value = rng.choice(["linear", "exponential"])
        elif action == "ideal":
            lab.ideal_toggle.value = rng.choice(["judged", "returned"])
        else:
            lab.threshold_toggle.value = rng.choice([1, 2])
        assert lab.grades == grades
        state = (lab.k_slider.value, lab.gain_toggle.value, lab.threshold_toggle.value)
        assert_lab_shows(lab, expected_lab(ids, grades, *state))


def test_rapid_repeated_clicks_keep_the_state():
    lab = metrics_lab()
    ids, _, start = example_e()
    before = lab.refresh_count
    for _ in range(100):
        lab.grade_buttons[0].click()
    assert lab.grades[0] == (start[0] + 100) % 3
    assert lab.refresh_count == before + 100
    assert lab.grade_buttons[0].description.startswith(f"{lab.grades[0]} · ")
    assert_lab_shows(lab, expected_lab(ids, lab.grades, 3))


def test_reset_restores_data_and_conventions():
    lab = metrics_lab()
    for button in lab.grade_buttons:
        button.click()
    lab.k_slider.value, lab.gain_toggle.value, lab.threshold_toggle.value = 6, "linear", 2
    lab.reset_button.click()
    ids, _, grades = example_e()
    assert lab.grades == grades
    assert (lab.k_slider.value, lab.gain_toggle.value, lab.threshold_toggle.value) == (3, "exponential", 1)
    assert_lab_shows(lab, expected_lab(ids, grades, 3))


def test_switching_the_gain_names_the_active_convention():
    lab = metrics_lab()
    lab.gain_toggle.value = "linear"
    assert "linear gain, gain = grade</b> — the collection's default" in lab.gain_note.value
    assert "opens with exponential gain" in lab.gain_note.value
    ids, _, grades = example_e()
    assert lab.metric_values["ndcg"] == pytest.approx(metrics.ndcg(grades, 3, gain="linear"), abs=1e-12)
    assert "DCG@3 = 1/1 + 2/1.585 + 0/2 = " in lab.formula_text  # linear: no powers written out


def test_in_example_e_both_ideals_agree_and_the_note_says_why():
    lab = metrics_lab()
    judged = dict(lab.metric_values)
    lab.ideal_toggle.value = "returned"
    assert lab.metric_values["ndcg"] == pytest.approx(judged["ndcg"], abs=1e-15)
    assert "ideal from the returned results only" in lab.ideal_note.value
    assert "both ideals agree" in lab.ideal_note.value


def test_the_ideal_switch_matters_with_a_missed_document():
    """Example C in the lab: the missed kb21 (grade 3) is in the ideal of all judged documents only."""
    lab = metrics_lab("C", k=5, gain="linear")
    assert lab.missed_ids == ["kb21"] and lab.missed_grades == [3]
    assert_lab_shows(lab, expected_lab(lab.ids, [2, 0, 3, 1, 0, 2], 5, "linear", missed=[3]))
    assert lab.metric_values["ndcg"] == pytest.approx(0.550, abs=5e-4)
    assert lab.metric_values["dcg"] == pytest.approx(3.931, abs=5e-4)
    assert lab.metric_values["idcg"] == pytest.approx(7.141, abs=5e-4)
    lab.ideal_toggle.value = "returned"
    assert lab.metric_values["ndcg"] == pytest.approx(0.690, abs=5e-4)
    returned_only = expected_lab(lab.ids, [2, 0, 3, 1, 0, 2], 5, "linear", missed=[3], ideal="returned")
    assert_lab_shows(lab, returned_only)
    assert "overstates nDCG" in lab.ideal_note.value
    lab.ideal_toggle.value = "judged"
    lab.gain_toggle.value = "exponential"
    assert lab.metric_values["ndcg"] == pytest.approx(0.475, abs=5e-4)
    lab.missed_buttons[0].click()  # kb21: 3 -> 0, the ideal loses its best document
    grades = [2, 0, 3, 1, 0, 2]
    assert lab.missed_grades == [0]
    expected = metrics.ndcg(grades, 5, ideal=grades + [0], gain="exponential")
    assert lab.metric_values["ndcg"] == pytest.approx(expected, abs=1e-12)
    still_relevant = {"kb01", "kb07", "kb03", "kb06"}
    assert lab.metric_values["recall"] == pytest.approx(metrics.recall_at_k(lab.ids, still_relevant, 5))


def test_the_view_shows_any_state_of_the_model():
    """A state made by the model's transitions is shown as is; the controls' echo does not recompute."""
    lab = metrics_lab()
    setup = lab.setup
    state = lab_model.with_k(setup, lab.state, 5)
    state = lab_model.with_gain(setup, state, "linear")
    state = lab_model.with_threshold(setup, state, 2)
    state = lab_model.click_grade(setup, state, 3)
    before = lab.refresh_count
    lab.show(state)
    assert lab.refresh_count == before + 1
    assert lab.state is state
    assert (lab.k_slider.value, lab.gain_toggle.value, lab.threshold_toggle.value) == (5, "linear", 2)
    assert lab.grade_buttons[2].description == "1 · useful"
    assert lab.metric_values == lab_model.compute(setup, state).values()
    ids, _, grades = example_e()
    grades[2] = 1
    assert_lab_shows(lab, expected_lab(ids, grades, 5, "linear", threshold=2))
    lab.formulas_checkbox.value = True
    lab.reset_button.click()  # reset: data and conventions back, the formulas stay shown
    assert lab.state == replace(setup.opening, show_formulas=True) and lab.formulas_checkbox.value


# --- the metrics lab: edge cases ----------------------------------------------


def test_every_grade_zero_shows_undefined_not_nan():
    lab = metrics_lab()
    plots_before = len(plt.get_fignums())
    lab.set_grades([0] * 6)
    values = lab.metric_values
    assert values["recall"] is None and values["ndcg"] is None
    assert values["mrr"] == values["mrr_at_k"] == 0.0
    assert values["idcg"] == 0.0
    assert f"Recall@3: {UNDEFINED} (R = 0)" in lab.metric_labels["recall"].value
    assert f"nDCG@3: {UNDEFINED} (ideal DCG = 0)" in lab.metric_labels["ndcg"].value
    assert "MRR = 0.0000" in plain(lab.metric_labels["mrr"].value)
    assert "a miss scores 0" in lab.formula_text
    ids, _, _ = example_e()
    assert_lab_shows(lab, expected_lab(ids, [0] * 6, 3))
    assert len(plt.get_fignums()) == plots_before


def test_threshold_two_without_an_answer_leaves_recall_undefined_but_ndcg_defined():
    lab = metrics_lab()
    lab.set_grades([1, 1, 0, 0, 1, 0])
    lab.threshold_toggle.value = 2
    assert lab.metric_values["recall"] is None
    assert lab.metric_values["mrr"] == 0.0
    assert lab.metric_values["ndcg"] is not None
    ids, _, _ = example_e()
    assert_lab_shows(lab, expected_lab(ids, [1, 1, 0, 0, 1, 0], 3, threshold=2))


def test_k_stops_at_the_list_length_by_default():
    lab = metrics_lab()
    lab.k_slider.value = 9
    assert lab.k_slider.value == 6  # the slider clamps: K never exceeds the six results
    assert lab.k_note.value == "K = 6: all 6 results count."
    lab.k_slider.value = 2
    assert lab.k_note.value.startswith("K = 2: the top 2 of 6 results count; ranks 3–6 are greyed.")


def test_k_past_the_list_counts_padding_and_says_so():
    lab = metrics_lab(max_k=8)
    lab.k_slider.value = 8
    # the note is escaped text in the HTML widget ("&gt;" for ">")
    assert html.unescape(lab.k_note.value).startswith("K = 8 > 6 results: counted as 6 returned + padding")
    ids, _, grades = example_e()
    assert_lab_shows(lab, expected_lab(ids, grades, 8))
    # nothing was missed in example E: no padding row, the ideal has six grades too
    assert_table(lab, grades, 8, "exponential", grades, ids)
    assert lab.plot.heights[6:] == [0.0, 0.0]


def test_k_past_the_list_with_a_missed_document_adds_an_ideal_row():
    lab = metrics_lab("C", gain="linear", max_k=7)
    lab.k_slider.value = 7
    grades = [2, 0, 3, 1, 0, 2]
    assert lab.metric_values["idcg"] == pytest.approx(metrics.ideal_dcg(grades + [3], 7), abs=1e-12)
    assert_table(lab, [float(g) for g in grades], 7, "linear", grades + [3], lab.ids)
    assert len(table_cells(lab.table_html.value)) == 1 + 7  # header + six results + one padding rank


def test_a_single_result():
    lab = MetricsLab([("only", "The only page", 2)], k=3)
    assert (lab.k_slider.min, lab.k_slider.max, lab.k_slider.value) == (1, 1, 1)
    assert_lab_shows(lab, expected_lab(["only"], [2], 1))
    assert lab.metric_values["ndcg"] == 1.0 and lab.metric_values["recall"] == 1.0
    lab.grade_buttons[0].click()  # 2 -> 0
    assert lab.grades == [0]
    assert_lab_shows(lab, expected_lab(["only"], [0], 1))
    assert lab.metric_values["ndcg"] is None


def test_bad_lab_input_is_refused():
    with pytest.raises(ValueError, match="at least one result"):
        MetricsLab([])
    with pytest.raises(ValueError, match="unknown gain"):
        MetricsLab([("a", "A", 1)], gain="quadratic")
    lab = metrics_lab()
    with pytest.raises(ValueError, match="6 grades"):
        lab.set_grades([1, 2])
    with pytest.raises(ValueError, match="from 0 to 2"):
        lab.set_grades([3, 0, 0, 0, 0, 0])


# --- the plot: one image, redrawn in place ------------------------------------


def widgets_in(widget) -> list:
    """The widget and every widget inside it, depth first."""
    found = [widget]
    for child in getattr(widget, "children", ()):
        found.extend(widgets_in(child))
    return found


def part(control, css: str):
    """The one box of a control's layout that carries the CSS class."""
    boxes = [widget for widget in widgets_in(control) if css in getattr(widget, "_dom_classes", ())]
    assert len(boxes) == 1, f"{css}: {len(boxes)} boxes"
    return boxes[0]


def test_the_plot_updates_in_place_without_piling_up_figures():
    lab = metrics_lab()
    image = lab.plot_image
    assert image in widgets_in(part(lab, "control-readout"))  # the image widget is part of the lab
    assert image.value[:8] == b"\x89PNG\r\n\x1a\n"
    figures = len(plt.get_fignums())
    pictures = {bytes(image.value)}
    for step in range(12):
        lab.grade_buttons[step % 6].click()
        assert lab.plot_image is image
        pictures.add(bytes(image.value))
        table = metrics.arithmetic_table(lab.grades, lab.k_slider.value, gain="exponential")
        assert lab.plot.heights == pytest.approx(table["discounted_gain"].tolist())
        assert lab.plot.ideal_heights == pytest.approx(table["ideal_discounted_gain"].tolist())
        bars = " ".join(f"{value:.3f}" for value in table["discounted_gain"])
        described = Image.open(io.BytesIO(image.value)).text["Description"]
        assert described.startswith(f"exponential gain, K = 3; discounted gain by rank: {bars}; ideal: ")
    lab.gain_toggle.value = "linear"
    lab.k_slider.value = 5
    pictures.add(bytes(image.value))
    assert len(pictures) > 6  # the picture changed ...
    assert len(plt.get_fignums()) == figures  # ... and no figure was left behind
    assert "Discounted gain per position (linear gain" in lab.plot.title.get_text()


def test_the_plot_is_drawn_at_twice_its_size_with_text_of_14_px_on_the_page():
    lab = metrics_lab()
    picture = Image.open(io.BytesIO(lab.plot_image.value))
    shown_width = int(lab.plot_image.layout.width.removesuffix("px"))
    assert picture.size[0] == 2 * shown_width  # two image pixels per CSS pixel: crisp on a projector
    assert lab.plot_image.layout.height == "auto"  # the aspect ratio is kept at any width
    smallest_on_page = float(picture.text["Smallest-Text-Px"]) * shown_width / picture.size[0]
    assert smallest_on_page >= 14
    # the text size the PNG states is the one the figure draws its smallest text with
    texts = lab.plot.figure.findobj(lambda artist: isinstance(artist, Text) and artist.get_visible())
    sizes = [text.get_fontsize() for text in texts if text.get_text()]
    assert min(sizes) * lab.plot.figure.dpi / 72 == pytest.approx(float(picture.text["Smallest-Text-Px"]), abs=0.05)


def test_the_plot_in_words_follows_the_picture():
    lab = metrics_lab()
    lab.grade_buttons[2].click()
    described = Image.open(io.BytesIO(lab.plot_image.value)).text["Description"]
    words = html.unescape(re.sub(r"<[^>]+>", "", lab.plot.text.value))
    assert words == f"Bar plot of the discounted gain per position: {described}"
    assert "dg-plot-text" in lab.plot.text._dom_classes and lab.plot.text.layout.height == "0px"


def test_png_bytes_is_a_png_of_the_pixels():
    pixels = np.zeros((3, 5, 4), dtype=np.uint8)
    pixels[1, 2] = (10, 20, 30, 255)
    picture = Image.open(io.BytesIO(png_bytes(pixels, {"Description": "one dot"})))
    assert (np.asarray(picture.convert("RGBA")) == pixels).all()
    assert picture.text == {"Description": "one dot"}
    with pytest.raises(ValueError, match="RGBA"):
        png_bytes(np.zeros((2, 2, 3), dtype=np.uint8))


def test_short_number_and_move_to():
    assert [short_number(v) for v in (2.0, 1.5849625, 0.0, 2.3219)] == ["2", "1.585", "0", "2.322"]
    assert move_to(["a", "b", "c"], "c", 1) == ["c", "a", "b"]
    assert move_to(["a", "b", "c"], "a", 0) == ["b", "c"]
    assert move_to(["a", "b", "c"], "a", 9) == ["b", "c", "a"]


def test_the_steps_and_the_widgets_write_a_dcg_as_the_same_sum():
    from helpers.exercises.worked import worked_dcg
    from helpers.widgets._arithmetic import arithmetic_rows, dcg_formula

    grades = [2, 0, 3, 1]
    written = dcg_sum([2, 0, 3], [1, 1.5849625, 2])
    assert written == "2/1 + 0/1.585 + 3/2"
    assert any(f"= {written} =" in step for step in worked_dcg(grades, k=3).steps)
    rows = arithmetic_rows(grades, 3, ideal=grades, gain="linear")
    assert dcg_formula(rows, "linear") == written
    assert dcg_formula(rows, "exponential").startswith("(2^2−1)/1 + (2^0−1)/1.585 + (2^3−1)/2 = ")


# --- lesson 01: MRR vs hit rate (example A) -------------------------------------


def first_ranks_of(system, moved=None):
    """First relevant ranks of example A from the data, with optionally one passage moved."""
    data = load_example("A")
    ranks = []
    for query in data.query_ids:
        ranked = data.ranking(system, query)
        if moved and moved[0] == query:
            ranked = move_to(ranked, moved[1], moved[2])
        ranks.append(metrics.first_relevant_rank(ranked, data.relevant_for(query)))
    return ranks


def test_mrr_control_opens_on_example_a():
    control = mrr_control()
    old, new = control.metric_values["OLD"], control.metric_values["NEW"]
    assert old["first_ranks"] == first_ranks_of("OLD") == [1, 2, 1, 4, 1]
    assert new["first_ranks"] == first_ranks_of("NEW") == [2, 3, 2, 4, 2]
    assert old["reciprocal_ranks"] == pytest.approx([1.0, 0.5, 1.0, 0.25, 1.0])
    assert new["reciprocal_ranks"] == pytest.approx([0.5, 1 / 3, 0.5, 0.25, 0.5])
    assert old["mrr"] == pytest.approx(0.750, abs=5e-4) and new["mrr"] == pytest.approx(0.417, abs=5e-4)
    assert old["hit_rate"] == new["hit_rate"] == pytest.approx(0.800, abs=5e-4)
    assert old["mrr"] == pytest.approx(metrics.mean_reciprocal_rank(first_ranks_of("OLD")))
    summary = control.summary_html.value
    assert "<td class='metric-mrr-OLD'>0.750</td>" in summary
    assert "<td class='metric-mrr-NEW'>0.417</td>" in summary
    assert "<td class='metric-hit-NEW'>0.800</td>" in summary
    assert "Same hit rate, different MRR" in summary
    assert control.rank_pickers["NEW", "q1"].description == "D8 at"
    assert "RR = 1/3 = 0.333" in re.sub(r"<[^>]+>", "", control.rr_labels["NEW", "q2"].value)


def test_mrr_control_moving_d8_first_in_new():
    """The exercise of example A: D8 to rank 1 in NEW gives MRR 0.517, hit rate@3 still 0.800."""
    control = mrr_control()
    control.rank_pickers["NEW", "q1"].value = 1
    new = control.metric_values["NEW"]
    expected = metrics.mean_reciprocal_rank(first_ranks_of("NEW", ("q1", "D8", 1)))
    assert new["mrr"] == pytest.approx(expected, abs=1e-12)
    assert new["mrr"] == pytest.approx(0.517, abs=5e-4)
    assert new["hit_rate"] == pytest.approx(0.800, abs=5e-4)
    assert "<td class='metric-mrr-NEW'>0.517</td>" in control.summary_html.value
    assert control.ranking("NEW", "q1")[0] == "D8"


def test_mrr_control_calls_rank_0_a_miss_as_lesson_01_does_in_a_label_no_wider_than_a_rank():
    """The classroom's narrowest pickers are as wide as "rank N": every option, the miss too, reads whole in them."""
    control = mrr_control()
    for picker in control.rank_pickers.values():
        assert dict(picker.options)["miss"] == 0
        assert max(len(label) for label, _ in picker.options) == len(f"rank {control.setup.longest}")


def test_mrr_control_moves_and_cutoffs():
    control = mrr_control()
    control.rank_pickers["NEW", "q1"].value = 0  # D8 no longer returned: q1 is a miss
    assert control.metric_values["NEW"]["first_ranks"][0] == 0
    assert "RR = 0.000 (no relevant passage)" in re.sub(r"<[^>]+>", "", control.rr_labels["NEW", "q1"].value)
    # q2 in OLD: moving D3 below D6 makes D6 the first relevant passage
    control.rank_pickers["OLD", "q2"].value = 4
    assert control.metric_values["OLD"]["first_ranks"][1] == first_ranks_of("OLD", ("q2", "D3", 4))[1] == 2
    control.hit_k_slider.value = 1
    for system in ("OLD", "NEW"):
        ranks = control.metric_values[system]["first_ranks"]
        assert control.metric_values[system]["hit_rate"] == pytest.approx(metrics.mean_hit_rate(ranks, 1))
        assert control.metric_values[system]["mrr"] == pytest.approx(metrics.mean_reciprocal_rank(ranks))
    assert "hit rate@1" in control.summary_html.value
    control.reset_button.click()
    assert control.metric_values["NEW"]["first_ranks"] == [2, 3, 2, 4, 2]
    assert control.metric_values["OLD"]["first_ranks"] == [1, 2, 1, 4, 1]
    assert control.hit_k_slider.value == control.metric_values["hit_k"] == 3  # k back too
    assert "hit rate@3" in control.summary_html.value


@pytest.mark.parametrize("rank", [1, 2, 3, 4, 5, 0])
def test_mrr_control_every_rank_of_q4(rank):
    control = mrr_control()
    control.rank_pickers["OLD", "q4"].value = rank
    ranks = first_ranks_of("OLD", ("q4", "D7", rank))
    assert control.metric_values["OLD"]["first_ranks"] == ranks
    assert control.metric_values["OLD"]["mrr"] == pytest.approx(metrics.mean_reciprocal_rank(ranks))
    assert control.metric_values["OLD"]["hit_rate"] == pytest.approx(metrics.mean_hit_rate(ranks, 3))


# --- lesson 02: positions and grades (example B) --------------------------------


def b_expected(ranking, grades_changed=None, k=5, gain="linear"):
    data = load_example("B")
    judgments = {**data.judgments_for("b1"), **(grades_changed or {})}
    grades = metrics.grades_in_rank_order(ranking, judgments)
    ideal = list(judgments.values())
    dcg, best = metrics.dcg(grades, k, gain), metrics.ideal_dcg(ideal, k, gain)
    return dcg, best, metrics.ndcg(grades, k, ideal, gain)


def assert_b(control, dcg, ideal, ndcg):
    values, k = control.metric_values, control.k_slider.value
    assert values["dcg"] == pytest.approx(dcg, abs=1e-12)
    assert values["idcg"] == pytest.approx(ideal, abs=1e-12)
    assert values["ndcg"] == pytest.approx(ndcg, abs=1e-12)
    assert f"DCG@{k} = {dcg:.4f}" in plain(control.metric_labels["dcg"].value)
    assert f"ideal DCG@{k} = {ideal:.4f}" in plain(control.metric_labels["idcg"].value)
    assert f"nDCG@{k} = {ndcg:.4f}" in plain(control.metric_labels["ndcg"].value)


@pytest.mark.parametrize(
    ("start", "dcg", "ndcg"),
    [("good", 4.2619, 1.0000), ("swapped", 3.5000, 0.8212), ("pushed_down", 2.0219, 0.4744)],
)
def test_ndcg_control_three_orderings(start, dcg, ndcg):
    control = ndcg_control()
    control.start_picker.value = start
    ranking = load_example("B").ranking(start, "b1")
    assert control.ranking() == ranking
    assert_b(control, *b_expected(ranking))
    assert control.metric_values["dcg"] == pytest.approx(dcg, abs=5e-5)
    assert control.metric_values["idcg"] == pytest.approx(4.2619, abs=5e-5)
    assert control.metric_values["ndcg"] == pytest.approx(ndcg, abs=5e-5)


def test_ndcg_control_opens_on_swapped_with_the_arithmetic():
    control = ndcg_control()
    assert control.start_picker.value == "swapped"
    assert (control.position_pickers["D11"].value, control.position_pickers["D4"].value) == (3, 1)
    assert "DCG@5 = 2/1 + 0/1.585 + 3/2 + 0/2.322 + 0/2.585 = 3.5000" in control.formula_label.value
    assert "nDCG@5 = 3.5000 / 4.2619 = 0.8212" in control.formula_label.value


def test_ndcg_control_d4_grade_1():
    """Exercise of example B: D4 graded 1 gives DCG 3.6309 / 2.5000 / 1.5912, ideal 3.6309."""
    figures = {"good": (3.6309, 1.0000), "swapped": (2.5000, 0.6885), "pushed_down": (1.5912, 0.4382)}
    control = ndcg_control()
    control.grade_sliders["D4"].value = 1
    for start, (dcg, ndcg) in figures.items():
        control.start_picker.value = start
        assert_b(control, *b_expected(control.ranking(), {"D4": 1.0}))
        assert control.metric_values["dcg"] == pytest.approx(dcg, abs=5e-5)
        assert control.metric_values["idcg"] == pytest.approx(3.6309, abs=5e-5)
        assert control.metric_values["ndcg"] == pytest.approx(ndcg, abs=5e-5)


def test_ndcg_control_d11_removed_and_exponential_gain():
    control = ndcg_control()
    control.position_pickers["D11"].value = 0
    assert control.ranking() == ["D4", "D9", "D1", "D2"]
    assert_b(control, *b_expected(["D4", "D9", "D1", "D2"]))
    assert control.metric_values["ndcg"] == pytest.approx(0.4693, abs=5e-5)
    assert control.metric_values["dcg"] == pytest.approx(2.0000, abs=5e-5)
    control.position_pickers["D11"].value = 3  # back where it was
    control.gain_toggle.value = "exponential"
    assert control.metric_values["ndcg"] == pytest.approx(0.7309, abs=5e-5)


def test_ndcg_control_moving_onto_the_other_swaps_them():
    control = ndcg_control()
    control.position_pickers["D11"].value = 1  # D4 is at 1: they swap
    assert control.ranking() == ["D11", "D9", "D4", "D1", "D2"]
    assert control.position_pickers["D4"].value == 3
    assert_b(control, *b_expected(control.ranking()))
    control.position_pickers["D4"].value = 2  # onto D9: an ordinary move
    assert control.ranking() == ["D11", "D4", "D9", "D1", "D2"]
    assert control.metric_values["ndcg"] == pytest.approx(1.0)
    control.k_slider.value = 1
    assert_b(control, *b_expected(control.ranking(), k=1))


def test_ndcg_control_all_grades_zero_is_undefined():
    control = ndcg_control()
    control.grade_sliders["D11"].value = 0
    control.grade_sliders["D4"].value = 0
    assert control.metric_values["ndcg"] is None
    assert f"nDCG@5: {UNDEFINED}" in plain(control.metric_labels["ndcg"].value)
    assert "nan" not in control.formula_label.value.lower()


# --- lesson 03: the worksheet (example C) ---------------------------------------


def test_worksheet_control_opens_on_example_c():
    control = worksheet_control()
    assert [box.value for box in control.grade_inputs] == [2, 0, 3, 1, 0, 2]
    assert [box.value for box in control.missed_inputs] == [3]
    values = control.metric_values
    grades, ideal = [2, 0, 3, 1, 0, 2], [2, 0, 3, 1, 0, 2, 3]
    assert values["dcg"] == pytest.approx(metrics.dcg(grades, 5), abs=1e-12)
    assert values["ndcg"] == pytest.approx(metrics.ndcg(grades, 5, ideal=ideal), abs=1e-12)
    assert (values["dcg"], values["idcg"], values["ndcg"]) == (
        pytest.approx(3.931, abs=5e-4),
        pytest.approx(7.141, abs=5e-4),
        pytest.approx(0.550, abs=5e-4),
    )
    assert values["ndcg_returned_only"] == pytest.approx(0.690, abs=5e-4)
    assert "DCG@5 = 3.931" in plain(control.metric_labels["dcg"].value)
    assert "IDCG@5 = 7.141" in plain(control.metric_labels["idcg"].value)
    assert "NDCG@5 = 0.550" in plain(control.metric_labels["ndcg"].value)
    assert "0.690" in control.metric_labels["ndcg-returned"].value
    # the sheet is example C's layout: rows 2-7 results, 8 missed, 10-13 k and the three figures
    sheet = control.sheet
    assert sheet.value("A8") == "missed" and sheet.value("B10") == 5
    assert sheet.value("B11") == pytest.approx(values["dcg"])
    assert sheet.value("B13") == pytest.approx(values["ndcg"])
    assert [sheet.cell(f"C{row}").shown() for row in range(2, 8)] == [
        "2.000",
        "0.000",
        "1.500",
        "0.431",
        "0.000",
        "0.712",
    ]
    assert "3.931" in control.sheet_html.value and "7.141" in control.sheet_html.value


def test_worksheet_control_exponential_gain():
    control = worksheet_control()
    control.gain_toggle.value = "exponential"
    values = control.metric_values
    assert values["dcg"] == pytest.approx(6.931, abs=5e-4)
    assert values["idcg"] == pytest.approx(14.595, abs=5e-4)
    assert values["ndcg"] == pytest.approx(0.475, abs=5e-4)
    assert values["ndcg_returned_only"] == pytest.approx(0.640, abs=5e-4)


def test_worksheet_control_edits_and_k():
    control = worksheet_control()
    control.missed_inputs[0].value = 0  # nothing missed any more: both ideals agree
    assert control.metric_values["ndcg"] == pytest.approx(control.metric_values["ndcg_returned_only"])
    control.grade_inputs[1].value = 3
    control.k_slider.value = 2
    grades, ideal = [2, 3, 3, 1, 0, 2], [2, 3, 3, 1, 0, 2, 0]
    assert control.metric_values["ndcg"] == pytest.approx(metrics.ndcg(grades, 2, ideal=ideal), abs=1e-12)
    assert control.sheet.value("B10") == 2
    control.formulas_checkbox.value = True
    assert "=SUMPRODUCT" in control.sheet_html.value


def test_worksheet_control_all_zero_is_undefined():
    control = worksheet_control()
    for box in control.grade_inputs + control.missed_inputs:
        box.value = 0
    assert control.metric_values["ndcg"] is None
    assert f"NDCG@5: {UNDEFINED}" in plain(control.metric_labels["ndcg"].value)
    assert "undefined" in control.metric_labels["ndcg-returned"].value
    assert control.sheet.value("B13") == "undefined"


# --- what the four views share: layout, whole labels, readable colours ----------

CONTROLS = {"lab": metrics_lab, "mrr": mrr_control, "ndcg": ndcg_control, "worksheet": worksheet_control}


@pytest.mark.parametrize("name", CONTROLS)
def test_every_control_has_heading_numbers_and_inputs_in_that_order(name):
    control = CONTROLS[name]()
    heading, numbers, main = control.children[:3]
    assert "control-heading" in heading._dom_classes
    assert numbers is part(control, "control-numbers")
    assert main is part(control, "control-main")
    assert part(control, "control-inputs") in main.children
    if name == "mrr":
        assert numbers.children == (control.summary_html,)
        assert all(picker in widgets_in(main) for picker in control.rank_pickers.values())
    else:
        headline = [label for key, label in control.metric_labels.items() if key != "ndcg-returned"]
        assert list(numbers.children[: len(headline)]) == headline
    if name in ("lab", "ndcg"):
        assert part(control, "control-readout").children == (control.plot.box,)
    if name == "lab":
        inputs = widgets_in(part(control, "control-inputs"))
        for widget in [*control.grade_buttons, control.k_slider, control.gain_toggle, control.threshold_toggle]:
            assert widget in inputs


@pytest.mark.parametrize("name", CONTROLS)
def test_no_control_label_has_a_fixed_width_that_could_clip_it(name):
    """Every description is as wide as its text (style description_width 'initial'), check boxes unindented."""
    control = CONTROLS[name]()
    described = [widget for widget in widgets_in(control) if getattr(widget, "description", "")]
    assert described
    for widget in described:
        if hasattr(widget, "indent"):  # a check box: its label sits beside the box, unindented
            assert widget.indent is False, widget.description
        elif hasattr(widget.style, "description_width"):
            assert widget.style.description_width == "initial", widget.description


def contrast(first: str, second: str) -> float:
    """The WCAG contrast ratio of two #rrggbb colours."""

    def luminance(colour: str) -> float:
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_grade_colours_and_greyed_rows_meet_wcag_aa():
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    for background, foreground in GRADE_COLOURS:
        assert contrast(foreground, background) >= 4.5
    assert contrast(GREYED_FALLBACK, "#ffffff") >= 4.5
    for background, foreground in (RELEVANT_MARK, MISSED_MARK):
        assert contrast(foreground, background) >= 4.5
    lab = metrics_lab()
    lab.set_grades([0, 1, 2, 0, 1, 2])
    for button, grade in zip(lab.grade_buttons, [0, 1, 2, 0, 1, 2], strict=True):
        assert (button.style.button_color, button.style.text_color) == GRADE_COLOURS[grade]
        assert button.tooltip.startswith("grade of r")
    lab.k_slider.value = 2
    assert f"color:{GREYED}" in lab.row_labels[2].value and f"color:{GREYED}" not in lab.row_labels[1].value


STYLE_ATTRIBUTE = re.compile(r"""style=(["'])(.*?)\1""", re.S)
CSS_RULE = re.compile(r"\{([^{}]*)\}")
TEXT_COLOUR = re.compile(r"(?<![-\w])color\s*:\s*([^;]+)")


def html_values(widget) -> list[str]:
    """The HTML of every HTML widget inside a widget, depth first."""
    own = [widget.value] if hasattr(widget, "value") and isinstance(widget.value, str) else []
    return own + [value for child in getattr(widget, "children", ()) for value in html_values(child)]


def test_every_lab_element_with_a_background_sets_its_text_colour():
    """Dark themes turn the inherited text white: a light background of its own needs its own dark text."""
    lab = metrics_lab("C")
    lab.k_slider.value = 2
    pages = html_values(lab)
    relevant_mark = "✓<span class='mark-words'> relevant"
    assert lab.missed_ids and any(relevant_mark in page for page in pages) and any(GREYED in page for page in pages)
    declarations = [m.group(2) for page in pages for m in STYLE_ATTRIBUTE.finditer(page)]
    rules = [m.group(1) for page in pages for m in CSS_RULE.finditer(page)]
    with_background = [css for css in declarations + rules if "background" in css]
    assert len(with_background) >= 3
    assert [css for css in with_background if not TEXT_COLOUR.search(css)] == []
    # text on the page's own background takes the theme's colour (or inherits it)
    on_page = [TEXT_COLOUR.search(css) for css in declarations if "background" not in css]
    colours = {found.group(1).strip() for found in on_page if found}
    assert GREYED in colours
    assert {colour for colour in colours if colour != "inherit" and not colour.startswith("var(--jp-")} == set()


def test_no_control_leaves_a_figure_behind():
    figures = len(plt.get_fignums())
    for build in (metrics_lab, mrr_control, ndcg_control, worksheet_control):
        build()
    lab = metrics_lab()
    for button, _ in itertools.product(lab.grade_buttons, range(2)):
        button.click()
    assert len(plt.get_fignums()) == figures


# --- the notebook ---------------------------------------------------------------


@pytest.mark.notebook
def test_notebook_05_runs_and_shows_the_lab_numbers():
    from tests.notebook_runner import printed_text, shared_run

    names = [
        "e_ids",
        "e_grades",
        "e_recall_at_3",
        "e_mrr",
        "e_mrr_at_3",
        "e_first_relevant_rank",
        "e_dcg_at_3_exp",
        "e_idcg_at_3_exp",
        "e_ndcg_at_3_exp",
        "e_metrics_by_k",
        "e_ndcg_at_3_linear",
        "e_recall_at_3_threshold_2",
        "e_mrr_threshold_2",
        "lab_opening",
        "e_all_zero_lab_text",
        "e_ndcg_at_3_forgot_minus_one",
    ]
    notebook, values, _ = shared_run("05", variables=names)
    ids, _, grades = example_e()
    data = load_example("E")
    judged = list(data.judgments_for("e1").values())
    relevant, strict = data.relevant_for("e1"), data.relevant_for("e1", threshold=2)
    assert values["e_ids"] == ids and values["e_grades"] == grades
    assert values["e_recall_at_3"] == pytest.approx(metrics.recall_at_k(ids, relevant, 3), abs=1e-12)
    assert values["e_first_relevant_rank"] == metrics.first_relevant_rank(ids, relevant)
    assert values["e_mrr"] == pytest.approx(metrics.reciprocal_rank(ids, relevant), abs=1e-12)
    assert values["e_mrr_at_3"] == pytest.approx(metrics.reciprocal_rank(ids, relevant, 3), abs=1e-12)
    assert values["e_dcg_at_3_exp"] == pytest.approx(metrics.dcg(grades, 3, "exponential"), abs=1e-12)
    assert values["e_idcg_at_3_exp"] == pytest.approx(metrics.ideal_dcg(judged, 3, "exponential"), abs=1e-12)
    ndcg3 = metrics.ndcg(grades, 3, ideal=judged, gain="exponential")
    assert values["e_ndcg_at_3_exp"] == pytest.approx(ndcg3, abs=1e-12)
    assert values["e_ndcg_at_3_linear"] == pytest.approx(metrics.ndcg(grades, 3, ideal=judged), abs=1e-12)
    assert values["e_recall_at_3_threshold_2"] == pytest.approx(metrics.recall_at_k(ids, strict, 3))
    assert values["e_mrr_threshold_2"] == pytest.approx(metrics.reciprocal_rank(ids, strict))
    by_k = values["e_metrics_by_k"]
    for k in range(1, 7):
        assert by_k["Recall@K"][k - 1] == pytest.approx(metrics.recall_at_k(ids, relevant, k))
        assert by_k["MRR@K"][k - 1] == pytest.approx(metrics.reciprocal_rank(ids, relevant, k))
        assert by_k["nDCG@K (exponential)"][k - 1] == pytest.approx(
            metrics.ndcg(grades, k, ideal=judged, gain="exponential")
        )
    step5 = next(cell for cell in notebook.cells if "table(by_k" in cell.source)
    shown_html = "".join(output["data"].get("text/html", "") for output in step5.outputs if "data" in output)
    for value in by_k["MRR@K"]:  # every column with its 4 decimals, a metric that stays 1 included
        assert f">{value:.4f}</td>" in shown_html
    opening = values["lab_opening"]
    assert opening["ndcg"] == pytest.approx(ndcg3, abs=1e-12) and opening["k"] == 3
    assert UNDEFINED in values["e_all_zero_lab_text"]
    assert values["e_ndcg_at_3_forgot_minus_one"] > values["e_ndcg_at_3_exp"]
    text = printed_text(notebook)
    assert f"Recall@3 = 2 / 4 = {values['e_recall_at_3']:.4f}" in text
    assert f"nDCG@3 = {values['e_dcg_at_3_exp']:.4f} / {values['e_idcg_at_3_exp']:.4f} = {ndcg3:.4f}" in text
    assert (
        f"Recall@3 = {values['e_recall_at_3']:.4f}   MRR = {values['e_mrr']:.4f}   "
        f"MRR@3 = {values['e_mrr_at_3']:.4f}   nDCG@3 = {ndcg3:.4f}"
    ) in text
    assert "The lab's opening numbers agree with Steps 2-4." in text
    assert "✓" not in text and "Not answered yet" in text  # the exercises are left to the learner
    widget_outputs = [
        output["data"]["text/plain"]
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in output.get("data", {})
    ]
    # the lab, displayed once, and the classroom's predict-then-reveal control
    assert [text.split("(", 1)[0] for text in widget_outputs] == ["MetricsLab", "PredictThenReveal"]
