"""A pet named in the message after the one that told of it (I got a kitten today. … Her name is Mochi; 我养了只
小猫。… 它叫团子) is that pet's name: the owner's fact carries it and the name is the pet's fact and entity, as
when both are said in one sentence. Only the speaker's next words name it: "Her name is Lily" after "I met a
girl today", or a line about something else in between, names no pet."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 4, 20, 0)


def chat(path: Path, lines: list[str | dict[str, str]]) -> tuple[dict[str, datetime | None], set[str]]:
    """The lines said a minute apart in one fold: the facts (text -> valid_to) and the entity names."""
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1)) as memory:
        messages = [
            {"id": f"m{i}", "time": T0 + timedelta(minutes=i), **({"text": line} if isinstance(line, str) else line)}
            for i, line in enumerate(lines)
        ]
        memory.add(messages, agent="祈煜", person="木木", index=True)
        memory.flush(agent="祈煜", person="木木")
        facts = {f.text: f.valid_to for f in memory.memories(agent="祈煜", person="木木", kinds=["fact"])}
        entities = {e.name for e in memory.iter_entities(agent="祈煜", person="木木")}
    return facts, entities


@pytest.mark.parametrize(
    ("lines", "owner", "named", "name"),
    [
        (
            ["I got a kitten today.", "Her name is Mochi."],
            "木木 has a kitten named Mochi",
            "Mochi is 木木's kitten",
            "Mochi",
        ),
        (
            ["I got a kitten today. Her name is Mochi!"],
            "木木 has a kitten named Mochi",
            "Mochi is 木木's kitten",
            "Mochi",
        ),
        (
            ["I adopted a puppy", "We named him Biscuit"],
            "木木 has a puppy named Biscuit",
            "Biscuit is 木木's puppy",
            "Biscuit",
        ),
        (["我养了只小猫。", "它叫团子"], "木木养了一只小猫，叫团子", "团子是木木的小猫", "团子"),
        (
            ["我养了只小猫。", {"text": "好可爱！叫什么名字呀？", "role": "assistant"}, "叫团子"],
            "木木养了一只小猫，叫团子",
            "团子是木木的小猫",
            "团子",
        ),
        (["我家有只狗", "我给它取名叫豆豆"], "木木养了一只狗，叫豆豆", "豆豆是木木的狗", "豆豆"),
    ],
)
def test_a_pet_named_in_the_next_message_is_named(
    tmp_path: Path, lines: list[str | dict[str, str]], owner: str, named: str, name: str
) -> None:
    facts, entities = chat(tmp_path, lines)
    assert owner in facts and named in facts, facts
    assert name in entities


@pytest.mark.parametrize(
    "lines",
    [
        ["I met a girl at work today.", "Her name is Lily."],
        ["I got a kitten today.", "Work was long.", "Her name is Lily."],
        ["我今天认识了一个新同事", "她叫小美"],
        ["我养了只小猫。", "我妈妈叫小美"],
        ["我养了只小猫。", "它叫什么好呢？"],
        ["我养了只小猫。", "[转发] 小林: 它叫小美"],  # someone else's words, passed on
        ["I got a kitten today.", "> Her name is Lily."],
        ["我养了只小猫。[转发] 小林: 它叫小美"],
        ["我养了只小猫", "哈哈\n[转发]\n它叫小美"],
    ],
)
def test_no_pet_name_without_a_pet_just_told(tmp_path: Path, lines: list[str | dict[str, str]]) -> None:
    facts, _ = chat(tmp_path, lines)
    facts = [text for text in facts if text != "小美是木木的妈妈"]  # 我妈妈叫小美 names the mother, not the cat
    assert not any(
        text.startswith(("Lily is", "小美是", "什么")) or "named" in text or "，叫" in text for text in facts
    )
