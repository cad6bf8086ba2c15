"""What a selection run measured: top-1 accuracy with a Wilson interval, pass^k over repeats, the `none` cases'
declined / wrongly-called split, malformed calls and invented tool names as their own counts, F1 for multi-call
cases, argument validity kept apart from selection, the confusion between tools, usage, and accuracy against
tool count.

Samples with no usable answer (`ERROR`: a timeout, a spent budget) are not runs: counting them as failures
would charge the model for the network, so they are left out of every rate and counted on their own."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.selection.model import (
    ALL_OF,
    DECLINED,
    ERROR,
    HALLUCINATED,
    MALFORMED,
    NONE,
    OFFLINE,
    OUTCOMES,
    PASSED,
    Case,
    SelectionRun,
    Verdict,
)

NO_CALL = "none"  # the picked label of a sample that called nothing
NO_ANSWER = None  # the picked label of a sample with no usable answer (JSON null)


def wilson(successes: float, n: float, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion: unlike the normal approximation it stays inside [0, 1]
    and does not collapse to a point at 0/n or n/n, which is where small suites live. No runs: (0, 1)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def design_effect(per_case: Sequence[tuple[int, int]]) -> float:
    """How much repeats of one case inflate the count of independent runs: 1 + (m - 1)·ρ, with m the mean
    runs per case and ρ the intra-case correlation (the ANOVA estimator for binary outcomes, clipped to
    [0, 1]). A deterministic runner (every case all passed or all failed) gives m: R repeats of the same
    answer are one observation per case, not R. One run per case gives 1."""
    cells = [(c, n) for c, n in per_case if n > 0]
    k, total = len(cells), sum(n for _, n in cells)
    if k < 2 or total <= k:
        return 1.0 if total <= k else float(total / max(1, k))
    mean_runs = total / k
    p = sum(c for c, _ in cells) / total
    between = sum(n * (c / n - p) ** 2 for c, n in cells) / (k - 1)
    within = sum(c * (1 - c / n) for c, n in cells) / (total - k)
    n0 = (total - sum(n * n for _, n in cells) / total) / (k - 1)
    denominator = between + (n0 - 1) * within
    rho = 1.0 if denominator <= 0 else min(1.0, max(0.0, (between - within) / denominator))
    return 1 + (mean_runs - 1) * rho


def clustered_wilson(per_case: Sequence[tuple[int, int]], z: float = 1.96) -> tuple[float, float]:
    """The Wilson interval over the effective number of runs (runs / design effect): repeats narrow it only
    as far as they are new information."""
    passed, runs = sum(c for c, _ in per_case), sum(n for _, n in per_case)
    deff = design_effect(per_case)
    return wilson(passed / deff, runs / deff, z)


def pass_hat_k(per_case: Sequence[tuple[int, int]], k: int) -> float | None:
    """τ-bench's pass^k: the mean over cases of C(c, k) / C(n, k), c passes in n runs — the chance that k
    independent tries of a case all succeed. A case with fewer than k runs (its other samples were errors)
    cannot say anything about k tries and is left out; None when no case has k runs."""
    ratios = [math.comb(c, k) / math.comb(n, k) for c, n in per_case if n >= k >= 1]
    return sum(ratios) / len(ratios) if ratios else None


def rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear interpolation between the closest ranks (numpy's default), so p95 of a few samples is not
    simply the largest."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def picked_label(verdict: Verdict) -> str | None:
    """How a sample's choice is named in reports: the tool, `a + b` for several calls, `none` for no call,
    None (no answer) for an error. Invented names stay as the model wrote them."""
    if verdict.outcome == ERROR:
        return NO_ANSWER
    # canonical: each tool once, in name order (as `Expectation.label` names several calls), so the same
    # choice is one label whatever the order of the calls
    return " + ".join(sorted(set(verdict.picked))) if verdict.picked else NO_CALL


def judged(verdicts: Iterable[Verdict]) -> list[Verdict]:
    return [v for v in verdicts if v.outcome != ERROR]


def _called(verdict: Verdict) -> bool:
    """A call was made, even one whose arguments cannot be read or whose tool does not exist: a malformed
    call on a `none` case is not an abstention (BFCL credits it as one)."""
    return bool(verdict.picked) or verdict.outcome in (MALFORMED, HALLUCINATED)


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    unknown_tokens: int = 0  # samples whose server did not say how many tokens it used
    latency_mean: float | None = None
    latency_p50: float | None = None
    latency_p95: float | None = None
    cost: float | None = None  # US dollars, when the suite gives prices

    def to_json(self) -> dict[str, Any]:
        return {"tokens": {"input": self.input_tokens, "output": self.output_tokens,
                           **({"unknown": self.unknown_tokens} if self.unknown_tokens else {})},
                "latency": {"mean": _round(self.latency_mean), "p50": _round(self.latency_p50),
                            "p95": _round(self.latency_p95)},
                "cost": None if self.cost is None else round(self.cost, 6)}


@dataclass
class Summary:
    cases: int
    runs: int  # judged samples (errors left out)
    passed: int
    errors: int
    accuracy: float | None
    accuracy_ci: tuple[float, float]
    pass_k: dict[str, float | None]
    no_call_rate: float | None  # declined on cases that expected a call / their runs
    no_call_runs: int
    declined: int
    false_call_rate: float | None  # a call on `none` cases / their runs
    none_runs: int
    none_declined: int  # rightly declined
    none_called: int  # wrongly called (any call, malformed or invented ones too)
    hallucinated: int
    malformed: int
    outcomes: dict[str, int]
    f1_mean: float | None  # over the runs of all-of cases
    f1_runs: int
    arguments_valid_rate: float | None  # over runs that called a known tool
    arguments_valid_runs: int
    arguments_match_rate: float | None  # over runs of cases that gave expected values
    arguments_match_runs: int
    usage: Usage = field(default_factory=Usage)
    requests_sent: int = 0
    cache_hits: int = 0
    cancelled: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"cases": self.cases, "runs": self.runs, "passed": self.passed, "errors": self.errors,
                "accuracy": _round(self.accuracy), "accuracy_ci": [_round(x) for x in self.accuracy_ci],
                "pass_k": {k: _round(v) for k, v in self.pass_k.items()},
                "no_call_rate": _round(self.no_call_rate), "false_call_rate": _round(self.false_call_rate),
                "hallucinated": self.hallucinated, "malformed": self.malformed,
                "declined": self.declined, "no_call_runs": self.no_call_runs,
                "none_cases": {"runs": self.none_runs, "declined": self.none_declined, "called": self.none_called},
                "outcomes": self.outcomes,
                "f1_mean": _round(self.f1_mean), "f1_runs": self.f1_runs,
                "arguments_valid_rate": _round(self.arguments_valid_rate),
                "arguments_valid_runs": self.arguments_valid_runs,
                "arguments_match_rate": _round(self.arguments_match_rate),
                "arguments_match_runs": self.arguments_match_runs,
                **self.usage.to_json(),
                "requests_sent": self.requests_sent, "cache_hits": self.cache_hits,
                **({"cancelled": True} if self.cancelled else {})}


@dataclass
class CaseResult:
    id: str
    expected: str  # Expectation.label()
    mode: str
    prompt: str
    selected: list[str | None]  # the picked label per sample, in sample order; None: no usable answer
    outcomes: list[str]  # per sample, in the same order
    passed: int
    runs: int
    errors: int
    f1: float | None = None  # mean over the runs of an all-of case
    rank: int | None = None  # offline: where the right tool ranked (1 = first)
    margin: float | None = None  # offline: the right tool's score minus the best other's
    runner_up: str | None = None
    problems: list[str] = field(default_factory=list)  # argument problems and error messages, first few
    tags: tuple[str, ...] = ()
    line: int = 0

    @property
    def flaky(self) -> bool:
        return 0 < self.passed < self.runs

    @property
    def failed(self) -> bool:
        return self.passed < self.runs

    @property
    def pass_rate(self) -> float | None:
        return rate(self.passed, self.runs)

    def picks(self) -> Counter:
        """How often each label was picked among the judged samples."""
        return Counter(s for s in self.selected if s is not NO_ANSWER)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "expected": self.expected, "selected": self.selected,
                               "passed": self.passed, "runs": self.runs, "flaky": self.flaky,
                               "outcomes": self.outcomes, "mode": self.mode, "prompt": self.prompt}
        for key in ("errors", "f1", "rank", "margin", "runner_up"):
            value = getattr(self, key)
            if value is not None and (value != 0 or key in ("f1", "margin")):  # a tie's margin is a real 0.0
                out[key] = _round(value) if isinstance(value, float) else value
        if self.problems:
            out["problems"] = self.problems
        if self.tags:
            out["tags"] = list(self.tags)
        if self.line:
            out["line"] = self.line
        return out


@dataclass
class ScaleResult:
    size: int
    passed: int
    runs: int
    errors: int
    per_case: tuple[tuple[int, int], ...] = ()  # (passed, runs) per case, for the interval

    @property
    def accuracy(self) -> float | None:
        return rate(self.passed, self.runs)

    @property
    def ci(self) -> tuple[float, float]:
        return clustered_wilson(self.per_case) if self.per_case else wilson(self.passed, self.runs)

    def to_json(self) -> dict[str, Any]:
        return {"size": self.size, "accuracy": _round(self.accuracy), "accuracy_ci": [_round(x) for x in self.ci],
                "passed": self.passed, "runs": self.runs, **({"errors": self.errors} if self.errors else {})}


@dataclass
class Results:
    """Everything a report shows, computed once from a run."""

    summary: Summary
    cases: list[CaseResult]
    confusion: dict[str, dict[str, int]]
    scale: list[ScaleResult]
    context: dict[str, Any]


def summarise(run: SelectionRun) -> Summary:
    cases = {c.id: c for c in run.suite.cases}
    verdicts = judged(run.verdicts)
    counts = Counter(v.outcome for v in run.verdicts)
    passed = counts[PASSED]
    per_case = _per_case(run)
    expecting = [v for v in verdicts if _mode(cases, v) != NONE]
    none_runs = [v for v in verdicts if _mode(cases, v) == NONE]
    none_called = sum(1 for v in none_runs if _called(v))
    declined = sum(1 for v in expecting if v.outcome == DECLINED)
    f1s = [v.f1 for v in verdicts if _mode(cases, v) == ALL_OF and v.f1 is not None]
    valid = [v.arguments_valid for v in verdicts if v.arguments_valid is not None]
    matched = [v.arguments_match for v in verdicts if v.arguments_match is not None]
    repeats = max([run.context.repeats, *(len(vs) for vs in per_case.values())], default=1)
    per_case_counts = [(sum(v.passed for v in vs), len(vs)) for vs in (judged(vs) for vs in per_case.values())]
    return Summary(
        cases=len(run.suite.cases), runs=len(verdicts), passed=passed, errors=counts[ERROR],
        accuracy=rate(passed, len(verdicts)), accuracy_ci=clustered_wilson(per_case_counts),
        pass_k={str(k): pass_hat_k(per_case_counts, k) for k in range(1, max(1, repeats) + 1)},
        no_call_rate=rate(declined, len(expecting)), no_call_runs=len(expecting), declined=declined,
        false_call_rate=rate(none_called, len(none_runs)), none_runs=len(none_runs),
        none_declined=len(none_runs) - none_called, none_called=none_called,
        hallucinated=counts[HALLUCINATED], malformed=counts[MALFORMED],
        outcomes={o: counts[o] for o in OUTCOMES if counts[o]},
        f1_mean=sum(f1s) / len(f1s) if f1s else None, f1_runs=len(f1s),
        arguments_valid_rate=rate(sum(valid), len(valid)), arguments_valid_runs=len(valid),
        arguments_match_rate=rate(sum(matched), len(matched)), arguments_match_runs=len(matched),
        usage=usage(run), requests_sent=run.requests_sent, cache_hits=run.cache_hits, cancelled=run.cancelled)


def usage(run: SelectionRun) -> Usage:
    """Tokens, latency and cost over every sample the run took, the scale points' too: that is what it cost.
    Latency is the request's own (a cached sample keeps the time it took when it was made)."""
    samples = [v.answer for v in [*run.verdicts, *(v for p in run.scale for v in p.verdicts)] if v.answer]
    latencies = [s.latency for s in samples] if run.context.api != OFFLINE else []  # no request, no latency
    out = Usage(input_tokens=sum(s.input_tokens or 0 for s in samples),
                output_tokens=sum(s.output_tokens or 0 for s in samples),
                unknown_tokens=sum(1 for s in samples if s.input_tokens is None and s.output_tokens is None
                                   and not s.error and run.context.api != OFFLINE),
                latency_mean=sum(latencies) / len(latencies) if latencies else None,
                latency_p50=percentile(latencies, 0.5), latency_p95=percentile(latencies, 0.95))
    prices = run.suite.model.prices
    if prices is not None:
        out.cost = (out.input_tokens * prices.input + out.output_tokens * prices.output) / 1_000_000
    return out


