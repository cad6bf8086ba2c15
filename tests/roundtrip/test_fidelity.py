"""A tool call the model can make is a request the spec accepts, judged by a judge we did not write.

For each corpus file and the vendors below, argument sets generated valid against the TOOL's schema (3 per
tool, plus a required-only set) go through the real executor to a capture server on 127.0.0.1, and
openapi-core judges each wire request against the ORIGINAL document (Swagger 2.0 converted by
swagger2openapi), with the values it decoded compared with what was sent (workbench/roundtrip/run.py).

Asserted, by the round trip's own classification: no call raises, the executor refuses no set its tool
schema allows (a conversion loss), the judge accepts every request and reads back what was sent (else an
executor bug) — except what `KNOWN` lists with its reason (each entry must still be needed). Sets the
generator made outside the tool's schema (generator dialect) and what the judge cannot read (its limits,
workbench/roundtrip/oracle.py `LIMITS`) are counted apart, never as accepted.
The whole corpus is a sweep (`make test-corpus`); one large file stays in the default run.
"""

from __future__ import annotations

import fnmatch
import json
from collections import Counter

import pytest

from tests.catalogue import GITHUB, corpus_file, corpus_names, judged_document
from workbench.config import WorkbenchConfig
from workbench.roundtrip import run
from workbench.roundtrip.suite import RoundTripOptions, run_roundtrip
from workbench.spec import load_spec
from workbench.tools.options import ToolOverrides, build_toolset

VENDORS = {"openai": ToolOverrides(vendor="openai"), "openai-strict": ToolOverrides(vendor="openai", strict=True),
           "anthropic": ToolOverrides(vendor="anthropic")}
LIMIT = 60  # operations per file in the sweep

# (file, vendor glob, tool glob, classification) → why such an attempt fails: the spec contradicts itself,
# the judge reads the spec otherwise, or a loss not fixed yet (said so). An entry for one vendor must match
# an attempt of that vendor's run (kept honest); "*" entries cover every vendor.
KNOWN: dict[tuple[str, str, str, str], str] = {}


def sweep(name: str, vendor: str, limit: int) -> tuple[Counter, list[str], set]:
    path = corpus_file(name)
    spec = load_spec(path)
    toolset = build_toolset(spec, WorkbenchConfig(), VENDORS[vendor])
    toolset.tools = toolset.tools[:limit]
    counts: Counter = Counter()
    failures, used = [], set()
    for attempt in run.captured_attempts(spec, toolset, judged_document(path), count=3, budget_s=10):  # as bench
        counts[attempt.classification] += 1
        if attempt.classification not in run.FAILING:
            continue
        known = next((key for key in KNOWN if key[0] == name and fnmatch.fnmatchcase(vendor, key[1])
                      and key[3] == attempt.classification and fnmatch.fnmatchcase(attempt.tool, key[2])), None)
        if known:
            used.add(known)
            continue
        failures.append(f"{attempt.classification} ({attempt.outcome}) {attempt.tool} [{attempt.kind}] "
                        f"{attempt.arguments!r:.300}\n    "
                        + attempt.request.replace("\n", "\n    ")[:800] + "\n    => "
                        + "\n    => ".join(d[:500] for d in [*attempt.oracle, *attempt.detail]))
    return counts, failures, used


def _check(name: str, vendor: str, limit: int) -> None:
    counts, failures, used = sweep(name, vendor, limit)
    assert counts[run.PASSED] or not sum(counts.values()), f"{name} {vendor}: nothing passed ({dict(counts)})"
    assert not failures, f"{name} {vendor}: {len(failures)} of {sum(counts.values())} not accepted " \
                         f"({dict(counts)}):\n" + "\n".join(failures[:15])
    stale = [key for key in KNOWN if key[:2] == (name, vendor) and key not in used]
    assert not stale, f"KNOWN entries no longer needed: {stale}"


def test_a_large_file_round_trips_through_the_judge() -> None:
    _check(GITHUB, "openai-strict", 20)


def _corpus() -> list[str]:
    return corpus_names()


@pytest.mark.corpus_sweep
@pytest.mark.parametrize("vendor", list(VENDORS))
@pytest.mark.parametrize("name", _corpus())
def test_every_corpus_file_round_trips_through_the_judge(name: str, vendor: str) -> None:
    _check(name, vendor, LIMIT)


MEDIUM = 2_000_000  # bytes: the round trip against the mock covers the small and medium corpus files (Box is medium)


def _small_and_medium() -> list[str]:
    return [name for name in _corpus() if corpus_file(name).stat().st_size <= MEDIUM]


@pytest.mark.corpus_sweep
@pytest.mark.parametrize("name", _small_and_medium())
def test_every_small_and_medium_corpus_file_round_trips_through_the_mock(name: str, tmp_path) -> None:
    """`workbench roundtrip` as a user runs it (openai tools, the mock, the judge): every failure classified,
    and none a conversion loss or an executor bug unless `KNOWN` says why."""
    path = corpus_file(name)
    spec = load_spec(path)
    toolset = build_toolset(spec, WorkbenchConfig(), VENDORS["openai"])
    toolset.tools = toolset.tools[:LIMIT]
    converted = tmp_path / "judged.json"
    converted.write_text(json.dumps(judged_document(path)))
    report = run_roundtrip(spec, path, toolset, "openai", RoundTripOptions(count=3, budget_s=5,
                                                                           oracle_document=converted))
    assert all(a.classification in run.CLASSIFICATIONS for a in report.attempts)
    failing = [a for a in report.attempts if a.classification in run.FAILING and not any(
        key[0] == name and fnmatch.fnmatchcase("openai", key[1]) and key[3] == a.classification
        and fnmatch.fnmatchcase(a.tool, key[2])
        for key in KNOWN)]
    assert not failing, f"{name}: {len(failing)} failures ({report.summary()['classifications']}):\n" + "\n".join(
        f"{a.classification} {a.tool} [{a.kind}]\n    " + a.request.replace("\n", "\n    ")[:600] + "\n    => "
        + "\n    => ".join(d[:400] for d in [*a.oracle, *a.detail]) for a in failing[:10])


def test_the_judges_quick_subscriptable_check_answers_as_the_protocol_it_replaces() -> None:
    import pathable.accessors
    from pathable.protocols import Subscriptable

    import workbench.roundtrip.oracle  # noqa: F401  (puts the quick check in place)

    class Lacking:
        __contains__ = __getitem__ = None

        def __len__(self) -> int:
            return 0

    for value in ({}, [], "ab", b"x", (1,), range(3), 1, 2.5, None, object(), Lacking(), {1: 2}.keys()):
        assert isinstance(value, pathable.accessors.Subscriptable) == isinstance(value, Subscriptable), value
    assert pathable.accessors.Subscriptable is not Subscriptable
