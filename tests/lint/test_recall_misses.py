"""Rules for problems the hand review (recall_review.yaml) found and the lint missed, each shown firing and staying
quiet on snippets adapted from the corpus specs (Twilio Verify, Box, OpenAI, GitHub)."""

from __future__ import annotations

import pytest

from tests.catalogue import HEAD, rules_at
from tests.catalogue import findings as run
from workbench.lint import lint
from workbench.policy import APPROVAL_MARKER
from workbench.spec import load_spec


def operation(path: str, method: str, summary: str, extra: str = "", op_id: str | None = None) -> str:
    """One described operation (a path item of its own) with `extra` lines under it."""
    op_id = op_id or f"{method}{''.join(s.strip('{}').title() for s in path.split('/'))}"
    return (f"  {path}:\n    {method}:\n      operationId: {op_id}\n      tags: [t]\n      summary: {summary}\n"
            "      description: Use this when the user asks for it; returns the record.\n" + extra +
            "      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}},"
            " '400': {description: bad, content: {application/problem+json: {schema: {type: object}}}}}\n")


def param(name: str, where: str, text: str, schema: str = "{type: string}") -> str:
    required = ", required: true" if where == "path" else ""
    return f"        - {{name: {name}, in: {where}{required}, schema: {schema}, description: \"{text}\"}}\n"


def params(*lines: str) -> str:
    return "      parameters:\n" + "".join(lines)


def json_body(properties: str) -> str:
    return ("      requestBody:\n        content:\n          application/json:\n            schema:\n"
            "              type: object\n              properties:\n" + properties)


PASTED = "description-from-another-operation"

# -- description-from-another-operation ----------------------------------------------------------------------

TWILIO_SID = "The Twilio-provided string that uniquely identifies the Rate Limit resource to fetch."


def test_a_fetch_description_on_an_update_or_delete(write):
    # Twilio Verify: the update and the delete of /RateLimits/{Sid} carry the fetch operation's Sid text.
    path = "/v2/Services/{ServiceSid}/RateLimits/{Sid}"
    sids = params(param("ServiceSid", "path", "The SID of the Service the resource is associated with."),
                  param("Sid", "path", TWILIO_SID))
    paths = (f"  {path}:\n" + operation(path, "post", "Update a specific Rate Limit.", sids).split("\n", 1)[1] +
             operation(path, "delete", "Delete a specific Rate Limit.", sids).split("\n", 1)[1] +
             operation(path, "get", "Fetch a specific Rate Limit.", sids).split("\n", 1)[1])
    found = rules_at(run(write, paths), PASTED)
    at = "/paths/~1v2~1Services~1{ServiceSid}~1RateLimits~1{Sid}"
    assert found == [f"{at}/post/parameters/1", f"{at}/delete/parameters/1"]


def test_a_create_description_on_an_update(write):
    # Box: PUT /groups/{group_id} ("Update group") describes `name` as the name of the new group to be created.
    text = "The name of the new group to be created. This name must be unique within the enterprise."
    update = operation("/groups/{group_id}", "put", "Update group",
                       params(param("group_id", "path", "The ID of the group.")) +
                       json_body(f"                name: {{type: string, description: \"{text}\"}}\n"))
    create = operation("/groups", "post", "Create group",
                       json_body(f"                name: {{type: string, description: \"{text}\"}}\n"))
    assert rules_at(run(write, update + create), PASTED) == [
        "/paths/~1groups~1{group_id}/put/requestBody/content/application~1json/schema/properties/name"]


