"""A memory keeps when it was said beside the time it is about (issue 13, companion).

"刚在西湖边跑完十公里…下个月…马拉松" said on 11-15 is about December: the overview (latest by when said)
must not put it after what was said later, and the prompt shows it as said on 11-15, planned for December.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.ingest import terms_of
from huiyi.model import MemoryItem, MemoryKind, Scope, ScopeKind
from huiyi.providers.embed import Embedder, HashEmbedder
from huiyi.recall.render import ContextParts, render
from huiyi.store.base import Store, Writes

NOW = datetime(2024, 11, 20, 21, 0)
RUN = "刚在西湖边跑完十公里，累死了。下个月要去跑杭州马拉松，好紧张"


def _memory(tmp_path: Path, embedder: Embedder) -> Memory:
    # events_lend off: with it, the plan's own turn stands in for the event, and this is about the event
    config = Config(worker={"enabled": False}, overview={"size": 2}, recall={"events_lend": False})
    return Memory(tmp_path, embedder=embedder, config=config, clock=lambda: NOW)


def test_a_plan_is_dated_by_its_day_and_said_on_its_own(tmp_path: Path) -> None:
    with _memory(tmp_path, HashEmbedder(64)) as memory:
        memory.add([{"id": "m1", "text": RUN, "time": datetime(2024, 11, 15, 20, 0)}], agent="祈煜", person="木木")
        memory.flush(agent="祈煜", person="木木")
        memory.add(
            [{"id": "m2", "text": "今天加班到十点，老板又改需求了", "time": datetime(2024, 11, 18, 22, 0)}],
            agent="祈煜",
            person="木木",
        )
        memory.flush(agent="祈煜", person="木木")
        events = {e.sources[0]: e for e in memory.memories(agent="祈煜", person="木木", kinds=["event"])}
        overview = memory.overview(agent="祈煜", person="木木")
        rendered = memory.context(agent="祈煜", person="木木", message="跑步怎么样了").rendered.text
    plan = events["m1"]
    assert plan.time is not None and plan.time.date().isoformat() == "2024-12-01"  # what it is about
    assert plan.said_at == datetime(2024, 11, 15, 20, 0)  # when it was said
    assert events["m2"].said_at is None  # same day: one time is enough
    # the overview is in the order things were *said*: the December plan, said first, before the 11-18 evening
    assert [item.sources for item in overview] == [["m1"], ["m2"]]
    # the prompt shows the day it was said, and the plan as a plan
    line = next(line for line in rendered.splitlines() if "马拉松" in line)
    assert line.startswith("2024-11-15") or "11月15日" in line or "5天前" in line, line
    assert "2024-12-01" in line and "12-01" not in line.split(":")[0]


def test_render_marks_a_plan_and_a_past_day(tmp_path: Path) -> None:
    scope = Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木")
    plan = MemoryItem(
        scope=scope,
        kind=MemoryKind.EVENT,
        text="木木说下个月要去跑杭州马拉松。",
        time=datetime(2024, 12, 1),
        said_at=datetime(2024, 11, 15, 20, 0),
    )
    past = MemoryItem(
        scope=scope,
        kind=MemoryKind.EVENT,
        text="木木说起去年去过一次大理。",
        time=datetime(2023, 6, 1),
        said_at=datetime(2024, 11, 16, 20, 0),
        data={"about": "2023年"},
    )
    later = MemoryItem(scope=scope, kind=MemoryKind.EVENT, text="木木加班到十点。", time=datetime(2024, 11, 18, 22))
    text = render(ContextParts(agent="祈煜", person="木木", now=NOW, events=[later, past, plan])).text
    lines = [line for line in text.splitlines() if "木木" in line]
    # ordered by when said: the plan (11-15), the story of last year (11-16), then 11-18
    assert ["马拉松" in lines[0], "大理" in lines[1], "加班" in lines[2]] == [True, True, True]
    assert "（计划于2024-12-01）" in lines[0] and "（说的是2023年的事）" in lines[1]
    assert "2024-12-01" not in lines[0].split(":")[0] and not re.search(r"(?<!\d)0点", text)


def test_both_times_survive_the_store(store: Store, e5: Embedder) -> None:
    scope = Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木")
    item = MemoryItem(
        scope=scope,
        kind=MemoryKind.EVENT,
        text="木木下个月跑马拉松",
        time=datetime(2024, 12, 1),
        said_at=datetime(2024, 11, 15, 20, 0),
    )
    later = MemoryItem(scope=scope, kind=MemoryKind.EVENT, text="木木加班", time=datetime(2024, 11, 18, 22))
    store.apply(
        Writes(
            memories=[item, later],
            vectors=e5.embed_passages([item.text, later.text]),
            terms=[terms_of(item.text), terms_of(later.text)],
        )
    )
    got = store.get_memories("祈煜", [item.id])[0]
    assert (got.time, got.said_at) == (item.time, item.said_at)
    # latest by when said: the 11-18 event before the plan said on 11-15
    assert [m.id for m in store.list_memories([scope], [MemoryKind.EVENT])] == [later.id, item.id]
