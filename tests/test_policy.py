"""workbench.policy: one definition of read-only / destructive / requires approval / idempotent, and every
consumer (the executor's gates, the tool description, the MCP annotations, the lint rule) agreeing with it."""

from __future__ import annotations

import pytest

from tests.servers import RecordingServer
from workbench.config import LintConfig
from workbench.http.calls import ToolCall
from workbench.http.executor import CallOptions, Executor, is_destructive
from workbench.lint import lint
from workbench.lint.registry import RULES
from workbench.policy import Safety, safety
from workbench.spec import Operation, Origin, load_spec
from workbench.tools import ConvertOptions, Scope, convert

APPROVAL = "Requires human approval before it runs."
DESTRUCTIVE = "Destructive: the change cannot be undone."


def operation(method: str, **extensions) -> Operation:
    return Operation(method, "/things/{id}", Origin(None, ""), extensions=extensions)  # type: ignore[arg-type]


# (method, extensions) → (read_only, destructive, requires_approval, overwrites, idempotent, marked)
TABLE = [
    ("get", {}, (True, False, False, False, True, False)),
    ("head", {}, (True, False, False, False, True, False)),
    ("options", {}, (True, False, False, False, True, False)),
    ("trace", {}, (True, False, False, False, True, False)),
    ("post", {}, (False, False, False, False, False, False)),
    ("put", {}, (False, False, False, True, True, False)),
    ("patch", {}, (False, False, False, True, None, False)),
    ("delete", {}, (False, True, True, True, True, False)),
    ("query", {}, (False, False, False, True, None, False)),  # outside the table: overwrites, unknown idempotence
    # each destructive marker alone makes a POST destructive (MCP used to miss x-destructive-hint)
    ("post", {"x-destructive": True}, (False, True, True, True, False, True)),
    ("post", {"x-destructive-hint": True}, (False, True, True, True, False, True)),
    ("post", {"x-mcp-destructive-hint": True}, (False, True, True, True, False, True)),
    # approval asks for a person without saying the change cannot be undone
    ("post", {"x-agent-requires-approval": True}, (False, False, True, True, False, True)),
    ("get", {"x-agent-requires-approval": True}, (False, False, True, True, True, True)),
    ("get", {"x-destructive": True}, (False, True, True, True, True, True)),
    # a declared "no" wins over the method, and counts as saying so
    ("delete", {"x-destructive": False}, (False, False, False, False, True, True)),
    ("delete", {"x-mcp-destructive-hint": False}, (False, False, False, False, True, True)),
    ("delete", {"x-destructive": False, "x-destructive-hint": True}, (False, True, True, True, True, True)),
    ("delete", {"x-agent-requires-approval": False}, (False, True, True, True, True, False)),
    ("delete", {"x-destructive": None}, (False, True, True, True, True, False)),
    ("post", {"x-agent-requires-approval": True, "x-mcp-destructive-hint": False},
     (False, False, True, False, False, True)),
    # the MCP read-only and idempotent hints, when they are booleans
    ("post", {"x-mcp-read-only-hint": True}, (True, False, False, False, False, False)),
    ("get", {"x-mcp-read-only-hint": False}, (False, False, False, False, True, False)),
    ("put", {"x-mcp-read-only-hint": True}, (True, False, False, False, True, False)),
    ("post", {"x-mcp-read-only-hint": "yes"}, (False, False, False, False, False, False)),
    ("post", {"x-mcp-idempotent-hint": True}, (False, False, False, False, True, False)),
    ("put", {"x-mcp-idempotent-hint": False}, (False, False, False, True, False, False)),
    ("delete", {"x-mcp-read-only-hint": True}, (False, True, True, True, True, False)),  # approval first
]


@pytest.mark.parametrize(("method", "extensions", "expected"), TABLE,
                         ids=[f"{m}-{'-'.join(f'{k}={v}' for k, v in e.items()) or 'plain'}" for m, e, _ in TABLE])
def test_the_policy_table(method, extensions, expected):
    assert safety(operation(method, **extensions)) == Safety(*expected)


# -- the consumers ---------------------------------------------------------------------------------------

MARKINGS = {  # operationId → the extension lines of a POST /things/{id}/<action>
    "plain": "", "hinted": "x-destructive-hint: true", "mcpHinted": "x-mcp-destructive-hint: true",
    "flagged": "x-destructive: true", "approval": "x-agent-requires-approval: true",
    "declaredSafe": "x-destructive: false", "readOnlyHinted": "x-mcp-read-only-hint: true",
    "idempotentHinted": "x-mcp-idempotent-hint: true",
}


