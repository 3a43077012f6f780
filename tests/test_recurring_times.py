"""A habit's time (每周二, 每天早上, every Tuesday) is no one day: 我每周二去游泳 was written 我每周二（2025-02-25）
去游泳, and the chat model was told of one swim on the Tuesday gone. Nor is a day told of before (那天晚上, 那年夏天)
today's or this year's. A time said beside them still reads."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.text.times import find_time_phrases

SATURDAY = datetime(2025, 3, 1, 10, 0)


@pytest.mark.parametrize(
    "text",
    [
        "我每周二去游泳",
        "我们每周五晚上聚餐",
        "每天晚上十点睡觉",
        "每个周末都去爬山",
        "每个月15号发工资",
        "每年春节回老家",
        "每逢周二",
        "I go swimming every Tuesday",
        "Each Friday night we play cards",
        "we meet every other Monday",
    ],
)
def test_a_time_that_comes_back_is_no_time(text: str) -> None:
    assert find_time_phrases(text, SATURDAY) == []


def test_a_time_beside_a_habit_still_reads() -> None:
    assert [s.phrase for s in find_time_phrases("我每天都在想昨天的事", SATURDAY)] == ["昨天"]
    assert [s.phrase for s in find_time_phrases("every day last week was rainy", SATURDAY)] == ["last week"]
    assert [s.phrase for s in find_time_phrases("上周二去游泳", SATURDAY)] == ["上周二"]


@pytest.mark.parametrize(
    "text",
    [
        "我每周二和周四去游泳",
        "每周二、周四去游泳",
        "每天早上和晚上都吃药",
        "every Tuesday and Thursday I swim",
        "every Monday, Wednesday and Friday",
        "我每次周末都去爬山",
        "每当周末就去钓鱼",
        "every single Tuesday",
        "每两周一次",
    ],
)
def test_the_days_joined_to_a_habit_and_a_habit_said_otherwise_are_no_time(text: str) -> None:
    """每周二和周四去游泳 was read as one swim on the Thursday gone: only the first day after 每 was a habit's."""
    assert find_time_phrases(text, SATURDAY) == []


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("We had two beers each last night", "last night"),
        ("They gave us $20 each last Friday", "last Friday"),
        ("他们每个昨天都来了", "昨天"),
        ("每周二去游泳，这周二没去", "这周二"),
    ],
)
def test_a_day_after_each_alone_is_one_day(text: str, phrase: str) -> None:
    """ "two beers each last night" lost last night: each is a share there, and last night no habit."""
    assert [s.phrase for s in find_time_phrases(text, SATURDAY)] == [phrase]


def test_a_habit_is_told_without_a_date(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: SATURDAY) as memory:
        memory.add([{"text": "我每周二去游泳", "time": SATURDAY}], agent="祈煜", person="木木", index=True)
        memory.flush(agent="祈煜", person="木木")
        items = memory.memories(agent="祈煜", person="木木", kinds=["fact", "event"])
    assert items and not any("2025-02-25" in item.text or item.data.get("about") for item in items), items


@pytest.mark.parametrize(
    "text", ["那天早晨真的特别美好", "记得那次周末早上咱俩一起吃早餐吗", "那年夏天我们去了海边", "我特别期待那天晚上"]
)
def test_a_day_told_of_before_is_not_read_as_today(text: str) -> None:
    """那年夏天 said in March was the summer ahead, and 那天晚上 said in the morning this evening (MADial dev lines)."""
    assert find_time_phrases(text, SATURDAY) == []


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Time flies- feels like just yesterday I put this dress on", []),  # LoCoMo dev: dated the day before
        ("It seems like only yesterday we met", []),
        ("I remember it like it was yesterday", []),
        ("I feel like yesterday was a long day", ["yesterday"]),
        # like as a filler, no figure: the day was lost
        ("I saw her like just yesterday lol", ["yesterday"]),
        ("She texted me like only yesterday", ["yesterday"]),
    ],
)
def test_like_yesterday_said_as_a_figure_is_no_day(text: str, read: list[str]) -> None:
    assert [span.phrase for span in find_time_phrases(text, SATURDAY)] == read


@pytest.mark.parametrize(
    ("text", "read"),
    [("那年2019年我们去了日本", ["2019年"]), ("那天10月1号我们去爬山", ["10月1号"]), ("那次3月1日的聚会", ["3月1日"])],
)
def test_a_day_told_of_before_with_its_own_date_keeps_it(text: str, read: list[str]) -> None:
    """After 那年/那天 a phrase that names its year or day says which: it was dropped with 那年夏天."""
    assert [span.phrase for span in find_time_phrases(text, SATURDAY)] == read


