"""Chinese time phrases: a regex finds candidate runs (上周三晚上八点), and each run is resolved by
small rules here (刚才, 最近, 几天前, 周末 as a whole weekend, 2024年3月5日) or by ``jionlp_time``,
longest reading first, to a half-open range (see :mod:`huiyi.text.periods`).

``jionlp_time`` is imported lazily: its first call costs ~80 ms.
"""

from __future__ import annotations

import re
import threading
from datetime import date, datetime, timedelta
from typing import Any

from huiyi.patterns import lazy
from huiyi.text import holidays
from huiyi.text.clock_days_zh import clocks_on_their_day
from huiyi.text.doing_hours_zh import hours_of_usual_doings, mornings_after_a_late_evening
from huiyi.text.hours_zh import (
    CLOCK,
    DAY_PARTS,
    NUM,
    PART_OF_DAY,
    WORD_ONE_BEFORE,
    half_of_the_day,
    small_hours_of_plans,
    small_hours_of_sleep,
)
from huiyi.text.new_year_zh import NEW_YEAR, around_new_year, new_year_by_tense
from huiyi.text.periods import (
    DAY_TURNS_AT,
    Range,
    just_now,
    midnight,
    month_span,
    recent,
    shift_month,
    vague_ago,
    week_start,
    weekend_span,
    while_ago,
    whole_days,
)
from huiyi.text.ranges_zh import range_ends
from huiyi.text.tense_zh import BARE_MONTH, FESTIVALS, by_tense, called_by, festival_as_thing
from huiyi.text.tense_zh import clause_around as clause_around  # read by times_en
from huiyi.text.tense_zh import to_come as to_come

# which week: 上个, 下下, 这一个, 本; not the 上 of 马上 (soon): 马上周末了 is the coming weekend, not the last
_WEEKEND_WHICH = r"(?<!马)上上个?|下下个?|(?<!马)上一?个?|下一?个?|这一?个?|本"
_ZH_ATOMS = [
    # vague phrases first, so 前几天 is not read as 前 + 几天
    r"刚才|刚刚|方才|最近|近来|近期|这几天|这两天|前几天|前两天|前些天|前些日子|前阵子|前段时间|这段时间|这阵子",
    r"(?:好)?几个?(?:天|周|星期|礼拜|月|年|小时|钟头)(?:以前|之前|前)",
    rf"(?:最近|过去|近)的?{NUM}个?(?:天|周|星期|礼拜|月|年|小时)",
    rf"(?<!月)(?:{NUM}个?半?|半个?)(?:天|日|周|星期|礼拜|月|年|小时|钟头|分钟)半?(?:以前|之前|前|以后|之后|后)",
    rf"{NUM}年(?![级代纪])",
    rf"{NUM}月(?:份|[上中下]旬|[初中底末])?",
    rf"{NUM}[日号](?![线楼房床门机车位子])",
    r"大前天|大后天|前天|昨天|昨日|昨儿|今天|今日|今儿|明天|明日|明儿|后天",
    r"昨晚|今晚|明晚|昨夜|今夜|今早|昨早|明早",
    r"大前年|大后年|前年|去年|今年|明年|后年|上半年|下半年|年初|年中|年底|年末",
    NEW_YEAR,
    rf"(?:{_WEEKEND_WHICH})(?:周|星期|礼拜)[一二三四五六日天末1-7]?",
    r"(?:周|星期|礼拜)[一二三四五六日天末1-7]",
    r"(?:上上|下下|上|下|这|本)个?月(?:[上中下]旬|[初底末]|中(?![的有间]))?|月(?:[上中下]旬|[初中底末])",
    r"[春夏秋冬](?:天|季)",
    rf"(?:{DAY_PARTS})(?!好)",  # not 晚上好
    CLOCK,
    FESTIVALS,
]
ZH_ATOM = lazy("|".join(f"(?:{atom})" for atom in _ZH_ATOMS))
_ZH_GLUE = frozenset({"", "的"})
_ZH_MAX_ATOMS = 6  # longer runs are split; keeps the longest-first search small
_ZH_AMBIGUOUS_CLOCK = lazy(r"[一两几]点")  # 好一点, 两点 (points) — not a time on their own
# …unless what is around it says a time: 我两点要去开会, 一点见 (not 有一点累, 吃了两点东西, 这两点要注意)
_CLOCK_BEFORE = lazy(r"[，。！？；,.!?;\s我你他她们咱在到约是等从改推挪换定]")
_CLOCK_AFTER = lazy(
    r"(?:就|才|还|准时|左右|整)?(?:要(?!求)|得|去|来|回|开|见|到|前|之前|以前|以后|之后|后|的[会课车票飞]"
    r"|在(?![意乎])|出发|集合|上课|下课|上班|下班|起床|睡|午[休睡觉]|醒|吃饭|碰头|结束|有[会课事])"
)
_RANGE_FROM_A_CLOCK = lazy(r"(?:点|点半|点钟|[0-9][:：][0-5][0-9])\s*(?:到|至|-|－|~|～)\s*$")

