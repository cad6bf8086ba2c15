"""Requirements only the prose states — fields required together, a header's one fixed value, an argument that is
obsolete — each rule shown firing and staying quiet on snippets adapted from real specs (GitHub, Twilio Verify, Box,
PagerDuty Events, Kubernetes, and the version headers GitHub, OpenAI and Anthropic document)."""

from __future__ import annotations

import pytest

from tests.catalogue import HEAD, body, op, rules_at
from tests.catalogue import findings as run
from workbench.lint import lint
from workbench.lint.rules.prose import obsolete_words
from workbench.lint.rules.values import fixed_value
from workbench.spec import load_spec

BODY = "/paths/~1things/post/requestBody/content/application~1json/schema"


def prop(name: str, schema: str, text: str) -> str:
    return f"                {name}: {{{schema}, description: \"{text}\"}}\n"


def create(properties: str, required: str = "", extra: str = "") -> str:
    return op("/things", "post", "createThing", body(properties, required) + extra)


def messages(write, paths: str, rule: str, head: str = HEAD) -> list[str]:
    spec = load_spec(write("s.yaml", head + "paths:\n" + paths))
    return [f.message for f in lint(spec).findings if f.rule == rule]


# -- conditional-requirement-in-prose ------------------------------------------------------------------------

# GitHub POST /orgs/{org}/invitations: invitee_id and email, each "Required unless you provide" the other.
INVITE = (prop("invitee_id", "type: integer", "**Required unless you provide `email`**. GitHub user ID for the "
               "person you are inviting.") +
          prop("email", "type: string", "**Required unless you provide `invitee_id`**. Email address of the person "
               "you are inviting, which can be an existing GitHub user."))


def test_required_unless_becomes_an_any_of_naming_both_fields(write):
    [message] = messages(write, create(INVITE), "conditional-requirement-in-prose")
    assert "`anyOf: [{required: [invitee_id]}, {required: [email]}]`" in message
    assert rules_at(run(write, create(INVITE)), "conditional-requirement-in-prose") == [BODY]  # once, on the object


def test_an_any_of_already_written_keeps_it_quiet(write):
    written = create(INVITE, extra="              anyOf: [{required: [invitee_id]}, {required: [email]}]\n")
    assert rules_at(run(write, written), "conditional-requirement-in-prose") == []


def test_either_this_parameter_or_another_field(write):
    # Twilio Verify POST /v2/Services/{ServiceSid}/VerificationCheck (a form body: To, VerificationSid).
    props = (prop("To", "type: string", "The phone number or email to verify. Either this parameter or the "
                  "`verification_sid` must be specified.") +
             prop("VerificationSid", "type: string", "A SID that uniquely identifies the Verification Check."))
    [message] = messages(write, create(props), "conditional-requirement-in-prose")
    assert "`anyOf: [{required: [To]}, {required: [VerificationSid]}]`" in message


def test_but_not_both_is_a_one_of(write):
    # Box AiExtractStructured: "you must provide either `metadata_template` or `fields`, but not both".
    props = (prop("metadata_template", "type: object", "The metadata template containing the fields to extract. For "
                  "your request to work, you must provide either `metadata_template` or `fields`, but not both.") +
             prop("fields", "type: array", "The fields to be extracted from the provided items."))
    [message] = messages(write, create(props), "conditional-requirement-in-prose")
    assert "`oneOf: [{required: [metadata_template]}, {required: [fields]}]`" in message


def test_at_least_one_of_in_the_operation_description(write):
    # Box POST /ai_agents: "At least one of the following capabilities must be provided: `ask`, `text_gen`, ...".
    props = "".join(prop(n, "type: object", f"The {n} capability.") for n in ("ask", "text_gen", "extract"))
    paths = create(props).replace("description: Use this to look up things; returns a page of things.",
                                  "description: 'Creates an AI agent. At least one of the following capabilities "
                                  "must be provided: `ask`, `text_gen`, `extract`.'")
    [message] = messages(write, paths, "conditional-requirement-in-prose")
    assert "`anyOf: [{required: [ask]}, {required: [text_gen]}, {required: [extract]}]`" in message