@pytest.mark.parametrize("text", ["我每周一到周五都上班", "我每周一至周五上班", "every Monday through Friday I work"])
def test_a_habit_told_as_a_run_of_days_has_no_one_day(text: str) -> None:
    """每周一到周五 read the coming Friday: a run of days is the habit's as a list of them is."""
    assert find_time_phrases(text, SATURDAY) == []


WEDNESDAY_EVENING = datetime(2025, 3, 5, 20, 30)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # 天天 before a time of day, or in a clause of 都/会/要: every day's, as 每天 is
        ("天天早上我都去跑步", []),
        ("天天早上来找我", []),
        ("我天天七点会起床", []),
        ("天天都要晚上十点睡", []),
        # 天天 the name (我家天天, 和天天), one morning told as done, or no habit word: the day read
        ("我家天天早上来找我", ["早上"]),
        ("我和天天早上去跑步了", ["早上"]),
        ("天天早上来找我了", ["早上"]),
        ("天天都在想昨天的事", ["昨天"]),
        ("今天天气好，晚上去散步", ["今天", "晚上"]),
    ],
)
def test_every_day_said_as_tiantian_is_a_habit_and_the_name_is_not(text: str, read: list[str]) -> None:
    """天天早上我都去跑步 was dated to this morning (06–10): 天天 is 每天 said again, but also a child's name."""
    assert [s.phrase for s in find_time_phrases(text, WEDNESDAY_EVENING)] == read


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("一到周末就睡懒觉", []),
        ("一到周末我就去钓鱼", []),
        ("逢周末睡懒觉", []),
        ("每天早上和下午都吃药", []),  # 下午 was read as one day by its 下 (as 下周)
        ("每个下午都去图书馆", []),
    ],
)
def test_each_time_it_comes_is_a_habit(text: str, read: list[str]) -> None:
    """一到周末就睡懒觉 was the weekend just gone (03-01..03-03): 一到…就 and 逢 say each time it comes."""
    assert [s.phrase for s in find_time_phrases(text, WEDNESDAY_EVENING)] == read


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("他一到下周就走", ["下周"]),
        ("一到明天就出发", ["明天"]),
        ("等他一到周五就出发", ["周五"]),
        ("等我们一到周末就去爬山", ["周末"]),
        ("一到下午就犯困", []),  # a time of day, no day's own: still the habit
    ],
)
def test_once_it_comes_is_one_day(text: str, read: list[str]) -> None:
    """他一到下周就走 and 等他一到周五就出发 dated no day after 6c0ba65: a day of its own, or one waited for,
    comes once."""
    assert [s.phrase for s in find_time_phrases(text, WEDNESDAY_EVENING)] == read


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("每周二去游泳，周四去跑步", []),
        ("每周二我去游泳，我周四去跑步，周六休息", []),
        # a clause with its own day, tense or kind of time: one day
        ("每周二去游泳，明天去跑步", ["明天"]),
        ("每周二去游泳，这周四没去", ["这周四"]),
        ("每周二去游泳，周四去了北京", ["周四"]),
        ("每周二去游泳，周四要去北京", ["周四"]),
        ("每天早上跑步，周四我要去北京", ["周四"]),
        ("每周二去游泳。周四去跑步", ["周四"]),  # another sentence
        ("每周二去游泳，周四我们去看电影吧", ["周四"]),  # proposed, or asked of: one day
        ("每周二去游泳，周四有空吗？", ["周四"]),
        ("我们每周一开例会，周三聚餐你来不来", ["周三"]),  # asked as A-not-A
        ("每周二去游泳，周四有没有空", ["周四"]),
        # a time of day goes on the list with 也, 都 or 总 only: a bare 晚上 is as often tonight
        ("天天早上我都去跑步，晚上也跑", []),
        ("每天早上跑步，晚上我去你家", ["晚上"]),
    ],
)
def test_a_habit_s_list_goes_on_across_a_comma(text: str, read: list[str]) -> None:
    """每周二去游泳，周四去跑步 dated the Thursday (2025-03-06): the next clause lists the same habit."""
    assert [s.phrase for s in find_time_phrases(text, WEDNESDAY_EVENING)] == read


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("每周五开会，周六我搬家", ["周六"]),
        ("每周二游泳，周五去面试，紧张", ["周五"]),
        ("我每周二去游泳，周四带孩子去打疫苗", ["周四"]),
        ("每个月15号发工资，20号我生日", ["20号"]),
        ("每周二去游泳，周四去跑步", []),  # a habit's list still
    ],
)
def test_a_thing_done_once_is_no_habit_s_list(text: str, read: list[str]) -> None:
    """每周五开会，周六我搬家 dated no Saturday after 6c0ba65: a move, an interview, a jab, a birthday are done
    once, not listed with the weekly habit."""
    assert [s.phrase for s in find_time_phrases(text, WEDNESDAY_EVENING)] == read
