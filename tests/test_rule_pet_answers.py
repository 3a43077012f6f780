"""A pet's name given as the answer to a question about it (你家那只柯基？叫什么来着 — 叫团子) read nothing: a bare
叫团子 or 团子 names a pet only after the speaker told of one. The person asked has that pet, so named."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from test_rule_pet_names import chat

T0 = datetime(2024, 11, 4, 20, 0)


def asked(text: str) -> dict[str, str]:
    return {"text": text, "role": "assistant"}


@pytest.mark.parametrize(
    ("question", "answer", "owner", "named"),
    [
        ("你家那只柯基？叫什么来着", "叫团子", "木木养了一只柯基，叫团子", "团子是木木的柯基"),
        ("你家狗叫啥", "团子", "木木养了一只狗，叫团子", "团子是木木的狗"),
        ("你家狗叫啥？", "它叫豆豆呀", "木木养了一只狗，叫豆豆", "豆豆是木木的狗"),
        ("你家主子叫什么名字？", "布丁", "木木养了一只猫，叫布丁", "布丁是木木的猫"),
    ],
)
def test_a_pets_name_answered_is_the_pet_of_who_was_asked(
    tmp_path: Path, question: str, answer: str, owner: str, named: str
) -> None:
    facts, entities = chat(tmp_path, [asked(question), answer])
    assert owner in facts and named in facts and answer.strip("它叫呀") in entities, facts


@pytest.mark.parametrize(
    "lines",
    [
        [asked("你家狗叫啥"), "忘了"],
        [asked("你家狗叫啥"), "不知道"],
        [asked("你家狗叫啥"), "哈哈哈"],
        [asked("你家狗叫啥"), "今天好累", "团子"],  # the next line was something else
        [asked("你家狗乖吗"), "团子"],  # no name was asked
        [asked("你家狗叫啥"), "我家没有狗"],
        ["你家狗叫啥", "团子"],  # the speaker's own lines: no one else was asked
        # a laugh or the breed is no name (were 嘿嘿是木木的狗, 柯基是木木的狗)
        [asked("你家狗叫啥"), "嘿嘿"],
        [asked("你家狗叫啥"), "呵呵"],
        [asked("你家狗叫啥"), "柯基"],
        [asked("你家狗叫啥"), "拉布拉多"],
    ],
)
def test_no_answer_names_no_pet(tmp_path: Path, lines: list[str | dict[str, str]]) -> None:
    facts, _ = chat(tmp_path, lines)
    assert not any("团子" in fact or "养了" in fact for fact in facts), facts


def test_in_a_group_the_next_line_of_another_answers(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    said = [("ann", "大家好"), ("bob", "大家好"), ("ann", "你家那只柯基？叫什么来着"), ("bob", "叫团子")]
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1)) as memory:
        messages = [
            {"id": f"m{i}", "speaker": who, "text": text, "time": T0 + timedelta(minutes=i)}
            for i, (who, text) in enumerate(said)
        ]
        memory.add(messages, agent="祈煜", space="g-pets")
        memory.flush(agent="祈煜", space="g-pets")
        facts = {f.text for f in memory.memories(agent="祈煜", space="g-pets", kinds=["fact"])}
    assert {"bob养了一只柯基，叫团子", "团子是bob的柯基"} <= facts, facts


def test_the_askers_own_line_between_keeps_the_question(tmp_path: Path) -> None:
    facts, _ = chat(tmp_path, [asked("你家狗叫啥"), asked("突然想不起来了"), "豆豆"])
    assert "木木养了一只狗，叫豆豆" in facts, facts
