"""The human-side predicate: secrets by name (and schema), told from the many tokens that are not secrets
(pagination, continuation, sync, idempotency, counts), with names as real specs spell them."""

from __future__ import annotations

import pytest

from workbench.spec import load_spec
from workbench.tools import convert
from workbench.tools.human import default_human

SECRETS = ["api_key", "apiKey", "X-API-Key", "apikey", "access_token", "accessToken", "X-Auth-Token", "authToken",
           "bearer_token", "refresh_token", "RefreshToken", "session_token", "sessionToken", "id_token", "IdToken",
           "subject_token", "actor_token", "token", "X-Token", "password", "vcs_password", "new_password",
           "password_confirmation", "passwd", "client_secret", "ClientSecret", "webhook_secret", "Binding.Secret",
           "secret", "credentials", "private_key", "privateKey", "SecretAccessKey", "passphrase"]
NOT_SECRETS = ["PageToken", "page_token", "pageToken", "nextPageToken", "next_token", "NextToken",
               "continuationToken", "continuation_token", "sync_token", "syncToken", "cursor", "idempotency_token",
               "IdempotencyToken", "resumeToken", "prev_page_token", "pagination_token", "starting_token",
               "delta_token", "Config.NotificationToken", "device_token", "secret_name", "secret_type",
               "api_key_id", "api_key_ids", "credential_id", "Push.ApnCredentialSid", "token_type",
               "subject_token_type", "tokenUrl", "max_tokens", "max_prompt_tokens", "keyword", "tokenizer"]


@pytest.mark.parametrize("name", SECRETS)
def test_secret_names_are_human(name):
    assert default_human(name, {"type": "string"}), name


@pytest.mark.parametrize("name", NOT_SECRETS)
def test_tokens_that_are_not_secrets_stay_with_the_model(name):
    assert not default_human(name, {"type": "string"}), name


def test_a_flag_or_count_named_after_a_secret_is_not_one():
    assert not default_human("automountServiceAccountToken", {"type": "boolean"})
    assert not default_human("is_password_reset_required", {"type": "boolean"})
    assert not default_human("password", {"type": "integer"})
    assert default_human("password", {}) and default_human("password", None)
    assert default_human("nextPageToken", {"type": "string", "format": "password"})  # the schema says so


SPEC = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /files:
    get:
      operationId: listFiles
      parameters:
        - {name: pageToken, in: query, schema: {type: string}}
        - {name: X-Api-Key, in: header, schema: {type: string}}
        - {name: page_size, in: query, schema: {type: integer}}
      responses: {'200': {description: ok}}
"""


def test_a_paginated_tool_keeps_its_page_token(write):
    spec = load_spec(write("pages.yaml", SPEC))
    tool = convert(spec).tool("listFiles")
    assert set(tool.parameters["properties"]) == {"pageToken", "page_size"}
    assert [b.argument for b in tool.bindings if b.human] == ["X_Api_Key"]
