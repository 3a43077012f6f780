"""When a rule-made event happened: the time its first line names, or when it was said; not a time to come that a
later line names (issue 17, a companion month tried as an app would: 今天晚上去上了陶艺课 … 老师说两周后烧好
可以取 was dated two weeks on, so 上周二我干嘛了 never found it)."""

from __future__ import annotations

from datetime import datetime

from huiyi.model import Scope, ScopeKind
from rule_lines import extract_private

SCOPE = Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木")
SAID = datetime(2025, 3, 18, 21, 10)  # a Tuesday evening


def event_times(*texts: str) -> list[tuple[datetime | None, str]]:
    return [(event.time, event.about) for event in extract_private(SCOPE, texts, SAID).events]


def test_an_event_said_of_its_own_time_stays_then() -> None:
    assert event_times("今天晚上去上了陶艺课", "捏了一个歪歪扭扭的杯子", "老师说两周后烧好可以取") == [(SAID, "")]


def test_a_time_to_come_in_a_later_line_does_not_date_what_happened() -> None:
    [(when, about)] = event_times("我辞职了！", "下个月去新公司报到")
    assert when == SAID and about == ""


def test_a_past_time_in_a_later_line_and_a_plan_in_the_first_still_date_it() -> None:
    [(when, _)] = event_times("我跟你说个事", "昨天我去医院拔了智齿")
    assert when is not None and when.date() == datetime(2025, 3, 17).date()
    [(when, _)] = event_times("下周三我要考驾照", "好紧张")
    assert when is not None and when.date() == datetime(2025, 3, 26).date()


def test_an_english_line_telling_what_was_done_is_not_dated_by_the_time_to_come_it_names() -> None:
    english = Scope(agent="Kai", kind=ScopeKind.PERSON, key="Mia")

    def times(*texts: str) -> list[datetime | None]:
        return [event.time for event in extract_private(english, texts, SAID, "en").events]

    # Biscuit's bloodwork was done when it was said; Monday is when its results come
    assert times("The vet said Biscuit might have pancreatitis. They did bloodwork, results come back Monday.") == [
        SAID
    ]
    # a plan said first still dates the event by its day
    [when] = times("I'm flying to Osaka next Monday!", "So excited")
    assert when is not None and when.date() == datetime(2025, 3, 24).date()


def test_a_later_line_naming_a_month_or_a_year_does_not_date_the_talk() -> None:
    """A companion month: "My birthday was last month", said after news of the dog, filed that talk under
    the whole of January (its first day at midnight)."""
    english = Scope(agent="Kai", kind=ScopeKind.PERSON, key="Mia")
    lines = ("Yes! He's eating again and wagging his tail.", "Also Kai, actually I'm 27. My birthday was last month")
    assert [event.time for event in extract_private(english, lines, SAID, "en").events] == [SAID]
    assert event_times("我跟你说个事", "去年我在杭州住过半年") == [(SAID, "")]
    # a day is still when the talk's story happened, and a month in its first line dates it as before
    [(when, _)] = event_times("我跟你说个事", "上周六我去医院拔了智齿")
    assert when is not None and when.date() == datetime(2025, 3, 15).date()
    [(when, _)] = event_times("上个月我去了趟日本", "玩得特别开心")
    assert when is not None and (when.year, when.month) == (2025, 2)


def test_a_day_inside_the_month_named_first_dates_the_event_by_the_day() -> None:
    """ "My birthday was last month, October 3rd" filed the talk under October's first midnight."""
    english = Scope(agent="Kai", kind=ScopeKind.PERSON, key="Mia")
    said = datetime(2024, 11, 14, 10, 0)
    [event] = extract_private(english, ["My birthday was last month, October 3rd"], said, "en").events
    assert event.time == datetime(2024, 10, 3)


def test_a_part_of_a_day_is_shown_by_its_date_not_an_hour_nobody_set() -> None:
    # 明晚（2025-03-19 18:00） read to the chat model as a time agreed on; the phrase says the evening
    said = datetime(2025, 3, 18, 10, 0)
    zh = extract_private(SCOPE, ("我明晚要去看电影", "明天下午三点还要开会"), said)
    texts = [event.text for event in zh.events] + [fact.description for fact in zh.facts]
    assert any("明晚（2025-03-19）" in text for text in texts), texts
    assert any("明天下午三点（2025-03-19 15:00）" in text for text in texts), texts
    assert not any("18:00" in text for text in texts), texts
    en = extract_private(
        Scope(agent="Ava", kind=ScopeKind.PERSON, key="Liz"), ("I'm seeing a movie tomorrow evening",), said, "en"
    )
    texts = [event.text for event in en.events] + [fact.description for fact in en.facts]
    assert any("tomorrow evening (2025-03-19)" in text for text in texts), texts
