"""The vectorised engine behind ``evaluate`` (lesson 09): no Python loop over queries or rows.

:mod:`helpers.batch.reference` computes the same numbers with a readable loop
over queries and :mod:`helpers.metrics`; the tests hold the two together.

The steps:

1. ids: each id column becomes whole numbers (int64) or Arrow text; when the
   qrels and the run differ (numbers in one, text in the other) both become
   text, so 7, 7.0 (a float column) and "7" are the same id, and unsigned ids
   of 2**63 or more (beyond int64) are text too;
2. keys: each (query, document) pair gets one 64-bit key. Text is read as
   8-byte words straight from Arrow's buffer: docnos of at most 7 bytes are
   their own exact key, longer ones get a hash, and every match found through
   a hash is confirmed on the text (a collision falls back to exact codes);
3. the run is put in trec_eval order (score descending, ties by docno in
   descending byte order), cut at ``depth``, and with ``judged_only`` the
   documents without a judgment are dropped;
4. each returned document with a judgment keeps its rank and grade (and
   each query its number of returned documents); every measure is then a few
   per-query sums (``np.bincount``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NoReturn

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

_MIX = np.uint64(0x9E3779B97F4A7C15)  # an odd 64-bit constant that spreads bits
_ALL_BYTES = np.uint64(0xFFFFFFFFFFFFFFFF)
_FLAGS = 1 << 22  # flags of look_up: a power of two
_BLOCK = 1 << 20  # rows at a time for the pair keys and look-ups: temporaries of 8 MB, not the run's length


# --- 1. ids: whole numbers or Arrow text --------------------------------------


def id_values(column: pd.Series, kind: str) -> np.ndarray | pa.Array:
    """The ids of a qid or docno column as int64 (numbers) or Arrow large_string (text).

    Whole-number floats (7.0, as pandas stores ints next to a NaN) become
    int64; unsigned ids too large for int64 become their decimal text; other
    floats, booleans and missing ids are refused, naming the frame, column and
    row. A column of mixed Python objects (7 and "7") becomes text.
    """
    name, dtype = f"{kind}: {column.name}", column.dtype
    if pd.api.types.is_bool_dtype(dtype):
        _refuse_id(column, name, 0, TypeError, f"{bool(column.iloc[0])} is not an id (ids are text or whole "
                                               "numbers, not True/False)")
    if pd.api.types.is_numeric_dtype(dtype):
        missing = column.isna().to_numpy()
        if missing.any():  # checked first: nullable Int64 and Float64 columns cannot become numpy arrays
            _refuse_missing(column, name, missing)
        if pd.api.types.is_unsigned_integer_dtype(dtype):
            return _unsigned(column.to_numpy(dtype=np.uint64))
        if pd.api.types.is_integer_dtype(dtype):
            return column.to_numpy(dtype=np.int64)
        return _whole_floats(column, name)
    if isinstance(dtype, pd.StringDtype) or pd.api.types.infer_dtype(column, skipna=False) == "string":
        text = _large_text(pa.array(column, type=pa.large_string(), from_pandas=True))
        if text.null_count:
            _refuse_missing(column, name, np.asarray(text.is_null()))
        return text
    return _mixed_ids(column, name)


def _unsigned(values: np.ndarray) -> np.ndarray | pa.Array:
    """uint64 ids as int64 when they fit, else as decimal text (int64 would wrap 2**63 and more negative)."""
    if len(values) and int(values.max()) >= 2**63:
        return pc.cast(pa.array(values), pa.large_string())
    return values.astype(np.int64)


def _whole_floats(column: pd.Series, name: str) -> np.ndarray:
    values = column.to_numpy(dtype="float64")
    fraction = values != np.trunc(values)
    if fraction.any():
        row = int(np.argmax(fraction))
        _refuse_id(column, name, row, ValueError, f"{float(values[row])!r} is not an id (ids are text or "
                                                  "whole numbers)")
    too_large = np.abs(values) >= 2**53
    if too_large.any():
        row = int(np.argmax(too_large))
        _refuse_id(column, name, row, ValueError, f"{float(values[row])!r} is too large to be an exact id in "
                                                  "a float column; give the ids as int64 or text")
    return values.astype(np.int64)


def _mixed_ids(column: pd.Series, name: str) -> pa.Array:
    """Python objects one by one: text stays, whole numbers become their decimal text."""
    missing = pd.isna(column).to_numpy()
    if missing.any():
        _refuse_missing(column, name, missing)
    texts = []
    for row, value in enumerate(column.to_numpy(dtype=object)):
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
            texts.append(str(int(value)))
        elif isinstance(value, float | np.floating) and float(value).is_integer():
            texts.append(str(int(value)))
        else:
            _refuse_id(column, name, row, TypeError, f"{value!r} ({type(value).__name__}) is not an id; "
                                                     "ids are text or whole numbers")
    return pa.array(texts, type=pa.large_string())


def _refuse_missing(column: pd.Series, name: str, missing: np.ndarray) -> NoReturn:
    _refuse_id(column, name, int(np.argmax(missing)), ValueError, "an id is missing (NaN, None or <NA>)")


def _refuse_id(column: pd.Series, name: str, row: int, error: type[Exception], problem: str) -> NoReturn:
    """Raise ``error`` naming the frame and column (``name``) and the row's index label."""
    raise error(f"{name}, row {row_label(column.index, row)!r}: {problem}")


def row_label(index: pd.Index, position: int):
    """The index label at a position as a plain Python value (``7``, not ``np.int64(7)``), for messages."""
    label = index[position]
    return label.item() if isinstance(label, np.generic) else label


def same_kind(first, second) -> tuple:
    """Both id arrays as int64, or both as text (numbers become their decimal text)."""
    if isinstance(first, np.ndarray) and isinstance(second, np.ndarray):
        return first, second
    return _as_text(first), _as_text(second)


def _as_text(ids) -> pa.Array:
    if isinstance(ids, np.ndarray):
        return pc.cast(pa.array(ids), pa.large_string())
    return ids


def labels_as_python(ids, rows: np.ndarray) -> list:
    """The ids at the given rows as plain Python values (for messages and labels)."""
    if isinstance(ids, np.ndarray):
        return [int(value) for value in ids[rows]]
    return take_rows(ids, rows).to_pylist()


