"""The round trip as a user runs it: `workbench roundtrip FILE --examples 3 --format json`, timed whole.

    python bench/roundtrip.py [--files GLOB ...] [--examples N] [--corpus DIR]

Per file: wall seconds of the whole command (load, conversion, mock start, generation, every call, the
judge), argument sets sent, sets per second, milliseconds per operation, and the classifications. The aim
(issue: round trip) is the whole GitHub file with 3 generated sets per tool in under a minute on 2 cores.
No peer sends a tool conversion's calls through its executor; these are figures, not ratios.
"""

from __future__ import annotations

import argparse
import json
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
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--corpus")
    args = parser.parse_args()
    files = peers.select_files(peers.corpus_dir(args.corpus), args.files)
    print(f"{'file':40} {'ops':>5} {'sets':>6} {'sent':>6} {'secs':>7} {'sets/s':>7} {'ms/op':>7}  classifications")
    for path in files:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "workbench", "roundtrip", str(path), "--examples",
                               str(args.examples), "--format", "json"], capture_output=True, text=True,
                              timeout=args.timeout, check=False)
        wall = time.perf_counter() - started
        try:
            summary = json.loads(done.stdout)["summary"]
        except (ValueError, KeyError):
            print(f"{path.name:40} failed (exit {done.returncode}): {done.stderr.strip()[-200:]}")
            continue
        ops = summary["operations"] or 1
        print(f"{path.name[:40]:40} {summary['operations']:>5} {summary['sets']:>6} {summary['sent']:>6} "
              f"{wall:7.1f} {summary['sent'] / wall:7.1f} {1000 * wall / ops:7.0f}  {summary['classifications']}",
              flush=True)


if __name__ == "__main__":
    main()
