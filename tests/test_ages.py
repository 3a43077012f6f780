"""A memory's ``created_at`` is stamped in zone-less UTC; its other times, recall's ``now`` and a run's ``now``
are the configured zone's wall clock. An age taken from ``created_at`` is read in the zone first: in
Asia/Shanghai (UTC+8) a mix makes every memory 8 hours older, in America/Los_Angeles (UTC−8, −7 in summer)
younger, clamped to nothing."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from huiyi import Memory
from huiyi.checks import utc_of, wall_of
from huiyi.config import Config
from huiyi.config.consolidate import ConsolidateConfig
from huiyi.config.recall import RecallRecipe
from huiyi.flows.consolidate.run import consolidate, consolidate_due
from huiyi.flows.consolidate.strength import retained_strength
from huiyi.model import MemoryItem, MemoryKind, Person, Scope
from huiyi.recall.score import features_of, recency_factor
from huiyi.store.sqlite import SQLiteStore
from huiyi.strength import retention
from test_consolidate import HASH, MUMU, fact, put

AGENT, PERSON = "bot", "u1"
SCOPE = Scope.of_person(AGENT, PERSON)
NOW = datetime(2024, 5, 10, 20, 0)  # wall clock in the zone under test
ZONES = ["Asia/Shanghai", "America/Los_Angeles"]


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def open_memory(path: Path, zone: str, clock: Clock, *, reinforce: bool = False) -> Memory:
    config = Config(timezone=zone, worker={"enabled": False}, recall={"reinforce": reinforce})
    return Memory(path, embedder=HASH, config=config, clock=clock)


def test_wall_of_reads_a_stamp_in_the_zone() -> None:
    stamp = datetime(2024, 5, 10, 12, 0)  # UTC
    assert wall_of(stamp, ZoneInfo("Asia/Shanghai")) == datetime(2024, 5, 10, 20, 0)
    assert wall_of(stamp, ZoneInfo("America/Los_Angeles")) == datetime(2024, 5, 10, 5, 0)  # summer: UTC−7
    assert wall_of(None, ZoneInfo("Asia/Shanghai")) is None
    assert wall_of(datetime.min, ZoneInfo("America/Los_Angeles")) == datetime.min  # no wall clock: kept


@pytest.mark.parametrize("zone", ZONES)
def test_recency_counts_from_when_a_memory_was_written_in_the_zone(tmp_path: Path, zone: str) -> None:
    """A note written three hours ago has recency 0.5^(3 h / 7 days), east or west of UTC."""
    clock = Clock(NOW - timedelta(hours=3))
    with open_memory(tmp_path, zone, clock) as memory:
        memory.remember("木木的猫叫团子", agent=AGENT, person=PERSON)  # no time: it ages from created_at
        clock.now = NOW
        recipe = RecallRecipe(score_weights={"recency": 1.0})
        (hit,) = memory.recall("团子", agent=AGENT, person=PERSON, recipe=recipe).hits
    assert hit.score == pytest.approx(recency_factor(timedelta(hours=3)), abs=1e-6)


def test_time_decay_takes_whole_days_in_the_zone() -> None:
    """Written at 04:00 in Shanghai (20:00 UTC the day before), asked 21 hours later: not a day old yet."""
    shanghai = ZoneInfo("Asia/Shanghai")
    written = MemoryItem(scope=SCOPE, kind=MemoryKind.EVENT, text="昨晚没睡好", created_at=datetime(2024, 5, 8, 20, 0))
    features = features_of(written, 0.5, datetime(2024, 5, 10, 1, 0), zone=shanghai)
    assert features.time_decay == 1.0  # e^(−0.05·0): zero whole days
    assert features.recency == pytest.approx(recency_factor(timedelta(hours=21)))


@pytest.mark.parametrize(
    ("zone", "gap", "step"),
    [
        ("Asia/Shanghai", timedelta(hours=20), 1),  # mixed: 28 hours, over a day: +3
        ("America/Los_Angeles", timedelta(days=3, hours=3), 7),  # mixed: 2 days 20 hours: +3
    ],
)
def test_the_seed000_step_counts_from_when_a_memory_was_written_in_the_zone(
    tmp_path: Path, zone: str, gap: timedelta, step: int
) -> None:
    """A memory recalled ``gap`` after it was written, never recalled before, gains that gap's step."""
    clock = Clock(NOW)
    with open_memory(tmp_path, zone, clock, reinforce=True) as memory:
        memory.remember("木木的猫叫团子", agent=AGENT, person=PERSON)
        clock.now = NOW + gap
        assert memory.recall("团子", agent=AGENT, person=PERSON).hits
        memory.core.reinforcer.flush()  # last_access: the recall's now, wall clock
        (change,) = memory.consolidate(agent=AGENT, person=PERSON).of("strength")
    assert change.after - change.before == step


@pytest.mark.parametrize("zone", ZONES)
def test_retained_strength_counts_days_from_when_a_memory_was_written_in_the_zone(zone: str) -> None:
    """Written 23 hours before ``now``: no whole day of decay yet; MemoryBank's t is 23 hours."""
    tz = ZoneInfo(zone)
    now = datetime(2024, 5, 10, 1, 0)
    stamp = utc_of(now - timedelta(hours=23), tz)
    written = MemoryItem(scope=SCOPE, kind=MemoryKind.EVENT, text="昨晚没睡好", strength=2.0, created_at=stamp)
    assert retained_strength(written, now, ConsolidateConfig(), tz)[2] == 0
    bank = ConsolidateConfig(forget={"model": "memorybank"})
    assert retained_strength(written, now, bank, tz)[0] == pytest.approx(retention(23 / 24, 2.0))


