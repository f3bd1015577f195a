"""What ``evaluate`` checks before trusting a run (lesson 09): ids that do not match, scores that cannot rank.

trec_eval compares ids as text and ranks by score, and it says nothing when
either goes wrong. ``evaluate`` does the same, and warns:

- :class:`DocnoMatchWarning` (a ``ValueError`` with ``strict=True``) when
  under half of the queries (``MATCH_SHARE``) return a judged document, when
  no returned document is judged at all, or when run query ids or docnos
  match the qrels only once case, surrounding spaces and leading zeros are
  ignored (``01`` and ``1``, ``DOC5`` and ``doc5``, ``007`` and ``7``): those
  ids are different for trec_eval, and the queries score 0. Query ids are
  all compared so; docnos in the queries that return no judged document
  (where ids written differently show), which keeps the check cheap on runs
  of millions of lines;
- :class:`RunOrderWarning` when every returned document of a query has the
  same score (the order is then trec_eval's tie rule, docno descending, not
  the system's) or when the scores rise with the rank the run gives (rank and
  score swapped, or a distance where higher must be better).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from helpers.batch import _engine

MATCH_SHARE = 0.5  # under this share of queries returning a judged document, evaluate warns
_LEADING_ZEROS = r"(^|[^0-9])0+([0-9])"  # zeros in front of a number: 007 -> 7, q01 -> q1, 0 stays


class DocnoMatchWarning(UserWarning):
    """Few returned documents are in the qrels, or ids match only when written alike: check the ids (lesson 09)."""


class RunOrderWarning(UserWarning):
    """A query's scores cannot be what ranks it: all tied, or rising with the rank (lesson 09)."""


def normalised(ids) -> pa.Array | None:
    """Ids as text with case, surrounding spaces and leading zeros ignored; None for whole-number ids."""
    if isinstance(ids, np.ndarray):
        return None  # numbers have no case and no leading zeros
    text = pc.utf8_lower(pc.utf8_trim_whitespace(ids))
    return pc.replace_substring_regex(text, _LEADING_ZEROS, r"\1\2")


# --- query ids and docnos -------------------------------------------------------


@dataclass(frozen=True)
class Matches:
    """How the run found the qrels: rows and queries with a judgment, and ids that match only when normalised."""

    rows: int
    judged_rows: int
    queries: int
    judged_queries: int
    compared: str  # e.g. "run docno '7.0' (str) vs qrels docno 7 (int64)"
    near_queries: tuple = ()  # (run qid, qrels qid) pairs equal once normalised
    near_docno_queries: int = 0  # queries whose docnos match only once normalised
    near_docno_example: str = ""


def near_queries(q_qid, q_first: np.ndarray, r_qid, r_first: np.ndarray,
                 run_to_qrels: np.ndarray, qrels_to_run: np.ndarray) -> tuple:
    """Run queries absent from the qrels that equal a qrels query absent from the run, once normalised."""
    run_rows, qrels_rows = r_first[run_to_qrels < 0], q_first[qrels_to_run < 0]
    if not len(run_rows) or not len(qrels_rows) or isinstance(q_qid, np.ndarray):
        return ()
    run_text, qrels_text = _engine.take_rows(r_qid, run_rows), _engine.take_rows(q_qid, qrels_rows)
    position = pc.index_in(normalised(run_text), value_set=normalised(qrels_text)).to_numpy(zero_copy_only=False)
    found = np.flatnonzero(~np.isnan(position.astype("float64")))
    return tuple(zip(run_text.take(pa.array(found)).to_pylist(),
                     qrels_text.take(pa.array(position[found].astype(np.int64))).to_pylist(), strict=True))


def near_docnos(judged_per_query, r_query, r_doc, run_to_qrels, q_query, q_doc) -> tuple[int, str]:
    """Of the queries that return no judged document, those whose docnos match once normalised, and an example.

    ``judged_per_query``: for each run query, how many of its documents have a judgment.
    """
    lonely = (run_to_qrels >= 0) & (judged_per_query == 0)
    if not lonely.any() or isinstance(r_doc, np.ndarray):
        return 0, ""
    rows = np.flatnonzero(lonely[r_query])
    run_codes = run_to_qrels[r_query[rows]]
    qrels_rows = np.flatnonzero(np.isin(q_query, np.unique(run_codes)))
    run_docs, qrels_docs = _engine.take_rows(r_doc, rows), _engine.take_rows(q_doc, qrels_rows)
    position = pc.index_in(_keys(run_codes, normalised(run_docs)),
                           value_set=_keys(q_query[qrels_rows], normalised(qrels_docs)))
    position = position.to_numpy(zero_copy_only=False).astype("float64")
    hits = np.flatnonzero(~np.isnan(position))
    if not len(hits):
        return 0, ""
    first = int(hits[0])
    example = (f"run docno {run_docs[first].as_py()!r} and qrels docno "
               f"{qrels_docs[int(position[first])].as_py()!r}")
    return len(np.unique(run_codes[hits])), example


