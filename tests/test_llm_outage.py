"""An LLM that fails in production: folds are retried with bounded backoff, then the rule path keeps them."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI
from huiyi import Memory
from huiyi.config import Config
from huiyi.errors import ProviderError
from huiyi.flows.extract import Extraction, Extractor, FactDraft, Fold
from huiyi.flows.extract.llm import LLMExtractor
from huiyi.flows.extract.rules import RuleExtractor
from huiyi.model import JobState, MemoryKind
from huiyi.providers.embed import HashEmbedder
from huiyi.providers.llm import OpenAIChat
from test_extract import event

AGENT, PERSON = "祈煜", "木木"
T0 = datetime(2024, 9, 1, 20, 0)
KEY = "sk-outage-secret-4242"
WORKER: dict[str, object] = {"enabled": False, "max_attempts": 2, "backoff_seconds": 0.0}


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def llm_memory(path: Path, server: FakeOpenAI, **worker: object) -> Memory:
    """A memory whose LLM is ``server``; the client never sleeps between its own tries."""
    config = Config(
        llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 1, "api_key": KEY},
        worker={"enabled": False, **worker},
    )
    extractor = LLMExtractor(OpenAIChat(config.llm, backoff_s=0.0, retry_after_max_s=0.0))
    return Memory(path, embedder=HashEmbedder(32), extractor=extractor, config=config, clock=lambda: T0)


CHAT: list[dict[str, object]] = [
    {"id": "u1", "text": "我最喜欢莫兰迪色系，温柔又不刺眼", "time": T0},
    {"id": "a1", "text": "很适合你", "role": "assistant", "time": T0 + timedelta(minutes=1)},
    {"id": "u2", "text": "我养了一只猫叫团子", "time": T0 + timedelta(minutes=2)},
]


def test_an_llm_down_for_an_hour_leaves_the_fold_to_the_rules(
    tmp_path: Path, server: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    """Every call fails for an hour (a 429 with Retry-After, 502, 503, HTML, then nothing scripted: 500s).
    The job is retried with its backoff on a simulated clock, and its last attempt takes the rule path:
    nothing is lost, the fold leaves working memory, and the key shows in no job or log."""
    server.script_status(429, retry_after=120).script_status(502).script_status(503)
    server.script_body(f"<html><body>502 Bad Gateway {KEY}</body></html>")
    now = [T0]
    caplog.set_level(logging.INFO)
    with llm_memory(tmp_path, server, max_attempts=3, backoff_seconds=60.0) as memory:
        memory.core.worker.clock = lambda: now[0]
        memory.add(CHAT, agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=False)
        for _ in range(60):  # an hour, a minute at a time: never a real sleep
            memory.run_jobs()
            now[0] += timedelta(minutes=1)
        (job,) = memory.jobs(agent=AGENT)
        assert job.state is JobState.DONE
        # the LLM's failures stay on record: the last, that sent the fold to the rules, as its last error
        assert job.attempts == 2 and "HTTP 500" in job.last_error
        assert len(server.chat_requests) == 3 * 2  # three runs of the job, two tries each: bounded
        facts = [f.text for f in memory.memories(agent=AGENT, person=PERSON, kinds=[MemoryKind.FACT])]
        assert "木木喜欢莫兰迪色系" in " ".join(facts).replace("最", "")
        assert memory.overview(agent=AGENT, person=PERSON)
        assert memory.working_memory(agent=AGENT, person=PERSON) == []
        assert [m.id for m in memory.messages(["u1", "a1", "u2"], agent=AGENT)] == ["u1", "a1", "u2"]
        assert KEY not in job.last_error
    assert "rule" in caplog.text and KEY not in caplog.text


class FlakyLLMExtractor:
    """An LLM extractor that fails a seeded share of its calls; when it answers, it knows what the rules
    know and one thing more, as a good model would."""

    def __init__(self, failure_rate: float, seed: int = 33) -> None:
        self.failure_rate = failure_rate
        self.random = random.Random(seed)
        self.rules = RuleExtractor()
        self.failures: dict[str, int] = {}  # the first message of a fold -> its failed calls

    async def extract(self, fold: Fold) -> Extraction:
        if self.random.random() < self.failure_rate:
            self.failures[fold.messages[0].id] = self.failures.get(fold.messages[0].id, 0) + 1
            raise ProviderError("LLM request failed after 2 attempt(s): HTTP 503: overloaded")
        extraction = await self.rules.extract(fold)
        first = fold.messages[0]
        extraction.facts.append(
            FactDraft(PERSON, "聊天", f"{first.time:%m-%d}", f"木木{first.time:%m-%d}来聊过天", [first.id])
        )
        return extraction


MONTH_LIKES = "猫 火锅 莫兰迪色系 科幻电影 爬山 燕麦拿铁 周杰伦 海边 樱花 羽毛球".split()


def month_of_chat(day: int) -> list[dict[str, object]]:
    when = T0 + timedelta(days=day)
    return [
        {"id": f"u{day}", "text": f"我喜欢{MONTH_LIKES[day % len(MONTH_LIKES)]}", "time": when},
        {"id": f"a{day}", "text": "记住啦", "role": "assistant", "time": when + timedelta(minutes=1)},
        {"id": f"v{day}", "text": f"今天是第{day}天，有点累", "time": when + timedelta(minutes=2)},
    ]


def remembered_facts(path: Path, extractor: Extractor, config: Config) -> set[str]:
    with Memory(path, embedder=HashEmbedder(32), extractor=extractor, config=config, clock=lambda: T0) as memory:
        for day in range(30):
            memory.add(month_of_chat(day), agent=AGENT, person=PERSON)
            memory.flush(agent=AGENT, person=PERSON, wait=False)
            memory.run_jobs()
        assert memory.working_memory(agent=AGENT, person=PERSON) == []  # every fold was stored
        assert all(job.state is JobState.DONE for job in memory.jobs(agent=AGENT))
        facts = [
            (f.text, *f.sources)
            for f in memory.memories(agent=AGENT, person=PERSON, kinds=[MemoryKind.FACT], limit=500)
        ]
        assert len(facts) == len(set(facts))  # a retry wrote nothing twice
        return {text for text, *_ in facts}


def test_a_month_with_an_llm_failing_thirty_percent_keeps_every_rule_fact(tmp_path: Path) -> None:
    """30 days of a companion chat, one fold a day, an LLM that fails 30 % of calls (two tries a fold):
    what survives holds everything the rules alone remember."""
    llm = Config(llm={"base_url": "http://127.0.0.1:9/v1", "model": "fake"}, worker=WORKER)
    rules = remembered_facts(tmp_path / "rules", RuleExtractor(), Config(worker=WORKER))
    steady = remembered_facts(tmp_path / "steady", FlakyLLMExtractor(0.0), llm)
    failing = FlakyLLMExtractor(0.3)
    flaky = remembered_facts(tmp_path / "flaky", failing, llm)
    assert 2 in failing.failures.values()  # some fold failed on both its attempts
    assert rules and rules < steady
    assert rules <= flaky <= steady


def test_flush_extracts_a_fold_failed_for_good_in_an_outage_once_the_server_is_back(tmp_path: Path) -> None:
    """The LLM and embedding server fails, then recovers. The first fold's retry waits while the next fold is
    planned past it; its last attempt fails in the embedder too (the rules cannot help there), and the next
    fold commits. The bot's flush at the end of the talk extracts it: no turn stays verbatim for good."""
    with FakeOpenAI() as server:
        config = Config(
            llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 0},
            embed={"provider": "openai", "base_url": server.base_url, "model": "fake-model", "dim": 8},
            worker={"enabled": False, "max_attempts": 2, "backoff_seconds": 3600.0},
        )
        now = [T0]
        with Memory(tmp_path, config=config, clock=lambda: T0) as memory:
            memory.core.worker.clock = lambda: now[0]
            memory.add(CHAT, agent=AGENT, person=PERSON)
            (first,) = memory.flush(agent=AGENT, person=PERSON)  # the LLM answers 500: retried in an hour
            memory.add(
                [{"id": "u3", "text": "明天要加班", "time": T0 + timedelta(minutes=5)}], agent=AGENT, person=PERSON
            )
            (later,) = [job for job in memory.flush(agent=AGENT, person=PERSON) if job.id != first.id]
            assert (first.state, later.state) == (JobState.PENDING, JobState.PENDING)
            now[0] += timedelta(hours=2)
            server.script_embeddings_status(503)  # the first fold's last attempt: the rules' memories go unstored
            memory.run_jobs()
            assert {job.id: job.state for job in memory.jobs(agent=AGENT)} == {
                first.id: JobState.FAILED,
                later.id: JobState.DONE,
            }
            assert [m.id for m in memory.working_memory(agent=AGENT, person=PERSON)] == ["u1", "a1", "u2"]
            server.script_chat(
                json_content={"events": [event("木木养了一只猫叫团子", ["u2"])], "facts": [], "entities": []}
            )
            (retried,) = memory.flush(agent=AGENT, person=PERSON)
            assert (retried.id, retried.state) == (first.id, JobState.DONE)
            assert memory.working_memory(agent=AGENT, person=PERSON) == []
            events = [e.text for e in memory.memories(agent=AGENT, person=PERSON, kinds=[MemoryKind.EVENT])]
            assert "木木养了一只猫叫团子" in events


def test_a_fold_the_rules_took_at_its_only_attempt_keeps_the_llms_error(tmp_path: Path, server: FakeOpenAI) -> None:
    """With one attempt, the rules took the fold and the job said nothing of why: the error was in the log only."""
    server.script_status(500, "upstream down").script_status(500, "upstream down")
    with llm_memory(tmp_path, server, max_attempts=1) as memory:
        memory.add(CHAT, agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON)
        (job,) = memory.jobs(agent=AGENT)
        assert job.state is JobState.DONE and job.attempts == 0
        assert "HTTP 500" in job.last_error and "upstream down" in job.last_error
        assert memory.memories(agent=AGENT, person=PERSON, kinds=[MemoryKind.FACT])  # the rules' facts
