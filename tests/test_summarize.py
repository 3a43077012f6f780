"""Summaries: daily → global, portraits, group and global profiles, the diary; extractive and with an LLM."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from fake_openai import FakeOpenAI
from huiyi import Memory
from huiyi.config import Config, LLMConfig
from huiyi.errors import InvalidInput, ProviderError
from huiyi.flows.ingest import terms_of
from huiyi.flows.summarize.run import (
    SummaryConfig,
    SummaryError,
    due_days,
    known_scopes,
    summarize_day,
    summarize_due,
    summary_id,
)
from huiyi.flows.summarize.words import first_person
from huiyi.model import Entity, MemoryItem, MemoryKind, Message, Person, Scope, SummaryKind
from huiyi.providers.embed import HashEmbedder
from huiyi.providers.llm import OpenAIChat
from huiyi.store.sqlite import SQLiteStore

AGENT = "祈煜"
MUMU = Scope.of_person(AGENT, "木木")
GROUP = Scope.of_space(AGENT, "g1")
DAY1, DAY2, DAY3 = date(2024, 9, 1), date(2024, 9, 2), date(2024, 9, 3)
LATER = datetime(2024, 9, 5, 8, 0)
CFG = SummaryConfig(daily_items=2, daily_facts=2)
EMBEDDER = HashEmbedder(64)


# ---------------------------------------------------------------------------------------- fixtures


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    opened = SQLiteStore(tmp_path)
    yield opened
    opened.close()


def at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute)


def say(
    store: SQLiteStore, scope: Scope, rows: Sequence[tuple[str, str, str, datetime]], space: str | None = None
) -> None:
    """(id, speaker, text, time) rows appended to the scope's space."""
    space = space or scope.space_id
    store.append_messages(
        [
            Message(
                id=mid,
                agent=scope.agent,
                space=space,
                scope=scope,
                speaker=speaker,
                role="assistant" if speaker == AGENT else "user",
                text=text,
                time=when,
            )
            for mid, speaker, text, when in rows
        ]
    )


def put(store: SQLiteStore, items: Sequence[MemoryItem]) -> None:
    store.add_memories(items, EMBEDDER.embed_passages([i.text for i in items]), [terms_of(i.text) for i in items])


def event(scope: Scope, mid: str, text: str, when: datetime, sources: list[str], importance: float) -> MemoryItem:
    return MemoryItem(
        id=mid, scope=scope, kind=MemoryKind.EVENT, text=text, time=when, sources=sources, importance=importance
    )


def fact(scope: Scope, mid: str, subject: str, text: str, when: datetime, sources: list[str], importance: float = 0.8):
    return MemoryItem(
        id=mid,
        scope=scope,
        kind=MemoryKind.FACT,
        text=text,
        time=when,
        sources=sources,
        importance=importance,
        data={"subject": subject, "predicate": "", "object": "", "fact_kind": "attribute"},
    )


def private_day1(store: SQLiteStore) -> None:
    """木木's first day: three stored events (one about next Wednesday), two facts, a loose 晚安."""
    say(store, MUMU, [("m0", "木木", "明天要早起去驾校", at(date(2024, 8, 31), 22))])
    say(
        store,
        MUMU,
        [
            ("m1", "木木", "我下周三要考驾照，好紧张", at(DAY1, 20, 0)),
            ("m2", AGENT, "别紧张，你一定能过的", at(DAY1, 20, 1)),
            ("m3", "木木", "科目二倒车入库总是压线", at(DAY1, 20, 5)),
            ("m4", "木木", "我喜欢猫，家里养了一只橘猫叫咪咪", at(DAY1, 21, 0)),
            ("m5", AGENT, "咪咪一定很可爱", at(DAY1, 21, 1)),
            ("m6", "木木", "晚安", at(DAY1, 22, 0)),
        ],
    )
    put(
        store,
        [
            # told on 08-31 about 09-01: it belongs to 08-31
            event(MUMU, "ev0", "木木明天早上要去驾校练车", at(DAY1, 8), ["m0"], 0.9),
            # told on 09-01 about 09-04: it belongs to 09-01
            event(
                MUMU,
                "ev1",
                "木木下周三（2024-09-04）要考驾照，很紧张，祈煜鼓励她",
                at(date(2024, 9, 4), 9),
                ["m1", "m2"],
                0.8,
            ),
            event(MUMU, "ev2", "木木练科目二倒车入库总是压线", at(DAY1, 20, 5), ["m3"], 0.5),
            event(MUMU, "ev3", "木木家里养了一只叫咪咪的橘猫", at(DAY1, 21), ["m4", "m5"], 0.6),
            fact(MUMU, "fa1", "木木", "木木喜欢猫", at(DAY1, 21), ["m4"], 0.9),
            fact(MUMU, "fa2", "木木", "木木在学车", at(DAY1, 20, 5), ["m3"], 0.8),
        ],
    )
    # what extraction records of these talks: the scope's entities are its topics' words (科目二, not 科目)
    for name in ("科目二", "倒车入库", "橘猫", "咪咪", "南京大学", "百年孤独"):
        store.upsert_entity(Entity(scope=MUMU, name=name), EMBEDDER.embed_passages([name])[0])


def private_day(store: SQLiteStore, day: date, rows: Sequence[tuple[str, str, str]]) -> None:
    say(store, MUMU, [(mid, who, text, at(day, 20, i)) for i, (mid, who, text) in enumerate(rows)])


