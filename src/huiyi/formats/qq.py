"""QQ's text export of a chat (消息管理器 → 导出消息记录 → .txt).

    消息记录（此消息记录为文本格式，不支持重新导入）

    ================================================================
    消息分组:我的群聊
    ================================================================
    消息对象:周末爬山群
    ================================================================

    2024-05-01 20:15:32 小满(10001)
    周六去爬山吗

    2024-05-01 20:16:01 阿青<aqing@example.com>
    好呀

Each message is a header line (date-time, nickname, then the QQ number in brackets, or an e-mail
address in angle brackets) and the message's lines up to the next header. One file may hold many
conversations, each under its own ``消息对象``; a ``消息分组`` naming 群 marks a group. QQ numbers
become person ids and platform ids (``qq``), nicknames aliases, a group's name its space.
"""

from __future__ import annotations

import re
from datetime import datetime

from huiyi.formats.chat import ChatLine, Conversation, Who, chat_plan
from huiyi.formats.plan import Plan
from huiyi.formats.read import file_lines

__all__ = ["looks_like_qq", "read_qq"]

HEADER = re.compile(
    r"^(?P<time>\d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{2}:\d{2}) (?P<nick>.*?)\s*"
    r"(?:\((?P<qq>[^()]+)\)|<(?P<mail>[^<>]+)>)\s*$"
)
FIELD = re.compile(r"^消息(?P<key>分组|对象)\s*[:：]\s*(?P<value>.*)$")
RULE = re.compile(r"^=+$")


def looks_like_qq(text: str) -> bool:
    head = text[:4000]
    return "消息对象" in head or ("消息记录" in head and any(HEADER.match(line) for line in head.splitlines()))


def read_qq(text: str, who: Who) -> Plan:
    conversations: list[Conversation] = []
    current: Conversation | None = None
    kind = ""
    body: list[str] = []
    header: re.Match[str] | None = None

    def close_message() -> None:
        nonlocal header, body
        if header is not None:
            while body and not body[-1].strip():
                body.pop()
            message = "\n".join(body).strip()
            if message and current is not None:
                speaker = header["qq"] or header["mail"]
                nick = header["nick"].strip() or speaker
                when = datetime.strptime(header["time"], "%Y-%m-%d %H:%M:%S")
                current.lines.append(ChatLine(time=when, speaker=speaker.strip(), nickname=nick, text=message))
        header, body = None, []

    for line in file_lines(text):  # not str.splitlines: a message's U+2028 is a character of it
        field = FIELD.match(line.strip())
        if field:
            close_message()
            if field["key"] == "分组":
                kind = field["value"].strip()
            else:
                current = Conversation(title=field["value"].strip(), group=True if "群" in kind else None)
                conversations.append(current)
            continue
        if RULE.match(line.strip()):
            continue
        matched = HEADER.match(line)
        if matched:
            close_message()
            if current is None:  # a file of one conversation with no 消息对象 line
                current = Conversation(title="")
                conversations.append(current)
            header = matched
            continue
        if header is not None:
            body.append(line)
    close_message()
    plan = chat_plan(conversations, who, source="qq", platform="qq")
    plan.notes.append(f"QQ: {sum(len(c.lines) for c in conversations)} messages in {len(conversations)} chats")
    return plan
