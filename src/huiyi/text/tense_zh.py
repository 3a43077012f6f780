"""Which reading of a Chinese time word its clause means: jionlp reads a bare day of the month (四号), month
(十二月), date (3月5日), festival (春节) or weekday (周日) as this month's, year's or week's, and the words
around it (要, 打算 still to come; 了, 过, 那天 done) say whether the one gone or the one to come is meant.

The passes here take the phrases :func:`huiyi.text.times_zh.chinese_phrases` found, as (start, end, range)
in reading order, and return them re-read; they know nothing of how a phrase was found.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from datetime import datetime, timedelta

from huiyi.patterns import lazy
from huiyi.text.outcomes_zh import sold_out_ahead, went_in
from huiyi.text.periods import Range, midnight, shift_month

__all__ = [
    "BARE_MONTH",
    "CLAUSE_END",
    "FESTIVALS",
    "TOLD",
    "WEEKDAY_ZH",
    "by_tense",
    "called_by",
    "clause_around",
    "festival_as_thing",
    "outing_felt",
    "outing_planned",
    "sentence_around",
    "to_come",
    "told_done",
    "told_gone",
]

Found = list[tuple[int, int, Range]]
Resolve = Callable[[str, datetime], Range | None]

# a month named alone (三月, 十二月份): jionlp reads every one but 三月, which it takes for no time
BARE_MONTH = lazy(r"(十[一二]?|[一二三四五六七八九]|1[0-2]|0?[1-9])月(份|[上中下]旬|[初中底末])?")
# a date without its year: 3月5日, 三月五号
_MONTH_DAY = lazy(
    r"(?:十[一二]?|[一二三四五六七八九]|1[0-2]|0?[1-9])月(?:[0-9]{1,2}|[一二三四五六七八九十]{1,3})[日号]"
)
# 过年 is 春节 (我过年打算回家), not the 过 of 超过年薪, 度过年关 nor the 年 of 过年龄
FESTIVALS = (
    r"春节|元旦|除夕|元宵节?|清明节|端午节?|中秋节?|国庆节?|劳动节|圣诞节?|平安夜|情人节|七夕节?|儿童节|教师节"
    r"|感恩节|万圣节|万圣夜|母亲节|父亲节|复活节|(?<![超经通越度错跳难不])过年(?![龄限薪度纪轻级关底初末中])"
)
_FESTIVAL = lazy(FESTIVALS)
# what is named after a festival and is no time of it: 圣诞树, 圣诞老人, 中秋月饼 (装饰圣诞树时 is the festival's,
# and so is 圣诞节装饰房间 or 圣诞节装饰圣诞树: 装饰 done then)
_THING_AFTER = lazy(
    r"(?:树|老人|老爷爷|帽|袜|歌|贺卡|卡片|装饰(?!一下|一番|了|得|着|过|圣诞树|树|院子|阳台|[房家屋客宿教店门窗墙])|花环|彩灯|毛衣"
    r"|月饼|对联|灯笼)(?!时|的时候|那)"
)


def festival_as_thing(text: str, start: int, end: int) -> bool:
    """Whether the festival at ``text[start:end]`` names a thing (我喜欢装饰圣诞树): it was dated, and the event
    read 装饰圣诞（2025-12-25）树.

    >>> festival_as_thing("我喜欢装饰圣诞树", 5, 7), festival_as_thing("装饰圣诞树时", 2, 4)
    (True, False)
    """
    return _FESTIVAL.fullmatch(text, start, end) is not None and _THING_AFTER.match(text, end) is not None


_BARE_DAY = lazy(r"(?:[0-9０-９]{1,4}|[零〇一二两三四五六七八九十百千]{1,6})[日号]")  # a day without its month
CLAUSE_END = lazy(r"[，。！？；,.!?;\n]")
_SENTENCE_END = lazy(r"[。！？；!?;\n]")

# 我女儿叫夏天, 小名叫周末: a word a person is called by that ends its clause is a name, no time (我爸叫周末回家
# is one: the weekend he told of)
_CALLED = lazy(r"(?:叫|叫做|名叫|名字是|小名是|外号是)$")


def called_by(text: str, start: int, end: int) -> bool:
    """Whether the word at ``text[start:end]`` is what someone is called: 我女儿叫夏天 read 夏天（…～…）.

    >>> called_by("我女儿叫夏天", 4, 6), called_by("我爸叫周末回家", 3, 5)
    (True, False)
    """
    named = _CALLED.search(text, max(0, start - 3), start) is not None
    return named and (end == len(text) or CLAUSE_END.match(text, end) is not None)


# a bare day in a clause without 了 or 过 is more often one to come; 那天 says it happened (了 alone does
# not: 二十号就到了 is a day to come)
# 过 of a time passed (去过); not the verb of 过生日, 过来, 过春节, 度过周末, 过个好年
_GUO_DONE = r"(?<![度经通难])过(?![来去生节年日春元除清端中国劳圣平情七儿教感万母父复周星礼个]|一个)"
_SAID_DONE = lazy(rf"了|{_GUO_DONE}")
_PAST = lazy(r"那天|那次|那会|那晚|那时")
_BOOKED_BEFORE = lazy(r"上次|上回|当时|那次|那时")  # 上次约了元旦吃饭, 当时元旦…: a festival gone
_SETTLED = timedelta(days=7)  # a bare day this recent is still this month's: 十五号的会取消 on the 16th
TOLD = lazy(r"说|约|订|买|通知|定|讲|问|告诉|安排|提醒|报名|发")  # said or booked then: the time is another
WEEKDAY_ZH = r"(?:周|星期|礼拜)([一二三四五六日天末1-7])"  # a weekday, its day in group 1
_BARE_WEEKDAY = lazy(WEEKDAY_ZH)  # no 上/下/这 before it
# not 会 (周一的会 is a meeting); 得 and 该 of must (我得加班, 该去体检), not 玩得, 得了 or 应该; a wish (祝你周末愉快)
# is for the days ahead
_WISHED = r"(?<!庆)祝"
_TO_COME = lazy(
    r"要|打算|准备|计划|想去|想要|记得|别忘|有空|有时间|(?<=[我你他她们还又就都也])得(?![了到很太好挺真还])|(?<!应)该"
    rf"|{_WISHED}"
)
_WISH = lazy(_WISHED)
# a festival at most this long gone is still the one talked of when booked or wished (祝你春节快乐 on its sixth
# day, 我订了春节的机票，结果航班取消了), not the one a year ahead
_JUST_GONE = timedelta(days=30)
# …and one at most this far ahead may be what a feeling looks forward to (春节回老家，好开心 in January)
_DAYS_AWAY = timedelta(days=30)
_YEAR_SAID = lazy(r"前年|去年|今年|明年|后年")
# 会 as "will" after a festival (春节我会回家), not a meeting or a party (中秋的会, 开会, 年会, 会议, 约会, 舞会)
_NOT_WILL = r"(?<![的开年例聚晚班约舞宴酒唱庙灯])会(?![议员场所上])"
_WILL = lazy(_NOT_WILL)
# soon, whatever follows: 马上周末了, 快周末了, 要过年了 (its 了 says the time is near, not that it happened)
_SOON = lazy(r"马上|快到|快要|就要|眼看|快(?=周|星期|礼拜|过年)|(?<![不想])要(?=过年了)")
# a clause that ends proposing (周末去爬山吧, 周五一起吃饭吧~), not a guess at how it went (周末很累吧, 玩得开心吧)
# nor a question (周末在家吧？)
_PROPOSED = lazy(r"吧[\s~～!！。.…]*$")
_GUESSED = lazy(r"很|挺|太|真|得|累|开心|好玩|难受|辛苦")
# a 了 that still speaks of the days ahead: 周五就到了, 周五的会取消了 (the day's thing changed), 我报了四月
# 二十一号的半马 (booked), 周日下雨了 (a forecast is as often said so); 过 of 过生日, 过来 is a verb, not "done"
# 不…了 gives up what was ahead (周六不用了, 周日我不去爬山了), not 不小心摔了; 请好/准备好…了 is ready for it
_GIVEN_UP = r"不(?:用|去|来|回|要|想|能|上|开|办|考|参加|出|走|做|约)"
# 约 of an arrangement (约了朋友, 约好了, 预约), not of a date (约会: 圣诞节我们去约会了 is one had), nor 大约 or 隐约
_ARRANGED = r"(?<![大隐])约(?!会)"
_NOT_DONE = lazy(
    r"就|取消|改|推迟|延期|提前|下雨|降温|放假|开始|到期|截止|报|订|买|抢|定|挂号|中签|安排|通知"
    rf"|{_ARRANGED}|{_GIVEN_UP}"
    r"|请好|准备好|收拾好"  # prepared for the day: 周五我请好假了
)
_GIVE_UP = lazy(_GIVEN_UP)


def _not_done(clause: str) -> bool:
    """Whether ``clause`` has a 了 that speaks of its time ahead: see ``_NOT_DONE``; or sold out for it."""
    return _NOT_DONE.search(clause) is not None or sold_out_ahead(clause)  # 国庆的票都卖完了 said in September


_DONE_GUO = lazy(_GUO_DONE)
# booked before the time: 我报了三月的马拉松, 订了五月的机票 (the time of what is booked, not of the booking)
# waited for (等我们一到周末就去爬山, 等周末再说) or at last possible (周末终于能休息了): a day ahead
_WAITED_FOR = lazy(r"等(?:我们|你们|他们|她们|咱们|[我你他她它])?(?:一到|到)?$")
_FINALLY = lazy(r"终于(?:能|可以)")
# what is waited for is a thing of that day, not the day (等周一面试的结果, 等周一寄的快递), but 等周末的时候 the day
_OF_THE_DAY = lazy(r"[^，。！？；,.!?;\s的]{0,4}的(?!时候)")
_BOOKED = lazy(rf"报名|(?<![汇播预])报了|预?订|预约|{_ARRANGED}|抢|挂号|买了")


# a going or an outing (国庆去云南玩, 周末露营, 中秋想回家): with no word of its tense, a plan as often as a story;
# not 过去 (the past), 去年, 去世, nor 想起 or 想你
_OUTING = lazy(
    r"想(?![起到过了念你他她通法象])|(?<![过失上下])去(?![年世过了])|回(?:家|老家|国|去|趟)|出(?:去|门|发|游|国)"
    r"|旅游|旅行|露营|野营|爬山|徒步|骑行|钓鱼|野餐|自驾|逛街|郊游|踏青|滑雪|泡温泉|聚餐|聚会|约会|搬家|看电影|看展"
)
# …but a story when its sentence says it happened, or its clause tells how it went (周末去爬山很累, 刚去)
_HOW_IT_WENT = lazy(r"没|刚|已经|很|挺|太|真|累|开心|好玩|怎么样|如何|来着")
# …or its sentence tells what it was like or what befell (国庆去云南玩，风景特别好; 过年回家被催婚; 周末去爬山，腿到现在
# 还疼; 国庆去云南玩的照片), unless it looks ahead (周末去露营，好期待; 听说那边很美)
_WHAT_IT_WAS = lazy(
    r"(?:超|特别|(?<!不)好|太|很|挺|真|巨)(?![的啊呀吧吗不嘞哒耶想要期])|(?<=[烦累冻热笑困饿气吓挤晒])死|被"
    r"|[碰遇]到|遇见|撞见|到现在|现在还|照片|视频|合照"
)
_LOOKING_AHEAD = lazy(rf"期待|希望|听说|应该|估计|可能|一定|肯定|到时|{_NOT_WILL}|吧|吗|[?？]")
# an outing looked forward to is the coming one, even with the last days gone (圣诞节去约会，好期待 on 12-30)
_AWAITED = lazy(rf"期待|盼着|等不及|迫不及待|到时|一定|肯定|应该|估计|{_NOT_WILL}")
# …or how it felt, a feeling with its degree (有点失望, 蛮无聊的, 好幸福) or its 死了 (开心死了): said after
_FEELING = r"开心|高兴|快乐|幸福|好玩|难忘|失望|无聊|感动|累|爽|尴尬|满足|充实|郁闷|扫兴"
_FELT = lazy(rf"(?:超|好|太|特别|真|挺|蛮|很|巨|非常|有点|有些)(?:{_FEELING})|(?:{_FEELING})(?:死|极|坏)了")


def outing_planned(clause: str, sentence: str) -> bool:
    """Whether ``clause`` tells a going or an outing (国庆去云南玩, 周末露营) and its ``sentence`` nothing that says
    it happened: said of a festival or weekend gone, the coming one is meant.

    >>> outing_planned("周末去露营", "周末去露营"), outing_planned("周末去露营", "周末去露营，玩疯了")
    (True, False)
    """
    told = bool(_SAID_DONE.search(sentence) or _PAST.search(sentence) or _HOW_IT_WENT.search(clause))
    return _OUTING.search(clause) is not None and not told and not _told_how_it_was(sentence)


def _told_how_it_was(sentence: str) -> bool:
    """Whether ``sentence`` tells what an outing was like or how it felt (风景特别好, 好累) and looks nowhere ahead."""
    said = _WHAT_IT_WAS.search(sentence) or _FELT.search(sentence)
    return bool(said) and not to_come(sentence) and not _LOOKING_AHEAD.search(sentence)


# a feeling of what is ahead, or what the going will cost or take (春节回老家，好烦 and 圣诞节去约会，好紧张 in
# November, 国庆去三亚，机票好贵 in August): as likely the coming festival's, left to the nearer
_FELT_AHEAD = lazy(r"紧张|忐忑|担心|害怕|焦虑|发愁|头疼|烦|贵|远")


def outing_felt(clause: str, sentence: str) -> bool:
    """Whether ``clause`` tells a going or an outing and its ``sentence`` how it went, booking nothing: it is
    told of the festival gone, however long ago (圣诞节去爬山，好累 said in February).

    >>> outing_felt("圣诞节去约会", "圣诞节去约会，超开心"), outing_felt("圣诞节去约会", "圣诞节去约会，订了餐厅，超贵")
    (True, False)
    """
    # 订了餐厅 may be for the festival ahead; 约会 books nothing (_ARRANGED)
    booked = _BOOKED.search(sentence) is not None or _FELT_AHEAD.search(sentence) is not None
    return _OUTING.search(clause) is not None and _told_how_it_was(sentence) and not booked


def to_come(clause: str) -> bool:
    """Whether a Chinese clause says its time is still to come (要, 打算, 有空, 马上) and not that it
    happened."""
    if _SOON.search(clause):
        return True
    if _SAID_DONE.search(clause) or _PAST.search(clause):
        return False
    return bool(_TO_COME.search(clause) or (_PROPOSED.search(clause) and not _GUESSED.search(clause)))


def told_done(clause: str) -> bool:
    """Whether a Chinese clause tells its time done (了, 过, 那天) and says nothing of it still to come."""
    return bool(_SAID_DONE.search(clause) or _PAST.search(clause)) and not _SOON.search(clause)


_CLAUSE_REACH = 120  # characters read each way for a clause's ends: a text of no stops has no longer clause


def clause_around(text: str, at: int) -> str:
    """The clause of ``text`` that holds position ``at``, at most ``_CLAUSE_REACH`` characters each way: a
    reader that asks it for every clock of a long text without stops read the whole text each time.

    >>> clause_around("明天三点开会，五点就得起", 8)
    '五点就得起'
    """
    low, high = max(0, at - _CLAUSE_REACH), min(len(text), at + _CLAUSE_REACH)
    first = max((m.end() for m in CLAUSE_END.finditer(text, low, at)), default=low)
    last = CLAUSE_END.search(text, at, high)
    return text[first : last.start() if last else high]


class _Clauses:
    """The clauses of a text, its stops found once: a scan per phrase would be quadratic. Each is read at most
    ``_CLAUSE_REACH`` characters each way, as :func:`clause_around` reads: a text of no stops (下周一到周五 said
    a thousand times) made every phrase's clause the whole text, and its reading quadratic (3.4 s at 16 k)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._stops: list[int] | None = None

    def around(self, at: int) -> str:
        stops, i = self._at(at)
        first = max(stops[i - 1] + 1 if i else 0, at - _CLAUSE_REACH)
        return self.text[first : min(stops[i] if i < len(stops) else len(self.text), at + _CLAUSE_REACH)]

    def before(self, at: int) -> str:
        """The clause holding ``at``, up to ``at``."""
        stops, i = self._at(at)
        return self.text[max(stops[i - 1] + 1 if i else 0, at - _CLAUSE_REACH) : at]

    def _at(self, at: int) -> tuple[list[int], int]:
        if self._stops is None:
            self._stops = [m.start() for m in CLAUSE_END.finditer(self.text)]
        return self._stops, bisect.bisect_left(self._stops, at)


