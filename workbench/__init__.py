"""Agent Spec Workbench: make an OpenAPI document trustworthy as a set of tools for language-model agents."""

import importlib
import os
import sys
from collections.abc import Iterable
from pathlib import Path

__version__ = "0.1.0"


def lazy_exports(package: str, homes: dict[str, str]):
    """A package's module `__getattr__` that imports each name it exports from its module (`homes`: name → module
    of the package) when first asked for, so that importing one module of the package does not import them all."""

    def __getattr__(name: str):
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def cache_folder(name: str) -> Path:
    """Where the workbench keeps what it can rebuild (`name`: one kind of thing), in the user's cache folder:
    $XDG_CACHE_HOME, else ~/.cache; never in a project."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agent-spec-workbench" / name


def replace_file(path: Path, data: bytes | Iterable[bytes], *, durable: bool = False, mode: int | None = None) -> None:
    """Replace `path` with `data` (bytes, or pieces of them written as they come) through a temporary file in the
    same folder and a rename: a reader (another run, another thread) sees the old file or the new one, never half.
    `durable` puts the bytes on the disk before the rename (a user's file; a cache can be rebuilt instead); `mode`
    is the new file's (else the temporary file's own, readable by its owner only). On any failure the temporary
    file is removed and the error raised: every atomic write of the workbench, saves and caches, is this one."""
    import tempfile  # only by a command that writes a file: not every command's start-up

    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name[:48]}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            for piece in [data] if isinstance(data, bytes) else data:
                handle.write(piece)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
