"""Peer linters for side-by-side benchmarks: Spectral CLI and Redocly CLI, installed on first use.

    from peers import ensure_peers, run_spectral, run_redocly, measure

The peers install from the npm registry into bench/.peers/ (git-ignored), pinned to the versions in
docs/peers.md; when a pin is refused the nearest published version of the same major is installed instead and
said so. Every command runs in its own process group with a timeout (a timeout is reported, never waited out)
and is measured for wall time and peak memory:

- wall seconds: time.perf_counter around the child, start to exit;
- peak MiB: GNU `/usr/bin/time -f %M` (the kernel's ru_maxrss from wait4: the largest resident set of any one
  process in the child's tree, not their sum); without /usr/bin/time, psutil polling of the summed tree RSS
  every 50 ms; without either, None ("n/a").

Run this file directly to install the peers and print their versions.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parents[1]
PEERS_DIR = REPO / "bench" / ".peers"
RULESET = PEERS_DIR / "ruleset.yaml"
PINS = {"@stoplight/spectral-cli": "6.16", "@redocly/cli": "2.77"}  # docs/peers.md
BINS = {"@stoplight/spectral-cli": "spectral", "@redocly/cli": "redocly"}
DEFAULT_TIMEOUT_S = 300
INSTALL_TIMEOUT_S = 900
TIME_BIN = "/usr/bin/time"
PEER_ENV = {
    "REDOCLY_TELEMETRY": "off",
    "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
    "NO_UPDATE_NOTIFIER": "1",
    "SCARF_ANALYTICS": "false",
    "DO_NOT_TRACK": "1",
    "NO_COLOR": "1",
    "FORCE_COLOR": "0",
}


class Run(NamedTuple):
    """One measured command. `output` is the parsed JSON on stdout (None when it did not parse)."""

    wall_s: float
    peak_mib: float | None
    output: Any
    returncode: int | None
    timed_out: bool = False
    stderr: str = ""
    stdout: str = ""

    @property
    def failed(self) -> str | None:
        """Why this run cannot be used, or None. Exit 1 (findings at error level) is a normal lint result."""
        if self.timed_out:
            return f"timed out after {self.wall_s:.0f} s"
        if self.returncode not in (0, 1):
            tail = (self.stderr.strip().splitlines() or [""])[-1][:160]
            return f"exit status {self.returncode}: {tail}"
        if self.output is None:
            return "output is not JSON"
        return None


# ----------------------------------------------------------------------------------------------------------
# Measuring one command
# ----------------------------------------------------------------------------------------------------------


def memory_method() -> str:
    if Path(TIME_BIN).exists():
        return "peak MiB = GNU time %M (largest single-process max RSS in the child's tree)"
    try:
        import psutil  # noqa: F401
    except ImportError:
        return "peak MiB = n/a (no /usr/bin/time and no psutil)"
    return "peak MiB = psutil, summed RSS of the child's tree polled every 50 ms"


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # the group this process leads: the command and its children only


def _parse_json(text: str) -> Any:
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    for opener in "[{":  # tolerate a banner line before the JSON
        start = text.find(opener)
        if start > 0:
            try:
                return json.loads(text[start:])
            except json.JSONDecodeError:
                continue
    return None


def _poll_psutil(proc: subprocess.Popen, timeout: float) -> tuple[bytes, bytes, float | None, bool]:
    import psutil

    peak = 0
    deadline = time.monotonic() + timeout
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        # Popen was given pipes; drain them in threads so a chatty child cannot block on a full pipe.
        import threading

        def drain(stream, sink):
            shutil.copyfileobj(stream, sink)

        threads = [threading.Thread(target=drain, args=(proc.stdout, out), daemon=True),
                   threading.Thread(target=drain, args=(proc.stderr, err), daemon=True)]
        for thread in threads:
            thread.start()
        timed_out = False
        while proc.poll() is None:
            if time.monotonic() > deadline:
                _kill_group(proc)
                proc.wait()
                timed_out = True
                break
            try:
                root = psutil.Process(proc.pid)
                tree = [root, *root.children(recursive=True)]
                peak = max(peak, sum(p.memory_info().rss for p in tree))
            except psutil.Error:
                pass
            time.sleep(0.05)
        for thread in threads:
            thread.join(timeout=10)
        out.seek(0)
        err.seek(0)
        return out.read(), err.read(), (peak / 2**20 if peak else None), timed_out


def measure(command: list[str], *, timeout: float = DEFAULT_TIMEOUT_S, env: dict[str, str] | None = None,
            cwd: Path | None = None, parse: bool = True) -> Run:
    """Run `command` once; wall seconds, peak MiB and its stdout parsed as JSON."""
    full_env = {**os.environ, **(env or {})}
    use_time = Path(TIME_BIN).exists()
    psutil_ok = False
    if not use_time:
        try:
            import psutil  # noqa: F401

            psutil_ok = True
        except ImportError:
            pass
    with tempfile.NamedTemporaryFile("r", suffix=".rss", delete=False) as rss_file:
        rss_path = Path(rss_file.name)
    argv = [TIME_BIN, "-f", "%M", "-o", str(rss_path), *command] if use_time else list(command)
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env,
                                cwd=cwd, start_new_session=True)
        peak: float | None = None
        timed_out = False
        if psutil_ok:
            stdout, stderr, peak, timed_out = _poll_psutil(proc, timeout)
        else:
            try:
                stdout, stderr = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                stdout, stderr = proc.communicate()
                timed_out = True
        wall = time.perf_counter() - start
        if use_time and not timed_out:
            peak = _read_time_output(rss_path)
    finally:
        rss_path.unlink(missing_ok=True)
    out_text = stdout.decode("utf-8", "replace")
    err_text = stderr.decode("utf-8", "replace")
    if timed_out:
        return Run(wall, None, None, None, True, err_text, out_text)
    return Run(wall, peak, _parse_json(out_text) if parse else None, proc.returncode, False, err_text, out_text)


def _read_time_output(path: Path) -> float | None:
    try:
        lines = path.read_text().strip().splitlines()
    except OSError:
        return None
    # GNU time may prefix "Command exited with non-zero status N"; the figure is the last line.
    for line in reversed(lines):
        if line.strip().isdigit():
            return int(line.strip()) / 1024  # KiB → MiB
    return None


# ----------------------------------------------------------------------------------------------------------
# Installing the peers
# ----------------------------------------------------------------------------------------------------------


def installed_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for package in PINS:
        manifest = PEERS_DIR / "node_modules" / package / "package.json"
        try:
            versions[package] = json.loads(manifest.read_text())["version"]
        except (OSError, ValueError, KeyError):
            versions[package] = None
    return versions


def _matches_pin(version: str | None, pin: str) -> bool:
    return bool(version) and (version == pin or version.startswith(pin + "."))


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version.split("-")[0])[:3])


def _nearest_version(package: str, pin: str) -> str | None:
    """The published version closest to `pin`: same major, no pre-release, nearest by (minor, patch)."""
    done = subprocess.run(["npm", "view", package, "versions", "--json"], capture_output=True, text=True,
                          timeout=DEFAULT_TIMEOUT_S, check=False)
    try:
        published = json.loads(done.stdout)
    except json.JSONDecodeError:
        return None
    if isinstance(published, str):
        published = [published]
    wanted = _version_key(pin) + (0,) * (3 - len(_version_key(pin)))
    stable = [v for v in published if "-" not in v and _version_key(v)[:1] == wanted[:1]]
    if not stable:
        return None

    def distance(version: str) -> tuple[int, int, int]:
        key = (*_version_key(version), 0, 0, 0)
        return (abs(key[1] - wanted[1]), abs(key[2] - wanted[2]), -key[1])

    return min(stable, key=distance)


def _npm_install(specs: list[str]) -> subprocess.CompletedProcess:
    command = ["npm", "install", "--prefix", str(PEERS_DIR), "--no-audit", "--no-fund", "--loglevel=error",
               *specs]
    print(f"[peers] {' '.join(command[:4])} {' '.join(specs)}", file=sys.stderr, flush=True)
    return subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False,
                          env={**os.environ, **PEER_ENV})


def ensure_peers(quiet: bool = False) -> dict[str, str | None]:
    """Install the pinned peers into bench/.peers/ unless already there; write the Spectral ruleset."""
    PEERS_DIR.mkdir(parents=True, exist_ok=True)
    versions = installed_versions()
    missing = [pkg for pkg, pin in PINS.items()
               if not _matches_pin(versions[pkg], pin) or not peer_bin(pkg).exists()]
    # A pin that was refused before leaves a nearest version behind: keep it rather than reinstalling every time.
    missing = [pkg for pkg in missing if versions[pkg] is None]
    if missing:
        try:
            done = _npm_install([f"{pkg}@{PINS[pkg]}" for pkg in missing])
        except subprocess.TimeoutExpired:
            raise SystemExit(f"[peers] npm install timed out after {INSTALL_TIMEOUT_S} s") from None
        if done.returncode != 0:
            # Install one at a time; a refused pin falls back to the nearest published version.
            for pkg in missing:
                try:
                    one = _npm_install([f"{pkg}@{PINS[pkg]}"])
                except subprocess.TimeoutExpired:
                    raise SystemExit(f"[peers] npm install {pkg} timed out after {INSTALL_TIMEOUT_S} s") from None
                if one.returncode == 0:
                    continue
                nearest = _nearest_version(pkg, PINS[pkg])
                if not nearest:
                    raise SystemExit(f"[peers] cannot install {pkg}@{PINS[pkg]}:\n{one.stderr[-2000:]}")
                print(f"[peers] {pkg}@{PINS[pkg]} was refused; installing nearest version {nearest}", flush=True)
                again = _npm_install([f"{pkg}@{nearest}"])
                if again.returncode != 0:
                    raise SystemExit(f"[peers] cannot install {pkg}@{nearest}:\n{again.stderr[-2000:]}")
        versions = installed_versions()
    for pkg, pin in PINS.items():
        if versions[pkg] and not _matches_pin(versions[pkg], pin) and not quiet:
            print(f"[peers] note: {pkg} {versions[pkg]} is installed instead of the pinned {pin}.x", flush=True)
    ruleset = 'extends: ["spectral:oas"]\n'
    if not RULESET.exists() or RULESET.read_text() != ruleset:
        RULESET.write_text(ruleset)
    return versions


def peer_bin(package: str) -> Path:
    return PEERS_DIR / "node_modules" / ".bin" / BINS[package]


# ----------------------------------------------------------------------------------------------------------
# Running the peers
# ----------------------------------------------------------------------------------------------------------


def run_spectral(spec: Path, timeout: float = DEFAULT_TIMEOUT_S) -> Run:
    """`spectral lint -r ruleset.yaml SPEC -f json --quiet`; output is Spectral's list of results."""
    ensure_peers(quiet=True)
    command = [str(peer_bin("@stoplight/spectral-cli")), "lint", "-r", str(RULESET), str(Path(spec).resolve()),
               "-f", "json", "--quiet"]
    return measure(command, timeout=timeout, env=PEER_ENV, cwd=PEERS_DIR)


