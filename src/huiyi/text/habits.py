"""The time phrases that date no one day: a habit's (每周二, every Tuesday, 天天早上, 一到周末就) with the days
listed beside it, a day told of before (那天晚上, 那年夏天), and "feels like just yesterday" (a figure).
:func:`huiyi.text.times.find_time_phrases` keeps only what :func:`one_offs` returns.

    >>> from datetime import datetime
    >>> from huiyi.text.times import find_time_phrases
    >>> said = "天天早上我都去跑步，一到周末就睡懒觉，每周二去游泳，周四去跑步，明天去爬山"
    >>> [span.phrase for span in find_time_phrases(said, datetime(2025, 3, 5, 20, 30))]
    ['明天']
"""

from __future__ import annotations

import re

from huiyi.patterns import lazy
from huiyi.text.hours_zh import DAY_PARTS, NUM
from huiyi.text.periods import Range
from huiyi.text.tense_zh import CLAUSE_END, WEEKDAY_ZH, to_come

__all__ = ["one_offs"]

Found = list[tuple[int, int, Range]]

# 每周二, 每天早上, 每个月15号, 每次周末, every Tuesday, each Friday night: a habit's time, which no one day is
# (我每周二（2025-02-25）去游泳 told the chat model of one swim); 每两周一次 is no Monday
_EVERY = lazy(
    r"(?:每(?:隔)?(?:[两二三四五六七八九十几半\d]+)?(?:一?个|逢|到|当|次)?(?:天|日|周|星期|礼拜|月|年|晚|早)?的?"
    r"|\b(?:every|each)(?:\s+(?:other|single|second|third))?\s+)$",
    re.I,
)
# each, 每个 with no time after it: "two beers each last night", 他们每个昨天都来了 (a share, not a habit)
_EACH_ALONE = lazy(r"(?:每(?:一?个|人|次)?|\b(?:every|each)\s+)$", re.I)
# 一到周末就睡懒觉, 逢周末: each time it comes; not the 一 of 下周一到周五 (a run of days) nor 等一到周末就去 (once)
# 等他一到周五就出发: waiting for it to come, once
_WAIT_FOR = lazy(r"等(?:我们|你们|他们|她们|咱们|[我你他她它])$")
_EACH_TIME = lazy(r"(?:(?<![周期拜日号月年点等0-9０-９零〇一二两三四五六七八九十])一到|(?<![相重每])逢)$")
# 天天 and 每天 say every day, so only a time of day is theirs (天天都在想昨天的事 keeps 昨天); 天天 is also a
# name, said so after a word that takes a person (我家天天, 和天天早上去) and never the 天天 of 今天天气
_DAILY = lazy(r"(?<![今明昨后前每聊白当半整某哪那这几两一二三四五六七八九十天])天天(?![气亮])|每一?[天日晚早]")
_NAMED_BEFORE = lazy(r"(?:[和跟与同叫让给找陪带等把被是问帮替对向喊见]|[我你他她]家|小|老)$")
# a habit's words in the clause of 天天: 天天早上我都去跑步, 我天天七点都会起床 (not 会议, 开会, 要求)
_ALWAYS = lazy(r"都|总|(?<![开议])会(?![议员场])|要(?!求)")
_TIME_OF_DAY = lazy(rf"(?:{DAY_PARTS})?(?:{NUM}点(?:{NUM}分|半|一刻|三刻|钟|整)?|\d{{1,2}}[:：][0-5]\d)?")
_DAY_PART = lazy(DAY_PARTS)
# told as done (周四去了北京): one day, not the habit's list
_DONE = lazy(r"了|过(?![来去年节生日])")
_OWN_ANCHOR = lazy(r"[昨今明]|前天|后天|[上下这本那]一?个?(?:周|星期|礼拜|次|回)|那天")
# what a habit's list may keep before its next day: 每周二去游泳，(我)周四去跑步
_SUBJECT = lazy(r"\s*(?:我们|你们|他们|她们|咱们|[我你他她])?")
# the kinds a habit's list names alike: weekdays, times of day, days of the month
_KINDS = (
    lazy(WEEKDAY_ZH),
    lazy(rf"{DAY_PARTS}|{NUM}点|\d{{1,2}}[:：][0-5]\d"),
    lazy(rf"{NUM}[日号]"),
)
_TIME_KIND = 1
# what a habit's next time of day wants to be on its list: 天天早上都去跑步，晚上也跑
_TOO = lazy(r"也|都|总")
# a day proposed or asked of is one day: 每周二去游泳，周四去看电影吧 / 周四有空吗？
_ONE_ASKED = lazy(r"[吧吗呢？?]")  # its last word or stop
_ASKED_EITHER = lazy(r"(\w)[不没]\1")  # 周三聚餐你来不来, 周四有没有空: asked with no 吗
# what is done once, not weekly: 每周五开会，周六我搬家 / 周五去面试 (one Saturday, one Friday)
_ONCE = lazy(r"搬家|面试|笔试|复试|婚礼|结婚|手术|生日|答辩|疫苗|体检|毕业|入职|离职|住院|出院|相亲|签证")
_LIST_REACH = 30  # characters from a habit's phrase to the next day of its list
# 那天早晨, 那次周末早上, 那年夏天: a day told of before, not today's morning or this summer (那年夏天我们去了海边
# was dated to the summer ahead)
_TOLD_BEFORE = lazy(r"那(?:天|日|次|回|年|晚|夜|阵子?|段时间)的?$")
# …that names its own year or day: 那年2019年, 那天10月1号 say which (那年12月 does not)
_OWN_DATE = lazy(
    r"\s*(?:[0-9０-９]{4}|[零〇一二三四五六七八九]{4})\s*年|.*月\s*[0-9０-９一二三四五六七八九十]+\s*[日号]"
)
# "feels like just yesterday", "seems like only yesterday": long ago, said as a figure ("I saw her like just
# yesterday" is the day: no seeming before it)
_LIKE_YESTERDAY = lazy(
    r"(?:\b(?:feels?|felt|seems?|seemed|looks?|looked|is|was)|'s)\s+like\s+(?:just|only)\s+$|\blike\s+it\s+was\s+$",
    re.I,
)
# a time of one day: last night, 昨天, 这周二 (每年的今天 is a habit: its 年 says what comes back); 上午, 下午 are
# no day's
_ONE_DAY = lazy(r"昨|今|明|前天|后天|上|下|这|本|去年|last\b|this\b|next\b|yesterday|today|tonight|tomorrow", re.I)
# 每周二和周四, every Monday, Wednesday and Friday, 每天早上和晚上, 每周一到周五: the days joined to a habit's
# are the habit's
_JOINED = lazy(
    r"\s*(?:和|与|跟|及|或|到|至|、|，|,|/|&|~|～|-|–|—|and\b|or\b|through\b|to\b|till\b|until\b)\s*(?:(?:and|or)\s+)?",
    re.I,
)


