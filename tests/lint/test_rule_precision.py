"""The precision reworks, each shown firing and staying quiet on snippets adapted from real specs (GitHub,
Kubernetes, Box, OpenAI, Twilio): the false findings the issue lists do not come back."""

from __future__ import annotations

from tests.catalogue import HEAD, body, op, rules_at
from tests.catalogue import findings as run
from workbench.lint import lint
from workbench.lint.engine import with_hints
from workbench.spec import load_spec


def messages(write, paths: str, rule: str) -> list[str]:
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + paths))
    return [f.message for f in lint(spec, with_hints()).findings if f.rule == rule]


BODY_AT = "/paths/~1things/post/requestBody/content/application~1json/schema"


# -- property-description-missing ----------------------------------------------------------------------------

def test_array_items_are_not_reported_apart_from_their_property(write):
    # GitHub: `reviewers: {type: array, items: {type: string}}`, the property described, the items not.
    described = ("                reviewers: {type: array, description: An array of user logins that will be "
                 "requested., items: {type: string}}\n")
    found = run(write, op("/things", "post", "createThing", body(described)))
    assert rules_at(found, "property-description-missing") == []
    bare = "                nameservers: {type: array, items: {type: string}}\n"
    found = rules_at(run(write, op("/things", "post", "createThing", body(bare))), "property-description-missing")
    assert found == [f"{BODY_AT}/properties/nameservers"]  # once, at the property, not again at its items


def test_a_described_anyof_member_a_const_and_a_self_explaining_name_need_no_description(write):
    # OpenAI: `prompt_cache_key: {anyOf: [{type: string, description: …}, {type: 'null'}]}`.
    props = ("                prompt_cache_key:\n                  anyOf:\n                    - {type: string, "
             "description: Used by OpenAI to cache responses for similar requests.}\n"
             "                    - {type: 'null'}\n"
             "                type: {type: string, enum: [item_reference]}\n"
             "                email: {type: string, format: email}\n")
    assert rules_at(run(write, op("/things", "post", "createThing", body(props))), "property-description-missing") == []


def test_undescribed_properties_of_one_object_are_one_finding_naming_them(write):
    # GitHub SCIM: `schemas`, `externalId`, `active` undescribed in one object.
    props = ("                schemas: {type: array, items: {type: string}}\n"
             "                externalId: {type: string}\n                active: {type: boolean}\n")
    [message] = messages(write, op("/things", "post", "createThing", body(props)), "property-description-missing")
    assert message.startswith("3 request properties ('schemas', 'externalId', 'active') have no description")
    assert "say what value each takes" in message


# -- parameter-description-missing ---------------------------------------------------------------------------

def test_a_schema_level_description_counts_for_a_parameter(write):
    # The tool export passes the schema's description to the model just the same.
    param = ("      parameters: [{name: sort, in: query, schema: {type: string, description: "
             "'The property to sort the results by: created or updated.'}}]\n")
    assert rules_at(run(write, op("/things", extra=param)), "parameter-description-missing") == []


def test_a_path_parameter_named_by_its_collection_needs_no_description(write):
    named = op("/labels/{name}").replace("findThings", "getLabel") + (
        "      parameters: [{name: name, in: path, required: true, schema: {type: string}}]\n")
    assert rules_at(run(write, named), "parameter-description-missing") == []
    # GitHub: /authorizations/clients/{client_id}/{fingerprint}: nothing says what a fingerprint is.
    opaque = op("/clients/{fingerprint}").replace("findThings", "getClient") + (
        "      parameters: [{name: fingerprint, in: path, required: true, schema: {type: string}}]\n")
    assert rules_at(run(write, opaque), "parameter-description-missing") == ["/paths/~1clients~1{fingerprint}/get/"
                                                                        "parameters/0"]


# -- id-param-no-source --------------------------------------------------------------------------------------

