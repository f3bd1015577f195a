"""Where a learner's kernel runs: inside bubblewrap when it works here, else with a redirected HOME and TMPDIR.

With ``bwrap`` (Debian's package ``bubblewrap``) each kernel sees the system and
the project read-only, its own writable folder, an empty /tmp, no network, no
/run, and no submissions, grader output or home folder of yours; it runs in
its own process namespace, so every process it started dies with it. Whether
bwrap works is found by trying it (:func:`find_sandbox`): it may be installed
but refused (a container without user namespaces).

Without bwrap the kernel runs with your rights. The grader then points HOME
and TMPDIR into the notebook's own folder, kills the kernel's process group
and every process carrying the notebook's marker in its environment, and
reports files it can see change outside that folder (:class:`OutsideWatch`).

Both modes limit the kernel's address space (``--memory``) and file size.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
MARKER_ENV = "HELPERS_GRADED_RUN"  # every process a graded notebook starts inherits it
MAX_FILE_BYTES = 200 * 1024**2
# Runs before the kernel (or bwrap): set the limits, then become the command. No imports beyond the stdlib.
LIMITS_CODE = (
    "import os,resource,sys;m,f=int(sys.argv[1]),int(sys.argv[2]);"
    "m and resource.setrlimit(resource.RLIMIT_AS,(m,m));"
    "f and resource.setrlimit(resource.RLIMIT_FSIZE,(f,f));"
    "os.execvp(sys.argv[3],sys.argv[3:])"
)


@dataclass(frozen=True)
class Sandbox:
    """The way kernels run: ``bwrap`` holds the path of a working bubblewrap, or None (not sandboxed)."""

    bwrap: str | None
    reason: str = ""

    @property
    def kind(self) -> str:
        return "bwrap" if self.bwrap else "none"

    def describe(self) -> str:
        """One line for the terminal and the class report."""
        if self.bwrap:
            return (
                "sandbox: bubblewrap (system and project read-only, a private folder, own /tmp and $HOME, "
                "no network; every process of a notebook ends with it)"
            )
        return (
            f"NOT sandboxed ({self.reason}): notebooks run with your rights; HOME and TMPDIR are redirected, "
            "their processes are killed and files they change outside their folder are reported"
        )

    def command_prefix(
        self, root: Path, work: Path, hide: Sequence[Path], memory_mb: int, readable: Sequence[Path] = ()
    ) -> list[str]:
        """What goes before the kernel's command: the limits, then bwrap with its mounts (when there is one)."""
        limits = [sys.executable, "-S", "-c", LIMITS_CODE, str(memory_mb * 1024**2), str(MAX_FILE_BYTES)]
        if not self.bwrap:
            return limits
        return limits + bwrap_arguments(self.bwrap, root, work, hide, readable)


def bwrap_arguments(
    bwrap: str, root: Path, work: Path, hide: Sequence[Path], readable: Sequence[Path] = ()
) -> list[str]:
    """bwrap's options: everything read-only, /tmp and the hidden folders empty, ``root`` writable, no network.

    ``readable`` paths (the teacher's exercise files) are put back, read-only, where /tmp or a hidden folder
    would cover them.
    """
    arguments = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for folder in hide:
        arguments += ["--tmpfs", str(folder)]
    for path in dict.fromkeys([*readable, *python_under_tmp()]):
        arguments += ["--ro-bind", str(path), str(path)]
    arguments += ["--bind", str(root), str(root), "--unshare-all", "--cap-drop", "ALL"]
    # JPY_PARENT_PID: inside its own process namespace the kernel's parent is pid 1, which ipykernel
    # would take for "my parent died"; --die-with-parent does that job instead.
    arguments += ["--die-with-parent", "--new-session", "--unsetenv", "JPY_PARENT_PID", "--chdir", str(work), "--"]
    return arguments


def python_under_tmp() -> list[Path]:
    """The project and this Python's folders when they live under /tmp (a clone there), which bwrap's own /tmp hides."""
    tmp = Path("/tmp")
    folders = [PROJECT_ROOT, Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent]
    return [folder.resolve() for folder in folders if folder.resolve().is_relative_to(tmp) and folder.is_dir()]


def find_sandbox(mode: str = "auto") -> Sandbox:
    """The sandbox to use: ``auto`` tries bwrap, ``bwrap`` insists on it (ValueError), ``none`` skips it."""
    if mode == "none":
        return Sandbox(None, "--sandbox none was asked for")
    bwrap = shutil.which("bwrap")
    reason = "bwrap is not installed (apt-get install bubblewrap)" if bwrap is None else try_bwrap(bwrap)
    if bwrap is not None and not reason:
        return Sandbox(bwrap)
    if mode == "bwrap":
        raise ValueError(f"--sandbox bwrap: {reason}")
    return Sandbox(None, reason)


def try_bwrap(bwrap: str) -> str:
    """Run a Python inside bwrap with the grader's own options; '' when it works, else why not."""
    with tempfile.TemporaryDirectory(prefix="helpers-bwrap-") as folder:
        root = Path(folder)
        command = [*bwrap_arguments(bwrap, root, root, []), sys.executable, "-S", "-c", "open('ok', 'w').write('1')"]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"bwrap did not run: {error}"
        if done.returncode != 0 or not (root / "ok").is_file():
            said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
            return f"bwrap is installed but does not work here: {said[:200]}"
    return ""


