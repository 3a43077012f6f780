"""我的考试是什么时候 asks for the asker's own exam: a line about their girlfriend's, with the question's very
words, led it (issue 17, the mem0 peer chat's first hit). Between two, a line another leads keeps
``other_person_weight`` of its score when the asker asks of their own, and only then."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.recall.whose import anothers, asks_own

T0 = datetime(2025, 3, 3, 20, 0)
LINES = [
    "女朋友下个月要考司法考试",
    "今天在图书馆复习了两个小时",
    "我下周三要考计算机二级，好紧张啊",
    "周末打算在家大扫除",
]


def _ranked(memory: Memory, query: str, person: str = "浩然", space: str | None = None) -> list[str]:
    found = memory.recall(query, agent="祈煜", person=None if space else person, space=space, limit=10)
    return [hit.text.split(": ", 1)[-1] for hit in found.hits]


def _memory(tmp_path: Path, lines: list[str], **where: str) -> Memory:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    memory = Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=1))
    messages = [
        {"id": f"m{i}", "text": text, "time": T0 + timedelta(minutes=i), **({"speaker": "浩然"} if where else {})}
        for i, text in enumerate(lines)
    ]
    memory.add(messages, agent="祈煜", index=True, **(where or {"person": "浩然"}))
    return memory


def test_the_askers_own_exam_leads_her_exam(tmp_path: Path) -> None:
    with _memory(tmp_path, LINES) as memory:
        ranked = _ranked(memory, "我的考试是什么时候？")
        assert ranked.index("我下周三要考计算机二级，好紧张啊") < ranked.index("女朋友下个月要考司法考试")
        # asked of her, hers is not lowered
        assert _ranked(memory, "女朋友什么时候考试？")[0] == "女朋友下个月要考司法考试"


def test_in_a_group_the_line_is_left_as_it_was(tmp_path: Path) -> None:
    # in a group a member's line about someone is weighed by the group's own rules (recall.rerank)
    with _memory(tmp_path, LINES, space="自习群") as memory:
        found = memory.recall("我的考试是什么时候？", agent="祈煜", space="自习群", explain=True, limit=10)
        assert not any("other" in bonus for bonus in found.info["bonuses"].values())


@pytest.mark.parametrize(
    ("line", "theirs"),
    [
        ("女朋友下个月要考司法考试", True),
        ("我妈明天来上海", True),
        ("他明天出差", True),
        ("My sister is a nurse now", True),
        ("我下周三要考计算机二级", False),
        ("奶奶说我最近工作太拼了", False),  # of the speaker, told by her
        ("我妈陪我去医院了", False),
        ("My wife and I went to Paris", False),
        ("朋友圈看到你去旅游了", False),  # 朋友圈 is no friend
        ("他们都去了", False),
    ],
)
def test_whose_line_it_is(line: str, theirs: bool) -> None:
    assert anothers(line) is theirs


@pytest.mark.parametrize(
    ("query", "own"),
    [
        ("我的考试是什么时候？", True),
        ("我是做什么工作的？", True),
        ("What do I do for a living?", True),
        ("我妈的生日是哪天", False),
        ("我和我老公上次去哪玩了", False),
        ("What's my wife's job?", False),
        ("她什么时候考试", False),
        ("你最喜欢什么", False),
    ],
)
def test_whose_question_it_is(query: str, own: bool) -> None:
    assert asks_own(query) is own
