"""Lint speed and memory side by side: our `workbench lint` against Spectral CLI and Redocly CLI, same run.

    python bench/lint.py [--files NAME_OR_GLOB ...] [--skip-spectral] [--repeat N] [--ours-runs K]
                         [--spectral-repeat N] [--timeout S] [--corpus DIR] [--workbench DIR] [--cold-cache]

Each tool runs as its own whole process on the same corpus file, one after the other (never in parallel), in
rounds: ours, Redocly, ours, Spectral, ours, then again, N (3) rounds, so that drift on a shared machine hits all
three alike; ours, a tenth of a peer's time or less, runs K (3) times a round, spread around the peers' runs, so
that its median samples the stretch of time a peer's long run averages over. Each figure is the median wall time
of its runs (Spectral: of its first --spectral-repeat rounds, default N; it takes 6–60 s per large spec) and the
highest peak MiB seen, measured the same way for all three (see
bench/peers.py: GNU time %M when available). Ours is `python -m workbench lint SPEC --format json` with this
checkout's package (or --workbench DIR's), its bytecode compiled beforehand as an installed package has it, with
the user's cache folder as it is (after one run it holds the compiled patterns) or, with --cold-cache, an empty one
for every run (a first run on a machine, as a fresh CI container has it).
The ratios are peer / ours, so 10.0 means the peer took ten times as long. Figures, not checks: this never
fails on a slow result.

The peers install on first use into bench/.peers/ (git-ignored). The corpus directory is --corpus, else
$WORKBENCH_CORPUS, else ../shared/corpus beside the repository; corpus files are read in place, never copied.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import peers

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FILES = ("github-api.github.com-2022-07-18.json", "kubernetes-swagger.json", "openai-openapi.yaml")


def median_of(runs: list[peers.Run]) -> peers.Run | None:
    """The run with the median wall time of those that worked (its peak: the highest seen over all of them);
    the first failure when none worked; None when there were no runs."""
    if not runs:
        return None
    good = sorted((r for r in runs if not r.failed), key=lambda r: r.wall_s)
    if not good:
        return runs[0]
    middle = statistics.median(r.wall_s for r in good)
    peaks = [r.peak_mib for r in good if r.peak_mib is not None]
    return good[len(good) // 2]._replace(wall_s=middle, peak_mib=max(peaks) if peaks else None)


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
    parser.add_argument("--repeat", type=int, default=3, help="rounds (ours, Redocly, Spectral); medians (3)")
    parser.add_argument("--ours-runs", type=int, default=3,
                        help="runs of ours per round, spread around the peers' runs (3)")
    parser.add_argument("--spectral-repeat", type=int, default=None,
                        help="rounds in which Spectral runs too (default: all of them)")
    parser.add_argument("--timeout", type=float, default=peers.DEFAULT_TIMEOUT_S,
                        help=f"seconds per command before it is killed ({peers.DEFAULT_TIMEOUT_S})")
    parser.add_argument("--corpus", help="corpus directory (default: $WORKBENCH_CORPUS or ../shared/corpus)")
    parser.add_argument("--workbench", type=Path, default=REPO,
                        help="the checkout whose `workbench lint` is timed (default: this one)")
    parser.add_argument("--cold-cache", action="store_true",
                        help="ours with an empty cache folder every run (a first run on a machine)")
    args = parser.parse_args(argv)
    repeat = max(1, args.repeat)
    ours_runs = max(1, args.ours_runs)
    spectral_rounds = 0 if args.skip_spectral else min(repeat, args.spectral_repeat or repeat)

    corpus = peers.corpus_dir(args.corpus)
    files = peers.select_files(corpus, args.files)
    started = time.perf_counter()
    peers.ensure_peers()
    peers.prepare_ours(args.workbench)

    rows, counts, problems = [], [], []
    for path in files:
        runs: dict[str, list[peers.Run]] = {"ours": [], "redocly": [], "spectral": []}
        for round_ in range(repeat):
            progress(f"{path.name}: round {round_ + 1} of {repeat}")
            in_round = [("redocly", peers.run_redocly)] + ([("spectral", peers.run_spectral)]
                                                           if round_ < spectral_rounds else [])
            # Ours (a tenth of a peer's time or less) runs `--ours-runs` times a round, spread before, between and
            # after the peers' runs: its median then samples the same stretch of the machine's time as a peer's
            # seconds-long run averages over (a shared machine's speed moves by 1.5x within seconds).
            slots = len(in_round) + 1
            for slot in range(slots):
                for _ in range(ours_runs // slots + (slot < ours_runs % slots)):
                    runs["ours"].append(peers.run_ours(path, args.timeout, args.workbench,
                                                         cold_cache=args.cold_cache))
                if slot < len(in_round):
                    name, run_peer = in_round[slot]
                    runs[name].append(run_peer(path, args.timeout))
        ours, redocly, spectral = (median_of(runs[name]) for name in ("ours", "redocly", "spectral"))
        assert ours is not None and redocly is not None
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
    print(f"s = wall seconds, median of {repeat} alternating rounds (Spectral: of {spectral_rounds}; ours: of "
          f"{repeat * ours_runs}, {ours_runs} a round around the peers' runs); "
          f"{peers.memory_method()}, highest over the runs; ratios = peer / ours (time, then memory); timeout "
          f"{args.timeout:.0f} s; ours = the workbench package of {args.workbench.resolve()}, "
          f"{'an empty cache folder every run' if args.cold_cache else 'the cache folder as it is'}\n")
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
