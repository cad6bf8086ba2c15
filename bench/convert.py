"""Tool-conversion speed and coverage side by side: our converter against @samchon/openapi, same run, same files.

    python bench/convert.py [--files NAME_OR_GLOB ...] [--repeat N] [--timeout S] [--corpus DIR] [--no-samchon-models]
                            [--whole-only]

Whole commands first, the figure a user feels: `workbench tools SPEC --vendor openai --include-deprecated --format
json` in a fresh process (this checkout's package, or --workbench DIR's, `python -m workbench`, bytecode compiled
beforehand as an installed package has it) beside a fresh node process running the
peer once with model chatgpt on the same document, alternating ours / peer, N (3) times each; the median wall time
and the highest peak MiB of each (GNU time %M, bench/peers.py). Ours reads the corpus file as it is (YAML too);
the peer reads JSON. --whole-only stops there (no in-process rows).

Ours: in-process, `convert(spec, ConvertOptions(vendor=..., strict=...))` for openai, openai --strict, anthropic,
gemini and mcp, plus openai with deprecated operations included (the peer has no scope filter, so that row is the
like-for-like one). Times are time.perf_counter around `convert` only, first run and best of N; loading the spec
is timed separately (best of N) and excluded. The tokenizer used for token estimates is loaded once before any
timing (it is a one-off per process, not per spec).

Peer: @samchon/openapi 5.1.0 (docs/peers.md), `HttpLlm.application({model, document: JSON.parse(text)})` in Node,
which calls `OpenApi.convert(document)` itself (timed alone as well, for information). The document is parsed afresh
before each run (outside the timed region) so that no run sees an input mutated by the previous one. A cold process
converts once with model "chatgpt": its first-run time, whole-process wall time (node start-up, read, parse, one
conversion, print) and peak MiB (GNU time %M, see bench/peers.py). A second process gives the best of N for
chatgpt, chatgpt strict, claude and gemini (the per-vendor rows; the JIT is warm after the first run). YAML corpus
files are converted to JSON in a temporary directory outside the repository (from our loader's parsed document)
because the peer takes JSON; corpus files are never copied into the repository. The Node script is written to
bench/.peers/samchon/ (git-ignored); the package installs there on first use (bench/peers.py ensure_samchon).

"Converted / left out" for ours: tools; scope exclusions (deprecated, hidden); conversion failures (reasons
starting "conversion failed"). For the peer: `functions` and `errors` (every error is a rejected operation). A
peer crash on the whole document counts as 0 converted. Figures, not checks: this never fails on a slow result.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import peers

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's workbench, whatever else is installed

from workbench.spec import load_spec  # noqa: E402
from workbench.tools import ConvertOptions, Scope, convert  # noqa: E402

DEFAULT_FILES = ("github-api.github.com-2022-07-18.json", "kubernetes-swagger.json", "openai-openapi.yaml",
                 "box-openapi.json", "twilio-verify-v2.yaml")
DEFAULT_TIMEOUT_S = 600
SHOW_REASONS = 5
SETTINGS: tuple[tuple[str, ConvertOptions], ...] = (
    ("openai", ConvertOptions(vendor="openai")),
    ("openai --strict", ConvertOptions(vendor="openai", strict=True)),
    ("anthropic", ConvertOptions(vendor="anthropic")),
    ("gemini", ConvertOptions(vendor="gemini")),
    ("mcp", ConvertOptions(vendor="mcp")),
    ("openai +deprecated", ConvertOptions(vendor="openai", scope=Scope(include_deprecated=True))),
)
HEADLINE_MODEL = "chatgpt"
EXTRA_MODELS = ("chatgpt:strict", "claude", "gemini")  # after chatgpt, in the best-of-N process

NODE_SCRIPT = r"""'use strict';
// Written by bench/convert.py. argv: FILE REPEAT MODELS(comma list, "model" or "model:strict")
// TIME_CONVERT (1: also time OpenApi.convert alone, before each HttpLlm.application run)
const fs = require('fs');
const { performance } = require('perf_hooks');
const { HttpLlm, OpenApi } = require('@samchon/openapi');
const version = require('@samchon/openapi/package.json').version;
const [file, repeatArg, modelsArg, timeConvertArg] = process.argv.slice(2);
const repeat = Math.max(1, parseInt(repeatArg || '1', 10));
const out = { version, node: process.version, models: [] };
let t = performance.now();
const text = fs.readFileSync(file, 'utf8');
out.read_ms = performance.now() - t;
t = performance.now();
JSON.parse(text);
out.parse_ms = performance.now() - t;
const oneLine = (e) => String((e && e.stack) || e).split('\n').slice(0, 2).join(' | ').slice(0, 300);
for (const spec of (modelsArg || 'chatgpt').split(',')) {
  const [model, flag] = spec.split(':');
  const options = flag === 'strict' ? { strict: true } : undefined;
  const row = { label: spec, model, strict: flag === 'strict', times_ms: [], convert_ms: [] };
  let app = null;
  for (let i = 0; i < repeat; i++) {
    if (timeConvertArg === '1') {
      const raw = JSON.parse(text);
      t = performance.now();
      try {
        OpenApi.convert(raw);
        row.convert_ms.push(performance.now() - t);
      } catch (e) {
        row.convert_error = oneLine(e);
      }
    }
    const doc = JSON.parse(text);
    t = performance.now();
    try {
      app = HttpLlm.application({ model, document: doc, options });
    } catch (e) {
      row.crash = oneLine(e);
      break;
    }
    row.times_ms.push(performance.now() - t);
  }
  if (app && !row.crash) {
    row.functions = app.functions.length;
    row.errors = app.errors.length;
    row.rejected = app.errors.map((e) => ({ method: e.method, path: e.path, messages: e.messages }));
  }
  out.models.push(row);
}
process.stdout.write(JSON.stringify(out));
"""


# ----------------------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------------------




def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return (time.perf_counter() - start) * 1000, result


def fmt_ms(ms: float | None) -> str:
    if ms is None:
        return "—"
    return f"{ms:.1f}" if ms < 100 else f"{ms:.0f}"


def short(text: str, width: int = 150) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def is_failure(rejected) -> bool:
    """`rejected`: a tool set's `Rejected` (an operation left out, with why)."""
    return rejected.reason.startswith("conversion failed")


