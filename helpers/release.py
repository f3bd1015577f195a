"""``python -m helpers.release``: the short name of the learners' copies, :mod:`helpers.teacher.release`."""

from helpers.teacher.release import main

if __name__ == "__main__":
    raise SystemExit(main())