@pytest.mark.parametrize(
    ("zone", "written_ago", "due"),
    [
        ("Asia/Shanghai", timedelta(hours=20), True),  # mixed: written 28 hours ago, not within the day
        ("America/Los_Angeles", timedelta(hours=30), False),  # mixed: 23 hours ago, within the day
    ],
)
def test_a_scope_is_due_by_when_its_undated_memory_was_written_in_the_zone(
    tmp_path: Path, zone: str, written_ago: timedelta, due: bool
) -> None:
    """Never consolidated, a scope is due when a memory came within ``every_days`` (1); a note has no
    time, so when it was written (``created_at``) decides."""
    clock = Clock(NOW - written_ago)
    with open_memory(tmp_path, zone, clock) as memory:
        memory.set_person(Person(id=PERSON), agent=AGENT)
        memory.remember("木木的猫叫团子", agent=AGENT, person=PERSON)
        clock.now = NOW
        settings = memory.config.consolidate
        scheduled = consolidate_due(memory.store, HASH, settings, NOW, agents=[AGENT], zone=ZoneInfo(zone))
        reports = asyncio.run(scheduled)
    assert [report.scope for report in reports] == ([SCOPE] if due else [])


@pytest.mark.parametrize(
    ("zone", "undated_ago"),
    [("Asia/Shanghai", timedelta(hours=2)), ("America/Los_Angeles", timedelta(hours=8))],
)
def test_of_two_homes_the_one_said_later_in_the_zone_closes_the_other(
    tmp_path: Path, zone: str, undated_ago: timedelta
) -> None:
    """木木住在上海 was said 5 hours ago; 木木住在南京, with no time of its own, was written ``undated_ago``:
    the later statement closes the earlier one, at the time the later one was said (wall clock)."""
    tz = ZoneInfo(zone)
    dated = fact("h1", NOW - timedelta(hours=5), ("木木", "住在", "上海"), "木木住在上海", scope=MUMU, kind="relation")
    undated = fact("h2", NOW, ("木木", "住在", "南京"), "木木住在南京", scope=MUMU, kind="relation")
    undated = undated.model_copy(update={"time": None, "created_at": utc_of(NOW - undated_ago, tz)})
    store = SQLiteStore(tmp_path / "store")
    try:
        put(store, HASH, [dated, undated])
        asyncio.run(consolidate(store, HASH, MUMU, NOW, ConsolidateConfig(), zone=tz))
        closed = {item.id: item.valid_to for item in store.get_memories(MUMU.agent, ["h1", "h2"])}
    finally:
        store.close()
    later, earlier = ("h2", "h1") if undated_ago < timedelta(hours=5) else ("h1", "h2")
    assert closed == {later: None, earlier: NOW - min(undated_ago, timedelta(hours=5))}


@pytest.mark.parametrize(
    ("zone", "written"),
    [
        ("Asia/Shanghai", datetime(2024, 5, 10, 2, 0)),  # 2024-05-09 18:00 UTC
        ("America/Los_Angeles", datetime(2024, 5, 10, 20, 0)),  # 2024-05-11 03:00 UTC
    ],
)
def test_a_fact_without_a_time_is_dated_by_the_day_it_was_written_in_the_zone(
    tmp_path: Path, zone: str, written: datetime
) -> None:
    clock = Clock(written)
    with open_memory(tmp_path, zone, clock) as memory:
        home = fact("h1", written, ("木木", "住在", "南京"), "木木住在南京", scope=SCOPE, kind="relation")
        memory.remember(
            home.text, agent=AGENT, person=PERSON, kind="fact", data=home.data, keywords=home.keywords, id="h1"
        )
        clock.now = written + timedelta(hours=2)
        rendered = memory.context(agent=AGENT, person=PERSON, message="木木住在南京吗").rendered.text
    assert f"{written:%Y-%m-%d}：木木住在南京" in rendered


@pytest.mark.parametrize(
    ("zone", "written"),
    [
        ("Asia/Shanghai", datetime(2024, 5, 10, 2, 0)),  # 2024-05-09 in UTC: the day of 散步
        ("America/Los_Angeles", datetime(2024, 5, 10, 20, 0)),  # 2024-05-11 in UTC: a day of its own
    ],
)
def test_the_overview_weighs_an_undated_event_on_the_day_it_was_written_in_the_zone(
    tmp_path: Path, zone: str, written: datetime
) -> None:
    """Words said on other days weigh less (seed 000's recap, by novelty). 豆豆生病 (no time of its own) and
    豆豆生病看医生 were both said on 05-10: neither repeats another day, so both outweigh the less important
    散步 of 05-09. Put on another day, 豆豆 would repeat across days and 散步 would lead the overview."""
    clock = Clock(written)
    config = Config(timezone=zone, worker={"enabled": False}, overview={"size": 1})
    with Memory(tmp_path, embedder=HASH, config=config, clock=clock) as memory:
        for text, importance, when in [
            ("散步", 0.45, datetime(2024, 5, 9, 12, 0)),
            ("豆豆生病", 0.5, None),
            ("豆豆生病看医生", 0.5, datetime(2024, 5, 10, 12, 0)),
        ]:
            memory.remember(text, agent=AGENT, person=PERSON, kind="event", importance=importance, time=when)
        (chosen,) = memory.overview(agent=AGENT, person=PERSON)
    assert chosen.text != "散步"
