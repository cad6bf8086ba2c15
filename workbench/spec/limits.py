"""Documented limits of the loader. Past them the input is refused with a clear message, never a hang."""

import sys

from workbench.spec.errors import SpecError

# Largest file read (bytes). A 50 MB spec loads; past this we refuse rather than exhaust memory.
MAX_FILE_BYTES = 128 * 1024 * 1024

# Deepest nesting of mappings/sequences. Real specs stay under 40; the limit sits well below the point
# where recursive walks (ours, the JSON parser's) would hit Python's recursion limit.
MAX_NESTING = 900

# YAML aliases may expand to at most this many nodes beyond those written out (plus 10 per written node):
# a "billion laughs" document is refused after a few hundred events, in bounded memory.
ALIAS_EXPANSION_BASE = 100_000
ALIAS_EXPANSION_PER_NODE = 10


def too_many_digits(file: str, line: int, column: int) -> SpecError:
    """The error for a number written with more digits than Python reads into an integer (4,300 unless
    `sys.set_int_max_str_digits` says otherwise): refused with its place, as any other unusable input."""
    return SpecError(f"a number of more than {sys.get_int_max_str_digits():,} digits, more than can be read", file,
                     line=line, column=column)


# The garbage collector, for the whole process (every command and the window; a command that ends as soon as its
# output is written runs with it off, see `workbench.cli`). A spec, its findings and its tools are large trees
# without cycles: Python's default (a young pass every 700 net allocations, a full pass every hundred of those)
# only costs time, about 10% of a lint of the 4 MB GitHub description. In the window it
# also costs stalls: a pass holds the interpreter lock, so while a worker thread builds the spec, a full pass over
# it (0.2-0.3 s) keeps the UI thread waiting for its next Python call (a label's size hint during a layout).
YOUNG_PASS_EVERY = 50_000  # net allocations
MIDDLE_EVERY, FULL_EVERY = 50, 100  # passes of the generation below


def collect_rarely() -> None:
    """Young passes every YOUNG_PASS_EVERY net allocations; a full pass almost never."""
    import gc

    gc.set_threshold(YOUNG_PASS_EVERY, MIDDLE_EVERY, FULL_EVERY)
