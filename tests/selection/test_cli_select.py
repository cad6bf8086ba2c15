"""`workbench select` end to end: the bundled example suite through the real `openai` client to a scripted
model on 127.0.0.1 (both APIs), the cache across a re-run, baselines that gate, accuracy against tool count,
and the key in no file written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.servers import ModelReply, ModelRequest, ScriptedModelServer
from workbench.cli import main
from workbench.selection.metrics import wilson
from workbench.selection.model import ALL_OF, NONE
from workbench.selection.suite import open_suite

SUITE = Path(__file__).resolve().parents[2] / "resources" / "suites" / "shop-api.suite.yaml"
KEY = "sk-test-0123456789abcdef"


def oracle_model(wrong: frozenset[str] = frozenset()):
    """A model that knows every case's answer (by its prompt), except the cases in `wrong`, where it picks
    the first offered tool that is not expected."""
    cases = {case.prompt: case for case in open_suite(SUITE).suite.cases}

    def answer(request: ModelRequest) -> ModelReply:
        case = cases[request.prompt]
        if case.id in wrong:
            other = next(name for name in request.offered if name not in case.expect.tools)
            return ModelReply(calls=((other, {}),))
        if case.expect.mode == NONE:
            return ModelReply(text="I can't help with that here.")
        names = case.expect.tools if case.expect.mode == ALL_OF else case.expect.tools[:1]
        return ModelReply(calls=tuple((name, dict(case.arguments.get(name, {}))) for name in names))

    return answer


@pytest.fixture
def model(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with ScriptedModelServer(oracle_model()) as server:
        yield server


def select(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["select", str(SUITE), *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("api", ["openai-chat", "openai-responses"])
def test_a_model_that_knows_the_answers_scores_everything_and_a_re_run_sends_nothing(api, model, tmp_path, capsys):
    cases = len(open_suite(SUITE).suite.cases)
    argv = ("--api", api, "--model", "m", "--base-url", model.url, "--cache-dir", str(tmp_path / "cache"),
            "--repeats", "2", "--format", "json")
    code, out, _ = select(capsys, *argv)
    report = json.loads(out)
    assert code == 0
    assert len(model.requests) == 2 * cases
    assert {r.path for r in model.requests} == {"/v1/chat/completions" if api == "openai-chat" else "/v1/responses"}
    summary = report["summary"]
    assert (summary["cases"], summary["runs"], summary["accuracy"]) == (cases, 2 * cases, 1.0)
    # two identical answers per case are one observation per case, not two: the interval of 22 of 22
    assert summary["accuracy_ci"] == [round(x, 4) for x in wilson(cases, cases)]
    assert summary["pass_k"]["1"] == 1.0 and summary["pass_k"]["2"] == 1.0
    assert (summary["no_call_rate"], summary["false_call_rate"], summary["hallucinated"], summary["malformed"]) == (
        0.0, 0.0, 0, 0)
    by_id = {c["id"]: c for c in report["cases"]}
    assert by_id["customer-profile"]["expected"] == "getCustomer"
    assert by_id["customer-profile"]["selected"] == ["getCustomer", "getCustomer"]
    assert report["confusion"]["getCustomer"] == {"getCustomer": 2}
    assert report["context"]["api"] == api and report["context"]["model"] == "m"

    again = select(capsys, *argv)
    assert again[0] == 0 and len(model.requests) == 2 * cases  # every answer came from the cache
    assert json.loads(again[1])["summary"]["accuracy"] == 1.0


def test_a_worse_model_is_a_regression_against_the_baseline(model, tmp_path, capsys, monkeypatch):
    base = ("--api", "openai-chat", "--model", "m", "--base-url", model.url, "--no-cache", "--repeats", "2")
    code, _, _ = select(capsys, *base, "--save-baseline", str(tmp_path / "baseline.json"))
    assert code == 0
    wrong = frozenset({"customer-profile", "sign-up-customer", "find-customer-by-email"})
    model.script = oracle_model(wrong)
    code, out, _ = select(capsys, *base, "--baseline", str(tmp_path / "baseline.json"))
    assert code == 1
    assert "customer-profile" in out and "regression" in out.lower()
    # the same worse run without a baseline passes, unless accuracy must stay above a minimum
    assert select(capsys, *base)[0] == 0
    code, _, err = select(capsys, *base, "--min-accuracy", "0.95")
    assert code == 1 and "under --min-accuracy" in err


def test_accuracy_against_tool_count_offers_the_expected_tools_and_their_neighbours(model, tmp_path, capsys):
    code, out, _ = select(capsys, "--api", "openai-chat", "--model", "m", "--base-url", model.url, "--no-cache",
                          "--scale", "3,all", "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert [p["size"] for p in report["scale"]] == [3, 15]
    offered = {len(r.offered) for r in model.requests}
    assert offered == {3, 15}
    small = [r for r in model.requests if len(r.offered) == 3 and r.prompt.startswith("What phone number")]
    assert small and "getCustomer" in small[0].offered


def test_the_key_is_in_no_file_written(model, tmp_path, capsys):
    for fmt in ("json", "junit", "html", "text"):
        select(capsys, "--api", "openai-chat", "--model", "m", "--base-url", model.url, "--cache-dir",
               str(tmp_path / "cache"), "--format", fmt, "--output", str(tmp_path / f"report.{fmt}"),
               "--save-baseline", str(tmp_path / f"baseline-{fmt}.json"))
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in model.requests)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) > 8
    assert not [p for p in written if KEY.encode() in p.read_bytes()]


def test_no_answer_at_all_is_one_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with ScriptedModelServer(lambda request: ModelReply(status=401, text="bad key")) as server:
        code, out, err = select(capsys, "--api", "openai-chat", "--model", "m", "--base-url", server.url, "--no-cache")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "no case got an answer" in err and KEY not in err


def test_bad_numbers_and_a_model_api_without_a_model_are_refused(capsys, tmp_path):
    assert select(capsys, "--repeats", "0")[0] == 2
    code, _, err = select(capsys, "--api", "openai-chat")
    assert code == 2 and "model" in err and err.count("\n") == 1
    with pytest.raises(SystemExit):
        main(["select", str(SUITE), "--scale", "ten"])


def test_the_offline_scorer_needs_no_key_and_no_network(monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")  # anything that tried the network would fail
    code, out, _ = select(capsys, "--format", "json", "--scale", "4,all")
    report = json.loads(out)
    assert code == 0
    assert report["context"]["api"] == "offline" and report["summary"]["requests_sent"] == 0
    assert report["summary"]["runs"] == len(open_suite(SUITE).suite.cases)
    assert 0.5 <= report["summary"]["accuracy"] <= 1.0
    ranked = [c for c in report["cases"] if c["expected"] != "none"]
    assert all(isinstance(c["rank"], int) and c["rank"] >= 1 for c in ranked)
    assert all(c["rank"] == 1 for c in ranked if c["passed"] == c["runs"] and " " not in c["expected"])
    assert [p["size"] for p in report["scale"]] == [4, 15]


def echo_key_model(request: ModelRequest) -> ModelReply:
    """A hostile or careless server that repeats the key it was sent everywhere it can."""
    key = request.headers.get("authorization", "").removeprefix("Bearer ")
    if "phone" in request.prompt:
        return ModelReply(status=500, text=f"upstream rejected {key}")
    if "account" in request.prompt:
        return ModelReply(calls=((f"tool_{key}", {"x": key}),), text=f"your key is {key}")
    return ModelReply(calls=(("listOrders", {"status": key}),), text=f"key {key}")


def test_a_server_that_echoes_the_key_gets_it_into_no_output_and_no_file(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with ScriptedModelServer(echo_key_model) as server:
        outputs = []
        for fmt in ("json", "text", "html", "junit"):
            code = main(["select", str(SUITE), "--api", "openai-chat", "--model", "m", "--base-url", server.url,
                         "--cache-dir", str(tmp_path / "cache"), "--format", fmt, "--save-baseline",
                         str(tmp_path / f"b-{fmt}.json")])
            outputs.append(capsys.readouterr())
            assert code == 0
        assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in server.requests)
        report = json.loads(outputs[0].out)
    assert any(o == "hallucinated" for c in report["cases"] for o in c["outcomes"])  # the tool_<key> call
    assert not [o for o in outputs if KEY in o.out or KEY in o.err]
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) > 10 and not [p for p in written if KEY.encode() in p.read_bytes()]


def test_suite_draft_with_a_model_that_echoes_the_key_prints_it_nowhere(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    example = SUITE.parents[1] / "examples" / "shop-api.yaml"
    with ScriptedModelServer(lambda r: ModelReply(status=500, text="rejected " + r.headers["authorization"])) as bad:
        code = main(["suite", "draft", str(example), "-o", str(tmp_path / "a.suite.yaml"), "--api", "openai-chat",
                     "--model", "m", "--base-url", bad.url])
    first = capsys.readouterr()
    with ScriptedModelServer(lambda r: ModelReply(text='{"list-orders": "' + KEY + '"} and ' + KEY)) as echo:
        code2 = main(["suite", "draft", str(example), "-o", str(tmp_path / "b.suite.yaml"), "--api", "openai-chat",
                      "--model", "m", "--base-url", echo.url])
    second = capsys.readouterr()
    assert (code, code2) == (0, 0)
    assert "HTTP 500" in first.err
    assert not [o for o in (first, second) if KEY in o.out or KEY in o.err]
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]


def test_garbage_with_a_200_is_no_answer_and_a_call_naming_no_tool_is_malformed(model, capsys):
    model.sequence(ModelReply(raw=b'{"choices": "x"}'))
    code, _, err = select(capsys, "--api", "openai-chat", "--model", "m", "--base-url", model.url, "--no-cache")
    assert code == 2 and "no case got an answer: unreadable answer" in err
    model.sequence(ModelReply(raw=json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                                              "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                                                  "role": "assistant", "content": None, "tool_calls": [
                                                      {"id": "1", "type": "function",
                                                       "function": {"name": "", "arguments": "{}"}}]}}]}).encode()))
    code, out, _ = select(capsys, "--api", "openai-chat", "--model", "m", "--base-url", model.url, "--no-cache",
                          "--format", "json")
    assert code == 0 and json.loads(out)["summary"]["malformed"] == len(open_suite(SUITE).suite.cases)


def test_a_gate_does_not_pass_a_run_with_unanswered_cases(model, tmp_path, capsys):
    base = ("--api", "openai-chat", "--model", "m", "--base-url", model.url, "--no-cache")
    assert select(capsys, *base, "--save-baseline", str(tmp_path / "b.json"))[0] == 0
    code, out, err = select(capsys, *base, "--max-requests", "3", "--baseline", str(tmp_path / "b.json"))
    assert code == 2 and "cases got no answer" in err and "the run cannot pass a gate" in err
    assert out.startswith("selection: ")  # the report still says what happened
    code, _, err = select(capsys, *base, "--max-requests", "3", "--min-accuracy", "0.5")
    assert code == 2 and "cases got no answer" in err
    assert select(capsys, *base, "--max-requests", "3")[0] == 0  # no gate: the report says what happened


def test_a_baseline_of_another_suite_or_a_damaged_one_is_refused(model, tmp_path, capsys, write):
    base = ("--api", "openai-chat", "--model", "m", "--base-url", model.url, "--no-cache")
    assert select(capsys, *base, "--save-baseline", str(tmp_path / "b.json"))[0] == 0
    saved = json.loads((tmp_path / "b.json").read_text())
    other = {**saved, "cases": [{**c, "id": "other-" + c["id"]} for c in saved["cases"]]}
    (tmp_path / "other.json").write_text(json.dumps(other))
    code, _, err = select(capsys, *base, "--baseline", str(tmp_path / "other.json"))
    assert code == 2 and "none of this suite's cases" in err
    (tmp_path / "damaged.json").write_text(json.dumps({**saved, "summary": [1]}))
    code, _, err = select(capsys, *base, "--baseline", str(tmp_path / "damaged.json"))
    assert code == 2 and err.count("\n") == 1 and "damaged selection baseline" in err and "/summary" in err
    twice = {**saved, "cases": saved["cases"] + saved["cases"][:1]}
    (tmp_path / "twice.json").write_text(json.dumps(twice))
    code, _, err = select(capsys, *base, "--baseline", str(tmp_path / "twice.json"))
    assert code == 2 and "is there twice" in err


def test_a_suite_can_name_only_an_api_key_variable_and_its_own_host_is_said(tmp_path, capsys, monkeypatch, write):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    spec = SUITE.parents[1] / "examples" / "shop-api.yaml"
    stolen = write("s.suite.yaml", f"spec: {spec}\nmodel: {{api: openai-chat, name: m, key-env: DEPLOY_TOKEN}}\n"
                                   "cases:\n  - {id: a, prompt: hi, expect: none}\n")
    assert main(["select", str(stolen)]) == 2
    assert "key-env" in capsys.readouterr().err
    elsewhere = write("e.suite.yaml", f"spec: {spec}\nmodel: {{api: openai-chat, name: m, base-url: "
                                      "'http://192.0.2.1:9/v1', timeout: 0.2}\n"
                                      "cases:\n  - {id: a, prompt: hi, expect: none}\n")
    assert main(["select", str(elsewhere), "--no-cache", "--max-requests", "0"]) == 2
    assert "is sent to 192.0.2.1:9, the suite's model.base-url" in capsys.readouterr().err
