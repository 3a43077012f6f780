"""What the speaker is into lately, a work named in 《》: 我最近在看《漫长的季节》, 我在追《繁花》, 这阵子我在读
《三体》, 我最近在玩《黑神话：悟空》. It is a preference of now (木木最近在看《漫长的季节》), which a companion asks
after; many may be held at once, so none ends another.

Only a title in 《》 is read: 我在看电视, 我在玩手机 and 我在看书 are what one does this minute, no interest. The
title must end the clause (a particle or an episode may follow): 我在看《繁花》的时候哭了 is about then, and
我在看《繁花》里的那个演员 about someone else. Wishes and plans (我想看《繁花》, 我打算看) have no 在 and are none.

    >>> [bool(ZH_INTEREST.pattern.match(c)) for c in ("我最近在看《漫长的季节》", "我在追《繁花》", "我在看电视")]
    [True, True, False]
    >>> [bool(ZH_INTEREST.pattern.match(c)) for c in ("我在看《繁花》的时候哭了", "我正在二刷《甄嬛传》第三集")]
    [False, True]
"""

from __future__ import annotations

from huiyi.flows.extract.rules.patterns import ZH_END_PARTICLES, ZH_RULES, FactRule
from huiyi.model import FactKind
from huiyi.patterns import lazy

# 最近, 这阵子, 还, 也, 一直: lately and still; 正在 as well as 在
_LATELY = "(?:最近|近来|这阵子|这段时间|这几天|这两天|这些天|也|还|又|一直|都|正)*"
_DOING = "(?:看|追|读|玩|听|刷|重温|二刷|三刷|补)"
# 第三集, 第二季: how far one is, still the same work
_HOW_FAR = "(?:第[一二三四五六七八九十百\\d]+(?:集|季|章|部|卷|关))?"

ZH_INTEREST = FactRule(
    lazy(rf"我{_LATELY}在(?P<p>{_DOING})(?P<o>《[^《》]{{1,30}}》){_HOW_FAR}(?:了|呢|[{ZH_END_PARTICLES}])*$"),
    "最近在{p}",
    FactKind.PREFERENCE,
    "喜好",
    "{s}最近在{p}{o}",
    confidence=0.7,
)
# the first-person rules with the interests after them (none of them read a title after 在看)
ZH_FACT_RULES: tuple[FactRule, ...] = (*ZH_RULES, ZH_INTEREST)
