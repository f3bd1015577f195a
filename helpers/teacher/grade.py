"""The teacher's grader: run every notebook of a folder, judge the answers itself, write the results.

Usage::

    python -m helpers.grade SUBMISSIONS --out DIR [--assignment MANIFEST] [--timeout 60] [--wall-timeout S]
                            [--jobs 1]
                            [--memory 4096] [--disk 1024] [--sandbox auto|bwrap|none] [--limits auto|cgroup|process]
                            [--exercises FILE] [--points FILE] [--expect IDS_OR_LESSONS] [--secret FILE]
                            [--shard K/N] [--regrade | --regrade-grader-side] [--keep]
    python -m helpers.grade --merge OUT SHARD [SHARD ...] [--exercises FILE]

``SUBMISSIONS`` holds ``<learner>/<notebook>.ipynb`` (or ``<learner>.ipynb``).
With ``--assignment`` the release's manifest decides who and what is graded
(:mod:`helpers.teacher.plan`); without it, ``--expect`` or the hand-ins do.
``DIR`` is checked before anything runs (a new or empty folder, or the output
of an earlier run), then filled as each notebook finishes: ``results/`` (one
record per notebook, saved at once), and, every few seconds and at the end (or
on Ctrl-C), the gradebooks, ``answers.csv``, ``feedback/`` and
``class-report.html``.

A rerun into the same ``DIR`` grades only the hand-ins that are new or changed
(or whose learner's entry, the answer key, helpers or the settings changed:
:mod:`helpers.teacher.fingerprint`), and those whose record holds a problem
of the grader's side (``grader-error``, ``load-timeout``), takes the other
records as they are, and rebuilds every file from all of them; ``--regrade``
grades everything again, ``--regrade-grader-side`` also the ``timeout``
records of graders that counted wall-clock time.

``--timeout`` is CPU seconds of all a notebook's processes (a busy machine
does not spend it: :mod:`helpers.teacher.limits`); ``--wall-timeout`` is the
wall-clock safety net (default ten times ``--timeout``, at least 600 s).
``--shard K/N`` grades a fixed 1/N of the class (by learner id) into ``DIR``;
``--merge`` builds one output from the shards' folders
(:mod:`helpers.teacher.shards`). See :mod:`helpers.teacher.grading` for how one
notebook is graded, :mod:`helpers.teacher.sandbox` for the sandbox,
:mod:`helpers.teacher.reports` for the files.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from helpers._checks import close_names
from helpers.teacher import sandbox as sb
from helpers.teacher.names import shown
from helpers.teacher.progress import Progress
from helpers.teacher.results import GRADER_SIDE, MAYBE_GRADER_SIDE, NotebookResult

if TYPE_CHECKING:
    from helpers.teacher.submissions import Submission

# The register (pandas), nbformat and matplotlib are imported once the command line is checked,
# so that a bad --out fails at once.
OUR_FILES = ("gradebook.csv", "gradebook.xlsx", "answers.csv", "class-report.html", "results", "feedback",
             "gradebook-canvas.csv", "gradebook-moodle.csv", "shard.json", "graded-assignment.json")


class Refused(ValueError):
    """A command-line value the grader refuses before running anything."""


def check_out(out: Path, submissions: Path | Sequence[Path], option: str = "--out") -> Path:
    """Make sure the output folder can be written, before any notebook runs; return it resolved.

    It must not be a file, nor inside the submissions (or hold them), nor inside a folder every sandboxed
    kernel sees (the system's, this Python's: :func:`helpers.teacher.sandbox.visible_folders`), so that no
    notebook ever reads or writes a record there; if it exists it must be empty or hold an earlier run's
    output; it is created and a file is written in it and removed. ``submissions``: a folder, or the
    shard folders of a merge.
    """
    out = out.expanduser().resolve()
    for other in [submissions] if isinstance(submissions, Path) else submissions:
        other = other.expanduser().resolve()
        if out.is_relative_to(other) or other.is_relative_to(out):
            raise Refused(f"{option} {out} and {other} must not hold one another")
    if out.exists() and not out.is_dir():
        raise Refused(f"{option} {out} is a file: give a folder (it will hold gradebook.csv, feedback/, ...)")
    seen = next((folder for folder in sb.visible_folders() if out.is_relative_to(folder)), None)
    if seen is not None:
        raise Refused(f"{option} {out} is inside {seen}, which every sandboxed notebook sees: give a folder "
                      "elsewhere (the grader's records must be out of every notebook's reach)")
    if out.is_dir():
        others = sorted(path.name for path in out.iterdir() if path.name not in OUR_FILES)
        if others and not (out / "gradebook.csv").exists():
            raise Refused(f"{option} {out} already holds other files ({', '.join(others[:3])}): use a new folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".grader-write-test-"):
            pass
    except OSError as error:
        raise Refused(f"{option} {out} cannot be written: {error.strerror or error}") from None
    return out


def exercise_files(given: Sequence[Path]) -> list[Path]:
    """--exercises: each file as given; a folder gives its *.py files, by name (none: nothing to load)."""
    found: list[Path] = []
    for path in given:
        found += sorted(p for p in path.glob("*.py") if not p.name.startswith(".")) if path.is_dir() else [path]
    return found


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
    """The command line of ``python -m helpers.grade`` (or of ``--merge OUT SHARD...``)."""
    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade",
        description="Run every learner notebook of a folder, judge the answers, write gradebook and feedback. "
                    "Run again into the same --out to grade only what is new or changed.",
    )
    parser.add_argument("submissions", type=Path, nargs="?",
                        help="folder of <learner>/<notebook>.ipynb or <learner>.ipynb")
    parser.add_argument("--out", type=Path, help="folder for the results (new, empty, or an earlier run's: resumed)")
    parser.add_argument("--timeout", type=float, default=60,
                        help="CPU seconds for all cells of one notebook, all its processes together (60); time "
                             "waiting for a core on a busy machine does not count")
    parser.add_argument("--wall-timeout", type=float, metavar="SECONDS",
                        help="wall-clock safety net for one notebook (default: 10 x --timeout, at least 600): "
                             "stops sleeps and hangs; stopped there with CPU time left is a grader-side "
                             "load-timeout, graded again by the next run")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks graded at the same time (1)")
    parser.add_argument("--memory", type=int, default=4096,
                        help="MB for one notebook: its processes and /tmp together with cgroups, else each process")
    parser.add_argument("--disk", type=int, default=1024, metavar="MB",
                        help="MB one notebook may write into its folder and /tmp together (1024): disk-limit past it")
    parser.add_argument("--sandbox", choices=("auto", "bwrap", "none"), default="auto",
                        help="auto: bubblewrap when it works here; bwrap: insist on it; none: no sandbox")
    parser.add_argument("--limits", choices=("auto", "cgroup", "process"), default="auto",
                        help="auto: a cgroup per notebook where the machine allows it; cgroup: insist; process: not")
    parser.add_argument("--assignment", type=Path, metavar="MANIFEST",
                        help="the manifest of the release (release --manifest): who and what is graded; or a folder "
                             "holding it alone (a Secret keeping your file's name)")
    parser.add_argument("--exercises", type=Path, action="append", default=[],
                        help="a teacher's exercise file (register(Exercise(...)) entries), or a folder of them (each "
                             "*.py; none is fine); may repeat")
    parser.add_argument("--points", type=Path, help="CSV 'exercise,points' overriding the register's points")
    parser.add_argument("--expect", default="",
                        help="exercise ids or lessons every learner is graded on, and only these (01,old-mrr)")
    parser.add_argument("--keep", action="store_true",
                        help="keep each notebook's folder as the grader made it (printed; in bubblewrap what the "
                             "notebook wrote was in its sandbox's memory)")
    parser.add_argument("--secret", type=Path,
                        help="the course secret of a release with --roster: each learner judged on their own numbers")
    parser.add_argument("--allow-unknown", action="store_true",
                        help="grade even when notebooks check exercise ids the grader does not know")
    parser.add_argument("--regrade", action="store_true",
                        help="grade every hand-in again, even those an earlier run into --out graded unchanged")
    parser.add_argument("--out-reuse", action="store_true",
                        help="grade into an --out that holds another assignment's records (they are replaced); "
                             "without it such a run is refused: one --out folder per assignment")
    parser.add_argument("--allow-empty", action="store_true",
                        help="go on when no learner of the roster (or shard) has a hand-in (else an error: a wrong "
                             "or empty folder would give every learner 0)")
    parser.add_argument("--accept-missing", action="store_true",
                        help="drop the records of learners graded before whose hand-ins are gone (else they are "
                             "kept as graded then, flagged hand-in-gone)")
    parser.add_argument("--regrade-grader-side", action="store_true",
                        help="grade again only the records whose problem is the grader's or the machine's "
                             "(grader-error, load-timeout, an earlier grader's wall-clock timeout), and what is new")
    parser.add_argument("--shard", metavar="K/N",
                        help="grade only shard K of N (0 <= K < N) of the learners, by id, into --out (a cluster)")
    parser.add_argument("--merge", nargs="+", type=Path, metavar=("OUT", "SHARD"),
                        help="build one gradebook, feedback and class report in OUT from the shards' folders")
    args = parser.parse_args(argv)
    args.exercises = exercise_files(args.exercises)
    if args.merge is not None:
        if args.submissions is not None or args.out is not None or args.shard:
            parser.error("--merge OUT SHARD...: give the output folder and the shard folders alone (no "
                         "submissions, --out or --shard)")
        if len(args.merge) < 2:
            parser.error("--merge OUT SHARD...: name the output folder, then every shard's folder")
        shards = [folder.expanduser().resolve() for folder in args.merge[1:]]
        for folder in shards:
            if not folder.is_dir():
                parser.error(f"--merge: {shown(folder)} is not a folder")
        try:
            args.out = check_out(args.merge[0], shards, option="--merge")
        except Refused as error:
            parser.error(shown(error))
        args.shards = shards
        return args
    if args.submissions is None or args.out is None:
        parser.error("give the submissions folder and --out DIR (or --merge OUT SHARD...)")
    if not args.submissions.is_dir():
        parser.error(f"{shown(args.submissions)} is not a folder")
    if args.assignment is not None:
        from helpers.teacher.manifest import manifest_in

        try:
            args.assignment = manifest_in(args.assignment)
        except ValueError as error:
            parser.error(shown(error))
    if not args.timeout > 0:
        parser.error(f"--timeout must be above 0 seconds, got {args.timeout:g}")
    if args.wall_timeout is not None and not args.wall_timeout >= args.timeout:
        parser.error(f"--wall-timeout must be at least --timeout ({args.timeout:g} s), got {args.wall_timeout:g}")
    if args.regrade and args.regrade_grader_side:
        parser.error("--regrade grades everything again; leave out --regrade-grader-side")
    if args.disk < 16:
        parser.error(f"--disk must be at least 16 (MB), got {args.disk}")
    if args.jobs < 1 or args.memory < 256:
        parser.error("--jobs must be at least 1 and --memory at least 256 (MB)")
    if args.shard is not None:
        from helpers.teacher.shards import parse_shard

        try:
            args.shard = parse_shard(args.shard)
        except ValueError as error:
            parser.error(str(error))
    try:
        args.out = check_out(args.out, args.submissions)
    except Refused as error:
        parser.error(shown(error))
    return args


# --- the run -----------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Grade a folder (or merge shards); 0 when done, 1 when there was no notebook, 130 when interrupted."""
    args = parse_args(argv)
    if args.merge is not None:
        return merge_main(args)
    from helpers.exercises import REGISTRY, load_extra_exercises
    from helpers.teacher import reports
    from helpers.teacher.judging import AnswerKey, read_points
    from helpers.teacher.limits import find_limits
    from helpers.teacher.per_learner import read_secret
    from helpers.teacher.submissions import find_notebooks, read_submissions

    try:
        for path in args.exercises:
            load_extra_exercises(str(path))
        points = read_points(args.points) if args.points else {}
        secret = read_secret(args.secret) if args.secret else None
        plan = read_plan(args, points, secret)
        if args.shard is not None:
            plan = dataclasses.replace(plan, shard=args.shard)
        key = AnswerKey.build(points)
        sandbox = sb.find_sandbox(args.sandbox)
        limits = find_limits(args.limits)
    except (Refused, ValueError, TypeError, OSError) as error:
        print(f"python -m helpers.grade: error: {shown(error)}", file=sys.stderr)
        return 2
    if not find_notebooks(args.submissions) and not plan.roster and args.shard is None:
        print(f"no .ipynb file under {shown(args.submissions)}", file=sys.stderr)
        return 1
    found = [submission for submission in read_submissions(args.submissions) if plan.in_shard(submission.learner)]
    submissions = [submission for submission in found if plan.on_roster(submission.learner)]
    if not submissions and (plan.roster or args.shard is not None) and not args.allow_empty:
        whom = f"shard {args.shard[0]}/{args.shard[1]} of the roster" if args.shard else "the roster"
        print(f"python -m helpers.grade: error: no learner of {whom} has a hand-in under {shown(args.submissions)} "
              f"({len(find_notebooks(args.submissions))} notebooks there): is it the right folder, mounted? Pass "
              "--allow-empty to grade every learner as not handed in", file=sys.stderr)
        return 2
    stamp = reports.assignment_stamp(plan.manifest, args.assignment, None if plan.expect is None else plan.expect)
    other = reports.other_assignment(args.out, stamp)
    if other and not args.out_reuse:
        print(f"python -m helpers.grade: error: {other}", file=sys.stderr)
        return 2
    kept: list[NotebookResult] = []
    if not (args.accept_missing or other):
        present = {submission.learner for submission in found}
        kept = reports.gone(args.out, present, lambda learner: plan.in_shard(learner) and plan.on_roster(learner))
    unmatched = sorted(submission.notebook for submission in found if not plan.on_roster(submission.learner))
    session = Path(tempfile.mkdtemp(prefix="hg-", dir=_short_temp()))
    try:
        return _grade(args, plan, key, sandbox, limits, submissions, unmatched, session, REGISTRY, (stamp, kept))
    except KeyboardInterrupt:  # Ctrl-C before the first notebook started (later ones only stop the run)
        print("\ninterrupted before any notebook was graded", file=sys.stderr)
        return 130
    finally:
        if not args.keep:
            shutil.rmtree(session, ignore_errors=True)


