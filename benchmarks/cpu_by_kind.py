"""Where a whole run's CPU goes: every process on the machine sampled twice a second while a command runs.

    .venv/bin/python benchmarks/cpu_by_kind.py -- bash .ci/run
    .venv/bin/python benchmarks/cpu_by_kind.py --watch ranx_warm_up -- .venv/bin/python -m pytest -n 2
    .venv/bin/python benchmarks/cpu_by_kind.py --by-module -- bash .ci/run

Printed when the command ends: its wall time and status, the CPU seconds (user + system) of the machine's processes
by kind (a lesson's kernel, Chromium, the test workers, the grader...; a process the command did not start is
"elsewhere": the machine was not quiet), and for each minute the cores busy in all and those the processes whose
command line holds ``--watch`` took. ``--by-module`` adds the CPU seconds by test module: a process counts for the
test running when it started (``PYTEST_CURRENT_TEST``, which a process started by a test inherits), or else for its
nearest ancestor's; the test workers themselves count for none. Each process is read once a sample (psutil), so one
that lives less than half a second may be missed and one that ends loses at most its last half second: the figures
are a little low, never high.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from collections import Counter

import psutil

EVERY = 0.5  # seconds between samples
# the first pattern that a process's command line matches names its kind
KINDS = (
    ("ranx's compiling (tests/ranx_warm_up.py)", r"ranx_warm_up"),
    ("kernel", r"ipykernel|forked_kernels"),
    ("Chromium", r"chrom"),
    ("Voila", r"voila"),
    ("Jupyter server or hub", r"jupyter|configurable-http-proxy"),
    ("grader, release, classroom", r"helpers\.(grade|release|teacher)"),
    ("test worker", r"exec\(eval\(sys\.stdin"),  # pytest-xdist's workers
    ("pytest", r"pytest"),
    ("Playwright's driver", r"\bnode\b.*playwright|playwright.*\bnode\b"),
    ("LibreOffice", r"soffice|oosplash"),
    ("installs and checks", r"\buv\b|\bpip\b|apt|dpkg|npm|\bruff\b|mypy"),
    ("other Python", r"python"),
)


def kind_of(command: str) -> str:
    """The kind of a process, from its command line."""
    return next((kind for kind, pattern in KINDS if re.search(pattern, command)), "other")


def descends_from(process: psutil.Process, root: int) -> bool:
    """Whether ``root`` is the process or one of its ancestors."""
    try:
        return process.pid == root or any(parent.pid == root for parent in process.parents())
    except psutil.Error:
        return False


def test_module(process: psutil.Process, modules: dict[int, str]) -> str:
    """The test module a process works for: the one in its environment's current test, else its nearest ancestor's
    (one that started before the sampler saw it may be missed)."""
    try:
        current = process.environ().get("PYTEST_CURRENT_TEST", "")
        if current:
            return current.split("::")[0]
        return next((modules[parent.pid] for parent in process.parents() if modules.get(parent.pid)), "")
    except psutil.Error:
        return ""


def sample(command: list[str], watch: str) -> tuple[int, float, Counter, Counter, Counter, Counter]:
    """Run ``command``, sampling every process until it ends: status, wall seconds, CPU seconds by kind, per
    minute the CPU seconds of all and of the watched processes, and CPU seconds by test module."""
    seen: dict[tuple[int, float], tuple[str, float, bool]] = {}  # (pid, start) -> kind, CPU counted, watched
    modules: dict[int, str] = {}  # pid -> the test module it works for ("" for none)
    by_module: Counter = Counter()
    by_kind: Counter = Counter()
    busy: Counter = Counter()  # minute -> CPU seconds
    watched: Counter = Counter()
    started, since = time.monotonic(), time.time()
    run = subprocess.Popen(command)
    while True:
        ended = run.poll() is not None
        minute = int((time.monotonic() - started) // 60)
        for process in psutil.process_iter():
            try:
                key = (process.pid, process.create_time())
                times = process.cpu_times()
                if key not in seen:
                    line = " ".join(process.cmdline())
                    kind = kind_of(line) if descends_from(process, run.pid) else "elsewhere"
                    kind = "this sampler" if process.pid == os.getpid() else kind
                    earlier = times.user + times.system if key[1] < since else 0.0  # what it spent before the run
                    seen[key] = (kind, earlier, bool(watch) and watch in line)
                    modules[process.pid] = test_module(process, modules) if kind != "elsewhere" else ""
            except psutil.Error:
                continue
            kind, counted, is_watched = seen[key]
            seen[key] = (kind, times.user + times.system, is_watched)
            spent = times.user + times.system - counted
            by_kind[kind] += spent
            by_module[modules.get(process.pid, "")] += spent
            busy[minute] += spent
            if is_watched:
                watched[minute] += spent
        if ended:
            return run.returncode, time.monotonic() - started, by_kind, busy, watched, by_module
        time.sleep(EVERY)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--watch", default="", help="a part of a command line whose processes' CPU is shown apart")
    parser.add_argument("--by-module", action="store_true", help="also the CPU seconds by test module")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    status, wall, by_kind, busy, watched, by_module = sample(command, args.watch)
    print(f"\n{' '.join(command)}: status {status}, {wall:.0f} s wall, {sum(by_kind.values()):.0f} CPU s")
    for kind, seconds in by_kind.most_common():
        print(f"  {seconds:7.1f}  {kind}")
    print("cores busy each minute" + (f" (of which {args.watch})" if args.watch else "") + ":")
    lengths = {minute: min(60.0, wall - 60 * minute) for minute in busy}  # the last minute is a part of one
    print("  " + "  ".join(f"{minute}:{busy[minute] / lengths[minute]:.2f}"
                           + (f"({watched[minute] / lengths[minute]:.2f})" if args.watch else "")
                           for minute in sorted(busy)))
    if args.by_module:
        print("by test module (the processes it started, not the test workers themselves):")
        for module, seconds in by_module.most_common():
            if module and seconds >= 1:
                print(f"  {seconds:7.1f}  {module}")
    return status


if __name__ == "__main__":
    sys.exit(main())
