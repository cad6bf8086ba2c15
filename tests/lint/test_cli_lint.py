"""`workbench lint` as CI runs it: formats, exit codes, config files."""

from __future__ import annotations

import json
import subprocess
import sys

from workbench.examples import CLEAN_EXAMPLE_SPEC, example_path
from workbench.lint import lint
from workbench.lint.engine import with_hints
from workbench.lint.report import to_json
from workbench.spec import load_spec
from workbench.spec.pointer import split


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", "lint", *args], capture_output=True, text=True,
                          timeout=60, check=False)


def test_text_format_and_exit_1_on_errors():
    result = run(str(example_path()))
    assert result.returncode == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"{example_path()}:47:11 warn parameter-description-missing ")
    lines = result.stdout.splitlines()
    assert "25 finding(s): 4 error, 14 warn, 7 info, 0 hint" in lines
    assert lines[lines.index("25 finding(s): 4 error, 14 warn, 7 info, 0 hint") + 2] == (
        "Agent-readiness score: 0/100, blocked: 1 operation (quality 77 once unblocked)")


def test_each_json_finding_is_written_as_the_json_encoder_writes_it(tmp_path):
    """`to_json` writes each finding's line itself: it must be what `json.dumps` gives for it, whatever the names,
    messages and file name hold (quotes, backslashes, control characters, non-ASCII, `~` and `/` in keys)."""
    folder = tmp_path / 'dir "quoted" \\ é'
    folder.mkdir()
    spec = folder / "s.yaml"
    spec.write_text("""openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /a~b/{id}:
    get:
      operationId: get_thing
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: "naïve \\"q\\"\\t\\u2028 back\\\\slash", in: query, schema: {type: string}}
      responses:
        '200': {description: ok}
""", encoding="utf-8")
    result = lint(load_spec(spec), with_hints())
    assert len(result.findings) > 3
    lines = to_json(result).split("\n")
    assert lines[0] == "[" and lines[-1] == "]"
    for finding, line in zip(result.findings, lines[1:-1], strict=True):
        start, end = finding.document.extent(finding.pointer)
        expected = json.dumps({
            "code": finding.rule, "path": split(finding.pointer), "message": finding.message,
            "severity": finding.severity.spectral,
            "range": {"start": {"line": start.line - 1, "character": start.column - 1},
                      "end": {"line": end.line - 1, "character": end.column - 1}},
            "source": finding.file}, ensure_ascii=False)
        assert line.removesuffix(",") == expected
    assert any("\\u2028" in line or "\u2028" in line for line in lines)  # the odd name is in a message
    assert json.loads(to_json(result))[0]["source"] == str(spec)


def test_fail_severity():
    assert run(str(example_path(CLEAN_EXAMPLE_SPEC))).returncode == 0
    assert run(str(example_path(CLEAN_EXAMPLE_SPEC)), "--fail-severity", "hint").returncode == 0


def test_json_is_spectral_shaped_and_zero_based(tmp_path):
    out = tmp_path / "report.json"
    result = run(str(example_path()), "--format", "json", "--output", str(out))
    assert result.returncode == 1 and result.stdout == ""
    items = json.loads(out.read_text())
    first = items[0]
    assert set(first) == {"code", "path", "message", "severity", "range", "source"}
    assert first["path"] == ["paths", "/customers", "get", "parameters", "2"]
    assert first["range"]["start"] == {"line": 46, "character": 10}
    assert first["severity"] == 1
    assert {i["severity"] for i in items} == {0, 1, 2}


def test_syntax_error_is_a_parser_finding(write):
    path = write("bad.yaml", "openapi: 3.1.0\ninfo: [1\n")
    result = run(str(path))
    assert result.returncode == 1
    assert result.stdout.startswith(f"{path}:3:1 error parser YAML syntax error")
    result = run(str(path), "--format", "json")
    (item,) = json.loads(result.stdout)
    assert item["code"] == "parser" and item["range"]["start"] == {"line": 2, "character": 0}
    sarif = json.loads(run(str(path), "--format", "sarif").stdout)  # every format, not only text and JSON
    (finding,) = sarif["runs"][0]["results"]
    assert finding["ruleId"] == "parser" and finding["level"] == "error"
    assert finding["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert run(str(path), "--format", "github").stdout.startswith(f"::error title=parser,file={path},line=3,col=1")


def test_unusable_input_is_exit_2(tmp_path):
    result = run(str(tmp_path / "missing.yaml"))
    assert result.returncode == 2 and "no such file" in result.stderr


def test_config_beside_the_spec_and_given_explicitly(write):
    spec = write("api/s.yaml", example_path().read_text())
    write("api/.workbench.yaml", "rules:\n  operation-id-missing: off\n  operation-id-tool-name-invalid: warn\n"
                                 "  operation-description-missing: info\n  required-undefined: warn\n")
    result = run(str(spec))
    assert result.returncode == 0, result.stdout
    assert "operation-id-missing" not in result.stdout
    other = write("strict.yaml", "thresholds: {description-min-chars: 5}\nignore:\n"
                                 "  - {rule: parameter-description-missing, pointer: /paths}\n")
    result = run(str(spec), "--config", str(other))
    assert "parameter-description-missing" not in result.stdout
    assert "operation-description-thin" not in result.stdout
    assert result.returncode == 1


def test_bad_config_is_one_line_exit_2(write):
    spec = write("s.yaml", example_path().read_text())
    config = write("c.yaml", "rules:\n  no-such-rule: warn\n")
    result = run(str(spec), "--config", str(config))
    assert result.returncode == 2
    assert result.stderr.strip() == (f"workbench: {config}:2:17 (#/rules/no-such-rule): "
                                     "unknown rule 'no-such-rule' in config")