def by_tense(text: str, found: Found, now: datetime, resolve: Resolve, asked: bool = False) -> Found:
    """``found`` with each bare day, month, date, festival and weekday read by its clause's tense;
    ``resolve`` reads a phrase (明年春节) as the finder does; ``asked``: a recall query (see find_time_phrases)."""
    clauses, resolve = _Clauses(text), _remembering(resolve)
    out: Found = []
    for start, end, span in found:
        phrase = text[start:end]
        if _BARE_DAY.fullmatch(phrase):
            span = _bare_day(span, clauses.around(start), now)
        elif BARE_MONTH.fullmatch(phrase) or _MONTH_DAY.fullmatch(phrase):
            span = _in_year(span, clauses.around(start), now, _BOOKED.search(clauses.before(start)) is not None)
        elif _FESTIVAL.fullmatch(phrase):
            sentence = sentence_around(text, start)
            booked = _BOOKED.search(clauses.before(start)) is not None
            planned = not asked and outing_planned(clauses.around(start), sentence)
            awaited = planned and _AWAITED.search(sentence) is not None
            felt = not asked and outing_felt(clauses.around(start), sentence)
            span = _festival(
                phrase, span, clauses.around(start), sentence, now, resolve, booked or planned, asked, awaited, felt
            )
        elif _BARE_WEEKDAY.match(text, start):
            clause = clauses.around(start)
            waited = _WAITED_FOR.search(clauses.before(start)) is not None and not _OF_THE_DAY.match(text, end)
            # 周末露营 said on a Tuesday: the weekend is when outings are planned in the week (a weekday's
            # going told bare, 周一去体检 on a Friday, is as often the Monday gone)
            weekend = phrase.endswith("末") and not asked and outing_planned(clause, sentence_around(text, start))
            awaited = waited or weekend or _FINALLY.search(clause) is not None
            span = _weekday(text[end : end + 1], span, clause, now, awaited)
        out.append((start, end, span))
    return out


