"""The window on small and scaled screens: its first size fits the available screen, a saved geometry is
restored only when it fits, long texts never widen it, and the layout can be reset."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QSize, Qt
from PySide6.QtWidgets import QApplication, QLabel, QTreeView

from workbench.gui.main_window import MainWindow, fitting_size
from workbench.gui.panels import DOCKS


def test_the_first_size_fits_a_small_screen():
    assert fitting_size(QRect(0, 0, 1024, 700)) == QSize(1008, 652)
    assert fitting_size(QRect(0, 0, 1066, 666)) == QSize(1050, 618)  # 1600×1000 at a scale factor of 1.5
    assert fitting_size(QRect(0, 0, 2560, 1440)) == QSize(1280, 820)


def test_the_window_opens_within_the_available_screen(qtbot, settings):
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    available = win.screen().availableGeometry()
    assert available.width() < 1280 or available.height() < 820  # the offscreen screen is smaller than the default
    assert win.width() <= available.width() and win.height() <= available.height()
    assert available.contains(win.geometry())
    win.close()


def save_geometry(qtbot, settings, x: int, y: int, width: int, height: int) -> None:
    """A window geometry saved as a window closed there would have saved it."""
    earlier = MainWindow(settings)
    qtbot.addWidget(earlier)
    earlier.setGeometry(x, y, width, height)
    settings.setValue("window/geometry", earlier.saveGeometry())
    earlier.deleteLater()


def test_a_saved_geometry_too_big_for_the_screen_is_not_restored(qtbot, settings):
    save_geometry(qtbot, settings, 0, 0, 1920, 1230)  # 1280×820 saved at a scale factor of 1.5
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    available = win.screen().availableGeometry()
    assert win.width() <= available.width() and win.height() <= available.height()
    win.close()


def test_a_saved_geometry_that_fits_is_restored(qtbot, settings):
    save_geometry(qtbot, settings, 40, 60, 600, 500)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    assert win.size() == QSize(600, 500)
    assert not settings.value("window/geometry", QByteArray(), type=QByteArray).isEmpty()


def long_pointer_spec(folder: Path) -> Path:
    """One operation at a path of 20 long segments, with a long parameter and a long schema property: every
    pointer, heading and suggested operationId is wider than a 1024-pixel screen."""
    segments = "/".join(f"segment{i}-with-a-rather-long-name" for i in range(20))
    schema = "AVeryLongSchemaNameThatGoesOnAndOn" * 6
    prop = "aPropertyWithAnExtremelyLongNameIndeed" * 5
    path = folder / "long.yaml"
    path.write_text(f"""openapi: 3.1.0
