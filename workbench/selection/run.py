"""A suite run: every case R times through a runner, each answer judged; then, on request, the same cases
with fewer tools offered (the expected ones plus their nearest neighbours from the whole catalogue), to see
where accuracy falls as the tool list grows."""

from __future__ import annotations

import contextlib
import hashlib
import json
import platform
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from workbench import __version__
from workbench.http.auth import url_host
from workbench.spec import Spec, SpecError
from workbench.tools.model import ToolSet
from workbench.tools.relevance import relevant, similar_tools

from workbench.selection.judge import Judge  # isort: skip
from workbench.selection.offline import user_text  # isort: skip
from workbench.selection.model import (  # isort: skip
    NONE, OFFLINE, Cancelled, Case, ModelSettings, Progress, RunContext, Runner,
    SampleRequest, ScalePoint, SelectionRun, Suite, Verdict)


@dataclass(frozen=True)
class RunOptions:
    repeats: int | None = None  # default: the suite's
    scale: tuple[int | None, ...] = ()  # tool counts to measure at; None = every tool
    concurrency: int = 4
    max_requests: int | None = None
    cache_dir: Path | None = None  # default: the user's cache folder
    use_cache: bool = True


def make_runner(settings: ModelSettings, options: RunOptions) -> Runner:
    if settings.api == OFFLINE:
        from workbench.selection.offline import OfflineRunner

        return OfflineRunner()
    from workbench.selection.cache import Cache
    from workbench.selection.openai_api import OpenAIRunner

    cache = Cache(options.cache_dir) if options.use_cache else None
    return OpenAIRunner(settings, api=settings.api, cache=cache, concurrency=options.concurrency,
                        max_requests=options.max_requests)


def run_selection(suite: Suite, spec: Spec, toolset: ToolSet, runner: Runner, options: RunOptions | None = None,
                  progress: Progress | None = None, cancelled: Cancelled | None = None) -> SelectionRun:
    options = options or RunOptions()
    repeats = options.repeats or suite.repeats
    judge = Judge(spec, toolset, arguments=getattr(runner, "makes_arguments", True))
    everything = tuple(t.name for t in toolset.tools)
    sizes = _sizes(options.scale, len(everything))
    total = len(suite.cases) * repeats * (1 + len(sizes))
    done = [0]

    def step(what: str) -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], total, what)

    verdicts = _judged(suite.cases, repeats, lambda case: everything, runner, toolset, judge, step, cancelled)
    getattr(runner, "keep_threshold", lambda: None)()  # the offline scorer's, learned on the whole set
    points = []
    for size in sizes:
        if cancelled is not None and cancelled():
            break
        offered = _offered_at(toolset, size)
        points.append(ScalePoint(size, tuple(_judged(suite.cases, repeats, offered, runner, toolset, judge, step,
                                                     cancelled))))
    if options.scale:
        points.append(ScalePoint(len(everything), tuple(verdicts)))
    context = _context(suite, toolset, repeats)
    return SelectionRun(context, replace(suite, repeats=repeats), verdicts, points,
                        requests_sent=runner.requests_sent, cache_hits=runner.cache_hits,
                        cancelled=bool(cancelled is not None and cancelled()))


def _judged(cases: Sequence[Case], repeats: int, offered_for, runner: Runner, toolset: ToolSet, judge: Judge,
            step, cancelled: Cancelled | None) -> list[Verdict]:
    requests = [SampleRequest(case, n, offered_for(case)) for case in cases for n in range(repeats)]
    by_key = {(r.case.id, r.sample): r for r in requests}
    verdicts: dict[tuple[str, int], Verdict] = {}
    for answer in runner.samples(toolset, requests, cancelled=cancelled):
        request = by_key[(answer.case_id, answer.sample)]
        verdicts[(answer.case_id, answer.sample)] = judge.verdict(request.case, answer, request.offered)
        step(answer.case_id)
    # in the suite's order, whatever order the answers came in; a cancelled run keeps what it has
    return [verdicts[(r.case.id, r.sample)] for r in requests if (r.case.id, r.sample) in verdicts]


def _sizes(scale: Sequence[int | None], count: int) -> list[int]:
    """The tool counts below the whole set, smallest first (the whole set is the main run itself)."""
    sizes = set()
    for size in scale:
        if size is not None and size < 1:
            raise SpecError(f"--scale sizes must be 1 or more, not {size}", "<command line>")
        if size is not None and size < count:
            sizes.add(size)
    return sorted(sizes)


def _offered_at(toolset: ToolSet, size: int):
    """Per case: its expected tools plus the tools most like them, `size` in all (in the tool set's order, as
    a model would see them); for a case expecting no call, the `size` tools nearest to its prompt — the
    hardest distractors either way."""
    order = {t.name: i for i, t in enumerate(toolset.tools)}

    def offered(case: Case) -> tuple[str, ...]:
        if case.expect.mode == NONE:
            names = [t.name for t in relevant(toolset, user_text(case), size)]
        else:
            names = list(dict.fromkeys(case.expect.tools))
            names += similar_tools(toolset, names, max(0, size - len(names)))
        return tuple(sorted(set(names), key=order.__getitem__))

    return offered


def _context(suite: Suite, toolset: ToolSet, repeats: int) -> RunContext:
    settings = suite.model
    host = url_host(settings.base_url) if settings.base_url else None  # never a user:password
    shown = {"temperature": settings.temperature, "tool_choice": settings.tool_choice,
             "parallel_tool_calls": settings.parallel_tool_calls, "max_tokens": settings.max_tokens,
             "seed": settings.seed, "base_url_host": host, "system": bool(settings.system)}
    return RunContext(api=settings.api, model=settings.model if settings.api != OFFLINE else None,
                      settings={k: v for k, v in shown.items() if v is not None}, vendor=toolset.vendor,
                      tool_count=len(toolset.tools), toolset_sha256=toolset_sha256(toolset),
                      suite_sha256=suite.sha256, spec_sha256=toolset.spec_sha256, repeats=repeats,
                      versions=versions(), started=datetime.now(UTC).isoformat(timespec="seconds"))


def toolset_sha256(toolset: ToolSet) -> str:
    """Of the tools exactly as a model receives them: a renamed tool or a shortened description changes it."""
    text = json.dumps(toolset.native, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def versions() -> dict[str, str]:
    found = {"workbench": __version__, "python": platform.python_version()}
    for package in ("openai", "wordllama"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[package] = metadata.version(package)
    return found