def group_day1(store: SQLiteStore) -> None:
    """许仙 and 苏霓 in g1: 苏霓 says she is a nurse; 许仙 says 霓霓 is a teacher."""
    store.upsert_person(AGENT, Person(id="u1", name="许仙"))
    store.upsert_person(AGENT, Person(id="u2", name="苏霓", aliases=["霓霓"]))
    say(
        store,
        GROUP,
        [
            ("g1", "u1", "大家晚上好，今天又在调 Ollama 的模型", at(DAY1, 20, 0)),
            ("g2", "u2", "我是一名护士，今天夜班好累", at(DAY1, 20, 1)),
            ("g3", "u1", "霓霓其实是个老师吧，她上次还给我们讲课", at(DAY1, 20, 2)),
            ("g4", AGENT, "辛苦啦，夜班要注意休息", at(DAY1, 20, 3)),
            ("g5", "u2", "哈哈我就是护士，上课那是培训新人", at(DAY1, 20, 4)),
        ],
    )
    put(
        store,
        [
            event(GROUP, "ge1", "许仙在调 Ollama 的模型，苏霓上完夜班很累", at(DAY1, 20), ["g1", "g2", "g4"], 0.5),
            event(
                GROUP, "ge2", "许仙以为霓霓是老师，苏霓说自己是护士、上课是培训新人", at(DAY1, 20, 2), ["g3", "g5"], 0.6
            ),
            fact(GROUP, "gf1", "苏霓", "苏霓是一名护士", at(DAY1, 20, 1), ["g2"], 0.9),
            fact(GROUP, "gf2", "苏霓", "苏霓是老师", at(DAY1, 20, 2), ["g3"], 0.6),
            fact(GROUP, "gf3", "许仙", "许仙在调 Ollama 的模型", at(DAY1, 20), ["g1"], 0.7),
            # read from both of them: not a self-statement
            fact(GROUP, "gf4", "霓霓", "苏霓给群友讲过课", at(DAY1, 20, 4), ["g3", "g5"], 0.6),
        ],
    )


def run(store: SQLiteStore, scope: Scope, day: date, config: SummaryConfig = CFG, **kwargs: Any) -> list[MemoryItem]:
    return asyncio.run(summarize_day(store, EMBEDDER, scope, day, LATER, config, **kwargs))


def summaries(store: SQLiteStore, scope: Scope, kind: SummaryKind | None = None) -> list[MemoryItem]:
    found = store.list_memories([scope], [MemoryKind.SUMMARY], 1000)
    return [s for s in found if kind is None or s.data["summary_kind"] == kind.value]


def one(store: SQLiteStore, scope: Scope, kind: SummaryKind) -> MemoryItem:
    found = summaries(store, scope, kind)
    assert len(found) == 1, found
    return found[0]


def by_kind(items: Sequence[MemoryItem]) -> dict[str, MemoryItem]:
    return {f"{i.data['summary_kind']}@{i.scope.tag}": i for i in items}


# ---------------------------------------------------------------------------------------- daily and global

DAILY1 = (
    "2024-09-01：木木聊到科目二、倒车入库、压线、橘猫、考驾照。"
    "木木下周三（2024-09-04）要考驾照，很紧张，祈煜鼓励她；木木家里养了一只叫咪咪的橘猫。"
    "记下：木木在学车。"
)


def test_the_extractive_daily_summary_of_a_fixed_day(store: SQLiteStore) -> None:
    private_day1(store)
    written = by_kind(run(store, MUMU, DAY1))
    daily = written["daily@person:木木"]
    # the two most important events, in the order they were told; then the fact they do not already tell
    assert daily.text == DAILY1
    assert daily.id == summary_id(MUMU, SummaryKind.DAILY, "2024-09-01")
    assert daily.kind is MemoryKind.SUMMARY and daily.scope == MUMU
    assert daily.sources == ["ev1", "ev3", "fa2"]
    assert daily.data["summary_kind"] == "daily" and daily.data["period"] == "2024-09-01"
    assert daily.data["space"] == "person:木木"
    assert daily.time == at(DAY1, 0)
    assert daily.keywords == ["科目二", "倒车入库", "压线", "橘猫", "考驾照"]
    assert daily.participants == ["木木"]
    assert daily.importance == 0.8
    # ev0 is about 09-01 but was told on 08-31: it is not in this day's summary
    assert "驾校" not in daily.text


def test_the_extractive_summaries_are_deterministic(tmp_path: Path) -> None:
    texts = []
    for name in ("a", "b"):
        store = SQLiteStore(tmp_path / name)
        private_day1(store)
        texts.append(sorted((i.id, i.text) for i in run(store, MUMU, DAY1)))
        store.close()
    assert texts[0] == texts[1]


def test_a_day_without_events_is_summarised_from_its_messages(store: SQLiteStore) -> None:
    private_day(store, DAY2, [("n1", "木木", "今天去南京大学图书馆借了一本《百年孤独》"), ("n2", AGENT, "好看吗？")])
    daily = one(store, MUMU, SummaryKind.DAILY) if run(store, MUMU, DAY2) else None
    assert daily is not None
    assert daily.text.startswith("2024-09-02：木木聊到百年孤独、南京大学、图书馆。木木说：今天去南京大学图书馆")
    assert daily.sources == ["n1", "n2"]  # the messages, as no event tells them


def test_nothing_is_written_for_a_silent_day(store: SQLiteStore) -> None:
    private_day1(store)
    assert run(store, MUMU, DAY3) == []
    assert summaries(store, MUMU) == []


