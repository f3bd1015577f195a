"""A practice variant (so lesson 05's predict-then-reveal, which deals them) never deals an exercise's own answer."""

from __future__ import annotations

import pytest

from helpers.exercises import REGISTRY
from helpers.exercises.fresh import VARIANTS, draw


def at(exercise_id: str, value: float) -> str:
    return f"{value:.{REGISTRY[exercise_id].decimals}f}"


@pytest.mark.parametrize("exercise_id", ["lab-ndcg5-linear", "lab-swap-ndcg3"])
def test_the_lab_questions_never_deal_their_own_answer(exercise_id):
    own = at(exercise_id, REGISTRY[exercise_id].worked().value)
    assert [seed for seed in (34, *range(60)) if at(exercise_id, draw(exercise_id, seed).worked.value) == own] == []


@pytest.mark.slow
@pytest.mark.parametrize("exercise_id", sorted(VARIANTS))
def test_no_variant_deals_its_exercises_own_answer(exercise_id):
    own = at(exercise_id, REGISTRY[exercise_id].worked().value)
    assert [seed for seed in range(400) if at(exercise_id, draw(exercise_id, seed).worked.value) == own] == []


LESSONS_08_09 = ["torchmetrics-ap5", "tie-rr-trec", "tie-rr-ir-measures", "sklearn-d11-removed", "golden-new-map",
                 "paired-mean-difference", "paired-sign-flip-p", "paired-cohens-d"]


@pytest.mark.parametrize("exercise_id", LESSONS_08_09)
def test_lessons_08_and_09_variants_never_deal_their_own_answer(exercise_id):
    """A few seeds in the quick tier (every exercise of lessons 08-09 has variants); 400 under slow, above."""
    own = at(exercise_id, REGISTRY[exercise_id].worked().value)
    assert [seed for seed in range(10) if at(exercise_id, draw(exercise_id, seed).worked.value) == own] == []
