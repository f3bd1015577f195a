"""The classroom command without a browser (helpers/teacher/classroom.py): which cells it keeps, how it runs Voilà.

The page itself is tested in a real browser in tests/browser/test_classroom_browser.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from importlib import import_module
from pathlib import Path
from types import SimpleNamespace

import nbformat
import psutil
import pytest
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

from helpers.teacher import classroom, limits
from helpers.teacher.classroom import (
    CRISP_PLOTS,
    HIDDEN_ROLES,
    POOL_SIZE,
    TEMPLATES_ROOT,
    ClassroomKernelManager,
    classroom_notebook,
    default_pool_size,
    lesson_path,
    voila_command,
)
from helpers.teacher.roles import role_of
from tests.waiting import wait_until

LESSONS = sorted(classroom.NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
TEMPLATE = TEMPLATES_ROOT / "voila" / "templates" / "classroom"


def test_a_lesson_is_found_by_its_number_or_path():
    assert lesson_path("05").name == "05_metrics_lab.ipynb"
    assert lesson_path("5") == lesson_path("05")
    assert lesson_path(LESSONS[0]) == LESSONS[0]
    with pytest.raises(ValueError, match="no lesson '42': choose one of 00, 01"):
        lesson_path("42")
    for nothing in ("", "  "):  # not lesson 00
        with pytest.raises(ValueError, match="no lesson given: choose one of 00, 01"):
            lesson_path(nothing)


def test_an_untagged_cell_is_a_lesson_cell():
    assert role_of(nbformat.v4.new_markdown_cell("text")) == "lesson"
    assert role_of(nbformat.v4.new_code_cell("1", metadata={"tags": ["exercise"]})) == "exercise"
    assert role_of(nbformat.v4.new_code_cell("1", metadata={"tags": ["hide-input", "solution"]})) == "solution"
    assert role_of(nbformat.v4.new_code_cell("1", metadata={"tags": ["hide-input"]})) == "lesson"


@pytest.mark.parametrize(
    "tags", [[], ["lesson"], ["solution"], ["hide-input", "exercise"], ["hide-input"], ["classroom", "setup"]]
)
def test_the_template_reads_a_cells_role_as_role_of_does(tags):
    import jinja2

    page = (TEMPLATE / "index.html.j2").read_text(encoding="utf-8")
    rule = "".join(line + "\n" for line in page.splitlines() if line.startswith(("{%- set roles", "{%- set role =")))
    cell = nbformat.v4.new_code_cell("1", metadata={"tags": tags})
    assert jinja2.Template(rule + "{{ role }}").render(cell=cell).strip() == role_of(cell)


@pytest.mark.parametrize("path", LESSONS, ids=lambda path: path.name[:2])
def test_the_classroom_copy_keeps_the_demonstration_only(path):
    lesson = nbformat.read(path, as_version=4)
    copy = classroom_notebook(path)
    kept = [cell for cell in lesson.cells if role_of(cell) not in HIDDEN_ROLES]
    assert [cell.source for cell in copy.cells[1:]] == [cell.source for cell in kept]
    assert all(role_of(cell) not in HIDDEN_ROLES for cell in copy.cells)
    assert all(not cell.get("outputs") and cell.get("execution_count") is None for cell in copy.cells[1:])
    # nothing that checks an answer, gives a solution or writes a file next to the notebook is left to run
    code = "\n".join(cell.source for cell in copy.cells if cell.cell_type == "code")
    for call in ("check(", "solution(", "save_example_workbook", "to_excel(", ".xlsx"):
        assert call not in code, call
    # first, unseen: the lesson's own plots drawn at twice their pixels
    assert copy.cells[0].source == CRISP_PLOTS and role_of(copy.cells[0]) == "setup"
    nbformat.validate(copy)


def test_the_pool_is_sized_to_the_memory_available():
    assert default_pool_size(available_mib=16_000) == classroom.MOST_KERNELS == 8  # five pages, or ten reloads
    assert default_pool_size(available_mib=4 * 4 * classroom.KERNEL_MIB) == 4  # a quarter of it holds four
    assert default_pool_size(available_mib=1_000) == 2  # never fewer than two
    assert 2 <= POOL_SIZE <= classroom.MOST_KERNELS


def test_a_heating_kernel_runs_at_a_lower_priority_and_a_gone_process_is_no_error():
    ours = limits.autogroup_niceness(os.getpid())
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        before = os.getpriority(os.PRIO_PROCESS, process.pid)
        limits.lower_priority(process.pid, classroom.HEAT_NICENESS)
        assert os.getpriority(os.PRIO_PROCESS, process.pid) == min(19, before + classroom.HEAT_NICENESS)
        assert limits.autogroup_niceness(os.getpid()) == ours, "a process of our session: our autogroup alone"
    finally:
        process.kill()
        process.wait()
    limits.lower_priority(process.pid, classroom.HEAT_NICENESS)  # gone: nothing happens
    limits.lower_priority(None, classroom.HEAT_NICENESS)


@pytest.mark.skipif(limits.autogroup_niceness(os.getpid()) is None, reason="no autogroups on this system")
def test_a_process_leading_its_own_session_can_have_its_autogroup_niced_too():
    """With autogroups a niceness counts only within a session: the tests' background compiling leads its own, and
    its autogroup is niced as well (session=True); a heating kernel's is not (the classroom's comment says why)."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], start_new_session=True)
    try:
        limits.lower_priority(process.pid, classroom.HEAT_NICENESS)
        assert limits.autogroup_niceness(process.pid) == 0, "the niceness alone"
        limits.lower_priority(process.pid, 2, session=True)
        nicer = os.getpriority(os.PRIO_PROCESS, process.pid)
        assert limits.autogroup_niceness(process.pid) == nicer
    finally:
        process.kill()
        process.wait()