def _grade(args, plan, key, sandbox, limits, submissions, unmatched, session: Path, registry,
           earlier: tuple[dict, list[NotebookResult]] = ({}, [])) -> int:
    """The run of :func:`main` once the command line and the hand-ins are read; ``earlier``: the assignment's
    stamp and the records kept of hand-ins gone (:func:`helpers.teacher.reports.gone`)."""
    from helpers.teacher import grading, reports
    from helpers.teacher.keyless import copy_course

    course = copy_course(session / "course", registry.values())  # what every kernel imports: no answer key
    version, run_settings, prints = fingerprints(args, plan, key, course, sandbox, limits, submissions)
    stored, why = stored_records(args.out, submissions, prints, sandbox, args.regrade, plan,
                                 MAYBE_GRADER_SIDE if args.regrade_grader_side else GRADER_SIDE)
    taken = {record.notebook for record in stored}
    to_grade = [s for s in submissions if s.notebook not in taken]
    refused = refusal(args, plan, to_grade)
    if refused:
        print(f"python -m helpers.grade: error: {refused}", file=sys.stderr)
        return 2
    stamp, kept = earlier
    said = announce(args, sandbox, limits, unmatched, why, kept)
    tainted = reports.tainted(args.out)
    watch = outside_watch(args, session, sandbox)
    store = output_folder(args, plan, watch, unmatched, [*stored, *kept], stamp)
    shard = start_shard(args, plan, submissions, kept, (version, run_settings, said), unmatched)
    if not sandbox.bwrap:
        store.mark_unsandboxed()
    settings = grading.Settings(
        sandbox=sandbox, key=key, session=session, course=course, timeout=args.timeout, memory_mb=args.memory,
        wall_timeout=args.wall_timeout, disk_mb=args.disk, watch=watch, keep=args.keep, concurrent=args.jobs > 1,
        plan=plan, limits=limits,
    )

    def done(number: int, result) -> None:
        result.fingerprint, result.key_version = prints[result.notebook], version
        store.add(result)

    stop = threading.Event()
    with StoppingOnSignals(stop, settings.token):  # until the last file is written: a Ctrl-C then stops nothing
        grade_all(to_grade, submissions, settings, args.jobs, done, stop)
        if not sandbox.bwrap:
            store.mark_unsandboxed()
        if stop.is_set():  # stop at once: the records are saved; the tables and pages of the new ones are quick
            return interrupted(store, len(submissions), args.out)
        finish(store, submissions, said, shard, args.out, tainted and sandbox.bwrap)
    print(store.summary(len(stored)) + (", shard.json" if shard is not None else ""))
    warn_grader_side(store.results.values())
    return 0


