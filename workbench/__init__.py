"""Agent Spec Workbench: make an OpenAPI document trustworthy as a set of tools for language-model agents."""

import importlib
import os
import re
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


class _LaterPattern:
    """See `lazy_pattern`. On first use it compiles, and every public attribute of the compiled pattern (its bound
    methods too) becomes its own, so each use after that costs what a compiled pattern's would."""

    def __init__(self, text: str, flags: int) -> None:
        self._source = (text, flags)

    def __getattr__(self, name: str):  # only for what is not its own yet: the first use
        if name.startswith("_"):
            raise AttributeError(name)
        compiled = re.compile(*self._source)
        for attribute in dir(compiled):
            if not attribute.startswith("_"):
                setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_pattern({self._source[0]!r}, {self._source[1]!r})"


def lazy_pattern(text: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(text, flags)`, compiled when first used: for a module's constant patterns. Compiling them all at
    import was a tenth of a small spec's `workbench lint`, and a run reaches only some (a rule's patterns compile
    when the rule first has text to read). The result has every method and attribute of a compiled pattern; give
    it to `re.search` and the like only as `.pattern`."""
    return _LaterPattern(text, flags)  # type: ignore[return-value]


class Frozen:
    """The base of a small immutable record that is not a named tuple (it compares on only some of its attributes,
    or computes one when made), at no import cost (`dataclasses` imports `inspect`: 11 ms of a short command's
    start-up). A subclass lists its attributes in `__slots__` and sets them in `__init__` with
    `object.__setattr__`; setting or deleting one afterwards raises AttributeError, as on a frozen dataclass."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to attribute {name!r} of {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete attribute {name!r} of {type(self).__name__}")

    def __setstate__(self, state: tuple[None, dict[str, object]]) -> None:  # a copy or an unpickled one: as made
        for name, value in state[1].items():
            object.__setattr__(self, name, value)


def only_thread() -> bool:
    """Whether this process runs no thread beside the current one, Python's or a library's (counted on Linux in
    /proc/self/task; elsewhere, and when that cannot be read, False): then nothing waits while it holds the
    interpreter, and it may fork."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def cache_folder(name: str) -> Path:
    """Where the workbench keeps what it can rebuild (`name`: one kind of thing), in the user's cache folder:
    $XDG_CACHE_HOME, else ~/.cache; never in a project."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agent-spec-workbench" / name


def replace_file(path: Path, data: bytes | Iterable[bytes], *, durable: bool = False, mode: int | None = None) -> None:
    """Replace `path` with `data` (bytes, or pieces of them written as they come) through a temporary file in the
    same folder and a rename: a reader (another run, another thread) sees the old file or the new one, never half.
    `durable` puts the bytes on the disk before the rename (a user's file; a cache can be rebuilt instead). The new
    file gets `mode`, else what the user's umask gives any new file (as a shell's `>` or an editor makes it). On any
    failure the temporary file is removed and the error raised: every atomic write of the workbench, saves and
    caches, is this one."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):  # a name taken (by a run killed mid-write, say): another one
        temporary = path.parent / f"{_leftover_prefix(path)}{os.urandom(4).hex()}.tmp"
        try:
            descriptor = os.open(temporary, flags, 0o666)  # tempfile's mkstemp would make it 0600 whatever the umask
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"no free temporary name beside {path}")
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


def remove_leftovers(path: Path, older_than_s: float = 600.0) -> None:
    """Remove the temporary files `replace_file` left beside `path` when a run was killed mid-write (each write has
    a name of its own, so nothing else ever reuses them); a younger one may still be another run's write."""
    import time

    prefix, cutoff = _leftover_prefix(path), time.time() - older_than_s
    try:
        with os.scandir(path.parent) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith(prefix) and name.endswith(".tmp") and len(name) == len(prefix) + 12 \
                        and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    Path(entry.path).unlink(missing_ok=True)
    except OSError:
        pass  # a folder that cannot be listed, or a file gone meanwhile: nothing to tidy


def _leftover_prefix(path: Path) -> str:
    return f".{path.name[:48]}."
