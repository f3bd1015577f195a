"""A learner's own record: every check, hint, solution and practice answer, one JSON line each (every lesson).

The record stays on the learner's machine: the file ``ranking-metrics-by-hand/progress.jsonl`` under the
Jupyter data directory (``jupyter_core.paths.jupyter_data_dir()``; ``JUPYTER_DATA_DIR`` moves it; on a hub,
the learner's own home). Nothing sends it anywhere, and it is never written inside the collection's folder.

- Each event is one line appended with a single ``os.write`` on a file opened with ``O_APPEND``, so two kernels
  writing at once never mix their lines.
- ``RANKING_METRICS_PROGRESS=off`` (also ``0``, ``no``, ``false``) turns the record off.
- A graded run records nothing: the grader's kernel carries ``HELPERS_GRADED_RUN`` and ``HELPERS_CHECK_FD``,
  and an assignment copy (no answer key) records nothing either.

Unlike the grader's check log (:mod:`helpers.exercises.checklog`), this record holds the verdicts: it is the
learner's, read by ``progress()`` and by ``practice()`` without an id.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PROGRESS_ENV = "RANKING_METRICS_PROGRESS"
OFF = {"off", "0", "no", "false"}
GRADED_ENVS = ("HELPERS_GRADED_RUN", "HELPERS_CHECK_FD")  # set in every kernel the grader runs a notebook in
FOLDER, FILE = "ranking-metrics-by-hand", "progress.jsonl"
COLLECTION_ROOT = Path(__file__).resolve().parents[2]  # the folder holding helpers/, notebooks/ and data/

_warned: set[str] = set()


def progress_file() -> Path:
    """Where the record lives: ``<Jupyter data dir>/ranking-metrics-by-hand/progress.jsonl``."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / FOLDER / FILE


def why_not_recording() -> str:
    """'' when this kernel records; otherwise why not, in a few words (shown by ``progress()``)."""
    if os.environ.get(PROGRESS_ENV, "").strip().lower() in OFF:
        return f"the record is off here ({PROGRESS_ENV}={os.environ[PROGRESS_ENV]})"
    if any(os.environ.get(name) for name in GRADED_ENVS):
        return "a graded run records nothing"
    from helpers.exercises.questions import is_assignment_copy

    if is_assignment_copy():
        return "an assignment copy records nothing"
    if inside_the_collection(progress_file()):
        return f"the record would be inside the collection's folder ({progress_file().parent}): move JUPYTER_DATA_DIR"
    return ""


def inside_the_collection(path: Path) -> bool:
    """True when ``path`` lies in the collection's own folder (a repository or a copy), where no record goes."""
    if not (COLLECTION_ROOT / "notebooks").is_dir():  # helpers installed on its own: no collection folder
        return False
    return path.resolve().is_relative_to(COLLECTION_ROOT)


def record(event: str, exercise: str, lesson: str, **details: Any) -> None:
    """Append one event to the learner's record (nothing when :func:`why_not_recording` says why not)."""
    if why_not_recording():
        return
    entry = {"time": round(time.time(), 3), "event": event, "exercise": exercise, "lesson": lesson, **details}
    line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
    path = progress_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(descriptor, line)  # one write of one short line: appended whole, even with two kernels
        finally:
            os.close(descriptor)
    except OSError as error:
        _warn_once(f"your progress could not be recorded in {path}: {error}")


def read_events(path: Path | None = None) -> list[dict]:
    """Every event of the record, in order; a damaged line is skipped with one warning naming it."""
    path = progress_file() if path is None else path
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as error:
        warnings.warn(f"your progress record {path} could not be read: {error}", stacklevel=2)
        return []
    lines = list(_lines(data))
    events: list[dict] = []
    damaged: list[int] = []
    for number, entry in zip((number for number, _ in lines), _parsed(lines), strict=True):
        if isinstance(entry, dict) and well_formed(entry):
            events.append(entry)
        else:
            damaged.append(number)
    if damaged:
        shown = ", ".join(map(str, damaged[:5])) + (" ..." if len(damaged) > 5 else "")
        warnings.warn(f"{path}: skipped {len(damaged)} damaged line(s) of your progress record (line {shown})",
                      stacklevel=2)
    return events


KINDS: dict[str, type | tuple[type, ...]] = {"time": (int, float), "verdict": str, "seed": int, "number": int,
                                             "lesson": str}


def _parsed(lines: list[tuple[int, bytes]]) -> list[object]:
    """Each line's JSON (None where it is not JSON): the whole record in one parse when no line is damaged."""
    try:
        whole = json.loads(b"[" + b",".join(line for _, line in lines) + b"]")
    except ValueError:
        whole = None
    if isinstance(whole, list) and len(whole) == len(lines):  # every line gave one value (none gave none: ",,")
        return whole
    found: list[object] = []
    for _, line in lines:
        try:
            found.append(json.loads(line))
        except ValueError:
            found.append(None)
    return found


def well_formed(entry: object) -> bool:
    """True for an event this module writes: its fields of the types it writes them with (any other is damaged)."""
    if not isinstance(entry, dict) or type(entry.get("event")) is not str or type(entry.get("exercise")) is not str:
        return False
    for name, kind in KINDS.items():
        value = entry.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
            return False
    slips = entry.get("slips", [])
    if type(slips) is not list:
        return False
    for group in slips:
        if type(group) is not list or any(type(code) is not str for code in group):
            return False
    return True


def _lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.strip():
            yield number, line


def reset(path: Path | None = None) -> None:
    """Empty the record (the file stays, empty; another kernel's next event is appended to it)."""
    path = progress_file() if path is None else path
    if path.exists():
        with open(path, "r+b") as handle:
            handle.truncate(0)


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, stacklevel=3)