def fingerprints(args, plan, key, course: Path, sandbox, limits, submissions) -> tuple[str, dict, dict[str, str]]:
    """The answer key's version, the run's settings, and each hand-in's fingerprint (what a record is reused on)."""
    from helpers.teacher import fingerprint

    version = fingerprint.key_version(key, course, args.exercises)
    run_settings = fingerprint.run_settings(args.timeout, args.memory, sandbox.kind, limits.kind, args.disk)
    prints = {s.notebook: fingerprint.notebook_fingerprint(s.sha256, plan.learner_digest(s.learner), version,
                                                           run_settings) for s in submissions}
    return version, run_settings, prints


def refusal(args, plan, to_grade) -> str:
    """Why the hand-ins to grade cannot be graded as asked ('' when they can): an exercise unknown to the key,
    or per-learner numbers without the secret or the manifest that deals them."""
    unknown, personal = read_ahead(to_grade)
    if unknown and not args.allow_unknown and plan.manifest is None:
        return shown(unknown)
    if personal and plan.secret is None and plan.manifest is None:
        return (f"{', '.join(map(shown, personal[:3]))} carry per-learner numbers: pass the course secret of their "
                "release with --secret FILE (or its manifest with --assignment FILE)")
    return ""


def announce(args, sandbox, limits, unmatched: Sequence[str], why: str, kept: Sequence[NotebookResult]) -> list[str]:
    """Print how the notebooks run (and return those lines), the hand-ins not graded, which records may be
    reused (``why``) and the records kept of hand-ins gone."""
    said = [sandbox.describe(), limits.describe(args.memory, args.disk), time_limits(args)]
    print("\n".join(said), flush=True)
    for name in unmatched:
        print(f"not graded: {shown(name)} (no learner of the assignment's roster has this id)", flush=True)
    print(shown(why), flush=True)
    if kept:
        print(f"kept as graded before, their hand-ins gone: {', '.join(shown(r.notebook) for r in kept)} (pass "
              "--accept-missing to drop them)", flush=True)
    return said


