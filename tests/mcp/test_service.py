"""The service without the protocol: the gates of a call (confirmation, --allow-writes, --read-only, human
values) against a real recording server, and the list kept between starts."""

from __future__ import annotations

import json
import os

from tests.servers import Reply
from workbench.mcp.listing import KEEP, Listing, cache_key, file_digest, read_listing, write_listing
from workbench.mcp.service import Asker, ServeOptions, Service
from workbench.spec import load_spec
from workbench.tools.options import ToolOverrides, build_toolset
from workbench.workspace.loading import spec_config


class Answering(Asker):
    """A client that can ask its user, who answers as scripted (None: declines)."""

    can_ask = True

    def __init__(self, **answers) -> None:
        self.answers, self.asked = answers, []

    def ask(self, questions):
        self.asked.append(dict(questions))
        return {key: self.answers.get(key) for key in questions}


def service(shop, server, environ=None, **options) -> Service:
    spec = load_spec(shop)
    toolset = build_toolset(spec, spec_config(shop), ToolOverrides(vendor="mcp", read_only=options.get("read_only")))
    return Service(spec, toolset, ServeOptions(base_url=server.url, **options), environ=environ or {})


def sent(server) -> list[str]:
    return [" ".join(r.line.split()[:2]) for r in server.requests]


def test_a_destructive_call_waits_for_the_users_yes(shop, server):
    server.reply(Reply(204, [], b""))
    served = service(shop, server)
    no = Answering(approve={"confirm": False})
    assert served.call("deleteItem", {"id": 1}, no).is_error
    yes = Answering(approve={"confirm": True})
    assert not served.call("deleteItem", {"id": 2}, yes).is_error
    assert sent(server) == ["DELETE /items/2"]
    assert "DELETE /items/{id}" in yes.asked[0]["approve"].message


def test_without_a_way_to_ask_only_allow_writes_lets_a_destructive_call_through(shop, server):
    server.reply(Reply(204, [], b""))
    refused = service(shop, server).call("deleteItem", {"id": 1}, Asker())
    assert refused.is_error and "--allow-writes" in refused.text
    assert not service(shop, server, allow_writes=True).call("deleteItem", {"id": 2}, Asker()).is_error
    assert sent(server) == ["DELETE /items/2"]


def test_invalid_arguments_are_not_put_to_the_user(shop, server):
    asker = Answering(approve={"confirm": True})
    result = service(shop, server).call("deleteItem", {"id": "seven"}, asker)
    assert result.is_error and "integer" in result.text
    assert asker.asked == [] and server.requests == []


def test_read_only_lists_and_sends_only_reads(shop, server):
    served = service(shop, server, read_only=True)
    assert {t["name"] for t in served.listed()} == {"listItems", "getItem"}
    assert served.call("deleteItem", {"id": 1}, Answering(approve={"confirm": True})).is_error
    assert server.requests == []


def test_human_values_come_from_the_environment_before_anyone_is_asked(shop, server):
    server.reply(Reply(204, [], b""))
    asker = Answering()
    served = service(shop, server, environ={"WORKBENCH_HUMAN_PASSWORD": "from-env"})
    assert not served.call("setPassword", {}, asker).is_error
    assert asker.asked == [] and json.loads(server.requests[0].body) == {"password": "from-env"}


def test_a_success_body_that_breaks_the_output_schema_is_said(shop, server):
    server.reply(Reply(200, [("Content-Type", "application/json")], b'{"id": "not a number"}'))
    result = service(shop, server).call("getItem", {"id": 1}, Asker())
    assert result.is_error and "does not match" in result.text and result.structured is None


def test_the_kept_list_goes_with_a_changed_file_and_only_the_newest_stay(tmp_path):
    spec = tmp_path / "api.yaml"
    spec.write_text("openapi: 3.1.0\n")
    key = cache_key(spec, None, {"dynamic": False})
    assert key != cache_key(spec, None, {"dynamic": True})
    write_listing(tmp_path / "cache", key, Listing("api", [{"name": "t"}], [], {str(spec): file_digest(spec)}))
    assert read_listing(tmp_path / "cache", key).tools == [{"name": "t"}]
    spec.write_text("openapi: 3.1.1\n")
    assert read_listing(tmp_path / "cache", key) is None
    for i in range(KEEP + 3):
        write_listing(tmp_path / "cache", f"k{i}", Listing("api", [], [], {}))
        os.utime(tmp_path / "cache" / f"k{i}.json", (1000 + i, 1000 + i))
    write_listing(tmp_path / "cache", "last", Listing("api", [], [], {}))
    assert len(list((tmp_path / "cache").glob("*.json"))) == KEEP
    assert (tmp_path / "cache" / "last.json").exists()