def test_required_when_another_field_has_a_value(write):
    # Twilio Verify POST …/Factors: Config.AppId "Required when `factor_type` is `push`" (the field is FactorType).
    props = (prop("FactorType", "type: string, enum: [push, totp]", "The type of the factor.") +
             prop("Config.AppId", "type: string", "The ID that identifies your app in the store. Required when "
                  "`factor_type` is `push`."))
    [message] = messages(write, create(props), "conditional-requirement-in-prose")
    assert "Config.AppId is required when FactorType is push" in message
    assert "`if: {properties: {FactorType: {const: push}}, required: [FactorType]}, then: {required: " \
           "[Config.AppId]}`" in message
    [older] = messages(write, create(props), "conditional-requirement-in-prose", HEAD.replace("3.1.0", "3.0.3"))
    assert "`anyOf: [{not: {properties: {FactorType: {enum: [push]}}, required: [FactorType]}}, {required: " \
           "[Config.AppId]}]`" in older  # OpenAPI 3.0 has no if/then


def test_required_if_another_field_is_given(write):
    props = (prop("completed_at", "type: string, format: date-time", "The time the check completed.") +
             prop("conclusion", "type: string", "**Required if you provide `completed_at`**. The final conclusion."))
    [message] = messages(write, create(props), "conditional-requirement-in-prose")
    assert "`dependentRequired: {completed_at: [conclusion]}`" in message


@pytest.mark.parametrize("text", [
    # Named things that are not fields of this body: PagerDuty's dedup_key names a value of event_type here, and
    # GitHub's sha a situation ("if you are updating a file").
    "Required if you are updating a file. The blob SHA of the file being replaced.",
    "Required when using multi-line comments. The first line of the range.",
    "Either `marketing` or `BoxWorks` must appear in the text.",
    "At least one of the audiences in this list is required to match.",
])
def test_prose_naming_no_other_field_is_quiet(write, text):
    props = prop("sha", "type: string", text) + prop("message", "type: string", "The commit message.")
    assert rules_at(run(write, create(props)), "conditional-requirement-in-prose") == []


def test_a_field_required_anyway_needs_no_condition(write):
    assert rules_at(run(write, create(INVITE, "email")), "conditional-requirement-in-prose") == []


def test_swagger_2_cannot_express_it(write):
    # Kubernetes admissionregistration ServiceReference: "Either `service` or `url` must be specified." 2.0 has no
    # anyOf: nothing to write in the schema.
    spec = write("s.yaml", "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths:\n  /hooks:\n    post:\n"
                 "      operationId: createHook\n      parameters:\n        - in: body\n          name: body\n"
                 "          schema:\n            type: object\n            properties:\n"
                 "              service: {type: object, description: 'Either `service` or `url` must be specified.'}\n"
                 "              url: {type: string, description: The URL.}\n"
                 "      responses: {'200': {description: ok}}\n")
    assert [f for f in lint(load_spec(spec)).findings if f.rule == "conditional-requirement-in-prose"] == []


# -- magic-header-unpinned -----------------------------------------------------------------------------------

def header(name: str, schema: str, text: str, required: bool = True) -> str:
    return (f"      parameters: [{{name: {name}, in: header, required: {'true' if required else 'false'}, "
            f"schema: {schema}, description: \"{text}\"}}]\n")