def output_folder(args, plan, watch, unmatched: Sequence[str], reused: Sequence[NotebookResult], stamp: dict):
    """The output folder, holding the records reused and the assignment's stamp."""
    from helpers.teacher import reports

    store = reports.OutputFolder(args.out, plan, watch, unmatched=unmatched)
    for record in reused:
        store.reuse(record)
    if stamp:
        reports.write_stamp(args.out, stamp)
    return store


def start_shard(args, plan, submissions, kept: Sequence[NotebookResult], run: tuple[str, dict, list[str]],
                unmatched: Sequence[str]):
    """A shard's record, written incomplete (None, and any shard.json removed, for a whole class); ``run``: the
    key's version, the run's settings and the lines that said how the notebooks run."""
    if args.shard is None:
        (args.out / "shard.json").unlink(missing_ok=True)  # a whole class now, not a shard
        return None
    from helpers.teacher.shards import record_of

    version, run_settings, said = run
    learners = {*plan.roster, *(s.learner for s in submissions), *(r.learner for r in kept)}
    shard = record_of(plan, args.shard[0], args.shard[1], version, run_settings, said, sorted(learners),
                      [s.notebook for s in submissions] + [r.notebook for r in kept], unmatched)
    shard.write(args.out)
    return shard


def grade_all(to_grade, submissions, settings, jobs: int, done, stop: threading.Event) -> None:
    """Grade the hand-ins not reused, each numbered by its place among all the hand-ins, until done or stopped."""
    from helpers.teacher import grading

    numbers = {s.notebook: number for number, s in enumerate(submissions, start=1)}
    grading.seed_font_cache(settings.session)
    # Ahead only in bubblewrap: there a kernel sees its own folder alone; without a sandbox a notebook could
    # read the connection file of the kernel started ahead in the next folder and talk to it
    grader = Ahead(settings) if settings.sandbox.bwrap else grading.grade_submission
    run_all(to_grade, settings, jobs, done, grader, stop, numbers=[numbers[s.notebook] for s in to_grade],
            total=len(submissions))


