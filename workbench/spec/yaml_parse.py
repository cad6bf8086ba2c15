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
from typing import TYPE_CHECKING, Any

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
        try:
            from yaml import CSafeLoader as loader
        except ImportError:  # pragma: no cover - depends on how PyYAML was built
            from yaml import SafeLoader as loader  # type: ignore[assignment]
        _EventLoader = loader
    return _EventLoader

# Span index entry: (start, end, key_start, key_end, kind). Offsets are str indices into the text.
# kind: "map", "seq", "alias", or the scalar style: "plain", "'", '"', "|", ">".
SpanEntry = tuple[int, int, int, int, str]

_INT = re.compile(r"[-+]?[0-9]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_MAYBE_SPECIAL = frozenset("0123456789-+.~nNtTfF")
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_TRUE = frozenset(("true", "True", "TRUE"))
_FALSE = frozenset(("false", "False", "FALSE"))

_STR_TAG = "tag:yaml.org,2002:str"
_EXPLICIT = {
    "tag:yaml.org,2002:null": lambda v: None,
    "tag:yaml.org,2002:bool": lambda v: v in _TRUE or v.lower() in ("yes", "on", "y"),
    "tag:yaml.org,2002:int": lambda v: int(v.replace("_", ""), 0),
    "tag:yaml.org,2002:float": float,
}


def resolve_plain(value: str) -> Any:
    """Resolve an untagged plain scalar by the YAML 1.2 core schema."""
    if value and value[0] not in _MAYBE_SPECIAL:
        return value
    if value in _NULLS:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if _INT.match(value):
        return int(value)
    if value.startswith("0o") and len(value) > 2 and all(c in "01234567" for c in value[2:]):
        return int(value[2:], 8)
    if value.startswith("0x") and len(value) > 2:
        try:
            return int(value[2:], 16)
        except ValueError:
            return value
    if _FLOAT.match(value):
        return float(value)
    lowered = value.lstrip("+-").lower()
    if lowered == ".inf":
        return float("-inf") if value.startswith("-") else float("inf")
    if lowered == ".nan":
        return float("nan")
    return value


def _scalar_value(event: yaml.ScalarEvent, file: str) -> Any:
    tag = event.tag
    if tag is None or tag == "!":
        return resolve_plain(event.value) if event.implicit[0] and tag is None else event.value
    if tag == _STR_TAG:
        return event.value
    convert = _EXPLICIT.get(tag)
    if convert is None:
        return event.value  # unknown local tags (`!Ref`, …): keep the text
    try:
        return convert(event.value)
    except ValueError:
        line, column = event.start_mark.line + 1, event.start_mark.column + 1
        raise SpecError(f"value {event.value!r} does not fit its tag {tag}", file, line=line, column=column) from None


def _style(event: yaml.ScalarEvent) -> str:
    return event.style or "plain"


class _Frame:
    __slots__ = ("anchor", "container", "has_key", "key", "key_end", "key_mark", "key_plain", "key_start", "merges",
                 "pointer", "size", "start")

    def __init__(self, container: dict | list, pointer: str, start: int, anchor: str | None) -> None:
        self.container = container
        self.pointer = pointer
        self.start = start
        self.anchor = anchor
        self.size = 1
        self.has_key = False
        self.key: str = ""
        self.key_start = -1
        self.key_end = -1
        self.key_plain = False
        self.key_mark: yaml.Mark | None = None
        self.merges: list[dict] | None = None


# Complex on purpose: per-event dispatch in one frame is the loader's speed on multi-MB specs (measured).
def parse_yaml(text: str, file: str, *, spans: bool = True  # noqa: C901
               ) -> tuple[Any, dict[str, SpanEntry] | None, list[Problem]]:
    """Parse the first YAML document of `text`. Returns (data, span index, problems); the index is None without
    `spans` (a quarter of the parse on a 3 MB spec, for a command that places nothing)."""
    index: dict[str, SpanEntry] = {}
    problems: list[Problem] = []
    anchors: dict[str, tuple[Any, int]] = {}  # name -> (value, expanded size); value is None while open
    open_anchors: set[str] = set()
    stack: list[_Frame] = []
    root: Any = None
    have_root = False
    nodes = 0
    expanded = 0

    def fail(message: str, mark: yaml.Mark) -> SpecError:
        return SpecError(message, file, line=mark.line + 1, column=mark.column + 1)

    def attach(value: Any, size: int, start: int, end: int, kind: str, mark: yaml.Mark) -> None:
        nonlocal root, have_root
        if not stack:
            root, have_root = value, True
            index[""] = (start, end, -1, -1, kind)
            return
        parent = stack[-1]
        parent.size += size
        container = parent.container
        if isinstance(container, list):
            if spans:
                index[f"{parent.pointer}/{len(container)}"] = (start, end, -1, -1, kind)
            container.append(value)
            return
        key = parent.key
        parent.has_key = False
        if key == "<<" and parent.key_plain and _is_merge(value):
            parent.merges = (parent.merges or []) + ([value] if isinstance(value, dict) else list(value))
            return
        if key in container:
            at = parent.key_mark or mark
            problems.append(Problem("duplicate-key", f"duplicate key {key!r}; the later value is the one read",
                                    file, f"{parent.pointer}/{escape(key)}", line=at.line + 1,
                                    column=at.column + 1))
        container[key] = value
        if spans:
            index[f"{parent.pointer}/{escape(key)}"] = (start, end, parent.key_start, parent.key_end, kind)

    def set_key(key: str, start: int, end: int, plain: bool, mark: yaml.Mark) -> None:
        frame = stack[-1]
        frame.key_mark = mark
        frame.key = key
        frame.has_key = True
        frame.key_start, frame.key_end = start, end
        frame.key_plain = plain  # only a plain `<<` is a merge key; a quoted one is an ordinary key

    # The loader's events straight from its C method (`yaml.parse` wraps every event in a Python generator
    # step and a check_event call: a third of the time of a 3 MB spec). None is the end of the stream.
    loader = _loader()(text)
    import yaml  # loaded by _loader: the event and error classes
    events = iter(loader.get_event, None)
    try:
        for event in events:
            kind = type(event)
            if kind is yaml.ScalarEvent:
                nodes += 1
                if stack and isinstance(stack[-1].container, dict) and not stack[-1].has_key:
                    set_key(event.value, event.start_mark.index, event.end_mark.index,
                            plain=event.implicit[0] and event.tag is None, mark=event.start_mark)
                    continue
                value = _scalar_value(event, file)
                if event.anchor:
                    anchors[event.anchor] = (value, 1)
                attach(value, 1, event.start_mark.index, event.end_mark.index, _style(event), event.start_mark)
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                nodes += 1
                if stack and isinstance(stack[-1].container, dict) and not stack[-1].has_key:
                    raise fail("a mapping or sequence used as a key is not supported in an API description",
                               event.start_mark)
                if len(stack) >= limits.MAX_NESTING:
                    raise fail(f"nesting deeper than {limits.MAX_NESTING} levels", event.start_mark)
                if stack:
                    parent = stack[-1]
                    if isinstance(parent.container, list):
                        pointer = f"{parent.pointer}/{len(parent.container)}"
                    else:
                        pointer = f"{parent.pointer}/{escape(parent.key)}"
                else:
                    pointer = ""
                container: dict | list = {} if kind is yaml.MappingStartEvent else []
                if event.anchor:
                    open_anchors.add(event.anchor)
                stack.append(_Frame(container, pointer, event.start_mark.index, event.anchor))
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                frame = stack.pop()
                container = frame.container
                if frame.merges:
                    container = _apply_merges(container, frame.merges)
                if frame.anchor:
                    open_anchors.discard(frame.anchor)
                    anchors[frame.anchor] = (container, frame.size)
                attach(container, frame.size, frame.start, event.end_mark.index,
                       "map" if kind is yaml.MappingEndEvent else "seq", event.end_mark)
            elif kind is yaml.AliasEvent:
                name = event.anchor
                if name in open_anchors:
                    raise fail(f"alias *{name} refers to a node that contains it (a recursive alias)",
                               event.start_mark)
                if name not in anchors:
                    raise fail(f"alias *{name} refers to no anchor defined before it", event.start_mark)
                value, size = anchors[name]
                expanded += size
                if expanded > limits.ALIAS_EXPANSION_BASE + limits.ALIAS_EXPANSION_PER_NODE * nodes:
                    raise fail(f"YAML aliases expand to more than {expanded:,} nodes from {nodes:,} written "
                               "ones (an alias bomb?); refused", event.start_mark)
                if stack and isinstance(stack[-1].container, dict) and not stack[-1].has_key:
                    if isinstance(value, (dict, list)):
                        raise fail("an alias to a mapping or sequence used as a key is not supported",
                                   event.start_mark)
                    set_key(str(value), event.start_mark.index, event.end_mark.index, plain=True,
                            mark=event.start_mark)
                    continue
                attach(value, size, event.start_mark.index, event.end_mark.index, "alias", event.start_mark)
            elif kind is yaml.DocumentEndEvent and have_root:
                break
        for event in events:  # peek: is there a second document?
            if type(event) is yaml.DocumentStartEvent:
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
    finally:
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