def test_pool_kernels_after_the_first_heat_at_a_lower_priority_and_a_pages_own_kernel_at_full_speed(monkeypatch):
    started: list[subprocess.Popen] = []

    async def start_a_process(self, *args, **kwargs):  # Jupyter's start, as a sleeping process
        started.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]))
        kernel_id = f"k{len(started)}"
        self._kernels[kernel_id] = SimpleNamespace(provisioner=SimpleNamespace(pid=started[-1].pid))
        return kernel_id

    async def quiet_at_once(self, *args, **kwargs):
        return None

    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", start_a_process)
    monkeypatch.setattr(ClassroomKernelManager, "_until_quiet", quiet_at_once)
    manager, pool = ClassroomKernelManager(), {"env": {"VOILA_PREHEAT": "True"}}

    async def start_three() -> None:
        await manager.start_kernel(**pool)  # the first: the first page waits for it
        await manager.start_kernel(**pool)  # a refill
        await manager.start_kernel()  # a page's own kernel (the pool was empty)

    try:
        asyncio.run(start_three())
        ours = os.getpriority(os.PRIO_PROCESS, os.getpid())
        nice = [os.getpriority(os.PRIO_PROCESS, process.pid) for process in started]
        assert nice == [ours, min(19, ours + classroom.HEAT_NICENESS), ours]
    finally:
        for process in started:
            process.kill()
            process.wait()


