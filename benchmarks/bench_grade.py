"""The grader on a class: N lesson-03 notebooks from an assignment copy, graded with --jobs J (a benchmark, not a test).

    .venv/bin/python benchmarks/bench_grade.py                 # breakdown of 6 notebooks, then 100 with --jobs 2
    .venv/bin/python benchmarks/bench_grade.py --notebooks 20 --jobs 1 --sandbox none
    .venv/bin/python benchmarks/bench_grade.py --breakdown 0   # the class run alone
    mkdir /tmp/main-grader && git archive main helpers data | tar -x -C /tmp/main-grader  # main's grader
    .venv/bin/python benchmarks/bench_grade.py --breakdown 0 --compare /tmp/main-grader --rounds 2

The class: a third answers every exercise right, a third gives a known slip,
a third hands the copy in untouched, as a real class mixes them. Printed:

1. what lesson 03's setup cell imports in the grader's keyless course
   (``python -X importtime``, grouped by package, ``%matplotlib inline`` counted as
   the ``matplotlib.pyplot`` it loads);
2. where one notebook's time goes, graded one at a time by the grader's own
   code (:func:`helpers.teacher.grading.grade_submission`), each step timed from
   outside: the kernel's start in the sandbox, the first cell (the imports),
   the other cells, the grader's last cell, the shutdown, judging, the rest;
   and the CPU each notebook costs (kernel and grader), which on two cores sets
   the floor of the class run's wall time per notebook at --jobs 2;
3. the class run, as a teacher types it: the wall time, seconds of wall time per
   notebook, one notebook's own time (median, p90), the load average; with
   ``--compare FOLDER`` the same class graded by another checkout's helpers too,
   alternating, so both meet the same load; then the class graded again into
   the same folder with 3 hand-ins changed (only those are graded).

The goal on two quiet cores, --jobs 2: 100 notebooks in 90 s or less (0.9 s of
wall time per notebook), one notebook's own time 2 s or less.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import nbformat
import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.exercises import REGISTRY, check, exercises_of  # noqa: E402
from helpers.exercises.calls import check_calls  # noqa: E402

ANSWER_LINE = re.compile(r"^answer = None.*$", flags=re.M)


def answer_text(exercise_id: str, kind: str) -> str | None:
    """The right answer, a known slip, or None (untouched), as a learner types it."""
    found = REGISTRY[exercise_id]
    worked = found.worked()
    if kind == "right":
        return f"{worked.value:.{found.decimals}f}"
    if kind == "slip":
        for _codes, value in worked.slips:
            text = f"{value:.{found.decimals}f}"
            if value == value and not check(exercise_id, text).correct:
                return text
    return None


def write_class(release_folder: Path, submissions: Path, count: int) -> None:
    """``count`` learners, each with the lesson-03 notebook of the release, filled by their kind."""
    source = next((release_folder / "notebooks").glob("03_*.ipynb"))
    for number in range(count):
        kind = ("right", "slip", "untouched")[number % 3]
        notebook = nbformat.read(source, as_version=4)
        for cell in notebook.cells:
            calls = check_calls(cell.source) if cell.cell_type == "code" else []
            found = next((call.exercise_id for call in calls if call.passes_answer), None)
            if found and kind != "untouched":
                cell.source = ANSWER_LINE.sub(f"answer = {answer_text(found, kind)!r}", cell.source)
        folder = submissions / f"learner{number:03d}"
        folder.mkdir(parents=True)
        nbformat.write(notebook, folder / source.name)


def load_average() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


# --- 1. what the setup cell imports ------------------------------------------------------------------


def setup_imports(release_folder: Path, course: Path) -> None:
    """Lesson 03's setup cell, its imports alone, under ``python -X importtime`` on the keyless course."""
    source = next((release_folder / "notebooks").glob("03_*.ipynb"))
    setup = next(cell.source for cell in nbformat.read(source, as_version=4).cells if cell.cell_type == "code")
    code = "\n".join("import matplotlib.pyplot" if line.startswith("%matplotlib") else line
                     for line in setup.splitlines() if not line.startswith("%") or line.startswith("%matplotlib"))
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(course), "PYTHONDONTWRITEBYTECODE": "1",
           "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    runs = []
    for _ in range(3):  # the first warms the page cache; the median of the three is shown
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], env=env, cwd=course,
                              capture_output=True, text=True)
        runs.append((time.monotonic() - started, done.stderr))
        if done.returncode != 0:
            print(done.stderr[-1500:])
            return
    wall, report = sorted(runs)[1]
    packages: dict[str, float] = defaultdict(float)
    helpers_parts: dict[str, float] = defaultdict(float)
    for line in report.splitlines():
        found = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)$", line)
        if not found:
            continue
        cumulative, depth, name = int(found[1]) / 1e6, len(found[2]), found[3]
        if depth == 1:  # imported by the cell itself (or first by it): cumulative holds what it pulled in
            packages[name.split(".")[0]] += cumulative
        if name.startswith("helpers.") and name.count(".") == 1:
            helpers_parts[name] = max(helpers_parts[name], cumulative)
    print(f"lesson 03's setup cell, its imports in the keyless course: {wall:.2f} s of wall time "
          f"(python -X importtime, median of 3)")
    shown = sorted(packages.items(), key=lambda item: -item[1])
    print("  first imported by the cell: " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in shown[:8]))
    parts = sorted(helpers_parts.items(), key=lambda item: -item[1])
    print("  helpers' modules (cumulative, each with what it pulled in first): "
          + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in parts[:8]))