def take_rows(text, rows) -> pa.Array:
    """``text.take(rows)`` without first joining a chunked array's chunks into one copy, as Arrow's take does.

    A run read from a file is a chunked array of 10 million ids at 100k x 100:
    Arrow's take would copy all of them (140 MB) to pick a few; here each
    chunk gives its own rows, and the pieces are put back in ``rows``' order.
    """
    rows = np.asarray(rows, dtype=np.int64)
    if isinstance(text, pa.ChunkedArray) and text.num_chunks == 1:
        text = text.chunk(0)
    if not isinstance(text, pa.ChunkedArray):
        return text.take(pa.array(rows))
    bounds = np.cumsum([0] + [len(chunk) for chunk in text.chunks])
    if len(rows) and (rows.min() < 0 or rows.max() >= bounds[-1]):
        raise IndexError(f"row {int(rows.max() if rows.max() >= bounds[-1] else rows.min())} is out of range "
                         f"for {bounds[-1]} ids")
    chunk_of = np.searchsorted(bounds, rows, side="right") - 1
    by_chunk = np.argsort(chunk_of, kind="stable")
    edges = np.searchsorted(chunk_of[by_chunk], np.arange(text.num_chunks + 1))
    pieces = [text.chunk(c).take(pa.array(rows[by_chunk[edges[c]: edges[c + 1]]] - bounds[c]))
              for c in range(text.num_chunks) if edges[c + 1] > edges[c]]
    taken = pa.concat_arrays(pieces) if pieces else pa.array([], type=text.type)
    return taken.take(pa.array(np.argsort(by_chunk)))


# --- 2. query codes and (query, document) keys ---------------------------------


