"""Likes and dislikes: "我喜欢吃什么" asks for what one likes, and 木木不喜欢吃辣 is its opposite.

Meaning and words score 我不喜欢香菜 as close to 我喜欢吃什么 as 我最喜欢吃火锅了 (the same 喜欢, the same 吃), so
a dislike led a question about likes. When the line asked asks what someone likes (or dislikes), the candidate
lines and facts that say a like of that sign gain ``polarity_weight``; those that say the other sign, or both,
gain nothing.

    >>> asked("我喜欢吃什么"), asked("我有什么不喜欢吃的"), asked("我讨厌什么来着"), asked("我喜欢你")
    (1, -1, -1, 0)
    >>> said("今天中午吃了火锅，我最喜欢吃火锅了"), said("木木不喜欢吃辣"), said("不喜欢榴莲，但喜欢芒果")
    (1, -1, 0)
    >>> said("I love hiking"), said("I don't like cilantro"), asked("What food do I like?")
    (1, -1, 1)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Mapping

from huiyi.patterns import lazy
from huiyi.recall.rerank import Window
from huiyi.store.base import RankRow

__all__ = ["asked", "gains", "others", "said"]

_LIKE = r"喜欢|爱吃|爱喝|爱玩|爱看|爱听|最爱|偏爱|\blike\b|\blove\b|\benjoy\b|\bfavou?rite\b"
_UNLIKE = (
    r"(?:不|没那么|不太|不怎么|并不)(?:喜欢|爱吃|爱喝|爱玩|爱看|爱听)|讨厌|受不了|反感|吃不了|喝不了"
    r"|\b(?:don't|do not|doesn't|does not|never|didn't)\s+(?:really\s+)?(?:like|love|enjoy)\b|\bhate\b|\bdislike\b"
)
_UNLIKES = lazy(_UNLIKE, re.IGNORECASE)
_LIKES = lazy(_LIKE, re.IGNORECASE)
_EITHER = lazy(rf"{_LIKE}|讨厌|受不了|反感|吃不了|喝不了|\bhate\b|\bdislike\b", re.IGNORECASE)
_QUESTION = lazy(r"什么|哪|啥|吗|？|\?|\bwhat\b|\bwhich\b", re.IGNORECASE)
_AT_SOMEONE = lazy(r"喜欢(?:你|我|他|她)(?![们的]?(?:吃|喝|玩|看|听|做|去))")  # 我喜欢你: no taste asked


@functools.lru_cache(maxsize=16_384)  # a scope's lines come back query after query (issue 15: 0.6 ms a window)
def said(text: str) -> int:
    """+1 where the text says a like and no dislike, -1 a dislike and no other like, 0 neither or both."""
    if not _EITHER.search(text):  # most lines say neither: one scan, not three
        return 0
    unlikes = len(_UNLIKES.findall(text))
    likes = len(_LIKES.findall(_UNLIKES.sub(" ", text)))
    if unlikes and not likes:
        return -1
    return 1 if likes and not unlikes else 0


def asked(query: str) -> int:
    """+1 where the line asked asks what someone likes, -1 what they dislike, 0 neither."""
    line = query.strip().rsplit("\n", 1)[-1]
    if not _QUESTION.search(line) or _AT_SOMEONE.search(line):
        return 0
    return said(line)


# whose like a clause tells, when not the speaker's own: 还说她喜欢吃榴莲, 我妈喜欢…, my sister loves…
_OTHERS = lazy(
    r"她|他|它|妈|爸|哥|姐|弟|妹|爷|奶|老公|老婆|男朋友|女朋友|对象|朋友|同事|室友|闺蜜"
    r"|\b(?:she|he|they|his|her|their|mom|mum|mother|dad|father|sister|brother|friend|boyfriend|girlfriend"
    r"|husband|wife)\b",
    re.IGNORECASE,
)
_ASKER = lazy(r"我|\b(?:I|my|me)\b", re.IGNORECASE)
_CLAUSE_START = lazy(r".*[，,。.！!？?；;\n]", re.DOTALL)


@functools.lru_cache(maxsize=16_384)
def others(text: str) -> bool:
    """Whether the clause of the text's first like or dislike tells someone else's (她喜欢吃榴莲, 我妈讨厌香菜),
    not the speaker's own (我最喜欢吃火锅).

    >>> others("我妈打电话来，还说她喜欢吃榴莲"), others("我最喜欢吃火锅"), others("What does my mom like?")
    (True, False, True)
    """
    found = _EITHER.search(text)
    if found is None:
        return False
    before = text[: found.start()]
    start = _CLAUSE_START.match(before)
    return _OTHERS.search(before[start.end() if start else 0 :]) is not None


def gains(
    window: Window,
    rows: Mapping[int, RankRow | None],
    weight: float,
    sign: int,
    query: str = "",
    ended: Collection[int] = (),
) -> dict[int, float]:
    """What the lines and facts in the window that say a like of ``sign`` gain; a question of the asker's own
    likes (我喜欢吃什么) lifts the speakers' own, not one told of someone else (她喜欢吃榴莲, of Mum). A like
    that ``ended`` (a closed fact, the line that said it) gains nothing."""
    line = query.strip().rsplit("\n", 1)[-1]
    own = _ASKER.search(line) is not None and not others(line)
    return {
        key: weight
        for key, _ in window
        if key not in ended
        and (row := rows.get(key)) is not None
        and said(row.text) == sign
        and not (own and others(row.text))
    }
