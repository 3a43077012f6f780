"""The hour a Chinese clock says: its numerals and parts of the day, and which of its two hours a bare hour
means (三点 is 03:00 or 15:00, 九点 09:00 or 21:00). jionlp reads the morning's; the readers of
:mod:`huiyi.text.times_zh` know what the words around the clock say (a day before it, 要, 起床) and ask
:func:`half_of_the_day` with the case those words make; :func:`small_hours_of_sleep` is the reader of sleep
(:mod:`huiyi.text.doing_hours_zh` that of doings with a half of their own: 到公司, 下班, 酒吧).

A part of the day said (凌晨三点, 下午三点, 明早六点), 零点, 十二点 and later, and a 24-hour clock (07:30)
say their half themselves and never come here.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from huiyi.patterns import lazy
from huiyi.text.periods import Range
from huiyi.text.tense_zh import clause_around, to_come

__all__ = [
    "AFTERNOON_SAID",
    "BARE_HOUR",
    "CLOCK",
    "DAY_PARTS",
    "NUM",
    "PART_OF_DAY",
    "SMALL_HOURS",
    "WORD_ONE_BEFORE",
    "Case",
    "clock_case",
    "half_of_the_day",
    "morning_of",
    "on_a_day_said",
    "small_hours_of_plans",
    "small_hours_of_sleep",
]

# Bounded, and digits never start mid-number, so a long digit run cannot make the scan quadratic.
NUM = r"(?:(?<![0-9０-９])[0-9０-９]{1,4}|[零〇一二两三四五六七八九十百千]{1,6})"
DAY_PARTS = r"凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间|半夜|深夜|午夜|白天"
# the 一 that ends a word (万一, 统一, 唯一, 第一, 初一) is no digit of the hour after it: 万一九点我还没到 is 九点
_ENDS_IN_ONE = r"[万统唯第之同专单逐划均归合初]"
_WORD_ONE = rf"(?<={_ENDS_IN_ONE})一(?=[一二两三四五六七八九十])"
WORD_ONE_BEFORE = lazy(rf"{_ENDS_IN_ONE}一$")  # 万一一点到不了: a word ends before the clock, as a stop does
# a clock time: 七点, 七点半, 差一刻三点, 19:30 (not 三点都, 两点儿)
CLOCK = (
    rf"(?:差(?:一刻|{NUM}分钟?))?(?!{_WORD_ONE}){NUM}点(?:{NUM}分|半|一刻|三刻|钟|整)?(?![都也儿])"
    r"|\d{1,2}[:：][0-5]\d"
)
PART_OF_DAY = lazy(rf"{DAY_PARTS}|[早晚夜]")  # a phrase that names its part of the day: 今晚, 明早, 周六晚上

Case = Literal[
    "after a day", "alone", "told done", "plan", "to come", "until", "was to come", "sleep", "sleep to come", "alarm"
]
SMALL_HOURS = range(1, 7)  # 1–6 点: the afternoon's after a day, the night's in sleep; 七点 on are the morning's
_HALF = timedelta(hours=12)
_DAY = timedelta(days=1)
_HOUR = timedelta(hours=1)
# a day said this far before a clock may still be its day; every phrase of a long text read back for each clock
# was quadratic (九点上课我先睡了，said 6,000 times: 4 s)
_DAY_REACH = 200
_SOON = timedelta(hours=1)  # a plan's small hour this near ahead is the night's: 六点 said at 05:30


def half_of_the_day(read: Range, now: datetime, case: Case) -> Range:
    """``read`` (a clock of one hour or less, at either of its two hours) at the hour ``case`` gives:

    ================  ==============================  =====  ====================================================
    case              said                            hours  reading
    ================  ==============================  =====  ====================================================
    ``after a day``   明天三点, 周五四点开会             1–6    the afternoon's (the night's is said 凌晨三点); today's
                                                             said before 07:00 (今天三点才睡 at 01:30) the night's
                                                             (a plan's: see :func:`small_hours_of_plans`)
    ``alone``         加班到九点 at 21:09, 七点就醒了    1–11   the nearer of the two to ``now``
    ``told done``     我九点起的, 九点多到的           1–11   the nearer, but the morning's when it has begun and
                                                             the evening's is ahead (at 15:00: 09:00, not 21:00)
    ``plan``          我九点上线, 我三点过去             1–11   the nearer, but the one ahead when the nearer is gone
                                                             and the other still ahead (at 11:15: 21:00)
    ``to come``       我五点要去接孩子, 改到五点          1–6    the afternoon's (at 10:30 or at 00:30: 17:00), but
                                                             the morning's within the hour ahead (at 04:30:
                                                             05:00); of 7–11 the nearer, as ``plan``; tomorrow's
                                                             when both of today's are gone (三点见 at 20:00: 15:00
                                                             tomorrow; 九点见 at 22:00: 09:00)
    ``until``         我要加班到三点                      1–6    the nearer, but the afternoon's when the morning's
                                                             went by in the last 12 h (at 00:30: 03:00; at 10:30:
                                                             15:00); as ``to come`` when it is gone
    ``was to come``   我本来要三点去的, 说好三点见         1–6    as ``to come``, but never tomorrow's: a plan told as
                                                             given up or agreed on is of a day under way
    ``sleep``         明天六点起床, 昨天三点才睡          1–11   the morning's: sleep is of the small hours, waking of
                                                             the morning (the reader sends 7–11 of waking only)
    ``sleep to come`` 我六点要起床 (no day said)          1–11   the morning's, today's while ahead, else tomorrow's:
                                                             a plan's hour gone is its next (at 15:00: 06:00
                                                             tomorrow)
    ``alarm``         我订了六点的闹钟 (no day said)      1–11   the next morning one: an alarm rings ahead
    ================  ==============================  =====  ====================================================

    Any other hour is kept as read: 七点 after a day (后天七点见) is the morning's, 十五点 the afternoon's.

        >>> now = datetime(2024, 11, 13, 10, 30)
        >>> three = (datetime(2024, 11, 14, 3), datetime(2024, 11, 14, 4))
        >>> [str(half_of_the_day(three, now, case)[0]) for case in ("after a day", "alone", "sleep")]
        ['2024-11-14 15:00:00', '2024-11-14 03:00:00', '2024-11-14 03:00:00']
        >>> five = (datetime(2024, 11, 13, 5), datetime(2024, 11, 13, 6))
        >>> [str(half_of_the_day(five, now, case)[0]) for case in ("alone", "to come", "sleep to come", "alarm")]
        ['2024-11-13 05:00:00', '2024-11-13 17:00:00', '2024-11-14 05:00:00', '2024-11-14 05:00:00']

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
    morning = morning_of(read)
    if morning is None:
        return read
    evening = morning[0] + _HALF, morning[1] + _HALF
    hour = morning[0].hour
    if case in ("sleep", "sleep to come", "alarm"):
        if morning[0] > now or case == "sleep" or morning[1] > datetime.max - _DAY:
            return morning
        # 我六点要起床 at 10:30 was today's 06:00, the nearer, while 七点 was tomorrow's: to come is ahead
        return morning[0] + _DAY, morning[1] + _DAY
    if case == "after a day":
        night = morning[0].date() == now.date() and now.hour < SMALL_HOURS.stop
        return evening if hour in SMALL_HOURS and not night else read
    if read[0].hour >= 12:
        return read  # 十五点 says its half
    # as near as each other (两点见 at 08:00): the one ahead
    nearer = evening if abs(evening[0] - now) <= abs(morning[0] - now) else morning
    if case in ("to come", "was to come") and hour in SMALL_HOURS and not timedelta(0) < morning[0] - now <= _SOON:
        # a plan at a small hour is the afternoon's, said at 10:30 or at 00:30 (the night's is said 凌晨三点);
        # not one within the hour (我六点要去赶飞机 at 05:30: up for it); 我七点要起床 at 10:30 stays the
        # morning's: tomorrow's as likely as tonight's
        nearer = evening
    if case == "until" and nearer is morning and hour in SMALL_HOURS and timedelta(0) <= now - morning[0] < _HALF:
        nearer = evening  # 我要加班到五点 at 10:30: 17:00
    if case == "told done" and morning[0] <= now < nearer[0]:
        return morning  # 我九点起的 at 15:00, as near as 21:00: what was done is not ahead
    if case in ("to come", "until", "plan") and nearer[1] <= now < evening[0]:
        # 我九点上线 at 11:15: the evening's, still ahead, not the morning's gone (nor, said 要, tomorrow's)
        return evening
    if case in ("to come", "until") and nearer[1] <= now and evening[1] <= datetime.max - _DAY:
        # both gone today (三点见 said at 20:00): tomorrow's, the afternoon's of a small hour
        return (evening[0] + _DAY, evening[1] + _DAY) if hour in SMALL_HOURS else (morning[0] + _DAY, morning[1] + _DAY)
    return nearer


