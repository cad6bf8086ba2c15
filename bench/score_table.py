"""The readiness score of every corpus file and of the bundled examples, best first: a table to argue the
ranking from.

    python bench/score_table.py [--corpus DIR] [--files GLOB ...] [--format text|markdown]

Each file is scored exactly as `workbench score FILE` scores it (its config beside it, else the defaults; the
tools in the config's scope). Columns: score (the headline), blocked (which blockers, with the operations
they block), quality (the per-operation mean, blocked or not), ops (operations in scope), findings (the lint's
findings in all), and the lint time. Rows sort by headline, then quality. Figures, not checks.
The corpus directory is --corpus, else $WORKBENCH_CORPUS, else ../shared/corpus beside the repository.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from workbench.lint import lint  # noqa: E402
from workbench.spec import SpecError, load_spec  # noqa: E402
from workbench.workspace.loading import scored, spec_config  # noqa: E402

SUFFIXES = (".json", ".yaml", ".yml")


def row(path: Path) -> dict:
    began = time.perf_counter()
    try:
        spec = load_spec(path)
    except SpecError as exc:
        return {"file": path.name, "error": str(exc).splitlines()[0]}
    config = spec_config(path)
    result = lint(spec, config.lint)
    seconds = time.perf_counter() - began
    readiness = scored(result, config)
    blocked = ", ".join(f"{b.kind} {b.operations}" for b in readiness.blockers) or "no"
    return {"file": path.name, "score": "none" if readiness.score is None else str(readiness.score),
            "blocked": blocked, "quality": "-" if readiness.quality is None else str(readiness.quality),
            "ops": str(readiness.operations), "findings": str(len(result.findings)), "lint s": f"{seconds:.2f}",
            "_key": (-1 if readiness.score is None else readiness.score, readiness.quality or 0)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", help="default: $WORKBENCH_CORPUS or ../shared/corpus")
    parser.add_argument("--files", nargs="+", default=["*"], metavar="GLOB")
    parser.add_argument("--format", choices=("text", "markdown"), default="text")
    args = parser.parse_args()
    corpus = Path(args.corpus or os.environ.get("WORKBENCH_CORPUS") or REPO.parent / "shared" / "corpus")
    paths = sorted(p for p in corpus.iterdir() if p.suffix in SUFFIXES) if corpus.is_dir() else []
    paths += sorted((REPO / "resources" / "examples").glob("*.yaml"))
    paths = [p for p in paths if any(fnmatch.fnmatch(p.name, g) for g in args.files)]
    rows = [row(p) for p in paths]
    good = sorted((r for r in rows if "error" not in r), key=lambda r: r["_key"], reverse=True)
    columns = ("file", "score", "blocked", "quality", "ops", "findings", "lint s")
    table = [columns, *[tuple(r[c] for c in columns) for r in good]]
    if args.format == "markdown":
        print("| " + " | ".join(columns) + " |")
        print("|" + "---|" * len(columns))
        for line in table[1:]:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(line[i]) for line in table) for i in range(len(columns))]
        for line in table:
            print("  ".join(cell.ljust(w) if i in (0, 2) else cell.rjust(w)
                            for i, (cell, w) in enumerate(zip(line, widths, strict=True))))
    for r in rows:
        if "error" in r:
            print(f"{r['file']}: not scored: {r['error']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
