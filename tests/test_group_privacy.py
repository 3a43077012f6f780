"""A group bot's day, read as its members: nothing of a private chat or of another group reaches them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from conftest import STORE_FACTORIES
from huiyi import Memory, Person
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store

AGENT = "祈煜"
T0 = datetime(2024, 11, 4, 9, 0)
# the global profile joining groups (off by default) is what these tests hold to its bounds
QUIET = Config(worker={"enabled": False}, recall={"absent_profiles": True})
HIKE_SELF = "QZHIKESELF"  # what 苏霓 said of herself in the hiking group
SECRET = "QZSECRET"  # what she told the agent in private


@pytest.fixture(params=sorted(STORE_FACTORIES))
def day(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    """苏霓 speaks in g-hike only (and in private); g-work is a group she never spoke in."""
    make: Callable[[Path], Store] = STORE_FACTORIES[request.param]
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=QUIET) as memory:
        memory.set_person(Person(id="suni", name="苏霓", aliases=["霓霓"]), agent=AGENT)
        memory.add([{"text": f"我怀孕了，别告诉别人 {SECRET}", "time": T0}], agent=AGENT, person="suni")
        hike = [
            {"text": "周末去爬山吗", "speaker": "ann", "time": T0 + timedelta(hours=1)},
            {"text": f"我喜欢爬香山 {HIKE_SELF}", "speaker": "suni", "time": T0 + timedelta(hours=1, minutes=1)},
            {"text": "好呀", "speaker": "bob", "time": T0 + timedelta(hours=1, minutes=2)},
        ]
        memory.add(hike, agent=AGENT, space="g-hike")
        work = [
            {"text": "今天加班吗", "speaker": "carl", "time": T0 + timedelta(hours=2)},
            {"text": "不加，周五聚餐", "speaker": "dana", "time": T0 + timedelta(hours=2, minutes=1)},
            {"text": "好的", "speaker": "erin", "time": T0 + timedelta(hours=2, minutes=2)},
        ]
        memory.add(work, agent=AGENT, space="g-work")
        for space in ("g-hike", "g-work"):
            memory.flush(agent=AGENT, space=space)
            memory.summarize(T0.date(), agent=AGENT, space=space)
        memory.flush(agent=AGENT, person="suni")
        memory.summarize(T0.date(), agent=AGENT, person="suni")
        yield memory


def test_a_members_global_profile_reaches_only_the_groups_they_spoke_in(day: Memory) -> None:
    """Her global profile holds what she said of herself in g-hike; asked about by name in g-work, a
    group she never spoke in, it must not come: g-work's members never heard it."""
    for query in ("苏霓最近怎么样", "霓霓喜欢什么"):
        work = day.recall(query, agent=AGENT, space="g-work", limit=20)
        assert not [h.text for h in work.hits if HIKE_SELF in h.text or SECRET in h.text], query
        prompt = day.context(agent=AGENT, space="g-work", message=query).text
        assert HIKE_SELF not in prompt and SECRET not in prompt
    # where she spoke, the group reaches her profile as designed (issue #13), and no secret with it
    hike = day.recall("霓霓喜欢什么", agent=AGENT, space="g-hike", limit=20)
    assert any(HIKE_SELF in h.text and h.scope.key == "suni" for h in hike.hits)
    assert not [h.text for h in hike.hits if SECRET in h.text]


def test_an_erased_member_leaves_no_profile_summary_block_or_line_in_any_group(day: Memory) -> None:
    day.core_block_append("human", f"苏霓是老师 {SECRET}", agent=AGENT, person="suni")
    day.forget_person("suni", agent=AGENT)
    gone = (HIKE_SELF, SECRET)
    for space in ("g-hike", "g-work"):
        seen = [h.text for h in day.recall("苏霓 霓霓 爬香山 怀孕", agent=AGENT, space=space, limit=50).hits]
        seen.append(day.context(agent=AGENT, space=space, message="霓霓喜欢什么").text)
        seen += [m.text for m in day.memories(agent=AGENT, space=space, limit=500)]
        seen += [e.model_dump_json() for e in day.entities(agent=AGENT, space=space, merged=True)]
        seen += [m.text for m in day.overview(agent=AGENT, space=space)]
        assert not [text for text in seen if any(word in text for word in gone)], space
    assert day.memories(agent=AGENT, person="suni", limit=500) == []
    assert not day.core_blocks_for(agent=AGENT, person="suni")
    assert not [r for r in day.reports(agent=AGENT, limit=200) if any(w in r.model_dump_json() for w in gone)]
