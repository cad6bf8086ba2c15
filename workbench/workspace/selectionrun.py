"""The Selection panel without Qt: the suite being edited as data (`SuiteData`), read from and saved as the YAML
`workbench select` reads (checked by the same reader before it is written, written atomically), a draft from the
open spec, the model profiles, the request count and cost a paid run will take, the run itself as a job
(`execute`: progress, cancel, the answers fed to the panel as they come), and the fix-and-measure loop: after an
edit of the spec, the offline scorer scores the whole suite again (`recheck`), so the panel
shows the right tool's rank and margin and the accuracy before → after without a model run.

The suite always runs against the open spec as edited (`workbench select SUITE --spec SPEC` once it is saved):
its own `spec:` says which file it was written for."""

from __future__ import annotations

import collections
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from workbench.config import WorkbenchConfig
from workbench.edit import write_atomically
from workbench.selection.draft import HEADER, DraftCase, draft_suite, render_suite, spec_reference
from workbench.selection.keys import effective_base_url, is_loopback
from workbench.selection.metrics import Results, evaluate, picked_label
from workbench.selection.model import (
    OFFLINE,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    ModelSettings,
    Prices,
    Sample,
    SelectionRun,
    Suite,
)
from workbench.selection.offline import OfflineRunner
from workbench.selection.run import RunOptions, make_runner, run_selection, toolset_sha256
from workbench.selection.suite import NONE_WORD, OpenedSuite, opened_with, read_suite
from workbench.spec import SourceDocument, Spec, SpecError
from workbench.spec.source import parse_document
from workbench.tools.model import ToolSet
from workbench.tools.tokens import count as count_tokens

CHOICE, SEVERAL = " | ", " + "  # how the table writes `expect: [a, b]` and `expect: {all: [a, b]}`
UNTITLED = "untitled.suite.yaml"
NEW_HEADER = "# A tool-selection suite, written by the desktop workbench. Run it with `workbench select THIS-FILE`.\n"


# -- the suite as data -----------------------------------------------------------------------------------------


def expect_text(expect: Any) -> str:
    """A case's `expect:` as the table shows it: `a`, `a | b` (any one), `a + b` (every one), `none`."""
    if isinstance(expect, Mapping):
        return SEVERAL.join(str(x) for x in expect.get("all", ()))
    if isinstance(expect, list | tuple):
        return CHOICE.join(str(x) for x in expect)
    return str(expect)


def expect_value(text: str) -> Any:
    """What the table's text writes as `expect:` (the inverse of `expect_text`)."""
    text = " ".join(text.split())
    if SEVERAL.strip() in text.split(" "):
        return {"all": [part.strip() for part in text.split(SEVERAL.strip()) if part.strip()]}
    if CHOICE.strip() in text.split(" "):
        return [part.strip() for part in text.split(CHOICE.strip()) if part.strip()]
    return text


def tags_text(tags: Sequence[str]) -> str:
    return ", ".join(tags)


def tags_value(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))


@dataclass
class SuiteData:
    """A suite as the panel edits it; `text()` is the file it saves."""

    path: Path | None  # where it is saved (None: not yet)
    spec: str  # as the file writes it: relative to the suite's folder
    cases: list[DraftCase]
    tools: dict[str, Any] = field(default_factory=dict)  # the `tools:` section as written (dashed keys)
    model: dict[str, Any] = field(default_factory=lambda: {"api": OFFLINE})
    repeats: int = 1
    header: str = NEW_HEADER  # the comment lines above the first key, kept

    def text(self) -> str:
        return render_suite(self.header, self.spec, self.tools, self.model, self.repeats, self.cases)

    def place(self, spec_path: Path) -> Path:
        """The path the suite is read at (its `spec:` is relative to that folder)."""
        return self.path or spec_path.parent / UNTITLED

    def case_ids(self) -> list[str]:
        return [c.id for c in self.cases]

    def new_case_id(self) -> str:
        taken, n = set(self.case_ids()), 1
        while f"case-{n}" in taken:
            n += 1
        return f"case-{n}"


