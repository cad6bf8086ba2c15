"""Documented limits of the loader. Past them the input is refused with a clear message, never a hang."""

# Largest file read (bytes). A 50 MB spec loads; past this we refuse rather than exhaust memory.
MAX_FILE_BYTES = 128 * 1024 * 1024

# Deepest nesting of mappings/sequences. Real specs stay under 40; the limit sits well below the point
# where recursive walks (ours, the JSON parser's) would hit Python's recursion limit.
MAX_NESTING = 900

# YAML aliases may expand to at most this many nodes beyond those written out (plus 10 per written node):
# a "billion laughs" document is refused after a few hundred events, in bounded memory.
ALIAS_EXPANSION_BASE = 100_000
ALIAS_EXPANSION_PER_NODE = 10
