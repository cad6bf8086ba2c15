"""Hand-made selection runs for the metrics and report tests: cases, verdicts and samples written out, no
runner involved."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.selection.model import (
    ALL_OF,
    NONE,
    ONE_OF,
    PASSED,
    Case,
    Expectation,
    ModelSettings,
    Prices,
    RunContext,
    Sample,
    ScalePoint,
    SelectionRun,
    Suite,
    Verdict,
)
from workbench.tools.options import ToolOverrides


class RunBuilder:
    def case(self, case_id: str, *tools: str, mode: str = ONE_OF, prompt: str | None = None,
             line: int = 0) -> Case:
        mode = NONE if not tools else mode
        return Case(id=case_id, messages=({"role": "user", "content": prompt or f"please do {case_id}"},),
                    expect=Expectation(mode, tuple(tools), tuple(tools)), line=line)

    def all_of(self, case_id: str, *tools: str, line: int = 0) -> Case:
        return self.case(case_id, *tools, mode=ALL_OF, line=line)

    def verdict(self, case_id: str, sample: int, outcome: str = PASSED, picked: tuple[str, ...] = (), *,
                f1: float | None = None, valid: bool | None = None, match: bool | None = None,
                tokens: tuple[int | None, int | None] = (None, None), latency: float = 0.0,
                detail: dict | None = None, error: str | None = None, problems: tuple[str, ...] = ()) -> Verdict:
        answer = Sample(case_id, sample, error=error, input_tokens=tokens[0], output_tokens=tokens[1],
                        latency=latency, detail=detail or {})
        return Verdict(case_id, sample, outcome, tuple(picked), f1=f1, arguments_valid=valid,
                       argument_problems=problems, arguments_match=match, answer=answer)

    def run(self, cases: list[Case], verdicts: list[Verdict], *, repeats: int = 1, prices: Prices | None = None,
            scale: dict[int, list[Verdict]] | None = None, api: str = "offline", model: str | None = None,
            toolset: str = "a" * 64, requests_sent: int = 0, cache_hits: int = 0, tool_count: int = 12) -> SelectionRun:
        suite = Suite(path=Path("/suites/petstore.selection.yaml"), spec=Path("/specs/petstore.yaml"),
                      tools=ToolOverrides(), model=ModelSettings(api=api, model=model, prices=prices),
                      repeats=repeats, cases=tuple(cases), sha256="b" * 64)
        context = RunContext(api=api, model=model, settings={"temperature": 0.0, "tool_choice": "auto"},
                             vendor="openai", tool_count=tool_count, toolset_sha256=toolset, suite_sha256="b" * 64,
                             spec_sha256="c" * 64, repeats=repeats,
                             versions={"workbench": "0.1.0", "python": "3.11"}, started="2026-12-01T13:00:00Z")
        points = [ScalePoint(size, tuple(vs)) for size, vs in (scale or {}).items()]
        return SelectionRun(context, suite, verdicts, points, requests_sent=requests_sent, cache_hits=cache_hits)


@pytest.fixture
def build() -> RunBuilder:
    return RunBuilder()
