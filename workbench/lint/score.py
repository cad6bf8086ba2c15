"""The agent-readiness score: blockers first, then quality per operation as coverage ratios a reader can check.

Formula (documented in README.md, "The readiness score"):
- The operations scored are the tools an agent is handed: the spec's operations, or those in the tool set's
  scope when the caller gives it (the `tools:` section of the config). No operations: no score.
- Each finding belongs to the operations it reaches: the one whose subtree it sits in; every operation of a
  path item, for the item's shared parameters; every operation that reaches a component through `$ref`s,
  for a finding inside it; every operation, for a finding about the whole spec (servers, security, the tool
  count). A finding in a component no operation reaches belongs to none; `too-many-operations` belongs to
  none when the operations in scope are within the tool budget.
- Blockers: an operation is blocked by an invalid or duplicate tool name, an unresolved `$ref` or a path
  parameter that does not match its template (a vendor rejects the tool list, or the call cannot be made);
  every operation is blocked when more than `TOOL_LIMIT` are in scope (OpenAI rejects the whole list).
- Quality: an operation passes a category when no finding of that category at warn or error belongs to it
  (info and hint findings are advice). Its quality is the sum of the weights (out of 100) of the categories
  it passes; the spec's quality is the mean over its operations, that is Σ weight × passed ÷ operations.
- The headline is the quality, rounded; while anything is blocked it is capped at `BLOCKED_CAP` (0), below
  every spec whose tools an agent can use, and the quality is reported as what it scores once unblocked.
It is computed from the lint result, so config severities and ignores count exactly as they do in CI.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from workbench.lint.engine import LintResult
from workbench.lint.finding import Finding, Severity
from workbench.lint.registry import CATEGORIES, RULES
from workbench.spec import Operation, Spec
from workbench.spec.pointer import lookup, split

CATEGORY_WEIGHT = {"naming": 15, "descriptions": 25, "parameters": 25, "responses": 15, "safety": 10, "scope": 10}
# What an operation that passes a category has, as the text report says it.
CATEGORY_MEANING = {
    "naming": "have a valid, telling tool name",
    "descriptions": "have a usable description of themselves and their arguments",
    "parameters": "have well-formed, typed arguments",
    "responses": "declare their success and error responses",
    "safety": "can be called safely (authenticated, marked when destructive)",
    "scope": "are distinct tools in a tool set within budget",
}
FAILING = Severity.WARN  # the least severe finding that fails its operation's category
TOOL_LIMIT = 128  # the lowest vendor limit on tools per request (OpenAI; Gemini takes 512)
# The headline while anything is blocked: below every spec an agent can use, whatever its quality (the
# quality is still reported, as what the spec scores once unblocked).
BLOCKED_CAP = 0


class BlockerKind(NamedTuple):
    """A kind of finding that blocks the tool list outright: its rules, the problem and how to unblock."""

    kind: str
    rules: tuple[str, ...]
    problem: str
    unblock: str  # {spec} is the spec's file name


BLOCKER_KINDS = (
    BlockerKind("invalid-tool-name", ("operation-id-tool-name-invalid",),
                "invalid tool names: OpenAI, Anthropic and Gemini reject the whole tool list",
                "workbench fix {spec} --rule operation-id-tool-name-invalid --apply"),
    BlockerKind("duplicate-tool-name", ("operation-id-duplicate",),
                "duplicate tool names: one tool shadows the other, or the vendor rejects the list",
                "give each operation its own operationId (`workbench lint {spec}` lists them)"),
    BlockerKind("unresolved-ref", ("unresolved-ref",),
                "unresolved $refs: the arguments or responses they name are missing",
                "point each $ref at a definition inside the spec's folder"),
    BlockerKind("path-parameters", ("path-params-mismatch", "path-colon-parameter"),
                "path parameters that do not match the path template: the call goes to the wrong URL",
                "declare one path parameter for each {{name}} in the path, and no others"),
)
_TOOL_COUNT = BlockerKind("tool-count", (), f"more than {TOOL_LIMIT} tools in scope: OpenAI rejects the whole list",
                          "scope the tool set: `tools: {{tags: [...]}}` or an `operations:` allowlist in "
                          ".workbench.yaml (or `--tags` / `--operations`)")


class CategoryScore(NamedTuple):
    """One category's part of the quality: the share of scored operations that pass its rules."""

    name: str
    score: int  # 100 × passed ÷ operations, rounded
    weight: int
    findings: int  # the category's findings on the operations scored, at any severity
    passed: int = 0
    operations: int = 0
    failing: tuple[tuple[str, int], ...] = ()  # (rule, operations it fails), most first

    @property
    def points(self) -> float:
        """What the category adds to the quality: weight × passed ÷ operations."""
        return self.weight * self.passed / self.operations if self.operations else 0.0


class Blocker(NamedTuple):
    """A blocker found in the spec: its kind, how many operations it touches, and how to unblock."""

    kind: str
    operations: int
    problem: str
    unblock: str


