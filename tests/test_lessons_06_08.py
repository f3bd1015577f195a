"""Lessons 06-08 run top to bottom and show the worked-example figures they promise.

Each notebook is executed once from a temporary copy (tests/notebook_runner.py's shared run, which
tests/test_lesson_exercises.py reads too). Its figures are read back from its variables, compared with the worked
examples' numbers (written here) at the decimals it prints, and with the same figures computed here,
independently, from data/ through helpers.metrics.
"""

from __future__ import annotations

import json
from statistics import fmean

import pandas as pd
import pytest

from helpers import load_example, metrics, rank_by_score
from helpers.batch import evaluate
from helpers.batch.family import family_table
from tests.notebook_runner import notebook_path, printed_text, shared_run

pytestmark = pytest.mark.notebook  # every test here runs lesson notebooks in a kernel


def approx(value, decimals):
    """Equal to a printed figure at its number of decimals."""
    return pytest.approx(value, abs=0.5 * 10**-decimals + 1e-12)


def same(value):
    """Equal to an independently computed value, up to float rounding."""
    return pytest.approx(value, abs=1e-9)


def assert_figure(value, documented, decimals, computed):
    """A figure the notebook shows: the documented number at its decimals, and the helpers' value."""
    assert value == approx(documented, decimals)
    assert value == same(computed)


def execute(prefix, variables):
    notebook, values, _ = shared_run(prefix, variables)
    missing = [name for name in variables if name not in values]
    assert not missing, f"notebook {prefix} did not define {missing}"
    return {"notebook": notebook, "values": values, "text": printed_text(notebook)}


# --- independent figures from data/ ------------------------------------------


@pytest.fixture(scope="module")
def helpdesk():
    return load_example("C")


@pytest.fixture(scope="module")
def reset(helpdesk):
    ranked = helpdesk.ranking("search", "reset-password")
    judgments = helpdesk.judgments_for("reset-password")
    return {
        "ranked": ranked,
        "judgments": judgments,
        "grades": metrics.grades_in_rank_order(ranked, judgments),
        "judged": list(judgments.values()),
        "relevant": metrics.relevant_ids(judgments),
    }


@pytest.fixture(scope="module")
def helpdesk_first_ranks(helpdesk):
    return [
        metrics.first_relevant_rank(helpdesk.ranking("search", q), helpdesk.relevant_for(q))
        for q in helpdesk.query_ids
    ]


# --- the lesson shape, checked on the committed files -------------------------

SECTIONS = (
    "## Try it yourself",
    "## Break it on purpose",
    "## Myths vs facts",
    "## Remember",
    "## Done when",
)


@pytest.mark.parametrize("prefix", ["06", "07", "08"])
def test_lesson_shape(prefix):
    cells = json.loads(notebook_path(prefix).read_text(encoding="utf-8"))["cells"]
    sources = ["".join(cell["source"]) for cell in cells]
    assert sources[0].startswith(f"# {prefix} · ")
    setup = next(source for cell, source in zip(cells, sources, strict=True) if cell["cell_type"] == "code")
    assert "\n%matplotlib inline\n" in setup  # after the collection's check
    text = "\n".join(sources)
    assert "sys.path" not in text
    for section in SECTIONS:
        assert section in text, f"notebook {prefix} has no {section!r} section"
    for number, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            assert number > 0 and cells[number - 1]["cell_type"] == "markdown", (
                f"notebook {prefix}, cell {number}: a code cell must be introduced by a markdown cell"
            )


# --- 06 the metric family ----------------------------------------------------

VARIABLES_06 = [
    "reset_grades", "missed_ids", "R", "cg_at_5", "dcg5_linear", "dcg5_exponential",
    "idcg5_linear", "idcg5_exponential", "ndcg5_linear", "ndcg5_exponential", "precision_at_5",
    "recall_over_R_by_k", "recall_over_min_k_R_by_k", "recall_at_5_R", "ap_full", "ap_at_5_R",
    "ap_at_5_min_k_R", "ap_at_4_R", "ap_at_4_min_k_R", "map_full", "map_at_5_R", "map_at_5_min_k_R",
    "rr_for_ranks_1_2_5", "first_ranks_helpdesk", "hit_rate_by_k", "mrr_helpdesk", "mrr_at_2_helpdesk",
    "ranked", "judgments", "rr_reset", "rbp_reset", "rbp_residual_reset", "err_reset",
]  # fmt: skip