def test_the_pool_refills_only_once_voila_has_served_the_pages_being_opened(monkeypatch):
    """Voila (this process) busy for some windows: the refill waits for two quiet windows running, or its timeout.

    The windows are counted on a clock of the test's own, so no figure depends on how busy the machine is.
    """
    clock = SimpleNamespace(now=0.0, cpu=0.0, busy=0, windows=0)

    async def one_window(seconds: float) -> None:
        clock.now += seconds
        clock.windows += 1
        if clock.busy:  # a core's work in this window: well over 5 % of it
            clock.busy -= 1
            clock.cpu += seconds

    monkeypatch.setattr(classroom, "time", SimpleNamespace(monotonic=lambda: clock.now))
    monkeypatch.setattr(classroom, "asyncio", SimpleNamespace(sleep=one_window))
    monkeypatch.setattr(classroom, "cpu_seconds", lambda pid: clock.cpu)
    manager = ClassroomKernelManager()  # runs inside Voila: this test's process plays Voila

    def windows_waited(busy: int) -> int:
        clock.busy, clock.windows = busy, 0
        asyncio.run(manager._until_quiet(timeout=2, window=0.25))
        return clock.windows

    assert windows_waited(busy=10**6) == 8  # busy all along: it waits until its timeout, 2 s of 0.25 s windows
    assert windows_waited(busy=0) == 2  # quiet: two quiet windows
    assert windows_waited(busy=3) == 5  # three busy windows, then two quiet ones


def test_voila_runs_the_copy_with_the_classroom_template_a_preheated_kernel_and_culling(tmp_path):
    command = voila_command(tmp_path / "05_metrics_lab.ipynb", port=8866, cull_seconds=120, open_browser=False)
    assert command[1:3] == ["-m", "voila"] and "--no-browser" in command
    options = dict(part.removeprefix("--").split("=", 1) for part in command if part.startswith("--") and "=" in part)
    assert options["template"] == "classroom" and options["strip_sources"] == "True"
    assert options["preheat_kernel"] == "True" and options["VoilaConfiguration.default_pool_size"] == str(POOL_SIZE)
    assert options["MappingKernelManager.cull_idle_timeout"] == "120"
    assert int(options["MappingKernelManager.cull_interval"]) <= 30
    assert options["MappingKernelManager.cull_connected"] == "False"  # a projected page keeps its kernel
    assert options["Voila.tornado_settings"] == "disable_check_xsrf=True"  # the page's shutdown request works
    if os.name == "posix":  # kernels on local sockets: no port picked in advance that another kernel could take
        assert options["KernelManager.transport"] == "ipc"
    module, name = options["VoilaConfiguration.multi_kernel_manager_class"].rsplit(".", 1)
    assert getattr(import_module(module), name) is ClassroomKernelManager
    assert options["VoilaConfiguration.resources"] == "classroom_scale=1"  # key=value: no deprecation warning
    scaled = voila_command(tmp_path / "05_metrics_lab.ipynb", 8866, 120, open_browser=True, scale=1.25)
    assert "--VoilaConfiguration.resources=classroom_scale=1.25" in scaled  # --scale reaches the page
    assert options["Voila.port_retries"] == "0"  # never another port than the link printed
    assert options["NotebookNotary.data_dir"] == str(classroom.notary_folder(tmp_path / "05_metrics_lab.ipynb"))
    # the kernels' connection files in the copy's folder, which the command removes (not the system's temporary one)
    assert options["Voila.connection_dir_root"] == str(tmp_path)
    assert options["theme"] == "light"
    assert "--theme=dark" in voila_command(tmp_path / "05_metrics_lab.ipynb", 8866, 120, False, theme="dark")


def test_a_machine_without_a_browser_opens_none_and_voila_has_nothing_to_warn_about(monkeypatch):
    def none_found(using=None):
        raise classroom.webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(classroom.webbrowser, "get", none_found)
    assert classroom.browser_found() is False
    monkeypatch.setattr(classroom.webbrowser, "get", lambda using=None: object())
    assert classroom.browser_found() is True


def test_the_copy_is_trusted_by_the_notary_voila_is_given(tmp_path):
    """Voila warns twice about a notebook that is not trusted, and writes a signing key into the home folder."""
    from nbformat.sign import NotebookNotary

    copy = tmp_path / "05_metrics_lab.ipynb"
    nbformat.write(classroom_notebook(LESSONS[5]), copy)
    classroom.trusted(copy)
    with NotebookNotary(data_dir=str(classroom.notary_folder(copy))) as notary:
        assert notary.check_signature(nbformat.read(copy, as_version=4))
    (tmp_path / "another").mkdir()
    with NotebookNotary(data_dir=str(tmp_path / "another")) as stranger:  # another key: not trusted there
        assert not stranger.check_signature(nbformat.read(copy, as_version=4))


