"""How people type in Chinese chats, read right on the rule path (no LLM): a space where a comma would be
(我不吃香菜 以后别推荐), a supposition whose later clauses drop their 我 (如果我是富婆，我就…，养十只猫),
a couple told without a partner word (我和陈屿在一起了), a pet named in passing (我家猫团子在催我喂饭了) and
two lines said in the same minute (a minute-resolution clock): found with a companion's month of chat.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import Scope, ScopeKind
from huiyi.providers.embed import HashEmbedder
from rule_lines import extract_private

AGENT, PERSON = "祈煜", "小满"
SCOPE = Scope(agent=AGENT, kind=ScopeKind.PERSON, key=PERSON)
MONDAY = datetime(2025, 1, 6, 21, 0)


def facts(*texts: str) -> set[str]:
    return {fact.description for fact in extract_private(SCOPE, texts, MONDAY).facts}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我不吃香菜 以后别推荐", {"小满不吃香菜"}),
        ("最近戒奶茶了 太胖了 现在改喝美式了", {"小满戒了奶茶", "小满喜欢喝美式"}),
        ("跟你说 我男朋友阿杰今天送我花了", {"阿杰是小满的男朋友"}),
        ("我喜欢 周杰伦", {"小满喜欢周杰伦"}),  # a space after a verb waiting for its object is no comma
    ],
)
def test_a_space_between_chinese_clauses_parts_them_as_a_comma(text: str, expected: set[str]) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我在杭州 工作", {"小满在杭州工作"}),
        ("我对花生 过敏", {"小满对花生过敏"}),
        ("我最喜欢的动物 是猫", set()),  # not 小满是猫
        ("小雨刚才说 我男朋友叫周航", set()),  # her words, not the speaker's
        ("小雨说 我住在滨江", set()),
    ],
)
def test_a_space_inside_a_clause_or_after_someone_s_words_parts_nothing(text: str, expected: set[str]) -> None:
    assert facts(text) == expected


def test_a_space_after_an_at_mention_stays_the_mentions_end() -> None:
    from huiyi.flows.extract.rules.said import spaces_as_commas

    assert spaces_as_commas("@小助手 今天天气怎么样") == "@小助手 今天天气怎么样"


@pytest.mark.parametrize(
    "text",
    ["如果我是富婆，我就天天躺平，养十只猫", "要是我有钱，我就搬到三亚", "假如我是男生，我一定喜欢打篮球"],
)
def test_what_follows_a_supposition_is_supposed_too(text: str) -> None:
    assert facts(text) == set()


def test_a_supposed_place_is_not_where_the_talk_happened() -> None:
    extraction = extract_private(SCOPE, ("要是我中了彩票，我就住在三亚",), MONDAY)
    assert [event.place for event in extraction.events] == [""]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我住在杭州，万一你来可以找我", "小满住在杭州"),  # before it
        ("万一堵车怎么办。我住在滨江", "小满住在滨江"),  # another sentence
        ("要是能放假就好了。我在腾讯上班", "小满在腾讯工作"),
        ("如果你们要来杭州玩，可以找我，我住在西湖区", "小满住在西湖区"),  # said of oneself, no 就/会
        ("主要是太远了，我住在滨江", "小满住在滨江"),  # 要是 inside 主要是 supposes nothing
        ("千万一定要来啊，我住在滨江", "小满住在滨江"),
        ("昨晚梦到考试了，吓醒，我是老师", "小满是老师"),
    ],
)
def test_what_a_supposition_does_not_reach_is_still_read(text: str, expected: str) -> None:
    assert facts(text) == {expected}


@pytest.mark.parametrize("text", ["我和陈屿在一起了", "我跟陈屿正式在一起啦", "我和陈屿在一起了！[爱心]"])
def test_a_couple_told_without_a_partner_word_is_a_partner(text: str) -> None:
    assert facts(text) == {"陈屿是小满的对象"}


@pytest.mark.parametrize(
    "text",
    [
        "我和陈屿没在一起",
        "我和我妈在一起了",
        "我和妈妈在一起了",
        "我和同事在一起吃饭",
        "我和陈屿在一起了吗",
        "我跟小明在一起了 在网吧开黑",  # where they are
        "我和陈屿在一起三年了，上个月分手了",  # a couple once
        "我和陈屿在一起了 骗你们的",
        "小雨说 我和阿杰在一起了",
    ],
)
def test_together_names_no_partner_denied_asked_or_not_a_couple(text: str) -> None:
    assert facts(text) == set()


@pytest.mark.parametrize(
    ("text", "pet"),
    [("我家猫团子在催我喂饭了", "团子是小满的猫"), ("我家的狗豆豆今天生病了", "豆豆是小满的狗")],
)
def test_a_pet_named_right_after_its_kind_is_a_pet(text: str, pet: str) -> None:
    assert pet in facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "我家猫今天又拆家",
        "我家猫咪真的好可爱",
        "我家猫生病了",
        "我养了它四年 是只橘猫",
        "我家狗绳子又断了",
        "我家猫砂盆又在漏",
        "我家猫妈妈又生了一窝",
        "我家猫头鹰又叫了",
    ],
)
def test_no_pet_named_by_a_time_an_adverb_a_verb_or_it(text: str) -> None:
    """The cat of 我家猫今天又拆家 is the speaker's pet, and has no name."""
    assert facts(text) <= {"小满养了一只猫"}


