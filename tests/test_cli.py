"""The `workbench` command as a user runs it: a real subprocess, real files, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from workbench.examples import CLEAN_EXAMPLE_SPEC, example_path


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_info_json_has_exactly_the_documented_keys(corpus):
    result = run("info", str(corpus / "oai-v3.0-petstore-expanded.json"), "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"spec_version": "3.0.0", "operations": 4, "webhooks": 0, "paths": 2,
                                         "tags": [], "servers": ["https://petstore.swagger.io/v2"]}


def test_info_text_for_swagger(corpus):
    result = run("info", str(corpus / "oai-v2.0-uber.json"))
    assert result.returncode == 0
    assert "Swagger 2.0" in result.stdout and "5 in 5 paths" in result.stdout
    assert "https://api.uber.com/v1" in result.stdout


def test_info_counts_webhooks_apart(corpus):
    result = run("info", str(corpus / "readme-v3.1-train-travel.yaml"), "--format", "json")
    info = json.loads(result.stdout)
    assert (info["operations"], info["webhooks"]) == (7, 1)


BAD_INPUTS = {
    "empty.yaml": (b"", "the file is empty"),
    "latin1.yaml": (b"openapi: 3.1.0\ninfo:\n  title: caf\xe9\n", "latin1.yaml:3:13: not UTF-8"),
    "syntax.yaml": (b"openapi: 3.1.0\ninfo: [1, 2\npaths: {}\n", "syntax.yaml:3:"),
    "syntax.json": (b'{"openapi": "3.1.0",\n "info": }', "syntax.json:2:10: JSON syntax error"),
    "notspec.yaml": (b"name: my app\nversion: 2\n", "not an API description"),
    "list.json": (b"[1, 2, 3]", "the top level is a list"),
    "notes.md": (b"# Notes\n\nSome *markdown*: with a colon.\n\n- item\n", "not an API description: a Markdown"),
    "future.yaml": (b"openapi: 4.1.0\ninfo: {}\n", "unsupported OpenAPI version '4.1.0'"),
    "deep.json": (b"[" * 100_000 + b"]" * 100_000, "nesting deeper than"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_and_exit_2(write, name):
    content, expected = BAD_INPUTS[name]
    path = write(name, content)
    result = run("info", str(path))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(path) in lines[0] and expected in lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_missing_file(tmp_path):
    result = run("info", str(tmp_path / "missing.yaml"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"workbench: {tmp_path / 'missing.yaml'}: no such file"


def test_alias_bomb_is_refused_fast_with_bounded_memory(write):
    lines = ["openapi: 3.1.0", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 12):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [{','.join(['*' + prev] * 9)}]")
    result = run("info", str(write("bomb.yaml", "\n".join(lines) + "\n")), timeout=20)
    assert result.returncode == 2
    assert "alias bomb" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_broken_refs_do_not_stop_info_one_line_each(write, tmp_path):
    (tmp_path / "secret.yaml").write_text("P: {name: p, in: query}\n")
    spec = write("api/s.yaml", """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /a:
    get:
      parameters:
        - $ref: '#/components/parameters/Missing'
        - $ref: 'https://example.invalid/params.yaml#/P'
        - $ref: '../secret.yaml#/P'
      responses: {'200': {description: ok}}