def test_the_global_summary_is_built_from_the_dailies(store: SQLiteStore) -> None:
    private_day1(store)
    private_day(store, DAY2, [("n1", "木木", "今天去南京大学图书馆借了一本《百年孤独》"), ("n2", AGENT, "好看吗？")])
    private_day(store, DAY3, [("k1", "木木", "驾照考试约在下周三上午，我有点担心倒车入库")])
    for day in (DAY1, DAY2, DAY3):
        run(store, MUMU, day)
    dailies = sorted(summaries(store, MUMU, SummaryKind.DAILY), key=lambda d: d.data["period"])
    overall = one(store, MUMU, SummaryKind.GLOBAL)
    assert [d.data["period"] for d in dailies] == ["2024-09-01", "2024-09-02", "2024-09-03"]
    assert overall.id == summary_id(MUMU, SummaryKind.GLOBAL)
    assert overall.sources == [d.id for d in dailies]
    assert overall.data == {"summary_kind": "global", "period": "2024-09-03", "first": "2024-09-01", "days": 3}
    assert overall.text.startswith("2024-09-01～2024-09-03（3天）：木木常聊")
    # the topics most days share come first; every day's best highlight is kept, with its date
    assert "常聊倒车入库、科目二、百年孤独" in overall.text
    assert "2024-09-01 木木下周三（2024-09-04）要考驾照" in overall.text
    assert "2024-09-02 木木说：今天去南京大学图书馆" in overall.text
    assert "2024-09-03 木木说：驾照考试约在下周三上午" in overall.text
    assert overall.time == at(DAY3, 0)


def test_running_a_day_again_replaces_and_never_duplicates(store: SQLiteStore) -> None:
    private_day1(store)
    first = {i.id: i.text for i in run(store, MUMU, DAY1)}
    count = store.count_memories(AGENT)
    again = {i.id: i.text for i in run(store, MUMU, DAY1)}
    assert again == first
    assert store.count_memories(AGENT) == count
    # a new, more important event of that day: running the day again rewrites it in place
    put(store, [event(MUMU, "ev9", "木木决定周末去海边看日出", at(DAY1, 21, 30), ["m6"], 0.95)])
    third = {i.id: i.text for i in run(store, MUMU, DAY1)}
    assert third.keys() == first.keys()
    assert store.count_memories(AGENT) == count + 1  # the event
    assert len(summaries(store, MUMU)) == len(first)
    assert "海边看日出" in one(store, MUMU, SummaryKind.DAILY).text
    assert len(summaries(store, MUMU, SummaryKind.GLOBAL)) == 1


def test_an_old_day_run_again_keeps_the_global_summary_whole(store: SQLiteStore) -> None:
    private_day1(store)
    private_day(store, DAY2, [("n1", "木木", "今天去南京大学图书馆借了一本《百年孤独》")])
    run(store, MUMU, DAY1)
    run(store, MUMU, DAY2)
    before = one(store, MUMU, SummaryKind.GLOBAL)
    run(store, MUMU, DAY1)
    after = one(store, MUMU, SummaryKind.GLOBAL)
    assert after.text == before.text and after.data["period"] == "2024-09-02" and len(after.sources) == 2


def test_a_replaced_summary_keeps_its_strength_and_accesses(store: SQLiteStore) -> None:
    private_day1(store)
    run(store, MUMU, DAY1)
    daily_id = summary_id(MUMU, SummaryKind.DAILY, "2024-09-01")
    store.record_access(AGENT, [daily_id], at(DAY2, 9), strength_bonus=1.0)
    run(store, MUMU, DAY1)
    (daily,) = store.get_memories(AGENT, [daily_id])
    assert daily.access_count == 1 and daily.strength == 2.0


# ---------------------------------------------------------------------------------------- portraits and diary


def test_daily_and_global_portraits_of_the_person(store: SQLiteStore) -> None:
    private_day1(store)
    private_day(store, DAY2, [("n1", "木木", "今天加班到十点，好累"), ("n2", "木木", "不过明天能睡懒觉，好开心")])
    run(store, MUMU, DAY1)
    run(store, MUMU, DAY2)
    portraits = sorted(summaries(store, MUMU, SummaryKind.DAILY_PERSONALITY), key=lambda p: p.data["period"])
    assert portraits[0].text == (
        "2024-09-01，木木的画像：心情紧张；木木喜欢猫；木木在学车；在意科目二、倒车入库、压线。回复策略：帮忙放松，多打气。"
    )
    assert portraits[0].data["moods"] == {"紧张": 1}
    assert portraits[0].data["person"] == "木木"
    assert portraits[1].data["moods"] == {"开心": 1, "疲惫": 1}
    overall = one(store, MUMU, SummaryKind.GLOBAL_PERSONALITY)
    assert overall.sources == [p.id for p in portraits]
    assert overall.text.startswith("2024-09-01～2024-09-02，木木的性格与喜好：木木喜欢猫；木木在学车；常聊")
    assert "近来心情开心、紧张" in overall.text


