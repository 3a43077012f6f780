"""Name questions: "上午有人推荐的那家火锅叫什么名字来着" asks for the line that gives the name.

Meaning and words score every line about the hotpot alike (火锅我可能不太行, 鸳鸯锅呗); the answer is the
one that names it: a name in quotes or title marks (“巴渝老灶”, 《繁花》), or one given with 叫 / 名叫 /
名字是 (我家的猫叫团子). When the line asked asks for a name, candidate lines that give one gain
``name_weight``.

    >>> asks("那家火锅叫什么名字来着"), asks("她的猫叫啥"), asks("what's the name of that bakery?")
    (True, True, True)
    >>> asks("你叫我什么"), asks("那家火锅好吃吗"), asks("你最近在忙的是什么")
    (False, False, False)
    >>> gives("武林路有家“巴渝老灶”火锅"), gives("我家的猫叫团子，三岁了"), gives("火锅我可能不太行")
    (True, True, False)
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from huiyi.recall.rerank import Window
from huiyi.store.base import RankRow

__all__ = ["asks", "gains", "gives"]

_ASKS = re.compile(
    r"叫(?:什么|啥)(?:名字|名儿|名)?(?:来着|啊|呀|呢|？|\?|$)|名字(?:是|叫)?(?:什么|啥)|叫个?(?:什么|啥)名"
    r"|\bwhat(?:'s| is| was)(?: the| its| his| her| their)? name\b|\bcalled what\b",
    re.IGNORECASE,
)
_GIVES = re.compile(
    r"[“「『《\"][^”」』》\"\n]{1,20}[”」』》\"]|(?:叫|名叫|叫做|名字是|名字叫)[\u4e00-\u9fffA-Za-z]{1,8}"
    r"|\b(?:called|named)\s+[A-Z][\w'-]+",
)


def asks(line: str) -> bool:
    """Whether the line asked asks what something or someone is called."""
    return _ASKS.search(line.strip().rsplit("\n", 1)[-1]) is not None


def gives(text: str) -> bool:
    """Whether a memory's text gives a name: quoted, in title marks, or after 叫 / named."""
    return _GIVES.search(text) is not None


def gains(window: Window, rows: Mapping[int, RankRow | None], weight: float) -> dict[int, float]:
    """What the lines in the window that give a name gain: ``weight`` each."""
    return {key: weight for key, _ in window if (row := rows.get(key)) is not None and gives(row.text)}
