"""`workbench call` builds the tools `workbench tools` shows, from the same config: an argument layout
the config chose (nested, flattened) reaches the wire instead of being dropped."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.catalogue import CUSTOMERS as SPEC
from workbench.examples import example_path


def workbench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True, timeout=60,
                          check=False, env={"PATH": "/usr/bin:/bin"})


def test_call_follows_the_configs_nested_arguments(write, server):
    path = write("api.yaml", SPEC)
    write(".workbench.yaml", "tools: {nested: true}\n")
    shown = json.loads(workbench("tools", str(path)).stdout)["tools"][0]["function"]["parameters"]
    assert set(shown["properties"]) == {"query"}  # the nested layout `tools` emits
    flat = json.loads(workbench("tools", str(path), "--no-nested").stdout)["tools"][0]["function"]["parameters"]
    assert set(flat["properties"]) == {"limit"}  # a flag turns the config's setting off
    sent = workbench("call", str(path), "listCustomers", "--args", '{"query": {"limit": 5}}', "--base-url", server.url)
    assert sent.returncode == 0, sent.stderr + sent.stdout
    assert json.loads(sent.stdout)["request"]["url"] == f"{server.url}/customers?limit=5"
    assert server.requests[-1].line == "GET /customers?limit=5 HTTP/1.1"


def test_a_flag_overrides_the_config_for_both_commands(write, server):
    path = write("api.yaml", SPEC)
    write(".workbench.yaml", "tools: {vendor: anthropic}\n")
    assert "input_schema" in json.loads(workbench("tools", str(path)).stdout)["tools"][0]
    assert "function" in json.loads(workbench("tools", str(path), "--vendor", "openai").stdout)["tools"][0]
    flat = workbench("call", str(path), "listCustomers", "--args", '{"limit": 7}', "--base-url", server.url)
    assert json.loads(flat.stdout)["request"]["url"] == f"{server.url}/customers?limit=7"
    nested = workbench("call", str(path), "listCustomers", "--nested", "--args", '{"query": {"limit": 8}}',
                       "--base-url", server.url)
    assert json.loads(nested.stdout)["request"]["url"] == f"{server.url}/customers?limit=8"
    assert [r.line for r in server.requests] == ["GET /customers?limit=7 HTTP/1.1", "GET /customers?limit=8 HTTP/1.1"]


def test_a_bad_tools_section_is_one_line_naming_the_place(write):
    path = write("api.yaml", SPEC)
    write(".workbench.yaml", "tools:\n  vendor: openai\n  flatten-depth: -1\n")
    for command in (("tools", str(path)), ("call", str(path), "listCustomers")):
        run = workbench(*command)
        assert run.returncode == 2 and run.stdout == ""
        assert run.stderr.strip().splitlines() == [
            f"workbench: {path.parent / '.workbench.yaml'}:3:18 (#/tools/flatten-depth): "
            "tools option 'flatten-depth' must be 0 or more"]


def test_a_read_only_tool_set_says_why_a_write_is_not_a_tool_and_the_flag_lifts_it(write, server):
    path = write("shop.yaml", example_path().read_text(encoding="utf-8"))
    write(".workbench.yaml", "tools: {read-only: true}\n")
    args = ("call", str(path), "createCustomer", "--args", '{"name": "Ann Lee", "email": "ann@example.com"}',
            "--base-url", server.url)
    refused = workbench(*args)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (f"workbench: {path}: createCustomer is not in the tool set: "
                              "read-only tool set: this operation changes something\n")
    assert "createCustomer" not in workbench("tools", str(path), "--format", "text").stdout
    sent = workbench(*args, "--no-read-only")
    assert sent.returncode == 0, sent.stderr
    assert [r.line.split(" ", 1)[0] for r in server.requests] == ["POST"]
