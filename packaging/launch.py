"""The frozen application's entry point: the same `workbench` command as the installed console script."""

from workbench.cli import main

raise SystemExit(main())
