"""What the spec accepts of the tool calls a model can make: the fidelity table, per corpus file and vendor.

    python bench/oracle.py [--files GLOB ...] [--vendors openai,openai-strict,anthropic] [--count N] [--limit N]

For every tool of each conversion, `--count` argument sets generated valid against the TOOL's schema (plus a
required-only set) go through the real executor to a capture server on 127.0.0.1; openapi-core judges each
wire request against the ORIGINAL document (Swagger 2.0 converted by swagger2openapi, installed on first use).
Columns: sets, sent, accepted, rejected by the oracle, refused by the executor, crashed, unsatisfiable
schemas, and requests the oracle could not judge in part; then who is to blame for what did not pass (the
round trip's classification: a refusal of a set the generator made outside the tool's schema is the
generator's dialect, not a conversion loss). `--details N` prints N rejections per file.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peers

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from workbench.config import WorkbenchConfig  # noqa: E402
from workbench.roundtrip import run  # noqa: E402
from workbench.spec import load_spec  # noqa: E402
from workbench.tools.options import ToolOverrides, build_toolset  # noqa: E402

VENDORS = {"openai": ToolOverrides(vendor="openai"), "openai-strict": ToolOverrides(vendor="openai", strict=True),
           "anthropic": ToolOverrides(vendor="anthropic")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", nargs="*", default=["*"])
    parser.add_argument("--vendors", default=",".join(VENDORS))
    parser.add_argument("--count", type=int, default=3)
    parser.add_argument("--limit", type=int, default=60, help="operations per file (0: all)")
    parser.add_argument("--details", type=int, default=0)
    parser.add_argument("--corpus")
    parser.add_argument("--show", default="rejected,crashed", help="outcomes --details prints")
    args = parser.parse_args()
    files = peers.select_files(peers.corpus_dir(args.corpus), args.files)
    columns = ["sets", "sent", *run.OUTCOMES, "unjudged"]
    print(f"{'file':44} {'vendor':14} " + " ".join(f"{c[:8]:>8}" for c in columns) + "   secs")
    totals: Counter = Counter()
    totals_blame: Counter = Counter()
    for path in files:
        spec = load_spec(path)
        try:
            document = peers.judged_document(path)
        except Exception as error:
            print(f"{path.name:44} cannot be judged: {error}")
            document = None
        for vendor in args.vendors.split(","):
            toolset = build_toolset(spec, WorkbenchConfig(), VENDORS[vendor])
            if args.limit:
                toolset.tools = toolset.tools[: args.limit]
            started = time.monotonic()
            counts: Counter = Counter()
            blame: Counter = Counter()
            shown = 0
            show = set(args.show.split(","))
            try:
                for attempt in run.captured_attempts(spec, toolset, document, count=args.count):
                    counts["sets"] += attempt.outcome != run.UNSATISFIABLE
                    counts[attempt.outcome] += 1
                    counts["sent"] += attempt.outcome in (run.ACCEPTED, run.REJECTED, run.SENT)
                    counts["unjudged"] += bool(attempt.unjudged)
                    blame[attempt.classification] += attempt.classification != run.PASSED
                    if attempt.outcome in show and shown < args.details:
                        shown += 1
                        print(f"  {attempt.outcome} {attempt.tool} [{attempt.kind}] {attempt.arguments!r:.300}\n    "
                              + attempt.request.replace("\n", "\n    ")[:600] + "\n    => "
                              + "\n    => ".join(d[:400] for d in [*attempt.oracle, *attempt.detail]))
            except Exception as error:
                print(f"{path.name:44} {vendor:14} could not run: {type(error).__name__}: {error}"[:300])
                continue
            totals.update(counts)
            print(f"{path.name[:44]:44} {vendor:14} " + " ".join(f"{counts[c]:>8}" for c in columns)
                  + f" {time.monotonic() - started:6.1f}  " + ", ".join(f"{k}: {v}" for k, v in blame.items() if v),
                  flush=True)
            totals_blame.update(blame)
    print("blame: " + ", ".join(f"{k}: {v}" for k, v in totals_blame.items() if v))
    judged = totals[run.ACCEPTED] + totals[run.REJECTED]
    print(f"{'total':44} {'':14} " + " ".join(f"{totals[c]:>8}" for c in columns))
    if judged:
        print(f"accepted of judged: {totals[run.ACCEPTED] / judged:.1%}; "
              f"accepted of sets: {totals[run.ACCEPTED] / max(1, totals['sets']):.1%}")


if __name__ == "__main__":
    main()
