"""The window on small and scaled screens: its first size fits the available screen, a saved geometry is
restored only when it fits, long texts never widen it, and the layout can be reset."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSize

from workbench.gui.main_window import MainWindow, fitting_size


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


def test_a_saved_geometry_too_big_for_the_screen_is_not_restored(qtbot, settings):
    big = MainWindow(settings)
    qtbot.addWidget(big)
    big.setGeometry(0, 0, 1920, 1230)
    settings.setValue("window/geometry", big.saveGeometry())
    big.deleteLater()
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    available = win.screen().availableGeometry()
    assert win.width() <= available.width() and win.height() <= available.height()
    win.close()


def test_a_saved_geometry_that_fits_is_restored(qtbot, settings):
    first = MainWindow(settings)
    qtbot.addWidget(first)
    first.setGeometry(40, 60, 600, 500)
    settings.setValue("window/geometry", first.saveGeometry())
    first.deleteLater()
    win = MainWindow(settings)
    qtbot.addWidget(win)
    assert win.size() == QSize(600, 500)
    assert not settings.value("window/geometry", QByteArray(), type=QByteArray).isEmpty()
