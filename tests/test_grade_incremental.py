"""The grader's bookkeeping for a course, without a kernel: fingerprints, records taken again, the output folder,
shards and their merge, the loop that starts the next kernel ahead, and where an installed helpers hides.

The same on real notebooks (interrupted, resumed, changed, sharded): tests/test_grade_resume.py.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
import threading
import time
import unicodedata
from pathlib import Path

import pytest

from helpers.exercises import REGISTRY
from helpers.teacher import fingerprint, grade, reports, sandbox, shards
from helpers.teacher.judging import AnswerKey
from helpers.teacher.manifest import Assigned, LearnerEntry, Manifest
from helpers.teacher.plan import Plan, shard_of
from helpers.teacher.results import Judged, NotebookResult, Problem, result_file, write_result
from helpers.teacher.submissions import Submission

SETTINGS = fingerprint.run_settings(60, 4096, "bwrap", "cgroup v2", 1024)


def judged(exercise: str, correct: bool, points: float = 1.0) -> Judged:
    return Judged(exercise, REGISTRY[exercise].lesson, "answer", "0.5", "right" if correct else "wrong", correct,
                  points if correct else 0.0, points)


def record(learner: str, notebook: str, total: int = 1, when: str = "2025-02-01T10:00:00+00:00",
           **fields) -> NotebookResult:
    answers = [judged("new-hit-rate-at-2", total >= 1), judged("explain-rr-mean", total >= 2)]
    return NotebookResult(learner, notebook, "01", sha256="ab", sandbox="bwrap", answers=answers, graded_at=when,
                          **fields)


# --- shards -------------------------------------------------------------------------------------


def test_a_learners_shard_is_the_sha256_of_their_nfc_id_mod_n():
    for learner in ("ann", "José", "learner042", "=1+1"):
        digest = hashlib.sha256(unicodedata.normalize("NFC", learner).encode()).digest()
        assert shard_of(learner, 7) == int.from_bytes(digest[:8], "big") % 7
    assert shard_of(unicodedata.normalize("NFD", "José"), 5) == shard_of("José", 5), "as the roster compares ids"
    counts = [0] * 4
    for number in range(400):
        counts[shard_of(f"learner{number:03d}", 4)] += 1
    assert all(70 <= count <= 130 for count in counts), counts
    plan = Plan(shard=(1, 4))
    assert plan.in_shard("learner001") == (shard_of("learner001", 4) == 1) and Plan().in_shard("anyone")


@pytest.mark.parametrize("text", ["3/3", "a/b", "1", "-1/3", "0/0", "1/2/3"])
def test_a_shard_is_k_of_n_counted_from_0(text):
    with pytest.raises(ValueError, match="--shard"):
        shards.parse_shard(text)


def test_a_shard_of_a_manifest_lists_its_own_roster_learners():
    entries = tuple(LearnerEntry(f"l{n}", ("01",), (Assigned("explain-rr-mean", "01", 2.0),)) for n in range(12))
    manifest = Manifest(("01",), entries)
    parts = [Plan(manifest=manifest, shard=(index, 3)).roster for index in range(3)]
    assert sorted(sum(parts, [])) == sorted(manifest.roster) and all(parts)
    assert all(shard_of(learner, 3) == index for index, part in enumerate(parts) for learner in part)


# --- fingerprints -------------------------------------------------------------------------------


def test_the_fingerprint_changes_with_each_thing_a_verdict_depends_on_and_nothing_else():
    base = fingerprint.notebook_fingerprint("hand-in", "learner", "key", SETTINGS)
    assert base == fingerprint.notebook_fingerprint("hand-in", "learner", "key", dict(reversed(SETTINGS.items())))
    assert base != fingerprint.notebook_fingerprint("other bytes", "learner", "key", SETTINGS)
    assert base != fingerprint.notebook_fingerprint("hand-in", "other entry", "key", SETTINGS)
    assert base != fingerprint.notebook_fingerprint("hand-in", "learner", "other key", SETTINGS)
    for name, value in (("timeout", 61.0), ("memory_mb", 2048), ("sandbox", "none"), ("limits", "per process"),
                        ("disk_mb", 512)):
        assert base != fingerprint.notebook_fingerprint("hand-in", "learner", "key", {**SETTINGS, name: value})


def test_the_key_version_follows_the_answer_key_the_course_and_the_teachers_files(tmp_path):
    key = AnswerKey.build()
    course = tmp_path / "course"
    (course / "helpers").mkdir(parents=True)
    (course / "helpers" / "metrics.py").write_text("x = 1\n")
    teacher = tmp_path / "mine.py"
    teacher.write_text("# mine\n")
    first = fingerprint.key_version(key, course, [teacher])
    assert first == fingerprint.key_version(AnswerKey.build(), course, [teacher]), "computed again: the same"
    assert fingerprint.answer_key_digest(key) != fingerprint.answer_key_digest(key.with_points({"explain-rr-mean": 5}))
    (course / "helpers" / "__pycache__").mkdir()
    (course / "helpers" / "__pycache__" / "metrics.pyc").write_bytes(b"cache")
    assert fingerprint.key_version(key, course, [teacher]) == first, "caches do not count"
    (course / "helpers" / "teacher").mkdir()
    (course / "helpers" / "teacher" / "reports.py").write_text("# how the gradebook looks\n")
    assert fingerprint.key_version(key, course, [teacher]) == first, "a module that only writes files does not"
    (course / "helpers" / "metrics.py").write_text("x = 2\n")
    second = fingerprint.key_version(key, course, [teacher])
    teacher.write_text("# mine, changed\n")
    assert len({first, second, fingerprint.key_version(key, course, [teacher])}) == 3


def test_a_teachers_exercise_is_computed_into_the_key_version_and_a_lessons_when_first_judged(monkeypatch):
    from helpers.exercises import Exercise, register, registry
    from helpers.teacher.judging import judge_exercise

    answers = []

    def answer() -> float:
        answers.append(1)
        return 0.25 * len(answers)

    def lesson_09_p():
        raise AssertionError("not needed: no notebook asked for it")

    monkeypatch.setitem(REGISTRY, "paired-sign-flip-p", dataclasses.replace(REGISTRY["paired-sign-flip-p"],
                                                                           answer=lesson_09_p))
    register(Exercise(id="teacher-key-version", lesson="11", question="q?", answer=answer, hints=("a", "b")))
    try:
        registered = len(answers)  # its slips were checked as it was registered
        first = AnswerKey.build()
        assert len(answers) == registered + 1, "a teacher's exercise: computed when the key is built"
        assert "paired-sign-flip-p" in first.later and "teacher-key-version" not in first.later
        again = AnswerKey.build()
        assert first.worked["teacher-key-version"].value != again.worked["teacher-key-version"].value
        assert fingerprint.answer_key_digest(first) != fingerprint.answer_key_digest(again), "its answer, as computed"
        assert judge_exercise("new-hit-rate-at-2", [], first).max_points == 1.0, "a lesson's, when it is judged"
        with pytest.raises(RuntimeError, match="its answer key fails: .*not needed"):
            judge_exercise("paired-sign-flip-p", [], first)
    finally:
        REGISTRY.pop("teacher-key-version")
        registry.BUILT_IN.discard("teacher-key-version")


def test_the_key_computes_each_exercise_once_however_many_threads_ask(monkeypatch):
    calls = []
    answer = REGISTRY["new-hit-rate-at-2"].answer

    def slow_answer():
        calls.append(1)
        time.sleep(0.05)
        return answer()

    monkeypatch.setitem(REGISTRY, "new-hit-rate-at-2", dataclasses.replace(REGISTRY["new-hit-rate-at-2"],
                                                                          answer=slow_answer))
    key = AnswerKey.build()
    found = []
    threads = [threading.Thread(target=lambda: found.append(key.worked["new-hit-rate-at-2"].value)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [1] and len(found) == 4 and len(set(found)) == 1


def test_a_learners_digest_is_their_own_entry():
    ann = LearnerEntry("ann", ("01",), (Assigned("explain-rr-mean", "01", 2.0),))
    bob = LearnerEntry("bob", ("01",), (Assigned("explain-rr-mean", "01", 2.0),))
    plan = Plan(manifest=Manifest(("01",), (ann, bob)))
    richer = Plan(manifest=Manifest(("01",), (ann, dataclasses.replace(bob, exercises=()))))
    assert plan.learner_digest("ann") == richer.learner_digest("ann"), "bob's entry is not ann's"
    assert plan.learner_digest("bob") != richer.learner_digest("bob")
    assert Plan(expect={"explain-rr-mean": 1.0}).learner_digest("x") != Plan(expect=None).learner_digest("x")


def test_a_record_stands_only_for_the_same_fingerprint_sandbox_and_a_clean_grading():
    submission = Submission(Path("ann/01.ipynb"), "ann", "ann/01.ipynb", b"{}")
    stored = record("ann", "ann/01.ipynb", fingerprint="f1")
    assert grade.reusable(stored, submission, "f1", "bwrap") == ""
    assert "changed" in grade.reusable(stored, submission, "f2", "bwrap")
    assert "sandbox" in grade.reusable(stored, submission, "f1", "none")
    assert "changed" in grade.reusable(dataclasses.replace(stored, fingerprint=""), submission, "", "bwrap")
    for code in ("grader-error", "submission-changed"):
        failed = dataclasses.replace(stored, problems=[Problem(code, "x")])
        assert grade.reusable(failed, submission, "f1", "bwrap")


def test_without_a_sandbox_or_in_a_folder_one_wrote_to_nothing_is_taken_again(tmp_path):
    submission = Submission(tmp_path / "ann.ipynb", "ann", "ann.ipynb", b"{}")
    out = tmp_path / "out"
    store = reports.OutputFolder(out, Plan(), None)
    write_result(out / "results", record("ann", "ann.ipynb", fingerprint="f"))
    bwrap, none = sandbox.Sandbox("/usr/bin/bwrap"), sandbox.Sandbox(None, "asked")
    prints = {"ann.ipynb": "f"}
    assert grade.stored_records(out, [submission], prints, none, False, Plan())[0] == []
    assert grade.stored_records(out, [submission], prints, bwrap, True, Plan())[0] == [], "--regrade"
    store.mark_unsandboxed()
    taken, said = grade.stored_records(out, [submission], prints, bwrap, False, Plan())
    assert taken == [] and "without a sandbox" in said
    (out / "results" / reports.UNSANDBOXED).unlink()
    taken, said = grade.stored_records(out, [submission], prints, bwrap, False, Plan())
    assert [record.fingerprint for record in taken] == ["f"] and "1 of 1 notebooks unchanged" in said


# --- the output folder ----------------------------------------------------------------------------


def test_the_tables_wait_for_their_time_and_the_records_do_not(tmp_path):
    store = reports.OutputFolder(tmp_path, Plan(), None, every=3600)
    store.add(record("bob", "bob/01.ipynb", 2))
    assert (tmp_path / "results" / result_file("bob/01.ipynb")).is_file(), "each record at once"
    assert not (tmp_path / "gradebook.csv").exists(), "the tables at most every `every` seconds"
    store.every = 0
    store.add(record("ann", "ann/01.ipynb", 1))
    assert (tmp_path / "gradebook.csv").is_file() and (tmp_path / "feedback" / "bob.html").is_file()


def test_the_files_follow_learner_and_notebook_whatever_the_order_and_the_report_is_dated_by_its_records(tmp_path):
    made = [record("bob", "bob/01.ipynb", 2, "2025-02-01T10:00:00+00:00"),
            record("ann", "ann/01.ipynb", 1, "2025-02-03T09:30:00+00:00"),
            record("ann", "ann/00.ipynb", 0, "2025-01-30T08:00:00+00:00")]
    folders = []
    for order in (made, made[::-1]):
        out = tmp_path / f"out{len(folders)}"
        store = reports.OutputFolder(out, Plan(), None, every=3600)
        for result in order:
            store.add(result)
        store.finish(["sandbox: test"])
        folders.append(out)
    for name in ("gradebook.csv", "answers.csv", "class-report.html", "gradebook-canvas.csv", "feedback/ann.html"):
        assert (folders[0] / name).read_bytes() == (folders[1] / name).read_bytes(), name
    assert "graded 2025-02-03 09:30 UTC" in (folders[0] / "class-report.html").read_text()
    rows = (folders[0] / "answers.csv").read_text(encoding="utf-8-sig").splitlines()[1:]
    assert [row.split(",")[1] for row in rows[::2]] == ["ann/00.ipynb", "ann/01.ipynb", "bob/01.ipynb"]


def test_finishing_drops_the_records_of_hand_ins_no_longer_there_and_says_every_file(tmp_path):
    store = reports.OutputFolder(tmp_path, Plan(), None)
    write_result(tmp_path / "results", record("gone", "gone.ipynb"))
    (tmp_path / "results" / "0001.json").write_text("{}")  # an old run's record
    store.add(record("ann", "ann.ipynb"))
    store.finish(["sandbox: test"])
    assert sorted(path.name for path in (tmp_path / "results").iterdir()) == [result_file("ann.ipynb")]
    said = store.summary(reused=1)
    for name in (*reports.TABLES, "feedback/", "class-report.html", "results/"):
        assert name in said
    assert "(1 taken as graded before: unchanged)" in said


def test_out_may_not_be_inside_a_folder_every_sandboxed_kernel_sees(tmp_path):
    inside = Path(sys.prefix).resolve() / "grades-of-week-3"
    with pytest.raises(grade.Refused, match="every sandboxed notebook sees"):
        grade.check_out(inside, tmp_path)
    assert not inside.exists()


# --- the loop -------------------------------------------------------------------------------------


class Recorder:
    """A stand-in for the grader's three steps that notes when each happens."""

    def __init__(self, stop_at: int | None = None, stop: threading.Event | None = None) -> None:
        self.events: list[tuple[str, int]] = []
        self.stop_at, self.stop = stop_at, stop
        self.lock = threading.Lock()

    def note(self, what: str, number: int) -> None:
        with self.lock:
            self.events.append((what, number))

    def start(self, submission: str, number: int) -> int:
        self.note("start", number)
        return number

    def finish(self, number: int) -> NotebookResult:
        self.note("finish", number)
        if number == self.stop_at and self.stop is not None:
            self.stop.set()  # Ctrl-C while this notebook runs
        time.sleep(0.02)
        return record(f"l{number}", f"l{number}.ipynb")

    def discard(self, number: int) -> None:
        self.note("discard", number)


