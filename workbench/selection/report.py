"""A selection run rendered four ways: text for a terminal, JSON (also the baseline file), JUnit for CI, and one
self-contained HTML file (a CI artefact a person opens: no external fetch, so it opens the same offline and
years later). Every string that came from the suite or the model is escaped: a prompt may hold markup."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from workbench.edit.save import write_atomically
from workbench.selection.baseline import BASELINE_FORMAT, REPORT_KIND, Comparison
from workbench.selection.metrics import (
    CaseResult,
    Results,
    ScaleResult,
    Summary,
    confusion_columns,
    confusion_rows,
    evaluate,
    right_pick,
)
from workbench.selection.model import SUITE_FORMAT, SelectionRun
from workbench.spec.errors import SpecError

FORMATS = ("text", "json", "junit", "html")
WIDTH = 100  # the text report's column limit


def render(run: SelectionRun, fmt: str, comparison: Comparison | None = None) -> str:
    return render_results(evaluate(run), fmt, comparison)


def render_results(results: Results, fmt: str, comparison: Comparison | None = None) -> str:
    renderers: dict[str, Callable[[Results, Comparison | None], str]] = {
        "text": to_text, "json": lambda r, c: json.dumps(to_json(r, c), indent=1, ensure_ascii=False) + "\n",
        "junit": to_junit, "html": to_html}
    if fmt not in renderers:
        raise ValueError(f"unknown report format {fmt!r} (one of {', '.join(FORMATS)})")
    # A model can send a lone surrogate (`"\\ud800"` in a tool name): written as that escape it stays valid
    # JSON and readable text, where UTF-8 would refuse to encode the report at all.
    return renderers[fmt](results, comparison).encode("utf-8", "backslashreplace").decode("utf-8")


def save_baseline(results: Results, path: Path, comparison: Comparison | None = None) -> None:
    """The JSON report, written atomically: a later run compares against it."""
    try:
        write_atomically(path, render_results(results, "json", comparison))
    except OSError as exc:
        raise SpecError(f"cannot save the baseline: {exc.strerror or exc}", str(path)) from None


# JSON ------------------------------------------------------------------------------------------------------


def to_json(results: Results, comparison: Comparison | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"report": REPORT_KIND, "format": BASELINE_FORMAT, "suite_format": SUITE_FORMAT,
                           "summary": results.summary.to_json(), "cases": [c.to_json() for c in results.cases],
                           "confusion": results.confusion, "context": results.context,
                           "scale": [p.to_json() for p in results.scale]}
    if comparison is not None:
        out["baseline"] = comparison.to_json()
    return out


# text ------------------------------------------------------------------------------------------------------


def to_text(results: Results, comparison: Comparison | None = None) -> str:
    lines = [*_text_head(results), *_text_summary(results.summary), *_text_failures(results.cases)]
    if comparison is not None:
        lines.extend(_text_comparison(comparison))
    if results.scale:
        lines.extend(_text_scale(results.scale))
    return "\n".join(_fit(line) for line in lines) + "\n"


def _text_head(results: Results) -> list[str]:
    c = results.context
    model = f" {c['model']}" if c.get("model") else " scorer (no model)"
    return [f"selection: {Path(c['suite']).name} — {c['api']}{model}, {c['repeats']} "
            f"repeat{'s' if c['repeats'] != 1 else ''}",
            f"tool set: {c['tool_count']} {c['vendor']} tools, sha256 {c['toolset_sha256'][:16]}"]


def _text_summary(s: Summary) -> list[str]:
    lo, hi = s.accuracy_ci
    lines = [f"accuracy {_pct(s.accuracy)} [{_pct(lo)}, {_pct(hi)}] — {s.passed} of {s.runs} runs over {s.cases} "
             f"cases" + (f"; {s.errors} errors not counted" if s.errors else "")
             + ("; CANCELLED" if s.cancelled else "")]
    if len(s.pass_k) > 1:
        lines.append("pass^k   " + "  ".join(f"k={k} {_pct(v)}" for k, v in s.pass_k.items()))
    lines.append(f"calls expected: {s.declined} of {s.no_call_runs} runs declined (no-call rate "
                 f"{_pct(s.no_call_rate)})")
    if s.none_runs:
        lines.append(f"none cases: {s.none_declined} of {s.none_runs} runs rightly declined, {s.none_called} "
                     f"called a tool (false-call rate {_pct(s.false_call_rate)})")
    extra = [f"malformed {s.malformed}", f"hallucinated {s.hallucinated}"]
    if s.f1_runs:
        extra.append(f"F1 (all-of) {s.f1_mean:.2f}")
    lines.append(" · ".join(extra))
    arguments = []  # apart from selection: a right pick with arguments the spec refuses is still a right pick
    if s.arguments_valid_runs:
        arguments.append(f"valid {_pct(s.arguments_valid_rate)} of {s.arguments_valid_runs} calls")
    if s.arguments_match_runs:
        arguments.append(f"expected values matched {_pct(s.arguments_match_rate)} of {s.arguments_match_runs}")
    if arguments:
        lines.append("arguments: " + " · ".join(arguments))
    lines.extend(_text_usage(s))
    return lines


def _text_usage(s: Summary) -> list[str]:
    u = s.usage
    if not (s.requests_sent or s.cache_hits or u.input_tokens or u.output_tokens):
        return []  # the offline scorer: no model, nothing sent, nothing to count
    parts = [f"tokens {u.input_tokens:,} in / {u.output_tokens:,} out"]
    if u.cost is not None:
        parts.append(f"cost ${u.cost:.4f}")
    parts.append(f"{s.requests_sent} requests sent, {s.cache_hits} from the cache")
    lines = [" · ".join(parts)]
    if u.latency_mean is not None:
        lines.append(f"latency mean {u.latency_mean:.2f}s · p50 {u.latency_p50:.2f}s · p95 {u.latency_p95:.2f}s")
    return lines


def _text_failures(cases: list[CaseResult]) -> list[str]:
    """Worst first; the picks come last on the line, so a long list is what the 100 columns cut."""
    failing = sorted((c for c in cases if c.failed or (c.errors and not c.runs)),
                     key=lambda c: c.pass_rate if c.pass_rate is not None else -1)
    if not failing:
        return [f"all {len(cases)} cases passed every run"] if cases else ["no cases"]
    width = min(28, max(len(c.id) for c in failing))
    offline = any(c.rank is not None for c in failing)
    lines = [f"failing cases ({len(failing)} of {len(cases)}), worst first"
             + (" (rank and margin of the right tool)" if offline else "") + ":"]
    for c in failing:
        mark = "FLAKY" if c.flaky else "ERROR" if not c.runs else "FAIL "
        where = ""
        if offline:
            where = f"  rank {c.rank:<2} {c.margin:+.3f}" if c.rank is not None and c.margin is not None else " " * 16
        lines.append(f"  {mark} {_clip(c.id, width):{width}} {c.passed}/{c.runs}{where}  {_clip(c.expected, 30)} → "
                     f"{picks_text(c)}")
    return lines


def picks_text(case: CaseResult) -> str:
    """`a ×2, none ×1` (most picked first), `error ×n` for samples with no answer."""
    parts = [f"{label} ×{n}" for label, n in case.picks().most_common()]
    if case.errors:
        parts.append(f"error ×{case.errors}")
    return ", ".join(parts) or "-"


def _text_comparison(c: Comparison) -> list[str]:
    verdict = "REGRESSION" if c.regression else "no regression"  # first: a long file name is what is cut
    lines = [f"{verdict} against {Path(c.source).name}: accuracy {_pct(c.accuracy_before)} → {_pct(c.accuracy_now)}"
             + (f" (z {c.z:+.2f} on shared cases)" if c.z is not None else "")]
    lines.extend(f"  ! {reason}" for reason in c.reasons())
    lines.extend(f"  worse  {f.text()}" for f in c.worse)
    lines.extend(f"  better {f.text()}" for f in c.better)
    if c.new_cases:
        lines.append(f"  new cases: {', '.join(c.new_cases)}")
    if c.removed_cases:
        lines.append(f"  removed cases: {', '.join(c.removed_cases)}")
    lines.extend(f"  note: {note}" for note in c.notes)
    return lines


def _text_scale(points: list[ScaleResult]) -> list[str]:
    lines = ["accuracy against tool count:", "  tools  accuracy  95% interval      runs"]
    for p in points:
        lo, hi = p.ci
        lines.append(f"  {p.size:5}  {_pct(p.accuracy):>8}  [{_pct(lo)}, {_pct(hi)}]  {p.runs:>8}")
    return lines


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _fit(line: str) -> str:
    return _clip(line, WIDTH)


# JUnit -----------------------------------------------------------------------------------------------------


def to_junit(results: Results, comparison: Comparison | None = None) -> str:
    """One testcase per case: a failure when a judged run failed (expected → picked over the runs), an error
    when no run had an answer; the run context as testsuite properties."""
    cases = [_junit_case(c) for c in results.cases]
    failures = sum(1 for c in results.cases if c.failed)
    errors = sum(1 for c in results.cases if not c.runs and c.errors)
    if comparison is not None and comparison.regression:
        text = _xml("\n".join(comparison.reasons()))
        cases.append(f'    <testcase classname="selection.baseline" name="regression">'
                     f'<failure type="regression" message={quoteattr(_xml(comparison.reasons()[0]))}>{text}'
                     f"</failure></testcase>")
        failures += 1
    props = "\n".join(f"      <property name={quoteattr(k)} value={quoteattr(_xml(str(v)))}/>"
                      for k, v in _properties(results))
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="selection" '
            f'tests="{len(cases)}" failures="{failures}" errors="{errors}">\n    <properties>\n{props}\n'
            f"    </properties>\n" + "\n".join(cases) + "\n  </testsuite>\n</testsuites>\n")


def _junit_case(c: CaseResult) -> str:
    head = f"    <testcase classname=\"selection\" name={quoteattr(_xml(c.id))}>"
    if c.failed:
        message = f"expected {c.expected} → picked {picks_text(c)} ({c.passed}/{c.runs} passed)"
        body = "\n".join([f"prompt: {c.prompt}", *c.problems])
        return (f"{head}<failure type={quoteattr('flaky' if c.flaky else 'wrong selection')} "
                f"message={quoteattr(_xml(message[:500]))}>{escape(_xml(body))}</failure></testcase>")
    if not c.runs and c.errors:
        message = c.problems[0] if c.problems else "no usable answer"
        return f"{head}<error message={quoteattr(_xml(message[:500]))}/></testcase>"
    return f"{head}</testcase>"


def _properties(results: Results) -> list[tuple[str, Any]]:
    ctx = results.context
    props: list[tuple[str, Any]] = [(k, ctx[k]) for k in ("suite", "spec", "api", "model", "vendor", "tool_count",
                                                          "toolset_sha256", "suite_sha256", "spec_sha256",
                                                          "repeats", "started") if ctx.get(k) is not None]
    props += [(f"settings.{k}", v) for k, v in ctx.get("settings", {}).items() if v is not None]
    props += [(f"versions.{k}", v) for k, v in ctx.get("versions", {}).items()]
    s = results.summary
    props += [("accuracy", s.accuracy), ("accuracy_ci", f"{s.accuracy_ci[0]:.4f} {s.accuracy_ci[1]:.4f}")]
    return props


def _xml(text: str) -> str:
    """Drop the characters XML 1.0 cannot carry at all (escaping does not help a NUL)."""
    return "".join(ch for ch in text if ch in "\t\n\r" or (0x20 <= ord(ch) < 0xD800 or 0xE000 <= ord(ch) < 0xFFFE
                                                            or ord(ch) > 0xFFFF))


# HTML ------------------------------------------------------------------------------------------------------

# No external fetch: the page's own policy forbids one, so a report that tried would show it at once.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
_CSS = """
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --card: #f6f8fa;
  --line: #d1d9e0; --ok: 26, 127, 55; --bad: 207, 34, 46; --warn: #9a6700; --accent: #0969da; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --card: #151b23; --line: #3d444d;
    --ok: 63, 185, 80; --bad: 248, 81, 73; --warn: #d29922; --accent: #4493f8; } }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 32px 0 10px; }
