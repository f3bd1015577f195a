"""A pytest plugin for benchmarks/bench_tests.py --modules and --cpu: when each test ran, on which worker, and the
machine's CPU seconds meanwhile (not a test).

Each test's start and end (wall clock), its worker and the CPU seconds the whole machine used from its start to its
end (every process's; one test's own only when the run runs one test at a time, on a quiet machine: --cpu) are
appended as one JSON line to the file named by BENCH_MODULE_TIMES; bench_tests.py adds them up per module.
"""

from __future__ import annotations

import json
import os
import time

import psutil
import pytest

TIMES_ENV = "BENCH_MODULE_TIMES"


def machine_cpu() -> float:
    """The CPU seconds every process of the machine has used since it started (user, nice, system, interrupts)."""
    used = psutil.cpu_times()
    return used.user + used.nice + used.system + getattr(used, "irq", 0.0) + getattr(used, "softirq", 0.0)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    start, cpu = time.time(), machine_cpu()
    try:
        return (yield)
    finally:
        record = {"worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "test": item.nodeid,
                  "start": start, "end": time.time(), "cpu": machine_cpu() - cpu}
        with open(os.environ[TIMES_ENV], "a", encoding="utf-8") as times:
            times.write(json.dumps(record) + "\n")
