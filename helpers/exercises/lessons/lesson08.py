"""Lesson 08 · How libraries compute it: exercises on the libraries' conventions."""

from __future__ import annotations

import pandas as pd

from helpers import metrics
from helpers.data import rank_by_score
from helpers.exercises.lessons._shared import load_example, query_grades
from helpers.exercises.registry import Exercise, register
from helpers.exercises.worked import Worked, worked_ndcg
from helpers.slips import counting as counting_slips

LESSON = "08"


def torchmetrics_ap5() -> Worked:
    """torchmetrics-ap5: AP@5 of reset-password divided by the relevant results found in the top 5."""
    example = load_example("C")
    ranked, relevant = example.ranking("search", "reset-password"), example.relevant_for("reset-password")
    value = counting_slips.average_precision_hits_denominator(ranked, relevant, 5)
    hits = [rank for rank, doc in enumerate(ranked[:5], start=1) if doc in relevant]
    precisions = [number / rank for number, rank in enumerate(hits, start=1)]
    steps = (
        f"relevant results at ranks {', '.join(map(str, hits))} within the top 5",
        "precision at those ranks: " + ", ".join(f"{p:.4f}" for p in precisions),
        f"torchmetrics divides by the {len(hits)} relevant results found: {sum(precisions):.4f} / {len(hits)} "
        f"= {value:.4f}",
    )
    slips = (
        (("r-for-hits-denominator",), metrics.average_precision(ranked, relevant, 5)),
    )  # min(k, R) is R here (k = R = 5): dividing by it is the slip above, not a second one
    return Worked(value, steps, slips)


register(
    Exercise(
        id="torchmetrics-ap5",
        lesson=LESSON,
        question="torchmetrics' retrieval average precision divides by the relevant results it finds in the "
        "top k, not by R. What does it give for example C's reset-password at k = 5?",
        answer=torchmetrics_ap5,
        hints=(
            "The precisions added up are the same as trec_eval's; only the number you divide by changes.",
            "Add P@i at each relevant rank i within the top 5, then divide by how many relevant results are in "
            "that top 5 (a relevant article never returned does not count here).",
        ),
        code="""example = load_example("C")
ranked, relevant = example.ranking("search", "reset-password"), example.relevant_for("reset-password")
found = sum(1 for doc in ranked[:5] if doc in relevant)
metrics.average_precision(ranked, relevant, k=5) * len(relevant) / found""",
    )
)

TIED = pd.DataFrame(
    {
        "system": "run",
        "query_id": "q",
        "doc_id": ["d1", "d2", "d3", "d4", "d5"],
        "rank": [1, 2, 3, 4, 5],
        "score": 0.5,
    }
)
TIED_RELEVANT = {"d2"}


def tied_rr(tie_break: str) -> Worked:
    """The reciprocal rank of d2 when five documents share one score, ties broken by id."""
    order = list(rank_by_score(TIED, tie_break=tie_break)["doc_id"])
    other = "id_ascending" if tie_break == "id_descending" else "id_descending"
    other_order = list(rank_by_score(TIED, tie_break=other)["doc_id"])
    value = metrics.reciprocal_rank(order, TIED_RELEVANT)
    steps = (
        f"equal scores ordered by id {'descending' if tie_break == 'id_descending' else 'ascending'}: "
        + ", ".join(order),
        f"d2 at rank {order.index('d2') + 1}: RR = {value:.4f}",
    )
    code = "ties-ascending" if tie_break == "id_descending" else "ties-descending"
    rank = order.index("d2") + 1
    return Worked(value, steps, (
        ((code,), metrics.reciprocal_rank(other_order, TIED_RELEVANT)),
        (("ranks-from-zero",), 1 / (rank + 1)),  # 1 / (rank + 1): the rank shifted by one
    ))


register(
    Exercise(
        id="tie-rr-trec",
        lesson=LESSON,
        question="A run gives the five documents d1, d2, d3, d4, d5 of a query the same score 0.5; only d2 is "
        "relevant. What reciprocal rank does trec_eval (and pytrec_eval) report?",
        answer=lambda: tied_rr("id_descending"),
        hints=(
            "trec_eval ignores the rank column and sorts by score; something else has to order equal scores.",
            "Equal scores are ordered by document id, from the highest id to the lowest; find d2's rank in that "
            "order and take 1/rank.",
        ),
        code="""import pandas as pd
from helpers import rank_by_score
run = pd.DataFrame({"system": "run", "query_id": "q", "doc_id": ["d1", "d2", "d3", "d4", "d5"],
                    "rank": [1, 2, 3, 4, 5], "score": 0.5})
order = list(rank_by_score(run, tie_break="id_descending")["doc_id"])
metrics.reciprocal_rank(order, {"d2"})""",
    )
)

register(
    Exercise(
        id="tie-rr-ir-measures",
        lesson=LESSON,
        question="The same tied run through ir_measures' RR@5 (its msmarco provider). What reciprocal rank does "
        "it give?",
        answer=lambda: tied_rr("id_ascending"),
        hints=(
            "This provider breaks ties its own way, the opposite of trec_eval's.",
            "Equal scores are ordered by document id from the lowest to the highest; find d2's rank.",
        ),
        code="""import pandas as pd
from helpers import rank_by_score
run = pd.DataFrame({"system": "run", "query_id": "q", "doc_id": ["d1", "d2", "d3", "d4", "d5"],
                    "rank": [1, 2, 3, 4, 5], "score": 0.5})
order = list(rank_by_score(run, tie_break="id_ascending")["doc_id"])
metrics.reciprocal_rank(order, {"d2"})""",
    )
)


def sklearn_without_d11() -> Worked:
    """sklearn-d11-removed: scikit-learn's nDCG@5 of the swapped list without D11 (ideal from what is passed)."""
    grades, judged = query_grades("B", "swapped", "b1", drop=("D11",))
    return worked_ndcg(grades, judged, k=5, ideal="returned")


register(
    Exercise(
        id="sklearn-d11-removed",
        lesson=LESSON,
        question="Example B: remove D11 from the swapped ordering and pass only what is left to scikit-learn's "
        "ndcg_score (k = 5). What does it report?",
        answer=sklearn_without_d11,
        hints=(
            "scikit-learn builds the ideal only from the items you pass it.",
            "Sort the grades of the four passed passages for the ideal; compare with their DCG@5 in the order given.",
        ),
        code="""example = load_example("B")
judgments = example.judgments_for("b1")
ranked = [doc for doc in example.ranking("swapped", "b1") if doc != "D11"]
grades = metrics.grades_in_rank_order(ranked, judgments)
metrics.ndcg(grades, k=5)  # the ideal from the passed grades only, as scikit-learn does""",
    )
)
