"""practice(): the same skill on new numbers, well made for every seed (lessons 01-09)."""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

import pytest

from helpers.exercises import REGISTRY, exercises_of, list_exercises, practice
from helpers.exercises.answers import correctly_rounded
from helpers.exercises.checking import distinct_slips
from helpers.exercises.fresh import VARIANTS, draw
from helpers.exercises.lessons.variants import collisions
from tests.tiers import tiered

SEEDS = range(1000)  # the slow tier deals every one of them; the quick tier one in twenty


def test_two_exercises_of_every_lesson_01_to_07_have_variants_and_the_list_says_so():
    listed = list_exercises()
    per_lesson = listed[listed.variants].groupby("lesson").size().to_dict()
    assert all(per_lesson.get(f"0{n}", 0) >= 2 for n in range(1, 8)), per_lesson
    assert set(listed[listed.variants].id) == set(VARIANTS)


def test_every_answer_exercise_of_lessons_08_and_09_has_variants():
    wanted = [exercise.id for lesson in ("08", "09") for exercise in exercises_of(lesson) if exercise.kind == "answer"]
    assert wanted and [exercise_id for exercise_id in wanted if exercise_id not in VARIANTS] == []


@pytest.mark.parametrize("exercise_id", sorted(VARIANTS))
def test_fifty_seeds_spread_over_the_thousand_deal_well_made_variants(exercise_id):
    well_made_variants(exercise_id, SEEDS[::20])


@pytest.mark.slow
@pytest.mark.parametrize("exercise_id", sorted(VARIANTS))
def test_every_one_of_the_first_thousand_seeds_deals_a_well_made_variant(exercise_id):
    well_made_variants(exercise_id, SEEDS)


def well_made_variants(exercise_id: str, seeds: range) -> None:
    """Each seed's variant has a finite answer and no slip that collides; few seed pairs share an answer."""
    decimals = REGISTRY[exercise_id].decimals
    answers: Counter[str] = Counter()
    for seed in seeds:
        worked = draw(exercise_id, seed).worked
        assert math.isfinite(worked.value), (exercise_id, seed)
        assert collisions(worked.value, worked.slips, decimals, REGISTRY[exercise_id].min_decimals) == [], seed
        assert worked.value not in (0.0, 1.0), (exercise_id, seed)  # something to compute
        answers[f"{worked.value:.{decimals}f}"] += 1
    n = len(seeds)
    same = sum(count * (count - 1) for count in answers.values()) / (n * (n - 1))
    assert same <= 0.05, f"{exercise_id}: {same:.1%} of seed pairs give the same answer"


@pytest.mark.parametrize("seeds", tiered(range(0, 1000, 50)))
@pytest.mark.parametrize("exercise_id", sorted(VARIANTS))
def test_on_any_variant_the_right_answer_is_right_and_each_slip_is_named(exercise_id, seeds):
    decimals = REGISTRY[exercise_id].decimals
    for seed in seeds:
        run = practice(exercise_id, seed=seed)
        worked = run.variant.worked
        text = f"{worked.value:.{decimals}f}"
        assert run.check(text).correct
        right = correctly_rounded(worked.value, decimals)
        for codes, value in worked.slips:
            if not math.isfinite(value) or correctly_rounded(value, decimals) & right:
                continue
            given = f"{value:.{decimals}f}"
            result = run.check(given)
            # a combination is named by its part when the part alone gives the same number
            assert not result.correct and set(codes) & set(result.slips), (seed, codes, result.message)
            # never the expected value (the answer given, -0.0109 for 0.0109 with the sign flipped, may be echoed)
            assert text not in result.message.replace(given, ""), "never the expected value"


