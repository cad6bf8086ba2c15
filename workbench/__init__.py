"""Agent Spec Workbench: make an OpenAPI document trustworthy as a set of tools for language-model agents."""

import importlib
import marshal
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
        compiled = patterns.compiled(*self._source)
        for attribute in dir(compiled):
            if not attribute.startswith("_"):
                setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_pattern({self._source[0]!r}, {self._source[1]!r})"


def lazy_pattern(text: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(text, flags)`, compiled when first used: for a module's constant patterns. Compiling them all at
    import was a tenth of a small spec's `workbench lint`, and a run reaches only some (a rule's patterns compile
    when the rule first has text to read), from what earlier runs compiled where it can (`PatternStore`). The
    result has every method and attribute of a compiled pattern; give it to `re.search` and the like only as
    `.pattern`."""
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
    $XDG_CACHE_HOME, else ~/.cache; never in a project (a relative $XDG_CACHE_HOME is ignored, as the XDG
    specification asks: it would name a folder inside wherever the command runs)."""
    configured = os.environ.get("XDG_CACHE_HOME")
    base = Path(configured) if configured and os.path.isabs(configured) else Path.home() / ".cache"
    return base / "agent-spec-workbench" / name


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


def write_cache(path: Path, data: bytes) -> None:
    """Write a cache file (its folder made first) through `replace_file`, tidying what killed writes left; OSError
    when it cannot be written, which a cache's caller ignores (a cache that cannot be written only costs time)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(path)
    replace_file(path, data)


def _leftover_prefix(path: Path) -> str:
    return f".{path.name[:48]}."


class PatternStore:
    """Compiled patterns kept between runs, as Python keeps compiled modules: for the constant patterns of
    `lazy_pattern` (one store per process: `patterns`).

    `re` compiles a pattern in two steps. Its Python code parses the text and turns it into a list of opcodes, which
    is nearly all of the cost; then `_sre.compile`, in C, makes the pattern object from that list in microseconds. A
    lint of a small spec compiles some fifty patterns, about a third of the CPU time of its rules. The store keeps
    each list, by pattern text and flags, in the user's cache folder, in one file per interpreter (its exact
    version: a patch release may fix the parser) and `_sre.MAGIC` (the version of the opcodes), and runs only the C
    step for a pattern it holds: the same call, with the same arguments, that `re.compile` ends with.

    Whatever does not fit is compiled by `re` as usual: another interpreter than CPython, internals that changed, a
    store that cannot be read or written, a list `_sre` rejects (it checks every list it is given). A process adds
    what it compiled when it ends (`save`: the command line calls it before its `os._exit`; a forked lint copy sends
    its patterns back with its answers, `compiled_here` and `adopt`), merged with what another process wrote
    meanwhile. A warning the parser gives for a pattern (a FutureWarning on a possible nested set) appears only in
    the run that compiles it."""

    MAX_ENTRIES = 4096  # (the package has a few hundred constant patterns; past this the store starts afresh)

    def __init__(self) -> None:
        self._stored: dict[tuple[str, int], tuple] | None = None
        self._new: dict[tuple[str, int], tuple] = {}

    @staticmethod
    def path() -> Path:
        import _sre

        return cache_folder(f"patterns-{sys.implementation.cache_tag}-{sys.hexversion:x}-{_sre.MAGIC}.marshal")

    @staticmethod
    def _read(path: Path) -> dict[tuple[str, int], tuple]:
        try:
            stored = marshal.loads(path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return {}
        return stored if isinstance(stored, dict) else {}

    def compiled(self, text: str, flags: int = 0) -> re.Pattern[str]:
        """`re.compile(text, flags)`, from the store when it holds the pattern."""
        flags = int(flags)
        key = (text, flags)
        try:
            if self._stored is None:
                self._stored = self._read(self.path()) if sys.implementation.name == "cpython" else {}
            import _sre

            entry = self._stored.get(key)
            if entry is not None:
                try:
                    return _sre.compile(text, *entry)
                except Exception:  # a list it rejects: compiled afresh below, and kept in its place
                    pass
            if flags & re.DEBUG or not isinstance(text, str):
                return re.compile(text, flags)
            entry = self._opcodes(text, flags)
            pattern = _sre.compile(text, *entry)
        except Exception:  # anything that does not fit: `re` as usual
            return re.compile(text, flags)
        self._new[key] = entry
        return pattern

    @staticmethod
    def _opcodes(text: str, flags: int) -> tuple:
        """What `re._compiler.compile` gives `_sre.compile` after the pattern: flags, opcodes, group count, the
        groups' names both ways; as plain data (the opcodes are int subclasses)."""
        from re import _compiler, _parser

        parsed = _parser.parse(text, flags)
        code = _compiler._code(parsed, flags)
        names = dict(parsed.state.groupdict)
        by_index: list[str | None] = [None] * parsed.state.groups
        for name, index in names.items():
            by_index[index] = name
        return (int(flags | parsed.state.flags), [int(op) for op in code], parsed.state.groups - 1, names,
                tuple(by_index))

    def compiled_here(self) -> dict[tuple[str, int], tuple]:
        """The patterns this process compiled that the store does not hold yet (plain data: `marshal` sends them)."""
        return dict(self._new)

    def adopt(self, compiled: object) -> None:
        """Take another process's `compiled_here` (a forked copy's) for this one's `save`."""
        if isinstance(compiled, dict):
            self._new.update((key, entry) for key, entry in compiled.items()
                             if isinstance(key, tuple) and isinstance(entry, tuple))

    def save(self) -> None:
        """Add the patterns this process compiled to the store (nothing to do when it compiled none)."""
        new = dict(self._new)  # (a thread may compile one meanwhile: it is kept for a later save)
        if not new:
            return
        try:
            path = self.path()
            merged = self._read(path)
            if len(merged) + len(new) > self.MAX_ENTRIES:
                merged = {}
            merged.update(new)
            write_cache(path, marshal.dumps(merged))
        except (OSError, ValueError):
            return  # a store that cannot be written only costs time
        for key in new:
            self._new.pop(key, None)

    def forget(self) -> None:
        """Drop what this process read and compiled (tests: the next pattern reads the store afresh)."""
        self._stored = None
        self._new.clear()


patterns = PatternStore()
