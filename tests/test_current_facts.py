"""Two open facts of one value (issue 13, changed-fact): a new home closes the old one when it is said, and
where both are still open (a store written before that rule, a missed close) the newer one leads recall and
the older one stays out of the context."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract import FactDraft, Fold
from huiyi.flows.extract.closes import replaced
from huiyi.model import FactKind, Message, Scope
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 3, 1, 20, 0)
LINES = ["我住在上海，每天挤地铁", "今天天气不错", "我住在杭州，每天骑车上班"]


def open_memory(path: Path) -> Memory:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    return Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=30))


def chat(memory: Memory) -> None:
    messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(days=i)} for i, text in enumerate(LINES)]
    memory.add(messages, agent="bot", person="u1", index=True)
    memory.flush(agent="bot", person="u1")


def homes(memory: Memory) -> dict[str, datetime | None]:
    facts = memory.memories(agent="bot", person="u1", kinds=["fact"])
    return {("上海" if "上海" in f.text else "杭州"): f.valid_to for f in facts if f.data.get("predicate") == "住在"}


def test_a_new_home_said_plainly_closes_the_old_one(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        chat(memory)
        assert homes(memory) == {"上海": T0 + timedelta(days=2), "杭州": None}


def test_the_newer_of_two_open_homes_leads_and_the_older_leaves_the_context(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        chat(memory)
        # as a store written before the close rule holds them: both open
        old = next(f for f in memory.memories(agent="bot", person="u1", kinds=["fact"]) if "上海" in f.text)
        memory.store.update_memories("bot", [(old.id, {"valid_to": None})])
        assert homes(memory) == {"上海": None, "杭州": None}
        found = memory.recall("住在上海的话每天挤地铁吗", agent="bot", person="u1", kinds=["fact"])
        texts = [hit.text for hit in found.hits]
        assert "杭州" in texts[0] and "上海" in texts[-1], texts
        assert found.info["superseded"] == [old.id]
        context = memory.context(agent="bot", person="u1", message="住在上海的话每天挤地铁吗")
        assert "u1住在杭州" in context.text and "u1住在上海" not in context.text
        # asked before the new home was said, the old one is how things were then
        then = memory.recall(
            "住在上海的话每天挤地铁吗", agent="bot", person="u1", kinds=["fact"], now=T0 + timedelta(days=1)
        )
        assert "上海" in then.hits[0].text and "superseded" not in then.info
        # a history question keeps the old value where the ranking put it
        past = memory.recall("我以前住在上海吗", agent="bot", person="u1", kinds=["fact"])
        assert "superseded" not in past.info


def test_only_values_of_one_at_a_time_predicates_close_and_at_when_they_were_said() -> None:
    scope = Scope.of_person("bot", "u1")
    said = T0 + timedelta(days=3)
    message = Message(
        id="m9", agent="bot", space=scope.space_id, scope=scope, speaker="u1", role="user", text="x", time=said
    )
    fold = Fold(agent="bot", space=scope.space_id, scope=scope, messages=[message], person="u1")
    home = FactDraft("u1", "住在", "杭州", "u1住在杭州", ["m9"], FactKind.RELATION, time=T0 + timedelta(days=9))
    likes = FactDraft("u1", "喜欢", "猫", "u1喜欢猫", ["m9"])
    elsewhere = FactDraft("u1", "住在", "南京", "u1住在南京", ["m-other-fold"])
    closes = replaced([home, likes, elsewhere], fold)
    assert [(c.subject, c.predicate, c.word, c.time) for c in closes] == [("u1", "住在", "", said)]
