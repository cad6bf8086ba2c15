from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.catalogue import corpus_dir
from tests.servers import RecordingServer
from workbench.examples import example_path


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