def interrupted(store, total: int, out: Path) -> int:
    """Write what is graded (records, gradebooks, feedback), say so, and return 130."""
    store.flush()
    said = f"interrupted: {len(store.results)} of {total} notebooks graded"
    print(f"\n{said}; records, gradebooks and feedback written to {shown(out)} (the class report when a run "
          "completes: run the same command again to go on)", file=sys.stderr)
    return 130


def finish(store, submissions, said: list[str], shard, out: Path, regraded_in_sandbox: bool) -> None:
    """After the last notebook: mark the hand-ins that changed meanwhile, write every file, complete the shard."""
    from helpers.teacher import reports

    store.mark_changed(submissions)  # a hand-in changed while graded: its record says so (interrupted: its
    # new bytes are graded by the next run anyway, their fingerprint differs)
    if regraded_in_sandbox:  # every hand-in graded again, in the sandbox: the records are the grader's
        (out / "results" / reports.UNSANDBOXED).unlink(missing_ok=True)
    store.finish(said)
    if shard is not None:
        shard.complete = True
        shard.write(out)


def time_limits(args: argparse.Namespace) -> str:
    """One line: what --timeout counts and the wall-clock safety net."""
    from helpers.teacher.grading import wall_net

    net = wall_net(args.timeout, args.wall_timeout)
    return (f"time: {args.timeout:g} s of CPU time per notebook, all its processes together (waiting for a core "
            f"does not count); a wall-clock safety net of {net:g} s; disk: {args.disk} MB for its folder and /tmp "
            "together")


