"""Collect one lesson's notebooks from the learners' home folders into a submissions folder for the grader.

Usage::

    python -m helpers.teacher.collect PATTERN --out SUBMISSIONS [--users NAME,NAME | --hub URL]

``PATTERN`` names the notebooks (quote it, so the shell leaves the ``*`` alone):

- ``'/home/*/ranking-metrics/notebooks/03*.ipynb'``: each learner is the part
  of the path the *first* wildcard part matches (here the home folder's name);
- ``'/home/jupyter-{user}/ranking-metrics/notebooks/03*.ipynb'``: the learner is
  what ``{user}`` stands for (The Littlest JupyterHub names homes ``jupyter-<user>``);
- ``'/home/{user}/ranking-metrics/notebooks/{user}/03*.ipynb'``: each learner's own
  copy of a release with a roster (``notebooks/<roster id>/``); ``{user}`` may come
  again as a whole folder name, and only paths where it is the same learner count.

``--users`` (names) or ``--hub`` (a JupyterHub's user list, read with the token in
``$JUPYTERHUB_API_TOKEN``; admins are left out) says who should have handed in:
only they are collected, and those with no notebook are listed. Each notebook is
copied to ``SUBMISSIONS/<learner>.ipynb`` with its modification time, and
``SUBMISSIONS/collected.csv`` records where each came from, when it was last
changed and its SHA-256. Then grade as usual::

    python -m helpers.grade SUBMISSIONS --out grades/ --jobs 2

Refused, with nothing written: a pattern that matches nothing, two notebooks for
one learner (narrow the pattern), an ``--out`` folder that is not empty. A
notebook reached through a symbolic link inside a learner's folder is skipped
and named (it could point into another learner's home).
"""

from __future__ import annotations

import argparse
import csv
import glob
import hashlib
import json
import os
import shlex
import sys
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from helpers.teacher.files import read_without_links
from helpers.teacher.names import shown

USER_FIELD = "{user}"
WILDCARDS = ("*", "?", "[")
MANIFEST = "collected.csv"
PAGINATION = "application/jupyterhub-pagination+json"


class Refused(ValueError):
    """A pattern, folder or user list the collection refuses before copying anything."""


@dataclass(frozen=True)
class Found:
    """One learner's notebook: who, and where it is."""

    learner: str
    path: Path


@dataclass(frozen=True)
class Collection:
    """What a pattern found: a notebook per learner, the learners with none, the links skipped."""

    found: list[Found]
    missing: list[str]
    skipped: list[Path]


@dataclass(frozen=True)
class Pattern:
    """A notebook pattern split where the learner's name sits: part ``index``, between ``prefix`` and ``suffix``."""

    text: str
    index: int
    prefix: str
    suffix: str
    named: bool  # True when the learner is spelled {user}; False when it is the first wildcard part
    again: tuple[int, ...] = ()  # the parts that are {user} once more (notebooks/{user}/): the same learner

    @classmethod
    def parse(cls, text: str) -> Pattern:
        """Check a pattern and find the learner's part in it (see the module docstring)."""
        if not isinstance(text, str):
            raise TypeError(f"the pattern must be text, got {type(text).__name__}")
        if not text.endswith(".ipynb"):
            raise Refused(f"the pattern {text!r} must name notebooks: end it with .ipynb (e.g. 03*.ipynb)")
        parts = Path(text).parts
        with_field = [i for i, part in enumerate(parts) if USER_FIELD in part]
        if with_field:
            index, again = with_field[0], tuple(with_field[1:])
            if parts[index].count(USER_FIELD) > 1 or any(parts[i] != USER_FIELD for i in again):
                raise Refused(f"the pattern {text!r} holds {USER_FIELD} more than once: after the home folder it "
                              f"may come again only as a whole folder name (notebooks/{USER_FIELD}/)")
            prefix, suffix = parts[index].split(USER_FIELD)
            if any(mark in prefix + suffix for mark in WILDCARDS):
                raise Refused(f"in {parts[index]!r} only {USER_FIELD} may vary: remove the wildcard next to it")
            return cls(text, index, prefix, suffix, named=True, again=again)
        wild = [i for i, part in enumerate(parts) if any(mark in part for mark in WILDCARDS)]
        if not wild:
            raise Refused(
                f"the pattern {text!r} names no learner: put {USER_FIELD} or a * where the learner's folder is"
            )
        return cls(text, wild[0], "", "", named=False)

    def for_user(self, user: str | None) -> str:
        """The glob for one user (their name escaped), or for every learner (None)."""
        if not self.named:
            return self.text
        return self.text.replace(USER_FIELD, "*" if user is None else glob.escape(user))

    def learner_of(self, path: Path) -> str:
        """The learner a matched path belongs to."""
        part = path.parts[self.index]
        if self.named:
            return part[len(self.prefix) : len(part) - len(self.suffix)]
        return Path(part).stem if self.index == len(path.parts) - 1 else part

    def one_learner(self, path: Path) -> bool:
        """True when every {user} of the pattern is the same learner in this path (ann's home, ann's folder)."""
        learner = self.learner_of(path)
        return all(path.parts[i] == learner for i in self.again)

    def learner_folder(self, path: Path) -> Path:
        """The folder (or file) the learner's part names: nothing below it may be a link."""
        return Path(*path.parts[: self.index + 1])


