"""What the speaker is into lately, a work named in 《》 (我最近在看《漫长的季节》): stored nothing, so a later
你最近在看什么 found only the event; now it is a preference of now."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import FactKind, Scope
from rule_lines import extract_private

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
