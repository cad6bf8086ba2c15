"""The status bar's panel: the current load's progress with Cancel, the findings counted by severity (each a
button to show them), and the readiness score with the lint config in use."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QProgressBar, QStatusBar, QToolButton

from workbench.gui.document import SpecDocument
from workbench.gui.theme import SEVERITY_ORDER, SEVERITY_TITLES, severity_icon
from workbench.gui.widgets import ElidedLabel
from workbench.lint import Severity
from workbench.lint.engine import severity_counts
from workbench.workspace import LoadedSpec, LoadKind

SCORE_WIDTH = 240  # pixels: the most the readiness score takes of the status bar


class StatusPanel(QObject):
    """Widgets added to `bar`; `severityClicked` asks for the Problems panel at that severity."""

    severityClicked = Signal(object)  # Severity

    def __init__(self, document: SpecDocument, bar: QStatusBar) -> None:
        super().__init__(bar)
        self.document = document
        self.progress_label = ElidedLabel(fit=True)  # "Opening <a long file name>…" never widens the window
        self.progress_label.setMinimumWidth(120)
        self.progress_label.setObjectName("progressLabel")
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 0)  # busy: the core reports steps, not percentages
        self.progress_bar.setMaximumWidth(120)
        self.progress_bar.setMaximumHeight(14)
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolTip("Stop loading (the file shown stays)")
        self.cancel_button.setAutoRaise(True)
        for widget in (self.progress_bar, self.progress_label, self.cancel_button):
            bar.addWidget(widget)
            widget.hide()
        self.severity_buttons: dict[Severity, QToolButton] = {}
        for severity in SEVERITY_ORDER:
            button = QToolButton()
            button.setObjectName(f"count-{severity.label}")
            button.setIcon(severity_icon(severity))
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setAutoRaise(True)
            button.clicked.connect(lambda _checked=False, s=severity: self.severityClicked.emit(s))
            bar.addPermanentWidget(button)
            self.severity_buttons[severity] = button
        # The score is elided past SCORE_WIDTH ("Readiness 0/100, blocked: 828 operations (quality 44 once
        # unblocked)" took half the bar at 1024 pixels, and the message gives way to it); the whole of it, and
        # what it is made of, is in its tooltip.
        self.score_label = ElidedLabel(fit=True)
        self.score_label.setMaximumWidth(SCORE_WIDTH)
        self.score_label.setObjectName("scoreLabel")
        self.score_label.setContentsMargins(8, 0, 6, 0)
        bar.addPermanentWidget(self.score_label)
        self.show_counts(None)
        document.busy.connect(self.set_busy)
        document.loaded.connect(lambda loaded, _kind: self.show_counts(loaded))

    def set_busy(self, text: str) -> None:
        """What the current load is doing ("": nothing runs, the progress is hidden)."""
        self.progress_label.setText(text)
        for widget in (self.progress_bar, self.progress_label, self.cancel_button):
            widget.setVisible(bool(text))

    def show_counts(self, loaded: LoadedSpec | None, _kind: LoadKind | None = None) -> None:
        counts = loaded.result.counts() if loaded is not None else severity_counts(())
        for severity, button in self.severity_buttons.items():
            count = counts[severity]
            button.setText(str(count))
            noun = SEVERITY_TITLES[severity].lower() if count != 1 else SEVERITY_TITLES[severity].lower()[:-1]
            button.setToolTip(f"{count} {noun}: show {'it' if count == 1 else 'them'} in the Problems panel")
            button.setAccessibleName(f"{count} {noun}")
        if loaded is None:
            self.score_label.setText("")
            self.score_label.setToolTip("")
        else:
            config = loaded.config_path
            self.score_label.setText(f"Readiness {loaded.score.headline()}")
            self.score_label.setAccessibleName(f"Agent readiness score {loaded.score.headline()}")
            self.score_label.setToolTip(f"{loaded.score.to_text()}\n\nLint config: "
                                        f"{config if config else 'none found beside the spec (the defaults)'}")