def morning_of(read: Range) -> Range | None:
    """The morning one of ``read``'s two hours; None when it has no other (零点, 十二点, a span of hours, the
    last day there is)."""
    if read[1] - read[0] > timedelta(hours=1) or read[0].hour % 12 == 0 or read[1] > datetime.max - _HALF:
        return None
    return read if read[0].hour < 12 else (read[0] - _HALF, read[1] - _HALF)


# waking is of the morning (七点起床); sleep of the night too (十一点睡), so only its small hours are the morning's;
# the verb 起 after must, will or then (五点就得起, 四点要起来), not 一起, 买得起, 站起来; a sunrise (看日出) is of the
# morning too; 午觉, 下班, 下午 say the afternoon's
_WAKING = lazy(
    r"醒|起床|早起|闹钟|一早|天亮|日出|[要就才该]起来|"
    r"(?:(?<![买看对付经禁赔担受玩吃住用租瞧])得|[要就才该])起(?![来码初身飞草])"
)
_SLEEP = lazy(r"睡|熬夜|失眠|通宵")
_ALARM_SET = lazy(r"[定订设调上].{0,6}闹钟|闹钟.{0,2}[定订设调]")  # 订了六点的闹钟: the next 06:00
AFTERNOON_SAID = lazy(r"午|下班|放学")
_NAP = lazy(r"(?<![上下])午[觉休睡]")  # 睡午觉, 午休: a midday nap (下午睡 is a sleep in the afternoon)
_HALF_OF_NOON = 6  # a nap's 七点 to 十一点 are the morning's (nearer noon), 一点 to 六点 the afternoon's
_BEDTIME = range(8, 12)  # 八点 to 十一点 of going to bed are the evening's (十点睡); of waking the morning's
_GOING_TO = lazy(r"要|得|该|准备|打算")
_SLEPT_IN = lazy(r"(?:睡|一觉|躺)到$|懒觉")  # 睡到十点: when sleep ended
_BACK_TO_SLEEP = lazy(r"回笼觉")  # 我十点睡了个回笼觉: back to sleep after waking, a morning's
_FELL_ASLEEP = lazy(r"睡[着下]?[了的]")  # 我十点就睡了, 十点多睡的: gone to bed already, not tonight
# 九点, 十一点半, 3点: a clock of 1–11 that says no half of its own
BARE_HOUR = lazy(rf"(?<![0-9０-９十])(?:十一?|[一二两三四五六七八九]|0?[1-9]|1[01])点(?:{NUM}分|半|一刻|三刻|钟|整)?$")


