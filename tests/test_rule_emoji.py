"""An emoji is a line's tone: it ends a clause as a stop would, and no fact keeps it (木木喜欢猫😍 liked 猫😍,
我女朋友叫小雨❤️ named no one)."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from rule_lines import extract_private

ZH = Scope.of_person("祈煜", "木木")
EN = Scope.of_person("Kai", "Mia")
SAID = datetime(2024, 11, 15, 20, 0)  # a Friday


def facts(scope: Scope, text: str, language: str = "zh") -> set[tuple[str, str]]:
    return {(f.object, f.description) for f in extract_private(scope, (text,), SAID, language).facts}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我超喜欢猫😍", ("猫", "木木喜欢猫")),
        ("我女朋友叫小雨❤️", ("小雨", "小雨是木木的女朋友")),
        ("我在腾讯上班👍", ("腾讯", "木木在腾讯工作")),
        ("我周日要加班😭", ("要加班", "木木周日（2024-11-17）要加班")),
    ],
)
def test_a_chinese_fact_keeps_no_emoji(text: str, fact: tuple[str, str]) -> None:
    assert fact in facts(ZH, text)


@pytest.mark.parametrize(
    ("text", "description"),
    [
        ("I love cats 😍", "Mia loves cats"),
        ("My girlfriend is called Emma ❤️", "Emma is Mia's girlfriend"),
        ("I work at Google 👍", "Mia works at Google"),
    ],
)
def test_an_english_fact_keeps_no_emoji(text: str, description: str) -> None:
    assert description in {d for _, d in facts(EN, text, "en")}


@pytest.mark.parametrize("text", ["我是亿万富翁😂", "我在NASA上班🤣"])
def test_a_laughing_emoji_still_takes_back_what_it_closes(text: str) -> None:
    assert not facts(ZH, text)


@pytest.mark.parametrize("text", ["我养了一只🐱叫咪咪", "我家有两条🐶"])
def test_an_emoji_counted_is_the_thing_not_a_stop(text: str) -> None:
    # 一只🐱: the emoji is the cat; as a stop it left 我养了一只 (咪咪是木木的只, 木木养了一只只)
    assert not {obj for obj, _ in facts(ZH, text) if obj.endswith(("只", "条"))}
