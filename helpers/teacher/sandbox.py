"""Where a learner's kernel runs: inside bubblewrap when it works here, else with a redirected HOME and TMPDIR.

With ``bwrap`` (Debian's package ``bubblewrap``) each kernel sees only what a
lesson needs (:func:`bwrap_arguments`): the system's libraries, Python and the
keyless helpers and data read-only (a copy), its own writable folder (a copy, in
memory, with /tmp in it), no network. The repository, the answer key, the submissions, the grader's output
and your home are not there at all. It runs in its own process namespace, so
every process it started dies with it. Whether
bwrap works is found by trying it (:func:`find_sandbox`): it may be installed
but refused (a container without user namespaces).

Without bwrap the kernel runs with your rights: it can read what you can,
the answer key's modules included. The grader then points HOME
and TMPDIR into the notebook's own folder, kills the kernel's process group
and every process carrying the notebook's marker in its environment, and
reports files it can see change outside that folder (:class:`OutsideWatch`).

How much a notebook may take (memory, processes, /tmp) is :mod:`helpers.teacher.limits`'s part;
the kernel's command starts with its launcher, then (with bwrap) the options below.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import psutil

from helpers.teacher.limits import every_process

PROJECT_ROOT = Path(__file__).resolve().parents[2]
MARKER_ENV = "HELPERS_GRADED_RUN"  # every process a graded notebook starts inherits it
SANDBOX_TMP = Path("/tmp")  # inside bubblewrap: a link into the notebook's capped tmpfs, its TMPDIR and HOME
# Inside bubblewrap the notebook's folder and the keyless course are tmpfs at these neutral names, filled with
# copies, so the grader's temporary folder is in none of the kernel's paths, command line, environment or mounts
SANDBOX_ROOT = Path("/notebook")
SANDBOX_COURSE = Path("/opt/course")


@dataclass(frozen=True)
class Sandbox:
    """The way kernels run: ``bwrap`` holds the path of a working bubblewrap, or None (not sandboxed)."""

    bwrap: str | None
    reason: str = ""
    sized_tmp: bool = True  # this bwrap caps the size of its /tmp (--size, bubblewrap 0.8 and later)

    @property
    def kind(self) -> str:
        return "bwrap" if self.bwrap else "none"

    def describe(self) -> str:
        """One line for the terminal and the class report."""
        if self.bwrap:
            return (
                "sandbox: bubblewrap (only the system's libraries, Python, the keyless helpers and data, read-only; "
                "the notebook's own folder; no network; every process of a notebook ends with it)"
            )
        return (
            f"NOT sandboxed ({self.reason}): notebooks run with your rights and can read this machine's files, "
            "the answer key's modules included; HOME and TMPDIR are redirected, their processes are killed and "
            "files they change outside their folder are reported"
        )

    def command_prefix(self, root: Path, work: Path, course: Path, launcher: list[str], tmp_mb: int) -> list[str]:
        """What goes before the kernel's command: the limits' launcher, then bwrap with its mounts (if any)."""
        if not self.bwrap:
            return launcher
        return launcher + bwrap_arguments(self.bwrap, root, work, course, tmp_mb if self.sized_tmp else None)

    def inside(self, root: Path, path: Path) -> Path:
        """A path of the notebook's folder ``root`` (or ``root`` itself) as its kernel sees it."""
        return SANDBOX_ROOT / path.relative_to(root) if self.bwrap else path

    def course(self, course: Path) -> Path:
        """The keyless course as the kernel sees it."""
        return SANDBOX_COURSE if self.bwrap else course

    def home(self, root: Path) -> Path:
        """The kernel's HOME: in the sandbox's capped /tmp with bwrap, else in the notebook's folder."""
        return SANDBOX_TMP / "home" if self.bwrap else root / "home"

    def temporary(self, root: Path) -> Path:
        """The kernel's TMPDIR."""
        return SANDBOX_TMP if self.bwrap else root / "tmp"


