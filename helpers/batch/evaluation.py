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
  ``"error"`` refuses it).

Everything is computed on flat numpy arrays, with no Python loop over
queries: the run is put in trec_eval order once (no sorting at all when it
already is), each returned document with a grade above 0 gets its rank, and
per-query sums come from ``np.bincount``.

Measures are named the ir_measures way: ``nDCG@10``, ``nDCG(gain=exp)@10``,
``nDCG``, ``RR``, ``RR(rel=2)@10``, ``AP``, ``AP@100``, ``P@5``, ``R@100``,
``Hit@3``, ``CG@5``. See :func:`parse_measure` for the grammar and the
trec_eval names that are accepted too.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from helpers.batch.trec_io import read_qrels, read_run
from helpers.metrics import UndefinedMetricError

# --- measures: names, parameters, parsing ----------------------------------

MEASURES = {
    # name: (what it needs, cutoff required?, allowed parameters)
    "nDCG": ("graded", False, ("gain",)),
    "CG": ("graded", False, ("gain",)),
    "RR": ("binary", False, ("rel",)),
    "AP": ("binary", False, ("rel",)),
    "P": ("binary", True, ("rel",)),
    "R": ("binary", True, ("rel",)),
    "Hit": ("binary", True, ("rel",)),
}

ALIASES = {
    "ndcg": "nDCG", "ndcg_cut": "nDCG", "cg": "CG", "rr": "RR", "mrr": "RR",
    "recip_rank": "RR", "ap": "AP", "map": "AP", "map_cut": "AP", "p": "P",
    "precision": "P", "r": "R", "recall": "R", "hit": "Hit", "success": "Hit",
}

GAIN_NAMES = {"linear": "linear", "lin": "linear", "exp": "exp", "exponential": "exp"}
MISSING_POLICIES = ("zero", "skip")
NO_RELEVANT_POLICIES = ("zero", "skip", "error")

