"""near-duplicate-operations: two tools a model cannot tell apart (the first cause of tool confusion).

Each operation is a bag of words (operationId split at case and separators, summary, description),
weighted by TF-IDF; pairs whose cosine similarity reaches the threshold are reported. Words in more than
a quarter of the operations carry almost no weight and are skipped when pairing, which keeps the pairing
near-linear on specs with a thousand operations."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

from workbench.lint.registry import Report, rule

_STOP = frozenset(("a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "be", "by", "with",
                   "this", "that", "it", "its", "as", "at", "from", "you", "your", "can", "will", "if", "all", "any"))
_COMMON_SHARE = 0.25


def _tokens(op) -> list[str]:
    text = " ".join(filter(None, (op.operation_id, op.summary, op.description)))
    words = re.split(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])", text)
    return [w.lower().rstrip("s") if len(w) > 3 else w.lower() for w in words if w and w.lower() not in _STOP]


def similar_pairs(operations, threshold: float) -> list[tuple[int, int, float]]:
    docs = [Counter(_tokens(op)) for op in operations]
    n = len(docs)
    df = Counter(token for doc in docs for token in doc)
    idf = {t: math.log((1 + n) / (1 + c)) + 1 for t, c in df.items()}
    vectors = []
    for doc in docs:
        weights = {t: (1 + math.log(c)) * idf[t] for t, c in doc.items()}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        vectors.append({t: w / norm for t, w in weights.items()})
    cap = max(2, int(_COMMON_SHARE * n)) if n > 8 else n
    postings: dict[str, list[int]] = defaultdict(list)
    for i, vector in enumerate(vectors):
        for token in vector:
            postings[token].append(i)
    pairs = []
    for i, vector in enumerate(vectors):
        candidates: set[int] = set()
        for token in vector:
            if df[token] <= cap:
                candidates.update(j for j in postings[token] if j > i)
        for j in candidates:
            other = vectors[j]
            score = sum(w * other.get(t, 0.0) for t, w in vector.items())
            if score >= threshold:
                pairs.append((i, j, score))
    return pairs


@rule("near-duplicate-operations", "warn", "scope", "two operations whose name and description are nearly the same")
def near_duplicate_operations(spec, context):
    operations = spec.operations
    threshold = context.config.threshold("similarity")
    for i, j, score in similar_pairs(operations, threshold):
        first, second = operations[i], operations[j]
        yield Report(f"{second.label()} reads almost the same as {first.label()} (similarity {score:.2f}): the "
                     "model will confuse them; say how they differ or drop one", second.origin.document,
                     second.origin.pointer)
