"""Rule extraction mistakes from a companion month (issue 13): a clause with its own subject is never the
speaker's, adjectives and furniture are no places, chat placeholders are no topics."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.flows.extract import Extraction
from huiyi.model import FactKind, Scope, ScopeKind
from huiyi.text import tokens
from huiyi.text.keywords import keywords
from rule_lines import extract_private

SCOPE = Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木")


def extract(*texts: str) -> Extraction:
    return extract_private(SCOPE, texts, datetime(2024, 11, 15, 20, 0))


def described(extraction: Extraction) -> set[str]:
    return {fact.description for fact in extraction.facts}


def test_a_named_pet_is_the_subject_of_the_next_clause() -> None:
    facts = described(extract("我家的猫叫团子，是一只橘猫"))
    assert "团子是一只橘猫" in facts and "木木养了一只猫，叫团子" in facts
    assert not any(fact.startswith("木木是") for fact in facts)


@pytest.mark.parametrize(
    "text",
    ["我妈是老师，在杭州教书", "我的室友叫小美，是四川人", "我家的狗狗叫豆豆，是柯基", "我男朋友在上海，是程序员"],
)
def test_a_clause_with_its_own_subject_is_not_the_speakers(text: str) -> None:
    # owning a pet and naming a roommate are the speaker's; what the pet or the roommate is, is not
    found = [fact for fact in extract(text).facts if fact.kind is not FactKind.RELATION]
    assert not any(fact.subject == "木木" and fact.predicate != "养了" for fact in found), described(extract(text))


def test_the_speakers_own_clauses_still_continue() -> None:
    facts = described(extract("我是护士，在鼓楼医院上班"))
    assert {"木木是护士", "木木在鼓楼医院工作"} <= facts


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("今天太冷了不想出门", ""),
        ("躺在床上刷手机", ""),
        ("手机放在桌子上了", ""),
        ("刚在西湖边跑完十公里", "西湖"),
        ("我在鼓楼医院上班", "鼓楼医院"),
        ("在公司楼下吃饭", "公司楼下"),
    ],
)
def test_places_are_places(text: str, place: str) -> None:
    assert extract(text).events[0].place == place


@pytest.mark.parametrize(
    ("text", "place"),
    [
        # jieba tags these ns / s; none of them is where anything happened
        ("芋泥波波，还是老样子，少糖", ""),
        ("午休中，吐槽一下公司食堂的饭", ""),
        ("前两天它偷吃了我掉在地上的鸡皮", ""),
        ("换了一座城市，第一晚有点睡不着", ""),
        ("我妈在家族群里发了三遍成绩", ""),
        ("狗粮还在路上，可乐要断粮了", ""),
        ("刚在网上看中一套两居，房租还便宜点", ""),
        ("他想要一个能在身边陪着他的人", ""),
        ("疼了一礼拜才好", ""),
        ("真的可以吗鸣哥！年后找你约档期", ""),
        # places still found: after a word that goes somewhere, or before one that points at a place
        ("下周一飞大阪，自由行十天", "大阪"),
        ("我就是怕它出事，它是我刚来上海那年捡的", "上海"),
        ("婚礼回湖州老家办", "湖州"),
        ("晨跑打卡，十公里，西湖边雾好大", "西湖"),
        ("周六我带你去之江路骑一圈", "之江路"),
        ("我在深圳上班", "深圳"),
        ("在星巴克写代码", "星巴克"),
    ],
)
def test_common_nouns_the_tagger_calls_places_are_not_places(text: str, place: str) -> None:
    assert extract(text).events[0].place == place


def test_chat_placeholders_are_never_topics() -> None:
    texts = [
        "[图片]",
        "[表情]哈哈哈",
        "今天去看了电影[图片]",
        "[图片][图片]好看",
        "[动画表情] [CQ:face,id=178] 电影真好看",
    ]
    assert keywords(texts, limit=5) == ["电影", "好看"]


def test_a_one_character_name_does_not_recut_the_text() -> None:
    # a pet "猫" kept whole as a name cut 猫叫 and 熊猫 around it
    before = tokens.words("agent0的猫叫团子")
    assert tokens.words("agent0的猫叫团子", names=["猫"]) == before == ["agent0", "的", "猫叫", "团子"]


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我在一家做跨境电商的公司做数据分析，天天跟表格打交道", "木木在一家做跨境电商的公司做数据分析"),
        ("来我们医院吧，我在古荡那家安心宠物医院做前台", "木木在古荡那家安心宠物医院做前台"),
        ("我在少年宫教小提琴，另外带几个学生", "木木在少年宫教小提琴"),
        ("我白天在一家做母婴App的公司画界面", "木木在一家做母婴App的公司画界面"),
        ("我在文一西路开了家小面馆，牛肉面是招牌", "木木在文一西路开了家小面馆"),
        ("我开花店的，在学院路上", "木木是开花店的"),
        ("我卖车的，天天陪客户试驾", "木木是卖车的"),
    ],
)
def test_what_people_do_for_a_living_is_a_fact(text: str, fact: str) -> None:
    assert fact in described(extract(text))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        # 我 left out, as people announce it in a chat
        (
            "各位，官宣一下：今天下午把离职申请交了，下个月去宁波一家做新能源车的公司，写车机系统",
            "木木换到宁波一家做新能源车的公司工作",
        ),
        ("我下个月跳槽到一家做游戏的公司", "木木换到一家做游戏的公司工作"),
        ("已经入职一家外贸公司了", "木木换到一家外贸公司工作"),
    ],
)
def test_a_move_to_a_new_workplace_is_a_job_fact(text: str, fact: str) -> None:
    found = [f for f in extract(text).facts if f.description == fact]
    assert found and found[0].predicate == "工作于", described(extract(text))


@pytest.mark.parametrize(
    "text",
    [
        "下午去一家医院看病",
        "我去一家咖啡店坐坐",
        "你下个月去一家新公司吗",
        "他下个月去一家新公司",
        "下午去公司拿个东西",
    ],
)
def test_going_somewhere_is_no_job_move(text: str) -> None:
    assert not any(f.keyword == "工作" for f in extract(text).facts), described(extract(text))


@pytest.mark.parametrize("text", ["我在家做饭", "我做饭的时候听歌", "我在公园散步"])
def test_doing_something_somewhere_is_no_job(text: str) -> None:
    assert not any(f.keyword == "工作" for f in extract(text).facts)
