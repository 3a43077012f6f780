"""An answer in a group is found by its question's words (issue #13): 羊咩咩 asks 托尼老师店在哪, Tony_Wu
replies 文二路和学院路交叉口，叫“一剪” — no word in common with 托尼老师的理发店开在哪."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.ingest import answers
from huiyi.model import Message, Scope
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 14, 18, 0)
SCOPE = Scope.of_space("bot", "g1")


def message(speaker: str, text: str) -> Message:
    return Message(
        id=text, agent="bot", space="space:g1", scope=SCOPE, speaker=speaker, role="user", text=text, time=T0
    )


@pytest.mark.parametrize(
    ("asked", "reply", "expected"),
    [
        (("羊咩咩", "托尼老师店在哪"), ("Tony_Wu", "文二路和学院路交叉口，叫“一剪”"), True),
        (("豆豆酱", "帆帆乐队叫啥来着"), ("蒋一帆", "叫“晚班车”，小红书能搜到我们"), True),
        (("李星辰", "车上还能坐三个人，有人一起吗"), ("赵一鸣", "我去！正好拍星轨"), False),  # yes/no: a reaction
        (("羊咩咩", "托尼老师店在哪"), ("羊咩咩", "文二路那边吗"), False),  # the asker goes on
        (("羊咩咩", "托尼老师店在哪"), ("苏霓", "你也要去剪头发吗"), False),  # a question back
    ],
)
def test_what_answers_a_question(asked: tuple[str, str], reply: tuple[str, str], expected: bool) -> None:
    assert answers(message(*reply), message(*asked)) is expected


def test_the_answer_is_found_by_the_question(tmp_path: Path) -> None:
    chat = [
        ("林晚晴", "今晚大家都在吗"),
        ("苏霓", "在的，刚下课"),
        ("Tony_Wu", "打个小广告，我们店这个周末搞活动，剪发一律五折"),
        ("羊咩咩", "托尼老师店在哪"),
        ("Tony_Wu", "文二路和学院路交叉口，叫“一剪”"),
        ("苏霓", "周末去，头发太长了"),
    ]
    messages = [
        {"id": f"m{i}", "speaker": who, "text": text, "time": T0 + timedelta(minutes=2 * i)}
        for i, (who, text) in enumerate(chat)
    ]
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1)) as memory:
        memory.add(messages, agent="bot", space="g1")
        found = memory.recall("理发店开在什么地方", agent="bot", space="g1", person="钱多多", kinds=["chunk"], limit=3)
    assert found.hits[0].sources[0] == "m4", [hit.text for hit in found.hits]
