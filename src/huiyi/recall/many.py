"""Questions that ask for several things: what books has John read, 她去过哪些地方, how many times.

Their answers are single mentions scattered over the chat (a trip to Rome in one session, Paris in
another), not one stretch of talk about the topic; the neighbour bonus (recall.rerank), which favours
such a stretch, crowds them out with the lines around the best one. Asked for several things, a chunk
takes less support from its neighbours (``many_neighbour_share``).

    >>> asks_many("What books has John read?"), asks_many("Which cities has John been to?")
    (True, True)
    >>> asks_many("How many times has John injured his ankle?"), asks_many("她去过哪些地方")
    (True, True)
    >>> asks_many("我平时都喜欢做什么"), asks_many("他都去过哪儿")
    (True, True)
    >>> asks_many("What business does Jon run?"), asks_many("What is Caroline's identity?")
    (False, False)
    >>> asks_many("我明天有什么安排"), asks_many("那家店叫什么名字"), asks_many("她都好吧")
    (False, False, False)
"""

from __future__ import annotations

import re

from huiyi.patterns import lazy

__all__ = ["asks_many"]

_EN = lazy(
    # a plural asked for (not -ss: business, class): what/which books has, what kinds of films do
    r"^\s*(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?(?:[a-z-]+\s+){0,2}?[a-z-]*[^\Wsu]s\s+"
    r"(?:does|do|did|has|have|had|is|are|was|were|would|could|can)\b"
    r"|^\s*what\s+are\s+(?:the\s+|all\s+)?(?:[a-z-]+\s+){0,2}?[a-z-]*[^\Wsu]s\b"
    r"|^\s*how\s+many\b",
    re.IGNORECASE,
)
# 哪些, 都…什么 / 都…哪 (every one of), 几次 / 多少次 (a count of times)
_ZH = lazy(r"哪些|都[\u4e00-\u9fff]{0,6}?(?:什么|啥|哪儿|哪里|哪)|几次|多少次")


def asks_many(query: str) -> bool:
    """Whether the question (its last line) asks for every one of several things, or how many."""
    last = query.strip().rsplit("\n", 1)[-1]
    return _EN.search(last) is not None or _ZH.search(last) is not None
