"""Every measure of ``evaluate``, declared once (lesson 09), in the manner of ir_measures.

A declaration holds all there is to know about a measure: its name and other
spellings (trec_eval's too), its parameters and cut-off rule, its kind, a
one-line definition with its source, the single-query formula the reference
evaluator uses (:mod:`helpers.batch.reference`, with :mod:`helpers.metrics`
where the lessons have the formula) and the vectorised kernel ``evaluate``
uses (:mod:`helpers.batch._engine`). The names ``parse_measure`` reads, the
command's ``-m`` names, ``supported_measures()`` and the tables of
:mod:`helpers.batch.measures` are made from these declarations, and
``tests/test_measure_registry.py`` holds every kernel to its formula.

To add a measure: write its single-query formula, its kernel, and one
:func:`declare` call (see docs/contributors.md, "Adding a measure").
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from helpers import metrics
from helpers._checks import did_you_mean
from helpers.batch import _engine

KINDS = {
    "graded": "uses the grades as gains",
    "binary": "a document is relevant at grade >= rel",
    "count": "a number of documents; trec_eval's all line sums it over the queries",
    "judged": "about which documents are judged, not their grades",
    "text": "a string per query, not a number (trec_eval's relstring): no mean, printed per query only",
}
CUTOFF_RULES = ("required", "optional", "none")
# how the values of the queries become one number (the means of evaluate, trec_eval's all line)
AGGREGATIONS = {
    "mean": "the arithmetic mean over the queries",
    "sum": "the sum over the queries (trec_eval's all line of a count; evaluate's means still average it)",
    "geometric": "the geometric mean over the queries, a value below GEOMETRIC_FLOOR counted as the floor",
    "none": "no summary: a text measure is shown per query only",
}
# trec_eval's floor for a geometric mean (MIN_GEO_MEAN in its trec_eval.h, 0.00001): a query with AP 0 counts as
# 1e-5, so one failed query pulls gm_map down without making it 0 (Robertson 2006, "On GMAP")
GEOMETRIC_FLOOR = 1e-5
TREC_LINES = ("both", "all", "per query")  # which lines trec_eval prints for a measure: gm_map only the all line


@dataclass(frozen=True)
class Parameter:
    """One parameter a measure may take: its value's type, default, meaning, and values the registry test tries."""

    name: str
    type: str  # "grade", "gain", "gain map", "probability", "fraction" or "multiple": how measures.py reads it
    default: object
    meaning: str
    examples: tuple


PARAMETERS = {
    "rel": Parameter("rel", "grade", 1, "the lowest relevant grade, above 0", (1, 2)),
    "gain": Parameter("gain", "gain", "linear", "linear (the grade) or exp (2^grade - 1)", ("linear", "exp")),
    "gains": Parameter("gains", "gain map", None, "a gain per grade such as {1:1,2:3,3:7}, other grades keeping "
                       "their own value", (((0, 0.5), (1, 3.0), (2, 1.0)), ((1, -1.0), (3, 2.0)))),
    "p": Parameter("p", "probability", 0.8, "persistence: the chance that the user goes on to the next document",
                   (0.5, 0.95)),
    "recall": Parameter("recall", "fraction", None, "a recall level from 0 to 1", (0.0, 0.1, 0.25, 0.5, 1.0)),
    "times": Parameter("times", "multiple", None, "a multiple of R above 0, such as 0.2 or 2",
                       (0.2, 0.35, 1.0, 2.0)),
    "recall_weight": Parameter("recall_weight", "multiple", 1.0, "how much recall counts against precision in "
                               "set_F, trec_eval's set_F.x (x = beta squared of F-beta)", (0.5, 2.0)),
    "weights": Parameter("weights", "weights", (1.0, -1.0, 0.0, 0.0), "utility's weights of relevant returned, "
                         "other returned, relevant missed and other missed documents, the last 0",
                         ((2.0, -1.0, 0.0, 0.0), (1.0, -2.0, -0.5, 0.0))),
    "levels": Parameter("levels", "levels", tuple(level / 10 for level in range(11)), "the recall levels "
                        "11pt_avg averages over", ((0.25, 0.5, 0.75), (0.0, 1.0))),
}


@dataclass(frozen=True)
class OneQuery:
    """What a single-query formula sees: the ranking (after depth and judged_only), the judgments, the options."""

    ranked: list
    judgments: dict  # docno -> grade (float)
    ideal: metrics.Ideal = "judged"
    denominator: metrics.Denominator = "R"

    def relevant(self, rel: float) -> set:
        """The judged documents with a grade of rel or more."""
        return {doc for doc, grade in self.judgments.items() if grade >= rel}

    def grades(self) -> list[float]:
        """The grade of each ranked document, 0 for unjudged and negative grades."""
        return metrics.grades_in_rank_order(self.ranked, {d: max(g, 0.0) for d, g in self.judgments.items()})


Formula = Callable[..., float | str]  # (measure, OneQuery) -> the query's value (text for relstring)
Kernel = Callable[..., np.ndarray]  # (measure, Judgments, Ranking, Conventions) -> a value per query


