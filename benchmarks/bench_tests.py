"""How long the tests take: the quick tier, or the README's whole test command (a benchmark, not a test).

    .venv/bin/python benchmarks/bench_tests.py            # the quick tier, pytest -n 2 -m core, three runs
    .venv/bin/python benchmarks/bench_tests.py --whole    # the README's test command once: ruff, mypy, every tier

Printed per run: the wall time, pytest's last line, and the load average before
and after (a figure for docs/contributors.md comes from a quiet machine: the
load before near 0). The command is read from the README, so the figure is
the one a contributor and CI get.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUICK = [sys.executable, "-m", "pytest", "-n", "2", "-m", "core", "-q"]


def readme_test_command() -> str:
    """The README's test command without its set-up part (the venv is there already)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("**Run the whole test suite**", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0].strip()
    return re.sub(r"^python3 -m venv \.venv && \.venv/bin/pip install -q -r requirements-test\.txt && ", "", block)


def timed(command: list[str] | str) -> tuple[float, str, tuple[float, ...], tuple[float, ...]]:
    """Seconds of wall time, pytest's last line, the load averages before and after."""
    before = os.getloadavg()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, shell=isinstance(command, str))
    seconds = time.perf_counter() - start
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return seconds, (lines[-1] if lines else done.stderr[-300:]), before, os.getloadavg()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--whole", action="store_true", help="the README's test command (every tier) once")
    parser.add_argument("--runs", type=int, default=3, help="runs of the quick tier (3)")
    args = parser.parse_args()
    command: list[str] | str = readme_test_command() if args.whole else QUICK
    print(f"{os.cpu_count()} cores; command: {command if isinstance(command, str) else ' '.join(command[1:])}")
    seconds = []
    for run in range(1 if args.whole else args.runs):
        took, last, before, after = timed(command)
        seconds.append(took)
        print(f"run {run + 1}: {took:.1f} s  [{last}]  load average before {before[0]:.2f}, after {after[0]:.2f}",
              flush=True)
    print(f"median {statistics.median(seconds):.1f} s, slowest {max(seconds):.1f} s")


if __name__ == "__main__":
    main()
