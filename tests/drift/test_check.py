"""`workbench tools SPEC --check FILE`: a saved tool set (our output, or a hand-kept vendor list in any vendor's
shape) against what the spec produces now."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.drift import read_saved
from workbench.spec import SpecError, load_spec
from workbench.tools.options import ToolOverrides, build_toolset
from workbench.workspace.loading import spec_config

BASE = (Path(__file__).parent / "shop.yaml").read_text(encoding="utf-8")  # as test_diff.py
NEW = (BASE.replace("required: [customer]", "required: [customer, channel]")
       .replace("                tags:", "                channel: {type: string}\n                tags:")
       .replace("operationId: getOrder", "operationId: fetchOrder"))


def exported(write, name: str, text: str, vendor: str) -> dict:
    path = write(name, text)
    spec = load_spec(path)
    return build_toolset(spec, spec_config(path), ToolOverrides(vendor=vendor)).to_json()


def check(capsys, spec, saved, *extra: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["tools", str(spec), "--check", str(saved), "--format", "json", *extra])
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip() else {"stderr": out.err}


def kinds(report: dict) -> list[tuple[str, str, str, bool]]:
    return [(c["kind"], c["tool"], c["argument"], c["breaking"]) for c in report["changes"]]


def test_our_own_output_matches_a_renamed_tool_by_its_operation(write, capsys):
    saved = write("saved.json", json.dumps(exported(write, "old.yaml", BASE, "openai")))
    code, report = check(capsys, write("api.yaml", NEW), saved)
    assert code == 1
    assert kinds(report) == [("tool-renamed", "getOrder", "", True),
                             ("argument-added", "createOrder", "channel", True)]
    added = report["changes"][1]
    assert added["old"]["file"] == str(saved) and added["old"]["pointer"].startswith("/tools/1/function/parameters")
    assert added["new"]["line"] > 0 and added["new"]["pointer"].endswith("/properties/channel")


def test_a_hand_kept_openai_list_that_sends_a_dropped_argument_and_lacks_a_required_one(write, capsys):
    tools = exported(write, "old.yaml", BASE, "openai")["tools"]
    create = next(t for t in tools if t["function"]["name"] == "createOrder")
    create["function"]["parameters"]["properties"]["coupon"] = {"type": "string"}  # kept by hand, never in the spec
    create["function"]["description"] = "Make an order."
    saved = write("hand.json", json.dumps(tools, indent=2))
    code, report = check(capsys, write("api.yaml", BASE), saved)
    assert code == 1
    assert kinds(report) == [("description-changed", "createOrder", "", False),
                             ("argument-removed", "createOrder", "coupon", True)]
    assert report["vendor"] == "openai" and report["changes"][1]["old"]["line"] > 1


def test_a_hand_kept_anthropic_list_in_step_with_the_spec_passes(write, capsys):
    tools = exported(write, "old.yaml", BASE, "anthropic")["tools"]
    saved = write("hand.json", json.dumps(tools))
    code, report = check(capsys, write("api.yaml", BASE), saved, "--vendor", "openai")
    assert (code, report["vendor"], report["changes"]) == (0, "anthropic", [])
    code, report = check(capsys, write("api.yaml", NEW), saved)
    assert code == 1
    # a bare list has no mapping: the renamed tool is paired by its identical arguments
    assert sorted(kinds(report)) == [("argument-added", "createOrder", "channel", True),
                                     ("tool-renamed", "getOrder", "", True)]


def test_an_optional_argument_the_saved_set_lacks_breaks_nothing(write, capsys):
    saved = write("saved.json", json.dumps(exported(write, "old.yaml", BASE, "mcp")))
    newer = BASE.replace("                tags:", "                gift: {type: boolean}\n                tags:")
    code, report = check(capsys, write("api.yaml", newer), saved)
    assert code == 0 and kinds(report) == [("argument-added", "createOrder", "gift", False)]


@pytest.mark.parametrize(("vendor", "wrap", "expected"), [
    ("openai", lambda tools: tools, "openai"),
    ("openai-responses", lambda tools: tools, "openai-responses"),
    ("anthropic", lambda tools: tools, "anthropic"),
    ("mcp", lambda tools: {"tools": tools}, "mcp"),
    ("gemini", lambda tools: [{"functionDeclarations": tools}], "gemini"),
])
def test_each_vendor_shape_is_read_and_told_apart(write, vendor, wrap, expected):
    tools = exported(write, "old.yaml", BASE, vendor)["tools"]
    saved = read_saved(write("saved.json", json.dumps(wrap(tools))))
    assert saved.vendor == expected
    assert [t.name for t in saved.tools] == ["getOrder", "createOrder"]
    assert "customer" in json.dumps(saved.tools[1].parameters)


def test_a_file_without_tools_is_one_line(write, capsys):
    with pytest.raises(SpecError, match="no tools found"):
        read_saved(write("empty.json", '{"hello": 1}'))
    capsys.readouterr()
    assert main(["tools", str(write("api.yaml", BASE)), "--check", str(write("e.json", "[]"))]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_strict_saved_set_is_compared_with_strict_tools(write, capsys):
    path = write("old.yaml", BASE)
    spec = load_spec(path)
    strict = build_toolset(spec, spec_config(path), ToolOverrides(vendor="openai", strict=True)).to_json()
    saved = write("saved.json", json.dumps(strict["tools"]))
    assert read_saved(saved).strict is True
    code, report = check(capsys, path, saved)
    assert (code, report["changes"]) == (0, [])


def test_check_with_relevant_to_is_refused_in_one_line(write, capsys):
    spec = write("api.yaml", BASE)
    saved = write("saved.json", json.dumps(exported(write, "old.yaml", BASE, "openai")["tools"]))
    code, out = check(capsys, spec, saved, "--relevant-to", "refund an order")
    assert code == 2
    assert out["stderr"].count("\n") == 1 and "--relevant-to" in out["stderr"] and "--check" in out["stderr"]
