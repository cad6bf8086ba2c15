"""Mock server side by side: our `workbench mock` against Prism 5.14.2, the same spec and request, one run.

    python bench/mock.py [--seconds S] [--connections C] [--corpus DIR]

For each spec, each server starts as its own process on 127.0.0.1 (one at a time): the time from process start
to the first HTTP answer, then `wrk` (Debian package `wrk`) on one GET with C connections for S seconds:
requests per second and how many answers were not 2xx. Ratios are Prism / ours for start-up and ours / Prism
for req/s (higher is better for us). Figures, not checks. Prism installs on first use into bench/.peers/prism/;
its paths have no server base path, ours keep it. Loopback only; every run is bounded in time.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peers

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from workbench.mock.router import base_path  # noqa: E402
from workbench.spec import load_spec  # noqa: E402

SMALL = """openapi: 3.1.0
info: {title: Pets, version: '1'}
servers: [{url: 'https://pets.example.invalid/v1'}]
paths:
  /pets/{petId}:
    get:
      operationId: getPet
      parameters: [{name: petId, in: path, required: true, schema: {type: integer}}]
      responses:
        '200':
          description: the pet
          content:
            application/json:
              schema: {type: object, required: [id, name], properties: {id: {type: integer}, name: {type: string}}}
"""
# (file, the GET both servers answer, below the base path)
CASES = (("small pets spec", "/pets/7"), ("box-openapi.json", "/files/12345"),
         ("kubernetes-swagger.json", "/api/v1/namespaces/default/pods/p1"),
         ("github-api.github.com-2022-07-18.json", "/repos/o/r/issues/1"))
START_TIMEOUT_S = 120.0
HEADERS = {"Authorization": "Bearer bench"}


def first_answer(url: str, process: subprocess.Popen, began: float) -> float | None:
    """Seconds from `began` to the first HTTP answer of any status, or None (exited, or too slow)."""
    while time.perf_counter() - began < START_TIMEOUT_S:
        if process.poll() is not None:
            return None
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=HEADERS), timeout=2):
                pass
            return time.perf_counter() - began
        except urllib.error.HTTPError:
            return time.perf_counter() - began
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            time.sleep(0.05)
    return None


def wrk(url: str, seconds: int, connections: int) -> tuple[float | None, int]:
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "-H", f"Authorization: {HEADERS['Authorization']}",
               url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 30, check=False)
    rate = re.search(r"Requests/sec:\s+([\d.]+)", done.stdout)
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", done.stdout)
    return (float(rate.group(1)) if rate else None), int(non_2xx.group(1)) if non_2xx else 0


def run_server(command: list[str], url: str, seconds: int, connections: int, env: dict | None = None) -> dict:
    began = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                               start_new_session=True)
    try:
        started = first_answer(url, process, began)
        rate, non_2xx = wrk(url, seconds, connections) if started is not None else (None, 0)
        return {"start": started, "rate": rate, "non_2xx": non_2xx}
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--corpus", type=Path, default=Path(os.environ.get("WORKBENCH_CORPUS",
                                                                           REPO.parent / "shared" / "corpus")))
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("bench/mock.py needs wrk (apt-get install wrk)")
    version = peers.ensure_prism()
    prism = peers.PRISM_DIR / "node_modules" / ".bin" / "prism"
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        small = Path(scratch) / "pets.yaml"
        small.write_text(SMALL, encoding="utf-8")
        for name, path in CASES:
            spec_path = small if name == "small pets spec" else args.corpus / name
            base = base_path(load_spec(spec_path))
            print(f"[bench] {name}: ours, then Prism {version}", file=sys.stderr, flush=True)
            ours = run_server([sys.executable, "-m", "workbench", "mock", str(spec_path), "--port", "4410"],
                              f"http://127.0.0.1:4410{base}{path}", args.seconds, args.connections)
            theirs = run_server([str(prism), "mock", "-h", "127.0.0.1", "-p", "4411", str(spec_path)],
                                f"http://127.0.0.1:4411{path}", args.seconds, args.connections,
                                env={**os.environ, "SCARF_ANALYTICS": "false"})
            rows.append((name, ours, theirs))
    print(f"Mock side by side — ours vs Prism {version}; wrk -t2 -c{args.connections} -d{args.seconds}s, one GET; "
          f"{os.cpu_count()} CPUs")
    print(f"  {'spec':<40} {'ours start':>10} {'prism start':>11} {'x':>6}  {'ours req/s':>10} {'prism req/s':>11} "
          f"{'x':>6}  {'non-2xx ours/prism':>18}")
    for name, ours, theirs in rows:
        start_ratio = _ratio(theirs["start"], ours["start"])
        print(f"  {name:<40} {_s(ours['start']):>10} {_s(theirs['start']):>11} {start_ratio:>6}"
              f"  {_n(ours['rate']):>10} {_n(theirs['rate']):>11} {_ratio(ours['rate'], theirs['rate']):>6}"
              f"  {ours['non_2xx']:>8}/{theirs['non_2xx']:<9}")


def _s(value: float | None) -> str:
    return f"{value:.2f} s" if value is not None else "never"


def _n(value: float | None) -> str:
    return f"{value:,.0f}" if value is not None else "—"


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.1f}x" if a and b else "—"


if __name__ == "__main__":
    main()