def _remembering(resolve: Resolve) -> Resolve:
    """``resolve`` asking once for each phrase: a text of one festival told again and again (圣诞节去爬山，好累)
    asked jionlp (~1 ms) for 去年圣诞节 each time."""
    readings: dict[tuple[str, datetime], Range | None] = {}

    def remembered(phrase: str, now: datetime) -> Range | None:
        if (phrase, now) not in readings:
            readings[phrase, now] = resolve(phrase, now)
        return readings[phrase, now]

    return remembered


def _bare_day(span: Range, clause: str, now: datetime) -> Range:
    """A bare day of the month (四号) is read by jionlp as this month's. Said on the 16th, "清明是四号到六号
    吧" means next month's 4th, and "二十号那天我们吵架了" last month's 20th: a day long past in this month,
    in a clause that says nothing happened, is next month's; a day to come in a clause that says it
    happened is last month's.

        >>> from huiyi.text.times_zh import chinese_phrases
        >>> now = datetime(2024, 3, 16, 20, 0)
        >>> [str(span[0].date()) for *_, span in chinese_phrases("清明是四号到六号吧", now)]
        ['2024-04-04', '2024-04-06']
        >>> [str(span[0].date()) for *_, span in chinese_phrases("二十号那天我们吵架了，四号我就到了", now)]
        ['2024-02-20', '2024-03-04']
        >>> [str(span[0].date()) for *_, span in chinese_phrases("十二号的会取消，二十号就到了", now)]
        ['2024-03-12', '2024-03-20']
    """
    if span[0].month != now.month or span[0].year != now.year:
        return span
    past = _PAST.search(clause) is not None
    if not past and not _SAID_DONE.search(clause) and span[1] <= midnight(now.date()) - _SETTLED:
        return _month_shifted(span, 1) or span
    if past and span[0] > now:
        return _month_shifted(span, -1) or span
    return span


