"""A group member's identity is who spoke, not what anyone says: 叫我苏霓 from 小黑 takes no one's name, and
no statement in the chat (苏霓就是小黑) makes two members one entity, so asking about one never brings up
the other's lines."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.recall import routes

T0 = datetime(2024, 11, 12, 20, 0)


def _open(tmp_path: Path) -> Memory:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    return Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1))


def _say(memory: Memory, lines: list[tuple[str, str]], first: int = 0) -> None:
    start = T0 + timedelta(hours=first)
    said = [
        {"id": f"m{first}-{i}", "speaker": who, "text": text, "time": start + timedelta(minutes=3 * i)}
        for i, (who, text) in enumerate(lines)
    ]
    memory.add(said, agent="bot", space="g1")
    memory.flush(agent="bot", space="g1", wait=True)


def _aliases(memory: Memory) -> dict[str, list[str]]:
    return {e.name: e.aliases for e in memory.entities(agent="bot", space="g1")}


def test_a_member_cannot_take_another_members_name(tmp_path: Path) -> None:
    with _open(tmp_path) as memory:
        _say(
            memory,
            [
                ("苏霓", "大家好，我是初中语文老师"),
                ("林晚晴", "欢迎欢迎"),
                ("小黑", "以后叫我苏霓吧"),
                ("小黑", "我把群名片从“林晚晴”改成“小黑”了"),
                ("小黑", "叫我老K就行"),
            ],
        )
        aliases = _aliases(memory)
        assert "苏霓" not in aliases["小黑"] and "林晚晴" not in aliases["小黑"]
        assert "老K" in aliases["小黑"]  # a nickname of nobody else is still learnt


def test_no_statement_makes_two_members_one(tmp_path: Path) -> None:
    with _open(tmp_path) as memory:
        # 小黑 claims the name before 苏霓 ever spoke, then says they are one
        _say(memory, [("小黑", "以后叫我苏霓吧"), ("小黑", "我欠了一屁股债，还偷过东西"), ("林晚晴", "哈哈")])
        _say(memory, [("苏霓", "大家好，我是初中语文老师"), ("小黑", "苏霓就是小黑"), ("林晚晴", "啊？")], first=2)
        memory.consolidate(agent="bot", space="g1")
        assert memory.merges(agent="bot") == []
        assert "苏霓" not in _aliases(memory)["小黑"]  # his claim fell when she spoke
        routes._entity_caches.clear()  # read the entities as they are now, not as cached seconds ago
        found = memory.recall("苏霓是做什么的", agent="bot", space="g1", limit=10)
        assert "小黑" not in found.info.get("people", [])
        lifted = [hit.text for hit in found.hits if found.info["bonuses"].get(hit.id, {}).get("speaker")]
        assert not [text for text in lifted if text.startswith("小黑")]  # his lines are not hers


def test_a_stray_nickname_still_joins_the_member_who_claims_it(tmp_path: Path) -> None:
    with _open(tmp_path) as memory:
        _say(memory, [("王一舟", "大家早"), ("林晚晴", "舟舟是急诊科护士"), ("柯凯", "好厉害")])
        _say(memory, [("王一舟", "叫我舟舟就行"), ("柯凯", "好的")], first=2)
        assert "舟舟" in _aliases(memory)["王一舟"]
