"""Safety: agents fire writes blindly unless the spec says what cannot be undone."""

from __future__ import annotations

import re

from workbench.lint.registry import Report, rule
from workbench.naming import last_segment
from workbench.policy import safety

# Words in a description that warn a reader that the effect is destructive or cannot be undone.
# Only words about the effect count: a "warning" or "caution" in a notice box about something else does not.
_WARNING_WORDS = re.compile(r"\b(irreversibl\w*|permanent\w*|cannot be (undone|recovered|restored|reversed)|"
                            r"can't be (undone|recovered|restored)|not (be )?(reversible|recoverable)|destructive|"
                            r"no undo|undo|restor\w*|recover\w*|trash|requires? (human )?approval)\b", re.I)
# Non-DELETE writes whose path or id names an action that removes, pays out or cancels.
_DESTRUCTIVE_ACTION = re.compile(r"(delete|remove|destroy|purge|wipe|erase|cancel|refund|revoke|terminate|"
                                 r"void|close|archive|reset|drop|truncate|deactivate|disable|charge|payout|"
                                 r"transfer)", re.I)


# An operationId that starts with one of these verbs makes something (`create-remove-token-for-org`
# creates a token; it removes nothing), whatever its path says.
_CONSTRUCTIVE_VERB = re.compile(r"(create|get|list|add|generate|new|make|issue)(?![a-z])", re.I)


def _names_destructive_action(op) -> bool:
    """A write whose path or operationId names a removal, payout or cancellation (a suspicion: what the
    spec does not declare, workbench.policy cannot know)."""
    if op.method not in ("post", "put", "patch"):
        return False
    if op.operation_id and _CONSTRUCTIVE_VERB.match(last_segment(op.operation_id)):
        return False
    last_static = [s for s in op.path.split("/") if s and not s.startswith("{")][-1:]
    names = [*last_static, op.operation_id or ""]
    return any(_DESTRUCTIVE_ACTION.search(n) for n in names if n)


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
_OUTWARD_SEGMENT = re.compile(r"^(sms|mms|notifications?|broadcasts?|payments?|charges?|payouts?|"
                              r"transfers?|purchases?|invitations?|invites?|verifications?)$", re.I)
# A summary that starts so ("Send a message", "Place a call", "Buy a number"); `messages` or `calls` in a path
# alone prove nothing (a chat thread's messages stay inside the system).
_OUTWARD_VERB = re.compile(r"^(send|sends|places? (an? )?(outbound |phone )?call|makes? a call|dial|dials|text|"
                           r"email|emails|notify|notifies|"
                           r"purchase|purchases|buy|buys|pay|pays|charge|charges|transfer|transfers|publish|"
                           r"publishes|invite|invites|broadcast|broadcasts|close|closes)\b", re.I)


def outward_action(op) -> str | None:
    """What a POST/PUT/PATCH does beyond the system, by its last path segment or its summary's first verb (a
    suspicion the spec has not declared: workbench.policy decides only from what is declared)."""
    if op.method not in ("post", "put", "patch"):
        return None
    last = [s for s in op.path.split("/") if s and not s.startswith("{")][-1:]
    summary = (op.summary or op.description or "").strip()
    verb = _OUTWARD_VERB.match(summary)
    if verb:
        return f"the summary says {verb.group(1).lower()!r}"
    if op.method == "post" and last and _OUTWARD_SEGMENT.match(last[0].split(".")[0]):
        return f"it creates {last[0]}"
    return None


@rule("unsafe-write-unmarked", "warn", "safety",
      "writes that reach people or spend money (send a message, place a call, buy a number) ask for approval",
      fix="Mark the operation `x-agent-requires-approval: true`: a message sent, a call placed or money spent "
          "cannot be taken back.")
def unsafe_write_unmarked(spec, context):
    for op in spec.operations:
        care = safety(op)
        if care.marked or care.destructive or _names_destructive_action(op):
            continue  # declared, or destructive-operation-unmarked reports it
        action = outward_action(op)
        if action is None:
            continue
        yield Report(f"{op.label()} reaches beyond the system ({action}): a message sent, a call placed or money "
                     "spent cannot be taken back, yet it carries no `x-agent-requires-approval: true`; mark it, so "
                     "an agent asks a person before it fires", op.origin.document, op.origin.pointer)