@dataclass(frozen=True)
class Declaration:
    """One measure, declared once: what ``evaluate``, its reference, the parser and the command know of it."""

    name: str
    kind: str
    cutoff: str
    parameters: tuple[str, ...]
    definition: str  # one line, with its source
    formula: Formula
    kernel: Kernel
    aliases: tuple[str, ...] = ()  # other spellings, lower case (names are read case-insensitively)
    trec_name: str | None = None  # trec_eval's name of the measure over the whole list (map, recip_rank)
    trec_cut_name: str | None = None  # trec_eval's name of its cut-off family (P, map_cut), read as P.5,10 or P_5
    trec_default_cutoffs: str | None = None  # the cutoffs trec_eval prints for the bare family name
    max_grade: float | None = None  # grades above it are refused (ERR's stopping probability needs it)
    exact_case: bool = False  # its names are read only as written (trec_eval's rbp, beside RBP): no other spelling
    defaults: tuple = ()  # (parameter, value) pairs where this measure's default differs from PARAMETERS'
    aggregation: str = ""  # how the queries' values become one (AGGREGATIONS); "" means sum for counts, else mean
    trec_list: str | None = None  # the parameter trec_eval's list after the dot gives (iprec_at_recall.0,.5: recall)
    trec_whole: str | None = None  # the parameter trec_eval's whole list after the dot is (utility.2,-1,0,0: weights)
    trec_lines: str = "both"  # which lines trec_eval prints (TREC_LINES)

    @property
    def summed(self) -> bool:
        """True for the counts, which trec_eval's all line sums instead of averaging."""
        return self.aggregation == "sum"

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every lower-case name that means this measure (none for a name read only as written)."""
        if self.exact_case:
            return ()
        names = (self.name, *self.aliases, self.trec_name, self.trec_cut_name)
        return tuple(dict.fromkeys(name.lower() for name in names if name))


DECLARATIONS: dict[str, Declaration] = {}


def declare(**fields) -> Declaration:
    """Add one measure to the registry, refusing a declaration that contradicts itself or another one."""
    if not fields.get("aggregation"):
        fields["aggregation"] = {"count": "sum", "text": "none"}.get(fields.get("kind", ""), "mean")
    declaration = Declaration(**fields)
    problems = []
    if declaration.aggregation not in AGGREGATIONS:
        problems.append(f"unknown aggregation {declaration.aggregation!r}"
                        f"{did_you_mean(declaration.aggregation, AGGREGATIONS)}")
    if declaration.trec_lines not in TREC_LINES:
        problems.append(f"unknown trec_lines {declaration.trec_lines!r}"
                        f"{did_you_mean(declaration.trec_lines, TREC_LINES)}")
    problems += [f"{field} {value!r} is not one of its parameters"
                 for field, value in (("trec_list", declaration.trec_list), ("trec_whole", declaration.trec_whole))
                 if value is not None and value not in declaration.parameters]
    if declaration.kind not in KINDS:
        problems.append(f"unknown kind {declaration.kind!r}{did_you_mean(declaration.kind, KINDS)}")
    if declaration.cutoff not in CUTOFF_RULES:
        problems.append(f"unknown cutoff rule {declaration.cutoff!r}{did_you_mean(declaration.cutoff, CUTOFF_RULES)}")
    problems += [f"unknown parameter {name!r}{did_you_mean(name, PARAMETERS)}"
                 for name in declaration.parameters if name not in PARAMETERS]
    taken = spellings()
    if declaration.name in DECLARATIONS:
        problems.append(f"the name {declaration.name!r} is already declared")
    problems += [f"the name {spelling!r} is already {taken[spelling]}'s"
                 for spelling in declaration.spellings if spelling in taken]
    if problems:
        raise ValueError(f"measure {declaration.name!r}: {'; '.join(problems)}")
    DECLARATIONS[declaration.name] = declaration
    return declaration


def declaration_of(name: str) -> Declaration:
    """The declaration of a measure by its canonical name; a ValueError that suggests the closest names.

    >>> declaration_of("AP").trec_name, declaration_of("AP").formula is ap_formula
    ('map', True)
    >>> declaration_of("RPB")
    Traceback (most recent call last):
    ...
    ValueError: unknown measure 'RPB'; did you mean 'RBP'?
    """
    if name not in DECLARATIONS:
        raise ValueError(f"unknown measure {name!r}{did_you_mean(name, DECLARATIONS)}")
    return DECLARATIONS[name]


def aggregate(name: str, values) -> float:
    """One number from the queries' values of a measure, by its declared aggregation (NaN cells left out).

    >>> round(aggregate("GMAP", [0.5, 0.0]), 6)  # the square root of 0.5 x 0.00001
    0.002236
    """
    values = np.asarray(values, dtype="float64")
    values = values[~np.isnan(values)]
    if not len(values):
        return math.nan
    how = declaration_of(name).aggregation
    if how == "geometric":
        return float(np.exp(np.mean(np.log(np.maximum(values, GEOMETRIC_FLOOR)))))
    return float(values.sum()) if how == "sum" else float(values.mean())


def spellings() -> dict[str, str]:
    """Every lower-case spelling -> the canonical name of its measure."""
    return {spelling: d.name for d in DECLARATIONS.values() for spelling in d.spellings}


# --- the single-query formulas of the reference evaluator ------------------------------------------


def _gain_name(measure) -> metrics.Gain:
    return "exponential" if measure.gain == "exp" else "linear"


def _mapped_gains(measure, query: OneQuery) -> tuple[list[float], list[float]]:
    """With a gain map: the gain of each ranked document and of each judged one (a listed grade gets its gain)."""
    gain_map = {float(level): gain for level, gain in measure.gains}

    def gain_of(grade: float) -> float:
        return gain_map.get(grade, grade) if grade >= 0 else 0.0

    ranked = [gain_of(query.judgments[doc]) if doc in query.judgments else 0.0 for doc in query.ranked]
    return ranked, [gain_of(grade) for grade in query.judgments.values()]


def _dcg_of_gains(gains: list[float], k: int | None) -> float:
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains[:k], start=1))


def ndcg_formula(measure, query: OneQuery) -> float:
    """nDCG@k with :func:`helpers.metrics.ndcg`; with a gain map, DCG of the mapped gains over the ideal's."""
    k = measure.cutoff
    if measure.gains is None:
        grades = query.grades()
        judged = [max(grade, 0.0) for grade in query.judgments.values()]
        ideal = judged if query.ideal == "judged" else grades
        return metrics.ndcg(grades, k, ideal=ideal or [0.0], gain=_gain_name(measure))
    ranked, judged = _mapped_gains(measure, query)
    pool = judged if query.ideal == "judged" else ranked
    ideal_dcg = _dcg_of_gains(sorted((gain for gain in pool if gain > 0), reverse=True), k)
    return _dcg_of_gains(ranked, k) / ideal_dcg if ideal_dcg > 0 else 0.0


