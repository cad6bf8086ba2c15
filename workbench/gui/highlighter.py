"""Syntax colouring for YAML and JSON specs (a QSyntaxHighlighter: one line at a time, with block state only
for YAML block scalars)."""

from __future__ import annotations

import re

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from workbench.gui.theme import LIGHT_CODE, CodeColors

_YAML_KEY = re.compile(r"""
    (?P<indent>[ \t]*)
    (?P<dash>(?:-[ \t]+)*)
    (?P<key>"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|\?|[^\s\#'"\[\]{},&*!|>%@`\-][^\#]*?|-[^\s\#][^\#]*?)
    [ \t]*:(?=[ \t]|$)""", re.X)
_YAML_DASH = re.compile(r"(?P<indent>[ \t]*)(?P<dash>(?:-(?:[ \t]+|$))+)")
_YAML_FLOW = re.compile(r"""
     (?P<comment>(?:(?<=\s)|^)\#.*$)
    |(?P<dq>"(?:[^"\\]|\\.)*"?)
    |(?P<sq>'(?:[^']|'')*'?)
    |(?P<anchor>[&*][^\s,\[\]{}]+)
    |(?P<tag>![^\s,\[\]{}]*)
    |(?P<block>[|>][-+0-9]*(?=[ \t]*(?:\#.*)?$))
    |(?P<punct>[\[\]{},:])
    |(?P<word>[^\s,\[\]{}\#:][^,\[\]{}]*?(?=[ \t]*(?:[,\[\]{}]|:[ \t]|[ \t]\#|$)))
    |(?P<other>\S)""", re.X)
