"""Load the golden sets of the worked examples from the CSV files in ``data/``.

Each example is a folder ``data/example_<letter>/`` with four files:
``queries.csv``, ``documents.csv``, ``judgments.csv`` and ``runs.csv``
(see ``data/README.md``). Every row is checked; a malformed row is reported
with its file and line number (the header is line 1).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from helpers._checks import check_threshold


def _golden_sets_folder() -> Path:
    """data/ beside the package in a checkout (the files you read and edit); the copy inside an installed helpers."""
    beside = Path(__file__).resolve().parent.parent / "data"
    if (beside / "example_a").is_dir():
        return beside
    return Path(__file__).resolve().parent / "_golden_sets"


DATA_DIR = _golden_sets_folder()

COLUMNS = {
    "queries.csv": ["query_id", "text"],
    "documents.csv": ["doc_id", "title", "text"],
    "judgments.csv": ["query_id", "doc_id", "grade"],
    "runs.csv": ["system", "query_id", "rank", "doc_id", "score"],
}
TIE_BREAKS = ("id_ascending", "id_descending")


class DataFileError(ValueError):
    """A data file is missing, malformed or inconsistent; the message names the file and line."""


@dataclass(frozen=True)
class Example:
    """One worked example: its queries, documents, judgments and ranked runs (all lessons)."""

    name: str
    queries: pd.DataFrame
    documents: pd.DataFrame
    judgments: pd.DataFrame
    runs: pd.DataFrame

    @property
    def systems(self) -> list[str]:
        """The systems of the runs, in file order."""
        return list(dict.fromkeys(self.runs["system"]))

    @property
    def query_ids(self) -> list[str]:
        """The query ids, in file order."""
        return list(self.queries["query_id"])

    def query_text(self, query_id: str) -> str:
        """The text of one query."""
        self._check_query(query_id)
        return str(self.queries.set_index("query_id").at[query_id, "text"])

    def title(self, doc_id: str) -> str:
        """The title of one document."""
        titles = self.documents.set_index("doc_id")["title"]
        if doc_id not in titles.index:
            raise KeyError(f"example {self.name}: no document {doc_id!r} in documents.csv")
        return titles[doc_id]

    def judgments_for(self, query_id: str) -> dict[str, float]:
        """The judged grades of one query as a dict doc_id -> grade (empty when nothing is judged)."""
        self._check_query(query_id)
        judged = self.judgments
        rows = zip(judged["query_id"].tolist(), judged["doc_id"].tolist(), judged["grade"].tolist(), strict=True)
        return {doc_id: float(grade) for query, doc_id, grade in rows if query == query_id}

    def relevant_for(self, query_id: str, threshold: float = 1) -> set[str]:
        """The ids judged relevant (grade >= threshold) for one query."""
        threshold = check_threshold(threshold)
        return {doc for doc, grade in self.judgments_for(query_id).items() if grade >= threshold}

    def ranking(self, system: str, query_id: str) -> list[str]:
        """The ranked doc ids that one system returned for one query, in rank order."""
        self._check_query(query_id)
        if system not in self.systems:
            raise KeyError(f"example {self.name}: no system {system!r}; systems: {', '.join(self.systems)}")
        runs = self.runs  # row by row: a few rows, six times faster than a pandas filter
        rows = zip(runs["system"].tolist(), runs["query_id"].tolist(), runs["rank"].tolist(), runs["doc_id"].tolist(),
                   strict=True)
        ranked = sorted((rank, doc_id) for by, query, rank, doc_id in rows if by == system and query == query_id)
        return [doc_id for _, doc_id in ranked]

    def rankings(self, system: str) -> dict[str, list[str]]:
        """Every query's ranked doc ids for one system, as query_id -> list."""
        return {query_id: self.ranking(system, query_id) for query_id in self.query_ids}

    def _check_query(self, query_id: str) -> None:
        if query_id not in set(self.queries["query_id"]):
            raise KeyError(
                f"example {self.name}: no query {query_id!r}; queries: {', '.join(self.query_ids)}"
            )


def example_dir(name: str) -> Path:
    """The folder of an example given as 'A', 'a' or 'example_a'."""
    if not isinstance(name, str):
        raise TypeError(f"the example name must be a string such as 'C', got {name!r}")
    letter = name.lower().removeprefix("example_")
    folder = DATA_DIR / f"example_{letter}"
    if not folder.is_dir():
        known = sorted(p.name.removeprefix("example_").upper() for p in DATA_DIR.glob("example_*"))
        raise ValueError(f"unknown example {name!r}: choose one of {', '.join(known)}")
    return folder


def load_example(name: str, folder: str | Path | None = None) -> Example:
    """Read and check one worked example, e.g. ``load_example("C")`` (all lessons).

    ``folder`` reads a copy of an example from elsewhere (an edited golden set).

    >>> load_example("B").judgments_for("b1")["D11"]
    3.0
    """
    folder = example_dir(name) if folder is None else Path(folder)
    tables = {file: read_table(folder / file) for file in COLUMNS}
    check_references(tables, folder)
    tables = {file: table.drop(columns="line") for file, table in tables.items()}
    return Example(
        name=name,
        queries=tables["queries.csv"],
        documents=tables["documents.csv"],
        judgments=tables["judgments.csv"],
        runs=tables["runs.csv"],
    )


