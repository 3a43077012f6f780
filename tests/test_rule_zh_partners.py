"""Partners said in Chinese on the rule path (no LLM): 陈屿是我男朋友, 我男朋友叫陈屿, 我有新男朋友了，叫陈屿 name
the speaker's partner, one at a time (a new one closes the old one, whatever word either was said with);
我和阿杰分手了, 阿杰把我甩了, 我们分手了 (of the partner known) close the partner fact naming him and are a 分手
fact; 前男友阿杰 is a past tie. Questions, suppositions, negations, other people's partners and a fan's 我老公
彭于晏 name nobody's partner."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract import Extraction, Fold
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import FactKind, Message, Scope, ScopeKind
from huiyi.providers.embed import HashEmbedder
from rule_lines import extract_private

AGENT, PERSON = "祈煜", "木木"
SCOPE = Scope(agent=AGENT, kind=ScopeKind.PERSON, key=PERSON)
MONDAY = datetime(2024, 11, 4, 10, 0)


def extract(*texts: str) -> Extraction:
    return extract_private(SCOPE, texts, MONDAY)


def ties(*texts: str) -> set[tuple[str, str, str]]:
    """(predicate, object, description) of the speaker's relation facts."""
    return {
        (fact.predicate, fact.object, fact.description)
        for fact in extract(*texts).facts
        if fact.kind is FactKind.RELATION and fact.subject == PERSON
    }


@pytest.mark.parametrize(
    ("text", "predicate", "other"),
    [
        ("陈屿是我男朋友", "男朋友", "陈屿"),
        ("其实陈屿是我的男朋友啦", "男朋友", "陈屿"),
        ("我男朋友叫陈屿", "男朋友", "陈屿"),
        ("我对象叫阿杰", "对象", "阿杰"),
        ("我的女朋友叫小雨", "女朋友", "小雨"),
        ("我老公叫王磊", "老公", "王磊"),
        ("我未婚夫叫陈屿", "未婚夫", "陈屿"),
        ("我男朋友陈屿", "男朋友", "陈屿"),
        ("我男朋友陈屿今天来看我了", "男朋友", "陈屿"),
        ("我交了个男朋友叫陈屿", "男朋友", "陈屿"),
    ],
)
def test_a_partner_named_is_the_speakers_partner(text: str, predicate: str, other: str) -> None:
    assert ties(text) == {(f"{predicate}是", other, f"{other}是木木的{predicate}")}


@pytest.mark.parametrize(
    ("text", "predicate"),
    [("我有新男朋友了，叫陈屿", "男朋友"), ("我交了个女朋友，她叫陈屿", "女朋友"), ("我有对象了！他叫陈屿", "对象")],
)
def test_a_new_partner_named_in_the_next_clause_is_one(text: str, predicate: str) -> None:
    assert ties(text) == {(f"{predicate}是", "陈屿", f"陈屿是木木的{predicate}")}


def test_what_follows_a_partners_name_is_not_the_speakers() -> None:
    assert ties("我有新男朋友了，叫陈屿，在杭州上班") == {("男朋友是", "陈屿", "陈屿是木木的男朋友")}


@pytest.mark.parametrize(
    ("text", "predicate"),
    [("我前男友叫阿杰", "前男友"), ("阿杰是我前任", "前任"), ("我前男友阿杰今天结婚了", "前男友")],
)
def test_an_ex_is_a_past_tie_not_a_partner(text: str, predicate: str) -> None:
    assert ties(text) == {(f"{predicate}是", "阿杰", f"阿杰是木木的{predicate}")}


@pytest.mark.parametrize(
    "text",
    [
        "你有男朋友吗",  # questions
        "我有男朋友吗？",
        "陈屿是我男朋友吗",
        "我男朋友叫陈屿？",
        "要是我有男朋友就好了",  # suppositions and wishes
        "要是我男朋友叫陈屿就好了",
        "如果陈屿是我男朋友",
        "我没有男朋友",  # negations
        "我还没有男朋友",
        "陈屿不是我男朋友",
        "我男朋友不叫陈屿",
        "小美的男朋友叫陈屿",  # someone else's partner
        "我闺蜜的男朋友叫陈屿",
        "陈屿是小美的男朋友",
        "他说陈屿是我男朋友",
        "我老公彭于晏",  # a fan's idol
        "彭于晏是我老公",
        "我老公彭于晏又上热搜了",
        "我老婆迪丽热巴",
        "我男朋友叫陈屿哈哈哈",  # laughed off, taken back
        "陈屿是我男朋友，开玩笑的",
        "他是我男朋友",  # nobody named
        "我男朋友很帅",
        "我有男朋友了",
        "我男朋友张口就来",
        "陈屿曾经是我男朋友",  # past, to come, a guess
        "陈屿以前是我男朋友",
        "陈屿会是我男朋友",
        "陈屿是我男朋友吧",
        "我男朋友可能叫陈屿",
        "你是我男朋友",  # play with the agent
        "我梦到陈屿是我男朋友",
    ],
)
def test_no_partner_of_the_speaker_without_a_plain_statement(text: str) -> None:
    assert ties(text) == set()


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("我和阿杰分手了", "分手"),
        ("我跟阿杰分了", "分手"),
        ("阿杰把我甩了", "分手"),
        ("我昨天和阿杰正式分手了", "分手"),
        ("我和阿杰离婚了", "离婚"),
        ("我们分手了", "分手"),
        ("我和男朋友分手了", "分手"),
        ("我和阿杰分手三个月了", "分手"),
        ("我和阿杰分开了", "分手"),
    ],
)
def test_a_breakup_closes_the_partner_named_and_is_a_fact(text: str, predicate: str) -> None:
    extraction = extract("阿杰是我男朋友", text)
    (parted,) = [fact for fact in extraction.facts if fact.predicate == predicate]
    assert (parted.subject, parted.object, parted.description) == (PERSON, "阿杰", f"木木和阿杰{predicate}了")
    assert ("男朋友是", "阿杰") in {(close.predicate, close.word) for close in extraction.closes}