# ----------------------------------------------------------------------------------------------------------
# Ours
# ----------------------------------------------------------------------------------------------------------


def warm_up() -> float:
    """Load the token-estimate tokenizer once (a per-process one-off, ~0.5 s) so no spec's first run pays it."""
    from workbench.tools import tokens

    start = time.perf_counter()
    tokens.count("warm up")
    return (time.perf_counter() - start) * 1000


def run_ours(path: Path, repeat: int) -> tuple[Any, dict[str, Any]]:
    load_times = []
    spec = None
    for _ in range(repeat):
        spec = None
        ms, spec = timed(lambda: load_spec(path))
        load_times.append(ms)
    assert spec is not None
    result: dict[str, Any] = {"load_ms": min(load_times), "operations": len(spec.operations),
                              "version": spec.spec_version, "rows": []}
    for label, options in SETTINGS:
        times = []
        toolset = None
        for _ in range(repeat):
            toolset = None
            ms, toolset = timed(lambda options=options: convert(spec, options))
            times.append(ms)
        assert toolset is not None
        failed = [r for r in toolset.rejected if is_failure(r)]
        excluded = [r for r in toolset.rejected if not is_failure(r)]
        result["rows"].append({"label": label, "first_ms": times[0], "best_ms": min(times),
                               "tools": len(toolset.tools), "excluded": excluded, "failed": failed,
                               "warnings": len(toolset.warnings)})
    return spec, result