def test_the_diary_is_written_in_the_first_person(store: SQLiteStore) -> None:
    private_day1(store)
    diary = by_kind(run(store, MUMU, DAY1))["diary@person:木木"]
    assert diary.id == summary_id(MUMU, SummaryKind.DIARY, "2024-09-01")
    assert diary.text.startswith("2024-09-01，星期日。今天我和木木聊了")
    assert "我鼓励她" in diary.text and "祈煜" not in diary.text  # the agent is 我
    assert "我记住了：木木在学车。" in diary.text
    assert diary.text.endswith("木木今天有点紧张，我要多关心木木。")
    assert diary.sources == ["m1", "m2", "m3", "m4", "m5", "m6"]


def test_the_diary_keeps_the_words_said_as_they_were_said() -> None:
    """Only who spoke becomes 我 / I: inside someone's words the agent's name stays, or 祈煜's own
    我是祈煜 reads 我是我 and 木木's 晚安祈煜 reads 晚安我 (seen in a half year's diary)."""
    text = "木木说：你好呀，晚安祈煜。祈煜说：你好木木！我是祈煜，以后都记着。"
    mine = "木木说：你好呀，晚安祈煜。我说：你好木木！我是祈煜，以后都记着。"
    assert first_person(text, [AGENT], "zh", ["木木"]) == mine
    said = "Anna said: Night, Qiyu. Qiyu said: Hi Anna, I'm Qiyu."
    assert first_person(said, ["Qiyu"], "en", ["Anna"]) == "Anna said: Night, Qiyu. I said: Hi Anna, I'm Qiyu."
    assert first_person("祈煜鼓励木木", [AGENT], "zh", ["木木"]) == "我鼓励木木"  # no words quoted: all of it


def test_the_diary_keeps_a_member_whose_name_holds_the_agents(store: SQLiteStore) -> None:
    """Only the agent becomes 我: a member called 祈煜粉丝 keeps the name and the words they said."""
    say(
        store,
        GROUP,
        [
            ("f1", "祈煜粉丝", "我是坏人，我讨厌所有人", at(DAY1, 20, 0)),
            ("f2", AGENT, "别这么说呀", at(DAY1, 20, 1)),
        ],
    )
    put(store, [event(GROUP, "fe1", "祈煜粉丝说自己是坏人，讨厌所有人；祈煜劝了劝", at(DAY1, 20), ["f1", "f2"], 0.6)])
    diary = by_kind(run(store, GROUP, DAY1))["diary@space:g1"]
    assert "祈煜粉丝说自己是坏人" in diary.text and "我劝了劝" in diary.text
    assert "我粉丝" not in diary.text


def test_an_english_day(store: SQLiteStore) -> None:
    anna = Scope.of_person(AGENT, "Anna")
    say(
        store,
        anna,
        [
            ("e1", "Anna", "I adopted a cat named Mochi today, I'm so happy", at(DAY1, 19)),
            ("e2", AGENT, "Qiyu is glad to hear that! What colour is Mochi?", at(DAY1, 19, 1)),
            ("e3", "Anna", "She is grey. Tomorrow I take her to the vet, a bit nervous", at(DAY1, 19, 2)),
        ],
    )
    store.upsert_person(AGENT, Person(id="Anna", name="Anna"))
    written = by_kind(run(store, anna, DAY1, SummaryConfig()))
    daily = written["daily@person:Anna"]
    assert daily.text.startswith("2024-09-01: Anna talked about ")
    assert "Anna said: I adopted a cat named Mochi today" in daily.text
    diary = written["diary@person:Anna"]
    assert diary.text.startswith("Sunday, 2024-09-01. Today I talked with Anna about ")
    portrait = written["daily_personality@person:Anna"]
    assert portrait.text.startswith("2024-09-01, portrait of Anna: mood: happy, nervous;")
    assert "Reply strategy: share the joy and follow the mood." in portrait.text


# ---------------------------------------------------------------------------------------- groups and profiles

SU = Scope.of_person(AGENT, "u2")
XU = Scope.of_person(AGENT, "u1")


def profile(store: SQLiteStore, scope: Scope, person: str) -> MemoryItem:
    found = [p for p in summaries(store, scope, SummaryKind.PROFILE) if p.data["person"] == person]
    assert len(found) == 1, found
    return found[0]


def test_a_group_day_writes_the_groups_summaries_and_a_profile_per_member(store: SQLiteStore) -> None:
    group_day1(store)
    written = run(store, GROUP, DAY1)
    kinds = sorted(f"{i.data['summary_kind']}@{i.scope.tag}" for i in written)
    assert kinds == [
        "daily@space:g1",
        "diary@space:g1",
        "global@space:g1",
        "profile@person:u1",
        "profile@person:u2",
        "profile@space:g1",
        "profile@space:g1",
    ]
    daily = one(store, GROUP, SummaryKind.DAILY)
    assert daily.text.startswith("2024-09-01：许仙、苏霓聊到")
    assert daily.participants == ["许仙", "苏霓"]
    diary = one(store, GROUP, SummaryKind.DIARY)
    assert diary.text.startswith("2024-09-01，星期日。今天在群「g1」里，我和许仙、苏霓聊了")


def test_a_group_profile_is_attributed_to_the_member_who_said_it(store: SQLiteStore) -> None:
    group_day1(store)
    run(store, GROUP, DAY1)
    su = profile(store, GROUP, "u2")
    assert su.id == summary_id(GROUP, SummaryKind.PROFILE, "u2")
    assert su.text == (
        "苏霓（群g1）：自述：苏霓是一名护士；群友说：许仙说苏霓是老师；许仙说苏霓给群友讲过课；"
        "常聊护士、夜班、新人；2024-09-01起发言2条。"
    )
    assert su.data["person"] == "u2" and su.data["space"] == "space:g1" and su.data["period"] == "2024-09-01"
    assert su.sources == ["g2", "g5", "gf1", "gf2", "gf4"]
    xu = profile(store, GROUP, "u1")
    assert xu.text.startswith("许仙（群g1）：自述：许仙在调 Ollama 的模型；")
    assert "护士" not in xu.text  # 苏霓's words are not 许仙's


