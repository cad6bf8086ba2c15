"""Where our lint and Spectral agree: rule by rule for the rules that have a Spectral twin, by JSON pointer.

    python bench/spectral_agreement.py [--files NAME_OR_GLOB ...] [--examples N] [--timeout S] [--corpus DIR]

Default files: every corpus file under 500 KB, plus kubernetes-swagger.json. Spectral (spectral:oas, the
recommended rules, via bench/peers.py) runs once per file as a subprocess; ours runs in process
(`lint(load_spec(path))`, default config). Only findings in the file itself are compared (not in files it
references). Pointers are compared after normalising both sides:

- operation-level rules: to the operation, `/paths/<path>/<method>` (ours may point at a child such as
  `.../operationId`; Spectral at the operation or the child);
- path-params-mismatch ↔ path-params: an undeclared template variable is keyed by operation + name, an unused
  declaration by path item + name (Spectral's other path-params checks — `required: true`, duplicate
  declarations, equivalent paths, a name used twice in one path — are not twins and are counted apart);
- servers-missing ↔ oas3-api-servers (OpenAPI 3) / oas2-api-host (Swagger 2): one key for the document;
- unresolved-ref ↔ invalid-ref: the exact pointer of the reference (a trailing `/$ref` is dropped).

Every disagreement gets the best reason found automatically, or "unknown — inspect".
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peers
from lint import print_table, progress
from peers import corpus_dir, select_files

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's workbench, whatever else is installed

from workbench.lint import lint  # noqa: E402
from workbench.spec import load_spec  # noqa: E402
from workbench.spec.pointer import join, split  # noqa: E402

SMALL_BYTES = 500 * 1024
ALWAYS = ("kubernetes-swagger.json",)
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
SPECTRAL_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")  # what Spectral's path template regex accepts as a name


@dataclass(frozen=True)
class Twin:
    ours: str
    spectral: tuple[str, ...]
    level: str  # "operation" | "path-params" | "document" | "ref"
    note: str = ""


TWINS = (
    Twin("operation-id-missing", ("operation-operationId",), "operation"),
    Twin("operation-id-duplicate", ("operation-operationId-unique",), "operation",
         "both flag every member after the first of a duplicate group"),
    Twin("path-params-mismatch", ("path-params",), "path-params",
         "Spectral's path-params also checks required: true, duplicate declarations and equivalent paths: "
         "those results are counted as 'not twin' and left out"),
    Twin("operation-description-missing", ("operation-description",), "operation",
         "KNOWN DEFINITIONAL DIFFERENCE: Spectral fires whenever `description` is missing, even with a summary; "
         "ours only when both summary and description are missing"),
    Twin("operation-tags-missing", ("operation-tags",), "operation"),
    Twin("servers-missing", ("oas3-api-servers", "oas2-api-host"), "document",
         "Swagger 2 twin is oas2-api-host (host must be present); oas2-host-not-example is not a twin (it only "
         "rejects example.com and is not in spectral:oas recommended); OpenAPI 3 twin is oas3-api-servers"),
    Twin("unresolved-ref", ("invalid-ref",), "ref", "no-$ref-siblings is not a twin"),
)


# ----------------------------------------------------------------------------------------------------------
# Pointers
# ----------------------------------------------------------------------------------------------------------


def to_pointer(path: list[Any]) -> str:
    return join("", *path)


def segments(pointer: str) -> list[str]:
    """Unescaped tokens; [] for the whole document and for what is not a pointer (`#name` anchors)."""
    return split(pointer) if pointer.startswith("/") else []


def operation_pointer(pointer: str) -> str:
    """`/paths/<p>/<method>` for anything at or under an operation; elsewhere up to the first method segment."""
    parts = segments(pointer)
    if parts[:1] == ["paths"]:
        if len(parts) >= 3 and parts[2] in METHODS:
            return to_pointer(parts[:3])
        return to_pointer(parts[:2])
    for i, part in enumerate(parts):
        if i >= 1 and part in METHODS:
            return to_pointer(parts[: i + 1])
    return pointer


def raw_at(data: Any, pointer: str, follow: bool = True) -> Any:
    """The raw node at `pointer`, following local `$ref`s on the way (and at the end when `follow`)."""
    node = data
    for part in segments(pointer):
        node = _follow(data, node) if follow else node
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return _follow(data, node) if follow else node


def _follow(data: Any, node: Any) -> Any:
    for _ in range(20):
        if isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#"):
            node = raw_at(data, node["$ref"][1:], follow=False)
        else:
            break
    return node


def path_item_ref(data: Any, key: str) -> str | None:
    """The `$ref` of the path item a `/paths/<p>...` key is under, if that path item is a reference."""
    parts = segments(key)
    if parts[:1] != ["paths"] or len(parts) < 2:
        return None
    item = (data.get("paths") or {}).get(parts[1]) if isinstance(data, dict) else None
    return item["$ref"] if isinstance(item, dict) and isinstance(item.get("$ref"), str) else None


def blank(value: Any) -> bool:
    return not isinstance(value, str) or not value.strip()


# ----------------------------------------------------------------------------------------------------------
# Keys: one comparable string per finding
# ----------------------------------------------------------------------------------------------------------

_OURS_UNDECLARED = re.compile(r"\{(?P<name>[^{}]+)\} in the path has no path parameter")
_OURS_UNUSED = re.compile(r"path parameter (?P<q>['\"])(?P<name>.+)(?P=q) does not appear in (?P<path>.+)$")
_SPECTRAL_UNDECLARED = re.compile(r'Operation must define parameter "\{(?P<name>.+)\}" as expected by path')
_SPECTRAL_UNUSED = re.compile(r'Parameter "(?P<name>.+)" must be used in path "(?P<path>.+)"\.$')


def key_for(twin: Twin, pointer: str, message: str, side: str) -> str | None:
    """The comparison key of one finding; None when it is not a twin of the other side's rule."""
    if twin.level == "operation":
        return operation_pointer(pointer)
    if twin.level == "document":
        return ""
    if twin.level == "ref":
        return pointer[: -len("/$ref")] if pointer.endswith("/$ref") else pointer
    undeclared, unused = ((_OURS_UNDECLARED, _OURS_UNUSED) if side == "ours"
                          else (_SPECTRAL_UNDECLARED, _SPECTRAL_UNUSED))
    if match := undeclared.search(message):
        return f"{operation_pointer(pointer)} {{{match['name']}}} undeclared"
    if match := unused.search(message):
        return f"{to_pointer(['paths', match['path'].strip()])} {{{match['name']}}} unused"
    return None


