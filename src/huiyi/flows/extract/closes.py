"""A fold's close drafts applied to the stored facts: a plan called off (搬家泡汤) closes the speaker's open
plan facts that name its word, said before it, with ``valid_to`` = when it was called off; a new value of
a fact that holds one value at a time (``ONE_AT_A_TIME``: a home, a job, a partner) closes the subject's
open facts of that predicate said before it (:func:`replaced`), whether the rules or an LLM read it.
Nothing is deleted; a history question still finds the old value, the context leaves it out by default."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any

from huiyi.flows.extract import CloseDraft, FactDraft, Fold
from huiyi.flows.extract.hearsay import told_by
from huiyi.flows.extract.rules.roster import Roster
from huiyi.model import MemoryItem, MemoryKind, Message, Scope
from huiyi.store.base import OPEN, MemoryFilter, Store

__all__ = [
    "ONE_AT_A_TIME",
    "PARTINGS",
    "PARTNERS",
    "PARTNERS_ZH",
    "called_off",
    "close_facts",
    "one_at_a_time",
    "open_partners",
    "open_pets",
    "replaced",
    "to_close",
]

# predicates that hold one value at a time: a new home, job, partner or age ends the old one (recall.current
# prefers the newest open one where an old one was never closed)
ONE_AT_A_TIME = frozenset(
    {
        *"住在 家在 居住在 工作于 任职于 就职于 职业是 恋人是 伴侣是 对象是 男朋友是 女朋友是 老公是 老婆是".split(),
        *("lives in", "works at", "works as", "partner is", "boyfriend is", "girlfriend is"),
        # 说错了，我27岁: a correction ends the old value as it is said, not at the next consolidation
        *("年龄", "生日是", "age", "birthday is"),
    }
)


def one_at_a_time(predicate: str) -> bool:
    """Whether a subject has one value of ``predicate`` at a time: a home, a job, an age, a favourite thing
    (最喜欢的颜色, favourite color: blue now ends green).

    >>> one_at_a_time("favourite color"), one_at_a_time("最喜欢的歌"), one_at_a_time("likes")
    (True, True, False)
    """
    return predicate in ONE_AT_A_TIME or predicate.startswith(("favourite ", "最喜欢的"))


# the partner facts of the rules (rules.relations: 陈屿是木木的男朋友) and an LLM's: a new partner or a breakup
# ends them whatever word they were said with (对象 then 男朋友)
PARTNERS_ZH = tuple(f"{word}是" for word in "男朋友 女朋友 男友 女友 对象 老公 老婆 未婚夫 未婚妻 恋人 伴侣".split())
PARTNERS = tuple(
    f"{who} is" for who in ("boyfriend", "girlfriend", "partner", "husband", "wife", "fiance", "fiancé", "fiancée")
)
# the predicates of the partings rules.breakups writes (木木和阿杰分手了, Mia broke up with Jake)
PARTINGS = ("分手", "离婚", "broke up with")
_OPEN_READ = 500  # a subject's open facts of one predicate read to close them: a handful, unless broken
_RECENT = 200  # called_off reads this many of the scope's newest facts
_PET_KEYWORDS = ("宠物", "pet")  # the keyword of the rules' pet facts
_LATELY = timedelta(days=1)  # a plan called off this long before a fold may get its new time there


def to_close(facts: Sequence[MemoryItem], closes: Sequence[CloseDraft], fold: Fold) -> list[tuple[str, dict[str, Any]]]:
    """The updates that close ``facts`` matched by ``closes`` (each fact once, at the earliest close)."""
    # when each message was said, and where in the fold: two said in the same minute go by their order
    said = {m.id: (m.time, at) for at, m in enumerate(fold.messages)}
    out: dict[str, dict[str, Any]] = {}
    for close in sorted(closes, key=lambda c: c.time):
        closed_at = max((said[s] for s in close.sources if s in said), default=(close.time, -1))
        for item in facts:
            data = item.data
            if item.id in out or item.valid_to is not None or close.word not in item.text:
                continue
            if (close.subject and data.get("subject") != close.subject) or data.get("predicate") != close.predicate:
                continue
            if close.about is not None and not _about(item.time, close):
                continue
            if close.hearsay and not data.get("told_by"):
                continue  # 阿杰's 小雨住在上海 is his word: it does not end what she said of herself
            # said at or after the close (the new time named for it) is not what was called off
            if any(said[s] >= closed_at for s in item.sources if s in said):
                continue
            out[item.id] = {
                "valid_to": close.time,
                "data": {**data, "closed_by": close.sources, "closed_word": close.word},
            }
    return list(out.items())


def _about(time: datetime | None, close: CloseDraft) -> bool:
    """Whether a fact's time lies in the span ``close`` is about (三点的会: 15:00 to 16:00)."""
    if time is None or close.about is None:
        return False
    start, end = close.about
    if (time.tzinfo is None) != (start.tzinfo is None):
        return False
    return start <= time < end


