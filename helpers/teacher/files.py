"""Files written whole or not at all, and read without following a link (teacher's tools).

The one atomic write of every record, gradebook and workbook: a writer fills a
temporary file in the target's own folder; it is flushed and ``fsync``-ed,
renamed over the target with ``os.replace`` (atomic on POSIX within one file
system), and the folder is ``fsync``-ed so the rename itself survives a power
cut. A crash leaves the old file or the new one, never half.

The one read of a learner's file: opened without following a symbolic link and
without waiting on a pipe, and refused unless it is a plain file.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, BinaryIO


def temporary_for(path: Path) -> Path:
    """The temporary file this process fills before renaming it to ``path``: hidden, beside it, one per process."""
    return path.with_name(f".{path.name}.{os.getpid()}.part")


def _fsync_path(path: Path, flags: int = os.O_RDONLY) -> None:
    descriptor = os.open(path, flags)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened, e.g. on Windows)."""
    if hasattr(os, "O_DIRECTORY"):
        _fsync_path(folder, os.O_RDONLY | os.O_DIRECTORY)


@contextmanager
def _replacing(target: Path, private: bool, synced: bool) -> Iterator[Path]:
    temporary = temporary_for(target)
    # O_TRUNC: a temporary left by a crashed run of this pid is overwritten; the mode is still subject to umask.
    os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o666))
    if private:
        os.chmod(temporary, 0o600)  # an older temporary of the same name may have had wider rights
    try:
        yield temporary
        if not synced:
            _fsync_path(temporary)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_folder(target.parent)


@contextmanager
def atomic_path(path: str | os.PathLike[str], *, private: bool = False) -> Iterator[Path]:
    """A temporary path to write ``path``'s new content to (by a library that takes a file name); on leaving the
    block it is synced and renamed to ``path``; on an error it is removed and ``path`` is left as it was.

    ``private=True`` makes the file readable by its owner alone (0600).
    """
    with _replacing(Path(path), private, synced=False) as temporary:
        yield temporary


@contextmanager
def atomic_open(path: str | os.PathLike[str], *, encoding: str = "utf-8", newline: str | None = None,
                private: bool = False) -> Iterator[IO[str]]:
    """A text handle whose content replaces ``path`` atomically when the block ends without an error."""
    with _replacing(Path(path), private, synced=True) as temporary:
        with open(temporary, "w", encoding=encoding, newline=newline) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())


def write_text_atomic(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8",
                      private: bool = False) -> Path:
    """Replace ``path``'s content with ``text`` atomically; returns the path written."""
    with atomic_open(path, encoding=encoding, private=private) as handle:
        handle.write(text)
    return Path(path)


def open_plain(path: str | os.PathLike[str]) -> BinaryIO:
    """A plain file opened for reading, never through a symbolic link (one swapped in since the file was found is
    refused) and never waiting on a pipe; OSError for a link, a folder, a pipe or a device."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    file = os.fdopen(descriptor, "rb")
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        file.close()
        raise OSError(errno.EINVAL, "not a plain file", str(path))
    return file


def read_without_links(path: str | os.PathLike[str]) -> bytes:
    """A plain file's bytes, read as :func:`open_plain` opens it."""
    with open_plain(path) as file:
        return file.read()
