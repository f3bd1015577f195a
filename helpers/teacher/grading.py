"""Grade one notebook: run it in a fresh kernel that holds no answer key, read its log, judge its answers here.

:func:`grade_submission` is the unit of work (parallel runs and the
collection of notebooks plug in around it); :func:`grade_path` grades one file.
Step by step:

1. parse the bytes read before grading began (a broken file: ``invalid-notebook``);
2. make the notebook's folder ``n<N>/`` in the grader's private session folder:
   ``work/`` (the kernel's working directory, with a copy of the notebook),
   ``home/``, ``tmp/`` and the check log;
3. start the kernel in the sandbox, on the run's keyless course (helpers
   without :mod:`helpers.exercises.lessons`, with the questions; the data), and
   run every cell, errors included, for ``timeout`` seconds in all; then the
   grader's last cell sends the hidden inputs of the function exercises and the
   kernel records what the learner's functions return on them;
4. stop processes the notebook left behind, shut the kernel down, and stop
   any marked process that survived;
5. list files changed outside the folder, read the log, judge the answers with
   the key computed in this process.
"""

from __future__ import annotations

import asyncio
import math
import os
import secrets
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager

from helpers.exercises import REGISTRY, checklog
from helpers.teacher import sandbox as sb
from helpers.teacher.judging import AnswerKey, judge_notebook, unanswered
from helpers.teacher.logbook import read_log
from helpers.teacher.per_learner import learner_key
from helpers.teacher.results import NotebookResult, Problem
from helpers.teacher.submissions import Submission, learner_of, lessons_of, lessons_of_name, read_notebook

FINISH = (
    "from helpers.exercises.assignment import run_hidden_cases as _grader_runs\n"
    "_grader_runs({inputs!r})\ndel _grader_runs"
)


@dataclass(frozen=True)
class Settings:
    """How every notebook of a run is graded."""

    sandbox: sb.Sandbox
    key: AnswerKey
    session: Path
    course: Path
    timeout: float = 60.0
    memory_mb: int = 4096
    watch: sb.OutsideWatch | None = None
    keep: bool = False
    secret: bytes | None = None  # the course secret: each learner judged on their own variants
    token: str = field(default_factory=lambda: secrets.token_hex(6))
    concurrent: bool = False


def grade_path(path: Path, settings: Settings, number: int = 1) -> NotebookResult:
    """Grade one notebook file (the learner is its file name)."""
    data = path.read_bytes() if path.is_file() else b""
    return grade_submission(Submission(path, learner_of(Path(path.name)), path.name, data), settings, number)


