"""Every figure of the worked examples, computed from data/ through helpers."""

import pytest

from helpers import load_example, metrics


def approx(value, decimals):
    """Equal to the printed figure at its number of decimals."""
    return pytest.approx(value, abs=0.5 * 10**-decimals + 1e-12)


# --- A. hit rate and MRR ----------------------------------------------------


def first_ranks(example, system, k=None, rankings=None):
    rankings = rankings or example.rankings(system)
    return [
        metrics.first_relevant_rank(rankings[query], example.relevant_for(query), k)
        for query in example.query_ids
    ]


@pytest.fixture(scope="module")
def example_a():
    return load_example("A")


@pytest.mark.parametrize(
    "system, ranks, reciprocal, mrr",
    [
        ("OLD", [1, 2, 1, 4, 1], [1.000, 0.500, 1.000, 0.250, 1.000], 0.750),
        ("NEW", [2, 3, 2, 4, 2], [0.500, 0.333, 0.500, 0.250, 0.500], 0.417),
    ],
)
def test_example_a_first_ranks_reciprocal_ranks_and_mrr(example_a, system, ranks, reciprocal, mrr):
    found = first_ranks(example_a, system)
    assert found == ranks
    assert [metrics.reciprocal_rank_of(rank) for rank in found] == [approx(value, 3) for value in reciprocal]
    assert metrics.mean_reciprocal_rank(found) == approx(mrr, 3)
    assert metrics.mean_hit_rate(found, k=3) == approx(0.800, 3)


def test_example_a_hit_rate_from_rankings_equals_hit_rate_from_ranks(example_a):
    for system in example_a.systems:
        hits = [
            metrics.hit_at_k(example_a.ranking(system, query), example_a.relevant_for(query), 3)
            for query in example_a.query_ids
        ]
        assert sum(hits) / len(hits) == metrics.mean_hit_rate(first_ranks(example_a, system), 3)


def test_example_a_moving_d8_to_rank_1_in_new(example_a):
    rankings = example_a.rankings("NEW")
    assert "D8" in example_a.relevant_for("q1") and rankings["q1"].index("D8") == 1
    rankings["q1"] = ["D8"] + [doc for doc in rankings["q1"] if doc != "D8"]
    ranks = first_ranks(example_a, "NEW", rankings=rankings)
    assert metrics.mean_reciprocal_rank(ranks) == approx(0.517, 3)
    assert metrics.mean_hit_rate(ranks, 3) == approx(0.800, 3)


# --- B. nDCG with graded relevance ------------------------------------------


@pytest.fixture(scope="module")
def example_b():
    return load_example("B")


def b_grades(example, judgments=None, drop=()):
    judgments = judgments or example.judgments_for("b1")
    grades = {}
    for system in example.systems:
        ranking = [doc for doc in example.ranking(system, "b1") if doc not in drop]
        grades[system] = metrics.grades_in_rank_order(ranking, judgments)
    return grades


def test_example_b_gains_dcg_ideal_ndcg(example_b):
    judged = list(example_b.judgments_for("b1").values())
    expected = {
        "good": ([3, 2, 0, 0, 0], 4.2619, 1.0000),
        "swapped": ([2, 0, 3, 0, 0], 3.5000, 0.8212),
        "pushed_down": ([0, 0, 0, 2, 3], 2.0219, 0.4744),
    }
    for system, grades in b_grades(example_b).items():
        gains, dcg_value, ndcg_value = expected[system]
        assert grades == gains
        assert metrics.dcg(grades, 5) == approx(dcg_value, 4)
        assert metrics.ideal_dcg(judged, 5) == approx(4.2619, 4)
        assert metrics.ndcg(grades, 5, ideal=judged) == approx(ndcg_value, 4)


def test_example_b_discounts():
    assert [metrics.discount(rank) for rank in range(1, 6)] == [
        approx(value, 3) for value in (1, 1.585, 2, 2.322, 2.585)
    ]


def test_example_b_no_discount_makes_every_ndcg_one(example_b):
    judged = list(example_b.judgments_for("b1").values())
    for grades in b_grades(example_b).values():
        assert metrics.cumulative_gain(grades, 5) == approx(5.0, 4)
        assert metrics.cumulative_gain(sorted(judged, reverse=True), 5) == approx(5.0, 4)


def test_example_b_d4_grade_1(example_b):
    judgments = {**example_b.judgments_for("b1"), "D4": 1}
    expected = {"good": (3.6309, 1.0000), "swapped": (2.5000, 0.6885), "pushed_down": (1.5912, 0.4382)}
    for system, grades in b_grades(example_b, judgments).items():
        assert metrics.dcg(grades, 5) == approx(expected[system][0], 4)
        assert metrics.ideal_dcg(judgments.values(), 5) == approx(3.6309, 4)
        assert metrics.ndcg(grades, 5, ideal=judgments.values()) == approx(expected[system][1], 4)


