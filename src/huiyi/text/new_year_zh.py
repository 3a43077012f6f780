"""年前 and 年后: the time before and after the Spring Festival (年 is 春节 here, as in 过年), which jionlp reads as
no time. 年前要把房子装修完 said in December runs from that day to the coming 春节, 年后换工作 from it a month on;
told done (年前我们去了三亚) they are the last one's. The day of 春节 comes from the reader's calendar
(``spring``: :func:`huiyi.text.times_zh`'s lunar reading), passed in so this module needs no parser.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from huiyi.patterns import lazy
from huiyi.text.periods import Range, midnight
from huiyi.text.tense_zh import clause_around, sentence_around

__all__ = ["NEW_YEAR", "around_new_year", "new_year_by_tense"]

Spring = Callable[[int], Range | None]

# 年前, 年后 alone or after a word that leads to a time (我年后, 争取年前, 过完年后), not the 年 of another word:
# 三年前, 多年后, 成年后, 去年前 (nor 年前后, either side)
NEW_YEAR = r"(?<![^\s，。！？；,.!?;、我你他她它们咱就要得都也还先再在到等赶取算备划想说完])年[前后](?![前后])"
_NEW_YEAR = lazy(NEW_YEAR)
# the weeks either side of 春节 one means by 年前 told done, or by 年后: 正月 ends about a month on
_SEASON = timedelta(days=30)
# 年后一直在加班: ongoing since the last one
_DONE = lazy(r"了|过(?![来去完年节])|那时|那会|那次|当时|一直")  # not 过完年后 (spent)
_AHEAD = lazy(r"要|打算|准备|计划|想|得|该|会")
# 就…了 says what will then be when the last 春节 is long gone (年后就满三十了 in December), what was by then
# when it is near (年后我就辞职了 in March)
_THEN = lazy(r"就")
_LONG_GONE = timedelta(days=182)
# a state of now (忙死了, 累坏了, 好忙): its 了 tells no 年前 done while the 年前 now running is half a year on
_NOW_STATE = lazy(
    r"(?:忙|累|烦|困|急|愁|穷|赶)(?:死|坏|疯|晕)了|(?:好|太|超|特别|真|巨|很|挺)(?:忙|累|烦|赶|紧张)[了啊呀哦]*"
)
# …and so is a doing still going on (年前一直在加班, 年前一直很忙): its 一直 runs up to now, not in a 年前 long gone
_GOING_ON = lazy(r"一直")


def around_new_year(phrase: str, now: datetime, spring: Spring, *, done: bool = False) -> Range | None:
    """The time 年前 or 年后 (``phrase``) means said at ``now``: 年前 from today to the coming 春节, or told
    ``done`` the month before the last one; 年后 the month from the last 春节 while it runs, else from the coming
    one, or told ``done`` from the last one. None for another phrase, or where the calendar has no 春节.

        >>> from huiyi.text.times_zh import spring_festival
        >>> now = datetime(2024, 12, 4, 15)
        >>> [tuple(str(day.date()) for day in around_new_year(p, now, spring_festival)) for p in ("年前", "年后")]
        [('2024-12-04', '2025-01-29'), ('2025-01-29', '2025-02-28')]
        >>> [str(day.date()) for day in around_new_year("年前", now, spring_festival, done=True)]
        ['2024-01-11', '2024-02-10']
    """
    if phrase not in ("年前", "年后") or not 1 < now.year < 9998:
        return None
    days = [day[0] for year in (now.year - 1, now.year, now.year + 1) if (day := spring(year)) is not None]
    last = max((day for day in days if day <= now), default=None)
    coming = min((day for day in days if day > now), default=None)
    if phrase == "年前":
        if done:
            return (last - _SEASON, last) if last else None
        return (midnight(now), coming) if coming else None
    if last is not None and (done or now < last + _SEASON):
        return last, last + _SEASON
    return (coming, coming + _SEASON) if coming else None


def new_year_by_tense(
    text: str, found: list[tuple[int, int, Range]], now: datetime, spring: Spring
) -> list[tuple[int, int, Range]]:
    """``found`` with each 年前 or 年后 whose clause tells it done (年前我们去了三亚, not 年前要装修完了) read as
    the last 春节's; a state of now (年前忙死了) or a doing going on (年前一直在加班) tells none while the coming
    年前 runs."""
    out: list[tuple[int, int, Range]] = []
    for start, end, span in found:
        if _NEW_YEAR.fullmatch(text, start, end):
            clause, sentence = clause_around(text, start), sentence_around(text, start)
            if text[start:end] == "年前" and _running(now, spring):  # 年前忙死了 in December: the one under way
                clause, sentence = _of_now_unsaid(clause), _of_now_unsaid(sentence)
            if _told_done(clause, sentence, now, spring):
                span = around_new_year(text[start:end], now, spring, done=True) or span
        out.append((start, end, span))
    return out


def _of_now_unsaid(said: str) -> str:
    """``said`` without its words of now (忙死了, 一直), which tell no 年前 done while the coming one runs."""
    return _GOING_ON.sub("", _NOW_STATE.sub("", said))


def _told_done(clause: str, sentence: str, now: datetime, spring: Spring) -> bool:
    """Whether a 年前 or 年后 in ``clause`` is told done: by its clause, or by the rest of its ``sentence``
    (年后一直在加班，累死了) when nothing in it looks ahead."""
    last = around_new_year("年后", now, spring, done=True)
    then_ahead = _THEN.search(clause) is not None and (last is None or now - last[0] > _LONG_GONE)
    if _AHEAD.search(clause) or then_ahead:
        return False
    return bool(_DONE.search(clause) or (_DONE.search(sentence) and not _AHEAD.search(sentence)))


def _running(now: datetime, spring: Spring) -> bool:
    """Whether the 年前 of the coming 春节 is under way: the last one is half a year gone."""
    last = around_new_year("年后", now, spring, done=True)
    return last is None or now - last[0] > _LONG_GONE
