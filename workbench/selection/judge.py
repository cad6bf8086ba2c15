"""One answer judged against its case: which tools were picked and whether that is right, kept apart from
whether the arguments are valid (the executor's own validator, against the original operation) and from
whether they carry the values the case expects.

The order of blame is fixed, so every count means one thing: no answer (error) before a call to a tool that
was not offered (hallucinated) before a call that names no tool or whose arguments cannot be read
(malformed); a call that can be read is then judged as selection. A call that failed to parse is never
counted as an abstention."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from workbench.http.validate import ArgumentContract, argument_contract, check
from workbench.spec import Spec
from workbench.tools.model import Tool, ToolSet
from workbench.wire.validate import FORMAT_CHECKER

from workbench.selection.model import (  # isort: skip
    ALL_OF, DECLINED, ERROR, FALSE_CALL, HALLUCINATED, MALFORMED, NONE, PASSED, WRONG_TOOL, Called, Case, Sample,
    Verdict)

GROUPS = ("path", "query", "header", "cookie", "body")  # where a nested layout puts arguments


@dataclass
class Judge:
    """Judges the answers of one run; builds each tool's model-side argument contract once."""

    spec: Spec
    toolset: ToolSet
    arguments: bool = True  # False: the runner makes no arguments (offline), so none are judged
    _contracts: dict[str, ArgumentContract] = field(default_factory=dict)

    def verdict(self, case: Case, answer: Sample, offered: Sequence[str]) -> Verdict:
        calls = answer.calls
        picked = tuple(c.name for c in calls)
        if answer.error is not None:
            return Verdict(case.id, answer.sample, ERROR, picked, answer=answer)
        offered_names = set(offered)
        if any(c.name and c.name not in offered_names for c in calls):
            return Verdict(case.id, answer.sample, HALLUCINATED, picked, answer=answer)
        if any(c.arguments is None or c.problem for c in calls):  # a call naming no tool is malformed too
            problems = tuple(f"{c.name}: {c.problem or 'arguments are not a JSON object'}" for c in calls
                             if c.arguments is None or c.problem)
            return Verdict(case.id, answer.sample, MALFORMED, picked, argument_problems=problems, answer=answer)
        valid, problems = self._validity(calls) if self.arguments else (None, ())
        match, misses = _matches(case, calls) if self.arguments else (None, ())
        outcome, f1 = _selection(case, picked)
        return Verdict(case.id, answer.sample, outcome, picked, f1=f1, arguments_valid=valid,
                       argument_problems=(*problems, *misses), arguments_match=match, answer=answer)

    def _validity(self, calls: Sequence[Called]) -> tuple[bool | None, tuple[str, ...]]:
        if not calls:
            return None, ()
        problems: list[str] = []
        for call in calls:
            tool = self.toolset.tool(call.name)
            if tool is None:
                continue
            checked = check(self.spec, tool, dict(call.arguments or {}), self._contract(tool))
            problems += [f"{call.name}: {v.place or '(arguments)'}: {v.expected}" for v in checked.violations]
        return not problems, tuple(problems)

    def _contract(self, tool: Tool) -> ArgumentContract:
        """The executor's contract less the arguments a person supplies (secrets, files): a model is never
        shown them, so their absence is not the model's mistake."""
        if tool.name not in self._contracts:
            full = argument_contract(self.spec, tool)
            human = {b.argument for b in tool.bindings if b.human}
            schema = full.schema
            if human:
                schema = {**schema, "properties": {k: v for k, v in schema.get("properties", {}).items()
                                                   if k not in human},
                          "required": [r for r in schema.get("required", []) if r not in human]}
            self._contracts[tool.name] = ArgumentContract(
                schema, jsonschema.Draft202012Validator(schema, format_checker=FORMAT_CHECKER))
        return self._contracts[tool.name]


def _selection(case: Case, picked: tuple[str, ...]) -> tuple[str, float | None]:
    expect = case.expect
    if expect.mode == NONE:
        return (PASSED if not picked else FALSE_CALL), None
    if not picked:
        return DECLINED, (0.0 if expect.mode == ALL_OF else None)
    if expect.mode == ALL_OF:
        groups = expect.groups or tuple((name,) for name in expect.tools)
        score = f1(picked, groups)
        return (PASSED if score == 1.0 else WRONG_TOOL), score
    # one of: every call is to an acceptable tool (an extra call to another tool is a wrong pick)
    return (PASSED if all(name in expect.tools for name in picked) else WRONG_TOOL), None


def f1(picked: Sequence[str], expected: Sequence[str | Sequence[str]]) -> float:
    """F1 over tool names: sets (calling one tool twice is not two right answers); an expected entry may be a
    group of tools of which any one will do (one operation split into several tools)."""
    groups = [(item,) if isinstance(item, str) else tuple(item) for item in expected]
    got = set(picked)
    if not got or not groups:
        return 0.0
    precision = sum(1 for name in got if any(name in g for g in groups)) / len(got)
    recall = sum(1 for g in groups if got & set(g)) / len(groups)
    return 0.0 if not precision + recall else 2 * precision * recall / (precision + recall)


def _matches(case: Case, calls: Sequence[Called]) -> tuple[bool | None, tuple[str, ...]]:
    """The case's expected values against the calls to the tools they are given for. None: nothing to compare
    (no expected values, or no call to a tool that has some)."""
    misses: list[str] = []
    compared = False
    for call in calls:
        expected = case.arguments.get(call.name)
        if not expected:
            continue
        compared = True
        for key, want in expected.items():
            got = _find(call.arguments or {}, key)
            if got is _MISSING:
                misses.append(f"{call.name}: expected {key}={_show(want)}, not given")
            elif not lenient_equal(got, want):
                misses.append(f"{call.name}: expected {key}={_show(want)}, got {_show(got)}")
    return (not misses if compared else None), tuple(misses)


_MISSING = object()


def _find(arguments: Mapping[str, Any], key: str) -> Any:
    """An argument by name wherever the layout put it: at the top, in a nested layout's group, or inside the
    body object."""
    if key in arguments:
        return arguments[key]
    for group in GROUPS:
        inner = arguments.get(group)
        if isinstance(inner, Mapping) and key in inner:
            return inner[key]
        if group == "body" and isinstance(inner, Mapping):
            body = inner.get("body")
            if isinstance(body, Mapping) and key in body:
                return body[key]
    return _MISSING


def lenient_equal(got: Any, want: Any) -> bool:
    """Equal as a person reading the call would judge it: text ignoring case and surrounding space, a number
    however it is written ("5" is 5), an object when it holds the expected keys (a subset), a list when it
    holds every expected item."""
    if isinstance(want, Mapping):
        return isinstance(got, Mapping) and all(k in got and lenient_equal(got[k], v) for k, v in want.items())
    if isinstance(want, list):
        items = got if isinstance(got, list) else [got]
        return all(any(lenient_equal(g, w) for g in items) for w in want)
    if isinstance(want, bool) or isinstance(got, bool):
        return _as_bool(got) == _as_bool(want)
    if isinstance(want, int | float) or isinstance(got, int | float):
        return _as_number(got) is not None and _as_number(got) == _as_number(want)
    if want is None or got is None:
        return want is got
    return str(got).strip().casefold() == str(want).strip().casefold()


def _as_number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    return {"true": True, "false": False}.get(str(value).strip().lower())


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."
