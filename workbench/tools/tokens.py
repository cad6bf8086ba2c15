"""Token estimates, offline: o200k_base over each tool's serialised definition, plus the vendor's fixed overhead
where known. Always labelled an estimate.

The encoding ships beside this module as `o200k_base.ranks` (1.2 MB, see `ranks_file`): its 199,998 tokens in
groups of one length, each group sorted, with their ranks. Loading it takes one decompression (skipped when the
user's cache holds the decompressed table, see `_bundled_table`) and one unpacking per group, some 15-25 ms and
14 MiB (the bpe-openai Rust tokenizer used before took 0.1 s and 65 MiB); a token's rank is
found by bisection in its group. A text is cut into pieces by tiktoken's o200k_base pattern and each piece merged as
tiktoken merges it: the adjacent pair whose joined bytes rank lowest first, the leftmost among equals. Each distinct
piece is merged once (a 4 MB spec has some 13,000). Counts are those of the Rust tokenizer (tests/tools/test_tokens.py
holds them, recorded with it) and so are its refusals: a text of a million characters or more, or of more than
200,000 tokens, is counted by the 4-characters rule of thumb instead, as every text is when the table cannot be
read or the `regex` package is missing.
"""

from __future__ import annotations

import base64
import collections
import heapq
import marshal
import os
import struct
import sys
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from functools import cache
from importlib.util import find_spec
from operator import itemgetter
from pathlib import Path

from workbench import cache_folder, dealing, lazy_pattern, replace_file
from workbench.tools.model import TokenEstimate, compact_json

METHOD = "estimate: o200k_base tokens of the serialised tool definition"
RANKS = Path(__file__).with_name("o200k_base.ranks")
# Refused as bpe-openai's Encoding.encode refused them (`count` falls back to the rule of thumb then):
MAX_CHARS = 1_000_000  # "Input too long to encode safely"
CHUNK_LIMIT = 200_000  # its chunk limit for o200k_base
SHORT = 3  # tokens of up to this many bytes are looked up in a dictionary, longer ones by bisection
CACHE_PIECES = 1 << 16  # distinct pieces whose counts are kept (a 4 MB spec has some 13,000)
SHARED_FROM = 500_000  # characters of tool definitions from which `counts` may share them with forked copies