@pytest.fixture(scope="module")
def lesson06():
    return execute("06", VARIABLES_06)


def test_06_graded_metrics_of_reset_password(lesson06, reset):
    values = lesson06["values"]
    assert values["reset_grades"] == reset["grades"] == [2, 0, 3, 1, 0, 2]
    assert values["missed_ids"] == ["kb21"]
    assert values["cg_at_5"] == same(metrics.cumulative_gain(reset["grades"], 5))
    assert values["cg_at_5"] == 6
    expected = {
        "dcg5_linear": (3.931, metrics.dcg(reset["grades"], 5)),
        "idcg5_linear": (7.141, metrics.ideal_dcg(reset["judged"], 5)),
        "ndcg5_linear": (0.550, metrics.ndcg(reset["grades"], 5, reset["judged"])),
        "dcg5_exponential": (6.931, metrics.dcg(reset["grades"], 5, "exponential")),
        "idcg5_exponential": (14.595, metrics.ideal_dcg(reset["judged"], 5, "exponential")),
        "ndcg5_exponential": (0.475, metrics.ndcg(reset["grades"], 5, reset["judged"], "exponential")),
    }
    for name, (documented, computed) in expected.items():
        assert values[name] == approx(documented, 3), name
        assert values[name] == same(computed), name
    for shown in (
        "DCG@5 3.931",
        "IDCG@5 7.141",
        "nDCG@5 0.550",
        "DCG@5 6.931",
        "IDCG@5 14.595",
        "nDCG@5 0.475",
    ):
        assert shown in lesson06["text"]


def test_06_precision_recall_and_both_denominators(lesson06, reset):
    values, ranked, relevant = lesson06["values"], reset["ranked"], reset["relevant"]
    assert values["R"] == len(relevant) == 5
    assert values["precision_at_5"] == same(metrics.precision_at_k(ranked, relevant, 5)) == approx(0.6, 3)
    assert values["recall_over_R_by_k"] == [
        same(metrics.recall_at_k(ranked, relevant, k, "R")) for k in range(1, 7)
    ]
    assert values["recall_over_min_k_R_by_k"] == [
        same(metrics.recall_at_k(ranked, relevant, k, "min_k_R")) for k in range(1, 7)
    ]
    assert values["recall_at_5_R"] == approx(0.6, 4)
    # the two denominators are shown apart where they differ (K < R) and equal where K >= R
    assert values["recall_over_min_k_R_by_k"][0] == 1.0 != values["recall_over_R_by_k"][0]
    assert values["recall_over_min_k_R_by_k"][4] == values["recall_over_R_by_k"][4]


def test_06_average_precision_and_map(lesson06, reset, helpdesk):
    values, ranked, relevant = lesson06["values"], reset["ranked"], reset["relevant"]
    assert_figure(values["ap_full"], 0.6167, 4, metrics.average_precision(ranked, relevant))
    assert_figure(values["ap_at_5_R"], 0.4833, 4, metrics.average_precision(ranked, relevant, 5))
    assert values["ap_at_5_min_k_R"] == same(metrics.average_precision(ranked, relevant, 5, "min_k_R"))
    assert values["ap_at_4_R"] == same(metrics.average_precision(ranked, relevant, 4, "R"))
    assert values["ap_at_4_min_k_R"] == same(metrics.average_precision(ranked, relevant, 4, "min_k_R"))
    assert values["ap_at_4_min_k_R"] > values["ap_at_4_R"]
    for shown in ("0.6167", "0.4833"):
        assert shown in lesson06["text"]
    aps = {q: (helpdesk.ranking("search", q), helpdesk.relevant_for(q)) for q in helpdesk.query_ids}
    assert values["map_full"] == same(fmean(metrics.average_precision(r, rel) for r, rel in aps.values()))
    assert values["map_at_5_R"] == same(
        fmean(metrics.average_precision(r, rel, 5) for r, rel in aps.values())
    )
    assert values["map_at_5_min_k_R"] == same(
        fmean(metrics.average_precision(r, rel, 5, "min_k_R") for r, rel in aps.values())
    )


