"""Extraction: the LLM extractor against the fake OpenAI server, and the rule extractor on real chats."""

from __future__ import annotations

import asyncio
import doctest
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from fake_openai import FakeOpenAI
from huiyi import Memory
from huiyi.config import Config, LLMConfig
from huiyi.errors import ConfigError, ProviderError
from huiyi.flows.extract import Extraction, Extractor, FactDraft, Fold
from huiyi.flows.extract.answer import parse_extraction
from huiyi.flows.extract.entities import entities_of
from huiyi.flows.extract.llm import LLMExtractor, load_prompt
from huiyi.flows.extract.rules import RuleExtractor
from huiyi.flows.extract.schema import EXTRACTION_SCHEMA, SCHEMA_NAME, ExtractionError
from huiyi.model import EntityType, FactKind, MemoryKind, Message, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.providers.llm import OpenAIChat
from huiyi.text import keywords as keywords_module
from huiyi.text.keywords import idf, keywords
from huiyi.text.language import conversation_language

T0 = datetime(2023, 5, 10, 14, 30)  # a Wednesday


def make_fold(
    rows: Sequence[tuple[str, str] | tuple[str, str, int]],
    *,
    agent: str = "祈煜",
    person: str | None = "木木",
    space: str | None = None,
    aliases: dict[str, list[str]] | None = None,
    language: str = "zh",
) -> Fold:
    """rows: (speaker, text[, minutes after T0]); message ids are ``id0``, ``id1``…"""
    scope = Scope.of_space(agent, space) if space else Scope.of_person(agent, person or "")
    space_id = scope.space_id
    messages = []
    for index, row in enumerate(rows):
        speaker, text = row[0], row[1]
        minutes = row[2] if len(row) > 2 else index  # type: ignore[misc]
        messages.append(
            Message(
                id=f"id{index}",
                agent=agent,
                space=space_id,
                scope=scope,
                speaker=speaker,
                role="assistant" if speaker == agent else "user",
                text=text,
                time=T0 + timedelta(minutes=minutes),
                seq=index,
            )
        )
    return Fold(
        agent=agent,
        space=space_id,
        scope=scope,
        messages=messages,
        person=person if not space else None,
        aliases=aliases or {},
        language=language,
    )


PRIVATE = make_fold(
    [
        ("木木", "我昨天晚上八点和小明在南京大学图书馆看了《流浪地球》"),
        ("祈煜", "好看吗？"),
        ("木木", "超好看！！我最喜欢科幻电影了"),
        ("木木", "我养了一只猫叫咪咪"),
        ("祈煜", "哈哈哈哈哈"),
        ("木木", "对了，我下周三要去北京出差，好紧张"),
        ("祈煜", "别担心，我会想你的"),
        ("木木", "我是一名护士，在鼓楼医院上班"),
        ("木木", "我今年二十五岁，我不喜欢吃香菜"),
        ("木木", "你喜欢我吗？"),
        ("木木", "我喜欢你"),
    ],
    aliases={"木木": ["木木", "木头"]},
)

GROUP = make_fold(
    [
        ("u1", "大家好，我叫许仙，我住在杭州"),
        ("u2", "我讨厌下雨天"),
        ("u3", "霓霓最近怎么没来"),
        ("u2", "我三天前去了西湖，在断桥边散步"),
        ("u1", "他说我喜欢吃辣，其实没有"),
        ("u3", "我是群小草，我在腾讯工作"),
    ],
    agent="NekoChan",
    person=None,
    space="g1",
    aliases={"u1": ["u1", "许仙"], "u2": ["u2", "苏霓", "霓霓"], "u3": ["u3", "群小草"]},
)

ENGLISH = make_fold(
    [
        ("anna", "Hi! My name is Anna and I live in Seattle."),
        ("Bot", "Nice to meet you, Anna!"),
        ("anna", "I love hiking in Yosemite. I went there last Saturday with my friend Tom."),
        ("anna", "I have a dog named Biscuit."),
        ("anna", "I work at Microsoft as an engineer. I'm 29 years old."),
        ("Bot", "Do you like jazz?"),
    ],
    agent="Bot",
    person="anna",
    aliases={"anna": ["anna", "Anna"]},
    language="en",
)


def facts_of(extraction: Extraction) -> set[tuple[str, str, str]]:
    return {(f.subject, f.predicate, f.object) for f in extraction.facts}


def fact(extraction: Extraction, subject: str, predicate: str) -> FactDraft:
    return next(f for f in extraction.facts if f.subject == subject and f.predicate == predicate)


# --- the LLM extractor ---------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def run_llm(server: FakeOpenAI, fold: Fold, *, max_retries: int = 0, **options: Any) -> Extraction:
    config = LLMConfig(base_url=server.base_url, model="fake-model", timeout_s=5.0, max_retries=max_retries)

    async def main() -> Extraction:
        async with OpenAIChat(config, backoff_s=0.01) as llm:
            return await LLMExtractor(llm, **options).extract(fold)

    return asyncio.run(main())


def answer(**parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"events": parts.get("events", []), "facts": parts.get("facts", []), "entities": parts.get("entities", [])}