# tiktoken's o200k_base pre-tokenizer, run by the `regex` package (the standard `re` has no \p{...} classes)
PATTERN = "|".join((
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
))
# The same pattern on ASCII text (letters A-Z a-z, digits 0-9, white space \t \n \v \f \r and space), for the
# standard `re`, which splits a tool definition twice as fast; tests check the two split alike.
_S = r"\t\n\x0b\x0c\r "
_CONTRACTION = r"(?:'[sStTmMdD]|'[rR][eE]|'[vV][eE]|'[lL][lL])?"
ASCII_PATTERN = "|".join((
    rf"""[^\r\nA-Za-z0-9]?[A-Z]*[a-z]+{_CONTRACTION}""",
    rf"""[^\r\nA-Za-z0-9]?[A-Z]+[a-z]*{_CONTRACTION}""",
    r"""[0-9]{1,3}""",
    rf""" ?[^{_S}A-Za-z0-9]+[\r\n/]*""",
    rf"""[{_S}]*[\r\n]+""",
    rf"""[{_S}]+(?![^{_S}])""",
    rf"""[{_S}]+""",
))
_ASCII = lazy_pattern(ASCII_PATTERN)  # (compiled when first used, from the pattern store: `tools` imports this)
# What PATTERN's \s matches (Unicode's White_Space), and where a text can be cut (see `split`)
_WHITE = r"\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_IS_WHITE = lazy_pattern(f"[{_WHITE}]")
_CUT = lazy_pattern(f"(?<=[^{_WHITE}]) ")
# Where cutting a text at every space (see Counter._count) would count otherwise than the pattern: a space after white
# space other than a space, or two spaces or more before such white space. A run of spaces before anything else is
# the pattern's piece of all but its last space, then the next word: the cut counts it so once corrected (JSON holds
# no white space but its strings' spaces, and prose puts two after a full stop and indents code with more).
_WHITE_BUT_SPACE = _WHITE.replace(" ", "")
_UNCUT_SPACE = lazy_pattern(f"[{_WHITE_BUT_SPACE}] | {{2,}}[{_WHITE_BUT_SPACE}]")
_LONG_RUN = lazy_pattern("   +")
# The characters of _WHITE_BUT_SPACE one by one, ASCII first: a text holding none of them (the most of those that are
# not ASCII) needs no _UNCUT_SPACE search, and a character's `in` is a fast scan where the search is not (on a
# 100 KB tool definition with a letter that is not ASCII, 2.3 ms against 0.2 for all of them)
_WHITE_CHARS_BUT_SPACE = tuple("\t\n\x0b\x0c\r"), tuple(
    "\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_NOT_ASCII = lazy_pattern(r"[^\x00-\x7f]+")


def serialise(tool: dict) -> str:
    """A tool definition as the text its tokens are counted over (compact JSON, non-ASCII as is)."""
    return compact_json(tool)


def ranks_file(tiktoken_text: bytes) -> bytes:
    """The bundled table from an encoding's `.tiktoken` file (a base64 token and its rank on each line), its tokens
    in groups of one length: the number of groups (2 bytes); each group's token length (1 byte) and size (4 bytes);
    then each group's ranks (4 bytes each), then each group's tokens, sorted; little-endian, zlib-compressed.
    `o200k_base.ranks` was made from tiktoken's o200k_base.tiktoken (the copy inside bpe-openai 0.1.4,
    data/o200k_base.tiktoken.gz, un-gzipped)."""
    groups: dict[int, dict[bytes, int]] = {}
    for line in tiktoken_text.splitlines():
        if line.strip():
            token, rank = line.split()
            token = base64.b64decode(token)
            groups.setdefault(len(token), {})[token] = int(rank)
    lengths = sorted(groups)
    head = len(lengths).to_bytes(2, "little") + b"".join(
        length.to_bytes(1, "little") + len(groups[length]).to_bytes(4, "little") for length in lengths)
    ranks = array("I", (groups[length][token] for length in lengths for token in sorted(groups[length])))
    if sys.byteorder == "big":
        ranks.byteswap()
    tokens = b"".join(token for length in lengths for token in sorted(groups[length]))
    return zlib.compress(head + ranks.tobytes() + tokens, 9)


class Table:
    """An encoding's tokens by length, each length's sorted, and their ranks."""

    def __init__(self, data: bytes, *, compressed: bool = True) -> None:
        payload = memoryview(zlib.decompress(data) if compressed else data)
        count = int.from_bytes(payload[:2], "little")
        if len(payload) < 2 + 5 * count:
            raise ValueError(f"{RANKS.name}: truncated table")
        head = [(payload[2 + 5 * i], int.from_bytes(payload[3 + 5 * i:7 + 5 * i], "little")) for i in range(count)]
        if any(length == 0 for length, _ in head) or len({length for length, _ in head}) != len(head):
            raise ValueError(f"{RANKS.name}: a group of no length, or two of one length")
        ranks = array("I")
        ranks.frombytes(payload[2 + 5 * count:2 + 5 * count + 4 * sum(size for _, size in head)])
        if sys.byteorder == "big":
            ranks.byteswap()
        at, first = 2 + 5 * count + 4 * len(ranks), 0
        self.groups: dict[int, tuple[list[bytes], array]] = {}
        for length, size in head:
            tokens = payload[at:at + length * size]
            if len(tokens) != length * size:
                raise ValueError(f"{RANKS.name}: truncated table")
            self.groups[length] = (list(map(itemgetter(0), struct.iter_unpack(f"{length}s", tokens))),
                                   ranks[first:first + size])
            at, first = at + length * size, first + size
        if at != len(payload):
            raise ValueError(f"{RANKS.name}: {len(payload) - at} bytes past the table")
        # the tokens of up to SHORT bytes in a dictionary as well (23,094 of them, some 2 MiB): they are over half
        # the lookups of a merge, its first pairs all of them
        self.short = {token: rank for length in range(1, SHORT + 1) if length in self.groups
                      for token, rank in zip(*self.groups[length], strict=True)}

    def rank(self, part: bytes) -> int | None:
        if len(part) <= SHORT:
            return self.short.get(part)
        group = self.groups.get(len(part))
        if group is None:
            return None
        tokens, ranks = group
        at = bisect_left(tokens, part)
        return ranks[at] if at < len(tokens) and tokens[at] == part else None

    def merged_count(self, piece: bytes) -> int:
        """How many tokens the byte-pair merge leaves of one piece: the adjacent pair whose joined bytes have the
        lowest rank is merged first (the leftmost among equals), until no joined pair is a token."""
        size = len(piece)
        if size < 2 or self.rank(piece) is not None:
            return 1
        rank = self.rank
        following = list(range(1, size + 1))  # where the part starting at each byte ends
        preceding = list(range(-1, size - 1))  # where the part before it starts (-2: merged into it)
        pairs = [(r, start, start + 2) for start in range(size - 1) if (r := rank(piece[start:start + 2])) is not None]
        heapq.heapify(pairs)
        parts = size
        while pairs:
            _, start, end = heapq.heappop(pairs)
            middle = following[start]
            if middle >= size or following[middle] != end or preceding[middle] != start:
                continue  # one of its two parts has been merged since
            following[start] = end
            preceding[middle] = -2
            parts -= 1
            if end < size:
                preceding[end] = start
                if (r := rank(piece[start:following[end]])) is not None:
                    heapq.heappush(pairs, (r, start, following[end]))
            before = preceding[start]
            if before >= 0 and (r := rank(piece[before:end])) is not None:
                heapq.heappush(pairs, (r, before, end))
        return parts


class Counter:
    """Counts one text's o200k_base tokens (raising ValueError where bpe-openai's Encoding refused)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.pieces: dict[str, int] = {}
        self.words: dict[str, int] = {}  # what follows a space that is a cut -> the count of " " + it

    def __call__(self, text: str) -> int:
        if not text:
            return 0
        if len(text) >= MAX_CHARS:
            raise ValueError("Input too long to encode safely")
        try:
            counted = self._count(text)
        except UnicodeEncodeError:  # lone surrogates: replaced, as bpe-openai did
            counted = self._count(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace"))
        if counted > CHUNK_LIMIT:
            raise ValueError(f"{counted} tokens is beyond the chunk limit of {CHUNK_LIMIT}")
        return counted

    def _count(self, text: str) -> int:
        """A text is cut before each of its spaces (see `split` and _UNCUT_SPACE), and each part is counted once:
        a tool set's serialised JSON repeats its words and phrases, and one str.split is a fifth of the time of
        the pattern over the whole text."""
        if _white_but_space(text) and _UNCUT_SPACE.search(text):
            return self._pieces_count(text)  # (the pattern's search is slow: most texts never need it)
        words = self.words
        if len(words) > CACHE_PIECES:
            words.clear()
        parts = text.split(" ")
        total = self._pieces_count(parts[0]) if parts[0] else 0
        # A run of n spaces was cut into n one-space parts; it is one piece of n - 1 spaces, then the next word's part
        # (so nothing to correct for two), or at the end of the text one piece of all n.
        last = len(text) - len(text.rstrip(" ")) if text.endswith("  ") else 0
        if last:
            total += self._pieces_count(" " * last) - last
        if "   " in text:
            runs = collections.Counter(map(len, _LONG_RUN.findall(text)))
            if last >= 3:
                runs[last] -= 1  # counted above
            total += sum(times * (self._pieces_count(" " * (size - 1)) - (size - 1)) for size, times in runs.items())
        rest = parts[1:]
        counts = list(map(words.get, rest))
        if None in counts:
            new = list(dict.fromkeys(part for part, counted in zip(rest, counts, strict=True) if counted is None))
            together = [part for part in new if part and part.isascii() and not part[-1].isspace()]
            if together:
                self._words_together(together)
            for part in new:
                if part not in words:
                    self._word(part)
            counts = list(map(words.__getitem__, rest))
        return total + sum(counts)

    def _word(self, part: str) -> int:
        counted = self.words[part] = self._pieces_count(" " + part)
        return counted

    def _words_together(self, parts: list[str]) -> None:
        """Each part's `_word` count, the parts split as one text, " " + each in turn: a space after a character that
        is not white space starts a piece (see `split`), so the text's pieces are each part's in turn, found by
        their lengths. ASCII parts that do not end in white space only: one pattern run for a text's new words,
        not one each (OpenAI's 288 tools counted in 0.13 s instead of 0.15)."""
        pieces = _ASCII.findall(" " + " ".join(parts))
        known = self.pieces
        if len(known) > CACHE_PIECES:
            known.clear()
        counts = list(map(known.get, pieces))
        if None in counts:
            counts = [counted or known.get(piece) or self._merged(piece)
                      for piece, counted in zip(pieces, counts, strict=True)]
        words = self.words
        at = 0
        for part in parts:
            left, total = len(part) + 1, 0
            while left > 0:
                left -= len(pieces[at])
                total += counts[at]
                at += 1
            words[part] = total

    def _pieces_count(self, text: str) -> int:
        pieces = self.pieces
        if len(pieces) > CACHE_PIECES:
            pieces.clear()
        total = 0
        for segment in split(text):
            counts = list(map(pieces.get, segment))
            if None in counts:  # pieces not met before: merged once each (no count is 0)
                counts = [counted or pieces.get(piece) or self._merged(piece)
                          for piece, counted in zip(segment, counts, strict=True)]
            total += sum(counts)
        return total

    def _merged(self, piece: str) -> int:
        counted = self.pieces[piece] = self.table.merged_count(piece.encode("utf-8"))
        return counted


def _white_but_space(text: str) -> bool:
    ascii_white, other_white = _WHITE_CHARS_BUT_SPACE
    return any(white in text for white in ascii_white) or (
        not text.isascii() and any(white in text for white in other_white))


def split(text: str) -> Iterator[list[str]]:
    """The text's pieces under PATTERN, in runs: its ASCII stretches split by ASCII_PATTERN, and only the words
    around its other characters by PATTERN itself. A space after a character that is not white space always starts
    a piece (no piece holds a space but as its first character or among white space only), and no piece looks
    behind itself, so the text can be cut before any such space and each part split alone."""
    if text.isascii() or _splits_as_ascii(text):
        yield _ASCII.findall(text)
        return
    unicode_split = _unicode_split()
    done = 0  # where the pieces yielded so far end: the start of the text or a cut
    for run in _NOT_ASCII.finditer(text):
        if run.start() < done:
            continue  # inside the words just split
        cut = text.rfind(" ", done, run.start() + 1)
        while cut > done and _IS_WHITE.match(text, cut - 1):
            cut = text.rfind(" ", done, cut)
        cut = max(cut, done)
        after = _CUT.search(text, run.end())
        end = after.start() if after else len(text)
        if cut > done:
            yield _ASCII.findall(text[done:cut])
        yield unicode_split(text[cut:end])
        done = end
    if done < len(text):
        yield _ASCII.findall(text[done:])


def _splits_as_ascii(text: str) -> bool:
    """Whether ASCII_PATTERN splits `text` as PATTERN does although it is not ASCII: its other characters are all
    punctuation, symbols or format characters ("—", "’", "→", a zero-width space), which both patterns take as
    they take ASCII punctuation (ASCII_PATTERN's negated classes hold every character that is not ASCII). Most real
    tool definitions that are not ASCII are so, and then the `regex` package, a twentieth of a tool-converting
    command's start-up, is not imported."""
    return all(map(_punctuation_alike, set("".join(_NOT_ASCII.findall(text)))))


@cache
def _punctuation_alike(char: str) -> bool:
    """Neither a letter, a mark nor a number (by the standard `unicodedata`; a character it does not know, as one
    of a later Unicode may be a letter, is not), nor white space."""
    import unicodedata

    category = unicodedata.category(char)
    return category[0] in "PSC" and category != "Cn" and not _IS_WHITE.match(char)


@cache
def _unicode_split() -> Callable[[str], list[str]]:
    import regex  # only for text that is not ASCII

    return regex.compile(PATTERN).findall


@cache
def _encoder() -> Callable[[str], int] | None:
    """How to count one text's tokens, or None when the table cannot be read (the rule of thumb then)."""
    if find_spec("regex") is None:
        return None
    try:
        return Counter(_bundled_table())
    except (OSError, ValueError, zlib.error):
        return None


def _bundled_table() -> Table:
    """The bundled table, read decompressed from the user's cache when an earlier run left it there (decompressing is
    ten of the table's 25 ms, a fifteenth of converting a small spec's tools), else decompressed and left there. The
    cached copy is named by the bundled file's checksum and ends with its own, so that neither another version's
    table nor a damaged copy is ever read."""
    data = RANKS.read_bytes()
    try:
        cached = cache_folder("tokens") / f"{RANKS.stem}-{zlib.crc32(data):08x}.table"
    except (RuntimeError, KeyError):  # no home folder to find a cache in
        return Table(data)
    try:
        kept = memoryview(cached.read_bytes())  # sliced without copying its 2 MB
        if len(kept) > 4 and zlib.crc32(kept[:-4]) == int.from_bytes(kept[-4:], "little"):
            return Table(kept[:-4], compressed=False)
    except (OSError, ValueError):
        pass  # not there (or not readable, or not a table): decompressed below, as if there were no cache
    payload = zlib.decompress(data)
    table = Table(payload, compressed=False)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        replace_file(cached, [payload, zlib.crc32(payload).to_bytes(4, "little")])
    except OSError:
        pass  # a cache that cannot be written only costs the decompression next time
    return table


def prepare() -> None:
    """Load the table now (some 0.06 s), before the window is shown rather than on its first estimate."""
    _encoder()


def count(text: str) -> int:
    encoder = _encoder()
    if encoder is not None:
        try:
            return encoder(text)
        except ValueError:
            pass  # beyond what the tokenizer takes in one piece: the rule of thumb below
    return max(1, len(text) // 4)


def method() -> str:
    return METHOD if _encoder() is not None else "estimate: characters / 4 (no tokenizer available)"


def counts(texts: Sequence[str], parallel: bool = False) -> list[int]:
    """Each text's count. `parallel`: the caller's process may fork (`workbench.dealing`); the texts are then shared
    with copies of it on the other CPUs when there are enough of them to repay a fork (a copy's caches start as
    this process's, so words met by both are merged twice; on a machine whose second CPU gives half a core,
    Kubernetes' 1,123 tools are counted in 0.39 s instead of 0.57, OpenAI's 288 in 0.12 s instead of 0.14, and
    Twilio Verify's 57 (74 KB) would take 29 ms instead of 17)."""
    copies = 0
    if parallel and len(texts) > 1 and sum(map(len, texts)) >= SHARED_FROM:
        copies = dealing.processes_here() - 1
        if copies:
            _encoder()  # (loaded before the forks: every copy shares it)
    return dealing.share(len(texts), lambda index: count(texts[index]), copies)


class CountingProcess:
    """A forked process that loads the table while this one reads and converts the spec, then counts the texts it is
    sent (`counts`, shared with a copy of itself on another CPU): the command line's way to count a tool set, for
    which this process then loads no table and imports no `regex` (OpenAI's tools: from their texts to their counts
    0.18 s in this process, the table loaded, then the counts shared with a copy of a 70 MB process; 0.05-0.07 s
    sent there, the spec's words counted before and the tools written here meanwhile; `workbench tools` peaks at 52
    MB instead of 70). Whatever goes wrong there (it died, sent back something else) is counted here instead."""

    def __init__(self, pid: int, texts_out: int, counts_in: int) -> None:
        self.pid, self.texts_out, self.counts_in = pid, texts_out, counts_in
        self.sent: Sequence[str] | None = None

    @classmethod
    def start(cls, words_from: str | os.PathLike[str] | None = None) -> CountingProcess | None:
        """The process, or None where this one may not fork (`dealing.processes_here`, or the fork fails), has one
        CPU, or has the table already. `words_from`: a file (the spec) whose words it counts while it waits, so
        that those of the tools' texts are counted already when they come (see `_warm`)."""
        if dealing.processes_here() < 2 or _encoder.cache_info().currsize:
            return None
        opened: list[int] = []
        try:
            texts_in, texts_out = os.pipe()
            opened += (texts_in, texts_out)
            counts_in, counts_out = os.pipe()
            opened += (counts_in, counts_out)
            pid = os.fork()
        except OSError:
            for fd in opened:
                os.close(fd)
            return None
        if pid == 0:  # the counting process: never returns
            _count_sent(texts_in, counts_out, (texts_out, counts_in), words_from)
        os.close(texts_in)
        os.close(counts_out)
        return cls(pid, texts_out, counts_in)

    def send(self, texts: Sequence[str]) -> None:
        """Have the texts counted from now on (a command that prints the tools before their counts). Once only."""
        if self.sent is not None:
            raise ValueError("this process has its texts already")
        self.sent = texts
        try:
            payload = memoryview(marshal.dumps(list(texts)))
            while payload:
                payload = payload[os.write(self.texts_out, payload):]
        except (OSError, ValueError):
            pass  # (nothing comes back: `counts` says so)
        finally:
            with suppress(OSError):
                os.close(self.texts_out)
            self.texts_out = -1

    def counts(self, texts: Sequence[str]) -> tuple[list[int], str] | None:
        """Each text's count and how they were counted (`method`), or None if the process did not give them: the
        texts given to `send`, or sent now. Once only: the process then ends."""
        try:
            if self.sent is None:
                self.send(texts)
            answer = marshal.loads(_read_all(self.counts_in)) if self.sent is texts else None
        except (OSError, EOFError, ValueError, TypeError):
            answer = None
        finally:
            self.close()
        if not (isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], list)
                and len(answer[0]) == len(texts) and all(type(n) is int for n in answer[0])
                and isinstance(answer[1], str)):
            return None
        return answer

    def close(self) -> None:
        """End the process (unused, it reads the end of its pipe and ends) and wait for it."""
        for fd in (self.texts_out, self.counts_in):
            if fd >= 0:
                with suppress(OSError):
                    os.close(fd)
        self.texts_out = self.counts_in = -1
        if self.pid:
            with suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0


def _count_sent(texts_in: int, counts_out: int, parents: tuple[int, int],
                words_from: str | os.PathLike[str] | None) -> None:
    """The counting process's whole life: load the table, count the words of `words_from` until the texts come, count
    them, send the counts back, and end without running any of its parent's clean-up (`os._exit`, whatever happens:
    no buffered output of the parent written twice, and it never returns into its parent's code)."""
    code = 0
    try:
        for fd in parents:
            os.close(fd)
        encoder = _encoder()
        if encoder is not None and words_from is not None:
            _warm(encoder, words_from, texts_in)
        sent = _read_all(texts_in)
        if sent:
            texts = marshal.loads(sent)
            payload = memoryview(marshal.dumps((counts(texts, parallel=True), method())))
            while payload:
                payload = payload[os.write(counts_out, payload):]
    except BaseException:  # nothing sent back: the parent counts
        code = 1
    finally:
        os._exit(code)


WARM_LINES = 400  # lines of the spec counted between two looks for the texts


def _warm(counter: Counter, path: str | os.PathLike[str], texts_in: int) -> None:
    """Count the words of the regular file at `path`, a few hundred lines at a time, until the texts can be read from
    `texts_in`: the tools' texts repeat the spec's prose and names, so their words are then mostly counted already,
    and what was counted is kept as counting anything keeps it (the same counts). OpenAI's 288 tools: 147 ms of
    counting after their texts come, 95 after the spec's words; GitHub's 127 and 66; Box's 79 and 40."""
    import select
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return  # (a pipe, `<(curl …)` or /dev/stdin: what it holds is the command's to read, once)
        with open(path, encoding="utf-8", errors="replace") as file:
            lines = file.read(4 * MAX_CHARS).splitlines()
    except OSError:
        return
    for at in range(0, len(lines), WARM_LINES):
        if select.select([texts_in], [], [], 0)[0]:
            return
        text = " ".join(line.strip() for line in lines[at:at + WARM_LINES])
        if text and len(text) < MAX_CHARS:
            counter._count(text)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def estimate(native_tools: list[dict], names: list[str], overhead: int = 0,
             texts: Callable[[], Sequence[str]] | None = None, *, counter: CountingProcess | None = None
             ) -> TokenEstimate:
    """`texts`, when given, returns each native tool already serialised by `serialise` (aligned with
    `native_tools`), so that a command that prints the tools serialises each one once. `counter`: a process
    started to count them (see `CountingProcess`)."""
    serialised = texts() if texts is not None else [serialise(tool) for tool in native_tools]
    answer = counter.counts(serialised) if counter is not None else None
    numbers, how = answer if answer is not None else (counts(serialised), method())
    per_tool = dict(zip(names, numbers, strict=True))
    overhead = overhead if native_tools else 0
    return TokenEstimate(sum(per_tool.values()) + overhead, per_tool, overhead, how)
