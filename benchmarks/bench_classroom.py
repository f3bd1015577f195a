"""How fast the classroom view is usable, and what its kernels cost: the README's classroom command in Chromium.

Run: ``.venv/bin/python benchmarks/bench_classroom.py [--lesson 05] [--loads 5] [--reloads 10] [--laptop-only ROUNDS]
[--busy 2]``

Starts ``python -m helpers.teacher.classroom <lesson>`` on a free port and
drives Debian's Chromium (/usr/bin/chromium) with Playwright at 1280x720.
"Usable" is the moment the control's numbers are on the page and its first
input is enabled: the page has connected to its kernel and rendered the
widgets from it. Measured:

- **cold start**: from the command to the first usable page (Voila starts,
  heats a kernel by running the lesson, the browser has nothing cached), at
  the start and ``--colds`` - 1 times more at the end, each a new server;
- **warm, new browser**: a preheated kernel waiting, a browser profile with
  an empty cache (a pupil's laptop, a new projector PC);
- **warm, reload**: a preheated kernel waiting, the same browser reloading
  (the teacher's second visit);
- **first click**: from a grade click (or a rank change) to the new number;
- **a lecturer's laptop, reloads 1 s apart from the start**: the browser and
  the server on the same cores from the moment the command starts: its page
  opened as soon as the port answers (the cold start above), then
  ``--reloads`` reloads of it, each a second after the last was usable, while
  the pool is still heating its kernels (the teacher who starts the view and
  reloads at once);
- **the same, with two busy processes beside it**: the lecturer's laptop
  case again with ``--busy`` processes (default 2) each spinning a core at
  normal priority for the whole run (a video call and a browser tab left
  playing on the teacher's laptop);
- **reloads 1 s apart, the pool full**: ``--reloads`` reloads of one page, each
  a second after the last was usable, starting with the pool full and quiet,
  without waiting for it to refill; the kernel processes and their resident
  memory (psutil) after each, and once the pool has refilled;
- **five pages at once**: ``--together`` new browser pages opened at the same
  moment (a class opening the link), the pool full, each timed to usable, and
  the CPU seconds Chromium, Voila and the kernels used meanwhile (psutil);
  then once more with browsers that have opened the page before (their caches
  warm), which tells the download from the page's own work;
- **five pupils at once, each on a device of their own**: one new browser page
  and ``--together`` - 1 pupils' page loads replayed from Python
  (``benchmarks/pupils.py``: the page, its scripts, its kernel and its
  websocket messages, as recorded from a real page) at the same moment,
  ``--rounds`` times. In a class each pupil's browser draws its page on its
  own device; here only the real page's browser shares the server's two
  cores, so its time is the pupil's view with the server under a class's
  load (and still pays for its own drawing on the server's cores); a replayed
  pupil is timed to the moment the widgets' states have come from its kernel.

Prints a table (median, 90th percentile, min, max), the load average, and the
CPU seconds the virtual machine's host took from it ("stolen", the kernel's
steal count) while pages were opened together, since other work on the machine
or its host moves every figure. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pupils import Traffic, Visit, leave, record, replay  # noqa: E402 (beside this script, which Python puts on the path)

from helpers.teacher.classroom import (  # noqa: E402 (the project's folder first)
    FILL_DELAY,
    FORKED_KERNELS,
    POOL_SIZE,
    cpu_seconds,
)
from tests.browser.servers import kernels_below  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]
# per lesson: what shows the numbers, the first input, and an input to click with the number it changes
CONTROLS = {
    "01": (".mrr-control [class*='metric-']", ".mrr-control select", None),
    "02": (".ndcg-control .control-numbers [class*='metric-']", ".ndcg-control select", None),
    "03": (".worksheet-control .control-numbers [class*='metric-']", ".worksheet-control input", None),
    "05": (
        ".metrics-lab .control-numbers [class*='metric-']",
        ".metrics-lab .grade-btn",
        ".metrics-lab .metric-recall",
    ),
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Classroom:
    """The classroom command running in its own process group, its output in a log file."""

    def __init__(self, lesson: str, folder: Path, cull: int):
        self.port, self.log = free_port(), folder / "classroom.log"
        env = {name: value for name, value in os.environ.items() if name != "MPLBACKEND"}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
        command = [sys.executable, "-m", "helpers.teacher.classroom", lesson, f"--port={self.port}", "--no-browser"]
        with self.log.open("w") as handle:
            self.process = subprocess.Popen(
                [*command, f"--cull={cull}"], cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        self.url = f"http://127.0.0.1:{self.port}/"

    def wait_for_port(self) -> None:
        """Wait until the server listens: its port opens a few seconds after the command starts."""
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)

    def preheated(self) -> int:
        return self.log.read_text(errors="replace").count("is filled with")

    def wait_for_preheat(self, times: int, timeout: float = 180) -> None:
        """Wait until the pool has been filled ``times`` times and every kernel is quiet.

        Voila reports the pool filled once the kernel has started; the kernel
        then still runs the lesson, so a page opened at once would wait for it.
        """
        deadline = time.monotonic() + timeout
        while self.preheated() < times:
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"no preheated kernel number {times}:\n{self.log.read_text()[-2000:]}")
            time.sleep(0.2)
        while not self.kernels_quiet():  # each call waits half a second
            if time.monotonic() > deadline:
                raise RuntimeError("the preheated kernels are still busy")

    def wait_until_heated(self, pages_open: int, timeout: float = 180) -> None:
        """Wait until the pool holds its kernels again (beside the open pages' ones) and every kernel is quiet."""
        time.sleep(FILL_DELAY + 0.5)
        deadline = time.monotonic() + timeout
        expected = POOL_SIZE + pages_open
        while not (len(self.kernels()) >= expected and self.kernels_quiet() and self.kernels_quiet()):
            if time.monotonic() > deadline:
                raise RuntimeError("the preheated kernels are still busy")

    def kernels_quiet(self, seconds: float = 0.5) -> bool:
        """True if no kernel of this server used more than 2 % of a core over ``seconds``."""
        before = {pid: cpu_seconds(pid) for pid in self.kernels()}
        time.sleep(seconds)
        return all(cpu_seconds(pid) - used <= 0.02 * seconds for pid, used in before.items())

    def kernels(self) -> dict[int, int]:
        """Kernel processes started by this server: pid -> resident memory in KiB."""
        return kernels_below(self.process.pid)

    def stop(self, timeout: float = 30) -> None:
        """Stop the command as a teacher's Ctrl-C does and wait until it and its kernels are gone, so that the next
        measurement (a cold start) does not share the processors with them; SIGKILL after ``timeout`` seconds."""
        self.process.send_signal(signal.SIGINT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.process.poll()  # reaps the command once it has ended
            try:
                os.killpg(self.process.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
        os.killpg(self.process.pid, signal.SIGKILL)


def open_usable(page, url: str, numbers: str, first_input: str) -> float:
    """Seconds from asking for the URL to the control's numbers shown and its first input enabled."""
    start = time.monotonic()
    page.goto(url, wait_until="commit")
    usable(page, numbers, first_input, timeout=120_000)
    return time.monotonic() - start


def first_click(page, button: str, number: str) -> float:
    """Seconds from a click to the number it changes showing its new value."""
    before = page.locator(number).inner_text()
    start = time.monotonic()
    page.locator(button).nth(2).click()
    page.wait_for_function(
        "([s, old]) => document.querySelector(s).innerText !== old", arg=[number, before], timeout=30_000
    )
    return time.monotonic() - start


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of the values lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1))]


