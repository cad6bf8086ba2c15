"""What a selection suite is made of and what a run of it produces: the types every part of `selection/`
shares (the suite reader, the runners, the judge, the metrics and the reports)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from workbench.tools.model import ToolSet
from workbench.tools.options import ToolOverrides

SUITE_FORMAT = 1

# The APIs a suite can run against.
OFFLINE = "offline"
OPENAI_CHAT = "openai-chat"
OPENAI_RESPONSES = "openai-responses"
APIS = (OFFLINE, OPENAI_CHAT, OPENAI_RESPONSES)
# The vendor conversion each model API receives its tools in (the offline scorer reads any).
API_VENDOR = {OPENAI_CHAT: "openai", OPENAI_RESPONSES: "openai-responses"}

# What a case expects.
ONE_OF = "one-of"  # one call to any one of `tools` (usually a single tool) is right
ALL_OF = "all-of"  # every one of `tools` should be called (parallel calls): scored by F1 over names
NONE = "none"  # no tool should be called


@dataclass(frozen=True)
class Expectation:
    mode: str  # ONE_OF | ALL_OF | NONE
    tools: tuple[str, ...]  # resolved tool names of the run's tool set (empty for NONE)
    written: tuple[str, ...]  # as the suite wrote them: operationId, tool name or "METHOD /path"
    # ALL_OF: the tools each written reference resolved to, in order. With split unions one operation has
    # several tools, and a call to any one of a group satisfies that reference (empty for ONE_OF and NONE).
    groups: tuple[tuple[str, ...], ...] = ()

    def label(self) -> str:
        """How reports name it: the tool, `a | b` for a choice, `a + b` for several calls, `none`."""
        if self.mode == NONE:
            return "none"
        if self.mode == ALL_OF:  # in name order, as a sample's picks are named
            return " + ".join(sorted(set(self.tools)))
        return " | ".join(self.tools)


@dataclass(frozen=True)
class Case:
    id: str
    messages: tuple[Mapping[str, str], ...]  # [{"role": "system"|"user"|"assistant", "content": str}]
    expect: Expectation
    # expected argument values, a subset compared leniently, per resolved tool name
    arguments: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    draft: bool = False  # written by `workbench suite draft` and not yet reviewed
    line: int = 0  # where the case starts in the suite file (1-based)

    @property
    def prompt(self) -> str:
        """The last user message: what a one-line report shows."""
        return next((m["content"] for m in reversed(self.messages) if m.get("role") == "user"), "")


@dataclass(frozen=True)
class Prices:
    """US dollars per million tokens."""

    input: float
    output: float


@dataclass(frozen=True)
class ModelSettings:
    api: str = OFFLINE
    model: str | None = None
    base_url: str | None = None  # any OpenAI-compatible endpoint; default the client's (or OPENAI_BASE_URL)
    temperature: float | None = None
    tool_choice: str = "auto"  # auto | required | none
    parallel_tool_calls: bool | None = None
    max_tokens: int | None = None
    system: str | None = None  # a system message put before every case's messages
    seed: int | None = None
    timeout: float = 60.0  # seconds per request
    prices: Prices | None = None
    key_env: str = "OPENAI_API_KEY"  # where the key is looked for first; then the OS keyring
    key_entry: str = "openai"  # the OS keyring's entry (under the product's service) for the key


@dataclass(frozen=True)
class Suite:
    path: Path
    spec: Path  # resolved against the suite file's folder
    tools: ToolOverrides
    model: ModelSettings
    repeats: int
    cases: tuple[Case, ...]
    sha256: str  # of the suite file's bytes


@dataclass(frozen=True)
class SampleRequest:
    """One sample to take: a case, which repeat, and the tools offered (a subset of the tool set when the
    run measures accuracy against tool count)."""

    case: Case
    sample: int  # 0 .. repeats-1: part of the cache key, so repeats are real samples
    offered: tuple[str, ...]  # tool names, in the tool set's order


@dataclass(frozen=True)
class Called:
    """One tool call the model made, as it made it."""

    name: str
    arguments: Mapping[str, Any] | None  # None: the arguments could not be read as a JSON object
    raw_arguments: str = ""
    problem: str | None = None  # why the call is malformed (unreadable arguments, no name)


@dataclass(frozen=True)
class Sample:
    """One answer of the model (or of the offline scorer) to one case."""

    case_id: str
    sample: int
    calls: tuple[Called, ...] = ()
    text: str = ""  # what it said instead of (or beside) calling
    error: str | None = None  # no usable answer: timeout, budget spent, HTTP error after retries
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency: float = 0.0  # seconds the request took when it was made (kept in the cache)
    cached: bool = False
    detail: Mapping[str, Any] = field(default_factory=dict)  # offline: rank, margin, runner_up, scores


# A verdict's outcome.
PASSED = "passed"
WRONG_TOOL = "wrong tool"
DECLINED = "declined"  # no call where one was expected
FALSE_CALL = "false call"  # a call on a `none` case
MALFORMED = "malformed"  # a call whose arguments cannot be read
HALLUCINATED = "hallucinated"  # a call to a tool that is not in the offered set
ERROR = "error"  # no usable answer (counted apart from accuracy's failures in the report)
OUTCOMES = (PASSED, WRONG_TOOL, DECLINED, FALSE_CALL, MALFORMED, HALLUCINATED, ERROR)


@dataclass(frozen=True)
class Verdict:
    case_id: str
    sample: int
    outcome: str  # one of OUTCOMES
    picked: tuple[str, ...]  # the tool names called, in order ("none" is never a name here)
    f1: float | None = None  # ALL_OF cases: F1 of the picked names against the expected ones
    arguments_valid: bool | None = None  # the executor's validator on the call(s) to known tools
    argument_problems: tuple[str, ...] = ()  # what the validator said, or expected values not matched
    arguments_match: bool | None = None  # the case's expected values (a subset) against the call
    answer: Sample | None = None

    @property
    def passed(self) -> bool:
        return self.outcome == PASSED


@dataclass(frozen=True)
class RunContext:
    api: str
    model: str | None
    settings: Mapping[str, Any]  # temperature, tool_choice, parallel calls, max tokens, seed, base URL host
    vendor: str
    tool_count: int
    toolset_sha256: str  # of the native tools as sent
    suite_sha256: str
    spec_sha256: str
    repeats: int
    versions: Mapping[str, str]  # workbench, openai, wordllama, python
    started: str  # ISO 8601, UTC


@dataclass(frozen=True)
class ScalePoint:
    """Accuracy with this many tools offered: the expected tools plus the most similar others."""

    size: int
    verdicts: tuple[Verdict, ...]


@dataclass
class SelectionRun:
    context: RunContext
    suite: Suite
    verdicts: list[Verdict]
    scale: list[ScalePoint] = field(default_factory=list)
    requests_sent: int = 0  # HTTP requests actually sent (0 for the offline runner and a fully cached re-run)
    cache_hits: int = 0
    cancelled: bool = False


Progress = Callable[[int, int, str], None]  # done, total, what
Cancelled = Callable[[], bool]


class Runner(Protocol):
    """Takes samples: the offline scorer, or a model behind an OpenAI-compatible API."""

    name: str
    requests_sent: int
    cache_hits: int
    makes_arguments: bool  # False: its calls carry no arguments to judge (the offline scorer)

    def samples(self, toolset: ToolSet, requests: Sequence[SampleRequest], progress: Progress | None = None,
                cancelled: Cancelled | None = None) -> Iterator[Sample]:
        """One Sample per request, in any order; stops early (yielding what it has) when cancelled."""
        ...
