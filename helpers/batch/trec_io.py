"""Read and write TREC qrels and run files with trec_eval's rules (lesson 09).

Formats, one judgment or one result a line:

- qrels: ``qid 0 docno grade``, exactly 4 fields;
- run:   ``qid Q0 docno rank score tag``, exactly 6 fields. A line with more
  is refused: it is usually two results joined by a lost line break (or a
  file with CR-only line ends, which reads as one line), and trec_eval would
  keep the first result and silently drop the rest. ``lenient=True`` reads
  such lines as trec_eval does, ignoring every field after the tag, and warns
  (:class:`TrecFormatWarning`) with the number of lines it cut.

The rules are trec_eval 10.0's, with every input trec_eval would misread
refused instead of guessed:

- fields are separated by runs of ASCII whitespace (space, tab, CR, vertical
  tab, form feed), so CRLF line ends work; any other character, a no-break
  space included, belongs to the field it is in;
- nothing is quoted: ``"`` is an ordinary character of an id;
- a line whose first non-blank character is ``#`` is a comment; blank lines
  are skipped (a ``#`` inside an id is kept);
- numbers are ASCII digits with an optional sign, decimal point and exponent
  (``3``, ``-1``, ``0.25``, ``1.5e-3``); ``9_0``, a full-width ``３``,
  ``0x1A``, ``1,5``, NaN and infinity are refused, and so is a grade with an
  exponent (trec_eval reads grades as whole numbers: ``1e3`` would be 1);
- a grade is read like trec_eval's ``atol``: its integer part, decided on the
  text (``1.9999999999999999`` is 1, although the float nearest it is 2.0);
  a grade beyond a 64-bit whole number is refused;
- a document listed twice for one query is refused, like trec_eval;
- the text is UTF-8 (ASCII is UTF-8); a UTF-8 byte-order mark at the start is
  dropped (trec_eval would keep it inside the first query id);
- gzip-compressed content is unpacked, whatever the file is called; a file
  named ``.gz`` that is not gzip is refused.

Every refusal is a ``ValueError`` naming the file and the line, with the
line's text cut to about 200 characters. A directory, a path that does not
exist, or a pipe (which can be read only once, where a file is read again to
name a bad line) is refused before anything is read.

How it is fast: the bytes are put in one canonical form (one space between
fields, no comment, nothing after the tag), with numpy and only when they are
not in it already; pyarrow's CSV reader then splits the canonical text in
C++, every field as text, and Arrow's strict parser reads the numbers. Only
when something is wrong is the file walked line by line, to say where. A
file over 128 MiB that is not gzip is read and parsed 64 MiB of whole lines
at a time, so that its bytes are never all held beside the table; anything
irregular in a block (a bad line, fields cut after the tag) sends the whole
file through the path above, which names the line.
"""

from __future__ import annotations

import ctypes
import gzip
import os
import re
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

QRELS_FIELDS = ("qid", "iter", "docno", "grade")
RUN_FIELDS = ("qid", "iter", "docno", "rank", "score", "tag")
QRELS_COLUMNS = ["qid", "docno", "grade"]
EXAMPLE_LINE = {"qrels": "qid 0 docno grade", "run": "qid Q0 docno rank score tag"}
NUMBER_FIELD = {"qrels": "grade", "run": "score"}

EXCERPT = 200  # characters of a bad line shown in a message
_UTF8_BOM = b"\xef\xbb\xbf"
_READ_BLOCK = 64 << 20  # bytes of a large file parsed at a time (its lines are never cut)
_GZIP_MAGIC = b"\x1f\x8b"
_NUMBER = re.compile(rb"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")  # what C's atof reads whole
_BLANKS = bytes(range(9, 14)).replace(b"\n", b"") + b" "  # ASCII whitespace within a line
_TO_SPACE = bytes.maketrans(b"\t\x0b\x0c\r", b"    ")  # tab, vertical tab, form feed, CR
_LONE_CR = re.compile(rb"\r(?!\n|$)")  # a carriage return that ends no line: a line break lost


class TrecFormatWarning(UserWarning):
    """A run file read with ``lenient=True`` had lines with fields after the tag; they were ignored (lesson 09)."""


# --- public readers and writers ---------------------------------------------


def read_qrels(path) -> pd.DataFrame:
    """Read a TREC qrels file into a DataFrame with columns qid, docno, grade (lesson 09).

    Each line is ``qid 0 docno grade``. qid and docno stay text (``"301"`` is
    not the number 301); grade is int64 when no grade has a fraction, float64
    otherwise, each float kept on the side of its text's integer part
    (``0.99999999999999999999`` is 0.9999999999999999, not 1.0), so that
    ``evaluate``'s truncation gives trec_eval's grade.
    Negative grades are kept: trec_eval reads them as "in the pool but not
    judged", never relevant. The module docstring lists the rules.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "q.txt"
    >>> _ = p.write_text("q1 0 D1 2\\nq1 0 D2 0\\n")
    >>> read_qrels(p)["grade"].tolist()
    [2, 0]
    """
    frame, source = read_with_source(path, "qrels")
    _check_unique_pairs(frame, source)
    return frame