def run_redocly(spec: Path, timeout: float = DEFAULT_TIMEOUT_S) -> Run:
    """`redocly lint SPEC --format json` with telemetry off; output is Redocly's report object."""
    ensure_peers(quiet=True)
    command = [str(peer_bin("@redocly/cli")), "lint", str(Path(spec).resolve()), "--format", "json"]
    # cwd is bench/.peers so no redocly.yaml of the repository is picked up: the built-in recommended rules.
    return measure(command, timeout=timeout, env=PEER_ENV, cwd=PEERS_DIR)


# Our commands run with their bytecode compiled, as an installed package has it (pip compiles on install; a
# PYTHONDONTWRITEBYTECODE environment would otherwise make every run compile 100 modules, 0.2 s). The bytecode
# goes under bench/.peers (git-ignored), never into the checkout being timed.
PYCACHE = PEERS_DIR / "pycache"
OURS_ENV = {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": str(PYCACHE)}


def prepare_ours(root: Path = REPO) -> None:
    """Compile the `workbench` package of checkout `root` into the bench's bytecode cache."""
    PYCACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(root) / "workbench")], cwd=root,
                   env={**os.environ, **OURS_ENV}, capture_output=True, timeout=INSTALL_TIMEOUT_S, check=False)


def measure_ours(args: list[str], timeout: float = DEFAULT_TIMEOUT_S, root: Path = REPO, *,
                 cold_cache: bool = False) -> Run:
    """`python -m workbench ARGS` with checkout `root`'s package (cwd `root` puts it first on the path),
    measured the same way as the peers. `cold_cache`: with an empty cache folder of its own (XDG_CACHE_HOME), as
    the first run on a machine has it (no compiled patterns, no token table), instead of the user's."""
    with tempfile.TemporaryDirectory(prefix="bench-cache-") if cold_cache else contextlib.nullcontext() as cache:
        env = {**OURS_ENV, "XDG_CACHE_HOME": cache} if cache else OURS_ENV
        return measure([sys.executable, "-m", "workbench", *args], timeout=timeout, cwd=Path(root), env=env)