def test_verbs_that_are_not_a_pasted_description_are_quiet(write):
    # The parent a sub-resource operation works under (OpenAI: project_id of POST /projects/{project_id}/groups
    # is "The ID of the project to update."), what happens to something else (Box retention: "allowing it to be
    # deleted"), what the caller may want (GitHub team-sync: "groups you don't want to remove"), a default value
    # (Kubernetes: "Defaults to Delete.").
    quiet = (operation("/projects/{project_id}/groups", "post", "Adds a group to a project",
                       params(param("project_id", "path", "The ID of the project to update."))) +
             operation("/retention_policies", "post", "Create retention policy", json_body(
                 "                disposition_action: {type: string, description: \"The disposition action. "
                 "`remove_retention` lifts the policy from the content, allowing it to be deleted.\"}\n"
                 "                groups: {type: array, items: {type: string}, description: \"The groups to "
                 "connect. You must include any existing groups that you don't want to remove.\"}\n"
                 "                reclaimPolicy: {type: string, description: \"The reclaim policy. "
                 "Defaults to Delete.\"}\n")))
    assert rules_at(run(write, quiet), PASTED) == []


MARKER = ("Defines the position marker at which to begin returning results. "
          "This requires `usemarker` to be set to `true`.")


def test_an_argument_named_that_only_another_operation_takes(write):
    # Box: `marker` of GET /webhooks says "This requires `usemarker` …", a parameter only GET /folders/{id}/items
    # has.
    items = operation("/folders/{folder_id}/items", "get", "List items in folder", params(
        param("folder_id", "path", "The ID of the folder."), param("marker", "query", MARKER),
        param("usemarker", "query", "Use marker-based paging.", "{type: boolean}")))
    webhooks = operation("/webhooks", "get", "List all webhooks", params(param("marker", "query", MARKER)))
    assert rules_at(run(write, items + webhooks), PASTED) == ["/paths/~1webhooks/get/parameters/0"]


def test_backticked_names_that_are_values_fields_or_references_are_quiet(write):
    # GitHub: `filter` of GET /issues explains its enum value `mentioned` (also a parameter of another list);
    # `tool_name` of the SARIF upload points at "the `tool_guid` parameter of operations such as GET …"; a
    # response field (`next_marker`) is no argument at all.
    repo_issues = operation("/repos/{repo}/issues", "get", "List repository issues", params(
        param("repo", "path", "The repository name."), param("mentioned", "query", "A user that is mentioned."),
        param("tool_guid", "query", "The GUID of a code scanning tool."),
        param("next_marker", "query", "Unused.")))
    issues = operation("/issues", "get", "List issues assigned to the user", params(param(
        "filter", "query", "Which issues to return. `mentioned` means issues that mention you.",
        "{type: string, enum: [assigned, mentioned]}")))
    sarif = operation("/code-scanning/sarifs", "post", "Upload an analysis", json_body(
        "                tool_name: {type: string, description: \"The tool's name, available for filtering "
        "using the `tool_guid` parameter of operations such as GET /repos/{repo}/code-scanning/alerts.\"}\n"))
    page = operation("/webhooks", "get", "List all webhooks", params(param(
        "marker", "query", "Pass the `next_marker` of the previous page's response.")) + "", op_id="listHooks")
    response_field = page.replace("{type: object}}}},", "{type: object, properties: {next_marker: "
                                  "{type: string}}}}}},", 1)
    assert rules_at(run(write, repo_issues + issues + sarif + response_field), PASTED) == []


# -- unsafe-write-unmarked: permission changes and live calls -------------------------------------------------

UNSAFE = "unsafe-write-unmarked"


@pytest.mark.parametrize("path, method, summary, extra, said", [
    # Box: an admin update of a user can change their role (and login and status).
    ("/users/{user_id}", "put", "Update user", json_body(
        "                role: {type: string, enum: [coadmin, user]}\n"
        "                login: {type: string}\n"), "changes who may do what (it can change 'role')"),
    # OpenAI: a role granted to a whole group; which models a project may use.
    ("/projects/{project_id}/groups/{group_id}/roles", "post", "Assigns a project role to a group within a project.",
     "", "the summary says 'Assigns a project role'"),
    ("/organization/projects/{project_id}/model_permissions", "post", "Updates model permissions for a project.", "",
     "it writes model_permissions"),
    ("/organization/users/{user_id}/roles", "post", "Add a role for the user", "",
     "it assigns roles to users"),
    # OpenAI Realtime: declining an incoming SIP call.
    ("/realtime/calls/{call_id}/reject", "post", "Decline an incoming SIP call by returning a SIP status code.", "",
     "acts on a live call or request (it is reject)"),
])
def test_permission_changes_and_live_calls_ask_for_approval(write, path, method, summary, extra, said):
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + operation(path, method, summary, extra)))
    [finding] = [f for f in lint(spec).findings if f.rule == UNSAFE]
    assert said in finding.message and APPROVAL_MARKER in finding.message


