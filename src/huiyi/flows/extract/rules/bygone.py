"""A clause that tells of a time gone by: 以前我住在北京, 那时候我在腾讯上班, 我在腾讯当产品经理的那几年. What it
says was so then; read as now, it was the person's job or home (木木在腾讯工作) and closed the one they have.
The rules keep no past job or home (我在谷歌工作过 is none either), so such a clause gives none.

A time said before 我 makes the whole clause then; one said after the deed (的那几年, 那会儿) makes only the
job or home then, as 我喜欢那时候的自己 is a liking now.

    >>> [said_then(p) for p in ("以前", "那时候", "其实小时候", "睡觉之前", "下雨的时候", "")]
    [True, True, True, False, False, False]
    >>> [said_then(p) for p in ("过去", "过去那几年", "过去三年", "过去的一年", "过去这几年")]
    [True, True, False, False, False]
    >>> [said_then(p) for p in ("之前跟你说过", "以前没告诉你", "之前跟你提过", "跟你说以前", "告诉你小时候")]
    [False, False, False, True, True]
    >>> [said_then(p) for p in ("以前那家公司倒闭了", "以前我在北京上班现在", "以前在北京的时候")]
    [False, False, True]
    >>> [held_then(r) for r in ("我在腾讯当产品经理的那几年", "我在腾讯上班那会儿", "我在腾讯工作比以前累")]
    [True, True, False]
    >>> [held_then(r) for r in ("我在腾讯当产品经理的时候", "我在公司上班的时候不能看手机", "我住在北京的时候很开心")]
    [True, False, True]

A clause after it that says it holds still (以前我就喜欢猫，现在也喜欢) makes the time gone by one that runs
to now, and the clause is read from its 我; a clause of its own (现在也在上海上班) or one that says it ended
(现在不喜欢了) leaves it then:

    >>> [still_now("以前我就喜欢猫", f) for f in ("现在也喜欢", "现在还是很喜欢", "现在也一样", "但是现在也喜欢呀")]
    ['我就喜欢猫', '我就喜欢猫', '我就喜欢猫', '我就喜欢猫']
    >>> [still_now("以前我喜欢猫", f) for f in ("现在不喜欢了", "现在也没那么喜欢了", "现在也很开心", "")]
    ['以前我喜欢猫', '以前我喜欢猫', '以前我喜欢猫', '以前我喜欢猫']
    >>> still_now("以前我在腾讯上班", "现在也在"), still_now("以前我在北京上班", "现在也在上海上班")
    ('我在腾讯上班', '以前我在北京上班')
"""

from __future__ import annotations

from huiyi.patterns import lazy

__all__ = ["THEN_NOT_NOW", "held_then", "said_then", "still_now"]

# what a clause first says (其实以前我…); 睡觉之前我… and 下雨的时候我… are when, often, not then; 过去三年我…
# is a span that runs to now
_SAID_THEN = lazy(
    r"^(?:(?:跟|和|对|给)?你说|告诉你)?(?:其实|但是|不过|可是|而且|因为|所以|记得|还记得)?"
    r"(?:以前|之前|曾经|当年|当初|那时|那会|那几年|那些年|那段时间|从前|过去(?!的?(?:这|[一两二三四五六七八九十几半\d]))|小时候)"
)
# 之前跟你说过我…: the time of the telling, not of what was told
_TOLD = lazy(r"说|告诉|讲|提|问|聊")
# 以前那家公司倒闭了我现在…, 以前我在北京上班现在我…: a clause of its own ended (no comma) between the time and 我
_OWN_CLAUSE = lazy(r"了|现在|目前|如今")
# after the deed: 的那几年, 那会儿, 期间, 当产品经理的时候 (as 当老师的时候 is no job: rules.jobs); not 以前 of a
# comparison (比以前累), nor 上班的时候 of what one does at work now
# 我住在北京的时候: a home told as when something was (it was 木木住在北京的时候很开心); its own 住, after 我:
# 我在酒店上班住宿舍的时候很方便 is a job now
_HELD_THEN = lazy(
    r"那几年|那些年|那段时间|那段日子|那阵子|那时候?|那会儿?|期间|[当做][^，。！？]{1,8}?的时候"
    r"|^我[^，。！？]{0,3}?住[^，。！？]{1,8}?的时候"
)
# 现在也喜欢, 现在还是很喜欢, 现在也一样: it holds still, said with no object of its own (a deed of two
# characters at most, which the clause before must have said too)
_STILL = lazy(
    r"^(?:但是?|不过|可是|而且)?我?(?:现在|如今|目前|至今|到现在)我?(?:也|还|依然|仍然|依旧|照样|一直)+是?"
    r"(?:很|超|特别|挺|蛮|非常|一样|如此|这样)?(?P<deed>(?![不没])[\u4e00-\u9fff]{0,2}?)[了啦呀啊呢哦~～!！]*$"
)
THEN_NOT_NOW = frozenset(("工作", "住址"))  # the keywords of the facts a time after the deed makes past


def said_then(prefix: str) -> bool:
    """Whether the words before a clause's 我 put it in a time gone by."""
    then = _SAID_THEN.match(prefix)
    return then is not None and not _TOLD.search(prefix, then.end()) and not _OWN_CLAUSE.search(prefix, then.end())


def held_then(rest: str) -> bool:
    """Whether a clause, from its 我 on, puts the job or home it tells of in a time gone by."""
    return _HELD_THEN.search(rest) is not None


def still_now(clause: str, following: str) -> str:
    """``clause`` from its 我 on when a time gone by starts it and ``following`` says it holds still; else
    ``clause`` as it is."""
    at = clause.find("我")
    still = _STILL.match(following)
    if at < 0 or still is None or not said_then(clause[:at]):
        return clause
    deed = still.group("deed")
    return clause if deed and deed[0] not in clause[at:] else clause[at:]
