"""The register: every slip an exercise can name checked when it is written, each module or file all or nothing,
a broken teacher's file reported without stopping the lessons, unknown ids answered with the nearest ones."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from helpers import metrics, slips
from helpers.exercises import REGISTRY, Exercise, check, get, hint, register, registry
from helpers.exercises.worked import with_slips, worked_mrr
from tests.notebook_runner import notebook_path
from tests.test_processes import inner_run

ROOT = Path(__file__).resolve().parent.parent


def mrr_with(*own) -> Exercise:
    """MRR@3 of first ranks 2, 0, 1, 4 (0.375), the worked value with the author's own slips (with_slips)."""
    return Exercise(id="t-mrr3", lesson="01", question="MRR@3 of first ranks 2, 0, 1 and 4? Give 3 decimals.",
                    answer=lambda: with_slips(worked_mrr([2, 0, 1, 4], k=3), *own), hints=("a",))


def test_a_misspelt_slip_in_with_slips_is_refused_with_the_nearest_names(scratch):
    with pytest.raises(ValueError, match=r"exercise 't-mrr3': unknown slip 'before-the-chnage'; did you mean "
                                         r"'before-the-change'\?"):
        register(mrr_with((("before-the-chnage",), 0.3)))
    assert "t-mrr3" not in REGISTRY
    register(mrr_with((("before-the-change",), 0.3)))
    assert check("t-mrr3", "0.300").mistake == "before-the-change"


def test_a_slip_of_with_slips_that_gives_the_right_answer_is_refused(scratch):
    with pytest.raises(ValueError, match="slip before-the-change gives the right answer 0.375 at the asked 3 decimals, "
                                         "so check can never name it"):
        register(mrr_with((("before-the-change",), 0.3754)))
    assert "t-mrr3" not in REGISTRY


def test_a_built_in_slip_that_happens_to_give_the_answer_is_not_the_authors_fault(scratch):
    # no first rank is past 3, so ignoring the cut-off changes nothing: a worked_* slip, not the author's
    exercise = Exercise(id="t-mrr-all-in", lesson="01", question="MRR@3 of 1, 2, 3? Give 3 decimals.",
                        answer=lambda: worked_mrr([1, 2, 3], k=3), hints=("a",))
    worked = exercise.worked()
    assert any(codes == ("ignored-cutoff",) and value == worked.value for codes, value in worked.slips)
    register(exercise)
    assert check("t-mrr-all-in", f"{worked.value:.3f}").correct


def test_a_lesson_module_registers_all_of_its_exercises_or_none(scratch):
    with pytest.raises(ValueError, match="unknown slip 'ignored-cutof'"):
        with registry.all_or_nothing():
            slips.declare("t-own-slip", "a teacher's slip", "its fix")
            register(mrr_with())
            register(Exercise(id="t-second", lesson="01", question="q? Give 3 decimals.", hints=("a",),
                              answer=lambda: metrics.mean_reciprocal_rank([2, 0, 1]),
                              slips=lambda: [(("ignored-cutof",), 0.75)]))
    assert "t-mrr3" not in REGISTRY and "t-second" not in REGISTRY and "t-own-slip" not in slips.CATALOGUE


def project_copy(folder: Path) -> Path:
    for name in ("helpers", "data"):
        shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__", "*.xlsx"))
    return folder