def check_learner(name: str) -> str:
    """A learner name that can be a file name: not empty, no slash, not '.' or '..'."""
    if not name or "/" in name or name in (".", "..") or "\0" in name:
        raise Refused(f"{name!r} cannot name a learner's file: check the pattern and the user list")
    return name


def followed_link(pattern: Pattern, path: Path) -> bool:
    """True when the path goes through a symbolic link at or below the learner's folder."""
    top = pattern.learner_folder(path)
    if path.is_symlink():
        return True
    below = path.relative_to(top)
    return os.path.realpath(path) != os.path.join(os.path.realpath(top), below)


def find(pattern_text: str, users: Sequence[str] | None = None) -> Collection:
    """Every learner's notebook for the pattern; with ``users``, only theirs and who has none.

    Raises :class:`Refused` when nothing matches or a learner has two notebooks.
    """
    pattern = Pattern.parse(pattern_text)
    wanted = None if users is None else [check_learner(user) for user in users]
    if wanted is not None and pattern.named:
        matches = [path for user in wanted for path in glob.glob(pattern.for_user(user), recursive=True)]
    else:
        matches = glob.glob(pattern.for_user(None), recursive=True)
    by_learner: dict[str, list[Path]] = {}
    skipped = []
    for match in sorted(dict.fromkeys(matches)):
        path = Path(match)
        if ".ipynb_checkpoints" in path.parts or not path.is_file() or not pattern.one_learner(path):
            continue
        if followed_link(pattern, path):
            skipped.append(path)
            continue
        learner = check_learner(pattern.learner_of(path))
        if wanted is None or learner in wanted:
            by_learner.setdefault(learner, []).append(path)
    if not by_learner:
        said = f" for the {len(wanted)} learners given" if wanted is not None else ""
        raise Refused(f"no notebook matches {pattern_text!r}{said}")
    twice = {learner: paths for learner, paths in by_learner.items() if len(paths) > 1}
    if twice:
        lines = "; ".join(f"{learner}: {', '.join(map(str, paths))}" for learner, paths in sorted(twice.items()))
        raise Refused(f"more than one notebook for a learner ({lines}): narrow the pattern to one file each")
    found = [Found(learner, paths[0]) for learner, paths in sorted(by_learner.items())]
    missing = sorted(set(wanted) - set(by_learner)) if wanted is not None else []
    return Collection(found, missing, skipped)