def consumer_spec(write):
    paths = []
    for method in ("get", "post", "put", "patch", "delete"):
        for name, extension in MARKINGS.items():
            op_id = f"{method}_{name}"
            paths.append(f"  /things/{{id}}/{op_id}:\n    {method}:\n      operationId: {op_id}\n"
                         f"      summary: Act on a thing.\n"
                         + (f"      {extension}\n" if extension else "")
                         + "      parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n"
                           "      responses: {'200': {description: ok}}\n")
    text = ("openapi: 3.1.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'https://api.example.invalid'}]\n"
            "paths:\n" + "".join(paths))
    return load_spec(write("policy.yaml", text))


def test_mcp_annotations_are_the_policy(write):
    spec = consumer_spec(write)
    toolset = convert(spec, ConvertOptions(vendor="mcp"))
    assert len(toolset.tools) == len(spec.operations) == 40
    for tool, native in zip(toolset.tools, toolset.native, strict=True):
        care = safety(tool.operation)
        hints = native["annotations"]
        assert (hints["readOnlyHint"], hints["destructiveHint"], hints.get("idempotentHint")) == \
            (care.read_only, care.overwrites, care.idempotent), tool.name
    hints = {t["name"]: t["annotations"] for t in toolset.native}
    assert hints["post_hinted"]["destructiveHint"] is True  # the marker the MCP module used to miss
    assert hints["get_approval"]["readOnlyHint"] is False  # no longer "read-only but destructive"


def test_descriptions_are_the_policy(write):
    spec = consumer_spec(write)
    for tool in convert(spec).tools:
        care = safety(tool.operation)
        assert (APPROVAL in tool.description, DESTRUCTIVE in tool.description) == \
            (care.requires_approval, care.destructive), tool.name
    described = {t.name: t.description for t in convert(spec).tools}
    assert APPROVAL in described["post_hinted"] and DESTRUCTIVE in described["post_hinted"]
    assert APPROVAL in described["delete_plain"]  # the executor asks for it, so the model is told
    assert APPROVAL not in described["delete_declaredSafe"] and DESTRUCTIVE not in described["delete_declaredSafe"]


def test_lint_flags_only_what_the_policy_calls_destructive_and_the_spec_leaves_unmarked(write):
    spec = consumer_spec(write)
    config = LintConfig(severities={r: ("warn" if r == "destructive-operation-unmarked" else "off") for r in RULES})
    flagged = {f.pointer.split("/")[2].rsplit("~1", 1)[1] for f in lint(spec, config).findings
               if f.rule == "destructive-operation-unmarked"}
    expected = {op.operation_id for op in spec.operations if safety(op).destructive and not safety(op).marked}
    assert expected == {"delete_plain", "delete_readOnlyHinted", "delete_idempotentHinted"}
    assert flagged == expected  # marked operations (x-destructive-hint alone among them) are not flagged


def test_a_read_only_tool_set_holds_what_the_policy_calls_read_only(write):
    spec = consumer_spec(write)
    toolset = convert(spec, ConvertOptions(scope=Scope(read_only=True, budget=100)))
    assert {t.operation.operation_id for t in toolset.tools} == \
        {op.operation_id for op in spec.operations if safety(op).read_only}
    names = {t.name for t in toolset.tools}
    assert "post_readOnlyHinted" in names and "get_approval" not in names and "get_plain" in names
    assert {r.reason for r in toolset.rejected} == {"read-only tool set: this operation changes something"}


def test_the_executor_gates_and_refuses_by_the_policy(write):
    spec = consumer_spec(write)
    toolset = convert(spec)
    server = RecordingServer()
    try:
        for read_only in (False, True):
            executor = Executor(spec, toolset, CallOptions(base_url=server.url, read_only=read_only, retries=0))
            for tool in toolset.tools:
                care = safety(tool.operation)
                assert is_destructive(tool) == care.requires_approval
                before = len(server.requests)
                result = executor.call(ToolCall(tool.name, {"id": "1"}))
                if read_only and not care.read_only:
                    assert "read-only" in result.error, tool.name
                elif care.requires_approval:
                    assert "not approved" in result.error, tool.name
                else:
                    assert result.status == 200, (tool.name, result.error)
                assert len(server.requests) == before + (result.status is not None)
    finally:
        server.close()
    sent = {r.target.split("/")[-1] for r in server.requests}
    assert "post_hinted" not in sent and "post_plain" in sent and "delete_declaredSafe" in sent
    assert "post_readOnlyHinted" in sent and "get_approval" not in sent
