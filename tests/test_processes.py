"""No process outlives the tests: a module that leaves one running fails, it is ended, and the run's end checks again;
a port is handed out once across every process of a run (pytest-xdist's workers among them)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.teacher.limits import every_process
from tests import processes
from tests.browser import servers

ROOT = Path(__file__).resolve().parent.parent

LEAKS = '''
import subprocess
import sys


def test_starts_a_server_and_forgets_it():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)  # {tag}"], start_new_session=True)


def test_another():
    pass
'''
ORPHAN = '''
import subprocess
import sys


def test_a_kernel_whose_parent_is_gone():
    code = "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)  # {tag}'])"
    subprocess.run([sys.executable, "-c", code], check=True)
'''

CRASH = '''
import os
import subprocess
import sys


def test_a_worker_that_dies_before_its_module_ends():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)  # {tag}"], start_new_session=True)
    os._exit(1)
'''


def inner_run(folder: Path, tests: dict[str, str], *options: str) -> subprocess.CompletedProcess:
    """pytest run on its own test folder, with this project's conftest, as a contributor would run it."""
    (folder / "tests").mkdir()
    for name in ("__init__.py", "conftest.py", "processes.py", "ranx_warm_up.py", "waiting.py"):
        shutil.copy(ROOT / "tests" / name, folder / "tests" / name)
    for name, text in tests.items():
        (folder / "tests" / name).write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *options, "tests"],
                          capture_output=True, text=True, timeout=180, cwd=folder,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)]),
                               "HELPERS_TEST_GRACE": "1"})


def left_with(tag: str) -> list[int]:
    """Processes still running whose command line carries the tag (none, once the inner run ended them)."""
    return [found.pid for found in processes.running(processes.run_id().split(".", 1)[0]) if tag in found.command]


def noted_and_ended(tag: str) -> list[str]:
    """Every process whose command line carries the tag, with its status and its run mark (what a failure needs to
    say), each then killed."""
    found = []
    for process in every_process(["cmdline", "status", "environ"]):
        if tag in " ".join(process.info["cmdline"] or []):
            mark = (process.info["environ"] or {}).get(processes.RUN_ENV)
            found.append(f"pid {process.pid} {process.info['status']} marked {mark!r}")
            process.kill()
    return found


@pytest.mark.slow
def test_a_module_that_leaves_a_process_running_fails_and_the_process_is_ended(tmp_path):
    tag = f"left-by-{tmp_path.name}"
    done = inner_run(tmp_path, {"test_leaks.py": LEAKS.format(tag=tag), "test_clean.py": "def test_ok():\n    pass\n"})
    # on a failure, say whether the process was still there (unseen by the module's check) or had gone
    if done.returncode != 1:
        pytest.fail(f"{done.stdout[-3000:]}\n{done.stderr[-2000:]}\nwith the tag now: {noted_and_ended(tag)}")
    said = done.stdout[-4000:]  # the end of the inner run's report (4,000 characters), on a failure
    assert "ERROR at teardown of test_another" in done.stdout, said
    assert "tests/test_leaks.py left 1 process(es) running after its tests (ended now)" in done.stdout, said
    assert "3 passed" in done.stdout and "1 error" in done.stdout, f"the tests pass, the process left errs:\n{said}"
    assert left_with(tag) == []


def test_a_port_is_handed_out_once_across_the_runs_processes():
    port = servers.free_port()
    assert not processes.claim("ports", port), "claimed already by free_port"
    code = "from tests import processes; import sys; sys.exit(0 if processes.claim('ports', int(sys.argv[1])) else 3)"
    other = subprocess.run([sys.executable, "-c", code, str(port)], cwd=ROOT, timeout=60,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert other.returncode == 3, "another worker of the run is refused the same port"
    assert processes.run_id() and processes.run_folder() is not None


@pytest.mark.slow
def test_under_xdist_an_orphan_is_found_by_its_module_and_a_crashed_workers_process_by_the_runs_end(tmp_path):
    orphan, crash = f"orphan-of-{tmp_path.name}", f"crash-of-{tmp_path.name}"
    done = inner_run(tmp_path, {"test_orphan.py": ORPHAN.format(tag=orphan), "test_crash.py": CRASH.format(tag=crash)},
                     "-n", "2")
    assert done.returncode == 1, done.stdout[-3000:]
    assert "test_orphan.py left 1 process(es) running" in done.stdout and orphan in done.stdout
    assert "1 process(es) of this test run were still running at its end (ended now)" in done.stdout
    assert crash in done.stdout.split("still running at its end", 1)[1]
    assert left_with(orphan) == [] and left_with(crash) == []


def test_stopping_a_server_ends_a_process_it_started_whose_parent_has_gone(tmp_path):
    tag = f"kernel-of-{tmp_path.name}"
    kernel = f"import time; time.sleep(300)  # {tag}"[::-1]  # the server's own command line does not hold the tag
    server_code = (f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {kernel!r}[::-1]], "
                   "start_new_session=True); time.sleep(300)")
    server = servers.start("fake-server", [sys.executable, "-c", server_code], tmp_path, dict(os.environ),
                           tmp_path / "server.log", "http://127.0.0.1:9", "")
    try:
        deadline = time.monotonic() + 30
        while not left_with(tag) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert left_with(tag), "the server started its kernel"
        server.process.kill()  # SIGKILL: the server dies first: its kernel is handed to init
        server.process.wait()
        assert left_with(tag), "the kernel outlived its server"
    finally:
        servers.stop(server)
    assert left_with(tag) == [], "found by its mark and ended"
