"""A class on a real JupyterHub: ten learners, each with an own copy pulled by nbgitpuller, collected and graded.

The hub is JupyterHub 5 with configurable-http-proxy on 127.0.0.1, configured by
``deploy/jupyterhub/jupyterhub_config.py`` plus a test layer (Dummy
authenticator, SimpleLocalProcessSpawner with homes under the test's folder:
see :mod:`tests.hub.classhub`). Everything goes through the hub's REST API and
each learner's own server, with that learner's token. One hub serves the whole
module; the last test stops every server with the idle culler, and the fixture
stops the hub and anything it started.

``HUB_TEST_LEARNERS=3`` runs the same with fewer learners (while developing);
CI runs ten. Times and memory are printed (``-s``), never asserted: the
benchmark is ``benchmarks/bench_hub.py``.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import psutil
import pytest

from helpers import load_example, metrics
from helpers.exercises import REGISTRY, exercises_of
from helpers.exercises.calls import check_calls
from tests.hub.classhub import (
    LESSONS,
    PROJECT,
    TEACHER,
    Hub,
    Learner,
    install_build_backend,
    install_helpers,
    project_env,
    proxy_command,
    publish,
    release,
    tree_memory,
)
from tests.waiting import wait_until

pytest.importorskip("jupyterhub", reason="the hub tests need requirements-test.txt (jupyterhub)")
pytest.importorskip("nbgitpuller", reason="the hub tests need requirements-test.txt (nbgitpuller)")
pytestmark = [pytest.mark.hub, pytest.mark.timeout(1200)]

NAMES = [f"learner{number:02d}" for number in range(1, int(os.environ.get("HUB_TEST_LEARNERS", "10")) + 1)]
LESSON_05 = f"{LESSONS}/notebooks/05_metrics_lab.ipynb"
LESSON_03 = f"{LESSONS}/notebooks/03_the_ndcg_spreadsheet.ipynb"
LESSON_03_IDS = [exercise.id for exercise in exercises_of("03")]  # from the register, never a literal
# What a learner's kernel says about itself once lesson 05 has run
PROBE = (
    "import json as _json, os as _os, sys as _sys, helpers as _helpers\n"
    "print(_json.dumps({'helpers': _helpers.__file__, 'cwd': _os.getcwd(), 'lab': dict(lab.metric_values),\n"
    "                   'kernel': _sys.argv[0]}))"
)
WEEK_2 = '''\
from helpers import metrics
from helpers.exercises import Exercise, register

register(Exercise(
    id="week2-mrr", lesson="10",
    question="Three questions have their first relevant passage at ranks 2, none and 1. What is MRR? 3 decimals.",
    answer=lambda: metrics.mean_reciprocal_rank([2, 0, 1]),
    hints=("A miss scores 0 and stays in the mean.",),
))
'''


@dataclass
class Classroom:
    """The running class: the hub, its learners and teacher (each with a token), the course repository."""

    hub: Hub
    learners: list[Learner]
    teacher: Learner
    repo: str
    folder: Path
    site: Path
    figures: dict = field(default_factory=dict)


def needed_proxy() -> str:
    """The configurable-http-proxy program; without it the hub tests skip, saying how to get it."""
    proxy = proxy_command()
    if proxy is None:
        pytest.skip("configurable-http-proxy is not on PATH: npm install -g configurable-http-proxy@5.3.0 (.ci/run)")
    return proxy


@pytest.fixture(scope="module")
def build_backend(tmp_path_factory: pytest.TempPathFactory):
    """The build requirements both classes' pip installs build helpers with, installed once (in the background)."""
    needed_proxy()  # no install for hubs that cannot start
    with ThreadPoolExecutor(max_workers=1) as pool:
        yield pool.submit(install_build_backend, tmp_path_factory.mktemp("build-backend"))