def run_ours(spec: Path, timeout: float = DEFAULT_TIMEOUT_S, root: Path = REPO, *, cold_cache: bool = False) -> Run:
    """`workbench lint SPEC --format json`, measured the same way as the peers."""
    return measure_ours(["lint", str(Path(spec).resolve()), "--format", "json"], timeout, root,
                        cold_cache=cold_cache)


def count_findings(tool: str, output: Any) -> int | None:
    """Number of findings in a tool's parsed output (Spectral/ours: a list; Redocly: {"totals": ...}).

    Redocly lists at most 100 problems (--max-problems) but its totals count them all (errors + warnings)."""
    if isinstance(output, list):
        return len(output)
    if isinstance(output, dict):
        totals = output.get("totals")
        if isinstance(totals, dict) and all(isinstance(totals.get(k), int) for k in ("errors", "warnings")):
            return totals["errors"] + totals["warnings"]
        for key in ("problems", "results", "findings"):
            if isinstance(output.get(key), list):
                return len(output[key])
    return None


def versions_line() -> str:
    versions = installed_versions()
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=60, check=False)
    names = {"@stoplight/spectral-cli": "Spectral CLI", "@redocly/cli": "Redocly CLI"}
    parts = [f"{names[pkg]} {versions[pkg] or '?'}" for pkg in PINS]
    return ", ".join([*parts, f"node {node.stdout.strip() or '?'}"])