@pytest.mark.parametrize("path, method, summary, extra", [
    # Defining a custom role grants it to nobody (OpenAI: POST /organization/roles).
    ("/organization/roles", "post", "Creates a custom role for the organization.", ""),
    # Box: a file update (rename, move, download setting) names no role.
    ("/files/{file_id}", "put", "Update file", json_body(
        "                name: {type: string}\n"
        "                permissions: {type: object, properties: {can_download: {type: string}}}\n")),
    # A role in a create's body is the new record's (Box: POST /users); the rule reads updates of one record.
    ("/users", "post", "Create user", json_body("                role: {type: string}\n")),
    # The role the user plays in a thread is no permission (a chat message).
    ("/threads/{thread_id}/messages", "post", "Create a message in a thread",
     json_body("                role: {type: string, enum: [user, assistant]}\n")),
])
def test_writes_that_grant_nothing_are_quiet(write, path, method, summary, extra):
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + operation(path, method, summary, extra)))
    assert [f for f in lint(spec).findings if f.rule == UNSAFE] == []


def test_a_marked_permission_change_is_quiet(write):
    marked = operation("/users/{user_id}", "put", "Update user", f"      {APPROVAL_MARKER}: true\n" + json_body(
        "                role: {type: string}\n"))
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + marked))
    assert [f for f in lint(spec).findings if f.rule == UNSAFE] == []


# -- id-param-no-source: ids among a request body's arguments -------------------------------------------------

NO_SOURCE = "id-param-no-source"
LIST_ROLES = operation("/organization/roles", "get", "Lists the roles configured for the organization.",
                       op_id="list-roles")


def test_a_body_id_names_the_list_that_provides_it(write):
    # OpenAI: assigning a role to a group takes `role_id`, "Identifier of the role to assign"; GET
    # /organization/roles lists them.
    assign = operation("/organization/groups/{group_id}/roles", "post", "Assigns an organization role to a group.",
                       params(param("group_id", "path", "The group, as returned by list-groups.")) + json_body(
                           "                role_id: {type: string, description: \"Identifier of the role to "
                           "assign.\"}\n"))
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + LIST_ROLES + assign))
    [finding] = [f for f in lint(spec).findings if f.rule == NO_SOURCE]
    assert finding.pointer == ("/paths/~1organization~1groups~1{group_id}~1roles/post/requestBody/content/"
                               "application~1json/schema/properties/role_id")
    assert "list-roles (GET /organization/roles)" in finding.message
    # Said where it comes from: quiet.
    said = assign.replace("Identifier of the role to assign.", "The id of a role, as returned by list-roles.")
    assert rules_at(run(write, LIST_ROLES + said), NO_SOURCE) == []
    # No list of roles to name: quiet (a body id is reported only when the message can say what to write).
    assert rules_at(run(write, assign), NO_SOURCE) == []


