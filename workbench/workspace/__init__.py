"""The open spec and its edit session, without any GUI (the desktop workbench presents it; tests drive it).

`load_and_lint` loads, lints and scores a spec (progress callback, cancel flag); `Workspace` holds every file
as edited and as on disk, the undo history, the recovery journals, saving, and changes made on disk;
`workbench.workspace.form` turns the Edit form's values into edits. This package never imports Qt or
`workbench.gui`.

The names below are imported from their modules when first used: a command that only loads and lints
(through `workbench.workspace.loading`) does not pay for the edit session, its history and its journals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench import lazy_exports

if TYPE_CHECKING:
    from workbench.workspace.history import Change, History, Step
    from workbench.workspace.loading import (
        Cancelled,
        LoadedSpec,
        OperationEntry,
        ProblemEntry,
        PropertyEntry,
        SchemaEntry,
        freeze_heap,
        load_and_lint,
        schema_entries,
        thaw_heap,
    )
    from workbench.workspace.preview import Preview, outcome_diff, text_diff
    from workbench.workspace.session import (
        ConflictChoice,
        DiskMerge,
        DiskOutcome,
        DocumentChange,
        LoadKind,
        SaveChoice,
        SaveError,
        Workspace,
        absolute,
    )

_MODULE_OF = {
    **dict.fromkeys(("Change", "History", "Step"), "history"),
    **dict.fromkeys(("Cancelled", "LoadedSpec", "OperationEntry", "ProblemEntry", "PropertyEntry", "SchemaEntry",
                     "freeze_heap", "load_and_lint", "schema_entries", "thaw_heap"), "loading"),
    **dict.fromkeys(("Preview", "outcome_diff", "text_diff"), "preview"),
    **dict.fromkeys(("ConflictChoice", "DiskMerge", "DiskOutcome", "DocumentChange", "LoadKind", "SaveChoice",
                     "SaveError", "Workspace", "absolute"), "session"),
}

__all__ = [
    "Cancelled", "Change", "ConflictChoice", "DiskMerge", "DiskOutcome", "DocumentChange", "History",
    "LoadKind", "LoadedSpec", "OperationEntry", "Preview", "ProblemEntry", "PropertyEntry", "SaveChoice",
    "SaveError", "SchemaEntry", "Step", "Workspace", "absolute", "freeze_heap",
    "load_and_lint", "outcome_diff", "schema_entries", "text_diff", "thaw_heap",
]


__getattr__ = lazy_exports(__name__, _MODULE_OF)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
