"""The grader's JSON records read field by field, each of the type its writer gave it (release, grade).

A manifest, a notebook's result and a shard record are read back through :class:`Fields`: a field of the
wrong type, a missing one or one the record does not have raises ``ValueError`` naming it
(``learners[0].lessons: expected a list of text, got text '03'``), never a wrong value further on. These few
flat shapes need no schema library (jsonschema is no dependency of helpers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

REQUIRED: Any = object()  # the default of a field that must be there


def shown(value: Any) -> str:
    """A JSON value as the messages name it: its kind, then the value (shortened)."""
    kinds = {bool: "true/false", str: "text", int: "a number", float: "a number", list: "a list",
             dict: "an object", type(None): "null"}
    text = repr(value)
    return f"{kinds.get(type(value), type(value).__name__)} {text if len(text) <= 40 else text[:37] + '...'}"


class Fields:
    """One JSON object of a record; each method returns a field checked for its type, or raises ValueError."""

    def __init__(self, data: Any, where: str = "") -> None:
        if not isinstance(data, dict):
            raise ValueError(f"{where or 'the record'}: expected an object, got {shown(data)}")
        self.data, self.where = data, where

    def name(self, field: str) -> str:
        return f"{self.where}.{field}" if self.where else field

    def _get(self, field: str, default: Any, wanted: str, fits: Callable[[Any], bool]) -> Any:
        if field not in self.data:
            if default is REQUIRED:
                raise ValueError(f"{self.name(field)}: missing")
            return default
        value = self.data[field]
        if not fits(value):
            raise ValueError(f"{self.name(field)}: expected {wanted}, got {shown(value)}")
        return value

    def text(self, field: str, default: Any = REQUIRED) -> str:
        return self._get(field, default, "text", lambda v: isinstance(v, str))

    def optional_text(self, field: str) -> str | None:
        return self._get(field, None, "text or null", lambda v: v is None or isinstance(v, str))

    def whole(self, field: str, default: Any = REQUIRED) -> int:
        return self._get(field, default, "a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool))

    def optional_whole(self, field: str) -> int | None:
        return self._get(field, None, "a whole number or null",
                         lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)))

    def number(self, field: str, default: Any = REQUIRED) -> float:
        return self._get(field, default, "a number", _is_number)

    def flag(self, field: str, default: Any = REQUIRED) -> bool:
        return self._get(field, default, "true or false", lambda v: isinstance(v, bool))

    def texts(self, field: str, default: Any = REQUIRED) -> list[str]:
        found = self._get(field, default, "a list of text",
                          lambda v: isinstance(v, list) and all(isinstance(item, str) for item in v))
        return list(found)

    def text_map(self, field: str, default: Any = REQUIRED) -> dict[str, str]:
        found = self._get(field, default, "an object of text",
                          lambda v: isinstance(v, dict) and all(isinstance(item, str) for item in v.values()))
        return dict(found)

    def mapping(self, field: str, default: Any = REQUIRED) -> dict[str, Any]:
        return dict(self._get(field, default, "an object", lambda v: isinstance(v, dict)))

    def objects(self, field: str, default: Any = REQUIRED) -> list[Fields]:
        """A list of objects, each as Fields named ``field[i]``."""
        found = self._get(field, default, "a list", lambda v: isinstance(v, list))
        return [Fields(item, f"{self.name(field)}[{number}]") for number, item in enumerate(found)]

    def only(self, fields: Iterable[str]) -> None:
        """Refuse a field the record does not have (a newer writer's, or a typing slip)."""
        unknown = sorted(set(self.data) - set(fields))
        if unknown:
            raise ValueError(f"{self.name(unknown[0])}: not a field of this record")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
