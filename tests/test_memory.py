"""The public API: ingest, recall, isolation, bad input, crash recovery."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from huiyi import AsyncMemory, InvalidInput, Memory, MemoryKind, NotFound, Scope
from huiyi.config import Config
from huiyi.errors import EmbedderMismatch
from huiyi.flows import ingest
from huiyi.providers.embed import Embedder, HashEmbedder

T0 = datetime(2024, 9, 20, 19, 0)

CHAT = [
    "今天下班好累，地铁上站了一路。",
    "我室友小雨失恋了，我们陪她吃了一晚上火锅。",
    "我最喜欢莫兰迪色系，温柔又不刺眼。",
    "下个月十号是我的生日，想去海边看日出。",
    "我家的猫叫团子，今天把我的耳机线咬断了。",
    "我下周三要考驾照科目二，倒车入库总是压线。",
]


def chat(texts: list[str], start: datetime = T0) -> list[dict[str, object]]:
    return [{"text": t, "time": start + timedelta(minutes=i), "id": f"m{i}"} for i, t in enumerate(texts)]


def test_a_chinese_recall_finds_the_right_memory_among_distractors(memory: Memory) -> None:
    memory.add(chat(CHAT), agent="祈煜", person="木木")
    cases = {"你还记得我喜欢什么颜色吗": "莫兰迪", "我家那只猫叫什么": "团子", "室友失恋那天我们吃了啥": "火锅"}
    for query, expected in cases.items():
        result = memory.recall(query, agent="祈煜", person="木木", limit=3)
        assert expected in result.hits[0].text, (query, [h.text for h in result.hits])
        assert {"embed", "dense", "keyword", "total"} <= set(result.timings_ms)


def test_hits_carry_provenance_and_route_scores(memory: Memory) -> None:
    stored = memory.add(chat(CHAT[:2]), agent="祈煜", person="木木")
    assert [m.id for m in stored] == ["m0", "m1"]
    hit = memory.recall("火锅", agent="祈煜", person="木木", limit=1).hits[0]
    assert hit.sources == ["m1"]
    assert hit.kind is MemoryKind.CHUNK
    assert hit.time == T0 + timedelta(minutes=1)
    assert set(hit.route_scores) == {"dense", "keyword"}
    assert memory.get(hit.id, agent="祈煜").text == hit.text
    assert memory.messages(["m1"], agent="祈煜")[0].text == CHAT[1]


def test_resending_a_batch_stores_nothing_twice(memory: Memory) -> None:
    memory.add(chat(CHAT), agent="祈煜", person="木木")
    assert memory.add(chat(CHAT), agent="祈煜", person="木木") == []
    assert memory.store.count_memories("祈煜") == len(CHAT)


def test_group_messages_need_speakers_and_stay_in_their_space(memory: Memory) -> None:
    with pytest.raises(InvalidInput, match="speaker"):
        memory.add(["大家好"], agent="bot", space="g1")
    memory.add([{"text": "我周六去爬黄山", "speaker": "苏霓"}], agent="bot", space="g1")
    assert memory.recall("黄山", agent="bot", space="g1").hits
    assert memory.recall("黄山", agent="bot", space="g2").hits == []
    assert memory.recall("黄山", agent="bot", person="苏霓").hits == []


def test_a_chat_api_message_is_taken_as_it_is(memory: Memory) -> None:
    # a bot hands over what it sends its chat model: content is the text, name the speaker
    memory.add(
        [
            {"role": "user", "content": "我周六去爬黄山", "name": "苏霓"},
            {"role": "assistant", "content": "记得带雨衣"},
        ],
        agent="bot",
        space="g1",
    )
    turns = memory.store.recent_messages("bot", Scope.of_space("bot", "g1").space_id, 10)
    assert [(m.speaker, m.text) for m in turns] == [("苏霓", "我周六去爬黄山"), ("bot", "记得带雨衣")]


@pytest.mark.parametrize(
    ("messages", "kwargs", "error"),
    [
        (["   "], {"person": "木木"}, "empty"),
        ([""], {"person": "木木"}, "empty"),
        (["hi"], {}, "person"),
        (["x" * 20001], {"person": "木木"}, "20001 characters"),
        ([{"text": "a", "id": "same"}, {"text": "b", "id": "same"}], {"person": "木木"}, "share the id 'same'"),
        ([{"text": "a", "role": "robot"}], {"person": "木木"}, "message 0"),
        ([{"role": "system", "content": "你是祈煜"}], {"person": "木木"}, "message 0"),
        ([{"role": "user", "content": [{"type": "text", "text": "hi"}]}], {"person": "木木"}, "message 0"),
        # what PostgreSQL or UTF-8 cannot hold is refused in every store, not only where it would break
        (["a\x00b"], {"person": "木木"}, "NUL"),
        (["x\ud800"], {"person": "木木"}, "surrogate"),
        ([{"text": "hi", "speaker": "小\x00明"}], {"space": "g1"}, "speaker id"),
        ([{"text": "hi", "id": "m\x001"}], {"person": "木木"}, "message id"),
        (42, {"person": "木木"}, "not int"),
        (None, {"person": "木木"}, "not NoneType"),
        (b"hi", {"person": "木木"}, "not bytes"),
        ([42], {"person": "木木"}, "message 0"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_written(
    memory: Memory, messages: list[object], kwargs: dict[str, str], error: str
) -> None:
    with pytest.raises(InvalidInput, match=error):
        memory.add(messages, agent="祈煜", **kwargs)  # type: ignore[arg-type]
    assert memory.store.count_memories() == 0
    assert memory.store.unindexed_messages(10) == []


def test_a_bad_message_anywhere_in_a_batch_writes_nothing(memory: Memory) -> None:
    with pytest.raises(InvalidInput, match="message 2"):
        memory.add(["好的", "没问题", "  "], agent="祈煜", person="木木")
    assert memory.store.recent_messages("祈煜", "dm:木木", 10) == []


def test_bad_recall_input(memory: Memory) -> None:
    for query in ["", "   "]:
        with pytest.raises(InvalidInput, match="empty"):
            memory.recall(query, agent="祈煜", person="木木")
    with pytest.raises(InvalidInput, match="characters"):
        memory.recall("问" * 5000, agent="祈煜", person="木木")
    with pytest.raises(InvalidInput, match="limit"):
        memory.recall("你好", agent="祈煜", person="木木", limit=0)
    for bad_limit in (2.5, float("inf"), True, "3"):
        with pytest.raises(InvalidInput, match="limit"):
            memory.recall("你好", agent="祈煜", person="木木", limit=bad_limit)  # type: ignore[arg-type]
    for bad_query, error in ((42, "not int"), (["你好"], "not list"), (b"hi", "not bytes"), ("猫\ud800", "surrogate")):
        with pytest.raises(InvalidInput, match=error):
            memory.recall(bad_query, agent="祈煜", person="木木")  # type: ignore[arg-type]
    with pytest.raises(NotFound):
        memory.get("mem_nope", agent="祈煜")
    with pytest.raises(NotFound):
        memory.delete("mem_nope", agent="祈煜")


def test_misused_calls_are_refused_before_they_change_anything(memory: Memory) -> None:
    from huiyi import Person

    with pytest.raises(InvalidInput, match="progress"):  # it was stored, then the callback failed
        memory.add(["我家的猫叫团子"], agent="祈煜", person="木木", index=True, progress="x")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="agent"):
        memory.add(["我家的猫叫团子"], agent=1, person="木木")  # type: ignore[arg-type]
    # a switch that is no bool: extract="no" was read as true, and the line went to extraction
    for switch in ({"extract": "no"}, {"extract": 0}, {"extract": None}, {"index": "yes"}):
        with pytest.raises(InvalidInput, match=f"{next(iter(switch))} is True or False"):
            memory.add(["我家的猫叫团子"], agent="祈煜", person="木木", **switch)  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match="is True or False"):  # the async face checks on its own
            asyncio.run(memory.core.add(["我家的猫叫团子"], agent="祈煜", person="木木", **switch))  # type: ignore[arg-type]
    assert memory.store.recent_messages("祈煜", "person:木木", 10) == []
    stored = memory.add([{"text": "我家的猫叫团子", "id": "m1"}], agent="祈煜", person="木木", index=True)
    for call in (memory.forget_messages, memory.get_many, memory.messages):  # "m1" is not ["m", "1"]
        with pytest.raises(InvalidInput, match="not one string"):
            call("m1", agent="祈煜")  # type: ignore[operator]
    assert memory.messages(["m1"], agent="祈煜") == stored
    # kinds="chunk" was read for its characters ("'c' is not a valid MemoryKind"), and kinds="" as every kind
    for kinds in ("chunk", "", MemoryKind.CHUNK):
        with pytest.raises(InvalidInput, match="kinds are a list of kinds"):
            memory.recall("团子", agent="祈煜", person="木木", kinds=kinds)  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match="kinds are a list of kinds"):
            memory.memories(agent="祈煜", person="木木", kinds=kinds)  # type: ignore[arg-type]
    for agent, person in (("祈煜", Person(id="")), ("祈煜", Person(id="a\nb")), ("", Person(id="木木"))):
        with pytest.raises(InvalidInput):
            memory.set_person(person, agent=agent)
    for person in (Person(id="木木", name="木\x00木"), Person(id="木木", aliases=["\ud800"])):
        with pytest.raises(InvalidInput):
            memory.set_person(person, agent="祈煜")
    with pytest.raises(InvalidInput, match="Person"):
        memory.set_person({"id": "木木"}, agent="祈煜")  # type: ignore[arg-type]
    for named in ({"name": "a\x01b"}, {"name": "木" * 201}, {"aliases": [" "]}):
        with pytest.raises(InvalidInput, match="name or alias"):
            person = Person(id="木木", **named)  # type: ignore[arg-type]
            memory.set_person(person, agent="祈煜")
    with pytest.raises(InvalidInput, match="message id is empty"):  # it was stored under a random id
        memory.add([{"text": "早", "id": ""}], agent="祈煜", person="木木")
    for call, error in (
        (lambda: memory.memories(agent="祈煜", person="木木", limit=10**19), "limit"),
        (lambda: memory.chat_around("m1", agent="祈煜", turns=10**19), "turns"),
        (lambda: memory.jobs(states="pendin"), "states"),
        (lambda: memory.recall("猫", agent="祈煜", person="木木", dialogue=[1]), "dialogue"),  # type: ignore[list-item]
        (lambda: memory.context(agent="祈煜", person="木木", message=None), "texts"),  # type: ignore[arg-type]
    ):
        with pytest.raises(InvalidInput, match=error):
            call()
    assert memory.jobs(states="pending") == memory.jobs(states=["pending"])  # type: ignore[arg-type]
    for keywords in (["", "猫"], ["\x07"], "abc"):
        with pytest.raises(InvalidInput, match="keyword"):
            memory.remember("木木养猫", agent="祈煜", person="木木", keywords=keywords)
    with pytest.raises(InvalidInput, match="empty"):
        memory.add(["\u200b \u200b"], agent="祈煜", person="木木")  # zero-width and spaces: nothing said
    for data in ({"seq": "abc"}, {"seq": True}, {"space": 3}):  # every recall of the scope failed after one
        with pytest.raises(InvalidInput, match="memory data"):
            memory.remember("测试 足球", agent="祈煜", person="木木", kind=MemoryKind.EVENT, data=data)
    assert not [hit for hit in memory.recall("足球", agent="祈煜", person="木木").hits if "足球" in hit.text]
    with pytest.raises(InvalidInput, match="datetime"):
        memory.recall("猫", agent="祈煜", person="木木", now="2024")  # type: ignore[arg-type]
    for value in ("1", True, float("nan")):
        with pytest.raises(InvalidInput, match="feedback"):
            memory.feedback(stored[0].id, value, agent="祈煜")  # type: ignore[arg-type]
    assert memory.store.list_persons("祈煜") == []


def test_a_chosen_memory_id_is_idempotent_for_its_memory_and_refused_for_another(memory: Memory) -> None:
    note = memory.remember("木木的护照在书架第三层", agent="祈煜", person="木木", id="note-1")
    again = memory.remember("木木的护照在书架第三层", agent="祈煜", person="木木", id="note-1")  # an import again
    assert again == memory.get("note-1", agent="祈煜") and again.text == note.text
    for agent, person, text in (("祈煜", "bob", "bob 的笔记"), ("祈煜", "木木", "另一条"), ("other", "mallory", "x")):
        with pytest.raises(InvalidInput, match="'note-1' is taken"):  # it handed back 木木's memory
            memory.remember(text, agent=agent, person=person, id="note-1")
    # an id huiyi derives for a chunk or a summary: taken first, that chunk or summary was never written
    squat = ingest.chunk_id("祈煜", "victim-777")
    for taken in (squat, "sum_0123456789abcdef0123"):
        with pytest.raises(InvalidInput, match="own"):
            memory.remember("x", agent="other", person="mallory", id=taken)
    memory.add([{"id": "victim-777", "text": "我的护照号码藏在蓝色盒子里"}], agent="祈煜", person="carol", index=True)
    assert [hit.id for hit in memory.recall("护照号码", agent="祈煜", person="carol").hits] == [squat]
    assert memory.store.count_memories() == 2


def test_remembering_the_same_note_again_returns_it_instead_of_storing_it_twice(tmp_path: Path) -> None:
    """A bot re-running its set-up script: the same note, with no id, is the memory already stored."""
    with Memory(tmp_path, embedder=HashEmbedder(32)) as memory:
        note = memory.remember("客服工作时间是每天早九点到晚五点", agent="祈煜", importance=0.9)
        again = memory.remember("客服工作时间是每天早九点到晚五点", agent="祈煜", importance=0.2)
        assert again == note == memory.get(note.id, agent="祈煜")  # as stored first: update changes it
        assert memory.store.count_memories("祈煜") == 1
        # another scope, kind, time or source is another memory
        memory.remember("客服工作时间是每天早九点到晚五点", agent="祈煜", person="木木")
        memory.remember("客服工作时间是每天早九点到晚五点", agent="祈煜", kind=MemoryKind.EVENT)
        memory.remember("客服工作时间是每天早九点到晚五点", agent="祈煜", time=T0)
        memory.remember("客服工作时间是每天早九点到晚五点", agent="祈煜", sources=["m1"])
        memory.remember("客服工作时间是每天早九点到晚五点", agent="别的角色")
        assert memory.store.count_memories("祈煜") == 5
        dated = memory.remember("客服工作时间是每天早九点到晚五点", agent="祈煜", time=T0)
        assert dated.time == T0 and memory.store.count_memories("祈煜") == 5


class _MeetingEmbedder(HashEmbedder):
    """Embeds ``text`` only once every caller has reached it: two writers past their checks at once."""

    def __init__(self, text: str, meeting: threading.Barrier) -> None:
        super().__init__(32)
        self._text, self._meeting = text, meeting

    def meet_alone(self) -> None:
        self._meeting = threading.Barrier(1)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if self._text in texts:
            self._meeting.wait(timeout=10)
        return super().embed_passages(texts)


def test_the_same_note_remembered_by_two_processes_at_once_is_stored_once(tmp_path: Path) -> None:
    """A client retrying a slow remember, or a set-up script started twice: both calls pass the look for an
    alike note before either writes, and each stored its own copy."""
    note = "客服工作时间是每天早九点到晚五点"
    meeting = threading.Barrier(2)
    embedders = [_MeetingEmbedder(note, meeting) for _ in range(2)]
    memories = [Memory(tmp_path, embedder=embedder) for embedder in embedders]
    try:
        with ThreadPoolExecutor(2) as pool:
            stored = list(pool.map(lambda m: m.remember(note, agent="祈煜", importance=0.9), memories))
        embedders[1].meet_alone()
        assert stored[0] == stored[1]
        assert memories[0].store.count_memories("祈煜") == 1
        # an edited note keeps its id: the same words remembered again are a new memory beside it
        memories[0].update(stored[0].id, {"text": "客服工作时间改为早十点到晚六点"}, agent="祈煜")
        again = memories[1].remember(note, agent="祈煜")
        assert again.id != stored[0].id and memories[0].store.count_memories("祈煜") == 2
    finally:
        for memory in memories:
            memory.close()


def test_a_refused_open_leaves_no_connection_open(tmp_path: Path) -> None:
    Memory(tmp_path / "s", embedder=HashEmbedder(32)).close()
    import os

    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        with pytest.raises(EmbedderMismatch):
            Memory(tmp_path / "s", embedder=HashEmbedder(64))
    assert len(os.listdir("/proc/self/fd")) < before + 5  # each refused open left its connection open


def test_unicode_and_emoji_survive(memory: Memory) -> None:
    text = "今天🎂生日！Ünïcödé ✨ 𠀀 \u200b零宽"
    memory.add([text], agent="祈煜", person="木木")
    hit = memory.recall("生日 🎂", agent="祈煜", person="木木").hits[0]
    assert hit.text == f"木木: {text}"


def test_official_memories_reach_everyone_of_their_agent_only(memory: Memory) -> None:
    note = memory.remember("祈煜是一位画家，擅长用玻璃琴表现深海的声音", agent="祈煜")
    assert memory.recall("你擅长什么", agent="祈煜", person="木木").hits[0].id == note.id
    assert memory.recall("你擅长什么", agent="祈煜", person="阿哲").hits[0].id == note.id
    assert memory.recall("你擅长什么", agent="别的角色", person="木木").hits == []
    with pytest.raises(InvalidInput, match="one scope"):
        memory.remember("x", agent="祈煜", person="木木", space="g1")


def test_delete_forgets(memory: Memory) -> None:
    note = memory.remember("木木对芒果过敏", agent="祈煜", person="木木")
    memory.delete(note.id, agent="祈煜")
    assert all(h.id != note.id for h in memory.recall("芒果", agent="祈煜", person="木木").hits)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16))
def test_no_memory_ever_crosses_persons_or_groups(tmp_path_factory: pytest.TempPathFactory, seed: int) -> None:
    """Random persons, groups and texts; every hit must belong to official or the asker's scopes."""
    rng = random.Random(seed)
    words = ["猫", "火锅", "生日", "考试", "海边", "咖啡", "图书馆", "red", "cat", "birthday"]
    with Memory(tmp_path_factory.mktemp("iso"), embedder=HashEmbedder(32)) as memory:
        persons, groups = ["p1", "p2", "p3"], ["g1", "g2"]
        for _ in range(12):
            text = " ".join(rng.choices(words, k=3))
            if rng.random() < 0.5:
                memory.add([text], agent="a", person=rng.choice(persons))
            else:
                memory.add([{"text": text, "speaker": rng.choice(persons)}], agent="a", space=rng.choice(groups))
        memory.remember("公告 " + rng.choice(words), agent="a")
        memory.add(["猫 火锅 生日"], agent="other-agent", person="p1")
        for _ in range(6):
            person, group = rng.choice(persons), rng.choice([None, *groups])
            result = memory.recall(rng.choice(words), agent="a", person=person, space=group, limit=50)
            allowed = {"official", f"person:{person}"} | ({f"space:{group}"} if group else set())
            assert {h.scope.tag for h in result.hits} <= allowed
            assert all(h.scope.agent == "a" for h in result.hits)


