"""MemoryBank's memory file (SiliconFriend's ``memory.json``): one object per user name::

    {"木木": {"name": "木木",
              "history": {"2024-05-01": [{"query": "…", "response": "…"}, …]},
              "summary": {"2024-05-01": {"content": "…"}},
              "personality": {"2024-05-01": "…"},
              "overall_history": "…", "overall_personality": "…"}}

Each user becomes a person and their private chat: a query is their message, a response the
agent's. MemoryBank keeps the day of a turn and not its hour, so a day's turns are set a minute apart
from the day's midnight, in their order. Its summaries become huiyi's summaries of the same kinds
(daily, global, daily and global personality) of that person; their ids are derived from user and
day, so a second import writes nothing new.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from huiyi.errors import InvalidInput
from huiyi.formats.chat import ChatLine, Conversation, Who, chat_plan
from huiyi.formats.plan import MemoryLine, Plan
from huiyi.model import MemoryKind, SummaryData, SummaryKind
from huiyi.text.times import read_iso

__all__ = ["looks_like_memorybank", "read_memorybank"]

SELF = "\x00agent"


def looks_like_memorybank(text: str) -> bool:
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        return False
    return (
        isinstance(whole, dict)
        and bool(whole)
        and all(isinstance(user, dict) and "history" in user for user in whole.values())
    )


def _content(value: Any) -> str:
    if isinstance(value, dict):
        value = value.get("content", "")
    return str(value or "").strip()


def _day(value: str) -> datetime:
    try:
        return read_iso(value)
    except ValueError as exc:
        raise InvalidInput(f"MemoryBank: {value!r} is not a date (YYYY-MM-DD)") from exc


def read_memorybank(text: str, who: Who) -> Plan:
    agent = who.need_agent("MemoryBank")
    try:
        users = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"MemoryBank: not JSON: {exc}") from exc
    plan = Plan()
    memories: list[MemoryLine | None] = []
    for key, user in users.items():
        name = str(user.get("name") or key)
        chat = Conversation(title=name, group=False)
        for day, turns in sorted((user.get("history") or {}).items()):
            moment = _day(day)
            for turn in turns or []:
                for text_of, speaker in ((turn.get("query"), name), (turn.get("response"), SELF)):
                    if str(text_of or "").strip():
                        chat.lines.append(ChatLine(moment, speaker, "" if speaker == SELF else name, str(text_of)))
                        moment += timedelta(minutes=1)
        part = chat_plan([chat], Who(agent, person=name, selves=frozenset({SELF})), source="memorybank", platform=None)
        plan.batches.extend(part.batches)
        plan.persons.extend(part.persons)
        base = f"memorybank:{name}"
        for day, summary in sorted((user.get("summary") or {}).items()):
            memories.append(_summary(agent, name, f"{base}:summary:{day}", summary, SummaryKind.DAILY, day))
        for day, portrait in sorted((user.get("personality") or {}).items()):
            kind = SummaryKind.DAILY_PERSONALITY
            memories.append(_summary(agent, name, f"{base}:personality:{day}", portrait, kind, day))
        overall = user.get("overall_history")
        memories.append(_summary(agent, name, f"{base}:overall_history", overall, SummaryKind.GLOBAL))
        overall = user.get("overall_personality")
        memories.append(_summary(agent, name, f"{base}:overall_personality", overall, SummaryKind.GLOBAL_PERSONALITY))
    plan.memories.extend((agent, line) for line in memories if line is not None)
    plan.notes.append(f"MemoryBank: {len(users)} users, {plan.size - len(plan.memories)} messages")
    return plan


def _summary(
    agent: str, person: str, id_: str, value: Any, kind: SummaryKind, day: str | None = None
) -> MemoryLine | None:
    """A MemoryBank summary or personality as huiyi's summary of the same kind (None when empty)."""
    text = _content(value)
    if not text:
        return None
    data = SummaryData(kind=kind, period=day or "", person=person).into()
    return MemoryLine(
        type="memory",
        agent=agent,
        person=person,
        text=text,
        kind=MemoryKind.SUMMARY,
        time=_day(day) if day else None,
        sources=[id_],
        data=data,
        id=id_,
    )
