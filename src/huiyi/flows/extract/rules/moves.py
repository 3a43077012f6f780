"""A move to a new home or job (搬到杭州了, 拿到offer, 跳槽到一家外企) ends where one lived or worked before."""

from __future__ import annotations

import re

from huiyi.flows.extract import CloseDraft, FactDraft
from huiyi.model import Message

__all__ = ["moved"]

_MOVED = re.compile(r"^(?P<s>.+?)(?:搬到|换到)")
_MOVES = ("住在", "工作于")


def moved(facts: list[FactDraft], message: Message) -> list[CloseDraft]:
    """The closes of a message's moves: each closes the speaker's open facts of the same predicate said
    before it (any word: ``CloseDraft.word`` "" is in every text), so 住在上海 ends when 搬到杭州 is said."""
    out: list[CloseDraft] = []
    for fact in facts:
        found = _MOVED.match(fact.description)
        if fact.predicate in _MOVES and found and found.group("s") == fact.subject:
            out.append(CloseDraft(fact.subject, fact.predicate, "", message.time, [message.id]))
    return out