def warn_grader_side(results) -> None:
    """Say loudly which records the grader's side spoiled (load-timeout, grader-error): the next run regrades them."""
    spoiled = sorted(result.notebook for result in results if set(result.codes) & set(GRADER_SIDE))
    if not spoiled:
        return
    named = ", ".join(spoiled[:5]) + (f" and {len(spoiled) - 5} more" if len(spoiled) > 5 else "")
    text = (f"WARNING: {len(spoiled)} notebook(s) were not graded fairly, on the grader's side (load-timeout: the "
            f"machine was too busy or the notebook waited; grader-error): {named}. Their points may be too low: "
            "run the same command again to grade them again")
    print(text, flush=True)
    if not sys.stdout.isatty():
        print(text, file=sys.stderr, flush=True)


def stored_records(out: Path, submissions: Sequence[Submission], prints: dict[str, str], sandbox: sb.Sandbox,
                   regrade: bool, plan, again: Sequence[str] = ()) -> tuple[list[NotebookResult], str]:
    """The earlier records in ``out`` that may stand for their hand-ins now (:func:`reusable`), and a line saying
    what happens. Read before anything is written into ``out``."""
    from helpers.teacher import reports
    from helpers.teacher.submissions import peek_notebook

    total = len(submissions)
    if regrade:
        return [], f"grading all {total} notebooks (--regrade)"
    if not sandbox.bwrap:
        return [], (f"grading all {total} notebooks: without a sandbox no earlier record is reused (a notebook "
                    "could have written it)")
    if reports.tainted(out):
        return [], (f"grading all {total} notebooks: a run without a sandbox wrote into {out}, so no record "
                    "there is reused")
    taken = []
    for submission in submissions:
        stored = reports.stored(out, submission.notebook)
        if stored is None or reusable(stored, submission, prints[submission.notebook], sandbox.kind, again):
            continue
        unread = {"not-a-file", "invalid-notebook", "too-large"}
        notebook = peek_notebook(submission.data) if plan.manifest is not None else None  # no nbformat check
        if notebook is not None and not {p.code for p in stored.problems} & unread:
            from helpers.teacher.grading import COPY_PROBLEMS, copy_problems

            kept = [problem for problem in stored.problems if problem.code not in COPY_PROBLEMS]
            stored.problems = copy_problems(notebook, submission.learner, plan) + kept
        taken.append(stored)
    if not taken:
        return [], f"grading {total} notebooks"
    return taken, (f"{len(taken)} of {total} notebooks unchanged since they were graded into {out}: their "
                   f"records stand; grading {total - len(taken)}")