SYSTEM_FOLDERS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
SYSTEM_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives", "fonts")


COPIED = "--copied"  # not bwrap's: ``--copied HOST DEST`` becomes a --dir and --file FD per entry (by_descriptor)


def bwrap_arguments(bwrap: str, root: Path, work: Path, course: Path, tmp_mb: int | None = 1024) -> list[str]:
    """bwrap's options: an allow-list on an empty, read-only root, no network, one writable tmpfs (two, for a
    Python that lives under /tmp).

    Read-only: the system's libraries (/usr and its links), a few files of /etc (the linker's cache, the time
    zone, fonts), this Python's folders (each alone, wherever it lives: a Python in your home brings no other file
    of your home) with every ``helpers`` an install put there hidden under an empty folder
    (:func:`hidden_helpers`: it holds the answer key). Copied in, never mounted from the grader's folders: the
    made-up passwd, group and hosts (:func:`made_up_etc`), the keyless ``course`` (helpers and data) on a
    read-only tmpfs at :data:`SANDBOX_COURSE`, and the notebook's folder ``root`` on the only writable file
    system, a tmpfs of ``tmp_mb`` MB (None: no cap) at :data:`SANDBOX_ROOT`, whose ``tmp`` is /tmp (a link; for a
    Python that lives under /tmp, a capped tmpfs of its own) and holds the kernel's HOME. So /proc/self/mountinfo
    names no folder of the grader. A fresh /dev and /proc. The kernel is started with these options passed through
    a file descriptor (:func:`by_descriptor`, which also opens the copied files), so its command line holds none
    of them.
    """
    arguments = [bwrap, "--unshare-all", "--cap-drop", "ALL", "--die-with-parent", "--new-session"]
    for name in SYSTEM_FOLDERS:
        path = Path("/") / name
        if path.is_symlink():
            arguments += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            arguments += ["--ro-bind", str(path), str(path)]
    arguments += ["--dir", "/etc"]
    for name in SYSTEM_ETC:
        if (Path("/etc") / name).exists():
            arguments += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    made_up_etc(root)
    arguments += [COPIED, str(root / "etc"), "/etc", "--proc", "/proc", "--dev", "/dev"]
    arguments += ["--size", str(tmp_mb * 1024**2)] if tmp_mb else []
    arguments += ["--tmpfs", str(SANDBOX_ROOT), COPIED, str(root), str(SANDBOX_ROOT)]
    folders = python_folders()
    if any(folder.is_relative_to(SANDBOX_TMP) for folder in folders):
        # a Python that lives under /tmp is mounted there: /tmp is then a capped tmpfs of its own (metered too)
        arguments += ["--size", str(tmp_mb * 1024**2)] if tmp_mb else []
        arguments += ["--tmpfs", str(SANDBOX_TMP), "--dir", str(SANDBOX_TMP / "home")]
    else:
        arguments += ["--dir", str(SANDBOX_ROOT / "tmp" / "home"), "--symlink", str(SANDBOX_ROOT / "tmp"),
                      str(SANDBOX_TMP)]
    for folder in folders:
        arguments += ["--ro-bind", str(folder), str(folder)]
    for hidden in hidden_helpers(folders):  # an installed helpers holds the answer key: an empty folder there
        arguments += ["--tmpfs", str(hidden)]
    arguments += ["--tmpfs", str(SANDBOX_COURSE), COPIED, str(course), str(SANDBOX_COURSE)]
    arguments += ["--remount-ro", str(SANDBOX_COURSE), "--remount-ro", "/"]
    # JPY_PARENT_PID: inside its own process namespace the kernel's parent is pid 1, which ipykernel
    # would take for "my parent died"; --die-with-parent does that job instead.
    arguments += ["--unsetenv", "JPY_PARENT_PID", "--chdir", str(SANDBOX_ROOT / work.relative_to(root)), "--"]
    return arguments


