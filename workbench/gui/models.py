"""Qt item models over core data: presentation only (no loading, no linting).

Both trees are two levels deep, so an index's internal id says where it sits: 0 for a top-level row,
`parent row + 1` for a child.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from workbench.gui.theme import SEVERITY_ORDER, SEVERITY_TITLES, severity_icon
from workbench.lint import Severity
from workbench.lint.engine import severity_counts
from workbench.workspace import OperationEntry, ProblemEntry, PropertyEntry, SchemaEntry

FindingRole = Qt.ItemDataRole.UserRole + 1  # the Finding (leaf rows)
EntryRole = Qt.ItemDataRole.UserRole + 2  # the ProblemEntry / OperationEntry (leaf rows)
SeverityRole = Qt.ItemDataRole.UserRole + 3  # int
RuleRole = Qt.ItemDataRole.UserRole + 4  # str
FilterRole = Qt.ItemDataRole.UserRole + 5  # lower-case text the outline's filter box matches
OperationRole = Qt.ItemDataRole.UserRole + 7  # the Operation (leaf rows of the outline)
LocationRole = Qt.ItemDataRole.UserRole + 8  # a Location to jump to (or None)

AnyIndex = QModelIndex | QPersistentModelIndex


class _TwoLevelModel(QAbstractItemModel):
    """index()/parent() for a tree of top-level rows with one level of children."""

    COLUMNS: tuple[str, ...] = ()

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole \
                and 0 <= section < len(self.COLUMNS):
            return self.COLUMNS[section]
        return None

    def _child_count(self, row: int) -> int:
        raise NotImplementedError

    def _top_count(self) -> int:
        raise NotImplementedError

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 (Qt's own default)
        if not parent.isValid():
            return self._top_count()
        if parent.column() != 0 or parent.internalId() != 0:
            return 0
        return self._child_count(parent.row())

    def index(self, row: int, column: int, parent: AnyIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        # Bounds checked here rather than with hasIndex(): that calls rowCount() and columnCount() back through
        # Python, and a tree view lays out thousands of expanded rows through this method.
        if not 0 <= column < len(self.COLUMNS) or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0) if row < self._top_count() else QModelIndex()
        if parent.internalId() != 0 or parent.column() != 0 or row >= self._child_count(parent.row()):
            return QModelIndex()
        return self.createIndex(row, column, parent.row() + 1)

    def parent(self, index: AnyIndex | None = None):  # also QObject.parent() when called without an index
        if index is None:
            return super().parent()
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, 0)

    def hasChildren(self, parent: AnyIndex = QModelIndex()) -> bool:  # noqa: B008
        return self.rowCount(parent) > 0

    # flags(): Qt's own default (enabled and selectable) is what every row needs, without a call into Python
    # per row while a view lays out.


# -- problems --------------------------------------------------------------------------------------------------


class ProblemsModel(_TwoLevelModel):
    """Findings grouped by severity (errors first), each group in source order, filtered by rule and by text.

    The filter lives in the model rather than in a QSortFilterProxyModel: a proxy maps every row through
    Python calls while the view lays out, which doubled the time to show the GitHub description's 2,500
    findings. A filter change resets the model; each group's title counts the findings it shows."""

    COLUMNS = ("Problem", "Rule", "Location")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._all: tuple[ProblemEntry, ...] = ()
        self._groups: list[tuple[Severity, list[ProblemEntry]]] = []  # what is shown
        self._root_name = ""
        self._rule: str | None = None
        self._text = ""

    def set_problems(self, entries: Iterable[ProblemEntry], root_name: str = "") -> None:
        self._all = tuple(entries)
        self._root_name = root_name
        self._regroup()

    def clear(self) -> None:
        self.set_problems(())

    @property
    def rule(self) -> str | None:
        return self._rule

    def set_rule(self, rule: str | None) -> None:
        if (rule or None) != self._rule:
            self._rule = rule or None
            self._regroup()

    def set_text(self, text: str) -> None:
        """Case-insensitive, over the message, the rule id and the JSON pointer."""
        text = text.strip().lower()
        if text != self._text:
            self._text = text
            self._regroup()

    def _shown(self, entry: ProblemEntry) -> bool:
        finding = entry.finding
        if self._rule is not None and finding.rule != self._rule:
            return False
        return not self._text or self._text in f"{finding.message}\n{finding.rule}\n{finding.pointer}".lower()

    def _regroup(self) -> None:
        by_severity: dict[Severity, list[ProblemEntry]] = {}
        filtering = self._rule is not None or bool(self._text)
        for entry in self._all:
            if not filtering or self._shown(entry):
                by_severity.setdefault(entry.finding.severity, []).append(entry)
        groups = [(sev, by_severity[sev]) for sev in SEVERITY_ORDER if sev in by_severity]
        if _same_findings(groups, self._groups):
            # The same findings, perhaps at other lines (a re-check after an edit that changed none of them):
            # taken in without a reset, so the tree keeps its expansion and selection and lays nothing out again
            # (a reset made it ask for thousands of indexes through Python); only the Location column repaints.
            self._groups = groups
            last = len(self.COLUMNS) - 1
            for row, (_sev, group) in enumerate(groups):
                parent = self.index(row, 0)
                self.dataChanged.emit(self.index(0, last, parent), self.index(len(group) - 1, last, parent))
            return
        self.beginResetModel()
        self._groups = groups
        self.endResetModel()

    # counts and lookups, for the window and the tests
    def counts(self) -> dict[Severity, int]:
        """Every finding by severity, whatever the filter."""
        return severity_counts(entry.finding for entry in self._all)

    def entries(self) -> list[ProblemEntry]:
        """Every finding, whatever the filter, errors first."""
        order = {sev: n for n, sev in enumerate(SEVERITY_ORDER)}
        return sorted(self._all, key=lambda entry: order[entry.finding.severity])  # stable: source order kept

    def shown_entries(self) -> list[ProblemEntry]:
        return [entry for _sev, group in self._groups for entry in group]

    def rules(self) -> dict[str, int]:
        """Rule id → how many findings (whatever the filter), in order of first appearance by severity."""
        seen: dict[str, int] = {}
        for entry in self.entries():
            seen[entry.finding.rule] = seen.get(entry.finding.rule, 0) + 1
        return seen

    def entry(self, index: AnyIndex) -> ProblemEntry | None:
        if not index.isValid() or index.internalId() == 0:
            return None
        return self._groups[index.internalId() - 1][1][index.row()]

    def index_of(self, entry: ProblemEntry) -> QModelIndex:
        """The row showing `entry` (invalid when the filter hides it)."""
        for group_row, (_sev, group) in enumerate(self._groups):
            for row, shown in enumerate(group):
                if shown is entry:
                    return self.index(row, 0, self.index(group_row, 0))
        return QModelIndex()

    def leaf_indexes(self) -> list[QModelIndex]:
        """Every finding row shown, in the order shown (for next/previous problem)."""
        rows = []
        for group_row, (_sev, group) in enumerate(self._groups):
            parent = self.index(group_row, 0)
            rows.extend(self.index(row, 0, parent) for row in range(len(group)))
        return rows

    def _top_count(self) -> int:
        return len(self._groups)

    def _child_count(self, row: int) -> int:
        return len(self._groups[row][1])

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if index.internalId() == 0:  # a severity group
            answer = _GROUP_ROLES.get(role)
            return answer(self._groups[index.row()], index.column()) if answer else None
        answer = _PROBLEM_ROLES.get(role)
        return answer(self, self._groups[index.internalId() - 1][1][index.row()], index.column()) if answer else None

    def _where(self, entry: ProblemEntry) -> str:
        start = entry.start
        if entry.finding.file == self._root_name:
            return f"{start.line}:{start.column}"
        return f"{Path(entry.finding.file).name}:{start.line}:{start.column}"


