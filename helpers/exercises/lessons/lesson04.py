"""Lesson 04 · MRR@4 for a retrieval advisor (example D): the exercises."""

from __future__ import annotations

import math
from collections.abc import Callable

from helpers import metrics
from helpers.data import rank_by_score
from helpers.exercises.lessons._shared import first_ranks, load_example, move_to, query_grades
from helpers.exercises.registry import Exercise, register
from helpers.exercises.worked import Worked, with_slips, worked_mean_ndcg, worked_mrr, worked_ndcg
from helpers.tables import short_number

LESSON = "04"


def descending_ties_edit(query_id: str, ranked: list[str]) -> list[str]:
    """The advisor's ranking of a question re-ranked with equal scores by chunk id descending (trec_eval, Step 7)."""
    data = load_example("D")
    runs = data.runs[(data.runs["system"] == "advisor") & (data.runs["query_id"] == query_id)]
    reranked = list(rank_by_score(runs, tie_break="id_descending").sort_values("rank")["doc_id"])
    order = {doc: place for place, doc in enumerate(reranked)}
    return sorted(ranked, key=lambda doc: order.get(doc, len(order))) if set(ranked) == set(order) else ranked


def with_descending_ties(
    edit: Callable[[str, list[str]], list[str]] | None = None,
) -> Callable[[str, list[str]], list[str]]:
    """An exercise's edit made on the ranking with ties by id descending (the tie rule of Step 7's other side)."""
    return lambda q, ranked: (edit or (lambda _, r: r))(q, descending_ties_edit(q, ranked))


def ties_descending(k: int, edit=None, extra: tuple[int, ...] = ()) -> tuple[tuple[str, ...], float]:
    """The slip "ties-descending": the exercise's MRR@k with d2's tie broken by id descending."""
    ranks, _ = first_ranks("D", "advisor", edit=with_descending_ties(edit))
    return ("ties-descending",), metrics.mean_reciprocal_rank([*ranks, *extra], k)


def advisor_mrr2() -> Worked:
    """advisor-mrr2: MRR@2 over the answerable questions."""
    ranks, unanswerable = first_ranks("D", "advisor")
    return with_slips(worked_mrr(ranks, k=2, unanswerable=unanswerable), ties_descending(2))


register(
    Exercise(
        id="advisor-mrr2",
        lesson=LESSON,
        question="Example D: the advisor is changed to keep only 2 chunks. What is its MRR@2 over the questions "
        "it can answer?",
        answer=advisor_mrr2,
        hints=(
            "With 2 chunks kept, a relevant chunk at rank 3 is never read.",
            "A question whose first relevant chunk is past rank 2 scores 0 and stays in the mean; d4 has no "
            "relevant chunk and stays out.",
        ),
        code="""example = load_example("D")
answerable = [q for q in example.query_ids if example.relevant_for(q)]
ranks = [metrics.first_relevant_rank(example.ranking("advisor", q), example.relevant_for(q))
         for q in answerable]
metrics.mean_reciprocal_rank(ranks, k=2)""",
    )
)


def d3_chunk_second() -> Worked:
    """d3-chunk-second-mrr4: MRR@4 once c-0310 is at rank 2 for d3 (MRR@4 before the move, printed, is named)."""
    ranks, unanswerable = first_ranks(
        "D", "advisor", edit=lambda q, ranked: move_to(ranked, "c-0310", 2) if q == "d3" else ranked
    )
    before, _ = first_ranks("D", "advisor")
    return with_slips(
        worked_mrr(ranks, k=4, unanswerable=unanswerable),
        (("before-the-change",), metrics.mean_reciprocal_rank(before, 4)),
        ties_descending(4, lambda q, ranked: move_to(ranked, "c-0310", 2) if q == "d3" else ranked),
    )


register(
    Exercise(
        id="d3-chunk-second-mrr4",
        lesson=LESSON,
        question="Example D: a new embedding model ranks c-0310 second for question d3 (the other chunks keep "
        "their order). What is MRR@4 over the answerable questions now?",
        answer=d3_chunk_second,
        hints=(
            "Only d3 changes, from a miss at 4 to a hit.",
            "d3's reciprocal rank becomes 1/2; add it to d1's and d2's and divide by the 3 answerable questions.",
        ),
        code="""example = load_example("D")
ranks = []
for q in example.query_ids:
    if not example.relevant_for(q):
        continue  # unanswerable: nothing to find
    ranked = example.ranking("advisor", q)
    if q == "d3":
        ranked = [doc for doc in ranked if doc != "c-0310"]
        ranked.insert(1, "c-0310")
    ranks.append(metrics.first_relevant_rank(ranked, example.relevant_for(q)))
metrics.mean_reciprocal_rank(ranks, k=4)""",
    )
)


D3_CHUNK_AT = 4  # exercise 3: c-0310 moved up to rank 4 for d3, inside the advisor's top 4


def advisor_ndcg4(query_id: str, edit: Callable[[list[str]], list[str]] | None = None) -> float:
    """nDCG@4 of one question of example D (nan where undefined), its ranking edited first."""
    grades, judged = query_grades("D", "advisor", query_id, edit=edit)
    return worked_ndcg(grades, judged, k=4).value