def _in_year(span: Range, clause: str, now: datetime, booked: bool = False) -> Range:
    """A month named alone (十二月) or a date without its year (3月5日) is read as this year's. Asked in
    March, "十二月发生了什么" means last December: one still to come, in a clause that says it happened, is
    last year's. Said in November, "3月5日前我要交报告" means next March: one gone by, in a clause that says
    it is to come, is next year's when that is the nearer of the two (十月我要… said in November is as
    often "had to", and stays October). So is one booked (我报了三月的马拉松): what is booked is ahead; not
    the month it was booked in (我三月报了名).

        >>> from huiyi.text.times_zh import chinese_phrases
        >>> march = datetime(2025, 3, 25, 21, 0)
        >>> [str(span[0].date()) for *_, span in chinese_phrases("十二月发生了什么，三月呢，十二月我要去哈尔滨", march)]
        ['2024-12-01', '2025-03-01', '2025-12-01']
        >>> [(str(a.date()), str(b.date())) for *_, (a, b) in chinese_phrases("三月初，二月底，十月中旬", march)]
        [('2025-03-01', '2025-03-11'), ('2025-02-21', '2025-03-01'), ('2025-10-11', '2025-10-21')]
        >>> november = datetime(2024, 11, 13, 10, 0)
        >>> [str(span[0].date()) for *_, span in chinese_phrases("3月5日前我要交报告，十月我要交的没交", november)]
        ['2025-03-05', '2024-10-01']
        >>> [str(span[0].date()) for *_, span in chinese_phrases("我报了三月的马拉松，我三月报了名", november)]
        ['2025-03-01', '2024-03-01']
    """
    if span[0] > now and (_SAID_DONE.search(clause) or _PAST.search(clause)) and not _not_done(clause):
        return _month_shifted(span, -12) or span
    coming = booked or to_come(clause)
    if span[1] <= now and coming and (ahead := _month_shifted(span, 12)) and ahead[0] - now < now - span[1]:
        return ahead
    return span


