"""The lowest version of every dependency pyproject.toml declares, lessons extra included, as pip constraints.

``.ci/run`` writes them (``python tests/lowest_bounds.py``) for the venv of tests/test_lowest_versions.py, which uv
installs with every declared dependency pinned at its lower bound and everything else at its newest. It needs only
the standard library and ``packaging``, the venv's first install.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
EXTRA = "lessons"


def lowest_bounds(pyproject: Path = PYPROJECT) -> dict[str, str]:
    """Each dependency of the package and its ``lessons`` extra -> its declared lower bound (issue 49)."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    bounds = {}
    for text in project["dependencies"] + project["optional-dependencies"][EXTRA]:
        requirement = Requirement(text)
        lows = [spec.version for spec in requirement.specifier if spec.operator in (">=", "==", "~=")]
        if len(lows) != 1:
            raise ValueError(f"pyproject.toml: {text!r} declares {len(lows)} lower bounds, not one")
        bounds[requirement.name] = lows[0]
    return bounds


if __name__ == "__main__":
    print("\n".join(f"{name}=={version}" for name, version in lowest_bounds().items()))