def test_06_hit_rate_and_mrr(lesson06, helpdesk_first_ranks):
    values = lesson06["values"]
    assert values["rr_for_ranks_1_2_5"] == [1.0, 0.5, 0.2]
    assert "RR = 1/5 = 0.2" in lesson06["text"]
    assert values["first_ranks_helpdesk"] == helpdesk_first_ranks == [1, 3, 2, 0, 1]
    assert values["hit_rate_by_k"] == [
        same(metrics.mean_hit_rate(helpdesk_first_ranks, k)) for k in range(1, 6)
    ]
    assert_figure(values["mrr_helpdesk"], 0.567, 3, metrics.mean_reciprocal_rank(helpdesk_first_ranks))
    assert values["mrr_at_2_helpdesk"] == approx(0.500, 3)
    assert values["mrr_at_2_helpdesk"] == same(metrics.mean_reciprocal_rank(helpdesk_first_ranks, k=2))
    assert "MRR 0.567   MRR@2 0.500" in lesson06["text"]


def test_06_rbp_and_err_are_evaluate_s(lesson06, reset):
    """Step 9: RR, RBP, its residual and ERR of reset-password are what evaluate's engine gives for that list."""
    values, ranked = lesson06["values"], reset["ranked"]
    assert values["ranked"] == ranked and values["judgments"] == reset["judgments"]
    qrels = pd.DataFrame([("q", doc, grade) for doc, grade in reset["judgments"].items()],
                         columns=["qid", "docno", "grade"])
    run = pd.DataFrame([("q", doc, float(len(ranked) - rank)) for rank, doc in enumerate(ranked)],
                       columns=["qid", "docno", "score"])
    engine = evaluate(qrels, run, ["RR", "RBP", "RBP_resid", "ERR"]).means
    for name, variable in {"RR": "rr_reset", "RBP": "rbp_reset", "RBP_resid": "rbp_residual_reset",
                           "ERR": "err_reset"}.items():
        assert values[variable] == same(engine[name]), name
    assert values["rbp_residual_reset"] == same(0.8 ** len(ranked))  # every returned article is judged
    assert f"ERR  = sum of its gains = {engine['ERR']:.3f}" in lesson06["text"]
    # "Where they fit": RR gives the list its full score, ERR much less; a grade-2 article first, kb07 best, at rank 3
    assert values["rr_reset"] == 1.0 and values["err_reset"] < values["rr_reset"] / 2
    assert reset["grades"][0] == 2 and ranked.index("kb07") == 2 and reset["judgments"]["kb07"] == max(reset["grades"])


def test_06_the_family_table_shows_the_numbers_of_the_lesson(lesson06):
    """Step 10: the table made from helpers.batch.family holds, row by row, the figures the lesson computed."""
    values = lesson06["values"]
    family = family_table(values["ranked"], values["judgments"], k=5, query="reset-password")["reset-password"]
    shown = {
        "CG@5": f"{values['cg_at_5']:.0f}", "DCG@5 (exponential)": f"{values['dcg5_exponential']:.3f}",
        "nDCG@5 (exponential)": f"{values['ndcg5_exponential']:.3f}",
        "nDCG@5 (linear)": f"{values['ndcg5_linear']:.3f}",
        "P@5": f"{values['precision_at_5']:.3f}", "R@5 over R": f"{values['recall_at_5_R']:.4f}",
        "AP (over R)": f"{values['ap_full']:.4f}", "AP@5 (over R)": f"{values['ap_at_5_R']:.4f}",
        "Hit@1": f"{float(values['first_ranks_helpdesk'][0] == 1):.0f}", "RR": f"{values['rr_reset']:.3f}",
        "RBP (p = 0.8)": f"{values['rbp_reset']:.3f}", "ERR": f"{values['err_reset']:.3f}",
    }  # fmt: skip
    assert family.to_dict() == shown



