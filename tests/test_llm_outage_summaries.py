"""Summaries and consolidation with an LLM that fails in production: nothing half-written, nothing twice, the
rules write a day the scheduler will not come back to, and no answer in the wrong language is kept."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI
from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract.rules import RuleExtractor
from huiyi.flows.summarize.run import SUMMARY
from huiyi.model import JobState, MemoryItem, MemoryKind, SummaryKind
from huiyi.providers.embed import HashEmbedder, Vectors

AGENT, PERSON = "祈煜", "木木"
T0 = datetime(2024, 9, 1, 20, 0)
CHAT: list[dict[str, object]] = [
    {"id": "u1", "text": "我下周三要考驾照，好紧张", "time": T0},
    {"id": "a1", "text": "别紧张，你一定能过的", "role": "assistant", "time": T0 + timedelta(minutes=1)},
    {"id": "u2", "text": "我养了一只猫叫团子", "time": T0 + timedelta(minutes=2)},
]
PRIVATE_ANSWERS = (  # daily, global, daily personality, global personality, diary
    "2024-09-01：木木说下周三要考驾照，很紧张；她养了一只猫叫团子。",
    "木木在准备驾照考试，养了一只猫团子。",
    "木木认真又容易紧张，喜欢猫。",
    "木木细心、容易紧张、爱猫。",
    "今天木木说她下周三要考驾照，我告诉她一定能过。",
)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def now() -> list[datetime]:
    return [T0 + timedelta(days=1, hours=-8)]  # 09-02 12:00: 09-01 has ended and settled


def llm_memory(path: Path, server: FakeOpenAI, now: list[datetime]) -> Memory:
    """A memory whose summaries are written by ``server`` (no retries, so never a sleep) and whose
    consolidation and folds ask no LLM, on a simulated clock."""
    config = Config(
        llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 0},
        worker={"enabled": False},
        summary={"lookback_days": 2},
        consolidate={"supersede": {"enabled": False}, "describe": {"enabled": False}},
    )
    return Memory(path, embedder=HashEmbedder(32), extractor=RuleExtractor(), config=config, clock=lambda: now[0])


def said(memory: Memory) -> None:
    """The day's chat, folded by the rules (the scheduler finds a scope by its folds)."""
    memory.add(CHAT, agent=AGENT, person=PERSON)
    memory.flush(agent=AGENT, person=PERSON, wait=False)
    memory.run_jobs()


def summary_calls(server: FakeOpenAI) -> int:
    return sum(
        1
        for r in server.chat_requests
        if (r.response_format or {}).get("json_schema", {}).get("name", "").startswith("summary_")
    )


def summaries(memory: Memory) -> list[MemoryItem]:
    return memory.memories(agent=AGENT, person=PERSON, kinds=[MemoryKind.SUMMARY])


def test_a_half_written_day_leaves_nothing_and_its_retry_writes_each_summary_once(
    tmp_path: Path, server: FakeOpenAI, now: list[datetime]
) -> None:
    """The daily summary comes back, the overview's call fails: nothing of the day is kept; the next run
    writes every summary once; a garbage answer and an English one fail the same way."""
    with llm_memory(tmp_path, server, now) as memory:
        said(memory)
        server.script_chat(json_content={"text": PRIVATE_ANSWERS[0]}).script_status(500)
        memory.maintain()
        assert summaries(memory) == []
        server.script_chat(json_content={"text": PRIVATE_ANSWERS[0]}).script_raw_content("抱歉，我做不到。")
        memory.maintain()
        server.script_chat(json_content={"text": "Mumu has a driving test next Wednesday."})
        memory.maintain()
        assert summaries(memory) == []
        for text in PRIVATE_ANSWERS:
            server.script_chat(json_content={"text": text})
        memory.maintain()
        written = summaries(memory)
        assert sorted(s.text for s in written) == sorted(PRIVATE_ANSWERS)
        calls = summary_calls(server)
        memory.maintain()  # the day is done: no call, no second copy
        assert summary_calls(server) == calls and len(summaries(memory)) == len(PRIVATE_ANSWERS)


def test_an_llm_that_stays_down_leaves_the_day_to_the_rules(
    tmp_path: Path, server: FakeOpenAI, now: list[datetime]
) -> None:
    """Every call fails. While the scheduler will look at the day again, it waits for the LLM; on the
    day's last run inside ``summary.lookback_days`` the rules write its summaries, once."""
    with llm_memory(tmp_path, server, now) as memory:
        said(memory)
        memory.maintain(catch_up=False)
        assert summaries(memory) == [] and summary_calls(server) == 1
        now[0] += timedelta(days=1)  # 09-03 12:00: 09-01 is the oldest day of the window
        memory.maintain(catch_up=False)
        written = summaries(memory)
        kinds = {s.summary.kind for s in written}
        assert SummaryKind.DAILY in kinds and SummaryKind.GLOBAL in kinds
        daily = next(s for s in written if s.summary.kind is SummaryKind.DAILY)
        assert daily.summary.period == "2024-09-01" and "驾照" in daily.text
        calls = summary_calls(server)
        memory.maintain(catch_up=False)
        memory.maintain()  # an explicit catch-up finds the day done too
        assert summary_calls(server) == calls and len(summaries(memory)) == len(written)


