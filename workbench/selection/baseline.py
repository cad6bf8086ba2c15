"""A selection run against a saved one (the JSON report of an earlier run): which cases flipped, which are new
or gone, and whether the change is a regression that should stop a release.

A regression is either of:

- accuracy fell by more than the noise of both runs: a pooled two-proportion z-test on the cases both runs
  have (passes over judged runs), regression when z >= 1.96. That is a two-sided 95% test, so one-sided the
  false alarm rate is 2.5%: a gate that fires on luck gets switched off. Chosen over "the two Wilson
  intervals do not overlap", which is much stricter than 95% (two intervals can overlap while the difference
  is clearly real). Only the shared cases count, so adding hard cases to a suite is not read as a drop.
  Repeats of one case are correlated: each side's runs are divided by its design effect (the intra-case
  correlation, `metrics.design_effect`), so R repeats count as R runs only as far as they disagree.
- a case that passed every run of the baseline now fails the majority of its runs (passes in fewer than
  half). "Fails at least once" would fire on every flaky model at temperature > 0; a majority is a case
  that has broken, not wobbled. A case with one run in each is simply passed → failed.

A file that is not a selection report of this format is refused with a one-line error; a baseline made with
another model, API, vendor or tool set is compared anyway, with a note saying so (the comparison is then
about more than the suite)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

import jsonschema

from workbench.selection.metrics import Results, design_effect, rate
from workbench.selection.model import SUITE_FORMAT
from workbench.spec.errors import SpecError

BASELINE_FORMAT = 1  # of the JSON report, which is also the baseline file
REPORT_KIND = "selection"
Z_REGRESSION = 1.96
# context fields that, when they differ, make the comparison about more than the suite
NOTED = (("model", "model"), ("api", "API"), ("vendor", "vendor"), ("toolset_sha256", "tool set"),
         ("suite_sha256", "suite file"))


@dataclass(frozen=True)
class Flip:
    id: str
    before: tuple[int, int]  # passed, runs
    now: tuple[int, int]

    def text(self) -> str:
        return f"{self.id}: {self.before[0]}/{self.before[1]} → {self.now[0]}/{self.now[1]}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "before": {"passed": self.before[0], "runs": self.before[1]},
                "now": {"passed": self.now[0], "runs": self.now[1]}}


@dataclass
class Comparison:
    source: str  # the baseline file, as named
    accuracy_before: float | None  # as each run reported it, over all its cases
    accuracy_now: float | None
    shared_before: tuple[int, int]  # passed, runs over the cases both have: what the test compares
    shared_now: tuple[int, int]
    z: float | None  # > 0: the shared accuracy fell
    worse: list[Flip] = field(default_factory=list)  # pass rate fell (passed → failed for single runs)
    better: list[Flip] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # always passed before, now fail the majority of runs
    new_cases: list[str] = field(default_factory=list)
    removed_cases: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # a different model or tool set; renamed expectations

    @property
    def significant_drop(self) -> bool:
        return self.z is not None and self.z >= Z_REGRESSION

    @property
    def regression(self) -> bool:
        return self.significant_drop or bool(self.broken)

    def reasons(self) -> list[str]:
        out = []
        if self.significant_drop:
            (pb, nb), (pn, nn) = self.shared_before, self.shared_now
            out.append(f"accuracy fell from {pb}/{nb} to {pn}/{nn} on the shared cases (z = {self.z:.2f} ≥ "
                       f"{Z_REGRESSION})")
        out.extend(f"{case} passed every run of the baseline and now fails most" for case in self.broken)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "regression": self.regression, "reasons": self.reasons(),
                "accuracy_before": self.accuracy_before, "accuracy_now": self.accuracy_now,
                "shared": {"before": {"passed": self.shared_before[0], "runs": self.shared_before[1]},
                           "now": {"passed": self.shared_now[0], "runs": self.shared_now[1]}},
                "z": None if self.z is None else round(self.z, 3),
                "worse": [f.to_json() for f in self.worse], "better": [f.to_json() for f in self.better],
                "broken": self.broken, "new_cases": self.new_cases, "removed_cases": self.removed_cases,
                "notes": self.notes}


def read_baseline(path: Path) -> dict:
    """A saved run; a file that is not one is a one-line error naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SpecError(f"cannot read the baseline: {exc.strerror or exc}", str(path)) from None
    except UnicodeDecodeError:
        raise SpecError("the baseline is not UTF-8 text", str(path)) from None
    except ValueError as exc:
        raise SpecError(f"the baseline is not JSON: {exc}", str(path)) from None
    check_baseline(data, str(path))
    return data


