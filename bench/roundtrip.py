"""The round trip as a user runs it: `workbench roundtrip FILE --examples 3 --jobs J --format json`, timed whole.

    python bench/roundtrip.py [--files GLOB ...] [--examples N] [--jobs 1 auto] [--repeat R] [--corpus DIR]

Per file and --jobs value (side by side, alternating, `--repeat` times): wall and CPU seconds of the whole command
(load, conversion, mock start, generation, every call, the judge; CPU is user + system of the command and its
worker processes), the load average when it started and ended, argument sets sent, sets per second, milliseconds
per operation, and the classifications (the same for every --jobs: checked). The aim (issue: round trip) is the
whole GitHub file with 3 generated sets per tool in under a minute on 2 cores.

On a shared machine the wall time is mostly waiting for a core, and Linux shares the cores between sessions
(autogroup), not processes: while other sessions keep both cores busy, --jobs 2 gets no more CPU than --jobs 1
(measured: about the same wall time at a load of 4-6), so compare the figures at a low load.
No peer sends a tool conversion's calls through its executor; these are figures, not ratios.

Measured on the shared 2-core machine (5 sessions at work; load average at start-end), GitHub, 3 sets per tool:
before the worker pool and this round's cuts, 82.0 s wall, 58.4 CPU s (load 2.5-3.0); now --jobs 1 165.9 s wall,
63.5 CPU s (load 6.5-7.4) and --jobs auto 135.7 s, 64.1 CPU s (load 7.4-8.5), then auto 122.0 s, 57.3 CPU s (load
7.3-8.0); at a lower load, auto 96.2 s, 61.7 CPU s (load 2.8-4.7) and --jobs 1 112.1 s, 64.9 CPU s (4.7-3.4).
Twilio Verify --jobs 1 25.3 s / 9.8 CPU s, auto 24.7 s / 9.9 CPU s (load 7.9-8.5); 12.6 s and 12.8 s at 3.4.
With one other session at work (load 0.9-2.2): auto 42.4 s wall, 52.4 CPU s; --jobs 1 49.9 s, 50.4 CPU s; Twilio
Verify auto 8.7 s, --jobs 1 8.3 s (a small file gains nothing: its workers' start costs what they save). Then, one
after the other (load 1.4-2.0): the command before the pool and these cuts 63.5 s wall, 64.2 CPU s; now --jobs 1
52.2 s, 52.5 CPU s; now auto 27.6 s, 50.1 CPU s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peers

DEFAULT_FILES = ["github-api.github.com-2022-07-18.json", "twilio-verify-v2.yaml"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", nargs="*", default=DEFAULT_FILES)
    parser.add_argument("--examples", type=int, default=3)
    parser.add_argument("--jobs", nargs="*", default=["1", "auto"])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--corpus")
    args = parser.parse_args()
    files = peers.select_files(peers.corpus_dir(args.corpus), args.files)
    print(f"{'file':40} {'jobs':>4} {'ops':>5} {'sets':>6} {'sent':>6} {'secs':>7} {'cpu s':>7} {'load':>9} "
          f"{'sets/s':>7} {'ms/op':>7}  classifications")
    for path in files:
        seen: dict[str, dict] = {}
        for _ in range(args.repeat):
            for jobs in args.jobs:
                summary = _run(path, jobs, args)
                if summary is None:
                    continue
                first = seen.setdefault("classifications", summary["classifications"])
                if summary["classifications"] != first:
                    print(f"{'':40} --jobs {jobs} classified otherwise than the first run: {first}")


def _run(path: Path, jobs: str, args: argparse.Namespace) -> dict | None:
    load_before = os.getloadavg()[0]
    used = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "workbench", "roundtrip", str(path), "--examples",
                           str(args.examples), "--jobs", jobs, "--format", "json"], capture_output=True, text=True,
                          timeout=args.timeout, check=False)
    wall = time.perf_counter() - started
    cpu = _children_cpu() - used
    load = f"{load_before:.1f}-{os.getloadavg()[0]:.1f}"
    try:
        summary = json.loads(done.stdout)["summary"]
    except (ValueError, KeyError):
        print(f"{path.name:40} {jobs:>4} failed (exit {done.returncode}): {done.stderr.strip()[-200:]}")
        return None
    ops = summary["operations"] or 1
    print(f"{path.name[:40]:40} {jobs:>4} {summary['operations']:>5} {summary['sets']:>6} {summary['sent']:>6} "
          f"{wall:7.1f} {cpu:7.1f} {load:>9} {summary['sent'] / wall:7.1f} {1000 * wall / ops:7.0f}  "
          f"{summary['classifications']}", flush=True)
    return summary


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