def small_hours_of_sleep(text: str, found: list[tuple[int, int, Range]], now: datetime) -> list[tuple[int, int, Range]]:
    """A bare hour read as the afternoon's or evening's (明天六点, 我五点要…) is the morning's when its clause
    speaks of sleep (its small hours) or waking: 明天六点起床 is not 18:00, nor 昨天三点才睡 15:00. Said alone,
    an alarm set (订了六点的闹钟) is the next of that hour, and so is one to come (我六点要起床 at 10:30: tomorrow's).
    A clock of a nap (两点午休, 我九点睡午觉) is the half nearer noon.

        >>> from huiyi.text.times_zh import chinese_phrases
        >>> now = datetime(2024, 11, 13, 10, 30)
        >>> [str(span[0]) for *_, span in chinese_phrases("明天六点起床，我今天五点就醒了，明天三点开会", now)]
        ['2024-11-14 06:00:00', '2024-11-13 05:00:00', '2024-11-14 15:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("我明天要早起，五点就得起。我订了六点的闹钟", now)]
        ['2024-11-14 00:00:00', '2024-11-14 05:00:00', '2024-11-14 06:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("我六点要起床，七点要起床", datetime(2024, 11, 13, 20))]
        ['2024-11-14 06:00:00', '2024-11-14 07:00:00']
    """
    out: list[tuple[int, int, Range]] = []
    for start, end, span in found:
        clock = BARE_HOUR.search(text, start, end)
        if clock and not PART_OF_DAY.search(text, start, clock.start()):
            clause = clause_around(text, start)
            small = (span[0].hour % 12) in SMALL_HOURS
            if _NAP.search(clause):
                span = _nearer_noon(span)
            elif not AFTERNOON_SAID.search(clause) and (_WAKING.search(clause) or (small and _SLEEP.search(clause))):
                alone = clock.start() == start and not on_a_day_said(span, out, start)
                span = half_of_the_day(span, now, _sleep_case(clause) if alone else "sleep")
            elif (bedtime := _bedtime(text, clause, clock.start(), span)) is not None:
                ahead = to_come(clause) or _GOING_TO.search(clause) is not None  # 要睡了: about to, not done
                done = not ahead and _FELL_ASLEEP.search(clause) is not None
                span = _evening_of_sleep(bedtime, now, bare=clock.start() == start, ahead=ahead, done=done)
        out.append((start, end, span))
    return out


