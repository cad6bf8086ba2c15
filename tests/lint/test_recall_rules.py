"""The problems reviewers found by reading that the lint missed, each rule shown firing and staying quiet on
snippets adapted from real specs (OpenAI, Kubernetes, Twilio, the Swagger petstore, PagerDuty, Box)."""

from __future__ import annotations

import pytest

from tests.catalogue import HEAD, body, op, rules_at
from tests.catalogue import findings as run
from workbench.lint import lint
from workbench.lint.rules.prose import format_contradiction, prose_bounds
from workbench.policy import APPROVAL_MARKER
from workbench.spec import load_spec


def query(name: str, schema: str, text: str) -> str:
    return f"      parameters: [{{name: {name}, in: query, schema: {schema}, description: \"{text}\"}}]\n"


# -- bounds-in-prose ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("A limit on the number of objects to be returned. Limit can range between 1 and 100.", "between 1 and 100"),
    ("Number of port to expose on the pod's IP address. This must be a valid port number, 0 < x < 65536.",
     "< 65536"),
    ("Maximum of 100 results per page.", "Maximum of 100"),
    ("The number of items, <= 1000.", "<= 1000"),
])
def test_prose_bounds_are_read(text, words):
    assert words in [w.rstrip(",.") for _, w in prose_bounds(text)]


@pytest.mark.parametrize("text", [
    "Limit can range BETWEEN 1 and 100, at MOST 50 <= 60 ≤ 70 < 80 >= 1 ≥ 2 => 3 =< 4.",
    "MAXIMUM of 100, Min: 2, no fewer than 3, NOT BE LESS THAN 4, cannot exceed 5, up to 6, limited to 7.",
    "At moſt 10 and at leaſt 2 (not ASCII: every pattern that ignores case runs)", "No bounds at all: 12.", "",
])
def test_prose_bounds_run_only_the_patterns_whose_words_are_there(monkeypatch, text):
    from workbench.lint.rules import prose

    guarded = prose_bounds(text)
    monkeypatch.setattr(prose, "_BOUNDS", tuple((pattern, kind, ("",), False) for pattern, kind, _, _ in prose._BOUNDS))
    assert prose_bounds(text) == guarded


def test_bounds_in_prose_fires_without_minimum_or_maximum(write):
    # OpenAI: `limit` "can range between 1 and 100, and the default is 20", typed integer without bounds.
    text = "A limit on the number of objects to be returned. Limit can range between 1 and 100."
    assert rules_at(run(write, op("/things", extra=query("limit", "{type: integer}", text))), "bounds-in-prose") == [
        "/paths/~1things/get/parameters/0"]
    declared = query("limit", "{type: integer, minimum: 1, maximum: 100}", text)
    assert rules_at(run(write, op("/things", extra=declared)), "bounds-in-prose") == []


def test_bounds_in_prose_on_strings_counts_characters_only(write):
    # Twilio Verify: "Identity … between 8 and 64 characters"; a string "up to 3 retries" is about something else.
    length = query("Identity", "{type: string}", "The identity, between 8 and 64 characters long.")
    assert rules_at(run(write, op("/things", extra=length)), "bounds-in-prose") == ["/paths/~1things/get/parameters/0"]
    other = query("mode", "{type: string}", "How to retry: up to 3 retries a minute.")
    assert rules_at(run(write, op("/things", extra=other)), "bounds-in-prose") == []
    plain = query("note", "{type: string}", "A free-text note for the courier, printed on the label.")
    assert rules_at(run(write, op("/things", extra=plain)), "bounds-in-prose") == []


# -- format-contradicts-prose --------------------------------------------------------------------------------

@pytest.mark.parametrize("schema, text, contradicts", [
    ({"type": "string", "format": "date-time"}, "The start date, in YYYY-MM-DD format.", True),
    ({"type": "string", "format": "date-time"}, "When it starts, as YYYY-MM-DDThh:mm:ssZ.", False),
    ({"type": "string", "format": "date"}, "The date-time the booking starts (RFC 3339).", True),
    ({"type": "string", "format": "date"}, "The day of the booking, YYYY-MM-DD.", False),
    ({"type": "integer"}, "The start, an ISO 8601 date.", True),
    ({"type": "integer"}, "Seconds since the Unix epoch.", False),
    ({"type": "string"}, "The number of seats to book.", True),
    ({"type": "string"}, "The seat label printed on the ticket.", False),
])
def test_format_contradictions(schema, text, contradicts):
    assert (format_contradiction(schema, text) is not None) is contradicts


