"""The ways the mock breaks an answer on purpose (`Prefer: fault=…`, the config's `mock: faults:`); the server
writes each one (`server.FAULT_WRITERS`). What a client sees of each (httpx 0.28): reset → ReadError; empty,
garbage, truncate, malformed-chunk → RemoteProtocolError; hang → ReadTimeout; dribble → the whole answer, one
byte at a time. A module of its own, so that reading the config does not load the server."""

FAULTS = ("reset", "empty", "garbage", "hang", "truncate", "malformed-chunk", "dribble")