def grade_submission(submission: Submission, settings: Settings, number: int) -> NotebookResult:
    """Grade one notebook handed in; never raises (a grader failure is a ``grader-error`` problem)."""
    started = time.monotonic()
    result = NotebookResult(
        submission.learner, submission.notebook, sha256=submission.sha256, sandbox=settings.sandbox.kind
    )
    if submission.refused:
        result.problems.append(Problem("not-a-file", submission.refused))
        return _out_of_the_lesson(result, submission, settings)
    try:
        notebook = read_notebook(submission.data)
    except ValueError as error:
        result.problems.append(Problem("invalid-notebook", str(error)))
        return _out_of_the_lesson(result, submission, settings)
    lessons = lessons_of(notebook, submission.notebook)
    result.lesson = ", ".join(lessons)
    root = settings.session / f"n{number}"
    try:
        _grade_in(root, notebook, submission, settings, f"{settings.token}-{number}", result, lessons)
    except Exception as error:  # never let one submission stop the class
        result.problems.append(Problem("grader-error", f"{type(error).__name__}: {error}"[:300]))
    finally:
        if settings.keep:
            print(f"{submission.notebook}: kept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
    if not result.answers:  # nothing was judged (the grader failed): still out of the lesson's points
        _out_of_the_lesson(result, submission, settings)
    result.seconds = round(time.monotonic() - started, 2)
    return result


def _out_of_the_lesson(result: NotebookResult, submission: Submission, settings: Settings) -> NotebookResult:
    """A hand-in that could not be run: every exercise of its lesson (from its name) unanswered, 0 points."""
    lessons = result.lesson.split(", ") if result.lesson else lessons_of_name(submission.notebook)
    result.lesson = ", ".join(lessons)
    result.answers = unanswered(lessons, settings.key)
    return result


def _grade_in(
    root: Path, notebook, submission: Submission, settings: Settings, marker: str, result, lessons: list[str]
) -> None:
    """Run the notebook in ``root`` and fill ``result`` (see the module docstring)."""
    work, log = prepare(root, submission, settings)
    env = kernel_environment(root, log, marker, settings.course)
    before = settings.watch.snapshot() if settings.watch else {}
    result.problems += asyncio.run(run_kernel(notebook, root, work, env, settings, marker))
    if settings.watch:
        result.problems += outside_problems(*settings.watch.changes(before, settings.watch.snapshot()), settings)
    reading = read_log(log, REGISTRY)
    key = settings.key
    if settings.secret is not None:  # the learner's own numbers, recomputed here from the roster id
        key = key.for_learner(learner_key(settings.secret, submission.learner))
    result.answers = judge_notebook(lessons, reading.events, key)
    result.problems += reading.problems
    failed = [answer for answer in result.answers if answer.verdict == "grader-error"]
    if failed:
        said = "; ".join(f"{answer.exercise}: {answer.message}" for answer in failed)
        result.problems.append(Problem("grader-error", said[:300]))
    if result.answers and not any(event.get("event") in ("check", "check_function") for event in reading.events):
        result.problems.append(Problem("no-checks", "no check() or check_function() call was recorded"))


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


def prepare(root: Path, submission: Submission, settings: Settings) -> tuple[Path, Path]:
    """The notebook's folder: work/ with its copy, home/, tmp/; (work, log)."""
    work = root / "work"
    for folder in (work, root / "home", root / "tmp", root / "ipython"):
        folder.mkdir(parents=True)
    (work / Path(submission.notebook).name).write_bytes(submission.data)
    fonts = settings.session / "matplotlib"
    if fonts.is_dir():
        shutil.copytree(fonts, root / "matplotlib")
    return work, root / "checks.jsonl"


def kernel_environment(root: Path, log: Path, marker: str, course: Path) -> dict[str, str]:
    """The kernel's whole environment, built from scratch: none of the grader's own variables leak in.

    ``PYTHONPATH`` is the keyless course alone, so ``import helpers`` finds helpers without its answer key.
    """
    return {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", os.defpath)]),
        "LANG": "C.UTF-8",
        "HOME": str(root / "home"),
        "TMPDIR": str(root / "tmp"),
        "IPYTHONDIR": str(root / "ipython"),
        "MPLCONFIGDIR": str(root / "matplotlib"),
        "JUPYTER_CONFIG_DIR": str(root / "jupyter"),
        "JUPYTER_DATA_DIR": str(root / "jupyter"),
        "JUPYTER_PLATFORM_DIRS": "1",
        "PYTHONPATH": str(course),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        checklog.LOG_ENV: str(log),
        sb.MARKER_ENV: marker,
    }


def seed_font_cache(session: Path) -> None:
    """Build matplotlib's font list once per run; each notebook starts with a copy (saves seconds each)."""
    env = {**os.environ, "MPLCONFIGDIR": str(session / "matplotlib")}
    subprocess.run(
        [sys.executable, "-c", "import matplotlib.font_manager"], env=env, capture_output=True, timeout=120
    )


# --- the kernel ------------------------------------------------------------------------------


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel command starts with the sandbox's prefix (limits, bwrap)."""

    command_prefix: list[str] = []

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        return [*self.command_prefix, *super().format_kernel_cmd(extra_arguments)]


async def run_kernel(notebook, root: Path, work: Path, env: dict, settings: Settings, marker: str) -> list[Problem]:
    """Run every cell, then the grader's last cell; stop what the notebook left; return the problems."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    notebook = nbformat.from_dict(notebook)
    notebook.cells.append(nbformat.v4.new_code_cell(FINISH.format(inputs=repr(settings.key.hidden_inputs()))))
    client = NotebookClient(
        notebook, kernel_name="python3", allow_errors=True, startup_timeout=60,
        kernel_manager_class=SandboxedKernelManager, resources={"metadata": {"path": str(work)}},
    )
    manager = client.create_kernel_manager()
    assert isinstance(manager, SandboxedKernelManager)
    manager.connection_file = str(root / "kernel.json")
    manager.transport, manager.ip = "ipc", str(root / "k")  # local sockets in the notebook's folder
    manager.command_prefix = settings.sandbox.command_prefix(root, work, settings.course, settings.memory_mb)
    problems: list[Problem] = []
    stderr = (root / "kernel-stderr.txt").open("wb")
    try:
        await client.async_start_new_kernel(cwd=str(work), env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        await client.async_start_new_kernel_client()
        await _run_cells(client, settings.timeout)
    except CellTimeoutError:
        problems.append(Problem("timeout", f"still running after {settings.timeout:g} s: stopped"))
    except DeadKernelError:
        problems.append(Problem("kernel-died", f"the kernel died{_last_words(root)}"))
    except Exception as error:  # a kernel that cannot start, a broken cell source, ...
        problems.append(Problem("grader-error", f"{type(error).__name__}: {error}{_last_words(root)}"[:300]))
    finally:
        problems += stop_leftovers(marker, manager.connection_file, before_shutdown=True)
        await _shut_down(client)
        problems += stop_leftovers(marker, manager.connection_file, before_shutdown=False)
        stderr.close()
    return cell_errors(notebook, settings.memory_mb) + problems


async def _run_cells(client, timeout: float) -> None:
    """Run the code cells with one deadline for all of them; the grader's last cell gets 30 s of its own."""
    from nbclient.exceptions import CellTimeoutError

    deadline = time.monotonic() + timeout
    cells = client.nb.cells
    for index, cell in enumerate(cells[:-1]):
        if cell.cell_type != "code":
            continue
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise CellTimeoutError("out of time")
        client.timeout = max(1, math.ceil(remaining))
        await client.async_execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
    client.timeout = 30
    await client.async_execute_cell(cells[-1], len(cells) - 1)


async def _shut_down(client) -> None:
    """Kill the kernel (its whole process group, or bwrap and so its namespace) and close the channels."""
    manager = client.km
    try:
        if await manager.is_alive():
            await manager.shutdown_kernel(now=True)
    except RuntimeError:
        pass
    finally:
        await manager.cleanup_resources()
        if client.kc is not None:
            client.kc.stop_channels()
            client.kc = None


def stop_leftovers(marker: str, connection_file: str, before_shutdown: bool) -> list[Problem]:
    """Kill the notebook's marked processes (before shutdown: other than the kernel and bwrap); report them."""
    if before_shutdown:
        kernel_file = os.path.realpath(connection_file)
        pids = [pid for pid in sb.marked_processes(marker) if not sb.is_infrastructure(pid, kernel_file)]
    else:
        pids = _outliving(marker, seconds=2.0)
    shown = [sb.command_line(pid) or str(pid) for pid in pids]
    sb.kill_processes(pids)
    if not pids:
        return []
    when = "when its cells had run" if before_shutdown else "after its kernel was shut down"
    said = f"{len(pids)} process(es) still running {when}, killed: " + "; ".join(shown[:4])
    return [Problem("background-process", said)]


def _outliving(marker: str, seconds: float) -> list[int]:
    """The marked processes still there ``seconds`` after the kernel was killed (dying ones get the time)."""
    deadline = time.monotonic() + seconds
    while (pids := sb.marked_processes(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return pids


def cell_errors(notebook, memory_mb: int) -> list[Problem]:
    """'raised' naming the first cell that raised and how many did; 'memory-limit' for a MemoryError."""
    raised = [
        (number, output)
        for number, cell in enumerate(notebook.cells[:-1], start=1)
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    problems = []
    memory = [number for number, output in raised if output.get("ename") == "MemoryError"]
    if memory:
        problems.append(Problem("memory-limit", f"cell {memory[0]} ran out of memory (the limit is {memory_mb} MB)"))
    if raised:
        number, output = raised[0]
        more = f" ({len(raised)} cells raised)" if len(raised) > 1 else ""
        said = f"cell {number} raised {output.get('ename')}: {output.get('evalue', '')}"[:300]
        problems.append(Problem("raised", said + more))
    finishing = [o for o in notebook.cells[-1].get("outputs", []) if o.get("output_type") == "error"]
    if finishing:
        said = f"{finishing[0].get('ename')}: your functions were not run on the hidden cases"
        problems.append(Problem("hidden-cases-failed", said[:300]))
    return problems


def _last_words(root: Path) -> str:
    """The kernel's last line on stderr, for a kernel that died or did not start."""
    path = root / "kernel-stderr.txt"
    lines = path.read_text(errors="replace").strip().splitlines() if path.is_file() else []
    return f" ({lines[-1][:200]})" if lines else ""
