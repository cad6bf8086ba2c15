"""Safety: agents fire writes blindly unless the spec says what cannot be undone."""

from __future__ import annotations

import re

from workbench import lazy_pattern
from workbench.lint.registry import Report, rule
from workbench.lint.rules.parameters import body_schema
from workbench.naming import last_segment
from workbench.policy import safety

# Words in a description that warn a reader that the effect is destructive or cannot be undone.
# Only words about the effect count: a "warning" or "caution" in a notice box about something else does not.
_WARNING_WORDS = lazy_pattern(r"\b(irreversibl\w*|permanent\w*|cannot be (undone|recovered|restored|reversed)|"
                            r"can't be (undone|recovered|restored)|not (be )?(reversible|recoverable)|destructive|"
                            r"no undo|undo|restor\w*|recover\w*|trash|requires? (human )?approval)\b", re.I)
# Non-DELETE writes whose path or id names an action that removes, pays out or cancels.
_DESTRUCTIVE_WORDS = ("delete", "remove", "destroy", "purge", "wipe", "erase", "cancel", "refund", "revoke",
                      "terminate", "void", "close", "archive", "reset", "drop", "truncate", "deactivate", "disable",
                      "charge", "payout", "transfer")
_DESTRUCTIVE_ACTION = lazy_pattern(f"({'|'.join(_DESTRUCTIVE_WORDS)})", re.I)


def _names_destructive_word(name: str) -> bool:
    """`_DESTRUCTIVE_ACTION` found in `name`; an ASCII name (nearly all) is scanned for the words in lower case
    instead, the same answer for a tenth of the case-insensitive pattern's cost."""
    if name.isascii():
        lowered = name.lower()
        return any(word in lowered for word in _DESTRUCTIVE_WORDS)
    return _DESTRUCTIVE_ACTION.search(name) is not None


# An operationId that starts with one of these verbs makes something (`create-remove-token-for-org`
# creates a token; it removes nothing), whatever its path says.
_CONSTRUCTIVE_VERB = lazy_pattern(r"(create|get|list|add|generate|new|make|issue)(?![a-z])", re.I)


def _names_destructive_action(op) -> bool:
    """A write whose path or operationId names a removal, payout or cancellation (a suspicion: what the
    spec does not declare, workbench.policy cannot know)."""
    if op.method not in ("post", "put", "patch"):
        return False
    if op.operation_id and _CONSTRUCTIVE_VERB.match(last_segment(op.operation_id)):
        return False
    last_static = [s for s in op.path.split("/") if s and not s.startswith("{")][-1:]
    names = [*last_static, op.operation_id or ""]
    return any(_names_destructive_word(n) for n in names if n)


@rule("destructive-operation-unmarked", "warn", "safety",
      "DELETE and destructive writes say so, or carry an approval marker",
      fix="Say in the description whether the change can be undone (\"permanently deletes …\", \"can be "
          "restored from …\"), or mark the operation `x-agent-requires-approval: true` (`x-destructive: false` "
          "when it is harmless).")
def destructive_operation_unmarked(spec, context):
    for op in spec.operations:
        care = safety(op)
        if care.marked or not (care.destructive or _names_destructive_action(op)):
            continue
        if _WARNING_WORDS.search(f"{op.summary or ''} {op.description or ''}"):
            continue
        effect = "deletes" if op.method == "delete" else "names a removal, payout or cancellation"
        yield Report(f"{op.label()} {effect}, and its description does not say whether that can be undone: say so "
                     "(\"permanently deletes …\" or \"can be restored from …\"), or mark it "
                     "`x-agent-requires-approval: true` (or `x-destructive: false` when it is harmless)",
                     op.origin.document, op.origin.pointer)


# Writes whose effect leaves the system and cannot be called back: a message or a call reaches a person, a
# purchase or payment spends money, an invitation or publication is seen by others.
_OUTWARD_SEGMENT = lazy_pattern(r"^(sms|mms|notifications?|broadcasts?|payments?|charges?|payouts?|"
                              r"transfers?|purchases?|invitations?|invites?|verifications?)$", re.I)
# A summary that starts so ("Send a message", "Place a call", "Buy a number"); `messages` or `calls` in a path
# alone prove nothing (a chat thread's messages stay inside the system).
_OUTWARD_VERB = lazy_pattern(r"^(send|sends|places? (an? )?(outbound |phone )?call|makes? a call|dial|dials|text|"
                           r"email|emails|notify|notifies|"
                           r"purchase|purchases|buy|buys|pay|pays|charge|charges|transfer|transfers|publish|"
                           r"publishes|invite|invites|broadcast|broadcasts|close|closes)\b", re.I)


