"""The collection's website: built by ``python -m website.build`` (see build.py)."""
