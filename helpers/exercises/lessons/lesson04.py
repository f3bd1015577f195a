"""Lesson 04 · MRR@4 for a retrieval advisor (example D): the exercises."""

from __future__ import annotations

from helpers.exercises.lessons._shared import first_ranks, move_to, query_grades
from helpers.exercises.registry import Exercise, register
from helpers.exercises.worked import Worked, worked_mrr, worked_ndcg

LESSON = "04"


def advisor_mrr2() -> Worked:
    """advisor-mrr2: MRR@2 over the answerable questions."""
    ranks, unanswerable = first_ranks("D", "advisor")
    return worked_mrr(ranks, k=2, unanswerable=unanswerable)


register(
    Exercise(
        id="advisor-mrr2",
        lesson=LESSON,
        question="Example D: the advisor is changed to keep only 2 chunks. What is its MRR@2 over the questions "
        "it can answer? Give 3 decimals.",
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
    """d3-chunk-second-mrr4: MRR@4 once c-0310 is at rank 2 for d3."""
    ranks, unanswerable = first_ranks(
        "D", "advisor", edit=lambda q, ranked: move_to(ranked, "c-0310", 2) if q == "d3" else ranked
    )
    return worked_mrr(ranks, k=4, unanswerable=unanswerable)


register(
    Exercise(
        id="d3-chunk-second-mrr4",
        lesson=LESSON,
        question="Example D: a new embedding model ranks c-0310 second for question d3 (the other chunks keep "
        "their order). What is MRR@4 over the answerable questions now? Give 3 decimals.",
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


def d4_ndcg4() -> Worked:
    """d4-ndcg4: nDCG@4 of the unanswerable question (undefined)."""
    grades, judged = query_grades("D", "advisor", "d4")
    return worked_ndcg(grades, judged, k=4)


register(
    Exercise(
        id="d4-ndcg4",
        lesson=LESSON,
        question="Example D: what is nDCG@4 of question d4, which has no relevant chunk? Answer with a number, "
        "or with the text 'undefined'.",
        answer=d4_ndcg4,
        hints=(
            "Compute the ideal DCG first: what is left to divide by?",
            "Every judged grade of d4 is 0, so the ideal DCG@4 is 0 and DCG / IDCG is 0 / 0.",
        ),
        code="""example = load_example("D")
judgments = example.judgments_for("d4")
grades = metrics.grades_in_rank_order(example.ranking("advisor", "d4"), judgments)
try:
    value = metrics.ndcg(grades, k=4, ideal=judgments.values())
except metrics.UndefinedMetricError:
    value = float("nan")  # undefined: leave d4 out of any mean
value""",
    )
)


def advisor_with_a_fifth_question() -> Worked:
    """advisor-fifth-question-mrr4: MRR@4 once a fifth, answerable question is found at rank 2."""
    ranks, unanswerable = first_ranks("D", "advisor")
    return worked_mrr([*ranks, 2], k=4, unanswerable=unanswerable)


register(
    Exercise(
        id="advisor-fifth-question-mrr4",
        lesson=LESSON,
        question="Example D: the team adds a fifth question to the golden set, and the advisor's first relevant "
        "chunk for it is at rank 2. What is MRR@4 over the answerable questions now? Give 3 decimals.",
        answer=advisor_with_a_fifth_question,
        hints=(
            "One more question means one more term in the sum and one more in the count.",
            "Reciprocal ranks within the top 4 for d1, d2, d3 and the new question (d3 still misses); d4 still "
            "stays out. Add them and divide by the number of answerable questions.",
        ),
        code="""example = load_example("D")
ranks = [metrics.first_relevant_rank(example.ranking("advisor", q), example.relevant_for(q))
         for q in example.query_ids if example.relevant_for(q)]
metrics.mean_reciprocal_rank(ranks + [2], k=4)""",
    )
)