# --- 07 common mistakes --------------------------------------------------------

VARIABLES_07 = [
    "log2_rank_error", "dcg5_log2_rank", "dcg5_log2_rank_patched", "dcg5_right",
    "ndcg_retrieved_only", "ndcg_judged_ideal", "ndcg_retrieved_only_exp", "ndcg_judged_ideal_exp",
    "first_ranks_helpdesk", "mrr_dropping_misses", "mrr_helpdesk",
    "mean_dcg_by_change", "mean_ndcg_by_change", "dcg_prefers", "ndcg_prefers",
    "ndcg_at_5", "ndcg_at_6", "ndcg_linear", "ndcg_exponential",
    "mrr4_keeping_unanswerable", "hit4_keeping_unanswerable", "mrr4_answerable", "hit4_answerable",
    "mean_ndcg4_answerable", "mean_ndcg4_undefined_as_zero", "mrr4_by_tie_rule", "rag_view",
    "broken_b", "right_b",
]  # fmt: skip


@pytest.fixture(scope="module")
def lesson07():
    return execute("07", VARIABLES_07)


def test_07_log2_rank_divides_by_zero(lesson07, reset):
    values = lesson07["values"]
    assert values["log2_rank_error"].startswith("ZeroDivisionError")
    assert "ZeroDivisionError" in lesson07["text"]
    assert values["dcg5_log2_rank"] == float("inf")
    assert_figure(values["dcg5_right"], 3.931, 3, metrics.dcg(reset["grades"], 5))
    assert values["dcg5_log2_rank_patched"] != pytest.approx(values["dcg5_right"], abs=1e-3)


def test_07_ideal_from_retrieved_only(lesson07, reset):
    values, grades, judged = lesson07["values"], reset["grades"], reset["judged"]
    assert_figure(values["ndcg_retrieved_only"], 0.690, 3, metrics.ndcg(grades, 5))
    assert_figure(values["ndcg_judged_ideal"], 0.550, 3, metrics.ndcg(grades, 5, judged))
    assert values["ndcg_retrieved_only_exp"] == approx(0.640, 3)
    assert values["ndcg_retrieved_only_exp"] == same(metrics.ndcg(grades, 5, None, "exponential"))
    assert values["ndcg_judged_ideal_exp"] == approx(0.475, 3)
    assert values["ndcg_judged_ideal_exp"] == same(metrics.ndcg(grades, 5, judged, "exponential"))
    assert "wrong 0.690   right 0.550" in lesson07["text"]


def test_07_misses_stay_in_the_mrr(lesson07, helpdesk_first_ranks):
    values = lesson07["values"]
    assert values["first_ranks_helpdesk"] == helpdesk_first_ranks
    hits = [rank for rank in helpdesk_first_ranks if rank]
    assert_figure(values["mrr_dropping_misses"], 0.708, 3, metrics.mean_reciprocal_rank(hits))
    assert_figure(values["mrr_helpdesk"], 0.567, 3, metrics.mean_reciprocal_rank(helpdesk_first_ranks))