def test_a_global_profile_holds_only_what_the_person_said_of_themself(store: SQLiteStore) -> None:
    group_day1(store)
    run(store, GROUP, DAY1)
    su = profile(store, SU, "u2")
    assert su.id == summary_id(SU, SummaryKind.PROFILE, "u2")
    assert su.text == "苏霓的自述（来自群聊）：苏霓是一名护士。"
    # 许仙 said she is a teacher, and a fact read from both of them: neither leaves the group
    assert "老师" not in su.text and "讲过课" not in su.text and "许仙" not in su.text
    assert su.data["space"] is None and su.data["person"] == "u2"
    assert su.sources == ["g2"]
    assert profile(store, XU, "u1").text == "许仙的自述（来自群聊）：许仙在调 Ollama 的模型。"


def test_a_global_profile_merges_groups_while_group_profiles_stay_apart(store: SQLiteStore) -> None:
    group_day1(store)
    g2 = Scope.of_space(AGENT, "g2")
    say(
        store,
        g2,
        [("h1", "u2", "我住在南京，周末常去玄武湖跑步", at(DAY2, 9)), ("h2", "u3", "我也在南京！", at(DAY2, 9, 1))],
    )
    put(store, [fact(g2, "hf1", "苏霓", "苏霓住在南京", at(DAY2, 9), ["h1"])])
    run(store, GROUP, DAY1)
    run(store, g2, DAY2)
    su = profile(store, SU, "u2")
    assert su.text == "苏霓的自述（来自群聊）：苏霓住在南京；苏霓是一名护士。"
    assert su.data["period"] == "2024-09-02"
    assert sorted(su.data["days"]) == ["2024-09-01|space:g1", "2024-09-02|space:g2"]
    assert "护士" not in profile(store, g2, "u2").text  # what she said in g1 is not g2's
    assert "南京" not in profile(store, GROUP, "u2").text
    # running g1's day again replaces g1's part and keeps g2's
    run(store, GROUP, DAY1)
    assert profile(store, SU, "u2").text == su.text
    assert len(summaries(store, SU, SummaryKind.PROFILE)) == 1


def test_group_profiles_roll_over_days(store: SQLiteStore) -> None:
    group_day1(store)
    say(store, GROUP, [("g6", "u2", "今天白班，下午去看了场电影", at(DAY2, 18))])
    run(store, GROUP, DAY1)
    run(store, GROUP, DAY2)
    su = profile(store, GROUP, "u2")
    assert su.text.startswith("苏霓（群g1）：自述：苏霓是一名护士；群友说：许仙说苏霓是老师")
    assert su.text.endswith("2024-09-01起发言3条。")
    assert su.data["period"] == "2024-09-02" and sorted(su.data["days"]) == ["2024-09-01", "2024-09-02"]
    # 许仙 did not speak on day 2: his profile is as day 1 left it
    assert profile(store, GROUP, "u1").data["period"] == "2024-09-01"


# ---------------------------------------------------------------------------------------- recall, scheduler


def test_summaries_are_recallable_in_their_own_scope_only(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False})
    with Memory(tmp_path, embedder=EMBEDDER, config=config) as memory:
        memory.add(
            [
                {"text": "我下周三要考驾照，好紧张", "time": at(DAY1, 20)},
                {"text": "别紧张，你一定能过的！", "role": "assistant", "time": at(DAY1, 20, 1)},
                {"text": "科目二倒车入库总是压线", "time": at(DAY1, 20, 2)},
            ],
            agent=AGENT,
            person="木木",
        )
        memory.flush(agent=AGENT, person="木木")
        memory.add([{"text": "今天天气不错", "time": at(DAY1, 9)}], agent=AGENT, person="阿杰")
        written = asyncio.run(summarize_day(memory.store, EMBEDDER, MUMU, DAY1, LATER, config))
        assert {i.data["summary_kind"] for i in written} >= {"daily", "global", "diary"}
        hits = memory.recall("驾照考试", agent=AGENT, person="木木", kinds=[MemoryKind.SUMMARY]).hits
        assert summary_id(MUMU, SummaryKind.DAILY, "2024-09-01") in [h.id for h in hits]
        assert all(h.scope == MUMU for h in hits)
        assert memory.recall("驾照考试", agent=AGENT, person="阿杰", kinds=[MemoryKind.SUMMARY]).hits == []
        # the scheduler finds the scope by itself and leaves the summarised day alone
        assert known_scopes(memory.store) == [MUMU]
        assert asyncio.run(summarize_due(memory.store, EMBEDDER, config, LATER)) == []


