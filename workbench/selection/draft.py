"""A starter suite for a spec (`workbench suite draft`): one case per operation of the tool set, a few
off-topic `none` cases, and a trap case for every pair of operations the lint finds nearly the same.

The prompts are a starting point, never the suite: without a model they are the operation's own summary
turned into a request, which is exactly the wording a real user would not use, so every case is marked
`draft: true` for a person to rewrite. With a model configured, `ModelPrompts` asks it for a user's request
per operation in other words than the operation's. Expected tools are written as operationIds (or
`METHOD /path` for an operation without a usable one): those survive a tool rename, and the reader reports it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from workbench.lint.rules.responses import returns_list
from workbench.lint.rules.similarity import similar_pairs
from workbench.naming import operation_name, split_words
from workbench.selection.model import OFFLINE, OPENAI_RESPONSES, ModelSettings
from workbench.selection.suite import NONE_WORD
from workbench.spec import Operation, Spec
from workbench.tools.model import ToolSet
from workbench.tools.options import ToolOverrides

HEADER = """\
# A DRAFT tool-selection suite for {title}, written by `workbench suite draft`.
# Every case is a draft to review (`draft: true`): rewrite each prompt the way a real user would ask (not in
# the spec's own words), check the expected tool, add expected arguments where they matter, then delete the
# `draft` line. `trap-` cases pair two operations the lint finds nearly the same: keep them, they are the
# cases a rename or a shortened description breaks first. Run it with `workbench select THIS-FILE`.
"""

# Requests no API should answer with a tool call, each with its topic words: one whose topic the tool set
# mentions is left out (a weather API's suite must not call the weather question off-topic).
OFF_TOPIC = (
    ("What's the weather going to be like in Paris tomorrow?", ("weather", "forecast", "paris")),
    ("Write a haiku about autumn leaves.", ("haiku", "poem", "autumn")),
    ("How long should I boil an egg for a soft yolk?", ("egg", "boil", "recipe", "cooking")),
    ("Translate 'good morning' into Italian.", ("translate", "translation", "italian")),
    ("Who painted the ceiling of the Sistine Chapel?", ("painted", "painting", "chapel")),
    ("Tell me a joke about penguins.", ("joke", "penguin", "penguins")),
)
OFF_TOPIC_COUNT = 4

_PLAIN = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./\-]*")
_YAML_WORDS = frozenset(("true", "false", "null", "yes", "no", "on", "off", "y", "n", "~", NONE_WORD))
_SUCH_AS = re.compile(r"(?:such as|e\.g\.|for example|like)\s*`([^`\s]+)`", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s")


@dataclass(frozen=True)
class DraftCase:
    """A case as a suite file writes it (a draft's, or one the desktop workbench edits)."""

    id: str
    prompt: str  # the last user message when the case has `messages`
    expect: Any  # a reference as the file writes it, or "none"; a list (any one of them); {"all": [...]}
    tags: tuple[str, ...] = ()
    comment: str | None = None  # a line written above the case
    draft: bool = True
    arguments: Mapping[str, Any] = field(default_factory=dict)
    messages: tuple[Mapping[str, str], ...] = ()  # written instead of `prompt` when there are any


@dataclass(frozen=True)
class Draft:
    title: str
    spec: str  # as the file writes it: relative to the suite's folder
    tools: Mapping[str, Any]  # the suite's `tools:` (dashed keys), from the options given
    model: Mapping[str, Any]  # the suite's `model:`
    cases: tuple[DraftCase, ...]


@dataclass(frozen=True)
class PromptTask:
    """What a model is asked to write a request for: one operation, and the words it must not reuse."""

    id: str
    tool: str
    operation: str  # "GET /orders/{orderId}"
    words: str  # the operation's summary and description
    target: str | None = None  # trap cases: the operation it must not be mistaken for
    avoid: str | None = None


@dataclass(frozen=True)
class _Entry:
    """One operation of the tool set, with how the suite refers to it."""

    op: Operation
    tool: str
    reference: str
    id: str


def draft_suite(spec: Spec, toolset: ToolSet, *, spec_path: str, similarity: float,
                overrides: ToolOverrides | None = None, settings: ModelSettings | None = None,
                prompts: Callable[[Sequence[PromptTask]], Mapping[str, str]] | None = None) -> Draft:
    """The starter suite. `spec_path` is written as given; `similarity` is the lint's threshold for
    near-duplicates; `prompts` (the model's, see `ModelPrompts`) replaces the summary-made prompts it
    returns an answer for."""
    entries = _entries(toolset)
    cases = [DraftCase(e.id, request_for(spec, e.op), e.reference, e.op.tags) for e in entries]
    tasks = [PromptTask(e.id, e.tool, e.op.label(), _words(e.op)) for e in entries]
    for case, task in _traps(spec, entries, similarity, {c.id for c in cases}):
        cases.append(case)
        tasks.append(task)
    if prompts is not None:
        written = prompts(tasks)
        cases = [_replace_prompt(case, written.get(case.id)) for case in cases]
    cases += off_topic_cases(toolset)
    title = (spec.info or {}).get("title") or spec_path
    return Draft(title, spec_path, tools_section(overrides), model_section(settings), tuple(cases))


def _replace_prompt(case: DraftCase, prompt: str | None) -> DraftCase:
    if not prompt or not prompt.strip():
        return case
    return replace(case, prompt=" ".join(prompt.split()))


def _entries(toolset: ToolSet) -> list[_Entry]:
    """One per operation (split unions make several tools of one), in the tool set's order."""
    ids = [t.operation.operation_id for t in toolset.tools]
    seen: set[int] = set()
    taken: set[str] = set()
    entries = []
    for tool in toolset.tools:
        op = tool.operation
        if id(op) in seen:
            continue
        seen.add(id(op))
        # The operationId when it is the tool's name (any other reference to it would be reported as a
        # rename by the reader), else the method and path.
        named = op.operation_id == tool.name and ids.count(op.operation_id) == 1 and op.operation_id != NONE_WORD
        reference = op.operation_id if named else f"{op.method.upper()} {op.path}"
        entries.append(_Entry(op, tool.name, reference, _unique(_slug(op.operation_id or tool.name), taken)))
    return entries


def _slug(name: str) -> str:
    return "-".join(w.lower() for w in split_words(name) if re.fullmatch(r"[A-Za-z0-9]+", w)) or "case"


def _unique(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    taken.add(name)
    return name


# -- prompts from the spec's words --------------------------------------------------------------------------


def request_for(spec: Spec, op: Operation, text: str | None = None) -> str:
    """The operation's summary (or first sentence, or name) as a request: "Please list customers", with the
    path parameters' example values where the spec has them."""
    sentence = _SENTENCE.split(" ".join((text or _first_text(op)).split()), maxsplit=1)[0]
    request = _request(op, sentence.rstrip(".:;"))
    values = [f"{p.name} {v}" for p in op.parameters if p.location == "path"
              for v in [example_value(spec, p)] if v is not None]
    return request + (f" ({', '.join(values)})" if values else "") + "."


def _first_text(op: Operation) -> str:
    if op.summary and op.summary.strip():
        return op.summary
    if op.description and op.description.strip():
        return _SENTENCE.split(" ".join(op.description.split()), maxsplit=1)[0]
    return _name_words(op)


def _name_words(op: Operation) -> str:
    words = split_words(op.operation_id or operation_name(op))
    return " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words)


# The verbs a request to read something starts with; any other first word of a GET's text ("Refund
# details") is a noun phrase, asked for as "show me the …".
_READ_VERBS = frozenset(("get", "list", "search", "find", "fetch", "retrieve", "return", "browse", "show", "look",
                         "lookup", "read", "check", "count", "download", "query", "view", "describe", "export",
                         "see", "tell", "give", "display", "obtain", "load", "inspect", "verify", "validate"))
_ARTICLES = ("the ", "a ", "an ")


def _request(op: Operation, text: str) -> str:
    """"Lists the refunds" → "Please list the refunds"; a GET's noun phrase → "Please show me the …"."""
    first, _, rest = text.partition(" ")
    verb = _imperative(first.lower()) if first[1:].islower() or len(first) == 1 else first
    if op.method.lower() != "get" or verb in _READ_VERBS:
        return f"Please {verb} {rest}".strip() if verb.islower() else f"Please {text}"
    phrase = text[0].lower() + text[1:] if text[1:2].islower() else text
    if phrase.lower().startswith(_ARTICLES):
        phrase = phrase.split(" ", 1)[1]
    return f"Please show me the {phrase}"


def _imperative(word: str) -> str:
    """"lists" → "list", "searches" → "search", "modifies" → "modify"; "status" stays."""
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


def example_value(spec: Spec, parameter) -> Any:
    """An example the spec gives for a parameter: its own, its schema's, or one its description names
    ("such as `cus_8f2kQ1x9LmP3aZ`")."""
    if parameter.example is not None:
        return parameter.example
    for example in parameter.examples.values():
        value = example.get("value") if isinstance(example, dict) else None
        if value is not None:
            return value
    schema = parameter.schema or {}
    if isinstance(schema, dict) and "$ref" in schema:
        schema = spec.resolve_schema(schema["$ref"]) or {}
    if isinstance(schema, dict):
        if schema.get("example") is not None:
            return schema["example"]
        if isinstance(schema.get("examples"), list) and schema["examples"]:
            return schema["examples"][0]
    found = _SUCH_AS.search(parameter.description or "")
    return found[1] if found else None


def _words(op: Operation) -> str:
    return " ".join(filter(None, (op.summary, op.description))).strip()


def _content_words(text: str) -> set[str]:
    return {w.lower() for w in split_words(text) if len(w) > 2 and w.isalpha()}


# -- traps: the near-duplicate pairs the lint reports -----------------------------------------------------------


def _traps(spec: Spec, entries: list[_Entry], similarity: float,
           taken: set[str]) -> list[tuple[DraftCase, PromptTask]]:
    """A case per near-duplicate pair, aimed at the operation whose words set it apart most."""
    operations = [e.op for e in entries]
    kinds = [(op.method, returns_list(spec, op)) for op in operations]  # as the lint rule groups them
    traps = []
    for i, j, score in similar_pairs(operations, similarity, kinds):
        target, other = _aim(entries[i], entries[j])
        text = _distinct_text(target.op, other.op)
        case = DraftCase(_unique(f"trap-{target.id}", taken), request_for(spec, target.op, text), target.reference,
                         target.op.tags, f"trap: reads almost the same as {other.reference} (similarity {score:.2f})")
        task = PromptTask(case.id, target.tool, target.op.label(), _words(target.op), target=target.op.label(),
                          avoid=f"{other.tool} ({other.op.label()}): {_words(other.op)}")
        traps.append((case, task))
    return traps


def _aim(a: _Entry, b: _Entry) -> tuple[_Entry, _Entry]:
    """The pair's member a prompt can single out (the one with more words of its own), and the other."""
    a_own = _content_words(_all_text(a.op)) - _content_words(_all_text(b.op))
    b_own = _content_words(_all_text(b.op)) - _content_words(_all_text(a.op))
    return (b, a) if len(b_own) > len(a_own) else (a, b)


def _all_text(op: Operation) -> str:
    return " ".join(filter(None, (op.operation_id, op.path, op.summary, op.description)))


def _distinct_text(target: Operation, other: Operation) -> str:
    """Of the target's texts (summary, first sentence, name, path), the one sharing the fewest words with the
    other operation."""
    others = _content_words(_all_text(other))
    path_words = " ".join(s for s in target.path.split("/") if s and not s.startswith("{"))
    candidates = [t for t in (target.summary, _first_text(target),
                              _name_words(target),
                              f"{target.method} {' '.join(split_words(path_words))}") if t and t.strip()]

    def shared(text: str) -> float:
        words = _content_words(text)
        return len(words & others) / len(words) if words else 1.0

    return min(candidates, key=shared)


# -- none cases ------------------------------------------------------------------------------------------------


def off_topic_cases(toolset: ToolSet) -> list[DraftCase]:
    vocabulary = set()
    for tool in toolset.tools:
        vocabulary |= _content_words(" ".join((tool.name, tool.description, *tool.parameters.get("properties", {}))))
    prompts = [prompt for prompt, topic in OFF_TOPIC if not set(topic) & vocabulary][:OFF_TOPIC_COUNT]
    return [DraftCase(f"off-topic-{n}", prompt, NONE_WORD, ("none",)) for n, prompt in enumerate(prompts, 1)]


# -- the sections the draft carries over --------------------------------------------------------------------------

_NOT_SUITE_OPTIONS = ("json_schema_form", "budget")


def tools_section(overrides: ToolOverrides | None) -> dict[str, Any]:
    if overrides is None:
        return {}
    return {name.replace("_", "-"): list(value) if isinstance(value, tuple) else value
            for name, value in overrides._asdict().items() if name not in _NOT_SUITE_OPTIONS and value is not None}


def model_section(settings: ModelSettings | None) -> dict[str, Any]:
    if settings is None or settings.api == OFFLINE:
        return {"api": OFFLINE}
    section: dict[str, Any] = {"api": settings.api, "name": settings.model}
    if settings.base_url:
        section["base-url"] = settings.base_url
    return {key: value for key, value in section.items() if value is not None}


# -- writing --------------------------------------------------------------------------------------------------


def render(draft: Draft) -> str:
    """The suite as YAML that reads well: block style, prompts quoted, one blank line between cases."""
    return render_suite(HEADER.format(title=_one_line(draft.title)), draft.spec, draft.tools, draft.model, 1,
                        draft.cases)


def render_suite(header: str, spec: str, tools: Mapping[str, Any], model: Mapping[str, Any], repeats: int,
                 cases: Sequence[DraftCase]) -> str:
    """A suite file: the header's comment lines, the sections, then the cases (the one writer of suite files)."""
    lines = [line if line.startswith("#") or not line.strip() else f"# {line}" for line in header.splitlines()]
    lines += ["format: 1", f"spec: {_scalar(spec)}"]
    lines += _section("tools", tools) + _section("model", model)
    lines += [f"repeats: {int(repeats)}", "cases:"]
    for case in cases:
        lines += _case_lines(case)
    return "\n".join(lines) + "\n"


def _section(name: str, values: Mapping[str, Any]) -> list[str]:
    if not values:
        return []
    return [f"{name}:", *(f"  {key}: {_scalar(value)}" for key, value in values.items())]


def _case_lines(case: DraftCase) -> list[str]:
    lines = [""]
    if case.comment:
        lines.append(f"  # {_one_line(case.comment)}")
    lines.append(f"  - id: {_scalar(case.id)}")
    if case.messages:
        lines.append("    messages:")
        lines += [f"      - {_scalar(dict(m))}" for m in case.messages]
    else:
        lines.append(f"    prompt: {json.dumps(case.prompt, ensure_ascii=False)}")
    lines.append(f"    expect: {_scalar(case.expect)}")
    if case.arguments:
        lines.append(f"    arguments: {_scalar(dict(case.arguments))}")
    if case.tags:
        lines.append(f"    tags: {_scalar(list(case.tags))}")
    if case.draft:
        lines.append("    draft: true")
    return lines


def _scalar(value: Any) -> str:
    """A YAML scalar (or flow list of them): plain when it is a plain word, else JSON-quoted (valid YAML)."""
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    if isinstance(value, Mapping):  # a flow mapping, its keys quoted as JSON (valid YAML)
        pairs = (f"{json.dumps(str(k), ensure_ascii=False)}: {_scalar(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return json.dumps(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _YAML_WORDS:
        return text
    return json.dumps(text, ensure_ascii=False)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def spec_reference(spec: str | os.PathLike[str], output: Path | None) -> str:
    """The spec's path as the suite writes it: relative to the suite file's folder (or the current folder
    when the suite goes to stdout)."""
    base = (output.parent if output is not None else Path.cwd()).resolve()
    target = Path(spec).resolve()
    try:
        if Path(os.path.commonpath([target, base])).parent != Path(os.path.commonpath([target, base])):
            return Path(os.path.relpath(target, base)).as_posix()
    except ValueError:  # another drive
        pass
    return target.as_posix()  # nothing in common but the root: an absolute path reads better


# -- prompts written by a model ----------------------------------------------------------------------------------

PROMPT_INSTRUCTIONS = """\
You write test prompts for a tool-selection regression suite. For each task you get one API operation: its
tool name, method and path, and its documentation. Write ONE short, realistic request a user of an assistant
would type that should make the assistant call exactly that operation. Do not reuse the operation's own
words: no tool name, no words from its summary or description where a user would say it differently; use
concrete values (names, ids, dates) where the operation needs them. When a task names an operation to
avoid, the request must fit the target and not the other one.
Answer with one JSON object mapping each task id to its prompt, and nothing else."""

BATCH = 20  # operations per request: a 900-operation spec is 45 requests


@dataclass
class ModelPrompts:
    """Prompts written by a model behind an OpenAI-compatible API (chat completions or responses), in
    batches; an answer that cannot be read leaves those cases with the spec-made prompts."""

    settings: ModelSettings
    api_key: str
    problems: list[str] = field(default_factory=list)
    requests_sent: int = 0

    def __call__(self, tasks: Sequence[PromptTask]) -> dict[str, str]:
        import openai

        from workbench.selection.openai_api import describe, scrub  # the runners' words, the key scrubbed

        client = openai.OpenAI(api_key=self.api_key, base_url=self.settings.base_url,
                               timeout=self.settings.timeout, max_retries=2)
        written: dict[str, str] = {}
        for start in range(0, len(tasks), BATCH):
            batch = tasks[start:start + BATCH]
            try:
                text = self._ask(client, _task_text(batch))
            except openai.OpenAIError as exc:
                self.problems.append(f"the model gave no prompts for {len(batch)} operations: "
                                     f"{scrub(describe(exc, self.settings.timeout), self.api_key)}")
                continue
            problems: list[str] = []
            answers = _read_answer(text, {t.id for t in batch}, problems)
            self.problems += [scrub(p, self.api_key) for p in problems]
            written.update({k: v.replace(self.api_key, "********") if len(self.api_key) >= 4 else v
                            for k, v in answers.items()})
        return written

    def _ask(self, client, text: str) -> str:
        self.requests_sent += 1
        extra = {"temperature": self.settings.temperature} if self.settings.temperature is not None else {}
        if self.settings.api == OPENAI_RESPONSES:
            answer = client.responses.create(model=self.settings.model, instructions=PROMPT_INSTRUCTIONS,
                                             input=text, **extra)
            return answer.output_text or ""
        answer = client.chat.completions.create(model=self.settings.model, messages=[
            {"role": "system", "content": PROMPT_INSTRUCTIONS}, {"role": "user", "content": text}], **extra)
        return answer.choices[0].message.content or "" if answer.choices else ""


def _task_text(batch: Sequence[PromptTask]) -> str:
    tasks = []
    for task in batch:
        entry = {"id": task.id, "tool": task.tool, "operation": task.operation, "documentation": task.words[:1200]}
        if task.avoid:
            entry["must not fit"] = task.avoid[:1200]
        tasks.append(entry)
    return json.dumps({"tasks": tasks}, ensure_ascii=False, indent=1)


def _read_answer(text: str, ids: set[str], problems: list[str]) -> dict[str, str]:
    start, end = text.find("{"), text.rfind("}")
    try:
        data = json.loads(text[start:end + 1]) if start >= 0 else None
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("prompts"), dict):
        data = data["prompts"]
    if not isinstance(data, dict):
        problems.append(f"the model's answer was not a JSON object of prompts: {_one_line(text)[:120]!r}")
        return {}
    return {key: value for key, value in data.items() if key in ids and isinstance(value, str) and value.strip()}