def event(text: str, sources: list[str], **more: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "text": text,
        "time": "",
        "place": "",
        "participants": [],
        "keywords": [],
        "insight": "",
        "importance": 0.5,
        "sources": sources,
    }
    return base | more


def fact_item(subject: str, predicate: str, obj: str, sources: list[str], **more: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "subject": subject,
        "subject_type": "person",
        "predicate": predicate,
        "object": obj,
        "object_type": "literal",
        "kind": "preference",
        "keyword": "喜好",
        "description": f"{subject}{predicate}{obj}",
        "time": "",
        "confidence": 0.9,
        "sources": sources,
    }
    return base | more


SMALL = make_fold(
    [("木木", "我昨天晚上八点去看了《流浪地球》"), ("祈煜", "好看吗？"), ("木木", "超好看，我最喜欢科幻电影了")],
    aliases={"木木": ["木木", "木头"]},
)


def test_llm_good_answer_becomes_drafts(server: FakeOpenAI) -> None:
    server.script_chat(
        json_content=answer(
            events=[
                event(
                    "木木昨天晚上八点看了《流浪地球》，觉得超好看。",
                    ["m1", "m3"],
                    time="2023-05-09 20:00",
                    place="电影院",
                    participants=["我", "祈煜"],
                    keywords=["流浪地球", "科幻电影"],
                    insight="木木热爱科幻题材。",
                    importance=8,
                )
            ],
            facts=[fact_item("我", "喜欢", "科幻电影", ["m3"], description="木木最喜欢科幻电影")],
            entities=[
                {"name": "流浪地球", "type": "specific", "aliases": []},
                {"name": "木头", "type": "person", "aliases": []},
            ],
        )
    )
    extraction = run_llm(server, SMALL)

    (request,) = server.chat_requests
    assert request.response_format == {
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "schema": EXTRACTION_SCHEMA, "strict": True},
    }
    system, user = request.messages
    assert system["role"] == "system" and "祈煜" in system["content"] and "{{" not in system["content"]
    assert "[m1] 2023-05-10 14:30 周三 木木：我昨天晚上八点去看了《流浪地球》" in user["content"]
    assert "[m2] 2023-05-10 14:31 周三 祈煜：好看吗？" in user["content"]
    assert "木木（person），也叫：木头" in user["content"]  # the roster, with aliases

    (ev,) = extraction.events
    assert ev.sources == ["id0", "id2"]  # short ids mapped back to the fold's message ids
    assert ev.time == datetime(2023, 5, 9, 20, 0)
    assert ev.importance == 0.8  # a 0–10 answer rescaled
    assert ev.participants == ["木木", "祈煜"]  # 我 is the speaker of the first source
    assert ev.place == "电影院" and ev.keywords == ["流浪地球", "科幻电影"] and ev.insight == "木木热爱科幻题材。"
    (f,) = extraction.facts
    assert (f.subject, f.predicate, f.object, f.kind) == ("木木", "喜欢", "科幻电影", FactKind.PREFERENCE)
    assert f.subject_type is EntityType.OBJECT and f.object_type is None and f.sources == ["id2"]
    assert f.time == T0 + timedelta(minutes=2)  # no time given: when it was said
    assert {e.name: e.type for e in extraction.entities} == {"流浪地球": EntityType.SPECIFIC, "木木": EntityType.OBJECT}
    assert next(e for e in extraction.entities if e.name == "木木").aliases == ["木头"]


def test_llm_drops_source_ids_not_in_the_fold(server: FakeOpenAI) -> None:
    server.script_chat(
        json_content=answer(
            events=[
                event("木木看了电影。", ["m1", "m99", "bogus", "id2", "[m1]"]),
                event("祈煜问好不好看。", ["m42"]),  # nothing valid: the whole fold is its provenance
            ],
            facts=[
                fact_item("木木", "喜欢", "科幻电影", ["m3", "m77"]),
                fact_item("木木", "喜欢", "爆米花", ["m77"]),  # no provenance left: dropped
            ],
        )
    )
    extraction = run_llm(server, SMALL)
    first, second = extraction.events
    assert first.sources == ["id0", "id2"]
    assert second.sources == ["id0", "id1", "id2"]
    assert facts_of(extraction) == {("木木", "喜欢", "科幻电影")}
    assert extraction.facts[0].sources == ["id2"]


def test_llm_unusable_answers_raise_so_the_job_retries(server: FakeOpenAI) -> None:
    server.script_chat(json_content={"memories": ["木木看了电影"]})  # wrong schema
    server.script_chat(content="好的，我来总结一下：木木看了电影。")  # prose
    with pytest.raises(ProviderError, match="memory_extraction"):
        run_llm(server, SMALL, max_retries=1)
    assert len(server.chat_requests) == 2  # the client asked again once, then gave up

    server.script_chat(json_content=answer(facts=[fact_item("木木", "喜欢", "科幻电影", ["m3"])]))
    with pytest.raises(ExtractionError, match="no usable event"):
        run_llm(server, SMALL)

    server.script_chat(json_content=answer(events=[event("   ", ["m1"])]))
    with pytest.raises(ExtractionError):
        run_llm(server, SMALL)