@pytest.mark.parametrize(
    "text",
    [
        "我和阿杰差点分手了",  # a near miss
        "我和阿杰要分手了",
        "我和阿杰分手了吗",  # a question
        "我们分手了？",
        "要是我和阿杰分手了怎么办",  # a supposition
        "我觉得我们要分手了",
        "我和阿杰没分手",  # a negation
        "我们没有分手",
        "我们分手吧",  # a proposal
        "小美和阿杰分手了",  # someone else's
        "他说我和阿杰分手了",
        "我和阿杰分手了哈哈哈",  # laughed off
        "我和他分手了",  # of whom?
        "我和小美掰了",  # friends fall out and part too
        "我和小美分开了",
        "我们分开了",
    ],
)
def test_no_breakup_from_a_near_miss_a_question_or_someone_elses(text: str) -> None:
    extraction = extract("阿杰是我男朋友", text)
    assert not [fact for fact in extraction.facts if fact.predicate in ("分手", "离婚")]
    assert not [close for close in extraction.closes if close.word == "阿杰"]


def test_we_broke_up_with_no_partner_known_is_nothing() -> None:
    extraction = extract("我们分手了")
    assert (extraction.facts, extraction.closes) == ([], [])


def test_we_broke_up_parts_from_the_newest_partner() -> None:
    extraction = extract("我男朋友叫阿杰", "我有新男朋友了，叫陈屿", "我和我男朋友分手了")
    assert [fact.description for fact in extraction.facts if fact.predicate == "分手"] == ["木木和陈屿分手了"]


def test_we_broke_up_in_a_group_is_not_parting_from_another_members_partner() -> None:
    group = Scope(agent=AGENT, kind=ScopeKind.SPACE, key="qq")
    messages = [
        Message(
            id=f"g{i}",
            agent=AGENT,
            space=group.space_id,
            scope=group,
            speaker=speaker,
            role="user",
            text=text,
            time=MONDAY + timedelta(minutes=i),
            seq=i,
        )
        for i, (speaker, text) in enumerate([("小雨", "阿杰是我男朋友"), ("小美", "我们分手了")])
    ]
    fold = Fold(agent=AGENT, space=group.space_id, scope=group, messages=messages)
    extraction = RuleExtractor().extract_sync(fold)
    assert [fact.description for fact in extraction.facts] == ["阿杰是小雨的男朋友"]
    assert not [close for close in extraction.closes if close.subject == "小美" or close.word]


def remembered(tmp_path: Path, *texts: str) -> dict[str, datetime | None]:
    """The facts of the person, each with its valid_to, after each text is said a day apart in its own fold."""
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    last = MONDAY + timedelta(days=len(texts) - 1)
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: last) as memory:
        for i, text in enumerate(texts):
            when = MONDAY + timedelta(days=i)
            memory.add([{"id": f"m{i}", "text": text, "time": when}], agent=AGENT, person=PERSON, index=True)
            memory.flush(agent=AGENT, person=PERSON)
        return {f.text: f.valid_to for f in memory.memories(agent=AGENT, person=PERSON, kinds=["fact"])}


def test_a_new_partner_closes_the_old_one(tmp_path: Path) -> None:
    assert remembered(tmp_path, "我男朋友叫阿杰", "我有新男朋友了，叫陈屿") == {
        "阿杰是木木的男朋友": MONDAY + timedelta(days=1),
        "陈屿是木木的男朋友": None,
    }


def test_a_new_partner_said_with_another_word_closes_the_old_one(tmp_path: Path) -> None:
    assert remembered(tmp_path, "我对象叫阿杰", "陈屿是我男朋友") == {
        "阿杰是木木的对象": MONDAY + timedelta(days=1),
        "陈屿是木木的男朋友": None,
    }


@pytest.mark.parametrize("text", ["我和阿杰分手了", "我们分手了"])
def test_a_breakup_said_later_closes_the_stored_partner(tmp_path: Path, text: str) -> None:
    assert remembered(tmp_path, "我男朋友叫阿杰", text) == {
        "阿杰是木木的男朋友": MONDAY + timedelta(days=1),
        "木木和阿杰分手了": None,
    }


def test_an_ex_named_is_no_partner_any_more(tmp_path: Path) -> None:
    assert remembered(tmp_path, "阿杰是我男朋友", "我前男友阿杰今天结婚了") == {
        "阿杰是木木的男朋友": MONDAY + timedelta(days=1),
        "阿杰是木木的前男友": None,
    }


@pytest.mark.parametrize("text", ["我老公彭于晏", "彭于晏是我老公", "我和阿杰差点分手了", "我们没分手"])
def test_a_fans_idol_or_a_near_miss_closes_no_partner(tmp_path: Path, text: str) -> None:
    facts = remembered(tmp_path, "阿杰是我男朋友", text)
    assert facts["阿杰是木木的男朋友"] is None
    assert set(facts) == {"阿杰是木木的男朋友"}