# --- 2. one notebook, step by step -----------------------------------------------------------------


class Steps:
    """Wall and CPU seconds per step of the notebook being graded, measured around the grader's own calls.

    The CPU is the kernel's side (the kernel and the sandbox's processes, found by the notebook's marker
    once the kernel is up); a step's wall time beyond its CPU was spent waiting (for a core, or idle).
    """

    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.pids: list[psutil.Process] = []
        self.cells: dict[str, list[float]] = defaultdict(list)  # a cell -> its CPU in each notebook
        self.rows: list[tuple[dict[str, float], dict[str, float]]] = []

    @contextlib.contextmanager
    def timing(self, step: str, cpu: bool = False) -> Iterator[None]:
        started, used = time.perf_counter(), kernel_cpu(self.pids) if cpu else 0.0
        try:
            yield
        finally:
            self.wall[step] += time.perf_counter() - started
            if cpu:
                self.cpu[step] += kernel_cpu(self.pids) - used

    def close_notebook(self, own: float, grader_cpu: float) -> None:
        self.wall["the rest (the folders, ...)"] = own - sum(self.wall.values())
        self.wall["own time"] = own
        self.cpu["own time"] = sum(self.cpu.values()) + grader_cpu
        self.cpu["of which the grader's process"] = grader_cpu
        self.rows.append((dict(self.wall), dict(self.cpu)))
        self.wall, self.cpu, self.pids = defaultdict(float), defaultdict(float), []


def kernel_cpu(processes: list[psutil.Process]) -> float:
    """CPU seconds used so far by these processes (with their reaped children); a gone process counts 0."""
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