def _last_static(op) -> list[str]:
    """The path's last static segment (`reject` of /realtime/calls/{call_id}/reject), as a list of 0 or 1."""
    return [s for s in op.path.split("/") if s and not s.startswith("{")][-1:]


def _summary(op) -> str:
    return (op.summary or op.description or "").strip()


def outward_action(op) -> str | None:
    """What a POST/PUT/PATCH does beyond the system, by its last path segment or its summary's first verb (a
    suspicion the spec has not declared: workbench.policy decides only from what is declared)."""
    if op.method not in ("post", "put", "patch"):
        return None
    last, summary = _last_static(op), _summary(op)
    verb = _OUTWARD_VERB.match(summary)
    if verb:
        return f"the summary says {verb.group(1).lower()!r}"
    if op.method == "post" and last and _OUTWARD_SEGMENT.match(last[0].split(".")[0]):
        return f"it creates {last[0]}"
    return None


# Writes that change who may do what: a role or permission granted, an account's role or login changed.
_GRANT_SEGMENT = lazy_pattern(r"^(permissions|model_permissions|role_assignments|grants)$", re.I)
# `roles` under a user, group or member (/users/{user_id}/roles) assigns; bare `/roles` defines roles, and a
# write to one role (/roles/{role_id}) changes what everyone holding it may do.
_SUBJECTS = frozenset(("users", "groups", "members", "memberships", "teams", "principals", "accounts",
                       "service_accounts", "identities"))
_GRANT_VERB = lazy_pattern(r"^(assigns?|grants?)\b[^.]*\b(roles?|permissions?|access|admin\w*|owners?)\b", re.I)
_ROLE_PROPERTIES = ("role", "roles", "is_admin", "admin")
# A live call or request someone is waiting on, turned away: the person on the other end hears it at once.
_REFUSE_SEGMENT = lazy_pattern(r"^(reject|decline|hangup|hang_up)$", re.I)


def permission_change(spec, op) -> str | None:
    """How a POST/PUT/PATCH changes who may do what, by its last path segment, its summary's first verb or (an
    update) a role among its body's arguments (a suspicion, like outward_action's)."""
    if op.method not in ("post", "put", "patch"):
        return None
    last, summary = _last_static(op), _summary(op)
    grant = _GRANT_VERB.match(summary)
    if grant:
        return f"the summary says {grant.group(0)!r}"
    if last and _GRANT_SEGMENT.match(last[0]):
        return f"it writes {last[0]}"
    segments = [s for s in op.path.split("/") if s]
    if len(segments) >= 3 and segments[-1] == "roles" and segments[-2].startswith("{") and segments[-3] in _SUBJECTS:
        return f"it assigns roles to {segments[-3]}"
    if len(segments) >= 2 and segments[-2] == "roles" and segments[-1].startswith("{"):
        return "it changes a role that others hold"
    if op.method in ("put", "patch") and op.path.rstrip("/").endswith("}"):
        schema, _ = body_schema(spec, op)
        properties = schema.get("properties") if isinstance(schema, dict) else None
        named = [name for name in _ROLE_PROPERTIES if isinstance(properties, dict) and name in properties]
        if named:
            return f"it can change {named[0]!r}"
    return None


def refusal(op) -> str | None:
    """A POST that turns away a live call or a waiting request (`/calls/{call_id}/reject`)."""
    last = _last_static(op)
    if op.method == "post" and last and _REFUSE_SEGMENT.match(last[0]):
        return f"it is {last[0]}"
    return None


@rule("unsafe-write-unmarked", "warn", "safety",
      "writes that reach people, spend money or change permissions (send a message, place a call, buy a number, "
      "grant a role) ask for approval",
      fix="Mark the operation `x-agent-requires-approval: true`: a message sent, a call placed, money spent or a "
          "role granted cannot be taken back by the agent; or `x-destructive: false` if the change is harmless.")
def unsafe_write_unmarked(spec, context):
    for op in spec.operations:
        care = safety(op)
        if care.marked or care.destructive or _names_destructive_action(op):
            continue  # declared, or destructive-operation-unmarked reports it
        action = outward_action(op)
        if action is not None:
            what = f"reaches beyond the system ({action}): a message sent, a call placed or money spent cannot be " \
                   "taken back"
        elif (action := refusal(op)) is not None:
            what = f"acts on a live call or request ({action}): the person on the other end hears it at once"
        elif (action := permission_change(spec, op)) is not None:
            what = f"changes who may do what ({action}): a wrong role or permission lets someone in or locks them out"
        else:
            continue
        yield Report(f"{op.label()} {what}, yet it carries no `x-agent-requires-approval: true`; mark it, so an "
                     "agent asks a person before it fires", op.origin.document, op.origin.pointer)