def test_07_mean_dcg_misleads(lesson07, helpdesk):
    values = lesson07["values"]
    pair = ["reset-password", "export-invoices"]

    def moved(query, doc):
        ranking = helpdesk.ranking("search", query)
        return [doc] + [other for other in ranking if other != doc]

    changes = {
        "before": {q: helpdesk.ranking("search", q) for q in pair},
        "change X": {"reset-password": helpdesk.ranking("search", "reset-password"),
                     "export-invoices": moved("export-invoices", "kb10")},
        "change Y": {"reset-password": moved("reset-password", "kb07"),
                     "export-invoices": helpdesk.ranking("search", "export-invoices")},
    }  # fmt: skip
    for change, rankings in changes.items():
        grades = {q: metrics.grades_in_rank_order(rankings[q], helpdesk.judgments_for(q)) for q in pair}
        mean_dcg = sum(metrics.dcg(grades[q], 5) for q in pair) / 2
        mean_ndcg = (
            sum(metrics.ndcg(grades[q], 5, list(helpdesk.judgments_for(q).values())) for q in pair) / 2
        )
        assert values["mean_dcg_by_change"][change] == same(mean_dcg)
        assert values["mean_ndcg_by_change"][change] == same(mean_ndcg)
    assert values["dcg_prefers"] == "change Y"
    assert values["ndcg_prefers"] == "change X"


def test_07_different_k_and_gain_are_different_metrics(lesson07, reset):
    values, grades, judged = lesson07["values"], reset["grades"], reset["judged"]
    assert values["ndcg_at_5"] == approx(0.550, 3)
    assert values["ndcg_at_6"] == same(metrics.ndcg(grades, 6, judged))
    assert values["ndcg_at_6"] != pytest.approx(values["ndcg_at_5"], abs=1e-3)
    assert values["ndcg_linear"] == approx(0.550, 3)
    assert values["ndcg_exponential"] == approx(0.475, 3)


def test_07_unanswerable_questions_leave_the_denominator(lesson07):
    values, advisor = lesson07["values"], load_example("D")
    answerable = [q for q in advisor.query_ids if advisor.relevant_for(q)]
    ranks = {
        q: metrics.first_relevant_rank(advisor.ranking("advisor", q), advisor.relevant_for(q), k=4)
        for q in advisor.query_ids
    }
    assert len(answerable) == 3 and len(ranks) == 4
    assert values["mrr4_keeping_unanswerable"] == approx(0.333, 3)
    assert values["mrr4_keeping_unanswerable"] == same(
        metrics.mean_reciprocal_rank(list(ranks.values()), k=4)
    )
    assert values["hit4_keeping_unanswerable"] == approx(0.500, 3)
    assert values["mrr4_answerable"] == approx(0.444, 3)
    assert values["mrr4_answerable"] == same(
        metrics.mean_reciprocal_rank([ranks[q] for q in answerable], k=4)
    )
    assert values["hit4_answerable"] == approx(0.667, 3)
    assert values["hit4_answerable"] == same(metrics.mean_hit_rate([ranks[q] for q in answerable], 4))
    ndcgs = [
        metrics.query_ndcg(advisor.ranking("advisor", q), advisor.judgments_for(q), 4) for q in answerable
    ]
    assert values["mean_ndcg4_answerable"] == same(sum(ndcgs) / 3)
    assert values["mean_ndcg4_undefined_as_zero"] == same(sum(ndcgs) / 4)


def test_07_tie_rule_changes_the_mrr(lesson07):
    values, advisor = lesson07["values"], load_example("D")
    answerable = [q for q in advisor.query_ids if advisor.relevant_for(q)]
    for rule in ("id_ascending", "id_descending"):
        rows = rank_by_score(advisor.runs, tie_break=rule)
        ranks = [
            metrics.first_relevant_rank(
                list(rows[rows["query_id"] == q].sort_values("rank")["doc_id"]), advisor.relevant_for(q), k=4
            )
            for q in answerable
        ]
        assert values["mrr4_by_tie_rule"][rule] == same(metrics.mean_reciprocal_rank(ranks, k=4))
    assert values["mrr4_by_tie_rule"]["id_ascending"] == approx(0.444, 3)
    assert values["mrr4_by_tie_rule"]["id_descending"] == approx(0.500, 3)


def test_07_mrr_alone_cannot_see_a_thin_list(lesson07, reset):
    view = lesson07["values"]["rag_view"]
    assert view["search"]["RR"] == view["thin list"]["RR"] == 1.0
    assert view["search"]["R@5"] == same(metrics.recall_at_k(reset["ranked"], reset["relevant"], 5))
    assert view["thin list"]["R@5"] < view["search"]["R@5"]
    assert view["thin list"]["nDCG@5"] < view["search"]["nDCG@5"]


