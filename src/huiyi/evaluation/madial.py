"""MADial-Bench (He et al., NAACL 2025) into the probe format: recall prompted by the dialogue.

Each dialogue becomes one case whose pool is the memories of its user only, stored as the user's
dated event memories (the event text; scene and emotion kept in ``data``). The probe is the user's
last line before ``test-turn[0]`` (the turn where the assistant should bring a memory up), with the
earlier lines as its context; it is asked the day after the user's latest memory, and its gold is
``relevant-id``.

    >>> parse_line('<Bart>:"我要表演魔术！"\\n')
    ('Bart', '我要表演魔术！')
    >>> parse_line("<BOD>\\n") is None
    True
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from huiyi.evaluation.probes import Case, ContextLine, Probe, ProbeMemory, ProbeSet

AGENT = "Assistant"
ASKED_AFTER = timedelta(days=1)
_LINE = re.compile(r"^\s*<([^<>]+)>\s*[:：]\s*(.*?)\s*$", re.DOTALL)
_MARKERS = {"BOD", "EOD"}


def parse_line(raw: str) -> tuple[str, str] | None:
    """``<Speaker>:"text"`` → (speaker, text); None for the <BOD>/<EOD> markers and blank lines."""
    match = _LINE.match(raw)
    if match is None or match.group(1) in _MARKERS:
        return None
    text = match.group(2).strip()
    if len(text) >= 2 and text[0] in '"“' and text[-1] in '"”':
        text = text[1:-1].strip()
    return (match.group(1).strip(), text) if text else None


def _read_jsonl(path: str | Path) -> list[Any]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def load_memories(path: str | Path, pools: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The memory file: lines of ``{"<id>": {time, scene, emotion, event, user-id, id}}``, by id.

    ``pools``: another memory file of the same ids whose user-ids stand in for missing ones (MADial's
    English memories carry none; its Chinese file holds the same memories with theirs)."""
    owners = {key: value["user-id"] for key, value in load_memories(pools).items()} if pools else {}
    out: dict[str, dict[str, Any]] = {}
    for row in _read_jsonl(path):
        for key, value in row.items():
            memory_id = str(value.get("id", key))
            user_id = value.get("user-id", owners.get(memory_id))
            if user_id is None:
                raise ValueError(
                    f"memory {key} in {path} has no user-id, so no dialogue's pool can be told apart"
                    + ("" if pools else " (--pools FILE names a memory file of the same ids that has them)")
                )
            out[memory_id] = {**value, "id": memory_id, "user-id": user_id}
    return out


def _date(text: str) -> datetime:
    return datetime.fromisoformat(str(text).strip())


def dialogue_case(dialogue: dict[str, Any], memories: dict[str, dict[str, Any]]) -> Case | None:
    """One dialogue as a case, or None if it has no test turn or no relevant memory in its pool."""
    user_id = str(dialogue["user-id"])
    case_id = f"dialogue-{dialogue['id']}"
    if not dialogue.get("test-turn"):
        return None
    lines = [parsed for raw in dialogue["dialogue"][: int(dialogue["test-turn"][0])] if (parsed := parse_line(raw))]
    if not lines:
        return None
    user = next((speaker for speaker, _ in lines if speaker != AGENT), f"user-{user_id}")
    pool = sorted(
        (m for m in memories.values() if str(m.get("user-id")) == user_id), key=lambda m: (_date(m["time"]), m["id"])
    )
    pool_ids = {str(m["id"]) for m in pool}
    gold = [str(r) for r in dialogue.get("relevant-id", []) if str(r) in pool_ids]
    if not gold or not pool:
        return None
    case_memories = [
        ProbeMemory(
            id=str(m["id"]),
            text=str(m["event"]),
            person=user,
            time=_date(m["time"]),
            kind="event",
            data={"scene": m.get("scene", ""), "emotion": m.get("emotion", "")},
        )
        for m in pool
    ]
    context = [
        ContextLine(text=text, role="assistant" if speaker == AGENT else "user", speaker=speaker)
        for speaker, text in lines
    ]
    last = context.pop()
    probe = Probe(
        id=f"{case_id}:t{dialogue['test-turn'][0]}",
        query=last.text,
        context=list(context),
        person=user,
        time=max(m.time for m in case_memories if m.time) + ASKED_AFTER,
        gold=gold,
    )
    return Case(id=case_id, agent=AGENT, language="zh", memories=case_memories, probes=[probe])


def load(
    memory_path: str | Path, dialogue_path: str | Path, language: str = "zh", pools: str | Path | None = None
) -> ProbeSet:
    memories = load_memories(memory_path, pools)
    cases = [case for d in _read_jsonl(dialogue_path) if (case := dialogue_case(d, memories))]
    if language == "en":
        cases = [case.model_copy(update={"language": "en"}) for case in cases]
    return ProbeSet(name=f"madial-{language}", cases=cases)
