"""Time helpers.evaluate next to pytrec_eval and ranx on seeded synthetic runs (lesson 09).

    .venv/bin/python benchmarks/bench_evaluate.py                 # 10k x 100 and 1k x 1000
    .venv/bin/python benchmarks/bench_evaluate.py --sizes 2000x100 --repeats 3 --no-ranx
    .venv/bin/python benchmarks/bench_evaluate.py --memory        # peak memory, 1 million run rows

Synthetic data (seed 42): ``depth`` returned documents per query with distinct
random scores, rows written query by query in rank order (like a run file);
5-15 judged documents per query, each one left unreturned with probability
0.3; grades 0/1/2/3 with probabilities .4/.3/.2/.1.

Measures: nDCG@10 (linear gain), RR@10, AP, P@10, R@100. Every contender
starts from the same pandas DataFrames, so the times include turning them
into whatever the library takes. pytrec_eval has no RR cutoff, so it gets
RR on the run cut to its top 10 (cutting is part of its time).
Before timing, the per-query values of all three are checked to agree within
1e-12. Each time is the median of ``--repeats`` runs after one warm-up run.
ranx compiles its numba code on first use (about 80 s when its cache is empty);
the warm-up run absorbs that. This is a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.batch.evaluation import evaluate  # noqa: E402
from helpers.batch.trec_io import read_qrels, read_run, write_qrels, write_run  # noqa: E402

MEASURES = ["nDCG@10", "RR@10", "AP", "P@10", "R@100"]
PYTREC_KEYS = {
    "nDCG@10": "ndcg_cut_10", "RR@10": "recip_rank", "AP": "map", "P@10": "P_10", "R@100": "recall_100",
}
RANX_KEYS = {
    "nDCG@10": "ndcg@10", "RR@10": "mrr@10", "AP": "map", "P@10": "precision@10", "R@100": "recall@100",
}
AGREEMENT = 1e-12


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


# --- the contenders: each takes the DataFrames and returns a per-query DataFrame ---


def run_ours(qrels: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    return evaluate(qrels, run, MEASURES).per_query


def run_pytrec_eval(qrels: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    import pytrec_eval

    qrels_dict, run_dict = nested(qrels, "grade", int), nested(run, "score", float)
    top10 = {qid: dict(sorted(docs.items(), key=lambda p: -p[1])[:10]) for qid, docs in run_dict.items()}
    main = pytrec_eval.RelevanceEvaluator(qrels_dict, {"ndcg_cut.10", "map", "P.10", "recall.100"})
    scores = main.evaluate(run_dict)
    reciprocal = pytrec_eval.RelevanceEvaluator(qrels_dict, {"recip_rank"}).evaluate(top10)
    table = pd.DataFrame.from_dict(scores, orient="index")
    table["recip_rank"] = pd.Series({qid: values["recip_rank"] for qid, values in reciprocal.items()})
    return table.rename(columns={v: k for k, v in PYTREC_KEYS.items()})[MEASURES]


def nested(table: pd.DataFrame, value: str, kind) -> dict:
    result: dict = {}
    for qid, docno, number in zip(table["qid"], table["docno"], table[value], strict=True):
        result.setdefault(qid, {})[docno] = kind(number)
    return result


def run_ranx(qrels: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    ranx_qrels = Qrels.from_df(qrels.astype({"qid": object, "docno": object}), "qid", "docno", "grade")
    ranx_run = Run.from_df(run.astype({"qid": object, "docno": object}), "qid", "docno", "score")
    ranx_evaluate(ranx_qrels, ranx_run, list(RANX_KEYS.values()))
    table = pd.DataFrame({ours: pd.Series(ranx_run.scores[key]) for ours, key in RANX_KEYS.items()})
    return table


CONTENDERS = {"helpers.evaluate": run_ours, "pytrec_eval": run_pytrec_eval, "ranx": run_ranx}


# --- timing, agreement, memory --------------------------------------------------


def timed(function, *args, repeats: int) -> tuple[list[float], object]:
    result = function(*args)  # warm-up (and ranx's JIT compile)
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return times, result


def check_agreement(reference: pd.DataFrame, other: pd.DataFrame, name: str) -> float:
    other = other.reindex(index=reference.index.astype(str), columns=MEASURES)
    other.index = reference.index
    if other.isna().any().any():
        raise AssertionError(f"{name}: missing queries or measures")
    worst = float((reference - other).abs().max().max())
    if worst > AGREEMENT:
        raise AssertionError(f"{name} disagrees with helpers.evaluate by {worst:.2e}")
    return worst


def shuffled(table: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    return table.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def bench_size(n_queries: int, depth: int, repeats: int, with_ranx: bool) -> list[dict]:
    qrels, run = make_collection(n_queries, depth)
    int_qrels, int_run = make_collection(n_queries, depth, text_ids=False)
    rows, results = [], {}
    contenders = {name: f for name, f in CONTENDERS.items() if with_ranx or name != "ranx"}
    for name, function in contenders.items():
        times, results[name] = timed(function, qrels, run, repeats=repeats)
        rows.append(row(name, "text ids, rows in rank order", times))
    for name in contenders:
        if name != "helpers.evaluate":
            rows[[r["contender"] for r in rows].index(name)]["max_diff"] = check_agreement(
                results["helpers.evaluate"], results[name], name
            )
    variants = {
        "text ids, rows shuffled": (qrels, shuffled(run)),
        "whole-number ids, rows in rank order": (int_qrels, int_run),
        "whole-number ids, rows shuffled": (int_qrels, shuffled(int_run)),
    }
    for label, (q, r) in variants.items():
        times, result = timed(run_ours, q, r, repeats=repeats)
        assert np.allclose(result.to_numpy(), results["helpers.evaluate"].to_numpy(), atol=AGREEMENT, rtol=0)
        rows.append(row("helpers.evaluate", label, times))
    rows.append(row("helpers.evaluate", "TREC files: read + evaluate", files_times(qrels, run, repeats)))
    for item in rows:
        item["size"] = f"{n_queries:,} q x {depth:,} docs"
    return rows


def files_times(qrels, run, repeats: int) -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        qrels_path = write_qrels(qrels, Path(folder) / "bench.qrels")
        run_path = write_run(run, Path(folder) / "bench.run")
        from_files = lambda: evaluate(read_qrels(qrels_path), read_run(run_path), MEASURES)  # noqa: E731
        times, _ = timed(from_files, repeats=repeats)
    return times


def row(contender: str, variant: str, times: list[float]) -> dict:
    return {"contender": contender, "input": variant, "median_s": statistics.median(times),
            "min_s": min(times), "max_s": max(times)}


def memory_child(name: str) -> dict:
    """Peak memory of one contender on 10k x 100 (1 million run rows), measured in a fresh process.

    Linux keeps the peak resident size in /proc/self/status (VmHWM); writing 5
    to /proc/self/clear_refs resets it, so the peak covers the evaluation only.
    tracemalloc sees numpy's and Python's allocations but not those made inside
    C/C++ extensions (pytrec_eval's evaluator, parts of numba's typed dicts).
    """
    small = make_collection(20, 30)
    CONTENDERS[name](*small)  # import and compile first, so that only the evaluation is measured
    qrels, run = make_collection(10_000, 100)
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)  # hand freed heap pages back, so growth means new memory
    before = resident_mb("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")
    tracemalloc.start()
    CONTENDERS[name](qrels, run)
    _, traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"contender": name, "rss_before_mb": before, "rss_growth_mb": resident_mb("VmHWM") - before,
            "traced_peak_mb": traced / 2**20}


def resident_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} not found in /proc/self/status")


def memory_table(with_ranx: bool) -> list[dict]:
    rows = []
    for name in CONTENDERS:
        if name == "ranx" and not with_ranx:
            continue
        output = subprocess.run([sys.executable, __file__, "--memory-child", name], check=True,
                                capture_output=True, text=True).stdout
        rows.append(json.loads(output.strip().splitlines()[-1]))
    return rows


# --- printing ---------------------------------------------------------------------


def print_times(rows: list[dict]) -> None:
    print("| size | contender | input | median s [min-max] | x pytrec_eval | agreement |")
    print("|---|---|---|---|---|---|")
    for size in dict.fromkeys(r["size"] for r in rows):
        group = [r for r in rows if r["size"] == size]
        base = next(r["median_s"] for r in group if r["contender"] == "pytrec_eval")
        for r in group:
            agreement = f"{r['max_diff']:.1e}" if "max_diff" in r else ("reference" if r is group[0] else "")
            print(f"| {size} | {r['contender']} | {r['input']} | {r['median_s']:.3f} "
                  f"[{r['min_s']:.3f}-{r['max_s']:.3f}] | {r['median_s'] / base:.2f} | {agreement} |")


def print_memory(rows: list[dict]) -> None:
    print("| 10k q x 100 docs (1M run rows) | RSS before MB | peak RSS growth MB | tracemalloc peak MB |")
    print("|---|---|---|---|")
    for r in rows:
        sizes = f"{r['rss_before_mb']:.0f} | {r['rss_growth_mb']:.0f} | {r['traced_peak_mb']:.0f}"
        print(f"| {r['contender']} | {sizes} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["10000x100", "1000x1000"], help="QUERIESxDEPTH")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-ranx", action="store_true", help="leave ranx out (not a project dependency)")
    parser.add_argument("--memory", action="store_true", help="measure peak memory instead of time")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_child)))
        return
    print(f"# {os.cpu_count()} cores, load average at start {os.getloadavg()[0]:.2f}")
    if args.memory:
        rows = memory_table(not args.no_ranx)
        print_memory(rows)
    else:
        rows = []
        for size in args.sizes:
            n_queries, depth = (int(part) for part in size.lower().split("x"))
            rows += bench_size(n_queries, depth, args.repeats, not args.no_ranx)
        print_times(rows)
    print(f"# load average at end {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