def one_offs(text: str, taken: Found) -> Found:
    """The phrases that are no habit's: not after 每, 天天, 一到…就 or "every", nor joined or listed with one
    that is."""
    kept: Found = []
    habit = (-1, -1)  # where the last habit's phrase began and ended
    for a, b, span in taken:
        if _told_before(text, a, b):
            habit = (-1, -1)
            continue
        one_day = _ONE_DAY.match(text, a) is not None and not _TIME_OF_DAY.fullmatch(text, a, b)
        # 一到下周就走, 他明天一到就: a day of its own comes once
        recurring = _EVERY.search(text, max(0, a - 24), a) is not None or (not one_day and _each_time(text, a))
        if one_day and _EACH_ALONE.search(text, max(0, a - 12), a) is not None:
            recurring = False
        elif not recurring and not one_day:
            recurring = _daily(text, a, b) or (habit[1] >= 0 and _listed_with(text, habit, a))
        habit = (a, b) if recurring else (-1, -1)
        if not recurring:
            kept.append((a, b, span))
    return kept


def _clause_end(text: str, at: int) -> int:
    stop = CLAUSE_END.search(text, at)
    return stop.start() if stop else len(text)


def _clause_start(text: str, at: int) -> int:
    return max((stop.end() for stop in CLAUSE_END.finditer(text, max(0, at - 24), at)), default=max(0, at - 24))


