"""`workbench lint --format sarif|github|junit`: the CI-facing renderers, run through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from workbench import __version__
from workbench.examples import example_path
from workbench.lint import RULES, Severity
from workbench.lint.report import SARIF_SCHEMA, github_escape

SPEC = str(example_path())
LEVELS = {"error", "warning", "note", "none"}
# The bundled example: 38 findings from 30 distinct rules.
EXPECTED_FINDINGS = 25
EXPECTED_FAILING_RULES = 22
EMAIL_MESSAGE = "query parameter 'email' has no description: say what value it takes and where to get it"
ENABLED_BY_DEFAULT = [rule_id for rule_id, rule in RULES.items() if rule.default_run is not Severity.OFF]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", "lint", *args], capture_output=True, text=True,
                          timeout=60, check=False)


@pytest.fixture(scope="module")
def outputs() -> dict[str, subprocess.CompletedProcess]:
    return {fmt: run(SPEC, "--format", fmt) for fmt in ("sarif", "github", "junit")}


# --- SARIF -----------------------------------------------------------------------------------------------


def _positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def check_sarif_structure(log: dict) -> None:
    """The parts of SARIF 2.1.0 that code-scanning uploads rely on, checked by hand."""
    assert set(log) == {"$schema", "version", "runs"}
    assert log["$schema"] == SARIF_SCHEMA
    assert log["version"] == "2.1.0"
    assert isinstance(log["runs"], list) and len(log["runs"]) == 1
    run_ = log["runs"][0]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "workbench"
    assert driver["version"] == __version__
    assert "informationUri" not in driver or isinstance(driver["informationUri"], str)
    for rule in driver["rules"]:
        assert isinstance(rule["id"], str) and rule["id"]
        assert isinstance(rule["shortDescription"]["text"], str) and rule["shortDescription"]["text"]
        assert rule["defaultConfiguration"]["level"] in LEVELS
        assert isinstance(rule["properties"]["category"], str)
    for result in run_["results"]:
        assert isinstance(result["ruleId"], str)
        assert isinstance(result["ruleIndex"], int) and 0 <= result["ruleIndex"] < len(driver["rules"])
        assert result["level"] in LEVELS
        assert isinstance(result["message"]["text"], str) and result["message"]["text"]
        assert len(result["locations"]) == 1
        physical = result["locations"][0]["physicalLocation"]
        assert isinstance(physical["artifactLocation"]["uri"], str)
        region = physical["region"]
        assert set(region) == {"startLine", "startColumn", "endLine", "endColumn"}
        assert all(_positive_int(v) for v in region.values())
        assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
        assert isinstance(result["properties"]["pointer"], str)
        assert result["properties"]["pointer"].startswith("/")


_TEXT = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string", "minLength": 1}}}
_LEVEL = {"enum": sorted(LEVELS)}
# A small subset of the official SARIF 2.1.0 schema (written here, not downloaded): the shape we emit.
SARIF_SUBSET_SCHEMA = {
    "type": "object",
    "required": ["$schema", "version", "runs"],
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"const": "2.1.0"},
        "runs": {"type": "array", "minItems": 1, "maxItems": 1, "items": {
            "type": "object",
            "required": ["tool", "results"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object",
                    "required": ["name", "rules"],
                    "properties": {
                        "name": {"type": "string"},
                        "version": {"type": "string"},
                        "informationUri": {"type": "string"},
                        "rules": {"type": "array", "items": {
                            "type": "object",
                            "required": ["id", "shortDescription", "defaultConfiguration", "properties"],
                            "properties": {
                                "id": {"type": "string"},
                                "shortDescription": _TEXT,
                                "defaultConfiguration": {"type": "object", "required": ["level"],
                                                         "properties": {"level": _LEVEL,
                                                                        "enabled": {"type": "boolean"}}},
                                "properties": {"type": "object", "required": ["category"],
                                               "properties": {"category": {"type": "string"}}},
                            },
                        }},
                    },
                }}},
                "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                "results": {"type": "array", "items": {
                    "type": "object",
                    "required": ["ruleId", "ruleIndex", "level", "message", "locations", "properties"],
                    "properties": {
                        "ruleId": {"type": "string"},
                        "ruleIndex": {"type": "integer", "minimum": 0},
                        "level": _LEVEL,
                        "message": _TEXT,
                        "locations": {"type": "array", "minItems": 1, "items": {
                            "type": "object",
                            "required": ["physicalLocation"],
                            "properties": {"physicalLocation": {
                                "type": "object",
                                "required": ["artifactLocation", "region"],
                                "properties": {
                                    "artifactLocation": {"type": "object", "required": ["uri"],
                                                         "properties": {"uri": {"type": "string"}}},
                                    "region": {
                                        "type": "object",
                                        "required": ["startLine", "startColumn", "endLine", "endColumn"],
                                        "additionalProperties": False,
                                        "properties": {k: {"type": "integer", "minimum": 1} for k in
                                                       ("startLine", "startColumn", "endLine", "endColumn")},
                                    },
                                },
                            }},
                        }},
                        "properties": {"type": "object", "required": ["pointer"],
                                       "properties": {"pointer": {"type": "string"},
                                                      "suggestion": {"type": "string"}}},
                    },
                }},
            },
        }},
    },
}


def test_sarif_structure_and_content(outputs):
    result = outputs["sarif"]
    assert result.returncode == 1
    assert result.stderr == ""
    log = json.loads(result.stdout)
    check_sarif_structure(log)
    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    for descriptor in rules:
        rule = RULES[descriptor["id"]]
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["properties"]["category"] == rule.category
        if rule.severity is Severity.OFF:  # opt-in rules (example-invalid)
            assert descriptor["defaultConfiguration"] == {"level": "none", "enabled": False}
            continue
        expected = {"error": "error", "warn": "warning", "info": "note", "hint": "note"}[rule.severity.label]
        if rule.severity is Severity.HINT:  # hint rules are off until a config turns them on
            assert descriptor["defaultConfiguration"] == {"level": expected, "enabled": False}
            continue
        assert descriptor["defaultConfiguration"] == {"level": expected}

    results = run_["results"]
    assert len(results) == EXPECTED_FINDINGS
    for item in results:
        assert rules[item["ruleIndex"]]["id"] == item["ruleId"]
        assert item["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == SPEC
    assert [item["level"] for item in results].count("error") == 4
    assert [item["level"] for item in results].count("warning") == 14
    assert [item["level"] for item in results].count("note") == 7

    first = results[0]
    assert first["ruleId"] == "parameter-description-missing"
    assert first["level"] == "warning"
    assert first["message"]["text"] == EMAIL_MESSAGE
    assert first["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 47, "startColumn": 11, "endLine": 50, "endColumn": 7}
    assert first["properties"] == {"pointer": "/paths/~1customers/get/parameters/2"}

    # A finding with a fix carries its title as the suggestion; the others carry none.
    by_rule = {item["ruleId"]: item for item in results}
    assert by_rule["operation-id-missing"]["properties"] == {
        "pointer": "/paths/~1customers~1{customerId}~1loyalty/get",
        "suggestion": "set operationId to getCustomersLoyaltyByCustomerId"}
    assert by_rule["operation-id-tool-name-invalid"]["properties"]["suggestion"] == "rename to orders_create"
    assert sum(1 for item in results if "suggestion" in item["properties"]) == 5


def test_sarif_matches_subset_schema(outputs):
    jsonschema = pytest.importorskip("jsonschema")
    log = json.loads(outputs["sarif"].stdout)
    jsonschema.Draft202012Validator.check_schema(SARIF_SUBSET_SCHEMA)
    jsonschema.Draft202012Validator(SARIF_SUBSET_SCHEMA).validate(log)
    broken = json.loads(outputs["sarif"].stdout)
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(SARIF_SUBSET_SCHEMA).validate(broken)


# --- GitHub annotations ------------------------------------------------------------------------------------


def test_github_annotations(outputs):
    result = outputs["github"]
    assert result.returncode == 1
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert len(lines) == EXPECTED_FINDINGS
    for line in lines:
        assert line.startswith(("::error ", "::warning ", "::notice "))
    assert [line.split(" ", 1)[0] for line in lines].count("::error") == 4
    assert [line.split(" ", 1)[0] for line in lines].count("::warning") == 14
    assert [line.split(" ", 1)[0] for line in lines].count("::notice") == 7
    file = github_escape(SPEC, prop=True)
    assert lines[0] == (f"::warning title=parameter-description-missing,file={file},line=47,col=11,endLine=50,"
                        "endColumn=7::" + EMAIL_MESSAGE)


def test_github_escape():
    assert github_escape("50% done: a,b\r\nnext") == "50%25 done: a,b%0D%0Anext"
    assert github_escape("50% done: a,b\r\nnext", prop=True) == "50%25 done%3A a%2Cb%0D%0Anext"
    # `%` goes first, so an already-escaped-looking sequence is not mistaken for an escape.
    assert github_escape("%0A") == "%250A"
    assert github_escape("C:\\specs\\a,b.yaml", prop=True) == "C%3A\\specs\\a%2Cb.yaml"
    assert github_escape("plain text") == "plain text"


# --- JUnit -------------------------------------------------------------------------------------------------


def _suite(stdout: str) -> ET.Element:
    root = ET.fromstring(stdout)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    assert suites[0].get("name") == "workbench lint"
    return suites[0]


def test_junit(outputs):
    result = outputs["junit"]
    assert result.returncode == 1
    assert result.stderr == ""
    suite = _suite(result.stdout)
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ENABLED_BY_DEFAULT
    assert {c.get("classname") for c in cases} == {"workbench.lint"}
    assert suite.get("tests") == str(len(ENABLED_BY_DEFAULT))
    failing = [c for c in cases if c.find("failure") is not None]
    assert len(failing) == EXPECTED_FAILING_RULES
    assert suite.get("failures") == str(EXPECTED_FAILING_RULES)
    assert all(len(c.findall("failure")) <= 1 for c in cases)

    destructive = suite.find("testcase[@name='destructive-operation-unmarked']/failure")
    assert destructive.get("message") == "2 finding(s)"
    assert destructive.get("type") == "warn"
    assert [line.split(" ", 1)[0] for line in destructive.text.splitlines()] == [f"{SPEC}:96:5", f"{SPEC}:248:5"]

    first = suite.find("testcase[@name='parameter-description-missing']/failure")
    assert first.get("message") == "1 finding(s)"
    assert first.get("type") == "warn"
    assert first.text == f"{SPEC}:47:11 {EMAIL_MESSAGE}"
    assert suite.find("testcase[@name='operation-id-missing']/failure").get("type") == "error"
    assert suite.find("testcase[@name='operation-tags-missing']/failure").get("type") == "info"


def test_junit_skips_rules_turned_off(tmp_path):
    config = tmp_path / "lint.yaml"
    config.write_text("rules:\n  operation-tags-missing: off\n  operation-id-duplicate: off\n", encoding="utf-8")
    result = run(SPEC, "--format", "junit", "--config", str(config))
    assert result.returncode == 1
    suite = _suite(result.stdout)
    names = [c.get("name") for c in suite.findall("testcase")]
    assert names == [r for r in ENABLED_BY_DEFAULT if r not in {"operation-tags-missing", "operation-id-duplicate"}]
    assert suite.get("tests") == str(len(ENABLED_BY_DEFAULT) - 2)
    assert suite.get("failures") == str(EXPECTED_FAILING_RULES - 1)
    assert len(suite.findall("testcase/failure")) == EXPECTED_FAILING_RULES - 1
