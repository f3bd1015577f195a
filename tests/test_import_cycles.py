"""No import cycle among the modules of helpers/: each module's imports point one way (the whole package).

Read from the source with ``ast``, nothing imported. Every import statement counts: at the top of a module,
inside a function, and under ``if TYPE_CHECKING:``. A lazy import that exists to dodge a cycle is still a
cycle: a reader who follows it comes back where they started, and it works only because of the order in
which Python happens to run the modules. ``from package import name`` points at the submodule when ``name``
is one, else at the package's ``__init__``. Modules loaded by name (``importlib.import_module``) are not
followed.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from itertools import pairwise
from pathlib import Path

HELPERS = Path(__file__).resolve().parents[1] / "helpers"

Imports = dict[str, dict[str, int]]  # module -> module it imports -> the line of that import


def module_names(package: Path) -> dict[str, Path]:
    """Dotted name -> file, for every module of the package folder (a package is its ``__init__.py``)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> list[str]:
    """The modules one import statement names: a submodule when ``from x import name`` names one, else ``x``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:  # relative: from the module's own package, one level up per extra dot
        here = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]


def import_graph(package: Path) -> Imports:
    """Each module -> the modules of the same package it imports anywhere in its file, with the line."""
    modules = module_names(package)
    graph: Imports = {}
    for module, path in modules.items():
        graph[module] = {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target in imported(module, path.name == "__init__.py", node, set(modules)):
                    if target in modules and target != module:
                        graph[module].setdefault(target, node.lineno)
    return graph


def a_cycle(graph: Imports) -> list[str]:
    """One cycle of imports as 'a (line N) imports b', ... ([] when there is none)."""
    try:
        TopologicalSorter({module: set(targets) for module, targets in graph.items()}).prepare()
    except CycleError as error:
        ring = error.args[1]  # [a, b, ..., a], each importing the one before it
        return [f"{after} (line {graph[after][before]}) imports {before}" for before, after in pairwise(ring)]
    return []


def test_no_module_of_helpers_imports_one_that_imports_it_back():
    cycle = a_cycle(import_graph(HELPERS))
    assert cycle == [], "an import cycle in helpers/ (move the shared part into a module both import):\n" + "\n".join(
        cycle)


def test_a_lazy_or_type_checking_import_that_closes_a_circle_is_found(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.high import H\n")
    (package / "high.py").write_text("from pkg import low\n")
    (package / "side.py").write_text("def later():\n    from .high import H\n")
    (package / "back.py").write_text("from pkg.side import later\n")
    graph = import_graph(package)
    assert graph["pkg.high"] == {"pkg.low": 1} and graph["pkg.side"] == {"pkg.high": 2}
    assert sorted(a_cycle(graph)) == ["pkg.high (line 1) imports pkg.low", "pkg.low (line 3) imports pkg.high"]
    (package / "low.py").write_text("")
    assert a_cycle(import_graph(package)) == []