def _keys(codes: np.ndarray, text: pa.Array) -> pa.Array:
    """One text key per (query code, id) pair."""
    separator = pa.scalar("\x00", pa.large_string())
    return pc.binary_join_element_wise(pc.cast(pa.array(codes), pa.large_string()), text, separator)


def id_problems(matches: Matches) -> list[str]:
    """What is wrong with the ids, one sentence each (empty when nothing is)."""
    problems = []
    if matches.near_queries:
        run_qid, qrels_qid = matches.near_queries[0]
        problems.append(
            f"{len(matches.near_queries):,} run quer{'y matches' if len(matches.near_queries) == 1 else 'ies match'} "
            f"a qrels query only when case, spaces and leading zeros are ignored (e.g. run "
            f"{run_qid!r} and qrels {qrels_qid!r}); query ids are compared as text, exactly as written "
            "(like trec_eval), so these run queries are ignored and the qrels queries score as missing. "
            "Write the ids the same way in both inputs"
        )
    if matches.near_docno_queries:
        problems.append(
            f"in {matches.near_docno_queries:,} of the queries that return no judged document, docnos match "
            f"the qrels only when case, spaces and leading zeros are ignored (e.g. "
            f"{matches.near_docno_example}); docnos are compared as text, exactly as written (like "
            "trec_eval), so those documents count as unjudged. Write the ids the same way in both inputs"
        )
    share = _share_problem(matches)
    if share is not None:
        problems.append(share)
    return problems


def _share_problem(matches: Matches) -> str | None:
    if matches.judged_rows == 0:
        head = (f"no returned document has a judgment: none of the {matches.rows:,} run rows of the "
                f"{matches.queries:,} queries in both inputs matches a qrels docno of its query")
    elif matches.judged_queries < MATCH_SHARE * matches.queries:
        head = (f"only {matches.judged_queries:,} of {matches.queries:,} queries return a judged document "
                f"(under {MATCH_SHARE:.0%}; {matches.judged_rows:,} of {matches.rows:,} run rows are judged)")
    else:
        return None
    return (f"{head}; compared: {matches.compared}. Docnos are compared as text, exactly as written (like "
            "trec_eval): '7.0', '007' and '7 ' are not 7. If both name the same documents, write the ids "
            "the same way in both inputs (e.g. the same .astype(...) on both columns, .str.strip())")


def no_shared_query(q_qid, q_first, r_qid, r_first) -> str:
    """The message for a run and qrels without a query in common, saying if they match once normalised."""
    near = near_queries(q_qid, q_first, r_qid, r_first, np.full(len(r_first), -1), np.full(len(q_first), -1))
    hint = ""
    if near:
        hint = (f"; {len(near):,} of them match only when case, spaces and leading zeros are ignored (e.g. run "
                f"{near[0][0]!r} and qrels {near[0][1]!r}): write the query ids the same way in both inputs")
    return ("the run and the qrels share no query: qrels queries look like "
            f"{_engine.labels_as_python(q_qid, q_first[:3])}, run queries like "
            f"{_engine.labels_as_python(r_qid, r_first[:3])}{hint}")


def warn_or_refuse(problems: list[str], strict: bool) -> None:
    """Warn (DocnoMatchWarning) about each id problem or, when strict, raise one ValueError naming them all."""
    if problems and strict:
        raise ValueError("\n".join(problems))
    for problem in problems:
        warnings.warn(f"{problem}; strict=True (the command's --strict) makes this an error", DocnoMatchWarning,
                      stacklevel=3)


# --- scores that cannot rank --------------------------------------------------------


