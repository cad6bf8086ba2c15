"""A unified diff computed from the splices themselves: exact, and instant on a 40,000-line file (a
line-matching diff of the whole file takes over a second there)."""

from __future__ import annotations

import bisect

from workbench.edit.engine import Splice

CONTEXT = 3


def _line_starts(text: str) -> list[int]:
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    if starts[-1] == len(text) and len(starts) > 1:
        starts.pop()  # a final line break does not start another line
    return starts


def unified_diff(old: str, splices: list[Splice], name: str) -> str:
    """The diff from `old` to `old` with `splices` applied (splices planned against `old`, not overlapping)."""
    if not splices:
        return ""
    starts = _line_starts(old)
    lines = old.splitlines(keepends=True)

    def line_of(offset: int) -> int:
        return bisect.bisect_right(starts, offset) - 1

    # Each splice touches whole old lines [first, last) and yields replacement lines.
    regions: list[list] = []  # [first, last, [splices]]
    for splice in sorted(splices, key=lambda s: (s.start, s.end)):
        first = line_of(splice.start)
        if splice.start == splice.end and splice.start == starts[first] and splice.start < len(old):
            last = first  # an insertion at a line start replaces no old line
        elif splice.start == len(old) and (not old or old.endswith("\n")):
            first = last = len(lines)
        else:
            end = max(splice.end, splice.start + 1)
            last = line_of(end - 1) + 1
        if regions and first <= regions[-1][1] and not (first == last == regions[-1][1] and regions[-1][0] < first):
            regions[-1][1] = max(regions[-1][1], last)
            regions[-1][2].append(splice)
        else:
            regions.append([first, last, [splice]])

    changes = []  # (old_first, old_last, new_lines)
    for first, last, group in regions:
        base = starts[first] if first < len(starts) else len(old)
        stop = starts[last] if last < len(starts) else len(old)
        chunk = old[base:stop]
        for splice in sorted(group, key=lambda s: s.start, reverse=True):
            chunk = chunk[: splice.start - base] + splice.text + chunk[splice.end - base :]
        changes.append((first, last, chunk.splitlines(keepends=True)))

    label = name.lstrip("/")
    out = [f"--- a/{label}\n", f"+++ b/{label}\n"]
    index = 0
    delta = 0
    while index < len(changes):
        group = [changes[index]]
        while index + 1 < len(changes) and changes[index + 1][0] - group[-1][1] <= 2 * CONTEXT:
            index += 1
            group.append(changes[index])
        index += 1
        old_from = max(0, group[0][0] - CONTEXT)
        old_to = min(len(lines), group[-1][1] + CONTEXT)
        body: list[str] = []
        cursor = old_from
        added = removed = 0
        for first, last, new_lines in group:
            body += [" " + line for line in lines[cursor:first]]
            body += ["-" + line for line in lines[first:last]]
            body += ["+" + line for line in new_lines]
            removed += last - first
            added += len(new_lines)
            cursor = last
        body += [" " + line for line in lines[cursor:old_to]]
        old_count = old_to - old_from
        new_count = old_count - removed + added
        new_from = old_from + delta
        delta += added - removed
        out.append(f"@@ -{_range(old_from, old_count)} +{_range(new_from, new_count)} @@\n")
        out += [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in body]
    return "".join(out)


def _range(start: int, count: int) -> str:
    if count == 0:
        return f"{start},0"
    return f"{start + 1}" if count == 1 else f"{start + 1},{count}"