def print_ours(result: dict[str, Any], repeat: int) -> None:
    print(f"  ours: load {fmt_ms(result['load_ms'])} ms (best of {repeat}, not included below)")
    print(f"    {'setting':<20} {'first ms':>9} {'best ms':>9} {'tools':>6} {'excluded':>9} {'failed':>7} "
          f"{'warnings':>9}")
    for row in result["rows"]:
        print(f"    {row['label']:<20} {fmt_ms(row['first_ms']):>9} {fmt_ms(row['best_ms']):>9} {row['tools']:>6} "
              f"{len(row['excluded']):>9} {len(row['failed']):>7} {row['warnings']:>9}")
    openai = result["rows"][0]
    if openai["excluded"]:
        tally = Counter(r.reason for r in openai["excluded"])
        print("    scope exclusions (openai): " + "; ".join(f"{n} × {short(reason, 80)}" for reason, n in
                                                             tally.most_common()))
    failures = {id(r): (row["label"], r) for row in result["rows"] for r in row["failed"]}
    if failures:
        print("    conversion failures (first few, any setting):")
        seen = set()
        for label, r in failures.values():
            key = (r.method, r.path, r.reason)
            if key in seen:
                continue
            seen.add(key)
            print(f"      [{label}] {r.method.upper()} {r.path}: {short(r.reason, 120)}")
            if len(seen) >= SHOW_REASONS:
                break
    else:
        print("    conversion failures: none in any setting")


# ----------------------------------------------------------------------------------------------------------
# Peer: @samchon/openapi
# ----------------------------------------------------------------------------------------------------------


def node_script() -> Path:
    script = peers.SAMCHON_DIR / "convert-bench.cjs"
    if not script.exists() or script.read_text() != NODE_SCRIPT:
        script.write_text(NODE_SCRIPT)
    return script


def json_input(path: Path, spec: Any, scratch: Path) -> tuple[Path, float]:
    """The file the peer reads: the corpus file itself when JSON, else a JSON dump in `scratch` (outside the repo)."""
    if path.suffix.lower() == ".json":
        return path, 0.0
    start = time.perf_counter()
    target = scratch / (path.stem + ".json")
    with target.open("w", encoding="utf-8") as sink:
        json.dump(spec.root.data, sink, default=str)
    return target, (time.perf_counter() - start) * 1000


def run_samchon(document: Path, repeat: int, models: list[str], timeout: float,
                time_convert: bool) -> tuple[peers.Run, dict | None]:
    command = ["node", str(node_script()), str(document), str(repeat), ",".join(models), "1" if time_convert else "0"]
    run = peers.measure(command, timeout=timeout, cwd=peers.SAMCHON_DIR, env={"NO_COLOR": "1"})
    return run, run.output if isinstance(run.output, dict) and not run.failed else None


def message_kind(message: str) -> str:
    """A peer message with its particulars (lengths, schema names) blanked, so that like messages count together."""
    message = re.sub(r"but [\d,]+ length", "but N length", message)
    return re.sub(r'\["[^"]*"\]', '["…"]', message)