def read_run(path, lenient: bool = False) -> pd.DataFrame:
    """Read a TREC run file into a DataFrame with columns qid, docno, score, rank, tag (lesson 09).

    Each line is ``qid Q0 docno rank score tag``; a line with more fields is
    refused, naming it, unless ``lenient=True``, which ignores the fields after
    the tag as trec_eval does and warns how many lines it cut. ``score`` is
    float64. ``rank`` is kept (int64 when every value is a whole number, text
    otherwise) but evaluation ignores it: documents are ordered by score, like
    trec_eval.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.txt"
    >>> _ = p.write_text("q1 Q0 D1 1 9.5 bm25\\nq1 Q0 D2 2 7.0 bm25\\n")
    >>> read_run(p)["score"].tolist()
    [9.5, 7.0]
    """
    frame, source = read_with_source(path, "run", lenient=lenient)
    _check_unique_pairs(frame, source)
    return frame


def write_qrels(qrels: pd.DataFrame, path) -> Path:
    """Write a qrels DataFrame (qid, docno, grade) as a TREC qrels file; ``.gz`` compresses (lesson 09).

    Returns the path written.
    """
    _check_columns(qrels, QRELS_COLUMNS, "qrels")
    _check_writable_ids(qrels, "qrels")
    lines = pd.DataFrame({"qid": qrels["qid"], "iter": "0", "docno": qrels["docno"], "grade": qrels["grade"]})
    return _write(lines, path)


def write_run(run: pd.DataFrame, path, tag: str = "run") -> Path:
    """Write a run DataFrame (qid, docno, score) as a TREC run file; ``.gz`` compresses (lesson 09).

    Lines are written in the order ``evaluate`` ranks them: query by query (as
    they first appear), score descending, equal scores by docno in descending
    text order (trec_eval's rule); the rank column written is 1, 2, ... in that
    order (a ``rank`` column in the frame is ignored). ``tag`` names the run.
    Returns the path written.
    """
    from helpers.batch._engine import trec_ranked_rows  # the engine owns trec_eval's order

    _check_columns(run, ["qid", "docno", "score"], "run")
    if not isinstance(tag, str):
        raise TypeError(f"tag must be a word (str), got {type(tag).__name__}")
    if not tag or any(ch.isspace() for ch in tag):
        raise ValueError(f"tag must be a non-empty word without spaces, got {tag!r}")
    _check_writable_ids(run, "run")
    _check_writable_scores(run["score"])
    rows, rank = trec_ranked_rows(run["qid"], run["docno"], run["score"].to_numpy(dtype="float64"), "run")
    ordered = run.iloc[rows]
    lines = pd.DataFrame(
        {
            "qid": ordered["qid"],
            "iter": "Q0",
            "docno": ordered["docno"],
            "rank": rank,
            "score": ordered["score"],
            "tag": tag,
        }
    )
    return _write(lines, path)


def run_tag(path) -> str:
    """The run tag trec_eval reports as ``runid``: the sixth field of the file's last result line (lesson 09)."""
    path = _check_path(path, "run")
    data = _load(path)
    for size in (1 << 16, len(data)):  # the end of the file is enough, unless it is all comments
        lines = data[-size:].split(b"\n")
        for line in reversed(lines[1:] if size < len(data) else lines):  # the first may be cut
            fields = line.split()
            if len(fields) >= 6 and not fields[0].startswith(b"#"):
                return fields[5].decode("utf-8", errors="replace")
    raise ValueError(f"{path} is empty: a run file needs at least one line '{EXAMPLE_LINE['run']}'")


# --- where a row came from ----------------------------------------------------


@dataclass(frozen=True)
class Source:
    """The file a frame was read from, so that a problem found later can name its lines (lesson 09)."""

    path: Path
    kind: str
    lenient: bool = False

    def lines(self, rows) -> list[int]:
        """The file line numbers (from 1) of the given frame rows."""
        data = _canonical(_load(self.path), self.kind, cut_after_tag=self.lenient)
        return [int(line) for line in _data_line_numbers(data)[np.asarray(rows)]]

    def where(self, row: int) -> str:
        return f"{self.path}, line {self.lines([row])[0]}"


