"""Grades under load: does a busy machine change an honest learner's grade? (a benchmark, not a test)

    .venv/bin/python benchmarks/bench_grade_load.py                       # 30 notebooks, loads 0, 3 and 6
    .venv/bin/python benchmarks/bench_grade_load.py --notebooks 60 --busy 0,3,6,12
    .venv/bin/python benchmarks/bench_grade_load.py --notebooks 4 --busy 0,1 --timeout 60   # a quick look

The class is bench_grade.py's: lesson-03 notebooks from a release, a third
right, a third with a known slip, a third untouched, so every grade is known
in advance. It is graded with ``--jobs 2`` (and the default ``--timeout``,
which counts CPU seconds) once on the quiet machine, the reference; then, for
each number of busy processes (``--busy``: each a Python loop that never
sleeps, started beside the grader on the same cores), into a new folder, and
once more with the same command into that folder (a plain rerun: it grades
again only the records the machine spoiled, ``load-timeout`` or
``grader-error``). Printed per load: the load average, the wall time, the share
of notebooks whose points or problems differ from the quiet run's after the
first run and after the rerun, and the problems that made them differ.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_grade import load_average, write_class  # noqa: E402

BUSY = "while True:\n    pass"


def grade(submissions: Path, out: Path, jobs: int, timeout: float) -> tuple[float, subprocess.CompletedProcess]:
    """``python -m helpers.grade`` on the class into ``out``: its wall time and what it printed."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(out), "--jobs", str(jobs),
         "--timeout", f"{timeout:g}"],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, cwd=out.parent,
    )
    if done.returncode != 0:
        raise SystemExit(f"the grader failed:\n{done.stderr[-2000:]}")
    return time.monotonic() - started, done


def grades(out: Path) -> dict[str, tuple[str, str]]:
    """Learner -> (total, problems) from the gradebook."""
    with (out / "gradebook.csv").open(newline="", encoding="utf-8-sig") as handle:
        return {row["learner"]: (row["total"], row["problems"]) for row in csv.DictReader(handle)}


def differing(found: dict[str, tuple[str, str]], quiet: dict[str, tuple[str, str]]) -> list[str]:
    return sorted(learner for learner, row in quiet.items() if found.get(learner) != row)


def busy_processes(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(count)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--busy", default="0,3,6", help="numbers of busy processes beside the grader (0,3,6)")
    parser.add_argument("--timeout", type=float, default=60, help="the grader's --timeout (CPU seconds; 60)")
    args = parser.parse_args()
    loads = [int(part) for part in args.busy.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-grade-load-") as folder:
        base = Path(folder)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, "-m", "helpers.release", str(base / "class")], check=True, env=env,
                       capture_output=True)
        write_class(base / "class", base / "submissions", args.notebooks)
        print(f"{args.notebooks} notebooks, --jobs {args.jobs}, --timeout {args.timeout:g} (CPU seconds); "
              f"{os.cpu_count()} cores")
        wall, _ = grade(base / "submissions", base / "quiet", args.jobs, args.timeout)
        quiet = grades(base / "quiet")
        print(f"quiet reference: {wall:.0f} s, load average after {load_average()}")
        print("busy | load average | first run | differ | one plain rerun (graded again) | differ | problems of the "
              "first run")
        for count in loads:
            out = base / f"busy-{count}"
            workers = busy_processes(count)
            try:
                time.sleep(2 if count else 0)  # the load is there when the grader starts
                first_wall, _ = grade(base / "submissions", out, args.jobs, args.timeout)
                first = grades(out)
                load = load_average()
                again_wall, rerun = grade(base / "submissions", out, args.jobs, args.timeout)
                again = grades(out)
            finally:
                for worker in workers:
                    worker.kill()
                    worker.wait()
            before, after = differing(first, quiet), differing(again, quiet)
            causes = Counter(code.split(" ")[0] for learner in before for code in first[learner][1].split("; ")
                             if code)
            shown = ", ".join(f"{code} {number}" for code, number in causes.most_common()) or "-"
            regraded = len(re.findall(r"^\[\d+/\d+\] ", rerun.stdout, flags=re.M))
            print(f"{count:4d} | {load:>12} | {first_wall:7.0f} s | {100 * len(before) / len(quiet):5.1f} % | "
                  f"{again_wall:6.0f} s ({regraded:3d} notebooks) | {100 * len(after) / len(quiet):5.1f} % | {shown}")
            time.sleep(5 if count else 0)  # let the load settle before the next
    return 0


if __name__ == "__main__":
    sys.exit(main())