def hideable(folders: Iterable[Path], needed: Iterable[Path]) -> list[Path]:
    """The folders that can be hidden from the kernel: existing, and holding none of the ``needed`` paths."""
    needed = [path.resolve() for path in needed]
    found = []
    for folder in folders:
        folder = folder.resolve()
        if folder.is_dir() and folder != Path("/") and not any(path.is_relative_to(folder) for path in needed):
            found.append(folder)
    return list(dict.fromkeys(found))


# --- processes ---------------------------------------------------------------------------


def marked_processes(marker: str, prefix: bool = False) -> list[int]:
    """Pids of the processes whose environment holds ``MARKER_ENV=<marker>`` (``prefix``: a value starting so)."""
    wanted = f"{MARKER_ENV}={marker}".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(item.startswith(wanted) if prefix else item == wanted for item in environ):
            found.append(int(entry.name))
    return sorted(pid for pid in found if pid != os.getpid())


def command_line(pid: int) -> str:
    """A process's command line, short, for a report ('' when it is gone)."""
    try:
        parts = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return ""
    text = " ".join(part.decode("utf-8", "replace") for part in parts if part)
    return text if len(text) <= 120 else text[:117] + "..."


def is_infrastructure(pid: int, connection_file: str) -> bool:
    """True for the kernel itself, bwrap, and the limits launcher: the grader's own processes."""
    text = command_line(pid)
    program = text.split(" ", 1)[0]
    return Path(program).name == "bwrap" or (connection_file in text and "ipykernel" in text)


def kill_processes(pids: Iterable[int]) -> None:
    """SIGKILL each process (gone already: fine)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# --- files outside the notebook's folder ------------------------------------------------------

SKIPPED = {".git", ".venv", "__pycache__", "node_modules", "test-output", ".ipynb_checkpoints", ".mypy_cache"}
Signature = tuple[int, int, int]


class OutsideWatch:
    """Files the grader can see outside the notebooks' folders, to tell what a notebook changed there.

    ``deep`` folders are listed with everything inside them; ``shallow`` ones
    only with their entries (a sub-folder's time changes when something is
    created or deleted in it); ``loose`` ones (/tmp, where other programs work
    too) only with their entries, a sub-folder counting only when it appears or
    goes. Paths under ``ignored`` and the paths in ``own`` (the grader's own
    output, added as it is written) never count.
    """

    def __init__(
        self, deep: Iterable[Path], shallow: Iterable[Path], ignored: Iterable[Path], loose: Iterable[Path] = ()
    ) -> None:
        self.deep = [path.resolve() for path in deep if path.is_dir()]
        self.shallow = [path.resolve() for path in shallow if path.is_dir()]
        self.loose = [path.resolve() for path in loose if path.is_dir()]
        self.ignored = [path.resolve() for path in ignored]
        self.own: set[Path] = set()

    def snapshot(self) -> dict[Path, Signature]:
        """Path -> (modification time, size, inode) of every watched file."""
        found: dict[Path, Signature] = {}
        for folder in self.deep:
            for path in _walk(folder):
                self._add(found, path)
        for folders, loose in ((self.shallow, False), (self.loose, True)):
            for folder in folders:
                try:
                    entries = list(folder.iterdir())
                except OSError:
                    continue
                for path in entries:
                    if not self._holds_deep(path):  # e.g. --out in the current folder: watched file by file
                        self._add(found, path, loose)
        return found

    def _add(self, found: dict[Path, Signature], path: Path, loose: bool = False) -> None:
        if path in self.own or any(path.is_relative_to(folder) for folder in self.ignored):
            return
        try:
            status = path.lstat()
        except OSError:
            return
        if loose and path.is_dir():
            found.setdefault(path, (0, 0, status.st_ino))
        else:
            found[path] = (status.st_mtime_ns, status.st_size, status.st_ino)

    def changes(
        self, before: dict[Path, Signature], after: dict[Path, Signature], pause: float = 1.0
    ) -> tuple[list[str], list[str]]:
        """What changed between two snapshots: ('created/changed/deleted PATH' in your folders, 'PATH' new in /tmp).

        In /tmp, where other programs work too, only files that appeared and
        are still there ``pause`` seconds later count.
        """
        owned, temporary = [], []
        for path in sorted(set(before) | set(after)):
            if path in self.own:
                continue
            if self._rank(path) == 2:
                if path not in before:
                    temporary.append(path)
            elif path not in before:
                owned.append(f"created {path}")
            elif path not in after:
                owned.append(f"deleted {path}")
            elif before[path] != after[path]:
                kind = " (a folder: something in it was created or deleted)" if path.is_dir() else ""
                owned.append(f"changed {path}{kind}")
        if temporary:
            time.sleep(pause)
        return owned, [str(path) for path in temporary if path.exists()]

    def _holds_deep(self, path: Path) -> bool:
        """True for a deep folder or a folder above one: the grader writes there, its files are watched one by one."""
        return any(folder.is_relative_to(path) for folder in self.deep)

    def _rank(self, path: Path) -> int:
        """0 for a deep folder (submissions, output, project), 1 for a shallow one (home), 2 for a loose one (/tmp)."""
        if any(path.is_relative_to(folder) for folder in self.deep):
            return 0
        return 1 if any(path.parent == folder for folder in self.shallow) else 2


def _walk(folder: Path) -> Iterable[Path]:
    """Every file and link under folder, without the usual tool folders (.git, .venv, ...)."""
    for current, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if name not in SKIPPED]
        for name in files:
            yield Path(current) / name