@pytest.fixture(scope="module")
def classroom(tmp_path_factory: pytest.TempPathFactory, build_backend: Future):
    proxy = needed_proxy()
    folder = tmp_path_factory.mktemp("class")
    with ThreadPoolExecutor(max_workers=2) as pool:  # two independent pip and release runs
        installing = pool.submit(lambda: install_helpers(folder / "shared", backend=build_backend.result()))
        released = pool.submit(release, folder / "release", kind="practice")  # the hub's shared helpers judge
        site, repo = installing.result(), publish(released.result(), folder / "ranking-metrics.git", "lessons 00-09")
    hub = Hub(folder / "hub", site, proxy, exercises=folder / "shared" / "exercises")
    try:
        hub.add_learners(NAMES)
        seconds = hub.start_servers([TEACHER, *NAMES])
        print(f"\n{len(NAMES) + 1} servers (teacher and {len(NAMES)} learners) ready in {seconds:.1f} s")
        learners = [hub.learner(name) for name in NAMES]
        teacher = hub.learner(TEACHER)
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lambda person: person.pull(repo), [teacher, *learners]))
        yield Classroom(hub, learners, teacher, repo, folder, site, {"start_seconds": seconds})
    finally:
        hub.stop()


def expected_lab_opening() -> dict[str, float]:
    """The metrics lab's opening numbers (example E, K = 3), computed here from helpers."""
    example = load_example("E")
    query, system = example.query_ids[0], example.systems[0]
    judgments = example.judgments_for(query)
    ranked = example.ranking(system, query)
    relevant = example.relevant_for(query, 1)
    first = metrics.first_relevant_rank(ranked, relevant)
    grades = metrics.grades_in_rank_order(ranked, judgments)
    return {
        "recall": metrics.recall_at_k(ranked, relevant, 3),
        "mrr": metrics.mean_reciprocal_rank([first]),
        "mrr_at_k": metrics.mean_reciprocal_rank([first], 3),
        "ndcg": metrics.ndcg(grades, 3, ideal=list(judgments.values()), gain="exponential"),
    }


def test_every_learner_has_a_running_server_and_an_own_copy(classroom: Classroom):
    released = sorted(path.name for path in (classroom.folder / "release" / "notebooks").glob("*.ipynb"))
    copies = []
    for learner in classroom.learners:
        assert classroom.hub.api("GET", f"/users/{learner.name}").json()["servers"][""]["ready"]
        notebooks = learner.home / LESSONS / "notebooks"
        assert sorted(path.name for path in notebooks.glob("*.ipynb")) == released
        origin = subprocess.run(["git", "-C", str(learner.home / LESSONS), "remote", "get-url", "origin"],
                                capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
        assert origin == classroom.repo
        copies.append((notebooks / "05_metrics_lab.ipynb").stat().st_ino)
    assert len(set(copies)) == len(classroom.learners)  # one file each, none shared


def test_the_guides_link_opens_the_pull_page_of_the_learners_own_server(classroom: Classroom):
    guide = (PROJECT / "docs" / "teachers.md").read_text(encoding="utf-8")
    link = re.search(r"https://[^\s`]+/hub/user-redirect/git-pull\?[^\s`]+", guide).group(0)
    parts = urllib.parse.urlsplit(link)
    query = dict(urllib.parse.parse_qsl(parts.query))
    assert query["targetpath"] == LESSONS and query["branch"] == "main"
    query["repo"] = classroom.repo  # the test's repository in place of the guide's example
    learner = classroom.learners[0]
    page = learner.browser().get(f"{classroom.hub.url}{parts.path}?{urllib.parse.urlencode(query)}", timeout=120)
    assert page.status_code == 200
    assert urllib.parse.urlsplit(page.url).path == f"/user/{learner.name}/git-pull"  # their own server's puller
    assert "nbgitpuller" in page.text.lower()


def test_lesson_05_runs_in_every_learners_own_server(classroom: Classroom):
    expected = expected_lab_opening()

    def run_lesson(learner: Learner) -> dict:
        kernel, session = learner.open_kernel(LESSON_05)
        try:
            executions = learner.run_cells(kernel, learner.read_notebook(LESSON_05))
            probe = kernel.execute(PROBE)
            memory = tree_memory(classroom.hub.server_pid(learner.name))
        finally:
            kernel.close()
            learner.close_session(session)
        said = json.loads(probe.text.strip().splitlines()[-1]) if probe.status == "ok" else {}
        return {"executions": executions, "said": said, "memory": memory}

    code_cells = sum(cell.cell_type == "code" for cell in classroom.learners[0].read_notebook(LESSON_05).cells)
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(classroom.learners)) as pool:
        runs = dict(zip(NAMES, pool.map(run_lesson, classroom.learners), strict=True))
    seconds = time.perf_counter() - start
    for learner in classroom.learners:
        run = runs[learner.name]
        failed = [execution.error for execution in run["executions"] if execution.status != "ok"]
        assert not failed, f"{learner.name}: {failed}"
        assert len(run["executions"]) == code_cells
        assert run["said"]["cwd"] == str(learner.home / LESSONS / "notebooks")
        assert Path(run["said"]["helpers"]).is_relative_to(classroom.site)  # the shared install, not a copy
        assert run["said"]["kernel"] == str(classroom.site / "helpers/teacher/hub/kernels/python3/start_or_end.py")
        for name, value in expected.items():
            assert run["said"]["lab"][name] == pytest.approx(value, abs=1e-12), (learner.name, name)
    rss = sorted(run["memory"]["rss_mb"] for run in runs.values())
    pss = sorted(run["memory"]["pss_mb"] for run in runs.values())
    classroom.figures.update(lesson_05_seconds=seconds, rss_mb=rss, pss_mb=pss)
    print(f"\nlesson 05 in {len(NAMES)} servers at once: {seconds:.1f} s; per learner (server + kernel) "
          f"RSS {rss[len(rss) // 2]:.0f} MB median, {rss[-1]:.0f} max; PSS {pss[len(pss) // 2]:.0f} MB median")