@dataclass
class Side:
    keys: dict[str, dict[str, str]] = field(default_factory=lambda: defaultdict(dict))  # rule → key → message
    not_twin: Counter = field(default_factory=Counter)  # rule → results left out as not twins
    elsewhere: int = 0  # findings in other files than the one linted


def ours_side(path: Path) -> tuple[Side, Any, str]:
    spec = load_spec(path)
    result = lint(spec)
    side = Side()
    by_rule = {t.ours: t for t in TWINS}
    for finding in result.findings:
        twin = by_rule.get(finding.rule)
        if twin is None:
            continue
        if finding.document is not spec.root:
            side.elsewhere += 1
            continue
        key = key_for(twin, finding.pointer, finding.message, "ours")
        if key is None:
            side.not_twin[twin.ours] += 1
        else:
            side.keys[twin.ours].setdefault(key, finding.message)
    return side, spec.root.data, spec.spec_version


def spectral_side(path: Path, results: list[dict]) -> Side:
    side = Side()
    by_code = {code: t for t in TWINS for code in t.spectral}
    here = str(path.resolve())
    for result in results:
        twin = by_code.get(result.get("code"))
        if twin is None:
            continue
        source = result.get("source")
        if source and str(Path(source).resolve()) != here:
            side.elsewhere += 1
            continue
        key = key_for(twin, to_pointer(result.get("path") or []), result.get("message", ""), "spectral")
        if key is None:
            side.not_twin[twin.ours] += 1
        else:
            side.keys[twin.ours].setdefault(key, result.get("message", ""))
    return side


# ----------------------------------------------------------------------------------------------------------
# Reasons
# ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One finding that only `side` reports, with what the explanations look at."""

    side: str
    key: str
    base: str  # the key's pointer (a path-params key without its ` {name} …` tail)
    op: Any  # the raw operation at `base` for operation-level twins, else None
    data: Any  # the raw document
    other: dict[str, str]  # the other side's keys for the same twin
    version: str


