"""The grader on real notebooks: the lessons as released, right and wrong; and notebooks that cheat or break.

Two folders, each graded once by ``python -m helpers.grade`` in a module fixture:

- *lessons* (sandbox auto, --jobs 2): the untouched release copy of every
  lesson, a learner with every answer right, one with typical wrong answers;
  a teacher's exercise file and points file are used by the release and the
  grader alike;
- *attacks*, once with bubblewrap (skipped where it does not work) and once
  without: the answer key sought through every public name, a silenced
  reveal, a replaced check, forged log lines and forged function outputs,
  secrets read and raised (files outside the project, in $HOME beside Python,
  /etc/shadow) and linked into the submissions, a neighbour's files
  overwritten, files written to $HOME and /tmp, background processes, too much
  memory, broken JSON, a raising cell, an endless loop, solution() used, two
  hand-ins of one learner, a learner id that looks like a formula.
"""

from __future__ import annotations

import csv
import hashlib
import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import psutil
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from helpers.exercises import REGISTRY, check, exercises_of, load_extra_exercises, registry
from helpers.exercises.calls import check_calls
from helpers.teacher import sandbox
from helpers.teacher.judging import mistake_title
from tests.conftest import registrations_forgotten
from tests.processes import alive, descendants
from tests.waiting import wait_until

pytestmark = pytest.mark.notebook

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "test-output" / "grade"
LESSONS = [f"0{number}" for number in range(10)]
TEACHER_FILE = '''
from helpers import metrics
from helpers.exercises import Exercise, FunctionExercise, register
from helpers.exercises.runner import Case

register(Exercise(
    id="teacher-mrr", lesson="01", question="MRR of first ranks 2, 0 and 1? Give 3 decimals.",
    answer=lambda: metrics.mean_reciprocal_rank([2, 0, 1]),
    hints=("A miss scores 0 and stays in the mean.", "1/2, 0 and 1/1, then the mean of the three."),
    code="metrics.mean_reciprocal_rank([2, 0, 1])", points=2, slips=lambda: [(("dropped-misses",), 0.75)],
))


def precision_cases():
    return [Case((["a", "b", "c"], {"a", "c"}, 2), 0.5, "half of the top 2"),
            Case((["a"], {"a"}, 1), 1.0, "one of one"), Case((["x", "y"], {"a"}, 2), 0.0, "no hit")]


register(FunctionExercise(
    id="teacher-precision", lesson="10",
    question="Write precision_at(ranked, relevant, k): the share of the top k results that are relevant.",
    name="precision_at", cases=precision_cases,
    hints=("Count the relevant ids among ranked[:k].", "Divide that count by k."),
    code="def precision_at(ranked, relevant, k):\\n    return sum(doc in relevant for doc in ranked[:k]) / k",
))
'''
POINTS_FILE = "exercise,points\nexplain-rr-mean,3\n"
ANSWER_LINE = re.compile(r"^answer = None.*$", flags=re.M)
WRONG_FUNCTIONS = {
    "dcg-function": ("def dcg(gains):\n    return float(sum(gains))", "no-discount"),
    "ndcg-function": (
        "import math\n\ndef ndcg(gains, k):\n"
        "    best = sum(g / math.log2(r + 1) for r, g in enumerate(gains[:k], start=1))\n"
        "    return sum(g / math.log2(r + 1) for r, g in enumerate(gains[:k], start=1)) / best if best else 0.0",
        "unsorted-ideal",
    ),
}


def text_of(exercise_id: str) -> str:
    """The right answer as a learner would type it."""
    found = REGISTRY[exercise_id]
    value = found.worked().value
    return "undefined" if value != value else f"{value:.{found.decimals}f}"


def slip_of(exercise_id: str) -> tuple[str, str]:
    """A typical wrong answer (the first slip that changes the number) and the mistake check names for it."""
    found = REGISTRY[exercise_id]
    for codes, value in found.worked().slips:
        if len(codes) == 1 and value == value and abs(value) != float("inf"):
            text = f"{value:.{found.decimals}f}"
            result = check(exercise_id, text)
            if not result.correct and result.mistake:
                return text, result.mistake
    raise AssertionError(f"no slip for {exercise_id}")


def fill(notebook, answer_for, function_for):
    """A learner's work: each exercise cell's None replaced, each template function written."""
    for cell in notebook.cells:
        if cell.cell_type != "code" or "exercise" not in cell.metadata.get("tags", []):
            continue
        calls = check_calls(cell.source)
        answered = next((call for call in calls if call.passes_answer), None)
        if answered:
            cell.source = ANSWER_LINE.sub(f"answer = {answer_for(answered.exercise_id)!r}", cell.source)
        written = next((call for call in calls if call.function == "check_function"), None)
        if written:
            exercise_id, name = written.exercise_id, written.argument
            cell.source = f"{function_for(exercise_id)}\n\n\ncheck_function({exercise_id!r}, {name})"
    return notebook