@pytest.mark.parametrize("text, example, value", [
    ("The API version to use. Must be `2022-11-28`.", None, "2022-11-28"),  # GitHub's X-GitHub-Api-Version
    ("Set to assistants=v2 to use the Assistants API.", None, "assistants=v2"),  # OpenAI-Beta
    ("The version of the API, `2023-06-01`.", "2023-06-01", "2023-06-01"),  # anthropic-version, with its example
    ("The version of the API, e.g. `2023-06-01`.", None, None),  # an example among others
    ("Either `2022-11-28` or `2024-01-01`.", None, None),
    ("The format of this header is `shared_link=[link]&shared_link_password=[password]`.",  # Box's boxapi
     "shared_link=[link]&shared_link_password=[password]", None),
    ("Must be unique for each request.", None, None),
    ("Useful for pinning. Must be `2022-11-28`.", None, "2022-11-28"),  # "use" inside a word is no cue
    ("Always send it. The value must be `v1`.", None, "v1"),  # a cue followed by a word: the next cue decides
])
def test_fixed_values_are_read(text, example, value):
    assert fixed_value(text, example) == value


def test_a_required_version_header_typed_as_free_string(write):
    free = header("X-GitHub-Api-Version", "{type: string}", "The API version to use. Must be `2022-11-28`.")
    [message] = messages(write, op("/things", extra=free), "magic-header-unpinned")
    assert "'X-GitHub-Api-Version'" in message and "`enum: ['2022-11-28']`" in message
    assert rules_at(run(write, op("/things", extra=free)), "magic-header-unpinned") == [
        "/paths/~1things/get/parameters/0"]


@pytest.mark.parametrize("schema, required", [
    ("{type: string, enum: ['2022-11-28']}", True),
    ("{type: string, const: '2022-11-28'}", True),
    ("{type: string, default: '2022-11-28'}", True),
    ("{type: string}", False),  # optional: the server's default applies when it is left out
])
def test_a_pinned_or_optional_header_is_quiet(write, schema, required):
    pinned = header("X-GitHub-Api-Version", schema, "The API version to use. Must be `2022-11-28`.", required)
    assert rules_at(run(write, op("/things", extra=pinned)), "magic-header-unpinned") == []


def test_credentials_and_headers_the_tools_fill_are_quiet(write):
    # an API key is a secret, not a fixed value; Content-Type is dropped by the loader (the media type owns it)
    key = header("X-Api-Key", "{type: string}", "Must be `sk-test-123`.")
    assert rules_at(run(write, op("/things", extra=key)), "magic-header-unpinned") == []
    media = header("Content-Type", "{type: string}", "Set to application/json.")
    assert rules_at(run(write, op("/things", extra=media)), "magic-header-unpinned") == []


# -- obsolete-argument-exposed -------------------------------------------------------------------------------

@pytest.mark.parametrize("text, obsolete", [
    ("**Deprecated**. The permission that new repositories will be added to the team with.", True),  # GitHub
    ("Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7.", True),  # Kubernetes
    ("Login for the user. **This field is deprecated.**", True),  # GitHub issues' assignee
    ("Reserved for future use.", True),
    ("Whether to include the date. Default: false. **Deprecated** do not use this parameter.", True),  # Twilio
    ("Replaces the deprecated `position` parameter.", False),
    ("The property to sort by. `number` is deprecated - we recommend that you use `created` instead.", False),
    ("This setting will be ignored unless `restricted_to_workflows` is set to `true`.", False),
    ("This field will be ignored if the cloud-provider does not support the feature.", False),
    ("When results are sorted by `relevance` the ordering is locked to returning\nitems in descending order of "
     "relevance, and this parameter is ignored.", False),  # Box: ignored under a condition
    ("Delete (default for dynamically provisioned volumes), and Recycle (deprecated).", False),  # a value
])
def test_obsolete_words_are_about_the_argument_itself(text, obsolete):
    assert (obsolete_words(text) is not None) is obsolete


