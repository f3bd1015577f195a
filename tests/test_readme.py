"""The README's two set-up commands stay true: CI runs exactly the test command."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Set-up: two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def test_readme_gives_exactly_two_setup_commands():
    commands = readme_commands()
    assert len(commands) == 2
    open_command, test_command = commands
    assert "requirements.txt" in open_command and "jupyter lab" in open_command
    assert "requirements-test.txt" in test_command and "pytest" in test_command
    assert "ruff check ." in test_command  # and mypy, as a test of the slow tier (tests/test_types.py)
    assert test_command.endswith("python -m pytest -n 2"), "every tier, on both cores (pytest-xdist)"


def test_ci_runs_the_readme_test_command():
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert readme_commands()[1] in ci_lines


def test_ci_installs_its_background_venvs_with_the_uv_the_readme_pins():
    pinned = re.findall(r"uv==([0-9.]+)", readme_commands()[1])
    assert len(pinned) == 1
    assert set(re.findall(r"uv==([0-9.]+)", (ROOT / ".ci" / "run").read_text(encoding="utf-8"))) == set(pinned)


def test_the_notebook_the_open_command_names_exists():
    opened = readme_commands()[0].split()[-1]
    assert (ROOT / opened).is_file()


def test_learner_requirements_hold_no_test_tools():
    learner = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    for tool in ("pytest", "hypothesis", "playwright", "ruff", "mypy"):
        assert tool not in learner


def test_the_learners_guide_lists_every_slip_a_checker_can_name():
    from helpers import slips

    text = (ROOT / "docs" / "learners.md").read_text(encoding="utf-8")
    listed = text.split("<!-- slip-list", 1)[1].split("<!-- /slip-list -->", 1)[0]
    codes = re.findall(r"^- `([a-z0-9-]+)`: (.+)$", listed, flags=re.M)
    assert dict(codes) == {code: mistake.title for code, mistake in slips.CATALOGUE.items()}


def test_the_open_command_reads_the_repository_jupyterlab_settings():
    """JUPYTER_CONFIG_PATH points JupyterLab at jupyter-config/, whose defaults turn the news pop-up off."""
    import json

    open_command = readme_commands()[0]
    folder = re.search(r"JUPYTER_CONFIG_PATH=(\S+) ", open_command)
    assert folder is not None
    overrides = json.loads((ROOT / folder.group(1) / "labconfig" / "default_setting_overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"


def section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_fits_on_a_screen_of_150_lines():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 150


def test_the_website_is_built_by_one_command_that_installs_its_builder():
    commands = re.findall(r"```bash\n(.+?)\n```", section("Build the website"), flags=re.S)
    assert len(commands) == 1 and "\n" not in commands[0]
    assert "requirements-site.txt" in commands[0] and commands[0].endswith("-m website.build")
    assert (ROOT / "requirements-site.txt").is_file() and (ROOT / "website" / "build.py").is_file()
    assert "-r requirements-site.txt" in (ROOT / "requirements-test.txt").read_text(encoding="utf-8")


def test_the_readme_shows_practice_and_per_learner_assignments():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert 'practice("' in text and "from helpers.exercises import practice" in text
    release = next(line for line in text.splitlines() if "helpers.release" in line and "--roster" in line)
    grade = next(line for line in text.splitlines() if "helpers.grade" in line and "--assignment" in line)
    assert "--assignment" in release and "--secret" in release and "--manifest" in release and "--out" in grade


def test_every_relative_link_of_the_readme_and_the_guides_leads_to_a_file():
    for page in ("README.md", "docs/learners.md", "docs/teachers.md", "docs/contributors.md", "benchmarks/README.md"):
        path = ROOT / page
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            assert (path.parent / target.split("#", 1)[0]).exists(), f"{page} links to {target}, which is not there"


def test_the_readme_links_every_guide():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for guide in ("docs/learners.md", "docs/teachers.md", "docs/contributors.md", "benchmarks/README.md"):
        assert f"]({guide})" in text
