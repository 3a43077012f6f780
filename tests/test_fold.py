"""Working memory folds into durable jobs; jobs become memories once, whatever fails on the way."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract import EventDraft, Extraction, FactDraft, Fold
from huiyi.flows.extract.fold import fold_of, memories_of, rounds, writes_of
from huiyi.model import FactKind, JobState, MemoryKind, Message, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Writes

T0 = datetime(2024, 9, 20, 19, 0)
QUIET = Config(worker={"enabled": False, "backoff_seconds": 0.0})


class ScriptedExtractor:
    """One event per fold naming its first and last message; fails while ``failures`` > 0."""

    def __init__(self, failures: int = 0) -> None:
        self.failures = failures
        self.folds: list[Fold] = []

    async def extract(self, fold: Fold) -> Extraction:
        self.folds.append(fold)
        if self.failures:
            self.failures -= 1
            raise RuntimeError("LLM answered 500")
        first, last = fold.messages[0], fold.messages[-1]
        return Extraction(
            events=[EventDraft(text=f"从「{first.text}」聊到「{last.text}」", sources=[first.id, last.id, "bogus"])],
            facts=[FactDraft("木木", "喜欢", "火锅", "木木喜欢吃火锅", sources=[first.id], keyword="火锅")],
        )


def conversation(rounds_count: int, start: datetime = T0, prefix: str = "") -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i in range(rounds_count):
        at = start + timedelta(minutes=2 * i)
        out.append({"id": f"{prefix}u{i}", "text": f"第{i}轮木木说", "time": at})
        out.append({"id": f"{prefix}a{i}", "text": f"第{i}轮祈煜答", "role": "assistant", "time": at})
    return out


def open_memory(path: Path, extractor: ScriptedExtractor, config: Config = QUIET) -> Memory:
    return Memory(path, embedder=HashEmbedder(32), extractor=extractor, config=config)


def test_rounds_open_at_each_user_message() -> None:
    def msg(i: int, role: str) -> Message:
        return Message(
            id=str(i),
            agent="a",
            space="person:p",
            scope=Scope.of_person("a", "p"),
            speaker="x",
            role=role,
            text="t",
            time=T0,
        )

    grouped = rounds([msg(1, "assistant"), msg(2, "user"), msg(3, "assistant"), msg(4, "user"), msg(5, "user")])
    assert [[m.id for m in r] for r in grouped] == [["1"], ["2", "3"], ["4"], ["5"]]


def test_twenty_rounds_fold_the_oldest_ten(tmp_path: Path) -> None:
    extractor = ScriptedExtractor()
    with open_memory(tmp_path, extractor) as memory:
        memory.add(conversation(19), agent="祈煜", person="木木")
        assert memory.jobs(agent="祈煜") == []
        memory.add(conversation(20)[-2:], agent="祈煜", person="木木")
        (job,) = memory.jobs(agent="祈煜")
        assert (job.payload["from_seq"], job.payload["to_seq"]) == (1, 20)
        # folded messages stay in working memory until extraction succeeds
        assert len(memory.working_memory(agent="祈煜", person="木木")) == 40
        assert memory.run_jobs() == 1
        working = memory.working_memory(agent="祈煜", person="木木")
        assert [m.id for m in working][:2] == ["u10", "a10"]
        assert len(working) == 20
        (fold,) = extractor.folds
        assert [m.id for m in fold.messages] == [f"{r}{i}" for i in range(10) for r in "ua"]
        (event,) = memory.overview(agent="祈煜", person="木木")
        assert event.kind is MemoryKind.EVENT
        assert event.sources == ["u0", "a9"]  # the id not in the fold was dropped
        assert event.text == "从「第0轮木木说」聊到「第9轮祈煜答」"


def test_working_memory_reads_no_message_before_its_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The messages a fold extracted are left in the store, not read and dropped on every turn."""
    with open_memory(tmp_path, ScriptedExtractor()) as memory:
        memory.add(conversation(20), agent="祈煜", person="木木")
        assert memory.run_jobs() == 1
        space = Scope.of_person("祈煜", "木木").space_id
        start = memory.store.working_start("祈煜", space)
        read: list[Message] = []
        recent = memory.store.recent_messages

        def recording(*args: Any, **kwargs: Any) -> list[Message]:
            found = recent(*args, **kwargs)
            read.extend(found)
            return found

        monkeypatch.setattr(memory.store, "recent_messages", recording)
        working = memory.working_memory(agent="祈煜", person="木木")
        assert [m.id for m in working] == [f"{r}{i}" for i in range(10, 20) for r in "ua"]
        assert min(m.seq for m in read) == start == 21