def summary(values: list[float]) -> str:
    return (
        f"p50 {statistics.median(values):5.2f} s  p90 {percentile(values, 0.9):5.2f} s  "
        f"[{min(values):.2f}–{max(values):.2f}], n = {len(values)}"
    )


def server_or_browser(command: bytes) -> str | None:
    """The kind of a process by its command line: "kernels", "voila", "chromium", or None for any other."""
    return (
        "kernels" if b"ipykernel_launcher" in command
        else "voila" if b"voila" in command
        else "chromium" if b"chrom" in command
        else None
    )  # fmt: skip


def cpu_by_kind(kind_of: Callable[[bytes], str | None] = server_or_browser) -> dict[str, float]:
    """CPU seconds used so far by the running processes of each kind ``kind_of`` names."""
    used: dict[str, float] = {}
    for process in psutil.process_iter(["cmdline", "cpu_times"]):
        command, times = process.info["cmdline"], process.info["cpu_times"]
        kind = kind_of("\0".join(command).encode()) if command and times else None
        if kind:
            used[kind] = used.get(kind, 0.0) + times.user + times.system
    return used


def stolen_seconds() -> float:
    """CPU seconds the host of this virtual machine has taken from it so far, all cores (the kernel's steal)."""
    return psutil.cpu_times().steal