""")
    result = run("info", str(spec), "--format", "json")
    assert result.returncode == 0
    assert json.loads(result.stdout)["operations"] == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 3
    assert all(line.startswith(f"{spec}:") for line in lines)
    assert "ref-" not in result.stdout
    assert "points nowhere" in lines[0] and "remote" in lines[1] and "leaves the spec's folder" in lines[2]


def test_duplicate_key_is_reported_as_a_warning(write):
    path = write("d.yaml", "openapi: 3.1.0\ninfo: {title: a, version: '1'}\npaths: {}\npaths: {}\n")
    result = run("info", str(path))
    assert result.returncode == 0
    assert f"{path}:4:1" in result.stderr and "duplicate key 'paths'" in result.stderr


def test_large_spec_loads(tmp_path):
    """A generated ~50 MB JSON spec loads; its counts come out right."""
    paths = {}
    description = "Returns the widget with all of its parts and a long explanation. " * 30
    for i in range(20_000):
        paths[f"/widgets{i}/{{id}}"] = {
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "get": {"operationId": f"getWidget{i}", "description": description,
                    "responses": {"200": {"description": "ok", "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Widget"}}}}}},
        }
    doc = {"openapi": "3.0.3", "info": {"title": "big", "version": "1"}, "paths": paths,
           "components": {"schemas": {"Widget": {"type": "object", "nullable": True}}}}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc, indent=2))
    assert path.stat().st_size > 45 * 2**20
    result = run("info", str(path), "--format", "json", timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["operations"] == 20_000


def test_audit_defaults_to_the_bundled_example():
    result = run("audit")
    assert result.returncode == 0, result.stderr
    assert str(example_path()) in result.stdout and "operations:" in result.stdout


def test_no_subcommand_says_why_it_is_headless():
    # no display here, on purpose: on a desktop this command would open the window
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = subprocess.run([sys.executable, "-m", "workbench"], capture_output=True, text=True, timeout=60,
                            check=False, env=env)
    assert result.returncode == 0
    assert "headless audit" in result.stderr and "no display" in result.stderr.lower()
    assert "Acme" in result.stdout


def test_bundled_examples_are_installed_package_data():
    for name in ("shop-api.yaml", CLEAN_EXAMPLE_SPEC):
        assert example_path(name).is_file()
        assert Path(example_path(name)).read_text().startswith(("#", "openapi"))


@pytest.mark.parametrize("command", ["tools", "lint"])
def test_an_output_file_that_cannot_be_written_is_one_line_naming_it(tmp_path, command):
    target = tmp_path / "no-such-folder" / "out.json"
    result = run(command, str(example_path()), "--output", str(target))
    assert result.returncode == 2
    assert result.stderr.strip() == f"workbench: {target}: cannot write: No such file or directory"


def test_the_streamed_tool_list_written_to_a_file_is_the_printed_one(tmp_path):
    target = tmp_path / "tools.json"
    target.write_text("old contents\n")
    printed = run("tools", str(example_path()), "--format", "json")
    written = run("tools", str(example_path()), "--format", "json", "--output", str(target))
    assert written.returncode == printed.returncode == 0 and written.stdout == ""
    assert target.read_text() == printed.stdout
    assert [p.name for p in tmp_path.iterdir()] == ["tools.json"]  # no temporary file left beside it


@pytest.mark.parametrize("command", ["tools", "lint"])
def test_an_output_that_is_no_regular_file_is_written_in_place_never_renamed_over(tmp_path, command):
    fifo = tmp_path / "out.fifo"  # like /dev/null: renaming a file over it would put a plain file in its place
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    printed = run(command, str(example_path()), "--format", "json")
    written = run(command, str(example_path()), "--format", "json", "--output", str(fifo))
    reader.join(timeout=60)
    assert written.returncode == printed.returncode and written.stderr == ""
    assert received == [printed.stdout.encode()]
    assert stat.S_ISFIFO(fifo.stat().st_mode) and [p.name for p in tmp_path.iterdir()] == ["out.fifo"]


# Counts, on stderr, the cyclic collector's passes in a real `workbench` process once its modules are imported; runs
# the program as its console script does (`entry`) or as an embedding caller does (`main`).
COUNT_PASSES = """
import gc, os, sys
from workbench import cli
gc.callbacks.append(lambda phase, info: phase == "start" and os.write(2, b"collector pass\\n"))
how = sys.argv.pop(1)
cli.entry() if how == "entry" else sys.exit(cli.main())
"""


@pytest.mark.parametrize("command", ["lint", "tools"])
def test_a_command_that_ends_at_once_runs_without_the_collector_passes_main_would_make(corpus, command):
    spec = str(corpus / "kubernetes-swagger.json")  # enough new objects for passes at the thresholds main sets
    runs = {how: subprocess.run([sys.executable, "-c", COUNT_PASSES, how, command, spec, "--format", "json"],
                                capture_output=True, text=True, timeout=300, check=False) for how in ("entry", "main")}
    assert runs["entry"].returncode == runs["main"].returncode, runs["entry"].stderr[-2000:]
    assert runs["entry"].stdout == runs["main"].stdout and runs["main"].stdout  # the same work, the same output
    assert runs["entry"].stderr.count("collector pass") == 0
    assert runs["main"].stderr.count("collector pass") >= 1