_MEASURE_PATTERN = re.compile(
    r"""^\s*(?P<name>[A-Za-z][A-Za-z0-9_]*?)\s*
        (?:\((?P<before>[^()]*)\))?\s*
        (?:@\s*(?P<cutoff>[^\s()@]+)|[._](?P<trec_cutoff>\d+))?\s*
        (?:\((?P<after>[^()]*)\))?\s*$""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class Measure:
    """One measure with its settings; ``str(measure)`` is its canonical name (lesson 09).

    ``name`` is one of nDCG, CG, RR, AP, P, R, Hit; ``cutoff`` the k of @k or
    None (whole list); ``rel`` the lowest relevant grade (binary measures);
    ``gain`` "linear" or "exp" (nDCG and CG).

    >>> str(Measure("RR", cutoff=10, rel=2))
    'RR(rel=2)@10'
    """

    name: str
    cutoff: int | None = None
    rel: float = 1
    gain: str = "linear"

    def __str__(self) -> str:
        params = []
        if self.gain != "linear":
            params.append(f"gain={self.gain}")
        if self.rel != 1:
            params.append(f"rel={self.rel:g}")
        text = self.name + (f"({','.join(params)})" if params else "")
        return text if self.cutoff is None else f"{text}@{self.cutoff}"


def supported_measures() -> str:
    """A one-line summary of the measure names and parameters ``evaluate`` understands (lesson 09)."""
    return (
        "nDCG[@k], CG[@k] (parameter gain=linear|exp), RR[@k], AP[@k], P@k, R@k, Hit@k "
        "(parameter rel=<lowest relevant grade>, default 1); write parameters as "
        "'RR(rel=2)@10' or 'RR@10(rel=2)'; trec_eval names such as 'ndcg_cut_10', "
        "'map', 'recip_rank', 'P_5', 'recall_100', 'success_1', 'map_cut_10' work too"
    )


def parse_measure(text) -> Measure:
    """Turn a measure name such as ``"nDCG(gain=exp)@10"`` into a :class:`Measure` (lesson 09).

    Grammar: ``Name``, then optional ``(param=value,...)``, then optional ``@k``;
    the parameters may also come after the cutoff (``nDCG@10(gain=exp)``).
    Names are case-insensitive and a few synonyms are accepted (MRR, MAP,
    Success, Recall, Precision), as are trec_eval names (``ndcg_cut_10``,
    ``ndcg_cut.10``, ``P_5``, ``recall_100``, ``map``, ``map_cut_10``,
    ``recip_rank``, ``success_1``). Unknown names raise ``ValueError`` listing
    what is supported.

    >>> parse_measure("ndcg_cut_10")
    Measure(name='nDCG', cutoff=10, rel=1, gain='linear')
    >>> str(parse_measure("RR@10(rel=2)"))
    'RR(rel=2)@10'
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise TypeError(f"a measure is a name such as 'nDCG@10', got {type(text).__name__} {text!r}")
    match = _MEASURE_PATTERN.match(text)
    if match is None or (match["before"] is not None and match["after"] is not None):
        raise ValueError(f"cannot read the measure {text!r}; supported: {supported_measures()}")
    name = ALIASES.get(match["name"].lower())
    if name is None:
        raise ValueError(f"unknown measure {match['name']!r} in {text!r}; supported: {supported_measures()}")
    cutoff = _parse_cutoff(match["cutoff"] or match["trec_cutoff"], text)
    params = _parse_params(match["before"] or match["after"] or "", name, text)
    if MEASURES[name][1] and cutoff is None:
        raise ValueError(f"{name} needs a cutoff: write e.g. '{name}@10' (got {text!r})")
    return Measure(name, cutoff, **params)


def parse_measures(measures) -> list[Measure]:
    """Parse one name or a list of names; repeated measures are kept once (lesson 09).

    >>> [str(m) for m in parse_measures(["nDCG@10", "ndcg_cut_10", "AP"])]
    ['nDCG@10', 'AP']
    """
    if isinstance(measures, str | Measure):
        measures = [measures]
    if not isinstance(measures, list | tuple):
        raise TypeError(f"measures must be a name or a list of names, got {type(measures).__name__}")
    if not measures:
        raise ValueError(f"give at least one measure; supported: {supported_measures()}")
    parsed = []
    for measure in map(parse_measure, measures):
        if measure not in parsed:
            parsed.append(measure)
    return parsed


def _parse_cutoff(text: str | None, whole: str) -> int | None:
    if text is None:
        return None
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"the cutoff in {whole!r} must be a whole number >= 1, got {text!r}")
    return int(text)


def _parse_params(text: str, name: str, whole: str) -> dict:
    params = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = (piece.strip().strip("'\"") for piece in item.partition("="))
        if not sep or key not in MEASURES[name][2]:
            allowed = ", ".join(f"{p}=..." for p in MEASURES[name][2])
            hint = " (nDCG uses graded gains; rel applies to RR, AP, P, R, Hit)" if key == "rel" else ""
            raise ValueError(f"{whole!r}: {name} takes only {allowed}, got {item!r}{hint}")
        params[key] = _parse_gain(value, whole) if key == "gain" else _parse_rel(value, whole)
    return params


def _parse_gain(value: str, whole: str) -> str:
    if value.lower() not in GAIN_NAMES:
        raise ValueError(f"{whole!r}: gain must be 'linear' or 'exp', got {value!r}")
    return GAIN_NAMES[value.lower()]


def _parse_rel(value: str, whole: str) -> float:
    try:
        rel = float(value)
    except ValueError:
        raise ValueError(f"{whole!r}: rel must be the lowest relevant grade, got {value!r}") from None
    if not rel > 0 or not np.isfinite(rel):
        raise ValueError(f"{whole!r}: rel must be above 0 (grade 0 means not relevant), got {value!r}")
    return int(rel) if rel.is_integer() else rel


# --- input checks ----------------------------------------------------------

_COLUMN_ALIASES = {"query_id": "qid", "doc_id": "docno", "relevance": "grade"}


