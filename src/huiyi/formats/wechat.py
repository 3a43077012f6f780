"""WeChat chats as the common export tools write them (WeChatMsg / 留痕 / MemoTrace).

CSV, one message a row, with the columns ``localId, TalkerId, Type, SubType, IsSender, CreateTime,
Status, StrContent, StrTime, Remark, NickName, Sender``: ``Type`` 1 is text (other types, pictures,
voice, stickers, are left out and counted), ``IsSender`` 1 is the account owner (the agent),
``StrTime`` the local time, ``Sender`` the speaker's wxid in a group. A ``TalkerId`` ending in
``@chatroom``, or more than one other speaker, makes a group; the file's name is the chat's.

HTML, as the same tools write it: the messages sit in the page as a script array
(``const chatMessages = [{type, text, is_send, timestamp, is_chatroom, displayname}, …]``); speakers
are known by display name only.
"""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime, tzinfo
from typing import Any

from huiyi.errors import InvalidInput
from huiyi.formats.chat import ChatLine, Conversation, Who, chat_plan
from huiyi.formats.plan import Plan
from huiyi.text.times import read_iso

__all__ = ["CSV_COLUMNS", "looks_like_wechat_csv", "looks_like_wechat_html", "read_wechat_csv", "read_wechat_html"]

CSV_COLUMNS = ["localId", "TalkerId", "Type", "SubType", "IsSender", "CreateTime", "Status", "StrContent"]
TEXT = "1"
ARRAY = re.compile(r"(?:const|let|var)\s+chatMessages\s*=\s*\[", re.S)


def looks_like_wechat_csv(text: str) -> bool:
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    return all(column in first for column in ("StrContent", "IsSender"))


def looks_like_wechat_html(text: str) -> bool:
    return bool(ARRAY.search(text[:2_000_000])) and "<html" in text[:5000].lower()


def read_wechat_csv(text: str, title: str, who: Who, zone: tzinfo) -> Plan:
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    if rows and not all(column in rows[0] for column in ("StrContent", "IsSender", "Type")):
        raise InvalidInput(f"{title}: not a WeChat CSV export (needs StrContent, IsSender, Type columns)")
    chat = Conversation(title=title)
    skipped = 0
    for row in rows:
        text_of = (row.get("StrContent") or "").strip()
        if (row.get("Type") or "").strip() != TEXT or not text_of:
            skipped += 1
            continue
        talker = (row.get("TalkerId") or "").strip()
        if talker.endswith("@chatroom"):
            chat.group = True
        mine = (row.get("IsSender") or "").strip() == "1"
        nickname = (row.get("NickName") or row.get("Remark") or "").strip()
        speaker = "\x00self" if mine else ((row.get("Sender") or "").strip() or talker or nickname)
        chat.lines.append(ChatLine(time=_time(row, zone), speaker=speaker, nickname=nickname, text=text_of))
    plan = chat_plan([chat], _with_self(who), source="wechat", platform="wechat")
    if skipped:
        plan.notes.append(f"WeChat: {skipped} rows that are not text (pictures, voice, system notices) left out")
    return plan


def read_wechat_html(text: str, title: str, who: Who, zone: tzinfo) -> Plan:
    found = ARRAY.search(text)
    if not found:
        raise InvalidInput(f"{title}: no chatMessages array in this HTML export")
    records = js_array(text, found.end() - 1)
    chat = Conversation(title=title)
    skipped = 0
    for record in records:
        body = str(record.get("text") or "").strip()
        if str(record.get("type", TEXT)) != TEXT or not body:
            skipped += 1
            continue
        if record.get("is_chatroom") in (1, True, "1"):
            chat.group = True
        name = str(record.get("displayname") or "").strip()
        mine = record.get("is_send") in (1, True, "1")
        when = datetime.fromtimestamp(float(record.get("timestamp") or 0), UTC).astimezone(zone).replace(tzinfo=None)
        chat.lines.append(ChatLine(time=when, speaker="\x00self" if mine else name, nickname=name, text=body))
    plan = chat_plan([chat], _with_self(who), source="wechat", platform=None)
    if skipped:
        plan.notes.append(f"WeChat: {skipped} messages that are not text left out")
    return plan


def _with_self(who: Who) -> Who:
    return Who(agent=who.agent, person=who.person, space=who.space, selves=who.selves | {"\x00self"})


def _time(row: dict[str, str], zone: tzinfo) -> datetime:
    shown = (row.get("StrTime") or "").strip()
    if shown:
        return read_iso(shown.replace("/", "-"))
    try:
        return datetime.fromtimestamp(float(row.get("CreateTime") or ""), UTC).astimezone(zone).replace(tzinfo=None)
    except ValueError as exc:
        raise InvalidInput(f"row {row.get('localId', '?')}: no StrTime or CreateTime") from exc


def js_array(text: str, start: int) -> list[dict[str, Any]]:
    """The JavaScript array literal at ``text[start]`` (objects of plain values) read as JSON."""
    out: list[str] = []
    depth, i = 0, start
    while i < len(text):
        ch = text[i]
        if ch in "'\"":
            end, value = _js_string(text, i)
            out.append(json.dumps(value, ensure_ascii=False))
            i = end
            continue
        if ch.isalpha() or ch in "_$":
            word = re.match(r"[A-Za-z_$][\w$]*", text[i:])
            assert word is not None
            token = word.group(0)
            after = text[i + len(token) :].lstrip()
            out.append(json.dumps(token) if after.startswith(":") else token)
            i += len(token)
            continue
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        out.append(ch)
        i += 1
        if depth == 0:
            break
    literal = re.sub(r",\s*([\]}])", r"\1", "".join(out))  # trailing commas
    try:
        value = json.loads(literal)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"the chatMessages array could not be read: {exc}") from exc
    return [item for item in value if isinstance(item, dict)]


def _js_string(text: str, start: int) -> tuple[int, str]:
    quote, i, chars = text[start], start + 1, []
    while i < len(text) and text[i] != quote:
        if text[i] == "\\" and i + 1 < len(text):
            escaped = text[i + 1]
            if escaped == "u":
                chars.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            chars.append({"n": "\n", "t": "\t", "r": "\r"}.get(escaped, escaped))
            i += 2
            continue
        chars.append(text[i])
        i += 1
    return i + 1, "".join(chars)
