"""How long the website build's own steps after Jupyter Book take on a built site (a benchmark, not a test).

    .venv/bin/python -m website.build --out /tmp/site --repository none
    .venv/bin/python benchmarks/bench_site.py /tmp/site

``website.build.page_texts`` reads every page's article for the search's
excerpts; it runs in every build (twice in tests/browser/test_site_browser.py).
Printed: median and slowest of five runs, the pages read, and the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from website.build import page_texts  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="a site built by python -m website.build (its --out)")
    site = parser.parse_args().site
    if not (site / "index.html").is_file():
        parser.error(f"{site}: no index.html (build the site first)")
    seconds, before = [], os.getloadavg()
    for _ in range(5):
        start = time.perf_counter()
        texts = page_texts(site)
        seconds.append(time.perf_counter() - start)
    print(f"page_texts on {len(texts)} pages: median {statistics.median(seconds):.2f} s, slowest {max(seconds):.2f} s "
          f"(5 runs; load average {before[0]:.2f} before, {os.getloadavg()[0]:.2f} after)")


if __name__ == "__main__":
    main()