def test_forty_rounds_fold_three_times_and_keep_ten(tmp_path: Path) -> None:
    with open_memory(tmp_path, ScriptedExtractor()) as memory:
        for i in range(40):
            memory.add(conversation(40)[2 * i : 2 * i + 2], agent="祈煜", person="木木")
            memory.run_jobs()
        working = memory.working_memory(agent="祈煜", person="木木")
        assert 10 <= len(rounds(working)) < 20
        assert len(memory.overview(agent="祈煜", person="木木")) == 3
        assert [j.state for j in memory.jobs(agent="祈煜")] == [JobState.DONE] * 3


def test_a_long_silence_is_a_scene_change(tmp_path: Path) -> None:
    with open_memory(tmp_path, ScriptedExtractor()) as memory:
        memory.add(conversation(3), agent="祈煜", person="木木")
        later = conversation(1, start=T0 + timedelta(hours=6), prefix="next")
        memory.add(later, agent="祈煜", person="木木")
        (job,) = memory.jobs(agent="祈煜")
        assert job.payload["message_ids"] == ["u0", "a0", "u1", "a1", "u2", "a2"]


def test_flush_folds_everything_and_waits(tmp_path: Path) -> None:
    with open_memory(tmp_path, ScriptedExtractor()) as memory:
        memory.add(conversation(3), agent="祈煜", person="木木")
        memory.flush(agent="祈煜", person="木木")
        assert memory.working_memory(agent="祈煜", person="木木") == []
        facts = memory.recall("火锅", agent="祈煜", person="木木", kinds=[MemoryKind.FACT]).hits
        assert [f.text for f in facts] == ["木木喜欢吃火锅"]
        assert memory.flush(agent="祈煜", person="木木") == []  # nothing left to fold


def test_a_failing_extractor_is_retried_and_loses_nothing(tmp_path: Path) -> None:
    extractor = ScriptedExtractor(failures=2)
    with open_memory(tmp_path, extractor) as memory:
        memory.add(conversation(3), agent="祈煜", person="木木")
        memory.flush(agent="祈煜", person="木木")
        # two failures, then success: three runs, the two failed attempts recorded
        (job,) = memory.jobs(agent="祈煜")
        assert (job.state, job.attempts, job.claims) == (JobState.DONE, 2, 3)
        assert "500" in job.last_error
        assert len(memory.overview(agent="祈煜", person="木木")) == 1


def test_a_job_that_keeps_failing_stops_and_keeps_working_memory(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False, "backoff_seconds": 0.0, "max_attempts": 2})
    with open_memory(tmp_path, ScriptedExtractor(failures=99), config) as memory:
        memory.add(conversation(2), agent="祈煜", person="木木")
        memory.flush(agent="祈煜", person="木木")
        (job,) = memory.jobs(agent="祈煜", states=[JobState.FAILED])
        assert job.attempts == 2
        assert len(memory.working_memory(agent="祈煜", person="木木")) == 4
        assert memory.overview(agent="祈煜", person="木木") == []


def test_a_crash_after_commit_does_not_duplicate(tmp_path: Path) -> None:
    """Running the same job's writes again (as after a crash) stores nothing twice."""
    extractor = ScriptedExtractor()
    with open_memory(tmp_path, extractor) as memory:
        memory.add(conversation(2), agent="祈煜", person="木木")
        memory.flush(agent="祈煜", person="木木", wait=False)
        (job,) = memory.jobs(agent="祈煜")
        fold = fold_of(memory.store, job, "zh")
        items = memories_of(extractor_result := asyncio.run(extractor.extract(fold)), fold, job.id)
        assert extractor_result.events
        memory.store.apply(writes_of(items, HashEmbedder(32), fold, 4))  # the first run's commit
        memory.run_jobs()  # the job itself runs again
        assert memory.store.count_memories(scopes=[Scope.of_person("祈煜", "木木")]) == 4 + 2