_YAML_PLAIN_END = re.compile(r"[ \t]+\#|$")
_YAML_KEYWORD = re.compile(r"(?:true|True|TRUE|false|False|FALSE|null|Null|NULL|~)")
_NUMBER = re.compile(r"[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+"
                     r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")
_JSON = re.compile(r"""
     (?P<key>"(?:[^"\\]|\\.)*"(?=[ \t]*:))
    |(?P<string>"(?:[^"\\]|\\.)*"?)
    |(?P<number>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
    |(?P<keyword>\b(?:true|false|null)\b)""", re.X)  # punctuation keeps the text colour (and costs nothing)
# The colour of each kind of flow token (a word is a scalar: keyword, number or string by its text).
_FLOW_FORMATS = {"comment": "comment", "dq": "string", "sq": "string", "anchor": "anchor", "tag": "anchor",
                 "block": "punct", "punct": "punct"}


class SpecHighlighter(QSyntaxHighlighter):
    """Keys, strings, numbers, keywords, comments, anchors and punctuation, in the theme's colours."""

    def __init__(self, document: QTextDocument, fmt: str = "yaml", colors: CodeColors = LIGHT_CODE) -> None:
        super().__init__(document)
        self._format = fmt
        self._formats: dict[str, QTextCharFormat] = {}
        self._build_formats(colors)

    @property
    def language(self) -> str:
        return self._format

    @property
    def colors(self) -> CodeColors:
        return self._colors

    def set_language(self, fmt: str) -> None:
        """Colour what is set next as `fmt` ("yaml" or "json"), without colouring the current text again."""
        self._format = fmt

    def configure(self, fmt: str, colors: CodeColors) -> None:
        """Switch language and colours; rehighlights only when something changed."""
        changed = fmt != self._format or colors != self._colors
        self._format = fmt
        self._build_formats(colors)
        if changed:
            self.rehighlight()

    def _build_formats(self, colors: CodeColors) -> None:
        self._colors = colors

        def make(color: str, *, bold: bool = False, italic: bool = False) -> QTextCharFormat:
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(color))
            if bold:
                fmt.setFontWeight(QFont.Weight.DemiBold)
            fmt.setFontItalic(italic)
            return fmt

        self._formats = {
            "key": make(colors.key), "string": make(colors.string), "number": make(colors.number),
            "keyword": make(colors.keyword), "comment": make(colors.comment, italic=True),
            "punct": make(colors.punctuation), "anchor": make(colors.anchor),
        }

    def highlightBlock(self, text: str) -> None:
        if self._format == "json":
            self._json(text)
        else:
            self._yaml(text)

    # -- JSON ------------------------------------------------------------------------------------------------

    def _json(self, text: str) -> None:
        formats = self._formats
        set_format = self.setFormat
        for match in _JSON.finditer(text):
            start, end = match.span()
            set_format(start, end - start, formats[match.lastgroup])

    # -- YAML ------------------------------------------------------------------------------------------------

    def _yaml(self, text: str) -> None:
        formats = self._formats
        previous = self.previousBlockState()
        if previous >= 1:  # inside a block scalar whose parent sits at column previous - 1
            parent = previous - 1
            stripped = text.lstrip(" ")
            if not stripped.strip() or len(text) - len(stripped) > parent:
                self.setFormat(0, len(text), formats["string"])
                self.setCurrentBlockState(previous)
                return
        self.setCurrentBlockState(-1)
        if text.startswith(("---", "...")) and text[3:4] in ("", " ", "\t"):
            self.setFormat(0, 3, formats["anchor"])
            self._yaml_value(text, 3, 0)
            return
        if text.startswith("%"):
            self.setFormat(0, len(text), formats["anchor"])
            return
        match = _YAML_KEY.match(text)
        if match:
            key_start, key_end = match.span("key")
            self._dashes(match.start("dash"), match.group("dash"))
            self.setFormat(key_start, key_end - key_start, formats["key"])
            colon = text.index(":", key_end)
            self.setFormat(colon, 1, formats["punct"])
            self._yaml_value(text, colon + 1, len(match.group("indent")) + len(match.group("dash")))
            return
        match = _YAML_DASH.match(text)
        if match and match.group("dash"):
            self._dashes(match.start("dash"), match.group("dash"))
            self._yaml_value(text, match.end(), len(match.group("indent")))
            return
        self._yaml_value(text, 0, len(text) - len(text.lstrip(" ")))

    def _dashes(self, start: int, dashes: str) -> None:
        for offset, char in enumerate(dashes):
            if char == "-":
                self.setFormat(start + offset, 1, self._formats["punct"])

    def _yaml_value(self, text: str, pos: int, parent_indent: int) -> None:
        length = len(text)
        while pos < length and text[pos] in " \t":
            pos += 1
        if pos >= length:
            return
        if text[pos] not in "[{\"'&*!|>#":  # a plain scalar in block context runs to a comment or the end
            end = _YAML_PLAIN_END.search(text, pos).start()
            self._scalar(text[pos:end].rstrip(), pos)
            if end < length:
                comment = text.index("#", end)
                self.setFormat(comment, length - comment, self._formats["comment"])
            return
        self._yaml_flow(text, pos, parent_indent)

    def _yaml_flow(self, text: str, pos: int, parent_indent: int) -> None:
        """Flow collections, quoted scalars, anchors, tags and block indicators, token by token."""
        formats = self._formats
        length = len(text)
        while pos < length:
            if text[pos] in " \t":
                pos += 1
                continue
            match = _YAML_FLOW.match(text, pos)
            if match is None:
                break
            kind = match.lastgroup
            start, end = match.span()
            if kind == "word":
                self._scalar(match.group(), start)
            elif kind in _FLOW_FORMATS:
                self.setFormat(start, end - start, formats[_FLOW_FORMATS[kind]])
            if kind == "block":
                self.setCurrentBlockState(parent_indent + 1)
            pos = max(end, pos + 1)

    def _scalar(self, value: str, start: int) -> None:
        if not value:
            return
        if _YAML_KEYWORD.fullmatch(value):
            kind = "keyword"
        elif _NUMBER.fullmatch(value):
            kind = "number"
        else:
            kind = "string"
        self.setFormat(start, len(value), self._formats[kind])


# Diff lines: added, removed, hunk headers, file headers; (light, dark) text and background colours.
DIFF_COLORS = {"added": (("#116329", "#e6ffec"), ("#7ee2a8", "#12361f")),
               "removed": (("#a40e26", "#ffebe9"), ("#ffa198", "#3d1418")),
               "hunk": (("#0550ae", None), ("#79c0ff", None)),
               "file": (("#57606a", None), ("#8b949e", None))}


def diff_line_kind(line: str) -> str | None:
    """What a line of a unified diff is: "file", "hunk", "added", "removed", or None (context)."""
    if line.startswith(("+++", "---")):
        return "file"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "added"
    if line.startswith("-"):
        return "removed"
    return None


class DiffHighlighter(QSyntaxHighlighter):
    """Added lines green, removed lines red, hunk and file headers apart (light or dark)."""

    def __init__(self, document: QTextDocument, *, dark: bool = False) -> None:
        super().__init__(document)
        self.formats: dict[str, QTextCharFormat] = {}
        for kind, pair in DIFF_COLORS.items():
            text, background = pair[1 if dark else 0]
            form = QTextCharFormat()
            form.setForeground(QColor(text))
            if background:
                form.setBackground(QColor(background))
            if kind in ("file", "hunk"):
                form.setFontWeight(QFont.Weight.Bold)
            self.formats[kind] = form

    def highlightBlock(self, text: str) -> None:
        kind = diff_line_kind(text)
        if kind is not None:
            self.setFormat(0, len(text), self.formats[kind])
