"""Rules shared with forked copies of the process: the same reports as when one process runs them all, whatever
a copy does (answers, fails, dies, names a document it cannot send back)."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from workbench import dealing
from workbench.config import LintConfig
from workbench.lint import RULES, Fix, Severity, lint, parallel
from workbench.lint.engine import LintContext
from workbench.lint.registry import Report, Rule
from workbench.lint.schemas import schema_sites
from workbench.spec import load_spec

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="copies are forked on Linux only")


@pytest.fixture(scope="module")
def box(corpus):
    return load_spec(corpus / "box-openapi.json")


def _plain(reports):
    return [(r.message, r.document.name, r.pointer, r.fix) for r in reports]


def _rule(rule_id, check):
    return Rule(rule_id, Severity.WARN, "descriptions", "a test rule", check)


def test_forked_copies_give_every_rule_the_reports_it_gives_alone(box):
    context = LintContext(LintConfig())
    rules = [rule for rule in RULES.values() if rule.default_run is not Severity.OFF]
    schema_sites(box)
    alone = [list(rule.check(box, context)) for rule in rules]
    # (a spec whose rules find a lot, some with fixes: what is sent back is exercised)
    assert sum(map(len, alone)) > 300 and sum(1 for reports in alone if reports) > 10
    assert any(r.fix is not None for reports in alone for r in reports)
    for copies in (1, 2):
        shared = parallel._shared(box, context, rules, copies)
        assert [_plain(reports) for reports in shared] == [_plain(reports) for reports in alone]
        assert all(r.document is box.documents[r.document.name] for reports in shared for r in reports)


def test_the_lint_of_a_large_spec_is_the_same_forked_or_not(box):
    alone, forked = lint(box), lint(box, parallel=True)
    assert [(f.rule, f.severity, f.message, f.pointer, f.fix, f.locate()) for f in forked.findings] == \
           [(f.rule, f.severity, f.message, f.pointer, f.fix, f.locate()) for f in alone.findings]


def test_the_rules_are_shared_between_the_processes(box):
    def slow(spec, context):
        time.sleep(0.05)
        yield Report(str(os.getpid()), spec.root, "")

    rules = [_rule(f"slow-{n}", slow) for n in range(12)]
    shared = parallel._shared(box, LintContext(LintConfig()), rules, 1)
    pids = {reports[0].message for reports in shared}
    assert str(os.getpid()) in pids and len(pids) == 2


def test_a_rule_that_fails_in_a_copy_fails_as_it_does_alone(box):
    def failing(spec, context):
        raise LookupError("the rule's own bug")
        yield  # (a generator, as rules are)

    def fine(spec, context):
        time.sleep(0.01)
        yield Report("fine", spec.root, "")

    rules = [_rule(f"fine-{n}", fine) for n in range(6)] + [_rule("failing", failing)]
    with pytest.raises(LookupError, match="the rule's own bug"):
        parallel._shared(box, LintContext(LintConfig()), rules, 1)


def test_what_a_dead_copy_left_unanswered_is_run_here(box):
    parent = os.getpid()

    def dies_in_a_copy(spec, context):
        time.sleep(0.02)
        if os.getpid() != parent:
            os._exit(9)
        yield Report("here", spec.root, "")

    rules = [_rule(f"dying-{n}", dies_in_a_copy) for n in range(8)]
    shared = parallel._shared(box, LintContext(LintConfig()), rules, 1)
    assert [_plain(reports) for reports in shared] == [[("here", box.root.name, "", None)]] * 8


def test_a_report_on_a_document_the_spec_does_not_hold_is_made_here(box, tmp_path):
    other = tmp_path / "other.yaml"
    other.write_text("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n")
    elsewhere = load_spec(other).root

    def foreign(spec, context):
        time.sleep(0.02)
        yield Report("foreign", elsewhere, "/info")

    rules = [_rule(f"foreign-{n}", foreign) for n in range(6)]
    shared = parallel._shared(box, LintContext(LintConfig()), rules, 1)
    assert all(reports[0].document is elsewhere for reports in shared)


def test_a_fix_whose_value_is_not_plain_data_comes_back_as_it_is_made(box):
    def dated(spec, context):
        time.sleep(0.02)
        yield Report("dated", spec.root, "/info", Fix("/info/x-date", datetime.date(2026, 12, 2), "date it"))
        yield Report("listed", spec.root, "/info", Fix("/info/x-list", [1, {"a": (2, None)}], "list it"))

    rules = [_rule(f"dated-{n}", dated) for n in range(6)]
    shared = parallel._shared(box, LintContext(LintConfig()), rules, 1)
    assert [_plain(reports) for reports in shared] == [_plain(dated(box, None))] * 6
    assert all(isinstance(reports[0].fix, Fix) for reports in shared)


def _pid(spec, context):
    time.sleep(0.02)  # (time enough for a copy, were there one, to take some)
    yield Report(str(os.getpid()), spec.root, "")


def test_no_copy_is_forked_beside_another_thread(corpus):
    small = load_spec(corpus / "oai-v3.0-petstore.json")
    release = threading.Event()
    thread = threading.Thread(target=release.wait, daemon=True)
    thread.start()
    try:
        assert dealing.processes_here() == 1
        reports = parallel.run_rules(small, LintContext(LintConfig()), [_rule(f"pid-{n}", _pid) for n in range(6)],
                                     parallel=True)
    finally:
        release.set()
        thread.join(5)
    assert {r[0].message for r in reports} == {str(os.getpid())}


def test_a_small_spec_s_rules_are_shared_too_in_a_process_alone(corpus):
    # (in a process of its own: this one may run other threads)
    script = f"""