def test_consolidation_keeps_the_rules_answer_when_the_llm_fails_or_answers_in_another_language(
    tmp_path: Path, server: FakeOpenAI, now: list[datetime]
) -> None:
    """木木 said 我喜欢猫 on two evenings. The LLM asked to merge the two descriptions fails, then answers in
    English for a Chinese chat: neither is kept, and the rules merge the repeated claim in its own words."""
    config = Config(
        llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 0},
        worker={"enabled": False},
        consolidate={"supersede": {"enabled": False}},
    )
    with Memory(
        tmp_path, embedder=HashEmbedder(32), extractor=RuleExtractor(), config=config, clock=lambda: now[0]
    ) as memory:
        for day in (0, 1):
            when = T0 + timedelta(days=day)
            memory.add([{"id": f"c{day}", "text": "我喜欢猫", "time": when}], agent=AGENT, person=PERSON)
            memory.flush(agent=AGENT, person=PERSON, wait=False)
            memory.run_jobs()
        now[0] = T0 + timedelta(days=2)
        server.script_status(500)
        failed = memory.consolidate(agent=AGENT, person=PERSON, dry_run=True)
        assert any("describe" in error for error in failed.errors)
        server.script_chat(json_content={"merged": [{"facts": ["f1", "f2"], "description": "Mumu likes cats"}]})
        report = memory.consolidate(agent=AGENT, person=PERSON)
        current = [
            m.text
            for m in memory.memories(agent=AGENT, person=PERSON, kinds=[MemoryKind.FACT])
            if m.fact.valid_to is None
        ]
        assert current == ["木木喜欢猫"] and any("Chinese" in error for error in report.errors)


def test_an_english_day_summarised_in_chinese_writes_nothing(
    tmp_path: Path, server: FakeOpenAI, now: list[datetime]
) -> None:
    with llm_memory(tmp_path, server, now) as memory:
        memory.add(
            [
                {"id": "e1", "text": "I have my driving test next Wednesday, so nervous", "time": T0},
                {"id": "e2", "text": "You will pass", "role": "assistant", "time": T0 + timedelta(minutes=1)},
            ],
            agent=AGENT,
            person=PERSON,
        )
        memory.flush(agent=AGENT, person=PERSON, wait=False)
        memory.run_jobs()
        for text in (
            "木木说她下周三要考驾照，很紧张。",  # the daily, in Chinese for an English day
            "Mumu is preparing for a driving test.",
            "Mumu is careful and a little anxious.",
            "Mumu is careful and anxious.",
            "Today Mumu told me about her driving test; I said she would pass.",
        ):
            server.script_chat(json_content={"text": text})
        memory.maintain()
        assert summaries(memory) == []


class BreakingEmbedder(HashEmbedder):
    """Fails while ``broken``, as a remote embedder or the store behind it may while a summary is saved."""

    broken = False

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        if self.broken:
            raise RuntimeError("the embedder is down")
        return super().embed_passages(texts)


@pytest.mark.parametrize("with_llm", [True, False])
def test_a_day_whose_summaries_could_not_be_saved_on_its_last_run_comes_due_again(
    tmp_path: Path, server: FakeOpenAI, now: list[datetime], with_llm: bool
) -> None:
    """On 09-01's last run inside the window the LLM is down (or there is none) and saving the rules' summaries
    fails too: the day is not dropped with the window, a later run writes it, once."""
    embedder = BreakingEmbedder(32)
    config = Config(
        llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 0} if with_llm else {},
        worker={"enabled": False},
        summary={"lookback_days": 2},
        consolidate={"supersede": {"enabled": False}, "describe": {"enabled": False}},
    )
    with Memory(tmp_path, embedder=embedder, extractor=RuleExtractor(), config=config, clock=lambda: now[0]) as memory:
        said(memory)
        now[0] += timedelta(days=1)  # 09-03 12:00: 09-01 is the oldest day of the window
        embedder.broken = True
        with contextlib.suppress(RuntimeError):  # the background worker logs a failed run and goes on
            memory.maintain(catch_up=False)
        assert summaries(memory) == []
        embedder.broken = False
        now[0] += timedelta(days=1)  # 09-04: 09-01 has left the window
        store = memory.core.store
        held = store.claim_job("another-run", store.clock(), 600.0, [SUMMARY])  # a run racing this one has it
        assert held is not None and held.payload == {"scope": f"person:{PERSON}", "day": "2024-09-01"}
        memory.maintain(catch_up=False)
        assert summaries(memory) == []  # not written twice: this run leaves it to the other
        now[0] += timedelta(hours=2)  # the other run died: its lease ran out
        memory.maintain(catch_up=False)
        dailies = [s.summary.period for s in summaries(memory) if s.summary.kind is SummaryKind.DAILY]
        assert dailies == ["2024-09-01"]
        assert [job.state for job in store.list_jobs() if job.kind == SUMMARY] == [JobState.DONE]
        count = len(summaries(memory))
        now[0] += timedelta(days=1)
        memory.maintain(catch_up=False)
        memory.maintain()  # and an explicit catch-up finds it done
        assert len(summaries(memory)) == count
