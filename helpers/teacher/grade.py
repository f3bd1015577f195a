"""The teacher's grader: run every notebook of a folder, judge the answers itself, write the results.

Usage::

    python -m helpers.grade SUBMISSIONS --out DIR [--assignment MANIFEST] [--timeout 60] [--jobs 1]
                            [--memory 4096] [--sandbox auto|bwrap|none] [--limits auto|cgroup|process]
                            [--exercises FILE] [--points FILE] [--expect IDS_OR_LESSONS] [--secret FILE] [--keep]

``SUBMISSIONS`` holds ``<learner>/<notebook>.ipynb`` (or ``<learner>.ipynb``).
With ``--assignment`` the release's manifest decides who and what is graded
(:mod:`helpers.teacher.plan`); without it, ``--expect`` or the hand-ins do.
``DIR`` is checked before anything runs (a new or empty folder, or the output
of an earlier run), then filled as each notebook finishes: ``results/`` (one
JSON per notebook), ``gradebook.csv``, ``answers.csv``, ``feedback/``; and at
the end (or on Ctrl-C) ``class-report.html``. See :mod:`helpers.teacher.grading`
for how one notebook is graded, :mod:`helpers.teacher.sandbox` for the
sandbox, :mod:`helpers.teacher.reports` for the files.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING

from helpers.teacher import sandbox as sb
from helpers.teacher.progress import Progress
from helpers.teacher.results import NotebookResult

if TYPE_CHECKING:
    from helpers.teacher.submissions import Submission

# The register (pandas), nbformat and matplotlib are imported once the command line is checked,
# so that a bad --out fails at once.
OUR_FILES = ("gradebook.csv", "gradebook.xlsx", "answers.csv", "class-report.html", "results", "feedback",
             "gradebook-canvas.csv", "gradebook-moodle.csv")


class Refused(ValueError):
    """A command-line value the grader refuses before running anything."""


def check_out(out: Path, submissions: Path) -> Path:
    """Make sure the output folder can be written, before any notebook runs; return it resolved.

    It must not be a file, nor inside the submissions (or hold them); if it
    exists it must be empty or hold an earlier run's output; it is created and
    a file is written in it and removed.
    """
    out, submissions = out.expanduser().resolve(), submissions.expanduser().resolve()
    if out.exists() and not out.is_dir():
        raise Refused(f"--out {out} is a file: give a folder (it will hold gradebook.csv, feedback/, ...)")
    if out.is_relative_to(submissions) or submissions.is_relative_to(out):
        raise Refused(f"--out {out} and the submissions {submissions} must not hold one another")
    if out.is_dir():
        others = sorted(path.name for path in out.iterdir() if path.name not in OUR_FILES)
        if others and not (out / "gradebook.csv").exists():
            raise Refused(f"--out {out} already holds other files ({', '.join(others[:3])}): use a new folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".grader-write-test-"):
            pass
    except OSError as error:
        raise Refused(f"--out {out} cannot be written: {error.strerror or error}") from None
    return out


def expected_ids(text: str) -> list[str]:
    """--expect: exercise ids and lesson numbers ('01,old-mrr'), checked against the register."""
    from helpers.exercises import REGISTRY, exercises_of
    from helpers.teacher.logbook import did_you_mean

    found: list[str] = []
    for name in filter(None, (part.strip() for part in text.split(","))):
        if name in REGISTRY:
            found.append(name)
        elif exercises_of(name):
            found += [exercise.id for exercise in exercises_of(name)]
        else:
            raise Refused(f"--expect: {did_you_mean(name, REGISTRY)} is neither an exercise id nor a lesson with "
                          "exercises")
    return list(dict.fromkeys(found))


def read_plan(args: argparse.Namespace, points: dict[str, float], secret: bytes | None):
    """The run's :class:`~helpers.teacher.plan.Plan` from --assignment, --expect, --points and --secret."""
    from helpers.exercises import REGISTRY
    from helpers.teacher.logbook import did_you_mean
    from helpers.teacher.manifest import Manifest, secret_check
    from helpers.teacher.per_learner import variant_digest
    from helpers.teacher.plan import Plan

    if args.assignment is None:
        expect = expected_ids(args.expect)
        chosen = {i: float(points.get(i, REGISTRY[i].points)) for i in expect} if expect else None
        return Plan(expect=chosen, secret=secret)
    if args.expect or args.points:
        raise Refused("--assignment: the manifest decides the exercises and their points; leave out --expect and "
                      "--points (release again with --lessons or --points to change them)")
    manifest = Manifest.read(args.assignment)
    unknown = [i for i in manifest.exercise_ids() if i not in REGISTRY]
    if unknown:
        named = ", ".join(did_you_mean(i, REGISTRY) for i in unknown[:5])
        raise Refused(f"--assignment: the grader does not know {named}: pass the teacher's file of the release with "
                      "--exercises FILE")
    if secret is not None and manifest.secret_check != secret_check(secret):
        raise Refused(f"--secret {args.secret} is not the course secret of this release")
    for entry in manifest.learners[:1]:  # one learner's variants tell whether the generators still agree
        for exercise in entry.exercises:
            if exercise.seed is not None and variant_digest(exercise.id, exercise.seed) != exercise.variant:
                raise Refused(f"--assignment: {exercise.id}'s variants differ from the release's (helpers changed "
                              "since?): grade with the helpers the assignment was released with")
    return Plan(manifest=manifest)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line of ``python -m helpers.grade``."""
    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade",
        description="Run every learner notebook of a folder, judge the answers, write gradebook and feedback.",
    )
    parser.add_argument("submissions", type=Path, help="folder of <learner>/<notebook>.ipynb or <learner>.ipynb")
    parser.add_argument("--out", type=Path, required=True, help="folder for the results (new, empty, or a re-run)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds for all cells of one notebook (60)")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks graded at the same time (1)")
    parser.add_argument("--memory", type=int, default=4096,
                        help="MB for one notebook: its processes and /tmp together with cgroups, else each process")
    parser.add_argument("--sandbox", choices=("auto", "bwrap", "none"), default="auto",
                        help="auto: bubblewrap when it works here; bwrap: insist on it; none: no sandbox")
    parser.add_argument("--limits", choices=("auto", "cgroup", "process"), default="auto",
                        help="auto: a cgroup per notebook where the machine allows it; cgroup: insist; process: not")
    parser.add_argument("--assignment", type=Path, metavar="MANIFEST",
                        help="the manifest of the release (release --manifest): who and what is graded")
    parser.add_argument("--exercises", type=Path, action="append", default=[],
                        help="a teacher's exercise file (register(Exercise(...)) entries); may repeat")
    parser.add_argument("--points", type=Path, help="CSV 'exercise,points' overriding the register's points")
    parser.add_argument("--expect", default="",
                        help="exercise ids or lessons every learner is graded on, and only these (01,old-mrr)")
    parser.add_argument("--keep", action="store_true", help="keep each notebook's folder (printed)")
    parser.add_argument("--secret", type=Path,
                        help="the course secret of a release with --roster: each learner judged on their own numbers")
    parser.add_argument("--allow-unknown", action="store_true",
                        help="grade even when notebooks check exercise ids the grader does not know")
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        parser.error(f"{args.submissions} is not a folder")
    if not args.timeout > 0:
        parser.error(f"--timeout must be above 0 seconds, got {args.timeout:g}")
    if args.jobs < 1 or args.memory < 256:
        parser.error("--jobs must be at least 1 and --memory at least 256 (MB)")
    try:
        args.out = check_out(args.out, args.submissions)
    except Refused as error:
        parser.error(str(error))
    return args


# --- the run -----------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Grade a folder; 0 when done, 1 when there was no notebook, 130 when interrupted."""
    args = parse_args(argv)
    from helpers.exercises import REGISTRY, load_extra_exercises
    from helpers.teacher import grading
    from helpers.teacher.judging import AnswerKey, read_points
    from helpers.teacher.keyless import copy_course
    from helpers.teacher.limits import find_limits
    from helpers.teacher.per_learner import read_secret
    from helpers.teacher.reports import OutputFolder
    from helpers.teacher.submissions import find_notebooks, read_submissions

    try:
        for path in args.exercises:
            load_extra_exercises(str(path))
        points = read_points(args.points) if args.points else {}
        secret = read_secret(args.secret) if args.secret else None
        plan = read_plan(args, points, secret)
        key = AnswerKey.build(points)
        sandbox = sb.find_sandbox(args.sandbox)
        limits = find_limits(args.limits)
    except (Refused, ValueError, TypeError, OSError) as error:
        print(f"python -m helpers.grade: error: {error}", file=sys.stderr)
        return 2
    if not find_notebooks(args.submissions) and not plan.roster:
        print(f"no .ipynb file under {args.submissions}", file=sys.stderr)
        return 1
    found = read_submissions(args.submissions)
    submissions = [submission for submission in found if plan.on_roster(submission.learner)]
    unmatched = [submission.notebook for submission in found if not plan.on_roster(submission.learner)]
    unknown, personal = read_ahead(submissions)
    if unknown and not args.allow_unknown and plan.manifest is None:
        print(f"python -m helpers.grade: error: {unknown}", file=sys.stderr)
        return 2
    if personal and secret is None and plan.manifest is None:
        print(f"python -m helpers.grade: error: {', '.join(personal[:3])} carry per-learner numbers: pass the "
              "course secret of their release with --secret FILE (or its manifest with --assignment FILE)",
              file=sys.stderr)
        return 2
    said = [sandbox.describe(), limits.describe(args.memory)]
    print("\n".join(said), flush=True)
    for name in unmatched:
        print(f"not graded: {name} (no learner of the assignment's roster has this id)", flush=True)
    session = Path(tempfile.mkdtemp(prefix="hg-", dir=_short_temp()))
    course = copy_course(session / "course", REGISTRY.values())  # what every kernel imports: no answer key
    watch = outside_watch(args, session, sandbox)
    store = OutputFolder(args.out, plan, watch, unmatched=unmatched)
    settings = grading.Settings(
        sandbox=sandbox, key=key, session=session, course=course, timeout=args.timeout, memory_mb=args.memory,
        watch=watch, keep=args.keep, concurrent=args.jobs > 1, plan=plan, limits=limits,
    )
    stop = threading.Event()
    with StoppingOnSignals(stop, settings.token):
        try:
            grading.seed_font_cache(session)
            run_all(submissions, settings, args.jobs, store.add, grading.grade_submission, stop)
            store.mark_changed(submissions)
        finally:
            if not args.keep:
                shutil.rmtree(session, ignore_errors=True)
    if stop.is_set():
        interrupted = f"interrupted: {len(store.results)} of {len(submissions)} notebooks graded"
        store.finish(said, interrupted)
        print(f"\n{interrupted}; written to {args.out}", file=sys.stderr)
        return 130
    store.finish(said)
    print(store.summary())
    return 0