def cg_formula(measure, query: OneQuery) -> float:
    """CG@k: the gains of the top k, summed."""
    if measure.gains is not None:
        return sum(_mapped_gains(measure, query)[0][: measure.cutoff], 0.0)
    return sum((metrics.gain_of(g, _gain_name(measure)) for g in metrics.cut(query.grades(), measure.cutoff)), 0.0)


def rr_formula(measure, query: OneQuery) -> float:
    """RR@k with :func:`helpers.metrics.reciprocal_rank`."""
    return metrics.reciprocal_rank(query.ranked, query.relevant(measure.rel), measure.cutoff)


def ap_formula(measure, query: OneQuery) -> float:
    """AP@k with :func:`helpers.metrics.average_precision`."""
    return metrics.average_precision(query.ranked, query.relevant(measure.rel), measure.cutoff,
                                     denominator=query.denominator)


def precision_formula(measure, query: OneQuery) -> float:
    """P@k with :func:`helpers.metrics.precision_at_k`."""
    return metrics.precision_at_k(query.ranked, query.relevant(measure.rel), measure.cutoff)


def recall_formula(measure, query: OneQuery) -> float:
    """R@k with :func:`helpers.metrics.recall_at_k`."""
    return metrics.recall_at_k(query.ranked, query.relevant(measure.rel), measure.cutoff,
                               denominator=query.denominator)


def hit_formula(measure, query: OneQuery) -> float:
    """Hit@k with :func:`helpers.metrics.hit_at_k`."""
    return metrics.hit_at_k(query.ranked, query.relevant(measure.rel), measure.cutoff)


def rprec_formula(measure, query: OneQuery) -> float:
    """Precision after R documents."""
    relevant = query.relevant(measure.rel)
    return sum(doc in relevant for doc in query.ranked[: len(relevant)]) / len(relevant) if relevant else 0.0


def bpref_formula(measure, query: OneQuery) -> float:
    """Each relevant document loses the share of judged non-relevant documents ranked above it."""
    relevant = query.relevant(measure.rel)
    R = len(relevant)
    nonrelevant = sum(0 <= grade < measure.rel for grade in query.judgments.values())
    total, above = 0.0, 0
    for doc in query.ranked:
        if doc in relevant:
            total += 1.0 - min(above, R) / min(nonrelevant, R) if above else 1.0
        elif query.judgments.get(doc, -1) >= 0:
            above += 1
    return total / R if R else 0.0


def num_rel_formula(measure, query: OneQuery) -> float:
    """The judged documents with a grade of rel or more."""
    return float(len(query.relevant(measure.rel)))


def num_rel_ret_formula(measure, query: OneQuery) -> float:
    """The returned documents with a grade of rel or more."""
    relevant = query.relevant(measure.rel)
    return float(sum(doc in relevant for doc in query.ranked))


def num_ret_formula(measure, query: OneQuery) -> float:
    """The documents returned."""
    return float(len(query.ranked))


def judged_formula(measure, query: OneQuery) -> float:
    """The judged share of the top k, over min(k, documents returned)."""
    top = query.ranked[: measure.cutoff]
    return sum(doc in query.judgments for doc in top) / len(top) if top else 0.0


def rbp_formula(measure, query: OneQuery) -> float:
    """(1 - p) times the sum of p^(rank - 1) over the relevant documents of the top k."""
    relevant, p = query.relevant(measure.rel), measure.p
    return sum((1 - p) * p ** (rank - 1) for rank, doc in enumerate(query.ranked[: measure.cutoff], start=1)
               if doc in relevant)


def rbp_residual_formula(measure, query: OneQuery) -> float:
    """The weight RBP would gain if every unjudged document of the top k, and every rank after it, were relevant."""
    p, top = measure.p, query.ranked[: measure.cutoff]
    unjudged = sum((1 - p) * p ** (rank - 1) for rank, doc in enumerate(top, start=1) if doc not in query.judgments)
    return unjudged + p ** len(top)


