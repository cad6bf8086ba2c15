"""Loader benchmark over the real-world corpus: parse, full load, lazy JSON index, libyaml vs pure Python.

    python bench/load.py [--repeat N] [--files GLOB] [--corpus DIR]

Every corpus file is measured in its own fresh subprocess, so each file's peak memory is its own. Times are
the best of N runs (time.perf_counter). This prints figures; it checks nothing and never fails on a slow
result. The corpus directory is --corpus, else $WORKBENCH_CORPUS, else ../shared/corpus beside the repo.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
SUFFIXES = (".json", ".yaml", ".yml")
PURE_YAML_FILES = 4  # the pure-Python YAML parser is timed on this many of the largest YAML files
HEADLINE_FILES = 4
WORKER_TIMEOUT_S = 600

MEMORY_METHOD = ("peak MiB = growth of ru_maxrss (getrusage RUSAGE_SELF) during the first load_spec in a "
                 "fresh process, over its baseline after imports")


# ----------------------------------------------------------------------------------------------------------
# Worker: one file, one fresh process. Prints one JSON object on stdout.
# ----------------------------------------------------------------------------------------------------------


def _maxrss_mib() -> float:
    import resource

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 2**10  # bytes on macOS, KiB on Linux


def _rss_inherited(baseline_mib: float) -> bool:
    """ru_maxrss survives exec on Linux: True when the baseline is the parent's peak, not this process's."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return baseline_mib > int(line.split()[1]) / 2**10 + 1
    return False


def _best_ms(repeat: int, run: Callable[[], float]) -> float:
    """Best of `repeat` runs; `run` returns the seconds of the part it timed."""
    import gc

    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        best = min(best, run())
    return best * 1000


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def worker(path: Path, repeat: int, pure: bool) -> dict[str, Any]:
    import gc

    sys.path.insert(0, str(REPO))  # measure this checkout's code, whatever else is installed
    import yaml

    import workbench.spec.yaml_parse as yaml_parse
    from workbench.spec import load_spec
    from workbench.spec.source import parse_document

    gc.collect()
    baseline_mib = _maxrss_mib()
    spec = load_spec(path)  # first load: its memory high-water mark; it also warms up the code paths
    peak_mib = _maxrss_mib() - baseline_mib
    fmt = spec.root.format
    result: dict[str, Any] = {"format": fmt, "operations": len(spec.operations), "peak_mib": peak_mib,
                              "rss_inherited": _rss_inherited(baseline_mib)}
    text = spec.root.text  # as the loader decoded it (a BOM already dropped)
    del spec

    result["parse_ms"] = _best_ms(repeat, lambda: _timed(lambda: parse_document(path)))
    result["load_ms"] = _best_ms(repeat, lambda: _timed(lambda: load_spec(path)))

    if fmt == "json":
        prebuilt = False

        def index_once() -> float:
            nonlocal prebuilt
            document = parse_document(path)
            prebuilt = prebuilt or document._index is not None  # duplicate keys: built during parse
            gc.collect()
            return _timed(lambda: document.index)

        result["index_ms"] = _best_ms(repeat, index_once)
        result["index_prebuilt"] = prebuilt
        result["baseline_ms"] = _best_ms(repeat, lambda: _timed(lambda: json.loads(text)))
        result["baseline"] = "json.loads"
    else:
        c_loader = getattr(yaml, "CSafeLoader", None)
        loader = c_loader or yaml.SafeLoader
        result["baseline_ms"] = _best_ms(repeat, lambda: _timed(lambda: yaml.load(text, Loader=loader)))
        result["baseline"] = "yaml.load/CSafeLoader" if c_loader else "yaml.load/SafeLoader (no libyaml)"
        if pure:
            saved = yaml_parse._EventLoader
            yaml_parse._EventLoader = yaml.SafeLoader
            try:
                result["pure_operations"] = len(load_spec(path).operations)  # also a warm-up
                result["pure_ms"] = _best_ms(repeat, lambda: _timed(lambda: load_spec(path)))
            finally:
                yaml_parse._EventLoader = saved
    result["libyaml"] = yaml_parse.libyaml()
    result["pyyaml"] = yaml.__version__
    return result