def query_codes(ids, compact: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """An integer code per row (queries in order of first appearance) and the row where each query first is.

    Rows of one query usually sit together, so only the rows where the id
    changes are compared: the same result as a hash of every row, much faster.
    ``compact`` gives int32 codes when they fit (half the memory of a run's rows), else int64.
    """
    n = len(ids)
    if isinstance(ids, np.ndarray):
        changes = ids[1:] != ids[:-1]
    else:
        changes = pc.not_equal(ids.slice(1), ids.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    starts = np.concatenate(([0], np.flatnonzero(changes) + 1))
    block_ids = ids[starts] if isinstance(ids, np.ndarray) else take_rows(ids, starts)
    block_codes, first_block = _factorize(block_ids)
    if compact and len(block_codes) < 2**31:
        block_codes = block_codes.astype(np.int32)
    codes = np.repeat(block_codes, np.diff(np.append(starts, n)))
    return codes, starts[first_block]


def _factorize(ids) -> tuple[np.ndarray, np.ndarray]:
    """Codes in order of first appearance and the position of each code's first appearance."""
    if isinstance(ids, np.ndarray):
        codes, _ = pd.factorize(ids)
    else:
        if isinstance(ids, pa.ChunkedArray):
            ids = ids.combine_chunks()  # one dictionary for every chunk
        codes = np.asarray(pc.dictionary_encode(ids).indices, dtype=np.int64)
    codes = codes.astype(np.int64)
    # codes count up in order of first appearance: a code is new where it exceeds every code before it
    seen_before = np.maximum.accumulate(np.concatenate(([-1], codes[:-1])))
    return codes, np.flatnonzero(codes > seen_before)


def match_labels(q_ids, q_first: np.ndarray, r_ids, r_first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each run query its qrels code and back (-1 when absent)."""
    q_index = pd.Index(_plain_labels(q_ids, q_first))
    r_index = pd.Index(_plain_labels(r_ids, r_first))
    return q_index.get_indexer(r_index), r_index.get_indexer(q_index)


def _plain_labels(ids, rows: np.ndarray) -> np.ndarray:
    if isinstance(ids, np.ndarray):
        return ids[rows]
    return np.asarray(take_rows(ids, rows).to_numpy(zero_copy_only=False), dtype=object)


class KeyCollision(Exception):
    """Two different (query, document) pairs got the same hashed key: use exact codes instead."""


@dataclass
class DocKeys:
    """A 64-bit number per docno (qrels and run), and whether equal numbers always mean equal ids."""

    qrels: np.ndarray
    run: np.ndarray
    exact: bool


def doc_keys(q_doc, r_doc, force_exact: bool = False) -> DocKeys:
    """Numbers for the docnos of both sides, made the same way; see the module docstring (step 2)."""
    if isinstance(q_doc, np.ndarray):
        return DocKeys(q_doc.astype(np.uint64), r_doc.astype(np.uint64), exact=True)
    if force_exact:  # after a hash collision: number the texts exactly (slower)
        codes, _ = pd.factorize(np.concatenate([_python_text(q_doc), _python_text(r_doc)]))
        codes = codes.astype(np.uint64)
        return DocKeys(codes[: len(q_doc)], codes[len(q_doc):], exact=True)
    longest = max(_longest(q_doc), _longest(r_doc))
    exact = longest <= 7 or (longest == 8 and not (_has_nul(q_doc) or _has_nul(r_doc)))
    return DocKeys(text_keys(q_doc, longest, exact), text_keys(r_doc, longest, exact), exact)


def _keys_of_one_side(doc, force_exact: bool) -> tuple[np.ndarray, bool]:
    if isinstance(doc, np.ndarray):
        return doc.astype(np.uint64), True
    if force_exact:
        codes, _ = pd.factorize(_python_text(doc))
        return codes.astype(np.uint64), True
    longest = _longest(doc)
    exact = longest <= 7 or (longest == 8 and not _has_nul(doc))
    return text_keys(doc, longest, exact), exact


def _python_text(text: pa.Array) -> np.ndarray:
    return np.asarray(text.to_numpy(zero_copy_only=False), dtype=object)


def _longest(text: pa.Array) -> int:
    """The length in bytes of the longest string (from the offsets, chunk by chunk: no array of lengths)."""
    if text.type != pa.large_string():
        return int(pc.max(pc.binary_length(text)).as_py() or 0)
    chunks = text.chunks if isinstance(text, pa.ChunkedArray) else [text]
    return max((int(np.diff(_offsets(chunk)).max()) for chunk in chunks if len(chunk)), default=0)


def _offsets(text: pa.Array) -> np.ndarray:
    """The int64 offsets of a large_string array's strings (a view of Arrow's buffer), one more than strings."""
    return np.frombuffer(text.buffers()[1], dtype=np.int64)[text.offset: text.offset + len(text) + 1]


def _has_nul(text) -> bool:
    """True when a string may hold a NUL byte (then zero padding could be mistaken for text)."""
    chunks = text.chunks if isinstance(text, pa.ChunkedArray) else [text]
    return any(chunk.buffers()[2] is not None and not np.frombuffer(chunk.buffers()[2], np.uint8).all()
               for chunk in chunks)


def text_keys(text: pa.Array, longest: int, exact: bool) -> np.ndarray:
    """A uint64 per string, read from Arrow's bytes as 8-byte words.

    ``longest`` is the longest string of every array compared with this one.
    Up to 7 bytes the key is the bytes themselves with the length in the top
    byte; up to 8 bytes without a NUL byte (``exact``), the bytes alone: exact
    keys. Otherwise the length and every word (as many as the longest string
    has) are mixed into a hash.
    """
    chunks = text.chunks if isinstance(text, pa.ChunkedArray) else [text]
    keys = np.empty(len(text), dtype=np.uint64)  # filled chunk by chunk: no second copy from a concatenation
    start = 0
    for chunk in chunks:
        keys[start: start + len(chunk)] = _chunk_keys(chunk, longest, exact)
        start += len(chunk)
    return keys


def _chunk_keys(text: pa.Array, longest: int, exact: bool) -> np.ndarray:
    offsets = _offsets(text)
    data_buffer = text.buffers()[2]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    start, length = offsets[:-1], np.diff(offsets).astype(np.uint64)
    words = _word_reader(data)
    if longest <= 7:
        return words(start, length) | (length << np.uint64(56))
    if longest == 8 and exact:
        return words(start, length)
    key = length * _MIX
    for word in range((longest + 7) // 8):
        remaining = np.clip(length.astype(np.int64) - 8 * word, 0, 8).astype(np.uint64)
        key = _mix(key ^ words(start + 8 * word, remaining))
    return key


def _large_text(text):
    """Arrow text with 64-bit offsets (large_string), as one array or as chunks: nothing is copied."""
    return text if text.type == pa.large_string() else text.cast(pa.large_string())


def _word_reader(data: np.ndarray):
    """A function giving, for byte positions and counts (<= 8), the little-endian word of those bytes."""
    padded = np.zeros(len(data) + 8, dtype=np.uint8)
    padded[: len(data)] = data
    # one uint64 starting at every byte: a view, nothing is copied
    at = np.ndarray(shape=(len(data) + 1,), dtype="<u8", buffer=padded, strides=(1,))

    def words(position: np.ndarray, count: np.ndarray) -> np.ndarray:
        keep = np.where(count >= 8, _ALL_BYTES, (np.uint64(1) << (np.uint64(8) * count)) - np.uint64(1))
        return at[np.minimum(position, len(data))] & keep

    return words


def _mix(key: np.ndarray) -> np.ndarray:
    key = key * _MIX
    return key ^ (key >> np.uint64(29))


def pair_keys(query: np.ndarray, numbers: np.ndarray, in_place: bool = False) -> np.ndarray:
    """One int64 key per (query, document) pair: the document's number mixed with the query code.

    Computed a block of rows at a time, so that no temporary is as long as the
    run; ``in_place`` writes the keys over ``numbers`` (a uint64 array).
    For two rows of the same query, equal pair keys mean equal numbers.
    """
    keys = numbers if in_place else numbers.astype(np.uint64)
    for start in range(0, len(keys), _BLOCK):
        shift = query[start: start + _BLOCK].astype(np.uint64)
        shift += np.uint64(1)
        shift *= _MIX
        keys[start: start + _BLOCK] += shift
    return keys.view(np.int64)


def same_text(first, first_rows: np.ndarray, second, second_rows: np.ndarray) -> np.ndarray:
    """For each pair of rows, True when the two ids are equal (the check behind every hashed match)."""
    if isinstance(first, np.ndarray):
        return first[first_rows] == second[second_rows]
    left, right = take_rows(first, first_rows), take_rows(second, second_rows)
    return np.asarray(pc.equal(left, right).to_numpy(zero_copy_only=False), dtype=bool)


def check_no_repeat(keys: np.ndarray, same_pair, describe) -> None:
    """Refuse a (query, document) pair listed twice; a shared hash of two different pairs is a KeyCollision.

    Sorting the keys puts equal ones side by side (numpy's sort is much faster
    than a hash table here). ``same_pair(rows, other_rows)`` says which rows
    really hold the same pair; ``describe(first_row, second_row)`` raises the
    ValueError for the first real repeat.
    """
    ordered = np.sort(keys)
    repeated = np.unique(ordered[1:][ordered[1:] == ordered[:-1]])
    if len(repeated) == 0:
        return
    rows = np.flatnonzero(np.isin(keys, repeated))
    rows = rows[np.argsort(keys[rows], kind="stable")]
    neighbours = np.flatnonzero(keys[rows][1:] == keys[rows][:-1])
    first, second = rows[neighbours], rows[neighbours + 1]
    real = same_pair(first, second)
    if real.any():
        first_row, second_row = sorted((int(first[real][0]), int(second[real][0])))
        describe(first_row, second_row)
    raise KeyCollision


def look_up(table_keys: np.ndarray, probe_keys: np.ndarray) -> np.ndarray:
    """For each probe key, the position of the equal key in ``table_keys`` (all different), or -1.

    A table of 4 million flags, set by the low bits of the table keys, lets
    most probes that cannot match skip the (slower) hash table.
    """
    rows, positions = matches(table_keys, probe_keys)
    position = np.full(len(probe_keys), -1, dtype=np.int64)
    position[rows] = positions
    return position


def matches(table_keys: np.ndarray, probe_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The probes that have an equal key in ``table_keys`` (all different), and where: ``look_up`` without -1s.

    A block of probes at a time, so that nothing as long as the probes is made
    but the answer.
    """
    flags = np.zeros(_FLAGS, dtype=bool)
    flags[table_keys & (_FLAGS - 1)] = True
    table = pd.Index(table_keys)
    rows, positions = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for start in range(0, len(probe_keys), _BLOCK):
        probes = probe_keys[start: start + _BLOCK]
        maybe = np.flatnonzero(flags[probes & (_FLAGS - 1)])
        found = table.get_indexer(pd.Index(probes[maybe]))
        rows.append(maybe[found >= 0] + start)
        positions.append(found[found >= 0].astype(np.int64))
    return np.concatenate(rows), np.concatenate(positions)


def check_unique_pairs(frame: pd.DataFrame, kind: str, source=None) -> None:
    """Refuse a frame that lists a document twice for one query, naming the rows or file lines."""
    qid, doc = id_values(frame["qid"], kind), id_values(frame["docno"], kind)
    query, _ = query_codes(qid)
    describe = duplicate_reporter(frame, qid, doc, kind, source)
    for force_exact in (False, True):
        keys, exact = _keys_of_one_side(doc, force_exact)
        try:
            check_no_repeat(pair_keys(query, keys), same_pair_check(query, keys, doc, exact), describe)
            return
        except KeyCollision:
            continue


def same_pair_check(query: np.ndarray, keys: np.ndarray, doc, exact: bool, other=None):
    """A function telling which rows of one side and of ``other`` (query, keys, doc) hold equal pairs."""
    other_query, other_keys, other_doc = other if other is not None else (query, keys, doc)

    def same_pair(rows: np.ndarray, other_rows: np.ndarray) -> np.ndarray:
        same = (query[rows] == other_query[other_rows]) & (keys[rows] == other_keys[other_rows])
        if not exact and same.any():
            same[same] = same_text(doc, rows[same], other_doc, other_rows[same])
        return same

    return same_pair


def duplicate_reporter(frame: pd.DataFrame, qid, doc, kind: str, source):
    """A function that raises the ValueError for a document listed twice in one query."""

    def describe(first: int, second: int) -> None:
        rows = np.array([first, second])
        query, document = labels_as_python(qid, rows[1:])[0], labels_as_python(doc, rows[1:])[0]
        if source is not None:
            first_line, second_line = source.lines(rows)
            raise ValueError(
                f"{source.path}, line {second_line}: document {document!r} appears twice for query "
                f"{query!r} (first on line {first_line}); each document can be judged or returned "
                "only once per query, as in trec_eval"
            )
        raise ValueError(
            f"{kind}: document {document!r} appears twice for query {query!r} "
            f"(rows {frame.index[first]!r} and {frame.index[second]!r})"
        )

    return describe


# --- 3. trec_eval's order ---------------------------------------------------------


def trec_order(query: np.ndarray, score: np.ndarray, doc) -> np.ndarray | None:
    """Row order of trec_eval: query by query, score descending, ties by docno descending.

    Returns None when the rows are already in that order (the usual case for a
    run file), so that nothing needs to be copied.
    """
    same_query = query[1:] == query[:-1]
    if np.all(query[1:] >= query[:-1]) and np.all((score[1:] <= score[:-1]) | ~same_query):
        order = None
    else:  # by score (ties are settled below), then by query: one sort of whole numbers
        by_score = np.argsort(-score)
        n = len(score)
        packed = np.sort(query[by_score].astype(np.int64) * n + np.arange(n))  # query, then score position
        order = by_score[packed % n]
        query, score = query[order], score[order]
        same_query = query[1:] == query[:-1]
    tied = same_query & (score[1:] == score[:-1])
    if not tied.any():
        return order
    return _break_ties_by_docno(np.arange(len(query)) if order is None else order, tied, doc)


def _break_ties_by_docno(order: np.ndarray, tied: np.ndarray, doc) -> np.ndarray:
    """Reorder each run of tied rows (same query and score) by docno, descending byte order."""
    group = np.cumsum(np.concatenate(([True], ~tied)))
    rows = np.flatnonzero(np.concatenate(([False], tied)) | np.concatenate((tied, [False])))
    if isinstance(doc, np.ndarray):
        names = doc[order[rows]].astype(str)  # trec_eval compares docnos as text
    else:
        names = np.asarray(take_rows(doc, order[rows]).to_pylist(), dtype=object)
    _, name_rank = np.unique(names, return_inverse=True)
    within = np.lexsort((-name_rank, group[rows]))
    order = order.copy()
    order[rows] = order[rows][within]
    return order


def trec_ranked_rows(qid: pd.Series, docno: pd.Series, score: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """The rows of a run in trec_eval order (queries as they first appear) and the rank of each row.

    ``rank_run`` and ``write_run`` use it, so both rank ties as ``evaluate`` does.
    """
    query, _ = query_codes(id_values(qid, kind))
    order = trec_order(query, score, id_values(docno, kind))
    order = np.arange(len(query)) if order is None else order
    return order, ranks_within(query[order])


def query_starts(query: np.ndarray) -> np.ndarray:
    """Positions where a new block of equal query codes begins."""
    if len(query) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(([0], np.flatnonzero(query[1:] != query[:-1]) + 1))


def ranks_within(query: np.ndarray) -> np.ndarray:
    """Rank 1, 2, ... of each row within its block of equal query codes."""
    starts = query_starts(query)
    lengths = np.diff(np.append(starts, len(query)))
    return np.arange(len(query)) - np.repeat(starts, lengths) + 1


# --- 4. the measures on flat arrays -------------------------------------------------


@dataclass
class Judgments:
    """The qrels as arrays: query code and grade of every judgment, and the query labels."""

    query: np.ndarray
    grade: np.ndarray
    labels: np.ndarray
    cache: dict = field(default_factory=dict)

    @property
    def n_queries(self) -> int:
        return len(self.labels)


@dataclass
class Ranking:
    """The returned documents that have a judgment, in trec_eval order, and how many each query returned.

    For each judged returned document: query code, rank and grade. An unjudged
    document adds nothing to any measure; it only pushes the others down, which
    their ranks already show (and ``n_returned`` counts it). ``returned`` says
    which queries returned anything; ``n_returned`` how many documents each
    kept after ``depth`` and ``judged_only`` (trec_eval's num_ret).
    """

    query: np.ndarray
    rank: np.ndarray
    grade: np.ndarray
    returned: np.ndarray
    n_returned: np.ndarray
    cache: dict = field(default_factory=dict)


def ranked(run_to_qrels, query, grade, depth: int | None, judged_only: bool, n_queries: int) -> Ranking:
    """Cut at ``depth``, drop unjudged documents with ``judged_only``, keep the judged rows.

    ``grade`` is NaN for a document without a judgment.
    """
    starts = query_starts(query)
    returned = np.zeros(n_queries, dtype=bool)
    returned[run_to_qrels[query[starts]]] = True
    if depth is not None or judged_only:
        keep = np.ones(len(query), dtype=bool) if depth is None else ranks_within(query) <= depth
        if judged_only:
            keep &= grade >= 0  # trec_eval -J: a judgment with a grade of 0 or more
        query, grade = query[keep], grade[keep]
    n_returned = np.bincount(run_to_qrels[query], minlength=n_queries).astype("float64")
    rows = np.flatnonzero(~np.isnan(grade))
    starts = query_starts(query)
    rank = rows - starts[np.searchsorted(starts, rows, side="right") - 1] + 1
    return Ranking(run_to_qrels[query[rows]], rank, grade[rows], returned, n_returned)


def per_query_sum(query: np.ndarray, weights, n_queries: int) -> np.ndarray:
    """Sum of the weights of each query's rows (without weights: how many rows), as float64."""
    return np.bincount(query, weights=weights, minlength=n_queries).astype("float64", copy=False)


def _in_top(rank: np.ndarray, k: int | None) -> np.ndarray | bool:
    return True if k is None else rank <= k


def gain(grade: np.ndarray, kind: str, gains: tuple | None = None) -> np.ndarray:
    """The gain of each grade: the grade (linear), 2**grade - 1 (exp), or a gain map's value.

    A gain map ((grade, gain), ...) replaces the gain of the grades it names;
    every other grade keeps its linear gain, as in trec_eval's ``ndcg.1=3,2=9``
    and ir_measures' ``nDCG(gains=...)``. A negative grade gains nothing.
    """
    positive = np.maximum(grade, 0.0)
    if gains is not None:
        mapped = positive
        for level, value in gains:
            mapped = np.where(grade == level, value, mapped)
        return mapped
    return positive if kind == "linear" else np.exp2(positive) - 1.0


def n_relevant(judged: Judgments, rel: float) -> np.ndarray:
    """R per query: judged documents with grade >= rel (rel 0 means: grade > 0)."""
    key = ("R", rel)
    if key not in judged.cache:
        hits = judged.grade > 0 if rel == 0 else judged.grade >= rel
        judged.cache[key] = np.bincount(judged.query, weights=hits, minlength=judged.n_queries)
    return judged.cache[key]


def n_judged_nonrelevant(judged: Judgments, rel: float) -> np.ndarray:
    """Per query, the judged documents below the relevance threshold (grade 0 <= g < rel): bpref's N."""
    key = ("N", rel)
    if key not in judged.cache:
        below = (judged.grade >= 0) & (judged.grade < rel)
        judged.cache[key] = np.bincount(judged.query, weights=below, minlength=judged.n_queries)
    return judged.cache[key]


def _relevant_rows(ranking: Ranking, rel: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The returned relevant documents (grade >= rel): query, rank, and how many relevant so far."""
    key = ("relevant", rel)
    if key not in ranking.cache:
        rows = np.flatnonzero(ranking.grade >= rel)
        query = ranking.query[rows]
        ranking.cache[key] = (query, ranking.rank[rows], ranks_within(query))
    return ranking.cache[key]


def _ideal_dcg(query: np.ndarray, grade: np.ndarray, k: int | None, kind: str, gains, n: int) -> np.ndarray:
    """IDCG@k per query: the positive gains sorted high to low, discounted like a ranking.

    A gain of 0 or less never helps an ideal ranking, so it is left out (as
    trec_eval does for gain maps with negative gains).
    """
    gained = gain(grade, kind, gains)
    positive = gained > 0
    query, gained = query[positive], gained[positive]
    order = np.lexsort((-gained, query))
    query, gained = query[order], gained[order]
    rank = ranks_within(query)
    return per_query_sum(query, gained / np.log2(rank + 1.0) * _in_top(rank, k), n)


def ideal_dcg(judged: Judgments, ranking: Ranking, k: int | None, kind: str, gains, ideal: str) -> np.ndarray:
    """IDCG@k from every judged document (``ideal="judged"``) or from the returned list (``"returned"``)."""
    key = ("idcg", k, kind, gains, ideal)
    if key not in judged.cache:
        source = judged if ideal == "judged" else ranking
        judged.cache[key] = _ideal_dcg(source.query, source.grade, k, kind, gains, judged.n_queries)
    return judged.cache[key]


def safe_divide(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    return np.divide(top, bottom, out=np.zeros_like(top, dtype="float64"), where=bottom > 0)


@dataclass(frozen=True)
class Conventions:
    """The options of ``evaluate`` that change a value: nDCG's ideal ranking, AP@k's and R@k's denominator."""

    ideal: str = "judged"
    denominator: str = "R"


# Every kernel takes (measure, judged, ranking, conventions) and gives one value per qrels query (0 where the
# query has nothing to find); helpers.batch.registry names the kernel of each measure.


def ndcg_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """nDCG@k: the DCG of the ranking over the DCG of the ideal ranking."""
    k = measure.cutoff
    gains = gain(ranking.grade, measure.gain, measure.gains) * _in_top(ranking.rank, k)
    dcg = per_query_sum(ranking.query, gains / np.log2(ranking.rank + 1.0), judged.n_queries)
    return safe_divide(dcg, ideal_dcg(judged, ranking, k, measure.gain, measure.gains, conventions.ideal))


def cg_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """CG@k: the sum of the gains in the top k."""
    gains = gain(ranking.grade, measure.gain, measure.gains) * _in_top(ranking.rank, measure.cutoff)
    return per_query_sum(ranking.query, gains, judged.n_queries)


def _first_relevant(measure, ranking: Ranking) -> tuple[np.ndarray, np.ndarray]:
    """Query and rank of each query's first relevant document, where it is within the cutoff."""
    query, rank, hits = _relevant_rows(ranking, measure.rel)
    first = (hits == 1) & _in_top(rank, measure.cutoff)
    return query[first], rank[first]


def rr_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """RR@k: 1 / the rank of the first relevant document."""
    query, rank = _first_relevant(measure, ranking)
    return per_query_sum(query, 1.0 / rank, judged.n_queries)


def hit_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """Hit@k: 1 when a relevant document is in the top k."""
    query, _ = _first_relevant(measure, ranking)
    return per_query_sum(query, None, judged.n_queries)


def _relevant_for(measure, judged: Judgments, conventions: Conventions) -> np.ndarray:
    """R, or min(k, R) with ``denominator="min_k_R"`` and a cutoff."""
    relevant = n_relevant(judged, measure.rel)
    if conventions.denominator == "min_k_R" and measure.cutoff is not None:
        relevant = np.minimum(relevant, measure.cutoff)
    return relevant


def ap_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """AP@k: the precision at each relevant document of the top k, summed, over R."""
    query, rank, hits = _relevant_rows(ranking, measure.rel)
    found = per_query_sum(query, hits / rank * _in_top(rank, measure.cutoff), judged.n_queries)
    return safe_divide(found, _relevant_for(measure, judged, conventions))


def _found_in_top(measure, judged: Judgments, ranking: Ranking) -> np.ndarray:
    query, rank, _ = _relevant_rows(ranking, measure.rel)
    return per_query_sum(query, (rank <= measure.cutoff).astype("float64"), judged.n_queries)


def precision_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """P@k: the relevant documents in the top k, over k."""
    return _found_in_top(measure, judged, ranking) / measure.cutoff


def recall_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """R@k: the relevant documents in the top k, over R."""
    return safe_divide(_found_in_top(measure, judged, ranking), _relevant_for(measure, judged, conventions))


def rprec_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """R-precision: the relevant documents within the first R, over R."""
    query, rank, _ = _relevant_rows(ranking, measure.rel)
    relevant = n_relevant(judged, measure.rel)
    return safe_divide(per_query_sum(query, (rank <= relevant[query]).astype("float64"), judged.n_queries),
                       relevant)


def num_rel_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """num_rel: the judged documents with a grade of rel or more."""
    return n_relevant(judged, measure.rel).copy()


def num_rel_ret_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """num_rel_ret: the returned documents with a grade of rel or more."""
    query, _, _ = _relevant_rows(ranking, measure.rel)
    return per_query_sum(query, None, judged.n_queries)


def num_ret_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """num_ret: the documents returned (after depth and judged_only)."""
    return ranking.n_returned.copy()


def judged_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """Judged@k: the judged share of the top k.

    Judged@k divides by min(k, documents returned), as ir_measures' Judged
    does (a short list is not penalised); without a cutoff, by all returned.
    """
    k = measure.cutoff
    judged_in_top = per_query_sum(ranking.query, (ranking.rank <= k).astype("float64") if k else None,
                                  judged.n_queries)
    shown = ranking.n_returned if k is None else np.minimum(ranking.n_returned, k)
    return safe_divide(judged_in_top, shown)


def bpref_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """bpref, see :func:`_bpref`."""
    return _bpref(judged, ranking, measure.rel)


def rbp_weight(rank: np.ndarray, p: float) -> np.ndarray:
    """(1 - p) p^(rank - 1): the chance that a user who goes on with probability p stops at this rank."""
    return (1.0 - p) * np.power(p, rank - 1.0)


def rbp_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """RBP@k: the weights of the relevant documents in the top k."""
    query, rank, _ = _relevant_rows(ranking, measure.rel)
    weights = rbp_weight(rank, measure.p) * _in_top(rank, measure.cutoff)
    return per_query_sum(query, weights, judged.n_queries)


def rbp_residual_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """RBP's residual: 1 minus the weights of the judged documents in the top k.

    With m = min(k, documents returned), the unjudged documents of the top m
    weigh 1 - p^m minus the judged ones' weights, and every rank after m
    weighs p^m: together, 1 minus the judged documents' weights.
    """
    weights = rbp_weight(ranking.rank, measure.p) * _in_top(ranking.rank, measure.cutoff)
    return 1.0 - per_query_sum(ranking.query, weights, judged.n_queries)


ERR_MAX_GRADE = 4  # ERR's stopping probability is (2^grade - 1) / 2^4, as in gdeval (ir_measures' ERR)


def err_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """ERR@k: over the top k, stop(rank) / rank times the chance of going on past every rank before."""
    rows = np.flatnonzero(np.broadcast_to(_in_top(ranking.rank, measure.cutoff), ranking.rank.shape))
    query, rank = ranking.query[rows], ranking.rank[rows]
    stop = (np.exp2(np.maximum(ranking.grade[rows], 0.0)) - 1.0) / 2.0**ERR_MAX_GRADE
    go_on = np.log1p(-stop)  # an unjudged document (not in rows) is passed for sure: log 1 = 0
    before = np.cumsum(go_on) - go_on  # the log of going past every earlier row, over all queries
    starts = query_starts(query)
    before -= np.repeat(before[starts], np.diff(np.append(starts, len(query))))
    return per_query_sum(query, stop / rank * np.exp(before), judged.n_queries)


def _bpref(judged: Judgments, ranking: Ranking, rel: float) -> np.ndarray:
    """bpref (Buckley and Voorhees 2004, as trec_eval computes it).

    For each relevant returned document: 1 - min(n, R) / min(N, R), where n
    is the number of judged non-relevant documents ranked above it, N the
    number judged non-relevant for the query and R the number relevant (1
    when n is 0); the sum divided by R. Unjudged documents are skipped.
    """
    nonrelevant = ((ranking.grade >= 0) & (ranking.grade < rel)).astype(np.int64)
    running = np.cumsum(nonrelevant)
    starts = query_starts(ranking.query)
    before_query = np.repeat(running[starts] - nonrelevant[starts], np.diff(np.append(starts, len(running))))
    above = running - before_query  # judged non-relevant documents up to each row, within its query
    rows = np.flatnonzero(ranking.grade >= rel)
    query, above = ranking.query[rows], above[rows]
    relevant, below_threshold = n_relevant(judged, rel), n_judged_nonrelevant(judged, rel)
    worst = np.minimum(below_threshold[query], relevant[query])
    share = np.divide(np.minimum(above, relevant[query]), worst, out=np.zeros(len(rows)), where=worst > 0)
    return safe_divide(per_query_sum(query, 1.0 - share, judged.n_queries), relevant)


# --- trec_eval's family: interpolated precision, precision at multiples of R, the set measures -------------


def _best_precision_from_here(ranking: Ranking, rel: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each returned relevant document: query, how many relevant so far, and the interpolated precision.

    The interpolated precision at a relevant document is the highest precision
    at it or at any rank below it; precision only rises at a relevant
    document, so the highest over the relevant documents from here down is
    enough: a running maximum per query read from the bottom up (pandas'
    grouped cummax, vectorised).
    """
    key = ("interpolated", rel)
    if key not in ranking.cache:
        query, rank, hits = _relevant_rows(ranking, rel)
        precision = pd.Series(hits[::-1] / rank[::-1])
        best = precision.groupby(query[::-1], sort=False).cummax().to_numpy()[::-1]
        ranking.cache[key] = (query, hits, best)
    return ranking.cache[key]


def recall_level_count(recall: float, relevant: np.ndarray) -> np.ndarray:
    """The relevant documents a recall level asks for: recall x R rounded half up (trec_eval 10.0's lround)."""
    return np.floor(recall * relevant + 0.5)


def iprec_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """Interpolated precision at a recall level: the best precision once that share of R is found (0 if never)."""
    query, hits, best = _best_precision_from_here(ranking, measure.rel)
    needed = np.maximum(recall_level_count(measure.recall, n_relevant(judged, measure.rel)), 1.0)
    at = hits == needed[query]
    return per_query_sum(query[at], best[at], judged.n_queries)


def rprec_mult_cutoff(times: float, relevant: np.ndarray) -> np.ndarray:
    """The depth of Rprec_mult: times x R plus 0.9, truncated (trec_eval's rule), per query."""
    return np.trunc(times * relevant + 0.9)


def rprec_mult_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """Precision at times x R documents, a missing rank counting as not relevant (0 when the depth is 0)."""
    depth = rprec_mult_cutoff(measure.times, n_relevant(judged, measure.rel))
    query, rank, _ = _relevant_rows(ranking, measure.rel)
    found = per_query_sum(query, (rank <= depth[query]).astype("float64"), judged.n_queries)
    return safe_divide(found, depth)


def _set_counts(measure, judged: Judgments, ranking: Ranking) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query: relevant returned, returned, relevant judged (the set measures' three numbers)."""
    found = num_rel_ret_values(measure, judged, ranking, Conventions())
    return found, ranking.n_returned, n_relevant(judged, measure.rel)


def set_p_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """set_P: relevant returned over returned."""
    found, returned, _ = _set_counts(measure, judged, ranking)
    return safe_divide(found, returned)


def set_recall_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """set_recall: relevant returned over R."""
    found, _, relevant = _set_counts(measure, judged, ranking)
    return safe_divide(found, relevant)


def set_map_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """set_map: set precision times set recall."""
    found, returned, relevant = _set_counts(measure, judged, ranking)
    return safe_divide(found * found, returned * relevant)


def set_f_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """set_F: (x + 1) P R / (x P + R) of set precision and set recall, x = recall_weight (0 when nothing relevant
    is returned)."""
    found, returned, relevant = _set_counts(measure, judged, ranking)
    precision, recall, x = safe_divide(found, returned), safe_divide(found, relevant), measure.recall_weight
    return safe_divide((x + 1.0) * precision * recall, x * precision + recall)


def set_relative_p_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """set_relative_P: relevant returned over min(returned, R)."""
    found, returned, relevant = _set_counts(measure, judged, ranking)
    return safe_divide(found, np.minimum(returned, relevant))


def relative_p_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """relative_P@k: the relevant documents in the top k over min(k, R)."""
    relevant = n_relevant(judged, measure.rel)
    return safe_divide(_found_in_top(measure, judged, ranking), np.minimum(relevant, measure.cutoff))


def num_nonrel_judged_ret_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """num_nonrel_judged_ret: the returned documents judged with a grade from 0 to below rel."""
    below = (ranking.grade >= 0) & (ranking.grade < measure.rel)
    return per_query_sum(ranking.query, below.astype("float64"), judged.n_queries)


def utility_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """utility: the weighted counts of relevant returned, other returned and relevant missed documents (the
    fourth weight, for other documents missed, is 0: it needs the collection's size)."""
    found, returned, relevant = _set_counts(measure, judged, ranking)
    kept, other, missed, _ = measure.weights
    return kept * found + other * (returned - found) + missed * (relevant - found)


def eleven_point_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """11pt_avg: the interpolated precision at each recall level (0, 0.1, ..., 1 by default), averaged (a loop
    over the levels)."""
    total = np.zeros(judged.n_queries)
    for level in measure.levels:
        total += iprec_values(replace(measure, recall=level), judged, ranking, conventions)
    return total / len(measure.levels)


def unjudged_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """unj@k: the documents of the top k without a judgment of grade 0 or more, over k (a short list is not
    padded with unjudged documents)."""
    k = measure.cutoff
    judged_in_top = per_query_sum(ranking.query, ((ranking.rank <= k) & (ranking.grade >= 0)).astype("float64"),
                                  judged.n_queries)
    return (np.minimum(ranking.n_returned, k) - judged_in_top) / k


def bing_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """binG: over R, each relevant returned document's 1 / log2(2 + the documents not relevant above it)."""
    query, rank, hits = _relevant_rows(ranking, measure.rel)
    return safe_divide(per_query_sum(query, 1.0 / np.log2(2.0 + rank - hits), judged.n_queries),
                       n_relevant(judged, measure.rel))


INFAP_EPSILON = 1e-5  # infAP's smoothing of the judged share above a document (INFAP_EPSILON in trec_eval.h)


def infap_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """infAP: each relevant document adds 1/rank plus, for the ranks above, the pooled share times the
    smoothed relevant share of the judged ones (Yilmaz and Aslam 2006); the sum over R.

    Rows with a judgment of any grade are the pool; a negative grade is pooled but unjudged.
    """
    pooled_above = ranks_within(ranking.query) - 1.0  # the rows of the ranking are the pooled documents
    nonrelevant = ((ranking.grade >= 0) & (ranking.grade < measure.rel)).astype("float64")
    running = np.cumsum(nonrelevant)
    starts = query_starts(ranking.query)
    nonrelevant_above = running - nonrelevant - np.repeat(running[starts] - nonrelevant[starts],
                                                          np.diff(np.append(starts, len(running))))
    rows = np.flatnonzero(ranking.grade >= measure.rel)
    query, rank = ranking.query[rows], ranking.rank[rows].astype("float64")
    relevant_above = ranks_within(query) - 1.0
    above = rank - 1.0
    share_judged = np.divide(pooled_above[rows], above, out=np.zeros(len(rows)), where=above > 0)
    share_relevant = (relevant_above + INFAP_EPSILON) / (relevant_above + nonrelevant_above[rows] + 2 * INFAP_EPSILON)
    value = np.where(rank == 1, 1.0, 1.0 / rank + (above / rank) * share_judged * share_relevant)
    return safe_divide(per_query_sum(query, value, judged.n_queries), n_relevant(judged, measure.rel))


def top_grade(judged: Judgments) -> np.ndarray:
    """The highest grade judged for each query, 0 at least (trec_eval's rbp scales its gains by it)."""
    if "top grade" not in judged.cache:
        top = np.zeros(judged.n_queries)
        np.maximum.at(top, judged.query, judged.grade)
        judged.cache["top grade"] = top
    return judged.cache["top grade"]


def trec_rbp_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """trec_eval's rbp: RBP with each document's grade as its gain, over the query's top grade when above 1."""
    top = top_grade(judged)[ranking.query]
    gains = np.maximum(ranking.grade, 0.0) / np.where(top > 1, top, 1.0)
    return per_query_sum(ranking.query, gains * rbp_weight(ranking.rank, measure.p), judged.n_queries)


def trec_rbp_residual_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """trec_eval's rbp_resid: 1 minus the weights of the judged returned documents (grade 0 or more), and 0 when
    every returned document is judged (trec_eval then reports no residual, not the weight past the list)."""
    judged_rows = (ranking.grade >= 0).astype("float64")
    weights = per_query_sum(ranking.query, judged_rows * rbp_weight(ranking.rank, measure.p), judged.n_queries)
    unjudged = ranking.n_returned - per_query_sum(ranking.query, judged_rows, judged.n_queries)
    return np.where(unjudged > 0, 1.0 - weights, 0.0)


# --- trec_eval's nDCG averaged over relevant documents (ndcg_rel) and over gain levels (Rndcg) -------------


def _dcg_so_far(ranking: Ranking, gains) -> np.ndarray:
    """For each judged returned row: the DCG (the grade as gain, or a gain map's) of its query down to its rank
    (grouped cumsum)."""
    key = ("dcg so far", gains)
    if key not in ranking.cache:
        discounted = pd.Series(gain(ranking.grade, "linear", gains) / np.log2(ranking.rank + 1.0))
        ranking.cache[key] = discounted.groupby(ranking.query, sort=False).cumsum().to_numpy()
    return ranking.cache[key]


def _ideal_so_far(judged: Judgments, gains) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ideal ranking of the positive gains, high to low: each position's query, gain and ideal DCG down
    to it, and where each query's positions start."""
    key = ("ideal so far", gains)
    if key not in judged.cache:
        gained = gain(judged.grade, "linear", gains)
        positive = gained > 0
        query, grade = judged.query[positive], gained[positive]
        order = np.lexsort((-grade, query))
        query, grade = query[order], grade[order]
        discounted = pd.Series(grade / np.log2(ranks_within(query) + 1.0))
        ideal = discounted.groupby(query, sort=False).cumsum().to_numpy()
        starts = np.searchsorted(query, np.arange(judged.n_queries))
        judged.cache[key] = (query, grade, ideal, starts)
    return judged.cache[key]


def _dcg_at(ranking: Ranking, gains, query: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """The DCG of each given query down to the given depth (0 where no judged document is that high)."""
    if not len(ranking.query):
        return np.zeros(len(query))
    step = int(ranking.rank.max()) + int(depth.max(initial=0)) + 1
    keys = ranking.query.astype(np.int64) * step + ranking.rank
    order = np.argsort(keys, kind="stable")  # the rows by query code, then rank (the run's query order may differ)
    row = np.searchsorted(keys[order], query.astype(np.int64) * step + depth.astype(np.int64), side="right") - 1
    row = order[np.maximum(row, 0)] * (row >= 0) - (row < 0)
    found = (row >= 0) & (ranking.query[np.maximum(row, 0)] == query)
    return np.where(found, _dcg_so_far(ranking, gains)[np.maximum(row, 0)], 0.0)


def ndcg_rel_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """ndcg_rel: nDCG at each relevant document's rank, a relevant document not returned taking the nDCG at the
    list's end, averaged over the relevant documents (relevant: a gain above 0)."""
    gains = measure.gains
    ideal_query, _, ideal, starts = _ideal_so_far(judged, gains)
    relevant = np.bincount(ideal_query, minlength=judged.n_queries).astype("float64")
    rows = np.flatnonzero(gain(ranking.grade, "linear", gains) > 0)
    query, rank = ranking.query[rows], ranking.rank[rows]
    depth = starts[query] + np.minimum(rank, relevant[query]).astype(np.int64) - 1
    at_row = _dcg_so_far(ranking, gains)[rows] / ideal[depth]
    found = per_query_sum(query, at_row, judged.n_queries)
    full_ideal = ideal_dcg(judged, ranking, None, "linear", gains, "judged")
    at_end = _dcg_at(ranking, gains, np.arange(judged.n_queries), ranking.n_returned)
    missed = relevant - per_query_sum(query, None, judged.n_queries)
    return safe_divide(found + missed * safe_divide(at_end, full_ideal), relevant)


def rndcg_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """Rndcg: nDCG at the depth where each grade of the ideal ranking ends (the DCG stopping at the list's end),
    and at the list's end when it runs 2 or more past the last relevant depth, averaged (0 when R is 0)."""
    gains = measure.gains
    ideal_query, grade, ideal, starts = _ideal_so_far(judged, gains)
    last_of_grade = np.flatnonzero(np.append((ideal_query[1:] != ideal_query[:-1]) | (grade[1:] != grade[:-1]),
                                             True)) if len(grade) else np.zeros(0, np.int64)
    query = ideal_query[last_of_grade]
    depth = (last_of_grade - starts[query] + 1).astype("float64")
    at_levels = _dcg_at(ranking, gains, query, np.minimum(depth, ranking.n_returned[query])) / ideal[last_of_grade]
    relevant = np.bincount(ideal_query, minlength=judged.n_queries).astype("float64")
    full_ideal = ideal_dcg(judged, ranking, None, "linear", gains, "judged")
    past = (ranking.n_returned >= relevant + 2) & (relevant > 0)
    at_end = safe_divide(_dcg_at(ranking, gains, np.arange(judged.n_queries), ranking.n_returned), full_ideal) * past
    total = per_query_sum(query, at_levels, judged.n_queries) + at_end
    counted = per_query_sum(query, None, judged.n_queries) + past
    return np.where(n_relevant(judged, measure.rel) > 0, safe_divide(total, counted), 0.0)


def g_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """trec_eval's G: each returned document's grade over log2(2 + what the ideal ranking has gained by its rank,
    each position counting at least 1, minus what the list has gained), summed, over the grades of the ideal."""
    ideal_query, ideal_grade, _, starts = _ideal_so_far(judged, measure.gains)
    ideal_cost = pd.Series(np.maximum(ideal_grade, 1.0)).groupby(ideal_query, sort=False).cumsum().to_numpy()
    relevant = np.bincount(ideal_query, minlength=judged.n_queries)[ranking.query]
    gains = gain(ranking.grade, "linear", measure.gains)  # a gain map may give a grade a negative gain
    gained = pd.Series(gains).groupby(ranking.query, sort=False).cumsum().to_numpy()
    within = np.minimum(ranking.rank, relevant)
    position = np.maximum(starts[ranking.query] + within - 1, 0)
    cost = np.where(within > 0, ideal_cost[position] if len(ideal_cost) else 0.0, 0.0)
    cost = cost + np.maximum(ranking.rank - relevant, 0)
    value = np.divide(gains, np.log2(2.0 + cost - gained), out=np.zeros(len(gains)), where=gains != 0)
    return safe_divide(per_query_sum(ranking.query, value, judged.n_queries),
                       per_query_sum(ideal_query, ideal_grade, judged.n_queries))


def relstring_values(measure, judged: Judgments, ranking: Ranking, conventions: Conventions) -> np.ndarray:
    """relstring: a character per document of the top k (10 by default): its grade 0-9, '>' above 9, '.' for a
    negative grade (judged as unjudged), '-' without a judgment. Text, one string per query (numpy, no loop)."""
    k = measure.cutoff or RELSTRING_DEFAULT
    shown = np.minimum(ranking.n_returned, k).astype(np.int64)
    chars = np.where(np.arange(k) < shown[:, None], "-", "").astype("<U1")
    rows = np.flatnonzero(ranking.rank <= k)
    grade = np.trunc(ranking.grade[rows])
    digit = np.clip(grade, 0, 9).astype(np.int64).astype(str)
    chars[ranking.query[rows], ranking.rank[rows] - 1] = np.where(grade > 9, ">", np.where(grade < 0, ".", digit))
    return np.ascontiguousarray(chars).view(f"<U{k}").ravel().astype(object)


RELSTRING_DEFAULT = 10  # trec_eval's relstring shows the top 10 unless given a number (relstring.20)
