"""`workbench serve-mcp` start-up as a stdio client sees it: from spawning the server to the whole first
`tools/list` answer on the pipe, with the list built afresh (`--no-cache`, a first start) and kept from an
earlier start (the second), on the largest corpus files.

    python bench/mcp_start.py [--files NAME ...] [--repeat N] [--dynamic]

Figures, not checks: medians of N runs of each."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
DEFAULT = ("github-api.github.com-2022-07-18.json", "kubernetes-swagger.json")


def first_list(spec: Path, cache: Path, *extra: str) -> tuple[float, int, int]:
    """Seconds to the whole first tools/list answer, its size in bytes, and the tool count."""
    env = {"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "workbench", "serve-mcp", str(spec), "--mock", *extra],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    for message in ({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "bench", "version": "0"}}},
                    {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}):
        process.stdin.write((json.dumps(message) + "\n").encode())
    process.stdin.flush()
    process.stdout.readline()  # the initialize answer
    line = process.stdout.readline()
    elapsed = time.perf_counter() - started
    process.stdin.close()  # the end of the session: the server writes the list it keeps, then exits
    process.stdout.read()
    process.wait(120)
    return elapsed, len(line), len(json.loads(line)["result"]["tools"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", nargs="*", default=list(DEFAULT))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dynamic", action="store_true")
    args = parser.parse_args()
    extra = ("--dynamic",) if args.dynamic else ()
    print(f"{'spec':42} {'tools':>6} {'list MB':>8} {'first start s':>14} {'kept list s':>12}")
    for name in args.files:
        spec = CORPUS / name
        with tempfile.TemporaryDirectory() as cache:
            fresh = [first_list(spec, Path(cache), "--no-cache", *extra) for _ in range(args.repeat)]
            first_list(spec, Path(cache), *extra)  # keeps the list
            kept = [first_list(spec, Path(cache), *extra) for _ in range(args.repeat)]
        print(f"{name:42} {fresh[0][2]:>6} {fresh[0][1] / 1e6:>8.1f} "
              f"{statistics.median(t for t, _, _ in fresh):>14.2f} {statistics.median(t for t, _, _ in kept):>12.2f}")


if __name__ == "__main__":
    main()