def cpu_used() -> dict[str, float]:
    """What cpu_by_kind() gives, and the seconds "stolen" by the host: a busy host moves every figure here."""
    return cpu_by_kind() | {"stolen": stolen_seconds()}


def open_together(contexts, url: str, numbers: str, first_input: str) -> tuple[list[float], dict[str, float]]:
    """Open a new page in each browser context at the same moment: the seconds each took to usable, and the CPU
    seconds Chromium, Voila and the kernels used until the last was usable."""
    opened = [context.new_page() for context in contexts]
    before = cpu_used()
    start = time.monotonic()
    for page in opened:
        page.goto(url, wait_until="commit")
    seconds = []
    for page in opened:  # each is timed from the common start
        usable(page, numbers, first_input)
        seconds.append(time.monotonic() - start)
    after = cpu_used()
    for page in opened:
        page.close(run_before_unload=True)
    return seconds, {kind: after[kind] - before.get(kind, 0.0) for kind in after}


def usable(page, numbers: str, first_input: str, timeout: float = 180_000) -> None:
    """Wait until the control's numbers are shown and its first input is enabled."""
    page.locator(numbers).first.wait_for(state="visible", timeout=timeout)
    page.wait_for_function("s => { const e = document.querySelector(s); return e && !e.disabled; }", arg=first_input,
                           timeout=timeout)  # fmt: skip


