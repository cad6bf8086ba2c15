"""Lint speed and memory side by side: our `workbench lint` against Spectral CLI and Redocly CLI, same run.

    python bench/lint.py [--files NAME_OR_GLOB ...] [--skip-spectral] [--repeat N] [--timeout S] [--corpus DIR]

Each tool runs as its own subprocess on the same corpus file, one after the other (never in parallel): ours
and Redocly best of N (3) wall times, Spectral once (it takes 6–60 s per large spec). Peak MiB is measured the
same way for all three (see bench/peers.py: GNU time %M when available). The ratios are peer / ours, so 10.0
means the peer took ten times as long. Figures, not checks: this never fails on a slow result.

The peers install on first use into bench/.peers/ (git-ignored). The corpus directory is --corpus, else
$WORKBENCH_CORPUS, else ../shared/corpus beside the repository; corpus files are read in place, never copied.
"""

from __future__ import annotations

import sys

# This folder holds bench/select.py, named like the standard library's `select`: it must not shadow it
# (subprocess imports select). It is put back last below, where `import peers` still finds it.
sys.path[:] = [p for p in sys.path if p and __file__.rpartition("/")[0] != p.rstrip("/")]

import argparse  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.append(str(Path(__file__).resolve().parent))  # last: see the top of this file

import peers  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FILES = ("github-api.github.com-2022-07-18.json", "kubernetes-swagger.json", "openai-openapi.yaml")




def best_of(repeat: int, run) -> peers.Run:
    """Best wall time of `repeat` runs; its peak is the highest seen over all of them. First failure wins."""
    runs = []
    for _ in range(repeat):
        one = run()
        if one.failed:
            return one
        runs.append(one)
    best = min(runs, key=lambda r: r.wall_s)
    peaks = [r.peak_mib for r in runs if r.peak_mib is not None]
    return best._replace(peak_mib=max(peaks) if peaks else None)


def fmt_s(run: peers.Run | None) -> str:
    if run is None:
        return "skipped"
    if run.failed:
        return "timeout" if run.timed_out else "failed"
    return f"{run.wall_s:.2f}" if run.wall_s < 10 else f"{run.wall_s:.1f}"


def fmt_mib(run: peers.Run | None) -> str:
    if run is None or run.failed:
        return "—"
    return "n/a" if run.peak_mib is None else f"{run.peak_mib:.0f}"


def fmt_ratio(peer: peers.Run | None, ours: peers.Run, field: str) -> str:
    if peer is None or peer.failed or ours.failed:
        return "—"
    a, b = getattr(peer, field), getattr(ours, field)
    if a is None or not b:
        return "n/a"
    return f"{a / b:.1f}x"


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        return ("  " + "  ".join([cells[0].ljust(widths[0]),
                                  *(c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))])).rstrip()

    print(line(header))
    print("  " + "  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))
    print()


def progress(text: str) -> None:
    print(f"[bench] {text}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", nargs="+", default=list(DEFAULT_FILES),
                        help="corpus file names or globs (default: the GitHub, Kubernetes and OpenAI specs)")
    parser.add_argument("--skip-spectral", action="store_true", help="do not run Spectral (the slow peer)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of ours and Redocly; the best is kept (3)")
    parser.add_argument("--timeout", type=float, default=peers.DEFAULT_TIMEOUT_S,
                        help=f"seconds per command before it is killed ({peers.DEFAULT_TIMEOUT_S})")
    parser.add_argument("--corpus", help="corpus directory (default: $WORKBENCH_CORPUS or ../shared/corpus)")
    args = parser.parse_args(argv)

    corpus = peers.corpus_dir(args.corpus)
    files = peers.select_files(corpus, args.files)
    started = time.perf_counter()
    peers.ensure_peers()

    rows, counts, problems = [], [], []
    for path in files:
        progress(f"{path.name}: ours x{args.repeat}")
        ours = best_of(args.repeat, lambda p=path: peers.run_ours(p, args.timeout))
        progress(f"{path.name}: redocly x{args.repeat}")
        redocly = best_of(args.repeat, lambda p=path: peers.run_redocly(p, args.timeout))
        spectral = None
        if not args.skip_spectral:
            progress(f"{path.name}: spectral x1")
            spectral = peers.run_spectral(path, args.timeout)
        rows.append([path.name, f"{path.stat().st_size / 2**20:.1f}",
                     fmt_s(ours), fmt_mib(ours), fmt_s(spectral), fmt_mib(spectral), fmt_s(redocly), fmt_mib(redocly),
                     fmt_ratio(spectral, ours, "wall_s"), fmt_ratio(spectral, ours, "peak_mib"),
                     fmt_ratio(redocly, ours, "wall_s"), fmt_ratio(redocly, ours, "peak_mib")])
        counts.append([path.name, *(str(peers.count_findings("", r.output)) if r and not r.failed else "—"
                                    for r in (ours, spectral, redocly))])
        for name, run in (("ours", ours), ("spectral", spectral), ("redocly", redocly)):
            if run is not None and run.failed:
                problems.append(f"{path.name}: {name} {run.failed}")

    print(f"Lint side by side — {peers.versions_line()}; Python {platform.python_version()}; "
          f"{os.cpu_count()} CPUs; {platform.machine()}")
    print(f"s = wall seconds (ours and Redocly best of {args.repeat}, Spectral 1 run); {peers.memory_method()}, "
          f"highest over the runs; ratios = peer / ours (time, then memory); timeout {args.timeout:.0f} s\n")
    print_table(["file", "MB", "ours s", "ours MiB", "spectral s", "spectral MiB", "redocly s", "redocly MiB",
                 "spectral/ours s", "spectral/ours MiB", "redocly/ours s", "redocly/ours MiB"], rows)
    print("Findings reported (ours: all severities, default config; Spectral: spectral:oas recommended; "
          "Redocly: built-in recommended, errors + warnings from its totals)")
    print_table(["file", "ours", "spectral", "redocly"], counts)
    for line in problems:
        print(f"PROBLEM {line}")
    print(f"{len(files)} files in {time.perf_counter() - started:.0f} s wall (corpus {corpus})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
