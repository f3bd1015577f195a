"""Properties every ranking metric must have, checked on random cases with hypothesis."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import metrics

grades_lists = st.lists(st.integers(min_value=0, max_value=3), min_size=1, max_size=12)
cutoffs = st.one_of(st.none(), st.integers(min_value=1, max_value=15))
gains = st.sampled_from(metrics.GAINS)


@st.composite
def ranked_and_relevant(draw):
    """A ranking of distinct ids and a relevant set that may include ids never returned."""
    size = draw(st.integers(min_value=0, max_value=12))
    ranked = [f"d{number}" for number in draw(st.permutations(range(size)))]
    relevant = draw(st.sets(st.sampled_from([f"d{n}" for n in range(15)]), max_size=8))
    return ranked, relevant


@settings(max_examples=200, deadline=None)
@given(grades_lists, cutoffs, gains, st.lists(st.integers(0, 3), max_size=5))
def test_ndcg_lies_between_0_and_1(grades, k, gain, unreturned):
    ideal = grades + unreturned
    if metrics.ideal_dcg(ideal, k, gain) == 0:
        return
    assert 0.0 <= metrics.ndcg(grades, k, ideal, gain) <= 1.0 + 1e-12


@settings(max_examples=200, deadline=None)
@given(grades_lists, cutoffs, gains)
def test_the_ideal_ordering_scores_one(grades, k, gain):
    best = sorted(grades, reverse=True)
    if metrics.dcg(best, k, gain) == 0:
        return
    assert metrics.ndcg(best, k, gain=gain) == 1.0


@settings(max_examples=200, deadline=None)
@given(ranked_and_relevant(), cutoffs)
def test_reciprocal_rank_is_0_or_one_over_a_whole_number(case, k):
    ranked, relevant = case
    value = metrics.reciprocal_rank(ranked, relevant, k)
    assert value == 0 or math.isclose(1 / value, round(1 / value))


@settings(max_examples=200, deadline=None)
@given(ranked_and_relevant(), st.randoms(use_true_random=False))
def test_permuting_non_relevant_documents_below_the_last_relevant_one_changes_nothing(case, rng):
    ranked, relevant = case
    positions = [index for index, doc in enumerate(ranked) if doc in relevant]
    last = positions[-1] + 1 if positions else 0
    tail = ranked[last:]
    rng.shuffle(tail)
    shuffled = ranked[:last] + tail
    judgments = {doc: 1 for doc in relevant}
    assert metrics.reciprocal_rank(shuffled, relevant) == metrics.reciprocal_rank(ranked, relevant)
    grades, shuffled_grades = (metrics.grades_in_rank_order(r, judgments) for r in (ranked, shuffled))
    assert metrics.dcg(shuffled_grades) == metrics.dcg(grades)
    if relevant:
        assert metrics.average_precision(shuffled, relevant) == metrics.average_precision(ranked, relevant)


@settings(max_examples=100, deadline=None)
@given(st.lists(ranked_and_relevant(), min_size=1, max_size=6), cutoffs)
def test_mrr_of_first_ranks_equals_mean_of_reciprocal_ranks(cases, k):
    ranks = [metrics.first_relevant_rank(ranked, relevant, k) for ranked, relevant in cases]
    reciprocal = [metrics.reciprocal_rank(ranked, relevant, k) for ranked, relevant in cases]
    assert math.isclose(metrics.mean_reciprocal_rank(ranks), sum(reciprocal) / len(reciprocal))
    assert math.isclose(metrics.mean_reciprocal_rank(ranks, k), sum(reciprocal) / len(reciprocal))


@settings(max_examples=200, deadline=None)
@given(ranked_and_relevant(), st.integers(min_value=1, max_value=15))
def test_binary_metrics_stay_in_range_and_agree_with_each_other(case, k):
    ranked, relevant = case
    hit = metrics.hit_at_k(ranked, relevant, k)
    assert hit == (1.0 if metrics.first_relevant_rank(ranked, relevant, k) else 0.0)
    assert 0 <= metrics.precision_at_k(ranked, relevant, k) <= 1
    if relevant:
        recall = metrics.recall_at_k(ranked, relevant, k)
        capped = metrics.recall_at_k(ranked, relevant, k, denominator="min_k_R")
        assert 0 <= recall <= capped <= 1
        assert (recall > 0) == (hit == 1.0)
        assert 0 <= metrics.average_precision(ranked, relevant, k) <= 1


@settings(max_examples=200, deadline=None)
@given(grades_lists, cutoffs, gains, st.lists(st.integers(0, 3), max_size=4))
def test_arithmetic_table_adds_up_to_dcg_and_idcg(grades, k, gain, unreturned):
    ideal = grades + unreturned
    table = metrics.arithmetic_table(grades, k, ideal, gain)
    assert math.isclose(table["dcg_running"].iloc[-1], metrics.dcg(grades, k, gain), abs_tol=1e-12)
    assert math.isclose(table["idcg_running"].iloc[-1], metrics.ideal_dcg(ideal, k, gain), abs_tol=1e-12)
    assert table["rank"].tolist() == list(range(1, len(table) + 1))
