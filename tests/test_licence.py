"""The collection says under which terms it is shared, and by whom: LICENSE, the README, the package, the site."""

from __future__ import annotations

import re
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


def named_files(text: str) -> set[str]:
    """The files and folders a licence text names: ``helpers/``, ``tests/data/``, ``pyproject.toml``, ``README.md``."""
    words = {word.rstrip(".,;:") for word in re.findall(r"[\w./-]+", text.replace("`", " "))}
    return {word for word in words if ("/" in word or word.endswith((".md", ".toml"))) and not word.startswith("/")}


def licence_parts(text: str) -> tuple[str, str, str]:
    """The text's three parts: what is under MIT, what is under CC BY 4.0, and the credit line asked for."""
    code, rest = text.split("The code is under the MIT licence", 1)[1].split("The lessons' text and the data", 1)
    lessons = rest.split("Credit them as", 1)[0]
    credit = re.search(r'Credit them as\s+"([^"]+)"', " ".join(text.split())).group(1)
    return code, lessons, credit


def test_the_readme_names_the_licence_and_says_which_part_is_which():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Licence\n", 1)[1].split("\n## ", 1)[0]
    assert "[`LICENSE`](LICENSE)" in section and "MIT" in section and "CC BY 4.0" in section
    assert "`helpers/`" in section.split("CC BY")[0] and "`data/`" in section.split("CC BY")[1]


def test_the_readme_states_the_licence_split_as_the_licence_does_with_its_credit_line():
    """Every file or folder LICENSE names under each licence, the README names under the same one, and no other."""
    licence = licence_parts((ROOT / "LICENSE").read_text(encoding="utf-8").split("-" * 20, 1)[0])
    readme = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Licence\n", 1)[1].split("\n## ", 1)[0]
    stated = licence_parts(readme)
    assert named_files(stated[0]) == named_files(licence[0]) and "`helpers/`" in stated[0]
    assert named_files(stated[1]) == named_files(licence[1]) and "`data/`" in stated[1]
    flat = " ".join(readme.split())
    for words in ("requirements files", "code cells of the notebooks", "text cells of the notebooks"):
        assert words in flat
    assert stated[2] == licence[2] == f"Ranking metrics by hand, by {AUTHORS}, CC BY 4.0"
    assert "`tests/data/trec_eval/` holds trec_eval's test files, under trec_eval's own terms" in flat


def test_the_teacher_s_guide_says_how_to_reuse_a_lesson_with_its_credit_line():
    guide = (ROOT / "docs" / "teachers.md").read_text(encoding="utf-8")
    reuse = " ".join(guide.split("\n## Reuse a lesson in your course\n", 1)[1].split("\n## ", 1)[0].split())
    assert "CC BY 4.0" in reuse and "MIT" in reuse and "LICENSE-CC-BY-4.0.txt" in reuse
    assert f"Ranking metrics by hand, by {AUTHORS}, CC BY 4.0" in reuse
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/teachers.md#reuse-a-lesson-in-your-course)" in readme


def test_the_package_and_the_website_name_the_authors_and_the_licence():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["authors"] == [{"name": AUTHORS}]
    assert project["license"] == "MIT AND CC-BY-4.0"
    assert all((ROOT / name).is_file() for name in project["license-files"])
    config = (ROOT / "website" / "_config.yml").read_text(encoding="utf-8")
    assert f"author: {AUTHORS}\n" in config and "MIT licence" in config and "CC BY 4.0" in config
