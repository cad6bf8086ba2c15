"""The model runners' throughput: N cases × R repeats against the scripted OpenAI-compatible model on 127.0.0.1
(tests/servers.py, the keyword policy, in a process of its own as a real server would be) with a fixed
injected latency, at each concurrency C.

    python bench/selection.py [--cases N] [--repeats R] [--concurrency 4,8] [--latency SECONDS]

For each API and C: the wall time of a cold run (empty cache) beside the ideal ceil(N·R/C) × latency and their
ratio (the goal is within 1.2x), then the same run again unchanged: the requests it sent (the goal is 0) and
its time. Each API is warmed up by one request first (the client imports its types on first use). Figures,
not checks; loopback only, bounded (well under a minute with the defaults).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from workbench.config import WorkbenchConfig  # noqa: E402
from workbench.selection.cache import Cache  # noqa: E402
from workbench.selection.model import (  # noqa: E402
    ONE_OF,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    Case,
    Expectation,
    ModelSettings,
    SampleRequest,
)
from workbench.selection.openai_api import OpenAIRunner  # noqa: E402
from workbench.spec import load_spec  # noqa: E402
from workbench.tools.model import ToolSet  # noqa: E402
from workbench.tools.options import ToolOverrides, build_toolset  # noqa: E402

SPEC = REPO / "resources" / "examples" / "shop-api.yaml"
VENDOR = {OPENAI_CHAT: "openai", OPENAI_RESPONSES: "openai-responses"}
KEY_ENV = "WORKBENCH_BENCH_MODEL_KEY"
# The scripted model in a child process: it prints its URL, then serves until its stdin closes.
SERVE = """
import sys
from tests.servers import ScriptedModelServer
with ScriptedModelServer(latency=float(sys.argv[1])) as server:
    print(server.url, flush=True)
    sys.stdin.read()
"""


def requests_for(toolset: ToolSet, cases: int, repeats: int) -> list[SampleRequest]:
    offered = tuple(t.name for t in toolset.tools)
    out = []
    for i in range(cases):
        tool = toolset.tools[i % len(toolset.tools)]
        prompt = f"case {i}: please {tool.name} ({tool.description[:60]})"
        case = Case(f"case-{i:03d}", ({"role": "user", "content": prompt},), Expectation(ONE_OF, (tool.name,),
                                                                                          (tool.name,)))
        out += [SampleRequest(case, n, offered) for n in range(repeats)]
    return out


def timed_run(settings: ModelSettings, api: str, toolset: ToolSet, requests: list[SampleRequest], cache: Cache,
              concurrency: int) -> tuple[float, OpenAIRunner, list]:
    runner = OpenAIRunner(settings, api=api, cache=cache, concurrency=concurrency)
    started = time.perf_counter()
    samples = list(runner.samples(toolset, requests))
    return time.perf_counter() - started, runner, samples


def bench_api(api: str, url: str, args: argparse.Namespace, concurrencies: list[int]) -> None:
    toolset = build_toolset(load_spec(SPEC), WorkbenchConfig(), ToolOverrides(vendor=VENDOR[api]))
    settings = ModelSettings(api=api, model="scripted-1", base_url=url, timeout=10.0, key_env=KEY_ENV)
    requests = requests_for(toolset, args.cases, args.repeats)
    with tempfile.TemporaryDirectory() as warm:
        warm_s, _, _ = timed_run(settings, api, toolset, requests[:1], Cache(warm), 1)
    print(f"\n{api}: {len(toolset.tools)} tools offered, {args.cases} cases x {args.repeats} repeats "
          f"= {len(requests)} samples, latency {args.latency * 1000:.0f} ms (warm-up request {warm_s * 1000:.0f} ms)")
    print(f"  {'C':>3} {'cold s':>8} {'ideal s':>8} {'ratio':>6} {'sent':>5} {'errors':>6} {'called':>6}"
          f" | {'re-run s':>8} {'sent':>5} {'hits':>5}")
    for concurrency in concurrencies:
        with tempfile.TemporaryDirectory() as folder:
            cold_s, cold, samples = timed_run(settings, api, toolset, requests, Cache(folder), concurrency)
            rerun_s, rerun, again = timed_run(settings, api, toolset, requests, Cache(folder), concurrency)
        ideal = math.ceil(len(requests) / concurrency) * args.latency
        errors = sum(1 for s in samples + again if s.error)
        called = sum(1 for s in samples if s.calls)
        print(f"  {concurrency:>3} {cold_s:>8.2f} {ideal:>8.2f} {cold_s / ideal:>5.2f}x {cold.requests_sent:>5}"
              f" {errors:>6} {called:>6} | {rerun_s:>8.3f} {rerun.requests_sent:>5} {rerun.cache_hits:>5}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--concurrency", default="4,8", help="comma-separated list")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the scripted model takes per answer")
    args = parser.parse_args()
    concurrencies = [int(c) for c in args.concurrency.split(",") if c.strip()]
    os.environ[KEY_ENV] = "bench-key"  # a stand-in: a real key never goes to the scripted server
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-c", SERVE, str(args.latency)], cwd=REPO, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        url = server.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            raise SystemExit(f"the scripted model did not start: {url!r}")
        for api in (OPENAI_CHAT, OPENAI_RESPONSES):
            bench_api(api, url, args, concurrencies)
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    print(f"\ntotal {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