def test_format_contradicts_prose_fires_on_a_parameter(write):
    param = query("since", "{type: string, format: date-time}", "Only items changed since this day, YYYY-MM-DD.")
    assert rules_at(run(write, op("/things", extra=param)), "format-contradicts-prose") == [
        "/paths/~1things/get/parameters/0"]


# -- server-field-required -----------------------------------------------------------------------------------

def test_an_id_required_in_a_create_request(write):
    # The Swagger petstore's Pet: `required: [id, name]`, sent as the POST /pets body.
    props = ("                id: {type: integer, format: int64, description: The pet's id.}\n"
             "                name: {type: string, description: The pet's name.}\n")
    create = op("/pets", "post", "createPets", body(props, "id, name"))
    assert rules_at(run(write, create), "server-field-required") == [
        "/paths/~1pets/post/requestBody/content/application~1json/schema/properties/id"]
    read_only = props.replace("{type: integer, format: int64,", "{type: integer, format: int64, readOnly: true,")
    marked = op("/pets", "post", "createPets", body(read_only, "id, name"))
    assert rules_at(run(write, marked), "server-field-required") == []
    optional = op("/pets", "post", "createPets", body(props, "name"))
    assert rules_at(run(write, optional), "server-field-required") == []


def test_an_action_may_require_the_id_it_acts_on(write):
    # Box: POST /shield_information_barriers/change_status takes the id of the barrier to change.
    props = "                id: {type: string, description: The ID of the barrier to change.}\n"
    action = op("/barriers/change_status", "post", "changeBarrierStatus", body(props, "id"))
    assert rules_at(run(write, action), "server-field-required") == []


# -- unsafe-write-unmarked -----------------------------------------------------------------------------------

def write_op(path: str, summary: str, extra: str = "") -> str:
    return (f"  {path}:\n    post:\n      operationId: act\n      tags: [t]\n      summary: {summary}\n"
            "      description: Use this when the user asks for it; returns the created record.\n" + extra +
            "      responses: {'201': {description: ok, content: {application/json: {schema: {type: object}}}},"
            " '400': {description: bad, content: {application/problem+json: {schema: {type: object}}}}}\n")


@pytest.mark.parametrize("path, summary", [
    ("/Messages", "Send a message to a phone number"),  # Twilio Messaging
    ("/Calls", "Place an outbound call"),  # Twilio Voice
    ("/IncomingPhoneNumbers", "Buy a phone number for the account"),
    ("/v2/Services/{ServiceSid}/Verifications", "Create a new Verification"),  # sends an SMS or a call
    ("/enqueue", "Send an event to PagerDuty"),  # pages the on-call responder
])
def test_outward_writes_must_ask_for_approval(write, path, summary):
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + write_op(path, summary)))
    [finding] = [f for f in lint(spec).findings if f.rule == "unsafe-write-unmarked"]
    assert APPROVAL_MARKER in finding.message


@pytest.mark.parametrize("path, summary", [
    ("/threads/{thread_id}/messages", "Create a message in a thread"),  # a chat thread stays inside the system
    ("/notes", "Create a note on the customer"),
    ("/user/emails", "Add an email address for the authenticated user"),
])
def test_inward_writes_are_quiet(write, path, summary):
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + write_op(path, summary)))
    assert [f for f in lint(spec).findings if f.rule == "unsafe-write-unmarked"] == []


def test_the_approval_marker_from_the_safety_policy_silences_it(write):
    marked = write_op("/Messages", "Send a message to a phone number", f"      {APPROVAL_MARKER}: true\n")
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + marked))
    assert [f for f in lint(spec).findings if f.rule == "unsafe-write-unmarked"] == []


# -- description-copy-pasted ---------------------------------------------------------------------------------

def test_one_description_pasted_onto_two_arguments(write):
    pasted = "Filter results by the ID of the owning account."
    params = ("      parameters:\n"
              f"        - {{name: account_id, in: query, schema: {{type: string}}, description: {pasted}}}\n"
              f"        - {{name: project_id, in: query, schema: {{type: string}}, description: {pasted}}}\n")
    assert rules_at(run(write, op("/things", extra=params)), "description-copy-pasted") == [
        "/paths/~1things/get/parameters/1"]
    distinct = params.replace(f"project_id, in: query, schema: {{type: string}}, description: {pasted}",
                              "project_id, in: query, schema: {type: string}, description: Filter by project ID.")
    assert rules_at(run(write, op("/things", extra=distinct)), "description-copy-pasted") == []
    short = params.replace(pasted, "The ID.")  # too short to tell a paste from a coincidence
    assert rules_at(run(write, op("/things", extra=short)), "description-copy-pasted") == []