def print_samchon(cold: peers.Run, cold_out: dict | None, warm: peers.Run, warm_out: dict | None, repeat: int,
                  dump_ms: float) -> None:
    if cold_out is None:
        why = cold.failed or "no output"
        print(f"  @samchon/openapi: the cold node process failed ({why}); stderr: {short(cold.stderr[-300:], 300)}")
    else:
        row = cold_out["models"][0]
        note = f"; YAML→JSON dump {fmt_ms(dump_ms)} ms (not included)" if dump_ms else ""
        peak = "n/a" if cold.peak_mib is None else f"{cold.peak_mib:.0f}"
        took = "CRASH" if row.get("crash") else f"{fmt_ms(row['times_ms'][0])} ms"
        print(f"  @samchon/openapi {cold_out['version']} (node {cold_out['node']}), cold process, model chatgpt: "
              f"HttpLlm.application {took}; read {fmt_ms(cold_out['read_ms'])} ms, JSON.parse "
              f"{fmt_ms(cold_out['parse_ms'])} ms (not included){note}; whole process {cold.wall_s:.2f} s wall, "
              f"peak {peak} MiB")
    if warm_out is None:
        print(f"    best-of-{repeat} process failed ({warm.failed or 'no output'}); "
              f"stderr: {short(warm.stderr[-300:], 300)}")
        return
    print(f"    {'model (best of ' + str(repeat) + ')':<20} {'first ms':>9} {'best ms':>9} {'functions':>10} "
          f"{'errors':>7} {'OpenApi.convert alone, best ms':>31}")
    for row in warm_out["models"]:
        label = row["label"].replace(":", " ")
        conv = fmt_ms(min(row["convert_ms"])) if row.get("convert_ms") else "—"
        if row.get("crash"):
            print(f"    {label:<20} {'—':>9} {'—':>9} {'CRASH':>10} {'—':>7} {conv:>31}")
            continue
        times = row["times_ms"]
        print(f"    {label:<20} {fmt_ms(times[0]):>9} {fmt_ms(min(times)):>9} {row['functions']:>10} "
              f"{row['errors']:>7} {conv:>31}")
    first = warm_out["models"][0]
    if first.get("crash"):
        print(f"    HttpLlm.application threw on the whole document: {short(first['crash'], 260)}")
        if first.get("convert_error"):
            print(f"    (OpenApi.convert alone threw too: {short(first['convert_error'], 200)})")
        return
    if first.get("rejected"):
        print("    first rejections (chatgpt):")
        for err in first["rejected"][:SHOW_REASONS]:
            print(f"      {err['method'].upper()} {err['path']}: {short('; '.join(err['messages']), 130)}")
        tally = Counter(kind for err in first["rejected"] for kind in {message_kind(m) for m in err["messages"]})
        print("    rejection reasons (chatgpt; operations per kind of message; an operation may have several):")
        for kind, count in tally.most_common(SHOW_REASONS + 1 if len(tally) == SHOW_REASONS + 1 else SHOW_REASONS):
            print(f"      {count:>4} × {short(kind, 130)}")
        if len(tally) > SHOW_REASONS + 1:
            rest = sum(count for _, count in tally.most_common()[SHOW_REASONS:])
            print(f"      {rest:>4} × {len(tally) - SHOW_REASONS} other kinds")


# ----------------------------------------------------------------------------------------------------------
# Whole commands, side by side
# ----------------------------------------------------------------------------------------------------------

WHOLE_ARGS = ("--vendor", "openai", "--include-deprecated", "--format", "json")


def run_whole(path: Path, document: Path, repeat: int, timeout: float, root: Path) -> dict[str, Any]:
    """Ours (checkout `root`'s package) and the peer as whole processes, alternating (so drift on a shared
    machine hits both alike)."""
    ours: list[peers.Run] = []
    peer: list[peers.Run] = []
    ours_json: list[peers.Run] = []  # a YAML file: ours on the peer's JSON too (the like-for-like input)
    tools = functions = None
    for _ in range(repeat):
        run = peers.measure_ours(["tools", str(path.resolve()), *WHOLE_ARGS], timeout, root)
        ours.append(run)
        if not run.failed and isinstance(run.output, dict):
            tools = len(run.output.get("tools") or [])
        run, out = run_samchon(document, 1, [HEADLINE_MODEL], timeout, False)
        peer.append(run)
        if out and not out["models"][0].get("crash"):
            functions = out["models"][0]["functions"]
        if document != path:
            ours_json.append(peers.measure_ours(["tools", str(document.resolve()), *WHOLE_ARGS], timeout, root))
    return {"ours": ours, "peer": peer, "ours_json": ours_json, "tools": tools, "functions": functions}


def median_run(runs: list[peers.Run]) -> tuple[float | None, float | None, str | None]:
    """Median wall seconds and highest peak MiB of the runs that worked, and why none did."""
    good = [r for r in runs if not r.failed]
    if not good:
        return None, None, runs[0].failed if runs else "not run"
    peaks = [r.peak_mib for r in good if r.peak_mib is not None]
    return statistics.median(r.wall_s for r in good), (max(peaks) if peaks else None), None