def test_a_busy_port_is_an_error_naming_it(capsys):
    """A second classroom on a port already served never prints a link that another lesson answers."""
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert classroom.port_taken(port)
        assert classroom.main(["03", "--port", str(port), "--no-browser"]) == 2
    said = capsys.readouterr()
    assert f"port {port} is in use" in said.err and "--port" in said.err
    assert "http://" not in said.out  # no link printed
    assert not classroom.port_taken(port)  # let go of: free again


def test_the_template_shows_cells_by_role_and_sizes_type_for_a_room():
    page = (TEMPLATE / "index.html.j2").read_text(encoding="utf-8")
    assert "role in ('lesson', 'classroom')" in page and "classroom-hidden" in page
    assert "cdn.jsdelivr.net" not in page  # no style sheet from a CDN
    css = (TEMPLATE / "static" / "classroom.css").read_text(encoding="utf-8")
    text = re.search(r"--classroom-text: calc\((\d+)px \* var\(--classroom-scale\)\)", css)
    value = re.search(r"--classroom-value: calc\((\d+)px \* var\(--classroom-scale\)\)", css)
    assert text and int(text.group(1)) >= 20
    assert value and int(value.group(1)) >= 28


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["42"], "no lesson"),
        ([""], "no lesson given"),
        (["05", "--theme", "blue"], "theme must be light or dark"),
        (["05", "--port", "0"], "port"),
        (["05", "--cull", "5"], "cull"),
        (["05", "--scale", "0"], "scale"),
        (["05", "--pool", "0"], "pool"),
    ],
)
def test_bad_arguments_are_refused_with_the_reason(arguments, message, capsys):
    assert classroom.main([*arguments, "--no-browser"]) == 2
    assert message in capsys.readouterr().err


# --- culling: a preheated kernel's idle time starts when a page takes it --------------------


def idle_kernel(idle_for: timedelta) -> SimpleNamespace:
    """A kernel as the culler sees it: idle, last active ``idle_for`` ago."""
    return SimpleNamespace(
        execution_state="idle",
        kernel_name="python3",
        kernel_spec=SimpleNamespace(metadata={}),
        last_activity=datetime.now(UTC) - idle_for,
    )


def culled(manager: AsyncMappingKernelManager, kernel_id: str) -> bool:
    """Ask the manager's culler about one kernel; True if it shut the kernel down."""
    shut: list[str] = []

    async def shutdown_kernel(kernel_id, *args, **kwargs):
        shut.append(kernel_id)

    manager.shutdown_kernel = shutdown_kernel  # type: ignore[method-assign]
    asyncio.run(manager.cull_kernel_if_idle(kernel_id))
    return shut == [kernel_id]


def test_a_kernel_heated_an_hour_ago_is_not_culled_the_moment_a_page_takes_it():
    plain, ours = AsyncMappingKernelManager(cull_idle_timeout=120), ClassroomKernelManager(cull_idle_timeout=120)
    plain._kernels["k"] = idle_kernel(timedelta(hours=1))
    ours._kernels["k"] = idle_kernel(timedelta(hours=1))
    assert culled(plain, "k")  # Jupyter alone: the hour in the pool counts as idle
    assert not culled(ours, "k")  # the classroom: idle since the page took it, just now


