"""`workbench.replace_file`: the one atomic write of saves and caches."""

from __future__ import annotations

import os
import stat

import pytest

from workbench import replace_file


def test_the_file_is_replaced_whole_from_bytes_or_pieces(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes(b"old")
    replace_file(path, b"new")
    assert path.read_bytes() == b"new"
    replace_file(path, (piece for piece in [b"one ", b"", b"two"]), durable=True)
    assert path.read_bytes() == b"one two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]  # no temporary file left


def test_the_mode_is_given_and_otherwise_private(tmp_path):
    replace_file(tmp_path / "given", b"x", mode=0o640)
    assert stat.S_IMODE(os.stat(tmp_path / "given").st_mode) == 0o640
    replace_file(tmp_path / "private", b"x")
    assert stat.S_IMODE(os.stat(tmp_path / "private").st_mode) == 0o600


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