def read_with_source(path, kind: str, for_evaluation: bool = False,
                     lenient: bool = False) -> tuple[pd.DataFrame, Source]:
    """Read a qrels or run file (no duplicate check yet) and say where it came from.

    ``for_evaluation`` leaves out the run's tag column and keeps its rank only
    as whole numbers (both are read and checked all the same, as dictionaries).
    ``lenient`` ignores a run's fields after the tag, as trec_eval does, and warns.
    """
    if not isinstance(lenient, bool):
        raise TypeError(f"lenient must be True or False, got {type(lenient).__name__} {lenient!r}")
    path = _check_path(path, kind)
    source = Source(path, kind, lenient and kind == "run")
    table = _parse_in_blocks(path, source, for_evaluation)
    cut = _Cut()
    if table is None:  # a small, compressed or irregular file: read whole
        table, cut = _parse(_load(path), source, for_evaluation)  # the bytes are freed before the frame is made
    if table.num_rows == 0:
        raise ValueError(f"{path} is empty: a {kind} file needs at least one line '{EXAMPLE_LINE[kind]}'")
    if cut.lines:
        _warn_cut(path, cut)
    frame = _qrels_frame(table, source) if kind == "qrels" else _run_frame(table, source, for_evaluation)
    del table
    release_unused_memory()  # the reader's freed blocks, and the table's columns the frame did not keep
    return frame, source


def release_unused_memory() -> None:
    """Hand the pages Arrow's pools and C's malloc hold for reuse back to the system (lesson 09's large runs).

    At 100k x 100 glibc's malloc kept about 270 MB of the reader's freed
    blocks (and numpy's) beside what was alive; ``malloc_trim`` returns them.
    """
    _reader_pool().release_unused()
    pa.default_memory_pool().release_unused()
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def _malloc_trim():
    """glibc's ``malloc_trim``, or None on a C library without it (macOS, musl, Windows)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):  # Windows cannot open "no library" (TypeError)
        return None


_MALLOC_TRIM = _malloc_trim()


@dataclass(frozen=True)
class _Cut:
    """How many lines of a run lost fields after the tag (``lenient=True``), the first of them, a lone CR seen."""

    lines: int = 0
    first_line: int = 0
    lone_cr: bool = False


def _warn_cut(path: Path, cut: _Cut) -> None:
    cause = ("the file has carriage returns (CR) that end no line: CR-only line ends read as one line"
             if cut.lone_cr else "check them: such a line is often two results joined by a lost line break")
    warnings.warn(
        f"{path}: {cut.lines:,} line(s) had fields after the run tag, first on line {cut.first_line}; "
        f"lenient=True (the command's --lenient) ignored them, as trec_eval does ({cause})",
        TrecFormatWarning, stacklevel=4,
    )


def _check_unique_pairs(frame: pd.DataFrame, source: Source) -> None:
    from helpers.batch._engine import check_unique_pairs  # the engine owns the pair keys

    check_unique_pairs(frame, source.kind, source)


# --- bytes: open, unpack, check ----------------------------------------------


def _load(path: Path) -> bytes:
    """The file's bytes, unpacked when gzip, without a UTF-8 byte-order mark."""
    data = path.read_bytes()
    if data.startswith(_GZIP_MAGIC):
        data = _gunzip(data, path)
    elif path.suffix == ".gz":
        raise ValueError(
            f"{path}, line 1: the name ends in .gz but the content is not gzip-compressed "
            f"(it starts {_excerpt(data[:40])}); rename it or compress it"
        )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ValueError(f"{path}, line 1: the text is UTF-16 (it starts with a UTF-16 byte-order mark); "
                         "save it as UTF-8")
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
    return data


def _gunzip(data: bytes, path: Path) -> bytes:
    """Unpack gzip data (several members allowed); a broken stream names the line where it stops."""
    try:
        return gzip.decompress(data)
    except (EOFError, OSError, zlib.error):
        pass
    pieces, rest = [], data
    while rest.startswith(_GZIP_MAGIC):
        unpacker = zlib.decompressobj(wbits=31)
        try:
            pieces.append(unpacker.decompress(rest))
        except zlib.error as error:
            pieces.append(b"")
            _raise_gzip(path, pieces, f"the gzip data is corrupt ({error})")
        if not unpacker.eof:
            pieces.append(unpacker.flush())
            _raise_gzip(path, pieces, "the gzip file is truncated (it ends before the compressed data does)")
        rest = unpacker.unused_data.lstrip(b"\x00")
    if rest:
        _raise_gzip(path, pieces, "unexpected bytes after the gzip data")
    return b"".join(pieces)


def _raise_gzip(path: Path, pieces: list[bytes], problem: str) -> NoReturn:
    line = b"".join(pieces).count(b"\n") + 1
    raise ValueError(f"{path}, line {line}: {problem}")


# --- one canonical form: one space between fields, no comments, no extras ----


def _may_need_canonical(data: bytes) -> bool:
    """True when the text holds a tab, CR, vertical tab, form feed or '#' (single bytes: a fast search).

    Runs of spaces and spaces at either end of a line show up after parsing,
    as empty fields (``_has_empty_field``).
    """
    return any(byte in data for byte in (b"\t", b"\r", b"\x0b", b"\x0c", b"#"))