def test_the_background_worker_extracts_on_its_own(tmp_path: Path) -> None:
    config = Config(worker={"enabled": True, "poll_seconds": 0.05}, window={"fold_at": 2, "keep_min": 1})
    with Memory(tmp_path, embedder=HashEmbedder(32), extractor=ScriptedExtractor(), config=config) as memory:
        memory.add(conversation(2), agent="祈煜", person="木木")
        deadline = datetime.now() + timedelta(seconds=10)
        while not memory.overview(agent="祈煜", person="木木") and datetime.now() < deadline:
            time.sleep(0.05)
        assert len(memory.overview(agent="祈煜", person="木木")) == 1


@pytest.mark.parametrize("space", ["g1"])
def test_group_folds_are_per_space(tmp_path: Path, space: str) -> None:
    extractor = ScriptedExtractor()
    with open_memory(tmp_path, extractor) as memory:
        memory.add(
            [{"text": f"群消息{i}", "speaker": f"p{i % 3}", "time": T0 + timedelta(minutes=i)} for i in range(20)],
            agent="bot",
            space=space,
        )
        memory.run_jobs()
        (fold,) = extractor.folds
        assert fold.scope == Scope.of_space("bot", space)
        assert len(fold.messages) == 10
        assert set(fold.aliases) == {"p0", "p1", "p2"}
        assert memory.overview(agent="bot", space=space)[0].scope == Scope.of_space("bot", space)


def test_extracted_entities_are_recorded_once_with_their_aliases(tmp_path: Path) -> None:
    from huiyi.flows.extract import EntityDraft
    from huiyi.model import EntityType

    class Naming(ScriptedExtractor):
        async def extract(self, fold: Fold) -> Extraction:
            result = await super().extract(fold)
            result.entities = [EntityDraft("苏霓", EntityType.OBJECT, ["小霓"]), EntityDraft("团子")]
            return result

    with open_memory(tmp_path, Naming()) as memory:
        for day in range(2):
            memory.add(conversation(2, start=T0 + timedelta(days=day), prefix=f"d{day}"), agent="祈煜", person="木木")
            memory.flush(agent="祈煜", person="木木")
        entities = memory.store.list_entities([Scope.of_person("祈煜", "木木")])
        # 木木 is the subject of the scripted fact; its object 火锅 is a literal, not an entity
        assert sorted(e.name for e in entities) == ["团子", "木木", "苏霓"]
        (suni,) = [e for e in entities if e.name == "苏霓"]
        assert suni.aliases == ["小霓"] and suni.type is EntityType.OBJECT


def test_a_fact_keeps_its_confidence_and_start_time_and_old_rows_still_read() -> None:
    scope = Scope.of_person("祈煜", "木木")
    said = Message(
        id="m1", agent="祈煜", space=scope.space_id, scope=scope, speaker="木木", role="user", text="我养了猫", time=T0
    )
    fold = Fold(agent="祈煜", space=scope.space_id, scope=scope, messages=[said], person="木木")
    since = T0 - timedelta(days=365)
    draft = FactDraft("木木", "养了", "猫", "木木养了一只猫", sources=["m1"], time=since, confidence=0.7)
    [item] = memories_of(Extraction(facts=[draft]), fold, "job1")
    fact = item.fact
    assert (fact.subject, fact.predicate, fact.object, fact.keyword) == ("木木", "养了", "猫", "")
    assert fact.confidence == 0.7 and fact.valid_from == since and fact.valid_to is None
    assert item.data["fact_kind"] == "attribute" and item.data["space"] == scope.space_id
    # a row written before confidence and valid_from were kept reads as unknown, not as an error
    old = item.model_copy(update={"data": {"subject": "木木", "fact_kind": "relation", "subject_type": "??"}})
    assert old.fact.kind is FactKind.RELATION and old.fact.subject_type is None and old.fact.confidence is None


