"""Per-learner numbers in an assignment: each learner of a roster gets their own variant of each exercise that has
variants (``release --assignment --roster FILE --secret FILE``), and the grader recomputes each learner's key.

The variant's seed is derived from the learner's roster id and a course secret
that the teacher keeps (:func:`learner_seed`, an HMAC-SHA256): the secret never
goes into a copy, so nobody can derive another learner's numbers, and a
neighbour's answers do not fit. The release writes each learner's lessons to
``notebooks/<roster id>/``, the question cells of the variant exercises showing
that learner's data; the grader (``grade --secret FILE``) takes the learner
from the hand-in's folder or file name, as ever, and judges it against that
learner's variant. With ``collect`` on a hub, the hub user name is the roster id.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import re
import secrets
import unicodedata
from pathlib import Path

import nbformat
from nbformat.v4 import new_markdown_cell

from helpers.exercises.calls import check_calls
from helpers.exercises.fresh import VARIANTS, Variant, draw
from helpers.exercises.worked import Worked
from helpers.teacher.names import has_control, shown

SECRET_BYTES = 32
ROSTER_FORMULA_START = ("=", "+", "-", "@")  # what a spreadsheet runs as a formula at the start of a cell
ON_THE_LESSON = "This one is on the lesson's own numbers, not on your table."


def read_secret(path: Path, create: bool = False) -> bytes:
    """The course secret in ``path`` (hex); with ``create``, a new one is written there first if it is missing."""
    if create and not path.exists():
        path.write_text(secrets.token_hex(SECRET_BYTES) + "\n", encoding="utf-8")
        path.chmod(0o600)
    try:
        secret = bytes.fromhex(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: not a course secret (64 hex digits): {error}") from None
    if len(secret) < 16:
        raise ValueError(f"{path}: a course secret needs at least 32 hex digits")
    return secret


def read_roster(path: Path) -> list[str]:
    """Roster ids, one per line, or a CSV whose column ``learner`` holds them; each once, none empty; in NFC.

    An id a spreadsheet could run as a formula (beginning with = + - @) or holding a control character is
    refused, naming its line: the ids are written as they are into the gradebooks an LMS imports.
    """
    text = unicodedata.normalize("NFC", path.read_text(encoding="utf-8-sig"))
    numbered = [(number, line) for number, line in enumerate(re.split(r"\r\n|\n", text), start=1) if line.strip()]
    lines = [line for _, line in numbered]
    if lines and "," in lines[0] and "learner" in [name.strip() for name in lines[0].split(",")]:
        ids = [row["learner"].strip() for row in csv.DictReader(lines)]
        numbered = numbered[1:]
    else:
        ids = [line.strip() for line in lines]
    if not ids or any(not learner for learner in ids):
        raise ValueError(f"{path}: a roster lists one learner id per line (or a CSV column 'learner')")
    for (number, _), learner in zip(numbered, ids, strict=False):
        if roster_id_problem(learner):
            raise ValueError(f"{shown(path)} line {number}: {roster_id_problem(learner)}")
    repeated = sorted({learner for learner in ids if ids.count(learner) > 1})
    if repeated:
        raise ValueError(f"{path}: learner ids listed twice: {', '.join(repeated)}")
    unsafe = [learner for learner in ids if "/" in learner or learner in (".", "..")]
    if unsafe:
        raise ValueError(f"{path}: a learner id cannot be a path: {', '.join(unsafe)}")
    return ids


def roster_id_problem(learner: str) -> str:
    """'' for an id a roster may hold, else why not: it begins with = + - @ (a spreadsheet's formula) or holds a
    control character (:func:`helpers.teacher.names.has_control`)."""
    if learner.startswith(ROSTER_FORMULA_START):
        return (f"the id {shown(learner)} begins with {learner[0]}, which a spreadsheet takes for a formula (the "
                "gradebooks an LMS imports hold the ids as they are): give this learner an id that begins with a "
                "letter or a digit")
    if has_control(learner):
        return (f"the id {shown(learner)} holds a control character (shown escaped), which a terminal or a "
                "spreadsheet would act on: give this learner an id of printable characters")
    return ""


def learner_seed(secret: bytes, learner: str, exercise_id: str) -> int:
    """The seed of one learner's variant of one exercise: an HMAC of both under the course secret."""
    digest = hmac.new(secret, f"{learner}\0{exercise_id}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:6], "big")


def learner_variant(secret: bytes, learner: str, exercise_id: str) -> Variant:
    """One learner's variant of one exercise."""
    return draw(exercise_id, learner_seed(secret, learner, exercise_id))


def learner_key(secret: bytes, learner: str) -> dict[str, Worked]:
    """Exercise id -> the worked answer of this learner's variant, for every exercise with variants."""
    return {exercise_id: learner_variant(secret, learner, exercise_id).worked for exercise_id in VARIANTS}


def question_cell(exercise_id: str, variant: Variant | None = None, seed: int | None = None) -> nbformat.NotebookNode:
    """A learner's own question cell: the variant's question and its data as a table (the variant, or its seed)."""
    if variant is None:
        assert seed is not None
        variant = draw(exercise_id, seed)
    table = _markdown_table(variant)
    cell = new_markdown_cell(f"**Your own numbers** (exercise `{exercise_id}`). {variant.question}\n\n{table}")
    cell.metadata = {"tags": ["exercise"]}
    return cell


def variant_digest(exercise_id: str, seed: int) -> str:
    """SHA-256 of a variant's question, data and answer: the same seed must give this again when grading."""
    variant = draw(exercise_id, seed)
    text = f"{variant.question}\0{variant.data.to_csv(index=False)}\0{variant.worked.value!r}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def own_texts(exercise_ids: list[str], seeds: dict[str, int]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """exercise id -> (question, hints) in a learner's own numbers, for the feedback page.

    A variant's question and its hints (a variant-neutral hint where its
    generator writes none); an exercise without variants that shares a lesson
    with one says that it is on the lesson's own numbers.
    """
    from helpers.exercises import REGISTRY

    texts: dict[str, tuple[str, tuple[str, ...]]] = {}
    personal_lessons = {REGISTRY[i].lesson for i in seeds if i in REGISTRY}
    for exercise_id in exercise_ids:
        exercise = REGISTRY.get(exercise_id)
        if exercise is None:
            continue
        if exercise_id in seeds:
            variant = draw(exercise_id, seeds[exercise_id])
            hints = tuple(getattr(variant, "hints", ()) or ()) or (neutral_hint(exercise_id),)
            texts[exercise_id] = (f"{variant.question} (your own numbers: {_inline_table(variant)})", hints)
        elif exercise.lesson in personal_lessons and exercise.kind == "answer":
            texts[exercise_id] = (f"{exercise.question} {ON_THE_LESSON}", tuple(exercise.hints))
    return texts


def neutral_hint(exercise_id: str) -> str:
    """A hint true for every variant, for a variant whose generator writes no hints of its own."""
    return (f"Your numbers are your own: redo the lesson's steps for {exercise_id} on the table of your notebook, "
            "one line per rank, then check each sum before dividing.")


def personalised(notebook: nbformat.NotebookNode, secret: bytes, learner: str) -> nbformat.NotebookNode:
    """A learner's copy of a released lesson: each variant exercise's question cell shows their numbers,
    and in such a lesson every other exercise says it is on the lesson's own numbers, with its whole question."""
    from helpers.exercises import REGISTRY

    copy = nbformat.from_dict(notebook)
    checks = [(index, [c for c in check_calls(cell.source) if c.passes_answer]) for index, cell in enumerate(copy.cells)
              if cell.cell_type == "code" and index > 0 and "exercise" in cell.get("metadata", {}).get("tags", [])]
    found = [(index, calls[0].exercise_id) for index, calls in checks if calls]
    if any(exercise_id in VARIANTS for _, exercise_id in found):
        for index, exercise_id in found:
            if exercise_id in VARIANTS:
                copy.cells[index - 1] = question_cell(exercise_id, learner_variant(secret, learner, exercise_id))
            elif copy.cells[index - 1].cell_type == "markdown" and exercise_id in REGISTRY:
                copy.cells[index - 1].source += f"\n\n*{ON_THE_LESSON}* {REGISTRY[exercise_id].question}"
    copy.metadata.setdefault("helpers", {})["per_learner"] = True
    return copy


def _inline_table(variant: Variant) -> str:
    """A variant's data in one line: 'rank 1, 2, 3; grade 3, 0, 2'."""
    return "; ".join(f"{name} {', '.join(str(v) for v in variant.data[name])}" for name in variant.data.columns)


def _markdown_table(variant: Variant) -> str:
    """A DataFrame as a Markdown table (no tabulate needed)."""
    columns = [str(name) for name in variant.data.columns]
    rows = [" | ".join(str(value) for value in row) for row in variant.data.itertuples(index=False)]
    return "\n".join([" | ".join(columns), " | ".join("---" for _ in columns), *rows])
