"""The teacher's grader: run every learner notebook of a folder and collect its exercise checks.

Usage::

    python -m helpers.grade SUBMISSIONS_DIR --out grades.csv [--timeout 60] [--expect ID,ID] [--keep]

For each ``*.ipynb`` under SUBMISSIONS_DIR (sub-folders included,
``.ipynb_checkpoints`` skipped) the grader

1. reads the file (the submission itself is never opened for writing, and its
   SHA-256 is compared before and after);
2. copies it into a fresh temporary folder and starts a new kernel (nbclient)
   with that folder as its working directory, its own IPython and matplotlib
   folders, and ``HELPERS_CHECK_LOG`` naming a log file outside that folder;
3. runs every cell, errors included, and kills the kernel (and its process
   group) once the cells have run for ``--timeout`` seconds in all (starting
   the kernel is not counted; it has its own 60 s limit);
4. reads the log that ``helpers.exercises.check`` / ``check_function`` /
   ``reveal`` wrote, and lists the files the notebook created or changed in its
   working folder;
5. writes one CSV row per (learner, exercise) with the columns learner,
   exercise, correct, mistake, message. The last check of an exercise counts.
   Problems of the notebook itself get a row with exercise ``(notebook)`` and
   a mistake code: invalid-notebook, raised, timeout, kernel-died,
   wrote-files, no-checks, submission-changed, grader-error; with
   ``--expect`` an exercise a learner never checked gets not-attempted.

A summary per learner is printed as a table. A broken notebook never stops
the run.

What this does NOT protect against: the grader is not a sandbox. The
notebook's code runs with your user's rights: it can read and write any file
you can (by absolute path: your home, the submissions, the CSV), use the
network, start processes that leave the kernel's process group, or write
fake lines into the check log and redefine ``check``. The temporary folder
only catches the files a notebook writes by relative path. For submissions
you do not trust, run the grader in a throw-away container or a read-only
sandbox, for example::

    docker run --rm --network none -v "$PWD":/src:ro -v "$PWD/out":/out my-grader-image \\
        sh -c 'cp -r /src /tmp/work && cd /tmp/work && \\
               python -m helpers.grade submissions --out /out/grades.csv --timeout 60'

(``my-grader-image``: ``python:3.11`` with ``pip install -e .`` and the
requirements of this project baked in, since ``--network none`` forbids
installing at run time), or with bubblewrap, everything read-only but /tmp
and the output folder::

    bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind "$PWD/out" "$PWD/out" \\
          --unshare-net --die-with-parent \\
          .venv/bin/python -m helpers.grade submissions --out out/grades.csv
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import nbformat
import pandas as pd

from helpers.exercises import EXERCISES, FUNCTION_EXERCISES, LOG_ENV

PROJECT_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = "(notebook)"
COLUMNS = ["learner", "exercise", "correct", "mistake", "message"]


@dataclass(frozen=True)
class Row:
    """One line of the grades CSV."""

    learner: str
    exercise: str
    correct: bool
    mistake: str | None
    message: str


def problem(learner: str, code: str, message: str) -> Row:
    """A row about the notebook itself rather than an exercise."""
    return Row(learner, NOTEBOOK, False, code, message)


# --- finding and reading submissions -------------------------------------------


def find_notebooks(folder: Path) -> list[Path]:
    """Every .ipynb under folder, sorted, without Jupyter's checkpoint copies."""
    return sorted(
        path for path in folder.rglob("*.ipynb")
        if ".ipynb_checkpoints" not in path.parts and path.is_file()
    )


def learner_name(path: Path, folder: Path) -> str:
    """The learner column: the notebook's path inside the folder, without .ipynb."""
    return path.relative_to(folder).with_suffix("").as_posix()