def _as_frame(data, kind: str) -> pd.DataFrame:
    """Read a path, or check a DataFrame, and return it with the standard column names."""
    if isinstance(data, str | os.PathLike):
        return read_qrels(data) if kind == "qrels" else read_run(data)
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
    _check_numbers(frame[value], kind)
    return frame


def _check_numbers(column: pd.Series, kind: str) -> None:
    if column.dtype == bool or not pd.api.types.is_numeric_dtype(column.dtype):
        raise TypeError(f"{kind}: the column {column.name!r} must hold numbers, it has dtype {column.dtype}")
    values = column.to_numpy(dtype="float64")
    bad = ~np.isfinite(values)
    if bad.any():
        row = column.index[np.argmax(bad)]
        raise ValueError(f"{kind}: {column.name} must be a finite number, row {row!r} has {values[bad][0]}")


def _check_choice(value, options, name: str) -> None:
    if value not in options:
        raise ValueError(f"unknown {name} {value!r}: choose one of {', '.join(map(repr, options))}")


def _check_depth(depth) -> int | None:
    if depth is None:
        return None
    if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 1:
        raise ValueError(f"depth must be a whole number >= 1 (or None for every document), got {depth!r}")
    return int(depth)


# --- from ids to numbers (no Python loop over queries) --------------------