def test_the_classroom_view_answers_through_the_hub(classroom: Classroom):
    projector = classroom.teacher.browser()
    render = f"voila/render/{LESSON_05}?template=classroom"  # Voilà 0.5 reads template= (voila-template= is ignored)
    page = projector.get(f"{classroom.hub.url}/hub/user-redirect/{render}", timeout=300)
    assert page.status_code == 200
    assert urllib.parse.urlsplit(page.url).path == f"/user/{TEACHER}/voila/render/{LESSON_05}"
    css = classroom.site / "helpers/teacher/voila/templates/classroom/static/classroom.css"
    text = page.content.decode("utf-8")  # the page says utf-8 in its meta tag, not in its HTTP header
    for line in filter(None, (line.strip() for line in css.read_text(encoding="utf-8").splitlines())):
        assert line in text  # the classroom template itself, not Voilà's default
    assert "opening numbers agree with Steps 2-4." in text  # the lesson ran in the teacher's server


def test_a_second_pull_keeps_the_learners_edit_and_brings_a_new_lesson(classroom: Classroom):
    learner, other = classroom.learners[-1], classroom.learners[0]
    notebook = learner.read_notebook(LESSON_03)
    notebook.cells.append(nbformat.v4.new_markdown_cell("My notes: DCG first, then divide by the ideal."))
    learner.write_notebook(LESSON_03, notebook)

    exercises = classroom.folder / "shared" / "exercises"
    exercises.mkdir(exist_ok=True)
    (exercises / "week2.py").write_text(WEEK_2, encoding="utf-8")  # the teacher's file, shared with every server
    release(classroom.folder / "release", exercises=[exercises / "week2.py"], kind="practice")
    publish(classroom.folder / "release", classroom.folder / "ranking-metrics.git", "week 2: lesson 10")
    learner.pull(classroom.repo)

    notebooks = learner.home / LESSONS / "notebooks"
    assert (notebooks / "10_exercises.ipynb").is_file()
    assert "My notes: DCG first" in learner.read_notebook(LESSON_03).cells[-1].source
    assert not (other.home / LESSONS / "notebooks" / "10_exercises.ipynb").exists()  # until they pull too
    shared = subprocess.run(["git", "--git-dir", str(classroom.folder / "ranking-metrics.git"), "log", "--format=%s"],
                            capture_output=True, text=True, check=True).stdout.split("\n")  # fmt: skip
    assert shared[:2] == ["week 2: lesson 10", "lessons 00-09"]  # the learner's edit stays in their home

    classroom.hub.stop_server(learner.name)  # a new server reads the teacher's new exercise file
    classroom.hub.start_servers([learner.name])
    kernel, session = learner.open_kernel(f"{LESSONS}/notebooks/10_exercises.ipynb")
    try:
        new_lesson = learner.read_notebook(f"{LESSONS}/notebooks/10_exercises.ipynb")
        setup = next(cell for cell in new_lesson.cells if "setup" in cell.metadata.get("tags", []))
        assert kernel.execute(setup.source).status == "ok"
        checked = kernel.execute('check("week2-mrr", "0.5")')
    finally:
        kernel.close()
        learner.close_session(session)
    assert checked.status == "ok" and "✓" in checked.text