def _history(total: int) -> list[dict[str, object]]:
    """A long chat with sessions apart by days, several rounds a session, replies some of the time."""
    out: list[dict[str, object]] = []
    at = T0
    for i in range(total):
        if i % 37 == 0:
            at += timedelta(days=1)  # a new session: a scene change
        at += timedelta(minutes=1)
        role = "assistant" if i % 3 == 2 else "user"
        out.append({"id": f"h{i}", "text": f"第{i}句，关于火锅和猫的第{i % 7}件事", "role": role, "time": at})
    return out


def _ingest(tmp_path: Path, name: str, history: list[dict[str, object]], batches: list[int]) -> tuple[object, ...]:
    extractor = ScriptedExtractor()
    with Memory(tmp_path / name, config=QUIET, embedder=HashEmbedder(16), extractor=extractor) as memory:
        start = 0
        for size in batches:
            memory.add(history[start : start + size], agent="祈煜", person="木木")
            start += size
        assert start == len(history)
        memory.run_jobs()
        folds = [(f.messages[0].id, f.messages[-1].id, len(f.messages)) for f in extractor.folds]
        events = sorted(
            (m.text, tuple(m.sources))
            for m in memory.memories(agent="祈煜", person="木木", kinds=[MemoryKind.EVENT], limit=10_000)
        )
        working = [m.id for m in memory.working_memory(agent="祈煜", person="木木")]
    return tuple(folds), tuple(events), tuple(working)


@pytest.mark.parametrize("total", [300, pytest.param(1000, marks=pytest.mark.slow)])
def test_the_same_history_folds_alike_however_it_is_batched(tmp_path: Path, total: int) -> None:
    """A long history one message per call, one session per call, and all in one call: the same folds and
    memories (the old planner only ever looked at the last 160 messages of one call)."""
    history = _history(total)
    one_call = _ingest(tmp_path, "all", history, [len(history)])
    per_session = _ingest(tmp_path, "sessions", history, [37] * (total // 37) + [total % 37])
    per_message = _ingest(tmp_path, "each", history, [1] * len(history))
    folds, events, _ = one_call
    covered = sum(size for _, _, size in folds)
    assert covered >= total - 2 * QUIET.window.fold_at  # everything but the open window was extracted
    assert len(events) == len(folds) >= total // 40
    assert per_session == one_call
    assert per_message == one_call


@pytest.mark.parametrize("count", [1, 63, 64, 65, 300, 1100])
def test_unfolded_reads_the_whole_tail_across_pages(tmp_path: Path, count: int) -> None:
    """The log is read back in growing pages (the first small, for add's sake): none is lost at a page's edge."""
    from huiyi.flows.extract.fold import unfolded

    config = Config(worker={"enabled": False}, window={"fold_at": 100_000})  # nothing folds
    with Memory(tmp_path, embedder=HashEmbedder(32), config=config) as memory:
        lines = [{"id": f"m{i}", "text": f"第{i}句", "time": T0 + timedelta(seconds=i)} for i in range(count)]
        memory.add(lines, agent="a", person="p", index=False)
        space = Scope.of_person("a", "p").tag
        tail = unfolded(memory.store, "a", space)
        assert [m.id for m in tail] == [f"m{i}" for i in range(count)]
        # a fold point part-way: only what follows it
        memory.store.apply(Writes(fold_points=[("a", space, tail[count // 3].seq)]))
        assert [m.id for m in unfolded(memory.store, "a", space)] == [f"m{i}" for i in range(count // 3, count)]


@pytest.mark.parametrize("text", ["😀😀😀", "👍", "😀\u200d😀"])
def test_an_emoji_only_turn_folds_with_the_rule_extractor(tmp_path: Path, text: str) -> None:
    """The rules condense an emoji-only turn to no text: its event is dropped, not a fold stuck pending."""
    with Memory(tmp_path, embedder=HashEmbedder(32), config=QUIET) as memory:
        memory.add([{"text": text, "speaker": "阿哲", "time": T0}], agent="bot", space="g")
        memory.flush(agent="bot", space="g")
        assert memory.run_jobs() >= 0
        assert [job.state for job in memory.jobs()] == [JobState.DONE]
        assert memory.working_memory(agent="bot", space="g") == []
