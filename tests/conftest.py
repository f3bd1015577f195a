"""Test tiers by marker, the exercises checked before any test, the tests spread over two cores, no process left.

Markers set here by rule (the others are set in the test modules): ``browser``
for every test under ``tests/browser/``, ``libreoffice`` for every test that
uses the ``libreoffice`` fixture, ``core`` for every test of no other tier
(``pytest -n 2 -m core`` is the quick run). Browser tests are skipped, saying
why, where Chromium's headless shell (or, failing it, Debian's full Chromium) is missing.

The learner's progress record (:mod:`helpers.exercises.record`) is off for the whole run
(``RANKING_METRICS_PROGRESS=off``, inherited by every kernel and process a test starts), so no test writes
into the real Jupyter data folder; the tests of the record turn it on in a temporary one.

The quick run alone (``-m core``) does not import what it would deselect whole: ``tests/browser/`` and every
module that marks all its tests with a tier (``pytestmark = pytest.mark.notebook``, or a list that starts so).

Before any test runs, the register of exercises is imported and every entry
checked, once (the lessons' answers are otherwise worked out at first use): an
entry that does not register (a misspelt slip, a slip that gives the right
answer) stops the run with its own message, once, instead of an error in every
test that uses it.

Under pytest-xdist (``-n 2``, ``--dist loadscope`` from pyproject.toml) the
tests of one module run on one worker (a website build, a server, a browser or
an executed lesson in a module fixture is made once), the heavier tiers first.

On a whole run where ranx's kernels are not cached yet (numba's NUMBA_CACHE_DIR, set here outside the clone), they
are compiled in the background, niced, from the start (:func:`start_ranx_warm_up`, tests/ranx_warm_up.py); the
reference tier waits for them. So do the lessons on the other Pythons and at the lowest versions, when .ci/run makes
their venvs (:func:`start_lessons_elsewhere`, tests/lessons_elsewhere.py); their two modules come last and read the
outcomes.

No process outlives its tests (:mod:`tests.processes`): each module's end
finds and ends any process its tests started and left running (an error of
that module), and the run's end does the same for the whole run and fails it.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests import processes, ranx_warm_up
from tests.waiting import wait_until

TIERS = ("browser", "notebook", "libreoffice", "hub", "install", "reference", "slow")
HEAVIEST_FIRST = ("hub", "browser", "notebook", "libreoffice", "install", "reference", "slow")
# The modules measured longest under -n 2 on two quiet cores (2026-12-06, after the cuts of issue 45: the site
# 133 s, the classroom's screens 130 s and room 121 s, the lessons in JupyterLab 119 s, the hub 106 s, the grader's
# class 90 s, its limits 69 s, the practice sweep 53 s, the clicker keys 44 s, the graded assignment 41 s; every
# other module under 40 s), handed out longest first so that the last ones handed out are short; every other
# module by tier, then size. benchmarks/bench_tests.py --modules measures them again.
# They are handed out in pairs: one that keeps more than a core busy (Chromium with its servers and kernels, the
# hub's ten servers) beside one of the grader's, which mostly waits (its kernels started, watched and stopped one
# after another, near half a core): two browser modules side by side fight for the cores, and two of the
# grader's leave them idle (a fresh-clone run had 1.86 of 2 cores busy for its first seven minutes, then 1.3).
LONGEST_FIRST = (
    "tests/test_types.py",  # mypy: first, so that no worker ends the run on it alone
    "tests/browser/test_site_browser.py", "tests/test_grade.py",
    "tests/browser/test_classroom_screens_browser.py", "tests/test_grade_limits.py",
    "tests/browser/test_classroom_browser.py", "tests/test_grade_assignment.py",
    "tests/browser/test_lessons_in_jupyterlab.py", "tests/test_grade_resume.py",
    "tests/test_hub.py", "tests/test_grade_weeks.py",
    "tests/test_practice.py", "tests/browser/test_classroom_keys_browser.py",
)
# handed out last: their lessons run in the background from the start (tests/lessons_elsewhere.py), and these modules
# read the outcomes, waiting for what is not done yet
LAST = ("tests/test_other_pythons.py", "tests/test_lowest_versions.py")
# a module whose every test is of one tier: its pytestmark is that tier, or a list that starts with it
WHOLE_TIER = re.compile(rf"^pytestmark = \[?pytest\.mark\.(?:{'|'.join(TIERS)})\b", re.MULTILINE)
TESTS = Path(__file__).resolve().parent
# Chromium's headless shell (Debian's chromium-headless-shell: the same Blink and V8 without the windowed browser's
# layers, what Playwright itself runs headless) used about 28 % less CPU than the full /usr/bin/chromium --headless
# over the browser tier (225 against 314 s, benchmarks/cpu_by_kind.py); the full one where the shell is missing
CHROMIUM = next((path for path in (Path("/usr/bin/chromium-headless-shell"), Path("/usr/bin/chromium"))
                 if path.exists()), Path("/usr/bin/chromium-headless-shell"))
EXPECT_TIMEOUT = 15_000  # ms: how long a browser test's expect(...) waits for what it asserts
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# seconds a process stopped at a module's or the run's end may take to exit by itself (tests/test_processes.py: 1)
PROGRESS_ENV = "RANKING_METRICS_PROGRESS"  # helpers.exercises.record.PROGRESS_ENV (tests/test_progress.py checks)
LEFT_RUNNING_GRACE = float(os.environ.get("HELPERS_TEST_GRACE", "10"))
# the machine's caches of the tests' tools, outside the clone as uv's cache of wheels is: numba's of ranx's compiled
# kernels (NUMBA_CACHE_DIR), mypy's of what it found in the modules (MYPY_CACHE_DIR)
MACHINE_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ranking-metrics-by-hand"
NUMBA_CACHE = MACHINE_CACHE / "numba"
MYPY_CACHE = MACHINE_CACHE / "mypy"


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    # no test writes a learner's progress record into the real Jupyter data folder: the record is off for the
    # whole run and every process it starts; tests/test_progress.py turns it on with JUPYTER_DATA_DIR in tmp_path
    os.environ[PROGRESS_ENV] = "off"  # named here, not imported: helpers.exercises registers at sessionstart
    # ranx's kernels compiled once per machine, not once per venv: a fresh clone where the tests ran before reuses
    # them (numba checks each against its source file's hash and the venv's path), about 80 CPU seconds less
    os.environ.setdefault("NUMBA_CACHE_DIR", str(NUMBA_CACHE))
    # mypy's the same way (tests/test_types.py): 13 CPU seconds of pandas', numpy's and matplotlib's types, once
    os.environ.setdefault("MYPY_CACHE_DIR", str(MYPY_CACHE))
    if is_worker(config):  # the run id from the controller, with this worker's id
        run = os.environ[processes.RUN_ENV].split(".", 1)[0]
        os.environ[processes.RUN_ENV] = f"{run}.{config.workerinput['workerid']}"  # type: ignore[attr-defined]
    else:
        os.environ[processes.RUN_ENV] = uuid.uuid4().hex[:12]


def pytest_unconfigure(config: pytest.Config) -> None:
    if is_worker(config):
        # A worker's heap at its end (every module imported, every test collected: 600,000 objects) was walked by
        # pytest's last collections and by the interpreter's on its way out, about 2 s while the run waited for the
        # worker to exit. Collected once here (a cycle's __del__ still runs, its errors still reported), then
        # frozen: the walks after this skip it.
        gc.collect()
        gc.freeze()
        return
    folder = processes.run_folder()
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def npm_packages_failed() -> str:
    """Wait for npm's packages that .ci/run fetches in the background (the proxy, axe-core); why they failed, or ''.

    A checkout where .ci/run never ran, or whose run was stopped half way (the job it names has gone), waits for
    nothing.
    """
    venv = TESTS.parent / ".venv"

    def installing() -> bool:
        try:
            job = psutil.Process(int((venv / "npm.pending").read_text()))
        except (OSError, ValueError, psutil.Error):
            return False
        return processes.alive(job)  # a job ended but not yet reaped (a zombie) has ended

    wait_until(lambda: not installing(), "npm's packages, fetched by .ci/run in the background", timeout=600, every=0.5)
    if not (venv / "npm.failed").exists():
        return ""
    said = (venv / "npm.log").read_text(encoding="utf-8", errors="replace") if (venv / "npm.log").exists() else ""
    return f"npm's packages did not install (.ci/run, .venv/npm.log): {said.strip()[-800:]}"


@pytest.hookimpl(wrapper=True)  # after every plugin's, pytest-xdist's too: under -n 2 the workers start first
def pytest_sessionstart(session: pytest.Session):
    """Import the register of exercises and check every entry once: a refused one stops the run with its message.
    Before that, wait for npm's packages when .ci/run is fetching them: a failure stops the run too. Under -n 2 the
    workers are starting and collecting meanwhile (the check is about a second of the controller's); no test is
    handed out before this ends."""
    result = yield
    if is_worker(session.config):
        return result
    failed = npm_packages_failed()
    if failed:
        pytest.exit(failed, returncode=pytest.ExitCode.TESTS_FAILED)
    try:
        from helpers.exercises import registry  # registers every lesson's exercises

        registry.check_all()  # and works out each one's answer and slips
    except Exception as error:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_sep("!", "the lessons' exercises do not register, so no test can run", red=True, bold=True)
            reporter.write_line(f"{type(error).__name__}: {error}", red=True, bold=True)
        pytest.exit(f"the register refused an exercise: {type(error).__name__} (above)",
                    returncode=pytest.ExitCode.TESTS_FAILED)
    start_ranx_warm_up(session.config)
    start_lessons_elsewhere(session.config)
    return result


def whole_run(config: pytest.Config) -> bool:
    """Whether this run runs every test (no paths, -m or -k given)."""
    return config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.getoption("markexpr") \
        and not config.getoption("keyword")


ranx_warm_up_key = pytest.StashKey[subprocess.Popen]()


def start_ranx_warm_up(config: pytest.Config) -> None:
    """On a whole run in a venv whose ranx has never run, compile ranx's kernels in the background, at the lowest
    priority (tests/ranx_warm_up.py): about 70 s of CPU that would otherwise hold one worker in the reference tier."""
    spec = importlib.util.find_spec("ranx") if whole_run(config) else None
    compiling = ranx_warm_up.stamp()
    if spec is None or spec.origin is None or compiling is None:
        return
    if ranx_cached(Path(spec.origin).parent / "metrics"):
        return  # compiled already: numba cached the kernels at an earlier run
    compiling.parent.mkdir(parents=True, exist_ok=True)
    compiling.touch()
    config.stash[ranx_warm_up_key] = subprocess.Popen(
        [sys.executable, "-m", "tests.ranx_warm_up", str(compiling)], cwd=TESTS.parent,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # a session of its own: its autogroup is niced, not the tests' (helpers.teacher.limits.lower_priority)


def numba_cache_of(folder: Path) -> Path | None:
    """Where numba keeps the compiled kernels of a folder's functions under NUMBA_CACHE_DIR (None when it is not
    set): a folder named as numba.core.caching.UserProvidedCacheLocator names it, the folder's name and the SHA-1
    of its path (tests/test_ranx_reference.py checks that ranx's kernels are there after its tests)."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        return None
    path = str(folder.resolve())
    return Path(os.environ["NUMBA_CACHE_DIR"]) / f"{folder.name}_{hashlib.sha1(path.encode()).hexdigest()}"


def ranx_cached(metrics: Path) -> bool:
    """Whether numba holds compiled kernels of ranx's measures: in NUMBA_CACHE_DIR or beside them."""
    places = [metrics / "__pycache__", numba_cache_of(metrics)]
    return any(place is not None and any(place.glob("*.nbi")) for place in places)


lessons_elsewhere_key = pytest.StashKey[subprocess.Popen]()


def start_lessons_elsewhere(config: pytest.Config) -> None:
    """On a whole run where .ci/run makes the venvs of the other Pythons or of the lowest versions, run their
    lessons in the background from the start, at the lowest priority (tests/lessons_elsewhere.py)."""
    if not whole_run(config):
        return
    from tests import lessons_elsewhere  # imported here, on a whole run only: nbclient and the grader's helpers

    running = lessons_elsewhere.running_stamp()
    if running is None:
        return
    if not (lessons_elsewhere.OTHER_PYTHONS.is_dir() or lessons_elsewhere.LOWEST.is_dir()):
        return
    running.parent.mkdir(parents=True, exist_ok=True)
    running.touch()
    config.stash[lessons_elsewhere_key] = subprocess.Popen(
        [sys.executable, "-m", "tests.lessons_elsewhere", str(running)], cwd=TESTS.parent,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m core`` alone, skip importing tests/browser/ and the modules of one tier: none of theirs would run."""
    if config.getoption("markexpr") != "core":
        return None
    if collection_path == TESTS / "browser":
        return True
    if collection_path.parent == TESTS and collection_path.name.startswith("test_") and collection_path.suffix == ".py":
        return True if WHOLE_TIER.search(collection_path.read_text(encoding="utf-8")) else None
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    no_chromium = pytest.mark.skip(reason=f"{CHROMIUM} is missing: apt-get install chromium-headless-shell")
    for item in items:
        if "browser" in item.path.parent.parts[-1:]:
            item.add_marker(pytest.mark.browser)
        if "libreoffice" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.libreoffice)
        if "browser" in item.keywords and not CHROMIUM.exists():
            item.add_marker(no_chromium)
        if not any(tier in item.keywords for tier in TIERS):
            item.add_marker(pytest.mark.core)
    heaviest_first(items)


def heaviest_first(items: list[pytest.Item]) -> None:
    """Order the modules for pytest-xdist (``--dist loadscope``: a module's tests run on one worker, its module
    fixtures made once): :data:`LONGEST_FIRST`, then the heaviest tier first (the hub, the browsers, the lessons
    run), then by number of tests, so that the last modules handed out are short ones; :data:`LAST` at the end. A
    module's tests keep their order."""

    def tier(item: pytest.Item) -> int:
        return next((rank for rank, tier in enumerate(HEAVIEST_FIRST) if tier in item.keywords), len(HEAVIEST_FIRST))

    heaviest: dict[str, int] = {}
    size: dict[str, int] = {}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        heaviest[module] = min(heaviest.get(module, len(HEAVIEST_FIRST)), tier(item))
        size[module] = size.get(module, 0) + 1
    def key(item: pytest.Item) -> tuple[bool, int, int, int, str]:
        module = item.nodeid.split("::", 1)[0]
        measured = LONGEST_FIRST.index(module) if module in LONGEST_FIRST else len(LONGEST_FIRST)
        return module in LAST, measured, heaviest[module], -size[module], module

    items.sort(key=key)


@pytest.fixture(scope="module", autouse=True)
def no_process_left_by_the_module(request):
    """End any process the module's tests started and left running, and fail the module's last test for it."""
    run = processes.run_id()
    before = {(found.pid, found.started) for found in processes.running(run)}
    yield
    started = [found for found in processes.running(run) if (found.pid, found.started) not in before]
    left = processes.wait_gone(started, LEFT_RUNNING_GRACE)
    if left:
        processes.end(left)
        pytest.fail(f"{request.node.nodeid} left {len(left)} process(es) running after its tests (ended now):\n"
                    + "\n".join(str(found) for found in left), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session):
    """After every test and every worker has ended: any process of the run still running fails the run."""
    result = yield
    run = processes.run_id()
    if is_worker(session.config) or not run:
        return result
    for key in (ranx_warm_up_key, lessons_elsewhere_key):  # a run that ended before the tests waiting on them
        background = session.config.stash.get(key, None)
        if background is not None and background.poll() is None:  # not a leak: ended with what it started
            with contextlib.suppress(psutil.Error):
                for child in psutil.Process(background.pid).children(recursive=True):
                    child.kill()
            background.kill()
            background.wait()
    left = processes.wait_gone(processes.running(run.split(".", 1)[0]), LEFT_RUNNING_GRACE)
    if left:
        processes.end(left)
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        said = f"{len(left)} process(es) of this test run were still running at its end (ended now)"
        if reporter is not None:
            reporter.write_sep("!", said, red=True, bold=True)
            for found in left:
                reporter.write_line(str(found), red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    return result


@pytest.fixture(scope="module")
def ranx_compiled():
    """Wait for the background compiling of ranx's kernels, when the run started one, rather than compile twice."""
    compiling = ranx_warm_up.stamp()
    if compiling is not None:
        wait_until(lambda: not compiling.exists(), "tests/ranx_warm_up.py compiling ranx's kernels", 600, every=0.5)


@pytest.fixture(scope="module")
def browser():
    """Chromium's headless shell (else Debian's full Chromium) through Playwright, one per test module.

    Every test that drives a browser takes it from here: a second
    ``sync_playwright()`` while one is open fails ("Sync API inside the asyncio
    loop"). It is closed when its module ends, because while it is open an
    event loop counts as running and ``asyncio.run`` in later tests would fail.

    Its ``expect`` waits up to 15 s instead of Playwright's 5: on a busy machine a lesson's tab once took longer
    than 5 s to open (stop 61's CI). A check that passes returns as soon as it holds; only a failure waits longer.
    """
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@contextlib.contextmanager
def registrations_forgotten() -> Iterator[None]:
    """Every exercise, slip and teacher's file registered inside, forgotten when it ends: the later tests of the
    worker meet the register as it was (a teacher's file declares slips too)."""
    from helpers import slips
    from helpers.exercises import registry

    exercises, codes = set(registry.REGISTRY), set(slips.CATALOGUE)
    loaded, broken = set(registry._loaded_files), dict(registry.BROKEN_FILES)
    try:
        yield
    finally:
        for exercise_id in set(registry.REGISTRY) - exercises:
            del registry.REGISTRY[exercise_id]
        for code in set(slips.CATALOGUE) - codes:
            del slips.CATALOGUE[code]
        registry._loaded_files.intersection_update(loaded)
        registry.BROKEN_FILES.clear()
        registry.BROKEN_FILES.update(broken)


@pytest.fixture()
def scratch():
    """Exercise ids, slip codes and teacher's files a test registers, forgotten afterwards."""
    with registrations_forgotten():
        yield