@pytest.mark.parametrize("exercise_id", ["lab-swap-ndcg3", "lab-ndcg5-linear"])
def test_lesson_05_variants_ask_the_lessons_own_question_with_its_slips(exercise_id):
    """The lesson's kind of value (its topic, its gains and cut-off), and every slip it names but the lab's states."""
    lesson = REGISTRY[exercise_id].worked()
    wanted = {codes for codes, _ in lesson.slips} - {("lab-earlier-state",)}
    for seed in range(0, 1000, 37):
        variant = draw(exercise_id, seed)
        worked = variant.worked
        assert worked.topic == lesson.topic, (seed, worked.topic)
        assert wanted <= {codes for codes, _ in worked.slips}, (seed, wanted - {codes for codes, _ in worked.slips})
        if exercise_id == "lab-swap-ndcg3":  # nDCG@3, exponential, after the list shown is changed
            assert (worked.inputs["k"], worked.inputs["gain"]) == (3, "exponential")
            assert 3 in worked.inputs["grades"] and 3 not in list(variant.data["grade"]), seed
        else:  # linear minus exponential nDCG@K of the same list
            (_, first), (_, second) = worked.inputs["first"], worked.inputs["second"]
            assert (first["gain"], second["gain"]) == ("linear", "exponential") and first["k"] == second["k"]
            assert first["grades"] == second["grades"] == list(variant.data["grade"])
            assert worked.steps[-1].startswith(f"nDCG@{first['k']} gap = linear - exponential")


def test_the_same_seed_deals_the_same_variant_and_help_shows_its_numbers():
    first, again = practice("sheet-ndcg3", seed=42), practice("sheet-ndcg3", seed=42)
    assert first.variant == again.variant and first.seed == 42
    assert practice("sheet-ndcg3").seed >= 0
    value = f"{first.variant.worked.value:.3f}"
    assert f"answer: {value}" in first.solution().lines and first.reveal().text == value
    assert first.hint(1).lines == (first.variant.hints[0],) != (REGISTRY["sheet-ndcg3"].hints[0],)
    assert "rank" in first.variant.data.columns and "grade" in first.variant.data.columns
    html = first._repr_html_()
    assert "Practice sheet-ndcg3, variant 42" in html and first.variant.question.endswith("Give 3 decimals.")
    assert "<th class=\"blank" not in html and "row_heading" not in html, "no pandas index beside the rank column"


def test_hint_steps_through_the_variants_own_hints_then_says_there_are_no_more():
    run = practice("new-mrr-d8-first", seed=89971)
    shown = [run.hint() for _ in range(len(run.variant.hints) + 1)]
    assert [s.lines[0] for s in shown[:-1]] == list(run.variant.hints)
    assert shown[0].title.startswith("Hint 1 of 2") and shown[1].title.startswith("Hint 2 of 2")
    assert shown[-1].title.startswith("No more hints") and ".solution()" in shown[-1].lines[0]
    assert ".hint() gives a nudge" in run.check("9.999").message  # never the lesson's hint("id")
    assert run.hint(1).lines == (run.variant.hints[0],)
    with pytest.raises(ValueError, match="hint number must be 1 to 2"):
        run.hint(3)


@pytest.mark.parametrize(("exercise_id", "said"), [
    ("mrr-function", "asks for a function"),
    ("helpdesk-map3", "has no variants"),
])
def test_practice_on_an_exercise_without_variants_is_one_line_naming_those_with(exercise_id, said):
    note = practice(exercise_id)
    assert said in note.title and note.lines == () and "\n" not in repr(note)
    assert all(other in repr(note) for other in VARIANTS)


@pytest.mark.parametrize("seed", [-1, True, 1.5])
def test_a_bad_seed_is_refused_clearly(seed):
    with pytest.raises(ValueError, match="seed must be a whole number"):
        practice("sheet-ndcg3", seed=seed)


# --- every word a variant shows is about its own numbers ------------------------------------------------------

ID = re.compile(r"\b(?:q|d|x|r|kb|D|c-0?)\d+\b")
CUTOFF = re.compile(r"(?:@|\btop |\bstop at rank |\bpast rank |\bbelow rank |\babove |\bk = )(\d+)")
FOREIGN = ("(s)", "lesson", "worksheet's yellow", "kb21", "press reset", "hint('")


def cutoff_of(worked) -> int | None:
    """The k a variant asks about, from its worked problem (a difference: its sides share it)."""
    inputs = worked.inputs
    if "first" in inputs:
        inputs = inputs["first"][1]
    return inputs.get("k")


def ids_in(*texts: str) -> set[str]:
    return {found for text in texts for found in ID.findall(text)}


