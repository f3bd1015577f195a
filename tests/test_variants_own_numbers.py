"""A practice variant (so lesson 05's predict-then-reveal, which deals them) never deals an exercise's own answer."""

from __future__ import annotations

import os
import shutil

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


def test_the_golden_sets_change_key_follows_an_edit_a_new_example_and_a_removed_file(tmp_path, monkeypatch):
    """The key under which an exercise's own answer is kept changes with any saved edit of data/ (issue 45's cut)."""
    from helpers import data as golden_sets
    from helpers.exercises.lessons._shared import golden_set_times

    for example in ("example_a", "example_b"):
        shutil.copytree(golden_sets.DATA_DIR / example, tmp_path / example)
    monkeypatch.setattr(golden_sets, "DATA_DIR", tmp_path)
    first = golden_set_times()
    assert len(first) == 8
    edited = tmp_path / "example_a" / "runs.csv"
    os.utime(edited, ns=(edited.stat().st_atime_ns, edited.stat().st_mtime_ns + 10**9))
    assert golden_set_times() != first and len(golden_set_times()) == 8
    shutil.copytree(tmp_path / "example_b", tmp_path / "example_c")
    os.utime(tmp_path, ns=(tmp_path.stat().st_atime_ns, tmp_path.stat().st_mtime_ns + 10**9))  # a coarse clock
    assert len(golden_set_times()) == 12
    (tmp_path / "example_c" / "queries.csv").unlink()
    assert len(golden_set_times()) == 11