def test_parse_rejects_non_objects_and_cleans_values() -> None:
    with pytest.raises(ExtractionError):
        parse_extraction(["not", "an", "object"], SMALL)
    with pytest.raises(ExtractionError):
        parse_extraction({"events": "木木看了电影"}, SMALL)
    cleaned = parse_extraction(
        {
            "events": [
                event("木木看了电影。", ["m1"], time="昨天晚上", importance="0.7"),
                event("木木说好看。", ["m3"], time="2023/05/10 14:32", importance=70),
                event("祈煜问了一句。", ["m2"], time="whenever", importance=-3),
                event("又一件事。", ["m2"], time="0001-01-01", importance=float("nan")),
            ]
        },
        SMALL,
    )
    times = [e.time for e in cleaned.events]
    assert times == [
        datetime(2023, 5, 9, 18),
        datetime(2023, 5, 10, 14, 32),
        T0 + timedelta(minutes=1),
        T0 + timedelta(minutes=1),
    ]
    assert [e.importance for e in cleaned.events] == [0.7, 0.7, 0.0, 0.5]


def test_llm_keeps_chinese_chinese(server: FakeOpenAI) -> None:
    text = "木木昨天晚上八点看了《流浪地球》，觉得超好看。"
    server.script_chat(json_content=answer(events=[event(text, ["m1"])]))
    extraction = run_llm(server, SMALL, language="en")  # the conversation decides, not the default
    assert extraction.events[0].text == text
    system = server.chat_requests[0].messages[0]["content"]
    assert "不要翻译" in system

    server.script_chat(json_content=answer(events=[event("Mumu watched a film last night.", ["m1"])]))
    with pytest.raises(ExtractionError, match="translated"):
        run_llm(server, SMALL)

    server.script_chat(json_content=answer(events=[event("Anna lives in Seattle.", ["m1"])]))
    run_llm(server, ENGLISH, language="zh")
    system = server.chat_requests[-1].messages[0]["content"]
    assert (
        "Do not translate" in system
        and "[m1] 2023-05-10 14:30 Wed anna: Hi!" in server.chat_requests[-1].messages[1]["content"]
    )


def test_llm_attributes_group_facts_to_their_speakers(server: FakeOpenAI) -> None:
    server.script_chat(
        json_content=answer(
            events=[event("苏霓三天前去西湖散步。", ["m4"], participants=["霓霓", "u1"])],
            facts=[
                fact_item("我", "讨厌", "下雨天", ["m2"]),  # said by 苏霓 (u2)
                fact_item("霓霓", "去过", "西湖", ["m4"], object_type="specific", kind="relation"),
                fact_item("u1", "住在", "杭州", ["m1"], object_type="specific", kind="relation"),
                fact_item("许仙（u1）", "名字是", "许仙", ["m1"], kind="attribute"),
                fact_item("你", "喜欢", "吃辣", ["m5"]),  # you, in a group: nobody can tell who
                fact_item("用户", "工作于", "腾讯", ["m6"], object_type="specific", kind="relation"),
            ],
            entities=[{"name": "霓霓", "type": "person", "aliases": []}],
        )
    )
    extraction = run_llm(server, GROUP)
    user = server.chat_requests[0].messages[1]["content"]
    assert (
        "群聊" in user
        and "- 苏霓（person），也叫：霓霓" in user
        and "[m2] 2023-05-10 14:31 周三 苏霓：我讨厌下雨天" in user
    )
    assert facts_of(extraction) == {
        ("苏霓", "讨厌", "下雨天"),
        ("苏霓", "去过", "西湖"),
        ("许仙", "住在", "杭州"),
        ("许仙", "名字是", "许仙"),
        ("群小草", "工作于", "腾讯"),
    }
    assert all(f.subject_type is EntityType.OBJECT for f in extraction.facts)
    assert extraction.events[0].participants == ["苏霓", "许仙"]
    (entity,) = extraction.entities
    assert (entity.name, entity.type, entity.aliases) == ("苏霓", EntityType.OBJECT, ["霓霓"])


def test_no_member_takes_the_agents_name_from_an_llm_answer() -> None:
    """叫我祈煜 from 小黑, read by an LLM as his alias, teaches no alias even when the agent is silent in
    the fold: a member holding the agent's name would be found, and merged, as the agent."""
    fold = make_fold([("小黑", "以后叫我祈煜吧"), ("苏霓", "好的"), ("小黑", "叫我老K也行")], person=None, space="g1")
    said = answer(
        events=[event("小黑想被叫作祈煜。", ["m1"])],
        entities=[{"name": "小黑", "type": "person", "aliases": ["祈煜", "老K"]}],
    )
    (member,) = [e for e in entities_of(parse_extraction(said, fold), fold) if e.name == "小黑"]
    assert member.aliases == ["老K"]


