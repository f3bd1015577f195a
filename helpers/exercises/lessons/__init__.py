"""The exercises of each lesson, one module per lesson; importing this package registers them all.

Each module registers all of its exercises or none (:func:`~helpers.exercises.registry.all_or_nothing`):
a mistake in an entry's fields stops the import with that entry's own message, every time it is imported.
Their answers are not computed at import (:func:`~helpers.exercises.registry.checked_on_first_use`): a slip
that is misspelt or gives the right answer is refused, with the same message, whenever its exercise is looked
up, and the test run checks every entry before any test.
"""

from importlib import import_module

from helpers.exercises.registry import all_or_nothing, checked_on_first_use

MODULES = ("lesson01", "lesson02", "lesson03", "lesson04", "lesson05", "lesson06", "lesson07", "lesson08",
           "lesson09", "variants")

with checked_on_first_use():
    for _name in MODULES:
        with all_or_nothing():
            import_module(f"{__name__}.{_name}")