def _same_findings(new: list[tuple[Severity, list[ProblemEntry]]],
                   old: list[tuple[Severity, list[ProblemEntry]]]) -> bool:
    """The same groups of the same findings in the same order, but for where they are."""
    def said(entry: ProblemEntry) -> tuple:
        finding = entry.finding
        return finding.rule, finding.message, finding.file, finding.pointer

    return len(new) == len(old) and all(
        sev == old_sev and len(group) == len(old_group)
        and all(said(a) == said(b) for a, b in zip(group, old_group, strict=True))
        for (sev, group), (old_sev, old_group) in zip(new, old, strict=True))


def _bold() -> QFont:
    font = QFont()
    font.setBold(True)
    return font


def _problem_tooltip(entry: ProblemEntry) -> str:
    finding = entry.finding
    return (f"{finding.severity.label} · {finding.rule}\n{finding.message}\n"
            f"{finding.file}:{entry.start.line}:{entry.start.column}  {finding.pointer or '/'}")


def _problem_text(model: ProblemsModel, entry: ProblemEntry, column: int) -> str | None:
    if column == 0:
        return entry.finding.message
    if column == 1:
        return entry.finding.rule
    return model._where(entry) if column == 2 else None


# role → its value for a severity group (severity, findings shown) in a column
_GROUP_ROLES: dict[int, Callable[[tuple[Severity, list[ProblemEntry]], int], Any]] = {
    Qt.ItemDataRole.DisplayRole: lambda group, column: (
        f"{SEVERITY_TITLES[group[0]]} ({len(group[1])})" if column == 0 else None),
    Qt.ItemDataRole.DecorationRole: lambda group, column: severity_icon(group[0]) if column == 0 else None,
    Qt.ItemDataRole.FontRole: lambda _group, _column: _bold(),
    SeverityRole: lambda group, _column: int(group[0]),
}
# role → its value for a finding's row in a column
_PROBLEM_ROLES: dict[int, Callable[[ProblemsModel, ProblemEntry, int], Any]] = {
    Qt.ItemDataRole.DisplayRole: _problem_text,
    Qt.ItemDataRole.DecorationRole: lambda _model, entry, column: (
        severity_icon(entry.finding.severity) if column == 0 else None),
    Qt.ItemDataRole.ToolTipRole: lambda _model, entry, _column: _problem_tooltip(entry),
    FindingRole: lambda _model, entry, _column: entry.finding,
    EntryRole: lambda _model, entry, _column: entry,
    SeverityRole: lambda _model, entry, _column: int(entry.finding.severity),
    RuleRole: lambda _model, entry, _column: entry.finding.rule,
    LocationRole: lambda _model, entry, _column: entry.location,
}


