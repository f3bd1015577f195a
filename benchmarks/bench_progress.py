"""What a learner's progress record costs: one event appended per check, and progress() on a long record.

Run: ``.venv/bin/python benchmarks/bench_progress.py [--repeats 500] [--events 10000]``

Everything runs in this process, the record in a temporary JUPYTER_DATA_DIR (the real one is never touched):

- **record one event**: ``record.record(...)``, what ``check`` adds to write its line (open with O_APPEND,
  one write, close), timed alone;
- **check, record on / off**: the whole ``check("sheet-ndcg3", 0.665)`` with the record on and off; the
  difference of the medians is what the record adds to a check;
- **progress() on N events**: a record of ``--events`` lines spread over every exercise (answers, slips,
  hints, solutions, practice), read, summarised and made into the table; then the same with its HTML (what
  JupyterLab shows), its chart, and ``practice()`` without an id on the same record.

Wall-clock times on a busy machine include waiting for a core; the CPU lines (``time.process_time``) do not.

Targets (issue 46): under 5 ms added to a check, progress() under 0.5 s on 10,000 events. The load average
of the machine is printed with the figures; timings are reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def timed(action: Callable[[], object], repeats: int, clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """Milliseconds of each of ``repeats`` calls, on the wall clock (or ``clock``: time.process_time, this
    process's CPU, which the machine's other work does not lengthen)."""
    times = []
    for _ in range(repeats):
        start = clock()
        action()
        times.append((clock() - start) * 1000)
    return times


def line(name: str, times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"{name:<44} {statistics.median(ordered):9.3f} {p95:9.3f} {ordered[-1]:9.3f}   (n={len(ordered)})"


def write_record(path: Path, events: int) -> None:
    """A record of ``events`` lines over every exercise, as a learner's months of work could leave it."""
    from helpers.exercises import REGISTRY

    rng = random.Random(46)
    ids = sorted(REGISTRY)
    kinds = ["check"] * 5 + ["practice-check"] * 3 + ["hint", "solution"]
    lines = []
    for number in range(events):
        exercise_id = rng.choice(ids)
        kind = rng.choice(kinds)
        entry = {"time": 1_790_000_000 + number, "event": kind, "exercise": exercise_id,
                 "lesson": REGISTRY[exercise_id].lesson}
        if kind.endswith("check"):
            verdict = rng.choice(["right", "slip", "wrong", "not_answered"])
            entry["verdict"] = verdict
            entry["slips"] = [[rng.choice(["no-discount", "retrieved-only-ideal", "other-cutoff"])]] if (
                verdict == "slip") else []
            if kind == "practice-check":
                entry["seed"] = rng.randrange(10**6)
        lines.append(json.dumps(entry))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=500, help="calls timed for each figure of a check")
    parser.add_argument("--events", type=int, default=10_000, help="lines of the long record")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["JUPYTER_DATA_DIR"] = folder
        os.environ["RANKING_METRICS_PROGRESS"] = "on"
        for name in ("HELPERS_GRADED_RUN", "HELPERS_CHECK_FD", "HELPERS_CHECK_LOG"):
            os.environ.pop(name, None)
        from helpers.exercises import check, practice, progress, record

        print(f"load average before: {' '.join(f'{value:.2f}' for value in os.getloadavg())}; "
              f"{os.cpu_count()} cores")
        print(f"{'ms':<44} {'median':>9} {'p95':>9} {'max':>9}")
        print(line("record one event", timed(
            lambda: record.record("check", "sheet-ndcg3", "03", verdict="slip", slips=[["no-discount"]]),
            options.repeats)))
        check("sheet-ndcg3", 0.665)  # the worked answer's first computation out of the way
        on, off = [], []
        for _ in range(options.repeats):  # on and off in turn, so a change of the machine's load hits both alike
            for setting, times in (("on", on), ("off", off)):
                os.environ["RANKING_METRICS_PROGRESS"] = setting
                times += timed(lambda: check("sheet-ndcg3", 0.665), 1)
        os.environ["RANKING_METRICS_PROGRESS"] = "on"
        print(line("check, record on", on))
        print(line("check, record off", off))
        print(line("record one event, CPU of this process", timed(
            lambda: record.record("check", "sheet-ndcg3", "03", verdict="slip", slips=[["no-discount"]]),
            options.repeats, time.process_time)))
        print(f"{'the record adds to a check (median on - off)':<44} "
              f"{statistics.median(on) - statistics.median(off):9.3f}")
        record.reset()
        write_record(record.progress_file(), options.events)
        size = record.progress_file().stat().st_size
        print(f"a record of {options.events} events: {size / 1e6:.2f} MB")
        print(line(f"progress() on {options.events} events", timed(progress, 20)))
        print(line("  the same, CPU of this process", timed(progress, 20, time.process_time)))
        print(line("progress() and its HTML table", timed(lambda: progress()._repr_html_(), 20)))
        print(line("  the same, CPU of this process", timed(lambda: progress()._repr_html_(), 20, time.process_time)))
        print(line("progress() and its chart", timed(lambda: progress().chart(), 5)))
        print(line("practice() without an id", timed(practice, 5)))
        print(f"load average after: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
