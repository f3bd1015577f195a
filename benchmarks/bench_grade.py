"""The grader on a class: N lesson-03 notebooks from an assignment copy, graded with --jobs J (a benchmark, not a test).

    .venv/bin/python benchmarks/bench_grade.py                 # 60 notebooks, --jobs 2, bubblewrap when it works
    .venv/bin/python benchmarks/bench_grade.py --notebooks 20 --jobs 1 --sandbox none

The class: a third answers every exercise right, a third gives a known slip,
a third hands the copy in untouched, as a real class mixes them. Printed: the
wall time of the whole run, seconds of wall time per notebook, the median and
90th percentile of one notebook's own time (its kernel, start to end), and the
load average while it ran. The goal on two cores is 1.2 s of wall time per
notebook (100 notebooks in under 2 minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.exercises import REGISTRY, check, exercises_of  # noqa: E402

ANSWER_LINE = re.compile(r"^answer = None.*$", flags=re.M)
CHECK_ID = re.compile(r"""\bcheck\(\s*["']([a-z0-9-]+)["']\s*,\s*answer\)""")


def answer_text(exercise_id: str, kind: str) -> str | None:
    """The right answer, a known slip, or None (untouched), as a learner types it."""
    found = REGISTRY[exercise_id]
    worked = found.worked()
    if kind == "right":
        return f"{worked.value:.{found.decimals}f}"
    if kind == "slip":
        for _codes, value in worked.slips:
            text = f"{value:.{found.decimals}f}"
            if value == value and not check(exercise_id, text).correct:
                return text
    return None


def write_class(release_folder: Path, submissions: Path, count: int) -> None:
    """``count`` learners, each with the lesson-03 notebook of the release, filled by their kind."""
    source = next((release_folder / "notebooks").glob("03_*.ipynb"))
    for number in range(count):
        kind = ("right", "slip", "untouched")[number % 3]
        notebook = nbformat.read(source, as_version=4)
        for cell in notebook.cells:
            found = CHECK_ID.search(cell.source) if cell.cell_type == "code" else None
            if found and kind != "untouched":
                cell.source = ANSWER_LINE.sub(f"answer = {answer_text(found.group(1), kind)!r}", cell.source)
        folder = submissions / f"learner{number:03d}"
        folder.mkdir(parents=True)
        nbformat.write(notebook, folder / source.name)


def load_average() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", type=int, default=60)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sandbox", default="auto", choices=("auto", "bwrap", "none"))
    args = parser.parse_args()
    assert exercises_of("03"), "lesson 03 has exercises"
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as folder:
        base = Path(folder)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, "-m", "helpers.release", str(base / "class")], check=True, env=env,
                       capture_output=True)
        write_class(base / "class", base / "submissions", args.notebooks)
        print(f"load average before: {load_average()}")
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "helpers.grade", str(base / "submissions"), "--out", str(base / "out"),
             "--jobs", str(args.jobs), "--sandbox", args.sandbox],
            env=env, capture_output=True, text=True,
        )
        wall = time.monotonic() - started
        if done.returncode != 0:
            print(done.stderr[-2000:])
            return 1
        own = [json.loads(path.read_text())["seconds"] for path in (base / "out" / "results").glob("*.json")]
        print(done.stdout.splitlines()[0])
        print(f"load average after: {load_average()}")
        print(f"{args.notebooks} notebooks, --jobs {args.jobs}: {wall:.1f} s in all, "
              f"{wall / args.notebooks:.2f} s of wall time per notebook")
        print(f"one notebook's own time: median {statistics.median(own):.2f} s, "
              f"p90 {statistics.quantiles(own, n=10)[-1]:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
