"""Read the check log a graded notebook wrote, keeping only the lines check() signed (the grader's side).

Every line a graded kernel writes carries its running number ``seq`` and an
HMAC ``mac`` (:mod:`helpers.exercises.checklog`). A line that is not JSON, has
no valid signature, or whose number is not the next one is not used, and the
notebook gets a problem naming what was wrong: ``forged-log`` (lines not
written by check), ``log-edited`` (lines missing, repeated or out of order),
``unknown-exercise`` (a signed line about an id the grader does not know).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path

from helpers.exercises.checklog import signature
from helpers.teacher.results import Problem


@dataclass
class LogReading:
    """The signed lines in order (``events``), the problems found, and what the grader's end line said."""

    events: list[dict] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    ended: bool = False
    replaced: list[str] = field(default_factory=list)


def read_log(path: Path, key: bytes, known: Container[str]) -> LogReading:
    """Verify every line of a check log with the notebook's key; see the module docstring."""
    reading = LogReading()
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines() if path.is_file() else []
    unsigned: list[int] = []
    disorder: list[str] = []
    unknown: list[str] = []
    expected = 1
    for number, line in enumerate(lines, start=1):
        entry = _parse(line)
        if entry is None or not _signed(entry, key):
            unsigned.append(number)
            continue
        if entry.get("seq") != expected or reading.ended:
            disorder.append(f"line {number} is entry {entry.get('seq')}, expected {expected}")
        expected = int(entry["seq"]) + 1
        if entry.get("event") == "end":
            reading.ended = True
            reading.replaced = [str(name) for name in entry.get("replaced", [])]
        elif entry.get("exercise") not in known:
            unknown.append(str(entry.get("exercise")))
        else:
            reading.events.append(entry)
    if unsigned:
        shown = ", ".join(map(str, unsigned[:8])) + (" ..." if len(unsigned) > 8 else "")
        reading.problems.append(
            Problem("forged-log", f"{len(unsigned)} line(s) of the check log were not written by check() "
                    f"(line {shown}): they are ignored and the notebook scores 0")
        )
    if disorder:
        reading.problems.append(
            Problem("log-edited", f"the check log was edited ({'; '.join(disorder[:3])}): the notebook scores 0")
        )
    if unknown:
        names = ", ".join(sorted(set(unknown)))
        reading.problems.append(Problem("unknown-exercise", f"check() was called for unknown exercise ids: {names}"))
    return reading


def _parse(line: str) -> dict | None:
    try:
        entry = json.loads(line)
    except json.JSONDecodeError:
        return None
    return entry if isinstance(entry, dict) else None


def _signed(entry: dict, key: bytes) -> bool:
    mac = entry.get("mac")
    if not isinstance(mac, str) or not isinstance(entry.get("seq"), int):
        return False
    return hmac.compare_digest(mac, signature(entry, key))