def on_a_day_said(span: Range, before: list[tuple[int, int, Range]], at: int) -> bool:
    """Whether ``span`` (said at ``at``) lies in a day (or part of one) read before it, at most ``_DAY_REACH``
    characters back: 周六一早五点要出发 is that Saturday's, even said on it at 15:00, not the next 05:00 a plan with
    no day has."""
    for said_at, _, day in reversed(before):
        if said_at < at - _DAY_REACH:
            return False
        if day[0] <= span[0] and span[1] <= day[1] and _HOUR < day[1] - day[0] <= _DAY:
            return True
    return False


def _nearer_noon(read: Range) -> Range:
    """Of ``read``'s two hours the one nearer noon, the afternoon's when as near (六点): a nap is taken about
    midday, so 我九点睡午觉 is not 21:00, nor 两点午休 02:00."""
    morning = morning_of(read)
    if morning is None:
        return read
    return morning if morning[0].hour > _HALF_OF_NOON else (morning[0] + _HALF, morning[1] + _HALF)


def _bedtime(text: str, clause: str, at: int, span: Range) -> Range | None:
    """The morning one of a clock of 8–11 in ``clause`` when it says when someone goes to bed (我十点要睡觉,
    昨天十一点才睡), not when sleep ends (睡到十点, 十点才睡醒) or a nap (午觉); else None."""
    morning = morning_of(span)
    if morning is None or morning[0].hour not in _BEDTIME or _SLEPT_IN.search(text, max(0, at - 3), at):
        return None
    if not _SLEEP.search(clause) or _WAKING.search(clause) or AFTERNOON_SAID.search(clause):
        return None
    return None if _BACK_TO_SLEEP.search(clause) else morning


