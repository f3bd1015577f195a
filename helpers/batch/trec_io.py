"""Read and write TREC qrels and run files (lesson 09).

Formats (whitespace-separated, one judgment or one result a line, ``.gz`` allowed):

- qrels: ``qid 0 docno grade``, exactly 4 fields;
- run:   ``qid Q0 docno rank score tag``, at least 6 fields; fields after the
  tag are ignored, as trec_eval does.

Blank lines and lines starting with ``#`` are skipped. Anything else that is
wrong raises ``ValueError`` naming the file and the line: a wrong number of
fields, a grade or score that is not a finite number, the same document twice
in one query, or a file without a single judgment or result.

The readers try pandas' fast C parser first; when it meets anything unusual
they re-read the file line by line, which either finds the bad line (and says
which) or accepts the file (e.g. extra fields after the run tag).
"""

from __future__ import annotations

import gzip
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

QRELS_FIELDS = ("qid", "iter", "docno", "grade")
RUN_FIELDS = ("qid", "iter", "docno", "rank", "score", "tag")
QRELS_COLUMNS = ["qid", "docno", "grade"]
RUN_COLUMNS = ["qid", "docno", "score", "rank", "tag"]


class _NeedsCarefulRead(Exception):
    """The fast reader met something it cannot judge; read the file line by line."""


# --- public readers --------------------------------------------------------


def read_qrels(path) -> pd.DataFrame:
    """Read a TREC qrels file into a DataFrame with columns qid, docno, grade (lesson 09).

    Each line is ``qid 0 docno grade``. qid and docno stay strings (``"301"`` is
    not the number 301); grade becomes int64 when every grade is a whole number,
    float64 otherwise. Negative grades are kept: trec_eval reads them as
    "in the pool but not judged", never relevant.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "q.txt"
    >>> _ = p.write_text("q1 0 D1 2\\nq1 0 D2 0\\n")
    >>> read_qrels(p)["grade"].tolist()
    [2, 0]
    """
    path = _check_path(path)
    try:
        frame = _fast_read_qrels(path)
    except _NeedsCarefulRead:
        frame = _careful_read(path, kind="qrels")
    frame["grade"] = _whole_numbers_as_int(frame["grade"])
    return frame


def read_run(path) -> pd.DataFrame:
    """Read a TREC run file into a DataFrame with columns qid, docno, score, rank, tag (lesson 09).

    Each line is ``qid Q0 docno rank score tag``; extra fields after the tag are
    ignored (trec_eval does the same). ``score`` is float64. ``rank`` is kept
    (int64 when every value is a whole number) but evaluation ignores it:
    documents are ordered by score, like trec_eval.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.txt"
    >>> _ = p.write_text("q1 Q0 D1 1 9.5 bm25\\nq1 Q0 D2 2 7.0 bm25\\n")
    >>> read_run(p)["score"].tolist()
    [9.5, 7.0]
    """
    path = _check_path(path)
    try:
        frame = _fast_read_run(path)
    except _NeedsCarefulRead:
        frame = _careful_read(path, kind="run")
    frame["rank"] = _whole_numbers_as_int(frame["rank"], keep_text=True)
    return frame


def write_qrels(qrels: pd.DataFrame, path) -> Path:
    """Write a qrels DataFrame (qid, docno, grade) as a TREC qrels file; ``.gz`` compresses (lesson 09).

    Returns the path written.
    """
    _check_columns(qrels, QRELS_COLUMNS, "qrels")
    lines = pd.DataFrame({"qid": qrels["qid"], "iter": "0", "docno": qrels["docno"], "grade": qrels["grade"]})
    return _write(lines, path)


def write_run(run: pd.DataFrame, path, tag: str = "run") -> Path:
    """Write a run DataFrame (qid, docno, score) as a TREC run file; ``.gz`` compresses (lesson 09).

    The rank column written is 1, 2, ... in order of descending score within
    each query (a ``rank`` column in the frame is ignored); ``tag`` names the run.
    Returns the path written.
    """
    _check_columns(run, ["qid", "docno", "score"], "run")
    if not isinstance(tag, str) or not tag or any(ch.isspace() for ch in tag):
        raise ValueError(f"tag must be a non-empty word without spaces, got {tag!r}")
    ordered = run.sort_values(["qid", "score"], ascending=[True, False], kind="stable")
    rank = ordered.groupby("qid", sort=False).cumcount() + 1
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


# --- the fast path: pandas' C parser, then checks on whole columns --------


def _fast_read_qrels(path: Path) -> pd.DataFrame:
    frame = _read_table(path, QRELS_FIELDS, {"grade": "float64"})
    _check_fast_frame(frame, "grade")
    return frame[QRELS_COLUMNS].copy()