# -- outline ---------------------------------------------------------------------------------------------------

OUTLINE_MODES = ("path", "tag", "operationId", "schema")
OUTLINE_MODE_LABELS = {"path": "By path", "tag": "By tag", "operationId": "By operationId",
                       "schema": "Schemas (properties)"}

METHOD_COLORS = {"get": "#2f9e44", "post": "#1c7ed6", "put": "#e8590c", "patch": "#ae3ec9", "delete": "#e03131",
                 "head": "#868e96", "options": "#868e96", "trace": "#868e96", "query": "#0c8599"}


@dataclass
class _Row:
    label: str
    detail: str
    entry: OperationEntry | PropertyEntry | None = None  # leaf rows
    location: Any = None  # where a group row jumps to (a path item), or None
    schema: SchemaEntry | None = None  # the shared schema a group row stands for (located when asked)
    children: list[_Row] = field(default_factory=list)
    filter_text: str = ""
    method: str | None = None


def _same_rows(new: list[_Row], old: list[_Row]) -> bool:
    """The same labels, details, filter texts and kinds of row, with the same children: the same tree shown."""
    def shown(row: _Row) -> tuple:
        return row.label, row.detail, row.filter_text, row.method, row.schema is None, len(row.children)

    return len(new) == len(old) and all(
        shown(a) == shown(b) and all(shown(c) == shown(d) for c, d in zip(a.children, b.children, strict=True))
        for a, b in zip(new, old, strict=True))


