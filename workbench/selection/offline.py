"""The offline runner: no key, no network. Each case's user text is ranked against the tools offered
(`workbench.tools.relevance`: BM25 plus the embedding model bundled in its wheel) and the best tool is
"called", or none when even the best scores under a threshold learned from the suite's `none` cases.

It measures how distinguishable the tools are for the suite's prompts, not what a model would pick: each
sample's detail says where the right tool ranked and by how much the winner beat the runner-up. It is
deterministic, so every repeat gives the same answer (pass^k equals pass^1)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from workbench.selection.model import (
    ALL_OF,
    NONE,
    OFFLINE,
    Called,
    Cancelled,
    Case,
    Progress,
    Sample,
    SampleRequest,
)
from workbench.tools.model import ToolSet
from workbench.tools.relevance import Ranked, ToolIndex

SHOWN_SCORES = 5  # how many [name, score] pairs a sample's detail keeps


def user_text(case: Case) -> str:
    """What the scorer reads: every user message of the case, in order."""
    return "\n".join(m.get("content", "") for m in case.messages if m.get("role") == "user")


def learn_threshold(scores_by_case: Mapping[str, float], cases: Sequence[Case]) -> float | None:
    """The score under which the runner declines, chosen to separate the `none` cases' best scores from
    the other cases' best scores as well as possible (the most cases on the right side: a `none` case under
    it, any other case at or above it). Among equally good places the lowest is taken (abstaining least),
    at the midpoint between the two scores it falls between. None: never abstain, because the suite has no
    `none` case or declining helps no case."""
    labelled = sorted((scores_by_case[c.id], c.expect.mode == NONE) for c in cases if c.id in scores_by_case)
    if not any(is_none for _, is_none in labelled):
        return None
    # Threshold below everything (never abstain) gets every non-none case right; moving it past each score
    # in turn flips that one case: a none case becomes right, another becomes wrong.
    correct = best = sum(1 for _, is_none in labelled if not is_none)
    chosen: float | None = None
    for i, (score, is_none) in enumerate(labelled):
        correct += 1 if is_none else -1
        following = labelled[i + 1][0] if i + 1 < len(labelled) else None
        if following == score:
            continue  # a threshold cannot fall between equal scores
        if correct > best:
            best = correct
            chosen = (score + following) / 2 if following is not None else score + 1e-9
    return chosen


@dataclass(frozen=True)
class _Ranking:
    request: SampleRequest
    ranked: list[Ranked]


class OfflineRunner:
    """The `Runner` with no model: one ranking per request, the threshold learned over all the requests
    of one `samples` call (a suite's cases, at one tool count), unless fixed when built."""

    name = OFFLINE
    makes_arguments = False  # it picks tools; the `{}` it sends is no one's attempt at arguments

    def __init__(self, threshold: float | None = None, learn: bool = True):
        self.fixed_threshold = threshold
        self.learn = learn and threshold is None
        self.requests_sent = 0
        self.cache_hits = 0
        self.threshold: float | None = threshold  # the one the last `samples` call used

    def keep_threshold(self) -> None:
        """Use the threshold the last call learned from now on: accuracy against tool count then measures the
        tool count, not a threshold learned again at each size."""
        self.fixed_threshold, self.learn = self.threshold, False

    def samples(self, toolset: ToolSet, requests: Sequence[SampleRequest], progress: Progress | None = None,
                cancelled: Cancelled | None = None) -> Iterator[Sample]:
        index = ToolIndex.of(toolset)
        rankings = [_Ranking(r, index.rank(user_text(r.case), among=r.offered)) for r in requests]
        self.threshold = self.fixed_threshold
        if self.learn:
            best = {k.request.case.id: k.ranked[0].score for k in rankings if k.ranked}
            self.threshold = learn_threshold(best, [k.request.case for k in rankings])
        for done, ranking in enumerate(rankings, 1):
            if cancelled is not None and cancelled():
                return
            yield answer(ranking.request, ranking.ranked, self.threshold)
            if progress is not None:
                progress(done, len(rankings), ranking.request.case.id)


def answer(request: SampleRequest, ranked: Sequence[Ranked], threshold: float | None) -> Sample:
    """The calls the ranking makes: the best tool (the best `len(expected)` tools for an all-of case), each
    only if it reaches the threshold; and the detail a report shows."""
    case = request.case
    wanted = len(case.expect.tools) if case.expect.mode == ALL_OF else 1
    picked = [r for r in ranked[:wanted] if threshold is None or r.score >= threshold]
    expected = set(case.expect.tools)
    ranks = [i for i, r in enumerate(ranked, 1) if r.name in expected]
    detail = {
        "rank": (ranks[0] if ranks else None) if case.expect.mode != NONE else None,
        # the right tool's lead over the best other tool: negative when another tool won (by how much); for
        # a none case, the winner's lead over the runner-up
        "margin": _margin(ranked, expected),
        "runner_up": next((r.name for r in ranked if r.name not in expected), None) if expected else
        (ranked[1].name if len(ranked) > 1 else None),
        "scores": [[r.name, round(r.score, 4)] for r in ranked[:SHOWN_SCORES]],
        "threshold": None if threshold is None else round(threshold, 4),
    }
    return Sample(case_id=case.id, sample=request.sample,
                  calls=tuple(Called(r.name, arguments={}, raw_arguments="{}") for r in picked),
                  text="" if picked else "no tool scores above the threshold", detail=detail)


def _margin(ranked: Sequence[Ranked], expected: set[str]) -> float | None:
    if not expected:
        return round(ranked[0].score - ranked[1].score, 4) if len(ranked) > 1 else None
    right = next((r.score for r in ranked if r.name in expected), None)
    other = next((r.score for r in ranked if r.name not in expected), None)
    return None if right is None or other is None else round(right - other, 4)
