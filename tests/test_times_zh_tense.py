"""Chinese time words read by what their sentence says (rules path, no LLM): a festival or a date said as
still to come (春节我要去三亚玩, 3月5日前我要交报告, said in November) is the coming one, and one said done the
one gone; 3月5日前 is the day 3月5日, not March and "five days ago"; a bare weekday said done (周日我去爬山了,
on a Wednesday) is the one just gone, and no plan. Each table also holds the readings that must not change."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from huiyi.model import Scope, ScopeKind
from huiyi.text.times import find_time_phrases, query_time_range
from rule_lines import extract_private

WEDNESDAY = datetime(2024, 11, 13, 10, 0)  # this Friday is 11-15, this Sunday 11-17, the last one 11-10
SCOPE = Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木")


def read(text: str, now: datetime = WEDNESDAY) -> list[tuple[str, str]]:
    return [(span.phrase, f"{span.start:%Y-%m-%d %H:%M}") for span in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("中秋节我要回家", "2025-10-06"),
        ("春节我要去三亚玩", "2025-01-29"),
        ("元旦我要去哈尔滨", "2025-01-01"),
        ("情人节我打算去约会", "2025-02-14"),
        ("清明节我准备回老家扫墓", "2025-04-04"),
        ("母亲节我会给妈妈买花", "2025-05-11"),
        # unchanged: said done or with nothing of its tense, still ahead, or with its year
        ("春节我去了三亚", "2024-02-10"),
        ("中秋节过得怎么样", "2024-09-17"),
        ("春节那次我们见过", "2024-02-10"),
        ("圣诞节我要去哈尔滨", "2024-12-25"),
        ("今年春节我要去三亚", "2024-02-10"),
        ("春节的年会我要去", "2025-01-29"),
    ],
)
def test_a_festival_said_to_come_is_the_coming_one(said: str, day: str) -> None:
    assert [start[:10] for _, start in read(said)] == [day]


@pytest.mark.parametrize(
    ("said", "now", "day"),
    [
        # one gone, with no word of its tense: the nearer of this year's and the next
        ("元旦我们去哪玩", datetime(2024, 12, 28, 15, 0), "2025-01-01"),
        ("除夕我们一起吃年夜饭", WEDNESDAY, "2025-01-28"),
        # 那天 beside 要 is the day ahead
        ("元旦那天我要加班", datetime(2024, 12, 28, 15, 0), "2025-01-01"),
        # unchanged: the nearer is this year's, the tense is said, or it is still ahead
        ("圣诞节我们去哈尔滨玩", datetime(2024, 11, 13, 10, 0), "2024-12-25"),
        ("中秋节我们吃月饼", WEDNESDAY, "2024-09-17"),
        ("元旦那天我们吵架了", datetime(2024, 12, 28, 15, 0), "2024-01-01"),
        ("除夕那天好热闹", WEDNESDAY, "2024-02-09"),
        ("在元旦晚会上，我们一起做了灯笼", datetime(2024, 12, 28, 15, 0), "2024-01-01"),
    ],
)
def test_a_festival_with_no_tense_said_is_the_nearer_one(said: str, now: datetime, day: str) -> None:
    assert [start[:10] for _, start in read(said, now)] == [day]


def test_a_festival_still_ahead_said_done_is_last_years() -> None:
    march = datetime(2025, 3, 20, 10, 0)
    assert read("圣诞节我们去了哈尔滨", march) == [("圣诞节", "2024-12-25 00:00")]
    assert read("中秋节我去了杭州", march) == [("中秋节", "2024-09-17 00:00")]
    assert read("中秋节我要去杭州", march) == [("中秋节", "2025-10-06 00:00")]
    assert read("圣诞节的机票我订了", march) == [("圣诞节", "2025-12-25 00:00")]


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("3月5日前我要交报告", [("3月5日", "2025-03-05 00:00")]),
        ("三月五号之前我要搬家", [("三月五号", "2025-03-05 00:00")]),
        ("3月5日以后我要去上海", [("3月5日", "2025-03-05 00:00")]),
        ("3月5日我要交报告", [("3月5日", "2025-03-05 00:00")]),
        ("三月我要去日本", [("三月", "2025-03-01 00:00")]),
        ("我报了三月的马拉松", [("三月", "2025-03-01 00:00")]),  # booked: ahead
        ("我订了3月5日的机票", [("3月5日", "2025-03-05 00:00")]),
        # unchanged: a date alone or said done, one just gone (要 may be "had to"), one with its year
        ("3月5日", [("3月5日", "2024-03-05 00:00")]),
        ("3月5日前我交了报告", [("3月5日", "2024-03-05 00:00")]),
        ("10月20日我要交报告，结果忘了", [("10月20日", "2024-10-20 00:00")]),
        ("2024年3月5日前我要交报告", [("2024年3月5日", "2024-03-05 00:00")]),
        ("十二月我要去哈尔滨", [("十二月", "2024-12-01 00:00")]),
        ("我报了十二月八号的半马，中签了", [("十二月八号", "2024-12-08 00:00")]),
        ("我三月报了名", [("三月", "2024-03-01 00:00")]),  # the month of the booking
        ("大约三月的时候我们见过", [("三月", "2024-03-01 00:00")]),
        ("我汇报了三月的工作", [("三月", "2024-03-01 00:00")]),
        ("我报了十月的马拉松", [("十月", "2024-10-01 00:00")]),  # just gone: the nearer
    ],
)
def test_a_date_before_or_after_is_read_whole_and_to_come(said: str, reading: list[tuple[str, str]]) -> None:
    assert read(said) == reading


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("周日我去爬山了，累死了", "2024-11-10"),
        ("星期六我们去吃了火锅", "2024-11-09"),
        ("周五那天我请假了", "2024-11-08"),
        ("周六我去过那家店", "2024-11-09"),
        # unchanged: said to come, the day's thing changed, 就…了, a forecast, nothing said of its tense
        ("周日我要去爬山了", "2024-11-17"),
        ("周日要去爬山", "2024-11-17"),
        ("周五的会取消了", "2024-11-15"),
        ("周五就到了", "2024-11-15"),
        ("周五我约了医生", "2024-11-15"),
        ("周五我请好假了", "2024-11-15"),  # prepared, not done
        ("祝你周末愉快", "2024-11-16"),  # a wish: the weekend ahead, not the one gone (the nearer at 10:00)
        ("祝你周一面试顺利", "2024-11-18"),
        ("周六的东西我准备好了", "2024-11-16"),
        ("周六降温了", "2024-11-16"),
        ("周六过生日", "2024-11-16"),
        ("周日去爬山", "2024-11-17"),
        ("周一我去爬山了", "2024-11-11"),
    ],
)
def test_a_bare_weekday_said_done_is_the_one_just_gone(said: str, day: str) -> None:
    assert [start[:10] for _, start in read(said)] == [day]


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("周末去爬山吧", "2024-11-16"),  # proposed on a Wednesday: the weekend ahead, not the one gone
        ("周末一起吃饭吧~", "2024-11-16"),
        ("周末好好休息吧！", "2024-11-16"),
        ("周末很累吧", "2024-11-09"),  # a guess at how it went
        ("周末玩得开心吧", "2024-11-09"),
        ("周末去爬山了吧", "2024-11-09"),
        ("周末去爬山", "2024-11-16"),  # an outing told bare: a plan, the coming one (was the nearer, 11-09)
        # waited for (等…一到), or finally possible: the weekend ahead
        ("等我们一到周末就去爬山", "2024-11-16"),
        ("等周末再说", "2024-11-16"),
        ("天天要上课，周末终于能休息了", "2024-11-16"),
        ("上周末我们去爬山了", "2024-11-09"),
        ("周末终于休息了", "2024-11-09"),
    ],
)
def test_a_weekend_proposed_early_in_the_week_is_the_coming_one(said: str, day: str) -> None:
    assert [start[:10] for _, start in read(said)] == [day]


@pytest.mark.parametrize(
    ("said", "day"),
    [
        # what is waited for is of the day, not the day (said on a Wednesday: the Monday gone, read next week's
        # since 2d57786)
        ("我还在等周一面试的结果", "2024-11-11"),
        ("还在等周一寄的快递", "2024-11-11"),
        ("我在等周一的体检报告", "2024-11-11"),
        # the day itself waited for stays ahead
        ("等周一再说", "2024-11-18"),
        ("等周末的时候我们去爬山", "2024-11-16"),
    ],
)
def test_a_thing_of_a_day_waited_for_is_not_the_day_ahead(said: str, day: str) -> None:
    assert [start[:10] for _, start in read(said)] == [day]


def plans(*texts: str) -> list[str]:
    return [f.description for f in extract_private(SCOPE, texts, WEDNESDAY).facts if f.predicate == "计划"]


def test_a_weekend_done_is_no_plan_and_one_to_come_is() -> None:
    assert plans("周日我去爬山了，累死了") == []
    assert plans("周日我要去爬山") == ["木木周日（2024-11-17）要去爬山"]
    assert plans("3月5日前我要交报告") == ["木木3月5日（2025-03-05）前要交报告"]
    assert plans("春节我要去三亚玩") == ["木木春节（2025-01-29）要去三亚玩"]


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("明年清明节我要回老家", "2025-04-04"),  # jionlp read this year's
        ("后年端午节", "2026-06-19"),
        ("去年春节我在三亚", "2023-01-22"),
        ("除夕我要回家", "2025-01-28"),  # jionlp read none: the eve of 春节, the coming one
        ("我订了春节的机票", "2025-01-29"),  # booked: the coming one
        ("除夕那天我们吃了饺子", "2024-02-09"),
        ("平安夜我要去约会", "2024-12-24"),
        ("去年平安夜", "2023-12-24"),
        ("后年感恩节", "2026-11-26"),  # the holidays read by our calendar took 去年/今年/明年 only
        ("前年复活节", "2022-04-17"),
    ],
)
def test_a_festival_of_the_year_said_and_the_eves_jionlp_misses(said: str, day: str) -> None:
    assert [when[:10] for _, when in read(said)] == [day]


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        # 过 before a festival or weekend is to spend it (过圣诞节, 度过…周末), not "done": read last year's/week's
        ("今年我们班要一起过圣诞节", WEDNESDAY, [("今年", "2024-01-01 00:00"), ("圣诞节", "2024-12-25 00:00")]),
        ("过春节我要回老家", WEDNESDAY, [("春节", "2025-01-29 00:00")]),
        (
            "今年我们班要一起过圣诞节",
            datetime(2024, 12, 28, 15, 0),
            [("今年", "2024-01-01 00:00"), ("圣诞节", "2024-12-25 00:00")],
        ),
        (
            "去年你装饰圣诞树时也用了这些吗",
            datetime(2025, 1, 3, 10, 0),
            [("去年", "2024-01-01 00:00"), ("圣诞", "2024-12-25 00:00")],
        ),
        ("希望你度过一个愉快的星期天", WEDNESDAY, [("星期天", "2024-11-17 00:00")]),
        ("希望你度过一个愉快的星期天", datetime(2024, 12, 28, 15, 0), [("星期天", "2024-12-29 00:00")]),
        # 不…了 is a plan given up, of the day ahead (周六不用了 said on a Wednesday: this Saturday)
        ("周六不用了，改到下周", WEDNESDAY, [("周六", "2024-11-16 00:00"), ("下周", "2024-11-18 00:00")]),
        ("周日我不去爬山了", WEDNESDAY, [("周日", "2024-11-17 00:00")]),
        # 得/该 say what must come: 周六我得加班了 is this Saturday
        ("周六我得加班了", WEDNESDAY, [("周六", "2024-11-16 00:00")]),
        ("周六该去体检了", WEDNESDAY, [("周六", "2024-11-16 00:00")]),
        # unchanged: done, 过 of having done, 玩得 (a 得 after its verb)
        ("周日我去爬山了", WEDNESDAY, [("周日", "2024-11-10 00:00")]),
        ("周六我们玩得很开心了", WEDNESDAY, [("周六", "2024-11-09 00:00")]),
        ("周六我不小心摔了一跤", WEDNESDAY, [("周六", "2024-11-09 00:00")]),
        ("周日我们一起过过生日了", WEDNESDAY, [("周日", "2024-11-10 00:00")]),
        ("圣诞节我们去过哈尔滨", datetime(2024, 11, 13, 10, 0), [("圣诞节", "2023-12-25 00:00")]),
        ("平安夜我们去吃了火锅", datetime(2025, 1, 3, 10, 0), [("平安夜", "2024-12-24 00:00")]),
    ],
)
def test_a_verb_of_spending_or_giving_up_keeps_the_day_ahead(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    assert read(said, now) == reading


@pytest.mark.parametrize("said", ["周日我不去爬山了", "我明天不去上班了", "我周六没空"])
def test_a_plan_given_up_is_no_plan(said: str) -> None:
    found = extract_private(SCOPE, (said,), WEDNESDAY).facts
    assert [f.description for f in found if f.predicate == "计划"] == []


def test_a_plan_said_with_must_is_still_one() -> None:
    found = extract_private(SCOPE, ("周六我得加班了", "我明天要去医院"), WEDNESDAY).facts
    assert [f.description for f in found if f.predicate == "计划"] == [
        "木木周六（2024-11-16）得加班了",
        "木木明天（2024-11-14）要去医院",
    ]


@pytest.mark.parametrize(
    ("query", "day"),
    [
        ("春节的时候你送我的礼物是什么", date(2024, 2, 10)),
        ("元旦我们去哪玩来着", date(2024, 1, 1)),
        ("元旦我们要去哪玩", date(2025, 1, 1)),
    ],
)
def test_a_recall_query_asks_of_the_festival_gone_unless_it_says_to_come(query: str, day: date) -> None:
    # the nearer festival is for a line said (元旦我们去哪玩 on 28 December); a query asks of memories
    span = query_time_range(query, datetime(2024, 12, 28, 20))
    assert span is not None and span.start.date() == day


@pytest.mark.parametrize(
    ("said", "now", "day"),
    [
        # said in the days after it: the one just had, not next year's
        ("祝你春节快乐，新年发财", datetime(2025, 2, 3, 11, 0), "2025-01-29"),
        ("我订了春节的机票，结果航班取消了", datetime(2025, 2, 3, 11, 0), "2025-01-29"),
        ("祝你中秋快乐", datetime(2024, 9, 20, 9, 0), "2024-09-17"),
        # unchanged: weeks before it, or long after, the coming one
        ("祝你春节快乐", WEDNESDAY, "2025-01-29"),
        ("我订了春节的机票", datetime(2025, 7, 1, 9, 0), "2026-02-17"),
        ("我订了元旦的酒店", datetime(2024, 12, 28, 15, 0), "2025-01-01"),
    ],
)
def test_a_festival_booked_or_wished_just_after_it_is_the_one_had(said: str, now: datetime, day: str) -> None:
    """A wish (祝) or a booking said with 春节 sent it a year ahead, even in the days right after it."""
    assert [start[:10] for _, start in read(said, now)][-1:] == [day]


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("上次约了元旦吃饭结果没去成", "2024-01-01"),
        ("当时元旦我们在哈尔滨", "2024-01-01"),
        ("我订了春节的机票", "2025-01-29"),
    ],
)
def test_a_festival_said_of_a_time_gone_is_not_the_coming_one(said: str, day: str) -> None:
    # 上次/当时 tell of a time gone: a booking then (约了元旦) is of last 元旦, not the coming one (reviewer's find)
    (span,) = find_time_phrases(said, datetime(2024, 11, 13, 10))
    assert f"{span.start:%Y-%m-%d}" == day


@pytest.mark.parametrize(
    ("said", "days"),
    [
        ("下周一到周五我出差", ["2025-03-10", "2025-03-14"]),
        ("下周三到周五", ["2025-03-12", "2025-03-14"]),
        ("上周一到周三", ["2025-02-24", "2025-02-26"]),
        ("下周一早上到周五晚上", ["2025-03-10", "2025-03-14"]),
        ("下周五到周末", ["2025-03-14", "2025-03-15"]),
        ("周一到周五我要出差", ["2025-03-10", "2025-03-14"]),  # the Monday gone, to come: next week's, and so on
        # unchanged: an end that names its week, a start of more than a day
        ("下周一到这周五", ["2025-03-10", "2025-03-07"]),
        ("今天到周五", ["2025-03-05", "2025-03-07"]),
        # 从…开始到, 起到: the range said so too (its Friday read this week's, 03-07)
        ("从下周二开始到周五都请假", ["2025-03-11", "2025-03-14"]),
        ("下周二起到周五", ["2025-03-11", "2025-03-14"]),
    ],
)
def test_a_bare_weekday_that_ends_a_range_is_in_its_start_s_week(said: str, days: list[str]) -> None:
    """下周一到周五我出差 read the Friday of this week (03-07), before the trip began."""
    assert [start[:10] for _, start in read(said, datetime(2025, 3, 5, 20, 30))] == days


def test_a_clause_with_no_stops_is_read_near_its_phrase_only() -> None:
    """下周一到周五 said a thousand times with no stop made each phrase's clause the whole text: reading it took
    3.4 s at 16 k characters, growing with its square (a speed no test times; the clause's length is what grew)."""
    from huiyi.text.tense_zh import _CLAUSE_REACH, _Clauses

    text = "下周一到周五" * 1000
    clauses = _Clauses(text)
    assert len(clauses.around(3000)) <= 2 * _CLAUSE_REACH and len(clauses.before(3000)) <= _CLAUSE_REACH
    assert clauses.around(3) == text[: 3 + _CLAUSE_REACH]


@pytest.mark.parametrize(
    ("said", "days"),
    [
        ("下个月1号到5号我出差", ["2025-04-01", "2025-04-05"]),
        ("下个月28号到3号", ["2025-04-28", "2025-05-03"]),
        ("三月二十八号到四号", ["2025-03-28", "2025-04-04"]),
        # unchanged: both in this month
        ("1号到5号我出差", ["2025-03-01", "2025-03-05"]),
        ("十号到十五号我出差", ["2025-03-10", "2025-03-15"]),
    ],
)
def test_a_bare_day_that_ends_a_range_is_in_its_start_s_month(said: str, days: list[str]) -> None:
    """下个月1号到5号我出差 read the 5th of this month (03-05), before the trip began."""
    assert [start[:10] for _, start in read(said, datetime(2025, 3, 5, 20, 30))] == days


def test_a_weekend_one_waits_for_to_come_is_no_habit() -> None:
    assert read("一到周末就睡懒觉") == []


DECEMBER = datetime(2024, 12, 10, 10, 0)  # the coming 春节 is 2025-01-29
AFTER_SPRING = datetime(2025, 2, 10, 10, 0)  # twelve days after it; the next is 2026-02-17


@pytest.mark.parametrize(
    ("said", "now", "day"),
    [
        ("我过年打算回家", DECEMBER, "2025-01-29"),
        ("过年回老家", DECEMBER, "2025-01-29"),
        ("过年的时候去三亚", DECEMBER, "2025-01-29"),
        ("我过年打算回家", WEDNESDAY, "2025-01-29"),
        ("我过年打算回家", AFTER_SPRING, "2026-02-17"),
        ("过年我回老家了", AFTER_SPRING, "2025-01-29"),  # told done: the one just gone
        ("过年回老家", AFTER_SPRING, "2025-01-29"),
        ("快过年了", datetime(2025, 1, 10, 9, 0), "2025-01-29"),
        ("要过年了", datetime(2025, 1, 10, 9, 0), "2025-01-29"),
        ("明年过年回家", DECEMBER, "2025-01-29"),  # jionlp's lunar year, as 明年春节
        ("去年过年在哪过的", AFTER_SPRING, "2024-02-10"),
        # a festival's plan given up (不…了) is of the one to come, as 周六不用了 is
        ("我过年不回家了", DECEMBER, "2025-01-29"),
        ("春节不回老家了", DECEMBER, "2025-01-29"),
        ("中秋我不回家了", DECEMBER, "2025-10-06"),
        ("春节我去了三亚", DECEMBER, "2024-02-10"),
    ],
)
def test_guonian_is_the_spring_festival_read_by_its_tense(said: str, now: datetime, day: str) -> None:
    """我过年打算回家 stored no plan: 过年 was read as no time (我春节回老家 was)."""
    assert [when[:10] for _, when in read(said, now)] == [day]


@pytest.mark.parametrize("said", ["超过年薪的一半", "他终于度过年关", "过年龄限制了", "我很难过年底还要加班"])
def test_a_guo_and_a_nian_of_other_words_are_no_new_year(said: str) -> None:
    assert [phrase for phrase, _ in read(said, DECEMBER) if "过年" in phrase] == []


def test_a_new_year_plan_is_the_coming_one() -> None:
    found = extract_private(SCOPE, ("我过年打算回家", "我过年回老家"), DECEMBER).facts
    assert [f.description for f in found if f.predicate == "计划"] == [
        "木木过年（2025-01-29）打算回家",
        "木木过年（2025-01-29）回老家",
    ]


DECEMBER_WEDNESDAY = datetime(2024, 12, 4, 15, 0)  # this year's 国庆 and 中秋 are gone
OCTOBER = datetime(2024, 10, 8, 15, 0)  # a week after 国庆


@pytest.mark.parametrize(
    ("said", "now", "day"),
    [
        ("国庆去云南玩", DECEMBER_WEDNESDAY, "2025-10-01"),
        ("我想国庆去云南玩", DECEMBER_WEDNESDAY, "2025-10-01"),
        ("中秋想回家", DECEMBER_WEDNESDAY, "2025-10-06"),
        ("端午节去爬山吧", DECEMBER_WEDNESDAY, "2025-05-31"),
        # unchanged: told done, or how it went, or said in the days right after it
        ("国庆去了云南", DECEMBER_WEDNESDAY, "2024-10-01"),
        ("国庆去云南玩，人太多了", DECEMBER_WEDNESDAY, "2024-10-01"),
        ("国庆去云南玩", OCTOBER, "2024-10-01"),
        ("中秋节我们吃月饼", DECEMBER_WEDNESDAY, "2024-09-17"),
    ],
)
def test_a_festival_gone_told_as_an_outing_is_the_coming_one(said: str, now: datetime, day: str) -> None:
    """国庆去云南玩 said in December read the October gone, as did 我想国庆去云南玩 and 中秋想回家 (想 before the
    festival, or before 回): a going told with no word of its tense is a plan, as 过年回老家 said in December is
    the coming 春节."""
    assert [when[:10] for _, when in read(said, now)] == [day]


TUESDAY = datetime(2024, 12, 3, 15, 0)  # the last weekend 11-30, the coming one 12-07


@pytest.mark.parametrize(
    ("said", "now", "day"),
    [
        ("周末露营", TUESDAY, "2024-12-07"),
        ("周末去露营", TUESDAY, "2024-12-07"),
        ("我周末回老家", datetime(2024, 12, 2, 9, 0), "2024-12-07"),
        # unchanged: told done or how it went, a weekday's going, asked what was done
        ("周末去了露营", TUESDAY, "2024-11-30"),
        ("周末去露营，冻死了", TUESDAY, "2024-11-30"),
        ("周末去爬山很累", TUESDAY, "2024-11-30"),
        ("周末干嘛了", TUESDAY, "2024-11-30"),
        ("周一去体检", datetime(2024, 12, 6, 15, 0), "2024-12-02"),
    ],
)
def test_a_weekend_gone_told_as_an_outing_is_the_coming_one(said: str, now: datetime, day: str) -> None:
    """周末去露营 said on a Tuesday read the weekend gone: a weekend's going told bare is planned in the week."""
    assert [when[:10] for _, when in read(said, now)] == [day]


def test_the_rules_plan_an_outing_for_the_coming_weekend_and_national_day() -> None:
    found = extract_private(SCOPE, ("我周末去露营", "我国庆去云南玩"), TUESDAY).facts
    assert [f.description for f in found if f.predicate == "计划"] == [
        "木木周末（2024-12-07～2024-12-08）去露营",
        "木木国庆（2025-10-01）去云南玩",
    ]


@pytest.mark.parametrize(
    ("said", "now", "day"),
    [
        ("周末去看电影，那个电影好烂", TUESDAY, "2024-11-30"),
        ("周末去爬山，腿到现在还疼", TUESDAY, "2024-11-30"),
        ("周末出去逛街碰到前男友", TUESDAY, "2024-11-30"),
        ("国庆去云南玩，风景特别好", DECEMBER_WEDNESDAY, "2024-10-01"),
        ("国庆回家，我妈做的菜超好吃", DECEMBER_WEDNESDAY, "2024-10-01"),
        ("国庆去云南玩的照片", DECEMBER_WEDNESDAY, "2024-10-01"),
        ("过年回家被催婚", datetime(2024, 3, 20, 15, 0), "2024-02-10"),
        # still plans: looking ahead, or asked
        ("周末去露营，好期待", TUESDAY, "2024-12-07"),
        ("国庆去云南玩，听说那边风景特别好", DECEMBER_WEDNESDAY, "2025-10-01"),
        ("周末去爬山，好不好", TUESDAY, "2024-12-07"),
    ],
)
def test_an_outing_told_with_what_it_was_like_is_the_one_gone(said: str, now: datetime, day: str) -> None:
    """周末去看电影，那个电影好烂 said on a Tuesday read the coming weekend, and 国庆去云南玩，风景特别好 in December
    next October: an outing with no 了 is a plan only when nothing in its sentence tells what it was like."""
    assert [when[:10] for _, when in read(said, now)] == [day]
