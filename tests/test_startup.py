"""Start-up stays lean: a command imports its own module and what it uses, not every other command's (the
workspace's edit session, the selection runners, the GUI), token estimates of ASCII tools never import the
`regex` package (only text that is not ASCII needs it), and the short commands never import `dataclasses`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.examples import example_path

REPO = Path(__file__).resolve().parents[1]
PROBE = """
import json, sys
from workbench.cli import main
code = main(sys.argv[1:])
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("workbench", "regex", "PySide6", "email", "xml",
                                                                "secrets", "shutil", "dataclasses", "inspect")))),
      file=sys.stderr)
"""


def imported_by(*argv: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120,
                          cwd=REPO, check=False)
    assert done.returncode in (0, 1), done.stderr
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_tools_imports_neither_other_commands_nor_regex_for_ascii_tools():
    modules = imported_by("tools", str(example_path()), "--format", "json")
    assert "workbench.cli.tools" in modules and "workbench.tools.tokens" in modules
    unwanted = {"workbench.cli.lint", "workbench.cli.select", "workbench.cli.audit", "workbench.cli.gui",
                "workbench.selection.model", "workbench.workspace.session", "workbench.workspace.history",
                "workbench.gui", "regex", "PySide6",
                "email.parser", "xml.etree.ElementTree", "secrets"}  # the wire's body parsers: 40 ms, for reading
    assert modules & unwanted == set()


def test_lint_runs_the_workspace_lint_without_the_window_load_the_edit_engine_or_the_mock():
    modules = imported_by("lint", str(example_path()), "--format", "json")
    assert "workbench.workspace.linting" in modules
    assert modules & {"workbench.workspace.loading", "workbench.workspace.session", "workbench.workspace.history",
                      "workbench.workspace.typing", "workbench.edit.engine", "workbench.mock.faults",
                      "workbench.lint.score", "workbench.tools.convert", "workbench.tools.vendors",
                      "workbench.cli.tools", "workbench.selection.model"} == set()
    assert not {m for m in modules if m.startswith("workbench.cli.") and m not in ("workbench.cli.common",
                                                                                  "workbench.cli.lint")}
    assert "shutil" not in modules  # argparse's formatter imports it (and three compressors) for the width alone


@pytest.mark.parametrize("command", [["lint"], ["lint", "--format", "sarif"], ["info"], ["score"],
                                     ["tools", "--vendor", "openai"], ["tools", "--vendor", "anthropic"], ["diff"]],
                         ids=" ".join)
def test_the_short_commands_import_neither_dataclasses_nor_inspect(command):
    # `dataclasses` imports `inspect`, which imports `ast`, `dis`, `tokenize` and more: 11 ms of a 70 ms lint
    spec = str(example_path())
    modules = imported_by(*command, spec, *([spec] if command == ["diff"] else []))
    assert f"workbench.cli.{command[0]}" in modules
    assert modules & {"dataclasses", "inspect"} == set()


def test_lint_of_a_json_spec_never_imports_pyyaml(tmp_path):
    spec = tmp_path / "tiny.json"
    spec.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}}),
                    encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", PROBE.replace('"PySide6"', '"PySide6", "yaml"'), "lint",
                           str(spec), "--format", "json"], capture_output=True, text=True, timeout=120, cwd=REPO,
                          check=False)
    assert done.returncode in (0, 1), done.stderr
    modules = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "workbench.spec.yaml_parse" in modules and not {m for m in modules if m.startswith("yaml")}


def test_a_command_that_lints_nothing_loads_no_rule_catalogue_without_a_config_but_checks_one_beside_the_spec(
        tmp_path):
    spec = tmp_path / "shop.yaml"
    spec.write_text(example_path().read_text(encoding="utf-8"), encoding="utf-8")
    modules = imported_by("tools", str(spec), "--format", "json")
    assert not {m for m in modules if m.startswith("workbench.lint")}
    (tmp_path / ".workbench.yaml").write_text("rules:\n  no-such-rule: warn\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "workbench", "tools", str(spec)], capture_output=True, text=True,
                          timeout=120, cwd=REPO, check=False)
    assert done.returncode == 2 and "no-such-rule" in done.stderr and done.stderr.count("\n") == 1