def _evening_of_sleep(morning: Range, now: datetime, *, bare: bool, ahead: bool, done: bool = False) -> Range:
    """A bedtime's evening: of the day said (昨天十一点才睡: 23:00 yesterday); said alone, the next one when it is
    still to come (我十点要睡觉, 我十一点要睡了 at 15:00: 22:00, 23:00), the last one begun when told as done
    (我十点就睡了 at 15:00: last night's), else the nearer of last night's and tonight's (我十一点才睡: at 10:00
    last night's, at 20:00 tonight's)."""
    evening = morning[0] + _HALF, morning[1] + _HALF
    if not bare or evening[1] > datetime.max - _DAY:
        return evening
    today = evening if evening[0].date() == now.date() else (evening[0] - _DAY, evening[1] - _DAY)
    if ahead:
        return today if today[1] > now else (today[0] + _DAY, today[1] + _DAY)
    last_night = today[0] - _DAY, today[1] - _DAY
    if done:
        return today if today[0] <= now else last_night
    return today if abs(today[0] - now) <= abs(now - last_night[0]) else last_night


def small_hours_of_plans(text: str, found: list[tuple[int, int, Range]], now: datetime) -> list[tuple[int, int, Range]]:
    """Today's small hour of a plan (今天三点见, 今天有事，三点见) said in the night is the afternoon's, as a bare
    plan's is (三点见 at 00:30 is 15:00): after a day the night's was kept for 今天三点才睡. But beside a thing
    of the night ahead (五点的航班, 我三点下班), a plan's small hour still ahead is that night's too.

        >>> from huiyi.text.times_zh import chinese_phrases
        >>> now = datetime(2025, 3, 5, 0, 30)
        >>> [str(span[0]) for *_, span in chinese_phrases("今天三点见，今天三点才睡", now)]
        ['2025-03-05 15:00:00', '2025-03-05 03:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("五点的航班，四点要出门", now)]
        ['2025-03-05 05:00:00', '2025-03-05 04:00:00']
    """
    if now.hour >= SMALL_HOURS.stop:
        return found
    cases = [_plan_case(text, start, end, span, now) for start, end, span in found]
    tonight = any(
        case is None and _of_the_night_ahead(text, start, span, now)
        for (start, _, span), case in zip(found, cases, strict=True)
    )
    out: list[tuple[int, int, Range]] = []
    for (start, end, span), case in zip(found, cases, strict=True):
        if case is not None and (morning := morning_of(span)) is not None:
            span = morning if tonight and morning[0] > now else half_of_the_day(morning, now, case)
        out.append((start, end, span))
    return out


def _plan_case(text: str, start: int, end: int, span: Range, now: datetime) -> Case | None:
    """The case of a plan's bare small hour of today at ``text[start:end]`` (三点见, 今天三点要去), else None."""
    clock = BARE_HOUR.search(text, start, end)
    morning = morning_of(span)
    if clock is None or morning is None or PART_OF_DAY.search(text, start, clock.start()):
        return None
    if morning[0].date() != now.date() or morning[0].hour not in SMALL_HOURS:
        return None
    case = clock_case(text, clock.start(), end)
    return case if case in ("to come", "was to come", "until") else None


def _of_the_night_ahead(text: str, start: int, span: Range, now: datetime) -> bool:
    """Whether ``span`` is a small hour of the night under way, not yet come, and no sleep or waking's."""
    night = span[0] > now and span[0].date() == now.date() and span[0].hour in SMALL_HOURS
    clause = clause_around(text, start)
    return night and span[1] - span[0] <= timedelta(hours=1) and not (_SLEEP.search(clause) or _WAKING.search(clause))


def _sleep_case(clause: str) -> Case:
    """The case of a clock said alone (no day before it) in a clause of sleep or waking; a plan given up
    (我本来六点要起床的) is of the day it was for."""
    if _ALARM_SET.search(clause):
        return "alarm"
    if _GIVEN_UP.search(clause):
        return "sleep"
    return "sleep to come" if to_come(clause) else "sleep"


_UNTIL = lazy(r"(?<![一等])到$")  # 加班到三点, 要忙到两点: not 一到三点就 (each time), 等到 (a wait)
_MOVED_TO = lazy(r"(?:改|推迟|推|延|延期|提前|挪|换|定|约)(?:到|在)$")  # 改到五点: the new time is ahead
# 三点的会改到五点: the time a plan was moved from is a plan's time too (not 03:00 said at 08:00)
_MOVED_FROM = lazy(r"(?:的[^，。！？；,.!?;\n\d]{0,3})?(?:改|推迟|推|延|延期|提前|挪|换)(?:到|在)")