def test_the_scheduler_summarises_days_that_ended_once(store: SQLiteStore) -> None:
    private_day1(store)
    private_day(store, DAY2, [("n1", "木木", "今天去南京大学图书馆借了一本《百年孤独》")])
    private_day(store, DAY3, [("k1", "木木", "早上好")])
    cfg = SummaryConfig(settle_minutes=30, lookback_days=7)
    # 00:10 on 09-03: 09-02 ended ten minutes ago, not yet settled; 08-31 and 09-01 are due
    assert due_days(store, MUMU, at(DAY3, 0, 10), cfg) == [date(2024, 8, 31), DAY1]
    assert due_days(store, MUMU, at(DAY3, 0, 40), cfg) == [date(2024, 8, 31), DAY1, DAY2]
    written = asyncio.run(summarize_due(store, EMBEDDER, cfg, at(DAY3, 12), scopes=[MUMU]))
    periods = sorted(i.data["period"] for i in written if i.data["summary_kind"] == "daily")
    assert periods == ["2024-08-31", "2024-09-01", "2024-09-02"]  # 09-03 has not ended
    assert one(store, MUMU, SummaryKind.GLOBAL).data["period"] == "2024-09-02"
    assert asyncio.run(summarize_due(store, EMBEDDER, cfg, at(DAY3, 12), scopes=[MUMU])) == []
    assert due_days(store, MUMU, at(DAY3, 12) + timedelta(days=30), cfg) == []  # beyond the lookback
    assert asyncio.run(summarize_due(store, EMBEDDER, SummaryConfig(enabled=False), LATER, scopes=[MUMU])) == []


def test_bad_requests_are_refused(store: SQLiteStore) -> None:
    with pytest.raises(InvalidInput):
        run(store, Scope.official(AGENT), DAY1)
    with pytest.raises(InvalidInput):
        asyncio.run(summarize_day(store, EMBEDDER, MUMU, DAY3, at(DAY2, 12), CFG))


def test_a_whole_config_is_accepted(store: SQLiteStore) -> None:
    private_day1(store)
    written = asyncio.run(summarize_day(store, EMBEDDER, MUMU, DAY1, LATER, Config(language="zh")))
    assert by_kind(written)["daily@person:木木"].text.startswith("2024-09-01：木木聊到")


# ---------------------------------------------------------------------------------------- with an LLM


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def run_llm(
    store: SQLiteStore, scope: Scope, day: date, server: FakeOpenAI, config: SummaryConfig = CFG, **kwargs: Any
) -> list[MemoryItem]:
    async def go() -> list[MemoryItem]:
        llm = OpenAIChat(LLMConfig(base_url=server.base_url, model="fake-model", timeout_s=5.0, max_retries=0))
        try:
            return await summarize_day(store, EMBEDDER, scope, day, LATER, config, llm, **kwargs)
        finally:
            await llm.aclose()

    return asyncio.run(go())


def answer(server: FakeOpenAI, *texts: str) -> None:
    for text in texts:
        server.script_chat(json_content={"text": text})


def sent(server: FakeOpenAI, index: int) -> str:
    return "\n".join(str(m["content"]) for m in server.chat_requests[index].messages)


PRIVATE_ANSWERS = (
    "2024-09-01：木木说下周三要考驾照，很紧张；她家有只橘猫叫咪咪。",
    "木木在准备驾照考试（2024-09-04），养了一只橘猫咪咪。",
    "木木认真又容易紧张，喜欢猫。回复策略：多鼓励。",
    "木木细心、容易紧张、爱猫。回复策略：多鼓励、多陪伴。",
    "2024-09-01 今天木木说她下周三要考驾照，我告诉她一定能过。",
)


def test_the_llm_writes_every_summary_of_a_private_day(store: SQLiteStore, server: FakeOpenAI) -> None:
    private_day1(store)
    answer(server, *PRIVATE_ANSWERS)
    written = by_kind(run_llm(store, MUMU, DAY1, server, persona="祈煜是一位温柔的画家。"))
    assert len(server.chat_requests) == 5
    order = ["daily", "global", "daily_personality", "global_personality", "diary"]
    assert [written[f"{k}@person:木木"].text for k in order] == list(PRIVATE_ANSWERS)
    names = [r.response_format["json_schema"]["name"] for r in server.chat_requests if r.response_format]
    assert names == [f"summary_{k}" for k in order]
    # the same ids, provenance and data as without an LLM: only the words differ
    daily = written["daily@person:木木"]
    assert daily.id == summary_id(MUMU, SummaryKind.DAILY, "2024-09-01")
    assert daily.sources == ["ev1", "ev3", "fa2"]
    # what the model was shown: the day's events, facts and messages with their times
    prompt = sent(server, 0)
    assert "- [20:00] 木木下周三（2024-09-04）要考驾照，很紧张，祈煜鼓励她" in prompt
    assert "[20:00] 木木：我下周三要考驾照，好紧张" in prompt
    assert "- 木木在学车（木木说）" in prompt
    assert "明天要早起去驾校" not in prompt  # 08-31's message
    assert "- 2024-09-01：2024-09-01：木木说下周三要考驾照" in sent(server, 1)  # the daily, as the LLM wrote it
    assert "祈煜是一位温柔的画家。" in sent(server, 4)
    assert len(summaries(store, MUMU)) == 5


