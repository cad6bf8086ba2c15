"""Credentials for the spec's securitySchemes, from the environment or the OS keyring — never from
project files — and the masking that keeps them out of anything shown or logged."""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.wire import serialize_query

KEYRING_SERVICE = "agent-spec-workbench"
MASK = "********"


def env_name(scheme: str) -> str:
    """The environment variable that holds a scheme's secret: WORKBENCH_AUTH_<SCHEME NAME>."""
    return "WORKBENCH_AUTH_" + re.sub(r"[^A-Za-z0-9]+", "_", scheme).strip("_").upper()


def secret_for(scheme: str, given: Mapping[str, str] | None = None) -> str | None:
    """The secret given for this run (the round trip's stand-ins for the mock), else the environment's,
    else the OS keyring's."""
    if given and given.get(scheme):
        return given[scheme]
    value = os.environ.get(env_name(scheme))
    if value:
        return value
    return keyring_password(scheme)


def keyring_password(entry: str) -> str | None:
    """The OS keyring's secret for `entry` under the product's service, when a keyring is installed and
    unlocked; its absence is not an error."""
    try:
        import keyring

        return keyring.get_password(KEYRING_SERVICE, entry) or None
    except Exception:
        return None


@dataclass
class AppliedAuth:
    headers: dict[str, str] = field(default_factory=dict)
    query: list[tuple[str, str]] = field(default_factory=list)
    cookies: dict[str, str] = field(default_factory=dict)
    secrets: list[str] = field(default_factory=list)  # values to mask wherever a request is shown
    missing: list[str] = field(default_factory=list)  # schemes the operation wants but no secret was found


def apply_auth(schemes: dict[str, dict], requirements: tuple[dict, ...],
               given: Mapping[str, str] | None = None) -> AppliedAuth:
    """Satisfy the first security requirement whose secrets are all available (OpenAPI semantics: any
    one requirement object suffices; within it, all schemes apply)."""
    applied = AppliedAuth()
    if not requirements:
        return applied
    for requirement in requirements:
        if not requirement:
            return applied  # `{}`: anonymous access is allowed
        attempt = AppliedAuth()
        for name in requirement:
            scheme = schemes.get(name)
            secret = secret_for(name, given)
            if scheme is None or secret is None:
                attempt.missing.append(name)
                continue
            _apply_one(attempt, scheme, secret)
        if not attempt.missing:
            return attempt
        applied.missing = applied.missing or attempt.missing
    return applied


def _apply_one(applied: AppliedAuth, scheme: dict, secret: str) -> None:
    kind = scheme.get("type")
    if kind == "apiKey":
        name, where = str(scheme.get("name", "")), scheme.get("in")
        if where == "header":
            applied.headers[name] = secret
        elif where == "query":
            applied.query.append((name, secret))
            applied.secrets += [value for _, value in serialize_query(name, secret)]  # as it appears in the URL
        elif where == "cookie":
            applied.cookies[name] = secret
        applied.secrets.append(secret)
    elif kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
        token = base64.b64encode(secret.encode()).decode()  # the secret is "user:password"
        applied.headers["Authorization"] = f"Basic {token}"
        applied.secrets += [secret, token]
    else:  # http bearer, oauth2, openIdConnect: a token the user obtained
        applied.headers["Authorization"] = f"Bearer {secret}"
        applied.secrets.append(secret)


def mask(text: str, secrets: list[str]) -> str:
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def mask_value(value: Any, secrets: list[str]) -> Any:
    """`mask` through a JSON-like value: every string in it (keys too), in dicts, lists and tuples."""
    if not any(secrets):
        return value
    if isinstance(value, str):
        return mask(value, secrets)
    if isinstance(value, dict):
        return {mask_value(k, secrets): mask_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(mask_value(v, secrets) for v in value)
    return value


def url_without_credentials(url: str) -> str | None:
    """A URL as it may be shown, logged or reported: scheme, host, port and path, never a user:password or a
    query written into it; None when it cannot be read."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a port that is not a number raises here)
        netloc = parts.netloc.rpartition("@")[2]  # host[:port] as written ([::1] keeps its brackets)
    except ValueError:
        return None
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def url_host(url: str) -> str | None:
    """host[:port] of a URL, without credentials; None when it has none or cannot be read."""
    from urllib.parse import urlsplit

    shown = url_without_credentials(url)
    return urlsplit(shown).netloc or None if shown else None
