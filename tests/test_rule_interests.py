"""What the speaker is into lately, a work named in 《》 (我最近在看《漫长的季节》): stored nothing, so a later
你最近在看什么 found only the event; now it is a preference of now."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import FactKind, Scope
from rule_lines import extract_group, extract_private

SCOPE = Scope.of_person("bot", "木木")
START = datetime(2025, 9, 20, 10)


def facts(*texts: str) -> set[tuple[str, str, str, str]]:
    return {
        (fact.subject, fact.predicate, fact.object, fact.description)
        for fact in extract_private(SCOPE, texts, START, "zh").facts
    }


@pytest.mark.parametrize(
    ("text", "predicate", "title"),
    [
        ("我最近在看《漫长的季节》", "最近在看", "《漫长的季节》"),
        ("我最近在看《漫长的季节》，太好看了", "最近在看", "《漫长的季节》"),
        ("我在追《繁花》", "最近在追", "《繁花》"),
        ("这阵子我在读《三体》", "最近在读", "《三体》"),
        ("我最近在玩《黑神话：悟空》", "最近在玩", "《黑神话：悟空》"),
        ("我正在二刷《甄嬛传》第三集了", "最近在二刷", "《甄嬛传》"),
    ],
)
def test_a_work_the_speaker_is_into_is_a_fact(text: str, predicate: str, title: str) -> None:
    found = extract_private(SCOPE, (text,), START, "zh").facts
    assert {(f.subject, f.predicate, f.object, f.description) for f in found} == {
        ("木木", predicate, title, f"木木{predicate}{title}")
    }
    assert found[0].kind is FactKind.PREFERENCE


@pytest.mark.parametrize(
    "text",
    [
        "我在看电视",  # what one does this minute, no title
        "我在玩手机",
        "我在看《繁花》的时候哭了",  # about then
        "我想看《繁花》",  # a wish
        "我没在看《繁花》",
        "我妈最近在追《繁花》",  # someone else's
        "他最近在看《繁花》",
        "你在看《繁花》吗",
    ],
)
def test_no_interest_without_the_speaker_into_a_title_now(text: str) -> None:
    assert facts(text) == set()


def test_a_liking_stays_as_it_was() -> None:
    assert facts("我喜欢看《漫长的季节》") == {("木木", "喜欢", "看《漫长的季节》", "木木喜欢看《漫长的季节》")}


@pytest.mark.parametrize(
    ("text", "predicate", "title"),
    [
        ("最近在追《繁花》", "最近在追", "《繁花》"),  # 我 left out: the private chat says whose
        ("我最近在追《繁花》呢", "最近在追", "《繁花》"),  # a 呢 of a work one is in the middle of asks nothing
        ("最近在看《漫长的季节》呢", "最近在看", "《漫长的季节》"),
        ("我在追剧《繁花》", "最近在追", "《繁花》"),  # the kind of work before its title
        ("最近在追番《葬送的芙莉莲》", "最近在追", "《葬送的芙莉莲》"),
        ("我最近在追《繁花》这部剧", "最近在追", "《繁花》"),  # …or after it
        ("这阵子在读《三体》，挺上头的", "最近在读", "《三体》"),
        ("我在听《那么多年》呢", "最近在听", "《那么多年》"),  # a title's 么 asks nothing
    ],
)
def test_a_work_said_without_me_or_with_a_closing_ne_is_the_speakers(text: str, predicate: str, title: str) -> None:
    assert facts(text) == {("木木", predicate, title, f"木木{predicate}{title}")}


def test_a_work_right_after_a_clause_of_the_speakers_is_theirs() -> None:
    assert ("木木", "最近在追", "《繁花》", "木木最近在追《繁花》") in facts("我辞职了，这阵子在追《繁花》")


@pytest.mark.parametrize(
    "text",
    [
        "你最近在追什么剧？",  # asks the bot
        "你最近在追什么剧呢",
        "最近在追什么剧呢",
        "最近在追《繁花》吗",
        "你最近在追《繁花》呢",  # the bot's
        "我妈最近在追《繁花》",  # hers
        "我妈最近在追《繁花》呢",
        "我妈退休了，最近在追《繁花》",  # the clause before opens on her
        "他最近在追《繁花》呢",
        "最近在追剧",  # no title
        "我在上班呢",  # a 呢 of no work named
        "在看《繁花》的时候哭了",
    ],
)
def test_no_interest_of_the_speakers_in_a_question_or_someone_elses_line(text: str) -> None:
    assert {fact for fact in facts(text) if fact[0] == "木木" and fact[1].startswith("最近在")} == set()


def test_in_a_group_a_work_without_me_is_nobodys() -> None:
    """最近在追《繁花》 in a group may answer 你妈最近干嘛呢: whose is not said."""
    group = Scope.of_space("bot", "g1")
    lines = [("阿杰", "你们最近看什么剧"), ("小美", "我妈天天看电视"), ("木木", "最近在追《繁花》")]
    found = extract_group(group, lines, START).facts
    assert [fact for fact in found if fact.predicate.startswith("最近在")] == []
