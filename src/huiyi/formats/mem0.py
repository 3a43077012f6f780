"""mem0's memories as exported: ``get_all()`` saved as JSON (``{"results": [...]}`` or a bare list) or
JSON lines, each ``{"id", "memory", "user_id", "agent_id", "created_at", "updated_at", "metadata",
"categories"}``.

Each becomes a note of the person ``user_id`` (or, with neither a user nor ``--person``, an official
memory; a file naming a user beside records of none takes neither flag), timed when mem0 made it; its
id becomes ``mem0:<id>``, so a second import writes nothing new.
"""

from __future__ import annotations

import json
from datetime import datetime, tzinfo
from typing import Any

from huiyi.errors import InvalidInput
from huiyi.formats.chat import Who
from huiyi.formats.plan import MemoryLine, Plan
from huiyi.formats.read import file_lines
from huiyi.model import MemoryKind, Person
from huiyi.text.times import read_iso

__all__ = ["looks_like_mem0", "read_mem0"]


def _records(text: str) -> list[Any] | None:
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        try:
            return [json.loads(line) for line in file_lines(text) if line.strip()]
        except json.JSONDecodeError:
            return None
    if isinstance(whole, dict):
        whole = whole.get("results", whole.get("memories"))
    return whole if isinstance(whole, list) else None


def looks_like_mem0(text: str) -> bool:
    found = _records(text)
    return bool(found) and all(isinstance(r, dict) and "memory" in r and "type" not in r for r in found or [])


def read_mem0(text: str, who: Who, zone: tzinfo) -> Plan:
    records = _records(text)
    if records is None:
        raise InvalidInput("not a mem0 export: expected {'results': [...]}, a list, or JSON lines of memories")
    named = {str(r["user_id"]) for r in records if isinstance(r, dict) and r.get("user_id")}
    if (who.person or who.space) and len(named) > 1:  # one person's name over every user's memories: a leak
        users = ", ".join(map(repr, sorted(named)[:3])) + (", …" if len(named) > 3 else "")
        raise InvalidInput(
            f"the mem0 export holds the memories of {len(named)} users ({users}); --person and --space name the"
            " one whose memories a file holds. Import it without them: each user's memories are then theirs"
        )
    unnamed = sum(1 for r in records if isinstance(r, dict) and not r.get("user_id"))
    if (who.person or who.space) and named and unnamed:  # whose those are the file does not say: not the user's
        (user,) = named
        raise InvalidInput(
            f"the mem0 export holds memories of the user {user!r} and {unnamed} of no user_id, which are not known"
            " to be theirs; --person and --space name the one whose memories a file holds. Import it without"
            " them (those of no user are then the agent's official memories), or give them their user_id"
        )
    plan = Plan()
    persons: set[tuple[str, str]] = set()
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict) or not str(record.get("memory") or "").strip():
            raise InvalidInput(f"mem0 record {number}: no memory text")
        agent = str(record.get("agent_id") or who.agent or "")
        if not agent:
            raise InvalidInput(f"mem0 record {number}: no agent_id; give the agent with --agent")
        person = who.person or (str(record["user_id"]) if record.get("user_id") else None)
        if person and (agent, person) not in persons:
            persons.add((agent, person))
            plan.persons.append((agent, Person(id=person, platform_ids={"mem0": person})))
        categories = record.get("categories") or []
        line = MemoryLine(
            type="memory",
            agent=agent,
            person=None if who.space else person,
            space=who.space,
            text=str(record["memory"]).strip(),
            kind=MemoryKind.NOTE,
            time=_local(record.get("created_at"), zone),
            keywords=[str(c) for c in categories] if isinstance(categories, list) else [],
            sources=[f"mem0:{record['id']}"] if record.get("id") else [],
            data={"mem0": {k: v for k, v in record.items() if k not in {"memory", "id"} and v is not None}},
            id=f"mem0:{record['id']}" if record.get("id") else None,
        )
        plan.memories.append((agent, line))
    plan.notes.append(f"mem0: {len(plan.memories)} memories")
    return plan


def _local(value: Any, zone: tzinfo) -> datetime | None:
    """mem0 writes ISO times with their zone; the store keeps wall-clock time in the configured one."""
    if not value:
        return None
    try:
        moment = read_iso(str(value))
    except ValueError:
        return None
    return moment.astimezone(zone).replace(tzinfo=None) if moment.tzinfo else moment