def tree_hash(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def read_csv(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def run_grader(submissions: Path, out: Path, *options: str, env: dict | None = None, timeout: int = 900):
    command = [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(out), *options]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=out.parent,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def graded_output(run, out: Path) -> dict:
    """What a run wrote, read back: the gradebook by learner, the answers by (learner, exercise), ..."""
    assert run.returncode == 0, run.stderr[-3000:]
    gradebook = {row["learner"]: row for row in read_csv(out / "gradebook.csv")}
    answers = {(row["learner"], row["exercise"]): row for row in read_csv(out / "answers.csv")}
    return {"run": run, "out": out, "gradebook": gradebook, "answers": answers}


def codes(graded: dict, learner: str) -> str:
    """The learner's problem codes, "; "-joined; without a sandbox, less 'wrote-tmp': /tmp is then the
    machine's, so another program's file there is flagged on whichever notebook was running (it costs nothing)."""
    found = graded["gradebook"][learner]["problems"].split("; ")
    if graded.get("mode") == "none":
        found = [code for code in found if code != "wrote-tmp"]
    return "; ".join(found)


# --- the lessons: released, right, wrong -------------------------------------------------------------


@pytest.fixture(scope="module")
def teacher_files(tmp_path_factory):
    """The teacher's exercise file and points file, registered in this process too (removed afterwards)."""
    folder = tmp_path_factory.mktemp("teacher")
    (folder / "my_exercises.py").write_text(TEACHER_FILE)
    (folder / "points.csv").write_text(POINTS_FILE)
    with registrations_forgotten():
        load_extra_exercises(str(folder / "my_exercises.py"))
        yield folder


@pytest.fixture(scope="module")
def released(tmp_path_factory, teacher_files):
    target = tmp_path_factory.mktemp("release") / "class"
    done = subprocess.run(
        [sys.executable, "-m", "helpers.release", str(target), "--exercises", str(teacher_files / "my_exercises.py"),
         "--assignment"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert "2 from your files" in done.stdout
    return target


def points_of(exercise_id: str) -> float:
    return 3.0 if exercise_id == "explain-rr-mean" else REGISTRY[exercise_id].points


@pytest.fixture(scope="module")
def lessons(tmp_path_factory, released, teacher_files):
    """Grade untouched copies of every lesson, a learner with every answer right, one with slips."""
    base = tmp_path_factory.mktemp("lessons")
    submissions = base / "submissions"
    notebooks = sorted((released / "notebooks").glob("*.ipynb"))
    for path in notebooks:
        (submissions / "untouched").mkdir(parents=True, exist_ok=True)
        shutil.copy(path, submissions / "untouched" / path.name)
        if path.name.startswith("00"):
            continue
        right = fill(nbformat.read(path, as_version=4), text_of, lambda i: REGISTRY[i].code)
        (submissions / "right").mkdir(exist_ok=True)
        nbformat.write(right, submissions / "right" / path.name)
    lesson02 = next(path for path in notebooks if path.name.startswith("02"))
    wrong = fill(nbformat.read(lesson02, as_version=4), lambda i: slip_of(i)[0], lambda i: WRONG_FUNCTIONS[i][0])
    (submissions / "wrong").mkdir()
    nbformat.write(wrong, submissions / "wrong" / lesson02.name)
    before = tree_hash(submissions)
    out = base / "out"
    started = time.monotonic()
    teacher = ["--exercises", str(teacher_files / "my_exercises.py"), "--points", str(teacher_files / "points.csv")]
    run = run_grader(submissions, out, "--timeout", "180", "--jobs", "2", *teacher)
    print(f"graded {len(list(submissions.rglob('*.ipynb')))} lesson notebooks in {time.monotonic() - started:.0f} s")
    graded = graded_output(run, out)
    graded.update(submissions=submissions, before=before, notebooks=notebooks)
    return graded


def all_exercises() -> list[str]:
    return [exercise.id for lesson in [*LESSONS, "10"] for exercise in exercises_of(lesson)]


def test_the_release_holds_every_lesson_clean_with_the_teachers_exercises(released):
    names = sorted(path.name for path in (released / "notebooks").glob("*.ipynb"))
    assert len(names) == 11 and names[-1] == "10_exercises.ipynb"
    assert not (released / "exercises").exists(), "an assignment holds no teacher's key"
    assert not (released / "helpers" / "exercises" / "lessons").exists() and (released / "data" / "example_a").is_dir()
    assert (released / "helpers" / "metrics.py").is_file() and "pip install" in (released / "README.md").read_text()
    assert '"teacher-mrr"' in (released / "helpers" / "exercises" / "questions.json").read_text()
    lesson01 = nbformat.read(released / "notebooks" / names[1], as_version=4)
    assert lesson01.metadata["helpers"] == {"lesson": "01"}
    sources = [cell.source for cell in lesson01.cells]
    assert any("check('teacher-mrr', answer)" in source for source in sources)
    extra = nbformat.read(released / "notebooks" / "10_exercises.ipynb", as_version=4)
    assert any("def precision_at(ranked, relevant, k):" in cell.source for cell in extra.cells)
    for name in names:
        notebook = nbformat.read(released / "notebooks" / name, as_version=4)
        for cell in notebook.cells:
            tags = cell.metadata.get("tags", [])
            assert len(tags) == 1 and tags[0] != "solution", (name, tags)
            assert "solution(" not in cell.source or cell.cell_type == "markdown" or "import" in cell.source
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None
            if any(call.passes_answer or call.function == "check_function" for call in check_calls(cell.source)):
                assert tags == ["exercise"]


def test_every_learner_of_the_lessons_gets_a_row(lessons):
    assert sorted(lessons["gradebook"]) == ["right", "untouched", "wrong"]
    assert "sandbox" in lessons["run"].stdout
    assert len(list((lessons["out"] / "results").glob("*.json"))) == 2 * len(lessons["notebooks"]) - 1 + 1
    assert tree_hash(lessons["submissions"]) == lessons["before"], "submissions are never modified"


def test_untouched_release_copies_score_0_with_no_problem(lessons):
    row = lessons["gradebook"]["untouched"]
    expected = all_exercises()
    assert float(row["total"]) == 0 and float(row["out_of"]) == pytest.approx(sum(points_of(i) for i in expected))
    assert row["problems"] == "", "a lesson writing its own .xlsx is no problem"
    for exercise_id in expected:
        assert row[exercise_id] == "0"
        assert lessons["answers"][("untouched", exercise_id)]["verdict"] == "not answered yet"


def test_every_answer_right_scores_full_points(lessons):
    row = lessons["gradebook"]["right"]
    expected = [i for i in all_exercises() if REGISTRY[i].lesson != "00"]
    assert row["problems"] == ""
    for exercise_id in expected:
        assert float(row[exercise_id]) == points_of(exercise_id), lessons["answers"][("right", exercise_id)]
    assert row["explain-rr-mean"] == "3" and row["teacher-mrr"] == "2"  # the points file, the teacher's entry
    assert float(row["total"]) == float(row["out_of"]) == pytest.approx(sum(points_of(i) for i in expected))


def test_typical_wrong_answers_score_0_with_the_right_mistake_names(lessons):
    row = lessons["gradebook"]["wrong"]
    lesson02 = [exercise.id for exercise in exercises_of("02")]
    assert float(row["total"]) == 0 and float(row["out_of"]) == len(lesson02)
    for exercise_id in lesson02:
        answer = lessons["answers"][("wrong", exercise_id)]
        mistake = WRONG_FUNCTIONS[exercise_id][1] if exercise_id in WRONG_FUNCTIONS else slip_of(exercise_id)[1]
        assert (answer["correct"], answer["points"], answer["mistake"]) == ("0", "0", mistake), answer
        assert answer["mistake_title"] == mistake_title(mistake)


def test_feedback_names_the_mistake_and_a_hint_never_the_answer(lessons):
    page = (lessons["out"] / "feedback" / "wrong.html").read_text()
    for exercise_id in (exercise.id for exercise in exercises_of("02")):
        answer = lessons["answers"][("wrong", exercise_id)]
        assert REGISTRY[exercise_id].hints[0] in html.unescape(page)
        assert answer["mistake_title"] in html.unescape(page)
    own = page
    for (learner, _), answer in lessons["answers"].items():
        if learner == "wrong" and answer["answer"]:
            own = own.replace(answer["answer"], "")
    for exercise in exercises_of("02"):
        if exercise.kind == "answer":
            assert text_of(exercise.id) not in own, exercise.id
    assert {path.name for path in (lessons["out"] / "feedback").iterdir()} == {"right.html", "untouched.html",
                                                                              "wrong.html"}


def test_the_class_report_gives_the_share_right_and_the_common_mistakes(lessons):
    page = (lessons["out"] / "class-report.html").read_text()
    assert page.count("<svg") == 2 and "src=" not in page
    for exercise in exercises_of("02"):
        answer = lessons["answers"][("wrong", exercise.id)]
        # three learners were graded on lesson 02: one right, one with this mistake, one untouched
        assert f"<li>33 % {answer['mistake_title']}" in html.unescape(page), exercise.id
    assert "bubblewrap" in page or "NOT sandboxed" in page


@pytest.mark.browser
def test_the_class_report_opens_in_chromium(lessons, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    report = lessons["out"] / "class-report.html"
    fetched = []
    page = browser.new_page(viewport={"width": 1200, "height": 1600})
    page.on("request", lambda request: fetched.append(request.url))
    page.goto(report.as_uri())
    figures = page.locator("figure svg")
    assert figures.count() == 2
    boxes = [figures.nth(i).bounding_box() for i in range(2)]
    rows = page.locator("table tr").count()
    page.screenshot(path=str(SHOTS / "class-report.png"), full_page=True)
    page.close()
    print(f"class report screenshot: {SHOTS / 'class-report.png'}")
    assert fetched == [report.as_uri()], "the report is standalone"
    assert all(box and box["width"] > 300 and box["height"] > 100 for box in boxes)
    assert rows > len(all_exercises())


# --- notebooks that cheat or break, with and without bubblewrap ---------------------------------------

IMPORT = "from helpers.exercises import REGISTRY, check, check_function, hint, reveal, solution"
SECRET = "helpers-secret-{token}-do-not-leak"


def attack_notebooks(submissions: Path, fake_home: Path, token: str, secrets: list[Path]) -> dict[str, list[str]]:
    """The learners of the attacks folder and their cells."""
    right = text_of("explain-rr-mean")
    victim, victim2 = submissions / "victim" / "01_mine.ipynb", submissions / "victim2" / "01_mine.ipynb"
    forged = [{"event": "check", "exercise": i, "correct": True, "verdict": "right", "points": 9}
              for i in ("new-mrr-d8-first", "new-hit-rate-at-2")]
    forged += [{"event": "check", "exercise": "explain-rr-mean", "given": {"type": "str", "text": "0.9"}},
               {"event": "check", "exercise": "made-up-exercise", "given": {"type": "str", "text": "1"}},
               {"event": "check_function", "exercise": "mrr-function", "kept": True},
               {"event": "outputs", "exercise": "mrr-function",
                "outputs": [{"kind": "value", "value": 0.5, "correct": True}] * 7}]
    lines = "".join(json.dumps(line) + "\n" for line in forged)
    key_paths = [ROOT / "helpers" / "exercises" / "lessons" / "lesson01.py", ROOT / ".git" / "HEAD"]
    read_all = "\n".join(f"    found.append(open({str(path)!r}).read()[:80])"
                         for path in [*secrets, Path("/etc/shadow")])
    return {
        "a-vandal": [IMPORT, "import os", f"open({str(victim)!r}, 'w').write('{{}}')", f"os.remove({str(victim2)!r})",
                     f"check('explain-rr-mean', {right!r})"],
        "forger": [IMPORT, "import os", "check('explain-rr-mean', None)",
                   f"os.write(int(os.environ['HELPERS_CHECK_FD']), {lines!r}.encode())"],
        "key-seeker": [IMPORT, "check('new-mrr-d8-first', REGISTRY['new-mrr-d8-first'].worked().value)",
                       "from helpers.exercises.registry import answer_key_open",
                       "import helpers.exercises.lessons",
                       "from helpers.exercises import mistake_values\nmistake_values('explain-rr-mean')",
                       "check('explain-rr-mean', reveal('explain-rr-mean').value)",
                       "print(solution('explain-rr-mean'))\ncheck('new-hit-rate-at-2', '0.300')"],
        "path-reader": [IMPORT, "import runpy, sys",
                        f"sys.path.insert(0, {str(ROOT)!r})\nfor name in [m for m in sys.modules if m.startswith("
                        "'helpers')]:\n    del sys.modules[name]",
                        "import helpers.exercises as full\nanswer = full.REGISTRY['explain-rr-mean'].worked().value",
                        "full.check('explain-rr-mean', answer)",
                        *(f"print(open({str(p)!r}).read()[:40])" for p in key_paths)],
        "silencer": [IMPORT, "from helpers.exercises import checklog\nchecklog.record_event = lambda *a, **k: None",
                     "check('explain-rr-mean', reveal('explain-rr-mean').value)"],
        "patcher": [IMPORT, "import helpers.exercises as package\nimport helpers.exercises.assignment as assignment\n"
                    "from helpers.exercises import checklog\n"
                    "def check(exercise_id, answer):\n"
                    "    checklog.record({'event': 'check', 'exercise': exercise_id, 'correct': True})\n"
                    "    return 'Right!'\n"
                    "assignment.check = package.check = check",
                    "for i in ('new-mrr-d8-first', 'explain-rr-mean'):\n    print(check(i, None))",
                    "assignment.run_hidden_cases = lambda inputs: checklog.record({'event': 'outputs', "
                    "'exercise': 'mrr-function', 'outputs': [{'kind': 'value', 'value': 1.0}] * 7})"],
        "secret-reader": [IMPORT, f"found = []\ntry:\n{read_all}\nexcept OSError:\n    pass",
                          "raise RuntimeError(' | '.join(found) + open('/etc/passwd').read()[:60])",
                          "check('explain-rr-mean', ' '.join(found) or None)"],
        "home-writer": [IMPORT, "import os, pathlib", "(pathlib.Path.home() / 'note.txt').write_text('mine')",
                        f"open({str(fake_home / 'stolen.txt')!r}, 'w').write('x')",
                        f"open('/tmp/helpers-grade-{token}.txt', 'w').write('x')",
                        f"check('explain-rr-mean', {right!r})"],
        "background": [IMPORT, "import subprocess, sys",
                       f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', '{token}-detached'], "
                       "start_new_session=True)",
                       f"subprocess.Popen(['sh', '-c', sys.executable + ' -c \"import time; time.sleep(300)\" "
                       f"{token}-orphan &'])",
                       "import time; time.sleep(0.5)", f"check('explain-rr-mean', {right!r})"],
        "memory-hog": [IMPORT, "block = bytearray(8 * 1024**3)", f"check('explain-rr-mean', {right!r})"],
        "raising": [IMPORT, f"check('explain-rr-mean', {right!r})", "1 / 0",
                    f"check('new-hit-rate-at-2', {text_of('new-hit-rate-at-2')!r})"],
        "endless": [IMPORT, f"check('explain-rr-mean', {right!r})", "while True:\n    pass",
                    f"check('new-hit-rate-at-2', {text_of('new-hit-rate-at-2')!r})"],
        "last-counts": [IMPORT, f"check('explain-rr-mean', {right!r})", "check('explain-rr-mean', '0.1')",
                        "check('new-hit-rate-at-2', '0.1')",
                        f"check('new-hit-rate-at-2', {text_of('new-hit-rate-at-2')!r})"],
        "victim": [IMPORT, f"check('explain-rr-mean', {right!r})"],
        "victim2": [IMPORT, f"check('explain-rr-mean', {right!r})"],
        "dup": [IMPORT, f"check('explain-rr-mean', {right!r})"],
        "typo": [IMPORT, "check('explain-rr-mea', '0.5')",
                 f"check('new-hit-rate-at-2', {text_of('new-hit-rate-at-2')!r})"],
    }


def plant_secrets(base: Path, token: str) -> list[Path]:
    """Secret files a graded notebook must never show: outside the project, in your home, beside Python."""
    places = [base / "outside-the-project.txt", Path.home() / f".helpers-secret-{token}.txt"]
    beside_python = Path(sys.base_prefix).resolve().parent
    if os.access(beside_python, os.W_OK) and beside_python.is_relative_to(Path.home()):
        places.append(beside_python / f"helpers-secret-{token}.txt")  # Python installed under your home
    for path in places:
        path.write_text(SECRET.format(token=token))
    return places


def processes_with(token: str) -> list[str]:
    lines = (" ".join(process.info["cmdline"] or []) for process in psutil.process_iter(["cmdline"]))
    return [line for line in lines if token in line]


@pytest.fixture(scope="module", params=["bwrap", "none"])
def attacks(request, tmp_path_factory):
    mode = request.param
    if mode == "bwrap" and sandbox.find_sandbox("auto").bwrap is None:
        pytest.skip(f"bubblewrap does not work here: {sandbox.find_sandbox('auto').reason}")
    base = tmp_path_factory.mktemp(f"attacks-{mode}")
    submissions, fake_home, out = base / "submissions", base / "home", base / "out"
    fake_home.mkdir()
    (fake_home / ".profile").write_text("mine")
    temp = Path(tempfile.mkdtemp(prefix="hgt-", dir="/tmp"))  # the grader's TMPDIR, short for its sockets
    token = f"grade-test-{os.getpid()}-{mode}"
    secrets = plant_secrets(base, token)
    for learner, cells in attack_notebooks(submissions, fake_home, token, secrets).items():
        (submissions / learner).mkdir(parents=True)
        nbformat.write(new_notebook(cells=[new_code_cell(c) for c in cells]), submissions / learner / "01_mine.ipynb")
    (submissions / "broken.ipynb").write_text("{ this is not json", encoding="utf-8")
    (submissions / "empty.ipynb").write_bytes(b"")
    wrong = [IMPORT, "check('explain-rr-mean', '0.1')"]
    nbformat.write(new_notebook(cells=[new_code_cell(c) for c in wrong]), submissions / "dup.ipynb")
    nbformat.write(new_notebook(cells=[new_code_cell(c) for c in wrong]), submissions / "-leading-dash.ipynb")
    (submissions / "leak.ipynb").symlink_to(secrets[0])
    (submissions / "copycat.ipynb").symlink_to(submissions / "victim" / "01_mine.ipynb")
    (submissions / "linked").symlink_to(submissions / "victim", target_is_directory=True)
    os.mkfifo(submissions / "pipe.ipynb")
    before = {"submissions": tree_hash(submissions), "home": tree_hash(fake_home)}
    env = {"HOME": str(fake_home), "TMPDIR": str(temp), "MPLCONFIGDIR": str(base / "matplotlib")}
    started = time.monotonic()
    # without a sandbox one notebook at a time, so that what changed outside is pinned on the right one
    jobs = "2" if mode == "bwrap" else "1"
    # 4 s of CPU: the endless loop runs it out in full; the costliest other notebook, path-reader importing the
    # whole helpers again without a sandbox, used about 1 s (2026-12-06)
    try:
        run = run_grader(submissions, out, "--sandbox", mode, "--timeout", "4", "--memory", "3072", "--jobs", jobs,
                         "--allow-unknown", env=env)
    finally:
        for path in secrets[1:]:
            path.unlink(missing_ok=True)
    print(f"graded the attacks ({mode}) in {time.monotonic() - started:.0f} s")
    graded = graded_output(run, out)
    graded.update(mode=mode, submissions=submissions, home=fake_home, before=before, token=token,
                  survivors=processes_with(token), temp_left=list(temp.iterdir()),
                  tmp_file=Path(f"/tmp/helpers-grade-{token}.txt"), secret=SECRET.format(token=token))
    yield graded
    graded["tmp_file"].unlink(missing_ok=True)
    shutil.rmtree(temp, ignore_errors=True)


def test_every_learner_gets_a_row_exactly_as_named(attacks):
    learners = {"a-vandal", "forger", "key-seeker", "path-reader", "silencer", "patcher", "secret-reader",
                "home-writer", "background", "memory-hog", "raising", "endless", "last-counts", "victim", "victim2",
                "dup", "broken", "empty", "'-leading-dash", "leak", "copycat", "linked", "pipe", "typo"}
    assert set(attacks["gradebook"]) == learners
    said = "bubblewrap" if attacks["mode"] == "bwrap" else "NOT sandboxed"
    assert attacks["run"].stdout.splitlines()[0].startswith(("sandbox: " + said, said))
    assert "Traceback" not in attacks["run"].stdout + attacks["run"].stderr


LESSON_01 = [exercise.id for exercise in exercises_of("01")]


def test_no_public_door_gives_a_point(attacks):
    for learner in ("forger", "key-seeker", "silencer", "patcher"):
        row = attacks["gradebook"][learner]
        assert float(row["total"]) == 0, (learner, row)
        assert float(row["out_of"]) == len(LESSON_01), "out of the lesson's points"
    seeker = codes(attacks, "key-seeker")
    assert "raised" in seeker and attacks["answers"][("key-seeker", "explain-rr-mean")]["verdict"] == "not checked"
    assert attacks["answers"][("key-seeker", "new-hit-rate-at-2")]["help_used"] == ""
    assert "unknown-exercise" in codes(attacks, "forger")
    assert attacks["answers"][("forger", "mrr-function")]["correct"] == "0"
    assert attacks["answers"][("patcher", "mrr-function")]["verdict"] == "not checked"


def test_the_key_is_not_on_the_sandboxs_disk(attacks):
    row = attacks["gradebook"]["path-reader"]
    if attacks["mode"] == "bwrap":
        assert float(row["total"]) == 0 and "raised" in row["problems"]
    else:  # without a sandbox the notebook reads what you can read: the teacher's guide and the summary line say so
        assert "answer key's modules included" in attacks["run"].stdout.splitlines()[0]


def test_no_secret_reaches_the_output(attacks):
    if attacks["mode"] != "bwrap":
        pytest.skip("bubblewrap mode only: without it a notebook reads what you can read")
    shadow = Path("/etc/shadow").read_text()[:20] if os.access("/etc/shadow", os.R_OK) else None
    real_passwd = Path("/etc/passwd").read_text().splitlines()[0]
    for path in attacks["out"].rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert attacks["secret"] not in text, path
            assert real_passwd not in text, path
            assert shadow is None or shadow not in text, path
    assert "raised" in codes(attacks, "secret-reader")
    results = [json.loads(p.read_text()) for p in (attacks["out"] / "results").glob("*.json")]
    raised = next(p["message"] for r in results if r["learner"] == "secret-reader" for p in r["problems"]
                  if p["code"] == "raised")
    assert "learner:x:" in raised, "the kernel's /etc/passwd is a made-up one"


def test_links_devices_and_pipes_are_refused_unread(attacks):
    for learner in ("leak", "copycat", "linked", "pipe"):
        row = attacks["gradebook"][learner]
        assert codes(attacks, learner) == "not-a-file" and row["total"] == "0", (learner, row)
        assert float(row["out_of"]) == len(LESSON_01)
    assert "symbolic link" in (attacks["out"] / "class-report.html").read_text()


def test_two_hand_ins_of_one_learner_are_both_graded_never_merged(attacks):
    row = attacks["gradebook"]["dup"]
    assert "duplicate" in row["problems"] and row["explain-rr-mean"] == "" and float(row["total"]) == 0
    graded = [r for r in read_csv(attacks["out"] / "answers.csv") if r["learner"] == "dup"]
    assert sorted(r["notebook"] for r in graded if r["exercise"] == "explain-rr-mean") == ["dup.ipynb",
                                                                                          "dup/01_mine.ipynb"]
    assert attacks["gradebook"]["'-leading-dash"]["total"] == "0"  # defused: a spreadsheet would run it


def test_a_typo_in_an_exercise_id_is_an_unknown_exercise_with_the_nearest_id(attacks):
    row = attacks["gradebook"]["typo"]
    assert codes(attacks, "typo") == "unknown-exercise", "not raised: the cells go on"
    assert row["new-hit-rate-at-2"] == "1"
    results = [json.loads(p.read_text()) for p in (attacks["out"] / "results").glob("*.json")]
    said = next(p["message"] for r in results if r["learner"] == "typo" for p in r["problems"]
                if p["code"] == "unknown-exercise")
    assert "'explain-rr-mea' (did you mean 'explain-rr-mean'?)" in said


def test_the_last_answer_counts(attacks):
    row = attacks["gradebook"]["last-counts"]
    assert row["explain-rr-mean"] == "0" and row["new-hit-rate-at-2"] == "1"


def test_breaking_notebooks_keep_what_they_answered(attacks):
    rows = attacks["gradebook"]
    assert "memory-limit" in codes(attacks, "memory-hog") and rows["memory-hog"]["total"] == "1"
    for broken in ("broken", "empty"):
        assert codes(attacks, broken) == "invalid-notebook" and rows[broken]["total"] == "0"
        assert float(rows[broken]["out_of"]) == len(LESSON_01), "out of the lesson's points, never 0 of 0"
    assert "raised" in codes(attacks, "raising") and rows["raising"]["total"] == "2"
    assert "cpu-time" in codes(attacks, "endless") and rows["endless"]["total"] == "1"
    assert rows["endless"]["new-hit-rate-at-2"] == "0"


def test_no_process_survives_and_background_ones_are_named(attacks):
    assert attacks["survivors"] == []
    assert "background-process" in codes(attacks, "background")
    assert attacks["gradebook"]["background"]["total"] == "1"
    assert attacks["temp_left"] == [], "the grader's temporary folders are removed"


def test_with_bubblewrap_nothing_outside_the_sandbox_changes(attacks):
    if attacks["mode"] != "bwrap":
        pytest.skip("bubblewrap mode only")
    assert tree_hash(attacks["submissions"]) == attacks["before"]["submissions"]
    assert tree_hash(attacks["home"]) == attacks["before"]["home"]
    assert not attacks["tmp_file"].exists()
    assert "raised" in codes(attacks, "a-vandal"), "the submissions are not there: nothing to overwrite"
    assert "raised" in codes(attacks, "home-writer"), "the home folder of yours is not there either"
    assert attacks["gradebook"]["home-writer"]["total"] == "1"
    assert all("wrote-outside" not in row["problems"] for row in attacks["gradebook"].values())
    assert attacks["gradebook"]["victim"]["total"] == attacks["gradebook"]["victim2"]["total"] == "1"


def test_without_a_sandbox_what_a_notebook_did_outside_is_reported(attacks):
    if attacks["mode"] != "none":
        pytest.skip("no-sandbox mode only")
    results = {json.loads(p.read_text())["learner"]: json.loads(p.read_text())
               for p in (attacks["out"] / "results").glob("*.json")}

    def said(learner: str, code: str) -> str:
        return " ".join(p["message"] for p in results[learner]["problems"] if p["code"] == code)

    vandal = said("a-vandal", "wrote-outside")
    assert "changed " + str((attacks["submissions"] / "victim" / "01_mine.ipynb").resolve()) in vandal
    assert "deleted " + str((attacks["submissions"] / "victim2" / "01_mine.ipynb").resolve()) in vandal
    for victim in ("victim", "victim2"):  # graded as handed in, and told what happened
        assert attacks["gradebook"][victim]["total"] == "1"
        assert "submission-changed" in codes(attacks, victim)
    writer = said("home-writer", "wrote-outside")
    assert f"created {attacks['home'].resolve() / 'stolen.txt'}" in writer
    assert str(attacks["tmp_file"]) in said("home-writer", "wrote-tmp")
    assert "note.txt" not in writer + said("home-writer", "wrote-tmp"), "its own $HOME is in its own folder"


def test_ctrl_c_keeps_what_was_graded(tmp_path):
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    for learner, cells in {"a": [IMPORT, f"check('explain-rr-mean', {text_of('explain-rr-mean')!r})"],
                           "b": [IMPORT, "while True:\n    pass"]}.items():
        (submissions / learner).mkdir(parents=True)
        nbformat.write(new_notebook(cells=[new_code_cell(c) for c in cells]), submissions / learner / "01_x.ipynb")
    command = [sys.executable, "-m", "helpers.grade", str(submissions), "--out", str(out), "--timeout", "300"]
    grader = subprocess.Popen(command, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: list((out / "results").glob("*.json")), "a's record", 120, every=0.2)
    wait_until(lambda: kernel_looping(grader.pid), "b's kernel in its loop", 120, every=0.2)
    family = descendants(grader.pid)
    grader.send_signal(signal.SIGINT)
    _, err = grader.communicate(timeout=60)
    assert grader.returncode == 130, err
    assert "interrupted: 1 of 2 notebooks graded" in err
    rows = {row["learner"]: row for row in read_csv(out / "gradebook.csv")}
    assert list(rows) == ["a"] and rows["a"]["total"] == "1"
    assert not (out / "class-report.html").exists(), "written when a run completes; Ctrl-C stops at once"
    assert family
    wait_until(lambda: not [process for process in family if alive(process)], "the grader's processes end", 30)


def kernel_looping(grader: int) -> bool:
    """Whether a kernel of the grader has used over 2 s of CPU: b's, in its loop (a kernel's start and an
    import cell take well under 1 s of CPU), counted in CPU so that a busy machine does not cut it short."""
    for process in descendants(grader):
        try:
            if "ipykernel" in " ".join(process.cmdline()) and sum(process.cpu_times()[:2]) > 2.0:
                return True
        except psutil.Error:
            pass
    return False


def test_the_guides_teacher_exercise_goes_through_release_answer_grade_and_feedback(tmp_path):
    guide = (ROOT / "docs" / "teachers.md").read_text(encoding="utf-8")
    snippet = guide.split("## Adding an exercise", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    teacher = tmp_path / "teacher" / "my_exercises.py"
    teacher.parent.mkdir()
    teacher.write_text(snippet)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "helpers.release", str(tmp_path / "class"), "--exercises",
                           str(teacher)], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    lesson01 = next((tmp_path / "class" / "notebooks").glob("01_*.ipynb"))
    with registrations_forgotten():  # here, as the teacher's own session would, then forgotten (its slip too)
        load_extra_exercises(str(teacher))
        right = f"{REGISTRY['my-mrr'].worked().value:.3f}"
    notebook = fill(nbformat.read(lesson01, as_version=4), lambda i: right if i == "my-mrr" else None,
                    lambda i: "def mrr(first_ranks):\n    raise NotImplementedError")
    (tmp_path / "submissions").mkdir()
    nbformat.write(notebook, tmp_path / "submissions" / "zoe.ipynb")
    refused = run_grader(tmp_path / "submissions", tmp_path / "out")
    assert refused.returncode == 2 and "my-mrr" in refused.stderr, "without --exercises the grader stops at once"
    graded = graded_output(run_grader(tmp_path / "submissions", tmp_path / "out", "--exercises", str(teacher)),
                           tmp_path / "out")
    row = graded["gradebook"]["zoe"]
    from helpers.teacher.release import is_teachers

    lessons_own = sum(e.points for e in exercises_of("01") if not is_teachers(e))  # other tests' entries aside
    assert row["my-mrr"] == "2" and float(row["out_of"]) == lessons_own + 2
    assert "my-mrr" in (tmp_path / "out" / "feedback" / "zoe.html").read_text()
