"""Client limits: one warning per exceeded limit, none when a set fits."""

from __future__ import annotations

from workbench.mcp.clients import CLIENTS, limit_warnings


def test_a_small_set_with_short_names_fits_every_client():
    assert limit_warnings("shop", ["listItems", "getItem"], 900) == []


def test_each_exceeded_limit_is_one_line():
    names = [f"tool{i}" for i in range(90)] + ["x" * 65]
    lines = limit_warnings("github", names, 1_130_000)
    assert sum("91 tools" in line for line in lines) == 3  # Cursor 40, Windsurf 50, Cursor's later 80
    assert lines[0].startswith("91 tools: more than Cursor takes (40)")
    assert any("longer than 64 characters" in line for line in lines)
    assert any("beside the server name 'github'" in line and "54 characters" in line for line in lines)
    assert any("1,130,000 tokens" in line for line in lines)
    assert len(lines) == 6


def test_the_server_name_counts_against_cursors_60():
    name = "a" * 50
    assert limit_warnings("shop", [name], 10) == []
    assert any("Cursor" in line for line in limit_warnings("a-long-server-name", [name], 10))


def test_the_caps_table_names_its_clients():
    assert {c.client for c in CLIENTS} >= {"Cursor", "Windsurf"}