def test_a_store_refuses_another_embedders_vectors(tmp_path: Path, e5: Embedder) -> None:
    with Memory(tmp_path, embedder=e5) as memory:
        memory.add(["你好"], agent="a", person="p")
    with pytest.raises(EmbedderMismatch, match="same embedder"):
        Memory(tmp_path, embedder=HashEmbedder(32))


def test_messages_accepted_before_a_crash_are_indexed_on_the_next_open(tmp_path: Path, e5: Embedder) -> None:
    config = Config()
    with Memory(tmp_path, embedder=e5) as memory:
        memory.indexed()  # the open's look for leftovers over: run late (a loaded machine), it would take this one
        prepared = ingest.prepare(["我明天要去面试"], agent="a", person="p", space=None, now=T0, config=config)
        memory.store.append_messages(prepared)  # accepted, then the "process dies" before indexing
        waiting = memory.recall("面试", agent="a", person="p").hits  # found by keyword meanwhile, not indexed
        assert [hit.data.get("pending") for hit in waiting] == [True]
    with Memory(tmp_path, embedder=e5) as memory:
        memory.indexed()  # the open takes the backlog on a thread of its own, behind it
        hit = memory.recall("面试", agent="a", person="p").hits[0]
        assert "面试" in hit.text and not hit.data.get("pending")
        assert memory.store.unindexed_messages(10) == []


