"""Where a spec version comes from: a file, or `git:REV:PATH` read from the spec's own repository with
`git show` (no checkout). A revision's files are written to a temp folder that mirrors the repository (the
root and every file its relative `$ref`s reach, read from the same revision), then loaded from there; the
documents are then named `git:REV:PATH` so every place in a report says which version it is in."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from workbench.spec import RefPolicy, Spec, SpecError, load_spec

PREFIX = "git:"
_REF = re.compile(r"""["']?\$ref["']?\s*:\s*["']?([^"'#\s,}]+)""")
_MAX_FILES = 500
_GIT_TIMEOUT = 30.0


class GitSource(NamedTuple):
    rev: str
    path: Path  # in the working tree (the config beside it applies)
    root: Path  # the repository's top level
    relative: str  # PATH from the root, POSIX


def parse(text: str) -> GitSource | None:
    """`git:REV:PATH` → where to read it; None for a plain path. PATH is taken from the current directory."""
    if not text.startswith(PREFIX):
        return None
    rev, sep, path = text[len(PREFIX):].partition(":")
    if not sep or not rev or not path:
        raise SpecError("expected git:REV:PATH (e.g. git:main:api.yaml)", text)
    absolute = Path(path).resolve()
    folder = absolute.parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent  # the file (or its folder) may not exist in the working tree any more
    top = _git(["rev-parse", "--show-toplevel"], folder, text).strip()
    root = Path(top).resolve()
    try:
        relative = absolute.relative_to(root).as_posix()
    except ValueError:
        raise SpecError(f"{path} is not inside the repository at {root}", text) from None
    return GitSource(rev, absolute, root, relative)


def config_path(text: str) -> Path:
    """The working-tree path whose config applies to this version."""
    source = parse(text)
    return source.path if source is not None else Path(text)


def load(text: str, policy: RefPolicy | None = None) -> Spec:
    source = parse(text)
    if source is None:
        return load_spec(text, policy)
    _git(["rev-parse", "--verify", "--quiet", f"{source.rev}^{{commit}}"], source.root, text)
    folder = Path(tempfile.mkdtemp(prefix="workbench-git-"))
    try:
        _write_tree(source, folder, text)
        spec = load_spec(folder / source.relative, policy)
    except SpecError as exc:
        exc.file = exc.file.replace(os.fspath(folder / source.relative), text)
        raise
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    prefix = os.fspath(folder)

    def shown(name: str) -> str:  # the version it is, not the temp copy
        if not name.startswith(prefix):
            return name
        return f"{PREFIX}{source.rev}:{Path(name).relative_to(folder).as_posix()}"

    for document in spec.documents.values():
        document.name = shown(os.fspath(document.path))
    return spec._replace(documents={d.name: d for d in spec.documents.values()},
                         problems=tuple(p._replace(file=shown(p.file)) for p in spec.problems))


def _write_tree(source: GitSource, folder: Path, label: str) -> None:
    """The root blob and every blob its relative `$ref`s reach at the same revision, mirrored under `folder`."""
    pending, done = [source.relative], set()
    while pending and len(done) < _MAX_FILES:
        relative = pending.pop()
        if relative in done:
            continue
        done.add(relative)
        try:
            blob = _git(["show", f"{source.rev}:{relative}"], source.root, label, binary=True)
        except SpecError:
            if relative == source.relative:
                raise
            continue  # a ref to a file the revision lacks: the loader reports it as a broken ref
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)
        base = PurePosixPath(relative).parent
        for ref in _REF.findall(blob.decode("utf-8", "replace")):
            if "://" in ref or ref.startswith("/"):
                continue
            resolved = os.path.normpath((base / ref).as_posix()).replace(os.sep, "/")
            if not resolved.startswith(".."):
                pending.append(resolved)


def _git(arguments: list[str], cwd: Path, label: str, *, binary: bool = False):
    try:
        done = subprocess.run(["git", *arguments], cwd=cwd, capture_output=True, timeout=_GIT_TIMEOUT, check=False)
    except FileNotFoundError:
        raise SpecError("git is not installed", label) from None
    except subprocess.TimeoutExpired:
        raise SpecError(f"git {arguments[0]} took more than {_GIT_TIMEOUT:.0f} s", label) from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = message[-1].removeprefix("fatal: ") if message else f"git {arguments[0]} failed"
        if arguments[:2] == ["rev-parse", "--verify"]:
            why = f"no revision {arguments[-1].removesuffix('^{commit}')!r} in {cwd}"
        raise SpecError(why, label)
    return done.stdout if binary else done.stdout.decode("utf-8", "replace")