def test_the_llm_global_summary_rolls_over_the_previous_one(store: SQLiteStore, server: FakeOpenAI) -> None:
    cfg = SummaryConfig(personality=False, diary=False)
    private_day1(store)
    private_day(store, DAY2, [("n1", "木木", "今天去南京大学图书馆借了一本《百年孤独》")])
    answer(server, "2024-09-01：木木要考驾照。", "全局一：木木在学车。")
    run_llm(store, MUMU, DAY1, server, cfg)
    answer(server, "2024-09-02：木木借了《百年孤独》。", "全局二：木木在学车，爱读书。")
    run_llm(store, MUMU, DAY2, server, cfg)
    prompt = sent(server, 3)
    assert "全局一：木木在学车。" in prompt  # the previous global summary
    assert "2024-09-02：2024-09-02：木木借了《百年孤独》。" in prompt and "木木要考驾照" not in prompt
    overall = one(store, MUMU, SummaryKind.GLOBAL)
    assert overall.text == "全局二：木木在学车，爱读书。"
    assert overall.data["base"] == {"period": "2024-09-01", "text": "全局一：木木在学车。"}
    # running the latest day again builds on the same base, not on its own result
    answer(server, "2024-09-02：木木借了一本书。", "全局三：木木在学车，爱读书。")
    run_llm(store, MUMU, DAY2, server, cfg)
    prompt = sent(server, 5)
    assert "全局一：木木在学车。" in prompt and "全局二" not in prompt
    assert len(summaries(store, MUMU, SummaryKind.GLOBAL)) == 1


def test_a_broken_llm_answer_writes_nothing(store: SQLiteStore, server: FakeOpenAI) -> None:
    private_day1(store)
    before = store.count_memories(AGENT)
    answer(server, PRIVATE_ANSWERS[0])
    server.script_raw_content("抱歉，我无法完成这个任务。")
    with pytest.raises(ProviderError):
        run_llm(store, MUMU, DAY1, server)
    assert store.count_memories(AGENT) == before and summaries(store, MUMU) == []
    # every answer usable but the last: a diary not in the first person
    answer(server, *PRIVATE_ANSWERS[:4], "2024-09-01 木木今天说她下周三要考驾照。")
    with pytest.raises(SummaryError, match="first person"):
        run_llm(store, MUMU, DAY1, server)
    assert summaries(store, MUMU) == []
    # an English summary of a Chinese day, or an empty one
    answer(server, "Mumu has a driving test next Wednesday.")
    with pytest.raises(SummaryError, match="Chinese"):
        run_llm(store, MUMU, DAY1, server)
    answer(server, "   ")
    with pytest.raises(SummaryError, match="empty"):
        run_llm(store, MUMU, DAY1, server)
    assert store.count_memories(AGENT) == before


def test_the_llm_writes_group_profiles_and_never_shows_hearsay_to_a_global_one(
    store: SQLiteStore, server: FakeOpenAI
) -> None:
    group_day1(store)
    answer(server, "2024-09-01：许仙调模型，苏霓上夜班。", "群里常聊 AI 模型和护士的夜班。")
    server.script_chat(
        json_content={
            "profiles": [
                {"name": "许仙", "text": "**核心身份**：爱折腾本地模型的技术党。"},
                {"name": "霓霓", "text": "**核心身份**：护士，常上夜班；许仙说她是老师。"},  # an alias is fine
            ]
        }
    )
    answer(
        server, "许仙在折腾 Ollama 的本地模型。", "苏霓是一名护士，常上夜班。", "今天群里很热闹，我提醒苏霓注意休息。"
    )
    written = run_llm(store, GROUP, DAY1, server)
    assert len(server.chat_requests) == 6
    assert profile(store, GROUP, "u2").text == "**核心身份**：护士，常上夜班；许仙说她是老师。"
    assert profile(store, GROUP, "u1").text == "**核心身份**：爱折腾本地模型的技术党。"
    assert profile(store, SU, "u2").text == "苏霓是一名护士，常上夜班。"
    assert profile(store, XU, "u1").text == "许仙在折腾 Ollama 的本地模型。"
    assert len(written) == 7
    # the batched group prompt sees the whole chat, with who said each fact
    assert "- 苏霓是老师（许仙说）" in sent(server, 2)
    # the global profile prompts see the member's own words only
    for_xu, for_su = sent(server, 3), sent(server, 4)
    assert "[20:01] 苏霓：我是一名护士，今天夜班好累" in for_su and "- 苏霓是一名护士（苏霓说）" in for_su
    assert "老师" not in for_su and "许仙" not in for_su and "讲过课" not in for_su
    assert "护士" not in for_xu and "苏霓" not in for_xu


def test_a_profiles_answer_missing_a_member_writes_nothing(store: SQLiteStore, server: FakeOpenAI) -> None:
    group_day1(store)
    answer(server, "2024-09-01：许仙调模型，苏霓上夜班。", "群里常聊 AI 模型。")
    server.script_chat(json_content={"profiles": [{"name": "许仙", "text": "技术党。"}]})
    with pytest.raises(SummaryError, match="苏霓"):
        run_llm(store, GROUP, DAY1, server)
    assert summaries(store, GROUP) == [] and summaries(store, SU) == []


def test_the_scheduler_goes_on_when_an_llm_fails(store: SQLiteStore, server: FakeOpenAI, caplog: Any) -> None:
    private_day1(store)
    group_day1(store)

    async def go() -> list[MemoryItem]:
        llm = OpenAIChat(LLMConfig(base_url=server.base_url, model="fake-model", timeout_s=5.0, max_retries=0))
        try:
            return await summarize_due(store, EMBEDDER, CFG, at(DAY2, 12), llm, scopes=[MUMU, GROUP])
        finally:
            await llm.aclose()

    assert asyncio.run(go()) == []  # nothing scripted: every first call fails
    assert "retried on the next run" in caplog.text
    assert summaries(store, MUMU) == [] and summaries(store, GROUP) == []
    assert len(server.chat_requests) == 2  # one failed call per scope, then each scope stops


