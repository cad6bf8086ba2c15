"""Argument sets a model could send: values valid against a TOOL's own schema, made by hypothesis-jsonschema.

hypothesis-jsonschema reads drafts 4-7 and has known limits (docs/mock-and-roundtrip.md), so a tool schema
is prepared first: an object that declares properties gets no undeclared ones (a model sends what a
schema names; invented keys with nested values are what a form body cannot carry; allOf members stay open);
local `$ref`s are inlined, recursion to a fixed depth (deeper, an optional property is left out and an
array stays empty: `false` in JSON Schema terms); 2020-12 keywords are written in their draft 7 form; the
OpenAPI formats get strategies of their own; `\\d`, `\\w` and `\\s` in patterns mean
ASCII only (Python's `re` reads them as Unicode, servers rarely do); strings bound to headers and cookies
are printable ASCII without surrounding spaces. A schema the generator cannot satisfy is reported as such
(`Unsatisfiable`), never skipped.

Three kinds of set: `generated` (seeded, distinct), `minimal` (required arguments only) and `example` (the
spec's own examples, where every argument has one — see `example_arguments`).
"""

from __future__ import annotations

import base64
import re
import signal
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException
from hypothesis.internal import charmap
from hypothesis.internal.conjecture import providers
from hypothesis.internal.intervalsets import IntervalSet
from hypothesis.strategies._internal import core as strategies_core
from hypothesis_jsonschema import _from_schema, from_schema
from hypothesis_jsonschema._encode import encode_canonical_json

from workbench.tools.model import Tool

RECURSION_DEPTH = 2  # how many times one $ref may appear inside itself before the branch is cut
HEADER_TEXT = r"^[!-~]([ -~]{0,30}[!-~])?$"  # printable ASCII, no surrounding space, short

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_ANNOTATIONS = frozenset({"title", "description", "examples", "example", "deprecated", "readOnly", "writeOnly",
                          "$comment", "$anchor", "$id", "$schema", "$defs", "definitions", "contentEncoding",
                          "contentMediaType", "discriminator", "xml", "externalDocs", "unevaluatedProperties",
                          "unevaluatedItems"})


def _formats() -> dict[str, st.SearchStrategy[str]]:
    ascii_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=24)
    return {
        "uuid": st.uuids().map(str),
        "byte": st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode("ascii")),
        "binary": ascii_text,
        "password": ascii_text,
        "int32": st.integers(*_INT_RANGES["int32"]).map(str),
        "int64": st.integers(*_INT_RANGES["int64"]).map(str),
    }


FORMATS = _formats()

# hypothesis-jsonschema draws text encodable as UTF-8. Hypothesis finds which characters those are by encoding
# each of the 1.1 million code points once per working directory (a table it caches in `.hypothesis/`): 10-20 s
# on a loaded machine, longer than an operation's time limit, so the first operations of a run in a new folder
# stalled. The answer is known: every code point but the surrogates, each reading back as itself.
UTF8_TABLE = (IntervalSet([(0, 0xD7FF), (0xE000, 0x10FFFF)]), IntervalSet([]))
_codec_table = charmap.intervals_from_codec


def _intervals_from_codec(codec_name: str) -> tuple[IntervalSet, IntervalSet]:
    return UTF8_TABLE if codec_name == "utf-8" else _codec_table(codec_name)


charmap.intervals_from_codec = _intervals_from_codec

# Hypothesis draws about one value in twenty from a pool of constants, part of it mined from the source of every
# "local" module imported so far (ours: the workbench's and the tests' own strings, such as "POST" or "return").
# That part grows as modules are imported, so one seed made other values after another import (a run in a worker
# process, in the window, in a test), and parsing each new module's source cost time. Only hypothesis's own pool
# is used: the same values for a seed whatever was imported.
_NO_LOCAL_CONSTANTS = providers._local_constants.__class__()
providers._get_local_constants = lambda: _NO_LOCAL_CONSTANTS

# An object's property values are drawn from strategies hypothesis-jsonschema builds anew for every value it
# draws (the schema canonicalised and merged each time: half the generator's time). A strategy is a pure
# function of its schema, so one built is kept, per schema, for the run (GitHub's `owner`, `repo`, `per_page`
# come back in hundreds of operations). The same strategies, so the same values.
STRATEGY_CACHE = 4096
_strategies: dict[tuple, tuple[Any, st.SearchStrategy]] = {}
_merged_as_strategies = _from_schema.merged_as_strategies