_MEET_AT = lazy(r"(?:见|集合|碰头)(?![过了到的着])")  # 三点见: a meeting set; not 三点见到他, 三点见的他
# 我们三点见面聊的, 三点集合的: a 是…的 tells when a thing was done
_DONE_AT = lazy(r"的[啊呀吧呢哦嘛]*$")
# 我本来要三点去的: a plan given up, told of the day it was for
_GIVEN_UP = lazy(r"本来|原本|原来|本打算")
# 我三点要去开会，结果取消了: a later clause of the sentence tells the plan is off
_CALLED_OFF_AFTER = lazy(
    r"[^。！？!?\n]{0,30}?(?:结果|后来|但是|可是|不过|没想到)[^。！？!?\n]{0,10}?(?:取消|没去|泡汤|黄了|算了|没成)"
)


# 如果九点还没到公司, 要是三点他不来: a condition's time is one ahead, whatever its 还没 or 了 tell
_IF_BEFORE = lazy(r"(?:如果|要是|万一|假如|假设|倘若|若是)[^，。！？；,.!?;\n]{0,12}$")
# …but not one wished undone (如果当时九点到公司就不会迟到了, 要是九点到就好了): the day told of, not one ahead
_IF_THEN = lazy(r"当时|那时|那天|那会|早知道|本来")
_IF_UNDONE_AFTER = lazy(r"[^。！？!?\n]{0,20}?(?:就好了|多好|就不会|也不会|就能[^，。！？；,.!?;\n]{0,6}了)")


# 说好三点见, 昨天约好了在三点: a plan agreed on before, whose day is not said; not 听说好像
# (heard it seems), 说好看, 说好好干
_AGREED = lazy(r"(?<![听据])(?:说|约|讲|商量|谈|定)好(?![像看听吃玩好])了?[^，。！？；,.!?;\n]{0,8}$")
# 说好三点见，别迟到啊: a reminder after it says the meeting is ahead (at 20:30, tomorrow's)
_REMINDED_AFTER = lazy(r"[^。！？!?\n]{0,20}?(?:别迟到|不要迟到|别忘|不要忘|不见不散|准时|到时候?|记得)")


# 我九点上线, 我八点到, 我三点过去: a going or starting right after the clock, with no 要, is a plan as often; not
# 九点到五点, 十点到晚六点 (a range), 九点来着 (a recall)
_DOING_AT = lazy(
    rf"(?:就|再|准时|左右|前后|整)?(?:到(?!\s*(?:{NUM}|[0-9０-９]|{DAY_PARTS}|[早晚夜今明后周]|星期|礼拜|下周|下个))"
    r"|上线|过去|过来|出门|出发|动身|走|回来|回去|回家|开始|开播|开黑|下楼|上车|去|来(?!着))"
)
# 我九点就到了, 九点才到 (not until then: as often told of what was), 已经, 刚
_TOLD_DONE = lazy(r"了|(?<![度经通难])过(?![来去])|才|已经|刚")
# 我九点到公司，发现门锁了; 我九点到，他十点才到; 九点开始下雨，到现在还没停; 我九点到公司，老板还没来: a later
# clause of the sentence tells the going done, as a 了 in its own clause does (a bare 了 after it is left:
# 我九点到，到了给你打电话 is a plan; so is a 还没 of a condition: 你要是还没来就打电话, 还没到的话)
_TOLD_DONE_AFTER = lazy(
    r"[^。！？!?\n]{0,30}?(?:结果|发现|一看|到现在|已经|(?<!刚)刚[才刚]?(?!好)|才(?!能|可以|行|会)"
    r"|了[一两三四五六七八九十几半\d]+个?(?:多|半)?(?:小时|钟头|分钟)"  # 排了两小时队: how long it took
    r"|(?<!要是)(?<!如果)(?<!万一)(?<!假如)还没[^，。！？；,.!?;\n的就]{0,6}(?:[，。！？；,.!?;\n]|$))"
)
# 我们九点吃的晚饭, 九点到的公司: a 是…的 with its object after (not 九点多的车, 九点场的电影, 九点以后的)
_DID_AT = lazy(
    r"(?:就|才|已经)?[^\s\d的了多左前后以之场档班趟次号那这，。！？；,.!?;\n点]{1,2}的"
    r"(?![\s啊呀吧呢哦嘛吗]*(?:[，。！？；,.!?;\n]|$))"
)
# 你今天九点到的吗: asks of what was done, as 是…的 tells it
_ASKED_DONE = lazy(r"的吗[？?]*$")
# 我平时九点到公司, 一般九点出门: a habit, of no one day, is no plan of today's
_HABIT = lazy(r"平时|平常|一般|通常|每天|天天|每次|总是|经常|往常|向来|习惯")


