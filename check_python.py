"""The README's first command runs this first: a Python older than the collection needs is told so in one line.

Written for any Python (no f-strings): it must run, and speak, where the collection cannot.
"""

import sys

NEEDED = (3, 11)  # pyproject.toml's requires-python

if sys.version_info[:2] < NEEDED:
    found = "%d.%d" % tuple(sys.version_info[:2])  # noqa: UP031 -- old Pythons read this file too
    sys.exit("Python %s found; the collection needs %d.%d or newer" % ((found,) + NEEDED))  # noqa: UP031
