"""Read the check log a graded notebook sent: its answers, one JSON line each (the grader's side).

The log comes through a pipe the grader opened before the kernel started
(:mod:`helpers.teacher.kernel`), never from a file the notebook could replace.

The kernel that wrote it held no answer key, so nothing in the log can be worth
more than what the learner could have answered anyway: a line the notebook
wrote by hand is simply an answer. Lines that are not JSON objects are skipped
and counted; lines about exercise ids the grader does not know are reported
(``unknown-exercise``, with the nearest known id); a log longer than
:data:`MAX_LOG_BYTES` is read up to that size (``log-too-long``).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from helpers._checks import close_names
from helpers.teacher.results import Problem

MAX_LOG_BYTES = 4 * 1024**2


@dataclass
class LogReading:
    """The lines in order (``events``) and the problems found."""

    events: list[dict] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def read_log(path: Path, known: Collection[str]) -> LogReading:
    """The events of a check log file about known exercises, in order (a practice copy's log; tests)."""
    data = b""
    if path.is_file():
        with path.open("rb") as handle:
            data = handle.read(MAX_LOG_BYTES + 1)
    return read_log_bytes(data, known)


def read_log_bytes(data: bytes, known: Collection[str], overflow: bool = False) -> LogReading:
    """The events of a check log about known exercises, in order; see the module docstring.

    ``overflow``: the log was longer than what was kept of it.
    """
    reading = LogReading()
    if overflow or len(data) > MAX_LOG_BYTES:
        data = data[:MAX_LOG_BYTES]
        said = f"the check log is longer than {MAX_LOG_BYTES // 1024**2} MB: only its beginning was read"
        reading.problems.append(Problem("log-too-long", said))
    unknown: list[str] = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        entry = _parse(line)
        if entry is None:
            continue
        if entry.get("exercise") in known:
            reading.events.append(entry)
        elif isinstance(entry.get("exercise"), str):
            unknown.append(entry["exercise"][:60])
    if unknown:
        names = ", ".join(did_you_mean(name, known) for name in sorted(set(unknown))[:10])
        reading.problems.append(Problem("unknown-exercise", f"check() was called for unknown exercise ids: {names}"))
    return reading


def did_you_mean(name: str, known: Collection[str]) -> str:
    """An unknown id with the nearest known one: "'teacher-new-mr3' (did you mean 'teacher-new-mrr'?)"."""
    close = close_names(name, known, most=1)
    return f"{name!r} (did you mean {close[0]!r}?)" if close else repr(name)


def _parse(line: str) -> dict | None:
    """A line as a JSON object, or None (not JSON, a number past Python's digit limit, nested too deep)."""
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return entry if isinstance(entry, dict) else None
