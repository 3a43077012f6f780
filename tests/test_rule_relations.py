"""Relations between the speaker and someone named (seed 000 §三 关系): 我和小雨是室友, 小雨是我室友, Mia and
I are roommates are relation facts with the other person as object; no name, a negation, a question or a
supposition gives none."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.flows.extract import Extraction, Fold
from huiyi.flows.extract.closes import replaced
from huiyi.flows.extract.entities import entities_of
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import EntityType, FactKind, Message, Scope, ScopeKind

AGENT, PERSON = "祈煜", "木木"
SCOPE = Scope(agent=AGENT, kind=ScopeKind.PERSON, key=PERSON)
GROUP = Scope(agent=AGENT, kind=ScopeKind.SPACE, key="qq")


def fold_of(*said: tuple[str, str], scope: Scope = SCOPE) -> Fold:
    messages = [
        Message(
            id=f"m{i}",
            agent=AGENT,
            space=scope.space_id,
            scope=scope,
            speaker=speaker,
            role="assistant" if speaker == AGENT else "user",
            text=text,
            time=datetime(2024, 9, 30, 10, i),
        )
        for i, (speaker, text) in enumerate(said)
    ]
    person = PERSON if scope is SCOPE else None
    return Fold(agent=AGENT, space=scope.space_id, scope=scope, messages=messages, person=person)


def extract(text: str) -> Extraction:
    return RuleExtractor().extract_sync(fold_of((PERSON, text)))


def relations(text: str) -> set[tuple[str, str, str, str]]:
    return {
        (fact.subject, fact.predicate, fact.object, fact.description)
        for fact in extract(text).facts
        if fact.kind is FactKind.RELATION
    }


@pytest.mark.parametrize(
    ("text", "predicate", "other", "description"),
    [
        ("我和小雨是室友", "室友是", "小雨", "木木和小雨是室友"),
        ("我跟小雨是大学同学", "大学同学是", "小雨", "木木和小雨是大学同学"),
        ("小雨是我室友", "室友是", "小雨", "小雨是木木的室友"),
        ("小雨是我的好朋友", "好朋友是", "小雨", "小雨是木木的好朋友"),
        ("其实我和林晚晴是同事啦", "同事是", "林晚晴", "木木和林晚晴是同事"),
        ("小雨和我们是同事", "同事是", "小雨", "木木和小雨是同事"),
        ("Mia and I are roommates", "roommate is", "Mia", "木木 and Mia are roommates"),
        ("Mia is my roommate", "roommate is", "Mia", "Mia is 木木's roommate"),
        ("Oh, Mia and I are best friends.", "best friend is", "Mia", "木木 and Mia are best friends"),
    ],
)
def test_a_relation_to_someone_named_is_a_fact(text: str, predicate: str, other: str, description: str) -> None:
    assert relations(text) == {(PERSON, predicate, other, description)}


@pytest.mark.parametrize(
    ("text", "predicate", "other", "description"),
    [
        ("My manager Greg keeps changing the specs last minute", "manager is", "Greg", "Greg is 木木's manager"),
        ("my boss Dana yelled at me today", "boss is", "Dana", "Dana is 木木's boss"),
        ("Greg is my manager", "manager is", "Greg", "Greg is 木木's manager"),
        ("my supervisor's name is Ann", "supervisor is", "Ann", "Ann is 木木's supervisor"),
    ],
)
def test_the_one_over_the_speaker_at_work_named_is_a_fact(
    text: str, predicate: str, other: str, description: str
) -> None:
    """My manager Greg keeps changing the specs, said by Liz, was no fact: Greg's name came back in later talk
    with nothing to say who he is."""
    assert (PERSON, predicate, other, description) in relations(text)


@pytest.mark.parametrize(
    ("text", "predicate", "other", "description"),
    [
        ("我闺蜜叫小雨，我们大学就认识了", "闺蜜是", "小雨", "小雨是木木的闺蜜"),
        ("我的室友叫小美", "室友是", "小美", "小美是木木的室友"),
        ("我同事叫小王", "同事是", "小王", "小王是木木的同事"),
    ],
)
def test_a_peer_named_with_jiao_is_a_fact(text: str, predicate: str, other: str, description: str) -> None:
    """我闺蜜叫小雨 was no fact while 我妹妹叫小雨 and 我男朋友叫阿杰 were: who 小雨 is was lost."""
    assert relations(text) == {(PERSON, predicate, other, description)}


@pytest.mark.parametrize("text", ["我朋友叫我去吃饭", "我同事叫外卖了", "我闺蜜叫小雨吧", "我朋友叫什么来着"])
def test_a_peer_who_calls_or_orders_names_no_one(text: str) -> None:
    assert relations(text) == set()


@pytest.mark.parametrize(
    ("text", "predicate", "other", "description"),
    [
        ("我们组长叫王姐", "组长是", "王姐", "王姐是木木的组长"),
        ("我领导叫张伟，人挺好的", "领导是", "张伟", "张伟是木木的领导"),
        ("我们公司老板叫马东", "老板是", "马东", "马东是木木的老板"),
        ("我们班长叫小刚", "班长是", "小刚", "小刚是木木的班长"),
    ],
)
def test_the_one_over_the_speaker_named_with_jiao_is_a_fact(
    text: str, predicate: str, other: str, description: str
) -> None:
    """我们组长叫王姐 stored nothing while 我闺蜜叫小雨 did: who 王姐 is was lost."""
    assert relations(text) == {(PERSON, predicate, other, description)}


@pytest.mark.parametrize(
    "text",
    ["我老板叫我加班", "组长叫我去开会", "我们组长叫大家去开会", "我们老师叫我们明天交作业", "我领导叫周五交报告"],
)
def test_the_one_over_the_speaker_who_tells_to_names_no_one(text: str) -> None:
    assert relations(text) == set()


def test_managers_together_are_no_relation() -> None:
    assert relations("Greg and I are both managers") == set()


def test_the_other_is_an_entity_linked_by_the_fact() -> None:
    fold = fold_of((PERSON, "我和小雨是室友"))
    extraction = RuleExtractor().extract_sync(fold)
    (fact,) = extraction.facts
    assert (fact.subject_type, fact.object_type) == (EntityType.OBJECT, EntityType.SPECIFIC)
    assert fact.keyword == "人际"
    names = {entity.name: entity.type for entity in entities_of(extraction, fold)}
    assert names["小雨"] is EntityType.SPECIFIC
    assert replaced(extraction.facts, fold) == []  # a second roommate does not end the first


def test_a_member_of_the_group_keeps_their_type() -> None:
    fold = fold_of(("苏霓", "大家好"), ("林晚晴", "大家好"), ("林晚晴", "苏霓是我大学同学"), scope=GROUP)
    (fact,) = RuleExtractor().extract_sync(fold).facts
    assert (fact.subject, fact.object, fact.object_type) == ("林晚晴", "苏霓", EntityType.OBJECT)
    assert fact.description == "苏霓是林晚晴的大学同学"


@pytest.mark.parametrize(
    "text",
    [
        "我们是同事",  # nobody named
        "我们是同事，小雨也在",  # the name is in another clause
        "我和男朋友是大学同学",  # no name
        "他是我室友",  # a pronoun
        "我和小雨不是室友",  # a negation
        "小雨不是我室友",
        "我和小雨是室友吗",  # questions
        "小雨是我室友？",
        "如果我和小雨是室友就好了",  # suppositions and wishes
        "我和小雨是室友就好了",
        "他说小雨是我室友",  # someone else's words
        "我和小雨可能是室友",  # a guess
        "我和小雨是室友哈哈哈",  # laughed off
        "Mia and I aren't roommates",
        "Mia is not my roommate",
        "Is Mia my roommate?",
        "If Mia and I were roommates",
        "She is my roommate",
        "I think Mia is my roommate",
    ],
)
def test_no_relation_without_a_plain_statement_about_someone_named(text: str) -> None:
    assert relations(text) == set()


@pytest.mark.parametrize(
    ("text", "predicate", "other", "description"),
    [
        ("我妹妹叫小雨", "妹妹是", "小雨", "小雨是木木的妹妹"),
        ("我妹妹叫小雨，在读高三", "妹妹是", "小雨", "小雨是木木的妹妹"),
        ("林晚晴是我姐姐", "姐姐是", "林晚晴", "林晚晴是木木的姐姐"),
        ("我妈妈叫张丽，今年五十岁", "妈妈是", "张丽", "张丽是木木的妈妈"),
        ("我表哥陈凯在深圳上班", "表哥是", "陈凯", "陈凯是木木的表哥"),
        ("我妹妹小雨今天来看我了", "妹妹是", "小雨", "小雨是木木的妹妹"),
        ("My sister's name is Emma", "sister is", "Emma", "Emma is 木木's sister"),
        ("My mom is called Linda", "mom is", "Linda", "Linda is 木木's mom"),
    ],
)
def test_family_named_is_a_fact(text: str, predicate: str, other: str, description: str) -> None:
    """我妹妹叫小雨 and "my sister's name is Emma" were stored as nothing but their event: "Emma is my sister" was a
    fact, and in Chinese the partner and the roommate, family none."""
    assert relations(text) == {(PERSON, predicate, other, description)}


@pytest.mark.parametrize(
    "text",
    [
        "My sister's name is Emma?",
        "My friend's name is hard to spell",
        "my sister is named after my grandma",
        "我妈叫我回家吃饭",
        "我奶奶叫我小宝",
        "她是我妈",
        "你是我爸爸",
        "陈凯是我表哥吗",
        "小雨是我妹妹的同学",
        "小雨不是我妹妹",
    ],
)
def test_no_family_fact_without_a_name_said_as_such(text: str) -> None:
    assert relations(text) == set()


@pytest.mark.parametrize(
    "text",
    [
        "我儿子叫爸爸了",  # he said it: 爸爸 was 木木's son
        "我妹妹叫哥哥",
        "我哥叫爽",
        "明天是我爸",  # who comes then: 明天 was 木木's dad
        "周末是我妈",
        "明天是我男朋友",
        "my dad is called Dad",
        "My mom is called Mama",
    ],
)
def test_no_family_fact_for_a_word_that_is_no_name(text: str) -> None:
    assert relations(text) == set()


def test_a_name_that_looks_like_a_time_word_is_still_a_name() -> None:
    assert relations("我妹妹叫明明") == {(PERSON, "妹妹是", "明明", "明明是木木的妹妹")}


@pytest.mark.parametrize(
    ("text", "name", "kin"), [("我女儿叫夏天", "夏天", "女儿"), ("我男朋友叫做明天", "明天", "男朋友")]
)
def test_a_time_word_said_after_jiao_is_a_name(text: str, name: str, kin: str) -> None:
    """929b15a took any word read whole as a time for no name, so 我女儿叫夏天 (夏 a surname) lost the daughter;
    明天是我爸 is who comes then, but after 叫 the word names someone."""
    assert relations(text) == {(PERSON, f"{kin}是", name, f"{name}是木木的{kin}")}


@pytest.mark.parametrize("text", ["my manager Tuesday asked me to stay late", "my sister Friday came over"])
def test_a_day_after_one_at_work_or_kin_is_no_name(text: str) -> None:
    # "my manager Tuesday asked me to stay late" made Tuesday 木木's manager
    assert relations(text) == set()