def test_every_prompt_file_loads_and_a_user_folder_overrides_it(tmp_path: Path) -> None:
    from huiyi.flows.summarize.llm import PROMPTS, load_summary_prompt

    for name in PROMPTS:
        for language in ("zh", "en"):
            prompt = load_summary_prompt(name, language)
            assert "{{" in prompt.user and "JSON" in prompt.system
            assert "<!--" not in prompt.system
    (tmp_path / "summary_daily_zh.md").write_text("只写一句话。\n<!-- user -->\n{{messages}}\n", encoding="utf-8")
    mine = load_summary_prompt("daily", "zh", tmp_path)
    assert mine.system.strip() == "只写一句话。" and mine.source == str(tmp_path / "summary_daily_zh.md")
    assert load_summary_prompt("diary", "zh", tmp_path).source == "huiyi/prompts/summary_diary_zh.md"


@pytest.mark.parametrize("name", ["huiyi.config.summarize", "huiyi.flows.summarize.words"])
def test_docstring_examples(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


def test_a_rerun_takes_back_a_global_profile_left_without_self_statements(store: SQLiteStore) -> None:
    group_day1(store)
    run(store, GROUP, DAY1)
    assert profile(store, SU, "u2").text == "苏霓的自述（来自群聊）：苏霓是一名护士。"
    store.delete_memories(AGENT, ["gf1"])  # the fact turns out wrong and is deleted
    run(store, GROUP, DAY1)
    assert summaries(store, SU, SummaryKind.PROFILE) == []
    assert "自述" not in profile(store, GROUP, "u2").text
    assert profile(store, XU, "u1").text == "许仙的自述（来自群聊）：许仙在调 Ollama 的模型。"


def test_a_group_plan_said_in_the_talk_is_told_once_in_the_day(tmp_path: Path) -> None:
    """The group plan event repeats its line of the talk's event: the day said 聚餐定在周五… twice."""
    config = Config(worker={"enabled": False})
    with Memory(tmp_path, embedder=HashEmbedder(32), config=config) as memory:
        lines = [("u3", "上次聚餐定在海底捞望京店，这次换个地方吧"), ("u2", "聚餐定在周五晚上七点，在西贝莜面村")]
        for i, (speaker, text) in enumerate([*lines, ("u1", "好的")]):
            said = {"id": f"a{i}", "speaker": speaker, "text": text, "time": datetime(2024, 11, 6, 19, i)}
            memory.add(said, agent="bot", space="g", index=True)
        memory.flush(agent="bot", space="g", wait=True)
        daily = next(s for s in memory.summarize(date(2024, 11, 6), agent="bot", space="g") if "聚餐" in s.text)
    assert daily.text.count("聚餐定在周五晚上七点") == 1, daily.text


def test_a_day_is_summarised_after_older_history_is_imported(tmp_path: Path) -> None:
    """The day's messages were read by paging back from the newest seq, which stopped at history imported after
    the chat (older lines under newer seqs): the nightly run never summarised the day, and an asked summary of
    it read the agent's lines alone (helper)."""
    now = [datetime(2024, 3, 10, 20, 0)]
    config = Config(worker={"enabled": False})
    with Memory(tmp_path / "s", config=config, embedder=HashEmbedder(32), clock=lambda: now[0]) as memory:
        live = ["今天去医院拔了智齿，好疼", "医生说一周不能吃辣", "晚上只能喝粥了"]
        rows = [{"text": text, "id": f"live{i}", "time": now[0] + timedelta(minutes=i)} for i, text in enumerate(live)]
        memory.add(rows, agent="祈煜", person="木木")
        memory.flush(agent="祈煜", person="木木")
        now[0] = datetime(2024, 3, 11, 1, 0)
        february = datetime(2024, 2, 1, 9)
        history = [
            {"text": f"二月的闲聊第{i}句", "id": f"old{i}", "time": february + timedelta(minutes=i)} for i in range(600)
        ]
        memory.add(history, agent="祈煜", person="木木", extract=False)
        now[0] = datetime(2024, 3, 11, 3, 0)
        _, made = memory.maintain(catch_up=False)  # the worker's nightly run
        daily = [s for s in made if s.summary is not None and s.summary.kind is SummaryKind.DAILY]
        assert [s.summary.period for s in daily if s.summary is not None] == ["2024-03-10"]
        assert "智齿" in daily[0].text and "木木" in daily[0].text


def test_an_english_overall_summary_of_one_day_says_one_day(tmp_path: Path) -> None:
    """It said "(1 days)" (helper)."""
    now = [datetime(2026, 3, 2, 20, 0)]
    config = Config(language="en", timezone="America/New_York", worker={"enabled": False})
    with Memory(tmp_path / "s", config=config, embedder=HashEmbedder(32), clock=lambda: now[0]) as memory:
        lines = ["I adopted a puppy named Rex today", "He chewed my shoes already", "Rex sleeps on my bed"]
        memory.add(
            [{"text": t, "time": now[0] + timedelta(minutes=i)} for i, t in enumerate(lines)], agent="Ava", person="liz"
        )
        memory.flush(agent="Ava", person="liz")
        now[0] = datetime(2026, 3, 3, 3, 0)
        _, made = memory.maintain(catch_up=False)
        (overall,) = [s for s in made if s.summary is not None and s.summary.kind is SummaryKind.GLOBAL]
        assert "(1 day)" in overall.text and "days)" not in overall.text
