"""What a verdict depends on, as digests: a rerun grades again only the hand-ins whose fingerprint changed.

A notebook's fingerprint (:func:`notebook_fingerprint`) is the SHA-256 of

- the hand-in: the SHA-256 of its bytes as read before grading;
- what its learner is graded on: :meth:`helpers.teacher.plan.Plan.learner_digest` (their manifest entry,
  or ``--expect`` and their seeds without a manifest);
- the key version (:func:`key_version`): every exercise's points, the teacher's exercises as computed
  (worked answers, slips, hidden cases), the source of the grader's ``helpers`` (which judges, and computes the
  built-in lessons' keys when a notebook first needs them; not the modules that only write the tables and
  pages, :data:`OUTPUT_ONLY`), the keyless course the kernels import (helpers and data), the teacher's
  exercise files, and the versions of Python and of the libraries a lesson computes with;
- the run settings that can change a verdict (:func:`run_settings`): ``--timeout``, ``--memory``,
  ``--disk``, the sandbox and the kind of limits. (``--wall-timeout`` is not one: a notebook stopped by it
  is a grader-side ``load-timeout``, graded again by the next run whatever its fingerprint.)

Anything else (``--jobs``, the order of the hand-ins, the clock) leaves the verdict alone and the
fingerprint too.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import sys
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from helpers.teacher.manifest import canonical

# the distributions whose version can change what a graded notebook computes or how the grader judges it
LIBRARIES = ("ipykernel", "ipython", "numpy", "pandas", "matplotlib", "scipy", "pyarrow", "ipywidgets", "openpyxl",
             "pillow", "nbformat", "pyzmq")
SKIPPED = {"__pycache__", ".ipynb_checkpoints"}
# the grader's modules that only write what the records say (tables, pages, the bar, the classroom's tools):
# a change there rebuilds the files, never a verdict, so it does not change the key version; nor does the hub's
# kernel manager, which only learners' servers run
OUTPUT_ONLY = tuple(f"teacher/{name}.py" for name in ("reports", "lms", "progress", "shards", "classroom", "collect",
                                                      "release", "hub_kernels"))


def sha256(data: Any) -> str:
    """The SHA-256 of data as canonical JSON (:func:`helpers.teacher.manifest.canonical`)."""
    return hashlib.sha256(canonical(plain(data))).hexdigest()


def plain(value: Any) -> Any:
    """Data as JSON can hold it, the same on every run: dataclasses as their fields, sets sorted, numbers kept."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "inputs"}
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in sorted(value.items(), key=lambda pair: str(pair[0]))}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(item) for item in value), key=repr)
    if isinstance(value, float):
        return repr(value) if math.isnan(value) or math.isinf(value) else value
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return plain(value.tolist())
    return repr(value)


def answer_key_digest(key) -> str:
    """SHA-256 of an :class:`~helpers.teacher.judging.AnswerKey`: its points, and the answers, slips and cases it
    computed when built (a teacher's exercises; the built-in lessons', computed later, are digested as source)."""
    now = [i for i in key.points if i not in key.later and i not in key.broken]
    return sha256({"worked": {i: key.worked[i] for i in now if i in key.worked},
                   "cases": {i: key.cases[i] for i in now if i in key.cases}, "points": key.points,
                   "broken": key.broken, "texts": key.texts})


def files_digest(folder: Path, suffixes: Iterable[str] | None = None, skip: Iterable[str] = ()) -> str:
    """SHA-256 of every file under ``folder`` (its path inside and its bytes), caches and ``skip`` (paths
    inside the folder) left out; of the file alone when ``folder`` is a file (the one tree hash: the grader's
    fingerprints and the site's cache of run lessons)."""
    wanted = tuple(suffixes) if suffixes is not None else None
    skipped = set(skip)
    digest = hashlib.sha256()
    for path in [folder] if folder.is_file() else sorted(folder.rglob("*")):
        if not path.is_file() or SKIPPED & set(path.relative_to(folder).parts):
            continue
        if path.relative_to(folder).as_posix() in skipped:
            continue
        if wanted is not None and not path.name.endswith(wanted):
            continue
        digest.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def library_versions() -> dict[str, str]:
    """Python's version and each of :data:`LIBRARIES`' ('' for one not installed)."""
    found = {"python": sys.version.split()[0]}
    for name in LIBRARIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = ""
    return found


def key_version(key, course: Path, exercise_files: Iterable[Path] = ()) -> str:
    """The version of everything that judges a notebook or that it computes with (module docstring)."""
    import helpers

    grader = Path(helpers.__file__).resolve().parent
    return sha256({
        "answer_key": answer_key_digest(key),
        "grader": files_digest(grader, (".py",), skip=OUTPUT_ONLY),
        "course": files_digest(course, skip=[f"helpers/{name}" for name in OUTPUT_ONLY]),
        "exercise_files": [hashlib.sha256(Path(path).read_bytes()).hexdigest() for path in exercise_files],
        "libraries": library_versions(),
    })


def run_settings(timeout: float, memory_mb: int, sandbox: str, limits: str, disk_mb: int) -> dict[str, Any]:
    """The settings of a run that can change a verdict."""
    return {"timeout": float(timeout), "memory_mb": int(memory_mb), "sandbox": sandbox, "limits": limits,
            "disk_mb": int(disk_mb)}


def notebook_fingerprint(hand_in: str, learner: str, key: str, settings: dict[str, Any]) -> str:
    """SHA-256 of a hand-in's bytes digest, its learner's digest, the key version and the settings."""
    return sha256({"hand_in": hand_in, "learner": learner, "key": key, "settings": settings})
