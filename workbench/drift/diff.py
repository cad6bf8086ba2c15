"""Two spec versions → the tool sets they produce → every change an agent would meet. Tools are matched by
method + path, then by operationId (the path moved), then by tool name; what is left is added or removed. A
matched pair is compared by name, description, arguments (`schemas.Walk` over the parameters, with the
bindings telling a renamed argument), wire places, safety marking, auth and response shape."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from workbench.drift import places
from workbench.drift.model import Change, DriftReport, Where
from workbench.drift.schemas import Resolve, SchemaChange, Walk, local_resolver, similarity
from workbench.policy import safety
from workbench.spec import Operation, Spec
from workbench.tools.model import Tool, ToolSet

# Changes shown where the property is written; the others where its schema is defined (through its `$ref`).
AT_THE_PROPERTY = frozenset(("argument-added", "argument-removed", "argument-renamed", "required-added",
                             "required-removed", "description-changed"))


class Side(NamedTuple):
    """One version: its spec and the tool set built from it."""

    spec: Spec
    toolset: ToolSet


def match_tools(old: list[Tool], new: list[Tool]) -> tuple[list[tuple[Tool, Tool]], list[Tool], list[Tool]]:
    """(matched pairs, removed, added): by method + path, then operationId, then name. An operation split into
    several tools (one per union variant) pairs its tools in order, a same-named one first."""
    pairs: list[tuple[Tool, Tool]] = []
    left_old, left_new = list(old), list(new)
    keys: list[Callable[[Tool], object]] = [
        lambda t: (t.operation.method, t.operation.path),
        lambda t: t.operation.operation_id,
        lambda t: t.name,
    ]
    for key in keys:
        by_key: dict[object, list[Tool]] = {}
        for tool in left_new:
            if key(tool) is not None:
                by_key.setdefault(key(tool), []).append(tool)
        unmatched = []
        for tool in left_old:
            candidates = by_key.get(key(tool)) if key(tool) is not None else None
            if not candidates:
                unmatched.append(tool)
                continue
            partner = next((c for c in candidates if c.name == tool.name), candidates[0])
            candidates.remove(partner)
            left_new.remove(partner)
            pairs.append((tool, partner))
        left_old = unmatched
    return pairs, left_old, left_new


def diff_sides(old: Side, new: Side, old_label: str, new_label: str) -> DriftReport:
    pairs, removed, added = match_tools(old.toolset.tools, new.toolset.tools)
    responses = Walk(old.spec.resolve_schema, new.spec.resolve_schema, closed_top=False)  # shared by every tool
    report = DriftReport(old_label, new_label, new.toolset.vendor, len(old.toolset.tools), len(new.toolset.tools))
    for tool in removed:
        report.changes.append(Change("tool-removed", tool.name, "", True, f"{tool.operation.label()} is gone: "
                                     "calls to this tool are rejected as unknown", old=places.tool_place(tool)))
    for before, after in pairs:
        report.changes += compare_tools(old, before, new, after, responses)
    for tool in added:
        report.changes.append(Change("tool-added", tool.name, "", False, f"new tool for {tool.operation.label()}",
                                     new=places.tool_place(tool)))
    return report


def compare_tools(old: Side, before: Tool, new: Side, after: Tool, responses: Walk | None = None) -> list[Change]:
    here = ToolPair(old, before, new, after, responses)
    changes = here.identity()
    changes += here.arguments()
    changes += here.wire_places()
    changes += here.safety()
    changes += here.auth()
    changes += here.response()
    return changes


class ToolPair:
    __slots__ = ("after", "before", "new", "old", "responses")

    old: Side
    before: Tool
    new: Side
    after: Tool
    responses: Walk | None  # for response schemas in the specs' own terms (refs into the specs)

    def __init__(self, old: Side, before: Tool, new: Side, after: Tool, responses: Walk | None = None) -> None:
        self.old = old
        self.before = before
        self.new = new
        self.after = after
        self.responses = responses

    def change(self, kind: str, breaking: bool, reason: str, argument: str = "", old: Where | None = None,
               new: Where | None = None, similarity: float | None = None) -> Change:
        return Change(kind, self.before.name, argument, breaking, reason,
                      old or places.tool_place(self.before), new or places.tool_place(self.after), similarity)

    def identity(self) -> list[Change]:
        changes = []
        if self.before.name != self.after.name:
            changes.append(self.change("tool-renamed", True, f"now `{self.after.name}`: calls to "
                                       f"`{self.before.name}` are rejected as unknown"))
        if self.before.operation.label() != self.after.operation.label():
            changes.append(self.change("tool-moved", False, f"{self.before.operation.label()} → "
                                       f"{self.after.operation.label()} (the tool's calls follow it)"))
        if self.before.description != self.after.description:
            score = similarity(self.before.description or "", self.after.description or "")
            changes.append(self.change("description-changed", False, f"tool description reworded ({score:.0%} "
                                       "alike): check the model still picks it right", similarity=score))
        return changes

    def arguments(self) -> list[Change]:
        walk = Walk(local_resolver(self.before.parameters), local_resolver(self.after.parameters),
                    _wire(self.before), _wire(self.after),
                    required_new={b.argument: b.required for b in self.after.bindings})
        found = walk.compare(self.before.parameters, self.after.parameters)
        return [self.argument_change(c) for c in found]

    def argument_change(self, found: SchemaChange) -> Change:
        follow = found.kind not in AT_THE_PROPERTY
        return self.change(found.kind, found.breaking, found.reason, argument_path(found.path),
                           places.argument_place(self.old.spec, self.before, found.path, follow),
                           places.argument_place(self.new.spec, self.after, found.path, follow), found.similarity)

    def wire_places(self) -> list[Change]:
        after = {b.argument: b for b in self.after.bindings}
        changes = []
        for binding in self.before.bindings:
            moved = after.get(binding.argument)
            if moved is None or (moved.location, moved.name, moved.body_path) == (
                    binding.location, binding.name, binding.body_path):
                continue
            changes.append(self.change(
                "argument-moved", False, f"sent as {_wire_text(moved)} (was {_wire_text(binding)}): the executor "
                "follows it", binding.argument, places.argument_place(self.old.spec, self.before, (binding.argument,)),
                places.argument_place(self.new.spec, self.after, (binding.argument,))))
        return changes

    def safety(self) -> list[Change]:
        before, after = safety(self.before.operation), safety(self.after.operation)
        changes = []
        if before.requires_approval != after.requires_approval:
            changes.append(self.change("safety-changed", after.requires_approval, "now needs a person's approval: "
                                       "unattended calls are held" if after.requires_approval else
                                       "no longer needs approval: calls now run unattended, check that is meant"))
        if before.destructive != after.destructive:
            changes.append(self.change("safety-changed", False, "now marked destructive" if after.destructive
                                       else "no longer marked destructive"))
        if before.read_only != after.read_only and before.requires_approval == after.requires_approval:
            changes.append(self.change("safety-changed", False, "now read-only" if after.read_only else
                                       "no longer read-only: --read-only sets leave it out"))
        return changes

    def auth(self) -> list[Change]:
        before = _security(self.old.spec, self.before.operation)
        after = _security(self.new.spec, self.after.operation)
        if before == after:
            return []
        open_now = not after or frozenset() in after
        breaking = not open_now and not before <= after
        reason = (f"security {_security_text(before)} → {_security_text(after)}"
                  + (": the agent's credentials may no longer be accepted" if breaking else ""))
        return [self.change("auth-changed", breaking, reason, "",
                            places.security_place(self.old.spec, self.before.operation),
                            places.security_place(self.new.spec, self.after.operation))]

    def response(self) -> list[Change]:
        before, resolve_old = _output(self.old.spec, self.before)
        after, resolve_new = _output(self.new.spec, self.after)
        if before is None and after is None:
            return []
        walk = self.responses
        if walk is None or (resolve_old, resolve_new) != (walk.resolve_old, walk.resolve_new):
            walk = Walk(resolve_old, resolve_new, closed_top=False)
        found = walk.compare(before if before is not None else {}, after if after is not None else {})
        found = [c for c in found if c.kind != "description-changed"]
        if not found:
            return []
        first = found[0]
        where = f"`{argument_path(first.path)}` " if first.path else ""
        reason = f"{len(found)} difference(s) in the successful response, first: {where}{first.reason.split(':')[0]}"
        return [self.change("response-changed", False, reason, "", places.response_place(self.before.operation),
                            places.response_place(self.after.operation))]


def argument_path(path: tuple[str, ...]) -> str:
    """("address", "lines", "[]") → "address.lines[]"."""
    text = ""
    for segment in path:
        text += segment if segment == "[]" else ("." if text else "") + segment
    return text


def _wire(tool: Tool) -> dict[str, tuple[str, str]]:
    return {b.argument: (b.location, b.name) for b in tool.bindings}


def _wire_text(binding) -> str:
    if binding.location == "body-field":
        return f"body field {'.'.join(binding.body_path) or binding.name}"
    return "the body" if binding.location == "body" else f"{binding.location} `{binding.name}`"


def _security(spec: Spec, op: Operation) -> frozenset[frozenset[str]]:
    """Each alternative requirement as the set of `scheme:scope` it asks for; the empty set: anonymous."""
    requirements = op.security if op.security is not None else spec.security
    return frozenset(frozenset(f"{name}:{scope}" if scope else name for name, scopes in req.items()
                               for scope in (scopes or ("",))) for req in requirements)


def _security_text(requirements: frozenset[frozenset[str]]) -> str:
    if not requirements:
        return "none"
    return " or ".join(sorted("+".join(sorted(req)) or "anonymous" for req in requirements))


def _output(spec: Spec, tool: Tool) -> tuple[dict | None, Resolve]:
    """The successful response's schema: the tool's output schema when the vendor has one, else the spec's."""
    if tool.output_schema is not None:
        local = local_resolver(tool.output_schema)
        return tool.output_schema, lambda ref: local(ref) if ref.startswith("#/$defs") else spec.resolve_schema(ref)
    for response in tool.operation.responses:
        if not response.status.startswith("2"):
            continue
        for media, content in response.content.items():
            if "json" in media and isinstance(content.schema, dict):
                return content.schema, spec.resolve_schema
    return None, spec.resolve_schema