def test_a_fact_s_description_about_another_member_is_not_kept_under_its_subject() -> None:
    """An answer with subject 我 on 陈大川's line and the description 木木住在火星 was stored as his own
    fact, 陈大川的属性：木木住在火星, past the hearsay mark a fact about another member gets (helper)."""
    fold = make_fold(
        [("陈大川", "我跟你们说个秘密"), ("木木", "什么秘密"), ("陈大川", "我住在火星")], person=None, space="g1"
    )
    said = answer(
        events=[event("陈大川说了个秘密。", ["m1", "m2", "m3"])],
        facts=[
            fact_item("我", "住在", "火星", ["m3"], description="木木住在火星"),
            fact_item("我", "住在", "火星基地", ["m3"], description="陈大川住在火星基地，木木也知道"),  # his name too
            fact_item("木木", "问了", "秘密", ["m2"], description="她问了是什么秘密"),  # no one else named
        ],
    )
    descriptions = [fact.description for fact in parse_extraction(said, fold).facts]
    assert descriptions == ["陈大川住在火星", "陈大川住在火星基地，木木也知道", "木木问了是什么秘密"]
    # the agent is no member to mislabel; an English name is a word of its own (helper's review)
    english = make_fold([("Bob", "I go to the annual meetup"), ("Ann", "nice")], person=None, space="g2")
    said = answer(
        events=[event("Bob goes to a meetup.", ["m1"])],
        facts=[
            fact_item("我", "会去", "聚会", ["m1"], description="每年都和祈煜聊起聚会"),
            fact_item("I", "goes to", "the annual meetup", ["m1"], description="Goes to the annual meetup"),
        ],
    )
    kept = [fact.description for fact in parse_extraction(said, english).facts]
    assert kept == ["每年都和祈煜聊起聚会", "Goes to the annual meetup"]


def test_a_third_person_pronoun_is_the_one_member_named_just_before_or_no_fact() -> None:
    """An answer with subject 他 was stored as it came: 他喜欢打篮球, about nobody by the next fold. 他 / she is
    the one member the line or the line before names; with none or two named, or 他们, no fact is kept."""
    aliases = {"陈大川": ["陈大川", "大川"], "周屿": ["周屿", "鱼哥"], "小雨": ["小雨"]}
    rows = [
        ("陈大川", "鱼哥是程序员"),
        ("陈大川", "他喜欢打篮球"),
        ("小雨", "鱼哥和大川都是杭州人"),
        ("小雨", "他住在西湖边"),
        ("陈大川", "今天好累"),
        ("陈大川", "她喜欢猫"),
        ("小雨", "他们周末去爬山"),
    ]
    fold = make_fold(rows, person=None, space="g1", aliases=aliases)
    said = answer(
        events=[event("大家聊了聊周屿。", ["m1", "m2"])],
        facts=[
            fact_item("他", "喜欢", "打篮球", ["m2"]),
            fact_item("他", "住在", "西湖边", ["m4"]),  # 鱼哥 and 大川 named: whom?
            fact_item("她", "喜欢", "猫", ["m6"]),  # nobody named
            fact_item("他们", "周末去", "爬山", ["m7"]),
            fact_item("小雨", "认识", "他", ["m2"], object_type="person"),
        ],
    )
    found = [(f.subject, f.object, f.description) for f in parse_extraction(said, fold).facts]
    assert found == [("周屿", "打篮球", "周屿喜欢打篮球"), ("小雨", "周屿", "小雨认识周屿")]
    english = make_fold(
        [("Bob", "Tom is my coworker"), ("Bob", "He loves hiking")],
        person=None,
        space="g2",
        aliases={"Tom": ["Tom"], "Bob": ["Bob"]},
        language="en",
    )
    said = answer(
        events=[event("Bob talked about Tom.", ["m1", "m2"])],
        facts=[fact_item("he", "loves", "hiking", ["m2"], description="He loves hiking")],
    )
    assert [(f.subject, f.description) for f in parse_extraction(said, english).facts] == [("Tom", "Tom loves hiking")]


@pytest.mark.parametrize("line", ["我哥明天来，他喜欢打篮球", "我碰到张伟了，他喜欢打篮球"])
def test_a_pronoun_after_someone_else_is_no_member_named_before(line: str) -> None:
    """鱼哥今天又迟到了, then 我哥明天来，他喜欢打篮球 was stored as 周屿喜欢打篮球: the brother (张伟) the line
    names is whom 他 likelier means, and nobody can tell, so no fact is kept."""
    aliases = {"陈大川": ["陈大川", "大川"], "周屿": ["周屿", "鱼哥"]}
    fold = make_fold([("陈大川", "鱼哥今天又迟到了"), ("陈大川", line)], person=None, space="g1", aliases=aliases)
    said = answer(events=[event("聊天。", ["m1", "m2"])], facts=[fact_item("他", "喜欢", "打篮球", ["m2"])])
    assert parse_extraction(said, fold).facts == []