def test_id_param_no_source_names_the_list_operation_on_the_collection_path(write):
    item = op("/evals/{eval_id}", op_id="getEval") + (
        "      parameters: [{name: eval_id, in: path, required: true, schema: {type: string}, "
        "description: The ID of the evaluation.}]\n")
    paths = op("/evals", op_id="listEvals") + item
    [message] = messages(write, paths, "id-param-no-source")
    assert 'as returned by listEvals (GET /evals)' in message
    [alone] = messages(write, item, "id-param-no-source")
    assert "no list operation on its collection path returns it" in alone


def test_a_singular_path_is_not_taken_for_the_list_of_ids(write):
    # GitHub: GET /app is the authenticated app, not a list of apps to take `app_id` from.
    app = op("/app", op_id="getAuthenticatedApp")
    query = op("/installations", op_id="listInstallations") + (
        "      parameters: [{name: app_id, in: query, schema: {type: integer}, description: The app.}]\n")
    [message] = messages(write, app + query, "id-param-no-source")
    assert "GET /app" not in message


# -- required-missing (a hint) -------------------------------------------------------------------------------

def test_all_optional_patch_and_search_bodies_are_not_told_to_list_required(write):
    props = "                title: {type: string, description: The new title.}\n"
    assert rules_at(run(write, op("/things", "patch", "updateThing", body(props))), "required-missing") == []
    assert rules_at(run(write, op("/things/search", "post", "searchThings", body(props))), "required-missing") == []
    assert rules_at(run(write, op("/things", "post", "createThing", body(props))), "required-missing") == [BODY_AT]


# -- enum-values-unexplained (a hint) ------------------------------------------------------------------------

def test_self_explaining_enum_values_need_no_description(write):
    for values in ("[HTTP, HTTPS]", "[PASS, FAIL]", "[sha1, sha256, sha512]", "[open, merged, declined]"):
        props = f"                kind: {{type: string, enum: {values}}}\n"
        assert rules_at(run(write, op("/things", "post", "createThing", body(props))), "enum-values-unexplained") == []
    codes = "                code: {type: string, enum: [A1, B7, ZQ]}\n"
    assert rules_at(run(write, op("/things", "post", "createThing", body(codes))), "enum-values-unexplained") == [
        f"{BODY_AT}/properties/code"]


# -- enum-in-prose -------------------------------------------------------------------------------------------

def test_enum_in_prose_is_quiet_on_free_text_ranges_and_open_lists(write):
    quiet = [
        ("query", "The search query. Can be `is:open` or `label:bug`, combined with spaces."),
        ("rrule", "The recurrence rule. FREQ is one of DAILY, WEEKLY or MONTHLY."),
        ("timeout", "Seconds to wait. Possible values: 1 to 36000."),
        ("sleep", "Can be `5` to `600` seconds."),
        ("color", "One of `red`, `green`, `blue`, etc."),
    ]
    for name, text in quiet:
        param = (f"      parameters: [{{name: {name}, in: query, schema: {{type: string}}, "
                 f"description: '{text}'}}]\n")
        assert rules_at(run(write, op("/things", extra=param)), "enum-in-prose") == [], name


def test_enum_in_prose_still_fires_on_a_closed_list(write):
    # Kubernetes: "Status of the condition, one of True, False, Unknown."
    param = ("      parameters: [{name: status, in: query, schema: {type: string}, "
             "description: 'Status of the condition, one of True, False, Unknown.'}]\n")
    [message] = messages(write, op("/things", extra=param), "enum-in-prose")
    assert "declare `enum: [True, False, Unknown]`" in message


# -- numeric-unit-missing ------------------------------------------------------------------------------------

def test_a_sibling_unit_field_carries_the_unit(write):
    props = ("                threshold_time_amount: {type: integer, description: How long before escalating.}\n"
             "                threshold_time_unit: {type: string, enum: [minutes, hours, days], "
             "description: The unit of threshold_time_amount.}\n")
    assert rules_at(run(write, op("/things", "post", "createThing", body(props))), "numeric-unit-missing") == []
    alone = "                threshold_time_amount: {type: integer, description: How long before escalating.}\n"
    [message] = messages(write, op("/things", "post", "createThing", body(alone)), "numeric-unit-missing")
    assert "cents or whole units" in message  # an amount: the question a reader must answer