def print_whole(rows: list[tuple[str, float, dict[str, Any]]], repeat: int) -> None:
    print(f"\n== whole commands (median of {repeat} alternating runs; MiB = highest peak): "
          f"`workbench tools SPEC {' '.join(WHOLE_ARGS)}` vs node + HttpLlm.application(chatgpt)")
    header = (f"{'file':<38} {'MB':>4} {'ours s':>7} {'ours MiB':>8} {'tools':>6} {'peer s':>7} {'peer MiB':>8} "
              f"{'functions':>9} {'ours/peer s':>11} {'ours/peer MiB':>13}")
    print(header)
    print("-" * len(header))
    for name, size, row in rows:
        ours_s, ours_mib, ours_why = median_run(row["ours"])
        peer_s, peer_mib, peer_why = median_run(row["peer"])

        def cell(value: float | None, why: str | None, spec: str) -> str:
            return "failed" if why else ("n/a" if value is None else format(value, spec))

        def ratio(a: float | None, b: float | None) -> str:
            return f"{a / b:.2f}" if a and b else "—"

        print(f"{name:<38} {size:>4.1f} {cell(ours_s, ours_why, '.2f'):>7} {cell(ours_mib, ours_why, '.0f'):>8} "
              f"{row['tools'] if row['tools'] is not None else '—':>6} {cell(peer_s, peer_why, '.2f'):>7} "
              f"{cell(peer_mib, peer_why, '.0f'):>8} {row['functions'] if row['functions'] is not None else '—':>9} "
              f"{ratio(ours_s, peer_s):>11} {ratio(ours_mib, peer_mib):>13}")
        if row["ours_json"]:
            json_s, json_mib, json_why = median_run(row["ours_json"])
            label = "  ours on the peer's JSON"
            print(f"{label:<38} {'':>4} {cell(json_s, json_why, '.2f'):>7} {cell(json_mib, json_why, '.0f'):>8} "
                  f"{'':>6} {'':>7} {'':>8} {'':>9} {ratio(json_s, peer_s):>11} {ratio(json_mib, peer_mib):>13}")
        for label, why in (("ours", ours_why), ("peer", peer_why)):
            if why:
                print(f"  PROBLEM {name}: {label} {why}")
    print("ours/peer below 1.00 means ours took less (time) or held less (memory). For a YAML file the peer "
          "reads a JSON dump of it;\n\"ours on the peer's JSON\" is ours on that same dump (no YAML to parse).")


def whole_input(path: Path, scratch: Path) -> tuple[Path, float]:
    """The peer's JSON for `path`, loading the spec only when it is not JSON already."""
    if path.suffix.lower() == ".json":
        return path, 0.0
    return json_input(path, load_spec(path), scratch)


