"""Record every check in the JSON-lines file named by $HELPERS_CHECK_LOG (read by helpers.grade)."""


import json
import os
import warnings

LOG_ENV = "HELPERS_CHECK_LOG"

# --- recording outcomes for the grader -----------------------------------------


def result_fields(result) -> dict:
    return {
        "exercise": result.exercise,
        "correct": bool(result.correct),
        "mistake": result.mistake,
        "message": result.message,
    }


def record(entry: dict) -> None:
    """Append one JSON line to the file named by $HELPERS_CHECK_LOG, when it is set."""
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
    except OSError as error:
        warnings.warn(f"could not record the check in {path}: {error}", stacklevel=3)