def copied_options(host: Path, dest: Path, descriptors: list[int]) -> list[str]:
    """``--dir`` for each folder under ``host`` and ``--file FD`` for each regular file (opened here, its
    descriptor added to ``descriptors``), at the same place under ``dest``; links and other kinds are left out."""
    options: list[str] = []
    for current, folders, names in os.walk(host):
        inside = dest / Path(current).relative_to(host)
        options += [word for name in sorted(folders) for word in ("--dir", str(inside / name))]
        for name in sorted(names):
            try:
                descriptor = os.open(os.path.join(current, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                continue
            descriptors.append(descriptor)
            options += ["--file", str(descriptor), str(inside / name)]
    return options


def by_descriptor(command: list[str]) -> tuple[list[str], list[int]]:
    """The command with bwrap's options moved into a file read through ``bwrap --args FD``, every ``--copied``
    expanded (:func:`copied_options`); and the descriptors to pass to the child, then close (that FD first;
    none when the command has no bwrap). What a kernel reads in ``/proc/1/cmdline`` is then ``bwrap --args FD``
    and its own command."""
    found = next((i for i, word in enumerate(command) if Path(word).name == "bwrap"), None)
    if found is None or "--" not in command[found:]:
        return command, []
    end = command.index("--", found)
    descriptors: list[int] = []
    options: list[str] = []
    words = iter(command[found + 1 : end])
    try:
        for word in words:
            options += copied_options(Path(next(words)), Path(next(words)), descriptors) if word == COPIED else [word]
        data = b"".join(word.encode() + b"\0" for word in options)
        descriptor = os.memfd_create("bwrap-arguments", 0)
    except BaseException:
        close_all(descriptors)
        raise
    os.write(descriptor, data)
    os.lseek(descriptor, 0, os.SEEK_SET)
    return [*command[: found + 1], "--args", str(descriptor), *command[end:]], [descriptor, *descriptors]


def close_all(descriptors: Iterable[int]) -> None:
    """Close each file descriptor."""
    for descriptor in descriptors:
        os.close(descriptor)


def made_up_etc(root: Path) -> list[str]:
    """Write a passwd, group and hosts that name nobody of this machine into ``root/etc``; their names."""
    folder = root / "etc"
    folder.mkdir(parents=True, exist_ok=True)
    uid, gid = os.getuid(), os.getgid()
    files = {
        "passwd": f"learner:x:{uid}:{gid}:learner:{SANDBOX_TMP / 'home'}:/bin/sh\n",
        "group": f"learner:x:{gid}:\n",
        "hosts": "127.0.0.1 localhost\n::1 localhost\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return list(files)


def python_folders() -> list[Path]:
    """This Python's folders outside /usr: its prefixes, its executable's folder and its site-packages, each alone."""
    found = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             str(Path(sys.executable).resolve().parent.parent), *map(str, site_folders())]
    folders = sorted({Path(path).resolve() for path in found if os.path.isdir(path)})
    usr = Path("/usr")
    kept: list[Path] = []
    for folder in folders:
        if folder.is_relative_to(usr) or any(folder.is_relative_to(other) for other in kept):
            continue
        kept.append(folder)
    return kept


def site_folders() -> list[Path]:
    """This Python's site-packages folders (the user's too, when Python reads it)."""
    import site

    found = list(site.getsitepackages())
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        found.append(site.getusersitepackages())
    return [Path(path).resolve() for path in found if os.path.isdir(path)]


def installed_helpers(sites: Iterable[Path]) -> list[Path]:
    """Every folder where this Python's site machinery finds a ``helpers`` package, key included.

    A normal install puts it in site-packages (``<site>/helpers``, with
    ``helpers/exercises/lessons``, the answer key); an editable install of
    setuptools maps it in ``__editable___*_finder.py`` (its ``MAPPING``); an
    older one names a folder in a ``.pth`` file, whose ``helpers`` is the package.
    """
    import ast

    found: list[Path] = []
    for site_folder in sites:
        found.append(site_folder / "helpers")
        for finder in sorted(site_folder.glob("__editable__*finder.py")):
            try:
                tree = ast.parse(finder.read_text(encoding="utf-8"))
            except (OSError, SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                    continue
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if not any(isinstance(target, ast.Name) and target.id == "MAPPING" for target in targets):
                    continue
                try:
                    mapping = ast.literal_eval(node.value)
                except ValueError:
                    continue
                if isinstance(mapping, dict):
                    found += [Path(str(path)) for name, path in mapping.items() if str(name).split(".")[0] == "helpers"]
        for pth in sorted(site_folder.glob("*.pth")):
            try:
                lines = pth.read_text(encoding="utf-8").splitlines()
            except (OSError, ValueError):
                continue
            found += [Path(line.strip()) / "helpers" for line in lines
                      if line.strip() and not line.startswith(("#", "import ", "import\t"))]
    return list(dict.fromkeys(found))


def hidden_helpers(bound: Iterable[Path]) -> list[Path]:
    """The installed ``helpers`` folders (:func:`installed_helpers`) inside a folder the sandbox binds: each is
    covered by an empty tmpfs, so a graded kernel reaches only the keyless course."""
    folders = list(bound)
    hidden = []
    for path in installed_helpers(site_folders()):
        try:
            real = path.resolve()
        except OSError:
            continue
        if real.is_dir() and any(real.is_relative_to(folder) for folder in folders):
            hidden.append(real)
    return sorted(set(hidden))


def visible_folders() -> list[Path]:
    """The folders every sandboxed kernel sees (read-only): the system's and this Python's."""
    system = [Path("/") / name for name in SYSTEM_FOLDERS] + [Path("/etc") / name for name in SYSTEM_ETC]
    return [path.resolve() for path in system if path.exists()] + python_folders()


def find_sandbox(mode: str = "auto") -> Sandbox:
    """The sandbox to use: ``auto`` tries bwrap, ``bwrap`` insists on it (ValueError), ``none`` skips it."""
    if mode == "none":
        return Sandbox(None, "--sandbox none was asked for")
    bwrap = shutil.which("bwrap")
    reason = "bwrap is not installed (apt-get install bubblewrap)" if bwrap is None else try_bwrap(bwrap)
    if bwrap is not None and not reason:
        sized = "--size" in subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=20).stdout
        return Sandbox(bwrap, sized_tmp=sized)
    if mode == "bwrap":
        raise ValueError(f"--sandbox bwrap: {reason}")
    return Sandbox(None, reason)


def try_bwrap(bwrap: str) -> str:
    """Run a Python inside bwrap with the grader's own options; '' when it works, else why not."""
    with tempfile.TemporaryDirectory(prefix="helpers-bwrap-") as folder:
        root = Path(folder)
        (root / "course").mkdir()
        (root / "course" / "said").write_text("1", encoding="utf-8")
        code = f"open('ok', 'w').write(open('{SANDBOX_COURSE}/said').read()); print(open('ok').read())"
        command, descriptors = by_descriptor(
            [*bwrap_arguments(bwrap, root, root, root / "course", None), sys.executable, "-S", "-c", code])
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=20, pass_fds=descriptors)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"bwrap did not run: {error}"
        finally:
            close_all(descriptors)
        if done.returncode != 0 or done.stdout.strip() != "1":
            said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
            return f"bwrap is installed but does not work here: {said[:200]}"
    return ""


# --- processes ---------------------------------------------------------------------------


def marked_processes(marker: str, prefix: bool = False) -> list[psutil.Process]:
    """The processes whose environment holds ``MARKER_ENV=<marker>`` (``prefix``: a value starting so), by pid."""
    found = []
    for process in every_process(["environ"]):
        value = (process.info["environ"] or {}).get(MARKER_ENV)  # None: gone, or not ours to read
        if value is not None and (value.startswith(marker) if prefix else value == marker):
            found.append(process)
    return sorted((process for process in found if process.pid != os.getpid()), key=lambda process: process.pid)


def command_line(process: psutil.Process) -> str:
    """A process's command line, short, for a report ('' when it is gone)."""
    try:
        text = " ".join(part for part in process.cmdline() if part)
    except psutil.Error:
        return ""
    return text if len(text) <= 120 else text[:117] + "..."


def is_infrastructure(process: psutil.Process, connection_file: str) -> bool:
    """True for the kernel itself, bwrap, and the limits launcher: the grader's own processes."""
    text = command_line(process)
    program = text.split(" ", 1)[0]
    return Path(program).name == "bwrap" or (connection_file in text and "ipykernel" in text)


def kill_processes(processes: Iterable[psutil.Process]) -> None:
    """SIGKILL each process (gone already, or its id taken by another process since: psutil sends nothing)."""
    for process in processes:
        try:
            process.kill()
        except psutil.Error:
            pass


# --- what a notebook wrote: its folder and its /tmp -----------------------------------------------

MOST_FILES = 20_000  # files in a notebook's folder the grader sizes; past it the folder counts as over its budget


def folder_bytes(folder: Path, budget: int) -> int:
    """The bytes of the files under ``folder`` (not following links); past ``budget`` bytes or :data:`MOST_FILES`
    files it stops counting and returns more than ``budget``."""
    total = files = 0
    for current, _, names in os.walk(folder):
        for name in names:
            files += 1
            try:
                total += os.lstat(os.path.join(current, name)).st_blocks * 512
            except OSError:
                continue
            if total > budget or files > MOST_FILES:
                return budget + 1
    return total


def sandbox_inside(pid: int) -> int | None:
    """The first process of the bubblewrap sandbox started as ``pid`` (its root is the sandbox's), or None."""
    try:
        return next((child.pid for child in psutil.Process(pid).children()), None)
    except psutil.Error:
        return None


def sandbox_folder(pid: int) -> Path | None:
    """The notebook's folder of the sandbox started as ``pid`` seen from here (``/proc/<its first process>/root``
    and :data:`SANDBOX_ROOT`), once that process has entered it; None until then."""
    inside = sandbox_inside(pid)
    if inside is None:
        return None
    try:
        entered = os.stat(f"/proc/{inside}/root") != os.stat("/")  # before its pivot_root it sees our /
    except OSError:
        return None
    folder = Path(f"/proc/{inside}/root{SANDBOX_ROOT}")
    return folder if entered and folder.is_dir() else None


def sandbox_bytes(folder: Path | None, budget: int) -> int:
    """The bytes used in the notebook's tmpfs ``folder`` (its /tmp included); more than ``budget`` past
    :data:`MOST_FILES` files and folders; 0 when it cannot be seen."""
    if folder is None:
        return 0
    try:
        # the sandbox's own tmpfs, seen through its root: psutil has no view of another process's mounts
        found = os.statvfs(folder)
    except OSError:
        return 0
    if found.f_files - found.f_ffree > MOST_FILES:
        return budget + 1
    return (found.f_blocks - found.f_bfree) * found.f_frsize


def disk_meter(sandbox: Sandbox, root: Path, pid: int) -> Callable[[int], int]:
    """A function of a budget (bytes) giving the bytes the notebook wrote so far: its folder and /tmp together."""
    if not sandbox.bwrap:
        return lambda budget: folder_bytes(root, budget)  # without bwrap its HOME and TMPDIR are in its folder
    seen: list[Path | None] = [None]

    def written(budget: int) -> int:
        if seen[0] is None:
            seen[0] = sandbox_folder(pid)
        folder = seen[0]
        own_tmp = folder.parent / SANDBOX_TMP.name if folder is not None else None
        if own_tmp is None or own_tmp.is_symlink():  # /tmp is a link into the folder: counted with it
            return sandbox_bytes(folder, budget)
        return sandbox_bytes(folder, budget) + sandbox_bytes(own_tmp, budget)

    return written


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