def test_each_worker_starts_its_next_notebook_before_it_finishes_the_current_one():
    grader, done = Recorder(), []
    grade.run_all([f"l{n}" for n in range(1, 5)], None, 1, lambda n, r: done.append(n), grader, threading.Event())
    assert grader.events == [("start", 1), ("start", 2), ("finish", 1), ("start", 3), ("finish", 2), ("start", 4),
                             ("finish", 3), ("finish", 4)]
    assert done == [1, 2, 3, 4]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_stop_discards_the_notebooks_started_ahead_and_keeps_what_was_done(jobs):
    stop = threading.Event()
    grader, done = Recorder(stop_at=3, stop=stop), []
    grade.run_all([f"l{n}" for n in range(1, 9)], None, jobs, lambda n, r: done.append(n), grader, stop)
    started = {n for what, n in grader.events if what == "start"}
    finished = {n for what, n in grader.events if what == "finish"}
    discarded = {n for what, n in grader.events if what == "discard"}
    assert started == finished | discarded and not finished & discarded, grader.events
    assert discarded and 3 not in done and set(done) < finished, "the notebook cut short is not kept"
    assert not started & set(range(7, 9)) or jobs == 2, "nothing starts after the stop"


def test_the_bar_starts_at_the_notebooks_graded_before(capsys):
    from helpers.teacher.progress import Progress

    class Terminal:
        def __init__(self) -> None:
            self.text = ""

        def write(self, text: str) -> None:
            self.text += text

        def flush(self) -> None:
            pass

        def isatty(self) -> bool:
            return True

    stream = Terminal()
    with Progress(20, stream, initial=12) as progress:  # type: ignore[arg-type]
        progress.show(13, record("ann", "ann.ipynb"))
    assert " 12/20 " in stream.text and " 13/20 " in stream.text and " 0/20 " not in stream.text