def check_baseline(data: Any, source: str) -> None:
    if not isinstance(data, dict) or data.get("report") != REPORT_KIND:
        raise SpecError("not a selection baseline (save one with `workbench select --save-baseline`)", source)
    if data.get("format") != BASELINE_FORMAT or data.get("suite_format", SUITE_FORMAT) != SUITE_FORMAT:
        raise SpecError(f"a selection baseline of another format ({data.get('format')!r}; this version reads "
                        f"{BASELINE_FORMAT}): save a new one", source)
    error = jsonschema.exceptions.best_match(_validator().iter_errors(data))
    if error is not None:
        where = "/" + "/".join(str(p) for p in error.absolute_path)
        raise SpecError(f"a damaged selection baseline: {error.message}", source, pointer=where)
    cases = data["cases"]
    if not all(_count(c.get("passed")) and _count(c.get("runs")) and c["passed"] <= c["runs"] for c in cases):
        raise SpecError("a damaged selection baseline: every case needs passed ≤ runs counts", source)
    ids = [c["id"] for c in cases]
    if len(set(ids)) != len(ids):
        twice = next(i for i in ids if ids.count(i) > 1)
        raise SpecError(f"a damaged selection baseline: case {twice!r} is there twice", source)


@cache
def _validator() -> jsonschema.Draft202012Validator:
    with as_file(files("workbench.resources") / "schemas" / "selection-baseline.schema.json") as path:
        return jsonschema.Draft202012Validator(json.loads(Path(path).read_text(encoding="utf-8")))


def compare(results: Results, baseline: Mapping[str, Any], source: str = "baseline") -> Comparison:
    check_baseline(baseline, source)
    before = {c["id"]: c for c in baseline["cases"]}
    now = {c.id: c for c in results.cases}
    shared = [i for i in now if i in before]
    if not shared:
        raise SpecError("the baseline has none of this suite's cases: it is a run of another suite", source)
    shared_before = (sum(before[i]["passed"] for i in shared), sum(before[i]["runs"] for i in shared))
    shared_now = (sum(now[i].passed for i in shared), sum(now[i].runs for i in shared))
    out = Comparison(source=source, accuracy_before=(baseline.get("summary") or {}).get("accuracy"),
                     accuracy_now=results.summary.accuracy, shared_before=shared_before, shared_now=shared_now,
                     z=_clustered_z([(before[i]["passed"], before[i]["runs"]) for i in shared],
                                    [(now[i].passed, now[i].runs) for i in shared]),
                     new_cases=[i for i in now if i not in before], removed_cases=[i for i in before if i not in now])
    for case_id in shared:
        _flip(out, before[case_id], now[case_id])
    out.notes = _context_notes(baseline.get("context") or {}, results.context) + out.notes
    return out


def _flip(out: Comparison, before: Mapping[str, Any], now) -> None:
    was, is_ = (before["passed"], before["runs"]), (now.passed, now.runs)
    if before.get("expected") not in (None, now.expected):
        out.notes.append(f"{now.id}: expected {before['expected']} in the baseline, now {now.expected}")
    if not was[1] or not is_[1]:
        return  # no judged run on one side (errors only): nothing to compare
    change = rate(*is_) - rate(*was)
    if change < 0:
        out.worse.append(Flip(now.id, was, is_))
    elif change > 0:
        out.better.append(Flip(now.id, was, is_))
    if was[0] == was[1] and 2 * is_[0] < is_[1]:
        out.broken.append(now.id)


def _clustered_z(before: list[tuple[int, int]], now: list[tuple[int, int]]) -> float | None:
    """The z statistic over effective runs: each side's runs divided by its design effect, so repeats of a
    case count as far as they are independent (R identical answers of a deterministic runner are one)."""
    deff_before, deff_now = design_effect(before), design_effect(now)
    return two_proportion_z(sum(c for c, _ in before) / deff_before, sum(n for _, n in before) / deff_before,
                            sum(c for c, _ in now) / deff_now, sum(n for _, n in now) / deff_now)


def two_proportion_z(passed_before: float, runs_before: float, passed_now: float, runs_now: float) -> float | None:
    """The pooled two-proportion z statistic, positive when the rate fell; None when a side has no runs or
    both rates are 0 or 1 (no variance: the rates are equal)."""
    if not runs_before or not runs_now:
        return None
    pooled = (passed_before + passed_now) / (runs_before + runs_now)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / runs_before + 1 / runs_now))
    if spread == 0:
        return None
    return (passed_before / runs_before - passed_now / runs_now) / spread


def _context_notes(before: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    notes = []
    for key, name in NOTED:
        if key in before and before.get(key) != now.get(key):
            was, is_ = before.get(key), now.get(key)
            if key.endswith("sha256"):
                was, is_ = str(was)[:12], str(is_)[:12]
            notes.append(f"the {name} differs from the baseline's ({was} → {is_})")
    return notes


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
