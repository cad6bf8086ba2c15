from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def corpus_dir() -> Path:
    """The shared corpus, read in place (never copied into the repository)."""
    return Path(os.environ.get("WORKBENCH_CORPUS", REPO.parent / "shared" / "corpus"))


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
