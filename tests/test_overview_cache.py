"""The overview (前情提要) reads the messages its events cite, and weighs their words, only as its events
change: between two turns of a chat they are the same. A rewritten or erased event, or an erased message,
is never served from what was kept."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from huiyi import Memory
from huiyi.flows.substance import RECAP_DEPTH, recap
from huiyi.memory.common import _chat_of
from huiyi.model import MemoryItem, MemoryKind
from huiyi.store.base import MemoryFilter
from test_summary_substance import AFTER_ZH, AGENT, LOSS_ZH, ROUTINE_ZH, memory, month

__all__ = ["memory"]  # the fixture


def reads(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of messages each ``get_messages`` of the store was asked for, as it is called."""
    store, asked = memory.core.store, []
    original: Callable[..., Any] = store.get_messages

    def counted(agent: str, ids: list[str]) -> Any:
        asked.append(len(ids))
        return original(agent, ids)

    monkeypatch.setattr(store, "get_messages", counted)
    return asked


def latest(memory: Memory, person: str) -> list[MemoryItem]:
    core = memory.core
    where = MemoryFilter(kinds=(MemoryKind.EVENT,), said_by=None)
    return core.store.find_memories([_chat_of(AGENT, person, None)], where, core.config.overview.size * RECAP_DEPTH)


def uncached(memory: Memory, person: str) -> list[MemoryItem]:
    """The overview as it is chosen without anything kept: every cited message read, every event weighed."""
    events, core = latest(memory, person), memory.core
    cited = list(dict.fromkeys(source for item in events for source in item.sources))
    said = {m.id: m.role == "assistant" for m in core.store.get_messages(AGENT, cited)}
    return recap(events, AGENT, core.config.overview.size, said, core._tz)


def test_the_overview_reads_its_cited_messages_once_while_its_events_stay(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    month(memory, "木木", {1: ROUTINE_ZH, 2: LOSS_ZH + ROUTINE_ZH, 3: AFTER_ZH + ROUTINE_ZH})
    asked = reads(memory, monkeypatch)
    first = memory.overview(agent=AGENT, person="木木")
    assert len(asked) == 1 and first
    for _ in range(3):
        assert memory.overview(agent=AGENT, person="木木") == first
        memory.context(agent=AGENT, person="木木", message="早")
    assert len(asked) == 1  # the turns after read no message for it
    assert memory.overview(agent=AGENT, person="小林") == []  # another conversation keeps its own


def test_a_rewritten_event_is_weighed_again(memory: Memory) -> None:
    month(memory, "木木", {1: ROUTINE_ZH, 2: LOSS_ZH + ROUTINE_ZH, 3: AFTER_ZH + ROUTINE_ZH, 4: ROUTINE_ZH})
    before = memory.overview(agent=AGENT, person="木木")
    routine = next(item for item in latest(memory, "木木") if item.id not in {chosen.id for chosen in before})
    memory.update(routine.id, {"text": "木木说：今天第一次画完了一整幅海边的日出", "importance": 1.0}, agent=AGENT)
    after = memory.overview(agent=AGENT, person="木木")
    assert after == uncached(memory, "木木")
    assert routine.id in {item.id for item in after} and "海边的日出" in " ".join(item.text for item in after)


def test_an_erased_message_never_comes_back_from_what_was_kept(memory: Memory) -> None:
    month(memory, "木木", {1: ROUTINE_ZH, 2: LOSS_ZH + ROUTINE_ZH, 3: AFTER_ZH + ROUTINE_ZH})
    before = memory.overview(agent=AGENT, person="木木")
    told = next(item for item in before if "豆豆" in item.text)
    memory.forget_messages(told.sources, agent=AGENT)
    after = memory.overview(agent=AGENT, person="木木")
    assert after == uncached(memory, "木木")
    assert all(not set(item.sources) & set(told.sources) for item in after)
    assert told.id not in {item.id for item in after}
    section = memory.context(agent=AGENT, person="木木", message="早").rendered.sections.get("overview", "")
    assert told.text not in section
