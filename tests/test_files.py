"""`workbench.replace_file`: the one atomic write of saves and caches."""

from __future__ import annotations

import os
import stat
import time

import pytest

from workbench import remove_leftovers, replace_file


def test_the_file_is_replaced_whole_from_bytes_or_pieces(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes(b"old")
    replace_file(path, b"new")
    assert path.read_bytes() == b"new"
    replace_file(path, (piece for piece in [b"one ", b"", b"two"]), durable=True)
    assert path.read_bytes() == b"one two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]  # no temporary file left


def test_a_new_file_gets_the_umask_s_mode_and_a_given_mode_wins(tmp_path):
    old = os.umask(0o027)
    try:
        replace_file(tmp_path / "new", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new").st_mode) == 0o640  # as a shell's `>` makes it
    replace_file(tmp_path / "given", b"x", mode=0o604)
    assert stat.S_IMODE(os.stat(tmp_path / "given").st_mode) == 0o604


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    path = tmp_path / "kept.txt"
    path.write_bytes(b"old")

    def pieces():
        yield b"half"
        raise RuntimeError("the producer failed")

    with pytest.raises(RuntimeError, match="producer failed"):
        replace_file(path, pieces())
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]


def test_a_folder_that_does_not_exist_is_an_error_not_a_file_elsewhere(tmp_path):
    with pytest.raises(FileNotFoundError):
        replace_file(tmp_path / "missing" / "a.json", b"x")
    assert list(tmp_path.iterdir()) == []


def test_a_long_name_gets_a_temporary_name_the_file_system_takes(tmp_path):
    path = tmp_path / ("n" * 240)
    replace_file(path, b"x")
    assert path.read_bytes() == b"x"


def test_only_old_leftovers_of_that_file_are_removed(tmp_path):
    path = tmp_path / "spec.yaml"
    old_leftover = tmp_path / ".spec.yaml.0a1b2c3d.tmp"  # a write killed before its rename
    young_leftover = tmp_path / ".spec.yaml.99aa88bb.tmp"  # maybe another run's write, going on
    others = [tmp_path / ".other.yaml.0a1b2c3d.tmp", tmp_path / ".spec.yaml.swp", tmp_path / ".spec.yaml.0a1b.tmp"]
    for file in [old_leftover, young_leftover, *others]:
        file.write_bytes(b"")
    an_hour_ago = time.time() - 3600
    for file in [old_leftover, *others]:
        os.utime(file, (an_hour_ago, an_hour_ago))
    remove_leftovers(path)
    assert not old_leftover.exists()
    assert young_leftover.exists() and all(file.exists() for file in others)
    remove_leftovers(tmp_path / "missing" / "spec.yaml")  # a folder that is not there: nothing to do, no error
