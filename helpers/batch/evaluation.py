"""Evaluate a whole run against a whole set of judgments at once (lesson 09).

``evaluate(qrels, run, ["nDCG@10", "RR@10", "AP"])`` gives one row per query,
one column per measure, and the mean of each column. It follows trec_eval's
conventions, so its numbers can be checked against trec_eval's own test files:

- documents are ordered by score, highest first; equal scores are ordered by
  docno in *descending* string order; a ``rank`` column is ignored;
- a document is relevant when its grade is at least ``rel`` (default 1); the
  threshold never changes nDCG, whose gain is the grade itself (linear) or
  2**grade - 1 (``gain=exp``); negative grades count as 0;
- the ideal ranking of nDCG uses every judged document of the query with a
  grade above 0, returned or not; AP and recall divide by R, the number of
  relevant judged documents;
- P@k divides by k even when fewer than k documents were returned;
- a query of the qrels missing from the run scores 0 (trec_eval ``-c``;
  ``missing="skip"`` leaves it out, trec_eval's default); a query of the run
  missing from the qrels is ignored;
- a query without any relevant judged document scores 0 and counts in the
  mean, as in trec_eval (``no_relevant="skip"`` leaves it out of the means,
  ``"error"`` refuses it);
- a grade is its integer part, as trec_eval reads grades (``atol``): in a
  file or a text column it is decided on the text (``1.9999999999999999`` is
  1); a float column is truncated as the float it holds, and a float cannot
  hold that number (Python reads it as 2.0): give such grades as text;
- when under half of the queries (``MATCH_SHARE``) return a judged
  document, or query ids or docnos match only once case, spaces and leading
  zeros are ignored, ``evaluate`` warns (:class:`DocnoMatchWarning`, saying
  which ids it compared) or, with ``strict=True``, raises ``ValueError``: the
  classic cause is ids written differently in the two inputs (``"7.0"``,
  ``"007"`` or ``"7 "`` against 7, ``DOC5`` against ``doc5``); when every
  score of a query is tied, or the scores rise with the run's rank, it warns
  (:class:`RunOrderWarning`). See :mod:`helpers.batch.diagnosis`.

Each convention has a named alternative (``ideal="returned"``,
``denominator="min_k_R"``, ``judged_only=True``, ``fractional_grades="keep"``):
see :func:`evaluate`.

The numbers come from the vectorised engine in :mod:`helpers.batch._engine`;
:mod:`helpers.batch.reference` computes the same numbers with a short loop
over queries and :mod:`helpers.metrics`, to be read next to the lessons.

Measures are named the ir_measures way: ``nDCG@10``, ``nDCG(gain=exp)@10``,
``nDCG``, ``RR``, ``RR(rel=2)@10``, ``AP``, ``AP@100``, ``P@5``, ``R@100``,
``Hit@3``, ``CG@5``, ``Rprec``, ``bpref``, ``Judged@10``, ``num_rel``,
``num_rel_ret``, ``num_ret``, ``RBP``, ``RBP_resid``, ``ERR@20``. Each is
declared once in :mod:`helpers.batch.registry` (its definition, formula and
kernel); see :mod:`helpers.batch.measures` for the grammar, the gain maps
and the trec_eval names that are accepted too. The
counts (num_...) are per query; trec_eval's ``all`` line sums them, where
``means`` averages them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Literal, NoReturn, get_args

import numpy as np
import pandas as pd
import pyarrow as pa

from helpers._checks import MAX_EXPONENTIAL_GRADE, check_choice, check_whole
from helpers.batch import _engine, diagnosis
from helpers.batch.diagnosis import MATCH_SHARE, DocnoMatchWarning, RunOrderWarning  # noqa: F401 (re-exported)
from helpers.batch.measures import (  # noqa: F401 (parse_measure, supported_measures: imported from here too)
    MEASURES,
    Measure,
    parse_measure,
    parse_measures,
    supported_measures,
)
from helpers.batch.registry import aggregate, declaration_of
from helpers.batch.trec_io import Source, grades_of_text, read_with_source
from helpers.metrics import DENOMINATORS, IDEALS, Denominator, Ideal, UndefinedMetricError

FractionalGrades = Literal["truncate", "keep"]
FRACTIONAL_GRADES: tuple[str, ...] = get_args(FractionalGrades)

MISSING_POLICIES = ("zero", "skip")
NO_RELEVANT_POLICIES = ("zero", "skip", "error")


# --- input checks ----------------------------------------------------------

_COLUMN_ALIASES = {"query_id": "qid", "doc_id": "docno", "relevance": "grade"}


def _as_frame(data, kind: str, lenient: bool = False) -> tuple[pd.DataFrame, Source | None]:
    """Read a path, or check a DataFrame; return it with the standard column names (and its file)."""
    if isinstance(data, str | os.PathLike):
        return read_with_source(data, kind, for_evaluation=True, lenient=lenient)
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"{kind} must be a pandas DataFrame or the path of a TREC {kind} file, got {type(data).__name__}"
        )
    value = "grade" if kind == "qrels" else "score"
    frame = data.rename(columns={k: v for k, v in _COLUMN_ALIASES.items() if k in data.columns})
    absent = [c for c in ("qid", "docno", value) if c not in frame.columns]
    if absent:
        raise ValueError(
            f"{kind} needs the columns qid, docno, {value}; missing {absent} (it has {list(data.columns)})"
        )
    if frame.empty:
        raise ValueError(f"{kind} is empty: there is nothing to evaluate")
    if kind == "qrels" and _is_text(frame["grade"]):
        frame = frame.assign(grade=_text_grades(frame["grade"]))
    _check_numbers(frame[value], kind)
    return frame, None


def _is_text(column: pd.Series) -> bool:
    return isinstance(column.dtype, pd.StringDtype) or (
        column.dtype == object and pd.api.types.infer_dtype(column, skipna=True) == "string"
    )


def _text_grades(column: pd.Series) -> np.ndarray:
    """Grades given as text, read like a qrels file's (the integer part of the text)."""

    def refuse(row: int, problem: str) -> NoReturn:
        raise ValueError(f"qrels: {column.name}, row {_engine.row_label(column.index, row)!r}: {problem}")

    text = pa.array(column, type=pa.large_string(), from_pandas=True)
    if text.null_count:
        refuse(int(np.argmax(np.asarray(text.is_null()))), "a grade is missing (NaN, None or <NA>)")
    return grades_of_text(text, refuse)