# --- the merge ------------------------------------------------------------------------------------


def make_shards(base: Path, count: int = 3, learners: int = 9) -> list[Path]:
    """Shard folders as ``grade --shard`` leaves them: shard.json and the records it lists."""
    folders = []
    for index in range(count):
        folder = base / f"shard-{index}"
        (folder / "results").mkdir(parents=True)
        mine = [f"l{n}" for n in range(learners) if shard_of(f"l{n}", count) == index]
        table = {learner: {"exercises": {"new-hit-rate-at-2": 1.0, "explain-rr-mean": 1.0}, "questions": {}}
                 for learner in mine}
        notebooks = [f"{learner}/01.ipynb" for learner in mine]
        for learner, notebook in zip(mine, notebooks, strict=True):
            write_result(folder / "results", record(learner, notebook, 2, key_version="k1", fingerprint="f"))
        shards.ShardRecord(index, count, "a1", "a1", "k1", shards.register_digest(), dict(SETTINGS), ["sandbox: x"],
                           mine, table, notebooks, [], complete=True).write(folder)
        folders.append(folder)
    return folders


def edit(folder: Path, **changes) -> None:
    data = json.loads((folder / shards.SHARD_FILE).read_text())
    data.update(changes)
    (folder / shards.SHARD_FILE).write_text(json.dumps(data))


