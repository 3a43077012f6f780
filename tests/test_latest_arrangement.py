"""The latest arrangement of a plan leads (issue 13, probes pl5 and cf3/cf4/cf6): a plan arranged over hours
has its first announcement say most of the question's words; the question about the time to come wants
the newest arrangement, and "最后改到哪" wants the change."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from huiyi.config.recall import RecallRecipe
from huiyi.flows.ingest import terms_of
from huiyi.model import MemoryItem, MemoryKind, RecallResult, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.recall import pipeline
from huiyi.recall.latest import arranges, asks_final, revises
from huiyi.store.base import Store

AGENT = "bot"
SCOPE = Scope.of_space(AGENT, "hz")
T0 = datetime(2024, 11, 14, 12, 0)  # a Thursday: 后天 is Saturday 11-16
NOW = T0 + timedelta(hours=10)
LINES = [  # (speaker, text, minutes after T0)
    ("李星辰", "后天晚上流星雨极大，我打算开车去安吉的江南天池看流星，有人一起去看流星吗", 0),
    ("赵一鸣", "我去！正好拍星轨", 2),
    ("李星辰", "安吉后天晚上云层很厚，改去临安的大明山了", 200),
    ("李星辰", "后天晚上九点西溪湿地入口出发，别迟到", 205),
    ("阿木", "后天晚上九点我店里有活动，看流星的朋友来吃碗面", 300),
    ("李星辰", "上周我也去看过流星，九点就到山顶了", 310),
]


def _store(store: Store) -> list[MemoryItem]:
    items = [
        MemoryItem(
            scope=SCOPE,
            kind=MemoryKind.CHUNK,
            text=f"{speaker}: {text}",
            time=T0 + timedelta(minutes=minutes),
            sources=[f"m{i}"],
            participants=[speaker],
            data={"space": SCOPE.tag, "seq": i * 10},  # apart: no neighbour bonus between them
        )
        for i, (speaker, text, minutes) in enumerate(LINES)
    ]
    vectors = HashEmbedder(64).embed_passages([i.text for i in items])
    store.add_memories(items, vectors, [terms_of(i.text) for i in items])
    return items


def _recall(store: Store, query: str, **recipe: object) -> RecallResult:
    request = pipeline.RecallRequest(query=query, scopes=[SCOPE], limit=10, score_threshold=0.0, now=NOW)
    return pipeline.run(store, HashEmbedder(64), RecallRecipe(**recipe), request)


def _order(store: Store, items: list[MemoryItem], query: str, **recipe: object) -> list[int]:
    index = {item.id: i for i, item in enumerate(items)}
    return [index[hit.id] for hit in _recall(store, query, **recipe).hits]


QUESTION = "后天晚上去看流星的安排"


def test_the_newest_arrangement_of_a_plan_leads(store: Store) -> None:
    items = _store(store)
    plain = _order(store, items, QUESTION, latest_plans=False)
    assert plain[0] == 0  # the announcement says most of the question's words
    found = _recall(store, QUESTION)
    assert found.hits[0].id == items[3].id  # 九点西溪湿地入口出发: the newest line naming 后天 that fixes something
    # another speaker's line naming the same time, and the speaker's line about another time, gain nothing
    bonuses = found.info["bonuses"]
    assert isinstance(bonuses, dict)
    assert [i for i, item in enumerate(items) if "latest" in bonuses.get(item.id, {})] == [3]


def test_a_question_about_the_past_or_no_time_moves_nothing(store: Store) -> None:
    items = _store(store)
    for query in ("上周去看流星是几点到的", "看流星在哪儿出发"):
        assert _order(store, items, query) == _order(store, items, query, latest_plans=False)


def test_a_final_state_question_finds_the_change(store: Store) -> None:
    items = _store(store)
    query = "看流星最后去的是哪座山"
    found = _recall(store, query)
    ranked = [hit.id for hit in found.hits]
    # 改去临安的大明山了 goes up past the line that fixed a time (the hash embedder knows no meaning)
    assert _order(store, items, query, change_weight=0.0).index(2) > ranked.index(items[2].id)
    assert ranked.index(items[2].id) < ranked.index(items[3].id)
    bonuses = found.info["bonuses"]
    assert isinstance(bonuses, dict) and bonuses[items[2].id]["change"] == 0.35
    # the same question without 最后 asks where, not how it ended: no change bonus
    plain = _recall(store, "看流星去的是哪座山").info["bonuses"]
    assert isinstance(plain, dict) and not any("change" in b for b in plain.values())


@pytest.mark.parametrize(
    ("query", "final"),
    [
        ("九溪那次爬山最终改到哪天了", True),
        ("陈大川最后到底搬去哪了", True),
        ("它现在只能吃哪种饭来着", True),  # how it is now: a change says it
        ("明晚聚餐是几点", False),
        ("我现在好累", False),  # 现在 outside a question asks nothing
    ],
)
def test_final_state_questions(query: str, final: bool) -> None:
    assert asks_final(query) is final
    assert not asks_final("最后一次见面是哪天\n他住哪")  # the chat before the question is not the question


def test_changes_and_arrangements() -> None:
    assert revises("火锅那家退了，改成烧烤") and revises("演出往后推半小时") and not revises("好的收到")
    assert arranges("七点半集合") and arranges("改到12月1号") and arranges("19:30开始") and not arranges("明晚见")


def test_a_closed_fact_that_once_was_a_change_gains_nothing() -> None:
    from huiyi.recall.latest import changes
    from huiyi.store.base import RankRow

    def fact(text: str, closed: datetime | None) -> RankRow:
        return RankRow("f", SCOPE.tag, MemoryKind.FACT, T0, (), ("m1",), "g", None, text, 0.5, "陈大川", None, closed)

    rows = {1: fact("陈大川搬家，改到下周", T0 + timedelta(hours=1)), 2: fact("陈大川搬家，改到下周六", None)}
    assert changes([1, 2], rows, 0.35) == {2: 0.35}
