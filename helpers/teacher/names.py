"""One way to print a name: a file, a folder, a learner id or text from a notebook, with its control characters shown.

Whatever the teacher's tools print that a learner could have chosen (the name of
a hand-in, a folder, a roster id, an exercise id read from a notebook) goes
through :func:`shown`, so that an escape sequence in a file name cannot clear
the teacher's screen, print a fake line or set the window's title, and a
right-to-left override cannot turn a name around. Each such character is
written as its Python escape: ``\\x1b``, ``\\r``, ``\\u202e``.

>>> shown("ann\\x1b[2J.ipynb")
'ann\\\\x1b[2J.ipynb'
"""

from __future__ import annotations

# the bidirectional controls (they reorder what follows them on screen) and the line and paragraph separators
BIDI_AND_SEPARATORS = frozenset("\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def is_control(character: str) -> bool:
    """True for C0 and C1 control characters (ESC, CR, BEL, newline, ...), DEL and the bidi controls."""
    code = ord(character)
    return code < 0x20 or 0x7F <= code <= 0x9F or character in BIDI_AND_SEPARATORS


def escaped(character: str) -> str:
    """A control character as Python writes it in a string: '\\x1b', '\\u202e'."""
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(name: object) -> str:
    """A name as printed by the teacher's tools: every control character (:func:`is_control`) escaped.

    ``name``: a file or folder name, a path, a learner id, an error naming them, or any text from a hand-in.
    """
    text = str(name)
    if not any(is_control(character) for character in text):
        return text
    return "".join(escaped(character) if is_control(character) else character for character in text)


def has_control(text: str) -> bool:
    """True when ``text`` holds a character :func:`shown` would escape."""
    return any(is_control(character) for character in text)