def test_07_break_it_no_discount_flattens_example_b(lesson07):
    values, riding = lesson07["values"], load_example("B")
    judged = list(riding.judgments_for("b1").values())
    documented = {"good": 1.0000, "swapped": 0.8212, "pushed_down": 0.4744}
    for system, right in documented.items():
        assert values["broken_b"][system] == {"DCG": 5.0, "ideal": 5.0, "nDCG": 1.0}
        grades = metrics.grades_in_rank_order(riding.ranking(system, "b1"), riding.judgments_for("b1"))
        assert_figure(values["right_b"][system]["nDCG"], right, 4, metrics.ndcg(grades, 5, judged))
        assert values["right_b"][system]["ideal"] == approx(4.2619, 4)
    assert lesson07["text"].count("DCG 5.0000 ideal 5.0000 nDCG 1.0000") == 3


# --- 08 how libraries compute it ------------------------------------------------

VARIABLES_08 = [
    "b_ndcg5", "c_reset", "helpdesk_mrr", "exp_reset", "sklearn_returned_only", "sklearn_with_missed",
    "helpers_judged", "helpers_returned_only", "trec_recip_rank_2_mean", "mrr_at_2", "tie_d2",
    "tie_d2_ndcg4", "trec_d2_fixed", "d_mrr4", "d_hit4", "missing_query", "denominators",

]  # fmt: skip


@pytest.fixture(scope="module")
def lesson08():
    return execute("08", VARIABLES_08)


def test_08_example_b_agrees_everywhere(lesson08):
    riding = load_example("B")
    judged = riding.judgments_for("b1")
    documented = {"good": 1.0000, "swapped": 0.8212, "pushed_down": 0.4744}
    for system, figure in documented.items():
        row = lesson08["values"]["b_ndcg5"][system]
        assert len(row) == 4
        for library, value in row.items():
            assert value == approx(figure, 4), (system, library)
            assert value == same(metrics.query_ndcg(riding.ranking(system, "b1"), judged, 5)), (
                system,
                library,
            )


def test_08_example_c_measures_agree(lesson08, reset, helpdesk_first_ranks):
    c_reset = lesson08["values"]["c_reset"]
    ranked, relevant = reset["ranked"], reset["relevant"]
    expected = {
        "nDCG@5": metrics.query_ndcg(ranked, reset["judgments"], 5),
        "AP": metrics.average_precision(ranked, relevant),
        "AP@5": metrics.average_precision(ranked, relevant, 5),
        "P@5": metrics.precision_at_k(ranked, relevant, 5),
        "R@5": metrics.recall_at_k(ranked, relevant, 5),
        "RR": metrics.reciprocal_rank(ranked, relevant),
        "Success@1": metrics.hit_at_k(ranked, relevant, 1),
    }
    assert set(c_reset) == set(expected)
    for measure, value in expected.items():
        for library in ("trec_eval", "ir_measures", "helpers"):
            assert c_reset[measure][library] == same(value), (measure, library)
    assert c_reset["nDCG@5"]["trec_eval"] == approx(0.5504, 4)
    assert c_reset["AP"]["trec_eval"] == approx(0.6167, 4)
    assert c_reset["AP@5"]["trec_eval"] == approx(0.4833, 4)
    mrr = metrics.mean_reciprocal_rank(helpdesk_first_ranks)
    for value in lesson08["values"]["helpdesk_mrr"].values():
        assert_figure(value, 0.5667, 4, mrr)


def test_08_exponential_gain_everywhere(lesson08, reset):
    expected = metrics.query_ndcg(reset["ranked"], reset["judgments"], 5, gain="exponential")
    for value in lesson08["values"]["exp_reset"].values():
        assert_figure(value, 0.475, 3, expected)