class OutlineModel(_TwoLevelModel):
    """The operations by path (path → methods), by tag (tag → operations; untagged last) or by operationId
    (a flat list, sorted; operations without one last), webhooks included and marked as such; or the shared
    schemas with their properties (schema → properties), to edit a property in the form."""

    COLUMNS = ("Operation", "Details")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._entries: tuple[OperationEntry, ...] = ()
        self._tags: Sequence[str] = ()
        self._path_locations: dict[tuple[bool, str], Any] = {}
        self._schemas: tuple[SchemaEntry, ...] = ()
        self._mode = "path"
        self._rows: list[_Row] = []

    @property
    def mode(self) -> str:
        return self._mode

    def set_operations(self, entries: Sequence[OperationEntry], tags: Sequence[str] = (),
                       path_locations: dict[tuple[bool, str], Any] | None = None,
                       schemas: Sequence[SchemaEntry] = ()) -> None:
        """`tags`: tag names in display order; `path_locations`: (webhook?, path) → Location of the path item;
        `schemas`: the shared schemas, for the schema mode."""
        self._entries = tuple(entries)
        self._tags = tuple(tags)
        self._path_locations = dict(path_locations or {})
        self._schemas = tuple(schemas)
        self._rebuild()

    def set_mode(self, mode: str) -> None:
        if mode not in OUTLINE_MODES:
            raise ValueError(f"unknown outline mode {mode!r}")
        if mode != self._mode:
            self._mode = mode
            self._rebuild()
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, 0)

    def clear(self) -> None:
        self.set_operations(())

    def operation_count(self) -> int:
        """Distinct path operations shown (webhooks apart), whatever the mode."""
        return sum(1 for entry in self._entries if not entry.operation.webhook)

    def _rebuild(self) -> None:
        rows = {"path": self._by_path, "tag": self._by_tag, "operationId": self._by_operation_id,
                "schema": self._by_schema}[self._mode]()
        if _same_rows(rows, self._rows):
            # The same rows with new entries (a re-check after an edit that renamed nothing): what is shown is the
            # same, the entries and places are read when asked for, so there is nothing to reset: the tree keeps
            # its expansion and selection and lays nothing out again (a reset asked for thousands of indexes).
            self._rows = rows
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    @staticmethod
    def _haystack(entry: OperationEntry) -> str:
        op = entry.operation
        return " ".join((op.method, op.path, op.operation_id or "", op.summary or "", *op.tags)).lower()

    def _leaf(self, entry: OperationEntry, label: str, detail: str) -> _Row:
        return _Row(label, detail, entry=entry, filter_text=self._haystack(entry), method=entry.operation.method)

    def _by_path(self) -> list[_Row]:
        groups: dict[tuple[bool, str], _Row] = {}
        for entry in self._entries:
            op = entry.operation
            key = (op.webhook, op.path)
            if key not in groups:
                groups[key] = _Row(op.path, "webhook" if op.webhook else "", location=self._path_locations.get(key),
                                   filter_text=op.path.lower())
            groups[key].children.append(
                self._leaf(entry, op.method.upper(), op.operation_id or op.summary or ""))
        for row in groups.values():
            count = len(row.children)
            suffix = f"{count} operation{'s' if count != 1 else ''}"
            row.detail = f"webhook · {suffix}" if row.detail else suffix
        return list(groups.values())

    def _by_tag(self) -> list[_Row]:
        groups: dict[str, _Row] = {name: _Row(name, "", filter_text=name.lower()) for name in self._tags}
        untagged = _Row("(untagged)", "", filter_text="(untagged)")
        for entry in self._entries:
            op = entry.operation
            label = f"{op.method.upper()} {op.path}"
            detail = op.summary or op.operation_id or ""
            if not op.tags:
                untagged.children.append(self._leaf(entry, label, detail))
            for name in dict.fromkeys(op.tags):
                groups.setdefault(name, _Row(name, "", filter_text=name.lower())).children.append(
                    self._leaf(entry, label, detail))
        rows = [row for row in groups.values() if row.children]
        if untagged.children:
            rows.append(untagged)
        for row in rows:
            row.detail = f"{len(row.children)} operation{'s' if len(row.children) != 1 else ''}"
        return rows

    def _by_operation_id(self) -> list[_Row]:
        named = sorted((e for e in self._entries if e.operation.operation_id),
                       key=lambda e: (e.operation.operation_id.lower(), e.operation.operation_id))
        unnamed = [e for e in self._entries if not e.operation.operation_id]
        rows = [self._leaf(e, e.operation.operation_id, f"{e.operation.method.upper()} {e.operation.path}")
                for e in named]
        rows += [self._leaf(e, "(no operationId)", f"{e.operation.method.upper()} {e.operation.path}")
                 for e in unnamed]
        return rows

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if self._mode == "schema" and section == 0 and orientation == Qt.Orientation.Horizontal \
                and role == Qt.ItemDataRole.DisplayRole:
            return "Schema / property"
        return super().headerData(section, orientation, role)

    def schema_counts(self) -> tuple[int, int]:
        """(shared schemas, their properties)."""
        return len(self._schemas), sum(len(schema.properties) for schema in self._schemas)

    def _by_schema(self) -> list[_Row]:
        rows = []
        for schema in self._schemas:
            count = len(schema.properties)
            row = _Row(schema.name, f"{count} propert{'ies' if count != 1 else 'y'}", schema=schema,
                       filter_text=schema.name.lower())
            row.children = [_Row(prop.name, prop.detail, entry=prop, filter_text=f"{schema.name} {prop.name}".lower())
                            for prop in schema.properties]
            rows.append(row)
        return rows

    def rows(self) -> list[_Row]:
        """The outline's rows as shown unfiltered (a new list whenever they change)."""
        return self._rows

    def _row(self, index: AnyIndex) -> _Row:
        if index.internalId() == 0:
            return self._rows[index.row()]
        return self._rows[index.internalId() - 1].children[index.row()]

    def entry(self, index: AnyIndex) -> OperationEntry | None:
        return self._row(index).entry if index.isValid() else None

    def _top_count(self) -> int:
        return len(self._rows)

    def _child_count(self, row: int) -> int:
        return len(self._rows[row].children)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        answer = _OUTLINE_ROLES.get(role)
        return answer(self, self._row(index), index.column()) if answer else None