def _closed_homes(*texts: str) -> list[tuple[str, str]]:
    closes = extract_private(SCOPE, texts, MONDAY).closes
    return [(close.subject, close.word) for close in closes if close.predicate == "住在"]


@pytest.mark.parametrize("text", ["搬完家了！累瘫 新家能看到钱塘江", "终于搬好家了", "我们今天搬新家啦"])
def test_a_move_done_with_no_place_named_ends_the_old_home(text: str) -> None:
    assert _closed_homes(text) == [(PERSON, "")]


@pytest.mark.parametrize(
    "text",
    [
        "你搬完家了吗",
        "要是搬完家了就好了",
        "箱子搬完了",
        "他搬完家了",
        "我想搬家了",
        "周末搬新家，好期待",  # still to come
        "搬完家了 再说",
        "搬完家了 哈哈 假的",
    ],
)
def test_no_home_ends_by_a_question_a_wish_someone_elses_move_or_boxes(text: str) -> None:
    assert _closed_homes(text) == []


def _memory(path: Path) -> Memory:
    return Memory(path, config=Config(recall={"reinforce": False}), embedder=HashEmbedder(64))


def _open_facts(memory: Memory) -> dict[str, bool]:
    return {
        item.text: item.valid_to is None for item in memory.iter_memories(agent=AGENT, person=PERSON, kinds=["fact"])
    }


def test_a_pet_named_in_passing_is_mourned_by_name(tmp_path: Path) -> None:
    with _memory(tmp_path) as memory:
        for minutes, text in enumerate(["我家猫团子在催我喂饭了", "团子今天早上走了", "我养了它四年 是只橘猫"]):
            memory.add({"text": text, "time": MONDAY + timedelta(days=minutes)}, agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=True)
        found = _open_facts(memory)
    assert found.get("团子是小满的猫") is False  # closed by the death
    assert any("团子去世" in text and still for text, still in found.items())


def test_the_home_before_a_move_told_without_its_place_is_closed(tmp_path: Path) -> None:
    lines = ["我住在文三路，离公司就两站地铁", "新公司在滨江 我打算搬到滨江去住", "搬完家了！累瘫 新家能看到钱塘江"]
    with _memory(tmp_path) as memory:
        for days, text in enumerate(lines):
            memory.add({"text": text, "time": MONDAY + timedelta(days=20 * days)}, agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=True)
        assert _open_facts(memory) == {"小满住在文三路": False}


@pytest.mark.parametrize(
    ("before", "after", "old", "new"),
    [
        ("我超爱喝奶茶", "我戒奶茶了", "小满爱喝奶茶", "小满戒了奶茶"),
        ("我男朋友叫阿杰", "我和陈屿在一起了", "阿杰是小满的男朋友", "陈屿是小满的对象"),
    ],
)
def test_two_lines_said_in_the_same_minute_go_by_their_order(
    tmp_path: Path, before: str, after: str, old: str, new: str
) -> None:
    with _memory(tmp_path) as memory:
        for text in (before, after):  # a clock of minutes: both at 21:00
            memory.add({"text": text, "time": MONDAY}, agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=True)
        found = _open_facts(memory)
    assert found[old] is False and found[new] is True