def _wished_undone(text: str, start: int, end: int) -> bool:
    """Whether the condition a clock at ``text[start:end]`` is in wishes a thing gone had been otherwise."""
    return bool(_IF_THEN.search(text, max(0, start - 14), end) or _IF_UNDONE_AFTER.match(text, end))


def clock_case(text: str, start: int, end: int) -> Case:
    """How a bare clock's clause reads it: ``to come`` when it says so (要) or sets a condition (如果), it is
    what a thing was moved to (改到五点) or a meeting's (三点见); ``plan`` when a going or starting follows it,
    told neither done nor given up (我九点上线); ``was to come`` when a plan is told as given up
    (我本来要三点去的), it is the time a plan was moved from (三点的会改到五点) or one agreed on (说好三点见);
    ``told done`` when a 是…的 tells when a thing was done (我九点起的); else ``alone``.

    A plan agreed on with no day said (昨天说好三点见, said at 20:30) is read as today's, gone, and not as
    tomorrow's: it may have been met already, and a meeting gone read as one ahead is a false reminder."""
    if _AGREED.search(text, max(0, start - 12), start) and not _REMINDED_AFTER.match(text, end):
        return "was to come"
    clause = clause_around(text, start)
    given_up = _GIVEN_UP.search(clause) is not None or _CALLED_OFF_AFTER.match(text, end) is not None
    if _MEET_AT.match(text, end) and "了" not in clause and not _DONE_AT.search(clause):
        return "was to come" if given_up else "to come"
    if _MOVED_TO.search(text, max(0, start - 4), start) is not None:
        # 三点改到四点了: moved, as told once done, on the day of the 三点 it was moved from
        return "was to come" if given_up or "了" in text[end : end + 2] else "to come"
    if _MOVED_FROM.match(text, end) is not None:  # a plan's time, of the day it is told on (差点改到明天)
        return "was to come"
    if to_come(clause) or (_IF_BEFORE.search(text, max(0, start - 14), start) and not _wished_undone(text, start, end)):
        if given_up:
            return "was to come"
        # 我要加班到三点 at 00:30: a stretch under way ends at the nearer three, 03:00
        return "until" if _UNTIL.search(text, max(0, start - 2), start) else "to come"
    if _DOING_AT.match(text, end) and not given_up and _TOLD_DONE_AFTER.match(text, end):
        return "told done"  # 我九点到公司，发现门锁了 at 15:00: not the 21:00 as near and still ahead
    did = _DID_AT.match(text, end) is not None
    if _DOING_AT.match(text, end) and not (
        given_up
        or did
        or _TOLD_DONE.search(clause)
        or _DONE_AT.search(clause)
        or _ASKED_DONE.search(clause)
        or _HABIT.search(clause)
    ):
        return "plan"
    # 车是九点的 tells no doing; 电影是七点开始的，别迟到 tells when a thing is to be, the reminder says ahead
    if (
        (did or _DONE_AT.search(clause))
        and not given_up
        and text[end : end + 1] != "的"
        and not _REMINDED_AFTER.match(text, end)
    ):
        return "told done"
    return "alone"
