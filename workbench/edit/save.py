"""Saving a document: atomically (a temporary file in the same folder, then a rename), in the file's own
encoding and byte-order mark, keeping the previous version as a backup when asked."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path


def write_atomically(path: Path, text: str | Iterable[str], *, bom: bool = False, backup: bool = False) -> None:
    """Replace `path` with `text` so that readers see either the old file or the new one, never half. `text` may
    be pieces (a large output made as it is written): each is encoded and written as it comes. A path that is not a
    regular file (a device such as /dev/null, a FIFO, anything under /dev or /proc such as /dev/stdout) is written in
    place instead; a symbolic link to a file replaces the file it names, beside it, and stays a link."""
    pieces = [text] if isinstance(text, str) else text
    if path.is_symlink():
        target = path.resolve()
        if not _is_special(target) and (target.is_file() or not target.exists()):
            path = target  # replaced beside the file it names; the link stays a link
    if _is_special(path) or (path.exists() and not path.is_file()):
        # `--output /dev/null`, a FIFO, a terminal: renamed over, the device would become a plain file (as root,
        # for every program on the machine); it is written in place, as a shell's `>` does
        with path.open("wb") as handle:
            if bom:
                handle.write(b"\xef\xbb\xbf")
            for piece in pieces:
                handle.write(piece.encode("utf-8"))
        return
    folder = path.parent
    mode = path.stat().st_mode if path.exists() else None
    if backup and path.exists():
        shutil.copy2(path, path.with_name(path.name + ".bak"))
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            if bom:
                handle.write(b"\xef\xbb\xbf")
            for piece in pieces:
                handle.write(piece.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _is_special(path: Path) -> bool:
    """A path under /dev or /proc (`/dev/stdout` is a link to the process's own file descriptor)."""
    parts = path.absolute().parts
    return len(parts) > 1 and parts[1] in ("dev", "proc")