def test_example_b_d11_removed(example_b):
    judgments = example_b.judgments_for("b1")
    grades = b_grades(example_b, drop={"D11"})["swapped"]
    assert grades[0] == 2 and sum(grades[1:]) == 0
    assert metrics.dcg(grades, 5) == approx(2.0, 4)
    assert metrics.ideal_dcg(judgments.values(), 5) == approx(4.2619, 4)
    assert metrics.ndcg(grades, 5, ideal=judgments.values()) == approx(0.4693, 4)
    assert metrics.ndcg(grades, 5) == 1.0, "the retrieved-only ideal hides the missing D11"


def test_example_b_exponential_gain(example_b):
    judged = list(example_b.judgments_for("b1").values())
    expected = {"good": 1.0000, "swapped": 0.7309, "pushed_down": 0.4498}
    for system, grades in b_grades(example_b).items():
        assert metrics.ndcg(grades, 5, judged, gain="exponential") == approx(expected[system], 4)


def test_example_b_practice_and_explain():
    assert metrics.mean_reciprocal_rank([1, 3, 0, 2]) == approx(0.458, 3)
    assert metrics.ndcg([1, 0, 2], k=3) == approx(0.7602, 4)
    assert metrics.dcg([1, 0, 2], k=3) == approx(2.0, 4)
    assert metrics.ideal_dcg([1, 0, 2], k=3) == approx(2.6309, 4)
    assert [metrics.reciprocal_rank_of(rank) for rank in (1, 2, 5)] == [1, 0.5, 0.2]
    assert metrics.mean_reciprocal_rank([1, 2, 5]) == approx(0.5667, 4)
    assert metrics.ndcg([0, 3], ideal=[3, 0]) == approx(0.6309, 4)


# --- C. the spreadsheet ------------------------------------------------------


@pytest.fixture(scope="module")
def example_c():
    return load_example("C")


def c_query(example):
    judgments = example.judgments_for("reset-password")
    grades = metrics.grades_in_rank_order(example.ranking("search", "reset-password"), judgments)
    return grades, list(judgments.values())


def test_example_c_rows(example_c):
    grades, judged = c_query(example_c)
    assert grades == [2, 0, 3, 1, 0, 2]
    missed = set(example_c.judgments_for("reset-password")) - set(
        example_c.ranking("search", "reset-password")
    )
    assert [example_c.judgments_for("reset-password")[doc] for doc in missed if doc] == [3]
    table = metrics.arithmetic_table(grades, k=5, ideal=judged)
    assert table["rank"].tolist() == [1, 2, 3, 4, 5, 6]
    assert table["discounted_gain"].tolist() == [approx(v, 3) for v in (2.000, 0, 1.500, 0.431, 0, 0.712)]
    assert table["ideal_grade"].tolist() == [3, 3, 2, 2, 1, 0]
    assert table["ideal_discounted_gain"].tolist() == [
        approx(v, 3) for v in (3.000, 1.893, 1.000, 0.861, 0.387, 0)
    ]
    assert table["dcg_running"].iloc[4] == approx(3.931, 3)
    assert table["idcg_running"].iloc[4] == approx(7.141, 3)
    assert table["in_top_k"].tolist() == [True] * 5 + [False]


def test_example_c_totals_linear_and_exponential(example_c):
    grades, judged = c_query(example_c)
    assert metrics.dcg(grades, 5) == approx(3.931, 3)
    assert metrics.ideal_dcg(judged, 5) == approx(7.141, 3)
    assert metrics.ndcg(grades, 5, judged) == approx(0.550, 3)
    assert metrics.ndcg(grades, 5) == approx(0.690, 3)
    assert metrics.dcg(grades, 5, "exponential") == approx(6.931, 3)
    assert metrics.ideal_dcg(judged, 5, "exponential") == approx(14.595, 3)
    assert metrics.ndcg(grades, 5, judged, "exponential") == approx(0.475, 3)
    assert metrics.ndcg(grades, 5, None, "exponential") == approx(0.640, 3)


def test_example_c_query_ndcg_names_the_ideal(example_c):
    ranking, judgments = (
        example_c.ranking("search", "reset-password"),
        example_c.judgments_for("reset-password"),
    )
    assert metrics.query_ndcg(ranking, judgments, 5) == approx(0.550, 3)
    assert metrics.query_ndcg(ranking, judgments, 5, ideal="returned") == approx(0.690, 3)


