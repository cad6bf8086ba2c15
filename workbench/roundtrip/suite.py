"""One round trip as a user runs it: the target started, every tool's argument sets sent and judged, the
fault drill on request, the result gathered into a `Report` (and compared with a baseline)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack, closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from workbench.roundtrip.drill import drill
from workbench.roundtrip.oracle import Oracle, read_document
from workbench.roundtrip.pool import job_count, pooled_attempts
from workbench.roundtrip.report import Report, compare
from workbench.roundtrip.run import PASSED, Attempt, attempts, mock_target, remote_target
from workbench.spec import Spec, SpecError
from workbench.tools.model import Tool, ToolSet


@dataclass
class RoundTripOptions:
    count: int = 3  # generated argument sets per tool (plus the minimal set and the example set)
    seed: int = 0
    base_url: str | None = None  # a server of the user's instead of the mock
    allow_writes: bool = False
    approve_write: Callable[[Tool], bool] | None = None  # asked per write operation against a server of yours
    faults: bool = False  # run the fault drill after the round trip (mock only)
    budget_s: float = 10.0  # per operation
    oracle_document: Path | None = None  # an OpenAPI 3.x copy of a Swagger 2.0 spec for the judge
    jobs: int | None = None  # worker processes against the mock (None: one per core; 1: in this process)


def judge_document(spec_path: Path, given: Path | None) -> tuple[dict | None, str]:
    """The document the judge reads, and a note when there is none: the spec itself for OpenAPI 3.x; for
    Swagger 2.0 a converted copy the user gives (a converter we did not write, such as swagger2openapi)."""
    path = given or spec_path
    try:
        document = read_document(path)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        first = (str(exc).strip().splitlines() or [""])[0]
        raise SpecError(f"the judge cannot read the document: {first}", str(path)) from None
    if not isinstance(document, dict):
        raise SpecError("the judge's document is not a mapping", str(path))
    if "swagger" in document:
        note = ("Swagger 2.0: the independent judge needs an OpenAPI 3 copy (--oracle-spec FILE, e.g. made by "
                "swagger2openapi); requests are checked by the mock only")
        return None, note
    return document, ""


def check_baseline(baseline: dict, vendor: str, options: RoundTripOptions) -> None:
    """A baseline compares only with a run of the same sets: same seed, count and vendor (one line if not)."""
    made = {"seed": baseline.get("seed"), "examples": baseline.get("count"), "vendor": baseline.get("vendor")}
    now = {"seed": options.seed, "examples": options.count, "vendor": vendor}
    differ = [f"--{k} {made[k]} (this run: {now[k]})" for k in now if made[k] is not None and made[k] != now[k]]
    if differ:
        raise SpecError("the baseline was made with " + ", ".join(differ) + ": its sets are not this run's",
                        "<baseline>")


def reachable(url: str) -> None:
    """A server of yours that does not answer at all is one line, not a run of failures."""
    import httpx

    try:
        httpx.request("HEAD", url, timeout=5)
    except (httpx.TransportError, httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
        raise SpecError(f"cannot reach the server: {type(exc).__name__}: {exc}", url) from None


def run_roundtrip(spec: Spec, spec_path: Path, toolset: ToolSet, vendor: str, options: RoundTripOptions,
                  on_attempt: Callable[[Attempt], None] | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  cancelled: Callable[[], bool] | None = None, baseline: dict | None = None) -> Report:
    document, note = judge_document(spec_path, options.oracle_document)
    report = Report(spec_path.name, vendor, options.base_url or "the mock", options.seed, note=note,
                    count=options.count)
    passing: dict[str, dict[str, Any]] = {}
    judged_uri = (options.oracle_document or spec_path).resolve().as_uri()
    each = {"count": options.count, "seed": options.seed, "budget_s": options.budget_s, "progress": progress,
             "cancelled": cancelled}
    # a server of yours is called from here alone: its writes are asked for one by one, and it is not ours to load
    jobs = 1 if options.base_url else job_count(options.jobs, len(toolset.tools))
    with ExitStack() as stack:
        if jobs > 1:
            stream = stack.enter_context(closing(pooled_attempts(spec, toolset, document, judged_uri, jobs=jobs,
                                                                 **each)))
        else:
            target = stack.enter_context(remote_target(options.base_url, options.allow_writes, options.approve_write)
                                         if options.base_url else mock_target(spec, options.seed))
            oracle = Oracle(document, target.url, judged_uri) if document is not None else None
            stream = attempts(spec, toolset, target, oracle, **each)
        for attempt in stream:
            report.add(attempt)
            if attempt.classification == PASSED and attempt.kind == "minimal":
                passing.setdefault(attempt.tool, attempt.sent)
            if on_attempt is not None:
                on_attempt(attempt)
        report.cancelled = bool(cancelled and cancelled())
    if options.faults and not options.base_url and not report.cancelled:
        report.drill = drill(spec, toolset, passing, options.seed)
    if baseline is not None:
        report.comparison = compare(report, baseline)
    return report