# ----------------------------------------------------------------------------------------------------------
# Driver: pick the files, run one worker per file, print the tables.
# ----------------------------------------------------------------------------------------------------------


def corpus_dir(option: str | None) -> Path:
    if option:
        return Path(option)
    env = os.environ.get("WORKBENCH_CORPUS")
    return Path(env) if env else DEFAULT_CORPUS


def select_files(corpus: Path, pattern: str) -> list[Path]:
    files = [p for p in corpus.iterdir()
             if p.is_file() and p.suffix.lower() in SUFFIXES and fnmatch.fnmatch(p.name, pattern)]
    return sorted(files, key=lambda p: (-p.stat().st_size, p.name))


def run_worker(path: Path, repeat: int, pure: bool) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", str(path), "--repeat", str(repeat)]
    if pure:
        command.append("--pure")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=WORKER_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {WORKER_TIMEOUT_S} s"}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        return {"error": lines[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "—"
    if value < 1:
        return f"{value:.2f}"
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def fmt_ratio(numerator: float | None, denominator: float | None) -> str:
    if numerator is None or not denominator:
        return "—"
    return f"{numerator / denominator:.2f}"


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    print(title)
    if not rows:
        print("  (no files)\n")
        return
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True))
        return "  " + "  ".join([first, *rest])

    print(line(header))
    print("  " + "  ".join("-" * width for width in widths))
    for row in rows:
        print(line(row))
    print()


Result = tuple[Path, int, dict[str, Any]]  # (file, bytes, what its worker measured)