def _canonical(data: bytes, kind: str, cut_after_tag: bool = False) -> bytes:
    """The same lines with one space between fields, comments emptied (and, if asked, run fields after the tag cut).

    Line breaks are kept, so line numbers do not change.
    """
    return _canonical_and_cut(data, kind, cut_after_tag)[0]


def _canonical_and_cut(data: bytes, kind: str, cut_after_tag: bool) -> tuple[bytes, _Cut]:
    """``_canonical`` and, when run fields after the tag were cut, how many lines lost them."""
    buf = np.frombuffer(data.translate(_TO_SPACE), dtype=np.uint8)
    if len(buf) == 0 or buf[-1] != 10:
        buf = np.append(buf, np.uint8(10))
    buf = buf[_single_spaces(buf)]
    buf = buf[~_trailing_spaces(buf)]
    buf = buf[~_comment_text(buf)]
    cut = _Cut()
    if kind == "run" and cut_after_tag and _may_have_extra_fields(buf):
        sixth = _sixth_spaces(buf)
        if len(sixth):
            first_line = int(np.searchsorted(np.flatnonzero(buf == 10), sixth[0])) + 1
            cut = _Cut(len(sixth), first_line, _LONE_CR.search(data) is not None)
            buf = buf[~_from_to_line_end(buf, sixth)]
    return buf.tobytes(), cut


def _may_have_extra_fields(buf: np.ndarray) -> bool:
    """False when the lines hold 5 spaces each or fewer on average.

    Then no line has fields after the tag, or some line has too few fields and
    the file is refused anyway.
    """
    line_ends = np.flatnonzero(buf == 10)
    non_empty = np.count_nonzero(np.diff(np.concatenate(([-1], line_ends))) > 1)
    return bool(np.count_nonzero(buf == 32) > 5 * non_empty)


def _single_spaces(buf: np.ndarray) -> np.ndarray:
    """Keep every non-space byte and the first space after a field."""
    space = buf == 32
    after_field = np.zeros(len(buf), dtype=bool)
    after_field[1:] = ~space[:-1] & (buf[:-1] != 10)
    return ~space | after_field


def _trailing_spaces(buf: np.ndarray) -> np.ndarray:
    """A single space right before a line break."""
    trailing = np.zeros(len(buf), dtype=bool)
    trailing[:-1] = (buf[:-1] == 32) & (buf[1:] == 10)
    return trailing


def _from_to_line_end(buf: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """True from each start position up to (not including) the next line break."""
    ends = np.flatnonzero(buf == 10)
    lengths = ends[np.searchsorted(ends, starts)] - starts
    # the positions of every byte in the ranges, without a Python loop: range by range, 0, 1, 2, ...
    before = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    positions = np.repeat(starts - before, lengths) + np.arange(lengths.sum())
    inside = np.zeros(len(buf), dtype=bool)
    inside[positions] = True
    return inside


def _comment_text(buf: np.ndarray) -> np.ndarray:
    """The bytes of lines that start with '#' (their line break stays)."""
    line_starts = np.concatenate(([0], np.flatnonzero(buf[:-1] == 10) + 1))
    return _from_to_line_end(buf, line_starts[buf[line_starts] == ord("#")])


def _sixth_spaces(buf: np.ndarray) -> np.ndarray:
    """The position of each run line's sixth space: the fields after the tag start there."""
    breaks = np.flatnonzero((buf == 32) | (buf == 10))  # every space and line break, in order
    is_line_break = buf[breaks] == 10
    position = np.arange(len(breaks))
    last_line_break = np.maximum.accumulate(np.where(is_line_break, position, -1))
    spaces_before = position - last_line_break - 1  # spaces earlier on the same line
    return breaks[~is_line_break & (spaces_before == 5)]


def _data_line_numbers(canonical: bytes) -> np.ndarray:
    """For each row read from canonical text, its line number in the file (empty lines are not rows)."""
    buf = np.frombuffer(canonical, dtype=np.uint8)
    breaks = np.flatnonzero(buf == 10)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [len(buf)]))
    return np.flatnonzero(ends > starts) + 1


# --- parsing the canonical text -------------------------------------------------


