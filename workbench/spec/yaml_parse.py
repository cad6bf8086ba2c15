"""YAML → plain Python data plus a span index, built from libyaml's event stream.

We construct the data ourselves instead of using a PyYAML Loader because an OpenAPI document needs
different answers than YAML 1.1 gives:
- mapping keys are the text as written (`200:` is the response code "200", `on:` is the key "on");
- plain scalars resolve by the YAML 1.2 core schema: `yes`/`no`/`on`/`off` and timestamps stay strings;
- duplicate keys are reported instead of silently overwritten;
- nesting and alias expansion are bounded, and the walk is iterative, so hostile input is refused fast;
- every node's source span (character offsets) is recorded by JSON pointer for findings and editing.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from workbench import lazy_pattern, only_thread
from workbench.spec import limits
from workbench.spec.errors import Problem, SpecError
from workbench.spec.pointer import escape

if TYPE_CHECKING:
    import yaml

# The loader whose C method yields the events; PyYAML is imported with it by the first YAML parse, so a command
# that reads only JSON never pays its import (a sixth of `workbench lint`'s start-up).
_EventLoader: type | None = None


def libyaml() -> bool:
    """Whether PyYAML was built with libyaml, whose parser is ~20x faster than the pure-Python one (both yield the
    same events): then the events come from it."""
    return _loader().__name__ == "CSafeLoader"


def _loader() -> type:
    global _EventLoader
    if _EventLoader is None:
        _import_yaml()
        try:
            from yaml import CSafeLoader as loader
        except ImportError:  # pragma: no cover - depends on how PyYAML was built
            from yaml import SafeLoader as loader  # type: ignore[assignment]
        _EventLoader = loader
    return _EventLoader


def _import_yaml() -> None:
    """Import PyYAML with the patterns its modules compile at import deferred to their first use. They are its pure-
    Python reader's, resolver's and constructor's (ten, one of them a class of most of Unicode), and a parse from
    libyaml's events uses none of them: compiling them was a twentieth of a small YAML spec's `workbench lint`. Only
    where no other thread runs (a command line), since `re.compile` is swapped for the length of the import; a
    pattern is deferred only when a PyYAML module asks for it."""
    compile_now = re.compile

    def compile_later(pattern, flags=0):
        if sys._getframe(1).f_globals.get("__name__", "").startswith("yaml.") and isinstance(pattern, str):
            return lazy_pattern(pattern, flags)
        return compile_now(pattern, flags)

    if "yaml" not in sys.modules and only_thread():
        re.compile = compile_later
    try:
        import yaml  # noqa: F401
    finally:
        re.compile = compile_now


class _Event(BaseException):
    """One of the parser's events in a class whose construction runs no Python code (an exception's: its arguments
    kept as `args`). PyYAML's own event classes set their fields in an `__init__` written in Python, which took 40
    of the 180 ms of reading OpenAI's 2.8 MB spec's 134,481 events from libyaml. The loop reads `args` by
    position (PyYAML's C parser passes the fields in `FIELDS`' order); the rare paths read them by name."""

    __slots__ = ()
    FIELDS: tuple[str, ...] = ()

    def __getattr__(self, name: str) -> Any:
        fields = type(self).FIELDS
        if name in fields:
            return self.args[fields.index(name)]
        raise AttributeError(name)


_NODE_FIELDS = ("anchor", "tag", "implicit", "start_mark", "end_mark", "flow_style")
_FIELDS = {"ScalarEvent": ("anchor", "tag", "implicit", "value", "start_mark", "end_mark", "style"),
           "MappingStartEvent": _NODE_FIELDS, "SequenceStartEvent": _NODE_FIELDS,
           "MappingEndEvent": ("start_mark", "end_mark"), "SequenceEndEvent": ("start_mark", "end_mark"),
           "AliasEvent": ("anchor", "start_mark", "end_mark"),
           "DocumentStartEvent": ("start_mark", "end_mark", "explicit", "version", "tags"),
           "DocumentEndEvent": ("start_mark", "end_mark", "explicit"),
           "StreamStartEvent": ("start_mark", "end_mark", "encoding"), "StreamEndEvent": ("start_mark", "end_mark")}
EVENTS: dict[str, type[_Event]] = {name: type(name, (_Event,), {"__slots__": (), "FIELDS": fields})
                                   for name, fields in _FIELDS.items()}
_made_in_c: bool | None = None  # whether libyaml's events are made as EVENTS (checked once, see _c_events)
_swapping = threading.Lock()


def _c_events() -> bool:
    """Whether PyYAML's C parser makes its events as EVENTS when they stand in for its own classes: checked once, on
    a small document holding every kind of event, field by field against its own. A PyYAML that passes the fields
    otherwise (or keeps its classes elsewhere) gets its own classes, each event then copied into EVENTS' by name."""
    global _made_in_c
    if _made_in_c is None:
        sample = "%YAML 1.1\n---\na: &x [1, !!str 2, 'b']\nc:\n  d: *x\n  e: |\n    text\n  f: {g: ~}\n...\n"
        try:
            import yaml

            own = list(iter(_loader()(sample).get_event, None))
            with _made_as_events():
                made = list(iter(_loader()(sample).get_event, None))
            _made_in_c = len(own) == len(made) > 10 and all(
                type(mine) is EVENTS[type(theirs).__name__]
                and [_mark(getattr(theirs, name)) for name in mine.FIELDS] == list(map(_mark, mine.args))
                and set(vars(theirs)) <= set(mine.FIELDS)
                for theirs, mine in zip(own, made, strict=True)) and _loader() is yaml.CSafeLoader
        except Exception:  # (anything unexpected: the events are copied instead)
            _made_in_c = False
    return _made_in_c


