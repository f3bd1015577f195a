"""``python -m helpers.grade``: the short name of the teacher's grader, :mod:`helpers.teacher.grade`."""

from helpers.teacher.grade import main

if __name__ == "__main__":
    raise SystemExit(main())