def _parse(data: bytes, source: Source, for_evaluation: bool = False) -> tuple[pa.Table, _Cut]:
    """Split the text into fields with pyarrow (a score as a number, the rest as text), or refuse it.

    Most files are in canonical form already and are parsed as they are; the
    others (tabs, CRLF, runs of spaces, comments; with ``lenient``, fields
    after the tag) are put in canonical form first. ``for_evaluation`` reads
    the run's iter, rank and tag as dictionaries (see ``_read_csv``).
    """
    if b"\x00" in data or not _is_utf8(data):
        _find_bad_line(data, source)
    fields = QRELS_FIELDS if source.kind == "qrels" else RUN_FIELDS
    if not _may_need_canonical(data):
        try:
            table = _read_csv(data, fields, for_evaluation)
            if not _has_empty_field(table):
                return table, _Cut()
        except pa.ArrowInvalid:
            pass  # e.g. fields after the tag, or a space at the end of a line
    try:
        canonical, cut = _canonical_and_cut(data, source.kind, source.lenient)
        return _read_csv(canonical, fields, for_evaluation), cut
    except pa.ArrowInvalid as error:
        _refuse(data, source, error)


def _parse_in_blocks(path: Path, source: Source, for_evaluation: bool) -> pa.Table | None:
    """A large plain file parsed a block of lines at a time (its bytes never all held), or None.

    The blocks end at line breaks, so each is whole lines and is read as
    ``_parse`` reads a file. None when the file is small, gzip or UTF-16, or
    when a block is not UTF-8, cannot be parsed or had run fields after the
    tag cut: the whole file is then read by ``_parse``, which names the bad
    line or counts the cut lines.
    """
    if path.stat().st_size < 2 * _READ_BLOCK or path.suffix == ".gz":
        return None
    tables: list[pa.Table] = []
    with path.open("rb") as file:
        while block := file.read(_READ_BLOCK):
            if not tables and block.startswith((_GZIP_MAGIC, b"\xff\xfe", b"\xfe\xff")):
                return None
            start = len(_UTF8_BOM) if not tables and block.startswith(_UTF8_BOM) else 0
            end = len(block) if len(block) < _READ_BLOCK else block.rfind(b"\n") + 1
            if end == 0:  # a line longer than a block
                return None
            file.seek(end - len(block), os.SEEK_CUR)  # the next block starts at the next line
            table = _block_table(block, start, end, source, for_evaluation)
            if table is None:
                return None
            tables.append(table)
            if _MALLOC_TRIM is not None:  # the parser's freed blocks back before the next block's (100 MB)
                _MALLOC_TRIM(0)
    return pa.concat_tables(tables)


def _block_table(block: bytes, start: int, end: int, source: Source, for_evaluation: bool) -> pa.Table | None:
    """The lines ``block[start:end]`` parsed as ``_parse`` parses a file, or None when ``_parse`` must see the file."""
    text = memoryview(block)[start:end]
    if block.find(b"\x00", start, end) >= 0 or not _is_utf8(text):
        return None
    fields = QRELS_FIELDS if source.kind == "qrels" else RUN_FIELDS
    try:
        if not any(block.find(byte, start, end) >= 0 for byte in (b"\t", b"\r", b"\x0b", b"\x0c", b"#")):
            table = _read_csv(pa.py_buffer(text), fields, for_evaluation)
            if not _has_empty_field(table):
                return table
        canonical, cut = _canonical_and_cut(bytes(text), source.kind, source.lenient)
        return None if cut.lines else _read_csv(canonical, fields, for_evaluation)
    except pa.ArrowInvalid:
        return None


def _is_utf8(data: bytes | memoryview) -> bool:
    """True when the bytes are valid UTF-8 (Arrow checks the whole text at once, without a copy)."""
    offsets = np.array([0, len(data)], dtype=np.int64)
    text = pa.LargeStringArray.from_buffers(1, pa.py_buffer(offsets), pa.py_buffer(data))
    try:
        text.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _has_empty_field(table: pa.Table) -> bool:
    """An empty field comes from two spaces in a row, or a space at the start of a line."""
    texts = []
    for column in table.columns:
        if pa.types.is_dictionary(column.type):
            texts += [chunk.dictionary for chunk in column.chunks if len(chunk.dictionary)]
        elif column.type != pa.float64():
            texts.append(column)
    return any(pc.min(pc.binary_length(text)).as_py() == 0 for text in texts)


def _refuse(data: bytes, source: Source, error: Exception) -> NoReturn:
    """Raise the ValueError of the first bad line (or, should none be found, of the file)."""
    _find_bad_line(data, source)
    raise ValueError(f"{source.path}: cannot be read as a {source.kind} file ({_excerpt(str(error))})") from None


