"""The ``check("id", answer)`` and ``check_function("id", fn)`` calls of a cell, read by Python's own parser.

Release, grading, per-learner variants and the exercise scaffold all ask which
exercises a cell checks; they ask here. A call counts only as code: one in a
comment or a string does not. The id must be a string literal (positional or
``exercise_id=``); the second argument is kept as written (``f(answer)`` whole).
A cell Python cannot parse (a learner's typo, an IPython ``%magic`` or ``!shell``
line) is read again without those lines, then line by line, so one bad line
does not hide the checks of the others.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

CHECKERS = {"check": "answer", "check_function": "fn"}  # function -> the name of its second parameter


@dataclass(frozen=True)
class CheckCall:
    """One call in a cell: which function, the exercise id, the second argument's source ('' when missing)."""

    function: str
    exercise_id: str
    argument: str
    line: int

    @property
    def passes_answer(self) -> bool:
        """True for ``check(id, answer)`` itself, the call an exercise cell of a learner's copy holds."""
        return self.function == "check" and self.argument == "answer"


def check_calls(source: str) -> list[CheckCall]:
    """Every check / check_function call of ``source`` with a literal exercise id, in reading order.

    >>> [(c.exercise_id, c.argument) for c in check_calls('check("ap-1", f(answer))  # check("no", 1)')]
    [('ap-1', 'f(answer)')]
    """
    found: list[tuple[int, int, CheckCall]] = []
    for chunk, first_line in _parsable(source):
        found += _calls_in(ast.parse(chunk), chunk, first_line)
    return [call for _, _, call in sorted(found, key=lambda place: place[:2])]


def ids_checked(source: str) -> list[str]:
    """The exercise ids ``source`` checks (check and check_function), in reading order."""
    return [call.exercise_id for call in check_calls(source)]


def _parsable(source: str) -> list[tuple[str, int]]:
    """The source as pieces Python parses, each with the number of its first line."""
    if _parses(source):
        return [(source, 1)]
    lines = source.splitlines()
    without_magics = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)
    if _parses(without_magics):
        return [(without_magics, 1)]
    return [(line.strip(), number) for number, line in enumerate(lines, start=1) if _parses(line.strip())]


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):  # ValueError: a NUL byte in the source
        return False
    return True


def _calls_in(tree: ast.AST, source: str, first_line: int) -> list[tuple[int, int, CheckCall]]:
    """(line, column, call) of every check call of a parsed piece."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = _name_of(node.func)
        if function not in CHECKERS:
            continue
        exercise_id = _argument(node, 0, "exercise_id")
        if not (isinstance(exercise_id, ast.Constant) and isinstance(exercise_id.value, str)):
            continue
        second = _argument(node, 1, CHECKERS[function])
        argument = "" if second is None else ast.get_source_segment(source, second) or ast.unparse(second)
        line = first_line + node.lineno - 1
        found.append((line, node.col_offset, CheckCall(function, exercise_id.value, argument, line)))
    return found


def _name_of(function: ast.expr) -> str:
    """'check' for ``check(...)`` and for ``exercises.check(...)``; '' for anything else."""
    if isinstance(function, ast.Name):
        return function.id
    return function.attr if isinstance(function, ast.Attribute) else ""


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)
