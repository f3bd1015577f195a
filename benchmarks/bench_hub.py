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
  the kernel has sent every update and is idle; three settings: the other
  learners idle; each of them clicking their own lab once a second (a class
  at work); each of them running lesson 05's cells again and again (the worst
  case: every core busy). An empty cell's round trip on the same path is
  timed too, to separate the path from the lab's own work. The browser's
  drawing is not included.

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


def round_trips(kernel: Kernel, count: int) -> list[float]:
    """Seconds per empty cell (``pass``): the path from this process to the kernel and back, and no work."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        kernel.execute("pass")
        times.append(time.perf_counter() - start)
    return times


def in_background(work, others: list[tuple[Kernel, list[str]]], stop: threading.Event) -> tuple[list, list]:
    """Run ``work(kernel, cells, stop, done)`` for every other learner in a thread; the threads and the done list."""
    done: list[int] = []
    threads = [threading.Thread(target=work, args=(*pair, stop, done), daemon=True) for pair in others]
    for thread in threads:
        thread.start()
    return threads, done


def lesson_again_and_again(kernel: Kernel, cells: list[str], stop: threading.Event, done: list) -> None:
    """A learner running lesson 05's cells without a pause until ``stop``; one entry in ``done`` per lesson."""
    while not stop.is_set():
        for source in cells:
            if stop.is_set():
                return
            kernel.execute(source)
        done.append(1)


def click_every_second(kernel: Kernel, cells: list[str], stop: threading.Event, done: list) -> None:
    """A learner clicking their own lab's grade buttons once a second until ``stop``; one entry per click."""
    buttons = json.loads(kernel.execute(BUTTONS).text)
    while not stop.wait(1.0):
        kernel.click(buttons[len(done) % len(buttons)])
        done.append(1)


def clicks_while(work, clicker: Kernel, others: list, count: int) -> tuple[list[float], float, int]:
    """Click latencies while every other learner does ``work``; with the load average and the others' work done."""
    stop = threading.Event()
    threads, done = in_background(work, others, stop)
    time.sleep(3)
    latencies = clicks(clicker, count)
    load = os.getloadavg()[0]
    stop.set()
    for thread in threads:
        thread.join(timeout=120)
    return latencies, load, len(done)


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
        with ThreadPoolExecutor(max_workers=2) as pool:
            installing = pool.submit(install_helpers, folder / "shared")
            released = pool.submit(release, folder / "release")
            site = installing.result()
            repo = publish(released.result(), folder / "ranking-metrics.git", "lessons 00-09")
        hub = Hub(folder / "hub", site, proxy, exercises=folder / "shared" / "exercises")
        try:
            measure(hub, names, repo, args, figures)
        except Exception:
            print(f"the hub's log ends with:\n{hub.log_tail(80)}", file=sys.stderr)
            raise
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
    for kind in ("rss_mb", "pss_mb", "server_rss_mb", "server_pss_mb"):
        values = [entry[kind] for entry in memory]
        figures[kind] = {"median": statistics.median(values), "max": max(values), "sum": sum(values)}
    figures["hub_and_proxy_rss_mb"] = hub_rss(hub)
    print(f"per learner (server + kernel): RSS median {figures['rss_mb']['median']:.0f} MB "
          f"(max {figures['rss_mb']['max']:.0f}), PSS median {figures['pss_mb']['median']:.0f} MB, "
          f"{len(names)} learners {figures['pss_mb']['sum']:.0f} MB PSS; the server alone RSS "
          f"{figures['server_rss_mb']['median']:.0f} MB, PSS {figures['server_pss_mb']['median']:.0f} MB; "
          f"hub + proxy + culler "
          f"{figures['hub_and_proxy_rss_mb']:.0f} MB RSS", flush=True)  # fmt: skip

    clicker, others = opened[0][0], [(kernel, cells) for kernel, _, cells in opened[1:]]
    clicks(clicker, 10)  # warm-up
    empty = round_trips(clicker, args.clicks)
    idle = clicks(clicker, args.clicks)
    print(f"empty cell round trip, others idle: {summary(empty)}", flush=True)
    print(f"click, {len(others)} others idle: {summary(idle)}", flush=True)
    figures["empty_cell_ms"] = timing(empty)
    figures["click_idle_ms"] = timing(idle)
    for name, work, what in (("click_class_ms", click_every_second, "clicking once a second"),
                             ("click_busy_ms", lesson_again_and_again, "running lesson 05 in a loop")):
        latencies, load, done = clicks_while(work, clicker, others, args.clicks)
        print(f"click, {len(others)} others {what} ({done} done meanwhile, load {load:.1f}): {summary(latencies)}",
              flush=True)
        figures[name] = {**timing(latencies), "load": load, "others_done": done}
    for kernel, _, _ in opened:
        kernel.close()


def timing(seconds: list[float]) -> dict[str, float]:
    """Median, 95th percentile and maximum in milliseconds."""
    return {"median": statistics.median(seconds) * 1000, "p95": percentile(seconds, 0.95) * 1000,
            "max": max(seconds) * 1000}


def hub_rss(hub: Hub) -> float:
    """MB resident in the hub, the proxy and the idle culler (the hub's children that are not learners' servers)."""
    import psutil

    top = psutil.Process(hub.process.pid)
    helpers_of_hub = [child for child in top.children() if "jupyterhub-singleuser" not in " ".join(child.cmdline())]
    return sum(process.memory_info().rss for process in [top, *helpers_of_hub]) / 2**20


if __name__ == "__main__":
    sys.exit(main())