def answered(notebook: nbformat.NotebookNode, answers: dict[str, str]) -> nbformat.NotebookNode:
    """The notebook with 'answer = None' replaced in the exercise cells of the given ids, as a learner types."""
    for cell in notebook.cells:
        for exercise_id, text in answers.items():
            if cell.cell_type == "code" and f'check("{exercise_id}", answer)' in cell.source:
                cell.source = cell.source.replace("answer = None", f"answer = {text}", 1)
    return notebook


def test_three_lesson_03_submissions_are_collected_from_the_homes_and_graded(classroom: Classroom):
    right = {exercise_id: f"{REGISTRY[exercise_id].worked().value:.3f}" for exercise_id in LESSON_03_IDS}
    slip_codes, slip_value = REGISTRY["kb04-graded-2"].worked().slips[0]
    handing_in = classroom.learners[:3]
    given = [right, {"sheet-ndcg3": right["sheet-ndcg3"], "kb04-graded-2": f"{slip_value:.3f}"}, {}]
    for learner, answers in zip(handing_in, given, strict=True):
        learner.write_notebook(LESSON_03, answered(learner.read_notebook(LESSON_03), answers))

    submissions, grades = classroom.folder / "submissions", classroom.folder / "grades"
    pattern = f"{classroom.hub.homes}/{{user}}/{LESSONS}/notebooks/03*.ipynb"
    names = ",".join(learner.name for learner in handing_in)
    teacher_command(["-m", "helpers.teacher.collect", pattern, "--out", submissions, "--users", names])
    assert sorted(path.name for path in submissions.glob("*.ipynb")) == [f"{name}.ipynb" for name in NAMES[:3]]
    everyone = classroom.folder / "everyone"
    token = {"JUPYTERHUB_API_TOKEN": classroom.hub.token}
    teacher_command(["-m", "helpers.teacher.collect", pattern, "--out", everyone, "--hub", classroom.hub.url], token)
    assert sorted(path.stem for path in everyone.glob("*.ipynb")) == NAMES  # the hub's users, the teacher left out

    start = time.perf_counter()
    teacher_command(["-m", "helpers.grade", submissions, "--out", grades, "--jobs", "3", "--timeout", "180"])
    classroom.figures["grade_seconds"] = time.perf_counter() - start
    print(f"\n3 lesson-03 notebooks graded in {classroom.figures['grade_seconds']:.1f} s (--jobs 3)")
    with open(grades / "gradebook.csv", encoding="utf-8-sig") as file:
        book = {row["learner"]: row for row in csv.DictReader(file)}
    assert sorted(book) == NAMES[:3]
    lesson_points = sum(REGISTRY[i].points for i in LESSON_03_IDS)
    first_two = REGISTRY["sheet-ndcg3"].points
    for name, points in zip(NAMES[:3], (lesson_points, first_two, 0), strict=True):
        assert float(book[name]["total"]) == pytest.approx(points)
        assert float(book[name]["out_of"]) == pytest.approx(lesson_points)
        assert book[name]["problems"] == ""
    with open(grades / "answers.csv", encoding="utf-8-sig") as file:
        answers = {(row["learner"], row["exercise"]): row for row in csv.DictReader(file)}
    assert answers[NAMES[1], "kb04-graded-2"]["mistake"] == "+".join(slip_codes)
    assert answers[NAMES[2], "sheet-ndcg3"]["verdict"] == "not answered yet"


def teacher_command(arguments: list, extra_env: dict | None = None) -> None:
    """Run one of the teacher's commands with the project's helpers; fail with what it printed."""
    done = subprocess.run([sys.executable, *map(str, arguments)], capture_output=True, text=True,
                          env={**project_env(), **(extra_env or {})}, timeout=900)  # fmt: skip
    assert done.returncode == 0, f"{arguments[1]} failed:\n{done.stdout}\n{done.stderr}"


