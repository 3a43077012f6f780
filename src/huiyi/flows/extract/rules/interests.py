"""What the speaker is into lately, a work named in 《》: 我最近在看《漫长的季节》, 我在追《繁花》, 这阵子我在读
《三体》, 我最近在玩《黑神话：悟空》, 我在追剧《繁花》. It is a preference of now (木木最近在看《漫长的季节》), which a
companion asks after; many may be held at once, so none ends another.

Only a title in 《》 is read: 我在看电视, 我在玩手机 and 我在看书 are what one does this minute, no interest. The
title must end the clause (a particle, an episode or 这部剧 may follow): 我在看《繁花》的时候哭了 is about then, and
我在看《繁花》里的那个演员 about someone else. Wishes and plans (我想看《繁花》, 我打算看) have no 在 and are none.

    >>> [bool(ZH_INTEREST.pattern.match(c)) for c in ("我最近在看《漫长的季节》", "我在追《繁花》", "我在看电视")]
    [True, True, False]
    >>> [bool(ZH_INTEREST.pattern.match(c)) for c in ("我在看《繁花》的时候哭了", "我正在二刷《甄嬛传》第三集")]
    [False, True]
    >>> [bool(ZH_INTEREST.pattern.match(c)) for c in ("我在追剧《繁花》", "我在追《繁花》这部剧", "我在追剧")]
    [True, True, False]

A closing 呢 is no question here: 我最近在追《繁花》呢 tells a work one is in the middle of (:func:`ongoing`). In a
private chat 我 may be left out of the message's first clause, the chat says whose (最近在追《繁花》); so may it
right after a clause of the speaker's (我辞职了，这阵子在追《繁花》: :func:`interests_alone`).

    >>> ongoing("我最近在追《繁花》呢"), ongoing("你在追什么《繁花》呢"), ongoing("我在上班呢")
    (True, False, False)
    >>> ongoing("我在听《那么多年》呢"), ongoing("我在追《繁花》吗")
    (True, False)
"""

from __future__ import annotations

from huiyi.flows.extract.rules.patterns import ZH_END_PARTICLES, ZH_LEAD, ZH_OWN_SUBJECT, ZH_RULES, FactRule
from huiyi.model import FactKind
from huiyi.patterns import lazy

__all__ = ["ZH_FACT_RULES", "ZH_INTEREST", "interests_alone", "ongoing"]

# 最近, 这阵子, 还, 也, 一直: lately and still; 正在 as well as 在
_LATELY = "(?:最近|近来|这阵子|这段时间|这几天|这两天|这些天|也|还|又|一直|都|正)*"
_DOING = "(?:看|追|读|玩|听|刷|重温|二刷|三刷|补)"
# 追剧《繁花》, 追番《…》, 看书《三体》: the kind of work said before its title, or after it (《繁花》这部剧)
_KIND = "(?:新番|番剧|番|电视剧|美剧|韩剧|日剧|港剧|国产剧|剧|动漫|动画|综艺|小说|漫画|书|游戏)"
_THIS_KIND = rf"(?:这|那)(?:部|个|本|款)?{_KIND}"
# 第三集, 第二季: how far one is, still the same work
_HOW_FAR = "(?:第[一二三四五六七八九十百\\d]+(?:集|季|章|部|卷|关))?"
_WORK = rf"在(?P<p>{_DOING}){_KIND}?(?P<o>《[^《》]{{1,30}}》){_HOW_FAR}(?:{_THIS_KIND})?"

ZH_INTEREST = FactRule(
    lazy(rf"我{_LATELY}{_WORK}(?:了|呢|[{ZH_END_PARTICLES}])*$"),
    "最近在{p}",
    FactKind.PREFERENCE,
    "喜好",
    "{s}最近在{p}{o}",
    confidence=0.7,
)
# the first-person rules with the interests after them (none of them read a title after 在看)
ZH_FACT_RULES: tuple[FactRule, ...] = (*ZH_RULES, ZH_INTEREST)

_ONGOING = lazy(rf"{_WORK}(?:了|[{ZH_END_PARTICLES}])*呢$")
_ASKS = lazy(r"什么|啥|哪|谁|怎么|为什么|几|多少|吗|么")
_TITLE = lazy(r"《[^《》]*》")  # 《那么多年》: a title's words ask nothing


def ongoing(clause: str) -> bool:
    """Whether ``clause`` ends in a 呢 that tells a work one is in the middle of (我在追《繁花》呢), not one
    that asks: a question word is not in it."""
    return _ONGOING.search(clause) is not None and _ASKS.search(_TITLE.sub("", clause)) is None


def interests_alone(clauses: list[tuple[str, bool]], private: bool) -> list[tuple[str, bool]]:
    """(clause, unsure) pairs with 我 given to a clause that tells a work one is into without it (最近在追《繁花》),
    when it is the speaker's: the first clause of a ``private`` chat's message, or one right after a clause that
    opens on the speaker (not on 我妈, 我家的猫: theirs)."""
    out: list[tuple[str, bool]] = []
    for at, (clause, unsure) in enumerate(clauses):
        before = out[at - 1][0] if at else ""
        mine = (private and not at) or (ZH_LEAD.match(before) and not ZH_OWN_SUBJECT.match(before))
        if mine and not unsure and "我" not in clause and ZH_INTEREST.pattern.match("我" + clause):
            clause = "我" + clause
        out.append((clause, unsure))
    return out
