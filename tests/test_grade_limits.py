"""The grader's budgets on real notebooks: CPU time, the wall-clock safety net, and the labels of its limits.

``--timeout`` counts the CPU seconds of all a notebook's processes, so a busy
machine does not spend it; a notebook that loops is ``cpu-time``; one that
only waits meets the wall-clock net and is ``load-timeout``, the grader's side,
graded again by the next plain run.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import psutil
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from helpers.exercises import REGISTRY
from helpers.teacher import sandbox as sb

pytestmark = pytest.mark.notebook

ROOT = Path(__file__).resolve().parent.parent
IMPORT = "from helpers.exercises import check"
RIGHT = f"{REGISTRY['explain-rr-mean'].worked().value:.{REGISTRY['explain-rr-mean'].decimals}f}"


def write_class(submissions: Path, learners: dict[str, list[str]]) -> None:
    for learner, cells in learners.items():
        (submissions / learner).mkdir(parents=True, exist_ok=True)
        notebook = new_notebook(cells=[new_code_cell(source) for source in cells])
        nbformat.write(notebook, submissions / learner / "01_mine.ipynb")


def grade(submissions: Path, out: Path, *options: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(out), *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=out.parent,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def records(out: Path) -> dict[str, dict]:
    found = [json.loads(path.read_text()) for path in (out / "results").glob("*.json")]
    return {record["learner"]: record for record in found}


def problems(record: dict) -> dict[str, str]:
    return {problem["code"]: problem["message"] for problem in record["problems"]}


def points(record: dict) -> float:
    return sum(answer["points"] for answer in record["answers"])


BOMB = ("blocks = []\nwhile True:\n    try:\n        blocks.append(b'\\x01' * (32 * 1024**2))\n"
        "    except MemoryError:\n        pass")
WRITER = ("import os\nchunk = b'\\x01' * (8 * 1024**2)\nfor number in range(10_000):\n"
          "    with open(os.path.join({where}, f'f{{number}}'), 'wb') as handle:\n        handle.write(chunk)")


@pytest.fixture(scope="module", params=["bwrap", "none"])
def breakers(request, tmp_path_factory):
    """Notebooks that break each limit, graded once in bubblewrap (with cgroups where the machine has them) and
    once without a sandbox and with per-process limits."""
    from helpers.teacher.sandbox import find_sandbox

    mode = request.param
    if mode == "bwrap" and find_sandbox("auto").bwrap is None:
        pytest.skip("bubblewrap does not work here")
    base = tmp_path_factory.mktemp(f"breakers-{mode}")
    answered = [IMPORT, f"check('explain-rr-mean', {RIGHT!r})"]
    write_class(base / "submissions", {
        "looper": [*answered, "while True:\n    pass"],
        "forker": [*answered, "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'while True: pass'])"],
        "bomber": [*answered, BOMB],  # takes memory to the limit, then holds there and spins
        "folder": [*answered, WRITER.format(where="'.'")],
        "tmp": [*answered, WRITER.format(where="'/tmp'" if mode == "bwrap" else "os.environ['TMPDIR']")],
        "home": [*answered, WRITER.format(where="os.path.expanduser('~')")],
    })
    limits = ("--limits", "auto") if mode == "bwrap" else ("--limits", "process")
    done = grade(base / "submissions", base / "out", "--sandbox", mode, *limits, "--timeout", "3", "--memory", "1536",
                 "--disk", "64", "--jobs", "2")
    return {"run": done, "records": records(base / "out")}


def test_the_time_line_says_what_is_counted(breakers):
    said = breakers["run"].stdout
    assert "time: 3 s of CPU time per notebook, all its processes together" in said
    assert "a wall-clock safety net of 600 s; disk: 64 MB for its folder and /tmp together" in said
    assert "WARNING" not in said


def test_a_busy_loop_is_cpu_time_its_childrens_cpu_included(breakers):
    for learner in ("looper", "forker"):
        record = breakers["records"][learner]
        said = problems(record)
        assert "cpu-time" in said and not {"timeout", "load-timeout"} & set(said), (learner, said)
        assert "over 3 s of CPU time" in said["cpu-time"]
        assert points(record) == 1.0, "what it answered before the loop counts"


def test_a_memory_bomb_is_memory_limit_never_a_time_limit(breakers):
    record = breakers["records"]["bomber"]
    said = problems(record)
    assert "memory-limit" in said and "1536 MB" in said["memory-limit"], said
    assert not {"timeout", "cpu-time", "load-timeout"} & set(said), said
    assert points(record) == 1.0


def test_a_notebook_that_writes_past_its_disk_budget_is_disk_limit(breakers):
    for learner in ("folder", "tmp", "home"):
        record = breakers["records"][learner]
        said = problems(record)
        assert "disk-limit" in said and "64 MB" in said["disk-limit"], (learner, said)
        assert not {"cpu-time", "load-timeout"} & set(said), (learner, said)
        assert points(record) == 1.0


def test_a_notebook_that_only_waits_meets_the_net_as_load_timeout_and_is_graded_again(tmp_path):
    write_class(tmp_path / "submissions", {
        "sleeper": [IMPORT, f"check('explain-rr-mean', {RIGHT!r})", "import time\ntime.sleep(600)"],
        "quick": [IMPORT, f"check('explain-rr-mean', {RIGHT!r})"],
    })
    # each run waits the net out on the sleeper, so it is short; the quick cells (an import and a check, like the
    # attack tests' small notebooks: 0.2 to 0.4 s of CPU, at most 3 s of wall time at a load average of 14 on two
    # cores) still end within it
    options = ("--timeout", "3", "--wall-timeout", "6", "--jobs", "2")
    first = grade(tmp_path / "submissions", tmp_path / "out", *options)
    found = records(tmp_path / "out")
    said = problems(found["sleeper"])
    assert set(said) == {"load-timeout"}, said
    assert "still running after 6 s of wall-clock time" in said["load-timeout"]
    assert "WARNING: 1 notebook(s) were not graded fairly" in first.stdout and "sleeper/01_mine.ipynb" in first.stdout
    assert points(found["sleeper"]) == 1.0 and problems(found["quick"]) == {}

    again = grade(tmp_path / "submissions", tmp_path / "out", *options)
    assert "1 of 2 notebooks unchanged" in again.stdout and "grading 1" in again.stdout
    regraded = records(tmp_path / "out")
    assert regraded["quick"]["graded_at"] == found["quick"]["graded_at"], "a fair record stands"
    assert "load-timeout" in problems(regraded["sleeper"]) and "WARNING" in again.stdout


def test_rerunning_only_the_grader_sides_records_needs_no_other_flag(tmp_path):
    from helpers.teacher import grade as grader
    from helpers.teacher.results import NotebookResult, Problem
    from helpers.teacher.submissions import Submission

    submission = Submission(Path("a.ipynb"), "a", "a.ipynb", b"{}")
    stored = NotebookResult("a", "a.ipynb", sandbox="bwrap", fingerprint="f1")
    assert grader.reusable(stored, submission, "f1", "bwrap") == ""
    for code in ("load-timeout", "grader-error"):
        stored.problems = [Problem(code, "x")]
        assert grader.reusable(stored, submission, "f1", "bwrap") != ""
    stored.problems = [Problem("timeout", "an earlier grader's wall-clock limit")]
    assert grader.reusable(stored, submission, "f1", "bwrap") == "", "a plain run keeps it"
    assert grader.reusable(stored, submission, "f1", "bwrap", grader.MAYBE_GRADER_SIDE) != ""
    stored.problems = [Problem("cpu-time", "x")]
    assert grader.reusable(stored, submission, "f1", "bwrap", grader.MAYBE_GRADER_SIDE) == "", "the notebook's own"


def many_cells(path: Path, count: int) -> None:
    """A notebook of ``count`` one-line code cells, written as JSON text (fast: no nbformat)."""
    cell = ('{"cell_type": "code", "execution_count": null, "id": "c%d", "metadata": {}, "outputs": [], '
            '"source": "x = 1"}')
    cells = ",\n".join(cell % number for number in range(count))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"cells": [' + cells + '], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')


def test_a_hand_in_over_the_caps_is_too_large_unparsed_and_nbformats_warnings_go_into_its_record(tmp_path):
    from helpers.teacher import submissions as found

    submissions = tmp_path / "submissions"
    many_cells(submissions / "huge" / "01_mine.ipynb", 5_001)
    twice = new_notebook(cells=[new_code_cell(IMPORT), new_code_cell(f"check('explain-rr-mean', {RIGHT!r})")])
    twice.cells[1].id = twice.cells[0].id  # nbformat repairs it, and warns
    (submissions / "twin").mkdir()
    (submissions / "twin" / "01_mine.ipynb").write_text(json.dumps(twice))
    big = submissions / "bulky" / "01_mine.ipynb"
    big.parent.mkdir()
    with big.open("wb") as handle:  # over the byte cap: never read whole, only its digest taken
        handle.truncate(found.MAX_HAND_IN_BYTES + 1)
    read = {submission.learner: submission for submission in found.read_submissions(submissions)}
    assert read["huge"].too_large == "5,001 cells: over the grader's cap of 5,000"
    assert read["bulky"].too_large.endswith("over the grader's cap of 50 MB") and read["bulky"].data == b""
    assert read["bulky"].sha256 == hashlib.sha256(big.read_bytes()).hexdigest()
    assert read["twin"].too_large == ""

    first = grade(submissions, tmp_path / "out", "--timeout", "30", "--jobs", "2")
    graded = records(tmp_path / "out")
    for learner in ("huge", "bulky"):
        assert set(problems(graded[learner])) == {"too-large"} and points(graded[learner]) == 0.0
        assert graded[learner]["answers"], "0 out of its lesson's points"
    twin = problems(graded["twin"])
    assert "nbformat-warning" in twin and "Non-unique cell id" in twin["nbformat-warning"]
    assert points(graded["twin"]) == 1.0
    assert "Non-unique" not in first.stdout + first.stderr and "Warning" not in first.stderr

    again = grade(submissions, tmp_path / "out", "--timeout", "30", "--jobs", "2")
    assert "3 of 3 notebooks unchanged" in again.stdout, again.stdout


def test_a_rerun_compares_digests_and_never_validates_a_stored_hand_in(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from helpers.teacher import grade as grader
    from helpers.teacher import submissions as found
    from helpers.teacher.results import NotebookResult, write_result
    from helpers.teacher.sandbox import Sandbox

    many_cells(tmp_path / "in" / "ann.ipynb", 3)
    submission = found.read_submissions(tmp_path / "in")[0]
    (tmp_path / "out" / "results").mkdir(parents=True)
    (tmp_path / "out" / "gradebook.csv").write_text("")
    write_result(tmp_path / "out" / "results", NotebookResult("ann", "ann.ipynb", sandbox="bwrap", fingerprint="f"))

    def refuse(*args, **kwargs):
        raise AssertionError("a stored hand-in was parsed with nbformat again")

    monkeypatch.setattr(found, "read_notebook", refuse)
    released = found.peek_notebook(submission.data)
    from helpers.teacher.manifest import notebook_digest

    manifest = SimpleNamespace(released={"01": notebook_digest(released)}, learners=[], learner=lambda i: None)
    plan = SimpleNamespace(manifest=manifest)  # the copy problems are worked out again, from the JSON alone
    taken, _ = grader.stored_records(tmp_path / "out", [submission], {"ann.ipynb": "f"}, Sandbox("/usr/bin/bwrap"),
                                     False, plan)
    assert [record.learner for record in taken] == ["ann"]
    assert [problem.code for problem in taken[0].problems] == ["released-copy"]


def test_ctrl_c_stops_at_once_and_keeps_what_was_graded(tmp_path):
    import signal
    import time

    from tests.processes import alive, descendants

    learners = {"a": [IMPORT, f"check('explain-rr-mean', {RIGHT!r})"]}
    learners |= {f"loop{n}": [IMPORT, f"check('explain-rr-mean', {RIGHT!r})", "while True:\n    pass"]
                 for n in range(3)}
    write_class(tmp_path / "submissions", learners)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "helpers.grade", str(tmp_path / "submissions"), "--out", str(out),
               "--timeout", "600", "--jobs", "2"]
    grader = subprocess.Popen(command, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not list((out / "results").glob("a__*.json")) and time.monotonic() < deadline:
        time.sleep(0.2)
    while len([child for child in descendants(grader.pid) if "ipykernel" in _command(child)]) < 2 \
            and time.monotonic() < deadline:
        time.sleep(0.2)  # two loops are running, a third kernel started ahead
    time.sleep(1)
    family = descendants(grader.pid)
    sent = time.monotonic()
    grader.send_signal(signal.SIGINT)
    _, err = grader.communicate(timeout=120)
    print(f"stopped {time.monotonic() - sent:.1f} s after Ctrl-C")  # no assertion on time: the machine is shared
    assert grader.returncode == 130, err
    assert "interrupted: 1 of 4 notebooks graded" in err and "Traceback" not in err
    kept = records(out)
    assert list(kept) == ["a"] and points(kept["a"]) == 1.0
    rows = (out / "gradebook.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(rows) == 2 and rows[1].startswith("a,") and rows[0].split(",").index("total") == 5
    assert rows[1].split(",")[5] == "1"
    deadline = time.monotonic() + 30
    while [process for process in family if alive(process)] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [process for process in family if alive(process)], "no notebook's process outlives the grader"


def _command(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


PROBES = {  # what a notebook can read of its own sandbox, each raised as its cell's error (the record keeps it)
    "cmdline-1": "open('/proc/1/cmdline', 'rb').read().replace(b'\\0', b' ').decode()",
    "cmdline-self": "open('/proc/self/cmdline', 'rb').read().replace(b'\\0', b' ').decode()",
    "parent": "open(f'/proc/{os.getppid()}/cmdline', 'rb').read().replace(b'\\0', b' ').decode()",
    "environment": "' '.join(f'{k}={v}' for k, v in os.environ.items() if k != 'PATH')",
    "folders": "' '.join([os.getcwd(), helpers.__file__, *sys.path])",
    "mounts": "' '.join(line.split()[3] for line in open('/proc/self/mountinfo') if '/notebook' in line.split()[4] "
              "or '/opt/course' in line.split()[4])",
    "mount-sources": "' '.join(line.split()[3] for line in open('/proc/self/mountinfo') if 'grader-temp' in line "
                     "or 'hg-' in line)",
}


def test_no_path_of_the_graders_temporary_folder_reaches_the_kernels_command_line_or_environment(tmp_path):
    from helpers.teacher.sandbox import find_sandbox

    if find_sandbox("auto").bwrap is None:
        pytest.skip("bubblewrap does not work here")
    write_class(tmp_path / "submissions", {  # one learner per probe: a record keeps its first error
        name: [IMPORT, "import os, sys, helpers", f"raise RuntimeError('{name}: ' + {code})"]
        for name, code in PROBES.items()})
    temporary = tmp_path / "grader-temp"  # the grader's TMPDIR: its session folder is made in it
    temporary.mkdir()
    command = [sys.executable, "-m", "helpers.grade", str(tmp_path / "submissions"), "--out", str(tmp_path / "out"),
               "--sandbox", "bwrap", "--jobs", "2"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temporary)})
    assert done.returncode == 0, done.stderr[-3000:]
    found = records(tmp_path / "out")
    said = {name: problems(found[name])["raised"] for name in PROBES}
    for name, text in said.items():
        assert f"RuntimeError: {name}: " in text, (name, text)
        assert str(temporary) not in text and "/hg-" not in text, (name, text)
        assert str(tmp_path) not in text, (name, text)
    assert "bwrap --args " in said["cmdline-1"] and "--bind" not in said["cmdline-1"], said["cmdline-1"]
    assert "-f /notebook/kernel.json" in said["cmdline-self"]
    assert "PYTHONPATH=/opt/course" in said["environment"] and "/opt/course/helpers/" in said["folders"]
    # the notebook's folder and the course are tmpfs of their own, copied in: mountinfo names no folder of the grader
    assert said["mounts"].endswith("mounts: / /"), said["mounts"]
    assert said["mount-sources"].rstrip().endswith("mount-sources:"), said["mount-sources"]
    assert "<the grader's folder>" not in " ".join(said.values()), "absent, not masked"


NEXT_PROCESS_ID = Path("/proc/sys/kernel/ns_last_pid")  # Linux: the id given last; root may set it


def started_with_id(wanted: int, command: list[str], env: dict[str, str]) -> subprocess.Popen | None:
    """The command started as process ``wanted`` (the id after the one written to ns_last_pid), or None when another
    process of the machine took that id first."""
    NEXT_PROCESS_ID.write_text(str(wanted - 1))
    started = subprocess.Popen(command, env=env)
    if started.pid == wanted:
        return started
    started.kill()
    started.wait()
    return None


@pytest.mark.skipif(not os.access(NEXT_PROCESS_ID, os.W_OK), reason="needs root to set the next process id (Linux)")
def test_a_leftover_that_took_the_id_of_an_ended_process_is_found_and_killed(tmp_path):
    """On a busy machine process ids come round again: a notebook's process that took the id of one the grader had
    seen is still found by its mark and killed (psutil once kept the old process's object for that id, took the new
    one for gone and sent it nothing)."""
    marker = f"id-again-{tmp_path.name}"
    env = {**os.environ, sb.MARKER_ENV: marker}
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    second = None
    for _ in range(20):
        first = subprocess.Popen(sleeper, env=env)
        assert [found.pid for found in sb.marked_processes(marker)] == [first.pid]
        first.kill()
        first.wait()
        second = started_with_id(first.pid, sleeper, env)
        if second is not None:
            break
    if second is None:
        pytest.skip("another process took the freed id 20 times running")
    try:
        found = sb.marked_processes(marker)
        assert [process.pid for process in found] == [second.pid]
        sb.kill_processes(found)
        assert second.wait(timeout=10) == -9
    finally:
        if second.poll() is None:
            second.kill()
            second.wait()