def test_a_failing_embedder_loses_no_message(tmp_path: Path) -> None:
    class Broken(HashEmbedder):
        def embed_passages(self, texts):  # type: ignore[no-untyped-def]
            raise RuntimeError("model crashed")

    with Memory(tmp_path, embedder=Broken(16)) as memory:
        with pytest.raises(RuntimeError):
            memory.add(["别忘了周五交报告"], agent="a", person="p")
        assert [m.text for m in memory.store.unindexed_messages(10)] == ["别忘了周五交报告"]
    with Memory(tmp_path, embedder=HashEmbedder(16)) as memory:
        assert memory.recall("报告", agent="a", person="p").hits


def test_context_turns_are_embedded_but_not_claimed(tmp_path: Path, e5: Embedder) -> None:
    config = Config(chunk={"turns": 2, "context_turns": 1})
    with Memory(tmp_path, embedder=e5, config=config) as memory:
        memory.add(chat(["第一句", "第二句", "第三句"]), agent="a", person="p")
        chunks = {m.data["seq"]: m for m in memory.store.list_memories([Scope.of_person("a", "p")])}
        assert chunks[3].sources == ["m2", "m1"]
        assert chunks[3].text == "p: 第二句\np: 第三句"
        assert chunks[1].sources == ["m0"]