def test_prompt_files_and_overrides(tmp_path: Path) -> None:
    for language in ("zh", "en"):
        prompt = load_prompt(language)
        assert "{{messages}}" in prompt.user and "<!--" not in prompt.system
        assert "{{agent}}" in prompt.system and "sources" in prompt.system
    (tmp_path / "extract_zh.md").write_text(
        "<!-- mine -->\n你替{{agent}}记事。\n<!-- user -->\n{{messages}}\n", encoding="utf-8"
    )

    class Recorder:
        def __init__(self) -> None:
            self.seen: list[list[dict[str, str]]] = []

        async def complete(self, messages: list[dict[str, str]]) -> str:
            raise AssertionError("not used")

        async def complete_json(
            self, messages: list[dict[str, str]], schema: dict[str, Any], schema_name: str
        ) -> dict[str, Any]:
            self.seen.append(messages)
            return answer(events=[event("木木看了电影。", ["m1"])])

    llm = Recorder()
    extractor: Extractor = LLMExtractor(llm, prompt_dir=tmp_path)
    asyncio.run(extractor.extract(SMALL))
    asyncio.run(extractor.extract(ENGLISH))  # no English file there: the packaged one
    assert llm.seen[0][0]["content"] == "你替祈煜记事。"
    assert llm.seen[0][1]["content"].startswith("[m1] 2023-05-10 14:30 周三 木木：")
    assert "faithful recorder" in llm.seen[1][0]["content"]
    assert asyncio.run(extractor.extract(make_fold([]))) == Extraction()
    assert len(llm.seen) == 2  # an empty fold costs no call
    with pytest.raises(ConfigError):
        LLMExtractor(llm, prompt_dir=tmp_path / "missing")


# --- the rule extractor --------------------------------------------------------------------------


def rules(fold: Fold) -> Extraction:
    return asyncio.run(RuleExtractor().extract(fold))


def assert_provenance(extraction: Extraction, fold: Fold) -> None:
    """Every message is in exactly one event, in order; facts cite messages of the fold."""
    ids = [m.id for m in fold.messages]
    assert [s for e in extraction.events for s in e.sources] == ids
    assert all(set(f.sources) <= set(ids) and f.sources for f in extraction.facts)


@pytest.mark.parametrize(
    ("said", "place"),
    [("我最近在学画画", ""), ("我在学英语", ""), ("我在学校等她", "学校"), ("我在南京大学图书馆", "南京大学图书馆")],
)
def test_rules_read_no_place_from_a_verb_after_zai(said: str, place: str) -> None:
    # 在学画画 is "learning to paint": jieba tags 学 a noun, and 学 alone is no school (大学, 学校 are)
    (event,) = rules(make_fold([("木木", said)])).events
    assert event.place == place


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("小鹿在上海给我发训练计划", ""),
        ("他在深圳上班，我们异地快一年了", ""),
        ("我妈在成都", ""),
        ("我表哥陈凯在深圳上班", ""),  # family the old list of 我妈/我哥 left out
        ("我舅舅在成都开了家店", ""),
        ("我的室友在北京实习", ""),
        ("她在学校等我", ""),
        ("我和小鹿在上海吃火锅", "上海"),
        ("我妈和我在成都", "成都"),
        ("其实我在上海", "上海"),
    ],
)
def test_rules_read_no_place_where_someone_else_is(said: str, place: str) -> None:
    # the place is where the talk happened: a friend in 上海 who sends a plan does not put the talk there
    (event,) = rules(make_fold([("木木", said)])).events
    assert event.place == place


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("考完想申请去英国读研", ""),
        ("我想在杭州买房", ""),
        ("以后有机会去日本玩", ""),
        ("我在杭州，想去英国读研", "杭州"),
        ("刚到北京，以后想在上海定居", "北京"),
    ],
)
def test_rules_read_no_place_from_a_wish(said: str, place: str) -> None:
    # the talk did not happen in 英国: only a place said before any wish in its clause is the event's
    (event,) = rules(make_fold([("木木", said)])).events
    assert event.place == place


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("Sarah thinks I should just move to Boston", ""),
        ("Congratulations to Emma!", ""),
        ("I talked to Jake about it", ""),
        ("We went to the Museum of Fine Arts today", "Museum of Fine Arts"),
        ("We flew to New York yesterday", "New York"),
        ("I'm in Boston now", "Boston"),
        ("My sister Emma lives in Boston so I can stay with her", ""),
        ("He is in Paris this week", ""),
        ("I'm quitting my job at Acme next Friday", ""),
        ("I'm working in Seattle this week", "Seattle"),
        ("Got back to Seattle last night", "Seattle"),
        ("Dinner with my mom at Nobu", "Nobu"),
        ("Me and Jake went to Miami", "Miami"),
    ],
)
def test_rules_read_an_english_place_gone_to_or_been_in_only(said: str, place: str) -> None:
    (event,) = rules(make_fold([("Mia", said)], agent="Kai", person="Mia", language="en")).events
    assert event.place == place


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("My flight landed in Boston an hour ago", "Boston"),
        ("My birthday dinner at Nobu was lovely", "Nobu"),
        ("My day at Disneyland was so much fun", "Disneyland"),
        ("Lunch was amazing at Nobu", "Nobu"),
        ("Today was great in Boston", "Boston"),
        ("My coworker Dave was at Nobu too", ""),
        ("My parents live in Ohio", ""),
    ],
)
def test_rules_keep_the_place_of_the_speakers_own_thing(said: str, place: str) -> None:
    # since e96938a any "my <word>" or capitalised word with a verb opened someone else's clause, so my flight
    # or Lunch was…: only a person (my sister, my coworker, Jake works…) is someone else
    (event,) = rules(make_fold([("Mia", said)], agent="Kai", person="Mia", language="en")).events
    assert event.place == place