def _outline_tooltip(row: _Row) -> str:
    if isinstance(row.entry, PropertyEntry):
        return f"{row.entry.schema}.{row.entry.name}  {row.detail}\n{row.entry.pointer}"
    if row.entry is None:
        return f"{row.label}\n{row.detail}"
    op = row.entry.operation
    lines = [f"{op.method.upper()} {op.path}" + ("  (webhook)" if op.webhook else "")]
    if op.operation_id:
        lines.append(f"operationId: {op.operation_id}")
    if op.summary:
        lines.append(op.summary)
    if op.tags:
        lines.append("tags: " + ", ".join(op.tags))
    if op.deprecated:
        lines.append("deprecated")
    return "\n".join(lines)


def _outline_font(row: _Row) -> QFont | None:
    if row.entry is None:  # a group
        return _bold()
    if isinstance(row.entry, OperationEntry) and row.entry.operation.deprecated:
        font = QFont()
        font.setStrikeOut(True)
        return font
    return None


def _outline_foreground(model: OutlineModel, row: _Row, column: int) -> QBrush | None:
    if column == 0 and row.method and model.mode == "path":
        return QBrush(QColor(METHOD_COLORS.get(row.method, "#868e96")))
    return None


def _outline_location(row: _Row) -> Any:
    if row.entry is not None:
        return row.entry.location
    return row.schema.location if row.schema is not None else row.location


# role → its value for an outline row in a column
_OUTLINE_ROLES: dict[int, Callable[[OutlineModel, _Row, int], Any]] = {
    Qt.ItemDataRole.DisplayRole: lambda _model, row, column: (
        row.label if column == 0 else row.detail if column == 1 else None),
    Qt.ItemDataRole.ToolTipRole: lambda _model, row, _column: _outline_tooltip(row),
    Qt.ItemDataRole.ForegroundRole: _outline_foreground,
    Qt.ItemDataRole.FontRole: lambda _model, row, _column: _outline_font(row),
    FilterRole: lambda _model, row, _column: row.filter_text,
    EntryRole: lambda _model, row, _column: row.entry,
    OperationRole: lambda _model, row, _column: row.entry.operation if isinstance(row.entry, OperationEntry) else None,
    LocationRole: lambda _model, row, _column: _outline_location(row),
}


class OutlineFilter(QSortFilterProxyModel):
    """Case-insensitive text filter over path, method, operationId, summary and tags (or schema and property
    names); a matching group keeps all its rows, a matching row keeps its group.

    The rows shown are worked out in one pass over the outline's own rows (not by asking the model for each
    row's text through Qt: that took 0.3-0.5 s a keystroke on GitHub's 3,378 schema properties)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._needle = ""
        self._rows: list[_Row] | None = None  # the outline rows `_shown` was worked out for
        self._shown: set[tuple[int, int]] = set()  # (group row, or -1 for a top row; row)
        self._groups = 0
        self._leaves = 0

    def set_text(self, text: str) -> None:
        needle = text.strip().lower()
        if needle != self._needle:
            self.beginFilterChange()
            self._needle = needle
            self._rows = None
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filter_text(self) -> str:
        """The text filtered on (lower case; "": none)."""
        return self._needle

    def _match(self) -> None:
        model = self.sourceModel()
        rows = model.rows() if isinstance(model, OutlineModel) else []
        if rows is self._rows:
            return
        needle, shown, groups, leaves = self._needle, set(), 0, 0
        for number, row in enumerate(rows):
            if needle in row.filter_text:
                children = range(len(row.children))
            else:
                children = [n for n, child in enumerate(row.children) if needle in child.filter_text]
                if not children:
                    continue
            shown.add((-1, number))
            shown.update((number, child) for child in children)
            groups += 1 if row.entry is None else 0
            leaves += len(children) if row.children else (1 if row.entry is not None else 0)
        self._rows, self._shown, self._groups, self._leaves = rows, shown, groups, leaves

    def filterAcceptsRow(self, source_row: int, source_parent: AnyIndex) -> bool:
        if not self._needle:
            return True
        self._match()
        return ((source_parent.row() if source_parent.isValid() else -1), source_row) in self._shown

    def leaf_count(self) -> int:
        """The operations (or properties) shown."""
        if not self._needle:
            rows = self.sourceModel().rows() if isinstance(self.sourceModel(), OutlineModel) else []
            return sum(len(row.children) if row.children else (1 if row.entry is not None else 0) for row in rows)
        self._match()
        return self._leaves

    def group_count(self) -> int:
        """The groups shown (paths, tags, schemas)."""
        if not self._needle:
            rows = self.sourceModel().rows() if isinstance(self.sourceModel(), OutlineModel) else []
            return sum(1 for row in rows if row.entry is None)
        self._match()
        return self._groups
