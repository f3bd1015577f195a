"""The exercises of the lessons: questions, the checker that names the slip, hints and solutions on demand.

>>> from helpers.exercises import exercise, check, check_function, hint, solution, practice, progress

Two kinds of copy use the same names. A practice copy (the repository, or
``release --practice``) holds the answer key, :mod:`helpers.exercises.lessons`:
``check`` judges and names the slip, ``solution`` and ``reveal`` work. An
assignment copy (``release --assignment``, and the kernel in which the grader
runs a notebook) holds only ``questions.json``: ``check`` records what it read,
and the grader judges in its own process (:mod:`helpers.exercises.assignment`).
"""

from helpers.exercises.checking import CheckResult, Revealed, Shown, Verdict, judge
from helpers.exercises.questions import is_assignment_copy

if is_assignment_copy():
    from helpers.exercises.assignment import (
        check,
        check_function,
        exercise,
        hint,
        list_exercises,
        mistake_values,
        practice,
        reveal,
        solution,
    )
else:
    from helpers.exercises import lessons as _lessons  # registers every lesson's exercises
    from helpers.exercises.checking import (
        check,
        check_function,
        exercise,
        hint,
        list_exercises,
        mistake_values,
        reveal,
        solution,
    )
    from helpers.exercises.practising import practice
from helpers.exercises import record
from helpers.exercises.checklog import LOG_ENV
from helpers.exercises.own_progress import Progress, progress
from helpers.exercises.registry import (
    REGISTRY,
    Exercise,
    FunctionExercise,
    declare_slip,
    exercises_of,
    get,
    load_extra_exercises,
    register,
)
from helpers.exercises.runner import Case, FunctionReport
from helpers.exercises.worked import Worked

if not is_assignment_copy():
    load_extra_exercises()  # a teacher's exercise files named in $HELPERS_EXERCISES

__all__ = [
    "is_assignment_copy",
    "LOG_ENV",
    "REGISTRY",
    "Case",
    "CheckResult",
    "Exercise",
    "FunctionExercise",
    "FunctionReport",
    "Revealed",
    "Shown",
    "Verdict",
    "Worked",
    "check",
    "check_function",
    "declare_slip",
    "exercise",
    "exercises_of",
    "get",
    "hint",
    "judge",
    "list_exercises",
    "load_extra_exercises",
    "mistake_values",
    "practice",
    "progress",
    "Progress",
    "record",
    "register",
    "reveal",
    "solution",
]