def test_async_memory_is_the_same_core(tmp_path: Path, e5: Embedder) -> None:
    async def scenario() -> list[str]:
        async with AsyncMemory(tmp_path, embedder=e5) as memory:
            await memory.add(CHAT, agent="祈煜", person="木木")
            found = await asyncio.gather(
                memory.recall("猫", agent="祈煜", person="木木", limit=1),
                memory.recall("火锅", agent="祈煜", person="木木", limit=1),
            )
            return [r.hits[0].text for r in found]

    cat, hotpot = asyncio.run(scenario())
    assert "团子" in cat
    assert "火锅" in hotpot


def test_an_unclosed_memory_exits_cleanly(tmp_path: Path) -> None:
    """A script that forgets close() while the worker has a fold to run must exit without a traceback."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        f"""
        from huiyi import Memory
        from huiyi.providers.embed import HashEmbedder
        m = Memory({str(tmp_path)!r}, embedder=HashEmbedder(32))
        m.add([f"第{{i}}句" for i in range(25)], agent="a", person="p")
        print("left open")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "left open" in done.stdout
    assert "Traceback" not in done.stderr and "cannot schedule" not in done.stderr
    with Memory(tmp_path, embedder=HashEmbedder(32)) as memory:  # the store is whole afterwards
        assert len(memory.messages([m.id for m in memory.working_memory(agent="a", person="p")], agent="a")) > 0


