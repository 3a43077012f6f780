"""A move to a new home or job (搬到杭州了, 拿到offer, 跳槽到一家外企) ends where one lived or worked before; so
does a move done with no place named (搬完家了！), the way a move is told after its plan named the place."""

from __future__ import annotations

import re

from huiyi.flows.extract import CloseDraft, FactDraft
from huiyi.flows.extract.rules.jokes import joke_end
from huiyi.flows.extract.rules.patterns import QUESTION_END, ZH_CLAUSE, ZH_REPORTED, ZH_UNREAL
from huiyi.flows.extract.rules.said import Said
from huiyi.model import Message
from huiyi.patterns import lazy

__all__ = ["moved", "moved_house"]

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


_ZH_WHEN = "今天|昨天|前天|上周|终于|总算|刚刚?|已经|正式|也"
# 搬完家了, 终于搬好家了, 我们今天搬新家啦: the speaker's own move, said done (周末搬新家 is still to come); 家 says
# it is a home (箱子搬完了 is not)
_ZH_MOVED_HOUSE = lazy(
    rf"^(?:我们?|(?={_ZH_WHEN}))?(?:{_ZH_WHEN})*(?:(?:搬完家|搬好家|搬家|搬了家|搬进了?新家|搬新家)(?:了|啦)|搬完家|搬好家)"
    r"(?:了|啦|咯|喽|[!！~～])*$"
)
# what follows it says it is not done: 搬完家了 再说 (once it is), 搬完家了 哈哈 假的
_THEN = lazy(r"[，,\s]*(?:再说|再|就|才|以后)")
_TAKEN_BACK = lazy(r"(?=开玩笑|骗你|骗人|假的|逗你)")  # where one starts, each found however they overlap


def moved_house(said: Said, agent: str) -> list[CloseDraft]:
    """The close of where the speaker lived, for a move done with no place named (搬完家了！累瘫): the
    place named before (我打算搬到滨江去住) is no fact, but the old home is no longer where they live."""
    if said.lang != "zh" or said.speaker == agent:
        return []
    text = said.own[joke_end(said.own) :]  # 搬完家了 哈哈 假的: what a retraction takes back is not read
    taken_back = _last_taken_back(text)
    for match in ZH_CLAUSE.finditer(text):
        clause, end = match.group().strip(), text[match.end() : match.end() + 1]
        if not clause or end in ("？", "?") or QUESTION_END.search(clause) or _not_done(text, match.end(), taken_back):
            continue
        if ZH_REPORTED.search(clause) or ZH_UNREAL.search(clause):
            continue
        if _ZH_MOVED_HOUSE.match(clause):
            return [CloseDraft(said.speaker, "住在", "", said.message.time, [said.message.id])]
    return []


def _not_done(text: str, end: int, taken_back: int) -> bool:
    """Whether what follows a move's clause says it is not done yet or takes it back. ``taken_back``: where
    the text's last retraction starts (:func:`_last_taken_back`), found once: searching the rest of the text
    after each clause made a long line of clauses quadratic."""
    return _THEN.match(text, end) is not None or taken_back >= end


def _last_taken_back(text: str) -> int:
    """Where the last retraction (骗你的, 开玩笑) of ``text`` starts; -1 if none.

    >>> _last_taken_back("搬完家了，骗你的，开玩笑"), _last_taken_back("搬完家了")
    (9, -1)
    """
    return max((found.start() for found in _TAKEN_BACK.finditer(text)), default=-1)