def _read_csv(text: bytes | pa.Buffer, fields: tuple[str, ...], for_evaluation: bool = False) -> pa.Table:
    """Split canonical text with pyarrow, every field text except the score.

    For an evaluation the run's iter, rank and tag are read as dictionaries
    (a handful of distinct values, 4 bytes a row): only their presence and
    emptiness matter there. The memory pool is one whose freed blocks go back
    to the system (``_reader_pool``): with pyarrow's default (mimalloc) the
    peak of a 450 MB run was 200-300 MB higher.
    """
    dictionary = pa.dictionary(pa.int32(), pa.string())
    types = {name: pa.float64() if name == "score" else pa.large_string() for name in fields}
    if for_evaluation:
        types.update({name: dictionary for name in ("iter", "rank", "tag") if name in types})
    return pa_csv.read_csv(
        pa.BufferReader(text),
        read_options=pa_csv.ReadOptions(column_names=list(fields)),
        parse_options=pa_csv.ParseOptions(
            delimiter=" ", quote_char=False, double_quote=False, escape_char=False, ignore_empty_lines=True
        ),
        convert_options=pa_csv.ConvertOptions(
            # a run's score is read as a number right away (a bad one fails the read, and the walk
            # then finds its line); a grade stays text, to refuse exponents that trec_eval misreads
            column_types=types,
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            check_utf8=False,  # _parse checked the whole text already
        ),
        memory_pool=_reader_pool(),
    )


def _reader_pool() -> pa.MemoryPool:
    """C's malloc where glibc's ``malloc_trim`` can hand its freed pages back, else jemalloc, else the default.

    jemalloc (pyarrow's Linux and macOS wheels) keeps fewer freed pages than
    mimalloc, pyarrow's default, but at 100k x 100 still about 270 MB that
    ``release_unused`` does not return; glibc's malloc with ``malloc_trim``
    returns them (the peak while reading is the same).
    """
    if _MALLOC_TRIM is not None:
        return pa.system_memory_pool()
    try:
        return pa.jemalloc_memory_pool()
    except NotImplementedError:
        return pa.default_memory_pool()


def _scores(column: pa.ChunkedArray, source: Source) -> np.ndarray:
    """The run's score column (the CSV reader parsed it as float64); NaN or infinity names its line."""
    values = column.to_numpy()
    if not np.isfinite(values).all():
        _refuse_numbers(source)
    return values


def _refuse_numbers(source: Source) -> NoReturn:
    """Walk the file to the first bad number and raise its ValueError."""
    _find_bad_line(_load(source.path), source)
    raise ValueError(f"{source.path}: cannot read the {NUMBER_FIELD[source.kind]}s")


def _grade_exponent_problem(text: str) -> str:
    return (f"the grade {text!r} has an exponent; trec_eval reads a grade as a whole number "
            "and would read it as the digits before the 'e': write the grade out")


# --- grades: the integer part of the text, as trec_eval's atol reads it -----------

_GRADE_TEXT = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$"  # digits, an optional point and fraction; no exponent
_EXACT_FLOAT = 2**53  # float64 holds every whole number below this


def grades_of_text(text, refuse: Callable[[int, str], NoReturn]) -> np.ndarray:
    """Grades as trec_eval reads them (``atol`` in get_qrels.c): for read_qrels and text grades in frames.

    The integer part is taken from the text, never from a float that may have
    rounded it: ``1.9999999999999999`` is 1 (as a float it is already 2.0).
    int64 when no grade has a fraction; otherwise float64, each value the
    float nearest the text that keeps its integer part (``0.99999999999999999999``
    becomes 0.9999999999999999, not 1.0): truncating it gives trec_eval's
    grade, and ``fractional_grades="keep"`` gets the number written.
    ``refuse(row, problem)`` raises the ValueError for a bad grade.
    """
    plain = _plain_whole_numbers(text)
    if plain is not None:
        return plain
    valid = pc.match_substring_regex(text, _GRADE_TEXT)
    if not pc.all(valid).as_py():
        row = int(np.argmin(np.asarray(valid.to_numpy(zero_copy_only=False), dtype=bool)))
        refuse(row, _grade_problem(text[row].as_py()))
    whole = _integer_part(text, refuse)
    if not pc.any(pc.match_substring_regex(text, r"\.[0-9]*[1-9]")).as_py():
        return whole
    return _inside_integer_part(pc.cast(text, pa.float64()).to_numpy(), whole, refuse)


def _plain_whole_numbers(text) -> np.ndarray | None:
    """The usual case, every grade digits with an optional '-': one cast (10x faster than the regexes), or None.

    Arrow's cast also reads hexadecimal ('0x1A' is 26, for atol 0), so any 'x' takes the slow path.
    """
    if pc.any(pc.match_substring(text, "x")).as_py() or pc.any(pc.match_substring(text, "X")).as_py():
        return None
    try:
        return pc.cast(text, pa.int64()).to_numpy()
    except pa.ArrowInvalid:
        return None


def _grade_problem(text: str) -> str:
    if text.lower().lstrip("+-") in ("inf", "infinity", "nan"):
        return f"the grade {text!r} is not a finite number"
    if _NUMBER.fullmatch(text.encode("utf-8", errors="replace")):
        return _grade_exponent_problem(text)
    return f"the grade {_excerpt(text)} is not a number"