def _header(text: str) -> str:
    """The comment lines (and blank lines) before the file's first key."""
    kept = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            break
        kept.append(line)
    return "\n".join(kept).rstrip() + "\n" if any(line.strip() for line in kept) else NEW_HEADER


def _case(entry: Mapping[str, Any]) -> DraftCase:
    messages = tuple(dict(m) for m in entry.get("messages") or ())
    prompt = entry.get("prompt") or next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
    return DraftCase(id=entry["id"], prompt=prompt, expect=entry["expect"], tags=tuple(entry.get("tags") or ()),
                     draft=bool(entry.get("draft", False)), arguments=dict(entry.get("arguments") or {}),
                     messages=messages)


def open_suite_data(path: Path) -> SuiteData:
    """A suite file as data, after `workbench select`'s reader accepted it (SpecError in one line if not)."""
    read_suite(path)
    document: SourceDocument = parse_document(path, os.fspath(path))
    data = document.data
    return SuiteData(path=path, spec=data["spec"], cases=[_case(c) for c in data["cases"]],
                     tools=dict(data.get("tools") or {}), model=dict(data.get("model") or {"api": OFFLINE}),
                     repeats=int(data.get("repeats", 1)), header=_header(document.text))


def new_suite_data(spec_path: Path) -> SuiteData:
    return SuiteData(path=None, spec=spec_reference(spec_path, spec_path.parent / UNTITLED), cases=[])


def draft_data(spec: Spec, toolset: ToolSet, spec_path: Path, similarity: float) -> SuiteData:
    """A starter suite from the open spec (`workbench suite draft`'s, every case a draft)."""
    target = spec_path.parent / UNTITLED
    draft = draft_suite(spec, toolset, spec_path=spec_reference(spec_path, target), similarity=similarity)
    return SuiteData(path=None, spec=draft.spec, cases=list(draft.cases), tools=dict(draft.tools),
                     model=dict(draft.model), header=HEADER.format(title=" ".join(str(draft.title).split())))


def with_case(data: SuiteData, row: int, **changes: Any) -> SuiteData:
    """The suite with one case changed (a new id must not be another case's)."""
    cases = list(data.cases)
    if "id" in changes and changes["id"] in {c.id for i, c in enumerate(cases) if i != row}:
        raise SpecError(f"case id {changes['id']!r} is taken", os.fspath(data.path or UNTITLED),
                        pointer=f"/cases/{row}/id")
    cases[row] = replace(cases[row], **changes)
    return replace(data, cases=cases)


def check(data: SuiteData, spec_path: Path) -> None:
    """The text the suite saves, through `workbench select`'s reader: SpecError (one line) if it would fail."""
    read_suite(data.place(spec_path), text=data.text())


def save_suite(data: SuiteData, path: Path, spec_path: Path) -> SuiteData:
    """Write the suite to `path` (atomically), its `spec:` made relative to that folder; checked first by the
    reader `workbench select` uses, so a file that would not run is never written."""
    data = replace(data, path=path, spec=spec_reference(spec_path, path))
    read_suite(path, text=data.text())
    try:
        write_atomically(path, data.text())
    except OSError as exc:
        raise SpecError(f"cannot write the suite: {exc.strerror or exc}", os.fspath(path)) from None
    return data