def _fast_read_run(path: Path) -> pd.DataFrame:
    frame = _read_table(path, RUN_FIELDS, {"score": "float64"})
    _check_fast_frame(frame, "score")
    return frame[RUN_COLUMNS].copy()


def _read_table(path: Path, fields, numbers: dict) -> pd.DataFrame:
    dtypes = {name: numbers.get(name, str) for name in fields}
    try:
        frame = pd.read_csv(
            path,
            sep=r"\s+",
            header=None,
            names=list(fields),
            dtype=dtypes,
            engine="c",
            na_filter=False,
            skip_blank_lines=True,
            compression="infer",
        )
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise _NeedsCarefulRead from error
    if not isinstance(frame.index, pd.RangeIndex) or frame.empty:
        raise _NeedsCarefulRead  # extra fields became an index, or no data
    return frame


def _check_fast_frame(frame: pd.DataFrame, number_column: str) -> None:
    last = frame.columns[-1]
    if (frame[last] == "").any() or frame[last].isna().any():
        raise _NeedsCarefulRead  # a line with too few fields
    if frame["qid"].str.startswith("#").any():
        raise _NeedsCarefulRead  # comment lines
    if not np.isfinite(frame[number_column].to_numpy()).all():
        raise _NeedsCarefulRead
    if frame.duplicated(["qid", "docno"]).any():
        raise _NeedsCarefulRead


# --- the careful path: one line at a time, exact error messages -----------


def _careful_read(path: Path, kind: str) -> pd.DataFrame:
    fields = QRELS_FIELDS if kind == "qrels" else RUN_FIELDS
    number_field = "grade" if kind == "qrels" else "score"
    rows, seen = [], {}
    with _open_text(path) as handle:
        for line_number, line in enumerate(handle, start=1):
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            where = f"{path}, line {line_number}"
            _check_field_count(parts, fields, kind, where, line)
            value = _parse_number(parts[fields.index(number_field)], number_field, where)
            key = (parts[0], parts[2])
            if key in seen:
                raise ValueError(
                    f"{where}: document {parts[2]!r} appears twice for query {parts[0]!r} "
                    f"(first on line {seen[key]}); each document can be judged or returned "
                    "only once per query"
                )
            seen[key] = line_number
            rows.append(_row(parts, value, kind))
    if not rows:
        example = "qid 0 docno grade" if kind == "qrels" else "qid Q0 docno rank score tag"
        raise ValueError(f"{path} is empty: a {kind} file needs at least one line '{example}'")
    columns = QRELS_COLUMNS if kind == "qrels" else RUN_COLUMNS
    frame = pd.DataFrame(rows, columns=columns)
    for name in ("qid", "docno"):
        frame[name] = frame[name].astype(str)
    return frame


def _check_field_count(parts: list, fields, kind: str, where: str, line: str) -> None:
    expected = " ".join(fields)
    if kind == "qrels" and len(parts) != 4:
        raise ValueError(
            f"{where}: a qrels line has 4 fields '{expected}', found {len(parts)}: {line.strip()!r}"
        )
    if kind == "run" and len(parts) < 6:
        raise ValueError(
            f"{where}: a run line has 6 fields '{expected}', found {len(parts)}: {line.strip()!r}"
        )


def _parse_number(text: str, name: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: the {name} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{where}: the {name} {text!r} is not a finite number")
    return value


def _row(parts: list, value: float, kind: str) -> tuple:
    if kind == "qrels":
        return parts[0], parts[2], value
    return parts[0], parts[2], value, parts[3], parts[5]


# --- small shared pieces ---------------------------------------------------


def _check_path(path) -> Path:
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"expected a file path (str or pathlib.Path), got {type(path).__name__}")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    return path


def _check_columns(frame, columns, name: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    absent = [column for column in columns if column not in frame.columns]
    if absent:
        raise ValueError(f"{name} is missing the column(s) {absent}; it has {list(frame.columns)}")


def _open_text(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _whole_numbers_as_int(column: pd.Series, keep_text: bool = False) -> pd.Series:
    numbers = pd.to_numeric(column, errors="coerce")
    if numbers.isna().any():
        if keep_text:
            return column
        raise ValueError(f"the column {column.name!r} holds values that are not numbers")
    values = numbers.to_numpy(dtype="float64")
    if np.all(values == np.round(values)) and np.all(np.abs(values) < 2**53):
        return pd.Series(values.astype("int64"), index=column.index, name=column.name)
    return numbers.astype("float64")


def _write(lines: pd.DataFrame, path) -> Path:
    path = Path(path)
    lines.to_csv(path, sep=" ", header=False, index=False, compression="infer")
    return path
