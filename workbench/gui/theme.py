"""System / Light / Dark themes: the Fusion style with an explicit palette (setColorScheme alone does nothing
offscreen or on a bare X server), and the colours the source view and the severity icons use."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPalette, QPixmap, QPolygonF
from PySide6.QtWidgets import QApplication

from workbench.lint import Severity

THEMES = ("system", "light", "dark")
THEME_LABELS = {"system": "System", "light": "Light", "dark": "Dark"}

_ORIGINAL: dict[str, str] = {}  # the platform's own style name, captured before the first change


def _palette(colors: dict, disabled: str) -> QPalette:
    palette = QPalette()
    for role, color in colors.items():
        palette.setColor(role, QColor(color))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled))
    return palette


def light_palette() -> QPalette:
    colors = {
        QPalette.ColorRole.Window: "#efefef", QPalette.ColorRole.WindowText: "#1e1e1e",
        QPalette.ColorRole.Base: "#ffffff", QPalette.ColorRole.AlternateBase: "#f5f5f5",
        QPalette.ColorRole.ToolTipBase: "#ffffdc", QPalette.ColorRole.ToolTipText: "#1e1e1e",
        QPalette.ColorRole.PlaceholderText: "#808080", QPalette.ColorRole.Text: "#1e1e1e",
        QPalette.ColorRole.Button: "#e8e8e8", QPalette.ColorRole.ButtonText: "#1e1e1e",
        QPalette.ColorRole.BrightText: "#ff0000", QPalette.ColorRole.Light: "#ffffff",
        QPalette.ColorRole.Midlight: "#e3e3e3", QPalette.ColorRole.Mid: "#b8b8b8",
        QPalette.ColorRole.Dark: "#a0a0a0", QPalette.ColorRole.Shadow: "#696969",
        QPalette.ColorRole.Highlight: "#3874d8", QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#1a5fb4", QPalette.ColorRole.LinkVisited: "#813d9c",
    }
    return _palette(colors, disabled="#9a9a9a")


def dark_palette() -> QPalette:
    colors = {
        QPalette.ColorRole.Window: "#2b2b2b", QPalette.ColorRole.WindowText: "#dcdcdc",
        QPalette.ColorRole.Base: "#1e1e1e", QPalette.ColorRole.AlternateBase: "#262626",
        QPalette.ColorRole.ToolTipBase: "#3c3c3c", QPalette.ColorRole.ToolTipText: "#dcdcdc",
        QPalette.ColorRole.PlaceholderText: "#8a8a8a", QPalette.ColorRole.Text: "#dcdcdc",
        QPalette.ColorRole.Button: "#353535", QPalette.ColorRole.ButtonText: "#dcdcdc",
        QPalette.ColorRole.BrightText: "#ff6b6b", QPalette.ColorRole.Light: "#4a4a4a",
        QPalette.ColorRole.Midlight: "#3e3e3e", QPalette.ColorRole.Mid: "#303030",
        QPalette.ColorRole.Dark: "#202020", QPalette.ColorRole.Shadow: "#141414",
        QPalette.ColorRole.Highlight: "#2f65ca", QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#78aeff", QPalette.ColorRole.LinkVisited: "#c6a0f6",
    }
    return _palette(colors, disabled="#6e6e6e")


# Fusion draws a check box's square in the palette's Window colour darkened by 40 %: on the dark window that is
# almost the square's own dark fill, so neither the box nor whether it is ticked could be made out. Check boxes
# get a palette of their own in the dark theme (their label is drawn in WindowText, which stays): a light Window
# gives the square a mid-grey outline, a white Text a brighter check mark.
DARK_CHECK_BOX = {  # (Window, Text); a disabled box keeps a dimmer outline and the disabled text colour
    QPalette.ColorGroup.Active: ("#c8c8c8", "#ffffff"),
    QPalette.ColorGroup.Inactive: ("#c8c8c8", "#ffffff"),
    QPalette.ColorGroup.Disabled: ("#7a7a7a", "#6e6e6e"),
}


def check_box_palette(palette: QPalette) -> QPalette:
    """`palette` (the dark one) with the Window and Text colours Fusion draws a readable check box square with."""
    boxes = QPalette(palette)
    for group, (window, text) in DARK_CHECK_BOX.items():
        boxes.setColor(group, QPalette.ColorRole.Window, QColor(window))
        boxes.setColor(group, QPalette.ColorRole.Text, QColor(text))
    return boxes


def _set_palette(app: QApplication, palette: QPalette) -> None:
    """The application's palette, and the check boxes' (set in every theme: a check box of the window kept the
    dark one after a switch to light when only the application's palette was set again)."""
    app.setPalette(palette)
    app.setPalette(check_box_palette(palette) if is_dark(palette) else palette, "QCheckBox")


def system_prefers_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return hints is not None and hints.colorScheme() == Qt.ColorScheme.Dark


def apply_theme(app: QApplication, theme: str) -> str:
    """Apply `theme` (system, light or dark) to the whole application; returns the theme applied."""
    theme = theme if theme in THEMES else "system"
    style = app.style()
    _ORIGINAL.setdefault("style", style.name() if style is not None else "fusion")
    if theme == "system":
        app.setStyle(_ORIGINAL["style"])
        app.setPalette(QPalette())  # an empty palette: back to the platform's own
        if system_prefers_dark() and not is_dark(app.palette()):
            app.setStyle("Fusion")
            _set_palette(app, dark_palette())
        else:
            app.setPalette(app.palette(), "QCheckBox")
    else:
        app.setStyle("Fusion")
        _set_palette(app, dark_palette() if theme == "dark" else light_palette())
    app.setProperty("workbenchTheme", theme)
    return theme


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


@dataclass(frozen=True)
class CodeColors:
    """Colours of the source view, chosen per light or dark background."""

    key: str
    string: str
    number: str
    keyword: str  # true, false, null
    comment: str
    punctuation: str
    anchor: str  # YAML anchors, aliases, tags, document markers
    current_line: str
    gutter_text: str
    gutter_background: str


LIGHT_CODE = CodeColors(key="#0b4f9c", string="#a31515", number="#098658", keyword="#0000ff", comment="#6a737d",
                        punctuation="#7a7a7a", anchor="#af00db", current_line="#f2f6fc", gutter_text="#9a9a9a",
                        gutter_background="#f7f7f7")
DARK_CODE = CodeColors(key="#9cdcfe", string="#ce9178", number="#b5cea8", keyword="#569cd6", comment="#7f8c8d",
                       punctuation="#9a9a9a", anchor="#c586c0", current_line="#2a2d2e", gutter_text="#6e7681",
                       gutter_background="#1a1a1a")


def code_colors(palette: QPalette) -> CodeColors:
    return DARK_CODE if is_dark(palette) else LIGHT_CODE


SEVERITY_COLORS = {Severity.ERROR: "#e5484d", Severity.WARN: "#e8a33d", Severity.INFO: "#3b82f6",
                   Severity.HINT: "#8b8b8b"}
SEVERITY_TITLES = {Severity.ERROR: "Errors", Severity.WARN: "Warnings", Severity.INFO: "Infos",
                   Severity.HINT: "Hints"}
SEVERITY_ORDER = (Severity.ERROR, Severity.WARN, Severity.INFO, Severity.HINT)


@cache
def severity_icon(severity: Severity, size: int = 16) -> QIcon:
    """A round badge in the severity's colour (drawn, so it looks the same under every style and theme)."""
    icon = QIcon()
    for scale in (1, 2):
        pixmap = QPixmap(size * scale, size * scale)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(SEVERITY_COLORS[severity]))
        full = size * scale
        margin = 2 * scale
        text_rect = pixmap.rect()
        if severity == Severity.WARN:  # a triangle
            painter.drawPolygon(QPolygonF([QPointF(full / 2, margin), QPointF(full - margin, full - margin),
                                           QPointF(margin, full - margin)]))
            text_rect = text_rect.adjusted(0, 2 * scale, 0, 0)
        else:
            painter.drawEllipse(margin, margin, full - 2 * margin, full - 2 * margin)
        painter.setPen(QColor("#ffffff"))
        font = painter.font()
        font.setPixelSize(int(full * 0.6))
        font.setBold(True)
        painter.setFont(font)
        glyph = {Severity.ERROR: "\u00d7", Severity.WARN: "!", Severity.INFO: "i", Severity.HINT: "?"}[severity]
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignCenter, glyph)
        painter.end()
        pixmap.setDevicePixelRatio(scale)
        icon.addPixmap(pixmap)
    return icon