def test_rules_on_a_chinese_private_chat() -> None:
    extraction = rules(PRIVATE)
    assert_provenance(extraction, PRIVATE)
    assert 2 <= len(extraction.events) <= 4
    first = extraction.events[0]
    assert first.text.startswith(
        "木木说：我昨天晚上八点（2023-05-09 20:00）和小明在南京大学图书馆看了《流浪地球》。祈煜说：好看吗？"
    )
    assert first.time == datetime(2023, 5, 9, 20, 0)  # the phrase, resolved against its message's time
    assert first.place == "南京大学图书馆"
    assert first.participants[:2] == ["木木", "祈煜"]
    assert "流浪地球" in first.keywords and "科幻电影" in first.keywords
    trip = next(e for e in extraction.events if "出差" in e.text)
    assert "下周三（2023-05-17）" in trip.text and trip.time == datetime(2023, 5, 17)
    assert trip.place == "北京" and "北京" in trip.keywords
    for ev in extraction.events:
        assert not {"木木", "木头", "祈煜"} & set(ev.keywords)  # names are no keywords
        assert "哈哈哈" not in ev.text  # fillers condensed or left out
        assert 0.0 <= ev.importance <= 0.9
    assert facts_of(extraction) >= {
        ("木木", "喜欢", "科幻电影"),
        ("木木", "养了", "猫"),
        ("咪咪", "是", "木木的猫"),
        ("木木", "职业是", "一名护士"),  # a job: a new one closes it (rules.jobs)
        ("木木", "工作于", "鼓楼医院"),
        ("木木", "年龄", "二十五岁"),
        ("木木", "不喜欢", "吃香菜"),
        ("木木", "喜欢", "祈煜"),  # 我喜欢你, in a private chat
    }
    assert not any(f.subject in ("我", "你") for f in extraction.facts)
    assert not any(f.sources == ["id9"] for f in extraction.facts)  # 你喜欢我吗？ is a question
    love = fact(extraction, "木木", "喜欢")
    assert love.kind is FactKind.PREFERENCE and love.subject_type is EntityType.OBJECT and love.sources == ["id2"]
    assert fact(extraction, "木木", "工作于").object_type is EntityType.SPECIFIC
    assert next(f for f in extraction.facts if f.object == "祈煜").object_type is EntityType.SUBJECT
    entities = {e.name: e for e in extraction.entities}
    assert entities["木木"].type is EntityType.OBJECT and entities["木木"].aliases == ["木头"]
    assert entities["祈煜"].type is EntityType.SUBJECT
    assert {"流浪地球", "南京大学", "小明", "咪咪", "北京", "鼓楼医院"} <= set(entities)
    assert entities["猫"].type is EntityType.GENERIC and entities["咪咪"].type is EntityType.SPECIFIC


def test_rules_on_a_group_chat() -> None:
    extraction = rules(GROUP)
    assert_provenance(extraction, GROUP)
    assert facts_of(extraction) == {
        ("许仙", "住在", "杭州"),
        ("苏霓", "讨厌", "下雨天"),
        ("群小草", "工作于", "腾讯"),
    }  # 我叫许仙 by 许仙 and 我是群小草 by 群小草 say nothing new; 他说我喜欢吃辣 is hearsay
    assert fact(extraction, "苏霓", "讨厌").sources == ["id1"]
    walk = next(e for e in extraction.events if "西湖" in e.text)
    assert "三天前（2023-05-07）" in walk.text and walk.time == datetime(2023, 5, 7)
    mention = next(e for e in extraction.events if "霓霓最近怎么没来" in e.text)
    assert "苏霓" in mention.participants and "群小草" in mention.participants  # 霓霓 is an alias of 苏霓
    assert all(not {"许仙", "苏霓", "霓霓", "群小草"} & set(e.keywords) for e in extraction.events)
    entities = {e.name: e for e in extraction.entities}
    assert entities["苏霓"].aliases == ["霓霓"] and entities["苏霓"].type is EntityType.OBJECT
    assert {"杭州", "西湖", "腾讯"} <= set(entities)
    assert "u2" not in entities and "霓霓" not in entities


def test_rules_on_an_english_chat() -> None:
    extraction = rules(ENGLISH)
    assert_provenance(extraction, ENGLISH)
    assert facts_of(extraction) == {
        ("anna", "lives in", "Seattle"),
        ("anna", "loves", "hiking in Yosemite"),
        ("anna", "has", "dog"),
        ("Biscuit", "is", "anna's dog"),
        ("anna", "works at", "Microsoft"),
        ("anna", "works as", "an engineer"),
        ("anna", "age", "29"),
    }
    assert fact(extraction, "anna", "loves").description == "anna loves hiking in Yosemite"
    assert fact(extraction, "anna", "has").description == "anna has a dog named Biscuit"
    hike = next(e for e in extraction.events if "Yosemite" in e.text)
    assert "last Saturday (2023-05-06)" in hike.text and hike.time == datetime(2023, 5, 6)
    assert hike.text.startswith("anna said: Hi! My name is Anna")
    assert {"Yosemite", "Biscuit"} <= {k for e in extraction.events for k in e.keywords}
    assert all(not {"anna", "Anna", "Bot"} & set(e.keywords) for e in extraction.events)
    entities = {e.name: e for e in extraction.entities}
    assert {"Seattle", "Yosemite", "Tom", "Biscuit", "Microsoft"} <= set(entities)
    assert entities["anna"].aliases == ["Anna"] and entities["dog"].type is EntityType.GENERIC
    assert conversation_language(ENGLISH.messages) == "en" and conversation_language(PRIVATE.messages) == "zh"


