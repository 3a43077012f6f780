"""Closed facts rank below open ones (issue 13, probe pl7): a plan called off, or a fact superseded, keeps
its words and meaning, so recall ranked it like the plan that holds now, and the message that stated it
too. Rank rows carry ``valid_to`` (both stores); a history question (以前, 原来) still finds them."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from huiyi.config.recall import RecallRecipe
from huiyi.flows.ingest import terms_of
from huiyi.model import MemoryItem, MemoryKind, RecallResult, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.recall import pipeline
from huiyi.recall.validity import asks_past
from huiyi.store.base import Store

AGENT = "bot"
SCOPE = Scope.of_space(AGENT, "hz")
SAID = datetime(2024, 11, 14, 10, 0)
CLOSED = SAID + timedelta(hours=5)
NOW = SAID + timedelta(hours=12)
QUESTION = "陈大川搬家是哪天"


def _store(store: Store) -> dict[str, MemoryItem]:
    """The old plan (closed) and its message, the new plan (open) and its message, and a bystander."""

    def fact(text: str, source: str, valid_to: datetime | None = None) -> MemoryItem:
        data = {"space": SCOPE.tag, "subject": "陈大川", "predicate": "计划", "object": text}
        return MemoryItem(
            scope=SCOPE, kind=MemoryKind.FACT, text=text, time=SAID, sources=[source], data=data, valid_to=valid_to
        )

    def chunk(text: str, source: str, seq: int) -> MemoryItem:
        data = {"space": SCOPE.tag, "seq": seq}
        return MemoryItem(
            scope=SCOPE, kind=MemoryKind.CHUNK, text=f"陈大川: {text}", time=SAID, sources=[source],
            participants=["陈大川"], data=data,
        )  # fmt: skip

    items = {
        "old": fact("陈大川这周六搬家", "m1", CLOSED),
        "old_said": chunk("这周六我搬家", "m1", 1),
        "new": fact("陈大川下周六搬家", "m9", None),
        "new_said": chunk("下周六搬家", "m9", 30),
    }
    values = list(items.values())
    store.add_memories(
        values, HashEmbedder(64).embed_passages([i.text for i in values]), [terms_of(i.text) for i in values]
    )
    return items


def _recall(store: Store, query: str, now: datetime = NOW, **recipe: object) -> RecallResult:
    request = pipeline.RecallRequest(query=query, scopes=[SCOPE], limit=10, score_threshold=0.0, now=now)
    return pipeline.run(store, HashEmbedder(64), RecallRecipe(**recipe), request)


def _ranked(store: Store, query: str, now: datetime = NOW, **recipe: object) -> list[str]:
    return [hit.id for hit in _recall(store, query, now, **recipe).hits]


def test_rank_rows_carry_valid_to(store: Store) -> None:
    items = _store(store)
    rows = {row.id: row for row in store.rank_rows(AGENT, [item.id for item in items.values()])}
    assert rows[items["old"].id].valid_to == CLOSED
    assert rows[items["new"].id].valid_to is None
    assert rows[items["old_said"].id].valid_to is None


def test_a_closed_plan_and_its_message_rank_below_the_open_plan(store: Store) -> None:
    items = _store(store)
    ids = {item.id: name for name, item in items.items()}
    # the old plan matches the question a little better, so without the demotion it leads
    plain = [ids[i] for i in _ranked(store, QUESTION, closed_weight=0.0)]
    assert plain.index("old") < plain.index("new")
    found = _recall(store, QUESTION)
    ranked = [ids[hit.id] for hit in found.hits]
    assert ranked.index("new") < ranked.index("old")
    bonuses = found.info["bonuses"]
    assert isinstance(bonuses, dict)
    # the message that said the old plan loses as much; the one that says the new plan does not
    assert bonuses[items["old_said"].id]["closed"] == -0.3
    assert "closed" not in bonuses[items["new_said"].id]


def test_a_history_question_or_an_earlier_moment_keeps_the_closed_plan(store: Store) -> None:
    items = _store(store)
    ids = {item.id: name for name, item in items.items()}
    past = [ids[i] for i in _ranked(store, "陈大川原来搬家是哪天")]
    assert past.index("old") < past.index("new")
    # asked before it was called off, the old plan was the plan
    before = [ids[i] for i in _ranked(store, QUESTION, now=CLOSED - timedelta(hours=1))]
    assert before.index("old") < before.index("new")


def test_past_questions() -> None:
    assert asks_past("她以前住哪") and asks_past("周屿之前在哪上班") and asks_past("他本来打算哪天搬")
    assert asks_past("清明那几天我原本有什么打算来着")
    assert asks_past("Where did she live before?")
    assert not asks_past("她现在住哪") and not asks_past("陈大川哪天搬家") and not asks_past("Where does she live?")
    assert not asks_past("以前的事不提了\n她现在住哪")  # the chat before the question is not the question


def test_events_lend_beside_a_turn_demoted_below_zero() -> None:
    """A demoted message may score below 0; lending an event's score to other turns kept crashing on it."""
    from huiyi.recall.units import lend

    def turn(i: int) -> MemoryItem:
        return MemoryItem(id=f"c{i}", scope=SCOPE, kind=MemoryKind.CHUNK, text=f"t{i}", sources=[f"m{i}"])

    event = MemoryItem(id="e", scope=SCOPE, kind=MemoryKind.EVENT, text="搬家", sources=["m1"])
    window = [(9, (0.9, {})), (1, (0.5, {})), (2, (-0.1, {}))]
    ranked, lent = lend(window, {1: turn(1), 2: turn(2), 9: event})
    assert [(key, score) for key, (score, _) in ranked] == [(1, 0.9), (2, -0.1)]
    assert lent == {1: pytest.approx(0.4)}