def test_a_currency_beside_a_weight_is_not_its_unit(write):
    props = ("                weight: {type: number, description: Shipping weight of one unit.}\n"
             "                currency: {type: string, description: ISO 4217 code of the price.}\n")
    assert rules_at(run(write, op("/things", "post", "createThing", body(props))), "numeric-unit-missing") == [
        f"{BODY_AT}/properties/weight"]


# -- destructive-operation-unmarked --------------------------------------------------------------------------

def test_an_unrelated_warning_does_not_silence_the_destructive_rule(write):
    # A notice box about something else ("Warning: this endpoint is rate limited") says nothing of undo.
    deleting = op("/things/{id}", "delete", "deleteThing").replace(
        "description: Use this to look up things; returns a page of things.",
        "description: 'Removes the thing. Warning: this endpoint is rate limited to 10 calls a minute.'")
    [message] = messages(write, deleting, "destructive-operation-unmarked")
    assert "does not say whether that can be undone" in message and "x-agent-requires-approval" in message
    said = deleting.replace("Removes the thing.", "Permanently removes the thing.")
    assert messages(write, said, "destructive-operation-unmarked") == []


# -- near-duplicate-operations -------------------------------------------------------------------------------

def twin(path, method, op_id, text):
    return (f"  {path}:\n    {method}:\n      operationId: {op_id}\n      tags: [t]\n      summary: {text}\n"
            "      responses: {'200': {description: ok}, '404': {description: nf}}\n")


def test_a_parent_and_its_child_item_or_a_different_resource_are_not_twins(write):
    text = "Get a specific comment on a team discussion of the organization"
    child = twin("/discussions/{n}", "get", "getDiscussion", text) + twin(
        "/discussions/{n}/comments/{c}", "get", "getDiscussionComment", text)
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + child))
    assert [f for f in lint(spec).findings if f.rule == "near-duplicate-operations"] == []
    text = "partially update the specified resource of the networking group"
    other = twin("/ingresses/{name}", "patch", "patchIngress", text) + twin(
        "/ingressclasses/{name}", "patch", "patchIngressClass", text)
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + other))
    assert [f for f in lint(spec).findings if f.rule == "near-duplicate-operations"] == []


def test_a_status_view_and_a_namespaced_twin_still_are(write):
    text = "partially update the specified DaemonSet in the namespace"
    status = twin("/daemonsets/{name}", "patch", "patchDaemonSet", text) + twin(
        "/daemonsets/{name}/status", "patch", "patchDaemonSetStatus", text)
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + status))
    assert [f.pointer for f in lint(spec).findings if f.rule == "near-duplicate-operations"] == [
        "/paths/~1daemonsets~1{name}~1status/patch"]


# -- error-schema-unstructured, success-response-schema-missing, operation-tags-missing -------------------------

def test_self_explaining_statuses_and_result_free_successes_are_quiet(write):
    plain = op("/things/{id}/cancel", "post", "cancelThing").replace(
        "'200': {description: ok, content: {application/json: {schema: {type: object}}}}", "'200': {description: ok}")
    plain = plain.replace("{description: not found, content: {application/problem+json: {schema: {type: object}}}}",
                          "{description: not found}")
    findings = run(write, plain)
    assert rules_at(findings, "success-response-schema-missing") == []  # an action on one item: the status says it
    assert rules_at(findings, "error-schema-unstructured") == []  # 404 says it all


def test_an_untagged_operation_among_tagged_ones_is_reported(write):
    untagged = op("/b", op_id="getB").replace("      tags: [things]\n", "")
    assert "      tags: [things]\n" in op("/a", op_id="getA")
    assert rules_at(run(write, op("/a", op_id="getA") + op("/c", op_id="getC") + untagged),
              "operation-tags-missing") == ["/paths/~1b/get"]
    alone = untagged + op("/d", op_id="getD").replace("      tags: [things]\n", "")
    assert rules_at(run(write, alone), "operation-tags-missing") == []  # a small spec with no tags at all