def test_body_ids_whose_only_list_is_the_wrong_one_are_quiet(write):
    # GitHub: a repository transfer's `team_ids` are the new owner's teams, not GET /repos/{owner}/{repo}/teams
    # (the teams the repo has now); an external group's `group_id` is not one of GET /orgs/{org}/team-sync/groups.
    repo_teams = operation("/repos/{owner}/{repo}/teams", "get", "List repository teams", params(
        param("owner", "path", "The account owner."), param("repo", "path", "The repository name.")))
    transfer = operation("/repos/{owner}/{repo}/transfer", "post", "Transfer a repository", params(
        param("owner", "path", "The account owner."), param("repo", "path", "The repository name.")) + json_body(
        "                team_ids: {type: array, items: {type: integer}, description: \"ID of the team or teams "
        "to add to the repository.\"}\n"))
    sync_groups = operation("/orgs/{org}/team-sync/groups", "get", "List IdP groups for an organization",
                            params(param("org", "path", "The organization name.")))
    external = operation("/orgs/{org}/teams/{team_slug}/external-groups", "patch", "Update the connection",
                         params(param("org", "path", "The organization name."),
                                param("team_slug", "path", "The slug of the team name.")) + json_body(
                             "                group_id: {type: integer, description: \"External Group Id.\"}\n"))
    assert rules_at(run(write, repo_teams + transfer + sync_groups + external), NO_SOURCE) == []


# -- string-format-missing: formats the prose requires by name ----------------------------------------------

FORMAT = "string-format-missing"


def test_a_format_required_in_prose_only(write):
    # Twilio Verify: PhoneNumber "in E.164 format" with no pattern; Box: a web link's url "Must start with
    # `"http://"` or `"https://"`." with no format (the URL in the text used to silence the rule).
    phone = param("PhoneNumber", "path", "The phone number in E.164 format, which consists of a + followed by "
                  "the country code and subscriber number.")
    url = "The new URL that the web link links to. Must start with `\\\"http://\\\"` or `\\\"https://\\\"`."
    paths = (operation("/v2/SafeList/Numbers/{PhoneNumber}", "get", "Check if a phone number is in the SafeList.",
                       params(phone)) +
             operation("/web_links/{web_link_id}", "put", "Update web link",
                       params(param("web_link_id", "path", "The ID of the web link.")) +
                       json_body(f"                url: {{type: string, description: \"{url}\"}}\n")))
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + paths))
    found = {f.pointer: f for f in lint(spec).findings if f.rule == FORMAT}
    assert sorted(found) == [
        "/paths/~1v2~1SafeList~1Numbers~1{PhoneNumber}/get/parameters/0",
        "/paths/~1web_links~1{web_link_id}/put/requestBody/content/application~1json/schema/properties/url"]
    e164 = found["/paths/~1v2~1SafeList~1Numbers~1{PhoneNumber}/get/parameters/0"]
    assert "E.164" in e164.message and e164.fix is None  # a pattern could reject what the API takes: no fix
    web = found["/paths/~1web_links~1{web_link_id}/put/requestBody/content/application~1json/schema/properties/url"]
    assert web.fix is not None and web.fix.value == "uri"


def test_formats_the_prose_widens_or_the_schema_declares_are_quiet(write):
    # Twilio Lookups: "in E.164 or national format"; Twilio Verify: "The phone number or email to verify";
    # a prefix of a number; a declared pattern.
    texts = ["The phone number to lookup in E.164 or national format.",
             "The phone number or email to verify. Phone numbers must be in E.164 format.",
             "It is the prefix of a phone number in E.164 format."]
    lines = [param(f"Number{i}", "query", text) for i, text in enumerate(texts)]
    lines.append(param("Declared", "query", "In E.164 format.", "{type: string, pattern: '^[+][1-9][0-9]{1,14}$'}"))
    assert rules_at(run(write, operation("/lookups", "get", "Look up a number", params(*lines))), FORMAT) == []


def test_nouns_that_start_like_a_verb_give_the_operation_no_verb(write):
    # "Address lookup" reads nothing from "add", nor "News feed" from "new": a fetch text there is the operation's.
    quiet = (operation("/addresses/{id}", "get", "Address lookup",
                       params(param("id", "path", "The ID of the address to fetch."))) +
             operation("/feeds/{id}", "get", "News feed", params(param("id", "path", "The feed to retrieve."))))
    assert rules_at(run(write, quiet), PASTED) == []
