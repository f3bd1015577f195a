"""How soon the teacher's commands refuse a bad command line, Python's start included (a benchmark, not a test).

    .venv/bin/python benchmarks/bench_refusals.py

``python -m helpers.grade SUBMISSIONS --out FILE`` must say "is a file" before
anything is imported that running notebooks needs (tests/test_teacher_units.py
checks that nothing ran; this measures how long it took). The goal: under a
second on a quiet machine. Printed: median and slowest of ten runs, and the load.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        submissions, out = Path(folder) / "submissions", Path(folder) / "grades.csv"
        submissions.mkdir()
        (submissions / "x.ipynb").write_text("{}")
        out.write_text("a file")
        command = [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(out)]
        seconds = []
        before = os.getloadavg()
        for _ in range(10):
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)})
            seconds.append(time.perf_counter() - start)
            assert done.returncode == 2 and "is a file" in done.stderr, done.stderr
    print(f"python -m helpers.grade with a bad --out: median {statistics.median(seconds):.2f} s, slowest "
          f"{max(seconds):.2f} s (10 runs; load average {before[0]:.2f} before, {os.getloadavg()[0]:.2f} after)")


if __name__ == "__main__":
    main()
