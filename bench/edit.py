"""Edit latency: one description edit (plan, splice, verify) on the largest corpus files, and the diff.

Prints figures; asserts nothing. Usage: python bench/edit.py [--repeat N] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import difflib
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.edit import Edit, apply_edits
from workbench.edit.diff import unified_diff
from workbench.spec import load_spec
from workbench.spec.pointer import join

FILES = ("openai-openapi.yaml", "twilio-verify-v2.yaml", "github-api.github.com-2022-07-18.json",
         "kubernetes-swagger.json")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=Path(os.environ.get(
        "WORKBENCH_CORPUS", Path(__file__).resolve().parents[1].parent / "shared" / "corpus")))
    args = parser.parse_args()
    print(f"Edit latency, median of {args.repeat} edits of different operations (ms)")
    print(f"{'file':<40} {'KB':>6} {'edit+verify':>12} {'first edit':>11} {'splice diff':>12} {'difflib':>9}")
    for name in FILES:
        path = args.corpus / name
        spec = load_spec(path)
        document = spec.root
        document.index  # noqa: B018 (JSON builds its spans on first use; an editor has them already)
        operations = spec.operations
        times = []
        first = None
        for i in range(args.repeat):
            op = operations[(i * 37) % len(operations)]
            edit = Edit(join(op.origin.pointer, "description"), f"Edited {i}: returns it.\nSecond line.",
                        after=("summary",))
            started = time.perf_counter()
            outcome = apply_edits(document, [edit])
            elapsed = (time.perf_counter() - started) * 1000
            first = elapsed if first is None else first
            times.append(elapsed)
            assert not outcome.refused, outcome.refused
            splices = [s for _, s in outcome.applied]
            started = time.perf_counter()
            unified_diff(document.text, splices, name)
            diff_ms = (time.perf_counter() - started) * 1000
            previous, document = document, outcome.document
        started = time.perf_counter()
        "".join(difflib.unified_diff(previous.text.splitlines(True), document.text.splitlines(True)))
        difflib_ms = (time.perf_counter() - started) * 1000
        print(f"{name:<40} {path.stat().st_size // 1024:>6} {statistics.median(times):>12.1f} {first:>11.1f} "
              f"{diff_ms:>12.2f} {difflib_ms:>9.0f}")
    print("edit+verify: plan the splice, apply it, confirm by re-reading (YAML: the enclosing block only, when that "
          "suffices; JSON: the parent object only) — the rest of the text is byte-identical by construction")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