def test_rules_split_events_on_silence_and_skip_hypotheticals() -> None:
    fold = make_fold(
        [
            ("木木", "如果我是你，我会早点睡"),
            ("木木", "我爱吃火锅！"),
            ("祈煜", "嗯嗯"),
            ("木木", "我住在上海浦东", 180),  # three hours later
            ("木木", "我不是学生"),
        ]
    )
    extraction = rules(fold)
    assert [e.sources for e in extraction.events] == [["id0", "id1", "id2"], ["id3", "id4"]]
    assert facts_of(extraction) == {("木木", "爱", "吃火锅"), ("木木", "住在", "上海浦东")}
    assert extraction.events[1].time == T0 + timedelta(minutes=180)  # no time phrase: the message's time
    assert "嗯嗯" not in extraction.events[0].text
    feeling = extraction.events[0]
    assert feeling.importance > 0.3  # first-person fact and an exclamation
    assert rules(make_fold([])) == Extraction()


def test_rules_are_deterministic() -> None:
    for fold in (PRIVATE, GROUP, ENGLISH):
        first, second = rules(fold), RuleExtractor().extract_sync(fold)
        assert first == second


def test_keywords_and_the_idf_table() -> None:
    assert idf("我们") < idf("图书馆") < idf("这个词不在表里") == 11.0
    table = Path(__file__).parents[1] / "src" / "huiyi" / "data" / "idf_zh.txt"
    head = table.read_text(encoding="utf-8")[:3000]
    assert "MIT License" in head and "Sun Junyi" in head
    words = keywords(["木木说她昨天在南京大学图书馆借了一本《百年孤独》，图书馆真安静"], drop=["木木"])
    assert words[0] == "百年孤独" and "木木" not in words and "昨天" not in words
    assert keywords(["哈哈哈", "嗯嗯"]) == []


def test_an_events_keywords_are_what_the_people_said() -> None:
    """The agent's suggestion is in the event's text, but it keys nothing the person never said."""
    fold = make_fold(
        [("木木", "周末好无聊啊"), ("祈煜", "要不要试试瑜伽或者普拉提？"), ("木木", "算了，我还是在家打游戏吧")]
    )
    (event,) = rules(fold).events
    assert "瑜伽" in event.text and "无聊" in event.keywords
    assert not {"瑜伽", "普拉提"} & set(event.keywords)
    only_agent = make_fold([("祈煜", "早安，今天要去爬山吗？")])
    assert "爬山" in rules(only_agent).events[0].keywords  # nothing else to key by


