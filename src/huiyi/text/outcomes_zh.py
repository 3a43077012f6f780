"""What a Chinese line tells came of a time's plan: its tickets sold out or its rooms full (国庆的票都卖完了), or
the going told done (去约会了, 最后没去成). Neither is a plan of the speaker's; and each says which festival is
meant, as :mod:`huiyi.text.tense_zh` reads it: what sold out is for one still to come (a 了 of no time gone),
and a going told done was at one gone, whatever was arranged or booked for it (圣诞节约了她，去约会了).
"""

from __future__ import annotations

from huiyi.patterns import lazy

__all__ = ["sold_out", "sold_out_ahead", "went", "went_in"]

# a thing told sold out or full (国庆的票都卖光了, 酒店订满了, 机票被抢光了, 想订机票结果没票了); the English side's
# is rules.sold_out_en
SOLD_OUT = (
    r"(?:卖|售|抢|订)(?:光|满|罄)|(?:卖|售|抢)空(?![调位间])|约满了|卖完|售完|满房|满座|客满|(?:订|抢|买)不到"
    r"|没(?:票|房|位子?|座位?)了"
    r"|被(?:抢|订|买)(?:光|完|空|走)|一票难求"
)
_SOLD_OUT = lazy(SOLD_OUT)
# …said of a time gone: when it sold out, not what for (国庆那天门票都卖光了, 上次国庆票都卖光了, 国庆的时候没票了)
_THEN = lazy(r"那天|那次|那会|那晚|那时|上次|上回|当时|时候")
# a going, and a going told done: 去约会了, 去了云南, 回老家了, 玩过, 最后没去成 (约会 is a date had, not 约 arranged)
_GOING = (
    r"(?<![过失上下])去(?![世年])|回(?:家|老家|国|去|来|趟|到)|出(?:门|发|游|国|去)|玩(?!笑)|约会|旅游|旅行|露营|爬山"
    r"|逛街|聚餐|看电影"
)
# (its first characters looked ahead for first: a sentence of no going is scanned 6× faster)
_WENT = lazy(
    rf"(?=[去回出玩约旅露爬逛聚看没])(?:(?:{_GOING})[^，。！？；,.!?;\n的]{{0,6}}?了|(?:{_GOING})过|没能?(?:{_GOING}))"
)
# …and not one still ahead, given up or booked: 要去约会了, 快出发了, 去不了了, 不去了, 我们就去约会了 (then: a plan's
# 就), 回家的票买好了; nor one at a time of its own (昨天去看电影了, 明天去看电影了: not the festival's going)
_CLAUSE_END = lazy(r"[，。！？；,.!?;\n]")
_NOT_YET = lazy(
    r"不|要|想|打算|准备|计划|(?<![约机])会|就|快|马上|得|该|取消|改|推迟|延期|订|买|抢|报|(?<![大隐])约(?!会)"
    r"|[昨今明前后][天晚早]|[上下](?:周|个|次|回|星期|礼拜)|周[一二三四五六日天末]|星期|礼拜|待会|一会|到时|刚才"
    r"|[0-9一二三四五六七八九十]+[号日点]"
)


def sold_out(text: str) -> bool:
    """Whether ``text`` tells a thing sold out or full.

    >>> sold_out("国庆的票都卖完了"), sold_out("酒店都满房了"), sold_out("国庆的票买了")
    (True, True, False)
    """
    return _SOLD_OUT.search(text) is not None


def sold_out_ahead(clause: str) -> bool:
    """Whether ``clause`` tells a thing sold out for its time, which is then still ahead, not the time it sold out
    in.

    >>> sold_out_ahead("国庆的票都卖完了"), sold_out_ahead("国庆那天门票都卖光了")
    (True, False)
    """
    return _SOLD_OUT.search(clause) is not None and _THEN.search(clause) is None


def went(clause: str) -> bool:
    """Whether ``clause`` tells a going done, or fallen through, and nothing of it still ahead.

    >>> went("去约会了"), went("最后没去成"), went("去了云南")
    (True, True, True)
    >>> went("要去约会了"), went("去不了了"), went("约了她"), went("回家的票买好了"), went("只能在家待着了")
    (False, False, False, False, False)
    >>> went("明天去看电影了"), went("昨天去看电影了")
    (False, False)
    """
    return _WENT.search(clause) is not None and _NOT_YET.search(clause) is None


def went_in(sentence: str) -> bool:
    """Whether a clause of ``sentence`` tells a going done (:func:`went`): 圣诞节约了她，去约会了.

    >>> went_in("圣诞节约了她，去约会了"), went_in("圣诞节约了她，好期待")
    (True, False)
    """
    # a sentence with no going done at all is read once, not clause by clause (a message of a hundred commas)
    return _WENT.search(sentence) is not None and any(went(part) for part in _CLAUSE_END.split(sentence))
