"""The API key a model runner sends: from the environment, else the OS keyring — never from the suite, and
never written anywhere. A local server (Ollama, llama.cpp, LM Studio) wants none, so it gets a placeholder."""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import urlsplit

from workbench.http.auth import KEYRING_SERVICE, keyring_password
from workbench.selection.model import ModelSettings
from workbench.spec import SpecError

KEYRING_ENTRY = "openai"
NOT_NEEDED = "not-needed"  # what a loopback server is given: the client refuses to start without a key
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def effective_base_url(base_url: str | None) -> str:
    """The URL the client will talk to: the one given, else OPENAI_BASE_URL (the client reads it too), else
    OpenAI's own."""
    return base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL


def is_loopback(base_url: str) -> bool:
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def keyring_key(entry: str = KEYRING_ENTRY) -> str | None:
    return keyring_password(entry)


def store_key(entry: str, key: str) -> None:
    """Put a key in the OS keyring (the desktop workbench's profiles); an empty key removes the entry. Raises
    SpecError in one line when no keyring can take it."""
    import keyring
    import keyring.errors

    try:
        if key:
            keyring.set_password(KEYRING_SERVICE, entry, key)
        elif keyring.get_password(KEYRING_SERVICE, entry) is not None:
            keyring.delete_password(KEYRING_SERVICE, entry)
    except keyring.errors.KeyringError as exc:
        raise SpecError(f"the OS keyring cannot store the key: {type(exc).__name__}", "<api key>") from None


def move_key(old_entry: str, new_entry: str) -> None:
    """Move a stored key from one keyring entry to another (a renamed profile's); nothing when there is none.
    Raises SpecError in one line when the keyring cannot take it."""
    import keyring
    import keyring.errors

    if old_entry == new_entry:
        return
    try:
        key = keyring.get_password(KEYRING_SERVICE, old_entry)
    except keyring.errors.KeyringError as exc:
        raise SpecError(f"the OS keyring cannot read the key: {type(exc).__name__}", "<api key>") from None
    if key is not None:
        store_key(new_entry, key)
        store_key(old_entry, "")


def api_key(settings: ModelSettings, base_url: str | None) -> str:
    """The key for this endpoint: the environment's, else the keyring's. A desktop workbench profile's key is its own
    keyring entry: the environment's key is used for a profile only when it talks to OpenAI's own API, never sent
    to another endpoint.
    A one-line SpecError says where to put it when there is none."""
    env = settings.key_env or "OPENAI_API_KEY"
    entry = settings.key_entry or KEYRING_ENTRY
    given = os.environ.get(env, "").strip()
    if entry != KEYRING_ENTRY:  # a profile's own entry; the environment's key goes to OpenAI's own API only
        openai = urlsplit(effective_base_url(base_url)).hostname == "api.openai.com"
        key = keyring_key(entry) or (given if openai else "")
    else:
        key = given or keyring_key(entry)
    if key:
        return key
    url = effective_base_url(base_url)
    if is_loopback(url):
        return NOT_NEEDED
    raise SpecError(f"no API key for {urlsplit(url).hostname or url}: set the environment variable {env}, or "
                    f"store it with `keyring set {KEYRING_SERVICE} {settings.key_entry or KEYRING_ENTRY}`", "<api key>",
                    code="api-key-missing")
