"""Whole dates in digits (2024年3月5日) are read without jionlp, exactly as jionlp reads them.

A 20 000-character message of ~1,900 distinct dates asked jionlp about each (~1 ms a call, ~1.3 s of
CPU a fold). jionlp's answers stay the reference: ``scripts/whole_dates_check.py`` compares every date
of 1900–2099 (~100 s); here, a sample, and the forms jionlp reads otherwise are left to it.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from huiyi.text import times_zh
from huiyi.text.periods import whole_days
from huiyi.text.times import find_time_phrases

NOW = datetime(2024, 6, 1, 12, 0)
FORMS = ["{y}年{m}月{d}日", "{y}年{m:02d}月{d:02d}号", "{y}年{m}月{d:02d}日", "{y}年{m:02d}月{d}号"]


def written(day: date, form: str) -> str:
    return form.format(y=day.year, m=day.month, d=day.day)


def test_a_message_of_many_dates_asks_jionlp_about_none(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    ask = times_zh._jionlp

    def counting(phrase: str, now: datetime) -> object:
        asked.append(phrase)
        return ask(phrase, now)

    monkeypatch.setattr(times_zh, "_jionlp", counting)
    days = [date(2020, 1, 1) + timedelta(days=3 * i) for i in range(400)]
    text = "，".join(written(day, FORMS[i % len(FORMS)]) for i, day in enumerate(days))
    spans = find_time_phrases(text, NOW)
    assert [(s.start, s.end) for s in spans] == [whole_days(day) for day in days]
    assert asked == []


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    day=st.dates(date(1900, 1, 1), date(2099, 12, 31)),
    form=st.sampled_from(FORMS),
    now=st.datetimes(datetime(1950, 1, 1), datetime(2080, 1, 1)),
)
def test_a_whole_date_reads_as_jionlp_reads_it(day: date, form: str, now: datetime) -> None:
    phrase = written(day, form)
    assert times_zh._resolve_zh(phrase, now) == times_zh._jionlp(phrase, now) == whole_days(day)


@pytest.mark.parametrize(
    "phrase",
    [
        "2023年2月29日",  # no such day: jionlp's answer (none) stands
        "2024年4月31日",
        "2024年13月1日",  # jionlp reads these as the year or the month
        "2024年3月0日",
        "2024年3月32日",
        "1899年12月31日",  # years jionlp reads otherwise (3000年: none, 9999年: 999)
        "2100年1月1日",
        "9999年12月31日",
        "２０２４年３月５日",  # full-width digits: jionlp reads the year 24
        "20２4年3月5日",
        "二〇二四年三月五日",
        "24年3月5日",
        "2024年003月5日",
    ],
)
def test_other_forms_are_left_to_jionlp(phrase: str) -> None:
    assert times_zh._whole_date(phrase) is None


def test_a_text_of_dates_reads_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        "2030年3月5日的会改了，时间还是八点；2024年2月30日不存在，1999年12月31日跨年，"
        "2024年03月05号和2024年的3月6日都行，二〇二四年三月七日也行，2024年6月1号下午三点见"
    )
    fast = find_time_phrases(text, NOW)
    monkeypatch.setattr(times_zh, "_whole_date", lambda phrase: None)  # every phrase through jionlp
    assert fast == find_time_phrases(text, NOW)