def open_with_pupils(browser, url: str, control: tuple[str, str], traffic: Traffic, pupils: int):
    """A new browser page and ``pupils`` replayed page loads at the same moment: the page's seconds to usable, each
    pupil's Visit, and the CPU seconds Chromium, Voila and the kernels used until the last was ready. The pupils
    leave once the page is usable and they all are."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    visits: list[Visit] = []
    all_ready, page_usable = threading.Event(), threading.Event()

    async def visit_and_leave() -> None:
        visits.extend(await asyncio.gather(*(replay(url, traffic, start) for _ in range(pupils))))
        all_ready.set()
        await asyncio.get_running_loop().run_in_executor(None, page_usable.wait)
        await asyncio.gather(*(leave(url, visit) for visit in visits))

    others = threading.Thread(target=asyncio.run, args=(visit_and_leave(),))  # Playwright's loop has the main thread
    before = cpu_used()
    start = time.monotonic()
    others.start()
    page.goto(url, wait_until="commit")
    usable(page, *control)
    page_seconds = time.monotonic() - start
    all_ready.wait(180)
    after = cpu_used()
    page_usable.set()
    others.join()
    page.close(run_before_unload=True)
    context.close()
    if len(visits) != pupils:
        raise RuntimeError("a replayed pupil failed (its error is printed above)")
    return page_seconds, visits, {kind: after[kind] - before.get(kind, 0.0) for kind in after}


def cold_start(browser, lesson: str, cull: int, control: tuple[str, str]) -> float:
    """Seconds from the classroom command to its first page usable in a new browser context (a new server)."""
    return lecturers_laptop(browser, lesson, cull, control, reloads=0)[0]


def kernels_started() -> str:
    """How the classroom starts its kernels here: forked (the package installed with its entry point) or not."""
    return "kernels forked (classroom-forked)" if FORKED_KERNELS else "kernels started the usual way (no entry point)"


@contextmanager
def busy_processes(count: int) -> Iterator[list[subprocess.Popen]]:
    """``count`` processes that each keep a core busy (pure Python, normal priority) until the block ends."""
    spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield spinning
    finally:
        for process in spinning:
            process.kill()
            process.wait()


def lecturers_laptop(browser, lesson: str, cull: int, control: tuple[str, str], reloads: int):
    """A new server, its page opened as soon as the port answers, then ``reloads`` reloads 1 s apart at once: the
    seconds to the first usable page and to each reload's."""
    with tempfile.TemporaryDirectory() as folder:
        started = time.monotonic()
        classroom = Classroom(lesson, Path(folder), cull)
        try:
            classroom.wait_for_port()
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = context.new_page()
            open_usable(page, classroom.url, *control)
            first = time.monotonic() - started
            seconds = []
            for _ in range(reloads):
                time.sleep(1)
                seconds.append(open_usable(page, classroom.url, *control))
            page.close(run_before_unload=True)
            context.close()
        finally:
            classroom.stop()
    return first, seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", default="05", choices=sorted(CONTROLS))
    parser.add_argument("--loads", type=int, default=5, help="warm loads of each kind (default 5)")
    parser.add_argument("--reloads", type=int, default=10, help="reloads 1 s apart (default 10)")
    parser.add_argument("--together", type=int, default=5, help="pages opened at once (default 5)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of pupils on devices of their own (default 3)")
    parser.add_argument("--colds", type=int, default=3, help="cold starts, each a new server (default 3)")
    parser.add_argument("--cull", type=int, default=120, help="the classroom's --cull (default 120)")
    parser.add_argument(
        "--laptop-only", type=int, default=0, metavar="ROUNDS",
        help="only the lecturer's laptop case, ROUNDS times, each a new server (default: every case, once)",
    )  # fmt: skip
    parser.add_argument("--busy", type=int, default=2, help="busy processes beside the laptop case (default 2)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    numbers, first_input, number_changed = CONTROLS[args.lesson]
    if args.laptop_only:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            runs = [
                lecturers_laptop(browser, args.lesson, args.cull, (numbers, first_input), args.reloads)
                for _ in range(args.laptop_only)
            ]
            with busy_processes(args.busy):
                busy_runs = [
                    lecturers_laptop(browser, args.lesson, args.cull, (numbers, first_input), args.reloads)
                    for _ in range(args.laptop_only)
                ]
            browser.close()
        print(f"classroom view of lesson {args.lesson}, 1280x720, {kernels_started()}, "
              f"load average {os.getloadavg()[0]:.2f} at the end")  # fmt: skip
        print(f"  {'cold start':<27} {summary([first for first, _ in runs])}")
        print(f"  {'laptop: reloads from start':<27} {summary([s for _, seconds in runs for s in seconds])}")
        busy = f"{args.busy} busy beside it"
        print(f"  {'cold start, ' + busy:<27} {summary([first for first, _ in busy_runs])}")
        print(f"  {'laptop, ' + busy:<27} {summary([s for _, seconds in busy_runs for s in seconds])}")
        return 0
    results: dict[str, list[float]] = {
        "laptop: reloads from start": [], "warm, new browser": [], "warm, reload": [], "first click": [],
        "reloads 1 s apart": [], "pages at once": [],
        "pages at once, seen before": [], "with pupils, the page": [], "with pupils, each pupil": [],
        "with pupils, a pupil's files": [],
    }  # fmt: skip
    cpu_pupils: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        started = time.monotonic()
        classroom = Classroom(args.lesson, Path(folder), args.cull)
        try:
            classroom.wait_for_port()
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = context.new_page()
            open_usable(page, classroom.url, numbers, first_input)
            results["cold start"] = [time.monotonic() - started]
            for _ in range(args.reloads):  # a lecturer's laptop: at once, the pool still heating
                time.sleep(1)
                results["laptop: reloads from start"].append(open_usable(page, classroom.url, numbers, first_input))
            for _ in range(args.loads):
                classroom.wait_until_heated(1)
                results["warm, reload"].append(open_usable(page, classroom.url, numbers, first_input))
                if number_changed:
                    results["first click"].append(first_click(page, first_input, number_changed))
            page.close(run_before_unload=True)
            context.close()
            for _ in range(args.loads):
                classroom.wait_until_heated(0)
                context = browser.new_context(viewport={"width": 1280, "height": 720})
                page = context.new_page()
                results["warm, new browser"].append(open_usable(page, classroom.url, numbers, first_input))
                page.close(run_before_unload=True)  # as a closed tab: the page asks Voila to end its kernel
                context.close()
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = context.new_page()
            counts = []
            classroom.wait_until_heated(0)
            open_usable(page, classroom.url, numbers, first_input)  # the page first, so that each of these reloads it
            for _ in range(args.reloads):
                time.sleep(1)
                results["reloads 1 s apart"].append(open_usable(page, classroom.url, numbers, first_input))
                kernels = classroom.kernels()
                counts.append((len(kernels), sum(kernels.values()) / 1024))
            page.close(run_before_unload=True)
            context.close()
            time.sleep(15)  # the closed pages' kernels are gone
            settled = classroom.kernels()
            classroom.wait_until_heated(0)  # a class opens the link with the pool full, as the warm loads above
            contexts = [browser.new_context(viewport={"width": 1280, "height": 720}) for _ in range(args.together)]
            results["pages at once"], cpu_new = open_together(contexts, classroom.url, numbers, first_input)
            time.sleep(5)  # the closed pages' kernels are gone; the same browsers, their caches warm, open it again
            classroom.wait_until_heated(0)
            results["pages at once, seen before"], cpu_seen = open_together(
                contexts, classroom.url, numbers, first_input
            )
            for context in contexts:
                context.close()
            time.sleep(5)
            classroom.wait_until_heated(0)
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = context.new_page()
            traffic = record(page, classroom.url, lambda: usable(page, numbers, first_input))
            page.close(run_before_unload=True)
            context.close()
            for _ in range(args.rounds):
                time.sleep(5)
                classroom.wait_until_heated(0)
                page_seconds, visits, cpu = open_with_pupils(
                    browser, classroom.url, (numbers, first_input), traffic, args.together - 1
                )
                results["with pupils, the page"].append(page_seconds)
                results["with pupils, each pupil"].extend(visit.seconds for visit in visits)
                results["with pupils, a pupil's files"].extend(visit.files for visit in visits)
                cpu_pupils.append(cpu)
        finally:
            classroom.stop()
        for _ in range(args.colds - 1):
            results["cold start"].append(cold_start(browser, args.lesson, args.cull, (numbers, first_input)))
        with busy_processes(args.busy):
            results[f"laptop, {args.busy} busy beside it"] = lecturers_laptop(
                browser, args.lesson, args.cull, (numbers, first_input), args.reloads
            )[1]
        browser.close()
    print(f"classroom view of lesson {args.lesson}, 1280x720, {kernels_started()}, "
          f"load average {os.getloadavg()[0]:.2f} at the end")  # fmt: skip
    for name, values in results.items():
        if values:
            print(f"  {name:<27} {summary(values)}")
    print("  kernels after each reload: " + ", ".join(f"{count} ({mib:.0f} MiB)" for count, mib in counts))
    print(f"  settled: {len(settled)} kernels, {sum(settled.values()) / 1024:.0f} MiB")
    for name, used in (("pages at once", cpu_new), ("pages at once, seen before", cpu_seen)):
        print(f"  CPU seconds, {name}: " + ", ".join(f"{kind} {seconds:.1f}" for kind, seconds in used.items()))
    for used in cpu_pupils:
        print("  CPU seconds, with pupils: " + ", ".join(f"{kind} {seconds:.1f}" for kind, seconds in used.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
