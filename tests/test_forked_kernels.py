"""The classroom's forked kernels (helpers/teacher/forked_kernels.py): when a kernel is forked, and that a forked
kernel is a whole kernel: its own process, session, folder, environment and random state, widgets that reach the
page, a command line that says it is a kernel, and an end when the classroom ends."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import psutil
import pytest
from jupyter_client.provisioning import KernelProvisionerFactory

from helpers.teacher import classroom
from helpers.teacher.classroom import FORKED_PROVISIONER, ClassroomKernelManager
from helpers.teacher.forked_kernels import ForkedProcess, Zygote, forkable

LAUNCHER = [sys.executable, "-m", "ipykernel_launcher", "-f", "/tmp/kernel.json"]


def test_only_this_pythons_plain_ipykernel_launcher_is_forked():
    assert forkable(LAUNCHER, {})
    assert not forkable(["/usr/bin/python3.9", *LAUNCHER[1:]], {})  # another Python: its own start
    assert not forkable([sys.executable, "-m", "other_kernel", "-f", "x.json"], {})
    assert not forkable(LAUNCHER, {"stderr": 2})  # streams of its own: Popen's to give
    assert classroom.forked_kernels_installed()  # the entry point Jupyter finds it by (pyproject.toml)
    assert f"--KernelProvisionerFactory.default_provisioner_name={FORKED_PROVISIONER}" in classroom.voila_command(
        Path("05_metrics_lab.ipynb"), 8866, 120, open_browser=False
    )


def test_a_gone_process_polls_as_ended():
    process = ForkedProcess(2**22 + 12345)  # above Linux's largest process id
    assert process.poll() == 0 and process.wait(1) == 0


ASK = """
import json, os, sys, numpy, psutil
from IPython import get_ipython
kernel = get_ipython().kernel
print(json.dumps({
    "pid": os.getpid(), "parent": os.getppid(), "session": os.getsid(0), "cwd": os.getcwd(),
    "mark": os.environ.get("CLASSROOM_TEST_MARK"), "random": float(numpy.random.random()),
    "targets": sorted(kernel.comm_manager.targets), "preloaded": "pandas" in sys.modules,
    "command": " ".join(psutil.Process().cmdline()),
}))
"""


async def ask(manager: ClassroomKernelManager, kernel_id: str) -> dict:
    client = manager.get_kernel(kernel_id).client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=60)
        reply = await client.execute_interactive(ASK, timeout=60, output_hook=lambda message: said.append(message))
        assert reply["content"]["status"] == "ok"
        return json.loads(next(m["content"]["text"] for m in said if m["msg_type"] == "stream"))
    finally:
        client.stop_channels()


said: list = []


@pytest.mark.notebook
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only (forked kernels, setproctitle)")
def test_forked_kernels_are_whole_kernels_and_end_with_the_classroom(tmp_path, monkeypatch):
    factory = KernelProvisionerFactory.instance()
    monkeypatch.setattr(factory, "default_provisioner_name", FORKED_PROVISIONER)
    monkeypatch.setenv("CLASSROOM_TEST_MARK", "seen")

    async def two_kernels() -> tuple[list[dict], int]:
        manager = ClassroomKernelManager(root_dir=str(tmp_path), connection_dir=str(tmp_path))
        ids = [await manager.start_kernel(path="") for _ in range(2)]
        said.clear()
        first = await ask(manager, ids[0])
        said.clear()
        second = await ask(manager, ids[1])
        zygote = Zygote.running()
        assert zygote is not None
        zygote_pid = zygote.process.pid
        await manager.shutdown_all()  # kills the kernels and ends the zygote
        return [first, second], zygote_pid

    try:
        answers, zygote_pid = asyncio.run(two_kernels())
    finally:
        Zygote.stop()
    for answer in answers:
        assert answer["parent"] == zygote_pid and answer["session"] == answer["pid"]  # forked, a session of its own
        assert answer["cwd"] == str(tmp_path) and answer["mark"] == "seen"  # the kernel's folder and environment
        assert {"jupyter.widget", "jupyter.widget.control"} <= set(answer["targets"])  # widgets reach the page
        assert answer["preloaded"]
        assert "-m ipykernel_launcher -f" in answer["command"]  # ps, the tests and the benchmark see a kernel
    assert answers[0]["random"] != answers[1]["random"]  # not the zygote's random state twice
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(psutil.pid_exists(a["pid"]) for a in answers):
        time.sleep(0.1)
    assert not any(psutil.pid_exists(answer["pid"]) for answer in answers)
    assert not psutil.pid_exists(zygote_pid)
