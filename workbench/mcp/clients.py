"""The limits MCP clients are known to impose on a server's tools, in one place, and the warnings a tool set
earns against them. Sources: users' reports gathered in the project's vendor notes ("Client caps")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ClientCaps:
    """What one client (or a class of clients) accepts; None: no known limit of that kind."""

    client: str
    max_tools: int | None = None  # tools beyond this are not sent to the model
    max_name: int | None = None  # longer tool names are rejected
    max_qualified_name: int | None = None  # the server's name plus the tool's name, counted together
    max_tokens: int | None = None  # tokens of tool definitions that fill the model's context
    consequence: str = ""


CLIENTS: tuple[ClientCaps, ...] = (
    ClientCaps("Cursor", max_tools=40, consequence="only its first 40 tools reach the model"),
    ClientCaps("Cursor (later versions)", max_tools=80, consequence="it warns that there are too many tools"),
    ClientCaps("Windsurf", max_tools=50, consequence="it accepts at most 50 tools"),
    ClientCaps("Cursor", max_qualified_name=60, consequence="server name + tool name must fit in 60 characters"),
    ClientCaps("several clients", max_name=64, consequence="tool names over 64 characters are rejected"),
    ClientCaps("a 128k-token model", max_tokens=128_000,
               consequence="the tool definitions alone do not fit in its context"),
)


def limit_warnings(server_name: str, names: Sequence[str], tokens: int,
                   clients: Sequence[ClientCaps] = CLIENTS) -> list[str]:
    """One line per exceeded limit (the tool count, the names, the token estimate), tightest first."""
    lines: list[str] = []
    count_caps = sorted((c for c in clients if c.max_tools is not None and len(names) > c.max_tools),
                        key=lambda c: c.max_tools or 0)
    for caps in count_caps:
        lines.append(f"{len(names)} tools: more than {caps.client} takes ({caps.max_tools}): {caps.consequence}; "
                     "narrow the set (--tags, --operations) or serve --dynamic")
    for caps in clients:
        if caps.max_name is not None:
            long = [n for n in names if len(n) > caps.max_name]
            if long:
                lines.append(f"{len(long)} tool names longer than {caps.max_name} characters ({caps.client}: "
                             f"{caps.consequence}), e.g. {long[0]}")
        if caps.max_qualified_name is not None:
            room = caps.max_qualified_name - len(server_name)
            long = [n for n in names if len(n) > room]
            if long:
                lines.append(f"{len(long)} tool names longer than {max(room, 0)} characters beside the server name "
                             f"{server_name!r} ({caps.client}: {caps.consequence}), e.g. {long[0]}")
        if caps.max_tokens is not None and tokens > caps.max_tokens:
            lines.append(f"about {tokens:,} tokens of tool definitions, more than {caps.max_tokens:,} "
                         f"({caps.client}: {caps.consequence}); serve --dynamic or narrow the set")
    return lines
