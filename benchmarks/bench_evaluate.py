"""Time helpers.batch.evaluate next to the trec_eval binary, pytrec_eval and ranx, same files (lesson 09).

    .venv/bin/python benchmarks/bench_evaluate.py                       # 10k x 100 and 1k x 1000
    .venv/bin/python benchmarks/bench_evaluate.py --sizes 2000x100 --repeats 3
    .venv/bin/python benchmarks/bench_evaluate.py --memory 100000x100   # peak memory: evaluate, command, trec_eval

Synthetic data (seed 42): ``depth`` returned documents per query with distinct
random scores, rows written query by query in rank order (like a run file);
5-15 judged documents per query, each one left unreturned with probability
0.3; grades 0/1/2/3 with probabilities .4/.3/.2/.1. Ids are text (``q00017``,
``d123456``) unless a row says whole numbers.

Measures: nDCG@10, RR, AP, P@10, R@100. RR has no cutoff because trec_eval
has none: each contender then computes all five in one call, its leanest way.

From files (TREC qrels and run files written once, read by every contender):

- helpers.batch.evaluate given the two paths (pyarrow's CSV reader uses every
  core; a second row holds it to one thread, as the other contenders run);
- helpers' own command, ``python -m helpers.batch`` with trec_eval's options,
  run as a new process the way the binary is (its Python start and imports
  counted), with ``-c -q`` and without ``-q``;
- the trec_eval 10.0 binary, built from ``../shared/reference/trec_eval-10.0-src.tar.gz``
  into a temporary folder twice: with its Makefile as it is (``make``: no
  optimisation flag, gcc's ``-O0``) and with ``-O2``, as a user who compiles it
  would (``make CC="gcc -O2"``); both skipped, with a message, when that file
  is absent. Each runs with ``-c -q`` and the five measures, and without
  ``-q`` (means only), its output captured;
- pytrec_eval reading the files the way its own example does
  (``pytrec_eval.parse_qrel`` / ``parse_run``), and after the leanest Python
  reading (one loop over the lines, ``line.split()``, nested dicts): the
  faster of the two is the one helpers is compared with;
- ranx's ``Qrels.from_file`` / ``Run.from_file``, when ranx is installed.

From DataFrames (the same data, already in memory): helpers.batch.evaluate,
pytrec_eval fed what its documentation shows, plain nested dicts of Python
str, int and float, built with ``.tolist()`` on each column and one ``zip``
(iterating the pandas columns themselves hands over one pandas element at a
time and made pytrec_eval look 3x slower), and ranx's ``from_df``.

Before timing, every contender's per-query values are compared with
helpers.batch.evaluate: within 1e-12 for pytrec_eval and ranx, within 5e-5
for the trec_eval binary and the command (they print 4 decimals). Each time is the median of
``--repeats`` runs after one warm-up run. This is a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.batch import evaluate, write_qrels, write_run  # noqa: E402

# beside the checkout (../shared) or beside a worktree's folder (../../shared); --trec-eval-source overrides
SOURCE_PLACES = [ROOT.parent / "shared", ROOT.parent.parent / "shared"]
TREC_EVAL_SOURCE = next((place / "reference" / "trec_eval-10.0-src.tar.gz" for place in SOURCE_PLACES
                         if (place / "reference" / "trec_eval-10.0-src.tar.gz").is_file()),
                        SOURCE_PLACES[0] / "reference" / "trec_eval-10.0-src.tar.gz")
MEASURES = ["nDCG@10", "RR", "AP", "P@10", "R@100"]
TREC_NAMES = {
    "nDCG@10": "ndcg_cut_10", "RR": "recip_rank", "AP": "map", "P@10": "P_10", "R@100": "recall_100",
}
PYTREC_MEASURES = {"ndcg_cut.10", "recip_rank", "map", "P.10", "recall.100"}
RANX_NAMES = {"nDCG@10": "ndcg@10", "RR": "mrr", "AP": "map", "P@10": "precision@10", "R@100": "recall@100"}
AGREEMENT = 1e-12
PRINT_ROUNDING = 5e-5 + 1e-9  # trec_eval prints 4 decimals


# --- data ----------------------------------------------------------------------


def make_collection(n_queries: int, depth: int, seed: int = 42, text_ids: bool = True):
    """Seeded qrels and run DataFrames (columns qid, docno, grade / qid, docno, score)."""
    rng = np.random.default_rng(seed)
    n_rows = n_queries * depth
    query = np.repeat(np.arange(n_queries), depth)
    returned = rng.permutation(4 * n_rows)[:n_rows]  # distinct document numbers
    score = np.sort(rng.random((n_queries, depth)), axis=1)[:, ::-1].ravel()  # rank order in each query
    judged_count = rng.integers(5, 16, n_queries)
    slots = np.arange(15) < judged_count[:, None]  # up to 15 judgments per query
    picked = np.argsort(rng.random((n_queries, depth)), axis=1)[:, :15]  # random returned positions
    judged_doc = returned.reshape(n_queries, depth)[np.arange(n_queries)[:, None], picked]
    unreturned = rng.random((n_queries, 15)) < 0.3
    never_returned = 4 * n_rows + np.arange(n_queries * 15).reshape(n_queries, 15)
    judged_doc = np.where(unreturned, never_returned, judged_doc)
    grade = rng.choice(4, size=(n_queries, 15), p=[0.4, 0.3, 0.2, 0.1])
    qrels = pd.DataFrame(
        {"qid": np.repeat(np.arange(n_queries), 15)[slots.ravel()], "docno": judged_doc[slots],
         "grade": grade[slots]}
    )
    run = pd.DataFrame({"qid": query, "docno": returned, "score": score})
    if text_ids:
        qrels, run = as_text_ids(qrels), as_text_ids(run)
    return qrels, run


def as_text_ids(table: pd.DataFrame) -> pd.DataFrame:
    table = table.copy()
    table["qid"] = [f"q{number:05d}" for number in table["qid"]]
    table["docno"] = [f"d{number}" for number in table["docno"]]
    return table


def shuffled(table: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    return table.sample(frac=1.0, random_state=seed).reset_index(drop=True)


# --- the trec_eval binary, built for this run only --------------------------------


TREC_EVAL_BUILDS = {"make": [], "-O2": ["CC=gcc -O2"]}  # the Makefile as it is, and with gcc -O2


def build_trec_eval(folder: Path, source_archive: Path = TREC_EVAL_SOURCE) -> dict[str, Path]:
    """Unpack trec_eval 10.0's source into ``folder`` once per build and make it; {} without the source."""
    if not source_archive.is_file():
        print(f"# trec_eval binary skipped: {source_archive} not found (--trec-eval-source)")
        return {}
    if shutil.which("make") is None or shutil.which("gcc") is None:
        print("# trec_eval binary skipped: make and gcc are needed to build it")
        return {}
    binaries = {}
    for build, make_arguments in TREC_EVAL_BUILDS.items():
        target = folder / build.strip("-")
        with tarfile.open(source_archive) as archive:
            archive.extractall(target, filter="data")
        source = next(path.parent for path in target.rglob("Makefile"))
        subprocess.run(["make", *make_arguments], cwd=source, check=True, capture_output=True)
        binaries[build] = source / "trec_eval"
    return binaries


