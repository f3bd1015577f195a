"""The teacher's commands: ``python -m helpers.teacher.grade`` (also ``python -m helpers.grade``)."""