def test_kinds_may_be_named_by_their_strings(memory: Memory) -> None:
    memory.add(["我家的猫叫团子"], agent="祈煜", person="木木")
    by_name = memory.memories(agent="祈煜", person="木木", kinds=["chunk"])
    assert [m.kind for m in by_name] == [MemoryKind.CHUNK]
    assert memory.recall("猫", agent="祈煜", person="木木", kinds=["chunk"]).hits
    with pytest.raises(InvalidInput, match="the kinds are"):
        memory.memories(agent="祈煜", person="木木", kinds=["events"])


def test_closed_facts_stay_recallable_but_leave_the_prompt(tmp_path: Path, e5: Embedder) -> None:
    def fill(memory: Memory) -> str:
        old = memory.remember("木木住在上海", agent="祈煜", person="木木", kind=MemoryKind.FACT, time=T0)
        memory.remember(
            "木木搬到了南京住", agent="祈煜", person="木木", kind=MemoryKind.FACT, time=T0 + timedelta(days=30)
        )
        memory.store.update_memories("祈煜", [(old.id, {"valid_to": T0 + timedelta(days=30)})])
        return old.id

    with Memory(tmp_path / "a", embedder=e5) as memory:
        old = fill(memory)
        hits = {h.id: h for h in memory.recall("她以前住在哪里", agent="祈煜", person="木木", limit=10).hits}
        assert hits[old].valid_to == T0 + timedelta(days=30)  # closed, and history questions still find it
        text = memory.context(agent="祈煜", person="木木", message="你还记得我住哪吗").text
        assert "南京" in text and "住在上海" not in text
    with Memory(tmp_path / "b", embedder=e5, config=Config(context={"closed_facts": True})) as memory:
        fill(memory)
        assert "住在上海" in memory.context(agent="祈煜", person="木木", message="你还记得我住哪吗").text