def _check_numbers(column: pd.Series, kind: str) -> None:
    if pd.api.types.is_bool_dtype(column.dtype) or not pd.api.types.is_numeric_dtype(column.dtype):
        raise TypeError(f"{kind}: the column {column.name!r} must hold numbers, it has dtype {column.dtype}")
    values = column.to_numpy(dtype="float64", na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        row = _engine.row_label(column.index, int(np.argmax(bad)))
        raise ValueError(f"{kind}: {column.name} must be a finite number, row {row!r} has {values[bad][0]}")


@dataclass(frozen=True)
class _Options:
    """The checked options of one ``evaluate`` call."""

    missing: str
    no_relevant: str
    depth: int | None
    judged_only: bool
    ideal: str
    denominator: str
    fractional_grades: str
    strict: bool


def _check_depth(depth) -> int | None:
    return None if depth is None else check_whole(depth, "depth")


def _check_flag(value, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def _qrels_grades(qrels: pd.DataFrame, fractional_grades: str, measures: list[Measure]) -> np.ndarray:
    """The grades as float64: fractions truncated toward 0 like trec_eval's atol, or kept."""
    grade = qrels["grade"].to_numpy(dtype="float64", na_value=np.nan)
    if fractional_grades == "truncate":
        grade = np.trunc(grade) + 0.0  # + 0.0 turns -0.0 into 0.0
    for measure in measures:
        most = declaration_of(measure.name).max_grade
        if most is not None and len(grade) and grade.max() > most:
            raise ValueError(f"qrels: the grade {grade.max():g} is above {most:g}, the maximum grade of "
                             f"{measure} ({declaration_of(measure.name).definition})")
    exponential = [str(m) for m in measures if m.gain == "exp"]
    if exponential and len(grade) and grade.max() > MAX_EXPONENTIAL_GRADE:
        raise ValueError(
            f"qrels: the grade {grade.max():g} is too high for {exponential[0]}: exponential gain "
            f"2^grade - 1 overflows a float above grade {MAX_EXPONENTIAL_GRADE}; use linear gain "
            "or smaller grades"
        )
    return grade


# --- from two frames to the engine's arrays ---------------------------------


def _prepare(qrels, run, sources, measures, options: _Options):
    """Turn the two frames into flat arrays: the judgments, the run in trec_eval order, and what looked wrong."""
    q_qid, r_qid = _engine.same_kind(_engine.id_values(qrels["qid"], "qrels"),
                                     _engine.id_values(run["qid"], "run"))
    q_doc, r_doc = _engine.same_kind(_engine.id_values(qrels["docno"], "qrels"),
                                     _engine.id_values(run["docno"], "run"))
    q_query, q_first = _engine.query_codes(q_qid)
    r_query, r_first = _engine.query_codes(r_qid, compact=True)
    run_to_qrels, qrels_to_run = _engine.match_labels(q_qid, q_first, r_qid, r_first)
    if (run_to_qrels < 0).all():
        raise ValueError(diagnosis.no_shared_query(q_qid, q_first, r_qid, r_first))
    q_grade = _qrels_grades(qrels, options.fractional_grades, measures)
    frames = {"qrels": (qrels, q_qid, q_doc, sources[0]), "run": (run, r_qid, r_doc, sources[1])}
    try:
        r_grade = _grades_of_returned(frames, q_query, r_query, qrels_to_run, q_grade, force_exact=False)
    except _engine.KeyCollision:  # two pairs shared a hashed key: number the docnos exactly
        r_grade = _grades_of_returned(frames, q_query, r_query, qrels_to_run, q_grade, force_exact=True)
    judged_per_query = np.bincount(r_query[~np.isnan(r_grade)], minlength=len(run_to_qrels))
    matches = _count_matches(qrels, run, sources, r_query, run_to_qrels, q_first, r_grade, judged_per_query)
    near_docnos = diagnosis.near_docnos(judged_per_query, r_query, r_doc, run_to_qrels, q_query, q_doc)
    near_queries = diagnosis.near_queries(q_qid, q_first, r_qid, r_first, run_to_qrels, qrels_to_run)
    matches = replace(matches, near_queries=near_queries, near_docno_queries=near_docnos[0],
                      near_docno_example=near_docnos[1])
    score = run["score"].to_numpy(dtype="float64", na_value=np.nan)
    rank = _run_rank(run, sources[1])
    keep = run_to_qrels[r_query] >= 0
    if not keep.all():
        r_query, r_grade, score = r_query[keep], r_grade[keep], score[keep]
        r_doc = r_doc[keep] if isinstance(r_doc, np.ndarray) else r_doc.filter(pa.array(keep))
        rank = rank if not isinstance(rank, np.ndarray) else rank[keep]
    order = _engine.trec_order(r_query, score, r_doc)
    ordered = (r_query, score) if order is None else (r_query[order], score[order])
    labels = qrels["qid"].iloc[q_first].to_numpy(dtype=object)
    if len({type(label) for label in labels}) > 1:  # 1 and "1" in one column: show the ids as compared
        labels = np.array(_engine.labels_as_python(q_qid, q_first), dtype=object)
    order_problems = []
    if rank is not False:  # a frame without a rank column states no order to check
        order_problems = diagnosis.order_problems(r_query, score, rank if isinstance(rank, np.ndarray) else None,
                                                  ordered, lambda code: labels[run_to_qrels[code]])
    if order is not None:
        r_query, r_grade = r_query[order], r_grade[order]
    judged = _engine.Judgments(q_query, q_grade, labels)
    ranking = _engine.ranked(run_to_qrels, r_query, r_grade, options.depth, options.judged_only,
                             judged.n_queries)
    return judged, ranking, diagnosis.id_problems(matches), order_problems


def _run_rank(run: pd.DataFrame, source) -> np.ndarray | None | bool:
    """The run's own order, to compare with its scores: its whole-number rank column, None for the rows'
    order (a file, or a rank column that is not whole numbers), False when a frame states no order."""
    if "rank" not in run.columns:
        return None if source is not None else False
    rank = run["rank"]
    if pd.api.types.is_integer_dtype(rank.dtype) and not rank.isna().any():
        values = rank.to_numpy()  # int32 as a file's ranks are read: no int64 copy of the run's length
        return values if values.dtype.kind in "iu" else rank.to_numpy(dtype=np.int64)
    if pd.api.types.is_float_dtype(rank.dtype):
        values = rank.to_numpy(dtype="float64", na_value=np.nan)
        if np.isfinite(values).all() and (values == np.trunc(values)).all():
            return values.astype(np.int64)
    return None


def _grades_of_returned(frames, q_query, r_query, qrels_to_run, q_grade, force_exact: bool) -> np.ndarray:
    """Check both sides for repeated pairs, then find the grade of every run row (NaN: not judged)."""
    (qrels, q_qid, q_doc, q_source), (run, r_qid, r_doc, r_source) = frames["qrels"], frames["run"]
    keys = _engine.doc_keys(q_doc, r_doc, force_exact)
    # qrels queries get the run's query codes, so that equal pairs get equal keys on both sides
    n_run_queries = int(r_query.max()) + 1
    q_shared = np.where(qrels_to_run[q_query] >= 0, qrels_to_run[q_query], n_run_queries + q_query)
    # the run's pair keys are written over its docno keys (one array of the run's length, not two); for rows
    # of one query, equal pair keys mean equal docno keys, so the checks compare the pair keys
    exact, q_pairs = keys.exact, _engine.pair_keys(q_shared, keys.qrels)
    r_pairs = _engine.pair_keys(r_query, keys.run, in_place=True)
    del keys
    q_side, r_side = (q_shared, q_pairs, q_doc), (r_query, r_pairs, r_doc)
    _engine.check_no_repeat(q_pairs, _engine.same_pair_check(*q_side, exact),
                            _engine.duplicate_reporter(qrels, q_qid, q_doc, "qrels", q_source))
    _engine.check_no_repeat(r_pairs, _engine.same_pair_check(*r_side, exact),
                            _engine.duplicate_reporter(run, r_qid, r_doc, "run", r_source))
    rows, judgment = _engine.matches(q_pairs, r_pairs)  # the run rows with a judgment, and which
    if not _engine.same_pair_check(*r_side, exact, other=q_side)(rows, judgment).all():
        raise _engine.KeyCollision
    del r_pairs, r_side  # the run's keys go before its grades come (80 MB each at 100k x 100)
    grade = np.full(len(r_query), np.nan)
    grade[rows] = q_grade[judgment]
    return grade


def _count_matches(qrels, run, sources, r_query, run_to_qrels, q_first, r_grade,
                   judged_per_query) -> diagnosis.Matches:
    """Count the returned documents with a judgment (r_grade not NaN) and name one pair that did not match."""
    shared = run_to_qrels[r_query] >= 0
    judged = ~np.isnan(r_grade)
    judged_queries = np.count_nonzero(judged_per_query)
    unjudged = shared & ~judged
    run_row = int(np.argmax(unjudged if unjudged.any() else shared))  # an unjudged returned document, if any
    qrels_row = int(q_first[run_to_qrels[r_query[run_row]]])  # the first judgment of the same query
    return diagnosis.Matches(int(np.count_nonzero(shared)), int(np.count_nonzero(judged)),
                             int(np.count_nonzero(run_to_qrels >= 0)), int(judged_queries),
                             diagnosis.describe_matches(run, qrels, sources, run_row, qrels_row))


def rank_run(run, depth: int | None = None) -> pd.DataFrame:
    """The run in trec_eval order with a fresh ``rank`` column 1, 2, ... per query (lesson 09).

    Order: query by query (as they first appear), score descending, equal
    scores by docno in descending string order. ``depth`` keeps the first
    ``depth`` rows of each query (trec_eval ``-M``). ``run`` is a DataFrame
    (qid, docno, score) or the path of a TREC run file.

    >>> run = pd.DataFrame({"qid": ["q1"] * 3, "docno": ["a", "c", "b"], "score": [1.0, 1.0, 2.0]})
    >>> rank_run(run)[["docno", "rank"]].values.tolist()
    [['b', 1], ['c', 2], ['a', 3]]
    """
    frame, _ = read_with_source(run, "run") if isinstance(run, str | os.PathLike) else _as_frame(run, "run")
    depth = _check_depth(depth)
    order, rank = _engine.trec_ranked_rows(frame["qid"], frame["docno"],
                                           frame["score"].to_numpy(dtype="float64"), "run")
    keep = np.ones(len(order), dtype=bool) if depth is None else rank <= depth
    ranked = frame.iloc[order[keep]].reset_index(drop=True)
    ranked["rank"] = rank[keep]
    return ranked


def _nothing_to_find(measure: Measure, judged: _engine.Judgments) -> np.ndarray:
    """True for queries without a relevant judged document for this measure (never, for counts and Judged)."""
    if measure.kind in ("count", "judged", "text"):
        return np.zeros(judged.n_queries, dtype=bool)
    rel = 0 if measure.kind == "graded" else measure.rel
    return _engine.n_relevant(judged, rel) == 0


# --- the public entry point ------------------------------------------------


@dataclass(frozen=True)
class Evaluation:
    """What :func:`evaluate` returns; unpacks as ``per_query, means = evaluate(...)`` (lesson 09).

    ``per_query``: one row per query (index ``qid``), one column per measure.
    ``means``: the mean of each column (NaN cells, see ``no_relevant="skip"``,
    are left out of that column's mean); GMAP and gm_bpref give the geometric
    mean their declaration asks for, and relstring, text, has none. ``missing_queries``: queries of the
    qrels with no document in the run (scored 0, or dropped with
    ``missing="skip"``).
    """

    per_query: pd.DataFrame
    means: pd.Series
    missing_queries: tuple = ()

    def __iter__(self):
        return iter((self.per_query, self.means))


def evaluate(
    qrels,
    run,
    measures,
    *,
    missing: str = "zero",
    no_relevant: str = "zero",
    depth: int | None = None,
    judged_only: bool = False,
    ideal: Ideal = "judged",
    denominator: Denominator = "R",
    fractional_grades: FractionalGrades = "truncate",
    strict: bool = False,
    lenient: bool = False,
) -> Evaluation:
    """Evaluate a run: one value per query and measure, and the means (lesson 09).

    Parameters:
        qrels: DataFrame with columns qid, docno, grade (ir_measures' query_id,
            doc_id, relevance are accepted too) or the path of a TREC qrels file.
        run: DataFrame with columns qid, docno, score (a rank column is ignored)
            or the path of a TREC run file (``.gz`` allowed for both).
        measures: a name or list of names, e.g. ``["nDCG@10", "RR(rel=2)@10", "AP"]``.
        missing: queries of the qrels that are absent from the run count as 0
            (``"zero"``, default, trec_eval ``-c``) or are left out (``"skip"``,
            trec_eval's default).
        no_relevant: queries without a relevant judged document (for the
            measure's ``rel``; for nDCG/CG: no grade above 0) score 0 and count
            in the mean (``"zero"``, default, like trec_eval); with ``"skip"``
            their cell is NaN and is left out of that measure's mean, a query
            left out of every measure is dropped; ``"error"`` raises
            ``UndefinedMetricError`` naming them.
        depth: keep only the first ``depth`` documents of each query after
            ordering (trec_eval ``-M``); None keeps all.
        judged_only: drop every returned document without a judgment (grade
            0 or more) before ranking, like trec_eval ``-J``; applied after ``depth``.
        ideal: nDCG's ideal ranking from every judged document (``"judged"``,
            trec_eval, ir_measures, ranx) or from the returned list only
            (``"returned"``, scikit-learn's ``ndcg_score``, torchmetrics).
        denominator: AP@k and R@k divide by R (``"R"``, trec_eval, ir_measures,
            ranx) or by min(k, R) (``"min_k_R"``, as ``helpers.metrics``
            offers); AP without a cutoff always divides by R.
        fractional_grades: a grade such as 1.5 is truncated toward 0, as
            trec_eval reads grades (``"truncate"``: 1.5 -> 1, -0.5 -> 0), or
            used as it is (``"keep"``, scikit-learn and ranx). Grades in a
            file or given as text are read on the text (``1.9999999999999999``
            is 1); a float column is truncated as the float it holds.
        strict: raise ``ValueError`` instead of warning (``DocnoMatchWarning``)
            when under half of the queries (``MATCH_SHARE``) return a judged
            document, or when query ids or docnos match only once case,
            spaces and leading zeros are ignored: usually ids written
            differently in the two inputs.
        lenient: read a run file's lines with more than 6 fields as trec_eval
            does, ignoring the fields after the tag (with a warning saying how
            many lines were cut); by default such a line is refused, since it
            is usually two results joined by a lost line break.

    Queries in the run but not in the qrels are ignored. Ordering: score
    descending, ties by docno descending (trec_eval). Unjudged documents
    have grade 0. Ids are compared as text: 301, 301.0 and "301" are one query.
    A query whose scores are all tied, or rise with the run's rank, is
    evaluated by trec_eval's rules with a ``RunOrderWarning`` (see
    :mod:`helpers.batch.diagnosis`).

    >>> qrels = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["a", "b", "c"], "grade": [1, 2, 1]})
    >>> run = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["b", "x", "z"], "score": [3.0, 2.0, 1.0]})
    >>> per_query, means = evaluate(qrels, run, ["RR", "P@2"])
    >>> per_query["RR"].tolist(), float(means["P@2"])
    ([1.0, 0.0], 0.25)
    """
    measures = parse_measures(measures)
    options = _Options(
        missing=check_choice(missing, MISSING_POLICIES, "missing policy"),
        no_relevant=check_choice(no_relevant, NO_RELEVANT_POLICIES, "no_relevant policy"),
        depth=_check_depth(depth),
        judged_only=_check_flag(judged_only, "judged_only"),
        ideal=check_choice(ideal, IDEALS, "ideal"),
        denominator=check_choice(denominator, DENOMINATORS, "denominator"),
        fractional_grades=check_choice(fractional_grades, FRACTIONAL_GRADES, "fractional_grades"),
        strict=_check_flag(strict, "strict"),
    )
    lenient = _check_flag(lenient, "lenient")
    (qrels_frame, qrels_source), (run_frame, run_source) = _as_frame(qrels, "qrels"), _as_frame(run, "run", lenient)
    judged, ranking, id_problems, order_problems = _prepare(qrels_frame, run_frame, (qrels_source, run_source),
                                                            measures, options)
    diagnosis.warn_or_refuse(id_problems, options.strict)
    diagnosis.warn_order(order_problems)
    conventions = _engine.Conventions(options.ideal, options.denominator)
    values = {str(m): declaration_of(m.name).kernel(m, judged, ranking, conventions) for m in measures}
    per_query = pd.DataFrame(values, index=pd.Index(judged.labels, name="qid"))
    returned = ranking.returned
    if options.missing == "skip":
        per_query = per_query[returned]
    per_query = _apply_no_relevant(per_query, measures, judged, options.no_relevant).sort_index()
    means = per_query.mean(numeric_only=True).rename("mean")  # relstring, text, has no mean
    for measure in measures:  # gm_map and gm_bpref: the geometric mean their declaration asks for
        if declaration_of(measure.name).aggregation == "geometric" and str(measure) in per_query:
            means[str(measure)] = aggregate(measure.name, per_query[str(measure)])
    return Evaluation(per_query, means, tuple(judged.labels[~returned]))


def _apply_no_relevant(per_query, measures, judged: _engine.Judgments, policy: str) -> pd.DataFrame:
    """Leave the zeros (trec_eval), blank out (NaN) or refuse queries with nothing to find."""
    if policy == "zero":
        return per_query
    every_query = pd.Index(judged.labels, name="qid")
    empty = pd.DataFrame({str(m): _nothing_to_find(m, judged) for m in measures}, index=every_query)
    empty = empty.loc[per_query.index]
    if policy == "error":
        queries = empty.index[empty.any(axis=1)]
        if len(queries):
            raise UndefinedMetricError(
                f"{len(queries)} queries have no relevant judged document, e.g. {list(queries[:5])}; "
                "use no_relevant='zero' (trec_eval) or 'skip'"
            )
        return per_query
    return per_query.mask(empty).dropna(how="all")
