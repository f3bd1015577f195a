"""How long the tests take: the quick tier, or the README's whole test command (a benchmark, not a test).

    .venv/bin/python benchmarks/bench_tests.py            # the quick tier, pytest -n 2 -m core, three runs
    .venv/bin/python benchmarks/bench_tests.py --whole    # the README's test command once: ruff, every tier
    .venv/bin/python benchmarks/bench_tests.py --modules  # every tier once (pytest -n 2), each module's wall time
    .venv/bin/python benchmarks/bench_tests.py --cpu      # every tier once, one test at a time: CPU by module, test

Printed per run: the wall time, the CPU time of the run (pytest, both workers and every process they
started and waited for: user + system), pytest's last line, and the load average before and after (a figure
for docs/contributors.md comes from a quiet machine: the load before near 0). The quick tier's budget is 60 s
wall and 150 CPU seconds on two quiet cores. The command is read from the README, so the figure is the one a
contributor and CI get. With PYTHONDONTWRITEBYTECODE set, every run compiles (and pytest rewrites) every
module again, as a fresh clone's first run does: the line says so.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUICK = [sys.executable, "-m", "pytest", "-n", "2", "-m", "core", "-q"]
EVERY_TIER = [sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "module_times"]
ONE_AT_A_TIME = [sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "module_times", "tests"]


def readme_test_command() -> str:
    """The README's test command without its set-up part (the venv is there already)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("**Run the whole test suite**", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0].strip()
    return re.sub(r"^python3 -m venv \.venv && .+? -r requirements-test\.txt && ", "", block)


def children_cpu() -> float:
    """CPU seconds (user + system) of the processes this one has started and waited for, theirs included."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(command: list[str] | str) -> tuple[float, float, str, tuple[float, ...], tuple[float, ...]]:
    """Seconds of wall time and of CPU, pytest's last line, the load averages before and after."""
    before, cpu = os.getloadavg(), children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, shell=isinstance(command, str))
    seconds = time.perf_counter() - start
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return seconds, children_cpu() - cpu, (lines[-1] if lines else done.stderr[-300:]), before, os.getloadavg()


def module_times(records: list[dict]) -> list[tuple[str, str, float, float, float]]:
    """Per module, longest first: its worker, its start and end (seconds from the run's start) and wall time."""
    origin = min(record["start"] for record in records)
    spans: dict[str, list] = defaultdict(lambda: ["", float("inf"), 0.0])
    for record in records:
        span = spans[record["test"].split("::", 1)[0]]
        span[0] = record["worker"]
        span[1], span[2] = min(span[1], record["start"] - origin), max(span[2], record["end"] - origin)
    rows = [(module, worker, start, end, end - start) for module, (worker, start, end) in spans.items()]
    return sorted(rows, key=lambda row: -row[4])


def recorded_run(command: list[str]) -> list[dict]:
    """Run pytest with the module_times plugin; print its wall time, last line and load; return its records."""
    with tempfile.TemporaryDirectory() as folder:
        times = Path(folder) / "times.jsonl"
        env = {**os.environ, "BENCH_MODULE_TIMES": str(times),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "benchmarks"), os.environ.get("PYTHONPATH")]))}
        before, start = os.getloadavg(), time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
        took = time.perf_counter() - start
        records = [json.loads(line) for line in times.read_text(encoding="utf-8").splitlines()]
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    print(f"{took:.0f} s wall  [{lines[-1] if lines else done.stderr[-300:]}]  load average before {before[0]:.2f}, "
          f"after {os.getloadavg()[0]:.2f}")
    return records


def cpu_by_test() -> None:
    """Every tier once, one test at a time (tests/ named, so no background warm-up starts): the machine's CPU
    seconds during each test, a module fixture's in its first test, added up per module; the costliest tests."""
    records = recorded_run(ONE_AT_A_TIME)
    print(f"{sum(record['cpu'] for record in records):.0f} CPU seconds during the tests")
    by_module: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for record in records:
        spent = by_module[record["test"].split("::", 1)[0]]
        spent[0] += record["cpu"]
        spent[1] += record["end"] - record["start"]
    for module, (cpu, wall) in sorted(by_module.items(), key=lambda item: -item[1][0])[:30]:
        print(f"{cpu:7.1f} CPU s {wall:7.1f} s  {module}")
    print("the costliest tests:")
    for record in sorted(records, key=lambda record: -record["cpu"])[:30]:
        print(f"{record['cpu']:7.1f} CPU s {record['end'] - record['start']:7.1f} s  {record['test']}")


def every_module() -> None:
    """Every tier once under -n 2 (the README's pytest), then each module's wall time and the workers' idle end."""
    rows = module_times(recorded_run(EVERY_TIER))
    ends = {worker: max(end for _, w, _, end, _ in rows if w == worker) for _, worker, _, _, _ in rows}
    print("each worker's last test ended at " + ", ".join(f"{w} {end:.0f} s" for w, end in sorted(ends.items())))
    for module, worker, begun, ended, seconds in rows:
        print(f"{seconds:7.1f} s  {worker:>4}  {begun:5.0f}-{ended:<5.0f} {module}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--whole", action="store_true", help="the README's test command (every tier) once")
    parser.add_argument("--modules", action="store_true", help="every tier once, each module's wall time")
    parser.add_argument("--cpu", action="store_true", help="every tier once, one test at a time: CPU by module")
    parser.add_argument("--runs", type=int, default=3, help="runs of the quick tier (3)")
    args = parser.parse_args()
    if args.modules:
        every_module()
        return
    if args.cpu:
        cpu_by_test()
        return
    command: list[str] | str = readme_test_command() if args.whole else QUICK
    print(f"{os.cpu_count()} cores; command: {command if isinstance(command, str) else ' '.join(command[1:])}"
          f"{'; PYTHONDONTWRITEBYTECODE is set' if os.environ.get('PYTHONDONTWRITEBYTECODE') else ''}")
    seconds, cpus = [], []
    for run in range(1 if args.whole else args.runs):
        took, cpu, last, before, after = timed(command)
        seconds.append(took)
        cpus.append(cpu)
        print(f"run {run + 1}: {took:.1f} s wall, {cpu:.1f} s CPU  [{last}]  load average before {before[0]:.2f}, "
              f"after {after[0]:.2f}", flush=True)
    print(f"median {statistics.median(seconds):.1f} s wall, {statistics.median(cpus):.1f} s CPU; "
          f"slowest {max(seconds):.1f} s wall, most {max(cpus):.1f} s CPU")


if __name__ == "__main__":
    main()
