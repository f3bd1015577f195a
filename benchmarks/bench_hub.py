"""A class on a real JupyterHub, measured: server start, memory per learner, click latency with the class active.

Run (needs requirements-test.txt and ``npm install -g configurable-http-proxy@5.3.0``)::

    .venv/bin/python benchmarks/bench_hub.py [--learners 10] [--clicks 100] [--rounds 2] [--json out.json]

The hub is the one the hub tests start (:mod:`tests.hub.classhub`): JupyterHub 5
and configurable-http-proxy on 127.0.0.1 from ``deploy/jupyterhub/jupyterhub_config.py``,
the test authenticator and SimpleLocalProcessSpawner, ``helpers`` installed as a package.

- **start**: every learner's server requested at once (a class logging in
  together), seconds until the last one is ready; ``--rounds`` times, all stopped
  in between;
- **memory per learner**: after lesson 05 ran top to bottom in every server at
  once, the server and its kernel together: RSS (resident, shared libraries
  counted in each process) and PSS (shared pages split between the processes
  sharing them: the sum over learners is what the class takes);
- **click latency**: in the first learner's kernel, a click on a grade button
  of the metrics lab sent as JupyterLab sends it (a widget ``comm_msg`` over the
  kernel's websocket, through the proxy and the learner's server), timed until
  the kernel has sent every update and is idle; first with the other learners
  idle, then while each of them runs lesson 05's cells again and again. The
  browser's drawing is not included.

Prints the figures; never a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from tests.hub.classhub import (  # noqa: E402 (the project's folder is put on the path first)
    LESSONS,
    Hub,
    Learner,
    install_helpers,
    proxy_command,
    publish,
    release,
    tree_memory,
)
from tests.hub.kernel import Kernel  # noqa: E402

LESSON_05 = f"{LESSONS}/notebooks/05_metrics_lab.ipynb"
BUTTONS = "import json as _json\nprint(_json.dumps([button.model_id for button in lab.grade_buttons]))"


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of the values lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def summary(values: list[float], unit: str = "ms", scale: float = 1000) -> str:
    """Median, 95th percentile and maximum of timings in seconds, in ``unit``."""
    return (f"median {statistics.median(values) * scale:.1f} {unit}, p95 {percentile(values, 0.95) * scale:.1f} "
            f"{unit}, max {max(values) * scale:.1f} {unit} (n={len(values)})")  # fmt: skip


def start_rounds(hub: Hub, names: list[str], rounds: int) -> list[float]:
    """Seconds to start every server at once, ``rounds`` times (stopped in between)."""
    times = []
    for round_number in range(rounds):
        if round_number:
            with ThreadPoolExecutor(max_workers=len(names)) as pool:
                list(pool.map(hub.stop_server, names))
            time.sleep(5)  # let the machine settle
        times.append(hub.start_servers(names))
        print(f"start round {round_number + 1}: {len(names)} servers ready in {times[-1]:.1f} s", flush=True)
    return times


def open_lesson(learner: Learner) -> tuple[Kernel, str, list]:
    """Lesson 05 run top to bottom in a new kernel of the learner's server; the kernel, its session and the cells."""
    notebook = learner.read_notebook(LESSON_05)
    kernel, session = learner.open_kernel(LESSON_05)
    failed = [done.error for done in learner.run_cells(kernel, notebook) if done.status != "ok"]
    if failed:
        raise RuntimeError(f"{learner.name}: lesson 05 failed: {failed}")
    return kernel, session, [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def clicks(kernel: Kernel, count: int) -> list[float]:
    """Seconds per grade-button click of the metrics lab, cycling over its six buttons."""
    buttons = json.loads(kernel.execute(BUTTONS).text)
    return [kernel.click(buttons[number % len(buttons)]) for number in range(count)]


def busy_loops(busy: list[tuple[Kernel, list[str]]], stop: threading.Event) -> tuple[list[threading.Thread], list]:
    """Each busy learner runs lesson 05's cells again and again until ``stop``; the threads and a lesson count."""
    runs: list[int] = []

    def loop(kernel: Kernel, cells: list[str]) -> None:
        while not stop.is_set():
            for source in cells:
                if stop.is_set():
                    return
                kernel.execute(source)
            runs.append(1)

    threads = [threading.Thread(target=loop, args=pair, daemon=True) for pair in busy]
    for thread in threads:
        thread.start()
    return threads, runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--learners", type=int, default=10)
    parser.add_argument("--clicks", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2, help="times every server is started at once")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    proxy = proxy_command()
    if proxy is None:
        print("configurable-http-proxy is not on PATH: npm install -g configurable-http-proxy@5.3.0", file=sys.stderr)
        return 2
    names = [f"learner{number:02d}" for number in range(1, args.learners + 1)]
    figures: dict = {"learners": args.learners, "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="bench-hub-") as temporary:
        folder = Path(temporary)
        site = install_helpers(folder / "shared")
        repo = publish(release(folder / "release"), folder / "ranking-metrics.git", "lessons 00-09")
        hub = Hub(folder / "hub", site, proxy, exercises=folder / "shared" / "exercises")
        try:
            measure(hub, names, repo, args, figures)
        finally:
            hub.stop()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


def measure(hub: Hub, names: list[str], repo: str, args: argparse.Namespace, figures: dict) -> None:
    """Every measurement, in order, on a running hub; printed and kept in ``figures``."""
    hub.add_learners(names)
    figures["start_seconds"] = start_rounds(hub, names, args.rounds)
    learners = [hub.learner(name) for name in names]
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda learner: learner.pull(repo), learners))
    figures["pull_seconds"] = time.perf_counter() - start
    print(f"{len(names)} pulls (4 at a time): {figures['pull_seconds']:.1f} s", flush=True)

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(learners)) as pool:
        opened = list(pool.map(open_lesson, learners))
    figures["lesson_05_seconds"] = time.perf_counter() - start
    print(f"lesson 05 in {len(names)} servers at once: {figures['lesson_05_seconds']:.1f} s", flush=True)
    memory = [tree_memory(hub.server_pid(name)) for name in names]
    for kind in ("rss_mb", "pss_mb"):
        values = [entry[kind] for entry in memory]
        figures[kind] = {"median": statistics.median(values), "max": max(values), "sum": sum(values)}
    figures["hub_and_proxy_rss_mb"] = hub_rss(hub)
    print(f"per learner (server + kernel): RSS median {figures['rss_mb']['median']:.0f} MB "
          f"(max {figures['rss_mb']['max']:.0f}), PSS median {figures['pss_mb']['median']:.0f} MB, "
          f"{len(names)} learners {figures['pss_mb']['sum']:.0f} MB PSS; hub + proxy + culler "
          f"{figures['hub_and_proxy_rss_mb']:.0f} MB RSS", flush=True)  # fmt: skip

    clicker, others = opened[0][0], [(kernel, cells) for kernel, _, cells in opened[1:]]
    clicks(clicker, 10)  # warm-up
    idle = clicks(clicker, args.clicks)
    print(f"click, {len(others)} others idle: {summary(idle)}", flush=True)
    stop = threading.Event()
    threads, runs = busy_loops(others, stop)
    time.sleep(3)
    busy = clicks(clicker, args.clicks)
    load = os.getloadavg()[0]
    stop.set()
    for thread in threads:
        thread.join(timeout=120)
    print(f"click, {len(others)} others running lesson 05 in a loop ({len(runs)} lessons done, load {load:.1f}): "
          f"{summary(busy)}", flush=True)  # fmt: skip
    figures["click_idle_ms"] = {"median": statistics.median(idle) * 1000, "p95": percentile(idle, 0.95) * 1000}
    figures["click_busy_ms"] = {"median": statistics.median(busy) * 1000, "p95": percentile(busy, 0.95) * 1000,
                                "load": load, "lessons_run_meanwhile": len(runs)}  # fmt: skip
    for kernel, _, _ in opened:
        kernel.close()


def hub_rss(hub: Hub) -> float:
    """MB resident in the hub, the proxy and the idle culler (the hub's children that are not learners' servers)."""
    import psutil

    top = psutil.Process(hub.process.pid)
    helpers_of_hub = [child for child in top.children() if "jupyterhub-singleuser" not in " ".join(child.cmdline())]
    return sum(process.memory_info().rss for process in [top, *helpers_of_hub]) / 2**20


if __name__ == "__main__":
    sys.exit(main())
