"""Names printed by the teacher's tools: control characters in a file, folder or learner id are shown escaped.

A hand-in folder named with escape sequences (clear the screen, set the window title, a bell, a colour, a
carriage return that would let a fake line overwrite the real one) is graded, and the terminal's text holds
none of them raw; nbformat's warnings about a hand-in's duplicate cell ids never reach the terminal.
"""

from __future__ import annotations

import json

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from helpers.teacher.names import has_control, shown
from helpers.teacher.submissions import read_notebook

HOSTILE = "ann\x1b[2J\x1b]0;owned\x07\x1b[32mALL 53 NOTEBOOKS GRADED OK\r\u202egpj.\x9b"


@pytest.mark.parametrize("name, printed", [
    ("ann", "ann"),
    ("ann\x1b[2J", "ann\\x1b[2J"),
    ("a\rb\nc\td\x07", "a\\x0db\\x0ac\\x09d\\x07"),
    ("x\x9by\x7f", "x\\x9by\\x7f"),
    ("abc\u202edef\u2066", "abc\\u202edef\\u2066"),
    ("Zoë Ñandú 李", "Zoë Ñandú 李"),
])
def test_a_name_is_printed_with_its_control_characters_escaped(name, printed):
    assert shown(name) == printed
    assert not has_control(shown(name))


def test_duplicate_cell_ids_are_noted_not_printed(capfd):
    notebook = new_notebook(cells=[new_code_cell("1"), new_code_cell("2")])
    for cell in notebook.cells:
        cell.id = "same"
    notes: list[str] = []
    read = read_notebook(json.dumps(notebook).encode(), notes)
    assert len({cell.id for cell in read.cells}) == 2
    assert len(notes) == 1 and "same" in notes[0]
    read_notebook(json.dumps(notebook).encode())  # no list: dropped
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""


@pytest.mark.slow
def test_an_escape_named_hand_in_folder_reaches_the_terminal_escaped(tmp_path, capfd):
    from helpers.teacher.grade import main

    folder = tmp_path / "subs" / HOSTILE
    folder.mkdir(parents=True)
    (folder / "01\x1b[31m.ipynb").write_bytes(b"not a notebook")
    twice = new_notebook(cells=[new_code_cell("1"), new_code_cell("2")])
    for cell in twice.cells:
        cell.id = "twice"
    (tmp_path / "subs" / "bob").mkdir()
    (tmp_path / "subs" / "bob" / "01.ipynb").write_text(json.dumps(twice), encoding="utf-8")
    code = main([str(tmp_path / "subs"), "--out", str(tmp_path / "out"), "--sandbox", "none", "--timeout", "120"])
    captured = capfd.readouterr()
    printed = captured.out + captured.err
    assert code == 0
    assert "ann\\x1b[2J\\x1b]0;owned\\x07" in printed  # the learner is named, escaped
    for raw in ("\x1b", "\x07", "\r", "\u202e", "\x9b"):
        assert raw not in printed
    assert "Non-unique cell id" not in printed
