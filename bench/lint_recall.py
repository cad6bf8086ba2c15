"""Lint recall: of the problems a reviewer found by reading operations of real specs, how many the lint catches.

    python bench/lint_recall.py [--review tests/lint/recall_review.yaml] [--corpus DIR] [--workbench DIR]
                                [--timeout S]

The review (tests/lint/recall_review.yaml) lists, per corpus spec, the operations read and each problem found:
its JSON pointer, a one-line text, a kind and `caught_by`, the rule ids whose finding would catch it. Each spec
is linted as a user runs it, `python -m workbench lint SPEC --format json` with default severities, by this
checkout's package or --workbench DIR's (another checkout: the same review measured before and after a
change). A problem is caught when a finding of a rule in its `caught_by` sits at its pointer, under it, or above
it within its operation (or within its component, for a pointer under /components). Prints per spec and in
total: problems, caught, recall, and the missed problems by kind. Figures, not checks: this never fails on a
low recall.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import peers
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DEFAULT_REVIEW = REPO / "tests" / "lint" / "recall_review.yaml"

from workbench.spec.pointer import join  # noqa: E402


def scope_of(pointer: str) -> str:
    """The node a problem's catching findings must stay within: its operation (/paths/P/METHOD), or its
    component (/components/KIND/NAME); the pointer itself for anything else."""
    parts = pointer.split("/")
    if len(parts) >= 4 and parts[1] in ("paths", "components"):
        return "/".join(parts[:4])
    return pointer


def within(inner: str, outer: str) -> bool:
    return inner == outer or inner.startswith(outer + "/")


def catches(finding_pointer: str, problem_pointer: str) -> bool:
    """At the problem, under it, or above it but not above its operation (or component)."""
    if within(finding_pointer, problem_pointer):
        return True
    return within(problem_pointer, finding_pointer) and within(finding_pointer, scope_of(problem_pointer))


def caught(problem: dict, findings: list[tuple[str, str]]) -> list[str]:
    """The rules whose findings catch this problem (empty: missed). `findings` holds (rule, pointer) pairs."""
    rules = set(problem.get("caught_by") or ())
    return sorted({rule for rule, pointer in findings if rule in rules and catches(pointer, problem["pointer"])})


def lint_findings(spec: Path, timeout: float, root: Path) -> list[tuple[str, str]]:
    run = peers.run_ours(spec, timeout, root)
    if run.failed:
        raise SystemExit(f"lint_recall: {spec}: workbench lint failed: {run.failed}")
    return [(item["code"], join("", *item["path"])) for item in run.output]


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "—"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--review", type=Path, default=DEFAULT_REVIEW, help="the review file (default: %(default)s)")
    parser.add_argument("--corpus", help="corpus directory (default: $WORKBENCH_CORPUS or ../shared/corpus)")
    parser.add_argument("--workbench", type=Path, default=REPO,
                        help="the checkout whose `workbench lint` runs (default: this one)")
    parser.add_argument("--timeout", type=float, default=peers.DEFAULT_TIMEOUT_S, help="seconds per lint run")
    args = parser.parse_args(argv)

    try:
        review = yaml.safe_load(args.review.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise SystemExit(f"lint_recall: {args.review}: cannot read the review: {error}") from None
    corpus = peers.corpus_dir(args.corpus)
    rows, missed_by_kind, total_problems, total_caught = [], defaultdict(list), 0, 0
    for entry in review["specs"]:
        findings = lint_findings(corpus / entry["spec"], args.timeout, args.workbench)
        problems = entry.get("problems") or []
        hits = [caught(problem, findings) for problem in problems]
        count = sum(1 for hit in hits if hit)
        rows.append((entry["spec"], len(entry.get("reviewed") or ()), len(problems), count))
        total_problems += len(problems)
        total_caught += count
        for problem, hit in zip(problems, hits, strict=True):
            if not hit:
                missed_by_kind[problem["kind"]].append((entry["spec"], problem))

    print(f"lint recall, workbench of {args.workbench.resolve()}, review {args.review}")
    header = ("spec", "operations read", "problems", "caught", "recall")
    table = [header, *[(spec, str(ops), str(n), str(c), percent(c, n)) for spec, ops, n, c in rows],
             ("total", str(sum(r[1] for r in rows)), str(total_problems), str(total_caught),
              percent(total_caught, total_problems))]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        print("  " + "  ".join([row[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:], widths[1:],
                                                                                          strict=True))]))
        if i == 0 or i == len(table) - 2:
            print("  " + "  ".join("-" * w for w in widths))
    print(f"\nmissed, by kind ({total_problems - total_caught}):")
    for kind, items in sorted(missed_by_kind.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"  {kind} ({len(items)})")
        for spec, problem in items:
            rules = ", ".join(problem.get("caught_by") or ()) or "no rule"
            print(f"    {spec} {problem['pointer']}\n      {problem['problem']}  [{rules}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
