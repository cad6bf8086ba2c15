from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.catalogue import corpus_dir
from tests.servers import RecordingServer
from workbench.examples import example_path


@pytest.fixture(scope="session", autouse=True)
def _own_cache_folder(tmp_path_factory):
    """The session's cache folder (XDG_CACHE_HOME, the command lines it runs included), never the user's: what a
    test finds there is what the session put there."""
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture(scope="session")
def corpus() -> Path:
    path = corpus_dir()
    assert path.is_dir(), f"corpus not found at {path} (set WORKBENCH_CORPUS)"
    return path


@pytest.fixture
def write(tmp_path: Path):
    """Write a file under tmp_path (bytes or text, exactly as given: no newline translation)."""

    def _write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path

    return _write


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """The bundled example in a folder of the test's own (what the window writes beside it stays there)."""
    target = tmp_path / "shop-api.yaml"
    shutil.copyfile(example_path(), target)
    return target


@pytest.fixture
def server():
    """A real HTTP server on 127.0.0.1 recording every request (see tests/servers.py)."""
    recording = RecordingServer()
    yield recording
    recording.close()