def _kept_merged_as_strategies(schemas: list, *, alphabet: Any, custom_formats: Any) -> st.SearchStrategy:
    try:
        key = (tuple(encode_canonical_json(s) for s in schemas), alphabet.allow_x00, alphabet.codec,
               id(custom_formats))
    except (TypeError, ValueError):  # not plain JSON: built as it comes
        return _merged_as_strategies(schemas, alphabet=alphabet, custom_formats=custom_formats)
    kept = _strategies.get(key)
    if kept is None or kept[0] is not custom_formats:
        if len(_strategies) >= STRATEGY_CACHE:
            _strategies.clear()
        kept = _strategies[key] = (custom_formats, _merged_as_strategies(schemas, alphabet=alphabet,
                                                                         custom_formats=custom_formats))
    return kept[1]


_from_schema.merged_as_strategies = _kept_merged_as_strategies


# hypothesis-jsonschema defines an `@st.composite` function inside every object strategy it builds, and hypothesis
# reads each one's source (inspect, tokenize, ast) to warn when its `draw` argument goes unused: a tenth of the
# generator's time, on the same few functions. The answer is the code's: kept per code object.
_referenced: dict[Any, bool] = {}
_is_first_param_referenced = strategies_core.is_first_param_referenced_in_function


def _first_param_referenced(f: Any) -> bool:
    code = getattr(f, "__code__", None)
    if code is None:
        return _is_first_param_referenced(f)
    if code not in _referenced:
        _referenced[code] = _is_first_param_referenced(f)
    return _referenced[code]


strategies_core.is_first_param_referenced_in_function = _first_param_referenced


class Unsatisfiable(Exception):
    """The generator found no value for a schema (it may be contradictory, or beyond the generator)."""


class GeneratorStalled(Unsatisfiable):
    """The generator did not finish in its hard time limit (hypothesis-jsonschema can take very long merging
    some unions): the generator's limit, not the spec's fault."""


class _Stop(BaseException):  # raised by the alarm: not an Exception, so no library code swallows it
    pass