def file_hash(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(folder: Path) -> dict[str, str]:
    """Relative path -> SHA-256 of every file under folder (a symbolic link: its target, not followed)."""
    return {
        path.relative_to(folder).as_posix(): (
            f"link to {os.readlink(path)}" if path.is_symlink() else file_hash(path)
        )
        for path in sorted(folder.rglob("*"))
        if path.is_symlink() or path.is_file()
    }


def read_notebook(data: bytes):
    """Parse and validate notebook bytes; raise ValueError with a readable reason."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"the file is not UTF-8 text ({error.reason})") from None
    try:
        notebook = nbformat.reads(text, as_version=4)
        nbformat.validate(notebook)
    except Exception as error:  # nbformat raises several unrelated types for a broken file
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"not a valid notebook: {reason[:200]}") from None
    return notebook


# --- running one notebook --------------------------------------------------------


def kernel_env(root: Path, log_path: Path) -> dict[str, str]:
    """The kernel's environment: the check log, the project on the path, private config folders."""
    env = dict(os.environ)
    paths = [str(PROJECT_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env.update(
        {
            LOG_ENV: str(log_path),
            "PYTHONPATH": os.pathsep.join(paths),
            "IPYTHONDIR": str(root / "ipython"),
            "MPLCONFIGDIR": str(root / "matplotlib"),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    return env


def execute(notebook, workdir: Path, root: Path, log_path: Path, timeout: float) -> list[tuple[str, str]]:
    """Run the notebook in a new kernel with cwd = workdir; return (code, message) problems."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    deadline = time.monotonic() + timeout

    def remaining(cell) -> int:
        return max(1, math.ceil(deadline - time.monotonic()))

    client = NotebookClient(
        notebook, kernel_name="python3", allow_errors=True, timeout_func=remaining,
        shutdown_kernel="immediate", startup_timeout=60, resources={"metadata": {"path": str(workdir)}},
    )
    manager = client.create_kernel_manager()
    manager.connection_file = str(root / "kernel-connection.json")
    manager.transport, manager.ip = "ipc", str(root / "kernel")  # local sockets, no TCP port
    problems = []
    try:
        client.execute(cwd=str(workdir), env=kernel_env(root, log_path))
    except CellTimeoutError:
        problems.append(("timeout", f"still running after {timeout:g} s: stopped"))
    except DeadKernelError as error:
        problems.append(("kernel-died", f"the kernel died while running the notebook ({error})"))
    except Exception as error:  # a kernel that cannot start, a broken cell source, ...
        problems.append(("grader-error", f"{type(error).__name__}: {error}"[:300]))
    return cell_errors(notebook) + problems


def cell_errors(notebook) -> list[tuple[str, str]]:
    """One 'raised' problem naming the first cell that raised and how many did."""
    raised = [
        (number, output)
        for number, cell in enumerate(notebook.cells, start=1)
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    if not raised:
        return []
    number, output = raised[0]
    more = f" ({len(raised)} cells raised)" if len(raised) > 1 else ""
    message = f"cell {number} raised {output.get('ename')}: {output.get('evalue', '')}"[:300]
    return [("raised", message + more)]


def written_files(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Files created or changed between two snapshots."""
    return [path for path, digest in after.items() if before.get(path) != digest]


# --- the check log -------------------------------------------------------------


def read_log(log_path: Path) -> list[dict]:
    """The JSON lines of a check log (unreadable lines skipped)."""
    if not log_path.is_file():
        return []
    entries = []
    for line in log_path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("exercise"), str):
            entries.append(entry)
    return entries


def outcome_rows(learner: str, entries: list[dict]) -> list[Row]:
    """One row per exercise checked: the last check counts; a reveal is mentioned."""
    revealed = {entry["exercise"] for entry in entries if entry.get("event") == "reveal"}
    last: dict[str, dict] = {}
    for entry in entries:
        if entry.get("event") in ("check", "check_function"):
            last[entry["exercise"]] = entry
    rows = []
    for exercise, entry in last.items():
        message = str(entry.get("message", ""))
        if exercise in revealed:
            message += " (reveal() was called for this exercise)"
        rows.append(Row(learner, exercise, bool(entry.get("correct")), entry.get("mistake"), message))
    return rows


# --- grading ---------------------------------------------------------------------


def grade_notebook(path: Path, learner: str, timeout: float, keep: bool = False) -> list[Row]:
    """Run one submission in its own temporary folder and kernel; return its rows."""
    try:
        data = path.read_bytes()
        notebook = read_notebook(data)
    except (OSError, ValueError) as error:
        return [problem(learner, "invalid-notebook", str(error))]
    digest = hashlib.sha256(data).hexdigest()
    root = Path(tempfile.mkdtemp(prefix="grade-"))
    try:
        rows = run_in(root, path, notebook, learner, timeout)
    except Exception as error:  # never let one submission stop the run
        rows = [problem(learner, "grader-error", f"{type(error).__name__}: {error}"[:300])]
    finally:
        if keep:
            print(f"{learner}: kept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
    if not unchanged(path, digest):
        rows.append(problem(learner, "submission-changed", "the submission file changed while it ran"))
    return rows


def unchanged(path: Path, digest: str) -> bool:
    """True when the file still has this SHA-256."""
    try:
        return file_hash(path) == digest
    except OSError:
        return False


def run_in(root: Path, path: Path, notebook, learner: str, timeout: float) -> list[Row]:
    """Copy the notebook into root/work, run it there, and turn what happened into rows."""
    workdir, log_path = root / "work", root / "checks.jsonl"
    workdir.mkdir()
    shutil.copyfile(path, workdir / path.name)
    before = snapshot(workdir)
    problems = execute(notebook, workdir, root, log_path, timeout)
    written = written_files(before, snapshot(workdir))
    if written:
        shown = ", ".join(written[:10]) + (" ..." if len(written) > 10 else "")
        problems.append(("wrote-files", f"the notebook wrote {len(written)} file(s): {shown}"))
    rows = [problem(learner, code, message) for code, message in problems]
    outcomes = outcome_rows(learner, read_log(log_path))
    if not outcomes:
        rows.append(problem(learner, "no-checks", "no check() or check_function() call was recorded"))
    return rows + outcomes


def expected_rows(learner: str, rows: list[Row], expect: list[str]) -> list[Row]:
    """Rows for the expected exercises a learner never checked."""
    done = {row.exercise for row in rows}
    return [
        Row(learner, exercise, False, "not-attempted", "this exercise was never checked")
        for exercise in expect
        if exercise not in done
    ]


def grade_folder(folder: Path, timeout: float = 60, expect=(), keep: bool = False) -> list[Row]:
    """Grade every notebook under folder; return all rows (see the module docstring)."""
    rows = []
    for path in find_notebooks(folder):
        learner = learner_name(path, folder)
        print(f"grading {learner} ...", file=sys.stderr, flush=True)
        graded = grade_notebook(path, learner, timeout, keep)
        rows += graded + expected_rows(learner, graded, list(expect))
    return rows


def write_csv(rows: list[Row], out: Path) -> None:
    """Write the rows with the header learner, exercise, correct, mistake, message."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({**asdict(row), "mistake": row.mistake or ""})


def summary_table(rows: list[Row]) -> pd.DataFrame:
    """Per learner: exercises checked, right, wrong, not attempted, and the notebook problems."""
    table = []
    for learner in dict.fromkeys(row.learner for row in rows):
        own = [row for row in rows if row.learner == learner]
        checked = [row for row in own if row.exercise != NOTEBOOK and row.mistake != "not-attempted"]
        table.append(
            {
                "learner": learner,
                "checked": len(checked),
                "right": sum(row.correct for row in checked),
                "wrong": sum(not row.correct for row in checked),
                "not_attempted": sum(row.mistake == "not-attempted" for row in own),
                "problems": ", ".join(row.mistake for row in own if row.exercise == NOTEBOOK) or "-",
            }
        )
    return pd.DataFrame(table, columns=["learner", "checked", "right", "wrong", "not_attempted", "problems"])


def parse_args(argv=None) -> argparse.Namespace:
    """The command line of ``python -m helpers.grade``."""
    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade",
        description="Run every learner notebook of a folder and write the exercise checks to a CSV.",
    )
    parser.add_argument("submissions", type=Path, help="folder with the learners' .ipynb files")
    parser.add_argument("--out", type=Path, required=True, help="CSV file to write")
    parser.add_argument("--timeout", type=float, default=60, help="seconds for all cells of one notebook")
    parser.add_argument("--expect", default="", help="exercise ids every learner should check (a,b,c)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders (printed)")
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        parser.error(f"{args.submissions} is not a folder")
    if not args.timeout > 0:
        parser.error(f"--timeout must be above 0 seconds, got {args.timeout:g}")
    args.expect = [name.strip() for name in args.expect.split(",") if name.strip()]
    known = list(EXERCISES) + list(FUNCTION_EXERCISES)
    unknown = [name for name in args.expect if name not in known]
    if unknown:
        parser.error(f"unknown exercise id(s) in --expect: {', '.join(unknown)}; ids: {', '.join(known)}")
    return args


def main(argv=None) -> int:
    """Grade a folder, write the CSV, print the summary; 0 when done, 1 when no notebook was found."""
    args = parse_args(argv)
    if not find_notebooks(args.submissions):
        print(f"no .ipynb file under {args.submissions}", file=sys.stderr)
        write_csv([], args.out)
        return 1
    rows = grade_folder(args.submissions, args.timeout, args.expect, args.keep)
    write_csv(rows, args.out)
    print(summary_table(rows).to_string(index=False))
    print(f"\n{len(rows)} rows written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
