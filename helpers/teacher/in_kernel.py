"""What runs inside a learner's kernel while the grader runs the notebook (never imported by a lesson).

The grader starts each kernel with an IPython start-up file that calls
:func:`enter_grading_mode` before the first cell: it reads this notebook's
signing key from the file named in ``HELPERS_GRADING`` and deletes that file,
so every line of the check log is numbered and signed
(:func:`helpers.exercises.checklog.sign_lines`), and locks the answer key
(:func:`helpers.exercises.registry.lock_answer_key`), recording each refusal.
After the last cell the grader runs :func:`finish`, which records an ``end``
line naming the check functions the notebook replaced.

This is a tripwire, not a wall: code in the notebook runs in the same process
and could, with effort, reach the key or the gate. The grader's defence is
that it judges the recorded answers itself and refuses unsigned lines.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

GRADING_ENV = "HELPERS_GRADING"
WATCHED = ("check", "check_function", "solution", "reveal", "hint")
_originals: dict[str, object] = {}


def enter_grading_mode() -> bool:
    """Sign the log and lock the answer key for this kernel; False when not started by the grader."""
    key_file = os.environ.pop(GRADING_ENV, "")
    if not key_file:
        return False
    from helpers.exercises import checking, checklog, registry

    path = Path(key_file)
    key = path.read_bytes()
    path.unlink()
    checklog.sign_lines(key, os.environ.get(checklog.LOG_ENV, ""))
    registry.lock_answer_key(lambda exercise_id, what: checklog.record_event("answer-key", exercise_id, via=what))
    _originals.update({name: getattr(checking, name) for name in WATCHED})
    _originals.update(record=checklog.record, record_check=checklog.record_check)
    return True


def replaced_functions(namespace: dict) -> list[str]:
    """The check functions that are no longer the grader's: in the module, the package or the notebook."""
    from helpers import exercises
    from helpers.exercises import checking, checklog

    places = {
        "helpers.exercises.checking": checking,
        "helpers.exercises": exercises,
        "helpers.exercises.checklog": checklog,
    }
    found = [
        f"{where}.{name}"
        for where, module in places.items()
        for name, original in _originals.items()
        if hasattr(module, name) and getattr(module, name) is not original
    ]
    found += [
        f"{name} in the notebook"
        for name in WATCHED
        if name in namespace and callable(namespace[name]) and namespace[name] is not _originals.get(name)
    ]
    return found


def finish() -> None:
    """Record the end of the notebook, with the check functions it replaced (the grader's last cell)."""
    from IPython import get_ipython

    shell = get_ipython()
    namespace = shell.user_ns if shell is not None else vars(sys.modules["__main__"])
    record = _originals["record"]
    assert callable(record)
    record({"event": "end", "exercise": "-", "replaced": replaced_functions(namespace)})
