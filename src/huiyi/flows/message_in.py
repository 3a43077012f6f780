"""A caller's message as ``add`` reads it, without building pydantic's validators for plain input.

A new process's first ``add`` built the validators of ``MessageIn`` and ``Message`` and, with the first
of them, ran pydantic's plugin discovery (``importlib.metadata``): ~20 ms of a bot's first message, where
later adds take a fraction of a millisecond (issue 15). A text, or a dict of plain values that pass the
validator's own checks, is made here with those checks and ``model_construct``; anything else, every
refusal included, goes through the validator, so what is accepted and how a refusal reads do not change.

    >>> message_in({"content": "好紧张", "name": "木木", "id": "wx-1"}).speaker
    '木木'
    >>> message_in("我下周三考驾照").role
    'user'
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from huiyi.checks import check_message_ids, check_text
from huiyi.model import Message, MessageIn, Scope

__all__ = ["message_in", "stored_message"]

# each key a caller may use, by the field it fills (text may come as a chat API's content, speaker as name)
_FIELDS = {"text": "text", "content": "text", "role": "role", "speaker": "speaker", "name": "speaker"}
_FIELDS |= {"time": "time", "id": "id"}
_ROLES = ("user", "assistant")


def message_in(item: MessageIn | dict[str, object] | str) -> MessageIn:
    """``item`` as ``MessageIn.model_validate`` reads it (raises its ``ValidationError`` the same way)."""
    if isinstance(item, MessageIn):
        return item
    fields = {"text": item} if isinstance(item, str) else _plain(item)
    if fields is None or not _passes(fields):
        return MessageIn(text=item) if isinstance(item, str) else MessageIn.model_validate(item)
    return MessageIn.model_construct(**fields)


def stored_message(message: MessageIn, *, id: str, scope: Scope, speaker: str, when: datetime) -> Message:
    """The message as stored: every part comes checked (the caller's by :func:`message_in`, the scope by
    its constructor, the id and speaker from either), and its space is its scope's by construction. A
    speaker that is no string (a group's ``person`` is not part of its scope) meets the validator."""
    fields: dict[str, Any] = {"id": id, "agent": scope.agent, "space": scope.space_id, "scope": scope}
    fields["speaker"] = speaker
    fields |= {"role": message.role, "text": message.text, "time": when}
    if type(speaker) is not str or type(id) is not str:
        return Message(**fields)
    return Message.model_construct(**fields)


def _plain(item: object) -> dict[str, Any] | None:
    """A dict's fields by name when every key is known, no field is given twice (text and content) and
    every value has the exact type the validator keeps as it is; None for anything else."""
    if type(item) is not dict:
        return None
    fields: dict[str, Any] = {}
    for key, value in item.items():
        name = _FIELDS.get(key) if type(key) is str else None
        if name is None or name in fields:
            return None
        fields[name] = value
    role = fields.get("role", "user")
    if type(fields.get("text")) is not str or type(role) is not str or role not in _ROLES:
        return None
    if any(fields.get(name) is not None and type(fields[name]) is not str for name in ("speaker", "id")):
        return None
    if fields.get("time") is not None and type(fields["time"]) is not datetime:
        return None
    return fields


def _passes(fields: dict[str, Any]) -> bool:
    """The validator's checks (``MessageIn._storable`` and ``_printable_ids``) on plain fields."""
    try:
        check_text(fields["text"], "message")
        check_message_ids(fields.get("speaker"), fields.get("id"))
    except ValueError:
        return False
    return True
