"""Which of its two hours a Chinese clock said by a bare hour means: 三点 is 03:00 or 15:00, 九点 09:00 or
21:00. jionlp reads the morning's; the readers of :mod:`huiyi.text.times_zh` know what the words around the
clock say (a day before it, 要, 起床) and ask :func:`half_of_the_day` with the case those words make.

A part of the day said (凌晨三点, 下午三点, 明早六点), 零点, 十二点 and later, and a 24-hour clock (07:30)
say their half themselves and never come here.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from huiyi.text.periods import Range

__all__ = ["SMALL_HOURS", "Case", "half_of_the_day"]

Case = Literal["after a day", "alone", "to come", "sleep", "sleep to come", "alarm"]
SMALL_HOURS = range(1, 7)  # 1–6 点: the afternoon's after a day, the night's in sleep; 七点 on are the morning's
_HALF = timedelta(hours=12)
_DAY = timedelta(days=1)


def half_of_the_day(read: Range, now: datetime, case: Case) -> Range:
    """``read`` (a clock of one hour or less, at either of its two hours) at the hour ``case`` gives:

    ================  ==============================  =====  ====================================================
    case              said                            hours  reading
    ================  ==============================  =====  ====================================================
    ``after a day``   明天三点, 周五四点开会             1–6    the afternoon's (the night's is said 凌晨三点); today's
                                                             said before 07:00 (今天三点才睡 at 01:30) the night's
    ``alone``         加班到九点 at 21:09, 七点就醒了    1–11   the nearer of the two to ``now``
    ``to come``       我五点要去接孩子, 改到五点          1–6    the afternoon's when the morning's went by in the last
                                                             12 h (at 10:30: 17:00); else the nearer, as ``alone``
    ``sleep``         明天六点起床, 昨天三点才睡          1–11   the morning's: sleep is of the small hours, waking of
                                                             the morning (the reader sends 7–11 of waking only)
    ``sleep to come`` 我六点要起床 (no day said)          1–11   the morning's, today's or tomorrow's, the nearer
    ``alarm``         我订了六点的闹钟 (no day said)      1–11   the next morning one: an alarm rings ahead
    ================  ==============================  =====  ====================================================

    Any other hour is kept as read: 七点 after a day (后天七点见) is the morning's, 十五点 the afternoon's.

        >>> now = datetime(2024, 11, 13, 10, 30)
        >>> three = (datetime(2024, 11, 14, 3), datetime(2024, 11, 14, 4))
        >>> [str(half_of_the_day(three, now, case)[0]) for case in ("after a day", "alone", "sleep")]
        ['2024-11-14 15:00:00', '2024-11-14 03:00:00', '2024-11-14 03:00:00']
        >>> five = (datetime(2024, 11, 13, 5), datetime(2024, 11, 13, 6))
        >>> [str(half_of_the_day(five, now, case)[0]) for case in ("alone", "to come", "sleep to come", "alarm")]
        ['2024-11-13 05:00:00', '2024-11-13 17:00:00', '2024-11-13 05:00:00', '2024-11-14 05:00:00']

    As the readers ask it:

        >>> from huiyi.text.times_zh import chinese_phrases
        >>> [str(span[0]) for *_, span in chinese_phrases("天天加班到九点", datetime(2025, 3, 20, 21, 9))]
        ['2025-03-20 21:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("七点就醒了", datetime(2025, 3, 20, 12, 30))]
        ['2025-03-20 07:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("07:30到的，零点睡", datetime(2025, 3, 20, 21, 0))]
        ['2025-03-20 07:30:00', '2025-03-20 00:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("我五点要去接孩子，会议推迟到四点，五点就醒了", now)]
        ['2024-11-13 17:00:00', '2024-11-13 16:00:00', '2024-11-13 05:00:00']
    """
    morning = _morning_of(read)
    if morning is None:
        return read
    evening = morning[0] + _HALF, morning[1] + _HALF
    hour = morning[0].hour
    if case in ("sleep", "sleep to come", "alarm"):
        tomorrow = morning[0] + _DAY, morning[1] + _DAY
        if morning[0] > now or case == "sleep" or morning[1] > datetime.max - _DAY:
            return morning
        return tomorrow if case == "alarm" or tomorrow[0] - now < now - morning[0] else morning
    if case == "after a day":
        night = morning[0].date() == now.date() and now.hour < SMALL_HOURS.stop
        return evening if hour in SMALL_HOURS and not night else read
    if read[0].hour >= 12:
        return read  # 十五点 says its half
    nearer = evening if abs(evening[0] - now) < abs(morning[0] - now) else morning
    if case == "to come" and nearer is morning and hour in SMALL_HOURS and timedelta(0) <= now - morning[0] < _HALF:
        return evening  # 我七点要起床 at 10:30 stays the morning's: tomorrow's as likely as tonight's
    return nearer


def _morning_of(read: Range) -> Range | None:
    """The morning one of ``read``'s two hours; None when it has no other (零点, 十二点, a span of hours, the
    last day there is)."""
    if read[1] - read[0] > timedelta(hours=1) or read[0].hour % 12 == 0 or read[1] > datetime.max - _HALF:
        return None
    return read if read[0].hour < 12 else (read[0] - _HALF, read[1] - _HALF)
