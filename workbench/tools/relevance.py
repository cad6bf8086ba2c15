"""Which tools a piece of text is about, offline: BM25 over each tool's words plus the static word-embedding
model that ships inside the `wordllama` wheel (nothing is downloaded, ever), combined into one score.

It serves the offline selection runner (how distinguishable the tools are for a suite's prompts),
`workbench tools --relevant-to` (seed 004's "index the operations and pick a few per turn by the task"), the
accuracy-against-tool-count distractors (the tools most like the expected ones) and the MCP server's dynamic
mode. It reads only the tool set, so it sits in the tools layer.

A tool's document is built from what tells near-identical operations apart: its name split into words, the
description, the path's segments (`/admin/users` is not `/users`), the method as intent words (a GET on an
item is a `get`, on a collection a `list`), and the parameters' names and descriptions at a lower weight.
Verbs are mapped onto five intents (get, list, create, update, delete) on both sides, so "remove" meets
"Delete"; the method's intent weighs less than the summary's verb, since some APIs POST to update or search.

One score per tool: 0.7 x BM25 as a fraction of what the request could score at most, 0.3 x the cosine of
the embeddings, plus 0.05 when the tool's intent is one the request asks for. It is absolute (comparable
across requests), which a threshold for "no tool" needs; z-scored sums and rank fusion, both relative to
the other tools, ranked about the same (within a case or two; bench/select_offline.py has the figures).
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import threading
import weakref
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from workbench.tools.model import TokenEstimate, Tool, ToolSet

# ---------------------------------------------------------------------------------------------- words

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")  # camelCase, PascalCase, ACRONYMS; digits are dropped
_STOP_WORDS = """
a an the of for to in on at by with from into onto about as and or but not no nor so if then than this that
these those it its is are was were be been being do does did done has have had having i me my we us our you
your he she they them their his her can could will would shall should may might must please want need like
just also only very some any each what when where who whom whose why how there here now again ok okay
"""
_STOP = frozenset(_STOP_WORDS.split())

# Verbs (and a few words that ask for one) on both sides of the match, mapped onto one intent token each.
_INTENT_WORDS = {
    "get": "get fetch retrieve read show view look see lookup detail details describe inspect display open pull",
    "list": "list lists all every everyone everything everybody browse enumerate search find query filter which",
    "create": "create add new register place post start begin issue generate submit enroll insert",
    "update": "update change modify edit set rename patch replace adjust switch raise lower point move toggle",
    "delete": "delete remove drop erase destroy purge unregister revoke unenroll rid",
}
_QUANTIFIERS = frozenset(("all", "every", "everyone", "everything", "everybody"))  # "show me all ...": a list
_INTENT = {word: f"@{intent}" for intent, words in _INTENT_WORDS.items() for word in words.split()}
# Phrasal verbs whose first word alone would say another thing ("get rid of" is no get).
_PHRASAL_GAP = 3  # the particle may follow the verb this many words on
_PHRASAL = {("set", "up"): "@create", ("sign", "up"): "@create", ("get", "rid"): "@delete",
            ("take", "off"): "@delete", ("take", "out"): "@delete", ("look", "up"): "@get", ("pull", "up"): "@get",
            ("find", "out"): "@get", ("turn", "on"): "@update", ("turn", "off"): "@update",
            ("switch", "on"): "@update", ("switch", "off"): "@update"}
_METHOD_INTENT = {"post": "@create", "put": "@update", "patch": "@update", "delete": "@delete"}


def words(text: str) -> list[str]:
    """Lower-case words of `text`: camelCase, snake_case, kebab-case and paths split, digits and
    one-letter pieces dropped."""
    return [w.lower() for w in _WORD.findall(text) if len(w) > 1]


def stem(word: str) -> str:
    """A light suffix stripper (plurals, -ing, -ed, a final e), enough to let "factors" meet "Factor" and
    "created" meet "Create" without a stemming library."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "xes", "ches", "shes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[:-len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "ls":
                word = word[:-1]  # "stopped" → "stop"
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def intents_of(found: Sequence[str]) -> list[str]:
    """The intent tokens of a list of words, in order; a phrasal verb counts once, as a whole, its particle
    next to it or a short object away ("take it off the list", "set the service up")."""
    intents: list[str] = []
    particles: set[int] = set()
    for i, word in enumerate(found):
        if i in particles:
            continue
        particle = next((j for j in range(i + 1, min(i + 1 + _PHRASAL_GAP, len(found)))
                         if (word, found[j]) in _PHRASAL), None)
        if particle is not None:
            intents.append(_PHRASAL[word, found[particle]])
            particles.add(particle)
        elif word in _INTENT:
            intents.append(_INTENT[word])
    return intents


def terms(text: str) -> list[str]:
    """The BM25 terms of `text`: stems of its words without stop words or quantifiers, plus an intent token
    for each verb."""
    found = [w for w in words(text) if w not in _QUANTIFIERS]  # "all" is in every other summary, and in "that's all"
    return [stem(w) for w in found if w not in _STOP] + intents_of(found)


# ----------------------------------------------------------------------------------------- documents

# How much each part of a tool's document counts (BM25 term frequencies are summed with these weights).
# The last literal path segment names the resource acted on (`/orders/{id}/refunds`: refunds), on top of
# its weight as a path segment; path parameters name the parents, and count little.
WEIGHTS = {"name": 2.0, "summary": 2.0, "description": 1.0, "path": 1.0, "resource": 1.5, "path-parameter": 0.3,
           "method": 0.5, "parameter": 0.5, "parameter-description": 0.2}
# The sentences `describe` appends for the model's care (tools/describe.py): about safety, not the task, and
# the same on every destructive tool, so they would make all of those look alike.
_SAFETY_FACTS = ("Deprecated: prefer another tool.", "Requires human approval before it runs.",
                 "Destructive: the change cannot be undone.")
_EMBEDDED_DESCRIPTION = 300  # characters of the description the embedding reads: the gist, not the details
_PARAMETER_DEPTH = 2  # nested body properties are read this far down


class Document(NamedTuple):
    """One tool as the scorer reads it: weighted BM25 terms and the text the embedding model reads."""

    name: str
    terms: tuple[tuple[str, float], ...]
    text: str
    intent: str = ""  # what the tool does to its resource: @get, @list, @create, @update, @delete


def document(tool: Tool) -> Document:
    op = tool.operation
    description = tool.description or ""
    summary = op.summary or ""
    if summary and description.startswith(summary):
        description = description[len(summary):]
    for fact in _SAFETY_FACTS:
        description = description.replace(fact, "")
    if description.strip() == op.label():
        description = ""  # the stand-in for a missing description says nothing the path does not
    segments = [s for s in op.path.split("/") if s]
    literal = [s for s in segments if not s.startswith(("{", ":"))]
    parameters = list(_parameters(tool.parameters, _PARAMETER_DEPTH))
    parts = [("name", " ".join(words(tool.name))), ("summary", summary), ("description", description),
             ("path", " ".join(literal)), ("resource", literal[-1] if literal else ""),
             ("path-parameter", " ".join(s.strip("{}:") for s in segments if s not in literal)),
             ("parameter", " ".join(name for name, _ in parameters)),
             ("parameter-description", " ".join(text for _, text in parameters))]
    weighted: Counter[str] = Counter()
    for field, text in parts:
        for term in terms(text):
            weighted[term] += WEIGHTS[field]
    weighted[_method_intent(op.method, op.path)] += WEIGHTS["method"]
    text = ". ".join(t for t in (" ".join(words(tool.name)), summary, description[:_EMBEDDED_DESCRIPTION],
                                 " ".join(words(" ".join(literal)))) if t.strip())
    return Document(tool.name, tuple(sorted(weighted.items())), text,
                    tool_intent(tool.name, summary, op.method, op.path))


def tool_intent(name: str, summary: str, method: str, path: str) -> str:
    """The first intent verb of the name, else of the summary, else the method's (a GET on an item reads
    it, on a collection lists): the words win, since some APIs POST to update or to search; but a "get"
    on a collection lists it."""
    by_method = _method_intent(method, path)
    for text in (name, summary):
        found = intents_of(words(text)[:3])
        if found:
            return "@list" if found[0] == "@get" and by_method == "@list" else found[0]  # "get-bookings" lists
    return by_method


_QUESTION = re.compile(r"^\s*(is|are|was|were|did|does|do|has|have|what|which|who|how|where|when|why)\b|\?\s*$",
                       re.IGNORECASE)


def query_intents(text: str) -> dict[str, float]:
    """The intents a request asks for, weighted: its first intent verb fully, later ones by half (an
    imperative starts with its verb; "new" further on qualifies it); "all" or "every" asks for a list, fully
    after a reading verb. A question asks to read: one thing (get) or, when it names things in the plural,
    several (list); its verbs count by half."""
    found: dict[str, float] = {}
    every = [w for w in words(text) if w not in _QUANTIFIERS]
    for i, intent in enumerate(intents_of(every)):
        found.setdefault(intent, 1.0 if i == 0 else 0.5)
    if len(every) < len(words(text)):  # "all" or "every": no verb by itself ("that's all"), but it asks for many
        if found.get("@get") == 1.0:
            found["@get"] = 0.5  # "show me every user" reads many
        found["@list"] = max(found.get("@list", 0.0), 1.0 if "@get" in found else 0.5)
    if _QUESTION.search(text):
        plural = any(w.endswith("s") and stem(w) != w and w not in _STOP for w in words(text))
        found = {intent: weight / 2 for intent, weight in found.items()}
        found["@list"] = max(found.get("@list", 0.0), 1.0 if plural else 0.5)
        found["@get"] = max(found.get("@get", 0.0), 0.5 if plural else 1.0)
    return found


def _method_intent(method: str, path: str) -> str:
    """A GET on an item (the path ends in a parameter) reads one thing; on a collection, it lists."""
    if method.lower() == "get":
        return "@get" if path.rstrip("/").endswith("}") else "@list"
    return _METHOD_INTENT.get(method.lower(), "@get")


def _parameters(schema: Any, depth: int) -> Iterable[tuple[str, str]]:
    """(name, description) of every property, nested ones `depth` levels down."""
    if not isinstance(schema, dict) or depth <= 0:
        return
    for name, sub in (schema.get("properties") or {}).items():
        if not isinstance(sub, dict):
            continue
        yield name, str(sub.get("description") or "")
        yield from _parameters(sub, depth - 1)
        yield from _parameters(sub.get("items"), depth - 1)


# -------------------------------------------------------------------------------------------- BM25

class BM25:
    """Okapi BM25 over weighted term frequencies. Small corpora (a catalogue's tools) need nothing more."""

    def __init__(self, docs: Sequence[Iterable[tuple[str, float]]], k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.n = len(docs)
        self.postings: dict[str, list[tuple[int, float]]] = {}
        self.lengths = [0.0] * self.n
        for i, doc in enumerate(docs):
            for term, tf in doc:
                self.postings.setdefault(term, []).append((i, tf))
                self.lengths[i] += tf
        self.average = (sum(self.lengths) / self.n) if self.n else 1.0
        self.idf = {t: self._idf(len(p)) for t, p in self.postings.items()}
        self.unseen_idf = self._idf(0)  # a word no tool has is as specific as a word can be

    def _idf(self, frequency: int) -> float:
        return math.log(1 + (self.n - frequency + 0.5) / (frequency + 0.5))

    def scores(self, query: Iterable[str]) -> tuple[list[float], float]:
        """Every document's score, and the most any document could score (every term saturated), which
        makes scores comparable across queries: off-topic words count against the query."""
        scores = [0.0] * self.n
        ceiling = 0.0
        for term in set(query):
            idf = self.idf.get(term, self.unseen_idf)
            ceiling += idf * (self.k1 + 1)
            for i, tf in self.postings.get(term, ()):
                norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.average)
                scores[i] += idf * tf * (self.k1 + 1) / (tf + norm)
        return scores, ceiling


# --------------------------------------------------------------------------------------- embeddings

class ModelUnavailable(RuntimeError):
    """The bundled embedding model could not be loaded (wordllama missing, or its wheel without the files)."""


_MODEL_LOCK = threading.Lock()
_MODEL: Any = None
MODEL_NAME = "wordllama l2_supercat_256 (bundled in the wheel)"


def model() -> Any:
    """The wordllama model, loaded once from the files inside its own wheel. Its default loader looks for
    the tokenizer under `tokenizer/` while the wheel has `tokenizers/` and would then download it; pointing
    `cache_dir` at the package folder with downloads disabled finds both. Importing it configures the root
    logger (`logging.basicConfig(level=INFO)` in `wordllama.inference`), which would make every library's
    INFO lines appear: the logger is put back as it was."""
    global _MODEL
    with _MODEL_LOCK:
        if _MODEL is None:
            root = logging.getLogger()
            handlers, level = list(root.handlers), root.level
            try:
                import wordllama
                from wordllama import WordLlama

                _MODEL = WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
            except (ImportError, OSError, ValueError) as exc:  # FileNotFoundError: the wheel lacks its files
                raise ModelUnavailable(f"the offline relevance model (wordllama's bundled l2_supercat_256) "
                                       f"could not be loaded: {exc}") from exc
            finally:
                root.handlers[:] = handlers
                root.setLevel(level)
        return _MODEL


class EmbeddingProcess:
    """The embedding model in a process of its own, asked for vectors over a pipe. Loading the model holds the
    interpreter lock for 0.3–0.5 s at a time (the tokenizer's file is read in native code, the weights cast), so a
    window that ranked offline on a worker thread froze that long on its first run; in a process of its own it
    competes with nothing. The vectors are the same: the same `model()` computes them there."""

    def __init__(self) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")  # never a fork of a process with a GUI's threads
        self._connection, child = context.Pipe()
        self.process = context.Process(target=_serve_embeddings, args=(child,), name="workbench-embeddings",
                                       daemon=True)
        self.process.start()
        child.close()
        self._lock = threading.Lock()  # one question at a time on the pipe

    def vectors(self, texts: Sequence[str]) -> Any:
        with self._lock:
            try:
                self._connection.send(list(texts))
                kind, value = self._connection.recv()
            except (EOFError, OSError) as exc:
                raise ModelUnavailable(f"the offline relevance model's process ended (exit "
                                       f"{self.process.exitcode}): {exc or type(exc).__name__}") from exc
        if kind == "unavailable":
            raise ModelUnavailable(value)
        return value

    def close(self) -> None:
        """Close the pipe (the process ends when it reads the end of it) and wait for it."""
        self._connection.close()
        self.process.join(5)


def _serve_embeddings(connection: Any) -> None:
    """In the embedding process: vectors for every list of texts asked for, until the pipe closes."""
    while True:
        try:
            texts = connection.recv()
        except (EOFError, OSError):
            return
        try:
            answer = ("vectors", model().embed(texts, norm=False))
        except ModelUnavailable as exc:
            answer = ("unavailable", str(exc))
        connection.send(answer)


_IN_OWN_PROCESS = False
_CHILD: EmbeddingProcess | None = None


def embed_in_own_process() -> None:
    """From now on, this process's embeddings are computed in a process of their own, started when they are
    first needed (the desktop workbench asks for it, so that loading the model never holds its interpreter
    lock)."""
    global _IN_OWN_PROCESS
    _IN_OWN_PROCESS = True


def _embedding_process() -> EmbeddingProcess:
    """The embedding process: started on first use, and again if it has ended."""
    global _CHILD
    with _MODEL_LOCK:
        if _CHILD is None or not _CHILD.process.is_alive():
            if _CHILD is not None:
                _CHILD.close()  # an ended process: its end of the pipe, and the process entry, are let go
            _CHILD = EmbeddingProcess()
        return _CHILD


def embedding_text(text: str) -> str:
    """What the embedding model reads of a request: its words without stop words, identifiers and numbers
    (an average over tokens is diluted by `ff483d1ff591`'s pieces and by "the")."""
    return " ".join(w for w in words(text) if w not in _STOP) or text


def embed(texts: Sequence[str]) -> Any:
    """Unit vectors, one row per text (a zero row for a text with no known token)."""
    import numpy as np

    if not texts:
        return np.zeros((0, 256), dtype=np.float32)
    vectors = _embedding_process().vectors(texts) if _IN_OWN_PROCESS else model().embed(list(texts), norm=False)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


# -------------------------------------------------------------------------------------------- index

BM25_SHARE = 0.7  # the combined score: this much of BM25's fraction of its ceiling, the rest the cosine
INTENT_BONUS = 0.05  # added when the tool's intent is one the request asks for (times that intent's weight)


class Ranked(NamedTuple):
    name: str
    score: float  # the combined score the ranking follows (comparable across queries: thresholds apply)
    bm25: float  # BM25 as a fraction of what the query could score at most
    embedding: float  # cosine similarity between the query's and the tool's embeddings
    intent: float = 0.0  # how much the tool's intent is one the request asks for (0..1)


class ToolIndex:
    """The documents of one tool set, their BM25 statistics and embeddings. Build it with `ToolIndex.of`,
    which keeps the last few indexes by content, so a run does not re-embed the same tools."""

    def __init__(self, docs: Sequence[Document]):
        self.docs = list(docs)
        self.names = [d.name for d in self.docs]
        self.position = {name: i for i, name in enumerate(self.names)}
        self.bm25 = BM25([d.terms for d in self.docs])
        self.vectors = embed([d.text for d in self.docs])

    @classmethod
    def of(cls, toolset: ToolSet | Sequence[Tool]) -> ToolIndex:
        """The index of these tools: the same object's again at once (a per-turn caller such as the MCP
        server's dynamic mode pays nothing), else one of the same content, else a new one."""
        if isinstance(toolset, ToolSet):
            known = _by_identity(toolset)
            if known is not None:
                return known
        tools = toolset.tools if isinstance(toolset, ToolSet) else toolset
        index = cls.from_documents([document(t) for t in tools])
        if isinstance(toolset, ToolSet):
            _remember_identity(toolset, index)
        return index

    @classmethod
    def from_documents(cls, docs: Sequence[Document]) -> ToolIndex:
        key = hashlib.sha256(repr([(d.name, d.terms, d.text) for d in docs]).encode()).hexdigest()
        return _cached(key, lambda: cls(docs))

    def rank(self, query: str, among: Iterable[str] | None = None) -> list[Ranked]:
        """The tools (all, or those named in `among`) best first for `query`; ties keep the set's order."""
        chosen = self._chosen(among)
        bm25, ceiling = self.bm25.scores(terms(query))
        cosine = (self.vectors @ embed([embedding_text(query)])[0]).tolist() if chosen else []
        intents = query_intents(query)
        ranked = [_ranked(self.names[i], bm25[i] / ceiling if ceiling else 0.0, cosine[i],
                          intents.get(self.docs[i].intent, 0.0)) for i in chosen]
        return sorted(ranked, key=lambda r: -r.score)

    def similar(self, name: str, among: Iterable[str] | None = None) -> list[Ranked]:
        """The other tools (all, or those in `among`) most like tool `name`, best first: its own document's
        terms as the BM25 query and its embedding as the vector."""
        me = self.position[name]
        chosen = [i for i in self._chosen(among) if i != me]
        bm25, ceiling = self.bm25.scores([term for term, _ in self.docs[me].terms])
        cosine = (self.vectors @ self.vectors[me]).tolist()
        ranked = [_ranked(self.names[i], bm25[i] / ceiling if ceiling else 0.0, cosine[i]) for i in chosen]
        return sorted(ranked, key=lambda r: -r.score)

    def _chosen(self, among: Iterable[str] | None) -> list[int]:
        if among is None:
            return list(range(len(self.names)))
        return sorted(self.position[n] for n in set(among) if n in self.position)


def _ranked(name: str, bm25: float, cosine: float, intent: float = 0.0) -> Ranked:
    intent = intent if bm25 > 0 else 0.0  # a verb that meets none of the tool's words says nothing about it
    return Ranked(name, BM25_SHARE * bm25 + (1 - BM25_SHARE) * cosine + INTENT_BONUS * intent, bm25, cosine, intent)


_CACHE_LOCK = threading.Lock()
_CACHE: OrderedDict[str, ToolIndex] = OrderedDict()
_CACHE_SIZE = 8
# id(toolset) → (a weak reference to it, its tool names, its index): a tool set is not hashable
_IDENTITY: OrderedDict[int, tuple[weakref.ref, tuple[str, ...], ToolIndex]] = OrderedDict()


def _by_identity(toolset: ToolSet) -> ToolIndex | None:
    with _CACHE_LOCK:
        entry = _IDENTITY.get(id(toolset))
    if entry is None or entry[0]() is not toolset or entry[1] != tuple(t.name for t in toolset.tools):
        return None
    return entry[2]


def _remember_identity(toolset: ToolSet, index: ToolIndex) -> None:
    with _CACHE_LOCK:
        _IDENTITY[id(toolset)] = (weakref.ref(toolset), tuple(t.name for t in toolset.tools), index)
        while len(_IDENTITY) > _CACHE_SIZE:
            _IDENTITY.popitem(last=False)


def _cached(key: str, build: Any) -> ToolIndex:
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    index = build()  # outside the lock: two threads may build the same index once each, never block on it
    with _CACHE_LOCK:
        _CACHE[key] = index
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return index


# ------------------------------------------------------------------------------------------ helpers

def relevant(toolset: ToolSet, query: str, top: int) -> list[Tool]:
    """The `top` tools of the set that best match `query`, best first."""
    ranked = ToolIndex.of(toolset).rank(query)[:max(0, top)]
    return [toolset.tool(r.name) for r in ranked]  # type: ignore[misc]


def narrowed(toolset: ToolSet, names: Sequence[str]) -> ToolSet:
    """The tool set with only the tools `names`, in that order, their native objects, warnings and token
    counts (the fixed overhead stays; what scope left out stays listed as left out)."""
    position = {t.name: i for i, t in enumerate(toolset.tools)}
    kept = [position[n] for n in dict.fromkeys(names) if n in position]
    chosen = {toolset.tools[i].name for i in kept}

    def tokens(counter: Any = None) -> TokenEstimate:  # counted when asked for, as the whole set's are
        whole = toolset.count_tokens(counter)
        per_tool = {toolset.tools[i].name: whole.per_tool.get(toolset.tools[i].name, 0) for i in kept}
        overhead = whole.overhead if kept else 0
        return TokenEstimate(sum(per_tool.values()) + overhead, per_tool, overhead, whole.method)

    return ToolSet(toolset.vendor, toolset.spec_sha256, [toolset.tools[i] for i in kept],
                   [toolset.native[i] for i in kept], list(toolset.rejected),
                   [w for w in toolset.warnings if not w.tool or w.tool in chosen], tokens)


def similar_tools(toolset: ToolSet | Sequence[Tool], names: Sequence[str], k: int) -> list[str]:
    """Up to `k` other tools most like the tools `names`, most similar first: each named tool's nearest
    neighbours taken in turn (its first, then the next one's first, ...), so every expected tool gets its
    closest rivals whatever `k` is. A prefix of the answer is the answer for a smaller `k`."""
    index = ToolIndex.of(toolset)
    given = [n for n in dict.fromkeys(names) if n in index.position]
    queues = [[r.name for r in index.similar(n)] for n in given]
    found: list[str] = []
    seen = set(given)
    while len(found) < k and any(queues):
        for queue in queues:
            while queue and queue[0] in seen:
                queue.pop(0)
            if queue and len(found) < k:
                seen.add(queue[0])
                found.append(queue.pop(0))
    return found
