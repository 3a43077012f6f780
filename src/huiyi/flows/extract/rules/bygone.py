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
"""

from __future__ import annotations

from huiyi.patterns import lazy

__all__ = ["THEN_NOT_NOW", "held_then", "said_then"]

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
THEN_NOT_NOW = frozenset(("工作", "住址"))  # the keywords of the facts a time after the deed makes past


def said_then(prefix: str) -> bool:
    """Whether the words before a clause's 我 put it in a time gone by."""
    then = _SAID_THEN.match(prefix)
    return then is not None and not _TOLD.search(prefix, then.end()) and not _OWN_CLAUSE.search(prefix, then.end())


def held_then(rest: str) -> bool:
    """Whether a clause, from its 我 on, puts the job or home it tells of in a time gone by."""
    return _HELD_THEN.search(rest) is not None
