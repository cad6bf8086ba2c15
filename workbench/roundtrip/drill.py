"""The fault drill: the executor's retries and deadline against the mock's injected faults, each scenario
checked against the policy (retry only idempotent methods, honour Retry-After, stop at the deadline)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from workbench.config import FaultRule
from workbench.http.calls import ToolCall
from workbench.http.executor import CallOptions, Executor
from workbench.mock.app import MockApp
from workbench.mock.router import base_path
from workbench.mock.server import MockServer
from workbench.policy import safety
from workbench.roundtrip.run import stand_in_credentials
from workbench.spec import Spec
from workbench.tools.model import Tool, ToolSet

RETRIES = 2
DEADLINE_S = 1.5
SLACK_S = 0.6  # how far past the deadline a call may end (the last read, the connection's close)


@dataclass(frozen=True)
class Scenario:
    name: str
    rule: dict[str, Any]  # FaultRule fields other than the operation
    retried: bool  # an idempotent call is retried (and then succeeds); never a non-idempotent one
    wait_s: float = 0.0  # the least time an honoured Retry-After makes the call take
    deadline: bool = False  # the call must end at the deadline, with no answer


SCENARIOS = (
    Scenario("503 with Retry-After, then success", {"status": 503, "retry_after": "1", "times": 1}, True, 1.0),
    Scenario("429 with Retry-After, then success", {"status": 429, "retry_after": "1", "times": 1}, True, 1.0),
    Scenario("connection reset, then success", {"fault": "reset", "times": 1}, True),
    Scenario("fail 2 times (503), then success", {"status": 503, "times": 2}, True),
    Scenario("hang", {"fault": "hang"}, False, deadline=True),
    Scenario("slow dribble", {"fault": "dribble"}, False, deadline=True),
)


@dataclass
class DrillResult:
    scenario: str
    tool: str
    method: str
    attempts: int
    status: int | None
    elapsed_s: float
    error: str | None
    expected: str
    matched: bool

    def to_json(self) -> dict:
        return {"scenario": self.scenario, "tool": self.tool, "method": self.method.upper(),
                "attempts": self.attempts, "status": self.status, "ms": round(self.elapsed_s * 1000),
                "error": self.error, "expected": self.expected, "matched": self.matched}

    def to_text(self) -> str:
        got = f"status {self.status}" if self.status is not None else (self.error or "no answer")
        return (f"{'ok  ' if self.matched else 'FAIL'} fault drill: {self.scenario} on {self.tool} "
                f"({self.method.upper()}): {self.attempts} attempt(s), {got}, {self.elapsed_s:.2f} s — "
                f"expected {self.expected}")


def _expected(scenario: Scenario, idempotent: bool) -> str:
    if scenario.deadline:
        return f"no answer, stopped at the {DEADLINE_S:g} s deadline"
    if scenario.retried and idempotent:
        extra = f", after waiting {scenario.wait_s:g} s" if scenario.wait_s else ""
        return f"retried ({1 + scenario.rule.get('times', 1)} attempts), then a success{extra}"
    return "not retried (1 attempt): the method is not idempotent"


def _matched(scenario: Scenario, idempotent: bool, attempts: int, status: int | None, elapsed: float) -> bool:
    if scenario.deadline:
        return status is None and elapsed <= DEADLINE_S + SLACK_S
    if scenario.retried and idempotent:
        return (attempts == 1 + scenario.rule.get("times", 1) and status is not None and status < 400
                and elapsed >= scenario.wait_s)
    return attempts == 1


def drill(spec: Spec, toolset: ToolSet, arguments: dict[str, dict[str, Any]], seed: int = 0) -> list[DrillResult]:
    """Every scenario on one idempotent operation and the first scenario on one that is not, each with
    arguments that passed the round trip (`arguments`: tool name → a set the mock accepted)."""
    tools = [t for t in toolset.tools if t.name in arguments]
    idempotent = next((t for t in tools if safety(t.operation).idempotent is True), None)
    other = next((t for t in tools if safety(t.operation).idempotent is not True), None)
    out = []
    for tool, scenarios in ((idempotent, SCENARIOS), (other, SCENARIOS[:1])):
        if tool is None:
            continue
        for scenario in scenarios:
            out.append(_run(spec, toolset, tool, arguments[tool.name], scenario, seed))
    return out


def _run(spec: Spec, toolset: ToolSet, tool: Tool, arguments: dict, scenario: Scenario, seed: int) -> DrillResult:
    op = tool.operation
    rule = FaultRule(operation=f"{op.method.upper()} {op.path}", **scenario.rule)
    app = MockApp(spec, seed, faults=(rule,))
    idempotent = safety(op).idempotent is True
    with MockServer(spec, app=app) as server:
        options = CallOptions(base_url=server.url + base_path(spec), mock=True, retries=RETRIES,
                              deadline_s=DEADLINE_S, credentials=stand_in_credentials(spec))
        executor = Executor(spec, toolset, options)
        started = time.monotonic()
        result = executor.call(ToolCall(tool.name, arguments))
        elapsed = time.monotonic() - started
    return DrillResult(scenario.name, tool.name, op.method, result.attempts, result.status, elapsed, result.error,
                       _expected(scenario, idempotent),
                       _matched(scenario, idempotent, result.attempts, result.status, elapsed))
