"""A round trip's attempts gathered per operation, compared with a saved baseline, and rendered as text,
JSON or JUnit. The JSON form is also the baseline file."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from workbench.roundtrip.drill import DrillResult
from workbench.roundtrip.run import CLASSIFICATIONS, FAILING, NOT_RUN, PASSED, SENT, SKIPPED, Attempt

BASELINE_FORMAT = 1


@dataclass
class OperationResult:
    tool: str
    method: str
    path: str
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def sent(self) -> int:
        return sum(1 for a in self.attempts if a.request)

    @property
    def passed(self) -> int:
        return sum(1 for a in self.attempts if a.classification == PASSED)

    @property
    def failures(self) -> list[Attempt]:
        return [a for a in self.attempts if a.classification not in (PASSED, NOT_RUN)]

    def to_json(self) -> dict:
        return {"tool": self.tool, "method": self.method.upper(), "path": self.path, "sent": self.sent,
                "passed": self.passed,
                "failures": [{"status": a.status, "classification": a.classification, "request": a.request,
                              "detail": [*a.detail, *(f"oracle: {o}" for o in a.oracle)], "key": a.key,
                              "kind": a.kind, "arguments": a.arguments,
                              **({"disagreement": a.disagreement} if a.disagreement else {})}
                             for a in self.failures],
                **({"not_run": [a.detail[0] for a in self.attempts if a.classification == NOT_RUN and a.detail]}
                   if any(a.classification == NOT_RUN for a in self.attempts) else {})}


@dataclass
class Comparison:
    """A run against a saved one: failure keys (`Attempt.key` + classification)."""

    new: list[str]
    fixed: list[str]
    still: list[str]

    def to_json(self) -> dict:
        return {"new": self.new, "fixed": self.fixed, "still_failing": self.still}


@dataclass
class Report:
    spec: str
    vendor: str
    target: str
    seed: int
    operations: list[OperationResult] = field(default_factory=list)
    drill: list[DrillResult] = field(default_factory=list)
    comparison: Comparison | None = None
    cancelled: bool = False
    note: str = ""  # what the run could not do (no independent judge for a Swagger 2.0 spec)
    count: int = 3  # generated sets per tool (with the seed and the vendor: which sets a baseline holds)

    def add(self, attempt: Attempt) -> OperationResult:  # attempts come tool by tool
        if not self.operations or self.operations[-1].tool != attempt.tool:
            self.operations.append(OperationResult(attempt.tool, attempt.method, attempt.path))
        self.operations[-1].attempts.append(attempt)
        return self.operations[-1]

    @property
    def attempts(self) -> list[Attempt]:
        return [a for op in self.operations for a in op.attempts]

    def counts(self) -> Counter:
        return Counter(a.classification for a in self.attempts)

    def failure_keys(self) -> set[str]:
        return {f"{a.key} {a.classification}" for op in self.operations for a in op.failures}

    @property
    def failed(self) -> bool:
        """Exit 1: a conversion loss or an executor bug, a drill that broke the policy, or a new failure."""
        return (any(c in FAILING for c in self.counts().elements())
                or any(not d.matched for d in self.drill)
                or bool(self.comparison and self.comparison.new))

    def summary(self) -> dict[str, Any]:
        counts = self.counts()
        attempts = self.attempts
        return {"operations": len(self.operations), "sets": len(attempts),
                "sent": sum(1 for a in attempts if a.request), "passed": counts[PASSED],
                "classifications": {c: counts[c] for c in CLASSIFICATIONS if counts[c]},
                "not_judged": sum(1 for a in attempts if a.outcome == SENT),
                "partly_judged": sum(1 for a in attempts if a.unjudged),
                "disagreements": sum(1 for a in attempts if a.disagreement),
                "skipped": sum(1 for a in attempts if a.outcome == SKIPPED),
                "cancelled": self.cancelled}

    def to_json(self) -> dict:
        out: dict[str, Any] = {"format": BASELINE_FORMAT, "spec": self.spec, "vendor": self.vendor,
                               "target": self.target, "seed": self.seed, "count": self.count,
                               **({"note": self.note} if self.note else {}),
                               "operations": [op.to_json() for op in self.operations], "summary": self.summary()}
        if self.drill:
            out["faults"] = [d.to_json() for d in self.drill]
        if self.comparison is not None:
            out["baseline"] = self.comparison.to_json()
        return out

    def to_text(self, verbose: bool = False) -> str:
        lines = [f"round trip: {self.spec} ({self.vendor}, against {self.target}, seed {self.seed})"]
        if self.note:
            lines.append(f"note: {self.note}")
        for op in self.operations:
            mark = "FAIL" if op.failures else "ok  " if op.sent else "--  "
            lines.append(f"{mark} {op.tool:40} {op.method.upper():6} {op.path}  {op.passed}/{len(op.attempts)} passed")
            for a in op.failures if not verbose else [a for a in op.attempts if a.classification != PASSED]:
                lines.append(f"     [{a.classification}] {a.kind}#{a.index} status {a.status}"
                             + (f" — {a.disagreement}" if a.disagreement else ""))
                if a.request:
                    lines.extend("       > " + line for line in a.request.splitlines()[:12])
                lines.extend(f"       ! {d}"[:400] for d in [*a.detail, *(f"oracle: {o}" for o in a.oracle)][:8])
        for d in self.drill:
            lines.append(d.to_text())
        if self.comparison is not None:
            c = self.comparison
            lines.append(f"against the baseline: {len(c.new)} new, {len(c.fixed)} fixed, {len(c.still)} still failing")
            lines.extend(f"  new: {k}" for k in c.new)
            lines.extend(f"  fixed: {k}" for k in c.fixed)
        s = self.summary()
        by = ", ".join(f"{n} {c}" for c, n in s["classifications"].items())
        lines.append(f"{s['operations']} operations, {s['sets']} argument sets, {s['sent']} sent, "
                     f"{s['passed']} passed ({by})" + (f"; {s['disagreements']} oracle/mock disagreements"
                                                       if s["disagreements"] else "")
                     + ("; CANCELLED" if self.cancelled else ""))
        return "\n".join(lines)

    def to_junit(self) -> str:
        cases = []
        for op in self.operations:
            for a in op.attempts:
                name = quoteattr(f"{a.kind}#{a.index}")
                head = f'    <testcase classname={quoteattr(op.tool)} name={name}>'
                if a.classification in FAILING:
                    text = escape("\n".join([a.request, *a.detail, *a.oracle]))
                    cases.append(f'{head}<failure type={quoteattr(a.classification)} '
                                 f'message={quoteattr((a.detail or a.oracle or [a.classification])[0][:200])}>'
                                 f'{text}</failure></testcase>')
                elif a.classification != PASSED:
                    cases.append(f'{head}<skipped message={quoteattr(a.classification)}/></testcase>')
                else:
                    cases.append(f"{head}</testcase>")
        failures = sum(1 for a in self.attempts if a.classification in FAILING)
        return (f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="roundtrip" '
                f'tests="{len(cases)}" failures="{failures}">\n' + "\n".join(cases)
                + "\n  </testsuite>\n</testsuites>\n")


def compare(report: Report, baseline: dict) -> Comparison:
    before = {f"{f['key']} {f['classification']}" for op in baseline.get("operations", [])
              for f in op.get("failures", []) if "key" in f}
    now = report.failure_keys()
    return Comparison(sorted(now - before), sorted(before - now), sorted(now & before))


def read_baseline(path: Path) -> dict:
    """A saved run; a file that is not one is a one-line error naming it."""
    from workbench.spec import SpecError

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SpecError(f"cannot read the baseline: {exc.strerror or exc}", str(path)) from None
    except ValueError as exc:
        raise SpecError(f"the baseline is not JSON: {exc}", str(path)) from None
    if not isinstance(data, dict) or data.get("format") != BASELINE_FORMAT or "operations" not in data:
        raise SpecError("not a round-trip baseline (save one with --save-baseline)", str(path))
    return data
