"""A first run: the welcome state with nothing open, Help's rules and shortcuts, the counts' words and tips."""

from __future__ import annotations

import shutil

from PySide6.QtWidgets import QTextBrowser

from workbench.examples import example_path
from workbench.lint import RULES


def test_with_no_file_the_middle_says_how_to_start(window, qtbot, settings, tmp_path):
    assert window.middle.currentWidget() is window.welcome
    assert window.welcome.open_button.isVisible() and window.welcome.example_button.isVisible()
    assert not window.diff_action.isEnabled()  # nothing open: no diff to show
    with qtbot.waitSignal(window.documentLoaded, timeout=30_000):
        window.welcome.example_button.click()
    assert window.loaded.path == example_path()
    assert window.middle.currentWidget() is window.source


def test_the_welcome_lists_the_recent_files_that_exist(qtbot, settings, tmp_path):
    from workbench.gui.main_window import MainWindow

    kept = tmp_path / "kept.yaml"
    shutil.copyfile(example_path(), kept)
    settings.setValue("recentFiles", [str(kept), str(tmp_path / "gone.yaml")])
    win = MainWindow(settings)
    qtbot.addWidget(win)
    assert win.welcome.recent() == [str(kept)]
    with qtbot.waitSignal(win.documentLoaded, timeout=30_000):
        item = win.welcome.recent_list.item(0)
        win.welcome.recent_list.itemActivated.emit(item)
    assert win.loaded.path == kept


def test_help_lists_every_rule_and_the_shortcuts(window):
    window.show_rules()
    text = window.help_dialog.findChild(QTextBrowser).toPlainText()
    for rule in RULES.values():
        assert rule.id in text and rule.summary in text
    window.show_shortcuts()
    text = window.help_dialog.findChild(QTextBrowser).toPlainText()
    for words in ("Next Problem", "F8", "Open", "Show Problems", "Filter Operations"):
        assert words in text
    window.help_dialog.close()


def test_counts_are_worded_and_explained(window, open_spec, tmp_path):
    spec = tmp_path / "one.yaml"
    spec.write_text("""openapi: 3.1.0
info: {title: t, version: '1'}
servers: [{url: 'https://api.example.com'}]
components:
  securitySchemes: {bearer: {type: http, scheme: bearer}}
security: [{bearer: []}]
paths:
  /things:
    get:
      operationId: listThings
      summary: List the things
      description: Lists every thing of the account, newest first. Use it to find a thing's id.
      responses: {'200': {description: the things}}
""", encoding="utf-8")
    loaded = open_spec(spec)
    total = len(loaded.problems)
    expected = "1 problem" if total == 1 else f"{total} problems"
    assert window.problems.count_text() == expected
    assert window.outline.count_text() == "1 operation"
    for button in window.status.severity_buttons.values():
        assert button.toolTip().startswith(f"{button.text()} ")
        assert "Problems panel" in button.toolTip() and button.accessibleName()
        if button.text() == "1":
            assert "1 warnings" not in button.toolTip() and " it " in button.toolTip()


def test_a_markdown_file_is_not_an_api_description(window, open_spec, tmp_path):
    notes = tmp_path / "NOTES.md"
    notes.write_text("# Notes\n\nSome *markdown*: with a colon.\n\n- item\n", encoding="utf-8")
    loaded = open_spec(notes)  # opened as its text (as any file that does not parse), with the one finding
    assert not loaded.parsed and window.error_box is None
    (entry,) = window.problems.entries()
    message = entry.finding.message
    assert "not an API description" in message and "Markdown" in message and "YAML syntax" not in message
    assert "\n" not in message


def test_the_location_line_follows_a_fix(window, open_spec, tmp_path):
    shop = tmp_path / "shop.yaml"
    shutil.copyfile(example_path(), shop)
    open_spec(shop)
    entry = next(e for e in window.problems.entries() if e.finding.fix is not None)
    window.document.reveal_problem(entry)
    assert entry.finding.rule in window.source.location_label.text()
    window.confirm_preview = lambda _preview: True
    assert window.fix_problem(entry)
    assert entry.finding.rule not in window.source.location_label.text()
    assert window.source.location_label.text().startswith("Applied: Fix:")
