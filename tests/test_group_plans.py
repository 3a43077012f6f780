"""A group's plans announced to everyone, with no 我 (issue 13, group plan): each is an event of its own,
dated by the day it names, so a question about that day finds it."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract import Fold
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import Message, Scope
from huiyi.providers.embed import Embedder

T0 = datetime(2024, 11, 14, 20, 0)  # a Thursday: 周六 is the 16th, 下周五 the 22nd
CHAT = [
    ("林晚晴", "周六下午三点大家一起去爬山，老地方集合"),
    ("钱多多", "收到"),
    ("苏霓", "周六我要加班，去不了"),
    ("老周", "下周五团建，别忘了"),
    ("NekoChan", "哈哈哈"),
    ("林晚晴", "周六天气怎么样？"),
    ("Tony_Wu", "周六杭州下雨吗"),
    ("钱多多", "明天的聚餐取消了"),
]
SCOPE = Scope.of_space("bot", "g1")


def said_in_the_group(chat: list[tuple[str, str]], prefix: str) -> list[Message]:
    return [
        Message(
            id=f"{prefix}{i}",
            agent="bot",
            space=SCOPE.space_id,
            scope=SCOPE,
            speaker=who,
            role="user",
            text=text,
            time=T0 + timedelta(minutes=5 * i),
            seq=i + 1,
        )
        for i, (who, text) in enumerate(chat)
    ]


def plans(private: bool = False) -> list[tuple[str, datetime | None, list[str], list[str]]]:
    messages = said_in_the_group(CHAT, "m")
    fold = Fold(agent="bot", space=SCOPE.space_id, scope=SCOPE, messages=messages, person="林晚晴" if private else None)
    events = RuleExtractor().extract_sync(fold).events
    return [(e.text, e.time, e.sources, e.participants) for e in events if len(e.sources) == 1]


def test_an_announcement_without_i_is_a_plan_dated_by_the_day_it_names() -> None:
    assert plans() == [
        (
            "林晚晴说：周六下午三点（2024-11-16 15:00）大家一起去爬山，老地方集合",
            datetime(2024, 11, 16, 15),
            ["m0"],
            ["林晚晴"],
        ),
        ("老周说：下周五（2024-11-22）团建，别忘了", datetime(2024, 11, 22), ["m3"], ["老周"]),
    ]


def test_questions_calls_off_and_private_chats_are_no_group_plans() -> None:
    sources = [found[2] for found in plans()]
    assert ["m5"] not in sources and ["m6"] not in sources and ["m7"] not in sources and ["m2"] not in sources
    assert plans(private=True) == []


def test_a_question_about_the_day_finds_the_plan(tmp_path: Path, e5: Embedder) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    messages = [
        {"id": f"m{i}", "speaker": who, "text": text, "time": T0 + timedelta(minutes=5 * i)}
        for i, (who, text) in enumerate(CHAT)
    ]
    with Memory(tmp_path, embedder=e5, config=config, clock=lambda: T0 + timedelta(hours=3)) as memory:
        memory.add(messages, agent="bot", space="g1", index=True)
        memory.flush(agent="bot", space="g1")
        events = memory.memories(agent="bot", space="g1", kinds=["event"])
        plan = next(e for e in events if e.sources == ["m0"])
        assert plan.time == datetime(2024, 11, 16, 15, 0) and plan.said_at == T0
        found = memory.recall("周六有什么活动", agent="bot", space="g1", kinds=["event"], limit=3)
        assert plan.id in [hit.id for hit in found.hits]
        assert memory.recall("周六有什么活动", agent="bot", space="g1").hits[0].sources == ["m0"]
        # the overview tells the plan once: the stretch of talk that holds it tells it already
        context = memory.context(agent="bot", space="g1", message="周六有什么活动")
        assert context.text.count("老地方集合") == 1


CHAT_EN = [
    ("Nora", "Let's all meet at the park Saturday at 3pm for the picnic!"),
    ("Leo", "lol"),
    ("Sam", "Team dinner next Friday, don't be late"),
    ("Ivy", "Is the park open Saturday?"),
    ("Leo", "Tomorrow's lunch got cancelled"),
    ("Sam", "We usually meet every Saturday anyway"),
    ("Ivy", "I'm flying to Denver tomorrow"),  # her own plan: plans_en's
]


def english_plans() -> list[tuple[str, datetime | None, list[str]]]:
    messages = said_in_the_group(CHAT_EN, "e")
    fold = Fold(agent="bot", space=SCOPE.space_id, scope=SCOPE, messages=messages, language="en")
    events = RuleExtractor().extract_sync(fold).events
    return [(e.text, e.time, e.sources) for e in events if len(e.sources) == 1]


def test_an_english_announcement_is_a_plan_dated_by_the_day_it_names() -> None:
    assert english_plans() == [
        (
            "Nora said: Let's all meet at the park Saturday at 3pm (2024-11-16 15:00) for the picnic!",
            datetime(2024, 11, 16, 15),
            ["e0"],
        ),
        ("Sam said: Team dinner next Friday (2024-11-22), don't be late", datetime(2024, 11, 22), ["e2"]),
    ]
