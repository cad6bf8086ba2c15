"""Every rule says how to fix what it finds: the registry's `fix` text, shown by `workbench lint --explain`, in
SARIF's rule metadata (`help`) and in the window's Help > Rules."""

from __future__ import annotations

import json
import subprocess
import sys

from workbench.examples import example_path
from workbench.lint import RULES, lint
from workbench.lint.report import explain, to_sarif
from workbench.spec import load_spec


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", "lint", *args], capture_output=True, text=True,
                          timeout=60, check=False)


def test_every_registered_rule_has_fix_text():
    missing = [rule.id for rule in RULES.values() if not rule.fix.strip()]
    assert missing == []
    # one or two sentences saying what to write, not a paragraph
    long = [rule.id for rule in RULES.values() if len(rule.fix) > 320 or rule.fix.count(". ") > 2]
    assert long == []


def test_explain_prints_what_a_rule_checks_and_how_to_fix_it():
    result = run("--explain", "magic-header-unpinned", "--explain", "too-many-operations")
    assert result.returncode == 0
    assert result.stdout == explain("magic-header-unpinned") + "\n\n" + explain("too-many-operations") + "\n"
    rule = RULES["magic-header-unpinned"]
    assert f"  checks:   {rule.summary}\n  fix:      {rule.fix}" in result.stdout
    assert "default:  hint (off unless the config names it)" in explain("examples-missing")


def test_explain_all_and_unknown_rules():
    everything = run("--explain", "all")
    assert everything.returncode == 0 and everything.stdout.count("\n  fix:      ") == len(RULES)
    unknown = run("--explain", "no-such-rule")
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr.strip() == ("workbench: <command line>: --explain: unknown rule 'no-such-rule' "
                                      "(`--explain all` lists every rule)")
    bare = run()
    assert bare.returncode == 2 and "give a SPEC to lint (or --explain RULE)" in bare.stderr


def test_sarif_rule_metadata_carries_the_fix_as_help():
    sarif = json.loads(to_sarif(lint(load_spec(example_path()))))
    descriptors = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert {d["id"]: d["help"]["text"] for d in descriptors} == {rule.id: rule.fix for rule in RULES.values()}
