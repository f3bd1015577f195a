"""Grade one notebook: run it in a fresh kernel that holds no answer key, hear its answers, judge them here.

:func:`grade_submission` is the unit of work (parallel runs and the
collection of notebooks plug in around it); :func:`grade_path` grades one file.
It is two calls, so that a notebook's kernel can boot while the notebook before
it runs: :func:`start` (steps 1 and 2, and the kernel's launch) and
:func:`finish` (the rest; the timeout starts at the first cell), or
:func:`discard` for a notebook started and never run (a Ctrl-C). Step by step:

1. parse the bytes read before grading began (a broken file: ``invalid-notebook``;
   one over the caps of :mod:`helpers.teacher.submissions`, never parsed: ``too-large``);
2. make the notebook's folder ``n<N>/`` in the grader's private session folder:
   ``work/`` (the kernel's working directory, with a copy of the notebook) and
   what the kernel needs; a cgroup of its own where the machine allows it
   (:mod:`helpers.teacher.limits`);
3. start the kernel in the sandbox, on the run's keyless course (helpers
   without :mod:`helpers.exercises.lessons`, with the questions; the data), and
   run every cell, errors included, within ``timeout`` CPU seconds of all the
   notebook's processes and a wall-clock safety net of ``wall_timeout``
   seconds (:class:`helpers.teacher.kernel.Budget`);
   then the grader's last cell sends the hidden inputs of the function
   exercises this notebook is graded on and gave a function for, and the
   kernel answers with what the learner's functions return on them
   (:mod:`helpers.teacher.kernel`: the answers come back through a pipe and
   the kernel's messages, never through a file of its folder);
4. stop processes the notebook left behind, kill the kernel and its group;
5. list files changed outside the folder (without a sandbox), and judge the
   answers with the key computed in this process, for this learner
   (:mod:`helpers.teacher.plan`: their exercises, points and numbers).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import psutil

from helpers.exercises import REGISTRY
from helpers.teacher import sandbox as sb
from helpers.teacher.judging import NOT_CHECKED, AnswerKey, checked_ids, judge_notebook, unanswered
from helpers.teacher.kernel import Budget, KernelProcess, Run, run_notebook, start_kernel
from helpers.teacher.limits import Limits, NotebookGroup, cpu_meter, find_limits, tmp_megabytes, tree_largest_bytes
from helpers.teacher.logbook import LogReading, read_log_bytes
from helpers.teacher.manifest import notebook_digest, text_digest
from helpers.teacher.names import shown
from helpers.teacher.plan import Plan
from helpers.teacher.results import Judged, NotebookResult, Problem
from helpers.teacher.submissions import Submission, learner_of, lessons_of, lessons_of_name, read_notebook

# The grader's last cell: one expression, whose result (the outputs, as JSON) is the cell's execute_result.
FINISH = "__import__('helpers.exercises.assignment', fromlist=['_']).run_hidden_cases({inputs!r})"
# Run by IPython in every graded kernel before its first cell (a startup file of the kernel's IPYTHONDIR):
# ``%matplotlib inline`` waits until a cell imports matplotlib.pyplot. ipykernel's MPLBACKEND then selects the
# inline backend, and matplotlib_inline sets up the figures' display as the magic would have, so a lesson that
# draws nothing does not load matplotlib (about half of lesson 03's setup cell). Once pyplot is loaded the
# magic is IPython's own.
MATPLOTLIB_ON_USE = """\
def _matplotlib_on_use():
    import sys
    from IPython import get_ipython

    shell = get_ipython()
    magic = shell.find_line_magic("matplotlib")

    def matplotlib(line=""):
        if line.strip() == "inline" and "matplotlib.pyplot" not in sys.modules:
            return None
        return magic(line)

    matplotlib.__doc__ = magic.__doc__
    shell.register_magic_function(matplotlib, "line", "matplotlib")


