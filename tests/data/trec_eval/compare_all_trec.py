"""Compare ``python -m helpers.batch -q -m all_trec`` with the trec_eval 10.0 binary on the 200 random pairs.

    PYTHONPATH=. .venv/bin/python tests/data/trec_eval/compare_all_trec.py /path/to/trec_eval-10.0-src.tar.gz

Run by hand (CI has no trec_eval): it builds trec_eval in a temporary folder
as ``make_random_pairs.py`` does (values printed with ``%.17g``), makes the
same 200 pairs from the same seed, runs both commands on each pair with
``-c``, ``-c -l2`` and ``-c -J -M4``, and compares every line, per query and
``all``: numbers to 1e-12, relstring's text exactly. Then, on the pairs whose
run has every query of the qrels (trec_eval 10.0 gives a missing query with a
parameterised measure the values of one unjudged document returned), it
compares the measures trec_eval takes parameters for (``PARAMETERISED``). It
prints how many values it compared and every difference; nothing of trec_eval
is kept.
"""

from __future__ import annotations

import contextlib
import csv
import io
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_random_pairs import OPTIONS, PAIRS, SEED, build, random_pair  # noqa: E402

from helpers.batch.cli import main as ours_main  # noqa: E402

TOLERANCE = 1e-12
PARAMETERISED = ["-m", "rbp.p=0.5", "-m", "rbp_resid.p=0.95", "-m", "utility.2,-1,-0.5,0", "-m", "set_F.0.25",
                 "-m", "11pt_avg.0.2,0.5,0.8", "-m", "relstring.3", "-m", "Rprec_mult.0.3,1.5", "-m", "relative_P.2,7",
                 "-m", "iprec_at_recall.0.15,0.45", "-m", "unj.2,4", "-m", "ndcg.1=3,2=1", "-m", "G.0=-1,1=3,2=9",
                 "-m", "ndcg_rel.1=5,3=2", "-m", "Rndcg.2=7,3=1"]


def trec_eval_lines(binary: Path, options: list[str], qrels: Path, run: Path) -> dict:
    """(measure, qid) -> the value trec_eval printed (text for runid and relstring)."""
    printed = subprocess.run([str(binary), "-q", *options, str(qrels), str(run)],
                             check=True, capture_output=True, text=True).stdout
    lines = (line.split("\t") for line in printed.splitlines())
    return {(name.strip(), qid): value.strip("'") for name, qid, value in lines}


def our_lines(options: list[str], qrels: Path, run: Path) -> dict:
    """(measure, qid) -> the value this command gives in full precision (csv)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours_main(["-q", *options, "--format", "csv", str(qrels), str(run)])
    return {(row["measure"], row["qid"]): row["value"] for row in csv.DictReader(io.StringIO(out.getvalue()))}


def differences(theirs: dict, ours: dict) -> tuple[int, list]:
    """How many lines were compared, and each (line, trec_eval's, ours) that differs."""
    found = []
    for key, value in theirs.items():
        mine = ours.get(key)
        if key[0] == "runid" or key[0].startswith("relstring") or mine is None:
            if mine != value and key[0] != "runid":
                found.append((key, value, mine))
        elif abs(float(mine) - float(value)) > TOLERANCE:
            found.append((key, value, mine))
    found += [(key, None, ours[key]) for key in set(ours) - set(theirs) if key[0] != "runid"]
    return len(theirs), found


def every_query_returned(qrels: str, run: str) -> bool:
    """True when the run has a line for every query of the qrels."""
    return {line.split()[0] for line in qrels.splitlines()} <= {line.split()[0] for line in run.splitlines()}


def main(source: str) -> None:
    rng = np.random.default_rng(SEED)
    pairs = [random_pair(rng) for _ in range(PAIRS)]
    compared, found = 0, []
    with tempfile.TemporaryDirectory() as folder:
        binary, qrels_file, run_file = build(Path(source), Path(folder)), Path(folder) / "qrels", Path(folder) / "run"
        for number, (qrels, run) in enumerate(pairs):
            qrels_file.write_text(qrels)
            run_file.write_text(run)
            sets = {name: [*options, "-m", "all_trec"] for name, options in OPTIONS.items()}
            if every_query_returned(qrels, run):
                sets["parameters"] = PARAMETERISED
            for name, options in sets.items():
                count, different = differences(trec_eval_lines(binary, options, qrels_file, run_file),
                                               our_lines(options, qrels_file, run_file))
                compared += count
                found += [(number, name, *difference) for difference in different]
    print(f"{compared:,} lines compared, {len(found)} different")
    for difference in found:
        print(difference)


if __name__ == "__main__":
    main(sys.argv[1])
