"""near-duplicate-operations: two tools a model cannot tell apart (the first cause of tool confusion).

Each operation is a bag of words (operationId split at case and separators, summary, description),
weighted by TF-IDF; pairs of the same kind (method, and list or single result) whose cosine similarity
reaches the threshold are reported, once per operation. Scoring is exact; `similar_pairs` prunes the pairs
that cannot reach the threshold, which keeps a thousand-operation spec in tens of milliseconds."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from itertools import chain, compress, repeat
from operator import mul, not_, truediv

from workbench.lint.registry import Report, rule
from workbench.lint.rules.responses import returns_list
from workbench.naming import split_words

_STOP = frozenset(("a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "be", "by", "with",
                   "this", "that", "it", "its", "as", "at", "from", "you", "your", "can", "will", "if", "all", "any"))


def _token(word: str) -> str | None:
    """A word's token: lower case, a plural's `s` dropped; None for a stop word."""
    lowered = word.lower()
    if lowered in _STOP:
        return None
    return lowered.rstrip("s") if len(word) > 3 else lowered


class _Tokens(dict):
    """word → `_token(word)`, filled as words are met: a big spec's descriptions repeat a few thousand words a
    hundred thousand times, and a word seen before is looked up in C."""

    def __missing__(self, word: str) -> str | None:
        if len(self) > 1 << 16:
            self.clear()
        token = self[word] = _token(word)
        return token


_TOKENS = _Tokens()


def _mapped(words: list[str]) -> map:
    """`_token` of each word (None for a stop word)."""
    return map(_TOKENS.__getitem__, words)


def _token_counts(operations) -> list[Counter[str]]:
    """Each operation's tokens counted, in the order of their first occurrence: those of its operationId, summary
    and description joined by spaces.

    The text's words are its operationId's and summary's, then its description's: no word spans the space
    that joins them (a word's look-ahead sees the space as it sees the end of a text), so the description is
    split once per distinct text (EC2 describes each action twice, once for GET and once for POST)."""
    described: dict[str, list[str | None]] = {}
    counts = []
    for op in operations:
        head = op.operation_id, op.summary
        words = _mapped(split_words(" ".join(filter(None, head))))
        description = op.description
        if description:
            tokens = described.get(description)
            if tokens is None:
                tokens = described[description] = list(_mapped(split_words(description)))
            count = Counter(chain(words, tokens))
        else:
            count = Counter(words)
        count.pop(None, None)  # the stop words (ordered where first met, the other tokens keep their order)
        counts.append(count)
    return counts


def similar_pairs(operations, threshold: float, kinds: list | None = None) -> list[tuple[int, int, float]]:
    """Pairs (i, j, score), i < j, of operations of the same kind (default: the same method) whose texts
    reach `threshold` cosine similarity.

    Exact, but pruned: within a kind, a word shared by many operations is "common". The common words'
    contribution to a dot product is at most the product of the two vectors' common-part norms (Cauchy-
    Schwarz), so only pairs whose rare-word overlap plus that bound can reach the threshold are scored."""
    vectors = _tfidf_vectors(operations)
    groups: dict[object, list[int]] = defaultdict(list)
    for i, kind in enumerate(kinds or [op.method for op in operations]):
        groups[kind].append(i)
    pairs = [pair for members in groups.values() for pair in _pairs_within(members, vectors, threshold)]
    pairs.sort()
    return pairs


def _tfidf_vectors(operations) -> list[dict[str, float]]:
    """Each operation's words, TF-IDF weighted (log term frequency), as a unit vector.

    Each weight is `(1 + log count) * idf` (for a word met once that is idf exactly), the norm the sum of the
    squares in the vector's order: the same floats as a loop over each vector would make, computed in C."""
    docs = _token_counts(operations)
    n = len(docs)
    df = Counter(chain.from_iterable(docs))  # one per document holding the token
    idf = {t: math.log((1 + n) / (1 + c)) + 1 for t, c in df.items()}
    top = max(chain.from_iterable(map(dict.values, docs)), default=1)
    tf = [0.0, 1.0, *(1 + math.log(c) for c in range(2, top + 1))]
    vectors = []
    for doc in docs:
        weights = list(map(mul, map(tf.__getitem__, doc.values()), map(idf.__getitem__, doc)))
        norm = math.sqrt(sum(map(mul, weights, weights))) or 1.0
        vectors.append(dict(zip(doc, map(truediv, weights, repeat(norm)), strict=True)))
    return vectors


_SLACK = 1e-9  # far above the rounding of a sum of a few hundred products of unit-vector weights