def test_a_taken_kernel_left_idle_past_the_timeout_is_culled():
    manager = ClassroomKernelManager(cull_idle_timeout=120)
    manager._kernels["k"] = idle_kernel(timedelta(hours=1))
    assert not culled(manager, "k")
    manager._taken_at["k"] = manager._kernels["k"].last_activity = datetime.now(UTC) - timedelta(seconds=121)
    assert culled(manager, "k")
    manager._kernels.clear()
    manager._kernels["other"] = idle_kernel(timedelta(seconds=5))
    assert not culled(manager, "other")
    assert "k" not in manager._taken_at  # a kernel that is gone is forgotten


# --- what the page says: nothing about the exercises it hides ---------------------------------

# words that talk about the exercises, their checker, hints and solutions
ABOUT_EXERCISES = re.compile(
    r"checker|try it yourself|\btasks? \d|your answers?\b|hint\(|solution\(|save this as a spreadsheet",
    re.IGNORECASE,
)


@pytest.mark.parametrize("path", LESSONS, ids=lambda path: path.name[:2])
def test_the_classroom_copy_says_nothing_about_the_exercises(path):
    """Narrative about the exercises is tagged ``exercise`` like them (lesson 00's guide to them too)."""
    copy = classroom_notebook(path)
    said = [
        (index, match.group(0))
        for index, cell in enumerate(copy.cells)
        if cell.cell_type == "markdown" and role_of(cell) in ("lesson", "classroom")  # what the page shows
        for match in ABOUT_EXERCISES.finditer(cell.source)
    ]
    assert said == []
    lesson = nbformat.read(path, as_version=4)
    exercise_text = [
        cell.source for cell in lesson.cells if cell.cell_type == "markdown" and role_of(cell) == "exercise"
    ]
    assert any(ABOUT_EXERCISES.search(source) for source in exercise_text)  # the narrative is there, tagged


def test_the_classroom_draws_the_lessons_plots_with_text_of_20_px():
    """The first, unseen cell sets the inline backend's rc: 14.4 pt at 100 dpi is 20 px on the page."""
    config = dict(re.findall(r"%config InlineBackend\.(\w+) = (.+)", CRISP_PLOTS))
    rc = json.loads(config["rc"])
    assert rc["font.size"] * rc["figure.dpi"] / 72 == pytest.approx(20)
    assert json.loads(config["figure_formats"]) == ["retina"]


# --- Ctrl-C and SIGTERM: status 0, no traceback, no kernel left -------------------------------


@pytest.mark.notebook
def test_a_kernel_still_running_code_is_ended_at_once_without_a_traceback(tmp_path):
    """A stop while the pool refills: Voila's shutdown_all meets a kernel that is running the lesson."""

    async def stop_while_busy(log) -> tuple[subprocess.Popen, int | None]:
        manager = ClassroomKernelManager(connection_dir=str(tmp_path))  # Jupyter's default "" is the working folder
        kernel_id = await manager.start_kernel(stderr=log)
        process = manager.get_kernel(kernel_id).provisioner.process
        client = manager.get_kernel(kernel_id).client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=60)
            running = tmp_path / "running"  # written as the cell starts, which is still running when the stop comes
            client.execute(f"import pathlib, time; pathlib.Path({str(running)!r}).touch(); time.sleep(1.5)")
            await asyncio.to_thread(wait_until, running.exists, "the kernel runs the cell")
            await manager.shutdown_all()
            ended_by = process.poll()  # as shutdown_all returns
            # a kernel left running would write its traceback past its sleep, before it exits: wait for its end
            await asyncio.to_thread(wait_until, lambda: process.poll() is not None, "the kernel has ended", 30)
        finally:
            client.stop_channels()
        return process, ended_by

    with open(tmp_path / "kernel.log", "w+") as log:
        process, ended_by = asyncio.run(stop_while_busy(log))
        log.seek(0)
        written = log.read()
    assert "Traceback" not in written, written[-2000:]
    assert ended_by == -signal.SIGKILL  # killed at once, not asked to shut down and waited for