def case_results(run: SelectionRun) -> list[CaseResult]:
    """One result per case, in the suite's order (a verdict for a case the suite does not have comes last)."""
    cases = {c.id: c for c in run.suite.cases}
    return [_case_result(cases.get(case_id), case_id, verdicts) for case_id, verdicts in _per_case(run).items()]


def _case_result(case: Case | None, case_id: str, verdicts: list[Verdict]) -> CaseResult:
    verdicts = sorted(verdicts, key=lambda v: v.sample)
    runs = judged(verdicts)
    f1s = [v.f1 for v in runs if v.f1 is not None]
    result = CaseResult(
        id=case_id, expected=case.expect.label() if case else "?", mode=case.expect.mode if case else "?",
        prompt=case.prompt if case else "", selected=[picked_label(v) for v in verdicts],
        outcomes=[v.outcome for v in verdicts], passed=sum(v.passed for v in runs), runs=len(runs),
        errors=len(verdicts) - len(runs), f1=sum(f1s) / len(f1s) if f1s else None,
        tags=case.tags if case else (), line=case.line if case else 0)
    result.problems = _problems(verdicts)
    detail = next((v.answer.detail for v in verdicts if v.answer and "rank" in v.answer.detail), None)
    if detail:
        result.rank = detail.get("rank")
        result.margin = detail.get("margin")
        result.runner_up = detail.get("runner_up")
    return result