def replaced(facts: Sequence[FactDraft], fold: Fold) -> list[CloseDraft]:
    """The closes of the new values among ``facts``: each closes its subject's open facts of the same
    one-value predicate said before it (any word: ``CloseDraft.word`` "" is in every text), at the time
    its message was said (a plan's fact is about another day: the close is when it was said)."""
    said = {m.id: m.time for m in fold.messages}
    roster = Roster.of(fold)
    out: list[CloseDraft] = []
    for fact in facts:
        times = [said[s] for s in fact.sources if s in said]
        if one_at_a_time(fact.predicate) and fact.subject and times:
            hearsay = bool(told_by(fact, fold, roster))
            out.append(CloseDraft(fact.subject, fact.predicate, "", max(times), list(fact.sources), hearsay))
    return out


def close_facts(
    store: Store, fold: Fold, closes: Sequence[CloseDraft], new: Sequence[MemoryItem] = ()
) -> tuple[list[MemoryItem], list[tuple[str, str, dict[str, Any]]]]:
    """The fold's own ``new`` memories with those ``closes`` name closed, and the updates (agent, id,
    fields) that close the stored facts of the fold's scope they name, written with the fold's commit.
    Only the open facts of each subject and predicate named are read, not the scope's every fact."""
    if not closes:
        return list(new), []
    facts: dict[str, MemoryItem] = {item.id: item for item in new if item.kind is MemoryKind.FACT}
    stored: set[str] = set()
    for subject, predicate in dict.fromkeys((c.subject, c.predicate) for c in closes):
        # no subject: anyone's (the wedding got moved, in a chat of two)
        where = MemoryFilter(kinds=(MemoryKind.FACT,), subject=subject or None, predicates=(predicate,), open_at=OPEN)
        found = store.find_memories([fold.scope], where, _OPEN_READ)
        facts.update((item.id, item) for item in found)
        stored.update(item.id for item in found)
    changes = dict(to_close(list(facts.values()), closes, fold))
    updates = [(fold.agent, key, change) for key, change in changes.items() if key in stored]
    return [item.model_copy(update=changes[item.id]) if item.id in changes else item for item in new], updates


def called_off(store: Store, scope: Scope, messages: Sequence[Message]) -> dict[str, str]:
    """Speaker -> the word of a plan they called off within a day before these messages (搬家泡汤 at
    14:51, 下周六搬 at 21:10 in a later fold)."""
    if not messages:
        return {}
    start = min(m.time for m in messages)
    out: dict[str, str] = {}
    for item in store.list_memories([scope], kinds=[MemoryKind.FACT], limit=_RECENT):
        data = item.data
        word, subject = data.get("closed_word"), data.get("subject")
        if item.valid_to is None or not word or not isinstance(subject, str) or subject in out:
            continue
        if start - _LATELY <= item.valid_to.replace(tzinfo=None) <= start:
            out[subject] = str(word)
    return out


def open_pets(store: Store, scope: Scope) -> list[FactDraft]:
    """The scope's open pet facts (keyword 宠物 / pet: 木木养了一只狗, 豆豆是木木的狗) as drafts whose
    description is the stored text: a pet's death said in a later fold closes them by that text."""
    where = MemoryFilter(kinds=(MemoryKind.FACT,), keywords=_PET_KEYWORDS, open_at=OPEN)
    return [
        FactDraft(*triple, item.text, list(item.sources), keyword=str(item.data.get("keyword")))
        for item, triple in _open_facts(store, scope, where)
    ]


def open_partners(store: Store, scope: Scope) -> list[FactDraft]:
    """The scope's open partner facts (阿杰是木木的男朋友) as drafts with their time: a breakup said in a later
    fold (我们分手了, we broke up) parts from the newest of its speaker's."""
    where = MemoryFilter(kinds=(MemoryKind.FACT,), predicates=(*PARTNERS_ZH, *PARTNERS), open_at=OPEN)
    return [
        FactDraft(*triple, item.text, list(item.sources), time=item.time)
        for item, triple in _open_facts(store, scope, where)
    ]


def _open_facts(store: Store, scope: Scope, where: MemoryFilter) -> Iterator[tuple[MemoryItem, tuple[str, str, str]]]:
    """The open facts ``where`` finds, each with its subject, predicate and object (one lacking them left out)."""
    for item in store.find_memories([scope], where, _OPEN_READ):
        data = item.data
        subject, predicate, obj = data.get("subject"), data.get("predicate"), data.get("object")
        if isinstance(subject, str) and isinstance(predicate, str) and isinstance(obj, str):
            yield item, (subject, predicate, obj)