def err_formula(measure, query: OneQuery) -> float:
    """The cascade: at each rank the user stops with probability (2^grade - 1) / 2^4 and gains 1 / rank."""
    total, going_on = 0.0, 1.0
    for rank, grade in enumerate(query.grades()[: measure.cutoff], start=1):
        stop = (2**grade - 1) / 2**_engine.ERR_MAX_GRADE
        total += going_on * stop / rank
        going_on *= 1 - stop
    return total


def _precisions_at_relevant(ranked: list, relevant: set) -> list[float]:
    """The precision at each relevant document of the ranking, top first."""
    precisions, found = [], 0
    for rank, doc in enumerate(ranked, start=1):
        if doc in relevant:
            found += 1
            precisions.append(found / rank)
    return precisions


def iprec_formula(measure, query: OneQuery) -> float:
    """The best precision at or after the document that reaches recall x R relevant (R rounded half up)."""
    relevant = query.relevant(measure.rel)
    needed = max(math.floor(measure.recall * len(relevant) + 0.5), 1)
    return max(_precisions_at_relevant(query.ranked, relevant)[needed - 1:], default=0.0)


def rprec_mult_formula(measure, query: OneQuery) -> float:
    """Precision after trunc(times x R + 0.9) documents; a rank past the list's end is not relevant."""
    relevant = query.relevant(measure.rel)
    depth = math.trunc(measure.times * len(relevant) + 0.9)
    return sum(doc in relevant for doc in query.ranked[:depth]) / depth if depth else 0.0


def _set_counts(measure, query: OneQuery) -> tuple[int, int, int]:
    """Relevant returned, returned, and R."""
    relevant = query.relevant(measure.rel)
    return sum(doc in relevant for doc in query.ranked), len(query.ranked), len(relevant)


def set_p_formula(measure, query: OneQuery) -> float:
    """The relevant returned documents over the returned ones."""
    found, returned, _ = _set_counts(measure, query)
    return found / returned if returned else 0.0


def set_recall_formula(measure, query: OneQuery) -> float:
    """The relevant returned documents over R."""
    found, _, relevant = _set_counts(measure, query)
    return found / relevant if relevant else 0.0


def set_map_formula(measure, query: OneQuery) -> float:
    """Set precision times set recall."""
    return set_p_formula(measure, query) * set_recall_formula(measure, query)


def set_f_formula(measure, query: OneQuery) -> float:
    """(x + 1) P R / (x P + R) of the set precision and set recall, x the recall weight (1: F1)."""
    precision, recall, x = set_p_formula(measure, query), set_recall_formula(measure, query), measure.recall_weight
    return (x + 1) * precision * recall / (x * precision + recall) if precision + recall else 0.0


def set_relative_p_formula(measure, query: OneQuery) -> float:
    """The relevant returned documents over min(returned, R)."""
    found, returned, relevant = _set_counts(measure, query)
    return found / min(returned, relevant) if min(returned, relevant) else 0.0


def relative_p_formula(measure, query: OneQuery) -> float:
    """The relevant documents in the top k over min(k, R)."""
    relevant = query.relevant(measure.rel)
    found = sum(doc in relevant for doc in query.ranked[: measure.cutoff])
    return found / min(measure.cutoff, len(relevant)) if relevant else 0.0


def num_nonrel_judged_ret_formula(measure, query: OneQuery) -> float:
    """The returned documents judged with a grade from 0 up to below rel."""
    return float(sum(0 <= query.judgments.get(doc, -1) < measure.rel for doc in query.ranked))


def utility_formula(measure, query: OneQuery) -> float:
    """Weighted counts: relevant returned, other returned, relevant missed (trec_eval's default 1, -1, 0)."""
    found, returned, relevant = _set_counts(measure, query)
    kept, other, missed, _ = measure.weights
    return float(kept * found + other * (returned - found) + missed * (relevant - found))


def eleven_point_formula(measure, query: OneQuery) -> float:
    """The interpolated precision at each recall level (0, 0.1, ..., 1 by default), averaged."""
    return sum(iprec_formula(replace(measure, recall=level), query) for level in measure.levels) / len(measure.levels)


def unjudged_formula(measure, query: OneQuery) -> float:
    """The documents of the top k without a judgment of grade 0 or more, over k."""
    return sum(query.judgments.get(doc, -1) < 0 for doc in query.ranked[: measure.cutoff]) / measure.cutoff


def bing_formula(measure, query: OneQuery) -> float:
    """Over R, each relevant returned document's 1 / log2(2 + the documents not relevant above it)."""
    relevant = query.relevant(measure.rel)
    total, found = 0.0, 0
    for rank, doc in enumerate(query.ranked, start=1):
        if doc in relevant:
            found += 1
            total += 1 / math.log2(2 + rank - found)
    return total / len(relevant) if relevant else 0.0


def infap_formula(measure, query: OneQuery) -> float:
    """Each relevant document: 1/rank, plus (rank-1)/rank x the pooled share above x the smoothed relevant
    share of the judged above; summed over R. Pooled: any judgment; judged: a grade of 0 or more."""
    relevant, epsilon = query.relevant(measure.rel), _engine.INFAP_EPSILON
    total, pooled, relevant_above, nonrelevant_above = 0.0, 0, 0, 0
    for rank, doc in enumerate(query.ranked, start=1):
        if doc not in query.judgments:
            continue
        if doc in relevant:
            if rank == 1:
                total += 1.0
            else:
                above = rank - 1
                share_relevant = (relevant_above + epsilon) / (relevant_above + nonrelevant_above + 2 * epsilon)
                total += 1 / rank + (above / rank) * (pooled / above) * share_relevant
            relevant_above += 1
        elif query.judgments[doc] >= 0:
            nonrelevant_above += 1
        pooled += 1
    return total / len(relevant) if relevant else 0.0