def reason(twin: Twin, side: str, key: str, data: Any, other: dict[str, str], version: str) -> str:
    """Best automatic explanation of why `side` alone reports `key`."""
    base = key.split(" {")[0] if twin.level == "path-params" else key
    placed = _placement_reason(twin, side, base, data, other)
    if placed is not None:
        return placed
    op = raw_at(data, base) if twin.level in ("operation", "path-params") else None
    explain = _RULE_REASONS.get(twin.ours)
    found = explain(Case(side, key, base, op, data, other, version)) if explain is not None else None
    return found or "unknown — inspect"


def _placement_reason(twin: Twin, side: str, base: str, data: Any, other: dict[str, str]) -> str | None:
    """Reasons of where a finding is placed (outside /paths, under a path item that is a `$ref`)."""
    parts = segments(base)
    if parts[:1] != ["paths"] and twin.level in ("operation", "path-params"):
        return (f"{side} reports at the $ref target of a path item, not under /paths" if parts else
                "unknown — inspect")
    ref = path_item_ref(data, base)
    if ref is not None:
        target = ref[1:] if ref.startswith("#") else None
        if target and any(k.startswith(target) for k in other):
            return f"same operation: path item is a $ref ({ref}); the other tool reports at the target"
        return f"path item is a $ref ({ref}): the tools walk or place it differently"
    return None


def _description_missing(case: Case) -> str | None:
    if not isinstance(case.op, dict):
        return None
    summary, description = case.op.get("summary"), case.op.get("description")
    if case.side == "spectral" and not blank(summary) and blank(description):
        return "Spectral requires description even with summary"
    if case.side == "ours" and isinstance(description, str) and description and not description.strip():
        return "description is whitespace only: ours counts it as missing, Spectral's truthy accepts it"
    return None


def _id_missing(case: Case) -> str | None:
    if not isinstance(case.op, dict):
        return None
    op_id = case.op.get("operationId")
    if case.side == "ours" and isinstance(op_id, str) and op_id and not op_id.strip():
        return "operationId is whitespace only: ours counts it as missing, Spectral's truthy accepts it"
    if op_id is not None and not isinstance(op_id, str):
        return f"operationId is a {type(op_id).__name__}: the tools read it differently"
    return None


def _id_duplicate(case: Case) -> str | None:
    if not isinstance(case.op, dict):
        return None
    op_id = case.op.get("operationId")
    if case.side == "spectral" and (op_id is None or op_id == ""):
        return "empty/null operationId repeated: Spectral counts it as a duplicate, ours leaves it to " \
               "operation-id-missing"
    data = case.data
    same = [k for k in case.other if isinstance(raw_at(data, k), dict) and raw_at(data, k).get("operationId") == op_id]
    if same:
        return f"same duplicate group ({op_id!r}); the tools flag a different member ({same[0]})"
    return None


def _tags_missing(case: Case) -> str | None:
    if not isinstance(case.op, dict):
        return None
    tags = case.op.get("tags")
    if tags is not None and not isinstance(tags, list):
        return f"tags is a {type(tags).__name__}, not a list"
    if isinstance(tags, list) and tags and not any(isinstance(t, str) and t.strip() for t in tags):
        return "tags has entries but none is a non-blank string"
    return None


def _servers_missing(case: Case) -> str | None:
    data = case.data
    if not isinstance(data, dict):
        return None
    if case.version.startswith("2"):
        host, base_path = data.get("host"), data.get("basePath")
        if case.side == "spectral" and blank(host) and not blank(base_path) and base_path != "/":
            return (f"no host but basePath {base_path!r}: ours accepts basePath as a relative server, "
                    "Spectral's oas2-api-host requires host")
        if case.side == "ours" and not blank(host):
            return "unknown — inspect (host is present)"
        return None
    servers = data.get("servers")
    if case.side == "ours" and isinstance(servers, list) and servers:
        urls = [s.get("url") if isinstance(s, dict) else s for s in servers]
        if all(u in ("", "/", None) for u in urls):
            return (f"servers only {urls!r}: ours wants a base URL, Spectral only a non-empty array")
    return None


def _path_params_mismatch(case: Case) -> str | None:
    match = re.search(r" \{(?P<name>.+)\} (?:undeclared|unused)$", case.key)
    name = match["name"] if match else ""
    if not name or SPECTRAL_NAME.match(name):
        return None
    if case.key.endswith("unused"):
        return (f"name {name!r} has characters Spectral's path template regex rejects "
                "([a-zA-Z0-9_-] only): Spectral does not see {" + name + "} in the path")
    return (f"template variable {name!r} has characters Spectral's regex rejects ([a-zA-Z0-9_-] only): "
            "Spectral does not treat it as a path parameter")


