"""Recall v3: events as keys of their turns, times a memory names, and a second round (multi-hop)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import EntityType, FactData, FactKind, MemoryKind
from huiyi.providers.embed import HashEmbedder

NOW = datetime(2023, 10, 1, 20, 0)


def open_memory(path: Path, **recipe: object) -> Memory:
    config = Config(worker={"enabled": False}, recall={"reinforce": False, **recipe})
    return Memory(path, embedder=HashEmbedder(1024), config=config, clock=lambda: NOW)


def _turns(memory: Memory) -> tuple[list[str], str]:
    texts = ["周末我们去海边露营了", "晚上在沙滩上看星星", "第二天早上下雨了", "我们很早就回家了"]
    ids = []
    for i, text in enumerate(texts):
        item = memory.remember(
            text, agent="a", space="g", kind=MemoryKind.CHUNK, sources=[f"m{i}"], data={"space": "g", "seq": i}
        )
        ids.append(item.id)
    event = memory.remember(
        "周末去海边露营，看星星，第二天下雨早早回家",
        agent="a",
        space="g",
        kind=MemoryKind.EVENT,
        sources=[f"m{i}" for i in range(4)],
    )
    for i in range(5):
        memory.remember(f"第{i}次开会讨论预算", agent="a", space="g", kind=MemoryKind.CHUNK, sources=[f"x{i}"])
    return ids, event.id


def test_an_event_lifts_its_turns_and_steps_aside(tmp_path: Path) -> None:
    with open_memory(tmp_path / "on") as memory:
        turns, event = _turns(memory)
        found = memory.recall("海边露营看星星", agent="a", space="g", limit=4)
        events = memory.recall("海边露营看星星", agent="a", space="g", limit=4, kinds=["event"])
    ids = [h.id for h in found.hits]
    assert event not in ids
    assert ids[0] in turns[:2]  # the turns that say it, first
    assert any("evidence" in bonus for bonus in found.info["bonuses"].values())
    assert [h.id for h in events.hits] == [event]  # asked for events, events come back
    with open_memory(tmp_path / "off", events_lend=False) as memory:
        _, event = _turns(memory)
        plain = memory.recall("海边露营看星星", agent="a", space="g", limit=4)
    assert event in [h.id for h in plain.hits]


def test_an_event_without_candidate_turns_stays(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        event = memory.remember("去海边露营看星星", agent="a", person="p", kind=MemoryKind.EVENT, sources=["gone"])
        found = memory.recall("海边露营", agent="a", person="p", limit=3)
    assert found.hits[0].id == event.id


def test_a_time_the_memory_names_counts_for_the_question_span(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        moved = memory.remember(
            "I moved here from Sweden 4 years ago", agent="a", person="p", time=datetime(2023, 6, 1)
        )
        for i in range(5):
            memory.remember(f"I moved the chair number {i}", agent="a", person="p", time=datetime(2023, 6, 2))
        about = memory.recall("Where did she move from in 2019?", agent="a", person="p", limit=6)
    with open_memory(tmp_path / "said", time_about=False) as memory:
        memory.remember("I moved here from Sweden 4 years ago", agent="a", person="p", time=datetime(2023, 6, 1))
        said = memory.recall("Where did she move from in 2019?", agent="a", person="p", limit=6)
    assert about.info["bonuses"][moved.id]["time"] > 0
    assert not said.info["bonuses"].get(said.hits[0].id, {}).get("time")


def test_a_when_question_prefers_memories_that_say_when(tmp_path: Path) -> None:
    with open_memory(tmp_path, time_when=True) as memory:
        dated = memory.remember("we went camping last week", agent="a", person="p", time=datetime(2023, 7, 10))
        other = memory.remember("camping with the kids is fun", agent="a", person="p", time=datetime(2023, 7, 10))
        found = memory.recall("When did Mel go camping?", agent="a", person="p", limit=2)
        where = memory.recall("Where did Mel go camping?", agent="a", person="p", limit=2)
    assert found.info["bonuses"][dated.id]["when"] > 0 and other.id not in found.info["bonuses"]
    assert not any("when" in bonus for bonus in where.info["bonuses"].values())


def test_the_second_round_walks_entity_fact_entity(tmp_path: Path) -> None:
    """Seed 004: the question names 苏霓; a fact says where she works; what is said of that place is found."""
    with open_memory(tmp_path, bridge_weight=1.0, graph_mode="deep", entity_weight=0.0) as memory:
        edge = FactData(
            subject="苏霓",
            subject_type=EntityType.OBJECT,
            predicate="工作于",
            object="星巴克",
            object_type=EntityType.SPECIFIC,
            kind=FactKind.RELATION,
        )
        works = memory.remember("苏霓在星巴克上班", agent="a", space="g", kind=MemoryKind.FACT, data=edge.into())
        news = memory.remember("星巴克今天推出了桂花拿铁", agent="a", space="g")
        for i in range(6):
            memory.remember(f"第{i}次讨论周末去哪玩", agent="a", space="g")
        from huiyi.model import Entity, Scope

        scope = Scope.of_space("a", "g")
        for name in ("苏霓", "星巴克"):
            memory.store.upsert_entity(
                Entity(scope=scope, name=name, type=EntityType.OBJECT), HashEmbedder(1024).embed_passages([name])[0]
            )
        found = memory.recall("苏霓上班的地方有什么新品", agent="a", space="g", limit=3)
        fast = memory.recall(
            "苏霓上班的地方有什么新品",
            agent="a",
            space="g",
            limit=3,
            recipe=memory.config.recall.model_copy(update={"graph_mode": "fast"}),
        )
    assert found.info["bridge_entities"] == ["星巴克"]
    hit = {h.id: h for h in found.hits}[news.id]
    assert hit.route_scores["bridge"] > 0
    assert found.info["bridge_facts"] == [works.id]
    assert "bridge_entities" not in fast.info


def test_the_second_round_searches_what_the_first_found(tmp_path: Path) -> None:
    with open_memory(tmp_path, bridge_weight=1.0, graph_mode="deep", entity_weight=0.0) as memory:
        memory.remember("木木在图书馆借了《百年孤独》", agent="a", person="p")
        author = memory.remember("《百年孤独》的作者是马尔克斯", agent="a", person="p")
        for i in range(6):
            memory.remember(f"第{i}次讨论周末去哪玩", agent="a", person="p")
        found = memory.recall("木木借了什么书", agent="a", person="p", limit=3)
    assert "百年孤独" in found.info["bridge_words"]
    assert {h.id: h for h in found.hits}[author.id].route_scores["bridge"] > 0


def test_a_past_moment_the_query_names_is_a_time_not_a_keyword(tmp_path: Path) -> None:
    """ "中午吃啥" said before noon must not outrank what was said at noon just because it says 中午."""
    with open_memory(tmp_path) as memory:
        for i in range(3):
            memory.remember("中午吃啥", agent="a", space="g", time=datetime(2023, 10, 1, 11, 30 + i))
        stew = memory.remember("晒一下员工餐，番茄炖牛腩", agent="a", space="g", time=datetime(2023, 10, 1, 12, 5))
        for i in range(5):
            memory.remember(f"第{i}次开会讨论预算", agent="a", space="g", time=datetime(2023, 9, 20, 9, i))
        found = memory.recall("中午谁晒了炖牛腩", agent="a", space="g", limit=3, now=NOW)
        later = memory.recall("明天中午吃啥", agent="a", space="g", limit=3, now=NOW)
    assert "中午" not in found.info["words"] and found.hits[0].id == stew.id
    assert "中午" in later.info["words"]  # a moment still to come is matched by the plans that say it


def test_a_long_span_keeps_its_words(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        memory.remember("我白天在一家公司画界面", agent="a", space="g", time=datetime(2023, 9, 1, 10))
        found = memory.recall("她白天的工作是什么", agent="a", space="g", limit=3, now=NOW)
    assert "白天" in found.info["words"]  # 白天 is habitual here, not a moment of today


def test_a_fact_the_walk_goes_through_counts_itself(tmp_path: Path) -> None:
    """The walk's facts are hits of the second round, not only a way to their far ends: "霓霓 works as a
    barista" answers a question about 苏霓's job though it shares no word with it."""
    from huiyi.model import Entity, Scope

    with open_memory(tmp_path, bridge_weight=1.0, graph_mode="deep", entity_weight=0.0) as memory:
        edge = FactData(subject="苏霓", subject_type=EntityType.OBJECT, predicate="职业是", object="咖啡师")
        works = memory.remember("霓霓做咖啡师", agent="a", space="g", kind=MemoryKind.FACT, data=edge.into())
        for text in ("苏霓平时周末忙着加班", "苏霓平时忙着带学生", "苏霓平时忙到很晚"):  # the first round's best
            memory.remember(text, agent="a", space="g")
        for i in range(6):
            memory.remember(f"第{i}次讨论周末去哪玩", agent="a", space="g")
        memory.store.upsert_entity(
            Entity(scope=Scope.of_space("a", "g"), name="苏霓", type=EntityType.OBJECT, aliases=["霓霓"]),
            HashEmbedder(1024).embed_passages(["苏霓"])[0],
        )
        found = memory.recall("苏霓平时忙什么", agent="a", space="g", limit=10)
    assert found.info["bridge_facts"] == [works.id]
    # the walk's own search: the fact is its best hit, so it gains the whole bridge weight
    assert {h.id: h for h in found.hits}[works.id].route_scores["bridge"] >= 1.0