def alive_of(pids: list[int]) -> list[int]:
    """The processes among ``pids`` still running (a zombie has exited)."""
    alive = []
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
    return alive


def test_the_idle_culler_stops_idle_servers_and_keeps_the_homes(classroom: Classroom):
    hub = classroom.hub
    services = {service["name"]: service for service in hub.api("GET", "/services").json().values()}
    shipped = services["idle-culler"]
    assert "jupyterhub_idle_culler" in shipped["command"] and "--timeout=3600" in shipped["command"]
    assert psutil.pid_exists(shipped["pid"])  # the hub runs it
    running = [hub.server_pid(name) for name in [TEACHER, *NAMES]]

    culler = subprocess.Popen(
        [sys.executable, "-m", "jupyterhub_idle_culler", "--timeout=1", "--cull-every=5", f"--url={hub.url}/hub/api"],
        env={**os.environ, "JUPYTERHUB_API_TOKEN": hub.cull_token}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:  # a wait that gives up, not a figure asserted
        wait_until(lambda: not any(user["servers"] for user in hub.api("GET", "/users").json()),
                   "the culler stopping every server", timeout=180, every=0.25)
    finally:
        culler.terminate()
        culler.wait(timeout=30)
    with contextlib.suppress(TimeoutError):  # the hub reports a server stopped once its process has exited
        wait_until(lambda: not alive_of(running), "the stopped servers' processes gone", timeout=5, every=0.1)
    assert not alive_of(running)
    for learner in classroom.learners:
        assert (learner.home / LESSON_03).is_file()  # stopping a server keeps the learner's work


# --- a graded class: the keyless helpers of the assignment release, the teacher's key out of reach ------------

WEEK_3 = '''\
from helpers import metrics
from helpers.exercises import Exercise, register

register(Exercise(
    id="week3-dcg", lesson="03", question="A list has grades 3, 2, 0 in rank order. What is DCG@3 (linear gain)?",
    answer=lambda: metrics.dcg([3, 2, 0], 3), hints=("Divide each grade by log2(rank + 1).",),
))
'''
GRADED_PROBE = """
import importlib.util, json, os, sys
from pathlib import Path
import helpers
from helpers.exercises import check, is_assignment_copy, reveal, solution
try:
    reveal("sheet-ndcg3")
    revealed = "revealed"
except ValueError as error:
    revealed = str(error)
key_folders = [p for p in sys.path if p and (Path(p) / "helpers" / "exercises" / "lessons").is_dir()]
installed = Path(helpers.__file__).parent
print(json.dumps({
    "assignment": is_assignment_copy(),
    "lessons_module": importlib.util.find_spec("helpers.exercises.lessons") is not None,
    "key_folders": key_folders,
    "check": check("sheet-ndcg3", 0.401).message,
    "teacher_check": check("week3-dcg", "4.262").message,
    "solution": " ".join(solution("week3-dcg").lines),
    "revealed": revealed,
    "exercises_env": os.environ.get("HELPERS_EXERCISES", ""),
    "helpers": str(installed),
    "week3_code": [str(p) for p in installed.rglob("*") if p.is_file() and b"dcg([3, 2, 0]" in p.read_bytes()],
}))
"""


@dataclass
class GradedClass:
    """A hub whose shared environment holds the keyless helpers of an assignment release, and one learner."""

    hub: Hub
    learner: Learner
    folder: Path
    site: Path
    manifest: Path
    teacher_file: Path


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory: pytest.TempPathFactory, build_backend: Future):
    proxy = needed_proxy()
    folder = tmp_path_factory.mktemp("graded")
    teacher = folder / "teacher"  # the teacher's own folder: only the teacher's account may read it
    teacher.mkdir(mode=0o700)
    (teacher / "week3.py").write_text(WEEK_3, encoding="utf-8")
    (folder / "roster.txt").write_text("ann\n", encoding="utf-8")
    options = ["--lessons", "03", "--roster", str(folder / "roster.txt"), "--secret", str(teacher / "course.secret"),
               "--manifest", str(teacher / "week3.json")]
    released = release(folder / "release", exercises=[teacher / "week3.py"], options=options)
    site = install_helpers(folder / "shared", origin=released, backend=build_backend.result())  # the copy's helpers
    repo = publish(released, folder / "ranking-metrics.git", "week 3, graded")
    hub = Hub(folder / "hub", site, proxy, exercises=teacher)
    try:
        hub.add_learners(["ann"])
        hub.start_servers(["ann"])
        learner = hub.learner("ann")
        learner.pull(repo)
        yield GradedClass(hub, learner, folder, site, teacher / "week3.json", teacher / "week3.py")
    finally:
        hub.stop()