def sentence_around(text: str, at: int) -> str:
    """The sentence ``at`` is in, at most 200 characters either side: a message of commas alone is no one
    sentence to read again for each of its phrases."""
    first = max((m.end() for m in _SENTENCE_END.finditer(text, max(0, at - 200), at)), default=max(0, at - 200))
    last = _SENTENCE_END.search(text, at, at + 200)
    return text[first : last.start() if last else min(len(text), at + 200)]


def _festival(
    phrase: str,
    span: Range,
    clause: str,
    sentence: str,
    now: datetime,
    resolve: Resolve,
    booked: bool = False,
    asked: bool = False,
    awaited: bool = False,
    felt: bool = False,
) -> Range:
    """A festival named alone is this year's (jionlp's reading, or :mod:`huiyi.text.holidays`'), as a month
    is. Said in November, "春节我要去三亚玩" means the coming one: one over, in a clause that says it is to
    come (要, 打算, 会), is next year's; one ahead, in a clause that says it happened, last year's. One over,
    with no word of its tense in its sentence (元旦我们去哪玩, on 28 December; not 在元旦晚会上，我们做了灯笼),
    is the nearer of the two: not the one 361 days gone when the next is days ahead (one ahead stays:
    感恩节我们吃火鸡 in May). 那天 says a day gone, but not beside 要: 元旦那天我要加班 is to come. One booked,
    wished or told as an outing (我订了春节的机票, 祝你春节快乐, 国庆去云南玩: ``booked``) is the coming one,
    unless the last is at most a month gone, or its sentence tells the going done (圣诞节约了她，去约会了 said in
    January: ``gone``), which was at the one gone; an outing looked forward to (圣诞节去约会，好期待: ``awaited``)
    is the coming one whenever the last was, and one told with how it went (圣诞节去爬山，好累: ``felt``) the last
    one begun, even most of a year gone, unless the coming one is at most a month ahead.

        >>> from huiyi.text.times_zh import chinese_phrases
        >>> november = datetime(2024, 11, 13, 10, 0)
        >>> [str(span[0].date()) for *_, span in chinese_phrases("春节我要去三亚玩，中秋节我会回家", november)]
        ['2025-01-29', '2025-10-06']
        >>> [str(span[0].date()) for *_, span in chinese_phrases("春节我去了三亚，圣诞节我们去了哈尔滨", november)]
        ['2024-02-10', '2023-12-25']
        >>> [str(span[0].date()) for *_, span in chinese_phrases("除夕我们吃年夜饭，中秋节吃月饼", november)]
        ['2025-01-28', '2024-09-17']
        >>> [str(span[0].date()) for *_, span in chinese_phrases("祝你春节快乐，我订了春节的机票", november)]
        ['2025-01-29', '2025-01-29']
        >>> [str(span[0].date()) for *_, span in chinese_phrases("祝你春节快乐", datetime(2025, 2, 3, 10))]
        ['2025-01-29']
    """
    if year := _YEAR_SAID.search(clause):  # 今年我们要一起过圣诞节: the year said, whatever the tense
        return resolve(year.group() + phrase, now) or span
    felt = felt and not _not_done(clause)  # 圣诞节约会取消，好失望: maybe the one ahead
    # 过年不回家了: the 了 of giving up a festival's plan speaks of the one to come
    gave_up = _GIVE_UP.search(clause) is not None
    said_done = _SAID_DONE.search(clause) is not None and not gave_up
    done = said_done or _PAST.search(clause) is not None or _BOOKED_BEFORE.search(clause) is not None
    plain = _WISH.sub("", clause)  # a plan's words, not a wish's
    firm = to_come(plain) or (_TO_COME.search(plain) is not None and not said_done)
    firm = firm or ((_WILL.search(clause) is not None or gave_up) and not done) or (awaited and not done)
    gone = went_in(sentence)  # 去约会了: the going was had
    booked_ahead = booked and not _BOOKED_BEFORE.search(clause)
    soft = not firm and not gone and (booked_ahead or (_WISH.search(clause) is not None and not said_done))
    ahead = firm or soft
    if felt and not ahead and (last := _last_unless_the_next_is_near(phrase, span, now, resolve)):
        return last
    untold = not ahead and not done  # no tense in its clause, nor a done one in its sentence: the nearer
    if untold and (asked or _SAID_DONE.search(sentence) or _PAST.search(sentence)):
        return span
    if span[1] <= now and (ahead or untold):
        years = 1
    elif span[0] > now and done and not ahead and (gone or not _not_done(clause)):
        years = -1
    elif span[0] > now and done and not ahead and not _NOT_DONE.search(clause):  # sold out for it: the nearer,
        last = _years_on(phrase, span, now, resolve, -1)  # the coming one or, said in January, the Christmas gone
        return last if last is not None and now - last[0] < span[0] - now else span
    else:
        return span
    again = _years_on(phrase, span, now, resolve, years)
    if again is None or firm or years < 0:
        return again or span
    if soft:
        return span if now - span[0] <= _JUST_GONE else again
    return again if abs(again[0] - now) < abs(span[0] - now) else span