@pytest.mark.parametrize("seeds", tiered(range(40)))
@pytest.mark.parametrize("exercise_id", sorted(VARIANTS))
def test_forty_variants_hints_solutions_and_slip_messages_speak_of_their_own_ids_k_and_numbers(exercise_id, seeds):
    found = REGISTRY[exercise_id]
    for seed in seeds:
        run = practice(exercise_id, seed=seed)
        variant = run.variant
        table = variant.data.to_string(index=False)
        hints, steps = list(variant.hints), list(run.solution().lines)
        assert len(hints) >= 2 and hints != list(found.hints), (seed, "the variant's own hints")
        k = cutoff_of(variant.worked)
        for text in hints:  # the ids a hint names are those the question names (q3 moved, not the lesson's q1)
            assert ids_in(text) <= ids_in(variant.question), (seed, text)
        for text in steps:
            assert ids_in(text) <= ids_in(variant.question, table), (seed, text)
        for text in [*hints, *steps, variant.question]:
            cuts = {int(n) for n in CUTOFF.findall(text)}
            assert k is None or cuts <= {k, k + 1}, (seed, k, text)  # "stop at rank 3" in an NDCG@4 variant: no
            assert not any(word in text for word in FOREIGN), (seed, text)
        # the numbers a hint quotes are the variant's: each whole number is in its question or table, or is a
        # rank, a discount's 1, 2 or k + 1, or a count of its rows
        own = {int(n) for n in re.findall(r"\d+", f"{variant.question} {table}")}
        rows = len(variant.data)
        allowed = own | set(range(0, rows + 2)) | ({k + 1} if k else set()) | {2**g - 1 for g in own if g < 10}
        for text in hints:
            numbers = {int(n) for n in re.findall(r"(?<![\d.])\d+(?![\d.])", text)}
            assert numbers <= allowed | _discount_digits(text), (seed, numbers - allowed, text)
        # a named slip's words (title and fix) carry no other example's ids or cut-offs either
        for codes, value in distinct_slips(found, variant.worked):
            if not math.isfinite(value):
                continue
            message = run.check(f"{value:.{found.decimals}f}").message
            assert ids_in(message) <= ids_in(variant.question, table), (seed, codes, message)
            assert not any(word in message for word in FOREIGN), (seed, codes, message)


def _discount_digits(text: str) -> set[int]:
    """The digits of the written discounts (1.585, 2.322): parts of a number, not numbers of their own."""
    return {int(n) for n in re.findall(r"\d+", " ".join(re.findall(r"\d+\.\d+", text)))}


@pytest.mark.parametrize("seeds", tiered(range(40)))
@pytest.mark.parametrize("exercise_id", sorted(VARIANTS))
def test_no_variant_is_degenerate(exercise_id, seeds):
    """An answer of 0 or 1 has nothing to compute; a slip that changes the number must not give the answer."""
    found = REGISTRY[exercise_id]
    fewest = found.min_decimals if found.min_decimals is not None else found.decimals
    for seed in seeds:
        worked = draw(exercise_id, seed).worked
        assert worked.value not in (0.0, 1.0), (seed, worked.value)
        for codes, value in worked.slips:
            if not math.isfinite(value) or "rounded-early" in codes or abs(value - worked.value) < 1e-9:
                continue
            for places in range(fewest, found.decimals + 1):
                assert f"{value:.{places}f}" != f"{worked.value:.{places}f}" or not correctly_rounded(
                    value, places) & correctly_rounded(worked.value, places), (seed, codes, value, worked.value)


@pytest.mark.parametrize("lesson", [f"0{n}" for n in range(1, 8)])
def test_each_lessons_exercise_section_ends_with_a_line_on_practice_for_its_exercises_with_variants(lesson):
    import nbformat

    path = next(Path(__file__).resolve().parent.parent.glob(f"notebooks/{lesson}_*.ipynb"))
    cells = nbformat.read(path, as_version=4).cells
    start = next(i for i, cell in enumerate(cells) if "## Try it yourself" in cell.source)
    end = start
    while end + 1 < len(cells) and "exercise" in cells[end + 1].metadata.get("tags", []):
        end += 1
    # the section closes with the practice line, then the cell that shows this lesson's progress
    last = cells[end - 1]
    assert last.cell_type == "markdown" and "from helpers.exercises import practice" in last.source
    assert cells[end].cell_type == "code" and f'progress(lesson="{lesson}")' in cells[end].source
    wanted = {exercise.id for exercise in exercises_of(lesson) if exercise.id in VARIANTS}
    assert wanted and wanted == set(re.findall(r'practice\("([a-z0-9-]+)"\)', last.source)), last.source
