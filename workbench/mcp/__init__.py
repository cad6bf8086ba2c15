"""`workbench serve-mcp`: a spec's checked tool set as an MCP server. `service.py` is the protocol-free core
(the listed tools, a call through the executor with its gates), `server.py` puts it on the wire with the
official SDK (stdio or streamable HTTP), `early.py` answers a stdio client's handshake and first list before
the SDK is imported, `listing.py` keeps that list between starts, `clients.py` holds the known client
limits, `target.py` the embedded mock for `--mock`."""
