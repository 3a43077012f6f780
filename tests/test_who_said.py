"""Who-questions find the line that says what is described (issue 13, probe w3): "谁说年底忙得每晚都走得很晚"
found the same speaker's short 年底了哪敢请假 above the line that says it."""

from __future__ import annotations

from datetime import datetime, timedelta

from huiyi.config.recall import RecallRecipe
from huiyi.flows.ingest import terms_of
from huiyi.model import MemoryItem, MemoryKind, RecallResult, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.recall import pipeline
from huiyi.recall.who import question_words
from huiyi.store.base import Store

AGENT = "bot"
SCOPE = Scope.of_space(AGENT, "hz")
T0 = datetime(2024, 11, 14, 8, 0)
NOW = T0 + timedelta(hours=14)
LINES = [  # (speaker, text, hours after T0)
    ("方圆", "年底了哪敢请假", 0),
    ("豆豆酱", "早上好，图书馆抢到了靠窗的位置", 1),
    ("方圆", "又是加班夜，审计季，这一周天天十点以后才走，每晚都忙到很晚", 12),
    ("方圆", "今天早上地铁又坏了，年底真倒霉", 0.5),
]


def _store(store: Store) -> list[MemoryItem]:
    items = [
        MemoryItem(
            scope=SCOPE,
            kind=MemoryKind.CHUNK,
            text=f"{speaker}: {text}",
            time=T0 + timedelta(hours=hours),
            sources=[f"m{i}"],
            participants=[speaker],
            data={"space": SCOPE.tag, "seq": i * 10},
        )
        for i, (speaker, text, hours) in enumerate(LINES)
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


def test_the_line_that_says_it_beats_the_same_speakers_short_line(store: Store) -> None:
    items = _store(store)
    query = "谁说年底忙得每晚都走得很晚"
    plain = _order(store, items, query, who_weight=0.0)
    assert plain.index(0) < plain.index(2)  # 年底 alone, in a short line, wins on words and meaning
    ranked = _order(store, items, query)
    assert ranked.index(2) < ranked.index(0)  # the speaker's line that says it leads their lines
    # a question that does not ask who is left as meaning and words put it
    other = "年底忙得每晚都走得很晚吗"
    assert _order(store, items, other) == _order(store, items, other, who_weight=0.0)


def test_a_who_question_with_a_time_keeps_the_line_said_then(store: Store) -> None:
    items = _store(store)
    found = _recall(store, "今天一大早是谁说年底很忙")
    ranked = [hit.id for hit in found.hits]
    bonuses = found.info["bonuses"]
    assert isinstance(bonuses, dict)
    # the evening line says more of it, but the morning's lines are what 今天一大早 asks for
    assert "said_most" not in bonuses.get(items[2].id, {})
    assert ranked.index(items[2].id) > min(ranked.index(items[0].id), ranked.index(items[3].id))


def test_question_words() -> None:
    assert question_words("是谁说明晚要带自己做的点心来", "明晚") == ["带", "做", "点心"]
    assert question_words("明晚谁带点心") == ["明晚", "带", "点心"]
    assert question_words("阿木的店在哪") == []
    assert question_words("谁说的\n阿木的店在哪") == []  # the chat before the question is not the question
