"""The exercises of each lesson, one module per lesson; importing this package registers them all."""

from helpers.exercises.lessons import (  # noqa: F401 (each module registers its exercises)
    lesson01,
    lesson02,
    lesson03,
    lesson04,
    lesson05,
    lesson06,
    lesson07,
    lesson08,
    lesson09,
    variants,
)