@contextlib.contextmanager
def timed_grader(steps: Steps) -> Iterator[None]:
    """Wrap the grader's functions one notebook goes through (helpers.teacher.grading and .kernel), timing each."""
    from helpers.teacher import grading, kernel
    from helpers.teacher import sandbox as sb

    saved: list[tuple[object, str, object]] = []

    def wrap(owner: object, name: str, make) -> None:
        original = getattr(owner, name, None)
        if original is None:  # the grader changed: that step is not measured, the rest still is
            print(f"  (no {getattr(owner, '__name__', owner)}.{name}: not timed)")
            return
        saved.append((owner, name, original))
        setattr(owner, name, make(original))

    marker: dict[str, str] = {}
    cells: dict[str, int] = {}

    def start_kernel(original):
        def timed(root, work, prefix, env, *more):
            marker["now"] = env.get(sb.MARKER_ENV, "")
            with steps.timing("kernel start: process launched"):
                return original(root, work, prefix, env, *more)
        return timed

    def connect(original):
        def timed(started, deadline):
            with steps.timing("kernel start: until it answers"):
                client = original(started, deadline)
            steps.pids = sb.marked_processes(marker["now"]) if marker.get("now") else []
            steps.cpu["kernel start (CPU at ready)"] = kernel_cpu(steps.pids)
            return client
        return timed

    def run_notebook(original):
        def timed(sources, finish, started, timeout, stop_leftovers):
            code = [index for index, source in enumerate(sources, start=1) if source.strip()]
            cells["first"], cells["count"] = (code[0] if code else 0), len(sources)
            return original(sources, finish, started, timeout, stop_leftovers)
        return timed

    def execute(original):
        def timed(client, code, deadline, number, run):
            step = ("first cell (the imports)" if number == cells.get("first") else
                    "the grader's last cell" if number > cells.get("count", 0) else "the other cells")
            used = kernel_cpu(steps.pids)
            with steps.timing(step, cpu=True):
                done = original(client, code, deadline, number, run)
            first_line = code.strip().splitlines()[0] if code.strip() else ""
            last = step == "the grader's last cell"
            label = step if last else f"cell {number}: {first_line[:50]}"
            steps.cells[label].append(kernel_cpu(steps.pids) - used)
            return done
        return timed

    def plain(step: str):
        def make(original):
            def timed(*args, **kwargs):
                with steps.timing(step):
                    return original(*args, **kwargs)
            return timed
        return make

    wrap(grading, "prepare", plain("the notebook's folder made"))
    wrap(grading, "start_kernel", start_kernel)
    wrap(kernel, "connect", connect)
    wrap(grading, "run_notebook", run_notebook)
    wrap(kernel, "execute", execute)
    wrap(kernel.KernelProcess, "kill", plain("kernel shutdown"))
    wrap(grading, "stop_leftovers", plain("leftover processes sought"))
    wrap(grading, "read_log_bytes", plain("judging (log read, answers judged)"))
    wrap(grading, "judge_notebook", plain("judging (log read, answers judged)"))
    try:
        yield
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)


def breakdown(submissions: Path, count: int, sandbox_mode: str) -> None:
    """Grade ``count`` notebooks one at a time with the grader's own code; print each step's median."""
    from helpers.teacher import grading
    from helpers.teacher import sandbox as sb
    from helpers.teacher.judging import AnswerKey
    from helpers.teacher.keyless import copy_course
    from helpers.teacher.submissions import read_submissions

    session = Path(tempfile.mkdtemp(prefix="hg-", dir="/tmp"))
    try:
        sandbox = sb.find_sandbox(sandbox_mode)
        settings = grading.Settings(sandbox=sandbox, key=AnswerKey.build(), session=session,
                                    course=copy_course(session / "course", REGISTRY.values()))
        grading.seed_font_cache(session)
        steps = Steps()
        chosen = read_submissions(submissions)[:count]
        with timed_grader(steps):
            for number, submission in enumerate(chosen, start=1):
                before = os.times()
                result = grading.grade_submission(submission, settings, number)
                after = os.times()
                steps.close_notebook(result.seconds, after.user + after.system - before.user - before.system)
                if result.problems and not {p.code for p in result.problems} <= {"wrote-tmp"}:
                    print(f"  {submission.notebook}: {', '.join(result.codes)}")
    finally:
        shutil.rmtree(session, ignore_errors=True)
    print(f"\none notebook, step by step: median of {len(steps.rows)} graded one at a time "
          f"({sandbox.kind}; load average {load_average()})")
    walls, cpus = [row[0] for row in steps.rows], [row[1] for row in steps.rows]
    names = list(dict.fromkeys(name for row in walls + cpus for name in row))
    print(f"  {'step':<42} {'wall':>6} {'CPU':>6}")
    for name in names:
        wall = [row[name] for row in walls if name in row]
        cpu = [row[name] for row in cpus if name in row]
        shown = [f"{statistics.median(values):5.2f} s" if values else "     —" for values in (wall, cpu)]
        print(f"  {name:<42} {shown[0]:>6} {shown[1]:>6}")
    costly = sorted(steps.cells.items(), key=lambda item: -statistics.median(item[1]))[:6]
    print("  the cells that cost most CPU: " + "; ".join(f"{name} {statistics.median(values):.2f} s"
                                                          for name, values in costly))
    cpu_total = statistics.median(row["own time"] for row in cpus)
    start = statistics.median(row.get("kernel start: process launched", 0.0) + row.get("kernel start: until it "
                                                                                       "answers", 0.0)
                              for row in walls)
    start_cpu = statistics.median(row.get("kernel start (CPU at ready)", 0.0) for row in cpus)
    print(f"  CPU per notebook {cpu_total:.2f} s: on two cores a class at --jobs 2 needs at least "
          f"{cpu_total / 2:.2f} s of wall time per notebook, whatever overlaps")
    print(f"  the grader starts each worker's next kernel while its current notebook runs, so in a class run the "
          f"start ({start:.2f} s here, graded one at a time) leaves each notebook's own time; with --jobs 2 on two "
          f"busy cores the class gains at most the start's idle part, {max(0.0, start - start_cpu):.2f} s a notebook "
          f"(its wall time minus its CPU, {start_cpu:.2f} s)")


