"""What every command shares: exit codes, the `$ref` policy options, loading, the config, writing output."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from workbench.config import WorkbenchConfig
from workbench.spec import RefPolicy, Spec, SpecError, load_spec

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_UNUSABLE = 2
EXIT_INVALID_CALL = 3


def add_ref_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--allow-remote-refs", action="store_true",
                        help="fetch $refs to http(s) URLs (refused by default)")
    parser.add_argument("--allow-outside-refs", action="store_true",
                        help="read $refs to files outside the spec's folder (refused by default)")


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="config (default: .workbench.yaml beside the spec)")


def ref_policy(args: argparse.Namespace) -> RefPolicy:
    return RefPolicy(allow_remote=args.allow_remote_refs, allow_outside=args.allow_outside_refs)


def load(args: argparse.Namespace, path: str, *, positions: bool = True) -> Spec:
    """The spec, with what did not stop loading printed to stderr one line each. A command that reports no
    places passes `positions=False` (see `load_spec`)."""
    spec = load_spec(path, ref_policy(args), positions=positions)
    for problem in spec.problems:
        print(problem, file=sys.stderr)
    return spec


def config(args: argparse.Namespace, spec_path: str | Path) -> WorkbenchConfig:
    """The spec's config (`workbench.workspace.linting.spec_config`). With no config file there is nothing to
    check its names against: the defaults, without loading the rule catalogue (about 0.15 s of a command that
    lints nothing, such as `workbench mock`)."""
    from workbench.config import find_config

    found = getattr(args, "config", None) or find_config(Path(spec_path))
    if found is None:
        return WorkbenchConfig()
    from workbench.workspace.linting import spec_config

    return spec_config(spec_path, found)


def csv(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def save_output(path: str | Path, text: str | Iterable[str]) -> None:
    """`--output FILE`: written atomically (a reader never sees half of it); a file that cannot be written is the
    one-line error naming it."""
    from workbench.edit.save import write_atomically

    pieces = [text] if isinstance(text, str) else text
    try:
        write_atomically(Path(path), _ending_in_newline(pieces))
    except OSError as exc:
        raise SpecError(f"cannot write: {exc.strerror or exc}", str(path)) from None


def _ending_in_newline(pieces: Iterable[str]) -> Iterable[str]:
    last = ""
    for piece in pieces:
        if piece:
            last = piece
        yield piece
    if not last.endswith("\n"):
        yield "\n"


def emit(args: argparse.Namespace, text: str) -> None:
    if getattr(args, "output", None):
        save_output(args.output, text)
    else:
        print(text)


def emit_pieces(args: argparse.Namespace, pieces: Iterable[str]) -> None:
    """`emit` for a large output made in pieces: each is written as it comes, never joined into one string."""
    if getattr(args, "output", None):
        save_output(args.output, pieces)
    else:
        sys.stdout.writelines(pieces)
        sys.stdout.write("\n")