def trec_rbp_formula(measure, query: OneQuery) -> float:
    """(1 - p) times the sum of p^(rank - 1) x gain, the gain the grade over the query's top grade when above 1."""
    top = max([0.0, *query.judgments.values()])
    scale = top if top > 1 else 1.0
    return sum((1 - measure.p) * measure.p ** (rank - 1) * grade / scale
               for rank, grade in enumerate(query.grades(), start=1))


def trec_rbp_residual_formula(measure, query: OneQuery) -> float:
    """p^n plus (1 - p) p^(rank - 1) of each returned document without a grade of 0 or more; 0 if there is none."""
    p = measure.p
    unjudged = [rank for rank, doc in enumerate(query.ranked, start=1) if query.judgments.get(doc, -1) < 0]
    return p ** len(query.ranked) + sum((1 - p) * p ** (rank - 1) for rank in unjudged) if unjudged else 0.0


def _trec_gains(measure, query: OneQuery) -> tuple[list[float], list[float]]:
    """The gain of each ranked document and of each judged one: the grade, or a gain map's (trec_eval's ndcg_rel,
    Rndcg and G); a negative grade and an unjudged document gain 0."""
    if measure.gains is not None:
        return _mapped_gains(measure, query)
    return query.grades(), [max(grade, 0.0) for grade in query.judgments.values()]


def _dcg_and_ideal(measure, query: OneQuery) -> tuple[list[float], list[float]]:
    """The DCG down to each rank of the list and of the ideal ranking of the positive gains."""
    ranked, judged = _trec_gains(measure, query)
    ideal_grades = sorted((gain for gain in judged if gain > 0), reverse=True)
    dcg = list(itertools.accumulate(gain / math.log2(rank + 1) for rank, gain in enumerate(ranked, 1)))
    ideal = list(itertools.accumulate(grade / math.log2(rank + 1) for rank, grade in enumerate(ideal_grades, 1)))
    return dcg, ideal


def ndcg_rel_formula(measure, query: OneQuery) -> float:
    """nDCG at each relevant returned document's rank, and at the list's end for each relevant one not returned,
    averaged over the relevant documents (a grade above 0); the ideal ranking is cut at R."""
    dcg, ideal = _dcg_and_ideal(measure, query)
    if not ideal:
        return 0.0
    grades = _trec_gains(measure, query)[0]
    at_relevant = [dcg[rank - 1] / ideal[min(rank, len(ideal)) - 1]
                   for rank, grade in enumerate(grades, start=1) if grade > 0]
    at_end = dcg[-1] / ideal[-1] if dcg else 0.0
    return (sum(at_relevant) + (len(ideal) - len(at_relevant)) * at_end) / len(ideal)


def rndcg_formula(measure, query: OneQuery) -> float:
    """nDCG at the depth where each grade of the ideal ranking ends (the DCG stops at the list's end), and at the
    list's end when it runs 2 or more past R, averaged; 0 without a document of grade rel or more."""
    dcg, ideal = _dcg_and_ideal(measure, query)
    if not query.relevant(measure.rel) or not ideal:
        return 0.0
    grades = sorted((gain for gain in _trec_gains(measure, query)[1] if gain > 0), reverse=True)
    ends = [depth for depth in range(1, len(grades) + 1) if depth == len(grades) or grades[depth] != grades[depth - 1]]
    values = [(dcg[min(depth, len(dcg)) - 1] if dcg else 0.0) / ideal[depth - 1] for depth in ends]
    if len(dcg) >= len(ideal) + 2:
        values.append(dcg[-1] / ideal[-1])
    return sum(values) / len(values)


def g_formula(measure, query: OneQuery) -> float:
    """Each returned document's grade over log2(2 + the ideal's cost by its rank - the grades so far), summed,
    over the sum of the positive grades; the ideal's cost adds each ideal grade, at least 1, then 1 per rank."""
    ranked, judged = _trec_gains(measure, query)
    ideal = sorted((gain for gain in judged if gain > 0), reverse=True)
    if not ideal:
        return 0.0
    total, cost, gained = 0.0, 0.0, 0.0
    for rank, grade in enumerate(ranked, start=1):
        cost += max(ideal[rank - 1], 1.0) if rank <= len(ideal) else 1.0
        gained += grade
        if grade != 0:
            total += grade / math.log2(2 + cost - gained)
    return total / sum(ideal)


def relstring_formula(measure, query: OneQuery) -> str:
    """A character per document of the top k: its grade 0-9, '>' above 9, '.' if negative, '-' if not judged."""
    def character(doc) -> str:
        if doc not in query.judgments:
            return "-"
        grade = math.trunc(query.judgments[doc])
        return ">" if grade > 9 else "." if grade < 0 else str(grade)

    return "".join(character(doc) for doc in query.ranked[: measure.cutoff or _engine.RELSTRING_DEFAULT])


# --- the declarations ----------------------------------------------------------------------------------


# --- trec_eval's catalogue: what the command knows of trec_eval's measures, computed here or not ---------

# trec_eval 10.0's measures in the order it prints them (measures.c), and its nicknames
TREC_ORDER = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
              "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
              "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
              "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
              "num_nonrel_judged_ret", "yaap", "rbp", "rbp_resid", "unj")
OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
            "recip_rank", "iprec_at_recall", "P")
ALL_TREC = (*OFFICIAL, "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
            "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
            "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
            "num_nonrel_judged_ret")
NICKNAMES = {"official": OFFICIAL, "all_trec": ALL_TREC}

# --- the declarations ------

TREC_CUTOFFS = "5,10,15,20,30,100,200,500,1000"  # the cutoffs trec_eval prints for P, recall, ndcg_cut, map_cut

declare(name="nDCG", kind="graded", cutoff="optional", parameters=("gain", "gains"),
        definition="normalised discounted cumulative gain: DCG@k over the ideal ranking's DCG@k "
                   "(Järvelin and Kekäläinen 2002)",
        formula=ndcg_formula, kernel=_engine.ndcg_values,
        trec_name="ndcg", trec_cut_name="ndcg_cut", trec_default_cutoffs=TREC_CUTOFFS)
declare(name="CG", kind="graded", cutoff="optional", parameters=("gain", "gains"),
        definition="cumulative gain: the gains of the top k, summed (Järvelin and Kekäläinen 2002)",
        formula=cg_formula, kernel=_engine.cg_values)
declare(name="RR", kind="binary", cutoff="optional", parameters=("rel",),
        definition="reciprocal rank: 1 / the rank of the first relevant document (Voorhees 1999, TREC-8 QA)",
        formula=rr_formula, kernel=_engine.rr_values, aliases=("mrr",), trec_name="recip_rank")
declare(name="AP", kind="binary", cutoff="optional", parameters=("rel",),
        definition="average precision: the precision at each relevant document, summed, over R "
                   "(Harman 1993, TREC-2; trec_eval's map)",
        formula=ap_formula, kernel=_engine.ap_values,
        trec_name="map", trec_cut_name="map_cut", trec_default_cutoffs=TREC_CUTOFFS)
declare(name="P", kind="binary", cutoff="required", parameters=("rel",),
        definition="precision at k: the relevant documents in the top k, over k (Manning et al. 2008, ch. 8)",
        formula=precision_formula, kernel=_engine.precision_values, aliases=("precision",),
        trec_cut_name="P", trec_default_cutoffs=TREC_CUTOFFS)
declare(name="R", kind="binary", cutoff="required", parameters=("rel",),
        definition="recall at k: the relevant documents in the top k, over R (Manning et al. 2008, ch. 8)",
        formula=recall_formula, kernel=_engine.recall_values,
        trec_cut_name="recall", trec_default_cutoffs=TREC_CUTOFFS)
declare(name="Hit", kind="binary", cutoff="required", parameters=("rel",),
        definition="hit rate at k: 1 when a relevant document is in the top k (trec_eval's success)",
        formula=hit_formula, kernel=_engine.hit_values, trec_cut_name="success", trec_default_cutoffs="1,5,10")
declare(name="Rprec", kind="binary", cutoff="none", parameters=("rel",),
        definition="R-precision: the precision after R documents (Buckley and Voorhees 2000)",
        formula=rprec_formula, kernel=_engine.rprec_values, trec_name="Rprec")
declare(name="bpref", kind="binary", cutoff="none", parameters=("rel",),
        definition="binary preference: each relevant document loses the share of judged non-relevant documents "
                   "above it (Buckley and Voorhees 2004, as trec_eval computes it)",
        formula=bpref_formula, kernel=_engine.bpref_values, trec_name="bpref")
declare(name="GMAP", kind="binary", cutoff="none", parameters=("rel",),
        definition="geometric mean average precision: AP per query, averaged geometrically with AP 0 counted as "
                   "0.00001 (Robertson 2006, 'On GMAP'; trec_eval's gm_map)",
        formula=ap_formula, kernel=_engine.ap_values, trec_name="gm_map", aggregation="geometric", trec_lines="all")
declare(name="IPrec", kind="binary", cutoff="none", parameters=("recall", "rel"),
        definition="interpolated precision at a recall level: the best precision at any rank where that share of "
                   "R has been found (Manning et al. 2008, sec. 8.4; trec_eval 10.0's iprec_at_recall)",
        formula=iprec_formula, kernel=_engine.iprec_values, trec_name="iprec_at_recall", trec_list="recall",
        trec_default_cutoffs="0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1")
declare(name="11pt_avg", kind="binary", cutoff="none", parameters=("levels", "rel"),
        definition="11-point average: the interpolated precision at recall 0, 0.1, ..., 1, averaged (Manning et al. "
                   "2008, sec. 8.4; trec_eval's 11pt_avg, recall levels rounded as trec_eval 10.0 does)",
        formula=eleven_point_formula, kernel=_engine.eleven_point_values, trec_name="11pt_avg",
        trec_whole="levels")
declare(name="num_rel", kind="count", cutoff="none", parameters=("rel",),
        definition="the judged documents with a grade of rel or more (trec_eval)",
        formula=num_rel_formula, kernel=_engine.num_rel_values, trec_name="num_rel")
declare(name="num_rel_ret", kind="count", cutoff="none", parameters=("rel",),
        definition="the returned documents with a grade of rel or more (trec_eval)",
        formula=num_rel_ret_formula, kernel=_engine.num_rel_ret_values, trec_name="num_rel_ret")
