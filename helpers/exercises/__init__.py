"""The exercises of the lessons and their checker: ``check``, ``check_function``, ``reveal`` and the list."""

from helpers.exercises.checklog import LOG_ENV
from helpers.exercises.registry import (
    EXERCISES,
    FUNCTION_EXERCISES,
    CheckResult,
    Exercise,
    Revealed,
    Solution,
    check,
    check_function,
    get_exercise,
    get_function_exercise,
    list_exercises,
    mistake_values,
    reveal,
)
from helpers.exercises.runner import FunctionExercise, FunctionReport

__all__ = [
    "EXERCISES",
    "FUNCTION_EXERCISES",
    "LOG_ENV",
    "CheckResult",
    "Exercise",
    "FunctionExercise",
    "FunctionReport",
    "Revealed",
    "Solution",
    "check",
    "check_function",
    "get_exercise",
    "get_function_exercise",
    "list_exercises",
    "mistake_values",
    "reveal",
]
