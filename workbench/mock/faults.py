"""The ways the mock breaks an answer on purpose (`Prefer: fault=…`, the config's `mock: faults:`); the server
writes each one (`server.FAULT_WRITERS`). What a client sees of each (httpx 0.28): reset → ReadError; empty,
garbage, truncate, malformed-chunk → RemoteProtocolError; hang → ReadTimeout; dribble → the whole answer, one
byte at a time. A module of its own, so that reading the config does not load the server."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.spec import Operation

FAULTS = ("reset", "empty", "garbage", "hang", "truncate", "malformed-chunk", "dribble")


def rule_names(op: Operation) -> tuple[str, ...]:
    """How a fault rule names an operation: its operationId (the name written), or "METHOD /path" as in the spec."""
    return tuple(n for n in (op.operation_id, f"{op.method.upper()} {op.path}") if n)
