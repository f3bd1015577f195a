"""Read the check log a graded notebook wrote: its answers, one JSON line each (the grader's side).

The kernel that wrote it held no answer key, so nothing in the log can be worth
more than what the learner could have answered anyway: a line the notebook
wrote by hand is simply an answer. Lines that are not JSON objects are skipped
and counted; lines about exercise ids the grader does not know are reported
(``unknown-exercise``); a log longer than :data:`MAX_LOG_BYTES` is read up to
that size (``log-too-long``).
"""

from __future__ import annotations

import json
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path

from helpers.teacher.results import Problem

MAX_LOG_BYTES = 4 * 1024**2


@dataclass
class LogReading:
    """The lines in order (``events``) and the problems found."""

    events: list[dict] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def read_log(path: Path, known: Container[str]) -> LogReading:
    """The events of a check log about known exercises, in order; see the module docstring."""
    reading = LogReading()
    data = b""
    if path.is_file():
        with path.open("rb") as handle:
            data = handle.read(MAX_LOG_BYTES + 1)
    if len(data) > MAX_LOG_BYTES:
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
        names = ", ".join(sorted(set(unknown))[:10])
        reading.problems.append(Problem("unknown-exercise", f"check() was called for unknown exercise ids: {names}"))
    return reading


def _parse(line: str) -> dict | None:
    try:
        entry = json.loads(line)
    except json.JSONDecodeError:
        return None
    return entry if isinstance(entry, dict) else None
