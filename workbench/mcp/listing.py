"""The tools/list answer kept on disk between starts, so a desktop client that starts the server gets its
list before the spec is even loaded (converting GitHub's 4 MB spec takes about a second; reading the list
back, a few hundredths). An entry holds for the same spec files, config file, options and workbench code:
any of them changed, it is built again. The spec is still loaded and converted for the calls, after the
list is answered."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import workbench

FORMAT = 1
KEEP = 8  # entries kept: the newest, by when they were last written or read


def default_folder() -> Path:
    return workbench.cache_folder("mcp")


@dataclass
class Listing:
    name: str  # the server's name
    tools: list[dict]  # the tools/list answer's tools
    warnings: list[str] = field(default_factory=list)  # the start-up warnings (client limits)
    documents: dict[str, str] = field(default_factory=dict)  # every spec file read → its sha256


def file_digest(path: str | Path) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def code_fingerprint() -> str:
    """The workbench code as installed (every module's size and modification time): a change in how tools
    are built must not serve an old list."""
    root = Path(workbench.__file__).parent
    digest = hashlib.sha256(workbench.__version__.encode())
    for path in sorted(root.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def cache_key(spec_path: str | Path, config_path: str | Path | None, settings: dict[str, Any]) -> str | None:
    """The entry's name, or None when the spec cannot be read (loading it says why)."""
    spec_digest = file_digest(spec_path)
    if spec_digest is None:
        return None
    material = {"format": FORMAT, "code": code_fingerprint(), "spec": [str(Path(spec_path).resolve()), spec_digest],
                "config": [str(config_path), file_digest(config_path) if config_path else None],
                "settings": settings}
    return hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()


def read_listing(folder: Path, key: str) -> Listing | None:
    """The entry when every spec file it was built from is unchanged, else None."""
    try:
        data = json.loads((folder / f"{key}.json").read_text(encoding="utf-8"))
        listing = Listing(**data)
    except (OSError, ValueError, TypeError):
        return None
    if any(file_digest(path) != digest for path, digest in listing.documents.items()):
        return None
    with contextlib.suppress(OSError):
        os.utime(folder / f"{key}.json")  # recently used: kept when older entries go
    return listing


def write_listing(folder: Path, key: str, listing: Listing) -> None:
    """Best effort: a cache that cannot be written only costs the next start its second."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps(asdict(listing), ensure_ascii=False, separators=(",", ":"))
        workbench.replace_file(folder / f"{key}.json", text.encode("utf-8"))
        entries = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
