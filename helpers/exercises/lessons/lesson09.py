"""Lesson 09 · From golden set to benchmark: exercises on a whole run and a paired comparison."""

from __future__ import annotations

from helpers.exercises.lessons._shared import load_example
from helpers.exercises.registry import Exercise, register
from helpers.exercises.worked import (
    Worked,
    worked_cohens_d,
    worked_mean_average_precision,
    worked_mean_difference,
    worked_sign_flip_p,
)

LESSON = "09"


def golden_new_map() -> Worked:
    """golden-new-map: MAP of example A's NEW system over its five questions."""
    example = load_example("A")
    queries = [(example.ranking("NEW", q), example.relevant_for(q)) for q in example.query_ids]
    return worked_mean_average_precision(queries)


register(
    Exercise(
        id="golden-new-map",
        lesson=LESSON,
        question="Example A (the five golden questions): evaluate NEW with the measure 'AP'. What is the mean "
        "over the five questions (MAP)?",
        answer=golden_new_map,
        hints=(
            "One question has two relevant passages; the others have one.",
            "For each question add P@i at every relevant rank i and divide by its R; then average the five APs.",
        ),
        code="""from helpers.batch import evaluate
example = load_example("A")
qrels = example.judgments.rename(columns={"query_id": "qid", "doc_id": "docno"})
run = example.runs[example.runs["system"] == "NEW"].rename(columns={"query_id": "qid", "doc_id": "docno"})
per_query, means = evaluate(qrels, run[["qid", "docno", "score"]], ["AP"])
means["AP"]""",
    )
)

# Five questions scored by two systems (nDCG@10 per question), for a paired comparison by hand.
SCORES_A = [0.50, 0.60, 0.70, 0.80, 0.90]
SCORES_B = [0.60, 0.60, 0.80, 0.80, 1.00]
SCORES_TEXT = "A scores 0.50, 0.60, 0.70, 0.80, 0.90 and B scores 0.60, 0.60, 0.80, 0.80, 1.00"

register(
    Exercise(
        id="paired-mean-difference",
        lesson=LESSON,
        question=f"Five questions, two systems: {SCORES_TEXT} (nDCG@10, question by question). What is the mean "
        "per-question difference B - A?",
        answer=lambda: worked_mean_difference(SCORES_A, SCORES_B),
        hints=(
            "Pair the scores question by question before you average.",
            "Subtract A from B for each question, then take the mean of the five differences.",
        ),
        code="""a = [0.50, 0.60, 0.70, 0.80, 0.90]
b = [0.60, 0.60, 0.80, 0.80, 1.00]
sum(y - x for x, y in zip(a, b)) / len(a)""",
    )
)

register(
    Exercise(
        id="paired-sign-flip-p",
        lesson=LESSON,
        question=f"The same five questions ({SCORES_TEXT}). List every way to flip the signs of the five "
        "differences B - A: what share of those sign patterns gives a mean at least as far from 0 as the "
        "observed one (the exact two-sided p-value of the randomization test)?",
        answer=lambda: worked_sign_flip_p(SCORES_A, SCORES_B),
        hints=(
            "Flipping the sign of a difference of 0 changes nothing: only the non-zero differences matter.",
            "Three differences are 0.1 and two are 0: of the 2^3 sign patterns of the non-zero ones, count "
            "those whose mean is as far from 0 as the observed one, on either side.",
        ),
        code="""import itertools
differences = [0.10, 0.00, 0.10, 0.00, 0.10]
observed = abs(sum(differences) / 5)
means = [abs(sum(s * d for s, d in zip(signs, differences)) / 5)
         for signs in itertools.product((1, -1), repeat=5)]
sum(mean >= observed - 1e-12 for mean in means) / len(means)""",
    )
)

register(
    Exercise(
        id="paired-cohens-d",
        lesson=LESSON,
        question=f"The same five questions ({SCORES_TEXT}). Cohen's d of the paired differences B - A: their "
        "mean divided by their sample standard deviation (n - 1).",
        answer=lambda: worked_cohens_d(SCORES_A, SCORES_B),
        hints=(
            "d compares the mean difference with how much the differences vary from question to question.",
            "Mean of the five differences; their standard deviation with n - 1 = 4 in the denominator; divide.",
        ),
        code="""import statistics
differences = [0.10, 0.00, 0.10, 0.00, 0.10]
statistics.mean(differences) / statistics.stdev(differences)""",
    )
)
