"""Help > Rules shows, for every rule, what it checks and how to fix it: the registry's text, as
`workbench lint --explain` prints it."""

from __future__ import annotations

from PySide6.QtWidgets import QTextBrowser

from workbench.lint import RULES


def test_help_rules_shows_how_to_fix_every_rule(window):
    window.show_rules()
    text = window.help_dialog.findChild(QTextBrowser).toPlainText()
    for rule in RULES.values():
        assert rule.fix and rule.fix.replace("`", "") in text, rule.id  # `spans` are set as code
    assert text.count("How to fix:") == len(RULES)
    window.help_dialog.close()
