"""Write random_pairs.json.gz: 200 small random qrels/run pairs and what the trec_eval 10.0 binary prints for them.

    .venv/bin/python tests/data/trec_eval/make_random_pairs.py /path/to/trec_eval-10.0-src.tar.gz

Run once, by hand; the tests read the file it writes (CI has no trec_eval).
trec_eval 10.0 is unpacked into a temporary folder and built with its own
Makefile, with one change made there: its two print files print values with
``%.17g`` instead of ``%6.4f``, so that the values are the doubles it
computed, not 4 decimals. Nothing of trec_eval is kept.

Each pair has 1-5 queries (ids such as q3, q10: text order is not numeric
order), 1-8 judged documents per query with grades -1..3 (at least one grade
of 0 or more: trec_eval 10.0 stops on a query whose every grade is negative),
a run of 1-10 documents per query with scores from a few values (ties are
frequent), judged and unjudged documents mixed, about one query in five
missing from the run, and sometimes a run query without judgments.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

PAIRS = 200
SEED = 38
OPTIONS = {"c": ["-c"], "c_l2": ["-c", "-l2"], "c_J_M4": ["-c", "-J", "-M4"]}
MEASURES = ["num_ret", "num_rel", "num_rel_ret", "Rprec", "bpref", "ndcg.1=3,2=1", "unj.1,3,5"]
OUT = Path(__file__).resolve().parent / "random_pairs.json.gz"


def build(source: Path, folder: Path) -> Path:
    with tarfile.open(source) as archive:
        archive.extractall(folder, filter="data")
    top = next(path.parent for path in folder.rglob("Makefile"))
    for name in ("meas_print_single.c", "meas_print_final.c"):
        path = top / name
        path.write_text(path.read_text().replace("%6.4f", "%.17g"))
    subprocess.run(["make"], cwd=top, check=True, capture_output=True)
    return top / "trec_eval"


def random_pair(rng: np.random.Generator) -> tuple[str, str]:
    qids = [f"q{number}" for number in rng.choice(12, size=rng.integers(1, 6), replace=False)]
    docs = [f"d{number}" for number in range(1, 21)]
    qrels, run = [], []
    for index, qid in enumerate(qids):
        judged = rng.choice(docs, size=rng.integers(1, 9), replace=False)
        grades = rng.integers(-1, 4, size=len(judged))
        grades[0] = max(grades[0], 0)
        qrels += [f"{qid} 0 {doc} {grade}" for doc, grade in zip(judged, grades, strict=True)]
        if index == 0 or rng.random() > 0.2:
            returned = rng.choice(docs, size=rng.integers(1, 11), replace=False)
            scores = rng.choice([0.1, 0.25, 0.5, 0.5, 1.0, 2.0], size=len(returned))
            run += [f"{qid} Q0 {doc} {rank} {score} tag" for rank, (doc, score)
                    in enumerate(zip(returned, scores, strict=True), start=1)]
    if rng.random() < 0.2:
        run.append("q99 Q0 d1 1 1.0 tag")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def main(source: str) -> None:
    rng = np.random.default_rng(SEED)
    pairs = [random_pair(rng) for _ in range(PAIRS)]
    outputs: dict[str, list[str]] = {name: [] for name in OPTIONS}
    with tempfile.TemporaryDirectory() as folder:
        binary = build(Path(source), Path(folder))
        for qrels, run in pairs:
            (Path(folder) / "qrels").write_text(qrels)
            (Path(folder) / "run").write_text(run)
            for name, options in OPTIONS.items():
                measures = [arg for measure in MEASURES for arg in ("-m", measure)]
                command = [str(binary), "-q", *options, *measures, f"{folder}/qrels", f"{folder}/run"]
                outputs[name].append(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    data = {
        "origin": "trec_eval 10.0 (trec_eval-10.0-src.tar.gz), built with its Makefile, printing %.17g",
        "made_by": "tests/data/trec_eval/make_random_pairs.py",
        "measures": MEASURES,
        "options": OPTIONS,
        "pairs": [{"qrels": qrels, "run": run} for qrels, run in pairs],
        "outputs": outputs,
    }
    with gzip.open(OUT, "wt", compresslevel=9) as handle:
        json.dump(data, handle, separators=(",", ":"))
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main(sys.argv[1])