def ended(pid: int) -> bool:
    """The process has ended (gone, or a zombie its parent has not yet reaped)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.notebook
@pytest.mark.parametrize("signals", [("SIGINT", "SIGINT"), ("SIGTERM",)], ids=["ctrl-c-twice", "sigterm"])
def test_the_command_stops_cleanly(signals, tmp_path):
    import os
    import signal
    import subprocess

    from tests.browser import servers

    server = servers.launch_classroom("00", tmp_path, tmp_path / "home", cull=30, pool=2)  # two kernels to end
    try:
        servers.wait_for_preheat(server)
        kernels = servers.descendants(server.process.pid)
        assert servers.kernels(server), "no kernel to stop"
        pool = servers.kernels(server)
        for number, name in enumerate(signals):
            if number:  # a second Ctrl-C while Voila shuts its kernels down: once the first of them has ended
                wait_until(lambda: any(ended(kernel) for kernel in pool), "Voila ends a kernel", 60, every=0.005)
            os.killpg(server.process.pid, getattr(signal, name))  # as a terminal does: the whole foreground group
        assert server.process.wait(60) == 0
    except subprocess.TimeoutExpired:
        pytest.fail(f"the command did not stop:\n{server.log_tail()}")
    finally:
        servers.stop(server)
    log = server.log_text()
    assert "Traceback" not in log and "KeyboardInterrupt" not in log, log[-2000:]
    assert servers.still_running(kernels) == []


# what the room sees of a lesson's text: nothing that points at the code it cannot see
POINTS_AT_CODE = re.compile(
    r"\bnext cell\b|\b(the|this) cell (computes|checks|loads|prints|reads|re-ranks|scores|lists|writes|runs)\b"
    r"|\bcell below\b|code below|\bbelow is hand|here is the wrong",
    re.IGNORECASE,
)


@pytest.mark.parametrize("number", ["06", "07"])
def test_the_classroom_text_never_points_at_hidden_code(number):
    """The room sees the outputs, not the code: 'the next cell loads ...' would point at nothing. The pointers to
    the helpers' source ('*Read the code:* ...') are left out by the page script (tested in the browser)."""
    copy = classroom_notebook(lesson_path(number))
    shown = [
        cell.source for cell in copy.cells if cell.cell_type == "markdown" and role_of(cell) in ("lesson", "classroom")
    ]
    assert [match.group(0) for source in shown for match in POINTS_AT_CODE.finditer(source)] == []


def test_a_stop_waits_only_for_a_kernel_start_its_own_event_loop_can_finish():
    """Voila stops its event loop, then ends the kernels on another: a start begun on the stopped loop never finishes
    there (waiting for it held a Ctrl-C right after the start for the whole grace, 20 s), one of this loop can."""
    stopped = asyncio.new_event_loop()
    try:
        begun_before = stopped.create_future()

        async def stop() -> tuple[list, list]:
            begun_now = asyncio.get_running_loop().create_future()
            return classroom.finishable([begun_before, begun_now]), [begun_now]

        kept, expected = asyncio.run(stop())
        assert kept == expected
    finally:
        stopped.close()