def test_in_a_private_chat_my_question_asks_for_my_own_lines(tmp_path: Path) -> None:
    """ "我那晚什么心情" asks what the person said, not the companion's comfort that shares its words."""
    chat = [
        ("木木", "user", "搬完了，屋子空荡荡的，坐在纸箱中间有点想哭"),
        ("祈煜", "assistant", "换了城市，第一晚有这种心情很正常"),
        ("祈煜", "assistant", "心情不好的时候就跟我说说话"),
    ]
    messages = [
        {"id": f"m{i}", "speaker": who, "role": role, "text": text, "time": datetime(2023, 9, 30, 22, i)}
        for i, (who, role, text) in enumerate(chat)
    ]
    with open_memory(tmp_path) as memory:
        memory.add(messages, agent="祈煜", person="木木", index=True)
        mine = memory.recall("刚搬过去那晚我是什么心情", agent="祈煜", person="木木", limit=3, kinds=["chunk"])
        dropped = memory.recall("刚搬过去那晚心情怎么样", agent="祈煜", person="木木", limit=3, kinds=["chunk"])
        theirs = memory.recall("刚搬过去那晚你心情怎么样", agent="祈煜", person="木木", limit=3, kinds=["chunk"])
    for found in (mine, dropped):  # with 我, or with no one named: the asker's own life (recall.pipeline)
        speaker = {hit.sources[0]: found.info["bonuses"].get(hit.id, {}).get("speaker", 0.0) for hit in found.hits}
        assert speaker["m0"] > 0 and speaker["m1"] == speaker["m2"] == 0.0
    assert not any("speaker" in bonus for bonus in theirs.info["bonuses"].values())  # 你: the companion asked