SAMCHON_PACKAGE = "@samchon/openapi"
SAMCHON_PIN = "5.1.0"  # docs/peers.md
SAMCHON_DIR = PEERS_DIR / "samchon"  # its own npm prefix: installing never touches the linters' tree


PRISM_PACKAGE = "@stoplight/prism-cli"
PRISM_PIN = "5.14.2"  # docs/peers.md (5.16 wants Node 24)
PRISM_DIR = PEERS_DIR / "prism"


def ensure_samchon() -> str:
    """Install @samchon/openapi (pinned, `--ignore-scripts`) into bench/.peers/samchon/ unless already there;
    return the installed version."""
    return ensure_package(SAMCHON_PACKAGE, SAMCHON_PIN, SAMCHON_DIR, ignore_scripts=True)


def ensure_prism() -> str:
    """Install Prism (pinned) into bench/.peers/prism/ unless already there; return the installed version."""
    return ensure_package(PRISM_PACKAGE, PRISM_PIN, PRISM_DIR, ignore_scripts=False)


SWAGGER2OPENAPI_PACKAGE = "swagger2openapi"
SWAGGER2OPENAPI_PIN = "7.0.8"
SWAGGER2OPENAPI_DIR = PEERS_DIR / "swagger2openapi"


def swagger_to_openapi(path: Path, timeout: float = 120) -> dict:
    """A Swagger 2.0 document as OpenAPI 3.0, converted by swagger2openapi (installed on first use): the
    round-trip oracle judges Swagger files through a converter we did not write."""
    ensure_package(SWAGGER2OPENAPI_PACKAGE, SWAGGER2OPENAPI_PIN, SWAGGER2OPENAPI_DIR, ignore_scripts=True)
    command = ["node", str(SWAGGER2OPENAPI_DIR / "node_modules" / "swagger2openapi" / "swagger2openapi.js"),
               "--patch", "--warnOnly", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, **PEER_ENV})
    if done.returncode != 0:
        raise RuntimeError(f"swagger2openapi {path.name}: {(done.stderr.strip().splitlines() or [''])[-1][:200]}")
    return json.loads(done.stdout) if done.stdout.lstrip().startswith("{") else _yaml(done.stdout)