def test_an_obsolete_body_field_is_marked_deprecated_by_its_fix(write):
    props = prop("permission", "type: string", "**Deprecated**. The permission that new repositories will be "
                 "added to the team with.") + prop("name", "type: string", "The team's name.")
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + create(props)))
    [finding] = [f for f in lint(spec).findings if f.rule == "obsolete-argument-exposed"]
    assert finding.pointer == BODY + "/properties/permission"
    assert finding.fix is not None and (finding.fix.pointer, finding.fix.value) == (
        BODY + "/properties/permission/deprecated", True)
    marked = props.replace("{type: string, description: \"**Deprecated**", "{type: string, deprecated: true, "
                           "description: \"**Deprecated**")
    assert rules_at(run(write, create(marked)), "obsolete-argument-exposed") == []


def test_an_obsolete_query_parameter(write):
    param = ("      parameters: [{name: orphanDependents, in: query, schema: {type: boolean}, description: "
             "'Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7.'}]\n")
    [finding] = [f for f in lint(load_spec(write("s.yaml", HEAD + "paths:\n" + op("/things", extra=param)))).findings
                 if f.rule == "obsolete-argument-exposed"]
    assert finding.pointer == "/paths/~1things/get/parameters/0" and finding.fix.value is True
    marked = param.replace("in: query,", "in: query, deprecated: true,")
    assert rules_at(run(write, op("/things", extra=marked)), "obsolete-argument-exposed") == []


def test_swagger_2_has_no_deprecated_keyword_so_no_fix(write):
    spec = write("s.yaml", "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths:\n  /things:\n    delete:\n"
                 "      operationId: deleteThings\n      parameters:\n        - {name: orphanDependents, in: query, "
                 "type: boolean, description: 'Deprecated: please use the PropagationPolicy.'}\n"
                 "      responses: {'200': {description: ok}}\n")
    [finding] = [f for f in lint(load_spec(spec)).findings if f.rule == "obsolete-argument-exposed"]
    assert finding.fix is None and "Swagger 2.0 has no `deprecated`" in finding.message


TARGET = """  schemas:
    Target:
      type: object
      properties:
        x: {type: string, description: an x}
        y: {type: string, description: a y}
"""
SHARED = """paths:
  /a:
    post:
      operationId: postA
      description: Sends a thing.
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Target'}}}}
      responses: {'200': {description: ok}}
  /b:
    post:
      operationId: postB
      description: Sends a thing. Either `x` or `y` must be provided.
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Target'}}}}
      responses: {'200': {description: ok}}
"""


def test_an_operations_requirement_is_read_when_an_earlier_operation_shares_its_body(write):
    # The schema walk records a shared body under the first operation that reaches it (postA); postB's own
    # description states the requirement, and that is what counts.
    spec = load_spec(write("s.yaml", HEAD.replace("components:\n", "components:\n" + TARGET) + SHARED))
    assert not spec.problems
    found = [f for f in lint(spec).findings if f.rule == "conditional-requirement-in-prose"]
    assert [(f.pointer, "one of x, y is required" in f.message) for f in found] == [
        ("/components/schemas/Target", True)]


@pytest.mark.parametrize("text", [
    "**REQUIRED UNLESS you provide `email`**.", "Either `b` or `email` MUST be provided.",
    "You must specify EITHER `b` or `email`", "At least One Of `b`, `email` is required.",
    "Required When `kind` is `push`.", "Required only if you provide `b`.", "required, unless `b`; one of many",
    "Requıred unless `email` (a dotless i: not ASCII, so every pattern runs)", "Required.", "Either way, required.",
])
def test_the_word_guards_find_what_every_pattern_finds(monkeypatch, text):
    # Each pattern of the rule runs only on a text with its words in it: the same requirements as running every one.
    from workbench.lint.rules import prose

    arguments = {prose._key(name): name for name in ("a", "b", "email", "kind")}
    schemas = {"kind": {"type": "string", "enum": ["push", "sms"]}}
    guarded = list(prose._conditions(text, arguments, "a", schemas))
    monkeypatch.setattr(prose, "_may_hold", lambda words, needed: True)
    assert list(prose._conditions(text, arguments, "a", schemas)) == guarded