def _unresolved_ref(case: Case) -> str | None:
    value = raw_at(case.data, case.base + "/$ref", follow=False)
    if isinstance(value, str) and re.match(r"^[a-z]+://", value):
        return f"remote $ref {value!r}: ours refuses remote refs, Spectral tries to fetch them"
    if isinstance(value, str) and not value.startswith("#"):
        return f"external $ref {value!r}: resolved relative to the file by each tool differently"
    return None


_RULE_REASONS = {
    "operation-description-missing": _description_missing,
    "operation-id-missing": _id_missing,
    "operation-id-duplicate": _id_duplicate,
    "operation-tags-missing": _tags_missing,
    "servers-missing": _servers_missing,
    "path-params-mismatch": _path_params_mismatch,
    "unresolved-ref": _unresolved_ref,
}


# ----------------------------------------------------------------------------------------------------------
# Comparing and printing
# ----------------------------------------------------------------------------------------------------------


@dataclass
class Tally:
    ours: int = 0
    spectral: int = 0
    both: int = 0
    ours_only: int = 0
    spectral_only: int = 0
    not_twin: int = 0
    reasons: Counter = field(default_factory=Counter)

    def row(self, name: str) -> list[str]:
        union = self.both + self.ours_only + self.spectral_only
        agree = f"{100 * self.both / union:.0f}%" if union else "—"
        return [name, str(self.ours), str(self.spectral), str(self.both), str(self.ours_only),
                str(self.spectral_only), agree, str(self.not_twin) if self.not_twin else ""]


HEADER = ["rule (ours → Spectral)", "ours", "spectral", "both", "ours-only", "spectral-only", "agree",
          "spectral not twin"]


def compare(ours: set[str], spectral: set[str]) -> tuple[set[str], set[str], set[str]]:
    return ours & spectral, ours - spectral, spectral - ours


def twin_label(twin: Twin) -> str:
    return f"{twin.ours} → {' / '.join(twin.spectral)}"


_COUNTS = ("ours", "spectral", "both", "ours_only", "spectral_only")


def add_to(total: Tally, part: Tally, names: tuple[str, ...] = (*_COUNTS, "not_twin")) -> None:
    for name in names:
        setattr(total, name, getattr(total, name) + getattr(part, name))


def lint_file(path: Path, args, totals: dict[str, Tally], restricted_total: Tally) -> str | None:
    progress(f"{path.name}: spectral")
    run = peers.run_spectral(path, args.timeout)
    if run.failed:
        return f"spectral {run.failed}"
    try:
        ours, data, version = ours_side(path)
    except Exception as error:  # a file our loader refuses is reported, not fatal for the sweep
        return f"ours: {type(error).__name__}: {error}"
    spectral = spectral_side(path, run.output if isinstance(run.output, list) else [])

    kind = "Swagger" if version.startswith("2") else "OpenAPI"
    print(f"== {path.name}  ({path.stat().st_size / 1024:.0f} KB, {kind} {version}; "
          f"Spectral {run.wall_s:.1f} s, {len(run.output)} results)")
    rows, details, silent = [], [], []
    for twin in TWINS:
        o, s = set(ours.keys[twin.ours]), set(spectral.keys[twin.ours])
        both, o_only, s_only = compare(o, s)
        tally = Tally(len(o), len(s), len(both), len(o_only), len(s_only), spectral.not_twin[twin.ours])
        add_to(totals[twin.ours], tally)
        if not (o or s or tally.not_twin):
            silent.append(twin.ours)
            continue
        rows.append(tally.row(twin_label(twin)))
        for side, only, other in (("ours", o_only, s), ("spectral", s_only, o)):
            details += one_side_details(twin, side, only, other, data, version, args.examples, totals[twin.ours])
        if twin.ours == "operation-description-missing":
            rows.append(restricted_row(o, s, data, restricted_total))
    print_file(rows, details, silent, ours, spectral)
    return None