def _problems(verdicts: list[Verdict], limit: int = 5) -> list[str]:
    seen: dict[str, None] = {}
    for v in verdicts:
        # a malformed call's problem is in argument_problems already (named with its tool)
        calls = (v.answer.calls if v.answer and not v.argument_problems else ())
        for text in [*v.argument_problems, *([v.answer.error] if v.answer and v.answer.error else []),
                     *(c.problem for c in calls if c.problem)]:
            seen.setdefault(text, None)
    return list(seen)[:limit]


def confusion(run: SelectionRun) -> dict[str, dict[str, int]]:
    """Expected label → picked label → how many samples; `none` for no call, invented names as they were,
    errors left out."""
    labels = {c.id: c.expect.label() for c in run.suite.cases}
    matrix: dict[str, Counter] = defaultdict(Counter)
    for v in judged(run.verdicts):
        matrix[labels.get(v.case_id, "?")][picked_label(v)] += 1
    return {expected: dict(sorted(row.items())) for expected, row in sorted(matrix.items())}


def right_pick(expected: str, picked: str) -> bool:
    """A confusion cell on the right answer: the expected label itself, or one tool of an `a | b` choice."""
    return picked == expected or picked in expected.split(" | ")


def confusion_rows(matrix: dict[str, dict[str, int]]) -> list[str]:
    """The expected labels in name order, `none` last."""
    return sorted(matrix, key=lambda r: (r == NO_CALL, r))


