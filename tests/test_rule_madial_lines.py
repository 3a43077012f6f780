"""Facts the rules read wrong from MADial-Bench's Chinese dialogue lines (dev file), as a companion would be told
them: a 的 of stress in the object, a hypothetical 养的话 taken for a pet, a Christmas tree dated."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.text.times import find_time_phrases
from test_rule_subjects import described, extract

SAID_AT = datetime(2024, 11, 15, 20, 0)  # as test_rule_subjects.extract says them


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我超喜欢做实验的！", "木木喜欢做实验"),  # was 木木喜欢做实验的
        ("真的吗？我超级喜欢吃冰淇淋的！", "木木喜欢吃冰淇淋"),
        ("我喜欢红色的", "木木喜欢红色的"),  # a kind of thing keeps its 的
        ("我养的猫叫豆豆", "豆豆是木木的猫"),  # was 豆豆是木木的的猫
    ],
)
def test_the_fact_a_line_says(text: str, fact: str) -> None:
    assert fact in described(extract(text))


@pytest.mark.parametrize("text", ["可是我养的话，狗狗还能那样温顺吗？", "我养的狗很乖"])
def test_no_pet_of_a_hypothetical_or_a_clause_about_it(text: str) -> None:
    """可是我养的话 was 木木养了一只的话."""
    assert not [fact for fact in described(extract(text)) if "养了" in fact or "的狗" in fact]


@pytest.mark.parametrize("text", ["我喜欢装饰圣诞树", "圣诞老人会来吗", "中秋月饼好吃"])
def test_a_thing_named_after_a_festival_is_no_time(text: str) -> None:
    """我喜欢装饰圣诞树 was the fact 木木喜欢装饰圣诞（2025-12-25）树."""
    assert find_time_phrases(text, SAID_AT) == []
    assert not any("（" in fact for fact in described(extract(text)))


@pytest.mark.parametrize(
    ("text", "fact"),
    [("我喜欢我妈做的红烧肉", "木木喜欢木木的妈做的红烧肉"), ("我喜欢和我的妹妹去爬山", "木木喜欢和木木的妹妹去爬山")],
)
def test_the_speakers_own_inside_an_object_is_theirs(text: str, fact: str) -> None:
    """木木喜欢我妈做的红烧肉, in the agent's prompt, is the agent's mother's cooking."""
    assert fact in described(extract(text))


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我喜欢会做饭的", "木木喜欢会做饭的"),  # one who cooks: was 木木喜欢会做饭
        ("我喜欢吃妈妈做的", "木木喜欢吃妈妈做的"),  # what she makes: was 吃妈妈做
        ("我喜欢看恐怖的", "木木喜欢看恐怖的"),  # scary films: was 看恐怖
        ("我喜欢吃甜的", "木木喜欢吃甜的"),
    ],
)
def test_a_de_that_names_what_is_liked_stays(text: str, fact: str) -> None:
    assert fact in described(extract(text)), described(extract(text))


@pytest.mark.parametrize(
    ("text", "phrase"),
    [("圣诞节装饰房间", "圣诞节"), ("我们春节装饰一下家里", "春节"), ("我们圣诞节装饰圣诞树", "圣诞节")],
)
def test_a_festival_before_a_deed_of_decorating_is_its_time(text: str, phrase: str) -> None:
    """装饰 as a verb after the festival: the time was lost with 圣诞装饰 (a thing)."""
    assert [span.phrase for span in find_time_phrases(text, SAID_AT)] == [phrase]


@pytest.mark.parametrize(
    ("text", "fact"), [("我喜欢我家的猫", "木木喜欢木木家的猫"), ("我喜欢回我家", "木木喜欢回木木家")]
)
def test_the_speakers_home_inside_an_object_is_theirs(text: str, fact: str) -> None:
    """木木喜欢我家的猫, in the agent's prompt, is the agent's own cat at home: 我家 was left as said."""
    assert fact in described(extract(text)), described(extract(text))


def test_living_at_ones_own_home_is_no_home() -> None:
    """我住在我家 was 木木住在木木家, a home that would close the one the speaker told of."""
    assert not [fact for fact in described(extract("我住在我家")) if "住在" in fact]
    assert "木木住在木木家附近" in described(extract("我住在我家附近"))


@pytest.mark.parametrize(("text", "fact"), [("我喜欢我家", "木木喜欢木木家"), ("我讨厌我家", "木木讨厌木木家")])
def test_a_liking_of_ones_own_home_is_kept(text: str, fact: str) -> None:
    """e0ebcde dropped 我家 as a whole object for every rule, so 我喜欢我家 and 我讨厌我家 gave no fact; only a
    home (住在我家) says no place."""
    assert fact in described(extract(text)), described(extract(text))


@pytest.mark.parametrize(
    ("text", "phrases"),
    [
        ("我女儿叫夏天", []),  # read 我女儿叫夏天（2025-05-05～2025-08-06） into the event
        ("她小名叫周末。", []),
        ("我姐叫周末，我爸叫周末回家", ["周末"]),  # the second the weekend he told of
        ("我叫明天再来", ["明天"]),
    ],
)
def test_a_word_someone_is_called_by_is_no_time(text: str, phrases: list[str]) -> None:
    assert [span.phrase for span in find_time_phrases(text, SAID_AT)] == phrases