def test_a_graded_classes_kernel_cannot_judge_reveal_or_read_the_teachers_exercise_file(graded_class):
    ann = graded_class.learner
    own = f"{LESSONS}/notebooks/ann/03_the_ndcg_spreadsheet.ipynb"
    notebook = ann.read_notebook(own)
    kernel, session = ann.open_kernel(own)
    try:
        setup = next(cell for cell in notebook.cells
                     if cell.cell_type == "code" and "setup" in cell.metadata.get("tags", []))
        started = kernel.execute(setup.source)
        probe = kernel.execute(GRADED_PROBE)
    finally:
        kernel.close()
        ann.close_session(session)
    assert started.status == "ok" and probe.status == "ok", (started.error, probe.error)
    said = json.loads(probe.text.strip().splitlines()[-1])
    assert said["assignment"] and not said["lessons_module"] and said["key_folders"] == []
    assert said["check"].startswith("Recorded: 0.401"), "it records; it never says right or wrong"
    assert said["teacher_check"].startswith("Recorded: 4.262") and "no answers" in said["solution"]
    assert "holds no answers" in said["revealed"]
    assert said["exercises_env"] == "", "a graded class's servers are never given the teacher's files"
    assert Path(said["helpers"]).is_relative_to(graded_class.site), "the class's environment, not a copy"
    assert said["week3_code"] == [], "the teacher's answer code is nowhere in the helpers the kernel imports"
    assert not (graded_class.site / "helpers" / "exercises" / "lessons").exists()


def test_the_graded_classes_own_copies_are_collected_and_graded_by_the_manifest(graded_class):
    from helpers.exercises.fresh import draw
    from helpers.teacher.manifest import Manifest

    ann = graded_class.learner
    manifest = Manifest.read(graded_class.manifest)
    answers = {}
    for assigned in manifest.learner("ann").exercises:
        if assigned.id in REGISTRY:
            exercise = REGISTRY[assigned.id]
            worked = draw(assigned.id, assigned.seed).worked if assigned.seed is not None else exercise.worked()
            answers[assigned.id] = repr(f"{worked.value:.{exercise.decimals}f}")
    answers["week3-dcg"] = repr("4.262")
    own = f"{LESSONS}/notebooks/ann/03_the_ndcg_spreadsheet.ipynb"
    notebook = ann.read_notebook(own)
    for cell in notebook.cells:
        answered = {call.exercise_id for call in check_calls(cell.source) if call.passes_answer}
        for exercise_id, text in answers.items():
            if cell.cell_type == "code" and exercise_id in answered:
                cell.source = cell.source.replace("answer = None", f"answer = {text}", 1)
    ann.write_notebook(own, notebook)
    submissions, grades = graded_class.folder / "submissions", graded_class.folder / "grades"
    pattern = f"{graded_class.hub.homes}/{{user}}/{LESSONS}/notebooks/{{user}}/03*.ipynb"  # each one's own copy
    teacher_command(["-m", "helpers.teacher.collect", pattern, "--out", submissions, "--users", "ann"])
    teacher_command(["-m", "helpers.grade", submissions, "--out", grades, "--assignment", graded_class.manifest,
                     "--exercises", graded_class.teacher_file, "--timeout", "180"])
    with open(grades / "gradebook.csv", encoding="utf-8-sig") as file:
        book = {row["learner"]: row for row in csv.DictReader(file)}
    points = sum(manifest.learner("ann").points.values())
    assert list(book) == ["ann"] and float(book["ann"]["total"]) == float(book["ann"]["out_of"]) == points
    assert "week3-dcg" in book["ann"] and book["ann"]["problems"] == ""