# -- profiles --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """Where a suite runs: the offline scorer, or a model behind an OpenAI-compatible endpoint. Its key is in
    the OS keyring under `key_entry`, never here (so never in the settings file)."""

    name: str
    api: str = OFFLINE
    base_url: str = ""
    model: str = ""
    input_price: float | None = None  # US dollars per million tokens
    output_price: float | None = None

    @property
    def key_entry(self) -> str:
        return f"profile:{self.name}"

    @property
    def is_offline(self) -> bool:
        return self.api == OFFLINE

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "api": self.api, "base_url": self.base_url, "model": self.model,
                "input_price": self.input_price, "output_price": self.output_price}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Profile | None:
        """A profile as stored, or None when it is not one (a hand-edited settings file)."""
        try:
            api = str(data.get("api") or OFFLINE)
            if api not in (OFFLINE, OPENAI_CHAT, OPENAI_RESPONSES) or not str(data.get("name") or "").strip():
                return None
            return cls(name=str(data["name"]).strip(), api=api, base_url=str(data.get("base_url") or ""),
                       model=str(data.get("model") or ""), input_price=_price(data.get("input_price")),
                       output_price=_price(data.get("output_price")))
        except (TypeError, ValueError, AttributeError):
            return None


def _price(value: Any) -> float | None:
    return None if value in (None, "") else float(value)


OFFLINE_PROFILE = Profile("Offline (no key)")
PROFILE_APIS = (OPENAI_CHAT, OPENAI_RESPONSES)


def settings_for(suite: ModelSettings, profile: Profile) -> ModelSettings:
    """The suite's model settings with the profile's endpoint, API, model, key entry and prices."""
    if profile.is_offline:
        return replace(suite, api=OFFLINE)
    prices = (Prices(profile.input_price or 0.0, profile.output_price or 0.0)
              if profile.input_price is not None or profile.output_price is not None else suite.prices)
    return replace(suite, api=profile.api, model=profile.model or suite.model, base_url=profile.base_url or None,
                   key_entry=profile.key_entry, prices=prices)


# -- preparing and estimating a run --------------------------------------------------------------------------------


def prepare(data: SuiteData, spec_path: Path, spec: Spec, config: WorkbenchConfig,
            profile: Profile = OFFLINE_PROFILE) -> OpenedSuite:
    """The suite's text read as `workbench select` reads it, tied to the open spec and the profile's settings."""
    suite_file = read_suite(data.place(spec_path), text=data.text())
    return opened_with(suite_file, spec, config, model=settings_for(suite_file.model, profile))


OUTPUT_TOKENS_GUESS = 40  # a tool call's answer: the name and a few arguments


@dataclass(frozen=True)
class Estimate:
    requests: int
    input_tokens: int
    output_tokens: int
    cost: float | None  # US dollars; None without prices
    paid: bool

    def text(self) -> str:
        cost = f"about ${self.cost:.4f}" if self.cost is not None else "cost unknown (no prices in the profile)"
        return (f"{self.requests} requests (at most; cached answers are not sent again), ~{self.input_tokens} "
                f"input and ~{self.output_tokens} output tokens: {cost}")


def estimate(opened: OpenedSuite, repeats: int, scale: Sequence[int | None] = ()) -> Estimate:
    """What a model run will send: one request per case and repeat (and per tool count measured), each with the
    offered tools and the case's messages."""
    suite, toolset = opened.suite, opened.toolset
    count = len(toolset.tools) or 1
    sizes = sorted({s for s in scale if s is not None and s < count})
    tool_tokens = toolset.tokens.total
    messages = sum(count_tokens(" ".join(m.get("content", "") for m in c.messages)) for c in suite.cases)
    per_pass = len(suite.cases) * repeats
    inputs = (tool_tokens * per_pass + messages * repeats
              + sum(int(tool_tokens * size / count) * per_pass + messages * repeats for size in sizes))
    requests = per_pass * (1 + len(sizes))
    outputs = requests * OUTPUT_TOKENS_GUESS
    prices = suite.model.prices
    cost = (inputs * prices.input + outputs * prices.output) / 1_000_000 if prices is not None else None
    settings = suite.model
    paid = settings.api != OFFLINE and not is_loopback(effective_base_url(settings.base_url))
    return Estimate(requests, inputs, outputs, cost, paid)


# -- running --------------------------------------------------------------------------------------------------------


class Feed:
    """The answers of a running job, for the panel to take in batches (thread-safe)."""

    def __init__(self) -> None:
        self._items: collections.deque[Sample] = collections.deque()
        self._lock = threading.Lock()

    def put(self, sample: Sample) -> None:
        with self._lock:
            self._items.append(sample)

    def take(self) -> list[Sample]:
        with self._lock:
            items = list(self._items)
            self._items.clear()
        return items


