"""The exercises of each lesson, one module per lesson; importing this package registers them all.

Each module registers all of its exercises or none (:func:`~helpers.exercises.registry.all_or_nothing`):
a mistake in one entry stops the import with that entry's own message, every time it is imported.
"""

from importlib import import_module

from helpers.exercises.registry import all_or_nothing

MODULES = ("lesson01", "lesson02", "lesson03", "lesson04", "lesson05", "lesson06", "lesson07", "lesson08",
           "lesson09", "variants")

for _name in MODULES:
    with all_or_nothing():
        import_module(f"{__name__}.{_name}")
