"""How much one graded notebook may take: CPU time, memory (its processes and its /tmp together), processes.

Where the machine allows it each notebook runs in a cgroup of its own
(:func:`find_limits`): cgroup v2 with the ``memory`` and ``pids`` controllers
delegated to the grader, or the v1 ``memory`` and ``pids`` hierarchies where the
grader may create groups in them (a container run as root, often). Then
``--memory`` bounds every process of the notebook *and* the RAM its ``/tmp``
holds together (a tmpfs's pages are charged to the group that wrote them), and a
count caps its processes and threads (a fork bomb stops at :data:`CGROUP_TASKS`).

Otherwise the limits are per process: each process's address space is capped at
``--memory``, bubblewrap's ``/tmp`` holds at most a quarter of it (either way
never more than ``--disk``, so a writer meets a full ``/tmp``), and the
process count is capped by ``RLIMIT_NPROC``, which Linux does not apply to root.
:meth:`Limits.describe` says which is in force; the grader prints it.

Both ways each process's address space is capped (a single allocation past
``--memory`` is a ``MemoryError`` in its cell) and so is the size of one file.

``--timeout`` is CPU time: the seconds all the notebook's processes ran on a
core (:func:`cpu_meter`). A group's own account counts them where the machine
keeps one (cgroup v2's ``cpu.stat``, cgroup v1's ``cpuacct``); otherwise the
process tree under the kernel is summed, each process with the children it
reaped (psutil). Time spent waiting for a core on a busy machine is not
counted, so load never turns a right notebook into ``cpu-time``.

:func:`lower_priority` makes a process nicer (the classroom's heating kernels), and its autogroup too when asked (the
tests' background compiling): psutil sets a niceness, but not an autogroup's, which only /proc/<pid>/autogroup holds.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_TASKS = 256  # processes and threads of one notebook (a kernel runs about 10 threads)
PROCESS_SLACK = 128  # without cgroups: processes and threads above what the user already runs
MAX_FILE_BYTES = 200 * 1024**2
# Runs before the kernel (or bwrap): join the notebook's cgroups, set the limits, become the command.
# Only the standard library; arguments: address space, file size, process count (0: none), the
# cgroup.procs files to join (comma-separated, or ''), then the command.
LAUNCHER = (
    "import os,resource,sys;m,f,n,g=int(sys.argv[1]),int(sys.argv[2]),int(sys.argv[3]),sys.argv[4];"
    "[open(p,'w').write(str(os.getpid())) for p in g.split(',') if p];"
    "m and resource.setrlimit(resource.RLIMIT_AS,(m,m));"
    "f and resource.setrlimit(resource.RLIMIT_FSIZE,(f,f));"
    "n and resource.setrlimit(resource.RLIMIT_NPROC,(n,n));"
    "os.execvp(sys.argv[5],sys.argv[5:])"
)


@dataclass(frozen=True)
class Limits:
    """The way notebooks are limited: ``kind`` is 'cgroup v2', 'cgroup v1' or 'per process'.

    ``parents`` maps each controller ('memory', 'pids') to the folder in which a
    notebook's group is made; ``reason`` says why there are no cgroups.
    """

    kind: str
    parents: tuple[tuple[str, Path], ...] = ()
    reason: str = ""

    @property
    def cgroups(self) -> bool:
        return self.kind != "per process"

    def describe(self, memory_mb: int, disk_mb: int | None = None) -> str:
        """One line for the terminal and the class report."""
        if self.cgroups:
            return (f"limits: a {self.kind} group per notebook: {memory_mb} MB for all its processes and its /tmp "
                    f"together, {CGROUP_TASKS} processes and threads")
        count = ("no process count (Linux does not limit root's processes)" if os.geteuid() == 0
                 else f"{PROCESS_SLACK} processes and threads above what you run")
        return (f"limits: per process ({self.reason}): {memory_mb} MB of address space each, /tmp "
                f"{tmp_megabytes(self, memory_mb, disk_mb)} MB, {count}")

    def launcher(self, memory_mb: int, group: NotebookGroup | None) -> list[str]:
        """The command that goes before the kernel's (or bwrap's): join the group, set the limits."""
        tasks = 0 if self.cgroups or os.geteuid() == 0 else running_tasks() + PROCESS_SLACK
        joined = ",".join(str(path) for path in group.procs_files()) if group else ""
        return [sys.executable, "-S", "-c", LAUNCHER, str(memory_mb * 1024**2), str(MAX_FILE_BYTES), str(tasks),
                joined]

    def group(self, name: str, memory_mb: int) -> NotebookGroup | None:
        """A new group for one notebook (None without cgroups)."""
        if not self.cgroups:
            return None
        return NotebookGroup.make(self, name, memory_mb)


def lower_priority(pid: int | None, niceness: int, session: bool = False) -> None:
    """Make a process ``niceness`` nicer than it is; with ``session``, its autogroup as nice too when it leads a
    session of its own (nothing happens for a process gone or a change the system refuses).

    With Linux's autogroups (on in Debian's and Ubuntu's kernels) a niceness counts only against the processes
    of the same session; a process that leads its own shares the cores evenly with every other session, however
    nice, unless its autogroup is niced too.
    """
    if pid is None:
        return
    try:
        nicer = min(19, os.getpriority(os.PRIO_PROCESS, pid) + niceness)
        os.setpriority(os.PRIO_PROCESS, pid, nicer)
        if session and os.getsid(pid) == pid:  # never the autogroup of a session it shares (a terminal's)
            Path(f"/proc/{pid}/autogroup").write_text(str(nicer), encoding="ascii")
    except OSError:  # gone, refused, or no autogroups here
        pass


def autogroup_niceness(pid: int) -> int | None:
    """The niceness of the process's autogroup (None without autogroups, or for a process gone)."""
    try:
        return int(Path(f"/proc/{pid}/autogroup").read_text(encoding="ascii").split()[-1])
    except (OSError, ValueError, IndexError):
        return None


