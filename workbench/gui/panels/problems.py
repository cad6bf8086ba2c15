"""The problems: the findings by severity, filtered by rule and by text; browsing previews a finding,
activating it (double-click, Enter, F8) jumps to it; a context menu asks for its quick fix."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMenu,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.document import SpecDocument
from workbench.gui.models import ProblemsModel, SeverityRole
from workbench.gui.widgets import ElidedLabel, counted
from workbench.lint import Severity
from workbench.workspace import LoadedSpec, LoadKind, ProblemEntry


class ProblemsPanel(QWidget):
    """`set_rule_filter`, `set_text_filter`, `entries()`, `shown_entries()`, `counts()`, `select_next()` and
    `select_previous()`, `show_severity`, `count_text()`."""

    TITLE = "Problems"
    problemActivated = Signal(object)  # ProblemEntry, after a double-click or Enter (or F8) has jumped to it
    fixRequested = Signal(object)  # ProblemEntry: its quick fix (context menu)
    fixRuleRequested = Signal(str)  # a rule: the quick fixes of all its findings

    def __init__(self, document: SpecDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.model = ProblemsModel(self)

        self.rule_combo = QComboBox()
        self.rule_combo.setObjectName("ruleFilter")
        self.rule_combo.setToolTip("Show the findings of one rule")
        # as wide as a rule's name and count, not wider: the dock keeps its width whatever the rules
        self.rule_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.rule_combo.setMinimumContentsLength(18)
        self.rule_combo.currentIndexChanged.connect(self._rule_changed)

        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("problemsFilter")
        self.filter_edit.setPlaceholderText("Filter problems: message, rule, JSON pointer…")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._text_changed)

        self.count_label = ElidedLabel(fit=True)
        self.count_label.setObjectName("problemsCount")

        self.view = QTreeView()
        self.view.setObjectName("problemsView")
        self.view.setModel(self.model)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(1, 240)
        header.resizeSection(2, 90)
        self.view.activated.connect(self._activated)
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._menu)

        bar = QHBoxLayout()
        bar.addWidget(self.rule_combo)
        bar.addWidget(self.filter_edit, 1)
        bar.addWidget(self.count_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.view, 1)
        self._fill_rule_combo({})
        self._update_count()
        document.loaded.connect(self._loaded)

    # -- the public surface --------------------------------------------------------------------------------------

    def entries(self) -> list[ProblemEntry]:
        """Every finding, whatever the filter, errors first."""
        return self.model.entries()

    def shown_entries(self) -> list[ProblemEntry]:
        return self.model.shown_entries()

    def counts(self) -> dict[Severity, int]:
        return self.model.counts()

    def count_text(self) -> str:
        return self.count_label.text()

    def current_entry(self) -> ProblemEntry | None:
        return self._entry_at(self.view.currentIndex())

    def set_rule_filter(self, rule: str | None) -> None:
        position = self.rule_combo.findData(rule) if rule else 0
        self.rule_combo.setCurrentIndex(max(position, 0))

    def set_text_filter(self, text: str) -> None:
        self.filter_edit.setText(text)

    def select_next(self) -> tuple[int, int] | None:
        """Go to the next finding shown (wrapping around) and reveal it: (its number, how many), or None."""
        return self._step(+1)

    def select_previous(self) -> tuple[int, int] | None:
        return self._step(-1)

    def show_severity(self, severity: Severity) -> None:
        """The group of that severity, made current and scrolled to the top."""
        for row in range(self.model.rowCount()):
            index = self.model.index(row, 0)
            if self.model.data(index, SeverityRole) == int(severity):
                self.view.expand(index)
                self.view.setCurrentIndex(index)
                self.view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
                return

    def focus_list(self) -> None:
        self.view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # -- reacting ------------------------------------------------------------------------------------------------

    def _loaded(self, loaded: LoadedSpec, _kind: LoadKind) -> None:
        self.model.set_problems(loaded.problems, loaded.spec.root.name)
        self._fill_rule_combo(self.model.rules())
        self._expand()
        self._update_count()

    def _expand(self) -> None:
        """Open every severity group (the tree has two levels; `expandAll` walks every finding: slow at 2,500)."""
        for row in range(self.model.rowCount()):
            self.view.expand(self.model.index(row, 0))

    def _fill_rule_combo(self, rules: dict[str, int]) -> None:
        current = self.rule_combo.currentData()
        self.rule_combo.blockSignals(True)
        self.rule_combo.clear()
        self.rule_combo.addItem(f"All rules ({sum(rules.values())})", None)
        for rule in sorted(rules):
            self.rule_combo.addItem(f"{rule} ({rules[rule]})", rule)
        position = self.rule_combo.findData(current) if current else 0
        self.rule_combo.setCurrentIndex(max(position, 0))
        self.rule_combo.blockSignals(False)
        self.model.set_rule(self.rule_combo.currentData())

    def _rule_changed(self, _row: int) -> None:
        self._refilter(lambda: self.model.set_rule(self.rule_combo.currentData()))

    def _text_changed(self, text: str) -> None:
        self._refilter(lambda: self.model.set_text(text))

    def _refilter(self, change) -> None:
        """Apply a filter change; the current finding stays current while the filter still shows it."""
        current = self._entry_at(self.view.currentIndex())
        change()
        self._expand()
        if current is not None:
            index = self.model.index_of(current)
            if index.isValid():
                self.view.setCurrentIndex(index)
                self.view.scrollTo(index)
        self._update_count()

    def _update_count(self) -> None:
        total = len(self.model.entries())
        shown = len(self.model.shown_entries())
        self.count_label.setText(counted(total, "problem") if shown == total else f"{shown} of {total} shown")

    def _entry_at(self, index: QModelIndex) -> ProblemEntry | None:
        return self.model.entry(index.siblingAtColumn(0)) if index.isValid() else None

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        # Browsing the list (arrow keys, a click) previews each finding; a filter that moves the current row
        # while the user types elsewhere does not move the source view.
        entry = self._entry_at(current)
        if entry is not None and self.view.hasFocus():
            self.document.reveal_problem(entry)

    def _activated(self, index: QModelIndex) -> None:
        entry = self._entry_at(index)
        if entry is None:  # a severity group: Enter opens or closes it (a double-click already did)
            return
        self.document.reveal_problem(entry, focus=True)
        self.problemActivated.emit(entry)

    def _step(self, step: int) -> tuple[int, int] | None:
        leaves = self.model.leaf_indexes()
        if not leaves:
            return None
        current = self.view.currentIndex().siblingAtColumn(0)
        position = {(leaf.parent().row(), leaf.row()): n for n, leaf in enumerate(leaves)}
        if current.isValid() and current.parent().isValid():
            target = (position.get((current.parent().row(), current.row()), -1 if step > 0 else 0) + step) \
                % len(leaves)
        elif current.isValid():  # a group: its first finding, or the one before it
            firsts = [n for n, leaf in enumerate(leaves) if leaf.parent().row() == current.row()]
            target = (firsts[0] if step > 0 else firsts[0] - 1) % len(leaves) if firsts else 0
        else:
            target = 0 if step > 0 else len(leaves) - 1
        index = leaves[target]
        self.view.expand(index.parent())
        self.view.setCurrentIndex(index)
        self.view.scrollTo(index)
        entry = self._entry_at(index)
        if entry is not None:
            self.document.reveal_problem(entry)
            self.problemActivated.emit(entry)
        return target + 1, len(leaves)

    def _menu(self, point: QPoint) -> None:
        entry = self._entry_at(self.view.indexAt(point))
        if entry is None:
            return
        menu = QMenu(self)
        fix = menu.addAction(f"Fix: {entry.finding.fix.title}" if entry.finding.fix else "No quick fix")
        fix.setEnabled(entry.finding.fix is not None)
        fix.triggered.connect(lambda: self.fixRequested.emit(entry))
        every = menu.addAction(f"Fix All Findings of {entry.finding.rule}")
        every.setEnabled(entry.finding.fix is not None)
        every.triggered.connect(lambda: self.fixRuleRequested.emit(entry.finding.rule))
        menu.exec(self.view.viewport().mapToGlobal(point))
        menu.deleteLater()