_matplotlib_on_use()
del _matplotlib_on_use
"""


@dataclass(frozen=True)
class Settings:
    """How every notebook of a run is graded."""

    sandbox: sb.Sandbox
    key: AnswerKey
    session: Path
    course: Path
    timeout: float = 60.0  # CPU seconds of all the notebook's processes
    memory_mb: int = 4096
    wall_timeout: float | None = None  # the wall-clock safety net; None: wall_net(timeout)
    disk_mb: int = 1024  # what the notebook may write into its folder and /tmp together
    watch: sb.OutsideWatch | None = None
    keep: bool = False
    plan: Plan = field(default_factory=Plan)
    limits: Limits = field(default_factory=lambda: find_limits("process"))
    token: str = field(default_factory=lambda: secrets.token_hex(6))
    concurrent: bool = False


def grade_path(path: Path, settings: Settings, number: int = 1) -> NotebookResult:
    """Grade one notebook file (the learner is its file name)."""
    data = path.read_bytes() if path.is_file() else b""
    return grade_submission(Submission(path, learner_of(Path(path.name)), path.name, data), settings, number)


def grade_submission(submission: Submission, settings: Settings, number: int) -> NotebookResult:
    """Grade one notebook handed in; never raises (a grader failure is a ``grader-error`` problem)."""
    return finish(start(submission, settings, number), settings)


@dataclass
class Started:
    """A notebook on its way: read, its folder made and its kernel started (perhaps while another one ran).

    ``done``: nothing to run (a refused or unreadable hand-in), ``result`` is final. ``failed``: why the
    kernel could not be started (the notebook's grader-error when its turn comes).
    """

    submission: Submission
    number: int
    result: NotebookResult
    notebook: object = None
    lessons: list[str] = field(default_factory=list)
    root: Path | None = None
    marker: str = ""
    group: NotebookGroup | None = None
    kernel: KernelProcess | None = None
    done: bool = False
    failed: str = ""
    seconds: float = 0.0


def start(submission: Submission, settings: Settings, number: int) -> Started:
    """Read a hand-in and start its kernel in its folder; returns at once (the kernel boots meanwhile).

    The kernel runs nothing of the notebook until :func:`finish` sends its first cell, and its timeout
    starts there, so it can be started ahead, while the notebook before it runs. Never raises.
    """
    began = time.monotonic()
    result = NotebookResult(
        submission.learner, submission.notebook, sha256=submission.sha256, sandbox=settings.sandbox.kind
    )
    state = Started(submission, number, result)
    if submission.refused:
        result.problems.append(Problem("not-a-file", submission.refused))
        state.done = True
        return state
    if submission.too_large:
        result.problems.append(Problem("too-large", f"{submission.too_large}: not run"))
        state.done = True
        return state
    warned: list[str] = []
    try:
        state.notebook = read_notebook(submission.data, warned)
    except ValueError as error:
        result.problems.append(Problem("invalid-notebook", str(error)))
        state.done = True
        return state
    if warned:
        result.problems.append(Problem("nbformat-warning", "; ".join(warned)[:300]))
    state.lessons = lessons_of(state.notebook, submission.notebook)
    result.lesson = ", ".join(state.lessons)
    result.problems += copy_problems(state.notebook, submission.learner, settings.plan)
    state.root, state.marker = settings.session / f"n{number}", f"{settings.token}-{number}"
    try:
        work = prepare(state.root, submission, settings)
        env = kernel_environment(state.root, state.marker, settings.course, settings.sandbox)
        state.group = settings.limits.group(f"hg-{state.marker}", settings.memory_mb)
        prefix = settings.sandbox.command_prefix(
            state.root, work, settings.course, settings.limits.launcher(settings.memory_mb, state.group),
            tmp_megabytes(settings.limits, settings.memory_mb, settings.disk_mb),
        )
        reach = sb.sandbox_folder if settings.sandbox.bwrap else None  # its folder is the sandbox's own tmpfs
        state.kernel = start_kernel(state.root, work, prefix, env, settings.sandbox.inside(state.root, state.root),
                                    reach)
    except Exception as error:  # that notebook's grader-error, when its turn comes
        state.failed = f"its kernel could not be started: {type(error).__name__}: {error}"
    state.seconds = time.monotonic() - began
    return state


def finish(state: Started, settings: Settings) -> NotebookResult:
    """Run a started notebook, judge it, clean up; its result. Never raises."""
    began = time.monotonic()
    result = state.result
    judged = False
    if not state.done:
        try:
            if state.failed:
                raise RuntimeError(state.failed)
            _run_and_judge(state, settings)
            judged = True
        except Exception as error:  # never let one submission stop the class
            result.problems.append(Problem("grader-error", f"{type(error).__name__}: {error}"[:300]))
        finally:
            discard(state, settings)
    if not judged and not result.answers:  # it could not run, or the grader failed: out of its lesson's points
        _out_of_the_lesson(result, state.submission, settings)
    result.seconds = round(state.seconds + time.monotonic() - began, 2)
    result.graded_at = datetime.now(UTC).isoformat(timespec="seconds")
    return result


def discard(state: Started, settings: Settings) -> None:
    """Kill the notebook's kernel (if it still runs), remove its group and its folder (unless --keep)."""
    if state.kernel is not None:
        state.kernel.kill()
        state.kernel.close_pipes()
    if state.group is not None:
        state.group.remove()
        state.group = None
    if state.root is not None:
        if settings.keep:
            print(f"{shown(state.submission.notebook)}: kept {shown(state.root)}", file=sys.stderr)
        else:
            shutil.rmtree(state.root, ignore_errors=True)
        state.root = None


def _out_of_the_lesson(result: NotebookResult, submission: Submission, settings: Settings) -> NotebookResult:
    """A hand-in that could not be run: every exercise of its lesson (from its name) unanswered, 0 points."""
    lessons = result.lesson.split(", ") if result.lesson else lessons_of_name(submission.notebook)
    result.lesson = ", ".join(lessons)
    only = settings.plan.exercises(submission.learner)
    result.answers = unanswered(lessons, settings.plan.key(settings.key, submission.learner), only)
    return result


def copy_problems(notebook, learner: str, plan: Plan) -> list[Problem]:
    """A hand-in that is a released notebook unchanged (the class's, or the learner's own copy with their
    numbers), or another learner's own copy (with a manifest).

    A question cell counts as another learner's only when it is not also this learner's (two learners can
    draw the same numbers).
    """
    manifest = plan.manifest
    if manifest is None:
        return []
    digest = notebook_digest(notebook)
    problems = []
    own = manifest.learner(learner)
    own_copies = set(own.copies.values()) if own else set()
    if digest in manifest.released.values():
        problems.append(Problem("released-copy", "it is the notebook as released to the class, with nothing "
                                "changed"))
    elif digest in own_copies:
        problems.append(Problem("released-copy", f"it is {learner}'s own copy as released (their numbers), with "
                                "nothing changed"))
    cells = {text_digest(cell.source) for cell in notebook.cells if cell.cell_type == "markdown"}
    cells -= set(own.own_cells) if own else set()
    owners = sorted(
        entry.id for entry in manifest.learners
        if entry is not own and ((digest in entry.copies.values() and digest not in own_copies
                                  and digest not in manifest.released.values()) or cells & set(entry.own_cells))
    )
    if owners:
        problems.append(Problem("other-learners-copy", f"it holds the own numbers of {', '.join(owners[:3])}, "
                                f"not of {learner}"))
    return problems


COPY_PROBLEMS = ("released-copy", "other-learners-copy")


def _run_and_judge(state: Started, settings: Settings) -> None:
    """Run the started notebook and fill its result (see the module docstring)."""
    assert state.kernel is not None and state.root is not None
    learner, result, marker, kernel = state.submission.learner, state.result, state.marker, state.kernel
    key = settings.plan.key(settings.key, learner)
    only = settings.plan.exercises(learner)
    connection = str(settings.sandbox.inside(state.root, state.root / "kernel.json"))  # in the kernel's command
    problems: list[Problem] = []
    # taken now, not when the kernel started: until its first cell only the kernel's own start ran
    before = settings.watch.snapshot() if settings.watch else {}
    read: dict[bytes, LogReading] = {}  # the log as the learner's cells left it, read once

    def finish_code(log: bytes) -> str | None:
        reading = read.setdefault(log, read_log_bytes(log, REGISTRY))
        wanted = [i for i in functions_given(reading.events) if only is None or i in only]
        inputs = key.hidden_inputs(wanted)
        return FINISH.format(inputs=repr(inputs)) if inputs else None

    largest = [0]  # the largest address space of its processes when it stopped (at the limit: memory was why)

    def before_kill() -> None:
        largest[0] = tree_largest_bytes(kernel.process.pid)
        problems.extend(stop_leftovers(marker, connection, before_shutdown=True))

    sources = [cell.source if cell.cell_type == "code" else "" for cell in state.notebook.cells]  # type: ignore[attr-defined]
    also = None if settings.sandbox.bwrap else (lambda: [p.pid for p in sb.marked_processes(marker)])  # bwrap reaps
    net = wall_net(settings.timeout, settings.wall_timeout)
    budget = Budget(settings.timeout, net, cpu_meter(state.group, kernel.process.pid, also),
                    settings.disk_mb * 1024**2, sb.disk_meter(settings.sandbox, state.root, kernel.process.pid))
    run: Run | None = None
    try:
        run = run_notebook(sources, finish_code, kernel, budget, before_kill)
        problems += stop_leftovers(marker, connection, before_shutdown=False)
    finally:
        out_of_memory = state.group.out_of_memory() if state.group else False
        at_limit = largest[0] >= 0.9 * settings.memory_mb * 1024**2
        if run_stopped(run) and (at_limit or (state.group is not None and state.group.at_memory_limit())):
            out_of_memory = True  # stopped while its memory stood at the limit: the memory is why
        if run is not None and run.ended == "died" and "MemoryError" in run.last_words():
            out_of_memory = True
        if state.group:
            state.group.remove()
            state.group = None
    if settings.watch:
        problems += outside_problems(*settings.watch.changes(before, settings.watch.snapshot()), settings)
    result.problems += run_problems(run, settings, out_of_memory) + problems
    reading = read.get(run.log) if not run.log_overflow else None
    if reading is None:
        reading = read_log_bytes(run.log, REGISTRY, overflow=run.log_overflow)
    events = [event for event in reading.events if event.get("event") != "outputs"] + finished_outputs(run)
    result.answers = silent_cells_named(judge_notebook(state.lessons, events, key, only), events, run, sources)
    result.problems += reading.problems + outside_assignment(events, only)
    failed = [answer for answer in result.answers if answer.verdict == "grader-error"]
    if failed:
        said = "; ".join(f"{answer.exercise}: {answer.message}" for answer in failed)
        result.problems.append(Problem("grader-error", said[:300]))
    if result.answers and not any(event.get("event") in ("check", "check_function") for event in events):
        result.problems.append(Problem("no-checks", "no check() or check_function() call was recorded"))


def functions_given(events: list[dict]) -> list[str]:
    """The function exercises whose last check_function line kept a function."""
    last: dict[str, bool] = {}
    for event in events:
        if event.get("event") == "check_function" and isinstance(event.get("exercise"), str):
            last[event["exercise"]] = event.get("kept") is True
    return [exercise_id for exercise_id, kept in last.items() if kept]


def finished_outputs(run: Run) -> list[dict]:
    """The outputs of the learner's functions on the hidden inputs, from the last cell's result alone."""
    data = (run.finish_result or {}).get("application/json")
    try:
        outputs = json.loads(data["outputs"]) if isinstance(data, dict) and isinstance(data.get("outputs"), str) else {}
    except (ValueError, RecursionError):
        return []
    if not isinstance(outputs, dict):
        return []
    return [{"event": "outputs", "exercise": exercise_id, "outputs": found}
            for exercise_id, found in outputs.items() if isinstance(exercise_id, str) and isinstance(found, list)]


def outside_assignment(events: list[dict], only: dict[str, float] | None) -> list[Problem]:
    """Answers for known exercises this learner is not graded on: ignored, and said."""
    if only is None:
        return []
    outside = sorted(i for i in checked_ids(events) if i in REGISTRY and i not in only)
    if not outside:
        return []
    shown = ", ".join(outside[:10]) + (f" and {len(outside) - 10} more" if len(outside) > 10 else "")
    return [Problem("not-in-assignment", f"answers for {shown} were ignored: not part of this assignment")]


def wall_net(timeout: float, wall_timeout: float | None = None) -> float:
    """The wall-clock safety net: ``wall_timeout``, else ten times the CPU budget and at least 10 minutes."""
    return wall_timeout if wall_timeout is not None else max(10 * timeout, 600.0)


def run_stopped(run: Run | None) -> bool:
    """True when the notebook was stopped for time (its memory may have been the cause)."""
    return run is not None and run.ended in ("cpu-time", "load-timeout")


def run_problems(run: Run, settings: Settings, out_of_memory: bool) -> list[Problem]:
    """The problems of how the run went: cell errors, time, a dead kernel, memory, output, the last cell."""
    problems = cell_errors(run, settings.memory_mb, settings.disk_mb)
    words = f" ({run.last_words()})" if run.last_words() else ""
    if out_of_memory:
        said = (f"the notebook's processes and its /tmp together went past {settings.memory_mb} MB: the system "
                "stopped a process" + (" (the kernel: the notebook ended there)" if run.ended == "died" else ""))
        if run_stopped(run):
            said = (f"the notebook's processes and its /tmp together reached {settings.memory_mb} MB and it was "
                    "stopped there")
        problems.append(Problem("memory-limit", said))
    if run.ended == "cpu-time" and not out_of_memory:
        problems.append(Problem("cpu-time", f"its processes used over {settings.timeout:g} s of CPU time (an "
                                f"endless loop?): stopped after {run.wall_seconds:g} s"))
    elif run.ended == "load-timeout" and not out_of_memory:
        net = wall_net(settings.timeout, settings.wall_timeout)
        problems.append(Problem("load-timeout", (
            f"still running after {net:g} s of wall-clock time, having used only "
            f"{run.cpu_seconds:g} s of its {settings.timeout:g} s of CPU time: the machine was too busy, or the "
            "notebook waits (a sleep, input): the grader's side; the next run grades it again")))
    elif run.ended == "disk-limit":
        problems.append(Problem("disk-limit", f"its folder and /tmp together held over {settings.disk_mb} MB "
                                "(or too many files): stopped"))
    elif run.ended == "died" and not out_of_memory:
        problems.append(Problem("kernel-died", f"the kernel died{words}"))
    elif run.ended == "too-much-output":
        problems.append(Problem("too-much-output", f"{run.detail}: stopped"))
    elif run.ended == "no-start":
        problems.append(Problem("grader-error", f"the kernel did not start{words}"[:300]))
    if run.finish_error:
        said = f"{run.finish_error.split(':')[0]}: your functions were not run on the hidden cases"
        problems.append(Problem("hidden-cases-failed", said[:300]))
    return problems


DISK_FULL = ("No space left on device", "File too large", "Disk quota exceeded")


def cell_errors(run: Run, memory_mb: int, disk_mb: int = 1024) -> list[Problem]:
    """'raised' naming the first cell that raised and how many did; 'memory-limit' for a MemoryError,
    'disk-limit' for a file system that was full (the sandbox's /tmp) or a file over the size cap."""
    problems = []
    memory = [error.cell for error in run.errors if error.name == "MemoryError"]
    if memory:
        problems.append(Problem("memory-limit", f"cell {memory[0]} ran out of memory (the limit is {memory_mb} MB)"))
    disk = [error.cell for error in run.errors if any(words in error.text for words in DISK_FULL)]
    if disk:
        problems.append(Problem("disk-limit", f"cell {disk[0]} could not write: its /tmp or a file reached the cap "
                                f"(the disk budget is {disk_mb} MB)"))
    if run.errors:
        first = run.errors[0]
        more = f" ({len(run.errors)} cells raised)" if len(run.errors) > 1 else ""
        problems.append(Problem("raised", f"cell {first.cell} raised {first.name}: {first.text}"[:300] + more))
    return problems


def silent_cells_named(answers: list[Judged], events: list[dict], run: Run, sources: list[str]) -> list[Judged]:
    """An exercise that recorded nothing says so with the cell that checks it and what it raised, when it raised.

    The cell is the first that raised among those whose source names the exercise's id in quotes (the hand-in's
    own cells, read before the run).
    """
    recorded = checked_ids(events)
    named = []
    for answer in answers:
        raised = None
        if answer.verdict == NOT_CHECKED and answer.exercise not in recorded:
            quoted = (f'"{answer.exercise}"', f"'{answer.exercise}'")
            raised = next((error for error in run.errors if error.cell <= len(sources)
                           and any(text in sources[error.cell - 1] for text in quoted)), None)
        if raised is not None:
            said = f"{answer.message.rstrip('.')}: cell {raised.cell}, where it is checked, stopped with {raised.name}."
            answer = replace(answer, message=said)
        named.append(answer)
    return named


def outside_problems(owned: list[str], temporary: list[str], settings: Settings) -> list[Problem]:
    """'wrote-outside' for your folders, 'wrote-tmp' for files new in /tmp (which other programs may have made)."""
    other = " (other notebooks ran at the same time: it may be theirs)" if settings.concurrent else ""
    problems = []
    if owned:
        shown = "; ".join(owned[:10]) + (f"; and {len(owned) - 10} more" if len(owned) > 10 else "")
        problems.append(Problem("wrote-outside", shown + other))
    if temporary:
        shown = ", ".join(temporary[:10]) + (f" and {len(temporary) - 10} more" if len(temporary) > 10 else "")
        said = f"new in /tmp while it ran: {shown} (other programs write there too){other}"
        problems.append(Problem("wrote-tmp", said))
    return problems


def prepare(root: Path, submission: Submission, settings: Settings) -> Path:
    """The notebook's folder: work/ with its copy, home/, tmp/ (without bwrap), ipython/ (with the startup file
    :data:`MATPLOTLIB_ON_USE`), fonts; returns work/."""
    work = root / "work"
    for folder in (work, root / "home", root / "tmp", root / "ipython"):
        folder.mkdir(parents=True)
    (work / Path(submission.notebook).name).write_bytes(submission.data)
    startup = root / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-matplotlib-on-use.py").write_text(MATPLOTLIB_ON_USE, encoding="utf-8")
    fonts = settings.session / "matplotlib"
    if fonts.is_dir():
        shutil.copytree(fonts, root / "matplotlib")
    return work


def kernel_environment(root: Path, marker: str, course: Path, sandbox: sb.Sandbox) -> dict[str, str]:
    """The kernel's whole environment, built from scratch: none of the grader's own variables leak in.

    ``PYTHONPATH`` is the keyless course alone, so ``import helpers`` finds helpers without its answer key.
    The check log's file descriptor is added when the kernel starts (:func:`helpers.teacher.kernel.start_kernel`).
    """
    return {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", os.defpath)]),
        "LANG": "C.UTF-8",
        "HOME": str(sandbox.home(root)),
        "TMPDIR": str(sandbox.temporary(root)),
        "IPYTHONDIR": str(sandbox.inside(root, root / "ipython")),
        "MPLCONFIGDIR": str(sandbox.inside(root, root / "matplotlib")),
        "JUPYTER_CONFIG_DIR": str(sandbox.inside(root, root / "jupyter")),
        "JUPYTER_DATA_DIR": str(sandbox.inside(root, root / "jupyter")),
        "JUPYTER_PLATFORM_DIRS": "1",
        "PYTHONPATH": str(sandbox.course(course)),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        sb.MARKER_ENV: marker,
    }


def seed_font_cache(session: Path) -> None:
    """Build matplotlib's font list once per run; each notebook starts with a copy (saves seconds each)."""
    env = {**os.environ, "MPLCONFIGDIR": str(session / "matplotlib")}
    subprocess.run(
        [sys.executable, "-c", "import matplotlib.font_manager"], env=env, capture_output=True, timeout=120
    )


def stop_leftovers(marker: str, connection_file: str, before_shutdown: bool) -> list[Problem]:
    """Kill the notebook's marked processes (before shutdown: other than the kernel and bwrap); report them."""
    if before_shutdown:
        found = [p for p in sb.marked_processes(marker) if not sb.is_infrastructure(p, connection_file)]
    else:
        found = _outliving(marker, seconds=2.0)
    shown = [sb.command_line(process) or str(process.pid) for process in found]
    sb.kill_processes(found)
    if not found:
        return []
    when = "when its cells had run" if before_shutdown else "after its kernel was shut down"
    said = f"{len(found)} process(es) still running {when}, killed: " + "; ".join(shown[:4])
    return [Problem("background-process", said)]


def _outliving(marker: str, seconds: float) -> list[psutil.Process]:
    """The marked processes still there ``seconds`` after the kernel was killed (dying ones get the time)."""
    deadline = time.monotonic() + seconds
    while (found := sb.marked_processes(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found