def _years_on(phrase: str, span: Range, now: datetime, resolve: Resolve, years: int) -> Range | None:
    """The festival ``phrase`` read as ``span`` one year on (``years`` 1) or back (-1)."""
    # jionlp reads 明年春节 by the lunar calendar, but 明年清明节 as this year's: checked, else the same day
    again = resolve(("明年" if years > 0 else "去年") + phrase, now)
    if again is None or again[0].year != span[0].year + years:
        again = _month_shifted(span, 12 * years)
    return again


def _last_unless_the_next_is_near(phrase: str, span: Range, now: datetime, resolve: Resolve) -> Range | None:
    """The last festival ``phrase`` (read as ``span``) begun by ``now``; None when the coming one is at most
    ``_DAYS_AWAY`` ahead, as a feeling may look forward to it."""
    last, coming = (span, _years_on(phrase, span, now, resolve, 1)) if span[0] <= now else (None, span)
    last = last or _years_on(phrase, span, now, resolve, -1)
    return None if coming is not None and coming[0] - now <= _DAYS_AWAY else last


def _weekday(after: str, span: Range, clause: str, now: datetime, awaited: bool = False) -> Range:
    """A bare weekday (周一, 周末) is read as this week's. Said on a Friday, "我周一要去体检" means the coming
    Monday: a day already over this week, in a clause that says it is still to come, is next week's. Said
    on a Wednesday, "周日我去爬山了" means the Sunday just gone: a day still ahead this week, in a clause
    that says it is done (了, 过, 那天) and nothing to come, is last week's. One ``awaited`` (等我们一到周末就去,
    周末终于能休息了) is ahead, whatever 了 says.

        >>> from huiyi.text.times_zh import chinese_phrases
        >>> friday = datetime(2024, 11, 22, 20, 0)
        >>> [str(span[0].date()) for *_, span in chinese_phrases("我周一要去体检，周一那天好累", friday)]
        ['2024-11-25', '2024-11-18']
        >>> wednesday = datetime(2024, 11, 13, 10, 0)
        >>> [str(span[0].date()) for *_, span in chinese_phrases("周日我去爬山了，累死了", wednesday)]
        ['2024-11-10']
        >>> said = "周日我要去爬山了。周五的会取消了。周五就到了"
        >>> [str(span[0].date()) for *_, span in chinese_phrases(said, wednesday)]
        ['2024-11-17', '2024-11-15', '2024-11-15']
    """
    if span[1] <= midnight(now.date()):
        return (span[0] + timedelta(days=7), span[1] + timedelta(days=7)) if to_come(clause) or awaited else span
    if span[0] <= now or after == "的" or awaited or not told_gone(clause):
        return span
    return span[0] - timedelta(days=7), span[1] - timedelta(days=7)


def told_gone(clause: str) -> bool:
    """Whether ``clause`` tells its weekday gone (周日我去爬山了, 周一那天好累) and nothing of it ahead (周日我要去
    爬山了: 要 before 了; 周五的会取消了, 周五就到了): a weekday still ahead this week, so told, is last week's."""
    ahead = _TO_COME.search(clause) or _SOON.search(clause) or _not_done(clause) or _WILL.search(clause)
    return not ahead and bool(_PAST.search(clause) or "了" in clause or _DONE_GUO.search(clause))


def _month_shifted(span: Range, months: int) -> Range | None:
    """The same days ``months`` later (or earlier); None where that month has no such day (31号)."""
    year, month = shift_month(span[0].year, span[0].month, months)
    try:
        first = span[0].replace(year=year, month=month)
    except ValueError:
        return None
    return first, first + (span[1] - span[0])