def test_complete_shards_merge_into_one_class(tmp_path):
    folders = make_shards(tmp_path)
    assert grade.main(["--merge", str(tmp_path / "merged"), *map(str, folders)]) == 0
    rows = (tmp_path / "merged" / "gradebook.csv").read_text(encoding="utf-8-sig").splitlines()
    assert [row.split(",")[0] for row in rows[1:]] == sorted(f"l{n}" for n in range(9))
    assert len(list((tmp_path / "merged" / "results").glob("*.json"))) == 9


@pytest.mark.parametrize("change, said", [
    (lambda f: edit(f[1], of=4), "differ in their N"),
    (lambda f: edit(f[2], key_version="k2"), "key version"),
    (lambda f: edit(f[2], assignment="a2"), "assignment"),
    (lambda f: edit(f[1], settings={**SETTINGS, "timeout": 5.0}), "settings"),
    (lambda f: edit(f[1], shard=0), "twice: 0; missing: 1"),
    (lambda f: edit(f[0], complete=False), "shard 0/3 .* is not complete"),
    (lambda f: edit(f[0], learners={**json.loads((f[0] / "shard.json").read_text())["learners"],
                                    **json.loads((f[1] / "shard.json").read_text())["learners"]}), "is in shard 0"),
    (lambda f: next((f[1] / "results").glob("*.json")).unlink(), "has no record of it"),
    (lambda f: (f[1] / shards.SHARD_FILE).unlink(), "not a shard's folder"),
])
def test_shards_that_do_not_make_one_class_are_refused(tmp_path, capsys, change, said):
    folders = make_shards(tmp_path)
    change(folders)
    assert grade.main(["--merge", str(tmp_path / "merged"), *map(str, folders)]) == 2
    import re

    assert re.search(said, capsys.readouterr().err)
    assert not (tmp_path / "merged" / "gradebook.csv").exists()


