"""The exercises of the lessons: questions, the checker that names the slip, hints and solutions on demand.

>>> from helpers.exercises import exercise, check, check_function, hint, solution
"""

from helpers.exercises import lessons as _lessons  # noqa: F401 (registers every lesson's exercises)
from helpers.exercises.checking import (
    CheckResult,
    Revealed,
    Shown,
    Verdict,
    check,
    check_function,
    exercise,
    hint,
    judge,
    list_exercises,
    mistake_values,
    reveal,
    solution,
)
from helpers.exercises.checklog import LOG_ENV
from helpers.exercises.registry import (
    REGISTRY,
    Exercise,
    FunctionExercise,
    exercises_of,
    get,
    load_extra_exercises,
    register,
)
from helpers.exercises.runner import Case, FunctionReport
from helpers.exercises.worked import Worked

load_extra_exercises()  # a teacher's exercise files named in $HELPERS_EXERCISES

__all__ = [
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
    "exercise",
    "exercises_of",
    "get",
    "hint",
    "judge",
    "list_exercises",
    "load_extra_exercises",
    "mistake_values",
    "register",
    "reveal",
    "solution",
]
