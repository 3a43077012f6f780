"""A move said in the first person is a fact that ends the old one (issue 13, companion changed-fact): 今天正式
搬到杭州了 is where the speaker lives now, 拿到offer了 with its workplace is their job, and each closes the
speaker's open fact of the same kind said before. Plans of a move (下个月搬去杭州) are not read as done."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract import Extraction, Fold
from huiyi.flows.extract.closes import to_close
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import FactData, MemoryItem, MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder
from rule_lines import private_fold

SCOPE = Scope.of_person("祈煜", "木木")
T0 = datetime(2024, 4, 5, 22, 0)


def fold(*texts: str) -> Fold:
    return private_fold(SCOPE, texts, T0)


def extract(*texts: str) -> Extraction:
    return RuleExtractor().extract_sync(fold(*texts))


def facts(extraction: Extraction, predicate: str) -> list[tuple[str, str]]:
    return [(f.subject, f.object) for f in extraction.facts if f.predicate == predicate]


def test_a_move_done_is_where_one_lives_now() -> None:
    assert facts(extract("今天正式搬到杭州了，东西都是朋友帮忙搬的"), "住在") == [("木木", "杭州")]
    assert facts(extract("我上个月搬到了文三路"), "住在") == [("木木", "文三路")]
    # still ahead, asked, someone else's, or a thing moved: no home
    for text in (
        "下个月搬去杭州",
        "我要搬到杭州了",
        "这周六我搬家，搬去未来科技城那边",
        "你搬到杭州了吗？",
        "桃子搬到杭州了",
        "我把沙发搬到客厅了",
    ):
        assert facts(extract(text), "住在") == [], text


def test_an_offer_names_the_new_job_in_its_clause_or_the_next() -> None:
    assert facts(extract("拿到offer了！！杭州那家游戏公司，剧情文案策划，四月八号入职！"), "工作于") == [
        ("木木", "杭州那家游戏公司")
    ]
    assert facts(extract("我终于拿到字节的offer了"), "工作于") == [("木木", "字节")]
    # an offer with no workplace said, or a workplace with no offer before it: nothing
    assert facts(extract("拿到offer了！！好开心"), "工作于") == []
    assert facts(extract("今天去了杭州那家游戏公司，环境不错"), "工作于") == []
    assert facts(extract("你拿到offer了吗？杭州那家游戏公司"), "工作于") == []


def old(predicate: str, text: str, source: str) -> MemoryItem:
    return MemoryItem(
        id=f"fa_{source}",
        scope=SCOPE,
        kind=MemoryKind.FACT,
        text=text,
        time=T0 - timedelta(days=30),
        sources=[source],
        data=FactData(subject="木木", predicate=predicate, object=text).into({"space": SCOPE.space_id}),
    )


def test_a_move_closes_the_old_home_and_only_it() -> None:
    moving = fold("今天正式搬到杭州了")
    extraction = RuleExtractor().extract_sync(moving)
    home, job = old("住在", "木木住在上海", "x1"), old("工作于", "木木在上海一家广告公司工作", "x2")
    changes = to_close([home, job], extraction.closes, moving)
    assert [(fid, change["valid_to"]) for fid, change in changes] == [("fa_x1", T0)]
    # a job taken closes the old job, not the home
    taking = fold("拿到offer了！！杭州那家游戏公司")
    changes = to_close([home, job], RuleExtractor().extract_sync(taking).closes, taking)
    assert [fid for fid, _ in changes] == ["fa_x2"]
    # saying where one lives without moving closes nothing
    assert RuleExtractor().extract_sync(fold("我住在杭州")).closes == []


@pytest.mark.parametrize(
    ("first", "then", "closed", "kept"),
    [
        ("我26岁，在杭州当产品经理", "说错了，我27岁", "木木今年26岁", "木木今年27岁"),
        ("我生日是3月5号", "不对，我生日是3月6号", "木木的生日是3月5号", "木木的生日是3月6号"),
        ("I'm 26 years old", "Sorry, I'm 27 years old", "木木 is 26 years old", "木木 is 27 years old"),
    ],
)
def test_a_corrected_age_or_birthday_closes_the_old_one_as_it_is_said(
    tmp_path: Path, first: str, then: str, closed: str, kept: str
) -> None:
    """Both ages stayed open until the hourly consolidation, and the bot said the wrong one first."""
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=2)) as memory:
        for i, text in enumerate((first, then)):
            memory.add({"id": f"m{i}", "text": text, "time": T0 + timedelta(days=i)}, agent="祈煜", person="木木")
            memory.flush(agent="祈煜", person="木木")
        facts = {f.text: f.valid_to for f in memory.memories(agent="祈煜", person="木木", kinds=["fact"])}
    assert facts[closed] == T0 + timedelta(days=1) and facts[kept] is None
