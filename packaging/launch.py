"""The frozen application's entry point: the same `workbench` command as the installed console script."""

import multiprocessing

from workbench.cli import entry

# The desktop workbench runs a round trip in a process of its own; frozen, that process starts as this
# executable, and this is where it is told to be that process instead of the command.
multiprocessing.freeze_support()
entry()
