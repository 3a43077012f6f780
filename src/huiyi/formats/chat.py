"""Chat exports of other apps (QQ, WeChat, MemoryBank) as a plan: the shape they share.

An exporter gives conversations of lines (time, speaker id, nickname, text). Here they become what a
live bot would have sent: a private chat is the person's (their platform id is the person id), a group
is a space (its name or id), each speaker a person whose nicknames are aliases and whose platform id
is kept, and the agent's own account (``selves``) speaks as the agent. Message ids are derived from
the line itself, so importing a file again, or after an interruption, skips what is stored.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from huiyi.errors import InvalidInput
from huiyi.formats.plan import Plan
from huiyi.model import Person

__all__ = ["ChatLine", "Conversation", "Who", "chat_plan"]


@dataclass
class ChatLine:
    time: datetime  # wall-clock in the configured timezone
    speaker: str  # the platform's id of the speaker (a QQ number, a wxid) or, lacking one, the nickname
    nickname: str
    text: str


@dataclass
class Conversation:
    title: str  # the group's name or the friend's, as the export names it
    lines: list[ChatLine] = field(default_factory=list)
    group: bool | None = None  # None: a group when more than one other person speaks


@dataclass
class Who:
    """What the caller tells an import of chats: whose memory, who the agent is, where it goes."""

    agent: str | None
    person: str | None = None  # the private chat's person, instead of the other speaker's id (one chat only)
    space: str | None = None  # the group's space id, instead of its title (one chat only)
    selves: frozenset[str] = frozenset()  # ids or nicknames of the agent's own account

    def need_agent(self, what: str) -> str:
        if not self.agent:
            raise InvalidInput(f"{what}: give the agent whose memory this is with --agent")
        return self.agent


def message_id(source: str, chat: str, line: ChatLine, seen: Counter[str]) -> str:
    """An id from the line itself (and how many identical lines came before it in this chat)."""
    key = "\x1f".join([chat, line.time.isoformat(), line.speaker, line.text])
    seen[key] += 1
    digest = hashlib.blake2b(f"{key}\x1f{seen[key]}".encode(), digest_size=10).hexdigest()
    return f"{source}:{digest}"


def chat_plan(conversations: list[Conversation], who: Who, *, source: str, platform: str | None) -> Plan:
    """The plan of these conversations: persons first, then each conversation's messages in time order."""
    agent = who.need_agent(source)
    chats = [conversation for conversation in conversations if conversation.lines]
    if (who.person or who.space) and len(chats) > 1:  # one person's name over every friend's chat: a leak
        titles = ", ".join(repr(conversation.title) for conversation in chats[:3]) + (", …" if len(chats) > 3 else "")
        raise InvalidInput(
            f"{source}: the file holds {len(chats)} chats ({titles}); --person and --space name the chat of a file"
            " that holds one. Import it without them: each private chat is then its friend's, each group a space"
        )
    plan = Plan()
    names: dict[str, list[str]] = {}
    for conversation in conversations:
        lines = sorted(conversation.lines, key=lambda line: line.time)  # stable: same-second lines keep order
        if not lines:
            continue
        others = {line.speaker for line in lines if not _is_self(line, who)}
        group = conversation.group if conversation.group is not None else len(others) > 1
        if who.space:
            group = True
        space = (who.space or conversation.title) if group else None
        person = None if group else (who.person or (next(iter(others)) if len(others) == 1 else None))
        if not group and not person:
            raise InvalidInput(f"{conversation.title or source}: no one but the agent speaks; give --person")
        seen: Counter[str] = Counter()
        for line in lines:
            mine = _is_self(line, who)
            if not mine:
                known = names.setdefault(line.speaker, [])
                if line.nickname and line.nickname not in known:
                    known.append(line.nickname)
            speaker = agent if mine else (person if person and not group else line.speaker)
            plan.add_message(
                agent,
                person,
                space,
                {
                    "text": line.text,
                    "role": "assistant" if mine else "user",
                    "speaker": speaker,
                    "time": line.time,
                    "id": message_id(source, space or person or "", line, seen),
                },
            )
    for speaker, nicknames in names.items():
        person_id = who.person if who.person and len(names) == 1 else speaker
        aliases = [name for name in nicknames if name != person_id]
        ids = {platform: speaker} if platform and speaker not in nicknames else {}
        name = nicknames[-1] if nicknames else ""
        plan.persons.append((agent, Person(id=person_id, name=name, aliases=aliases, platform_ids=ids)))
    return plan


def _is_self(line: ChatLine, who: Who) -> bool:
    return line.speaker in who.selves or (bool(line.nickname) and line.nickname in who.selves)