def one_side_details(twin: Twin, side: str, only: set[str], other: set[str], data: Any, version: str,
                     examples: int, total: Tally) -> list[str]:
    """The reasons for what `side` alone reports (counted into `total`), and up to `examples` of them."""
    if not only:
        return []
    reasons = {k: reason(twin, side, k, data, other, version) for k in sorted(only)}
    counted = Counter(reasons.values())
    total.reasons.update({(side, r): n for r, n in counted.items()})
    details = [f"  {twin.ours}: {side}-only {len(only)}"]
    details += [f"    {n} × {text}" for text, n in counted.most_common()]
    details += [f"      {k or '(document)'}  — {reasons[k]}" for k in sorted(only)[:examples]]
    if len(only) > examples:
        details.append(f"      … {len(only) - examples} more")
    return details


def restricted_row(o: set[str], s: set[str], data: Any, restricted_total: Tally) -> list[str]:
    """operation-description-missing over the operations with neither summary nor description."""
    neither = {k for k in o | s if isinstance(raw_at(data, k), dict)
               and blank(raw_at(data, k).get("summary")) and blank(raw_at(data, k).get("description"))}
    rb, ro, rs = compare(o & neither, s & neither)
    part = Tally(len(o & neither), len(s & neither), len(rb), len(ro), len(rs))
    add_to(restricted_total, part, _COUNTS)
    return part.row("  └ restricted: ops with neither summary nor description")


def print_file(rows: list[list[str]], details: list[str], silent: list[str], ours: Side, spectral: Side) -> None:
    if rows:
        print_table(HEADER, rows)
    else:
        print()
    if silent:
        print(f"  no findings on either side: {', '.join(silent)}")
    for rule, n in ours.not_twin.items():  # ours' path-params messages are parsed: a reworded message lands here
        print(f"  WARNING: {n} of our {rule} findings have a message this script cannot parse: update key_for()")
    if ours.elsewhere or spectral.elsewhere:
        print(f"  left out (in referenced files): ours {ours.elsewhere}, spectral {spectral.elsewhere}")
    for line in details:
        print(line)
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", nargs="+",
                        help="corpus file names or globs (default: every file under 500 KB + kubernetes-swagger.json)")
    parser.add_argument("--examples", type=int, default=10, help="disagreements listed per rule, side and file (10)")
    parser.add_argument("--timeout", type=float, default=peers.DEFAULT_TIMEOUT_S,
                        help=f"seconds per Spectral run before it is killed ({peers.DEFAULT_TIMEOUT_S})")
    parser.add_argument("--corpus", help="corpus directory (default: $WORKBENCH_CORPUS or ../shared/corpus)")
    args = parser.parse_args(argv)

    corpus = corpus_dir(args.corpus)
    if args.files:
        files = select_files(corpus, args.files)
    else:
        files = [p for p in select_files(corpus, ["*"]) if p.stat().st_size < SMALL_BYTES or p.name in ALWAYS]
    started = time.perf_counter()
    peers.ensure_peers()
    print(f"Spectral agreement — {peers.versions_line()}; ruleset extends spectral:oas (recommended rules); "
          f"ours: default config, in process")
    print(f"{len(files)} files; pointers normalised as described in bench/spectral_agreement.py; "
          "agree = both / (both + ours-only + spectral-only)\n")
    print("Twins:")
    for twin in TWINS:
        print(f"  {twin_label(twin)}" + (f": {twin.note}" if twin.note else ""))
    print()

    totals = {t.ours: Tally() for t in TWINS}
    restricted = Tally()
    failures = []
    for path in files:
        problem = lint_file(path, args, totals, restricted)
        if problem:
            failures.append(f"{path.name}: {problem}")
            print(f"== {path.name}: SKIPPED — {problem}\n")

    print(f"== Totals over {len(files) - len(failures)} files")
    rows = []
    for twin in TWINS:
        rows.append(totals[twin.ours].row(twin_label(twin)))
        if twin.ours == "operation-description-missing":
            rows.append(restricted.row("  └ restricted: ops with neither summary nor description"))
    print_table(HEADER, rows)
    print("Disagreement reasons over all files:")
    for twin in TWINS:
        for (side, text), n in sorted(totals[twin.ours].reasons.items(), key=lambda item: -item[1]):
            print(f"  {twin.ours}: {side}-only {n} × {text}")
    for line in failures:
        print(f"SKIPPED {line}")
    print(f"\n{len(files)} files in {time.perf_counter() - started:.0f} s wall (corpus {corpus}; "
          f"{os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
