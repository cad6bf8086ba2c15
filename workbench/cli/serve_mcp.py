"""`workbench serve-mcp SPEC`: the spec's tool set as an MCP server, over stdio (a desktop client starts it)
or streamable HTTP on 127.0.0.1. Stdout is the protocol on stdio: everything else goes to stderr."""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from workbench.cli import common
from workbench.cli.toolset_args import add_toolset_options, overrides
from workbench.spec import SpecError
from workbench.tools.options import build_toolset

HELP = "serve the spec's tools as an MCP server (stdio or HTTP), each call through the executor's checks"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP: the address to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="HTTP: the port (0: a free one; default: 8765)")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--base-url", metavar="URL", help="send the calls here instead of the spec's server")
    target.add_argument("--mock", action="store_true",
                        help="send the calls to the embedded mock: writes are safe trials")
    parser.add_argument("--allow-writes", action="store_true",
                        help="let destructive calls through when the client cannot ask its user to confirm")
    parser.add_argument("--read-only", action="store_true",
                        help="only read-only operations: the others are neither listed nor sent")
    parser.add_argument("--dynamic", action="store_true",
                        help="three tools (search, describe, call the operations) instead of the whole set")
    parser.add_argument("--name", help="the server's name as clients show it (default: from the spec's title)")
    parser.add_argument("--deadline", type=float, default=30.0, metavar="SECONDS", help="total time for one call")
    add_toolset_options(parser)
    parser.set_defaults(vendor="mcp")
    common.add_config_option(parser)
    common.add_ref_options(parser)


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    if args.vendor != "mcp":
        raise SpecError("serve-mcp serves MCP tools: --vendor must be mcp", "<command line>")
    spec = common.load(args, args.spec)
    toolset = build_toolset(spec, common.config(args, args.spec), overrides(args, read_only=args.read_only or None))
    from workbench.mcp.clients import limit_warnings  # the SDK and the executor load only when serving
    from workbench.mcp.service import ServeOptions, Service

    name = args.name or server_name(spec.info.get("title") if isinstance(spec.info, dict) else None, args.spec)
    listed = [t["name"] for t in toolset.native]
    if not args.dynamic:
        for line in limit_warnings(name, listed, toolset.tokens.total):
            print(f"workbench: warning: {line}", file=sys.stderr)
    if not toolset.tools:
        print("workbench: warning: the tool set is empty (see `workbench tools` for what was left out)",
              file=sys.stderr)
    options = ServeOptions(base_url=args.base_url, mock=args.mock, allow_writes=args.allow_writes,
                           read_only=args.read_only, dynamic=args.dynamic, deadline_s=args.deadline)
    mock = None
    if args.mock:
        from workbench.mcp.target import start_mock

        mock = start_mock(spec)
        options.base_url, options.credentials = mock.base_url, mock.credentials
    try:
        return _serve(args, Service(spec, toolset, options), name, len(listed), started)
    finally:
        if mock is not None:
            mock.stop()


def _serve(args: argparse.Namespace, service, name: str, count: int, started: float) -> int:
    from workbench.mcp import server as wire

    what = f"3 tools over {count} operations" if args.dynamic else f"{count} tools"
    target = "the mock" if args.mock else (args.base_url or "the spec's server")
    mcp_server = wire.build_server(service, name)
    if args.transport == "stdio":
        print(f"workbench: serving {what} of {args.spec} over stdio, calls to {target} "
              f"(ready in {time.monotonic() - started:.2f} s)", file=sys.stderr)
        wire.serve_stdio(mcp_server)
        return common.EXIT_OK
    try:
        sock = wire.bind(args.host, args.port)
    except OSError as exc:
        raise SpecError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", "<command line>") from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"workbench: warning: the MCP server listens on {args.host}, reachable from other machines",
              file=sys.stderr)

    def ready(url: str) -> None:
        print(f"listening on {url}", flush=True)
        print(f"workbench: serving {what} of {args.spec}, calls to {target}", file=sys.stderr)

    wire.serve_http(mcp_server, sock, args.host, ready)
    return common.EXIT_OK


def server_name(title: object, path: str) -> str:
    """A short name clients can show and prefix tools with: the spec's title (or file name) as a slug."""
    base = title if isinstance(title, str) and title.strip() else Path(path).stem
    slug = re.sub(r"[^a-z0-9]+", "-", base.lower()).strip("-")
    return slug[:24].rstrip("-") or "api"