def read_table(path: Path) -> pd.DataFrame:
    """Read one CSV file of an example, checking the header and every row.

    The returned table keeps a ``line`` column (the file line of each row) for error messages.
    """
    if not path.is_file():
        raise DataFileError(f"{path}: file not found")
    expected = COLUMNS[path.name]
    rows, lines = [], []
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise DataFileError(f"{path}: the file is empty; line 1 must be the header {','.join(expected)}")
        if [name.strip() for name in header] != expected:
            raise DataFileError(
                f"{path}, line 1: the header must be {','.join(expected)}, got {','.join(header)}"
            )
        for values in reader:
            if values:
                rows.append(parse_row(path, reader.line_num, values, expected))
                lines.append(reader.line_num)
    table = pd.DataFrame(rows, columns=expected)
    table["line"] = lines
    check_unique(table, path)
    return table


def parse_row(path: Path, line: int, values: list[str], expected: list[str]) -> list:
    """Check one CSV row and convert its grade, rank and score fields."""
    if len(values) != len(expected):
        raise DataFileError(
            f"{path}, line {line}: expected {len(expected)} fields ({','.join(expected)}), got {len(values)}"
        )
    row: dict[str, str | float | int] = dict(zip(expected, (value.strip() for value in values), strict=True))
    for column in ("query_id", "doc_id", "system"):
        if column in row and not row[column]:
            raise DataFileError(f"{path}, line {line}: {column} is empty")
    if "grade" in row:
        grade = row["grade"] = parse_number(path, line, "grade", str(row["grade"]))
        if grade < 0:
            raise DataFileError(f"{path}, line {line}: grade {grade:g} is negative (use 0 for not relevant)")
    if "score" in row:
        row["score"] = parse_number(path, line, "score", str(row["score"]))
    if "rank" in row:
        rank = str(row["rank"])
        if not rank.isdigit() or int(rank) < 1:
            raise DataFileError(f"{path}, line {line}: rank must be a whole number >= 1, got {rank!r}")
        row["rank"] = int(rank)
    return [row[column] for column in expected]


def parse_number(path: Path, line: int, column: str, text: str) -> float:
    """A finite number from a CSV field, or a DataFileError naming the line."""
    try:
        value = float(text)
    except ValueError:
        raise DataFileError(f"{path}, line {line}: {column} must be a number, got {text!r}") from None
    if math.isnan(value) or math.isinf(value):
        raise DataFileError(f"{path}, line {line}: {column} must be a finite number, got {text!r}")
    return value


KEYS = {
    "queries.csv": ["query_id"],
    "documents.csv": ["doc_id"],
    "judgments.csv": ["query_id", "doc_id"],
    "runs.csv": ["system", "query_id", "doc_id"],
}


def check_unique(table: pd.DataFrame, path: Path) -> None:
    """Refuse a repeated key (a query twice, a document twice in one ranking, a rank twice)."""
    keys = [KEYS[path.name]]
    if path.name == "runs.csv":
        keys.append(["system", "query_id", "rank"])
    for key in keys:
        repeated = table[table.duplicated(key, keep="first")]
        if not repeated.empty:
            first = repeated.iloc[0]
            what = ", ".join(f"{column}={first[column]}" for column in key)
            raise DataFileError(f"{path}, line {first['line']}: repeated {what}")


def check_references(tables: dict[str, pd.DataFrame], folder: Path) -> None:
    """Every query and document a judgment or run names must exist; ranks must be 1, 2, 3, ..."""
    query_ids = set(tables["queries.csv"]["query_id"])
    doc_ids = set(tables["documents.csv"]["doc_id"])
    for file in ("judgments.csv", "runs.csv"):
        table = tables[file]
        for line, query_id, doc_id in zip(table["line"], table["query_id"], table["doc_id"], strict=True):
            if query_id not in query_ids:
                raise DataFileError(f"{folder / file}, line {line}: unknown query {query_id!r}")
            if doc_id not in doc_ids:
                raise DataFileError(f"{folder / file}, line {line}: unknown document {doc_id!r}")
    runs = tables["runs.csv"]
    for (system, query_id), ranks in runs.groupby(["system", "query_id"], sort=False)["rank"]:
        if sorted(ranks) != list(range(1, len(ranks) + 1)):
            raise DataFileError(
                f"{folder / 'runs.csv'}: the ranks of system {system}, query {query_id} "
                f"must be 1..{len(ranks)} without gaps, got {sorted(ranks)}"
            )


def rank_by_score(run: pd.DataFrame, tie_break: str = "id_ascending") -> pd.DataFrame:
    """Re-rank each (system, query) by score, high to low, breaking ties by doc id (lesson 04).

    ``tie_break="id_ascending"`` orders equal scores c-0212 before c-0215 (the
    retrieval advisor's rule); ``"id_descending"`` is what trec_eval does.
    Returns a copy with the ``rank`` column recomputed.
    """
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"unknown tie_break {tie_break!r}: choose one of {', '.join(TIE_BREAKS)}")
    ordered = run.sort_values(
        ["system", "query_id", "score", "doc_id"],
        ascending=[True, True, False, tie_break == "id_ascending"],
        kind="stable",
    ).copy()
    ordered["rank"] = ordered.groupby(["system", "query_id"], sort=False).cumcount() + 1
    return ordered.reset_index(drop=True)
