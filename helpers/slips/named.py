"""Slips in how an answer is written or read, not in a formula: rounding, %, a value read off the lesson.

The checker recognises these from the exercise (a value printed earlier, the lab's earlier state)
or from the answer's text; lesson 08's library conventions (tie order) and the comparison's
slips (A - B, one-sided p, the population SD) are here too.
"""

from __future__ import annotations

from helpers.slips._catalogue import EVERY_KIND, EVERY_MEASURE, SHARES, declare

declare(
    "rounded-early",
    'each step rounded before the last one',
    'Keep full precision in every step (each 1/rank, each gain / discount) and round only the final answer.',
    measures=('mrr', 'dcg', 'ideal-dcg', 'ndcg', 'ap'),
    kinds=('value', 'mean', 'difference'),
)
declare(
    "digits-cut-off",
    "the digits cut off instead of rounded",
    "Round the final answer: look at the next digit (5 or more rounds up) instead of dropping it.",
    measures=('mrr', 'hit-rate', 'cg', 'dcg', 'ideal-dcg', 'ndcg', 'precision', 'recall', 'ap'),
    kinds=('value', 'mean', 'difference'),
)
declare(
    "percent-without-sign",
    'a percentage written without its % sign',
    'A number such as 12.5 means twelve and a half, not one eighth: write the share (between 0 and 1) or add the '
    'sign (12.5%).',
    measures=('mrr', 'hit-rate', 'ndcg', 'precision', 'recall', 'ap'),
    kinds=('value', 'mean', 'difference'),
)
declare(
    "decimal-point-shifted",
    "the decimal point moved by one place: the answer ten times too large or too small",
    "Check the size of the answer against your last step: each place the point moves multiplies or divides the "
    "number by 10.",
    measures=EVERY_MEASURE,
    kinds=EVERY_KIND,
)
declare(
    "one-minus-the-answer",
    "1 minus the measure: the share missed given instead of the share achieved",
    "The measure counts what was achieved (hits, relevant results, gain), not what is missing to reach 1: give "
    "the value itself.",
    measures=SHARES,
    kinds=("value", "mean"),
)
declare(
    "zeros-added",
    "zeros written past the digits of a rounded answer",
    "Give the decimals the exercise asks for: a 0 written after them says that digit of the value is 0, and "
    "rounding only leaves the digits you keep.",
)
declare(
    "before-the-change",
    'this is the value before the change (or before part of it)',
    'Make every change the question asks, then compute again from the changed data.',
)
declare(
    "old-question-count",
    "the new questions' hits counted, but the mean still divided by the old number of questions",
    "Each question added to the golden set adds one to the number you divide by, whether it is found or not.",
)
declare(
    "other-cutoff",
    'another cut-off than the k the question asks',
    'Cut at the k this question asks: a table or figure you have seen may use another k.',
)
declare(
    "lab-earlier-state",
    "the lab still holds an earlier exercise's change",
    "Press reset (the lab's opening state) before each exercise, then make only this exercise's change.",
)
declare(
    "ties-ascending",
    'equal scores ordered by id ascending where the tool orders them descending',
    'trec_eval (and pytrec_eval) sort equal scores by document id from the highest to the lowest.',
    computed_by=("helpers.data.rank_by_score(tie_break='id_ascending')",),
)
declare(
    "ties-descending",
    'equal scores ordered by id descending where the tool orders them ascending',
    "This question orders equal scores by document id from the lowest to the highest (as the retrieval advisor "
    "does, and ir_measures' RR@k with its msmarco provider).",
    computed_by=("helpers.data.rank_by_score(tie_break='id_descending')",),
)
declare(
    "one-side-of-a-gap",
    "one of the two numbers given where the gap between them was asked",
    "Compute both numbers, then subtract: the question asks by how much one exceeds the other.",
    measures=('mrr', 'hit-rate', 'cg', 'dcg', 'ndcg', 'ap'),
    kinds=('difference',),
)
declare(
    "a-minus-b",
    'the difference taken the other way round',
    'Subtract in the order the question asks: B - A when it compares A with B, after minus before for a rise, '
    'before minus after for a fall.',
    measures=('mrr', 'hit-rate', 'cg', 'dcg', 'ndcg', 'ap', 'effect-size'),
    kinds=('difference',),
)
declare(
    "one-sided-p",
    'a one-sided p-value where the two-sided one was asked',
    'Count the sign flips whose mean difference is at least as far from 0 as the observed one, on either side.',
)
declare(
    "population-sd",
    'standard deviation divided by n instead of n - 1',
    "Cohen's d for paired differences divides the mean by the sample standard deviation (n - 1).",
    computed_by=('numpy.std(ddof=0)',),
)
declare(
    "zero-differences-dropped",
    'the questions whose difference is 0 left out of the mean difference',
    'A question where both systems score the same still counts: divide the sum of the differences by every '
    'question.',
)
declare(
    "t-test-for-sign-flip",
    "the paired t-test's p-value given where the sign-flip (randomization) p was asked",
    'Count the sign patterns whose mean is at least as far from 0 as the observed one: no t distribution.',
    computed_by=('scipy.stats.ttest_rel',),
)
declare(
    "unpaired-test",
    'an unpaired test (two independent samples) where the comparison is paired question by question',
    'Both systems answer the same questions: work on the per-question differences B - A.',
    computed_by=('scipy.stats.ttest_ind',),
)
declare(
    "plus-one-p",
    'the (hits + 1) / (n + 1) rule of a sampled test used on the exact list of every sign pattern',
    'With every pattern listed, the p-value is the share of them at least as extreme: hits / n. The + 1 '
    'belongs to a test that samples patterns at random.',
)
declare(
    "pooled-sd-d",
    "Cohen's d with the pooled standard deviation of the two systems' scores",
    "For paired scores this d divides the mean difference by the standard deviation of the differences B - A.",
)
declare(
    "t-for-d",
    "the t statistic given as Cohen's d",
    't divides the mean difference by its standard error (sd / sqrt(n)); d divides it by the sd itself.',
)
