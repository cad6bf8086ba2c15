"""near-duplicate-operations: the pruned, C-level computation against a straightforward one.

The reference tokenises each operation's joined text word by word, weights each vector in a loop and scores
every pair of a kind: the rule must find the same pairs with the same scores (to the last bit), and the
same vectors, in the same order."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import NamedTuple

import pytest

from workbench.lint.rules import similarity
from workbench.lint.rules.similarity import _token, _token_counts, similar_pairs
from workbench.naming import split_words


class Op(NamedTuple):
    operation_id: str | None
    summary: str | None
    description: str | None
    method: str = "get"


def reference_tokens(op) -> list[str]:
    """The operation's joined text split word by word, each word's token kept unless it is a stop word."""
    text = " ".join(filter(None, (op.operation_id, op.summary, op.description)))
    return [token for token in map(_token, split_words(text)) if token is not None]


def reference_vectors(operations) -> list[dict[str, float]]:
    docs = [Counter(reference_tokens(op)) for op in operations]
    n = len(docs)
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(doc.keys())
    idf = {t: math.log((1 + n) / (1 + c)) + 1 for t, c in df.items()}
    vectors = []
    for doc in docs:
        weights = {t: (1 + math.log(c)) * idf[t] for t, c in doc.items()}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        vectors.append({t: w / norm for t, w in weights.items()})
    return vectors


def reference_pairs(operations, threshold, kinds):
    vectors = reference_vectors(operations)
    pairs = []
    for i in range(len(operations)):
        for j in range(i + 1, len(operations)):
            if kinds[i] == kinds[j]:
                a, b = vectors[i], vectors[j]
                score = sum(a[t] * b[t] for t in a.keys() & b.keys())
                if score >= threshold:
                    pairs.append((i, j, score))
    return pairs


COMMON = ["list", "get", "create", "update", "delete", "order", "orders", "item", "items", "user", "users", "account",
          "the", "of", "a", "for", "Returns"]
RARE = [f"{w}{k}" for w in ("widget", "Gadget", "HTTPServer", "pipeline", "reportId", "v2", "ssss")
        for k in ("", "s", "Alpha", "Beta", "9")]


def generated(rng: random.Random, count: int) -> tuple[list[Op], list[object]]:
    """Operations of a few kinds, some close twins, some sharing only common words, descriptions repeated."""
    descriptions = [None, "", " ".join(rng.choices(COMMON + RARE, k=40))]
    operations, kinds = [], []
    for n in range(count):
        if operations and rng.random() < 0.25:  # a near twin of an earlier operation
            twin = rng.choice(operations)
            words = (twin.summary or "").split() or ["order"]
            words[rng.randrange(len(words))] = rng.choice(RARE)
            op = Op(f"{twin.operation_id}X{n}", " ".join(words), twin.description, twin.method)
        else:
            summary = " ".join(rng.choices(COMMON if rng.random() < 0.3 else COMMON + RARE, k=rng.randint(0, 9)))
            if rng.random() < 0.4:
                description = rng.choice(descriptions)
            else:
                description = " ".join(rng.choices(COMMON + RARE, k=rng.randint(0, 60)))
                descriptions.append(description)
            op_id = rng.choice([None, "", f"get{rng.choice(RARE).capitalize()}", f"listOrders{n}", f"HTTP{n}Get"])
            op = Op(op_id, summary or rng.choice([None, ""]), description, rng.choice(["get", "get", "post", "put"]))
        operations.append(op)
        kinds.append((op.method, n % 3 == 0))
    return operations, kinds


@pytest.mark.parametrize("seed", range(6))
def test_vectors_and_pairs_match_a_straightforward_computation(seed):
    rng = random.Random(seed)
    operations, kinds = generated(rng, rng.choice([40, 150, 400]))
    vectors = similarity._tfidf_vectors(operations)
    expected = reference_vectors(operations)
    assert [list(v.items()) for v in vectors] == [list(v.items()) for v in expected]
    for threshold in (0.2, 0.5, 0.7, 0.85, 0.95, 1.0):
        assert similar_pairs(operations, threshold, kinds) == reference_pairs(operations, threshold, kinds)
    methods = [op.method for op in operations]
    assert similar_pairs(operations, 0.6) == reference_pairs(operations, 0.6, methods)


def test_pairs_found_on_common_words_alone():
    # a kind of 100 operations where every word is common (in more than 5 of them): only the heavy path finds them
    rng = random.Random(7)
    operations = [Op(None, " ".join(rng.choices(COMMON[:6], k=4)), None) for _ in range(100)]
    kinds = ["get"] * len(operations)
    for threshold in (0.5, 0.9, 1.0):
        expected = reference_pairs(operations, threshold, kinds)
        assert expected and similar_pairs(operations, threshold, kinds) == expected


def test_token_counts_are_those_of_the_joined_text_in_order():
    # the description is tokenised apart from the operationId and summary (and once per distinct text): the same
    # tokens, counted, in the order of first occurrence, as splitting the joined text
    rng = random.Random(11)
    operations, _ = generated(rng, 300)
    operations += [Op("getX", "Yz", "ABc"), Op("listHTTP", "Server", None), Op(None, None, "SSSS the of"),
                   Op("", "", ""), Op(None, None, None), Op("a", None, "A"), Op("ordersV2", "V2Orders", "orders")]
    counts = _token_counts(operations)
    assert [list(c.items()) for c in counts] == [list(Counter(reference_tokens(op)).items()) for op in operations]


def test_words_of_joined_texts_are_the_words_of_each():
    rng = random.Random(5)
    alphabet = "aAbBzZ09 _-.sS"
    for _ in range(5000):
        first, second = ("".join(rng.choices(alphabet, k=rng.randint(0, 8))) for _ in range(2))
        assert split_words(f"{first} {second}") == split_words(first) + split_words(second), (first, second)


def test_token_table_cleared_when_full_gives_the_same_tokens(monkeypatch):
    table = similarity._Tokens((f"junk{n}", None) for n in range((1 << 16) + 1))
    monkeypatch.setattr(similarity, "_TOKENS", table)
    operations = [Op("getOrders", "List the orders", "Orders of a user"), Op("getOrder", None, "Orders")]
    assert [list(c.items()) for c in _token_counts(operations)] == [list(Counter(reference_tokens(op)).items())
                                                                  for op in operations]
    assert len(table) < 100


def test_a_kind_of_one_has_no_pairs():
    operations = [Op("getOrder", "Get an order", "The order"), Op("getOrder2", "Get an order", "The order", "post")]
    assert similar_pairs(operations, 0.1) == []