def test_a_missing_shard_is_named(tmp_path, capsys):
    folders = make_shards(tmp_path)
    assert grade.main(["--merge", str(tmp_path / "merged"), str(folders[0]), str(folders[2])]) == 2
    assert "missing: 1" in capsys.readouterr().err


def test_the_merge_command_line_takes_folders_alone(tmp_path, capsys):
    with pytest.raises(SystemExit):
        grade.parse_args(["--merge", str(tmp_path)])
    with pytest.raises(SystemExit):
        grade.parse_args([str(tmp_path), "--merge", str(tmp_path / "a"), str(tmp_path)])
    (tmp_path / "s").mkdir()
    with pytest.raises(SystemExit):
        grade.parse_args(["--merge", str(tmp_path / "s" / "merged"), str(tmp_path / "s")])
    assert "must not hold one another" in capsys.readouterr().err


# --- an installed helpers, hidden from the sandbox -------------------------------------------------


def test_every_place_an_install_puts_helpers_is_found(tmp_path):
    site = tmp_path / "site"
    (site / "helpers").mkdir(parents=True)
    repo = tmp_path / "repo"
    (repo / "helpers").mkdir(parents=True)
    (site / "__editable___ranking_metrics_by_hand_0_2_0_finder.py").write_text(
        f"MAPPING: dict[str, str] = {{'helpers': {str(repo / 'helpers')!r}, 'other': '/x'}}\n")
    old = tmp_path / "old"
    (old / "helpers").mkdir(parents=True)
    (site / "easy-install.pth").write_text(f"import sys\n{old}\n# a comment\n")
    assert sandbox.installed_helpers([site]) == [site / "helpers", repo / "helpers", old / "helpers"]


