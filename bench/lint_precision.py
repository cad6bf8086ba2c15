"""Lint precision: sample findings per rule from the corpus and print each with its source lines, for judging
by reading; with --labels, score the judged sample (per-rule precision on the labelled findings that still fire).

    python bench/lint_precision.py [--per-rule N] [--seed S] [--rules ID ...] [--files NAME ...]
                                   [--corpus DIR] [--labels tests/lint/precision_labels.yaml] [--table]

The sample is seeded: the same corpus, rules and seed give the same findings. Each printed finding carries the
`rule`, `file` and `pointer` a label names (see tests/lint/precision_labels.yaml: `useful: yes|no` and `why`),
and already labelled ones show their label. `--table` prints, per rule, labelled findings that fire now, how
many of those are useful, and the precision; labelled findings that no longer fire are counted apart.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import yaml  # noqa: E402

from workbench.lint import RULES, lint  # noqa: E402
from workbench.lint.engine import with_hints  # noqa: E402
from workbench.spec import SpecError, load_spec  # noqa: E402

SPEC_SUFFIXES = (".json", ".yaml", ".yml")


def corpus_dir(arg: str | None) -> Path:
    return Path(arg or os.environ.get("WORKBENCH_CORPUS") or REPO.parent / "shared" / "corpus")


def load_labels(path: Path) -> list[dict]:
    data = yaml.safe_load(path.read_text()) or {}
    return list(data.get("labels") or [])


def label_key(rule: str, file: str, pointer: str) -> tuple[str, str, str]:
    return (rule, file, pointer)


def lint_files(paths: list[Path], config) -> dict[str, list]:
    """Findings by file name (files that do not load are skipped with a note)."""
    found = {}
    for path in paths:
        try:
            spec = load_spec(path)
        except SpecError as error:
            print(f"skip {path.name}: {error}", file=sys.stderr)
            continue
        found[path.name] = list(lint(spec, config).findings)
    return found


def source_lines(finding, context: int = 4, width: int = 150) -> list[str]:
    location = finding.locate()
    lines = finding.document.text.split("\n")
    first = max(location.start.line - 1, 0)
    return [f"  {n + 1:>6} | {lines[n][:width]}" for n in range(first, min(first + context, len(lines)))]


def sample(found: dict[str, list], per_rule: int, seed: int, rules: set[str] | None) -> dict[str, list]:
    by_rule: dict[str, list] = defaultdict(list)
    for name in sorted(found):
        for finding in found[name]:
            if rules is None or finding.rule in rules:
                by_rule[finding.rule].append(finding)
    rng = random.Random(seed)
    return {rule: (items if len(items) <= per_rule else rng.sample(items, per_rule))
            for rule, items in sorted(by_rule.items())}


def precision_table(found: dict[str, list], labels: list[dict]) -> list[tuple[str, str, int, int, int]]:
    """(rule, default severity, labelled and firing, useful among them, labelled but no longer firing)."""
    firing = {label_key(f.rule, name, f.pointer) for name, items in found.items() for f in items}
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for label in labels:
        row = rows[label["rule"]]
        if label_key(label["rule"], label["file"], label["pointer"]) in firing:
            row[0] += 1
            row[1] += 1 if label["useful"] else 0
        else:
            row[2] += 1
    return [(rule, RULES[rule].severity.label if rule in RULES else "gone", *counts)
            for rule, counts in sorted(rows.items())]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-rule", type=int, default=10, help="findings sampled per rule (10)")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--rules", nargs="+", help="only these rule ids")
    parser.add_argument("--files", nargs="+", help="only these corpus file names")
    parser.add_argument("--corpus", help="corpus directory (default: $WORKBENCH_CORPUS or ../shared/corpus)")
    parser.add_argument("--labels", type=Path, default=REPO / "tests" / "lint" / "precision_labels.yaml")
    parser.add_argument("--table", action="store_true", help="print the per-rule precision on the labels")
    args = parser.parse_args(argv)
    corpus = corpus_dir(args.corpus)
    labels = load_labels(args.labels) if args.labels.exists() else []
    if args.table:
        names = sorted({label["file"] for label in labels})
    else:
        names = args.files or sorted(p.name for p in corpus.iterdir() if p.suffix in SPEC_SUFFIXES)
    found = lint_files([corpus / name for name in names], with_hints())
    if args.table:
        print(f"{'rule':44} {'default':8} {'firing':>6} {'useful':>6} {'precision':>9} {'gone':>5}")
        for rule, severity, fire, useful, gone in precision_table(found, labels):
            share = f"{100 * useful / fire:.0f}%" if fire else "—"
            print(f"{rule:44} {severity:8} {fire:>6} {useful:>6} {share:>9} {gone:>5}")
        return 0
    judged = {label_key(lb["rule"], lb["file"], lb["pointer"]): lb for lb in labels}
    for rule, items in sample(found, args.per_rule, args.seed, set(args.rules) if args.rules else None).items():
        print(f"\n=== {rule} ({RULES[rule].severity.label}) ===")
        for finding in items:
            name = finding.document.name.rsplit("/", 1)[-1]
            label = judged.get(label_key(rule, name, finding.pointer))
            mark = f"  [labelled: {'yes' if label['useful'] else 'no'}]" if label else ""
            print(f"- file: {name}\n  pointer: {finding.pointer}{mark}\n  message: {finding.message}")
            print("\n".join(source_lines(finding)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