def read_ahead(submissions: Sequence[Submission]) -> tuple[str, list[str]]:
    """Each hand-in parsed once before any run: what its unknown exercise ids call for (:func:`unknown_message`),
    and the hand-ins from a release with --roster (their numbers are the learner's own)."""
    from helpers.exercises import REGISTRY
    from helpers.teacher.submissions import checked_ids, read_notebook

    found: dict[str, list[str]] = {}
    personal = []
    for submission in submissions:
        try:
            notebook = read_notebook(submission.data)
        except ValueError:
            continue  # graded as invalid-notebook
        if notebook.metadata.get("helpers", {}).get("per_learner"):
            personal.append(submission.notebook)
        for exercise_id in checked_ids(notebook):
            if exercise_id not in REGISTRY:
                found.setdefault(exercise_id, []).append(submission.notebook)
    return unknown_message(found), personal


def unknown_exercises(submissions: Sequence[Submission]) -> str:
    """'' when every check("id", ...) of the hand-ins names a known exercise, else what to pass (before any run)."""
    return read_ahead(submissions)[0]


def unknown_message(found: dict[str, list[str]]) -> str:
    """'' for no unknown id, else the ids with the notebooks that use them, the nearest known id, what to pass."""
    import difflib

    from helpers.exercises import REGISTRY

    if not found:
        return ""
    listed = []
    for exercise_id, names in sorted(found.items()):
        close = difflib.get_close_matches(exercise_id, list(REGISTRY), n=1)
        nearest = f": did you mean {close[0]!r}?" if close else ""
        listed.append(f"{exercise_id} ({', '.join(sorted(set(names))[:3])}){nearest}")
    return (f"these notebooks use exercises the grader does not know: {'; '.join(listed)}. Your own exercise: pass "
            "its file with --exercises FILE; a typo in a learner's notebook: grade with --allow-unknown (the id is "
            "then reported as unknown-exercise)")