def order_problems(query: np.ndarray, score: np.ndarray, rank: np.ndarray | None, trec_ordered: tuple,
                   describe) -> list[str]:
    """Queries whose scores are all tied, or rise with the rank; ``describe(code)`` names a query.

    ``query`` and ``score`` are the run's rows in the run's own order and
    ``rank`` its rank column (None: the rows are in rank order, as in a run
    file); ``trec_ordered`` holds the same query codes and scores in trec_eval
    order (each query's rows together, scores descending).
    """
    problems = []
    tied, sizes = _tied_queries(*trec_ordered)
    if len(tied):
        code = int(tied[0])
        problems.append(
            f"{len(tied):,} quer{'y has' if len(tied) == 1 else 'ies have'} one score for every returned "
            f"document (e.g. query {describe(code)!r}: {sizes[0]} documents, all "
            f"{score[np.argmax(query == code)]:g}): their order is trec_eval's tie rule (docno, descending), "
            "not the system's; give each document its own score"
        )
    rising = _rising_queries(query, score, rank)
    if len(rising):
        code = int(rising[0])
        rows = np.flatnonzero(query == code)
        places = np.arange(1, len(rows) + 1)  # the lines' order, unless the rank column says more
        if rank is not None and len(np.unique(rank[rows])) > 1:
            rows = rows[np.argsort(rank[rows], kind="stable")]
            places = rank[rows]
        shown = ", ".join(f"rank {place} score {score[row]:g}" for place, row in zip(places[:2], rows[:2], strict=True))
        problems.append(
            f"in {len(rising):,} quer{'y' if len(rising) == 1 else 'ies'} the scores rise with the rank "
            f"(e.g. query {describe(code)!r}: {shown}): documents are ranked by score, highest first, as "
            "trec_eval does, so these lists are evaluated upside down. Are rank and score swapped, or is "
            "the score a distance (smaller is better)? Then negate it"
        )
    return problems


def _tied_queries(query: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes (and sizes) of queries with two or more rows and one score; rows in trec_eval order."""
    starts = _engine.query_starts(query)
    ends = np.append(starts[1:], len(query)) - 1
    tied = (ends > starts) & (score[starts] == score[ends])  # scores descending: first == last means all equal
    return query[starts[tied]], (ends - starts + 1)[tied]


def _rising_queries(query: np.ndarray, score: np.ndarray, rank: np.ndarray | None) -> np.ndarray:
    """Codes of queries whose score never falls and rises at least once as the rank grows."""
    together = np.all(query[1:] >= query[:-1])  # each query's rows in one block (codes count up)
    if rank is None:
        order = None if together else np.argsort(query, kind="stable")  # the rows' own order
    elif together and np.all((rank[1:] >= rank[:-1]) | (query[1:] != query[:-1])):
        order = None  # already by query, then rank: the usual run file
    else:
        order = np.lexsort((rank, query))
    if order is not None:
        query, score = query[order], score[order]
        rank = None if rank is None else rank[order]
    step = query[1:] == query[:-1]
    if rank is not None and (step & (rank[1:] > rank[:-1])).any():
        step &= rank[1:] > rank[:-1]
    elif rank is not None:  # one rank for every line ("0" or "1", as some runs write): the lines' order
        return _rising_queries(query, score, None)
    change = score[1:] - score[:-1]
    rise_rows = np.flatnonzero(step & (change > 0))
    if not len(rise_rows):
        return rise_rows
    n = int(query.max()) + 1
    rises = np.bincount(query[rise_rows], minlength=n)
    falls = np.bincount(query[:-1][step & (change < 0)], minlength=n)
    return np.flatnonzero((rises > 0) & (falls == 0))


def warn_order(problems: list[str]) -> None:
    for problem in problems:
        warnings.warn(problem, RunOrderWarning, stacklevel=3)


def describe_matches(run: pd.DataFrame, qrels: pd.DataFrame, sources, run_row: int, qrels_row: int) -> str:
    """``run docno 'd1' (str, run.txt) vs qrels docno 'D1' (str, qrels.txt)``: the two docnos compared."""
    return (f"run docno {_described(run, sources[1], run_row)} vs "
            f"qrels docno {_described(qrels, sources[0], qrels_row)}")


def _described(frame: pd.DataFrame, source, row: int) -> str:
    """One docno as given, with its type: ``'7.0' (str)``, ``7 (int64)``, ``'d1' (str, run.txt)``."""
    column = frame["docno"]
    value = column.iloc[row]
    value = value.item() if isinstance(value, np.generic) else value
    if source is not None:
        return f"{value!r} (str, {source.path})"
    text = isinstance(column.dtype, pd.StringDtype) or (
        column.dtype == object and pd.api.types.infer_dtype(column, skipna=True) == "string"
    )
    kind = type(value).__name__ if column.dtype == object else "str" if text else str(column.dtype)
    return f"{value!r} ({kind})"
