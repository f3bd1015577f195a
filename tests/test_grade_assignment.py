"""A graded class as the teacher runs it: release with a roster, a secret and a manifest; hostile hand-ins; grade.

One class, graded once in bubblewrap with ``--jobs 2`` by ``python -m helpers.grade --assignment MANIFEST``
(a module fixture), and many assertions on what it wrote:

- honest learners on their own numbers (one whose folder name is in NFD, as macOS zips write ``José``), an
  untouched own copy, the released base copy, another learner's copy, a roster id with no hand-in, and file
  names on no roster (``a b``, ``=1+1``, ``-rf``);
- notebooks that talk back: a link in place of the kernel's old stderr file and check log pointing at the course
  secret and at ``/proc/self/cmdline`` before the kernel kills itself; links to the neighbour's check log
  while it runs beside; FIFOs, hard links, renames and a folder in place of a file; check-log lines for nine
  exercises of other lessons; a hand-in stripped of its lesson mark and check cells; children and ``/tmp``
  past ``--memory``; a print loop and one huge print; answers of a million digits and huge exponents; a
  background thread that answers after the last cell; a function that runs past the deadline.

Each gets no undeserved point, nothing of the secret or the grader's command line reaches ``--out``, and the
teacher's terminal shows no traceback.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import nbformat
import psutil
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from helpers.exercises import REGISTRY, exercises_of
from helpers.exercises.calls import check_calls
from helpers.exercises.fresh import draw
from helpers.teacher import sandbox
from helpers.teacher.limits import find_limits
from helpers.teacher.manifest import Manifest

pytestmark = pytest.mark.notebook

ROOT = Path(__file__).resolve().parent.parent
LESSON = "01"
NAME = "01_hit_rate_and_mrr.ipynb"
LESSON_IDS = [exercise.id for exercise in exercises_of(LESSON)]
MEMORY_MB = 1536
# CPU seconds: pam's endless function runs them out in full; the costliest other hand-in, ida (three children
# and /tmp past --memory), used 2.4 s, an honest lesson-01 copy 1.4 s (2026-12-06)
TIMEOUT = 10
HONEST = ["ann", "José"]
ATTACKERS = ["eve", "fay", "gus", "gil", "hal", "ida", "jon", "joy", "kim", "lea", "mo", "pam"]
ROSTER = ["ann", "bob", "carl", "dora", "José", "nob", *ATTACKERS]
STRANGERS = ["a b", "=1+1", "-rf"]
SETUP = "import os, sys, json, time, signal\nfrom helpers.exercises import check, check_function"
ROOT_OF_KERNEL = "root = os.path.dirname(os.getcwd())"  # the notebook's folder, which the kernel may write


def right_answers(manifest: Manifest, learner: str) -> dict[str, str]:
    """A learner's right answers on their own numbers, from the manifest's seeds (the teacher's side)."""
    found = {}
    for assigned in manifest.learner(learner).exercises:
        exercise = REGISTRY[assigned.id]
        if exercise.kind != "answer":
            continue
        value = draw(assigned.id, assigned.seed).worked.value if assigned.seed is not None else exercise.worked().value
        found[assigned.id] = "undefined" if value != value else f"{value:.{exercise.decimals}f}"
    return found


def fill(path: Path, answers: dict[str, str], function: bool = True) -> nbformat.NotebookNode:
    """A released notebook with the answers typed in, and the mrr function written."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        calls = check_calls(cell.source)
        for exercise_id, text in answers.items():
            if any(call.passes_answer and call.exercise_id == exercise_id for call in calls):
                cell.source = cell.source.replace("answer = None", f"answer = {text!r}", 1)
        if function and any(call.function == "check_function" and call.exercise_id == "mrr-function" for call in calls):
            cell.source = REGISTRY["mrr-function"].code + "\n\n\ncheck_function('mrr-function', mrr)"
    return notebook


def small(*cells: str) -> nbformat.NotebookNode:
    """A lesson-01 hand-in of a few cells (what an attacker keeps of the lesson)."""
    notebook = new_notebook(cells=[new_code_cell(SETUP), *(new_code_cell(cell) for cell in cells)])
    notebook.metadata["helpers"] = {"lesson": LESSON}
    return notebook


def other_lessons_answers() -> dict[str, str]:
    """Right answers for nine exercises of other lessons, as a practice copy computes them."""
    found = {}
    for exercise in REGISTRY.values():
        if exercise.lesson not in (LESSON, "00") and exercise.kind == "answer" and len(found) < 9:
            value = exercise.worked().value
            found[exercise.id] = "undefined" if value != value else f"{value:.{exercise.decimals}f}"
    return found


def attacks(manifest: Manifest, secret: Path) -> dict[str, nbformat.NotebookNode]:
    """The hostile hand-ins, each a learner of the roster."""
    right = {learner: right_answers(manifest, learner) for learner in ATTACKERS}
    log_line = "lambda entry: os.write(int(os.environ['HELPERS_CHECK_FD']), (json.dumps(entry) + '\\n').encode())"
    others = other_lessons_answers()
    outputs = [{"kind": "value", "value": case.expected, "error_types": [], "mutated": False, "error": ""}
               for case in REGISTRY["mrr-function"].cases()]
    return {
        # check-log lines (and check calls) for exercises of other lessons, right ones
        "eve": small(f"send = {log_line}\nfor i, t in {others!r}.items():\n    send({{'event': 'check', "
                     "'exercise': i, 'given': {'type': 'str', 'text': t}})\n    check(i, t)"),
        # the kernel's old stderr file and check log replaced by links to the secret, then the kernel dies
        "gus": small(ROOT_OF_KERNEL, f"for name in ('kernel-stderr.txt', 'checks.jsonl', 'kernel.json'):\n"
                     f"    path = os.path.join(root, name)\n    if os.path.lexists(path):\n        os.remove(path)\n"
                     f"    os.symlink({str(secret)!r}, path)",
                     f"check('new-hit-rate-at-2', {right['gus']['new-hit-rate-at-2']!r})",
                     "print(open('/proc/self/cmdline').read(), file=sys.stderr)\nos.kill(os.getpid(), signal.SIGKILL)"),
        "gil": small(ROOT_OF_KERNEL, "for name in ('kernel-stderr.txt', 'checks.jsonl'):\n"
                     "    path = os.path.join(root, name)\n    if os.path.lexists(path):\n        os.remove(path)\n"
                     "    os.symlink('/proc/self/cmdline', path)",
                     "os.kill(os.getpid(), signal.SIGKILL)"),
        # links to every neighbour's check log, made while they run beside it
        "hal": small(ROOT_OF_KERNEL, "time.sleep(3)\nhere = int(os.path.basename(root)[1:])\n"
                     "for n in range(max(1, here - 3), here + 4):\n"
                     "    for name in ('checks.jsonl', 'kernel-stderr.txt'):\n"
                     "        path = os.path.join(root, name)\n        if os.path.lexists(path):\n"
                     "            os.remove(path)\n        os.symlink(f'../n{n}/{name}', path)\n    time.sleep(0.5)"),
        # FIFOs, hard links, renames and a folder where the grader's files were
        "mo": small(ROOT_OF_KERNEL, "os.mkfifo(os.path.join(root, 'checks.jsonl'))\n"
                    "os.mkfifo(os.path.join(root, 'kernel-stderr.txt'))\n"
                    "os.link(os.path.join(os.getcwd(), os.listdir(os.getcwd())[0]), os.path.join(root, 'hard'))\n"
                    "os.rename(os.path.join(root, 'kernel.json'), os.path.join(root, 'moved.json'))\n"
                    "os.mkdir(os.path.join(root, 'results'))\nos.mkdir(os.path.join(root, 'kernel.json'))",
                    f"check('new-hit-rate-at-2', {right['mo']['new-hit-rate-at-2']!r})"),
        # children and /tmp together past --memory
        "ida": small(f"check('new-hit-rate-at-2', {right['ida']['new-hit-rate-at-2']!r})",
                     "import subprocess\nchildren = [subprocess.Popen([sys.executable, '-c', 'b = bytearray(400 * "
                     "1024**2); import time; time.sleep(60)']) for _ in range(3)]\ntime.sleep(2)",
                     "for n in range(6):  # each file under the size a file may have\n"
                     "    with open(f'/tmp/big{n}', 'wb') as f:\n        for _ in range(100):\n"
                     "            f.write(b'x' * 1024**2)"),
        # a print loop, and one print bigger than a message may be
        "jon": small(f"check('new-hit-rate-at-2', {right['jon']['new-hit-rate-at-2']!r})",
                     "while True:\n    print('x' * 10000)",
                     f"check('explain-rr-mean', {right['jon']['explain-rr-mean']!r})"),
        "joy": small(f"check('new-hit-rate-at-2', {right['joy']['new-hit-rate-at-2']!r})",
                     "print('y' * 40_000_000)", f"check('explain-rr-mean', {right['joy']['explain-rr-mean']!r})"),
        # numbers no metric needs: a huge exponent, a million digits, an integer past Python's digit limit
        "kim": small("check('new-hit-rate-at-2', '1e12000000/3')", "check('explain-rr-mean', '9' * 1_000_000)",
                     f"send = {log_line}\nsend({{'event': 'check', 'exercise': 'new-mrr-d8-first', "
                     "'given': {'type': 'str', 'text': '1e16000000/3'}})",
                     "os.write(int(os.environ['HELPERS_CHECK_FD']), b'{\"event\": \"check\", \"exercise\": "
                     "\"new-mrr-d8-first\", \"given\": ' + b'7' * 100_000 + b'}\\n')"),
        # a thread that gives the right answers once the grader's last cell has begun
        "lea": small("def mrr(first_ranks):\n    return 0.0\n\n\ncheck_function('mrr-function', mrr)",
                     "check('explain-rr-mean', '0.1')",
                     f"import threading\nfrom helpers.exercises import assignment\nsend = {log_line}\n"
                     "real = assignment.run_hidden_cases\nbegun = threading.Event()\n"
                     "def later():\n    begun.wait()\n    for _ in range(100):\n"
                     f"        send({{'event': 'check', 'exercise': 'explain-rr-mean', 'given': {{'type': 'str', "
                     f"'text': {right['lea']['explain-rr-mean']!r}}}}})\n"
                     f"        send({{'event': 'outputs', 'exercise': 'mrr-function', 'outputs': {outputs!r}}})\n"
                     "        time.sleep(0.01)\n"
                     "def patched(inputs):\n    begun.set()\n    time.sleep(1.5)\n    return real(inputs)\n"
                     "assignment.run_hidden_cases = patched\nthreading.Thread(target=later, daemon=True).start()"),
        # a function that never returns on the hidden cases: the deadline covers the last cell too
        "pam": small(f"check('new-hit-rate-at-2', {right['pam']['new-hit-rate-at-2']!r})",
                     "def mrr(first_ranks):\n    while True:\n        pass\n\n\n"
                     "check_function('mrr-function', mrr, timeout=10_000)"),
    }


def stripped_copy(path: Path, answers: dict[str, str]) -> nbformat.NotebookNode:
    """fay: her own copy without its lesson mark and with every exercise cell but one removed."""
    notebook = fill(path, {"new-hit-rate-at-2": answers["new-hit-rate-at-2"]}, function=False)
    notebook.metadata.pop("helpers", None)
    notebook.cells = [cell for cell in notebook.cells
                      if "exercise" not in cell.metadata.get("tags", []) or "new-hit-rate-at-2" in cell.source]
    return notebook


def read_csv(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def run_watched(command: list[str], env: dict, timeout: float) -> tuple[subprocess.CompletedProcess, float]:
    """Run the grader; what it printed, and its own largest resident memory in MB (its kernels not counted)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    watched = psutil.Process(process.pid)
    peak = 0.0
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        try:
            peak = max(peak, watched.memory_info().rss / 2**20)
        except psutil.NoSuchProcess:
            break
        time.sleep(0.1)
    out, err = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
    return subprocess.CompletedProcess(command, process.returncode, out, err), peak


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    if sandbox.find_sandbox("auto").bwrap is None:
        pytest.skip(f"bubblewrap does not work here: {sandbox.find_sandbox('auto').reason}")
    base = tmp_path_factory.mktemp("graded-class")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    (base / "roster.txt").write_text("\n".join(ROSTER) + "\n", encoding="utf-8")
    secret, manifest_path = base / "teacher" / "course.secret", base / "teacher" / "week1.json"
    secret.parent.mkdir()
    done = subprocess.run([sys.executable, "-m", "helpers.release", str(base / "class"), "--lessons", LESSON,
                           "--roster", str(base / "roster.txt"), "--secret", str(secret), "--manifest",
                           str(manifest_path)], capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr
    manifest = Manifest.read(manifest_path)
    notebooks, submissions = base / "class" / "notebooks", base / "submissions"

    def hand_in(learner: str, notebook: nbformat.NotebookNode, folder: str | None = None) -> None:
        (submissions / (folder or learner)).mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, submissions / (folder or learner) / NAME)

    hand_in("ann", fill(notebooks / "ann" / NAME, right_answers(manifest, "ann")))
    nfd = unicodedata.normalize("NFD", "José")
    hand_in("José", fill(notebooks / "José" / NAME, right_answers(manifest, "José")), folder=nfd)
    hand_in("bob", nbformat.read(notebooks / NAME, as_version=4))  # the base copy, as released
    hand_in("carl", nbformat.read(notebooks / "carl" / NAME, as_version=4))  # his own copy, untouched
    hand_in("dora", fill(notebooks / "ann" / NAME, right_answers(manifest, "ann")))  # ann's copy and answers
    hand_in("fay", stripped_copy(notebooks / "fay" / NAME, right_answers(manifest, "fay")))
    for learner, notebook in attacks(manifest, secret).items():
        hand_in(learner, notebook)
    for stranger in STRANGERS:
        shutil.copy(notebooks / NAME, submissions / f"{stranger}.ipynb")
    out = base / "out"
    command = [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(out), "--assignment",
               str(manifest_path), "--secret", str(secret), "--jobs", "2", "--timeout", str(TIMEOUT),
               "--memory", str(MEMORY_MB), "--sandbox", "bwrap"]
    run, peak = run_watched(command, env, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    results = {}
    for path in (out / "results").glob("*.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        results[record["learner"]] = record
    seconds = ", ".join(f"{learner} {record['seconds']:.0f}" for learner, record in sorted(results.items()))
    print(f"graded the class; the grader's own memory peaked at {peak:.0f} MB; seconds per notebook: {seconds}")
    return {
        "run": run, "peak_mb": peak, "out": out, "manifest": manifest, "secret": secret.read_text().strip(),
        "secret_path": secret, "manifest_path": manifest_path, "submissions": submissions,
        "gradebook": {row["learner"]: row for row in read_csv(out / "gradebook.csv")},
        "answers": {(row["learner"], row["exercise"]): row for row in read_csv(out / "answers.csv")},
        "results": results, "limits": find_limits("auto"),
    }


def problems(graded: dict, learner: str) -> dict[str, str]:
    return {problem["code"]: problem["message"] for problem in graded["results"][learner]["problems"]}


def page(graded: dict, learner: str) -> str:
    from helpers.teacher.reports import feedback_name

    return (graded["out"] / "feedback" / feedback_name(learner)).read_text(encoding="utf-8")


# --- the roster decides who, the manifest what ----------------------------------------------------------


def test_one_row_per_roster_id_each_out_of_the_manifests_points(graded):
    assert sorted(graded["gradebook"]) == sorted(ROSTER), "no row for a name that is not on the roster"
    points = {learner: sum(graded["manifest"].learner(learner).points.values()) for learner in ROSTER}
    for learner, row in graded["gradebook"].items():
        assert float(row["out_of"]) == points[learner] == len(LESSON_IDS), (learner, row)
        assert [column for column in row if column in REGISTRY] == LESSON_IDS, "no other exercise is a column"
    nob = graded["gradebook"]["nob"]
    assert nob["problems"] == "no-hand-in" and nob["total"] == "0"
    assert "No notebook of yours was handed in" in page(graded, "nob")


def test_feedback_pages_and_the_class_report_agree_with_the_gradebook(graded):
    for learner, row in graded["gradebook"].items():
        said = re.search(r"<b>(\S+) of (\S+) points</b>", page(graded, learner)).groups()
        assert said == (row["total"], row["out_of"]), learner
    report = (graded["out"] / "class-report.html").read_text(encoding="utf-8")
    assert f"{len(ROSTER)} learners" in report
    for exercise_id in LESSON_IDS:
        share = sum(float(row[exercise_id]) > 0 for row in graded["gradebook"].values()) / len(ROSTER)
        assert re.search(rf"<b>{exercise_id}</b></td><td>{LESSON}</td><td class=\"num\">{len(ROSTER)}</td>\s*"
                         rf"<td class=\"num\">{100 * share:.0f} %</td>", report), exercise_id


def test_honest_learners_score_full_marks_on_their_own_numbers_nfd_names_included(graded):
    for learner in HONEST:
        row = graded["gradebook"][learner]
        assert row["total"] == row["out_of"] == str(len(LESSON_IDS)) and row["problems"] == "", (learner, row)
    assert "José" in graded["gradebook"] and unicodedata.normalize("NFD", "José") not in graded["gradebook"]


def test_names_on_no_roster_are_listed_and_not_graded(graded):
    for stranger in STRANGERS:
        assert f"not graded: {stranger}.ipynb" in graded["run"].stdout
        assert stranger not in graded["gradebook"] and stranger not in graded["results"]
    assert "a b.ipynb" in (graded["out"] / "class-report.html").read_text(encoding="utf-8")


def test_the_released_copy_and_another_learners_copy_are_flagged(graded):
    assert "released-copy" in problems(graded, "bob") and graded["gradebook"]["bob"]["total"] == "0"
    assert graded["gradebook"]["carl"]["problems"] == "released-copy", "his own copy, untouched: 0, flagged"
    assert graded["gradebook"]["carl"]["total"] == "0"
    dora = problems(graded, "dora")
    assert "other-learners-copy" in dora and "ann" in dora["other-learners-copy"]
    theirs, own = right_answers(graded["manifest"], "ann"), right_answers(graded["manifest"], "dora")
    for exercise_id in ("new-mrr-d8-first", "explain-rr-mean"):  # ann's numbers fit dora's only by chance
        expected = "1" if theirs[exercise_id] == own[exercise_id] else "0"
        assert graded["gradebook"]["dora"][exercise_id] == expected, exercise_id


def test_answers_for_other_lessons_are_ignored_and_named(graded):
    row = graded["gradebook"]["eve"]
    assert row["total"] == "0" and row["out_of"] == str(len(LESSON_IDS))
    said = problems(graded, "eve")["not-in-assignment"]
    assert all(exercise_id in said or "more" in said for exercise_id in other_lessons_answers())
    assert not any(learner == "eve" and exercise not in LESSON_IDS for learner, exercise in graded["answers"])


def test_a_hand_in_stripped_of_its_lesson_is_still_out_of_the_manifests_points(graded):
    row = graded["gradebook"]["fay"]
    assert (row["total"], row["out_of"]) == ("1", str(len(LESSON_IDS))) and row["new-hit-rate-at-2"] == "1"
    assert "<b>1 of 4 points</b>" in page(graded, "fay")


def test_the_feedback_asks_each_learners_own_question(graded):
    ann = page(graded, "ann")
    own = draw("new-mrr-d8-first", graded["manifest"].learner("ann").seeds["new-mrr-d8-first"])
    assert own.question.split("?")[0].replace("'", "&#39;") in ann
    assert REGISTRY["new-mrr-d8-first"].question[:40].replace("'", "&#39;") not in ann, "not the lesson's example"
    assert "on the lesson&#39;s own numbers" in ann, "the exercise after a personal one says which numbers"


# --- notebooks that talk back ------------------------------------------------------------------------------


def test_nothing_of_the_secret_or_the_graders_command_line_reaches_the_output(graded):
    secrets = [graded["secret"], str(graded["secret_path"]), str(graded["manifest_path"]), "--assignment",
               "helpers.grade"]
    for path in graded["out"].rglob("*"):
        if path.is_file() and path.suffix != ".xlsx":
            text = path.read_text(encoding="utf-8", errors="replace")
            for secret in secrets:
                assert secret not in text, (path, secret)
    assert "kernel-died" in problems(graded, "gus") and "kernel-died" in problems(graded, "gil")
    assert graded["gradebook"]["gus"]["new-hit-rate-at-2"] == "1", "what it answered before it died counts"


def test_links_fifos_and_renames_in_the_notebooks_folder_change_nothing_the_grader_reads(graded):
    for learner in ("hal", "mo"):
        said = problems(graded, learner)
        assert not {"grader-error", "log-too-long"} & set(said), (learner, said)
    assert graded["gradebook"]["hal"]["total"] == "0", "no neighbour's answers"
    assert graded["gradebook"]["mo"]["total"] == "1" and graded["gradebook"]["mo"]["new-hit-rate-at-2"] == "1"


def test_memory_past_the_limit_is_stopped(graded):
    said = problems(graded, "ida")
    if graded["limits"].cgroups:
        assert "memory-limit" in said and f"{MEMORY_MB} MB" in said["memory-limit"]
    else:  # per process: the capped /tmp (a quarter of --memory) is full before 600 MB
        assert "raised" in said and "No space left" in said["raised"], said
    assert graded["gradebook"]["ida"]["new-hit-rate-at-2"] == "1"


def test_output_floods_stop_the_notebook_and_the_grader_stays_small(graded):
    said = problems(graded, "joy")  # one print of 40 MB: over what one message may be
    assert "too-much-output" in said and graded["gradebook"]["joy"]["explain-rr-mean"] == "0", said
    said = problems(graded, "jon")  # a print loop: stopped by the cap, or its kernel's buffer runs out of memory first
    if "too-much-output" in said:
        assert graded["gradebook"]["jon"]["explain-rr-mean"] == "0", "nothing after the flood ran"
    else:
        assert "memory-limit" in said and "cell 3" in said["memory-limit"], said
    for learner in ("jon", "joy"):
        assert graded["gradebook"][learner]["new-hit-rate-at-2"] == "1"
    assert graded["peak_mb"] < 600, f"the grader itself grew to {graded['peak_mb']:.0f} MB"


def test_numbers_no_metric_needs_are_not_read(graded):
    for exercise_id in ("new-hit-rate-at-2", "explain-rr-mean"):
        answer = graded["answers"][("kim", exercise_id)]
        assert answer["verdict"] == "could not be read" and "answer here needs" in answer["message"], answer
    assert graded["answers"][("kim", "new-mrr-d8-first")]["verdict"] == "could not be read"
    assert graded["gradebook"]["kim"]["total"] == "0" and "grader-error" not in problems(graded, "kim")


def test_nothing_written_after_the_last_cell_began_counts(graded):
    row = graded["gradebook"]["lea"]
    assert row["explain-rr-mean"] == "0" and row["mrr-function"] == "0" and row["total"] == "0"
    assert graded["answers"][("lea", "explain-rr-mean")]["answer"] == "0.1"


def test_the_deadline_covers_the_run_on_the_hidden_cases(graded):
    said = problems(graded, "pam")
    assert "cpu-time" in said and graded["gradebook"]["pam"]["mrr-function"] == "0"
    assert graded["gradebook"]["pam"]["new-hit-rate-at-2"] == "1"


def test_the_teachers_terminal_shows_no_traceback(graded):
    printed = graded["run"].stdout + graded["run"].stderr
    assert "Traceback" not in printed and "Exception" not in printed, printed[-2000:]
    assert "limits: " in graded["run"].stdout.splitlines()[1]