def confusion_columns(matrix: dict[str, dict[str, int]], rows: list[str]) -> list[str]:
    """The expected tools first, in the rows' order (so the right answers run down the diagonal), then the
    other picks, then `none`."""
    picked = {p for row in matrix.values() for p in row}
    columns: list[str] = []
    for row in rows:
        for part in [row, *row.split(" | ")]:
            if part in picked and part not in columns and part != NO_CALL:
                columns.append(part)
    columns += sorted(picked - set(columns) - {NO_CALL})
    return columns + ([NO_CALL] if NO_CALL in picked else [])


def scale_results(run: SelectionRun) -> list[ScaleResult]:
    out = []
    for point in sorted(run.scale, key=lambda p: p.size):
        runs = judged(point.verdicts)
        by_case: dict[str, list[Verdict]] = defaultdict(list)
        for v in runs:
            by_case[v.case_id].append(v)
        out.append(ScaleResult(point.size, sum(v.passed for v in runs), len(runs), len(point.verdicts) - len(runs),
                               tuple((sum(v.passed for v in vs), len(vs)) for vs in by_case.values())))
    return out


def context_json(run: SelectionRun) -> dict[str, Any]:
    c = run.context
    return {"suite": str(run.suite.path), "spec": str(run.suite.spec), "api": c.api, "model": c.model,
            "settings": dict(c.settings), "vendor": c.vendor, "tool_count": c.tool_count,
            "toolset_sha256": c.toolset_sha256, "suite_sha256": c.suite_sha256, "spec_sha256": c.spec_sha256,
            "repeats": c.repeats, "versions": dict(c.versions), "started": c.started}


def evaluate(run: SelectionRun) -> Results:
    return Results(summarise(run), case_results(run), confusion(run), scale_results(run), context_json(run))


def _per_case(run: SelectionRun) -> dict[str, list[Verdict]]:
    grouped: dict[str, list[Verdict]] = {c.id: [] for c in run.suite.cases}
    for v in run.verdicts:
        grouped.setdefault(v.case_id, []).append(v)
    return grouped


def _mode(cases: dict[str, Case], verdict: Verdict) -> str | None:
    case = cases.get(verdict.case_id)
    return case.expect.mode if case else None


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)