info: {{title: t, version: '1'}}
paths:
  /{segments}/{{itemIdentifierWithALongName}}:
    get:
      parameters:
        - name: {prop}
          in: query
          schema: {{type: string}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {{$ref: '#/components/schemas/{schema}'}}
components:
  schemas:
    {schema}:
      type: object
      properties:
        {prop}: {{type: integer}}
        status: {{type: string}}
""", encoding="utf-8")
    return path


def test_jumping_to_findings_never_widens_the_window(window, open_spec, tmp_path):
    open_spec(long_pointer_spec(tmp_path))
    available = window.screen().availableGeometry()
    width = window.width()
    count = len(window.problems.entries())
    assert count >= 5
    docks = {name: dock.minimumSizeHint().width() for name, dock in window.docks.items()}
    for _ in range(count):
        window.next_problem()
        QApplication.processEvents()
        assert window.width() == width <= available.width()
        hint = window.minimumSizeHint()
        assert hint.width() <= 1024, window.edit.form.heading.text()
        # no text shown (a heading, a note, a pointer) makes a dock ask for more width
        assert {name: dock.minimumSizeHint().width() for name, dock in window.docks.items()} == docks
        assert hint.height() <= 600  # the form scrolls on a 700-pixel screen
    assert max(docks.values()) <= 700
    long_texts = [window.edit.form.property_label, window.problems.count_label, window.outline.count_label]
    for label in long_texts:
        assert label.minimumSizeHint().width() <= 1


def test_a_long_property_pointer_is_elided_with_the_whole_of_it_in_the_tooltip(window, open_spec, tmp_path):
    open_spec(long_pointer_spec(tmp_path))
    window.outline.set_mode("schema")
    window.outline.set_filter_text("status")
    QApplication.processEvents()
    leaf = window.outline.entries()[0]
    window.document.reveal_property(leaf)
    QApplication.processEvents()
    label = window.edit.form.property_label
    assert label.text() == leaf.pointer == label.toolTip()
    assert "…" in QLabel.text(label)  # what is painted: elided in the middle
    assert label.width() < label.fontMetrics().horizontalAdvance(leaf.pointer)


def test_reset_layout_docks_everything_again_and_fits_the_screen(window):
    problems, outline = window.docks["problems"], window.docks["outline"]
    problems.setFloating(True)
    outline.hide()
    window.removeDockWidget(window.docks["edit"])
    window.resize(3000, 2000)
    reset = next(a for a in window.menuBar().actions() if a.text() == "&View").menu().actions()[-1]
    assert reset.text() == "&Reset Layout"
    reset.trigger()
    QApplication.processEvents()
    available = window.screen().availableGeometry()
    assert window.width() <= available.width() and window.height() <= available.height()
    for name, dock in window.docks.items():
        assert not dock.isFloating(), name
        assert window.dockWidgetArea(dock) is not Qt.DockWidgetArea.NoDockWidgetArea, name
    assert outline.isVisible() and window.docks["edit"].isVisible()
    tabbed = {window.docks[spec.attribute] for spec in DOCKS if spec.tabify_with == "problems"}
    assert set(window.tabifiedDockWidgets(problems)) == tabbed and len(tabbed) == 3


def rows_shown(view) -> int:
    """Whole rows a table shows at its height now."""
    return view.viewport().height() // max(1, view.verticalHeader().defaultSectionSize())


def main_tables(window) -> dict[str, object]:
    """Each bottom dock's main table, by dock."""
    return {"problems": window.problems.view, "tools": window.tools.view,
            "roundtrips": window.roundtrips.results_view, "selection": window.selection.result_view}


SEVERAL_ROWS = 7


def show_each_bottom_dock(window, check) -> None:
    window.roundtrips.tabs.setCurrentIndex(1)
    window.selection.tabs.setCurrentIndex(1)
    for name in ("problems", "tools", "roundtrips", "selection"):
        window.docks[name].show()
        window.docks[name].raise_()
        QApplication.processEvents()
        check(name)


def test_at_1024_by_700_each_bottom_dock_shows_several_rows_of_its_table(window, open_spec):
    open_spec(Path(__file__).parents[2] / "resources" / "examples" / "shop-api.yaml")
    window.resize(1024, 700)
    QApplication.processEvents()
    assert window.size() == QSize(1024, 700)
    source_height = window.source.height()

    def check(name: str) -> None:
        view = main_tables(window)[name]
        if isinstance(view, QTreeView):
            shown = view.viewport().height() // max(1, view.fontMetrics().height() + 4)
        else:
            shown = rows_shown(view)
        assert shown >= SEVERAL_ROWS, (name, shown, window.docks[name].height())
        # the source view keeps room too: the top half of the window at least a third of it
        assert window.source.height() >= 700 // 3, (name, window.source.height(), source_height)
        assert window.docks["edit"].isVisible() and window.docks["outline"].isVisible()

    show_each_bottom_dock(window, check)
    # View > Reset Layout at this size gives the same
    window.docks["selection"].setFloating(True)
    window.docks["edit"].hide()
    reset = next(a for a in window.menuBar().actions() if a.text() == "&View").menu().actions()[-1]
    reset.trigger()
    window.resize(1024, 700)
    QApplication.processEvents()
    show_each_bottom_dock(window, check)