@pytest.mark.notebook
@pytest.mark.parametrize("moment", ["Classroom view of", "Voilà is running"], ids=["link-printed", "voila-running"])
def test_ctrl_c_at_any_moment_is_clean_and_leaves_nothing_in_the_temporary_folder(moment, tmp_path):
    """Ctrl-C as the view starts: no traceback ("Kernel does not exist" from a kernel still starting), status 0, and
    nothing left in the system's temporary folder (Voila's connection files included)."""
    import shutil
    import tempfile

    from tests.browser import servers

    temporary = Path(tempfile.mkdtemp(prefix="c43", dir="/tmp"))  # short: the kernels' sockets are named in it
    log = tmp_path / "classroom.log"
    env = {**servers.isolated_env(tmp_path / "home"), "TMPDIR": str(temporary)}
    command = [sys.executable, "-m", "helpers.teacher.classroom", "00", f"--port={servers.free_port()}",
               "--no-browser", "--pool=2"]  # fmt: skip
    try:
        with log.open("w") as out:
            process = subprocess.Popen(
                command, cwd=classroom.NOTEBOOKS.parent, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while moment not in log.read_text(errors="replace") and time.monotonic() < deadline:
                assert process.poll() is None, log.read_text(errors="replace")
                time.sleep(0.02)
            assert moment in log.read_text(errors="replace")
            os.killpg(process.pid, signal.SIGINT)  # as a terminal does: the whole foreground group
            assert process.wait(60) == 0
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)
        said = log.read_text(errors="replace")
        assert "Traceback" not in said and "Kernel does not exist" not in said, said[-3000:]
        assert sorted(path.name for path in temporary.iterdir()) == []
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def test_a_port_claimed_by_another_classroom_view_is_an_error_before_any_link(capsys):
    """Two views started at the same moment on one port both find it free: the second finds the first's claim."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    first = classroom.claim_port(port)
    assert first is not None
    try:
        if sys.platform.startswith("linux"):
            assert classroom.claim_port(port) is None
        assert classroom.main(["03", "--port", str(port), "--no-browser"]) == 2
    finally:
        first.close()
    said = capsys.readouterr()
    assert f"port {port} is in use" in said.err and "http://" not in said.out
    again = classroom.claim_port(port)  # let go of with its socket
    assert again is not None
    again.close()


@pytest.mark.notebook
def test_two_views_started_together_on_one_port_print_one_link(tmp_path):
    """Lessons 00 and 03 started at the same moment on one port: one serves its link, the other says the port is
    in use and prints no link (before the claim, both printed theirs and one Voila answered both)."""
    from tests.browser import servers

    port = servers.free_port()
    env = servers.isolated_env(tmp_path / "home")
    started = {}
    for lesson in ("00", "03"):
        command = [sys.executable, "-m", "helpers.teacher.classroom", lesson, f"--port={port}", "--no-browser"]
        with (tmp_path / f"{lesson}.out").open("w") as out, (tmp_path / f"{lesson}.err").open("w") as err:
            started[lesson] = subprocess.Popen(
                [*command, "--pool=1"],
                cwd=classroom.NOTEBOOKS.parent, env=env, stdout=out, stderr=err, start_new_session=True,
            )  # fmt: skip
    try:
        refused = []
        deadline = time.monotonic() + 60
        while not refused and time.monotonic() < deadline:
            refused = [lesson for lesson, process in started.items() if process.poll() is not None]
            time.sleep(0.1)
        assert len(refused) == 1, "neither refused the port"
        assert started[refused[0]].wait() == 2
        out, err = ((tmp_path / f"{refused[0]}.{stream}").read_text() for stream in ("out", "err"))
        assert f"port {port} is in use" in err and "http://" not in out
        (serving,) = set(started) - set(refused)
        assert started[serving].poll() is None
    finally:
        for process in started.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(60)


def test_a_message_to_a_page_closed_abruptly_is_no_traceback_and_other_errors_still_are(caplog):
    """A kernel's message sent to a tab closed meanwhile fails with WebSocketClosedError in a task nobody awaits:
    the teacher's terminal showed "Task exception was never retrieved". Other unhandled errors are still reported."""
    from tornado.websocket import WebSocketClosedError

    loop = asyncio.new_event_loop()
    try:
        classroom.quiet_closed_pages(loop)
        classroom.quiet_closed_pages(loop)  # once is enough: a second call keeps the same handler
        with caplog.at_level("ERROR", logger="asyncio"):
            loop.call_exception_handler(
                {"message": "Task exception was never retrieved", "exception": WebSocketClosedError()}
            )
            assert caplog.records == []
            loop.call_exception_handler({"message": "Task exception was never retrieved", "exception": KeyError("x")})
        assert [record.getMessage() for record in caplog.records] == ["Task exception was never retrieved"]
    finally:
        loop.close()
