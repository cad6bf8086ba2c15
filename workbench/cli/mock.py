"""`workbench mock SPEC`: the spec as a mock server on 127.0.0.1 (first line: `listening on http://HOST:PORT`)."""

from __future__ import annotations

import argparse
import json
import sys

from workbench.cli import common
from workbench.spec import SpecError

HELP = "serve the spec as a mock: requests checked against it, answered from its examples and schemas"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1 only)")
    parser.add_argument("--port", type=int, default=4010, help="the port (0: a free one; default: 4010)")
    parser.add_argument("--seed", type=int, default=None,
                        help="the seed of generated responses and fault rules (default: the config's, else 0)")
    parser.add_argument("--cors", action="store_true", help="allow browser clients from any origin")
    parser.add_argument("--stateful", action="store_true",
                        help="keep what POST creates: GET, PUT, PATCH and DELETE on the item act on it")
    parser.add_argument("--explain", action="store_true",
                        help="list which operations --stateful maps to a resource, and exit")
    parser.add_argument("--log", metavar="FILE", help="append every request to FILE as a JSON line")
    common.add_config_option(parser)
    common.add_ref_options(parser)


def run(args: argparse.Namespace) -> int:
    from workbench.mock.app import MockApp  # the server is loaded only by this command
    from workbench.mock.server import LOCAL_HOSTS, serve

    spec = common.load(args, args.spec, positions=False)
    settings = common.config(args, args.spec).mock
    seed = args.seed if args.seed is not None else settings.seed
    if args.explain:
        from workbench.mock.state import explain

        print("\n".join(explain(spec)))
        return common.EXIT_OK
    try:
        log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115 — open while serving
    except OSError as exc:
        raise SpecError(f"cannot write the request log: {exc.strerror or exc}", args.log) from None
    if args.host not in LOCAL_HOSTS:
        print(f"workbench: warning: the mock listens on {args.host}, reachable from other machines", file=sys.stderr)

    def ready(server) -> None:
        print(f"listening on {server.url}", flush=True)

    def write(entry) -> None:
        log.write(json.dumps(entry.to_json(), ensure_ascii=False) + "\n")
        log.flush()

    try:
        app = MockApp(spec, seed, cors=args.cors, stateful=args.stateful, faults=settings.faults,
                      on_log=write if log else None)
        serve(app, args.host, args.port, ready)
    finally:
        if log is not None:
            log.close()
    return common.EXIT_OK