def report(results: list[Result], repeat: int, corpus: Path, elapsed: float) -> None:
    ok = [(p, size, r) for p, size, r in results if "error" not in r]
    failed = [(p, r["error"]) for p, _, r in results if "error" in r]

    json_rows, yaml_rows = [], []
    for path, size, r in ok:
        common = [path.name, f"{size / 1024:.0f}", str(r["operations"]),
                  fmt_ms(r["parse_ms"]), fmt_ms(r["load_ms"])]
        tail = [fmt_ms(r["baseline_ms"]), fmt_ratio(r["load_ms"], r["baseline_ms"]), f"{r['peak_mib']:.1f}"]
        if r["format"] == "json":
            index = fmt_ms(r["index_ms"]) + ("*" if r.get("index_prebuilt") else "")
            json_rows.append([*common, index, *tail])
        else:
            pure = r.get("pure_ms")
            yaml_rows.append([*common, fmt_ms(pure), fmt_ratio(r["load_ms"], pure), *tail])

    print_table("JSON files (baseline = json.loads of the same text; ratio = load / baseline)",
                ["file", "KB", "ops", "parse ms", "load ms", "index ms", "baseline ms", "ratio", "peak MiB"],
                json_rows)
    if any(r.get("index_prebuilt") for _, _, r in ok):
        print("  * index already built during parse (duplicate keys found); figure is the cached access\n")
    print_table("YAML files (baseline = yaml.load(text, Loader=CSafeLoader); ratio = load / baseline; "
                "pure ms = load with SafeLoader events; libyaml/pure = load ms / pure ms)",
                ["file", "KB", "ops", "parse ms", "load ms", "pure ms", "libyaml/pure", "baseline ms",
                 "ratio", "peak MiB"],
                yaml_rows)
    for path, r in ((p, r) for p, _, r in ok if "pure_operations" in r):
        if r["pure_operations"] != r["operations"]:
            print(f"  note: {path.name}: pure-Python path found {r['pure_operations']} operations, "
                  f"libyaml path {r['operations']}\n")

    if ok:
        print(f"Headline (the {min(HEADLINE_FILES, len(ok))} largest files)")
        for path, size, r in ok[:HEADLINE_FILES]:
            print(f"  {path.name} ({r['format']}, {size / 1024:.0f} KB, {r['operations']} operations)")
            ratio = fmt_ratio(r["load_ms"], r["baseline_ms"])
            parts = [f"load {fmt_ms(r['load_ms'])} ms",
                     f"{ratio}x {r['baseline']} ({fmt_ms(r['baseline_ms'])} ms)",
                     f"parse {fmt_ms(r['parse_ms'])} ms"]
            if r["format"] == "json":
                parts.append(f"lazy position index {fmt_ms(r['index_ms'])} ms on first use")
            print("    " + "; ".join(parts))
            extra = [f"peak +{r['peak_mib']:.1f} MiB"]
            if r.get("pure_ms"):
                speedup = r["pure_ms"] / r["load_ms"]
                extra.append(f"pure-Python parser {fmt_ms(r['pure_ms'])} ms (libyaml/pure "
                             f"{fmt_ratio(r['load_ms'], r['pure_ms'])}, {speedup:.1f}x faster with libyaml)")
            print("    " + "; ".join(extra))
        total_load = sum(r["load_ms"] for _, _, r in ok)
        print(f"  all {len(ok)} files: total best-of-{repeat} load {fmt_ms(total_load)} ms")
        print()

    if any(r.get("rss_inherited") for _, _, r in ok):
        print("note: some workers started with the parent's ru_maxrss; their peak MiB is understated\n")
    for path, error in failed:
        print(f"FAILED {path.name}: {error}")
    print(f"{len(ok)} files measured, {len(failed)} failed, in {elapsed:.1f} s wall (corpus {corpus})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept (3)")
    parser.add_argument("--files", default="*", help="glob on corpus file names, e.g. '*.yaml' (all)")
    parser.add_argument("--corpus", help="corpus directory (default: $WORKBENCH_CORPUS or ../shared/corpus)")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--pure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    if args.worker is not None:
        print(json.dumps(worker(args.worker, args.repeat, args.pure)))
        return 0

    corpus = corpus_dir(args.corpus)
    if not corpus.is_dir():
        print(f"bench/load.py: no corpus directory at {corpus} (use --corpus or WORKBENCH_CORPUS)",
              file=sys.stderr)
        return 2
    files = select_files(corpus, args.files)
    if not files:
        print(f"bench/load.py: no .json/.yaml files in {corpus} match {args.files!r}", file=sys.stderr)
        return 1
    pure = {p for p in files if p.suffix.lower() in (".yaml", ".yml")}
    pure = set(sorted(pure, key=lambda p: -p.stat().st_size)[:PURE_YAML_FILES])

    print(f"Loader benchmark: {len(files)} files from {corpus}, sorted by size; best of {args.repeat} "
          "(time.perf_counter), one fresh process per file")
    print(f"Python {platform.python_version()} ({platform.python_implementation()}) on {platform.machine()}, "
          f"{os.cpu_count()} CPUs")
    print(f"{MEMORY_METHOD}; parse/load include reading the file, baselines get the text already read")
    print()

    started = time.perf_counter()
    results = []
    show_progress = sys.stderr.isatty()
    for number, path in enumerate(files, 1):
        if show_progress:
            print(f"\r  [{number}/{len(files)}] {path.name:<60}", end="", file=sys.stderr, flush=True)
        results.append((path, path.stat().st_size, run_worker(path, args.repeat, path in pure)))
    if show_progress:
        print("\r" + " " * 70 + "\r", end="", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started

    measured = [r for _, _, r in results if "error" not in r]
    if measured:
        first = measured[0]
        parser_name = "libyaml (CSafeLoader)" if first["libyaml"] else "pure Python (SafeLoader: no libyaml)"
        print(f"PyYAML {first['pyyaml']}; workbench YAML event parser: {parser_name}")
        print()
    report(results, args.repeat, corpus, elapsed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
