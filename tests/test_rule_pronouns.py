"""他 / 她 in a rule fact is the one person named just before (rules.pronouns): 我男朋友叫阿杰，我明天和他去看电影
was stored as 木木明天和他去看电影, which names nobody once the chat has gone on."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from huiyi.flows.extract import Fold
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import Message, Scope
from rule_lines import extract_private

PRIVATE = Scope.of_person("bot", "木木")
GROUP = Scope.of_space("小助手", "hz")
T0 = datetime(2025, 1, 9, 10, 0)  # a Thursday


def private(*texts: str) -> set[str]:
    return {f.description for f in extract_private(PRIVATE, texts, T0).facts}


def group(*lines: tuple[str, str]) -> set[str]:
    messages = [
        Message(id=f"m{i}", agent="小助手", space=GROUP.space_id, scope=GROUP, speaker=speaker, role="user",
                text=text, time=T0 + timedelta(minutes=i), seq=i)
        for i, (speaker, text) in enumerate(lines)
    ]  # fmt: skip
    names = {"陈大川": ["陈大川", "大川"], "周屿": ["周屿", "鱼哥"], "小雨": ["小雨"]}
    fold = Fold(agent="小助手", space=GROUP.space_id, scope=GROUP, messages=messages, aliases=names)
    return {f.description for f in RuleExtractor().extract_sync(fold).facts}


@pytest.mark.parametrize(
    ("texts", "fact"),
    [
        (("我男朋友叫阿杰，我明天和他去看电影",), "木木明天（2025-01-10）和阿杰去看电影"),
        (("我男朋友叫阿杰", "我周六要去他家吃饭"), "木木周六（2025-01-11）要去阿杰家吃饭"),
        (("小雨是我闺蜜", "我下周要和她去北京"), "木木下周（2025-01-13～2025-01-19）要和小雨去北京"),
    ],
)
def test_a_pronoun_in_a_private_chat_is_the_person_just_named(texts: tuple[str, ...], fact: str) -> None:
    assert fact in private(*texts), private(*texts)


@pytest.mark.parametrize(
    ("lines", "fact"),
    [
        ((("陈大川", "鱼哥明天来吗"), ("小雨", "我明天和他去打球")), "小雨明天（2025-01-10）和周屿去打球"),
        ((("陈大川", "鱼哥人很好，我周六要去他家吃饭"),), "陈大川周六（2025-01-11）要去周屿家吃饭"),
    ],
)
def test_a_pronoun_in_a_group_is_the_member_just_named(lines: tuple[tuple[str, str], ...], fact: str) -> None:
    assert fact in group(*lines), group(*lines)


@pytest.mark.parametrize(
    ("lines", "fact"),
    [
        ((("陈大川", "鱼哥和小雨明天来吗"), ("陈大川", "我明天和他去打球")), "陈大川明天（2025-01-10）和他去打球"),
        ((("陈大川", "今天好累"), ("陈大川", "我明天和她去看电影")), "陈大川明天（2025-01-10）和她去看电影"),
        ((("陈大川", "鱼哥来了吗"), ("陈大川", "我喜欢弹吉他")), "陈大川喜欢弹吉他"),
    ],
)
def test_a_pronoun_with_nobody_or_two_named_stays_as_said(lines: tuple[tuple[str, str], ...], fact: str) -> None:
    """Whom 他 means after 鱼哥和小雨, or after nobody, nobody can tell; 吉他 is no pronoun."""
    assert fact in group(*lines), group(*lines)


@pytest.mark.parametrize(
    ("texts", "fact"),
    [
        (("我男朋友叫阿杰", "今天我同事请假了，我明天和他一起加班"), "木木明天（2025-01-10）和他一起加班"),
        (("我男朋友叫阿杰", "我哥下周结婚，我下周要去他家帮忙"), "木木下周（2025-01-13～2025-01-19）要去他家帮忙"),
        (("我男朋友叫阿杰", "今天碰到张伟了，我明天和他去吃饭"), "木木明天（2025-01-10）和他去吃饭"),
        (("我男朋友叫阿杰，我明天和她去看电影",), "木木明天（2025-01-10）和她去看电影"),
    ],
)
def test_a_pronoun_after_someone_else_or_of_the_other_sex_stays_as_said(texts: tuple[str, ...], fact: str) -> None:
    """我男朋友叫阿杰 then 我同事请假了，我明天和他一起加班 was stored as 和阿杰一起加班: the colleague (我哥, 张伟)
    said between is as likely meant, and a boyfriend is no 她."""
    assert fact in private(*texts), private(*texts)


def test_a_pronoun_is_not_the_speaker_named_just_before() -> None:
    """小雨你明天来吗 — 小雨: 我明天和他去打球 was stored as 小雨明天和小雨去打球."""
    found = group(("陈大川", "小雨你明天来吗"), ("小雨", "我明天和他去打球"))
    assert "小雨明天（2025-01-10）和他去打球" in found, found


def test_a_pronouns_own_person_is_theirs() -> None:
    """他妈妈 was 阿杰妈妈, 她哥 小雨哥 (a name of its own): the one named owns them."""
    assert "木木周六（2025-01-11）要去见阿杰的妈妈" in private("我男朋友叫阿杰", "我周六要去见他妈妈")
