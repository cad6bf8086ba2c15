"""Saving a document: atomically (a temporary file in the same folder, then a rename), as UTF-8 with the file's
byte-order mark if it had one, keeping the previous version as a backup when asked. (A UTF-16 file, which is
read, is written back as UTF-8.)"""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterable
from pathlib import Path

from workbench import remove_leftovers, replace_file


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
    mode = path.stat().st_mode if path.exists() else None
    if backup and path.exists():
        shutil.copy2(path, path.with_name(path.name + ".bak"))
    remove_leftovers(path)
    encoded = (piece.encode("utf-8") for piece in pieces)
    replace_file(path, itertools.chain([b"\xef\xbb\xbf"] if bom else [], encoded), durable=True,
                 mode=None if mode is None else mode & 0o7777)


def _is_special(path: Path) -> bool:
    """A path under /dev or /proc (`/dev/stdout` is a link to the process's own file descriptor)."""
    parts = path.absolute().parts
    return len(parts) > 1 and parts[1] in ("dev", "proc")