def _bounded(work: Callable[[], Any], seconds: float) -> Any:
    """`work()` stopped after `seconds`: by an alarm in the main thread (the command line); in another
    thread (the window's jobs) it runs in a helper thread that is abandoned when late."""
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        fired = []

        def alarm(signum: int, frame: Any) -> None:
            fired.append(True)
            raise _Stop

        previous = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return work()
        except BaseException:  # hypothesis may wrap the alarm's exception in one of its own
            if fired:
                raise GeneratorStalled(f"the generator did not finish in {seconds:g} s") from None
            raise
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as error:  # handed to the caller
            box["error"] = error

    helper = threading.Thread(target=run, name="argument-generator", daemon=True)
    helper.start()
    helper.join(seconds)
    if helper.is_alive():
        raise GeneratorStalled(f"the generator did not finish in {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


@dataclass(frozen=True)
class ArgumentSet:
    kind: str  # "generated" | "minimal" | "example"
    arguments: dict[str, Any]


# --- preparing a tool schema for the generator ---------------------------------------------------------


def ascii_pattern(pattern: str) -> str:
    """`\\d`, `\\w`, `\\s` (and their negations) spelled as ASCII classes, inside and outside `[...]`."""
    inside = {"d": "0-9", "w": "A-Za-z0-9_", "s": " \\t\\n\\r"}
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            letter = pattern[i + 1]
            if letter in inside:
                out.append(inside[letter] if in_class else f"[{inside[letter]}]")
            elif letter.lower() in inside and not in_class:
                out.append(f"[^{inside[letter.lower()]}]")
            else:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        out.append(char)
        i += 1
    return "".join(out)


_ONE_CLASS_REPEATED = re.compile(r"^\^(\[(?:\\.|[^\]\\])+\])([+*])\$$")


def sized_pattern(pattern: str, min_length: Any, max_length: Any) -> str:
    """`^[class]+$` with a length range spelled as `^[class]{min,max}$`: the same strings, and the generator makes
    them directly (it draws from the pattern, then filters by length: a 40-character hex string was almost never
    drawn from `^[0-9a-fA-F]+$`, and GitHub's commit_sha found no value at all)."""
    found = _ONE_CLASS_REPEATED.match(pattern)
    lengths = [n for n in (min_length, max_length) if isinstance(n, int) and not isinstance(n, bool)]
    if not found or not lengths:
        return pattern
    low = max(min_length if isinstance(min_length, int) else 0, 1 if found.group(2) == "+" else 0)
    high = str(max_length) if isinstance(max_length, int) else ""
    return f"^{found.group(1)}{{{low},{high}}}$"


class _Preparer:
    def __init__(self, root: dict) -> None:
        self.root = root

    def target(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            raise Unsatisfiable(f"the generator cannot follow the $ref {ref!r}")
        node: Any = self.root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise Unsatisfiable(f"the $ref {ref!r} points nowhere in the tool schema")
            node = node[part]
        return node

    def prepare(self, node: Any, stack: tuple[str, ...] = (), close: bool = True) -> Any:
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if stack.count(ref) >= RECURSION_DEPTH:
                return False  # cut: an optional property is left out, an array stays empty
            rest = {k: v for k, v in node.items() if k != "$ref"}
            inner = self.prepare(self.target(ref), (*stack, ref), close and not rest)
            if not rest:
                return inner
            return {"allOf": [inner, self.prepare(rest, stack, False)]}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _ANNOTATIONS or key.startswith("x-"):
                continue
            out.update(self._keyword(key, value, node, stack))
        if close and isinstance(node.get("properties"), dict) and not any(
                k in node for k in ("additionalProperties", "patternProperties", "allOf")):
            out["additionalProperties"] = False  # a model sends the properties a schema declares
        return out

    def _keyword(self, key: str, value: Any, node: dict, stack: tuple[str, ...]) -> dict[str, Any]:
        sub = self.prepare
        if key in ("properties", "patternProperties"):
            return {key: {name: sub(v, stack) for name, v in value.items()}}
        if key == "allOf":  # members stay open: each names only part of the properties
            return {key: [sub(v, stack, False) for v in value]}
        if key in ("anyOf", "oneOf"):
            return {key: [sub(v, stack) for v in value]}
        if key in ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"):
            return {key: sub(value, stack)}
        if key == "prefixItems":  # 2020-12 → draft 7: items as a list, the rest in additionalItems
            rest = node.get("items", True)
            return {"items": [sub(v, stack) for v in value], "additionalItems": sub(rest, stack)}
        if key == "items" and "prefixItems" in node:
            return {}
        if key == "dependentRequired":
            return {"dependencies": value}
        if key == "dependentSchemas":
            return {"dependencies": {name: sub(v, stack) for name, v in value.items()}}
        if key == "pattern" and isinstance(value, str):
            return {key: sized_pattern(ascii_pattern(value), node.get("minLength"), node.get("maxLength"))}
        kinds = node.get("type")
        if key == "format" and value in _INT_RANGES and (kinds == "integer" or (isinstance(kinds, list) and
                                                                               "integer" in kinds)):
            low, high = _INT_RANGES[value]
            return {"minimum": max(low, node.get("minimum", low)), "maximum": min(high, node.get("maximum", high))}
        return {key: value}


def _header_safe(schema: Any) -> Any:
    """A header or cookie value: printable ASCII (what servers read back unchanged), for free text."""
    if not isinstance(schema, dict):
        return schema
    kinds = schema.get("type")
    textual = kinds == "string" or (isinstance(kinds, list) and "string" in kinds)
    if textual and not any(k in schema for k in ("enum", "const", "pattern", "format")):
        return {**schema, "pattern": HEADER_TEXT}
    if isinstance(schema.get("items"), dict):
        return {**schema, "items": _header_safe(schema["items"])}
    if isinstance(schema.get("properties"), dict):
        return {**schema, "properties": {k: _header_safe(v) for k, v in schema["properties"].items()}}
    return schema


def _at(schema: dict, argument: str) -> tuple[dict, str] | None:
    """The object schema holding `argument` (dotted for a nested layout) and the last name."""
    *groups, last = argument.split(".")
    node = schema
    for group in groups:
        node = node.get("properties", {}).get(group)
        if not isinstance(node, dict):
            return None
    return (node, last) if last in node.get("properties", {}) else None


def prepare_schema(schema: Any, root: dict, header: bool = False) -> Any:
    """One schema (inside `root`, which holds its `$defs`) in the form the generator reads."""
    prepared = _Preparer(root).prepare(schema)
    return _header_safe(prepared) if header else prepared


def prepare(tool: Tool) -> dict:
    """The tool's argument schema in the form the generator reads (see the module's docstring)."""
    schema = prepare_schema(tool.parameters, tool.parameters)
    if not isinstance(schema, dict):
        raise Unsatisfiable("the argument schema is recursive at its root")
    # The argument object (and its groups in a nested layout) is closed: a model sends the arguments a tool
    # lists, and the executor refuses any other name with feedback.
    schema.setdefault("additionalProperties", False)
    for name in {b.argument.split(".", 1)[0] for b in tool.bindings if "." in b.argument}:
        group = schema.get("properties", {}).get(name)
        if isinstance(group, dict):
            group.setdefault("additionalProperties", False)
    for binding in tool.bindings:
        if binding.location not in ("header", "cookie"):
            continue
        found = _at(schema, binding.argument)
        if found:
            holder, name = found
            holder["properties"][name] = _header_safe(holder["properties"][name])
    return schema


def minimal(schema: Any) -> Any:
    """The schema with every optional property left out, at every depth (the required-only set)."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if isinstance(schema.get("properties"), dict):
        required = set(schema.get("required", []))
        out["properties"] = {k: minimal(v) if k in required else False for k, v in schema["properties"].items()}
        out["additionalProperties"] = False
    for key in ("allOf", "anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            out[key] = [minimal(m) for m in schema[key]]
    if isinstance(schema.get("items"), dict):
        out["items"] = minimal(schema["items"])
    return out


# --- drawing values ------------------------------------------------------------------------------------


def draw(schema: Any, count: int, seed: int = 0, budget: float = 10.0) -> list[Any]:
    """Up to `count` distinct values valid for `schema`, reproducible for one seed; stops taking more at
    `budget` seconds, and is stopped hard at twice that (`GeneratorStalled`). Raises `Unsatisfiable` when
    none could be made."""
    return _bounded(lambda: _draw(schema, count, seed, budget), budget * 2 + 1)


def _draw(schema: Any, count: int, seed: int, budget: float) -> list[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # hypothesis-jsonschema warns about patterns it cannot read
        strategy = from_schema(schema, custom_formats=FORMATS, allow_x00=False)
    values: list[Any] = []
    keys: set[str] = set()
    started = time.monotonic()

    class _Enough(Exception):
        pass

    @settings(max_examples=max(count * 4, 8), database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @hypothesis_seed(seed)
    @given(strategy)
    def collect(value: Any) -> None:
        key = repr(value)
        if key not in keys:
            keys.add(key)
            values.append(value)
        if len(values) >= count or time.monotonic() - started > budget:
            raise _Enough

    # no example database: hypothesis need not read this function's source to name its entry
    collect._hypothesis_internal_database_key = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            collect()
    except _Enough:
        pass
    except HypothesisException as error:  # Unsatisfiable, or the strategy could not be built
        if not values:
            raise Unsatisfiable(_one_line(error)) from None
    except Exception as error:  # hypothesis-jsonschema raises plain errors for schemas it cannot read
        if not values:
            raise Unsatisfiable(_one_line(error)) from None
    if not values:
        raise Unsatisfiable("no value was found within the time budget")
    return values[:count]


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:300]


def argument_sets(tool: Tool, count: int = 3, seed: int = 0, budget: float = 10.0) -> list[ArgumentSet]:
    """One minimal set, `count` generated sets (fewer when the schema has fewer values) and the spec's
    example set (where it has one) for `tool`. Raises `Unsatisfiable` when the tool's schema yields no value at all."""
    schema = prepare(tool)
    generated = draw(schema, count + 1, seed, budget)
    # hypothesis tries the simplest value first: with only required arguments it is the minimal set
    required = set(schema.get("required", []))
    if set(generated[0]) <= required:
        smallest, generated = generated[:1], generated[1:count + 1]
    else:
        try:
            smallest = draw(minimal(schema), 1, seed, budget)
        except Unsatisfiable:
            smallest = []  # a required-only set may be impossible (minProperties); the generated sets stand
        generated = generated[:count]
    sets = [ArgumentSet("minimal", value) for value in smallest]
    sets += [ArgumentSet("generated", value) for value in generated if value not in smallest]
    example = example_arguments(tool)
    if example is not None:
        sets.append(ArgumentSet("example", example))
    return sets




# --- the spec's own examples -----------------------------------------------------------------------------

_NONE = object()


def _example_of(holder: Any) -> Any:
    """A Parameter's or MediaType's example: `example`, else the first of `examples` (its `value`), else the
    schema's `example` / first `examples`."""
    if holder is None:
        return _NONE
    if holder.example is not None:
        return holder.example
    for example in (holder.examples or {}).values():
        if isinstance(example, dict) and "value" in example:
            return example["value"]
    schema = getattr(holder, "schema", None)
    if isinstance(schema, dict):
        if "example" in schema:
            return schema["example"]
        if isinstance(schema.get("examples"), list) and schema["examples"]:
            return schema["examples"][0]
    return _NONE


def example_arguments(tool: Tool) -> dict[str, Any] | None:
    """The arguments the spec's own examples make, when every required argument has one (None otherwise).
    Human-side arguments are left to the fixtures."""
    op = tool.operation
    params = {(p.name, p.location): p for p in op.parameters}
    media = op.request_body.content.get(tool.media_type) if op.request_body and tool.media_type else None
    body = _example_of(media)
    out: dict[str, Any] = {}
    for binding in tool.bindings:
        if binding.human:
            continue
        value: Any = _NONE
        if binding.location == "body":
            value = body
        elif binding.location == "body-field":
            value = body
            for key in binding.body_path:
                value = value.get(key, _NONE) if isinstance(value, dict) else _NONE
        else:
            value = _example_of(params.get((binding.name, binding.location)))
        if value is _NONE:
            if binding.required:
                return None
            continue
        node = out
        *groups, last = binding.argument.split(".")
        for group in groups:
            node = node.setdefault(group, {})
        node[last] = value
    return out or None
