"""The four report formats and the baseline: the JSON the issue names (checked against its schema), a text
summary that fits 100 columns, JUnit a CI parses, HTML that escapes what the suite wrote and fetches nothing,
and the comparison with a saved run — flips, new and removed cases, and a regression only beyond noise."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest

from workbench.selection.baseline import Z_REGRESSION, compare, read_baseline, two_proportion_z
from workbench.selection.metrics import evaluate
from workbench.selection.model import DECLINED, ERROR, FALSE_CALL, HALLUCINATED, PASSED, WRONG_TOOL, ScalePoint
from workbench.selection.report import FORMATS, render, render_results, save_baseline, to_json
from workbench.spec import SpecError

SCHEMA = Path(__file__).resolve().parents[2] / "resources" / "schemas" / "selection-baseline.schema.json"
HOSTILE = '<script>alert("x")</script> & "quotes" \x00'


def _run(build, *, passing=("get", "add", "quiet"), repeats=1, toolset="a" * 64, model=None, extra=()):
    """Four cases: get_pet, add_pet, a none case and an all-of case, `passing` pass every run."""
    cases = [build.case("get", "get_pet", prompt="show me pet 7", line=3),
             build.case("add", "add_pet", line=7), build.case("quiet", line=11),
             build.all_of("both", "get_pet", "add_pet", line=15), *extra]
    wrong = {"get": (WRONG_TOOL, ("find_pets",)), "add": (DECLINED, ()), "quiet": (FALSE_CALL, ("get_pet",)),
             "both": (WRONG_TOOL, ("get_pet",))}
    right = {"get": ("get_pet",), "add": ("add_pet",), "quiet": (), "both": ("get_pet", "add_pet")}
    verdicts = []
    for case in cases:
        for i in range(repeats):
            if case.id in passing:
                verdicts.append(build.verdict(case.id, i, PASSED, right.get(case.id, ("get_pet",))))
            else:
                outcome, picked = wrong.get(case.id, (WRONG_TOOL, ("find_pets",)))
                verdicts.append(build.verdict(case.id, i, outcome, picked, detail={"rank": 2, "margin": -0.125}))
    return build.run(cases, verdicts, repeats=repeats, toolset=toolset, model=model)


def test_json_report_is_the_issue_shape_and_valid_against_its_schema(build):
    run = _run(build, repeats=3, extra=[build.case("odd", "get_pet")])
    out = json.loads(render(run, "json"))
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(out)
    assert {"summary", "cases", "confusion", "context", "scale"} <= set(out)
    assert out["summary"]["cases"] == 5 and out["summary"]["runs"] == 15
    assert out["summary"]["accuracy"] == pytest.approx(round(9 / 15, 4))  # both and odd fail
    assert set(out["summary"]["pass_k"]) == {"1", "2", "3"}
    assert out["cases"][3] == {**out["cases"][3], "id": "both", "expected": "add_pet + get_pet",
                               "selected": ["get_pet"] * 3, "passed": 0, "runs": 3}
    assert out["confusion"]["add_pet + get_pet"] == {"get_pet": 3}
    assert out["context"]["toolset_sha256"] == "a" * 64 and out["context"]["repeats"] == 3
    assert "baseline" not in out


def test_save_read_compare_round_trip(build, tmp_path):
    results = evaluate(_run(build, repeats=2))
    path = tmp_path / "base.json"
    save_baseline(results, path)
    comparison = compare(results, read_baseline(path), str(path))
    assert not comparison.regression and comparison.z == 0
    assert (comparison.worse, comparison.better, comparison.new_cases, comparison.removed_cases, comparison.notes) \
        == ([], [], [], [], [])
    with_baseline = json.loads(render_results(results, "json", comparison))
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(with_baseline)
    assert with_baseline["baseline"]["regression"] is False


def test_flips_new_and_removed_cases(build):
    before = to_json(evaluate(_run(build, passing=("get", "quiet"))))
    now = evaluate(_run(build, passing=("add", "quiet", "new"), extra=[build.case("new", "get_pet")]))
    before["cases"].append({"id": "gone", "expected": "get_pet", "selected": ["get_pet"], "passed": 1, "runs": 1})
    c = compare(now, before)
    assert [f.text() for f in c.worse] == ["get: 1/1 → 0/1"]
    assert [f.text() for f in c.better] == ["add: 0/1 → 1/1"]
    assert c.new_cases == ["new"] and c.removed_cases == ["gone"]
    assert c.broken == ["get"]  # one run each: passed → failed is a case that broke
    assert c.regression and "get passed every run" in c.reasons()[0]


def test_repeated_cases_compare_pass_rates_and_majority_rule(build):
    cases = [build.case(f"c{i}", "t") for i in range(3)]

    def run(passes):
        verdicts = [build.verdict(f"c{i}", s, PASSED if s < p else WRONG_TOOL, ("t",) if s < p else ("u",))
                    for i, p in enumerate(passes) for s in range(4)]
        return build.run(cases, verdicts, repeats=4)

    before = to_json(evaluate(run([4, 4, 1])))
    wobbled = compare(evaluate(run([2, 4, 3])), before)  # c0 4/4 → 2/4: half still pass, not the majority failing
    assert [f.text() for f in wobbled.worse] == ["c0: 4/4 → 2/4"] and [f.id for f in wobbled.better] == ["c2"]
    assert wobbled.broken == [] and not wobbled.regression
    broke = compare(evaluate(run([1, 4, 1])), before)  # 4/4 → 1/4
    assert broke.broken == ["c0"] and broke.regression and not broke.significant_drop


def test_regression_only_beyond_the_noise(build):
    def run(passed, n=40):
        cases = [build.case(f"c{i}", "t") for i in range(n)]
        return build.run(cases, [build.verdict(f"c{i}", 0, PASSED if i < passed else WRONG_TOOL,
                                               ("t",) if i < passed else ("u",)) for i in range(n)])

    before = to_json(evaluate(run(36)))
    small = compare(evaluate(run(34)), before)  # 90% → 85% on 40 cases: noise (z ≈ 0.68)
    assert small.z == pytest.approx(two_proportion_z(36, 40, 34, 40)) and 0 < small.z < Z_REGRESSION
    # the cases that flipped are listed, but each passed its one run before: the per-case rule fires, and only it
    assert small.broken == ["c34", "c35"] and not small.significant_drop
    big = compare(evaluate(run(24)), before)  # 90% → 60%: z ≈ 3.1
    assert big.significant_drop and big.z > 3 and "accuracy fell from 36/40 to 24/40" in big.reasons()[0]
    better = compare(evaluate(run(40)), before)
    assert better.z < 0 and not better.regression


def test_two_proportion_z_by_hand():
    # 45/50 vs 35/50: pooled 0.8, se = sqrt(.8*.2*(2/50)) = 0.08, z = 0.2 / 0.08 = 2.5
    assert two_proportion_z(45, 50, 35, 50) == pytest.approx(2.5)
    assert two_proportion_z(5, 5, 5, 5) is None and two_proportion_z(0, 0, 3, 4) is None


def test_shared_cases_only_so_adding_hard_cases_is_no_drop(build):
    before = to_json(evaluate(_run(build, passing=("get", "add", "quiet", "both"))))
    hard = [build.case(f"hard{i}", "get_pet") for i in range(20)]
    now = compare(evaluate(_run(build, passing=("get", "add", "quiet", "both"), extra=hard)), before)
    assert now.accuracy_now == pytest.approx(4 / 24) and now.shared_now == (4, 4)
    assert not now.regression and len(now.new_cases) == 20


def test_notes_when_the_model_or_tool_set_differs(build):
    before = to_json(evaluate(_run(build, model="small-1")))
    renamed = [build.case("get", "fetch_pet")]
    c = compare(evaluate(_run(build, model="large-2", toolset="f" * 64, extra=[])), before)
    assert any("model differs" in n and "small-1 → large-2" in n for n in c.notes)
    assert any("tool set differs" in n and "aaaaaaaaaaaa → ffffffffffff" in n for n in c.notes)
    before["cases"][0]["expected"] = "get_pet_by_id"
    c = compare(evaluate(build.run(renamed, [build.verdict("get", 0, PASSED, ("fetch_pet",))])), before)
    assert "get: expected get_pet_by_id in the baseline, now fetch_pet" in c.notes


@pytest.mark.parametrize("content, says", [
    (None, "cannot read the baseline"),
    (b"{not json", "not JSON"),
    (b"\xff\xfe\x00", "not UTF-8"),
    (json.dumps({"format": 1, "operations": []}).encode(), "not a selection baseline"),  # a round-trip baseline
    (json.dumps({"report": "selection", "format": 2, "cases": []}).encode(), "another format"),
    (json.dumps({"report": "selection", "format": 1, "cases": [{"id": "a", "passed": 3, "runs": 2}]}).encode(),
     "damaged"),
])
def test_unusable_baselines_are_one_line_errors(tmp_path, content, says):
    path = tmp_path / "base.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(SpecError) as caught:
        read_baseline(path)
    assert says in str(caught.value) and str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_save_baseline_into_a_missing_folder_is_one_line(build, tmp_path):
    with pytest.raises(SpecError, match="cannot save the baseline"):
        save_baseline(evaluate(_run(build)), tmp_path / "no" / "such" / "base.json")


def _scaled(build):
    """Two of four cases pass; the same verdicts stand for a 4-tool point, the first six for a 12-tool one."""
    run = _run(build, passing=("add", "quiet"), repeats=3)
    run.scale = [ScalePoint(4, tuple(run.verdicts)), ScalePoint(12, tuple(run.verdicts[:6]))]
    return run


def test_text_report(build):
    before = to_json(evaluate(_run(build, passing=("get", "add", "quiet"), repeats=3)))
    run = _scaled(build)
    text = render(run, "text", compare(evaluate(run), before, "base.json"))
    lines = text.splitlines()
    assert all(len(line) <= 100 for line in lines), max(lines, key=len)
    assert re.search(r"^accuracy 50\.0% \[\d+\.\d%, \d+\.\d%\] — 6 of 12 runs over 4 cases$", text, re.M)
    assert re.search(r"^pass\^k +k=1 50\.0% +k=2 50\.0% +k=3 50\.0%$", text, re.M)
    assert "none cases: 3 of 3 runs rightly declined, 0 called a tool" in text
    assert re.search(r"FAIL  get +0/3 +rank 2 +-0\.125 +get_pet → find_pets ×3$", text, re.M)
    assert "REGRESSION" in text and "worse  get: 3/3 → 0/3" in text
    assert re.search(r"^ +4 +50\.0% +\[", text, re.M) and re.search(r"^ +12 +", text, re.M)


def test_text_lists_the_worst_cases_first(build):
    cases = [build.case("wobbly", "t"), build.case("broken", "t"), build.case("fine", "t")]
    verdicts = [build.verdict(c.id, s, PASSED if (c.id, s) in {("wobbly", 0), ("wobbly", 1)} or c.id == "fine"
                              else WRONG_TOOL, ("t",)) for c in cases for s in range(3)]
    lines = render(build.run(cases, verdicts, repeats=3), "text").splitlines()
    failing = [line.split()[1] for line in lines if line.startswith(("  FAIL", "  FLAKY"))]
    assert failing == ["broken", "wobbly"]


def test_a_lone_surrogate_from_the_model_does_not_stop_the_report(build, tmp_path):
    run = build.run([build.case("a", "t")], [build.verdict("a", 0, HALLUCINATED, ("bad\ud800name",))])
    save_baseline(evaluate(run), tmp_path / "base.json")
    assert read_baseline(tmp_path / "base.json")["cases"][0]["selected"] == ["bad\ud800name"]
    for fmt in FORMATS:
        render(run, fmt).encode("utf-8")


def test_text_report_clips_long_names_to_100_columns(build):
    long = "x" * 150
    run = build.run([build.case(long, "t" * 90)], [build.verdict(long, 0, HALLUCINATED, ("q" * 120,))])
    assert all(len(line) <= 100 for line in render(run, "text").splitlines())


def test_junit(build):
    hostile = build.case("odd", "get_pet", prompt=HOSTILE)
    run = _run(build, passing=("add", "quiet", "both"), repeats=2, extra=[hostile, build.case("down", "add_pet")])
    run.verdicts = [v for v in run.verdicts if v.case_id != "down"] + [
        build.verdict("down", 0, ERROR, error="HTTP 503 after 3 tries"),
                     build.verdict("down", 1, ERROR, error="HTTP 503 after 3 tries")]
    suite = ET.fromstring(render(run, "junit")).find("testsuite")
    assert suite.get("tests") == "6" and suite.get("failures") == "2" and suite.get("errors") == "1"
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["toolset_sha256"] == "a" * 64 and props["api"] == "offline" and props["versions.python"] == "3.11"
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["get"].find("failure").get("message") == "expected get_pet → picked find_pets ×2 (0/2 passed)"
    assert cases["add"].find("failure") is None and cases["down"].find("error").get("message").startswith("HTTP 503")
    assert '<script>alert("x")</script>' in cases["odd"].find("failure").text  # escaped in the file, read back


class _Page(HTMLParser):
    """Collects tags, and the text of every <script> element."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)


