"""A companion's passive recall passes over an old hurt: kept memories that end on a bad feeling step down.

When the chat prompts recall (a dialogue's views, recall.views), the memory a companion brings up is one
that helps the talk on: the time the user got through a like worry, or something they love. A memory that
records only a hurt (叔叔一直批评Bart的学业，令Bart感到非常难过; teased, scolded, let down) and ends on it
matches a sad talk best by meaning, since it says the same feeling, yet it is the one a friend would not
bring up unasked. On MADial zh dev 3% of the dialogues' relevant memories end on a bad feeling, 13% of
their pools, and 30% of the memories wrongly in their top 5 (issue #17). So in a dialogue's recall such a
kept memory (not a chat line: that is what was said, worry and all) loses ``hurt_weight``; one whose bad
feeling turns good (…很焦虑，最后取得了好成绩), or a bad feeling said as not felt (没有生气, 克服了孤独感),
loses nothing, and a line asking how the user felt (recall.feelings) keeps them all. The words are a
plain lexicon, not a model: a hurt told in other words loses nothing.

MADial dev R@5 zh .532 → .571, en .517 → .555 (R@10 .684 → .709, .701 → .741; Hit@1 .475 → .525, .44 →
.475). The weight, 0.2, was the best (or tied best) of 0.05–0.5 on each half of the zh dialogues (first
and last 40, even and odd ids); held out, R@5 .480 → .506, .585 → .635, .525 → .564, .539 → .577. English
was never tuned on; LoCoMo and the probe files are unchanged.

    >>> unresolved("家庭聚会时叔叔一直批评Bart的学业，令Bart感到非常难过。")
    True
    >>> unresolved("Lisa在期末考试前感到非常焦虑，最后认真调整了复习计划并取得了优异的成绩。")
    False
    >>> unresolved("Lisa打碎了花瓶，但是妈妈没有生气。"), unresolved("Bart在公园玩捉迷藏，感到非常开心。")
    (False, False)
    >>> unresolved("Bart felt very sad when his uncle kept criticizing his grades.")
    True
    >>> unresolved("Lisa was anxious before the recital, but in the end she won third place.")
    False
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from huiyi.model import MemoryKind
from huiyi.patterns import lazy
from huiyi.recall.rerank import Window
from huiyi.store.base import RankRow

__all__ = ["losses", "unresolved"]

# a bad feeling, as memories and chats say one (难过, 被嘲笑 is told by the feeling it left)
_BAD = lazy(
    r"不开心|不高兴|不舒服|生气|愤怒|气愤|气死|烦死|崩溃|哭|恼火|难过|伤心|悲伤|心碎|失望|沮丧|失落|挫败|"
    r"害怕|恐惧|尴尬|难堪|不快|委屈|焦虑|紧张|担心|孤独|寂寞|闹心|痛苦|郁闷|烦躁|不满|后悔|自责|羞愧"
    r"|\b(?:angr|anger|annoy|upset|sad|heartbroken|disappoint|frustrat|scared|afraid|fear(?!less)|embarrass|hurt|"
    r"anxi|nervous|worr|lonel|miserable|ashamed|guilt|unhapp|dejected|depressed)\w*",
    re.IGNORECASE,
)
# said as not felt: 没有生气, 不再害怕, wasn't angry
_NOT = lazy(
    r"(?:没有?|不再|不|别|克服了?|摆脱了?|战胜了?|走出了?|wasn't |was not |not |no longer |didn't feel |never |"
    r"(?:overc[oa]me|got over) (?:his |her |their |my )?(?:feelings? of )?)$",
    re.IGNORECASE,
)
# a turn for the better after it: how it ended, or a good feeling
_GOOD = lazy(
    r"最后|最终|终于|后来|但是|不过|释然|克服|进步|和好|解除|原谅|开心|高兴|快乐|兴奋|自豪|骄傲|放心|安心|欣慰|成功|"
    r"取得|获得|好转|感谢|交到|消失|消散"
    r"|\b(?:finally|eventually|in the end|ultimately|but|overc[oa]me|improv\w*|progress|made up|resolved|happy|glad|"
    r"proud|relieved|excited|succeeded|success|won|achieved|better|dissipat\w*|faded|went away|disappeared)\b",
    re.IGNORECASE,
)


def unresolved(text: str) -> bool:
    """Whether the text says a bad feeling (not one said as not felt) and nothing turns it good after."""
    bad = [match for match in _BAD.finditer(text) if _felt(text, match.start())]
    return bool(bad) and not any(_felt(text, good.start()) for good in _GOOD.finditer(text, bad[-1].end()))


def _felt(text: str, start: int) -> bool:
    """Whether the feeling at ``start`` is said as felt, not negated (不开心 is no good feeling)."""
    return _NOT.search(text[max(0, start - 12) : start]) is None


def losses(window: Window, rows: Mapping[int, RankRow | None], weight: float) -> dict[int, float]:
    """What the window's kept memories (not chat lines) that end on a bad feeling lose: ``weight`` each (as a
    negative gain). A line said in the chat is what was said, worry and all: 我弟今年高三，她一边焦虑我一边
    焦虑他 answers when his exam is."""
    return {
        key: -weight
        for key, _ in window
        if (row := rows.get(key)) is not None and row.kind is not MemoryKind.CHUNK and unresolved(row.text)
    }
