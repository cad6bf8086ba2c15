"""The tool-selection regression suite: cases with the right tool, run through a model (or the offline
scorer) R times, judged, measured against the last baseline and rendered for CI and people."""