def test_rules_docstring_example() -> None:
    result = doctest.testmod(keywords_module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_rules_end_to_end_through_memory(tmp_path: Path) -> None:
    """No LLM configured: a flushed chat still becomes events and facts that recall finds."""
    chat: list[dict[str, object]] = [
        {"text": "我昨天晚上八点去吃了海底捞", "time": T0},
        {"text": "好吃吗？", "role": "assistant", "time": T0 + timedelta(minutes=1)},
        {"text": "超好吃！我爱吃火锅", "time": T0 + timedelta(minutes=2)},
    ]
    config = Config(worker={"enabled": False})
    with Memory(tmp_path / "mem", embedder=HashEmbedder(32), extractor=RuleExtractor(), config=config) as memory:
        memory.add(chat, agent="祈煜", person="木木")
        memory.flush(agent="祈煜", person="木木")
        facts = memory.recall("火锅", agent="祈煜", person="木木", kinds=[MemoryKind.FACT]).hits
        assert [f.text for f in facts] == ["木木爱吃火锅"]
        events = memory.recall("海底捞", agent="祈煜", person="木木", kinds=[MemoryKind.EVENT]).hits
        assert events and events[0].time == datetime(2023, 5, 9, 20, 0)
        assert events[0].text.startswith("木木说：我昨天晚上八点（2023-05-09 20:00）去吃了海底捞。")


def test_a_common_word_opening_a_question_names_no_member() -> None:
    """A description that opens with "Will you…" in a group with a member called Will was taken to name Will
    and replaced by the bare triple; a common word that opens a sentence and asks of someone is that word.
    Will named as Will (Will is coming, Will's dog, …, Will, you…) still counts."""
    fold = make_fold(
        [("Bob", "Will you come to the hike on Sunday?"), ("Will", "maybe"), ("May", "ok")], person=None, space="g1"
    )
    descriptions = [
        "Will you come to the hike? Bob asked everyone",  # Bob is named: kept, as before
        "Will you come to the hike on Sunday?",
        "Hike on Sunday. May I bring snacks?",
        "Will is coming to the hike",
        "Will's dog is coming to the hike",
        "Will, you should come to the hike",
    ]
    said = answer(
        events=[event("Bob asks about the hike.", ["m1"])],
        facts=[
            fact_item("I", f"asks {at}", "the hike", ["m1"], description=description)
            for at, description in enumerate(descriptions)
        ],
    )
    kept = [fact.description for fact in parse_extraction(said, fold).facts]
    assert kept == [*descriptions[:3], *(f"Bob asks {at} the hike" for at in (3, 4, 5))]


def test_a_month_or_an_order_names_no_member() -> None:
    """A description "In May I will travel" in a group with a member called May was taken to name May and
    replaced by the bare triple, as was "Mark my words" with a member Mark; May and Mark said as names (May is
    coming, Mark's bike, ask Mark) still count."""
    fold = make_fold([("Bob", "In May I will travel"), ("May", "nice"), ("Mark", "ok")], person=None, space="g1")
    descriptions = [
        "In May I will travel",
        "Until June 5th I stay home. Mark my words",
        "May is coming along",
        "Mark's bike is coming along",
        "We will ask Mark",
    ]
    said = answer(
        events=[event("Bob tells of a trip.", ["m1"])],
        facts=[
            fact_item("I", f"plans {at}", "a trip", ["m1"], description=description)
            for at, description in enumerate(descriptions)
        ],
    )
    kept = [fact.description for fact in parse_extraction(said, fold).facts]
    assert kept == [*descriptions[:2], *(f"Bob plans {at} a trip" for at in (2, 3, 4))]


def test_a_member_after_a_word_of_when_is_still_named() -> None:
    """Since c89cf4c a name after from/by/before/until was read as a month: "I got a letter from May" and
    "Before May moved to Boston she lived in Austin" were kept as Bob's own facts in a group with May; a
    month said as one (in May, since May, the 5th of May) still names no one."""
    fold = make_fold([("Bob", "In May I will travel"), ("May", "nice"), ("June", "ok")], person=None, space="g1")
    descriptions = [
        "Since May, I have been working remotely",
        "On the 5th of May I fly",
        "I got a letter from May",
        "Before May moved to Boston she lived in Austin",
        "I wait until June arrives",
    ]
    said = answer(
        events=[event("Bob tells of a trip.", ["m1"])],
        facts=[
            fact_item("I", f"says {at}", "a thing", ["m1"], description=description)
            for at, description in enumerate(descriptions)
        ],
    )
    kept = [fact.description for fact in parse_extraction(said, fold).facts]
    assert kept == [*descriptions[:2], *(f"Bob says {at} a thing" for at in (2, 3, 4))]


def test_a_question_quoted_after_a_colon_names_no_member() -> None:
    """A description of Bob's question that names not Bob, "He asked: Will you come?", still named the member
    Will, as a colon was not read as opening what is asked; it was replaced by the bare triple (helper's review
    of d02413f)."""
    fold = make_fold([("Bob", "Will you come to the hike on Sunday?"), ("Will", "maybe")], person=None, space="g1")
    descriptions = ["He asked: Will you come to the hike?", "He asked everyone: “Will you come to the hike?”"]
    said = answer(
        events=[event("Bob asks about the hike.", ["m1"])],
        facts=[
            fact_item("I", f"asks {at}", "the hike", ["m1"], description=description)
            for at, description in enumerate(descriptions)
        ],
    )
    # its He is Bob, whose fact it is: a stored "He" is nobody's by the next fold
    assert [fact.description for fact in parse_extraction(said, fold).facts] == [
        description.replace("He", "Bob", 1) for description in descriptions
    ]


@pytest.mark.parametrize(
    ("rows", "language", "expected"),
    [
        (
            [("木木", "二面约在后天下午两点"), ("祈煜", "到时候我提醒你")],
            "zh",
            "木木说：二面约在后天下午两点（2023-05-12 14:00）。祈煜说：到时候我提醒你。",
        ),
        (
            [("木木", "二面约在后天下午两点"), ("木木", "紧张")],
            "zh",
            "木木说：二面约在后天下午两点（2023-05-12 14:00），紧张。",
        ),
        ([("木木", "他说“好的”"), ("祈煜", "那你同意了吗")], "zh", "木木说：他说“好的”。祈煜说：那你同意了吗。"),
        (
            [("Mia", "My interview is on Friday"), ("Kai", "I will remind you that morning")],
            "en",
            "Mia said: My interview is on Friday (2023-05-12). Kai said: I will remind you that morning.",
        ),
    ],
)
def test_rules_end_a_turn_whose_last_words_are_a_times_annotation(
    rows: list[tuple[str, str]], language: str, expected: str
) -> None:
    # the closing bracket of a time's annotation was taken for a stop: 两点（…）祈煜说 ran the turns on
    agent = "Kai" if language == "en" else "祈煜"
    person = "Mia" if language == "en" else "木木"
    (event,) = rules(make_fold(rows, agent=agent, person=person, language=language)).events
    assert event.text.startswith(expected)