def d4_ndcg4() -> Worked:
    """d4-ndcg4: the advisor's mean nDCG@4 once c-0310 is at rank 4 for d3; d4's nDCG@4 is undefined, left out.

    d4 scored 0 and kept in the mean is the slip the exercise is about; the mean before the move is named.
    """
    def moved(query_id: str) -> Callable[[list[str]], list[str]]:
        return lambda ranked: move_to(ranked, "c-0310", D3_CHUNK_AT) if query_id == "d3" else ranked

    data = load_example("D")
    after = {q: advisor_ndcg4(q, moved(q)) for q in data.query_ids}
    before = {q: advisor_ndcg4(q) for q in data.query_ids}
    defined = [value for value in after.values() if math.isfinite(value)]
    value = sum(defined) / len(defined)
    shown = ", ".join(f"{q} {short_number(v, 4)}" if math.isfinite(v) else f"{q} undefined" for q, v in after.items())
    steps = (
        f"c-0310 at rank {D3_CHUNK_AT} for d3: its DCG@4 is 1/log2({D3_CHUNK_AT} + 1), its ideal DCG@4 1",
        f"nDCG@4 per question: {shown}",
        "d4 has no relevant chunk: IDCG@4 = 0, nDCG@4 undefined, left out of the mean (as MRR@4 leaves it out)",
        f"mean nDCG@4 = ({' + '.join(short_number(v, 4) for v in defined)}) / {len(defined)} = "
        f"{short_number(value, 4)}",
    )
    kept = [0.0 if not math.isfinite(v) else v for v in after.values()]
    old = [v for v in before.values() if math.isfinite(v)]
    slips = (
        (("undefined-as-zero",), sum(kept) / len(kept)),
        (("before-the-change",), sum(old) / len(old)),
        (("before-the-change", "undefined-as-zero"), sum(old) / len(before)),
    )
    queries = [query_grades("D", "advisor", q, edit=moved(q)) for q in data.query_ids if math.isfinite(after[q])]
    every_mean_slip = worked_mean_ndcg(queries, k=4).slips  # the discount, cut-off and ideal slips of a mean
    return Worked(value, steps, every_mean_slip + slips, "mean-ndcg", dict(queries=queries, k=4, gain="linear"))


register(
    Exercise(
        id="d4-ndcg4",
        lesson=LESSON,
        question="Example D: the team reports the advisor's mean nDCG@4 beside its MRR@4 (each question's nDCG@4 "
        "from its judged chunks, linear gain), treating d4 the way MRR@4 does. A new embedding model moves "
        f"c-0310 up to rank {D3_CHUNK_AT} for question d3 (the other chunks keep their order). What is the mean "
        "nDCG@4 now?",
        answer=d4_ndcg4,
        hints=(
            "Compute each question's ideal DCG@4 first: for one of them there is nothing to divide by, and a "
            "value that does not exist cannot be averaged.",
            "d1 finds its one relevant chunk at rank 1, d2 at rank 3, d3 now at rank 4: nDCG@4 is 1/log2(rank + 1) "
            "over the ideal's 1 for each; d4's nDCG@4 is 0 / 0, undefined, so it stays out; average the three.",
        ),
        code="""example = load_example("D")
scores = []
for q in example.query_ids:
    ranked = example.ranking("advisor", q)
    if q == "d3":
        ranked = [doc for doc in ranked if doc != "c-0310"]
        ranked.insert(3, "c-0310")
    judgments = example.judgments_for(q)
    try:
        scores.append(metrics.ndcg(metrics.grades_in_rank_order(ranked, judgments), k=4, ideal=judgments.values()))
    except metrics.UndefinedMetricError:
        pass  # d4: nothing relevant to find, nDCG undefined, left out of the mean
sum(scores) / len(scores)""",
    )
)


def advisor_with_a_fifth_question() -> Worked:
    """advisor-fifth-question-mrr4: MRR@4 once a fifth, answerable question is found at rank 4, the last kept."""
    ranks, unanswerable = first_ranks("D", "advisor")
    return with_slips(
        worked_mrr([*ranks, 4], k=4, unanswerable=unanswerable),
        (("before-the-change",), metrics.mean_reciprocal_rank(ranks, 4)),  # the MRR@4 the lesson prints
        ties_descending(4, extra=(4,)),
    )


register(
    Exercise(
        id="advisor-fifth-question-mrr4",
        lesson=LESSON,
        question="Example D: the team adds a fifth question to the golden set, and the advisor's first relevant "
        "chunk for it is at rank 4, the last chunk it keeps. What is MRR@4 over the answerable questions now?",
        answer=advisor_with_a_fifth_question,
        hints=(
            "One more question means one more term in the sum and one more in the count.",
            "Reciprocal ranks within the top 4 for d1, d2, d3 and the new question (d3 still misses); d4 still "
            "stays out. Add them and divide by the number of answerable questions.",
        ),
        code="""example = load_example("D")
ranks = [metrics.first_relevant_rank(example.ranking("advisor", q), example.relevant_for(q))
         for q in example.query_ids if example.relevant_for(q)]
metrics.mean_reciprocal_rank(ranks + [4], k=4)""",
    )
)