def _each_time(text: str, at: int) -> bool:
    """Whether the phrase at ``at`` comes back each time: 逢周末, 一到周末就睡懒觉 (一到 wants its 就)."""
    found = _EACH_TIME.search(text, max(0, at - 3), at)
    if found is None or _WAIT_FOR.search(text, max(0, found.start() - 3), found.start()):
        return False
    return found.group().startswith("逢") or "就" in text[at : _clause_end(text, at)]


def _daily(text: str, at: int, end: int) -> bool:
    """Whether the time of day at ``text[at:end]`` is that of every day: right after 天天 or 每天 (天天早上来找我),
    or in a clause of 天天 that says 都, 总, 会 or 要 (我天天七点都会起床). 天天 said as a name (我家天天) is no
    habit, and nor is 天天早上来找我了: one morning, told as done."""
    if not _TIME_OF_DAY.fullmatch(text, at, end):
        return False
    start = _clause_start(text, at)
    daily = next(reversed(list(_DAILY.finditer(text, start, at))), None)  # the nearest before
    if daily is None or _NAMED_BEFORE.search(text, max(0, daily.start() - 2), daily.start()):
        return False
    clause = text[daily.end() : _clause_end(text, at)]
    if _ALWAYS.search(clause):
        return True
    return daily.end() == at and _DAY_PART.match(text, at) is not None and not _DONE.search(clause)


def _listed_with(text: str, habit: tuple[int, int], at: int) -> bool:
    """Whether the phrase at ``at`` goes on the list of the habit's phrase at ``habit``: joined to it (每周二和周四),
    or the next clause of the sentence naming a day of its kind with none of its own anchor or tense
    (每周二去游泳，周四去跑步; not 每周二去游泳，周四去了北京, a day told as done, nor 周四去看电影吧, one proposed);
    a time of day only with 也, 都 or 总 (天天早上都去跑步，晚上也跑)."""
    if _JOINED.fullmatch(text, habit[1], at):
        return True
    stops = list(CLAUSE_END.finditer(text, habit[1], at))
    if len(stops) != 1 or stops[0].group() not in "，,；;" or at - habit[1] > _LIST_REACH:
        return False
    if not _SUBJECT.fullmatch(text, stops[0].end(), at) or _kind(text, at) != _kind(text, habit[0]):
        return False
    clause_end = _clause_end(text, at)
    clause = text[at:clause_end]
    if _DONE.search(clause) or _OWN_ANCHOR.search(clause) or _ONCE.search(clause):
        return False
    if _ONE_ASKED.search(text, clause_end - 1, clause_end + 1) or _ASKED_EITHER.search(clause):
        return False
    if _kind(text, at) == _TIME_KIND and not _TOO.search(clause):  # 每天早上跑步，晚上去你家: as often tonight
        return False
    return not to_come(clause) or to_come(text[_clause_start(text, habit[0]) : stops[0].start()])


def _kind(text: str, at: int) -> int:
    return next((i for i, kind in enumerate(_KINDS) if kind.match(text, at)), -1)


def _told_before(text: str, at: int, end: int) -> bool:
    """Whether the phrase at ``at`` follows 那天 (a day told of before) or is "like just yesterday" (a figure)."""
    if text[at : at + 9].casefold() == "yesterday" and _LIKE_YESTERDAY.search(text, max(0, at - 24), at):
        return True
    return _TOLD_BEFORE.search(text, max(0, at - 6), at) is not None and not _OWN_DATE.match(text, at, end)