declare(name="num_ret", kind="count", cutoff="none", parameters=(),
        definition="the documents returned, after depth and judged_only (trec_eval)",
        formula=num_ret_formula, kernel=_engine.num_ret_values, trec_name="num_ret")
declare(name="Rprec_mult", kind="binary", cutoff="none", parameters=("times", "rel"),
        definition="precision after times x R documents, the depth trunc(times x R + 0.9) (Buckley and Voorhees "
                   "2000, R-precision at multiples of R; trec_eval's Rprec_mult)",
        formula=rprec_mult_formula, kernel=_engine.rprec_mult_values, trec_name="Rprec_mult", trec_list="times",
        trec_default_cutoffs="0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0")
declare(name="set_P", kind="binary", cutoff="none", parameters=("rel",),
        definition="set precision: relevant returned over returned (Manning et al. 2008, sec. 8.3; trec_eval)",
        formula=set_p_formula, kernel=_engine.set_p_values, trec_name="set_P")
declare(name="set_recall", kind="binary", cutoff="none", parameters=("rel",),
        definition="set recall: relevant returned over R (Manning et al. 2008, sec. 8.3; trec_eval)",
        formula=set_recall_formula, kernel=_engine.set_recall_values, trec_name="set_recall")
declare(name="set_map", kind="binary", cutoff="none", parameters=("rel",),
        definition="unranked AP: set precision times set recall (trec_eval's set_map, once exact_unranked_avg_prec)",
        formula=set_map_formula, kernel=_engine.set_map_values, trec_name="set_map")
declare(name="set_F", kind="binary", cutoff="none", parameters=("recall_weight", "rel"),
        definition="set F: (x + 1) P R / (x P + R) of set precision and set recall, x the recall weight, 1 by "
                   "default (F1) (van Rijsbergen 1979, E measure; trec_eval's set_F.x)",
        formula=set_f_formula, kernel=_engine.set_f_values, trec_name="set_F",
        trec_whole="recall_weight")
declare(name="set_relative_P", kind="binary", cutoff="none", parameters=("rel",),
        definition="relative set precision: relevant returned over min(returned, R), the best a set that size "
                   "could do (trec_eval)",
        formula=set_relative_p_formula, kernel=_engine.set_relative_p_values, trec_name="set_relative_P")
declare(name="relative_P", kind="binary", cutoff="required", parameters=("rel",),
        definition="relative precision at k: the relevant documents in the top k over min(k, R), precision up "
                   "to R and recall after (trec_eval)",
        formula=relative_p_formula, kernel=_engine.relative_p_values,
        trec_cut_name="relative_P", trec_default_cutoffs=TREC_CUTOFFS)
declare(name="num_nonrel_judged_ret", kind="count", cutoff="none", parameters=("rel",),
        definition="the returned documents judged not relevant, grade 0 up to below rel (trec_eval)",
        formula=num_nonrel_judged_ret_formula, kernel=_engine.num_nonrel_judged_ret_values,
        trec_name="num_nonrel_judged_ret")
declare(name="utility", kind="binary", cutoff="none", parameters=("weights", "rel"),
        definition="set utility: weights times the relevant returned, other returned and relevant missed documents, "
                   "1, -1, 0 by default (Hull and Robertson 1999, TREC-8 filtering; trec_eval's utility)",
        formula=utility_formula, kernel=_engine.utility_values, trec_name="utility",
        trec_whole="weights")
declare(name="gm_bpref", kind="binary", cutoff="none", parameters=("rel",),
        definition="bpref per query, averaged geometrically with 0 counted as 0.00001 (trec_eval's gm_bpref)",
        formula=bpref_formula, kernel=_engine.bpref_values, trec_name="gm_bpref", aggregation="geometric",
        trec_lines="all")
declare(name="binG", kind="binary", cutoff="none", parameters=("rel",),
        definition="binary G: over R, each relevant returned document's 1 / log2(2 + documents not relevant above "
                   "it) (Buckley, trec_eval's experimental binG, 2008)",
        formula=bing_formula, kernel=_engine.bing_values, trec_name="binG")
declare(name="infAP", kind="binary", cutoff="none", parameters=("rel",),
        definition="inferred AP: AP estimated from a judged sample of the pool, a negative grade marking a pooled "
                   "but unjudged document (Yilmaz and Aslam 2006, CIKM; trec_eval's infAP)",
        formula=infap_formula, kernel=_engine.infap_values, trec_name="infAP")
declare(name="ndcg_rel", kind="graded", cutoff="none", parameters=("gains",),
        definition="nDCG averaged over the relevant documents: at each one's rank, or at the list's end if it is "
                   "not returned (Järvelin and Kekäläinen 2002; trec_eval's experimental ndcg_rel)",
        formula=ndcg_rel_formula, kernel=_engine.ndcg_rel_values, trec_name="ndcg_rel")
declare(name="Rndcg", kind="graded", cutoff="none", parameters=("gains", "rel"),
        definition="nDCG averaged over the depths where each grade of the ideal ranking ends, and the list's end "
                   "(Järvelin and Kekäläinen 2002; trec_eval's experimental Rndcg)",
        formula=rndcg_formula, kernel=_engine.rndcg_values, trec_name="Rndcg")
declare(name="G", kind="graded", cutoff="none", parameters=("gains",),
        definition="normalised gain: each document's grade over log2(2 + the ideal's gain by its rank - the list's), "
                   "summed, over the ideal's total gain (Buckley 2008, trec_eval's experimental G)",
        formula=g_formula, kernel=_engine.g_values, trec_name="G")
