"""Zero-noise edits: set or insert one value at a JSON pointer, changing only that span of the text."""

from workbench.edit.engine import Edit, EditRefused, Splice, apply_edits, plan_edit
from workbench.edit.save import write_atomically

__all__ = ["Edit", "EditRefused", "Splice", "apply_edits", "plan_edit", "write_atomically"]