def _integer_part(text, refuse: Callable[[int, str], NoReturn]) -> np.ndarray:
    """The digits before the point as int64 ('+2' -> 2, '-0.5' -> 0, '.7' -> 0)."""
    digits = pc.replace_substring_regex(text, r"^\+|\.[0-9]*$", "")
    digits = pc.replace_substring_regex(digits, r"^-?$", "0")
    try:
        return pc.cast(digits, pa.int64()).to_numpy()
    except pa.ArrowInvalid:  # more digits than a 64-bit whole number holds
        row = next(row for row, value in enumerate(digits.to_pylist()) if not -(2**63) <= int(value) < 2**63)
        refuse(row, f"the grade {_excerpt(text[row].as_py())} is too large (trec_eval reads a grade "
                    "into a 64-bit whole number)")


def _inside_integer_part(values: np.ndarray, whole: np.ndarray, refuse: Callable[[int, str], NoReturn]) -> np.ndarray:
    """Each float whose rounding crossed a whole number, moved back to the nearest float on the text's side."""
    too_large = np.abs(whole) >= _EXACT_FLOAT
    if too_large.any():
        row = int(np.argmax(too_large))
        refuse(row, f"the grade {float(values[row])!r} is too large to keep its fraction exactly; "
                    "write it without one")
    floor = whole.astype(np.float64)
    # 1.9999999999999999 reads as the float 2.0: the largest float below 2 keeps the integer part 1
    upper = np.minimum(values, np.nextafter(floor + 1.0, floor))
    lower = np.maximum(values, np.nextafter(floor - 1.0, floor))
    return np.where(values < 0, lower, upper)


def _text(column: pa.ChunkedArray) -> pd.Series:
    """An Arrow text column as a pandas text Series, without copying every string into Python."""
    return pd.Series(pd.array(column, dtype=pd.StringDtype("pyarrow", na_value=np.nan)), copy=False)


def _qrels_frame(table: pa.Table, source: Source) -> pd.DataFrame:
    def refuse(row: int, problem: str) -> NoReturn:
        _find_bad_line(_load(source.path), source)  # the first bad line, if the walk sees one
        raise ValueError(f"{source.where(row)}: {problem}")

    grade = grades_of_text(table["grade"], refuse)
    return pd.DataFrame({"qid": _text(table["qid"]), "docno": _text(table["docno"]), "grade": grade})


def _run_frame(table: pa.Table, source: Source, for_evaluation: bool = False) -> pd.DataFrame:
    score = _scores(table["score"], source)
    if for_evaluation:
        frame = pd.DataFrame({"qid": _text(table["qid"]), "docno": _text(table["docno"]), "score": score})
        whole_ranks = _whole_ranks(table["rank"])
        if whole_ranks is not None:  # evaluate compares it with the scores, to warn when they rise with the rank
            frame["rank"] = whole_ranks
        return frame
    try:
        rank: pd.Series | np.ndarray = pc.cast(table["rank"], pa.int64()).to_numpy()
    except pa.ArrowInvalid:
        rank = _text(table["rank"])  # evaluation ignores the rank, so any text is kept as it is
    return pd.DataFrame(
        {"qid": _text(table["qid"]), "docno": _text(table["docno"]), "score": score, "rank": rank,
         "tag": _text(table["tag"])}
    )


def _whole_ranks(column: pa.ChunkedArray) -> np.ndarray | None:
    """A rank column read as a dictionary, as whole numbers (int32 when they fit), or None if some are not."""
    values = []
    for chunk in column.chunks:  # each chunk has its own small dictionary: "1", "2", ...
        try:
            values.append(pc.cast(chunk.dictionary, pa.int64()).to_numpy())
        except pa.ArrowInvalid:
            return None
    largest = max((int(np.abs(vals).max()) for vals in values if len(vals)), default=0)
    ranks = np.empty(len(column), dtype=np.int32 if largest < 2**31 else np.int64)
    start = 0
    for chunk, vals in zip(column.chunks, values, strict=True):
        indices = chunk.indices.to_numpy()
        np.take(vals.astype(ranks.dtype), indices, out=ranks[start: start + len(indices)])
        start += len(indices)
    return ranks


# --- the slow walk that says where a file is wrong --------------------------------


def _find_bad_line(data: bytes, source: Source) -> None:
    """Walk the lines with the same rules and raise ValueError at the first bad one."""
    for number, line in enumerate(data.split(b"\n"), start=1):
        where = f"{source.path}, line {number}"
        if b"\x00" in line:
            raise ValueError(f"{where}: a NUL byte; is this a binary file or UTF-16 text? "
                             "a TREC file is UTF-8 text")
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(
                f"{where}: not UTF-8 text (byte {error.start + 1} of the line is 0x{line[error.start]:02x}; "
                f"Latin-1 or UTF-16?): {_excerpt(line)}; save the file as UTF-8"
            ) from None
        fields = line.split()  # bytes.split() splits on ASCII whitespace only
        if not fields or fields[0].startswith(b"#"):
            continue
        _check_line(fields, line, where, source)


