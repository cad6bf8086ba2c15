"""What the MCP server does, without the protocol: the tools it lists (the checked tool set, or the three
meta-tools of dynamic mode) and a call through the executor with its gates. Nothing here imports the SDK, so
it is tested and timed on its own; `server.py` puts it on the wire.

A call never raises: validation feedback, refusals, missing human input and HTTP errors come back as an
`Outcome` with `is_error`, text the model can act on."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench.policy import safety
from workbench.spec import Spec, SpecError
from workbench.tools.human import HUMAN_ENV_PREFIX, human_values
from workbench.tools.model import Tool, ToolSet

if TYPE_CHECKING:  # the executor and its HTTP client load on the first call, not before the first list
    from workbench.http.executor import CallResult, Executor
    from workbench.http.validate import ArgumentContract, Violation

SEARCH, DESCRIBE, CALL = "search_operations", "describe_operation", "call_operation"
DEFAULT_TOP = 8
CONFIRM = {"type": "object", "properties": {"confirm": {"type": "boolean", "title": "Send this request"}},
           "required": ["confirm"]}


@dataclass
class ServeOptions:
    base_url: str | None = None  # where calls go; None: the spec's server
    mock: bool = False  # the target is our embedded mock: writes are safe trials, no one is asked
    allow_writes: bool = False  # destructive calls go through when the client cannot ask its user
    read_only: bool = False  # only read-only operations are listed, and the executor refuses the rest
    dynamic: bool = False  # three meta-tools instead of the whole set
    deadline_s: float = 30.0
    credentials: dict[str, str] = field(default_factory=dict, repr=False)  # stand-ins for the mock


@dataclass
class Outcome:
    text: str
    is_error: bool = False
    structured: dict | None = None  # structuredContent, for a tool with an outputSchema


@dataclass(frozen=True)
class Question:
    message: str
    schema: dict  # a flat object of primitive properties (what elicitation allows)


class Asker:
    """How the user is asked, as the transport allows. `ask` takes every question of one call at once (a
    2026-era client answers them in one round) and returns each key's accepted answer, or None for a
    question declined, cancelled or not asked. `can_ask` False: nothing will be asked."""

    can_ask = False

    def ask(self, questions: Mapping[str, Question]) -> dict[str, dict | None]:
        return dict.fromkeys(questions)


class Service:
    """One spec's tool set served: built once at start, shared by every session of the server."""

    def __init__(self, spec: Spec, toolset: ToolSet, options: ServeOptions | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        self.spec, self.toolset = spec, toolset
        self.options = options or ServeOptions()
        self.environ = os.environ if environ is None else environ
        # the executor's memory across calls: earlier failures per tool (for better feedback), contracts
        self.history: dict[str, list[list[Violation]]] = {}
        self.contracts: dict[str, ArgumentContract] = {}
        self._schemas: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._native = [listable(tool) for tool in toolset.native]
        self._by_name = {native["name"]: native for native in self._native}

    # ------------------------------------------------------------------ listing

    def listed(self) -> list[dict]:
        """The tools/list answer: the vendor's native MCP tool objects, or dynamic mode's three."""
        return meta_tools() if self.options.dynamic else self._native

    # ------------------------------------------------------------------ calling

    def call(self, name: str, arguments: Mapping[str, Any] | None, asker: Asker) -> Outcome:
        arguments = dict(arguments or {})
        if self.options.dynamic:
            return self._meta_call(name, arguments, asker)
        return self.call_operation(name, arguments, asker)

    def _meta_call(self, name: str, arguments: dict, asker: Asker) -> Outcome:
        if name == SEARCH:
            return self.search(str(arguments.get("query", "")), arguments.get("top", DEFAULT_TOP))
        if name == DESCRIBE:
            return self.describe(str(arguments.get("name", "")))
        if name == CALL:
            inner = arguments.get("arguments", {})
            if not isinstance(inner, dict):
                return Outcome("`arguments` must be an object of the operation's arguments "
                               f"(see {DESCRIBE}).", is_error=True)
            return self.call_operation(str(arguments.get("name", "")), inner, asker)
        return Outcome(f"Unknown tool {name!r}: use {SEARCH}, {DESCRIBE} and {CALL}.", is_error=True)

    def search(self, query: str, top: Any = DEFAULT_TOP) -> Outcome:
        from workbench.tools.relevance import ModelUnavailable, relevant  # the embeddings load on first use

        if not query.strip():
            return Outcome("Give a `query`: what you want to do, in a few words.", is_error=True)
        count = top if isinstance(top, int) and not isinstance(top, bool) and top > 0 else DEFAULT_TOP
        try:
            found = relevant(self.toolset, query, min(count, 50))
        except ModelUnavailable as exc:
            return Outcome(f"The search is unavailable: {exc}", is_error=True)
        lines = [f"{t.name}: {summary(t)}" for t in found]
        return Outcome("\n".join(lines) + f"\n\nCall {DESCRIBE} for one operation's arguments." if lines
                       else "No operation matches.")

    def describe(self, name: str) -> Outcome:
        native = self._by_name.get(name)
        if native is None:
            return Outcome(f"There is no operation {name!r}: find one with {SEARCH}.", is_error=True)
        return Outcome(json.dumps(native, ensure_ascii=False, indent=1))

    def call_operation(self, name: str, arguments: dict[str, Any], asker: Asker) -> Outcome:
        tool = self.toolset.tool(name)
        executor = self._executor()
        if tool is None:  # the executor's feedback lists the names there are
            return outcome(executor.call(_tool_call(name, arguments)), None, self)
        try:
            human = human_values(tool, {}, self.environ)
        except SpecError as exc:
            return Outcome(str(exc), is_error=True)
        missing = [b.argument for b in tool.bindings if b.human and b.required and b.argument not in human]
        questions = self._questions(tool, arguments, human, missing)
        answers = asker.ask(questions) if questions else {}
        if missing:
            try:
                human.update(human_values(tool, _strings(answers.get("human") or {}, missing), {}))
            except SpecError as exc:
                return Outcome(str(exc), is_error=True)
            still = [m for m in missing if m not in human]
            if still:
                return Outcome(missing_human(tool, still, asker.can_ask), is_error=True)
        confirmed = (answers.get("approve") or {}).get("confirm") is True

        def approve(request, tool) -> bool:
            return confirmed or (not asker.can_ask and self.options.allow_writes)

        executor.options.approve, executor.options.human = approve, human
        result = executor.call(_tool_call(name, arguments))
        return outcome(result, tool, self, asked=asker.can_ask)

    def _questions(self, tool: Tool, arguments: dict, human: dict, missing: list[str]) -> dict[str, Question]:
        """What to ask the user before this call: the human-side values that are missing, and a confirmation
        of a destructive call (not for the mock, nor for arguments that fail validation: nothing is sent)."""
        questions: dict[str, Question] = {}
        if missing:
            questions["human"] = Question(
                f"{tool.name} needs values that go to the API only, never to the model: {', '.join(missing)}. "
                "(A file to upload: its path, starting with @.)",
                {"type": "object", "properties": {m: {"type": "string", "title": m} for m in missing},
                 "required": missing})
        if safety(tool.operation).requires_approval and not self.options.mock and not self.options.read_only:
            from workbench.http.validate import check

            if not missing and not check(self.spec, tool, {**arguments, **human}, self._contract(tool)).ok:
                return questions
            op = tool.operation
            why = "is destructive (it cannot be undone)" if safety(op).destructive else "needs your approval"
            questions["approve"] = Question(f"{tool.name} {why}: {op.method.upper()} {op.path} with "
                                            f"{json.dumps(arguments, ensure_ascii=False)[:500]}. Send it?", CONFIRM)
        return questions

    def _contract(self, tool: Tool) -> ArgumentContract:
        return self._executor().contract(tool)

    def _executor(self) -> Executor:
        """An executor for one call (its options carry that call's approval and human part), sharing the
        service's memory of earlier failures and built contracts."""
        from workbench.http.executor import CallOptions, Executor

        o = self.options
        executor = Executor(self.spec, self.toolset, CallOptions(
            base_url=o.base_url, deadline_s=o.deadline_s, mock=o.mock, read_only=o.read_only,
            credentials=dict(o.credentials)))
        executor.history, executor.contracts = self.history, self.contracts
        return executor

    def output_error(self, tool: Tool, body: Any) -> str | None:
        """Why a success body does not match the tool's outputSchema (a client rejects it), or None."""
        schema = self._by_name.get(tool.name, {}).get("outputSchema")
        if schema is None:
            return None
        with self._lock:
            validator = self._schemas.get(tool.name)
            if validator is None:
                import jsonschema

                validator = self._schemas[tool.name] = jsonschema.Draft202012Validator(schema)
        error = next(iter(validator.iter_errors(body)), None)
        if error is None:
            return None
        where = "/".join(str(p) for p in error.absolute_path) or "the body"
        return f"{where}: {error.message[:300]}"


def listable(native: dict) -> dict:
    """A native tool as MCP requires it: an outputSchema states `type: object` at its root (the conversion
    also emits one for a schema with properties and no type, which the SDK refuses for the whole list)."""
    schema = native.get("outputSchema")
    if isinstance(schema, dict) and "type" not in schema:
        return {**native, "outputSchema": {"type": "object", **schema}}
    return native


def _tool_call(name: str, arguments: dict[str, Any]):
    from workbench.http.calls import ToolCall

    return ToolCall(name, arguments)


def _strings(content: Mapping[str, Any], wanted: list[str]) -> dict[str, Any]:
    return {k: v for k, v in content.items() if k in wanted and v not in (None, "")}


def missing_human(tool: Tool, names: list[str], could_ask: bool) -> str:
    how = ", ".join(f"{HUMAN_ENV_PREFIX}{n.upper()}" for n in names)
    why = "the user gave none" if could_ask else "this client cannot ask its user"
    return (f"{tool.name} needs {', '.join(names)} from a person, not from the model, and {why}. "
            f"Ask the user to set {how} in the server's environment, then call again.")


def outcome(result: CallResult, tool: Tool | None, service: Service, asked: bool = False) -> Outcome:
    """A call's result as the model reads it."""
    if result.feedback is not None:
        return Outcome(result.feedback.text, is_error=True)
    if result.status is None:
        text = result.to_text()
        if tool is not None and result.error and "not approved" in result.error:
            text += (". The user did not confirm it." if asked else
                     ". This client cannot ask its user, and the server does not allow writes without asking "
                     "(start it with --allow-writes, or --mock to try against the mock).")
        return Outcome(text, is_error=True)
    text = result.to_text()
    if not result.ok or tool is None:
        return Outcome(text, is_error=True)
    if tool.output_schema is None:
        return Outcome(text)
    body = result.masked(result.body)
    problem = service.output_error(tool, body)
    if problem is not None:
        return Outcome(f"{text}\n\nThe response does not match the operation's declared response schema "
                       f"({problem}).", is_error=True)
    return Outcome(text, structured=body)


def summary(tool: Tool) -> str:
    op = tool.operation
    line = " ".join((op.summary or tool.description.split("\n", 1)[0]).split())[:160]
    return f"{line} ({op.method.upper()} {op.path})"


def meta_tools() -> list[dict]:
    """Dynamic mode's tools: a few hundred tokens in place of the whole catalogue."""
    return [
        {"name": SEARCH, "description": "Find the API operations for a task: the best matches' names, each with "
         "a one-line summary. Then describe one to see its arguments.",
         "inputSchema": {"type": "object", "properties": {
             "query": {"type": "string", "description": "what you want to do, in a few words"},
             "top": {"type": "integer", "minimum": 1, "maximum": 50, "default": DEFAULT_TOP}},
             "required": ["query"]},
         "annotations": {"title": "Search the operations", "readOnlyHint": True, "openWorldHint": False}},
        {"name": DESCRIBE, "description": "One operation's full definition: description, input schema "
         "(its arguments) and annotations (read-only, destructive).",
         "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
         "annotations": {"title": "Describe an operation", "readOnlyHint": True, "openWorldHint": False}},
        {"name": CALL, "description": "Call one operation with its arguments (as its input schema says). "
         "Destructive operations need the user's confirmation.",
         "inputSchema": {"type": "object", "properties": {
             "name": {"type": "string"}, "arguments": {"type": "object", "default": {}}}, "required": ["name"]},
         "annotations": {"title": "Call an operation", "readOnlyHint": False, "destructiveHint": True,
                         "openWorldHint": True}},
    ]