def _mark(value: Any) -> Any:
    return (value.index, value.line, value.column) if hasattr(value, "line") else value


class _made_as_events:
    """While held, PyYAML's C parser makes its events as EVENTS (the names it looks up are its module's; one parse
    at a time, and the parse holds the interpreter throughout, so no parse waits longer than it would anyway).
    Meanwhile another thread's use of that parser's event interface (`yaml.parse` or `yaml.emit` with the C
    classes) would meet them: nothing of the workbench's does (`yaml.load` and `yaml.dump` do not use them)."""

    def __enter__(self) -> None:
        import yaml._yaml as module

        _swapping.acquire()
        try:
            self.module, self.own = module, {name: getattr(module, name) for name in EVENTS}
            for name, event_class in EVENTS.items():
                setattr(module, name, event_class)
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *_: object) -> None:
        try:
            for name, event_class in getattr(self, "own", {}).items():
                setattr(self.module, name, event_class)
        finally:
            _swapping.release()


def _copied(events: Iterator[Any]) -> Iterator[_Event]:
    """Events of PyYAML's own classes (its pure-Python parser's) as EVENTS."""
    for event in events:
        made = EVENTS[type(event).__name__]
        yield made(*(getattr(event, name) for name in made.FIELDS))


# Span index entry: (start, end, key_start, key_end, kind). Offsets are str indices into the text.
# kind: "map", "seq", "alias", or the scalar style: "plain", "'", '"', "|", ">".
SpanEntry = tuple[int, int, int, int, str]