declare(name="relstring", kind="text", cutoff="optional", parameters=(),
        definition="the grades of the top k (10 by default) as a string: 0-9, '>' above 9, '.' for a negative "
                   "grade, '-' without a judgment (trec_eval's relstring, printed per query only)",
        formula=relstring_formula, kernel=_engine.relstring_values, trec_name="relstring", trec_cut_name="relstring",
        trec_lines="per query")
declare(name="Judged", kind="judged", cutoff="optional", parameters=(),
        definition="the judged share of the top k, over min(k, documents returned) (ir_measures' Judged)",
        formula=judged_formula, kernel=_engine.judged_values)
declare(name="unj", kind="judged", cutoff="required", parameters=(),
        definition="unjudged at k: the documents of the top k without a judgment of grade 0 or more, over k "
                   "(trec_eval 10.0's unj, a 'red flag' of poor coverage)",
        formula=unjudged_formula, kernel=_engine.unjudged_values, trec_cut_name="unj", trec_default_cutoffs="5,10,20")
declare(name="RBP", kind="binary", cutoff="optional", parameters=("p", "rel"),
        definition="rank-biased precision: (1 - p) times the sum of p^(rank-1) over the relevant documents "
                   "(Moffat and Zobel 2008); ir_measures' RBP(rel=1)",
        formula=rbp_formula, kernel=_engine.rbp_values)
declare(name="RBP_resid", kind="judged", cutoff="optional", parameters=("p",),
        definition="RBP's residual: what RBP would gain if every unjudged document of the top k and every rank "
                   "after it were relevant (Moffat and Zobel 2008)",
        formula=rbp_residual_formula, kernel=_engine.rbp_residual_values)
# trec_eval's rbp and rbp_resid differ from the binary RBP above: their names are read only in lower case
declare(name="rbp", kind="graded", cutoff="none", parameters=("p",), defaults=(("p", 0.9),), exact_case=True,
        definition="trec_eval's graded RBP: (1 - p) times the sum of p^(rank-1) x the grade, over the query's top "
                   "grade when it is above 1, p = 0.9 by default (Moffat and Zobel 2008; trec_eval 10.0's rbp)",
        formula=trec_rbp_formula, kernel=_engine.trec_rbp_values, trec_name="rbp",
        trec_whole="p")
declare(name="rbp_resid", kind="judged", cutoff="none", parameters=("p",), defaults=(("p", 0.9),), exact_case=True,
        definition="trec_eval's rbp_resid: 1 minus the RBP weights of the judged returned documents, 0 when every "
                   "returned document is judged (Moffat and Zobel 2008; trec_eval 10.0's rbp_resid)",
        formula=trec_rbp_residual_formula, kernel=_engine.trec_rbp_residual_values, trec_name="rbp_resid",
        trec_whole="p")
declare(name="ERR", kind="graded", cutoff="optional", parameters=(),
        definition="expected reciprocal rank: a cascade where the user stops at a document with probability "
                   "(2^grade - 1) / 2^4, 4 the maximum grade (Chapelle et al. 2009; gdeval, ir_measures)",
        formula=err_formula, kernel=_engine.err_values, max_grade=_engine.ERR_MAX_GRADE)


# --- the table of measures: lesson 09's list and the learner's guide's, made from the declarations -----

WRITTEN = {"required": ("{name}@k",), "optional": ("{name}", "{name}@k"), "none": ("{name}",)}


def _written(declaration: Declaration) -> str:
    """How to write the measure: 'P@k', 'nDCG, nDCG@k'; a parameter without a default as 'IPrec(recall=...)'."""
    needed = [name for name in declaration.parameters if PARAMETERS[name].default is None and name != "gains"]
    name = declaration.name + (f"({','.join(f'{n}=...' for n in needed)})" if needed else "")
    return ", ".join(form.format(name=name) for form in WRITTEN[declaration.cutoff])


def _parameter_text(declaration: Declaration, name: str) -> str:
    """A parameter with its default ('rel=1'), or its name alone when it has none ('gains')."""
    default = dict(declaration.defaults).get(name, PARAMETERS[name].default)
    if isinstance(default, tuple):  # recall levels, utility's weights: written as trec_eval takes them
        default = ",".join(f"{value:g}" for value in default)
    return name if default is None else f"{name}={default}"


def _trec_text(declaration: Declaration) -> str:
    """trec_eval's names of the measure ('map, map_cut_k'), '—' when trec_eval does not compute it."""
    names = [declaration.trec_name, declaration.trec_cut_name and f"{declaration.trec_cut_name}_k"]
    return ", ".join(name for name in names if name) or "—"


def measure_table() -> pd.DataFrame:
    """Every measure ``evaluate`` takes, one row each, made from the declarations (lesson 09, learner's guide).

    >>> measure_table().loc["RR", ["write it", "parameters", "trec_eval", "also"]].tolist()
    ['RR, RR@k', 'rel=1', 'recip_rank', 'mrr']
    """
    rows = [
        {
            "measure": d.name,
            "write it": _written(d),
            "parameters": ", ".join(_parameter_text(d, name) for name in d.parameters) or "—",
            "trec_eval": _trec_text(d),
            "also": ", ".join(d.aliases) or "—",
            "what it is": d.definition,
        }
        for d in DECLARATIONS.values()
    ]
    return pd.DataFrame(rows).set_index("measure")