def reusable(stored: NotebookResult, submission: Submission, fingerprint: str, sandbox: str,
             again: Sequence[str] = GRADER_SIDE) -> str:
    """'' when an earlier record may stand for this hand-in now, else why not.

    Only a record made for the same fingerprint (:mod:`helpers.teacher.fingerprint`: the same bytes, the same
    learner's entry, key version and settings), in the same sandbox, with no problem of the grader's side
    (``again``: grader-error, load-timeout) and no change of the file while it was graded. The records live in
    --out, which no sandboxed notebook sees.
    """
    if stored.learner != submission.learner or stored.notebook != submission.notebook:
        return "another hand-in's record"
    if not stored.fingerprint or stored.fingerprint != fingerprint:
        return "changed (the hand-in, the learner's entry, the key, helpers or the settings)"
    if stored.sandbox != sandbox:
        return "graded in another sandbox"
    codes = set(stored.codes)
    if codes & {*again, "submission-changed"}:
        return "the grader's side spoiled it, or the file changed while it was graded"
    if "hand-in-gone" in codes:
        return "kept while its hand-in was gone"
    return ""


def merge_main(args: argparse.Namespace) -> int:
    """``--merge OUT SHARD...``: one output folder from the shards' folders (:mod:`helpers.teacher.shards`)."""
    from helpers.exercises import load_extra_exercises
    from helpers.teacher import reports
    from helpers.teacher.shards import merge

    stamp = reports.read_stamp(args.shards[0])  # the assignment the shards graded: OUT holds that one alone
    other = reports.other_assignment(args.out, stamp) if stamp else ""
    try:
        if other and not args.out_reuse:
            raise ValueError(other.replace("--out", "--merge", 1))
        for path in args.exercises:
            load_extra_exercises(str(path))
        store, said = merge(args.out, args.shards)
    except (ValueError, TypeError, OSError) as error:
        print(f"python -m helpers.grade: error: {shown(error)}", file=sys.stderr)
        return 2
    if stamp:
        reports.write_stamp(args.out, stamp)
    print("\n".join(map(shown, said)))
    print(f"merged {len(args.shards)} shards")
    print(store.summary())
    return 0


def read_ahead(submissions: Sequence[Submission]) -> tuple[str, list[str]]:
    """Each hand-in's JSON read before any run (not validated; not at all over the caps): what its unknown
    exercise ids call for (:func:`unknown_message`), and the hand-ins from a release with --roster (their numbers
    are the learner's own)."""
    from helpers.exercises import REGISTRY
    from helpers.teacher.submissions import checked_ids, peek_notebook

    found: dict[str, list[str]] = {}
    personal = []
    for submission in submissions:
        notebook = None if submission.too_large else peek_notebook(submission.data)
        if notebook is None:
            continue  # graded as invalid-notebook or too-large
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
    from helpers.exercises import REGISTRY

    if not found:
        return ""
    listed = []
    for exercise_id, names in sorted(found.items()):
        close = close_names(exercise_id, REGISTRY, most=1)
        nearest = f": did you mean {close[0]!r}?" if close else ""
        listed.append(f"{exercise_id} ({', '.join(sorted(set(names))[:3])}){nearest}")
    return (f"these notebooks use exercises the grader does not know: {'; '.join(listed)}. Your own exercise: pass "
            "its file with --exercises FILE; a typo in a learner's notebook: grade with --allow-unknown (the id is "
            "then reported as unknown-exercise)")