def tmp_megabytes(limits: Limits, memory_mb: int, disk_mb: int | None = None) -> int:
    """The size of a sandboxed notebook's tmpfs (its folder with /tmp in it): all of --memory in a cgroup (which
    counts it), else a quarter; never more than the disk budget, so a writer meets a full /tmp (disk-limit) before
    the memory limit."""
    size = memory_mb if limits.cgroups else max(16, memory_mb // 4)
    return size if disk_mb is None else min(size, disk_mb)


def every_process(attrs: list[str]) -> Iterator[psutil.Process]:
    """Every process now, each with ``attrs`` read into ``.info``, as itself.

    psutil's ``process_iter`` keeps the object it made for a process id from one call to the next: a process that
    has since taken the id of one that ended would come with the old one's start time, and psutil, taking it for
    gone, would send it no signal (a notebook's process left running, on a machine busy enough for ids to come round
    again). So its record is cleared first (psutil 6 on; 5.9 checked each kept object against its id itself).
    """
    clear = getattr(psutil.process_iter, "cache_clear", None)
    if clear is not None:
        clear()
    return psutil.process_iter(attrs)


def running_tasks() -> int:
    """The processes and threads this user runs now (what RLIMIT_NPROC counts)."""
    uid = os.getuid()
    return sum(process.info["num_threads"] or 0 for process in every_process(["uids", "num_threads"])
               if process.info["uids"] is not None and process.info["uids"].real == uid)


@dataclass
class NotebookGroup:
    """One notebook's cgroup(s): joined by the launcher, asked whether memory ran out, emptied and removed."""

    limits: Limits
    folders: dict[str, Path]

    @classmethod
    def make(cls, limits: Limits, name: str, memory_mb: int) -> NotebookGroup:
        folders = {controller: parent / name for controller, parent in limits.parents}
        for folder in dict.fromkeys(folders.values()):
            folder.mkdir()
        group = cls(limits, folders)
        limit = str(memory_mb * 1024**2)
        if limits.kind == "cgroup v2":
            folder = folders["memory"]
            _write(folder / "memory.max", limit)
            _write(folder / "memory.swap.max", "0", optional=True)
            _write(folder / "memory.oom.group", "1", optional=True)
            _write(folders["pids"] / "pids.max", str(CGROUP_TASKS))
        else:
            _write(folders["memory"] / "memory.limit_in_bytes", limit)
            _write(folders["memory"] / "memory.memsw.limit_in_bytes", limit, optional=True)
            _write(folders["pids"] / "pids.max", str(CGROUP_TASKS))
        return group

    def procs_files(self) -> list[Path]:
        return [folder / "cgroup.procs" for folder in dict.fromkeys(self.folders.values())]

    def out_of_memory(self) -> bool:
        """True when the kernel's out-of-memory killer stopped a process of the notebook."""
        name = "memory.events" if self.limits.kind == "cgroup v2" else "memory.oom_control"
        try:
            lines = (self.folders["memory"] / name).read_text().splitlines()
        except OSError:
            return False
        counts = dict(line.split() for line in lines if len(line.split()) == 2)
        return int(counts.get("oom_kill", "0")) > 0

    def cpu_seconds(self) -> float | None:
        """CPU seconds all the group's processes used (the dead ones included); None without an account."""
        try:
            if self.limits.kind == "cgroup v2":
                lines = (self.folders["memory"] / "cpu.stat").read_text().splitlines()
                counts = dict(line.split() for line in lines if len(line.split()) == 2)
                return int(counts["usage_usec"]) / 1e6
            if "cpuacct" in self.folders:
                return int((self.folders["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
        except (OSError, KeyError, ValueError):
            pass
        return None

    def at_memory_limit(self) -> bool:
        """True when the notebook's memory reached the limit (the system had to reclaim or kill to stay under)."""
        if self.out_of_memory():
            return True
        try:
            if self.limits.kind == "cgroup v2":
                lines = (self.folders["memory"] / "memory.events").read_text().splitlines()
                counts = dict(line.split() for line in lines if len(line.split()) == 2)
                return int(counts.get("max", "0")) > 0
            return int((self.folders["memory"] / "memory.failcnt").read_text()) > 0
        except (OSError, ValueError):
            return False

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path in self.procs_files():
            try:
                found |= {int(line) for line in path.read_text().split()}
            except (OSError, ValueError):
                continue
        return sorted(found)

    def remove(self, seconds: float = 5.0) -> None:
        """Kill every process left in the group, then remove it (a group must be empty to go)."""
        kill_file = self.folders["pids"] / "cgroup.kill"
        if self.limits.kind == "cgroup v2" and kill_file.exists():
            _write(kill_file, "1", optional=True)
        deadline = time.monotonic() + seconds
        while (pids := self.pids()) and time.monotonic() < deadline:
            for pid in pids:
                try:
                    psutil.Process(pid).kill()
                except psutil.Error:  # gone, or not ours
                    pass
            time.sleep(0.05)
        for folder in dict.fromkeys(self.folders.values()):
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # still busy for a moment after its last process died
                    time.sleep(0.05)


def tree_cpu_seconds(pid: int, also: Callable[[], list[int]] | None = None) -> float:
    """CPU seconds of a process and all its descendants, each with the children it reaped (and ``also()``'s)."""
    try:
        root = psutil.Process(pid)
        pids = {root.pid, *(child.pid for child in root.children(recursive=True))}
    except psutil.Error:
        return 0.0
    total = 0.0
    for each in sorted(pids | set(also() if also else [])):
        try:
            times = psutil.Process(each).cpu_times()
        except psutil.Error:  # gone since: its time is in its parent's account once reaped
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


def tree_largest_bytes(pid: int) -> int:
    """The largest address space of a process in the tree under ``pid`` (what RLIMIT_AS caps each one at)."""
    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0
    largest = 0
    for process in processes:
        try:
            largest = max(largest, process.memory_info().vms)
        except psutil.Error:
            continue
    return largest


def cpu_meter(group: NotebookGroup | None, pid: int, also: Callable[[], list[int]] | None = None,
              ) -> Callable[[], float]:
    """A function giving the CPU seconds a notebook used so far: its group's account, else its process tree."""
    if group is not None and group.cpu_seconds() is not None:
        return lambda: group.cpu_seconds() or 0.0
    return lambda: tree_cpu_seconds(pid, also)


def _write(path: Path, text: str, optional: bool = False) -> None:
    try:
        path.write_text(text)
    except OSError:
        if not optional:
            raise


# --- finding what the machine allows ----------------------------------------------------------------------


def find_limits(mode: str = "auto", root: Path = CGROUP_ROOT) -> Limits:
    """The limits to use: ``auto`` (cgroups where they work, else per process), ``cgroup`` (insist), ``process``."""
    if mode == "process":
        return Limits("per process", reason="--limits process was asked for")
    found, reason = _cgroup_v2(root)
    if found is None:
        found, why = _cgroup_v1(root)
        reason = f"{reason}; {why}" if found is None else ""
    if found is not None and (problem := _try(found)):
        found, reason = None, problem
    if found is not None:
        return found
    if mode == "cgroup":
        raise ValueError(f"--limits cgroup: {reason}")
    return Limits("per process", reason=reason)


def own_groups() -> dict[str, str]:
    """Controller ('memory', 'pids', or '' for v2) -> this process's group, from /proc/self/cgroup."""
    found: dict[str, str] = {}
    try:  # psutil has no cgroup API: the kernel's own file
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            found[controller] = path
    return found


def _cgroup_v2(root: Path) -> tuple[Limits | None, str]:
    """cgroup v2 with memory and pids for the grader's children: under a leaf the grader moves itself into.

    A group with processes in it cannot give its controllers to sub-groups, so
    (as systemd's delegation asks) the grader first moves into a sub-group of
    its own, ``hg-grader-<pid>``, then enables the controllers for the notebooks'
    groups beside it.
    """
    path = own_groups().get("")
    mount = next((folder for folder in (root, root / "unified") if (folder / "cgroup.controllers").is_file()), None)
    if path is None or mount is None:
        return None, "no cgroup v2"
    own = mount / path.lstrip("/")
    try:
        controllers = (own / "cgroup.controllers").read_text().split()
    except OSError as error:
        return None, f"cgroup v2 cannot be read ({error.strerror})"
    if not {"memory", "pids"} <= set(controllers):
        return None, "cgroup v2 without the memory and pids controllers for the grader"
    enabled = set((own / "cgroup.subtree_control").read_text().split())
    if not {"memory", "pids"} <= enabled:
        try:
            leaf = own / f"hg-grader-{os.getpid()}"
            leaf.mkdir(exist_ok=True)
            (leaf / "cgroup.procs").write_text(str(os.getpid()))
            (own / "cgroup.subtree_control").write_text("+memory +pids")
        except OSError as error:
            return None, f"cgroup v2 not delegated to the grader ({error.strerror})"
    return Limits("cgroup v2", (("memory", own), ("pids", own))), ""


def _cgroup_v1(root: Path) -> tuple[Limits | None, str]:
    """The v1 memory and pids hierarchies, when the grader may make groups below its own."""
    own = own_groups()
    parents: list[tuple[str, Path]] = []
    for controller in ("memory", "pids"):
        folder = root / controller
        if controller not in own or not (folder / "cgroup.procs").is_file():
            return None, f"no cgroup v1 {controller} controller"
        parent = folder / own[controller].lstrip("/")
        if not os.access(parent, os.W_OK):
            return None, f"no cgroup of its own may be made (cgroup v1 {controller} is not writable)"
        parents.append((controller, parent))
    accounts = root / "cpuacct"  # optional: where it may not be used the process tree is summed
    if "cpuacct" in own and (accounts / "cpuacct.usage").is_file():
        parent = accounts / own["cpuacct"].lstrip("/")
        if os.access(parent, os.W_OK):
            parents.append(("cpuacct", parent))
    return Limits("cgroup v1", tuple(parents)), ""


def _try(limits: Limits) -> str:
    """'' when a group can be made, limited and removed here; else why not."""
    try:
        group = NotebookGroup.make(limits, f"hg-try-{os.getpid()}", 64)
    except OSError as error:
        return f"{limits.kind} groups cannot be made here ({error.strerror or error})"
    group.remove()
    return ""
