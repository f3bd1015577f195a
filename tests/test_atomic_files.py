"""helpers.teacher.files: the one atomic write (whole or not at all, synced, no leftovers), the one plain read."""

from __future__ import annotations

import os
import stat

import pytest

from helpers.teacher import files
from helpers.teacher.files import (
    atomic_open,
    atomic_path,
    open_plain,
    read_without_links,
    temporary_for,
    write_text_atomic,
)


def test_write_text_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "record.json"
    target.write_text("old", encoding="utf-8")
    assert write_text_atomic(target, "new é") == target
    assert target.read_text(encoding="utf-8") == "new é"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["record.json"]


def test_an_error_in_the_block_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    target = tmp_path / "gradebook.csv"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError, match="half way"), atomic_open(target) as handle:
        handle.write("half a ")
        raise RuntimeError("half way")
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gradebook.csv"]


def test_the_temporary_is_hidden_beside_the_target_and_named_by_process(tmp_path):
    target = tmp_path / "answers.csv"
    assert temporary_for(target) == tmp_path / f".answers.csv.{os.getpid()}.part"
    with atomic_path(target) as temporary:
        assert temporary == temporary_for(target)
        assert temporary.exists()
        temporary.write_bytes(b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert not temporary.exists()


def test_a_private_file_is_readable_by_its_owner_alone(tmp_path):
    target = tmp_path / "manifest.json"
    stale = temporary_for(target)
    stale.write_text("left by a crash", encoding="utf-8")
    stale.chmod(0o644)
    with atomic_open(target, private=True) as handle:
        handle.write("{}")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.read_text(encoding="utf-8") == "{}"


def test_a_plain_file_takes_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "page.html", "<p>")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "page.html").stat().st_mode) == 0o644


def test_the_file_is_synced_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(descriptor: int) -> None:
        events.append("fsync folder" if stat.S_ISDIR(os.fstat(descriptor).st_mode) else "fsync file")
        real_fsync(descriptor)

    def replace(source, target) -> None:
        events.append("replace")
        real_replace(source, target)

    monkeypatch.setattr(files.os, "fsync", fsync)
    monkeypatch.setattr(files.os, "replace", replace)
    write_text_atomic(tmp_path / "shard.json", "{}")
    with atomic_path(tmp_path / "book.xlsx") as temporary:
        temporary.write_bytes(b"PK")
    assert events == ["fsync file", "replace", "fsync folder"] * 2


def test_a_plain_file_is_read_and_a_link_a_folder_or_a_pipe_is_refused(tmp_path):
    plain = tmp_path / "ann.ipynb"
    plain.write_bytes(b'{"cells": []}')
    assert read_without_links(plain) == b'{"cells": []}'
    (tmp_path / "link.ipynb").symlink_to(plain)
    os.mkfifo(tmp_path / "pipe.ipynb")
    for refused in ("link.ipynb", "pipe.ipynb", "."):
        with pytest.raises(OSError):
            read_without_links(tmp_path / refused)
    with open_plain(plain) as file:
        assert file.read(2) == b'{"'