def judged_document(path: Path) -> dict:
    """The document the round trip's judge reads for `path`: as written for OpenAPI 3.x, converted by
    swagger2openapi for Swagger 2.0 (never by our own normaliser)."""
    sys.path.insert(0, str(REPO))
    from workbench.roundtrip.oracle import read_document

    document = read_document(path)
    return swagger_to_openapi(path) if "swagger" in document else document


def _yaml(text: str) -> Any:
    import yaml

    return yaml.safe_load(text)


def ensure_package(package: str, pin: str, folder: Path, *, ignore_scripts: bool) -> str:
    """Install `package@pin` into its own npm prefix `folder` unless already there; return the installed version.
    A refused pin falls back to the nearest published version of the same major."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / "node_modules" / package / "package.json"

    def installed() -> str | None:
        try:
            return json.loads(manifest.read_text())["version"]
        except (OSError, ValueError, KeyError):
            return None

    if installed():
        return installed() or ""
    for version in (pin, None):
        version = version or _nearest_version(package, pin)
        if not version:
            break
        command = ["npm", "install", "--prefix", str(folder), *(["--ignore-scripts"] if ignore_scripts else []),
                   "--no-audit", "--no-fund", "--loglevel=error", f"{package}@{version}"]
        print(f"[peers] {' '.join(command)}", file=sys.stderr, flush=True)
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False,
                                  env={**os.environ, **PEER_ENV})
        except subprocess.TimeoutExpired:
            raise SystemExit(f"[peers] npm install {package} timed out after {INSTALL_TIMEOUT_S} s") from None
        if done.returncode == 0 and installed():
            if version != pin:
                print(f"[peers] note: {package} {version} is installed instead of the pinned {pin}")
            return installed() or ""
        print(f"[peers] {package}@{version} was refused:\n{done.stderr[-1000:]}", file=sys.stderr)
    raise SystemExit(f"[peers] cannot install {package}@{pin}")


if __name__ == "__main__":
    ensure_peers()
    print(versions_line())
    print(memory_method())


# -- corpus selection, shared by the bench scripts ---------------------------------------------------

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def corpus_dir(option: str | None) -> Path:
    if option:
        return Path(option)
    env = os.environ.get("WORKBENCH_CORPUS")
    return Path(env) if env else DEFAULT_CORPUS


def select_files(corpus: Path, patterns: list[str]) -> list[Path]:
    names = sorted(p.name for p in corpus.iterdir() if p.is_file() and p.suffix.lower() in (".json", ".yaml", ".yml"))
    chosen: list[Path] = []
    for pattern in patterns:
        hits = [n for n in names if fnmatch.fnmatch(n, pattern)] or [n for n in names if pattern in n]
        if not hits:
            raise SystemExit(f"no corpus file matches {pattern!r} in {corpus}")
        chosen.extend(corpus / n for n in hits if corpus / n not in chosen)
    return chosen