def _check_line(fields: list[bytes], line: bytes, where: str, source: Source) -> None:
    kind = source.kind
    expected = " ".join(QRELS_FIELDS if kind == "qrels" else RUN_FIELDS)
    found = f"found {len(fields):,}: {_excerpt(line.strip(_BLANKS))}"
    if kind == "qrels" and len(fields) != 4:
        raise ValueError(f"{where}: a qrels line has 4 fields '{expected}', {found}{_joined_hint(fields, line, 4)}")
    if kind == "run" and len(fields) < 6:
        raise ValueError(f"{where}: a run line has 6 fields '{expected}', {found}")
    if kind == "run" and len(fields) > 6 and not source.lenient:
        raise ValueError(
            f"{where}: a run line has 6 fields '{expected}', {found}{_joined_hint(fields, line, 6)}; "
            "trec_eval would keep the first 6 fields and drop the rest without a word: to do the same, "
            "pass lenient=True (the command's --lenient)"
        )
    name = NUMBER_FIELD[kind]
    value = fields[3] if kind == "qrels" else fields[4]
    if value.lower().lstrip(b"+-") in (b"inf", b"infinity", b"nan"):
        raise ValueError(f"{where}: the {name} {value.decode()!r} is not a finite number")
    if not _NUMBER.fullmatch(value):
        raise ValueError(f"{where}: the {name} {_excerpt(value)} is not a number")
    if not np.isfinite(float(value)):
        raise ValueError(f"{where}: the {name} {value.decode()!r} is not a finite number")
    if kind == "qrels" and b"e" in value.lower():
        raise ValueError(f"{where}: {_grade_exponent_problem(value.decode())}")


def _joined_hint(fields: list[bytes], line: bytes, per_line: int) -> str:
    """Why a line may have too many fields: CR-only line ends, or lines joined by a lost line break."""
    if _LONE_CR.search(line):
        return ("; the line holds carriage returns (CR) that end no line: the file has CR-only line "
                "ends (old Mac style) or lost line feeds; save it with LF or CRLF line ends")
    if len(fields) >= 2 * per_line:
        return f"; that is {len(fields) / per_line:g} lines' worth (lines joined by a lost line break?)"
    return ""


def _excerpt(text, limit: int = EXCERPT) -> str:
    """The text quoted for a message, cut to about ``limit`` characters."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if len(text) > limit:
        return repr(text[:limit]) + f" ... ({len(text):,} characters)"
    return repr(text)


# --- small shared pieces -----------------------------------------------------------


def _check_path(path, kind: str) -> Path:
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"expected a file path (str or pathlib.Path), got {type(path).__name__}")
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a {kind} file: give the path of the file itself")
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if not path.is_file():  # a pipe (/dev/fd/N, a named pipe) or a device: its bytes can be read only once
        raise ValueError(f"{path} is a pipe or a device, not a regular file: a {kind} file is read more than "
                         "once (to name a bad line), so save it to a file first; the command "
                         "python -m helpers.batch copies a pipe, or '-' for standard input, itself")
    return path


def _check_columns(frame, columns, name: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    absent = [column for column in columns if column not in frame.columns]
    if absent:
        raise ValueError(f"{name} is missing the column(s) {absent}; it has {list(frame.columns)}")


def _check_writable_ids(frame: pd.DataFrame, name: str) -> None:
    """Ids with whitespace (or a leading '#') would be read back as other fields or a comment."""
    for column in ("qid", "docno"):
        text = frame[column].astype(str)
        bad = text.str.contains(r"[ \t\n\r\x0b\x0c]") | (text == "")
        if column == "qid":
            bad |= text.str.startswith("#")
        if bad.any():
            raise ValueError(
                f"{name}: the {column} {text[bad].iloc[0]!r} cannot be written to a TREC file "
                "(ids are one word: no whitespace, not empty, a qid does not start with '#')"
            )


def _check_writable_scores(score: pd.Series) -> None:
    if pd.api.types.is_bool_dtype(score.dtype) or not pd.api.types.is_numeric_dtype(score.dtype):
        raise TypeError(f"run: the column 'score' must hold numbers, it has dtype {score.dtype}")
    bad = ~np.isfinite(score.to_numpy(dtype="float64", na_value=np.nan))
    if bad.any():
        raise ValueError(f"run: score must be a finite number, row {score.index[int(np.argmax(bad))]!r} "
                         f"has {score.iloc[int(np.argmax(bad))]}")


def _write(lines: pd.DataFrame, path) -> Path:
    path = Path(path)
    lines.to_csv(path, sep=" ", header=False, index=False, compression="infer", quoting=3)
    return path
