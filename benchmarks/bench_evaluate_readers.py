"""Which fast reader for TREC files? Time the candidates on the same run file (lesson 09).

    .venv/bin/python benchmarks/bench_evaluate_readers.py              # 10k queries x 100 documents
    .venv/bin/python benchmarks/bench_evaluate_readers.py --size 1000x1000 --repeats 7

Each candidate turns a run file into the three columns evaluation needs (qid
and docno as text, score as float64). The file is the seeded 10k x 100 run of
``bench_evaluate.py`` (1 million lines, single spaces); a second file holds the
same lines with tabs, CRLF ends and a comment, the form that sends
helpers' reader through its canonical pass.

What trec_eval accepts decides what a candidate must do: split on runs of any
ASCII whitespace, treat '"' as an ordinary character, skip '#' lines, ignore
fields after the tag. pyarrow's and polars' CSV readers take one separator
byte, so runs of blanks need a canonical form first (helpers does it in
numpy, only for files that need it); pandas' ``sep=r"\\s+"`` splits on runs
but treats quotes as quoting. polars is timed when it is installed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_evaluate import make_collection, parse_size  # noqa: E402
from helpers.batch import read_run, write_run  # noqa: E402

FIELDS = ["qid", "iter", "docno", "rank", "score", "tag"]


def python_loop(path: Path):
    qid, docno, score = [], [], []
    with open(path) as lines:
        for line in lines:
            fields = line.split()
            qid.append(fields[0])
            docno.append(fields[2])
            score.append(float(fields[4]))
    return qid, docno, np.array(score)


def pandas_whitespace(path: Path):
    return pd.read_csv(path, sep=r"\s+", header=None, names=FIELDS, dtype={"score": "float64"},
                       usecols=["qid", "docno", "score"], na_filter=False)


def pandas_single_space(path: Path):
    return pd.read_csv(path, sep=" ", header=None, names=FIELDS, dtype={"score": "float64"}, engine="c",
                       usecols=["qid", "docno", "score"], na_filter=False, quoting=3)


def pyarrow_csv(path: Path):
    return pa_csv.read_csv(
        path,
        read_options=pa_csv.ReadOptions(column_names=FIELDS),
        parse_options=pa_csv.ParseOptions(delimiter=" ", quote_char=False),
        convert_options=pa_csv.ConvertOptions(column_types={"score": pa.float64()},
                                              include_columns=["qid", "docno", "score"]),
    )


def polars_csv(path: Path):
    import polars as pl

    return pl.read_csv(path, separator=" ", has_header=False, new_columns=FIELDS, quote_char=None,
                       columns=[0, 2, 4], schema_overrides={"score": pl.Float64})


def numpy_bytes(path: Path):
    """Fields found with numpy on the raw bytes: whitespace mask, token edges, fixed-width id matrices."""
    buf = np.fromfile(path, dtype=np.uint8)
    space = buf <= 32
    edges = np.flatnonzero(space[1:] != space[:-1]) + 1
    starts, ends = np.concatenate(([0], edges[1::2])), edges[0::2]
    first = np.searchsorted(starts, np.concatenate(([0], np.flatnonzero(buf == 10)[:-1] + 1)))

    def field(number: int) -> np.ndarray:
        start, end = starts[first + number], ends[first + number]
        width = int((end - start).max())
        index = np.minimum(start[:, None] + np.arange(width), len(buf) - 1)
        cells = np.where(index < end[:, None], buf[index], 0).astype(np.uint8)
        return np.ascontiguousarray(cells).view(f"S{width}").ravel()

    return field(0), field(2), field(4).astype(np.float64)


def helpers_read_run(path: Path):
    return read_run(path)


CANDIDATES = {
    "Python loop, line.split()": python_loop,
    "pandas read_csv, sep=r'\\s+' (the old fast path)": pandas_whitespace,
    "pandas read_csv, sep=' ', C engine": pandas_single_space,
    "numpy on the raw bytes": numpy_bytes,
    "pyarrow.csv.read_csv, delimiter ' '": pyarrow_csv,
    "polars.read_csv, separator ' '": polars_csv,
    "helpers read_run (pyarrow, checks, duplicates)": helpers_read_run,
}


def timed(function, path: Path, repeats: int) -> list[float]:
    function(path)  # warm-up: the file is in the page cache
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(path)
        times.append(time.perf_counter() - start)
    return times


def irregular_copy(path: Path, folder: Path) -> Path:
    """The same run with tabs between fields, CRLF line ends and a comment line."""
    text = path.read_text().replace(" ", "\t").replace("\n", "\r\n")
    irregular = folder / "irregular.run"
    irregular.write_text("# the same run, tabs and CRLF\r\n" + text, newline="")
    return irregular


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="10000x100", help="QUERIESxDEPTH")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    n_queries, depth = parse_size(args.size)
    print(f"# load average at start {__import__('os').getloadavg()[0]:.2f}")
    print("| reader | run file | median s [min-max] |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        _, run = make_collection(n_queries, depth)
        path = write_run(run, Path(folder) / "bench.run")
        for label, function in CANDIDATES.items():
            try:
                times = timed(function, path, args.repeats)
            except ImportError as error:
                print(f"| {label} | single spaces | not installed ({error.name}) |")
                continue
            print(f"| {label} | single spaces | {statistics.median(times):.3f} "
                  f"[{min(times):.3f}-{max(times):.3f}] |")
        irregular = irregular_copy(path, Path(folder))
        times = timed(helpers_read_run, irregular, args.repeats)
        print(f"| helpers read_run (canonical pass first) | tabs, CRLF, a comment | "
              f"{statistics.median(times):.3f} [{min(times):.3f}-{max(times):.3f}] |")
    print(f"# load average at end {__import__('os').getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