def sample_label(sample: Sample) -> str:
    """A streamed answer as the results table shows it before it is judged."""
    if sample.error is not None:
        return "error"
    return " + ".join(sorted({c.name for c in sample.calls})) if sample.calls else "none"


class _Tapped:
    """A runner whose answers also go to a `Feed` as they arrive."""

    def __init__(self, runner, feed: Feed) -> None:
        self.runner, self.feed = runner, feed
        self.name = runner.name
        self.makes_arguments = getattr(runner, "makes_arguments", True)

    @property
    def requests_sent(self) -> int:
        return self.runner.requests_sent

    @property
    def cache_hits(self) -> int:
        return self.runner.cache_hits

    def keep_threshold(self) -> None:
        getattr(self.runner, "keep_threshold", lambda: None)()

    def samples(self, toolset, requests, progress=None, cancelled=None):
        for sample in self.runner.samples(toolset, requests, progress, cancelled):
            self.feed.put(sample)
            yield sample


@dataclass
class Finished:
    """A run done (or cancelled part-way): the run, what the reports show of it, and the offline state the loop
    compares later edits with."""

    run: SelectionRun
    results: Results
    toolset: ToolSet
    threshold: float | None = None  # the offline scorer's, learned on the whole set
    notes: list[str] = field(default_factory=list)

    @property
    def offline(self) -> bool:
        return self.run.context.api == OFFLINE


def execute(opened: OpenedSuite, options: RunOptions, feed: Feed | None = None,
            progress: Callable[[int, int, str], None] | None = None,
            cancelled: Callable[[], bool] | None = None) -> Finished:
    """The run `workbench select` makes, through the same runner and judge."""
    runner = make_runner(opened.suite.model, options)
    try:
        run = run_selection(opened.suite, opened.spec, opened.toolset, _Tapped(runner, feed) if feed else runner,
                            options, progress=progress, cancelled=cancelled)
    finally:
        getattr(runner, "close", lambda: None)()
    notes = list(opened.notes)
    if getattr(runner, "cache_problem", None):
        notes.append(runner.cache_problem)
    return Finished(run, evaluate(run), opened.toolset, getattr(runner, "threshold", None), notes)


# -- the loop: an edit of the spec, the whole suite again offline -----------------------------------------------------


def changed_tools(before: ToolSet, after: ToolSet) -> list[str]:
    """Tools whose JSON as a model sees it differs (by name), and tools added or gone."""
    old = {t.name: n for t, n in zip(before.tools, before.native, strict=True)}
    new = {t.name: n for t, n in zip(after.tools, after.native, strict=True)}
    return sorted(name for name in old.keys() | new.keys() if old.get(name) != new.get(name))


def affected_cases(suite: Suite, run: SelectionRun, changed: Sequence[str]) -> list[str]:
    """The cases an edit of these tools can change: one expecting a changed tool, picking one, or ranking one
    among its best scores (or each case, when it has not been run)."""
    changed_set = set(changed)
    if not changed_set:
        return []
    seen: dict[str, set[str]] = {}
    for verdict in run.verdicts:
        names = seen.setdefault(verdict.case_id, set())
        names.update(verdict.picked)
        if verdict.answer is not None:
            names.update(name for name, _score in verdict.answer.detail.get("scores", ()))
    return [case.id for case in suite.cases
            if case.id not in seen or changed_set & (set(case.expect.tools) | seen[case.id])]


@dataclass(frozen=True)
class CaseChange:
    id: str
    expected: str
    passed_before: tuple[int, int]  # passed, runs
    passed_after: tuple[int, int]
    rank_before: int | None
    rank_after: int | None
    margin_before: float | None
    margin_after: float | None


