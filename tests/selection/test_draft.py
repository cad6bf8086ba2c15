"""`workbench suite draft`: a starter suite that the reader accepts as it is (the bundled example and a corpus
file), its none and trap cases, its prompts (from the spec, or from a scripted model behind a real local
OpenAI-compatible server), and the command's refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.catalogue import corpus_file
from tests.servers import Recorded, Reply
from workbench.cli import main
from workbench.config import WorkbenchConfig
from workbench.examples import example_path
from workbench.selection.draft import OFF_TOPIC, draft_suite, render, request_for
from workbench.selection.model import ALL_OF, NONE, OPENAI_CHAT, OPENAI_RESPONSES, ModelSettings
from workbench.selection.suite import open_suite, read_suite
from workbench.spec import load_spec
from workbench.tools.options import ToolOverrides, build_toolset

MID_SIZE = "twilio-verify-v2.yaml"  # 57 operations


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run(capsys, monkeypatch):
    """`workbench suite draft ARGS` in this process (the same `main` the command runs), without a key."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)

    def _run(*args: str) -> Ran:
        capsys.readouterr()
        code = main(["suite", "draft", *args])
        captured = capsys.readouterr()
        return Ran(code, captured.out, captured.err)

    return _run


@pytest.fixture
def drafted(run):
    def _drafted(spec_path: Path, out: Path, *extra: str) -> Path:
        result = run(str(spec_path), "-o", str(out), *extra)
        assert result.returncode == 0, result.stderr
        return out

    return _drafted


def test_the_example_draft_reads_and_resolves_as_written(drafted, tmp_path):
    (tmp_path / "suites").mkdir()
    out = drafted(example_path(), tmp_path / "suites" / "shop.suite.yaml")
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# A DRAFT tool-selection suite for Acme Shop API")
    assert "draft to review" in text.splitlines()[1]
    opened = open_suite(out)
    suite = opened.suite
    assert opened.notes == []
    assert suite.spec.resolve() == example_path().resolve()
    assert all(case.draft for case in suite.cases)
    tools = {t.name for t in opened.toolset.tools}
    one_per_tool = [c for c in suite.cases if c.expect.mode != NONE and not c.id.startswith("trap-")]
    assert sorted(name for c in one_per_tool for name in c.expect.tools) == sorted(tools)
    nones = [c for c in suite.cases if c.expect.mode == NONE]
    assert 3 <= len(nones) <= 5
    assert {c.prompt for c in nones} <= {prompt for prompt, _ in OFF_TOPIC}
    traps = [c for c in suite.cases if c.id.startswith("trap-")]
    assert [c.expect.tools for c in traps] == [("fetchOrderDetails",)]  # the pair the lint reports
    assert "details" in traps[0].prompt.lower()  # the words that set it apart from getOrder
    assert "# trap: reads almost the same as getOrder (similarity" in text
    assert '    prompt: "Please list customers."' in text  # block style, prompts quoted
    assert not any(case.expect.mode == ALL_OF for case in suite.cases)


def test_prompts_from_the_spec_read_as_requests_with_example_values():
    spec = load_spec(example_path())
    ops = {op.operation_id or op.label(): op for op in spec.operations}
    assert request_for(spec, ops["listOrderRefunds"]) == \
        "Please list the refunds issued against an order (orderId ord_4Hq7Zt2Wd9Lr1B)."
    assert request_for(spec, ops["listOrders"]) == "Please search orders."
    assert request_for(spec, ops["getRefund"]) == "Please show me the refund details."  # a GET's noun phrase
    assert request_for(spec, ops["cancelOrder"]) == "Please cancel order (orderId ord_4Hq7Zt2Wd9Lr1B)."  # no words
    assert request_for(spec, ops["GET /customers/{customerId}/loyalty"]) == \
        "Please get a customer's loyalty standing (customerId cus_8f2kQ1x9LmP3aZ)."


def test_a_corpus_draft_reads_and_resolves(corpus, drafted, tmp_path):
    spec_path = corpus_file(MID_SIZE)
    assert spec_path.is_file(), f"corpus file {MID_SIZE} not found in {corpus}"
    out = drafted(spec_path, tmp_path / "verify.suite.yaml")
    opened = open_suite(out)
    assert opened.notes == []
    assert len(opened.toolset.tools) > 40
    covered = {name for c in opened.suite.cases for name in c.expect.tools}
    assert covered == {t.name for t in opened.toolset.tools}
    assert all(c.prompt.startswith("Please ") for c in opened.suite.cases if c.expect.mode != NONE)
    assert all("\n" not in c.prompt and len(c.prompt) < 300 for c in opened.suite.cases)


def test_the_tool_set_flags_shape_the_draft_and_are_kept_in_it(drafted, tmp_path):
    out = drafted(example_path(), tmp_path / "s.yaml", "--tags", "orders", "--vendor", "gemini")
    suite_file = read_suite(out)
    assert suite_file.tools == ToolOverrides(vendor="gemini", tags=("orders",))
    opened = open_suite(out)
    assert opened.toolset.vendor == "gemini"
    refs = {c.expect.written for c in opened.suite.cases if c.expect.mode != NONE}
    assert ("orders.create",) in refs  # Gemini's names keep the dot: the operationId is the tool's name
    assert all(t.operation.tags == ("orders",) for t in opened.toolset.tools)