class StoppingOnSignals:
    """Ctrl-C (or SIGTERM) sets ``stop`` and kills the running notebooks; a second Ctrl-C interrupts at once."""

    def __init__(self, stop: threading.Event, token: str) -> None:
        self.stop, self.token = stop, token
        self.previous: dict = {}

    def handle(self, signum: int, frame: object) -> None:
        self.stop.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sb.kill_processes(sb.marked_processes(self.token, prefix=True))

    def __enter__(self) -> StoppingOnSignals:
        for kind in (signal.SIGINT, signal.SIGTERM):
            self.previous[kind] = signal.signal(kind, self.handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for kind, handler in self.previous.items():
            signal.signal(kind, handler)


def run_all(
    submissions: list[Submission], settings, jobs: int, done: Callable, grade: Callable, stop: threading.Event
) -> None:
    """Grade each submission (``jobs`` at a time), handing each result to ``done`` as soon as it is there.

    Once ``stop`` is set no notebook starts, and results finished after it (cut short) are dropped.
    """
    with Progress(len(submissions)) as progress:  # a bar on a terminal, a line per notebook elsewhere

        def report(number: int, result: NotebookResult) -> None:
            if not stop.is_set():
                done(number, result)
                progress.show(number, result)

        _run_each(submissions, settings, jobs, report, grade, stop)


def _run_each(
    submissions: list[Submission], settings, jobs: int, report: Callable, grade: Callable, stop: threading.Event
) -> None:
    """The loop of :func:`run_all`: one at a time, or ``jobs`` threads; ``report`` gets each result in turn."""
    if jobs == 1:
        for number, submission in enumerate(submissions, start=1):
            if stop.is_set():
                return
            report(number, grade(submission, settings, number))
        return

    def graded(submission: Submission, number: int) -> NotebookResult | None:
        return None if stop.is_set() else grade(submission, settings, number)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(graded, s, n): n for n, s in enumerate(submissions, start=1)}
        for future in as_completed(futures):
            result = future.result()
            if result is not None:
                report(futures[future], result)


def outside_watch(args: argparse.Namespace, session: Path, sandbox: sb.Sandbox) -> sb.OutsideWatch | None:
    """What to watch: the submissions, the output and the project; without bwrap also your home, /tmp, here."""
    if sandbox.bwrap:  # a bwrap kernel sees nothing outside its folder: a change there is another program's
        return None
    deep = [args.submissions, args.out, *(sb.PROJECT_ROOT / name for name in ("helpers", "data", "notebooks"))]
    temporary = [Path("/tmp"), Path(tempfile.gettempdir())]
    return sb.OutsideWatch(deep, [Path.home(), Path.cwd()], [session], loose=temporary)


def _short_temp() -> str:
    """A temporary folder whose paths stay short enough for the kernel's local sockets (108 bytes)."""
    folder = tempfile.gettempdir()
    return folder if len(folder) <= 60 else "/tmp"


if __name__ == "__main__":
    sys.exit(main())