def test_the_sandbox_covers_an_installed_helpers_it_would_show(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "helpers" / "exercises" / "lessons").mkdir(parents=True)
    monkeypatch.setattr(sandbox, "site_folders", lambda: [site])
    monkeypatch.setattr(sandbox, "python_folders", lambda: [site])
    arguments = sandbox.bwrap_arguments("bwrap", tmp_path / "n1", tmp_path / "n1" / "work", tmp_path / "course")
    bound = arguments.index(str(site))  # --ro-bind SITE SITE
    covered = arguments.index("--tmpfs", bound) + 1
    assert arguments[bound - 1] == "--ro-bind" and arguments[covered] == str(site / "helpers"), arguments
    assert sandbox.hidden_helpers([tmp_path / "elsewhere"]) == [], "only what a bound folder would show"


def test_a_kernel_that_cannot_be_started_ahead_is_that_notebooks_grader_error(tmp_path, monkeypatch):
    from nbformat import writes
    from nbformat.v4 import new_code_cell, new_notebook

    from helpers.teacher import grading
    from helpers.teacher.limits import find_limits

    def refuse(*args, **kwargs):
        raise OSError("no more processes")

    monkeypatch.setattr(grading, "start_kernel", refuse)
    settings = grading.Settings(sandbox=sandbox.Sandbox(None, "test"), key=AnswerKey.build(), session=tmp_path,
                                course=tmp_path / "course", plan=Plan(expect={"explain-rr-mean": 2.0}),
                                limits=find_limits("process"))
    data = writes(new_notebook(cells=[new_code_cell("x = 1")])).encode()
    state = grading.start(Submission(tmp_path / "ann.ipynb", "ann", "01_ann.ipynb", data), settings, 7)
    assert state.failed and state.kernel is None, "start never raises"
    result = grading.finish(state, settings)
    assert [p.code for p in result.problems] == ["grader-error"]
    assert "could not be started: OSError: no more processes" in result.problems[0].message
    assert [(a.exercise, a.points, a.max_points) for a in result.answers] == [("explain-rr-mean", 0.0, 2.0)]
    assert not (tmp_path / "n7").exists(), "its folder is removed"