def python(folder: Path, code: str, **env: str) -> subprocess.CompletedProcess:
    """Run code in a fresh Python with ``folder`` first on the path (a learner's kernel, a test run)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                          cwd=folder, env={**os.environ, "PYTHONPATH": str(folder), "PYTHONDONTWRITEBYTECODE": "1",
                                           "MPLBACKEND": "Agg", **env})


@pytest.mark.slow  # a fresh Python
def test_importing_the_lessons_exercises_computes_no_answer_until_one_is_looked_up():
    said = python(ROOT, """
        import json, sys
        from helpers.exercises import REGISTRY, Exercise, get, registry
        before = {"scipy": "scipy.stats" in sys.modules, "unchecked": len(registry.UNCHECKED),
                  "answers": sum(isinstance(e, Exercise) for e in REGISTRY.values())}
        get("paired-sign-flip-p")
        print(json.dumps({**before, "after": "scipy.stats" in sys.modules, "left": len(registry.UNCHECKED)}))
    """)
    result = json.loads(said.stdout)
    assert not result["scipy"], "lesson 09's p-value slips load scipy.stats only when that exercise is looked up"
    assert result["unchecked"] == result["answers"] > 30, "every answer exercise waits to be looked up"
    assert result["after"] and result["left"] == result["unchecked"] - 1


@pytest.mark.slow
def test_a_misspelt_slip_in_a_lesson_module_says_so_at_every_look_up_and_stops_a_test_run_once(tmp_path):
    folder = project_copy(tmp_path)
    module = folder / "helpers" / "exercises" / "lessons" / "lesson03.py"
    text = module.read_text(encoding="utf-8")
    module.write_text(text.replace('(("stale-ideal",),', '(("stale-idael",),', 1), encoding="utf-8")
    said = python(folder, """
        import json
        from helpers.exercises import check, get, hint
        errors = []
        for look_up in (lambda: get("kb04-graded-2"), lambda: check("kb04-graded-2", "0.5"),
                        lambda: hint("kb04-graded-2")):
            try:
                look_up()
            except ValueError as error:
                errors.append(str(error))
        sheet = get("sheet-ndcg3")
        right = check("sheet-ndcg3", f"{sheet.worked().value:.{sheet.decimals}f}")
        print(json.dumps({"errors": errors, "sheet-ndcg3": right.verdict.name}))
    """)
    result = json.loads(said.stdout)
    assert len(result["errors"]) == 3 and len(set(result["errors"])) == 1, result
    assert "exercise 'kb04-graded-2': unknown slip 'stale-idael'; did you mean 'stale-ideal'" in result["errors"][0]
    assert result["sheet-ndcg3"] == "RIGHT", "the lesson's other exercises are still judged"
    run = inner_run(folder, {"test_a.py": "import helpers.exercises\n\n\ndef test_a():\n    pass\n",
                             "test_b.py": "import helpers.exercises\n\n\ndef test_b():\n    pass\n"})
    assert run.returncode == 1, run.stdout[-2000:]
    assert run.stdout.count("unknown slip 'stale-idael'") == 1, run.stdout[-3000:]
    assert "already registered" not in run.stdout + run.stderr


BROKEN = """
from helpers.exercises import Exercise, register
register(Exercise(id="teacher-good-half", lesson="01", question="MRR of 1? Give 3 decimals.", answer=lambda: 1.0,
                  hints=("a",)))
register(Exercise(id="teacher-new-mrr", lesson="01", question="MRR of 2, 0, 1? Give 3 decimals.",
                  answer=lambda: 0.5, hints=("a",), slips=lambda: [(("droped-misses",), 0.75)]))
"""
GOOD = """
from helpers.exercises import Exercise, register
register(Exercise(id="teacher-other", lesson="02", question="DCG of [1]? Give 3 decimals.", answer=lambda: 1.0,
                  hints=("a",)))
"""


def setup_cells() -> str:
    """The code of the setup cells of lessons 01-09, one after the other, IPython's magics left out."""
    cells = []
    for lesson in ("01", "02", "03", "04", "05", "06", "07", "08", "09"):
        notebook = json.loads(notebook_path(lesson).read_text(encoding="utf-8"))
        source = next("".join(c["source"]) for c in notebook["cells"] if c["metadata"].get("tags") == ["setup"]
                      and c["cell_type"] == "code")
        cells.append("\n".join(line for line in source.splitlines() if not line.startswith("%")))
    return "\n".join(cells)