# helpers' own command, timed as trec_eval is: a new process that imports what it needs, reads, prints
HELPERS_COMMAND = [sys.executable, "-m", "helpers.batch"]


def trec_eval_command(program: Path | list[str], qrels: Path, run: Path, per_query: bool) -> list[str]:
    names = ("ndcg_cut.10", "recip_rank", "map", "P.10", "recall.100")
    measures = [arg for name in names for arg in ("-m", name)]
    start = [str(program)] if isinstance(program, Path) else program
    return [*start, "-c", *(["-q"] if per_query else []), *measures, str(qrels), str(run)]


def run_trec_eval(program: Path | list[str], qrels: Path, run: Path, per_query: bool = True) -> str:
    return subprocess.run(trec_eval_command(program, qrels, run, per_query), check=True, capture_output=True,
                          text=True, cwd=ROOT).stdout


def parse_trec_eval(output: str) -> pd.DataFrame:
    """trec_eval -q output as a per-query table with our measure names."""
    ours = {trec: name for name, trec in TREC_NAMES.items()}
    values: dict = collections.defaultdict(dict)
    for line in output.splitlines():
        measure, qid, value = line.split()
        if measure in ours and qid != "all":
            values[ours[measure]][qid] = float(value)
    return pd.DataFrame(values)[MEASURES]


# --- the contenders ------------------------------------------------------------------


def helpers_from_files(qrels: Path, run: Path) -> pd.DataFrame:
    return evaluate(qrels, run, MEASURES).per_query


def helpers_from_files_one_thread(qrels: Path, run: Path) -> pd.DataFrame:
    """The same call with pyarrow's CSV reader held to one thread, like the other contenders."""
    import pyarrow as pa

    threads = pa.cpu_count()
    pa.set_cpu_count(1)
    try:
        return helpers_from_files(qrels, run)
    finally:
        pa.set_cpu_count(threads)