class Score(NamedTuple):
    """The agent-readiness score: the headline (capped while anything is blocked), categories, blockers, counts."""

    score: int | None  # the headline; None: no operations, no score
    categories: tuple[CategoryScore, ...]
    operations: int
    operations_without_description: int
    parameters: int
    parameters_without_description: int
    invalid_tool_names: int
    quality: int | None = None  # the mean per-operation quality, blocked or not
    blockers: tuple[Blocker, ...] = ()
    blocked_operations: int = 0
    findings: int = 0

    @property
    def blocked(self) -> bool:
        return bool(self.blockers)

    def headline(self) -> str:
        """The status line: `73/100`, `0/100, blocked: 874 operations (quality 46 once unblocked)`, or
        `none (no operations)`."""
        if self.score is None:
            return "none (no operations)"
        if self.blocked:
            return (f"{self.score}/100, blocked: {self.blocked_operations} operation"
                    f"{'s' if self.blocked_operations != 1 else ''} (quality {self.quality} once unblocked)")
        return f"{self.score}/100"

    def to_dict(self) -> dict:
        return {
            "score": self.score,
            "blocked": self.blocked,
            "blocked_operations": self.blocked_operations,
            "quality": self.quality,
            "blockers": [{"kind": b.kind, "operations": b.operations, "problem": b.problem, "unblock": b.unblock}
                         for b in self.blockers],
            "categories": {c.name: {"score": c.score, "weight": c.weight, "findings": c.findings,
                                    "passed": c.passed, "of": c.operations, "failing": dict(c.failing)}
                           for c in self.categories},
            "operations": self.operations,
            "findings": self.findings,
            "operations_without_description": self.operations_without_description,
            "parameters": self.parameters,
            "parameters_without_description": self.parameters_without_description,
            "invalid_tool_names": self.invalid_tool_names,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_text(self) -> str:
        lines = [f"Agent-readiness score: {self.headline()}"]
        if self.score is None:
            return "\n".join([*lines, "There is nothing to score: the spec has no operations an agent could call."])
        for b in self.blockers:
            lines.append(f"  {b.operations} blocked by {b.problem}")
            lines.append(f"    unblock: {b.unblock}")
        lines.append(f"Quality{' once unblocked' if self.blocked else ''}: {self.quality}/100 = the sum of "
                     f"weight × operations passing ÷ {self.operations}")
        for c in self.categories:
            rules = ", ".join(f"{rule} {n}" for rule, n in c.failing[:3])
            lines.append(f"  {c.name:<13}{c.weight:>3} × {c.passed:>4} of {c.operations:<5}= {c.points:5.1f}  "
                         f"{CATEGORY_MEANING[c.name]}" + (f" (failing: {rules})" if rules else ""))
        lines.append(f"Operations without a description: {self.operations_without_description} of {self.operations}")
        lines.append(f"Parameters without a description: {self.parameters_without_description} of {self.parameters}")
        lines.append(f"Invalid tool names: {self.invalid_tool_names}")
        return "\n".join(lines)


def score(result: LintResult, operations: Sequence[Operation] | None = None) -> Score:
    """The score of `result` over `operations` (the tools in scope; default: every operation of the spec)."""
    spec = result.spec
    if operations is None:
        operations = spec.operations if spec is not None else ()
    operations = tuple(operations)
    count = len(operations)
    owners = Owners(spec, operations) if spec is not None and count else None
    failed: dict[str, list[set[int]]] = {name: [] for name in CATEGORIES}
    failing_rules: dict[str, dict[str, set[int]]] = {name: {} for name in CATEGORIES}
    category_findings = Counter()
    blocked_by: dict[str, set[int]] = {kind.kind: set() for kind in BLOCKER_KINDS}
    kind_of = {rule: kind.kind for kind in BLOCKER_KINDS for rule in kind.rules}
    scored = 0
    budget = result.config.threshold("tool-budget")
    for finding in result.findings:
        if finding.rule == "too-many-operations" and count <= budget:
            continue  # the spec has more operations than the budget, but the tools in scope do not
        reached = owners.of(finding) if owners is not None else frozenset()
        if not reached:
            continue
        scored += 1
        category = RULES[finding.rule].category if finding.rule in RULES else "parameters"
        category_findings[category] += 1
        if finding.rule in kind_of:
            blocked_by[kind_of[finding.rule]].update(reached)
        if finding.severity >= FAILING:
            failed[category].append(reached)
            failing_rules[category].setdefault(finding.rule, set()).update(reached)
    blockers = [Blocker(kind.kind, len(blocked_by[kind.kind]), kind.problem, kind.unblock.format(spec=_name(spec)))
                for kind in BLOCKER_KINDS if blocked_by[kind.kind]]
    if count > TOOL_LIMIT:
        blockers.append(Blocker(_TOOL_COUNT.kind, count, _TOOL_COUNT.problem, _TOOL_COUNT.unblock.format()))
    blocked_operations = count if count > TOOL_LIMIT else len(set().union(*blocked_by.values()))
    categories = []
    for name in CATEGORIES:
        failing = set().union(*failed[name]) if failed[name] else set()
        passed = count - len(failing)
        categories.append(CategoryScore(name, round(100 * passed / count) if count else 0, CATEGORY_WEIGHT[name],
                                        category_findings[name], passed, count,
                                        tuple(sorted(((rule, len(ops)) for rule, ops in failing_rules[name].items()),
                                                     key=lambda pair: (-pair[1], pair[0])))))
    quality = round(sum(c.points for c in categories)) if count else None
    headline = None if quality is None else min(quality, BLOCKED_CAP) if blockers else quality
    parameters = {(p.origin.document.name, p.origin.pointer): p for op in operations for p in op.parameters}
    return Score(
        score=headline,
        categories=tuple(categories),
        operations=count,
        operations_without_description=sum(1 for op in operations if not (op.description or "").strip()),
        parameters=len(parameters),
        parameters_without_description=sum(1 for p in parameters.values() if not (p.description or "").strip()),
        invalid_tool_names=len(blocked_by["invalid-tool-name"]),
        quality=quality,
        blockers=tuple(blockers),
        blocked_operations=blocked_operations,
        findings=scored,
    )


def _name(spec: Spec | None) -> str:
    return spec.root.path.name if spec is not None and spec.root.path is not None else "SPEC"


# Top-level places whose findings concern every operation (no base URL, no way to authenticate, the count).
_SPEC_WIDE = frozenset(("", "paths", "servers", "security", "host", "basePath", "schemes", "info", "tags",
                        "securityDefinitions"))
_NOT_WALKED = frozenset(("example", "examples", "x-examples"))  # values, not definitions: no finding's owner


class Owners:
    """Which of the scored operations a finding belongs to (see the module's formula); the Edit form asks it how
    many operations use the schema it edits."""

    def __init__(self, spec: Spec, operations: tuple[Operation, ...]) -> None:
        self.spec = spec
        self.all = frozenset(range(len(operations)))
        self.own: dict[tuple[str, str], frozenset[int]] = {}
        items: dict[tuple[str, str], set[int]] = {}
        for i, op in enumerate(operations):
            doc = op.origin.document.name
            self.own[(doc, op.origin.pointer)] = frozenset((i,))
            items.setdefault((doc, op.origin.pointer.rsplit("/", 1)[0]), set()).add(i)
        for key, members in items.items():
            self.own.setdefault(key, frozenset(members))
        self.reach: dict[tuple[str, str], set[int]] = {}
        direct: dict[tuple[str, str], set[tuple[str, str]]] = {}
        for i, op in enumerate(operations):
            document = op.origin.document
            item = lookup(document.data, op.origin.pointer.rsplit("/", 1)[0], None)
            todo = list(self._refs(document, lookup(document.data, op.origin.pointer, None)))
            if isinstance(item, dict):
                todo += self._refs(document, item.get("parameters"))
            seen: set[tuple[str, str]] = set()
            while todo:
                key = todo.pop()
                if key in seen:
                    continue
                seen.add(key)
                self.reach.setdefault(key, set()).add(i)
                if key not in direct:
                    target = spec.documents.get(key[0])
                    direct[key] = self._refs(target, lookup(target.data, key[1], None)) if target else set()
                todo.extend(direct[key])

    def _refs(self, document, value) -> set[tuple[str, str]]:
        """The definitions that `$ref`s inside `value` lead to, as (document name, pointer)."""
        found = set()
        stack = [value]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if isinstance(node.get("$ref"), str):
                    target, target_doc, pointer = self.spec.deref(node, document, "")
                    if target is not node:
                        found.add((target_doc.name, pointer))
                    continue
                stack.extend(v for k, v in node.items() if k not in _NOT_WALKED and isinstance(v, (dict, list)))
            elif isinstance(node, list):
                stack.extend(v for v in node if isinstance(v, (dict, list)))
        return found

    def of(self, finding: Finding) -> frozenset[int]:
        return self.of_pointer(finding.document.name, finding.pointer)

    def of_pointer(self, doc: str, pointer: str) -> frozenset[int]:
        """The operations (by index) that a finding at `pointer` of the document named `doc` belongs to."""
        start = pointer
        while True:
            key = (doc, pointer)
            owners = self.own.get(key)
            if owners is not None:
                return owners
            reached = self.reach.get(key)
            if reached is not None:
                return frozenset(reached)
            if not pointer:
                break
            pointer = pointer.rsplit("/", 1)[0]
        tokens = split(start)
        if doc == self.spec.root.name and ((len(tokens) <= 1 and (not tokens or tokens[0] in _SPEC_WIDE))
                                           or tokens[:2] == ["components", "securitySchemes"]):
            return self.all
        return frozenset()