.muted, .sub { color: var(--muted); } code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace;
  font-size: 12.5px; }
details { margin-top: 8px; } summary { cursor: pointer; color: var(--muted); }
dl.ctx { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0 0; }
dl.ctx dt { color: var(--muted); } dl.ctx dd { margin: 0; overflow-wrap: anywhere; }
.banner { margin: 16px 0 0; padding: 10px 14px; border-radius: 6px; border: 1px solid var(--line); }
.banner.bad { border-color: rgb(var(--bad)); background: rgba(var(--bad), .12); }
.banner.ok { border-color: rgb(var(--ok)); background: rgba(var(--ok), .10); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 12px; margin-top: 20px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
.card .k { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .v { font-size: 24px; font-weight: 600; margin: 2px 0; font-variant-numeric: tabular-nums; }
.card .sub { font-size: 12px; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
table.grid th, table.grid td { border-bottom: 1px solid var(--line); padding: 5px 8px; text-align: left;
  vertical-align: top; }
table.grid th { position: sticky; top: 0; background: var(--bg); }
table.sortable th { cursor: pointer; user-select: none; white-space: nowrap; }
table.sortable th[data-dir="asc"]::after { content: " ▲"; } table.sortable th[data-dir="desc"]::after { content: " ▼"; }
td.num, th.num { text-align: right; }
tr.fail td:first-child { box-shadow: inset 3px 0 rgb(var(--bad)); }
tr.flaky td:first-child { box-shadow: inset 3px 0 var(--warn); }
tr.error td:first-child { box-shadow: inset 3px 0 var(--muted); }
.tag { display: inline-block; padding: 0 6px; border-radius: 10px; font-size: 12px; border: 1px solid var(--line); }
.tag.pass { color: rgb(var(--ok)); border-color: rgb(var(--ok)); }
.tag.fail { color: rgb(var(--bad)); border-color: rgb(var(--bad)); }
.tag.flaky { color: var(--warn); border-color: var(--warn); }
#cases { width: 100%; }
#cases td.id { white-space: nowrap; max-width: 240px; overflow: hidden; text-overflow: ellipsis; }
#cases td.expected { max-width: 240px; overflow-wrap: anywhere; }
#cases td.picked { max-width: 320px; overflow-wrap: anywhere; }
#cases td.prompt { min-width: 240px; max-width: 460px; color: var(--muted); }
body.failing-only #cases tr.pass { display: none; }
.pick.bad { color: rgb(var(--bad)); }
table.heatmap { font-size: 12px; }
table.heatmap td { width: 25px; min-width: 25px; height: 22px; padding: 0; text-align: center;
  border: 1px solid var(--line); }
table.heatmap th.row { text-align: right; padding: 0 8px; white-space: nowrap; max-width: 230px; overflow: hidden;
  text-overflow: ellipsis; font-weight: 500; }
table.heatmap th.col { vertical-align: bottom; padding: 4px 0; font-weight: 500; }
table.heatmap th.col span { display: inline-block; writing-mode: vertical-rl; transform: rotate(180deg);
  white-space: nowrap; max-height: 190px; overflow: hidden; text-overflow: ellipsis; }
table.heatmap th.col.unknown span { color: rgb(var(--bad)); font-style: italic; }
table.heatmap th.total, table.heatmap td.total { color: var(--muted); border: none; }
table.heatmap td.ok { background: rgba(var(--ok), var(--a)); }
table.heatmap td.bad { background: rgba(var(--bad), var(--a)); }
table.heatmap td.strong { color: #fff; font-weight: 600; }
.legend { font-size: 12px; color: var(--muted); margin-top: 6px; }
.legend i { display: inline-block; width: 12px; height: 12px; vertical-align: -2px; margin: 0 4px 0 10px; }
svg.chart { max-width: 720px; width: 100%; height: auto; color: var(--fg); }
svg.chart .grid { stroke: var(--line); } svg.chart .axis { fill: var(--muted); font-size: 11px; }
svg.chart .line { stroke: var(--accent); fill: none; stroke-width: 2; }
svg.chart .bar { stroke: var(--fg); stroke-width: 1.5; } svg.chart .dot { fill: var(--accent); }
svg.chart .val { fill: var(--fg); font-size: 11px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
"""
_JS = """
(function () {
  function key(cell) { var v = cell.getAttribute('data-v'); return v === null ? cell.textContent.trim() : v; }
  function sortBy(table, index, asc) {
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[index]), y = key(b.cells[index]), nx = parseFloat(x), ny = parseFloat(y);
      var r = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
      return asc ? r : -r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (i === index) { th.setAttribute('data-dir', asc ? 'asc' : 'desc'); } else { th.removeAttribute('data-dir'); }
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.addEventListener('click', function () { sortBy(table, i, th.getAttribute('data-dir') !== 'asc'); });
    });
    var first = table.getAttribute('data-sort');
    if (first !== null) { sortBy(table, parseInt(first, 10), true); }
  });
  var only = document.getElementById('failing-only');
  if (only) { only.addEventListener('change', function () {
    document.body.classList.toggle('failing-only', only.checked); }); }
  document.documentElement.setAttribute('data-ready', 'yes');
})();
"""


def to_html(results: Results, comparison: Comparison | None = None) -> str:
    ctx = results.context
    title = f"Tool selection: {Path(ctx['suite']).name}"
    sections = [_html_header(results, comparison, title), _html_cards(results.summary), _html_confusion(results),
                _html_scale(results.scale), _html_cases(results.cases)]
    if comparison is not None:
        sections.append(_html_baseline(comparison))
    footer = (f"<footer>workbench {_h(ctx.get('versions', {}).get('workbench', ''))} · "
              f"report format {BASELINE_FORMAT} · started {_h(ctx.get('started', ''))}</footer>")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{_h(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            + "\n".join(sections) + f"\n{footer}\n<script>{_JS}</script>\n</body>\n</html>\n")


def _h(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _html_header(results: Results, comparison: Comparison | None, title: str) -> str:
    ctx = results.context
    repeats = f"{ctx['repeats']} repeat{'s' if ctx['repeats'] != 1 else ''}"
    line = " · ".join(_h(x) for x in (ctx["api"], ctx.get("model") or "no model", f"{ctx['vendor']} tools",
                                      f"{ctx['tool_count']} tools", repeats, ctx["started"]))
    rows = [("suite", ctx["suite"]), ("spec", ctx["spec"]), ("tool set", ctx["toolset_sha256"]),
            ("suite file", ctx["suite_sha256"]), ("spec file", ctx["spec_sha256"]),
            *((f"setting {k}", v) for k, v in ctx.get("settings", {}).items() if v is not None),
            *((f"{k} version", v) for k, v in ctx.get("versions", {}).items())]
    details = "".join(f"<dt>{_h(k)}</dt><dd class=\"mono\">{_h(v)}</dd>" for k, v in rows)
    banner = ""
    if comparison is not None:
        kind, words = ("bad", "Regression against the baseline") if comparison.regression else (
            "ok", "No regression against the baseline")
        reasons = "".join(f"<br>{_h(r)}" for r in comparison.reasons())
        banner = f"<div class=\"banner {kind}\" id=\"verdict\"><strong>{words}</strong> ({_h(comparison.source)})" \
                 f"{reasons}</div>"
    cancelled = "<div class=\"banner bad\">The run was cancelled: the figures cover what it took.</div>" \
        if results.summary.cancelled else ""
    return (f"<header><h1>{_h(title)}</h1><div class=\"muted\">{line}</div>"
            f"<details><summary>Run context</summary><dl class=\"ctx\">{details}</dl></details>"
            f"{banner}{cancelled}</header>")


def _card(key: str, value: str, sub: str = "") -> str:
    return (f"<div class=\"card\"><div class=\"k\">{_h(key)}</div><div class=\"v\">{_h(value)}</div>"
            f"<div class=\"sub\">{_h(sub)}</div></div>")


def _html_cards(s: Summary) -> str:
    lo, hi = s.accuracy_ci
    last_k = list(s.pass_k)[-1]
    cards = [_card("Top-1 accuracy", _pct(s.accuracy), f"95% CI {_pct(lo)} – {_pct(hi)} · {s.passed} of {s.runs} runs"),
             _card(f"pass^{last_k}", _pct(s.pass_k[last_k]),
                   " · ".join(f"k={k} {_pct(v)}" for k, v in s.pass_k.items())),
             _card("No-call rate", _pct(s.no_call_rate), f"{s.declined} of {s.no_call_runs} runs that needed a call"),
             _card("False-call rate", _pct(s.false_call_rate),
                   f"none cases: {s.none_declined} declined, {s.none_called} called"),
             _card("Malformed · invented", f"{s.malformed} · {s.hallucinated}", "unreadable calls · unknown tools")]
    if s.f1_runs:
        cards.append(_card("F1 (all-of cases)", f"{s.f1_mean:.2f}", f"over {s.f1_runs} runs"))
    if s.arguments_valid_runs:
        match = f" · expected values {_pct(s.arguments_match_rate)}" if s.arguments_match_runs else ""
        cards.append(_card("Arguments valid", _pct(s.arguments_valid_rate),
                           f"of {s.arguments_valid_runs} calls to known tools{match}"))
    u = s.usage
    if not (s.requests_sent or s.cache_hits or u.input_tokens or u.output_tokens):
        return f"<section class=\"cards\" id=\"summary\">{''.join(cards)}</section>"  # offline: nothing was sent
    cards.append(_card("Tokens", f"{u.input_tokens + u.output_tokens:,}",
                       f"{u.input_tokens:,} in · {u.output_tokens:,} out"
                       + (f" · ${u.cost:.4f}" if u.cost is not None else "")))
    if u.latency_mean is not None:
        cards.append(_card("Latency p50", f"{u.latency_p50:.2f}s",
                           f"mean {u.latency_mean:.2f}s · p95 {u.latency_p95:.2f}s"))
    cards.append(_card("Requests", str(s.requests_sent), f"{s.cache_hits} from the cache · {s.errors} errors"))
    return f"<section class=\"cards\" id=\"summary\">{''.join(cards)}</section>"


def _html_confusion(results: Results) -> str:
    matrix = results.confusion
    head = "<section id=\"confusion\"><h2>Confusion: expected → picked</h2>"
    if not matrix:
        return head + "<p class=\"muted\">No judged runs.</p></section>"
    rows = confusion_rows(matrix)
    columns = confusion_columns(matrix, rows)
    invented = {label for c in results.cases for label, o in zip(c.selected, c.outcomes, strict=False)
                if o == "hallucinated"}
    ths = "".join(f"<th class=\"col{' unknown' if col in invented else ''}\" title=\"{_h(col)}"
                  f"{' (not a tool of the set)' if col in invented else ''}\"><span>{_h(_clip(col, 28))}</span></th>"
                  for col in columns)
    body = "".join(_heat_row(expected, matrix[expected], columns) for expected in rows)
    legend = ("<div class=\"legend\">Shade: share of the row's runs.<i style=\"background:rgba(var(--ok),.8)\"></i>"
              "right tool<i style=\"background:rgba(var(--bad),.8)\"></i>another pick · columns in "
              "<em>italics</em> are names that are not in the tool set</div>")
    return (f"{head}<div class=\"scroll\"><table class=\"heatmap\"><thead><tr><th class=\"row\">expected \\ picked"
            f"</th>{ths}<th class=\"total\">runs</th></tr></thead><tbody>{body}</tbody></table></div>"
            f"{legend}</section>")


def _heat_row(expected: str, row: dict[str, int], columns: list[str]) -> str:
    total = sum(row.values())
    cells = []
    for col in columns:
        n = row.get(col, 0)
        if not n:
            cells.append("<td></td>")
            continue
        share = n / total
        kind = "ok" if right_pick(expected, col) else "bad"
        strong = " strong" if share >= 0.5 else ""
        cells.append(f"<td class=\"{kind}{strong}\" style=\"--a:{0.15 + 0.8 * share:.2f}\" "
                     f"title=\"expected {_h(expected)} → picked {_h(col)}: {n} of {total}\">{n}</td>")
    return (f"<tr><th class=\"row\" title=\"{_h(expected)}\">{_h(_clip(expected, 40))}</th>{''.join(cells)}"
            f"<td class=\"total num\">{total}</td></tr>")


def _html_scale(points: list[ScaleResult]) -> str:
    head = "<section id=\"scale\"><h2>Accuracy against tool count</h2>"
    if not points:
        return (head + "<p class=\"muted\">Not measured in this run: <code>--scale 10,20,40,all</code> runs the "
                "suite with the expected tools plus the most similar others.</p></section>")
    rows = "".join(f"<tr><td class=\"num\">{p.size}</td><td class=\"num\">{_pct(p.accuracy)}</td>"
                   f"<td class=\"num\">{_pct(p.ci[0])} – {_pct(p.ci[1])}</td><td class=\"num\">{p.runs}</td></tr>"
                   for p in points)
    table = ("<table class=\"grid\"><thead><tr><th class=\"num\">tools</th><th class=\"num\">accuracy</th>"
             f"<th class=\"num\">95% CI</th><th class=\"num\">runs</th></tr></thead><tbody>{rows}</tbody></table>")
    return f"{head}{_svg_scale(points)}{table}</section>"


def _svg_scale(points: list[ScaleResult]) -> str:
    width, height, left, right, top, bottom = 640, 260, 52, 16, 16, 44
    step = (width - left - right) / len(points)

    def x(i: int) -> float:
        return left + (i + 0.5) * step

    def y(v: float) -> float:
        return top + (1 - v) * (height - top - bottom)

    parts = [f"<line class=\"grid\" x1=\"{left}\" x2=\"{width - right}\" y1=\"{y(t):.1f}\" y2=\"{y(t):.1f}\"/>"
             f"<text class=\"axis\" x=\"{left - 6}\" y=\"{y(t) + 4:.1f}\" text-anchor=\"end\">{int(t * 100)}%</text>"
             for t in (0, 0.25, 0.5, 0.75, 1)]
    measured = [(i, p) for i, p in enumerate(points) if p.accuracy is not None]
    if len(measured) > 1:
        path = " ".join(f"{x(i):.1f},{y(p.accuracy):.1f}" for i, p in measured)
        parts.append(f"<polyline class=\"line\" points=\"{path}\"/>")
    for i, p in enumerate(points):
        parts.append(f"<text class=\"axis\" x=\"{x(i):.1f}\" y=\"{height - bottom + 16}\" text-anchor=\"middle\">"
                     f"{p.size}</text>")
        if p.accuracy is None:
            continue
        lo, hi = p.ci
        parts.append(f"<g class=\"point\"><title>{p.size} tools: {_pct(p.accuracy)} (95% CI {_pct(lo)} – "
                     f"{_pct(hi)}) over {p.runs} runs</title>"
                     f"<line class=\"bar\" x1=\"{x(i):.1f}\" x2=\"{x(i):.1f}\" y1=\"{y(lo):.1f}\" y2=\"{y(hi):.1f}\"/>"
                     f"<line class=\"bar\" x1=\"{x(i) - 5:.1f}\" x2=\"{x(i) + 5:.1f}\" y1=\"{y(lo):.1f}\" "
                     f"y2=\"{y(lo):.1f}\"/><line class=\"bar\" x1=\"{x(i) - 5:.1f}\" x2=\"{x(i) + 5:.1f}\" "
                     f"y1=\"{y(hi):.1f}\" y2=\"{y(hi):.1f}\"/>"
                     f"<circle class=\"dot\" cx=\"{x(i):.1f}\" cy=\"{y(p.accuracy):.1f}\" r=\"4.5\"/>"
                     f"<text class=\"val\" x=\"{x(i) + 9:.1f}\" y=\"{y(p.accuracy) - 6:.1f}\">{_pct(p.accuracy)}</text>"
                     "</g>")
    parts.append(f"<text class=\"axis\" x=\"{(left + width - right) / 2:.0f}\" y=\"{height - 6}\" "
                 "text-anchor=\"middle\">tools offered (the expected ones plus the most similar others)</text>")
    return (f"<svg class=\"chart\" role=\"img\" aria-label=\"accuracy against tool count\" viewBox=\"0 0 {width} "
            f"{height}\" xmlns=\"http://www.w3.org/2000/svg\">{''.join(parts)}</svg>")


def _case_state(c: CaseResult) -> str:
    if not c.runs:
        return "error"
    return "pass" if not c.failed else "flaky" if c.flaky else "fail"


def _html_cases(cases: list[CaseResult]) -> str:
    head = ("<section><h2>Cases</h2><label class=\"muted\"><input type=\"checkbox\" id=\"failing-only\"> "
            "failing and flaky only</label>")
    columns = ["case", "expected", "picked", "passed", "result", "rank", "margin", "prompt"]
    ths = "".join(f"<th{' class=num' if c in ('passed', 'rank', 'margin') else ''}>{c}</th>" for c in columns)
    rows = "".join(_html_case_row(c) for c in cases)
    return (f"{head}<div class=\"scroll\"><table class=\"grid sortable\" id=\"cases\" data-sort=\"3\"><thead><tr>"
            f"{ths}</tr></thead><tbody>{rows}</tbody></table></div></section>")


def _html_case_row(c: CaseResult) -> str:
    state = _case_state(c)
    share = c.pass_rate if c.pass_rate is not None else -1
    rank = "" if c.rank is None else str(c.rank)
    margin = "" if c.margin is None else f"{c.margin:+.3f}"
    problems = f"<div class=\"sub\">{'<br>'.join(_h(p) for p in c.problems)}</div>" if c.problems else ""
    where = f" (line {c.line})" if c.line else ""
    return (f"<tr class=\"{state}\"><td class=\"mono id\" title=\"{_h(c.id)}{where}\">{_h(c.id)}</td>"
            f"<td class=\"mono expected\">{_breakable(c.expected)}</td>"
            f"<td class=\"mono picked\">{_html_picks(c)}{problems}</td>"
            f"<td class=\"num\" data-v=\"{share:.4f}\">{c.passed}/{c.runs}</td>"
            f"<td><span class=\"tag {state}\">{state}</span></td>"
            f"<td class=\"num\" data-v=\"{rank or 9999}\">{rank}</td>"
            f"<td class=\"num\" data-v=\"{c.margin if c.margin is not None else 9999}\">{margin}</td>"
            f"<td class=\"prompt\" title=\"{_h(c.prompt)}\">{_h(_clip(c.prompt, 160))}</td></tr>")


def _html_picks(c: CaseResult) -> str:
    picks = [f"<span class=\"pick {'ok' if right_pick(c.expected, label) else 'bad'}\">{_breakable(label)} ×{n}</span>"
             for label, n in c.picks().most_common()]
    if c.errors:
        picks.append(f"<span class=\"pick\">error ×{c.errors}</span>")
    return "<br>".join(picks)


def _breakable(text: str) -> str:
    """Escaped, with a line-break opportunity after each `_`, `/`, `.` and `-`: long tool names wrap at their
    parts instead of mid-word."""
    return re.sub(r"([_/.\-])", r"\1<wbr>", _h(text))


def _html_baseline(c: Comparison) -> str:
    def flips(title: str, items: list) -> str:
        if not items:
            return ""
        rows = "".join(f"<tr><td class=\"mono\">{_h(f.id)}</td><td class=\"num\">{f.before[0]}/{f.before[1]}</td>"
                       f"<td class=\"num\">{f.now[0]}/{f.now[1]}</td></tr>" for f in items)
        return (f"<h3>{title}</h3><table class=\"grid\"><thead><tr><th>case</th><th class=\"num\">baseline</th>"
                f"<th class=\"num\">now</th></tr></thead><tbody>{rows}</tbody></table>")

    def listed(title: str, items: list[str]) -> str:
        return f"<p><strong>{title}:</strong> {_h(', '.join(items))}</p>" if items else ""

    z = f", z = {c.z:+.2f} on the shared cases" if c.z is not None else ""
    notes = "".join(f"<li>{_h(n)}</li>" for n in c.notes)
    return (f"<section id=\"baseline\"><h2>Against the baseline</h2><p>{_h(c.source)}: accuracy "
            f"{_pct(c.accuracy_before)} → {_pct(c.accuracy_now)}{z}.</p>"
            + flips("Worse (passed → failed)", c.worse) + flips("Better (failed → passed)", c.better)
            + listed("Always passed, now failing most runs", c.broken) + listed("New cases", c.new_cases)
            + listed("Removed cases", c.removed_cases) + (f"<ul class=\"muted\">{notes}</ul>" if notes else "")
            + "</section>")
