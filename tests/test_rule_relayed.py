"""Forwarded and quoted lines are someone else's words (QQ, WeChat, Telegram, Discord, mail forwards, chat
records): the no-LLM rules read no fact, alias, plan, quit or loss of the speaker from them, the reply
around them is read as usual, and the line stays stored and recallable as it was said."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

AGENT = "祈煜"
T0 = datetime(2024, 11, 4, 20, 0)
WECHAT_RULE = "- - - - - - - - - - - - - - -"


def group_chat(path: Path, lines: list[str], space: str = "g-game") -> Memory:
    """A group where ann and bob greet, then ajie2 says ``lines``, each a minute apart, flushed."""
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    memory = Memory(path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1))
    said = [("ann", "大家好"), ("bob", "大家好"), *(("ajie2", line) for line in lines)]
    messages = [
        {"id": f"{space}-m{i}", "speaker": who, "text": text, "time": T0 + timedelta(minutes=i)}
        for i, (who, text) in enumerate(said)
    ]
    memory.add(messages, agent=AGENT, space=space)
    memory.flush(agent=AGENT, space=space)
    return memory


@pytest.fixture
def chat(tmp_path: Path) -> Iterator[list[Memory]]:
    opened: list[Memory] = []
    yield opened
    for memory in opened:
        memory.close()


def facts_of(memory: Memory, space: str = "g-game") -> dict[str, datetime | None]:
    return {f.text: f.valid_to for f in memory.memories(agent=AGENT, space=space, kinds=["fact"])}


def aliases_of(memory: Memory, name: str, space: str = "g-game") -> list[str]:
    return next((e.aliases for e in memory.entities(agent=AGENT, space=space) if e.name == name), [])


PASSED_ON = [
    "[转发] 工作群 小林: 我喜欢喝美式咖啡",  # the report's line
    "【转发】小林：我住在杭州",
    "[聊天记录]\n小林: 我养了一只猫，叫豆豆",
    "【聊天记录】\n小林：我是一名护士",
    f"「小林：我喜欢喝美式咖啡」\n{WECHAT_RULE}\n哈哈真的吗",  # WeChat's quote-reply
    "[回复 小林: 我住在杭州] 哈哈真的吗",  # QQ's
    "看看这个\n[转发] 小林: 我最喜欢的电影是《繁花》",
    "[Chat History]\nLin: I live in Paris",
    "Forwarded from Lin\nI love jazz",
    "Forwarded message from Lin: I love jazz",  # Messenger's and Gmail's label
    "FYI\n---------- Forwarded message ----------\nFrom: Lin\nI love jazz",
    "> I love jazz\nno way",
    ">>> I live in Paris\nand I love jazz",  # Discord: the rest of the message is quoted
]
LABELS = ["ajie2转发：", "ajie2引用：", "（转发：", "（引用：", "forwarded:", "quoting:", "quoted:"]
MARKERS = ["[转发]", "【转发】", "聊天记录", "「小林", "[回复", "Chat History", "Forwarded", ">"]


@pytest.mark.parametrize("line", PASSED_ON)
def test_a_forwarded_or_quoted_line_is_no_fact_of_the_speaker(chat: list[Memory], tmp_path: Path, line: str) -> None:
    memory = group_chat(tmp_path, [line])
    chat.append(memory)
    assert facts_of(memory) == {}
    # stored as it was said, and the event names it passed on, not said
    assert [m.text for m in memory.messages(["g-game-m2"], agent=AGENT)] == [line]
    events = " ".join(e.text for e in memory.memories(agent=AGENT, space="g-game", kinds=["event"]))
    assert any(label in events for label in LABELS), events
    assert not any(marker in events for marker in MARKERS), events


@pytest.mark.parametrize(
    "lines",
    [
        ["[转发] 工作群 小林: 叫我老K就行"],  # an alias
        ["[回复 小林: 叫我老K就行] 哈哈"],
        ["[转发] 小林: 我下周一飞大阪"],  # a plan
        ["[转发]\n我戒烟了"],  # a habit given up
        ["我喜欢喝咖啡", "[转发]\n我不喝咖啡了"],  # ... closing the speaker's own taste
        ["我养了一只猫，叫豆豆", "[转发]\n豆豆今天走了"],  # a loss
        ["我下周一搬家", "[转发]\n搬家泡汤了"],  # a plan called off
        ["I love coffee", "> I quit coffee\nwow"],
    ],
)
def test_a_passed_on_line_teaches_no_alias_plan_quit_or_loss(
    chat: list[Memory], tmp_path: Path, lines: list[str]
) -> None:
    memory = group_chat(tmp_path, lines)
    chat.append(memory)
    own = group_chat(tmp_path / "own", lines[:-1], space="g-own")  # the speaker's own lines alone
    chat.append(own)
    assert facts_of(memory) == facts_of(own, "g-own")
    assert aliases_of(memory, "ajie2") == []


@pytest.mark.parametrize(
    ("line", "fact"),
    [
        ("[回复 小林: 你住哪] 我住在杭州", "ajie2住在杭州"),
        (f"「小林：你是做什么的」\n{WECHAT_RULE}\n我是一名护士", "ajie2是一名护士"),
        ("> where do you live?\nI live in Paris", "ajie2 lives in Paris"),
        ("我喜欢喝茶\n[转发] 小林: 我喜欢喝美式咖啡", "ajie2喜欢喝茶"),
    ],
)
def test_the_speakers_own_words_around_a_quote_are_read(
    chat: list[Memory], tmp_path: Path, line: str, fact: str
) -> None:
    memory = group_chat(tmp_path, [line])
    chat.append(memory)
    assert facts_of(memory) == {fact: None}


def test_a_day_both_the_quote_and_the_reply_name_is_dated_once(chat: list[Memory], tmp_path: Path) -> None:
    """The quote's 周六 and the reply's were two spans of one phrase: the plan read 周六（…）（…）."""
    memory = group_chat(tmp_path, ["[回复 阿杰: 周六去爬山吗？] 去啊！我周六去爬香山"])
    chat.append(memory)
    assert list(facts_of(memory)) == ["ajie2周六（2024-11-09）去爬香山"]


def test_a_forward_reaches_neither_the_global_profile_nor_another_group(chat: list[Memory], tmp_path: Path) -> None:
    """Seed 002 §3.11: only self-statements cross groups. A forward is no self-statement: ajie2's global
    profile, another group's prompt and the day's diary do not say ajie2 likes 美式咖啡."""
    memory = group_chat(tmp_path, ["[转发] 工作群 小林: 我喜欢喝美式咖啡"])
    chat.append(memory)
    memory.add(
        [{"id": "w1", "speaker": "ajie2", "text": "今晚开黑吗", "time": T0 + timedelta(hours=1)}],
        agent=AGENT,
        space="g-work",
    )
    memory.flush(agent=AGENT, space="g-work")
    for space in ("g-game", "g-work"):
        memory.summarize(T0.date(), agent=AGENT, space=space)
    profile = [s.text for s in memory.memories(agent=AGENT, person="ajie2", kinds=["summary"])]
    assert not any("美式" in text for text in profile), profile
    prompt = memory.context(agent=AGENT, space="g-work", message="ajie2喜欢喝什么").text
    assert "美式" not in prompt
    summaries = [s.text for s in memory.memories(agent=AGENT, space="g-game", kinds=["summary"])]
    assert summaries and not any("ajie2说：[转发]" in text or "ajie2说：工作群" in text for text in summaries)
    # still recallable where it was said
    found = memory.recall("美式咖啡", agent=AGENT, space="g-game", limit=5)
    assert any("美式咖啡" in hit.text for hit in found.hits)
