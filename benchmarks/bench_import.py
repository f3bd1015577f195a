"""What a lesson's setup cell pays for the exercises: ``import helpers.exercises`` in a fresh Python.

Run: ``.venv/bin/python benchmarks/bench_import.py [--runs 7]``

Each run is a fresh Python that first imports pandas and numpy (every lesson loads them anyway), then times
``import helpers.exercises`` in CPU seconds (``time.process_time``), then the first ``check`` of lesson 09's
``paired-sign-flip-p``, the one exercise whose answer loads scipy.stats. It prints the medians, the load
average before, and whether scipy.stats was loaded by the import. Reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = """
import json, sys, time
import numpy, pandas
start = time.process_time()
import helpers.exercises
imported = time.process_time()
scipy_at_import = "scipy.stats" in sys.modules
helpers.exercises.check("paired-sign-flip-p", "0.25")
print(json.dumps({"import": imported - start, "first check": time.process_time() - imported,
                  "scipy at import": scipy_at_import}))
"""


def one_run() -> dict:
    env = {**os.environ, "RANKING_METRICS_PROGRESS": "off", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    results = [one_run() for _ in range(runs)]
    for name in ("import", "first check"):
        print(f"{name}: median {statistics.median(r[name] for r in results):.3f} CPU s over {runs} runs")
    print(f"scipy.stats loaded by the import: {sum(r['scipy at import'] for r in results)} of {runs} runs")


if __name__ == "__main__":
    main()