def test_html_is_self_contained_and_escapes_the_suite(build):
    hostile = build.case('<img src=x onerror="alert(1)">', "get_pet", prompt=HOSTILE)
    run = _run(build, repeats=2, extra=[hostile])
    run.verdicts = [v for v in run.verdicts if v.case_id != hostile.id] + [
        build.verdict(hostile.id, 0, HALLUCINATED, ("<svg onload=alert(2)>",)),
        build.verdict(hostile.id, 1, PASSED, ("get_pet",))]
    page = render(run, "html", compare(evaluate(run), to_json(evaluate(_run(build, repeats=2)))))
    parser = _Page()
    parser.feed(page)
    assert [t for t, _ in parser.tags].count("script") == 1  # ours; the prompt's stayed text
    assert not any(t in ("img", "link", "iframe", "object") for t, _ in parser.tags)
    assert not any(k in ("src", "href", "onerror", "onload") for _, attrs in parser.tags for k in attrs)
    assert "alert(" not in "".join(parser.scripts)
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page and "&lt;svg onload=alert(2)&gt;" in page
    assert "\x00" not in page or "&lt;" in page  # NUL is harmless text in HTML, escaped markup is the point
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert re.findall(r"https?://[^\s\"']+", page) == ["http://www.w3.org/2000/svg"] * page.count("<svg")


def test_html_sections(build):
    before = to_json(evaluate(_run(build, passing=("get", "add", "quiet"), repeats=3)))
    run = _scaled(build)
    page = render(run, "html", compare(evaluate(run), before, "base.json"))
    parser = _Page()
    parser.feed(page)
    ids = {attrs.get("id") for _, attrs in parser.tags}
    assert {"summary", "confusion", "scale", "cases", "baseline", "verdict"} <= ids
    assert page.count('<circle class="dot"') == 2  # one point per scale size, with its error bar
    assert 'title="expected get_pet → picked find_pets: 3 of 3"' in page
    assert "Regression against the baseline" in page
    assert "--scale" not in page  # the hint shows only when nothing was measured
    assert "--scale 10,20,40,all" in render(_run(build), "html")


def test_every_format_renders_an_empty_run(build):
    run = build.run([], [])
    for fmt in FORMATS:
        assert render(run, fmt)
    with pytest.raises(ValueError, match="unknown report format"):
        render(run, "yaml")
