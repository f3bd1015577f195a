"""practice(): the same skill on new numbers, well made for every seed (lessons 01-07)."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from helpers.exercises import REGISTRY, list_exercises, practice
from helpers.exercises.answers import correctly_rounded
from helpers.exercises.fresh import VARIANTS, draw
from helpers.exercises.lessons.variants import collisions

SEEDS = range(1000)  # the slow tier deals every one of them; the quick tier one in four


def test_two_exercises_of_every_lesson_01_to_07_have_variants_and_the_list_says_so():
    listed = list_exercises()
    per_lesson = listed[listed.variants].groupby("lesson").size().to_dict()
    assert all(per_lesson.get(f"0{n}", 0) >= 2 for n in range(1, 8)), per_lesson
    assert set(listed[listed.variants].id) == set(VARIANTS)


@pytest.mark.parametrize("exercise_id", sorted(VARIANTS))
def test_every_seed_deals_a_well_made_variant(exercise_id):
    well_made_variants(exercise_id, SEEDS[::4])


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
        assert collisions(worked.value, worked.slips, decimals) == [], (exercise_id, seed)
        answers[f"{worked.value:.{decimals}f}"] += 1
    n = len(seeds)
    same = sum(count * (count - 1) for count in answers.values()) / (n * (n - 1))
    assert same <= 0.05, f"{exercise_id}: {same:.1%} of seed pairs give the same answer"


@pytest.mark.parametrize("exercise_id", sorted(VARIANTS))
def test_on_any_variant_the_right_answer_is_right_and_each_slip_is_named(exercise_id):
    decimals = REGISTRY[exercise_id].decimals
    for seed in range(0, 1000, 50):
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
    assert first.hint(1).lines == (REGISTRY["sheet-ndcg3"].hints[0],)
    assert "rank" in first.variant.data.columns and "grade" in first.variant.data.columns
    assert "Practice sheet-ndcg3, variant 42" in first._repr_html_()


@pytest.mark.parametrize(("exercise_id", "seed", "error"), [
    ("mrr-function", 1, "asks for a function"),
    ("golden-new-map", 1, "has no variants"),
    ("sheet-ndcg3", -1, "seed must be a whole number"),
    ("sheet-ndcg3", True, "seed must be a whole number"),
])
def test_bad_requests_are_refused_clearly(exercise_id, seed, error):
    with pytest.raises(ValueError, match=error):
        practice(exercise_id, seed=seed)
