"""Data shipped with the package: example specs, JSON Schemas of our file formats."""