@dataclass
class Recheck:
    before: Results
    after: Results
    changed: list[str]  # tool names
    rerun: list[str]  # case ids scored again: every case of the suite once a tool changed
    cases: list[CaseChange]  # the cases the edit reaches (by expectation or ranking) and any whose outcome moved
    finished: Finished  # the state the next edit is compared with

    def text(self) -> str:
        def pct(value: float | None) -> str:
            return "—" if value is None else f"{value:.1%}"

        if not self.changed:
            return "The edit changed no tool: the offline numbers stay."
        moved = sum(1 for c in self.cases if c.passed_before != c.passed_after)
        return (f"Offline after the edit: accuracy {pct(self.before.summary.accuracy)} → "
                f"{pct(self.after.summary.accuracy)}, all {len(self.after.cases)} cases scored again; "
                f"{moved} passed or failed otherwise "
                f"({', '.join(self.changed[:3])}{', …' if len(self.changed) > 3 else ''} changed)")


def recheck(previous: Finished, opened: OpenedSuite, cancelled: Callable[[], bool] | None = None,
            progress: Callable[[int, int, str], None] | None = None) -> Recheck:
    """The offline scorer on the whole suite again after an edit, with the threshold of the previous run (so the
    numbers move for the descriptions, not for a threshold learned again). Every case is scored again, not only
    the ones the changed tools reached: an edited tool can take a case it was never ranked for, and the accuracy
    shown must be the whole suite's (the scorer takes 0.05 s for 22 cases, about 3 s for 336 on 296 tools)."""
    changed = changed_tools(previous.toolset, opened.toolset)
    suite = replace(opened.suite, repeats=previous.run.context.repeats)
    reached = set(affected_cases(suite, previous.run, changed))
    if changed:
        runner = OfflineRunner(threshold=previous.threshold, learn=previous.threshold is None)
        again = run_selection(suite, opened.spec, opened.toolset, runner, RunOptions(repeats=suite.repeats),
                              progress=progress, cancelled=cancelled)
        verdicts, stopped = again.verdicts, again.cancelled
    else:  # nothing a model sees changed: the verdicts stand (for the cases the suite still has)
        present = {c.id for c in suite.cases}
        verdicts, stopped = [v for v in previous.run.verdicts if v.case_id in present], False
    run = SelectionRun(replace(previous.run.context, toolset_sha256=toolset_sha256(opened.toolset),
                               tool_count=len(opened.toolset.tools)),
                       suite, verdicts, requests_sent=0, cancelled=stopped)
    after = evaluate(run)
    before_cases = {c.id: c for c in previous.results.cases}
    changes = []
    for c in after.cases:
        old = before_cases.get(c.id)
        moved = changed and (old is None or (old.passed, old.runs, old.rank) != (c.passed, c.runs, c.rank))
        if c.id in reached or moved:
            changes.append(CaseChange(c.id, c.expected, _pr(old), (c.passed, c.runs), getattr(old, "rank", None),
                                      c.rank, getattr(old, "margin", None), c.margin))
    finished = Finished(run, after, opened.toolset, previous.threshold, list(opened.notes))
    return Recheck(previous.results, after, changed, [c.id for c in suite.cases] if changed else [], changes,
                   finished)


def _pr(case) -> tuple[int, int]:
    return (case.passed, case.runs) if case is not None else (0, 0)


# -- what the Charts tab shows ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CellCase:
    id: str
    prompt: str
    count: int  # of the case's samples in this cell


def cell_cases(finished: Finished, expected: str, picked: str) -> list[CellCase]:
    """The cases behind one confusion cell: expected label × picked label."""
    labels = {c.id: c.expect.label() for c in finished.run.suite.cases}
    prompts = {c.id: c.prompt for c in finished.run.suite.cases}
    counts: dict[str, int] = {}
    for verdict in finished.run.verdicts:
        if labels.get(verdict.case_id) == expected and picked_label(verdict) == picked:
            counts[verdict.case_id] = counts.get(verdict.case_id, 0) + 1
    return [CellCase(case_id, prompts.get(case_id, ""), n) for case_id, n in counts.items()]


def tool_choices(toolset: ToolSet | None, written: Sequence[str] = ()) -> list[str]:
    """What the Expected column offers: every tool of the current set, `none`, and references already written
    (an operationId or `METHOD /path` stays offered)."""
    names = [t.name for t in toolset.tools] if toolset is not None else []
    return list(dict.fromkeys([*names, NONE_WORD, *written]))

