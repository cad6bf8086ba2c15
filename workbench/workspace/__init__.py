"""The open spec and its edit session, without any GUI (the desktop workbench presents it; tests drive it).

`load_and_lint` loads, lints and scores a spec (progress callback, cancel flag); `Workspace` holds every file
as edited and as on disk, the undo history, the recovery journals, saving, and changes made on disk;
`workbench.workspace.form` turns the Edit form's values into edits. This package never imports Qt or
`workbench.gui`.
"""

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

__all__ = [
    "Cancelled", "Change", "ConflictChoice", "DiskMerge", "DiskOutcome", "DocumentChange", "History",
    "LoadKind", "LoadedSpec", "OperationEntry", "Preview", "ProblemEntry", "PropertyEntry", "SaveChoice",
    "SaveError", "SchemaEntry", "Step", "Workspace", "absolute", "freeze_heap",
    "load_and_lint", "outcome_diff", "schema_entries", "text_diff", "thaw_heap",
]
