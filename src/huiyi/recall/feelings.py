"""How did I feel then: a question about the asker's feelings prefers their lines that say a feeling.

"回想分手那晚，我当时有多狼狈", "刚到那晚我是什么心情" or "那天我状态很差，我怎么跟你说的" asks for
the line where the asker said how they felt, not for the lines of that night that say what happened.
Meaning alone scores both alike (every line of the night is about it), and the question's words (心情,
狼狈) are rarely the answer's. So when the line asked asks how the asker felt, the asker's candidate lines
that name a feeling or its signs in the body (哭, 心跳, 出汗, 睡不着) gain ``feeling_weight``. The words
are a plain lexicon of feelings, not a model: a line that says one in other words gains nothing.

    >>> asks("好多了。刚到那晚我是什么心情，你还记得吧"), asks("那次医生是怎么诊断的")
    (True, False)
    >>> asks("上周一晚上我状态特别差，当时我是怎么跟你说的"), asks("我状态怎么调整")
    (True, False)
    >>> says("木木: 我现在手心一直在出汗，邮箱刷了一百遍"), says("木木: 今天是最后一天上班")
    (True, False)
"""

from __future__ import annotations

from collections.abc import Mapping

from huiyi.model import MemoryKind
from huiyi.patterns import lazy
from huiyi.recall.rerank import Window
from huiyi.store.base import RankRow

__all__ = ["asks", "gains", "says"]

_ASKS = lazy(
    r"心情|感受|什么感觉|情绪|状态(?:特别|很|好|那么)?(?:差|糟|不好)|狼狈|(?:紧张|高兴|开心|难过|激动|害怕|伤心|崩溃|慌|急|气|疯)(?:成|得)"
    r"|(?:成|得)什么样|有多(?:难过|开心|高兴|狼狈|紧张|惨|崩溃|激动|害怕|伤心)|那种(?:恐惧|感觉|心情|害怕)"
)
# feelings and their signs, as people say them in a chat
_FEELS = lazy(
    r"开心|快乐|高兴|兴奋|激动|幸福|感动|安心|难过|伤心|心碎|痛苦|失落|沮丧|郁闷|烦死|焦虑|紧张|害怕|恐惧|担心|"
    r"心慌|慌了|委屈|生气|气死|愤怒|崩溃|绝望|孤独|寂寞|空荡|空落落|想家|哭|泪|心跳|出汗|发抖|腿软|脸红|失眠|"
    r"睡不着|尖叫|叫出来|跳起来|蹦|一片空白|喘不过气|发紧|头皮发麻|吓死|吓坏"
)


def asks(line: str) -> bool:
    """Whether the line asked asks how someone felt (心情, 狼狈, 紧张成什么样)."""
    return _ASKS.search(line) is not None


def says(text: str) -> bool:
    """Whether a memory's text names a feeling or its signs (哭, 心跳加速, 手心出汗)."""
    return _FEELS.search(text) is not None


def gains(window: Window, rows: Mapping[int, RankRow | None], asker: str, weight: float) -> dict[int, float]:
    """What the asker's lines in the window that say a feeling gain: ``weight`` each."""
    return {
        key: weight
        for key, _ in window
        if (row := rows.get(key)) is not None
        and row.kind is MemoryKind.CHUNK
        and asker in row.participants
        and says(row.text)
    }