# ----------------------------------------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", nargs="+", default=list(DEFAULT_FILES), help="corpus file names or globs")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is reported")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per node process")
    parser.add_argument("--corpus", help="corpus directory (default $WORKBENCH_CORPUS or ../shared/corpus)")
    parser.add_argument("--no-samchon-models", action="store_true",
                        help="run the peer with model chatgpt only (skip chatgpt strict, claude, gemini)")
    parser.add_argument("--whole-only", action="store_true",
                        help="time the whole commands only (no in-process conversion rows)")
    parser.add_argument("--workbench", type=Path, default=REPO,
                        help="the checkout whose `workbench` the whole commands run (default: this one), "
                             "to compare two versions with the same peers")
    args = parser.parse_args(argv)
    repeat = max(1, args.repeat)
    files = peers.select_files(peers.corpus_dir(args.corpus), args.files)

    version = peers.ensure_samchon()
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=60, check=False)
    print(f"conversion benchmark: ours (Python {platform.python_version()}, in-process) vs @samchon/openapi "
          f"{version} (node {node.stdout.strip() or '?'}); {platform.machine()}, {os.cpu_count()} CPUs")
    print(f"times: best of {repeat} (and the first run) around the conversion call only; "
          f"{peers.memory_method()} (peer process only)")
    whole = []
    peers.prepare_ours(args.workbench)
    print(f"whole commands: the workbench package of {args.workbench.resolve()}")
    with tempfile.TemporaryDirectory(prefix="convert-bench-") as scratch:
        for path in files:
            print(f"[bench] {path.name}: whole commands x{repeat}", file=sys.stderr, flush=True)
            document, _ = whole_input(path, Path(scratch))
            row = run_whole(path, document, repeat, args.timeout, args.workbench)
            whole.append((path.name, path.stat().st_size / 2**20, row))
            if document.parent == Path(scratch):
                document.unlink()
    print_whole(whole, repeat)
    if args.whole_only:
        return 0
    print(f"\ntokenizer warm-up for token estimates: {fmt_ms(warm_up())} ms (once, before any timing)")

    summary = []
    with tempfile.TemporaryDirectory(prefix="convert-bench-") as scratch:
        for path in files:
            print(f"\n== {path.name} ({path.stat().st_size / 2**20:.1f} MiB)")
            spec, ours = run_ours(path, repeat)
            print(f"  OpenAPI {ours['version']}, {ours['operations']} operations")
            print_ours(ours, repeat)
            document, dump_ms = json_input(path, spec, Path(scratch))
            del spec
            gc.collect()
            cold, cold_out = run_samchon(document, 1, [HEADLINE_MODEL], args.timeout, False)
            models = [HEADLINE_MODEL, *([] if args.no_samchon_models else EXTRA_MODELS)]
            warm, warm_out = run_samchon(document, repeat, models, args.timeout, True)
            print_samchon(cold, cold_out, warm, warm_out, repeat, dump_ms)
            if document.parent == Path(scratch):
                document.unlink()
            summary.append((path.name, ours, cold, cold_out, warm_out))

    print(f"\n== summary (ours: openai, default scope; peer: HttpLlm.application, model chatgpt; ms = best of {repeat}"
          ", 1st = first run in a fresh process for the peer, first run on this spec for ours; ratio = peer / ours)")
    header = (f"{'file':<38} {'ops':>5} {'ours conv/excl/fail':>19} {'peer conv/rej':>13} {'ours ms':>8} "
              f"{'peer ms':>8} {'ratio':>6} {'ours 1st':>9} {'peer 1st':>9} {'ratio':>6} {'ours all ms':>11} "
              f"{'ratio':>6} {'peer wall s':>11}")
    print(header)
    print("-" * len(header))
    for name, ours, cold, cold_out, warm_out in summary:
        row = ours["rows"][0]
        everything = next(r for r in ours["rows"] if r["label"] == "openai +deprecated")
        ours_cell = f"{row['tools']}/{len(row['excluded'])}/{len(row['failed'])}"
        peer_cell, peer_ms, peer_first = "failed", None, None
        for out in (warm_out, cold_out):
            if out is None:
                continue
            chatgpt = out["models"][0]
            if chatgpt.get("crash"):
                peer_cell = f"CRASH 0/{ours['operations']}"
                break
            peer_cell = f"{chatgpt['functions']}/{chatgpt['errors']}"
            if out is warm_out:
                peer_ms = min(chatgpt["times_ms"])
            else:
                peer_first = chatgpt["times_ms"][0]

        def ratio(peer: float | None, mine: float) -> str:
            return f"{peer / mine:.1f}" if peer and mine else "—"

        wall = "—" if cold.failed else f"{cold.wall_s:.2f}"
        print(f"{name:<38} {ours['operations']:>5} {ours_cell:>19} {peer_cell:>13} {fmt_ms(row['best_ms']):>8} "
              f"{fmt_ms(peer_ms):>8} {ratio(peer_ms, row['best_ms']):>6} {fmt_ms(row['first_ms']):>9} "
              f"{fmt_ms(peer_first):>9} {ratio(peer_first, row['first_ms']):>6} {fmt_ms(everything['best_ms']):>11} "
              f"{ratio(peer_ms, everything['best_ms']):>6} {wall:>11}")
    print("ours conv/excl/fail = tools / scope exclusions (deprecated, hidden) / conversion failures (openai).\n"
          "ours all ms = openai with deprecated operations included (like-for-like: the peer has no scope filter).\n"
          "peer wall s = the whole cold node process (start-up, read, JSON.parse, one conversion, print); "
          "a peer CRASH counts every operation as rejected.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