@pytest.mark.slow
def test_a_broken_teachers_file_is_reported_and_the_lessons_and_the_other_files_still_load(tmp_path):
    folder = project_copy(tmp_path)
    broken, good = tmp_path / "week2.py", tmp_path / "week3.py"
    broken.write_text(BROKEN, encoding="utf-8")
    good.write_text(GOOD, encoding="utf-8")
    said = python(folder, setup_cells() + textwrap.dedent("""
        import json
        from helpers.exercises import REGISTRY, exercises_of, registry
        print(json.dumps({"ids": sorted(REGISTRY), "lesson03": [e.id for e in exercises_of("03")],
                          "broken": {str(path): why for path, why in registry.BROKEN_FILES.items()},
                          "right": check("sheet-ndcg3", "1").verdict.name}))
    """), HELPERS_EXERCISES=os.pathsep.join([str(broken), str(good)]))
    assert said.returncode == 0, said.stderr[-3000:]
    result = json.loads(said.stdout.splitlines()[-1])
    assert "teacher-other" in result["ids"], "the other file still loads"
    assert "teacher-good-half" not in result["ids"] and "teacher-new-mrr" not in result["ids"], "none of the broken"
    assert result["lesson03"] == ["sheet-ndcg3", "kb04-graded-2", "helpdesk-mean-ndcg5"]
    assert result["broken"] == {str(broken): "exercise 'teacher-new-mrr': unknown slip 'droped-misses'; did you mean "
                                             "'dropped-misses'? Declare a new one with declare_slip('droped-misses', "
                                             "title, fix) before the exercise."}
    assert f"the teacher's exercise file {broken} was not loaded, so none of its exercises is" in said.stderr
    assert "did you mean 'dropped-misses'" in said.stderr


def test_a_broken_file_in_the_shared_folder_is_reported_and_skipped(scratch, tmp_path, monkeypatch):
    (tmp_path / "a_broken.py").write_text("from helpers.exercises import declare_slip\n"
                                          "declare_slip('t-teacher-slip', 'a title', 'a fix')\n" + BROKEN)
    (tmp_path / "b_good.py").write_text(GOOD)
    monkeypatch.setattr(registry, "EXTRA_EXERCISES_FOLDER", tmp_path)
    monkeypatch.delenv(registry.EXTRA_EXERCISES_ENV, raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert registry.load_extra_exercises() == ["teacher-other"]
    said = [str(w.message) for w in caught if issubclass(w.category, registry.ExerciseFileWarning)]
    assert len(said) == 1 and str(tmp_path / "a_broken.py") in said[0] and "droped-misses" in said[0]
    assert "t-teacher-slip" not in slips.CATALOGUE and "teacher-good-half" not in REGISTRY
    with pytest.raises(ValueError, match=r"the exercise file .*a_broken.py was not loaded: exercise 'teacher-new-mrr'"):
        registry.load_extra_exercises(str(tmp_path / "a_broken.py"))  # named on release's or grade's command line


def test_an_unknown_id_gets_the_nearest_known_ids_everywhere(tmp_path):
    for call in (lambda: get("sheet-ndcg"), lambda: check("sheet-ndcg", 0.5), lambda: hint("sheet-ndcg")):
        with pytest.raises(ValueError, match=r"unknown exercise id 'sheet-ndcg'; did you mean 'sheet-ndcg3'"):
            call()
    with pytest.raises(ValueError, match=r"unknown exercise id 'qqqq-zzzz' \(list_exercises\(\) shows all \d+\)"):
        get("qqqq-zzzz")
    with pytest.raises(TypeError, match="an exercise id is a string"):
        get(3)
    from helpers.exercises import assignment
    from helpers.exercises.questions import Question

    known = {"teacher-new-mrr": Question("teacher-new-mrr", "01", "answer", "q", "3 decimals", 1.0, 3)}
    assignment.questions.cache_clear()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(assignment, "read_questions", lambda: known)
            with pytest.raises(ValueError, match=r"unknown exercise id 'teacher-new-mr3'; did you mean "
                                                 r"'teacher-new-mrr'\?"):
                assignment.get("teacher-new-mr3")
            # an assignment's check records a typo for the grader (unknown-exercise) and says so, never raises
            said = assignment.check("teacher-new-mr3", 0.5)
            assert not said.correct and "did you mean 'teacher-new-mrr'?" in said.message, said.message
    finally:
        assignment.questions.cache_clear()