def test_example_c_helpdesk_mrr(example_c):
    ranks = first_ranks(example_c, "search")
    assert ranks == [1, 3, 2, 0, 1]
    assert [metrics.reciprocal_rank_of(rank) for rank in ranks] == [
        approx(v, 3) for v in (1, 0.333, 0.5, 0, 1)
    ]
    assert metrics.mean_reciprocal_rank(ranks) == approx(0.567, 3)
    assert metrics.mean_reciprocal_rank(ranks, k=2) == approx(0.500, 3)


# --- D. MRR@4 for a retrieval advisor --------------------------------------


@pytest.fixture(scope="module")
def example_d():
    return load_example("D")


def test_example_d_mrr_at_4_and_hit_at_4_over_answerable(example_d):
    answerable = [query for query in example_d.query_ids if example_d.relevant_for(query)]
    assert answerable == ["d1", "d2", "d3"]
    ranks = [
        metrics.first_relevant_rank(example_d.ranking("advisor", q), example_d.relevant_for(q), k=4)
        for q in answerable
    ]
    assert ranks == [1, 3, 0]
    assert metrics.mean_reciprocal_rank(ranks, k=4) == approx(0.444, 3)
    assert f"{metrics.mean_reciprocal_rank(ranks, k=4):.2f}" == "0.44"
    assert metrics.mean_hit_rate(ranks, k=4) == approx(0.667, 3)
    assert f"{metrics.mean_hit_rate(ranks, k=4):.2f}" == "0.67"
    assert metrics.mean_reciprocal_rank(ranks + [0], k=4) == approx(0.333, 3), "unanswerable kept"


def test_example_d_score_per_rank():
    scores = [metrics.reciprocal_rank_of(rank, k=4) for rank in (1, 2, 3, 4, 5, 0)]
    assert [f"{score:.2f}" for score in scores] == ["1.00", "0.50", "0.33", "0.25", "0.00", "0.00"]


def test_example_d_ties_are_ordered_by_chunk_id(example_d):
    from helpers.data import rank_by_score

    reranked = rank_by_score(example_d.runs, tie_break="id_ascending")
    stored = example_d.runs.sort_values(["system", "query_id", "rank"]).reset_index(drop=True)
    assert reranked["doc_id"].tolist() == stored["doc_id"].tolist()
    tied = example_d.runs[(example_d.runs["query_id"] == "d2") & example_d.runs["rank"].isin([2, 3])]
    assert tied["score"].nunique() == 1
    trec_order = rank_by_score(example_d.runs, tie_break="id_descending")
    d2 = trec_order[trec_order["query_id"] == "d2"].sort_values("rank")["doc_id"].tolist()
    assert metrics.first_relevant_rank(d2, example_d.relevant_for("d2"), k=4) == 2


# --- E. metrics lab defaults, F. the metric family --------------------------


def test_example_e_lab_defaults_use_exponential_gain_and_the_same_six_grades():
    example = load_example("E")
    judgments = example.judgments_for("e1")
    grades = metrics.grades_in_rank_order(example.ranking("lab", "e1"), judgments)
    assert len(grades) == 6 and set(grades) <= {0, 1, 2}
    by_hand = metrics.dcg(grades, 3, "exponential") / metrics.dcg(
        sorted(grades, reverse=True), 3, "exponential"
    )
    assert metrics.ndcg(grades, 3, gain="exponential") == pytest.approx(by_hand, abs=1e-12)


def test_example_f_reciprocal_ranks_and_ap_denominators(example_c):
    assert [metrics.reciprocal_rank_of(rank) for rank in (1, 2, 5)] == [1.0, 0.5, 0.2]
    ranking = example_c.ranking("search", "reset-password")
    relevant = example_c.relevant_for("reset-password")
    assert len(relevant) == 5
    assert metrics.average_precision(ranking, relevant) == approx(0.6167, 4)
    assert metrics.average_precision(ranking, relevant, k=5) == approx(0.4833, 4)
    assert metrics.average_precision(ranking, relevant, k=5, denominator="min_k_R") == approx(0.4833, 4)
    assert metrics.average_precision(ranking, relevant, k=2, denominator="min_k_R") == approx(0.5, 4)
    assert metrics.average_precision(ranking, relevant, k=2) == approx(0.2, 4)
    assert metrics.recall_at_k(ranking, relevant, 5) == approx(0.6, 4)
    assert metrics.recall_at_k(ranking, relevant, 2, denominator="min_k_R") == approx(0.5, 4)
    assert metrics.precision_at_k(ranking, relevant, 5) == approx(0.6, 4)
    assert metrics.cumulative_gain(c_query(example_c)[0], 5) == 6.0