def _pairs_within(members: list[int], vectors: list[dict[str, float]],
                  threshold: float) -> list[tuple[int, int, float]]:
    """The pairs of one kind that reach `threshold`, scoring only those the bound lets through.

    The bounds are summed in other orders than the score, hence the slack: a pair whose score reaches the
    threshold always passes them. Operations are taken last first, each meeting through the rare words'
    postings only the later ones already posted."""
    if len(members) < 2:
        return []
    group_df = Counter(chain.from_iterable(map(vectors.__getitem__, members)))
    cap = max(3, len(members) // 20)
    rare = {t: c <= cap for t, c in group_df.items()}  # a rare word is in at most `cap` of the kind
    rare_items, common_norm = _split_rare(members, vectors, rare)
    limit = threshold - _SLACK
    heavy = [i for i in members if common_norm[i] >= limit]  # may match on common words alone
    heavy_overlap = _common_overlaps(heavy, vectors, rare)
    postings: defaultdict[str, list[tuple[int, float]]] = defaultdict(list)  # rare word → later (j, weight)
    pairs = []
    for i in reversed(members):
        partial: defaultdict[int, float] = defaultdict(float)
        for token, weight in rare_items[i]:
            posting = postings[token]
            for j, other in posting:
                partial[j] += weight * other
            posting.append((i, weight))
        norm = common_norm[i]
        candidates = [j for j, p in partial.items() if p + norm * common_norm[j] >= limit]
        if norm >= limit:
            # rare plus common overlap: a heavy pair far below the threshold is not scored (Kubernetes has 140
            # heavy GETs, ten thousand such pairs)
            overlap = heavy_overlap[i]
            candidates = {*candidates, *(j for j in heavy
                                         if j > i and partial.get(j, 0.0) + overlap.get(j, 0.0) >= limit)}
        vector = vectors[i]
        get = vector.__getitem__
        for j in candidates:
            other = vectors[j]
            shared = vector.keys() & other.keys()
            score = sum(map(mul, map(get, shared), map(other.__getitem__, shared)))
            if score >= threshold:
                pairs.append((i, j, score))
    return pairs


def _common_overlaps(heavy: list[int], vectors: list[dict[str, float]],
                     rare: dict[str, bool]) -> dict[int, dict[int, float]]:
    """For each heavy operation i, its dot product over the common words with each later heavy j that shares
    one, through the common words' postings (a fraction of scoring every pair)."""
    common = {i: list(compress(vectors[i].items(), map(not_, map(rare.__getitem__, vectors[i])))) for i in heavy}
    postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for i in heavy:
        for token, weight in common[i]:
            postings[token].append((i, weight))
    overlaps: dict[int, dict[int, float]] = {}
    for i in heavy:
        overlap = overlaps[i] = defaultdict(float)
        for token, weight in common[i]:
            for j, other in postings[token]:
                if j > i:
                    overlap[j] += weight * other
    return overlaps


def _split_rare(members: list[int], vectors: list[dict[str, float]],
                rare: dict[str, bool]) -> tuple[dict[int, list[tuple[str, float]]], dict[int, float]]:
    """Each operation's rare words with their weights, in the vector's order, and its norm over the common
    words."""
    rare_items: dict[int, list[tuple[str, float]]] = {}
    common_norm: dict[int, float] = {}
    for i in members:
        vector = vectors[i]
        flags = list(map(rare.__getitem__, vector))
        rare_items[i] = list(compress(vector.items(), flags))
        weights = list(compress(vector.values(), map(not_, flags)))
        common_norm[i] = math.sqrt(sum(map(mul, weights, weights)))
    return rare_items, common_norm


def _resource(path: str) -> str:
    statics = [s.lower() for s in path.split("/") if s and not s.startswith("{")]
    return statics[-1] if statics else ""


def different_resources(first: str, second: str) -> bool:
    """Two paths about different things, however alike their texts: one reaches below an item of the other
    with a parameter of its own (a list and its item, `/discussions/{n}` and `/discussions/{n}/comments/{c}`),
    or, neither extending the other, they name different resources (`/ingresses/{name}`,
    `/ingressclasses/{name}`). A static extension (`/orders/{id}/details`, `…/status`) is a view of the same
    item: a real twin."""
    a, b = (first, second) if len(first) <= len(second) else (second, first)
    if b.startswith(a.rstrip("/") + "/"):
        return "{" in b[len(a):]
    return _resource(first) != _resource(second)


@rule("near-duplicate-operations", "warn", "scope", "two operations whose name and description are nearly the same",
      fix="Say in each description what sets it apart from the other (what it returns, when to use it instead), "
          "or remove one if they do the same thing.")
def near_duplicate_operations(spec, context):
    operations = spec.operations
    threshold = context.config.threshold("similarity")
    matches: dict[int, list[tuple[float, int]]] = defaultdict(list)
    # A DELETE is not mistaken for a GET, nor a list for one item: the verb and the result's shape tell them apart.
    kinds = [(op.method, returns_list(spec, op)) for op in operations]
    for i, j, score in similar_pairs(operations, threshold, kinds):
        if different_resources(operations[i].path, operations[j].path):
            continue
        matches[j].append((score, i))  # reported on the later one, once, naming its closest twin
    for j in sorted(matches):
        score, i = max(matches[j])
        first, second = operations[i], operations[j]
        more = len(matches[j]) - 1
        also = f" and {more} other{'s' if more > 1 else ''}" if more else ""
        yield Report(f"{second.label()} reads almost the same as {first.label()} (similarity {score:.2f}){also}: "
                     "the model will confuse them: say in each description when to use it rather than the other, "
                     "or drop one", second.origin.document, second.origin.pointer)