def helpers_from_frames(qrels: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    return evaluate(qrels, run, MEASURES).per_query


def pytrec_eval_documented_reading(qrels: Path, run: Path) -> pd.DataFrame:
    """pytrec_eval's own readers, as in its example trec_eval.py: parse_qrel and parse_run."""
    import pytrec_eval

    with open(qrels) as qrels_lines:
        judged = pytrec_eval.parse_qrel(qrels_lines)
    with open(run) as run_lines:
        ranked = pytrec_eval.parse_run(run_lines)
    return pytrec_eval_table(pytrec_eval.RelevanceEvaluator(judged, PYTREC_MEASURES).evaluate(ranked))


def pytrec_eval_from_files(qrels: Path, run: Path) -> pd.DataFrame:
    """The leanest Python reading: one loop over the lines, split, nested dicts."""
    import pytrec_eval

    judged: dict = collections.defaultdict(dict)
    with open(qrels) as lines:
        for line in lines:
            qid, _, docno, grade = line.split()
            judged[qid][docno] = int(grade)
    ranked: dict = collections.defaultdict(dict)
    with open(run) as lines:
        for line in lines:
            qid, _, docno, _, score, _ = line.split()
            ranked[qid][docno] = float(score)
    return pytrec_eval_table(pytrec_eval.RelevanceEvaluator(judged, PYTREC_MEASURES).evaluate(ranked))


def pytrec_eval_from_frames(qrels: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    """Plain nested dicts, as pytrec_eval's documentation shows them: each column as a Python list, one zip."""
    import pytrec_eval

    judged: dict = collections.defaultdict(dict)
    for qid, docno, grade in zip(*(qrels[c].tolist() for c in ("qid", "docno", "grade")), strict=True):
        judged[qid][docno] = grade
    ranked: dict = collections.defaultdict(dict)
    for qid, docno, score in zip(*(run[c].tolist() for c in ("qid", "docno", "score")), strict=True):
        ranked[qid][docno] = score
    return pytrec_eval_table(pytrec_eval.RelevanceEvaluator(judged, PYTREC_MEASURES).evaluate(ranked))


def pytrec_eval_table(values: dict) -> pd.DataFrame:
    table = pd.DataFrame.from_dict(values, orient="index")
    return table.rename(columns={trec: name for name, trec in TREC_NAMES.items()})[MEASURES]


def ranx_from_files(qrels: Path, run: Path) -> pd.DataFrame:
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    ranx_run = Run.from_file(str(run), kind="trec")
    ranx_evaluate(Qrels.from_file(str(qrels), kind="trec"), ranx_run, list(RANX_NAMES.values()))
    return pd.DataFrame({ours: pd.Series(ranx_run.scores[key]) for ours, key in RANX_NAMES.items()})


def ranx_from_frames(qrels: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    ranx_qrels = Qrels.from_df(qrels.astype({"qid": object, "docno": object}), "qid", "docno", "grade")
    ranx_run = Run.from_df(run.astype({"qid": object, "docno": object}), "qid", "docno", "score")
    ranx_evaluate(ranx_qrels, ranx_run, list(RANX_NAMES.values()))
    return pd.DataFrame({ours: pd.Series(ranx_run.scores[key]) for ours, key in RANX_NAMES.items()})


def have_ranx() -> bool:
    try:
        import ranx  # noqa: F401
    except ImportError:
        return False
    return True


# --- timing and agreement ------------------------------------------------------------


def timed(function, *args, repeats: int) -> tuple[list[float], object]:
    result = function(*args)  # warm-up (and ranx's JIT compile)
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return times, result


def check_agreement(reference: pd.DataFrame, other: pd.DataFrame, name: str, tolerance: float) -> float:
    other = other.reindex(index=reference.index.astype(str), columns=MEASURES)
    other.index = reference.index
    if other.isna().any().any():
        raise AssertionError(f"{name}: missing queries or measures")
    worst = float((reference - other).abs().max().max())
    if worst > tolerance:
        raise AssertionError(f"{name} disagrees with helpers.batch.evaluate by {worst:.2e}")
    return worst


def row(size: str, source: str, contender: str, times: list[float], agreement: str) -> dict:
    return {"size": size, "from": source, "contender": contender, "median_s": statistics.median(times),
            "min_s": min(times), "max_s": max(times), "agreement": agreement}


def bench_files(size: str, qrels: Path, run: Path, binaries: dict, repeats: int, ranx: bool) -> list[dict]:
    rows = []
    times, reference = timed(helpers_from_files, qrels, run, repeats=repeats)
    rows.append(row(size, "TREC files", "helpers.batch.evaluate", times, "reference"))
    times, _ = timed(helpers_from_files_one_thread, qrels, run, repeats=repeats)
    rows.append(row(size, "TREC files", "helpers.batch.evaluate, pyarrow on 1 thread", times, "same call"))
    programs = {"helpers.batch command (python -m, a new process)": HELPERS_COMMAND}
    programs |= {f"trec_eval 10.0 binary ({build})": binary for build, binary in binaries.items()}
    for name, program in programs.items():
        worst = check_agreement(reference, parse_trec_eval(run_trec_eval(program, qrels, run)), name,
                                PRINT_ROUNDING)
        for per_query, output in ((True, "-q"), (False, "means only")):
            times, _ = timed(run_trec_eval, program, qrels, run, per_query, repeats=repeats)
            rows.append(row(size, "TREC files", f"{name}, {output}", times, f"{worst:.1e} (4 decimals printed)"))
    times, result = timed(pytrec_eval_documented_reading, qrels, run, repeats=repeats)
    worst = check_agreement(reference, result, "pytrec_eval", AGREEMENT)
    rows.append(row(size, "TREC files", "pytrec_eval, its parse_qrel/parse_run", times, f"{worst:.1e}"))
    times, result = timed(pytrec_eval_from_files, qrels, run, repeats=repeats)
    worst = check_agreement(reference, result, "pytrec_eval", AGREEMENT)
    rows.append(row(size, "TREC files", "pytrec_eval, lean Python reading", times, f"{worst:.1e}"))
    if ranx:
        times, result = timed(ranx_from_files, qrels, run, repeats=repeats)
        worst = check_agreement(reference, result, "ranx", AGREEMENT)
        rows.append(row(size, "TREC files", "ranx", times, f"{worst:.1e}"))
    return rows


def bench_frames(size: str, n_queries: int, depth: int, repeats: int, ranx: bool) -> list[dict]:
    qrels, run = make_collection(n_queries, depth)
    int_qrels, int_run = make_collection(n_queries, depth, text_ids=False)
    rows = []
    times, reference = timed(helpers_from_frames, qrels, run, repeats=repeats)
    rows.append(row(size, "DataFrames, text ids", "helpers.batch.evaluate", times, "reference"))
    variants = {
        "DataFrames, text ids, rows shuffled": (qrels, shuffled(run)),
        "DataFrames, whole-number ids": (int_qrels, int_run),
        "DataFrames, whole-number ids, rows shuffled": (int_qrels, shuffled(int_run)),
    }
    for label, (q, r) in variants.items():
        times, result = timed(helpers_from_frames, q, r, repeats=repeats)
        worst = float(np.abs(result.to_numpy() - reference.to_numpy()).max())
        if worst > AGREEMENT:
            raise AssertionError(f"{label}: helpers.batch.evaluate disagrees with itself by {worst:.2e}")
        rows.append(row(size, label, "helpers.batch.evaluate", times, f"{worst:.1e}"))
    times, result = timed(pytrec_eval_from_frames, qrels, run, repeats=repeats)
    rows.append(row(size, "DataFrames, text ids", "pytrec_eval, dicts from .tolist()", times,
                    f"{check_agreement(reference, result, 'pytrec_eval', AGREEMENT):.1e}"))
    if ranx:
        times, result = timed(ranx_from_frames, qrels, run, repeats=repeats)
        rows.append(row(size, "DataFrames, text ids", "ranx", times,
                        f"{check_agreement(reference, result, 'ranx', AGREEMENT):.1e}"))
    return rows


def write_files(folder: Path, n_queries: int, depth: int) -> tuple[Path, Path]:
    qrels, run = make_collection(n_queries, depth)
    return write_qrels(qrels, folder / "bench.qrels"), write_run(run, folder / "bench.run")


# --- memory ---------------------------------------------------------------------------


def peak_resident_kib() -> int:
    """This process's peak resident size in KiB: VmHWM on Linux, else getrusage's ru_maxrss.

    Not ru_maxrss on Linux: a process keeps, through exec, the peak of the one that started it
    (subprocess starts a child with vfork), so this script's child, whose parent had just made the
    100k x 100 collection, read 2.5 GiB for an evaluate call that peaks at 1.3 GiB.
    """
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE).group(1))


def memory_child(qrels: str, run: str) -> dict:
    """Peak resident memory of one evaluate call from files, in this (fresh) process."""
    before = psutil.Process().memory_info().rss / 1024
    start = time.perf_counter()
    evaluate(qrels, run, MEASURES)
    seconds = time.perf_counter() - start
    peak = peak_resident_kib()
    return {"rss_before_mib": before / 1024, "peak_rss_mib": peak / 1024, "peak_rss_gib": peak / 2**20,
            "peak_rss_gb": peak * 1024 / 1e9, "seconds": seconds}


# A small Python that starts a program and prints its peak (KiB): the program's ru_maxrss starts from this
# starter's own small peak, not from the benchmark's, which made the collection
PEAK_OF_CHILD = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
                 "check=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def command_peak_mib(command: list[str]) -> float:
    """Peak resident memory of a program run as a pipeline runs it (output to /dev/null), in MiB."""
    output = subprocess.run([sys.executable, "-c", PEAK_OF_CHILD, *command], check=True, capture_output=True,
                            text=True, cwd=ROOT).stdout
    return int(output.split()[-1]) / 1024


def memory(size: str, source: Path) -> dict:
    """Peak memory at this size: evaluate from files, the command and the trec_eval binary (-c -q)."""
    n_queries, depth = parse_size(size)
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = write_files(Path(folder), n_queries, depth)
        run_bytes = run.stat().st_size
        output = subprocess.run([sys.executable, __file__, "--memory-child", str(qrels), str(run)],
                                check=True, capture_output=True, text=True).stdout
        result = json.loads(output.strip().splitlines()[-1])
        programs = {"command_peak_rss_mib": HELPERS_COMMAND}
        binary = build_trec_eval(Path(folder) / "trec_eval", source).get("-O2")
        if binary is not None:
            programs["trec_eval_O2_peak_rss_mib"] = binary
        peaks = {name: command_peak_mib(trec_eval_command(program, qrels, run, per_query=True))
                 for name, program in programs.items()}
    return {"size": size, "run_file_mib": run_bytes / 2**20, "run_file_mb": run_bytes / 1e6, **result, **peaks}


# --- printing --------------------------------------------------------------------------


def print_times(rows: list[dict]) -> None:
    print("| size | from | contender | median s [min-max] | helpers is faster by | agreement |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        base = next(b for b in rows if b["size"] == r["size"] and b["contender"] == "helpers.batch.evaluate"
                    and b["from"].startswith(r["from"][:10]))
        ours = r["contender"].startswith("helpers.batch")
        ratio = "" if ours else f"{r['median_s'] / base['median_s']:.1f}x"
        print(f"| {r['size']} | {r['from']} | {r['contender']} | {r['median_s']:.3f} "
              f"[{r['min_s']:.3f}-{r['max_s']:.3f}] | {ratio} | {r['agreement']} |")


def parse_size(text: str) -> tuple[int, int]:
    n_queries, depth = (int(part) for part in text.lower().split("x"))
    return n_queries, depth


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["10000x100", "1000x1000"], help="QUERIESxDEPTH")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-ranx", action="store_true", help="leave ranx out even when it is installed")
    parser.add_argument("--memory", metavar="SIZE", help="peak memory from files, e.g. 100000x100")
    parser.add_argument("--memory-child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help="also write the rows to this JSON file")
    parser.add_argument("--trec-eval-source", type=Path, default=TREC_EVAL_SOURCE,
                        help=f"trec_eval 10.0's source archive (default {TREC_EVAL_SOURCE})")
    args = parser.parse_args(argv)
    if args.memory_child:
        print(json.dumps(memory_child(*args.memory_child)))
        return
    print(f"# {os.cpu_count()} cores, load average at start {os.getloadavg()[0]:.2f}")
    if os.getloadavg()[0] > 1.0:
        print("# the machine is busy: other work moves these seconds, and the ratios with them; "
              "measure the README's figures on a quiet machine")
    if args.memory:
        rows = [memory(args.memory, args.trec_eval_source)]
        print(json.dumps(rows[0]))
    else:
        ranx = have_ranx() and not args.no_ranx
        rows = []
        with tempfile.TemporaryDirectory() as folder:
            binaries = build_trec_eval(Path(folder) / "trec_eval", args.trec_eval_source)
            for size in args.sizes:
                n_queries, depth = parse_size(size)
                qrels, run = write_files(Path(folder), n_queries, depth)
                rows += bench_files(size, qrels, run, binaries, args.repeats, ranx)
                rows += bench_frames(size, n_queries, depth, args.repeats, ranx)
        print_times(rows)
    print(f"# load average at end {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