def check_out(out: Path) -> Path:
    """The submissions folder: new or empty, so no earlier learner's file is mixed in."""
    out = out.expanduser().resolve()
    if out.exists() and not out.is_dir():
        raise Refused(f"--out {out} is a file: give a folder for the submissions")
    if out.is_dir() and any(out.iterdir()):
        raise Refused(f"--out {out} is not empty: collect into a new folder")
    return out


def copy_all(collection: Collection, out: Path) -> list[Path]:
    """Copy each notebook to ``out/<learner>.ipynb`` (keeping its time) and write the manifest; return the copies."""
    out.mkdir(parents=True, exist_ok=True)
    copies, rows = [], []
    for item in collection.found:
        target = out / f"{item.learner}.ipynb"
        data = read_without_links(item.path)
        target.write_bytes(data)
        stat = item.path.stat()
        os.utime(target, (stat.st_atime, stat.st_mtime))
        changed = datetime.fromtimestamp(stat.st_mtime, tz=UTC).isoformat(timespec="seconds")
        rows.append([item.learner, str(item.path), changed, len(data), hashlib.sha256(data).hexdigest()])
        copies.append(target)
    with open(out / MANIFEST, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["learner", "source", "modified_utc", "bytes", "sha256"])
        writer.writerows(rows)
    return copies


def hub_users(url: str, token: str | None, opener=urllib.request.urlopen) -> list[str]:
    """The names of a JupyterHub's users who are not admins, read page by page from its REST API."""
    if not token:
        raise Refused("--hub needs a token with the scope list:users in $JUPYTERHUB_API_TOKEN")
    api = url.rstrip("/")
    api = api if api.endswith("/hub/api") else f"{api}/hub/api"
    names: list[str] = []
    offset = 0
    while True:
        query = urllib.parse.urlencode({"offset": offset, "limit": 200})
        request = urllib.request.Request(
            f"{api}/users?{query}", headers={"Authorization": f"token {token}", "Accept": PAGINATION}
        )
        try:
            with opener(request, timeout=30) as response:
                page = json.load(response)
        except OSError as error:  # urllib's URLError and HTTPError are OSErrors
            raise Refused(f"--hub {url}: the user list could not be read ({error})") from None
        names += [user["name"] for user in page["items"] if not user.get("admin")]
        following = (page.get("_pagination") or {}).get("next")
        if not following:
            return names
        offset = following["offset"]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line of ``python -m helpers.teacher.collect``."""
    parser = argparse.ArgumentParser(
        prog="python -m helpers.teacher.collect",
        description="Copy one lesson's notebook from every learner's home into SUBMISSIONS/<learner>.ipynb.",
    )
    parser.add_argument("pattern", help="e.g. '/home/*/ranking-metrics/notebooks/03*.ipynb' (quoted)")
    parser.add_argument("--out", type=Path, required=True, help="the submissions folder to fill (new or empty)")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--users", help="the learners expected, comma-separated; the others are left alone")
    who.add_argument("--hub", help="a JupyterHub's URL: its users (not admins) are the learners expected")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Collect; 0 when copied, 2 when refused."""
    args = parse_args(argv)
    try:
        users = None
        if args.users is not None:
            users = [name.strip() for name in args.users.split(",") if name.strip()]
        elif args.hub:
            users = hub_users(args.hub, os.environ.get("JUPYTERHUB_API_TOKEN"))
        out = check_out(args.out)
        collection = find(args.pattern, users)
        copies = copy_all(collection, out)
    except (Refused, TypeError, OSError) as error:
        print(f"python -m helpers.teacher.collect: error: {shown(error)}", file=sys.stderr)
        return 2
    learners = ", ".join(shown(item.learner) for item in collection.found)
    print(f"collected {len(copies)} notebooks into {shown(out)}: {learners}")
    if collection.missing:
        print(f"no notebook for {len(collection.missing)}: {', '.join(map(shown, collection.missing))}")
    for path in collection.skipped:
        print(f"skipped {shown(path)}: it goes through a symbolic link")
    print(f"next: python -m helpers.grade {shown(shlex.quote(str(out)))} --out <grades folder>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