def test_08_sklearn_builds_the_ideal_from_what_it_is_given(lesson08, reset):
    values = lesson08["values"]
    returned = metrics.query_ndcg(reset["ranked"], reset["judgments"], 5, ideal="returned")
    judged = metrics.query_ndcg(reset["ranked"], reset["judgments"], 5)
    assert_figure(values["sklearn_returned_only"], 0.6905, 4, returned)
    assert values["helpers_returned_only"] == same(returned)
    assert_figure(values["sklearn_with_missed"], 0.5504, 4, judged)
    assert values["helpers_judged"] == same(judged)
    assert "0.6905" in lesson08["text"] and "0.5504" in lesson08["text"]


def test_08_trec_eval_ignores_the_reciprocal_rank_cutoff(lesson08, helpdesk_first_ranks):
    values = lesson08["values"]
    assert "keys returned for 'recip_rank.2': ['recip_rank']" in lesson08["text"]
    assert values["trec_recip_rank_2_mean"] == same(metrics.mean_reciprocal_rank(helpdesk_first_ranks))
    assert values["trec_recip_rank_2_mean"] == approx(0.567, 3)
    at_2 = metrics.mean_reciprocal_rank(helpdesk_first_ranks, k=2)
    for value in values["mrr_at_2"].values():
        assert_figure(value, 0.500, 3, at_2)


def test_08_ties_are_broken_differently(lesson08):
    values, advisor = lesson08["values"], load_example("D")
    relevant = advisor.relevant_for("d2")
    order = {}
    for rule in ("id_ascending", "id_descending"):
        rows = rank_by_score(advisor.runs, tie_break=rule)
        order[rule] = list(rows[rows["query_id"] == "d2"].sort_values("rank")["doc_id"])
    descending = metrics.reciprocal_rank(order["id_descending"], relevant)
    ascending = metrics.reciprocal_rank(order["id_ascending"], relevant)
    assert (ascending, descending) == (pytest.approx(1 / 3), 0.5)
    tie = values["tie_d2"]
    assert tie["trec_eval recip_rank"] == same(descending)
    assert tie["ir_measures RR (via trec_eval)"] == same(descending)
    assert tie["ir_measures RR@4 (via msmarco)"] == same(ascending)
    assert values["trec_d2_fixed"] == same(
        metrics.reciprocal_rank(advisor.ranking("advisor", "d2"), relevant)
    )
    ndcg4 = values["tie_d2_ndcg4"]
    judgments = advisor.judgments_for("d2")
    low = metrics.query_ndcg(order["id_ascending"], judgments, 4)
    high = metrics.query_ndcg(order["id_descending"], judgments, 4)
    assert low < ndcg4["sklearn ndcg_score (tie averaged)"] < high
    assert ndcg4["sklearn ndcg_score (tie averaged)"] == same((low + high) / 2)


def test_08_who_is_in_the_mean(lesson08, helpdesk_first_ranks):
    values, advisor = lesson08["values"], load_example("D")
    ranks = {
        q: metrics.first_relevant_rank(advisor.ranking("advisor", q), advisor.relevant_for(q), k=4)
        for q in advisor.query_ids
    }
    answerable = [ranks[q] for q in advisor.query_ids if advisor.relevant_for(q)]
    d = values["d_mrr4"]
    assert d["trec_eval, d4 in the qrels (scored 0)"] == approx(0.333, 3)
    assert d["trec_eval, d4 in the qrels (scored 0)"] == same(
        metrics.mean_reciprocal_rank(list(ranks.values()), 4)
    )
    assert d["ir_measures RR@4, d4 in the qrels"] == same(d["trec_eval, d4 in the qrels (scored 0)"])
    assert d["trec_eval, d4 removed from the qrels"] == approx(0.444, 3)
    assert d["trec_eval, d4 removed from the qrels"] == same(metrics.mean_reciprocal_rank(answerable, 4))
    assert d["helpers, answerable questions only"] == same(metrics.mean_reciprocal_rank(answerable, 4))
    hit4 = values["d_hit4"]
    assert hit4["trec_eval success_4, d4 in the qrels"] == approx(0.500, 3)
    assert hit4["trec_eval success_4, d4 removed"] == approx(0.667, 3)
    assert hit4["helpers mean_hit_rate, answerable only"] == same(metrics.mean_hit_rate(answerable, 4))
    assert hit4["trec_eval success_4, d4 removed"] == same(metrics.mean_hit_rate(answerable, 4))
    missing = values["missing_query"]
    without_miss = [rank for rank in helpdesk_first_ranks if rank]
    assert missing["pytrec_eval, mean of what it returns"] == approx(0.708, 3)
    assert missing["pytrec_eval, mean of what it returns"] == same(metrics.mean_reciprocal_rank(without_miss))
    assert missing["ir_measures RR (missing query = 0)"] == approx(0.567, 3)
    assert missing["helpers, first rank 0 for the query"] == same(
        metrics.mean_reciprocal_rank(helpdesk_first_ranks)
    )