_INT = lazy_pattern(r"[-+]?[0-9]+\Z")
_FLOAT = lazy_pattern(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_NUMBER_START = frozenset("0123456789-+.")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
# The plain scalars that are not text and do not start like a number: all of them.
_WORDS = {"~": None, "null": None, "Null": None, "NULL": None, "true": True, "True": True, "TRUE": True,
          "false": False, "False": False, "FALSE": False}
_MAYBE_SPECIAL = _NUMBER_START | {word[0] for word in _WORDS}  # how every plain scalar that is not text starts
_TRUE = frozenset(("true", "True", "TRUE"))

_STR_TAG = "tag:yaml.org,2002:str"
_EXPLICIT = {
    "tag:yaml.org,2002:null": lambda v: None,
    "tag:yaml.org,2002:bool": lambda v: v in _TRUE or v.lower() in ("yes", "on", "y"),
    "tag:yaml.org,2002:int": lambda v: int(v.replace("_", ""), 0),
    "tag:yaml.org,2002:float": float,
}


def resolve_plain(value: str) -> Any:
    """Resolve an untagged plain scalar by the YAML 1.2 core schema."""
    if not value:
        return None
    if value[0] not in _NUMBER_START:
        return _WORDS.get(value, value)  # (no pattern is tried on text such as "The ID of the file", measured)
    if value.isdigit() and value.isascii():  # the common number, without the pattern (isdigit alone takes "²")
        return int(value)
    if _INT.match(value):
        return int(value)
    if value.startswith("0o") and len(value) > 2 and all(c in "01234567" for c in value[2:]):
        return int(value[2:], 8)
    if value.startswith("0x") and len(value) > 2 and all(c in _HEX_DIGITS for c in value[2:]):
        return int(value[2:], 16)  # (only digits: int() would also take `0x0x5`, `0x-1` and `0x1_0`)
    if _FLOAT.match(value):
        return float(value)
    lowered = (value[1:] if value[0] in "+-" else value).lower()  # (one sign, and on infinity only)
    if lowered == ".inf":
        return float("-inf") if value.startswith("-") else float("inf")
    if lowered == ".nan" and value[0] == ".":
        return float("nan")
    return value


def _tagged_value(event: _Event, file: str) -> Any:
    """The value of a scalar written with a tag (the loop resolves the untagged ones itself)."""
    tag = event.tag
    if tag == "!" or tag == _STR_TAG:
        return event.value
    convert = _EXPLICIT.get(tag)
    if convert is None:
        return event.value  # unknown local tags (`!Ref`, …): keep the text
    try:
        return convert(event.value)
    except ValueError:
        line, column = event.start_mark.line + 1, event.start_mark.column + 1
        raise SpecError(f"value {event.value!r} does not fit its tag {tag}", file, line=line, column=column) from None


def _plain_key(event: Any) -> bool:
    """Whether the key read from `event` is plain: only a plain `<<` is a merge key, a quoted or tagged one is an
    ordinary key. An alias (it has no `implicit`) counts as plain."""
    return not hasattr(event, "implicit") or (event.implicit[0] and event.tag is None)


def _key_marks(key_event: _Event) -> tuple[Any, Any]:
    """Where the key read from `key_event` starts and ends (a scalar's marks, or an alias's)."""
    fields = key_event.args
    return (fields[4], fields[5]) if len(fields) == 7 else (fields[1], fields[2])


def _pointer(stack: list[tuple]) -> str:
    """The JSON pointer of the container being filled, from the saved states of its ancestors (`stack[0]` is the
    document level): each one's pending key, or its length, the index its open child will get. Without spans a
    pointer is built only for a problem."""
    return "".join(f"/{escape(key) if is_map else len(container)}" for container, is_map, key, *_ in stack[1:])


def _duplicate(problems: list[Problem], file: str, pointer: str, key: str, key_event: Any) -> None:
    at = key_event.start_mark
    problems.append(Problem("duplicate-key", f"duplicate key {key!r}; the later value is the one read", file,
                            f"{pointer}/{escape(key)}", line=at.line + 1, column=at.column + 1))


# Complex on purpose: the loader's speed on multi-MB specs is its work per event, so one loop does it all, with the
# state of the innermost open container in local variables and the steps for a scalar written out in place (every
# Python call per event is a few percent of the parse, measured).
def parse_yaml(text: str, file: str, *, spans: bool = True,  # noqa: C901
               refs: list[str] | None = None) -> tuple[Any, dict[str, SpanEntry] | None, list[Problem]]:
    """Parse the first YAML document of `text`. Returns (data, span index, problems); the index is None without
    `spans` (a quarter of the parse on a 3 MB spec, for a command that places nothing). Given `refs`, every string
    written as the value of a `$ref` key is appended to it, wherever it is (examples and extensions too)."""
    index: dict[str, SpanEntry] = {}
    problems: list[Problem] = []
    anchors: dict[str, tuple[Any, int]] = {}  # name -> (value, expanded size)
    open_anchors: set[str] = set()
    root: Any = None
    have_root = False
    # Node counts. The alias bound compares `expanded` (nodes read through aliases, keys included) with the nodes
    # written, `values + keys`. The expanded size of a container (itself, its values, what its aliases expand to;
    # not its keys) is how much `values + expanded - alias_keys` grew from before its start to its end.
    values = 0  # scalars that are values, and containers
    keys = 0  # scalars that are keys
    expanded = 0
    alias_keys = 0  # the sizes of the aliases used as keys

    # The innermost open container lives in these locals; `stack` holds the saved states of its ancestors, the first
    # one the document level (container None). `key` is a mapping's pending key (None: a key comes next) and
    # `key_event` the event it was read from; `pointer` and `start` are kept only with spans.
    container: dict | list | None = None
    is_map = False
    key: str | None = None
    key_event: Any = None
    pointer = ""
    start = -1
    anchor: str | None = None
    before = 0  # `values + expanded - alias_keys` before the container's start (kept when it is anchored)
    merges: list[dict] | None = None
    stack: list[tuple] = []

    def fail(message: str, mark: yaml.Mark) -> SpecError:
        return SpecError(message, file, line=mark.line + 1, column=mark.column + 1)

    # The loader's events straight from its C method (`yaml.parse` wraps every event in a Python generator
    # step and a check_event call: a third of the time of a 3 MB spec). None is the end of the stream.
    loader = _loader()(text)
    import yaml  # loaded by _loader: the error classes
    # Bound to locals once: a global or attribute lookup per event adds up.
    ScalarEvent, AliasEvent = EVENTS["ScalarEvent"], EVENTS["AliasEvent"]
    MappingStartEvent, SequenceStartEvent = EVENTS["MappingStartEvent"], EVENTS["SequenceStartEvent"]
    MappingEndEvent, SequenceEndEvent = EVENTS["MappingEndEvent"], EVENTS["SequenceEndEvent"]
    maybe_special, max_nesting = _MAYBE_SPECIAL, limits.MAX_NESTING
    in_c = _c_events()
    events: Iterator[Any] = iter(loader.get_event, None)
    if not in_c:
        events = _copied(events)
    held = ExitStack()
    if in_c:
        held.enter_context(_made_as_events())
    try:
        for event in events:
            kind = type(event)
            if kind is ScalarEvent:
                fields = event.args  # anchor, tag, implicit, value, start_mark, end_mark, style
                if is_map and key is None:
                    key = fields[3]
                    key_event = event
                    keys += 1
                    continue
                values += 1
                value = fields[3]
                if fields[1] is not None:
                    value = _tagged_value(event, file)
                elif fields[2][0] and (not value or value[0] in maybe_special):
                    value = resolve_plain(value)  # (any other plain scalar is text for sure)
                if fields[0]:
                    anchors[fields[0]] = (value, 1)
                # A scalar is never merged (a merge key's value is a mapping or a list of them).
                if is_map:
                    if key in container:
                        _duplicate(problems, file, pointer if spans else _pointer(stack), key, key_event)
                    container[key] = value
                    if key == "$ref" and refs is not None and isinstance(value, str):
                        refs.append(value)
                    if spans:
                        token = key if "~" not in key and "/" not in key else escape(key)
                        key_start, key_end = _key_marks(key_event)
                        index[f"{pointer}/{token}"] = (fields[4].index, fields[5].index, key_start.index,
                                                       key_end.index, fields[6] or "plain")
                    key = None
                elif container is not None:
                    if spans:
                        index[f"{pointer}/{len(container)}"] = (fields[4].index, fields[5].index, -1, -1,
                                                                fields[6] or "plain")
                    container.append(value)
                else:
                    root, have_root = value, True
                    index[""] = (fields[4].index, fields[5].index, -1, -1, fields[6] or "plain")
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                value = container
                if merges:
                    value = _apply_merges(container, merges)
                if anchor:
                    open_anchors.discard(anchor)
                    anchors[anchor] = (value, values + expanded - alias_keys - before)
                if spans:  # this container's entry, at the pointer computed at its start (from the parent)
                    span_pointer, span_start, span_end = pointer, start, event.args[1].index
                    span_kind = "map" if is_map else "seq"
                container, is_map, key, key_event, pointer, start, anchor, before, merges = stack.pop()
                if is_map:
                    if key == "<<" and _is_merge(value) and _plain_key(key_event):
                        merges = (merges or []) + ([value] if isinstance(value, dict) else list(value))
                    else:
                        if key in container:
                            _duplicate(problems, file, pointer if spans else _pointer(stack), key, key_event)
                        container[key] = value
                        if spans:
                            key_start, key_end = _key_marks(key_event)
                            index[span_pointer] = (span_start, span_end, key_start.index, key_end.index, span_kind)
                    key = None
                else:
                    if spans:
                        index[span_pointer] = (span_start, span_end, -1, -1, span_kind)
                    if container is not None:
                        container.append(value)
                    else:
                        root, have_root = value, True
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                if is_map and key is None:
                    raise fail("a mapping or sequence used as a key is not supported in an API description",
                               event.start_mark)
                if len(stack) >= max_nesting:
                    raise fail(f"nesting deeper than {max_nesting} levels", event.start_mark)
                stack.append((container, is_map, key, key_event, pointer, start, anchor, before, merges))
                if spans:
                    if is_map:
                        pointer = f"{pointer}/{escape(key)}"
                    elif container is not None:
                        pointer = f"{pointer}/{len(container)}"
                    start = event.args[3].index
                anchor = event.args[0]
                if anchor:
                    open_anchors.add(anchor)
                    before = values + expanded - alias_keys
                values += 1
                is_map = kind is MappingStartEvent
                container = {} if is_map else []
                key = key_event = merges = None
            elif kind is AliasEvent:
                name = event.args[0]
                if name in open_anchors:
                    raise fail(f"alias *{name} refers to a node that contains it (a recursive alias)",
                               event.start_mark)
                if name not in anchors:
                    raise fail(f"alias *{name} refers to no anchor defined before it", event.start_mark)
                value, size = anchors[name]
                expanded += size
                nodes = values + keys
                if expanded > limits.ALIAS_EXPANSION_BASE + limits.ALIAS_EXPANSION_PER_NODE * nodes:
                    raise fail(f"YAML aliases expand to more than {expanded:,} nodes from {nodes:,} written "
                               "ones (an alias bomb?); refused", event.start_mark)
                if is_map and key is None:
                    if isinstance(value, (dict, list)):
                        raise fail("an alias to a mapping or sequence used as a key is not supported",
                                   event.start_mark)
                    key = str(value)
                    key_event = event
                    alias_keys += size
                    continue
                span_start, span_end = event.args[1].index, event.args[2].index
                if is_map:
                    if key == "<<" and _is_merge(value) and _plain_key(key_event):
                        merges = (merges or []) + ([value] if isinstance(value, dict) else list(value))
                    else:
                        if key in container:
                            _duplicate(problems, file, pointer if spans else _pointer(stack), key, key_event)
                        container[key] = value
                        if key == "$ref" and refs is not None and isinstance(value, str):
                            refs.append(value)
                        if spans:
                            key_start, key_end = _key_marks(key_event)
                            index[f"{pointer}/{escape(key)}"] = (span_start, span_end, key_start.index,
                                                                 key_end.index, "alias")
                    key = None
                elif container is not None:
                    if spans:
                        index[f"{pointer}/{len(container)}"] = (span_start, span_end, -1, -1, "alias")
                    container.append(value)
                else:
                    root, have_root = value, True
                    index[""] = (span_start, span_end, -1, -1, "alias")
            elif kind is EVENTS["DocumentEndEvent"] and have_root:
                break
        for event in events:  # peek: is there a second document?
            if type(event) is EVENTS["DocumentStartEvent"]:
                problems.append(Problem("multiple-documents", "the file holds more than one YAML document; "
                                        "only the first is read", file, line=event.start_mark.line + 1,
                                        column=event.start_mark.column + 1))
            break
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = " ".join(part for part in (exc.context, exc.problem) if part)
        if "nesting depth" in what:  # newer libyaml builds stop deep flow nesting themselves, at 1000
            what = f"nesting deeper than {limits.MAX_NESTING} levels"
            raise SpecError(what, file, line=mark.line + 1 if mark else None,
                            column=mark.column + 1 if mark else None) from None
        raise SpecError(f"YAML syntax error: {what}", file, line=mark.line + 1 if mark else None,
                        column=mark.column + 1 if mark else None, code="syntax") from None
    except yaml.YAMLError as exc:
        raise SpecError(f"YAML error: {exc}", file) from None
    except ValueError:  # int() of a number longer than Python reads (the only ValueError the loop lets out)
        raise limits.too_many_digits(file, event.start_mark.line + 1, event.start_mark.column + 1) from None
    finally:
        held.close()
        loader.dispose()
    return root, index if spans else None, problems


def _is_merge(value: Any) -> bool:
    return isinstance(value, dict) or (isinstance(value, list) and all(isinstance(v, dict) for v in value))


def _apply_merges(container: dict, merges: list[dict]) -> dict:
    """YAML merge keys (`<<: *base`): keys written in the mapping win, then earlier merged mappings."""
    merged: dict = {}
    for source in merges:
        for key, value in source.items():
            merged.setdefault(key, value)
    merged.update(container)
    return merged