# --- 3. the class, as a teacher runs it -------------------------------------------------------------


def class_run(submissions: Path, out: Path, notebooks: int, jobs: int, sandbox: str, root: Path) -> int:
    """Grade the class with ``python -m helpers.grade`` of the helpers in ``root``; print the figures."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    print(f"\nthe class run, helpers of {root}; load average before: {load_average()}")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(out), "--jobs", str(jobs),
         "--sandbox", sandbox],
        env=env, capture_output=True, text=True, cwd=out.parent,
    )
    wall = time.monotonic() - started
    if done.returncode != 0:
        print(done.stderr[-2000:])
        return 1
    own = [json.loads(path.read_text())["seconds"] for path in (out / "results").glob("*.json")]
    print(done.stdout.splitlines()[0])
    print(f"load average after: {load_average()}")
    print(f"{notebooks} notebooks, --jobs {jobs}: {wall:.1f} s in all, "
          f"{wall / notebooks:.2f} s of wall time per notebook")
    print(f"one notebook's own time: median {statistics.median(own):.2f} s, "
          f"p90 {statistics.quantiles(own, n=10)[-1]:.2f} s")
    return 0


def rerun(submissions: Path, out: Path, jobs: int, sandbox: str, changed: int) -> None:
    """Change ``changed`` hand-ins and grade the class again into the same folder: only those are graded."""
    for folder in sorted(submissions.iterdir())[:changed]:
        for path in folder.glob("*.ipynb"):
            notebook = nbformat.read(path, as_version=4)
            notebook.cells.append(nbformat.v4.new_code_cell("late = 'a late change'"))
            nbformat.write(notebook, path)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(out), "--jobs", str(jobs),
         "--sandbox", sandbox],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, cwd=out.parent,
    )
    graded = len(re.findall(r"^\[\d+/\d+\] ", done.stdout, flags=re.M))
    print(f"the same class again with {changed} hand-ins changed: {time.monotonic() - started:.1f} s, "
          f"{graded} notebooks graded (exit {done.returncode})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", type=int, default=100, help="the class run's size (100; 0: no class run)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sandbox", default="auto", choices=("auto", "bwrap", "none"))
    parser.add_argument("--breakdown", type=int, default=6, help="notebooks graded one at a time, step by step")
    parser.add_argument("--compare", type=Path, metavar="FOLDER",
                        help="also grade the class with the helpers and data in FOLDER (main's, from git archive), "
                             "alternating with this checkout's, under the same load")
    parser.add_argument("--rounds", type=int, default=1, help="class runs of each checkout (alternating)")
    args = parser.parse_args()
    assert exercises_of("03"), "lesson 03 has exercises"
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as folder:
        base = Path(folder)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, "-m", "helpers.release", str(base / "class")], check=True, env=env,
                       capture_output=True)
        write_class(base / "class", base / "submissions", max(args.notebooks, args.breakdown))
        if args.breakdown:
            from helpers.teacher.keyless import copy_course

            setup_imports(base / "class", copy_course(base / "course", REGISTRY.values()))
            breakdown(base / "submissions", args.breakdown, args.sandbox)
        if not args.notebooks:
            return 0
        for extra in sorted((base / "submissions").iterdir())[args.notebooks:]:
            shutil.rmtree(extra)
        roots = [ROOT] + ([args.compare.resolve()] if args.compare else [])
        for round_number in range(args.rounds):
            for number, root in enumerate(roots):
                out = base / f"out-{round_number}-{number}"  # a new folder each time: nothing is reused
                if class_run(base / "submissions", out, args.notebooks, args.jobs, args.sandbox, root):
                    return 1
        rerun(base / "submissions", base / "out-0-0", args.jobs, args.sandbox, changed=3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