import os, sys
sys.path.insert(0, {os.path.dirname(__file__)!r})
from test_parallel import _pid, _rule
from workbench import dealing
from workbench.config import LintConfig
from workbench.lint import parallel
from workbench.lint.engine import LintContext
from workbench.spec import load_spec
small = load_spec({str(corpus / "oai-v3.0-petstore.json")!r})
reports = parallel.run_rules(small, LintContext(LintConfig()), [_rule(f"pid-{{n}}", _pid) for n in range(6)],
                             parallel=True)
print(len({{r[0].message for r in reports}}), dealing.processes_here())
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    processes, workers = map(int, done.stdout.split())
    assert workers == min(len(os.sched_getaffinity(0)), dealing.MAX_PROCESSES)
    assert (processes > 1) == (workers > 1)


def _pid_and_pattern(n):
    """A rule that reports its process and compiles a pattern of its own."""
    from workbench import lazy_pattern

    pattern = lazy_pattern(rf"rule-{n}-\d+")

    def check(spec, context):
        assert pattern.fullmatch(f"rule-{n}-7")
        yield from _pid(spec, context)

    return check


def test_a_copy_sends_back_the_patterns_its_rules_compiled(corpus, tmp_path):
    # (in a process of its own, with a store of its own: the process that forked keeps them for its save, and the
    # copy writes nothing itself)
    script = f"""
import glob, json, os, sys
sys.path.insert(0, {os.path.dirname(__file__)!r})
from test_parallel import _pid_and_pattern, _rule
from workbench import dealing, patterns
from workbench.config import LintConfig
from workbench.lint import parallel
from workbench.lint.engine import LintContext
from workbench.spec import load_spec
small = load_spec({str(corpus / "oai-v3.0-petstore.json")!r})
reports = parallel.run_rules(small, LintContext(LintConfig()), [_rule(f"r{{n}}", _pid_and_pattern(n))
                                                                for n in range(8)], parallel=True)
copied = sorted(n for n, rule_reports in enumerate(reports) if rule_reports[0].message != str(os.getpid()))
held = sorted(int(text.split("-")[1]) for text, _ in patterns.compiled_here() if text.startswith("rule-"))
print(json.dumps([copied, held, glob.glob({str(tmp_path)!r} + "/agent-spec-workbench/patterns-*"),
                  dealing.processes_here()]))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    copied, held, written, workers = json.loads(done.stdout)
    if workers > 1:
        assert copied  # a copy ran some of them
    assert held == list(range(8))  # its own rules' patterns and the copy's
    assert written == []