def test_08_denominators(lesson08, reset):
    values = lesson08["values"]["denominators"]
    ranked, relevant = reset["ranked"], reset["relevant"]
    assert values["AP@4"]["trec_eval"] == same(metrics.average_precision(ranked, relevant, 4, "R"))
    assert values["AP@4"]["helpers over min(k, R)"] == same(
        metrics.average_precision(ranked, relevant, 4, "min_k_R")
    )
    assert values["R@4"]["trec_eval"] == same(metrics.recall_at_k(ranked, relevant, 4, "R"))
    assert values["R@4"]["helpers over min(k, R)"] == same(
        metrics.recall_at_k(ranked, relevant, 4, "min_k_R")
    )
    assert values["AP@4"]["trec_eval"] != pytest.approx(values["AP@4"]["helpers over min(k, R)"], abs=1e-3)


def test_08_ranx_is_quoted_with_its_version_and_its_measured_tie_rule(lesson08):
    """ranx is not a learner's requirement: the lesson says so, names the version measured, states the tie rule.

    The example figures it quotes are checked against the conventions they name in
    tests/test_library_claims.py, and every fact against ranx itself in tests/test_ranx_reference.py.
    """
    text = " ".join("".join(cell.source for cell in lesson08["notebook"].cells).split())
    assert "not among the learner's requirements, so this notebook does not run it" in text
    assert "measured by the project with ranx 0.3.21" in text
    assert "neither insertion order nor id order" not in text  # five tied documents kept their insertion order
    assert "kept the order in which they were inserted (in all 120 insertion orders tried)" in text
    assert "with 16 or more tied documents it no longer kept that order" in text


def test_08_exercise_prompts_introduce_what_they_ask_about(lesson08):
    cells = {cell.get("id"): " ".join(cell.source.split()) for cell in lesson08["notebook"].cells}
    first_torchmetrics = min(i for i, cell in enumerate(lesson08["notebook"].cells) if "torchmetrics" in cell.source)
    assert lesson08["notebook"].cells[first_torchmetrics].get("id") == "7bf0ab49"
    assert "torchmetrics, the metrics library of PyTorch, is not installed here" in cells["7bf0ab49"]
    assert "version 1.9.0" in cells["7bf0ab49"]
    assert "d2 is relevant" in cells["03d205d6"] and "`RR@5`" in cells["2994b400"]
    assert "remove D11" in cells["dce5edbb"] and "an appended D11 would sit at rank 5" in cells["dce5edbb"]
    example_b = load_example("B")
    left = [doc for doc in example_b.ranking("swapped", "b1") if doc != "D11"]
    assert len(left) == 4 < 5  # so appending D11 lands inside the top 5: "appending cannot help"


def test_08_names_both_spellings_of_trec_eval_s_cutoff(lesson08):
    text = " ".join("".join(cell.source for cell in lesson08["notebook"].cells).split())
    assert "spells the same measure `-m ndcg_cut.5`" in text and "returns the key `ndcg_cut_5`" in text
