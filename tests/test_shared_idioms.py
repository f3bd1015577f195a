"""Each idiom written once (issue 49): "did you mean", dropping cells by role, hashing a tree, reading check() calls,
writing atomically, reading without links, finding processes."""

from __future__ import annotations

import ast
import doctest
from pathlib import Path

from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from helpers import _checks
from helpers.exercises.calls import check_calls
from helpers.teacher import roles
from helpers.teacher.fingerprint import files_digest
from helpers.teacher.grade import unknown_message
from helpers.teacher.logbook import did_you_mean as named_with_nearest


def test_did_you_mean_is_one_lookup_in_three_phrasings():
    known = ["explain-rr-mean", "ndcg-3", "mrr-1"]
    assert _checks.close_names("explain-rr-mea", known) == ["explain-rr-mean"]
    assert _checks.close_names("zzz", known) == []
    assert _checks.did_you_mean("explain-rr-mea", known) == "; did you mean 'explain-rr-mean'?"
    assert named_with_nearest("explain-rr-mea", known) == "'explain-rr-mea' (did you mean 'explain-rr-mean'?)"
    assert "explain-rr-mea (ann.ipynb): did you mean 'explain-rr-mean'?" in unknown_message(
        {"explain-rr-mea": ["ann.ipynb"]})


def test_cells_are_dropped_by_role_and_an_untagged_cell_is_a_lesson_cell():
    lesson = new_notebook(cells=[
        new_markdown_cell("Step", metadata={"tags": ["lesson"]}),
        new_code_cell("check('x', answer)", metadata={"tags": ["exercise"]}),
        new_code_cell("0.6181", metadata={"tags": ["solution"]}),
        new_code_cell("x = 1"),
    ])
    kept = roles.without_roles(lesson, ("exercise", "solution"))
    assert kept is lesson and [cell.source for cell in kept.cells] == ["Step", "x = 1"]
    assert doctest.testmod(roles).failed == 0
    assert doctest.testmod(_checks).failed == 0


def test_a_tree_hash_follows_paths_and_bytes_and_a_file_is_hashed_alone(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.py").write_text("1")
    (tmp_path / "a" / "__pycache__").mkdir()
    (tmp_path / "a" / "__pycache__" / "x.pyc").write_bytes(b"cache")
    before = files_digest(tmp_path / "a")
    (tmp_path / "a" / "__pycache__" / "x.pyc").write_bytes(b"other cache")
    assert files_digest(tmp_path / "a") == before, "caches do not count"
    (tmp_path / "a" / "x.py").write_text("2")
    assert files_digest(tmp_path / "a") != before
    single = files_digest(tmp_path / "a" / "x.py")
    assert len(single) == 64 and single != files_digest(tmp_path / "a")
    (tmp_path / "a" / "x.py").write_text("3")
    assert files_digest(tmp_path / "a" / "x.py") != single


# Each idiom of issue 49 and the one module that may write it; the same call anywhere else in the code, the tests
# or the benchmarks is a second copy. A process is looked up, waited on and signalled through psutil (which
# refuses a reused process id), never by reading /proc or with os.kill; os.killpg (a process group, which psutil
# lacks) is not counted.
ONE_PLACE = {
    # atomic write: write_text_atomic, atomic_open, atomic_path (and its test, which watches the calls)
    "os.replace": {"helpers/teacher/files.py", "tests/test_atomic_files.py"},
    "os.rename": set(),
    "os.fsync": {"helpers/teacher/files.py", "tests/test_atomic_files.py"},
    "os.kill": set(),
    "difflib": {"helpers/_checks.py"},  # did you mean: close_names
    # read without links: files.open_plain; the sandbox opens each file it hands bwrap as a descriptor
    "O_NOFOLLOW": {"helpers/teacher/files.py", "helpers/teacher/sandbox.py"},
}
# /proc read only by the sandbox and the cgroup limits (their docstrings say why psutil cannot: the limits also write a
# process's autogroup niceness, which psutil does not set), and by the
# adversary's code that the grader's tests run inside the sandbox, and by the memory benchmark (a process's own peak,
# VmHWM: psutil has none on Linux, and ru_maxrss keeps the parent's peak through exec), and by the browser tests'
# free_port (the range of ports for binds to port 0, which psutil does not give)
PROC_READERS = {"helpers/teacher/sandbox.py", "helpers/teacher/limits.py", "helpers/teacher/kernel.py",
                "tests/test_grade_limits.py", "tests/test_grade_assignment.py", "benchmarks/bench_evaluate.py",
                "tests/browser/servers.py"}
SCANNED = ("helpers", "tests", "benchmarks", "website", "deploy")


def python_files():
    """(path, text) of every Python file scanned, this one (which names every idiom) left out."""
    root = Path(__file__).resolve().parent.parent
    for folder in SCANNED:
        for path in sorted((root / folder).rglob("*.py")):
            if path != Path(__file__).resolve():
                yield path.relative_to(root).as_posix(), path.read_text(encoding="utf-8")


def names_used(tree: ast.AST) -> set[str]:
    """Dotted names the code uses (os.replace, difflib, O_NOFOLLOW), from its attributes and imports."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            found |= {f"{node.value.id}.{node.attr}", node.attr}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(alias.name for alias in node.names)}
    return found


def test_each_idiom_is_written_in_its_one_module():
    seen: dict[str, set[str]] = {name: set() for name in ONE_PLACE}
    proc = set()
    for path, text in python_files():
        used = names_used(ast.parse(text))
        for name in ONE_PLACE:
            if name in used:
                seen[name].add(path)
        if "O_NOFOLLOW" in text:  # files.py asks getattr(os, "O_NOFOLLOW", 0)
            seen["O_NOFOLLOW"].add(path)
        if "/proc/" in text:
            proc.add(path)
    assert seen == ONE_PLACE
    assert proc <= PROC_READERS, proc - PROC_READERS


def test_check_calls_are_read_by_the_one_parser_not_by_patterns():
    patterns = {path for path, text in python_files() for node in ast.walk(ast.parse(text))
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and "check\\(" in node.value
                and "gives" not in node.value}  # test_release matches the message a release prints, not a cell
    assert patterns == set()
    calls = check_calls("check('ap-1', f(answer))  # check('no', 1)\ncheck_function(exercise_id='fn-1', fn=dcg)")
    assert [(call.function, call.exercise_id, call.argument) for call in calls] == [
        ("check", "ap-1", "f(answer)"), ("check_function", "fn-1", "dcg")]