class StoppingOnSignals:
    """Ctrl-C (or SIGTERM) sets ``stop`` and kills every kernel of the run, those started ahead included.

    A second Ctrl-C does the same again (never a traceback): the run stops as soon as its workers have
    cleaned up, and what was graded is kept.
    """

    def __init__(self, stop: threading.Event, token: str) -> None:
        self.stop, self.token = stop, token
        self.previous: dict = {}

    def handle(self, signum: int, frame: object) -> None:
        self.stop.set()
        sb.kill_processes(sb.marked_processes(self.token, prefix=True))

    def __enter__(self) -> StoppingOnSignals:
        for kind in (signal.SIGINT, signal.SIGTERM):
            self.previous[kind] = signal.signal(kind, self.handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for kind, handler in self.previous.items():
            signal.signal(kind, handler)


class Ahead:
    """Grades with :mod:`helpers.teacher.grading`'s three steps, so each worker starts its next kernel while
    the current notebook runs (:func:`_run_each`)."""

    def __init__(self, settings) -> None:
        self.settings = settings

    def start(self, submission: Submission, number: int):
        from helpers.teacher import grading

        return grading.start(submission, self.settings, number)

    def finish(self, state) -> NotebookResult:
        from helpers.teacher import grading

        return grading.finish(state, self.settings)

    def discard(self, state) -> None:
        from helpers.teacher import grading

        grading.discard(state, self.settings)


class OneByOne:
    """A plain ``grade(submission, settings, number)`` as the three steps: nothing is started ahead."""

    def __init__(self, grade: Callable, settings) -> None:
        self.grade, self.settings = grade, settings

    def start(self, submission: Any, number: int) -> tuple[Any, int]:
        return submission, number

    def finish(self, state: tuple[Any, int]) -> NotebookResult:
        return self.grade(state[0], self.settings, state[1])

    def discard(self, state: tuple[Any, int]) -> None:
        pass


def run_all(
    submissions: list[Submission], settings, jobs: int, done: Callable, grade, stop: threading.Event,
    numbers: Sequence[int] | None = None, total: int | None = None,
) -> None:
    """Grade each submission (``jobs`` at a time), handing each result to ``done`` as soon as it is there.

    ``grade``: an object with ``start``, ``finish`` and ``discard`` (:class:`Ahead`), or a plain function
    ``grade(submission, settings, number)``. ``numbers``: each submission's number in the class, of ``total``
    (the others were graded before: the bar starts at their count). Once ``stop`` is set no notebook starts,
    results finished after it (cut short) are dropped, and kernels started ahead are killed.
    """
    grader = grade if hasattr(grade, "start") else OneByOne(grade, settings)
    numbered = list(zip(numbers or range(1, len(submissions) + 1), submissions, strict=True))
    total = len(submissions) if total is None else total
    reporting = threading.Lock()  # the workers report one at a time: the record, the tables, the line
    with Progress(total, initial=total - len(submissions)) as progress:  # a bar on a terminal, else a line each

        def report(number: int, result: NotebookResult) -> None:
            with reporting:
                if not stop.is_set():
                    done(number, result)
                    progress.show(number, result)

        _run_each(iter(numbered), jobs, report, grader, stop)


def _run_each(numbered: Iterator[tuple[int, Any]], jobs: int, report: Callable, grader, stop: threading.Event) -> None:
    """The loop of :func:`run_all`: ``jobs`` workers, each with its next notebook started while one runs.

    The main thread only waits (so Ctrl-C reaches it at once); each worker takes a notebook, starts the
    next one ahead (its kernel boots while this one runs; its timeout starts at its first cell), finishes
    this one, and so on. A worker left with a notebook started ahead when the run stops discards it.
    """
    lock = threading.Lock()
    failures: list[BaseException] = []

    def take() -> tuple[int, Any] | None:
        with lock:
            item = None if stop.is_set() else next(numbered, None)
        if item is None:
            return None
        number, submission = item
        return number, grader.start(submission, number)

    def worker() -> None:
        current = ahead = None
        try:
            current = take()
            while current is not None and not stop.is_set():
                ahead = take()
                number, state = current
                current = None
                report(number, grader.finish(state))
                current, ahead = ahead, None
        except BaseException as error:  # noqa: BLE001 (handed to the main thread)
            failures.append(error)
            stop.set()
        finally:
            for left in (current, ahead):
                if left is not None:
                    grader.discard(left[1])

    workers = [threading.Thread(target=worker, name=f"grader-{n}", daemon=True) for n in range(jobs)]
    for thread in workers:
        thread.start()
    for thread in workers:
        while thread.is_alive():
            thread.join(0.2)
    if failures:
        raise failures[0]


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
