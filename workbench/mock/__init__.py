"""The mock server built from a spec: routing, request checks, the spec's responses, on 127.0.0.1 (`server.py`).
In-process: `MockServer(spec).start()`; on the command line: `workbench mock SPEC`."""