def _codes(values: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer code per query id (in order of first appearance) and the distinct ids.

    Rows of one query usually sit together, so only the rows where the id
    changes are hashed: the same result as ``pd.factorize``, much faster.
    """
    starts = np.concatenate(([0], np.flatnonzero(values[1:] != values[:-1]) + 1))
    if len(starts) > len(values) // 4:  # the rows of a query are scattered: hash every row
        codes, labels = pd.factorize(values)
    else:
        block_codes, labels = pd.factorize(values[starts])
        codes = np.repeat(block_codes, np.diff(np.append(starts, len(values))))
    if (codes < 0).any():
        raise ValueError(f"{kind}: a qid is missing (NaN/None) at position {np.argmax(codes < 0)}")
    return codes, np.asarray(labels)


def _match_queries(q_labels: np.ndarray, r_labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each run query its qrels code and back (-1 when absent); 301 and "301" match."""
    q_text, r_text = (pd.Index(labels.astype(str), dtype=object) for labels in (q_labels, r_labels))
    run_to_qrels = q_text.get_indexer(r_text)
    if (run_to_qrels < 0).all():
        raise ValueError(
            "the run and the qrels share no query: qrels queries look like "
            f"{list(q_labels[:3])}, run queries like {list(r_labels[:3])}"
        )
    return run_to_qrels, r_text.get_indexer(q_text)


class _KeyCollision(Exception):
    """Two different (query, document) pairs got the same hashed key: use exact codes instead."""


_MIX = np.uint64(0x9E3779B97F4A7C15)  # an odd 64-bit constant that spreads query codes


def _document_numbers(qrels: pd.DataFrame, run: pd.DataFrame, n_queries: int, exact: bool) -> tuple:
    """The docnos (qrels, run), a number for each, and the base that pairs a number with a query.

    Whole-number docnos are their own numbers and base = largest + 1, so
    key = query * base + number is exact. Text docnos get Python's hash of the
    text (base None): fast, but two pairs could in theory share a key, so every
    match found through a key is confirmed on the text (see ``_KeyCollision``).
    ``exact=True`` numbers the texts with ``pd.factorize`` instead (slower, exact).
    """
    q_docno, r_docno = qrels["docno"].to_numpy(), run["docno"].to_numpy()
    if q_docno.dtype.kind in "iu" and r_docno.dtype.kind in "iu":
        low = min(q_docno.min(), r_docno.min())
        base = int(max(q_docno.max(), r_docno.max())) + 1
        if low >= 0 and base * n_queries < 2**62:
            return q_docno, r_docno, q_docno.astype(np.int64), r_docno.astype(np.int64), base
    q_docno, q_hash = _text_and_hashes(q_docno, "qrels")
    r_docno, r_hash = _text_and_hashes(r_docno, "run")
    if not exact:
        return q_docno, r_docno, q_hash, r_hash, None
    codes, uniques = pd.factorize(np.concatenate([q_docno, r_docno]))
    return q_docno, r_docno, codes[: len(q_docno)], codes[len(q_docno):], len(uniques)


def _text_and_hashes(values: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Ids as an object array of str (numbers become their decimal text) and Python's hash of each."""
    if values.dtype != object or pd.api.types.infer_dtype(values, skipna=False) != "string":
        missing = pd.isna(values)
        if missing.any():
            raise ValueError(f"{kind}: a docno is missing (NaN/None) at position {np.argmax(missing)}")
        values = values.astype(str).astype(object)
    return values, np.fromiter(map(hash, values), dtype=np.int64, count=len(values))


def _pair_keys(query: np.ndarray, numbers: np.ndarray, base: int | None) -> np.ndarray:
    """One int64 key per (query, document) pair: exact with a base, hashed without."""
    if base is not None:
        return query.astype(np.int64) * base + numbers
    return (numbers.view(np.uint64) + query.astype(np.uint64) * _MIX).view(np.int64)


def _unique_pairs(keys, query, docno, frame: pd.DataFrame, kind: str, exact: bool) -> pd.Index:
    """The keys as a pandas Index (a hash table), after checking no (query, document) pair repeats."""
    table = pd.Index(keys)
    if table.is_unique:
        return table
    by_key = np.argsort(keys, kind="stable")  # only when something repeats: find the first pair
    repeated = np.flatnonzero(keys[by_key][1:] == keys[by_key][:-1])
    first, second = by_key[repeated], by_key[repeated + 1]
    if not exact and not ((query[first] == query[second]) & (docno[first] == docno[second])).all():
        raise _KeyCollision
    first, second = sorted((first[0], second[0]))
    qid, doc = (_plain(frame[column].iloc[second]) for column in ("qid", "docno"))
    raise ValueError(
        f"{kind}: document {doc!r} appears twice for query {qid!r} "
        f"(rows {frame.index[first]!r} and {frame.index[second]!r})"
    )


def _plain(value):
    """A numpy scalar as the plain Python value, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value


def _grades_of_returned(run_keys: pd.Index, q_keys, q_grade, confirm) -> np.ndarray:
    """Grade of every run row (0 when not judged): each judgment is looked up among the run's keys.

    ``confirm(run_rows, qrels_rows)`` is False when a key match is not a real
    match (hashed keys only).
    """
    position = run_keys.get_indexer(q_keys)  # -1: the judged document was not returned
    judged = np.flatnonzero(position >= 0)
    rows = position[judged]
    if not confirm(rows, judged):
        raise _KeyCollision
    grade = np.zeros(len(run_keys))
    grade[rows] = q_grade[judged]
    return grade


@dataclass
class _Judgments:
    """The qrels as arrays: query code and grade of every judgment, and the query ids."""

    query: np.ndarray
    grade: np.ndarray
    labels: np.ndarray
    cache: dict = field(default_factory=dict)

    @property
    def n_queries(self) -> int:
        return len(self.labels)


@dataclass
class _Ranking:
    """The returned documents that can earn something (grade above 0), in trec_eval order.

    For each of them: query code, rank and grade. Every other returned document
    adds nothing to any measure; it only pushes the others down, which their
    ranks already show. ``returned`` says which queries returned anything.
    """

    query: np.ndarray
    rank: np.ndarray
    grade: np.ndarray
    returned: np.ndarray
    cache: dict = field(default_factory=dict)


def _prepare(qrels: pd.DataFrame, run: pd.DataFrame, depth: int | None) -> tuple[_Judgments, _Ranking]:
    """Turn the two frames into flat arrays: the judgments, and the run in trec_eval order."""
    q_query, q_labels = _codes(qrels["qid"].to_numpy(), "qrels")
    r_query, r_labels = _codes(run["qid"].to_numpy(), "run")
    run_to_qrels, qrels_to_run = _match_queries(q_labels, r_labels)
    q_grade = qrels["grade"].to_numpy(dtype="float64")
    try:
        r_grade, docno = _look_up_grades(qrels, run, q_query, r_query, qrels_to_run, q_grade, exact=False)
    except _KeyCollision:
        r_grade, docno = _look_up_grades(qrels, run, q_query, r_query, qrels_to_run, q_grade, exact=True)
    keep = run_to_qrels[r_query] >= 0
    score = run["score"].to_numpy(dtype="float64")
    if not keep.all():
        r_query, r_grade, score, docno = r_query[keep], r_grade[keep], score[keep], docno[keep]
    order = _trec_order(r_query, score, docno)
    if order is not None:
        r_query, r_grade = r_query[order], r_grade[order]
    judged = _Judgments(q_query, q_grade, q_labels)
    return judged, _ranked(run_to_qrels, r_query, r_grade, depth, judged.n_queries)


def _look_up_grades(qrels, run, q_query, r_query, qrels_to_run, q_grade, exact: bool) -> tuple:
    """Check both frames for repeated pairs, then find the grade of every run row.

    Returns the grades and the run's docnos (as text, unless both sides use whole numbers).
    """
    n_queries = max(q_query.max(), r_query.max()) + 1
    q_docno, r_docno, q_number, r_number, base = _document_numbers(qrels, run, n_queries, exact)
    exact = exact or base is not None
    _unique_pairs(_pair_keys(q_query, q_number, base), q_query, q_docno, qrels, "qrels", exact)
    run_keys = _unique_pairs(_pair_keys(r_query, r_number, base), r_query, r_docno, run, "run", exact)
    in_run = np.flatnonzero(qrels_to_run[q_query] >= 0)
    q_run_query = qrels_to_run[q_query[in_run]]

    def confirm(rows, judged):
        return exact or bool(
            np.all((r_query[rows] == q_run_query[judged]) & (r_docno[rows] == q_docno[in_run][judged]))
        )

    q_keys = _pair_keys(q_run_query, q_number[in_run], base)
    return _grades_of_returned(run_keys, q_keys, q_grade[in_run], confirm), r_docno


def _trec_order(query: np.ndarray, score: np.ndarray, docno: np.ndarray) -> np.ndarray | None:
    """Row order of trec_eval: query by query, score descending, ties by docno descending.

    Returns None when the rows are already in that order (the usual case for a
    run file), so that nothing needs to be copied.
    """
    same_query = query[1:] == query[:-1]
    if np.all(query[1:] >= query[:-1]) and np.all((score[1:] <= score[:-1]) | ~same_query):
        order = None
    else:
        by_score = np.argsort(-score)
        score_position = np.empty(len(score), dtype=np.int64)
        score_position[by_score] = np.arange(len(score))
        order = np.argsort(query.astype(np.int64) * len(score) + score_position)
        query, score = query[order], score[order]
        same_query = query[1:] == query[:-1]
    tied = same_query & (score[1:] == score[:-1])
    if not tied.any():
        return order
    return _break_ties_by_docno(np.arange(len(query)) if order is None else order, tied, docno)


def _break_ties_by_docno(order: np.ndarray, tied: np.ndarray, docno: np.ndarray) -> np.ndarray:
    """Reorder each run of tied rows (same query and score) by docno, descending text order."""
    group = np.cumsum(np.concatenate(([True], ~tied)))
    rows = np.flatnonzero(np.concatenate(([False], tied)) | np.concatenate((tied, [False])))
    names = docno[order[rows]].astype(str)  # trec_eval compares docnos as text
    _, name_rank = np.unique(names, return_inverse=True)
    within = np.lexsort((-name_rank, group[rows]))
    order = order.copy()
    order[rows] = order[rows][within]
    return order


def _query_starts(query: np.ndarray) -> np.ndarray:
    """Positions where a new block of equal query codes begins."""
    if len(query) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(([0], np.flatnonzero(query[1:] != query[:-1]) + 1))


def _ranks_within(query: np.ndarray) -> np.ndarray:
    """Rank 1, 2, ... of each row within its block of equal query codes."""
    starts = _query_starts(query)
    lengths = np.diff(np.append(starts, len(query)))
    return np.arange(len(query)) - np.repeat(starts, lengths) + 1


def _ranked(run_to_qrels, query, grade, depth: int | None, n_queries: int) -> _Ranking:
    """Keep the rows with a grade above 0, with their rank in their query (first ``depth`` ranks only)."""
    starts = _query_starts(query)
    returned = np.zeros(n_queries, dtype=bool)
    returned[run_to_qrels[query[starts]]] = True
    rows = np.flatnonzero(grade > 0)
    rank = rows - starts[np.searchsorted(starts, rows, side="right") - 1] + 1
    if depth is not None:
        rows, rank = rows[rank <= depth], rank[rank <= depth]
    return _Ranking(run_to_qrels[query[rows]], rank, grade[rows], returned)


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
    frame = _as_frame(run, "run")
    depth = _check_depth(depth)
    query, _ = _codes(frame["qid"].to_numpy(), "run")
    order = _trec_order(query, frame["score"].to_numpy(dtype="float64"), frame["docno"].to_numpy())
    order = np.arange(len(query)) if order is None else order
    rank = _ranks_within(query[order])
    keep = np.ones(len(order), dtype=bool) if depth is None else rank <= depth
    ranked = frame.iloc[order[keep]].reset_index(drop=True)
    ranked["rank"] = rank[keep]
    return ranked


# --- the measures on flat arrays -------------------------------------------


def _per_query_sum(query: np.ndarray, weights: np.ndarray, n_queries: int) -> np.ndarray:
    """Sum of the weights of each query's rows (0 for a query without rows)."""
    return np.bincount(query, weights=weights, minlength=n_queries)


def _in_top(rank: np.ndarray, k: int | None) -> np.ndarray | bool:
    return True if k is None else rank <= k


def _gain(grade: np.ndarray, gain: str) -> np.ndarray:
    grade = np.maximum(grade, 0.0)
    return grade if gain == "linear" else np.exp2(grade) - 1.0


def _n_relevant(judged: _Judgments, rel: float) -> np.ndarray:
    """R per query: judged documents with grade >= rel (rel 0 means: grade > 0)."""
    key = ("R", rel)
    if key not in judged.cache:
        hits = judged.grade > 0 if rel == 0 else judged.grade >= rel
        judged.cache[key] = np.bincount(judged.query, weights=hits, minlength=judged.n_queries)
    return judged.cache[key]


def _relevant_rows(ranking: _Ranking, rel: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The returned relevant documents (grade >= rel): query, rank, and how many relevant so far.

    The third array counts the relevant documents at or above each row's rank
    in its query (1 for the first relevant document), the numerator of P@rank.
    """
    key = ("relevant", rel)
    if key not in ranking.cache:
        rows = np.flatnonzero(ranking.grade >= rel)
        query = ranking.query[rows]
        ranking.cache[key] = (query, ranking.rank[rows], _ranks_within(query))
    return ranking.cache[key]


def _ideal_dcg(judged: _Judgments, k: int | None, gain: str) -> np.ndarray:
    """IDCG@k per query: the judged grades sorted high to low, discounted like a ranking."""
    key = ("idcg", k, gain)
    if key not in judged.cache:
        order = _best_first(judged.query, judged.grade)
        query, grade = judged.query[order], judged.grade[order]
        rank = _ranks_within(query)
        weights = _gain(grade, gain) / np.log2(rank + 1.0) * _in_top(rank, k)
        judged.cache[key] = _per_query_sum(query, weights, judged.n_queries)
    return judged.cache[key]


def _best_first(query: np.ndarray, grade: np.ndarray) -> np.ndarray:
    """Order of the judgments: query by query, highest grade first (the ideal ranking)."""
    low, high = grade.min(), grade.max()
    if np.all(grade == np.round(grade)) and (high - low + 1) * (query.max() + 1) < 2**53:
        return np.argsort(query * (high - low + 1) + (high - grade))  # one exact number per pair
    return np.lexsort((-grade, query))


def _safe_divide(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    return np.divide(top, bottom, out=np.zeros_like(top, dtype="float64"), where=bottom > 0)


def _measure_values(measure: Measure, judged: _Judgments, ranking: _Ranking) -> np.ndarray:
    """One value per qrels query for one measure (0 where the query has nothing to find)."""
    n, k = judged.n_queries, measure.cutoff
    if measure.name in ("nDCG", "CG"):
        gains = _gain(ranking.grade, measure.gain) * _in_top(ranking.rank, k)
        if measure.name == "CG":
            return _per_query_sum(ranking.query, gains, n)
        dcg = _per_query_sum(ranking.query, gains / np.log2(ranking.rank + 1.0), n)
        return _safe_divide(dcg, _ideal_dcg(judged, k, measure.gain))
    query, rank, hits = _relevant_rows(ranking, measure.rel)
    top = _in_top(rank, k)
    if measure.name in ("RR", "Hit"):
        first = (hits == 1) & top  # each query's first relevant document, if within the cutoff
        value = 1.0 / rank[first] if measure.name == "RR" else np.ones(np.count_nonzero(first))
        return _per_query_sum(query[first], value, n)
    if measure.name == "AP":
        return _safe_divide(_per_query_sum(query, hits / rank * top, n), _n_relevant(judged, measure.rel))
    found = _per_query_sum(query, (rank <= k).astype("float64"), n)  # P and R always have a cutoff
    return found / k if measure.name == "P" else _safe_divide(found, _n_relevant(judged, measure.rel))


def _nothing_to_find(measure: Measure, judged: _Judgments) -> np.ndarray:
    """True for queries without a relevant judged document for this measure."""
    rel = 0 if MEASURES[measure.name][0] == "graded" else measure.rel
    return _n_relevant(judged, rel) == 0


# --- the public entry point ------------------------------------------------


@dataclass(frozen=True)
class Evaluation:
    """What :func:`evaluate` returns; unpacks as ``per_query, means = evaluate(...)`` (lesson 09).

    ``per_query``: one row per query (index ``qid``), one column per measure.
    ``means``: the mean of each column (NaN cells, see ``no_relevant="skip"``,
    are left out of that column's mean). ``missing_queries``: queries of the
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

    Queries in the run but not in the qrels are ignored. Ordering: score
    descending, ties by docno descending (trec_eval). Unjudged documents
    have grade 0.

    >>> qrels = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["a", "b", "c"], "grade": [1, 2, 1]})
    >>> run = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["b", "x", "z"], "score": [3.0, 2.0, 1.0]})
    >>> per_query, means = evaluate(qrels, run, ["RR", "P@2"])
    >>> per_query["RR"].tolist(), float(means["P@2"])
    ([1.0, 0.0], 0.25)
    """
    measures = parse_measures(measures)
    _check_choice(missing, MISSING_POLICIES, "missing policy")
    _check_choice(no_relevant, NO_RELEVANT_POLICIES, "no_relevant policy")
    depth = _check_depth(depth)
    judged, ranking = _prepare(_as_frame(qrels, "qrels"), _as_frame(run, "run"), depth)
    values = {str(m): _measure_values(m, judged, ranking) for m in measures}
    per_query = pd.DataFrame(values, index=pd.Index(judged.labels, name="qid"))
    returned = ranking.returned
    if missing == "skip":
        per_query = per_query[returned]
    per_query = _apply_no_relevant(per_query, measures, judged, no_relevant).sort_index()
    return Evaluation(per_query, per_query.mean().rename("mean"), tuple(judged.labels[~returned]))


def _apply_no_relevant(per_query, measures, judged: _Judgments, policy: str) -> pd.DataFrame:
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
