"""`workbench mock SPEC`: the spec as a mock server on 127.0.0.1 (first line: `listening on http://HOST:PORT`)."""

from __future__ import annotations

import argparse
import sys

from workbench.cli import common

HELP = "serve the spec as a mock: requests checked against it, answered from its examples and schemas"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1 only)")
    parser.add_argument("--port", type=int, default=4010, help="the port (0: a free one; default: 4010)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of generated responses (default: 0)")
    common.add_ref_options(parser)


def run(args: argparse.Namespace) -> int:
    from workbench.mock.server import LOCAL_HOSTS, serve  # the server is loaded only by this command

    spec = common.load(args, args.spec)
    if args.host not in LOCAL_HOSTS:
        print(f"workbench: warning: the mock listens on {args.host}, reachable from other machines", file=sys.stderr)

    def ready(server) -> None:
        print(f"listening on {server.url}", flush=True)

    serve(spec, args.host, args.port, args.seed, ready)
    return common.EXIT_OK
