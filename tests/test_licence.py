"""The collection says under which terms it is shared, and by whom: LICENSE, the README, the package, the site."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AUTHORS = "the Ranking metrics by hand contributors"


def test_the_licence_gives_the_code_mit_and_the_lessons_text_and_data_cc_by():
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in licence and "Permission is hereby granted, free of charge" in licence
    code, lessons = licence.split("The code is under the MIT licence", 1)[1].split("Creative Commons Attribution", 1)
    for folder in ("helpers/", "website/", "tests/", "binder/", "code cells of the notebooks"):
        assert folder in code
    for part in ("text cells of the notebooks", "README.md", "docs/", "data/"):
        assert part in lessons.split("----", 1)[0]
    assert f"Copyright (c) 2026 {AUTHORS}" in licence
    legal_code = (ROOT / "LICENSE-CC-BY-4.0.txt").read_text(encoding="utf-8")
    assert legal_code.startswith("Attribution 4.0 International")
    assert "Section 1 -- Definitions." in legal_code and "Section 8 -- Interpretation." in legal_code


def test_the_readme_names_the_licence_and_says_which_part_is_which():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Licence\n", 1)[1].split("\n## ", 1)[0]
    assert "[`LICENSE`](LICENSE)" in section and "MIT" in section and "CC BY 4.0" in section
    assert "`helpers/`" in section.split("MIT")[0] and "`data/`" in section.split("MIT")[1]


def test_the_package_and_the_website_name_the_authors_and_the_licence():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["authors"] == [{"name": AUTHORS}]
    assert project["license"] == "MIT AND CC-BY-4.0"
    assert all((ROOT / name).is_file() for name in project["license-files"])
    config = (ROOT / "website" / "_config.yml").read_text(encoding="utf-8")
    assert f"author: {AUTHORS}\n" in config and "MIT licence" in config and "CC BY 4.0" in config