_ZH_ALIASES = [
    ("的", ""),
    ("昨晚", "昨天晚上"),
    ("昨夜", "昨天晚上"),
    ("今晚", "今天晚上"),
    ("今夜", "今天晚上"),
    ("明晚", "明天晚上"),
    ("今早", "今天早上"),
    ("昨早", "昨天早上"),
    ("明早", "明天早上"),
    ("昨日", "昨天"),
    ("昨儿", "昨天"),
    ("今日", "今天"),
    ("今儿", "今天"),
    ("明日", "明天"),
    ("明儿", "明天"),
    ("这个月", "本月"),
    ("上上个", "上上"),  # 上上个星期三: jionlp reads 上上 only
    ("下下个", "下下"),
    ("这月", "本月"),
]

# a part of the day before a bare weekday (早上周一) is read by jionlp as 上周一: said the usual way round
_ZH_PART_FIRST = lazy(rf"({DAY_PARTS})((?:周|星期|礼拜)[一二三四五六日天1-7])")
_ZH_VAGUE_AGO = lazy(r"(?:好)?几个?(天|周|星期|礼拜|月|年|小时|钟头)(?:以前|之前|前)")
_ZH_UNIT = {"天": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year"}
_ZH_UNIT |= {"小时": "hour", "钟头": "hour"}
_ZH_MONTH_PART = {
    "月初": 1,
    "月中": 11,
    "月底": 21,
    "月末": 21,
    "月上旬": 1,
    "月中旬": 11,
    "月下旬": 21,
}  # the day each part starts on
_ZH_WEEKEND = lazy(rf"({_WEEKEND_WHICH})?(?:周|星期|礼拜)末")
# a part of a month named from this one (下个月中旬, 上个月底), once the aliases made 这个月 本月
_ZH_SHIFTED_MONTH_PART = lazy(r"(上上|下下|上|下|本)个?月([上中下]旬|[初中底末])")
_ZH_MONTH_SHIFT = {"上上": -2, "上": -1, "本": 0, "下": 1, "下下": 2}


def _zh_rule(phrase: str, now: datetime) -> Range | None:
    """Phrases jionlp cannot read, or reads in a way recall should not (周末 = Sunday only)."""
    if phrase in ("刚才", "刚刚", "方才"):
        return just_now(now)
    if phrase in ("最近", "近来", "近期", "这段时间", "这阵子"):
        return recent(now, 30)
    if phrase in ("这几天",):
        return recent(now, 6)
    if phrase in ("这两天",):
        return recent(now, 2)
    if phrase in ("前几天", "前些天", "前些日子"):
        return vague_ago(now, "day", 2, 5)
    if phrase in ("前阵子", "前段时间"):
        return while_ago(now)
    vague = _ZH_VAGUE_AGO.fullmatch(phrase)
    if vague:
        return vague_ago(now, _ZH_UNIT[vague.group(1)], 2, 5)
    part = _ZH_MONTH_PART.get(phrase)
    if part is not None:  # 月底 alone is this month's (jionlp reads none): its first, middle or last ten days
        first = now.date().replace(day=part)
        end = month_span(now.year, now.month)[1] if part == 21 else midnight(first) + timedelta(days=10)
        return midnight(first), end
    if shifted := _ZH_SHIFTED_MONTH_PART.fullmatch(phrase):
        year, month = shift_month(now.year, now.month, _ZH_MONTH_SHIFT[shifted.group(1)])
        start, end = month_span(year, month)
        tenth = start.replace(day=_ZH_TENTHS[shifted.group(2)])
        return tenth, end if tenth.day == 21 else tenth + timedelta(days=10)
    if phrase in ("上上月", "下下月"):  # jionlp reads 上上个月 as 上个月
        return month_span(*shift_month(now.year, now.month, -2 if phrase[0] == "上" else 2))
    if phrase in ("年前", "年后"):
        return around_new_year(phrase, now, spring_festival)
    if holiday := _ZH_HOLIDAY.fullmatch(phrase):  # jionlp knows 圣诞节, not 感恩节 or 母亲节
        year = now.year + _ZH_YEARS.get(holiday.group(1) or "", 0)
        return whole_days(holidays.day(_ZH_HOLIDAYS[holiday.group(2)], year))
    if festival := _ZH_FESTIVAL.fullmatch(phrase):
        return _festival_of(festival.group(2), now.year + _ZH_YEARS.get(festival.group(1) or "", 0))
    weekend = _ZH_WEEKEND.fullmatch(phrase)
    return weekend_named(weekend.group(1) or "", now) if weekend else None


_ZH_HOLIDAYS = {
    "感恩节": "thanksgiving",
    "万圣节": "halloween",
    "万圣夜": "halloween",
    "母亲节": "mother's day",
    "父亲节": "father's day",
    "复活节": "easter",
}
_ZH_YEARS = {"前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}
_ZH_HOLIDAY = lazy(rf"({'|'.join(_ZH_YEARS)})?({'|'.join(_ZH_HOLIDAYS)})")
# a festival jionlp knows by name, of the year said: it read 明年清明节 as this year's, and 除夕 as none
_ZH_FESTIVAL = lazy(rf"({'|'.join(_ZH_YEARS)})?(除夕|{FESTIVALS})")


def _festival_of(name: str, year: int) -> Range | None:
    """``name``'s day in ``year``: jionlp's reading with a base in that year; 除夕 is the eve of 春节, 平安夜
    of Christmas, 过年 春节 itself (jionlp reads none of them).

    >>> [str(_festival_of(name, 2025)[0].date()) for name in ("清明节", "除夕", "春节", "中秋", "平安夜")]
    ['2025-04-04', '2025-01-28', '2025-01-29', '2025-10-06', '2025-12-24']
    """
    if name == "过年":
        name = "春节"
    if name == "平安夜":
        return whole_days(date(year, 12, 24))
    if name == "除夕":
        spring = _festival_of("春节", year)
        return (spring[0] - timedelta(days=1), spring[0]) if spring else None
    read = _jionlp(name, datetime(year, 6, 1))
    # a name jionlp does not know as a day (复活节 is read by holidays) comes back as the whole year
    return read if read is not None and read[0].year == year and read[1] - read[0] < timedelta(days=31) else None


def spring_festival(year: int) -> Range | None:
    """The day of 春节 in ``year`` (by jionlp's lunar calendar)."""
    return _festival_of("春节", year)


def weekend_named(prefix: str, now: datetime) -> Range:
    """The weekend 上个/下下/这个 (``prefix``) names; a bare one (no prefix) is the nearest, as 周末 reads."""
    which = "bare" if not prefix else "last" if prefix.startswith("上") else "next"
    which = "this" if prefix.startswith(("这", "本")) else which
    prefix = prefix.removesuffix("个") if prefix.startswith(("上上", "下下")) else prefix
    if prefix in ("上上", "下下"):
        monday = week_start(now.date()) + timedelta(days=-14 if prefix == "上上" else 14)
        return whole_days(monday + timedelta(days=5), 2)
    return weekend_span(now, which)


WEEKEND_PREFIX = lazy(rf"(?:{_WEEKEND_WHICH})$")  # at the end of what precedes an English weekend


_jionlp_lock = threading.Lock()
_jionlp_parse: Any = None


def _jionlp(phrase: str, now: datetime) -> Range | None:
    """Ask jionlp_time about one candidate. It keeps per-call state on a shared parser, hence the lock."""
    global _jionlp_parse
    with _jionlp_lock:
        if _jionlp_parse is None:
            import jionlp_time

            _jionlp_parse = jionlp_time.parse_time
        base = datetime(now.year, now.month, now.day, now.hour, now.minute, now.second)
        try:
            result = _jionlp_parse(phrase, time_base=base)
        except Exception:  # a third-party parser fails in many ways; none of them is ours to raise
            return None
    if not isinstance(result, dict) or result.get("type") not in ("time_point", "time_span"):
        return None
    try:
        first, last = (datetime.strptime(value, "%Y-%m-%d %H:%M:%S") for value in result["time"])
    except (TypeError, ValueError):  # "inf" bounds of 2023年以后
        return None
    if last.second == 59:
        last += timedelta(seconds=1)  # jionlp's inclusive 23:59:59 → our exclusive 00:00
    if last <= first:
        last = first + timedelta(seconds=1)
    return first, last


# a whole date in digits, in the years jionlp reads as written (it reads 3000年 or 9999年 otherwise)
_ZH_DATE = lazy(r"(19[0-9]{2}|20[0-9]{2})年(0?[1-9]|1[0-2])月(0?[1-9]|[12][0-9]|3[01])[日号]")


def _whole_date(phrase: str) -> Range | None:
    """2024年3月5日 as jionlp reads it, without its ~1 ms: a message listing many dates paid that for each
    (a date that does not exist, 2月30日, is left to jionlp)."""
    found = _ZH_DATE.fullmatch(phrase)
    if found is None:
        return None
    year, month, day = map(int, found.groups())
    try:
        return whole_days(date(year, month, day))
    except ValueError:
        return None


# a part of a month, by the day it starts on (三月初, 二月底, 十月中旬): its first, middle or last ten days
_ZH_TENTHS = {"初": 1, "上旬": 1, "中": 11, "中旬": 11, "底": 21, "末": 21, "下旬": 21}

# a quarter or minutes before the hour (差一刻三点), which jionlp does not read: said as 2点45分
_ZH_TO_THE_HOUR = lazy(rf"差(一刻|{NUM})分?钟?({NUM})点")
_ZH_UNITS = {c: i for i, c in enumerate("零一二三四五六七八九", start=0)} | {"两": 2, "〇": 0}


def _small_number(numeral: str) -> int | None:
    """0–99 in digits or Chinese numerals (二十五, 十, 两); None for anything else."""
    if numeral.isdigit():
        return int(numeral)
    tens, ten, ones = numeral.partition("十")
    if not ten:
        return _ZH_UNITS.get(numeral) if len(numeral) == 1 else None
    high = _ZH_UNITS.get(tens, -100) if tens else 1
    low = _ZH_UNITS.get(ones, -100) if ones else 0
    return high * 10 + low if high >= 0 and low >= 0 else None


def _to_the_hour(phrase: str) -> str:
    """明天差一刻三点 as 明天2点45分; the phrase as it was when it says no such time."""
    found = _ZH_TO_THE_HOUR.search(phrase)
    if found is None:
        return phrase
    before = 15 if found.group(1) == "一刻" else _small_number(found.group(1))
    hour = _small_number(found.group(2))
    if before is None or hour is None or not 0 < before < 60 or not 0 < hour <= 24:
        return phrase
    return f"{phrase[: found.start()]}{hour - 1}点{60 - before}分{phrase[found.end() :]}"


# 周五六点 is Friday at six: jionlp read 五六点, "five or six", and gave 05:00 (周六七点 06:00)
_ZH_WEEKDAY_HOUR = lazy(r"((?:周|星期|礼拜)[一二三四五六日天])([一二两三四五六七八九十]{1,3})(?=点)")


def _resolve_zh(phrase: str, now: datetime) -> Range | None:
    for old, new in _ZH_ALIASES:
        phrase = phrase.replace(old, new)
    phrase = _ZH_WEEKDAY_HOUR.sub(lambda m: m[1] + str(_small_number(m[2]) or m[2]), _to_the_hour(phrase))
    if swapped := _ZH_PART_FIRST.fullmatch(phrase):
        phrase = swapped.group(2) + swapped.group(1)
    if month := BARE_MONTH.fullmatch(phrase):
        phrase = f"{_small_number(month.group(1))}月"  # BARE_MONTH's numerals are 1–12
        whole = _jionlp(phrase, now)
        part = _ZH_TENTHS.get(month.group(2) or "")
        if whole is None or part is None:
            return whole
        first = whole[0].replace(day=part)
        return first, whole[1] if part == 21 else first + timedelta(days=10)
    try:
        read = _zh_rule(phrase, now) or _whole_date(phrase) or _jionlp(phrase, now)
    except (ValueError, OverflowError):
        return None
    return _afternoon_after_a_day(phrase, _night_after_evening(phrase, read, now), now) if read else None


_ZH_GONE_DAY = lazy(r"昨|前天|大前天")
_ZH_EVENING_CLOCK = lazy(rf"(?:晚上|夜里|夜间|半夜|深夜)(?:差(?:一刻|{NUM})分?钟?)?{NUM}点")


def _night_after_evening(phrase: str, read: Range, now: datetime) -> Range:
    """A small hour of an evening (明天晚上两点, 昨晚两点才睡) is in the night after it: jionlp reads the small
    hours of the day itself, a day early. Said before the day turns (``DAY_TURNS_AT``), today's is the night under
    way, and yesterday's the night before it (昨晚两点才睡 at 01:30 is not half an hour ahead); with no day said
    (晚上两点了还不睡), the nearer of the two nights.

        >>> now = datetime(2024, 11, 13, 10, 30)
        >>> [str(span[0]) for *_, span in chinese_phrases("明天晚上两点还在加班，昨晚两点才睡", now)]
        ['2024-11-15 02:00:00', '2024-11-13 02:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("昨晚两点才睡", datetime(2024, 11, 14, 1, 30))]
        ['2024-11-13 02:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("晚上两点了还不睡", datetime(2024, 11, 13, 8))]
        ['2024-11-13 02:00:00']
    """
    if not 1 <= read[0].hour < 6 or read[1] > datetime.max - timedelta(days=1):
        return read
    evening = _ZH_EVENING_CLOCK.search(phrase)
    if evening is None or (read[0].date() == now.date() and now.hour < DAY_TURNS_AT):
        return read
    after = read[0] + timedelta(days=1), read[1] + timedelta(days=1)
    if after[0] > now and _ZH_GONE_DAY.match(phrase):
        return read
    if evening.start() == 0 and now - read[0] < after[0] - now:
        return read
    return after


# a clock at the end of a phrase, by the hour: 三点, 4点半 (not 15:00, which says its half of the day)
_ZH_END_CLOCK = lazy(rf"{NUM}点(?:{NUM}分|半|一刻|三刻|钟|整)?$")


def _afternoon_after_a_day(phrase: str, read: Range, now: datetime) -> Range:
    """A bare small hour after a day (明天三点, 周五四点) is the afternoon's: the night's is said 凌晨三点, and
    jionlp reads 03:00. A part of the day said (明天凌晨三点, 明早六点) is kept as read, and so is today's said
    before seven in the morning (今天三点 at 01:00 is the night just ahead or gone).

        >>> now = datetime(2024, 11, 13, 10, 0)
        >>> [str(span[0]) for *_, span in chinese_phrases("明天三点开会，周五凌晨三点的飞机，后天七点见", now)]
        ['2024-11-14 15:00:00', '2024-11-15 03:00:00', '2024-11-15 07:00:00']
        >>> [str(span[0]) for *_, span in chinese_phrases("今天三点开会", now)]
        ['2024-11-13 15:00:00']
    """
    clock = _ZH_END_CLOCK.search(phrase)
    if clock is None or not clock.start() or PART_OF_DAY.search(phrase, 0, clock.start()):
        return read
    return half_of_the_day(read, now, "after a day")


def _unread_alone(text: str, start: int, end: int) -> bool:
    """Whether one atom alone is no time where it stands: 有一点累 (a bit), 冬天的衣服 (a kind), 圣诞树 (a thing),
    我女儿叫夏天 (a name)."""
    if _ZH_AMBIGUOUS_CLOCK.fullmatch(text, start, end):
        return not _said_a_clock(text, start, end)
    return _season_as_kind(text, start, end) or festival_as_thing(text, start, end) or called_by(text, start, end)


def _said_a_clock(text: str, start: int, end: int) -> bool:
    """Whether 一点 or 两点 at ``text[start:end]`` is a clock by the words either side: 我两点要去开会."""
    if _RANGE_FROM_A_CLOCK.search(text, max(0, start - 8), start):  # 十一点到一点: the end of a range of hours
        return True
    before = not start or _CLOCK_BEFORE.match(text, start - 1) is not None
    before = before or WORD_ONE_BEFORE.search(text, max(0, start - 2), start) is not None
    return before and _CLOCK_AFTER.match(text, end) is not None


def chinese_phrases(text: str, now: datetime, *, asked: bool = False) -> list[tuple[int, int, Range]]:
    runs: list[list[re.Match[str]]] = []
    for atom in ZH_ATOM.finditer(text):
        if runs and len(runs[-1]) < _ZH_MAX_ATOMS and text[runs[-1][-1].end() : atom.start()] in _ZH_GLUE:
            runs[-1].append(atom)
        else:
            runs.append([atom])
    found: list[tuple[int, int, Range]] = []
    # a phrase said again reads the same: 下周 ten thousand times asked jionlp (~1.5 ms) each time
    readings: dict[str, Range | None] = {}
    for run in runs:
        first = 0
        while first < len(run):
            for last in range(len(run) - 1, first - 1, -1):
                start, end = run[first].start(), run[last].end()
                phrase = text[start:end]
                if first == last and _unread_alone(text, start, end):
                    continue
                if phrase not in readings:
                    readings[phrase] = _resolve_zh(phrase, now)
                span = readings[phrase]
                if span is not None:
                    found.append((start, end, span))
                    first = last + 1
                    break
            else:
                first += 1
    read = new_year_by_tense(text, by_tense(text, found, now, _resolve_zh, asked), now, spring_festival)
    read = clocks_on_their_day(text, read, now, _resolve_zh)
    read = small_hours_of_sleep(text, small_hours_of_plans(text, read, now), now)
    return range_ends(text, mornings_after_a_late_evening(text, hours_of_usual_doings(text, read, now), now))


_BARE_SEASON = lazy(r"[春夏秋冬](?:天|季)")
_KIND_AFTER = lazy(
    r"的(?!时候|时|那|这|一|某|第|头|尾|末|初|假|开头|结尾|确)"
)  # 冬天的衣服; 冬天的时候, 的确 (indeed) not
_LIKED_BEFORE = lazy(r"(?:喜欢|爱|讨厌|怕|享受|受不了)(?:的是)?$")


def _season_as_kind(text: str, start: int, end: int) -> bool:
    """A season with no year that names a kind or a liking, not a time: 冬天的衣服先打包, 我最喜欢秋天.
    Read as a time they put 冬天（2024-11-07～2025-02-04） into the prompt beside winter clothes.

    >>> _season_as_kind("书和冬天的衣服先打包", 2, 4), _season_as_kind("冬天的时候去哈尔滨", 0, 2)
    (True, False)
    """
    if not _BARE_SEASON.fullmatch(text, start, end):
        return False
    kind = _KIND_AFTER.match(text, end) is not None and ZH_ATOM.match(text, end + 1) is None  # 夏天的晚上: a time
    return kind or _LIKED_BEFORE.search(text, max(0, start - 6), start) is not None
