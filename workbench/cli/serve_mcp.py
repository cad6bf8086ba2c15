"""`workbench serve-mcp SPEC`: the spec's tool set as an MCP server, over stdio (a desktop client starts it)
or streamable HTTP on 127.0.0.1. Stdout is the protocol on stdio: everything else goes to stderr.

Start-up over stdio is quick because a client may give up on a slow server: the tools/list answer is kept
between starts (`workbench.mcp.listing`) and the handshake and first list are answered before the SDK is
imported (`workbench.mcp.early`)."""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from workbench import __version__
from workbench.cli import common
from workbench.cli.toolset_args import add_toolset_options, overrides
from workbench.spec import SpecError
from workbench.tools.options import build_toolset

HELP = "serve the spec's tools as an MCP server (stdio or HTTP), each call through the executor's checks"

# options that change where calls go or how the server listens, not which tools it lists
# what does not change the list (the server's name does: it is in the kept entry and in Cursor's 60 characters)
_NOT_LISTING = frozenset(("run", "command", "transport", "host", "port", "base_url", "mock", "allow_writes",
                          "deadline", "no_cache"))


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
    parser.add_argument("--no-cache", action="store_true",
                        help="build the tool list afresh (it is kept between starts for a quick first answer)")
    add_toolset_options(parser)
    parser.set_defaults(vendor="mcp")
    common.add_config_option(parser)
    common.add_ref_options(parser)


@dataclass
class Built:
    service: object  # workbench.mcp.service.Service
    name: str
    toolset: object  # workbench.tools.model.ToolSet
    dynamic: bool
    documents: dict[str, str]
    mock: object | None = None  # workbench.mcp.target.MockTarget

    def warnings(self) -> list[str]:
        """The client limits the set exceeds: counting its tokens takes half a second on GitHub, so a first
        start says this after its first answer."""
        from workbench.mcp.clients import limit_warnings

        toolset = self.toolset
        lines = [] if self.dynamic else limit_warnings(self.name, [t["name"] for t in toolset.native],
                                                      toolset.tokens.total)
        if not toolset.tools:
            lines.append("the tool set is empty (see `workbench tools` for what was left out)")
        return lines

    def start_mock(self, args: argparse.Namespace) -> None:
        """--mock: the embedded mock, which the calls go to (not needed to answer the first list)."""
        if args.mock and self.mock is None:
            from workbench.mcp.target import start_mock

            self.mock = start_mock(self.service.spec)
            options = self.service.options
            options.base_url, options.credentials = self.mock.base_url, self.mock.credentials

    def stop(self) -> None:
        if self.mock is not None:
            self.mock.stop()


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    if args.vendor != "mcp":
        raise SpecError("serve-mcp serves MCP tools: --vendor must be mcp", "<command line>")
    if args.transport == "http":
        built = build(args)
        built.start_mock(args)
        for line in built.warnings():
            print(f"workbench: warning: {line}", file=sys.stderr)
        try:
            return _serve_http(args, built)
        finally:
            built.stop()
    return _serve_stdio(args, started)


def build(args: argparse.Namespace) -> Built:
    """The spec loaded, its tool set built once, the service ready (the mock is started apart)."""
    from workbench.mcp.listing import file_digest
    from workbench.mcp.service import ServeOptions, Service  # the executor loads only when serving

    spec = common.load(args, args.spec, positions=False)
    toolset = build_toolset(spec, common.config(args, args.spec), overrides(args, read_only=args.read_only or None))
    name = args.name or server_name(spec.info.get("title") if isinstance(spec.info, dict) else None, args.spec)
    options = ServeOptions(base_url=args.base_url, mock=args.mock, allow_writes=args.allow_writes,
                           read_only=args.read_only, dynamic=args.dynamic, deadline_s=args.deadline)
    documents = {str(doc.path): file_digest(doc.path) or "" for doc in spec.documents.values()}
    return Built(Service(spec, toolset, options), name, toolset, args.dynamic, documents)


def _serve_stdio(args: argparse.Namespace, started: float) -> int:
    from workbench.mcp import listing
    from workbench.mcp.early import early_exchange, take_wire

    wire = take_wire()
    config_path = _config_path(args)
    settings = {k: v for k, v in vars(args).items() if k not in _NOT_LISTING}
    key = None if args.no_cache else listing.cache_key(args.spec, config_path, settings)
    folder = listing.default_folder()
    cached = listing.read_listing(folder, key) if key else None
    built = None
    fresh = cached is None
    if cached is None:
        built = build(args)
        cached = listing.Listing(built.name, built.service.listed(), [], built.documents)
    name = args.name or cached.name
    for line in cached.warnings:
        print(f"workbench: warning: {line}", file=sys.stderr)
    try:
        head = early_exchange(*wire, lambda: cached.tools, name, __version__)
        if head.listed:
            print(f"workbench: {len(cached.tools)} tools of {args.spec} listed {time.monotonic() - started:.2f} s "
                  f"after start{'' if built else ' (the list kept from before)'}", file=sys.stderr)
        if fresh:  # after the answer: counting tokens and writing GitHub's list take longer than sending it
            cached.warnings = built.warnings()
            for line in cached.warnings:
                print(f"workbench: warning: {line}", file=sys.stderr)
            if key:
                listing.write_listing(folder, key, cached)
        if head.closed:
            return common.EXIT_OK
        built = built or build(args)
        built.start_mock(args)
        from workbench.mcp import server as wire_server

        wire_server.serve_stdio(wire_server.build_server(built.service, name), head, wire)
    finally:
        if built is not None:
            built.stop()
    return common.EXIT_OK


def _config_path(args: argparse.Namespace) -> Path | None:
    if getattr(args, "config", None):
        return Path(args.config)
    from workbench.config import find_config

    return find_config(Path(args.spec))


def _serve_http(args: argparse.Namespace, built: Built) -> int:
    from workbench.mcp import server as wire

    try:
        sock = wire.bind(args.host, args.port)
    except OSError as exc:
        raise SpecError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", "<command line>") from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"workbench: warning: the MCP server listens on {args.host}, reachable from other machines",
              file=sys.stderr)
    from workbench.http.auth import url_without_credentials

    target = ("the mock" if args.mock else "the spec's server" if not args.base_url else
              url_without_credentials(args.base_url) or "the given base URL")

    def ready(url: str) -> None:
        print(f"listening on {url}", flush=True)
        print(f"workbench: serving {len(built.service.listed())} tools of {args.spec}, calls to {target}",
              file=sys.stderr)

    wire.serve_http(wire.build_server(built.service, built.name), sock, args.host, ready)
    return common.EXIT_OK


def server_name(title: object, path: str) -> str:
    """A short name clients can show and prefix tools with (Cursor counts it against the tool names' 60
    characters): the first words of the spec's title (or file name) as a slug of at most 20 characters."""
    base = title if isinstance(title, str) and title.strip() else Path(path).stem
    words = re.sub(r"['’]", "", base.lower())
    name = ""
    for word in re.findall(r"[a-z0-9]+", words):
        joined = f"{name}-{word}" if name else word
        if len(joined) > 20:
            break
        name = joined
    return name or re.sub(r"[^a-z0-9]+", "", words)[:20] or "api"