def test_output_refuses_to_overwrite_without_force(run, tmp_path):
    out = tmp_path / "s.yaml"
    out.write_text("keep me\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "workbench", "suite", "draft", str(example_path()), "-o", str(out)],
                            capture_output=True, text=True, timeout=60, check=False)  # the command as a user runs it
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"workbench: {out}: already exists; pass --force to overwrite it"]
    assert out.read_text(encoding="utf-8") == "keep me\n"
    assert run(str(example_path()), "-o", str(out), "--force").returncode == 0
    assert out.read_text(encoding="utf-8").startswith("# A DRAFT")


def test_dash_writes_to_stdout(run):
    result = run(str(example_path()), "-o", "-")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# A DRAFT") and "cases:" in result.stdout
    assert result.stderr == ""


@pytest.mark.parametrize(("args", "message"), [
    (["--api", "openai-chat"], "workbench: <command line>: --api openai-chat needs --model"),
    (["--operations", "nothingLikeThis"], "the tool set is empty"),
])
def test_bad_input_exits_2_with_one_line(run, args, message):
    result = run(str(example_path()), "-o", "-", *args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
    result = run("/no/such/spec.yaml", "-o", "-")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1


# -- prompts written by a model: a scripted one behind a real local server --------------------------------------


def _tasks(recorded: Recorded) -> list[dict]:
    body = json.loads(recorded.body)
    text = body["messages"][-1]["content"] if "messages" in body else body["input"]
    return json.loads(text)["tasks"]


def _chat(content: str) -> Reply:
    return Reply(body=json.dumps({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
    }).encode())


def _response(content: str) -> Reply:
    return Reply(body=json.dumps({
        "id": "resp_1", "object": "response", "created_at": 1700000000, "model": "m", "status": "completed",
        "output": [{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": content, "annotations": []}]}],
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
    }).encode())


@pytest.mark.parametrize(("api", "reply", "path"), [(OPENAI_CHAT, _chat, "/v1/chat/completions"),
                                                     (OPENAI_RESPONSES, _response, "/v1/responses")])
def test_a_configured_model_writes_the_prompts(drafted, server, tmp_path, api, reply, path):
    asked: list[dict] = []

    def answer(recorded: Recorded) -> Reply:
        tasks = _tasks(recorded)
        asked.extend(tasks)
        return reply("Here you go:\n" + json.dumps({t["id"]: f"user words for {t['tool']}" for t in tasks}))

    server.responder = answer
    out = drafted(example_path(), tmp_path / "s.yaml", "--api", api, "--model", "m",
                  "--base-url", server.url + "/v1")
    assert {r.target for r in server.requests} == {path}
    assert all(r.header("Authorization") == "Bearer not-needed" for r in server.requests)
    opened = open_suite(out)
    written = [c for c in opened.suite.cases if c.expect.mode != NONE]
    assert all(c.prompt == f"user words for {c.expect.tools[0]}" for c in written)
    assert all(c.draft for c in opened.suite.cases)
    trap = next(t for t in asked if t["id"].startswith("trap-"))
    assert "getOrder" in trap["must not fit"]  # the twin it must not fit
    assert read_suite(out).model == ModelSettings(api=api, model="m", base_url=server.url + "/v1")


def test_an_unreadable_model_answer_keeps_the_spec_made_prompts(run, server, tmp_path):
    server.reply(_chat("I cannot help with that."))
    out = tmp_path / "s.yaml"
    result = run(str(example_path()), "-o", str(out), "--api", "openai-chat", "--model", "m",
                 "--base-url", server.url + "/v1")
    assert result.returncode == 0, result.stderr
    assert "the model's answer was not a JSON object of prompts" in result.stderr
    assert open_suite(out).suite.cases[0].prompt == "Please list customers."


def test_draft_suite_in_process_takes_any_prompt_writer():
    spec = load_spec(example_path())
    toolset = build_toolset(spec, WorkbenchConfig())
    draft = draft_suite(spec, toolset, spec_path="../examples/shop-api.yaml", similarity=0.85,
                        prompts=lambda tasks: {tasks[0].id: "  my own\n words  "})
    assert draft.cases[0].prompt == "my own words"
    assert draft.cases[1].prompt == "Please create a customer."
    assert "spec: ../examples/shop-api.yaml\n" in render(draft)


def test_the_key_is_sent_and_never_written(drafted, server, tmp_path, monkeypatch):
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    server.reply(_chat("{}"))
    out = drafted(example_path(), tmp_path / "s.yaml", "--api", "openai-chat", "--model", "m",
                  "--base-url", server.url + "/v1")
    assert server.requests and all(r.header("Authorization") == f"Bearer {secret}" for r in server.requests)
    assert secret not in out.read_text(encoding="utf-8")
