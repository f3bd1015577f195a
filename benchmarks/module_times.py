"""A pytest plugin for benchmarks/bench_tests.py --modules: when each test ran, on which worker (not a test).

Each test's start and end (wall clock) and its worker are appended as one JSON line to the file named by
BENCH_MODULE_TIMES; bench_tests.py adds them up per module.
"""

from __future__ import annotations

import json
import os
import time

import pytest

TIMES_ENV = "BENCH_MODULE_TIMES"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    start = time.time()
    try:
        return (yield)
    finally:
        record = {"worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "test": item.nodeid,
                  "start": start, "end": time.time()}
        with open(os.environ[TIMES_ENV], "a", encoding="utf-8") as times:
            times.write(json.dumps(record) + "\n")
