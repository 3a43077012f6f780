"""Questions about where the asker lives or works now, who their partner is, what their pet is called or what
is coming up: their current facts of that kind answer them.

"你说我现在人在哪座城市" or "我现在这份活儿到底是做什么的" asks for one value that changes (a move, a new
job), not for a line that shares its words: every line of the month that says 城市 or 活儿 outranks the fact
木木搬到杭州住 by meaning and words. So when the line asked is the asker's own (我…) and asks where they
live or what their work is, their newest open fact of that kind (``住址``: 住在; ``工作``: 工作于, 职业是)
leads; a job left since (木木辞职了, ``rules.resigns``) is the newest fact of work and leads instead. 我男朋友叫什么
or 我现在有对象吗 (``伴侣``) is answered by the newest of the asker's open partner facts and their partings: after
我和陈屿分手了 the parting leads, not the closed 陈屿是木木的男朋友 whose line says 男朋友. 我家狗叫什么 (``宠物``)
is answered by their newest open pet fact of that animal (the name shares no word with the question),
有哪样是我碰都不能碰的 or 我对什么过敏 (``过敏``) by their open allergies, and
我最近有什么安排 (``计划``) by their open plans still to come, soonest first. A history question (以前,
之前, 原来… in the clause that asks; 前男友) wants the old value and is left to the ranking; so is a question about
someone else (他在哪上班: no 我; 我妈住哪, 我闺蜜是做什么的, 我男朋友在哪上班: one of the asker's people), and one
that names no such slot.

    >>> asked("你说我现在人在哪座城市，可别跟以前的搞混了"), asked("我现在这份活儿到底是做什么的")
    ('住址', '工作')
    >>> asked("我以前住哪来着"), asked("他在哪上班"), asked("我想去哪座城市旅游"), asked("我之前在哪上班")
    (None, None, None, None)
    >>> asked("我妈住哪"), asked("我闺蜜是做什么的"), asked("我男朋友在哪上班"), asked("我现在住哪？我妈也问")
    (None, None, None, '住址')
    >>> asked("我男朋友叫什么来着"), asked("我现在有对象吗"), asked("我前男友叫什么"), asked("我以前的男朋友是谁")
    ('伴侣', '伴侣', None, None)
    >>> asked("我男朋友是什么星座"), asked("我男朋友是做什么的"), asked("我男朋友是谁？我忘了")
    (None, None, '伴侣')
    >>> asked("我有男朋友了"), asked("我现在有没有对象"), asked("我还是单身吗")
    (None, '伴侣', '伴侣')
    >>> asked("我现在感情上是个什么状况，你最清楚了"), asked("我的感情状况怎么样"), asked("我妈的感情状况怎么样")
    ('伴侣', '伴侣', None)
    >>> asked("我对什么东西过敏？"), asked("里头水果好多种，有哪样是我碰都不能碰的来着"), asked("我妈对什么过敏")
    ('过敏', '过敏', None)
    >>> asked("Where do I live now?"), asked("What's my job again?"), asked("Where did I live before?")
    ('home', 'work', None)
    >>> asked("Who is my boyfriend?"), asked("Do I have a girlfriend?"), asked("Who was my boyfriend before?")
    ('partner', 'partner', None)
    >>> asked("What's my relationship status?"), asked("Am I in a relationship?"), asked("What am I allergic to?")
    ('partner', 'partner', 'allergic to')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from huiyi.flows.extract.closes import PARTINGS, PARTNERS, PARTNERS_ZH
from huiyi.flows.extract.rules.roster import filed_as, name_like, record_names
from huiyi.model import MemoryItem, MemoryKind, Scope
from huiyi.patterns import lazy
from huiyi.store.base import OPEN, MemoryFilter, Store
from huiyi.text.kin import without_mine
from huiyi.text.times import TimeSpan

__all__ = [
    "ALLERGY_SLOTS",
    "PET_SLOTS",
    "PLAN_SLOTS",
    "SLOTS",
    "Asked",
    "allergies",
    "asked",
    "current",
    "leading",
    "pets",
    "upcoming",
]

# the kind of fact (its keyword) and how a question asks for its value now
SLOTS: dict[str, re.Pattern[str]] = {
    "住址": lazy(
        r"住(?:在)?哪|住的地方|家在哪|人在哪|(?:在|住)哪(?:座|个|一座|一个)城市|现在在哪(?:儿|里)?(?:[呢啊呀]|$)"
    ),
    "工作": lazy(
        r"(?:做|干)(?:的)?(?:是)?什么工作|什么工作|在哪(?:儿|里)?(?:上班|工作)|(?:是|在)?(?:做|干)什么的|"
        r"这份(?:工作|活儿?)|(?:工作|职业|岗位)是(?:什么|啥)"
    ),
    # the English rules' keywords (I live in…: home; I work at/as…: work)
    "home": lazy(
        r"\bwhere\s+(?:do|am)\s+I\s+(?:live|living|staying)\b|\bwhere(?:'s|\s+is)\s+my\s+(?:home|place|apartment|flat)\b"
        r"|\bwhat\s+city\s+(?:do\s+I\s+live|am\s+I)\b",
        re.IGNORECASE,
    ),
    "work": lazy(
        r"\bwhere\s+(?:do|am)\s+I\s+(?:work|working)\b|\bwhat(?:'s|\s+is)\s+my\s+(?:job|work)\b"
        r"|\bwhat\s+do\s+I\s+do\s+for\s+(?:a\s+living|work)\b|\bwho\s+do\s+I\s+work\s+for\b",
        re.IGNORECASE,
    ),
}
# the asker's partner: who it is, or whether there is one (a fact of its own kind: ``current`` reads it by predicate)
_PARTNER_WORDS = "男朋友|女朋友|男友|女友|对象|老公|老婆|未婚夫|未婚妻|另一半"
_PARTNER_WORDS_EN = "boyfriend|girlfriend|partner|husband|wife|fianc[eé]e?"
PARTNER_SLOTS: dict[str, re.Pattern[str]] = {
    "伴侣": lazy(
        rf"(?:我(?:的)?(?:现在的?)?(?:{_PARTNER_WORDS})(?:的名字|名字)?(?:叫|是)(?:什么名字|什么|啥名字|啥|谁|哪位)"
        rf"|我(?:现在|目前)?还?有(?:{_PARTNER_WORDS})(?:了)?(?:吗|么|没|嘛|不)|我(?:现在|目前)?还?有没有(?:{_PARTNER_WORDS})"
        rf"|我(?:现在|目前)?还?是单身(?:吗|么|嘛)|我(?:现在|目前)?还?是不是单身"
        r"|我(?:现在|目前)?在?和谁(?:在一起|谈恋爱|交往)"
        # 我现在感情上是个什么状况, 我的感情状况怎么样: whether there is someone, and who
        r"|我(?:现在|目前)?的?感情(?:上|方面)?(?:是|处于)?(?:个|一个)?(?:什么|啥|怎样的?|怎么样的?)(?:状况|状态|情况)"
        r"|我(?:现在|目前)?的?(?:感情|恋爱)(?:状况|状态)(?:是|是个)?(?:什么|啥|怎么样|如何|咋样)?)"
        r"(?:来着|了)?[吗呢呀啊啦嘛]*\s*$"
    ),
    "partner": lazy(
        rf"(?:\bwho(?:'s|\s+is)\s+my\s+(?:{_PARTNER_WORDS_EN})|\bwhat(?:'s|\s+is)\s+my\s+(?:{_PARTNER_WORDS_EN})'?s\s+name"
        rf"|\bdo\s+I\s+(?:still\s+)?have\s+an?\s+(?:{_PARTNER_WORDS_EN})|\bam\s+I\s+(?:still\s+)?(?:single|seeing\s+anyone)"
        r"|\bwhat(?:'s|\s+is)\s+my\s+relationship\s+status|\bam\s+I\s+(?:still\s+)?in\s+a\s+relationship)"
        r"(?:\s+(?:again|now|right\s+now|these\s+days))?\s*$",
        re.IGNORECASE,
    ),
}
# the asker's pet's name: 我家猫叫什么来着, What's my dog's name again? (``current`` reads the pet facts, ``宠物``)
_ZH_PET_KINDS = "猫咪|猫猫|小猫|猫|狗狗|小狗|狗|宠物|兔子|仓鼠|鹦鹉|乌龟|金鱼|龙猫"
_EN_PET_KINDS = "dog|cat|pet|puppy|kitten|hamster|rabbit|bunny|bird|parrot|fish|turtle|horse"
PET_SLOTS: dict[str, re.Pattern[str]] = {
    "宠物": lazy(
        rf"我(?:家|的)?的?(?:(?P<kind>{_ZH_PET_KINDS})(?:叫(?:什么|啥)(?:名字)?|的?名字(?:是|叫)(?:什么|啥))"
        rf"|(?P<kind2>{_ZH_PET_KINDS})的名字)(?:来着|了)?[吗呢呀啊嘛]*\s*$"
    ),
    "pet": lazy(
        rf"\bwhat(?:'s|\s+is|\s+was)\s+my\s+(?P<kind>{_EN_PET_KINDS})(?:'s|s')\s+name\b"
        rf"|\bwhat\s+did\s+I\s+(?:name|call)\s+my\s+(?P<kind2>{_EN_PET_KINDS})\b",
        re.IGNORECASE,
    ),
}
# what the asker may not eat or touch: 我对什么过敏, 有哪样是我碰都不能碰的, What am I allergic to? (``allergies``)
_NOT_TO = r"(?:碰|吃|喝|沾)"
ALLERGY_SLOTS: dict[str, re.Pattern[str]] = {
    "过敏": lazy(
        r"我(?:是|都)?对(?:什么|啥|哪些|哪样|哪种)(?:东西|食物)?过敏|我(?:有)?(?:什么|啥|哪些)(?:东西)?过敏"
        rf"|我(?:有)?(?:什么|啥|哪些|哪样|哪种)(?:东西|食物|水果)?(?:是)?(?:绝对)?不能{_NOT_TO}"
        rf"|(?:什么|啥|哪些|哪样|哪种)(?:东西|食物|水果)?是我(?:{_NOT_TO}都|绝对|千万)?不能{_NOT_TO}"
        r"|我的过敏原"
    ),
    "allergic to": lazy(
        r"\bwhat\s+(?:am\s+I|was\s+I|I'm)\s+allergic\s+to\b|\bam\s+I\s+allergic\s+to\s+(?:anything|something)\b"
        r"|\bwhat\s+can't\s+I\s+eat\b|\bmy\s+allergies\b",
        re.IGNORECASE,
    ),
}
_ALLERGIES = 3  # open allergy facts led, newest first: one may have several
# the asker's plans still to come: 我最近有什么安排, what plans do I have coming up (``upcoming`` answers them)
PLAN_SLOTS: dict[str, re.Pattern[str]] = {
    "计划": lazy(
        r"我(?:最近|接下来|之后|近期|这几天|这周|这个?星期|这个?礼拜|下周|下个?星期|下个?礼拜|这个?月|下个?月|周末|明天|后天)?"
        r"(?:还|都)?有(?:什么|啥|哪些)(?:安排|计划|打算|行程|事要做|事情要做)|我的(?:安排|计划|日程|行程)"
        r"|我(?:最近|接下来|之后|近期|这几天|这周|下周|这个?月|下个?月|周末|明天|后天)(?:都)?要(?:干|做)(?:什么|啥|嘛)"
    ),
    "plan": lazy(
        r"\bwhat\s+(?:plans|do\s+I\s+have\s+(?:coming\s+up|planned|on))|\bwhat(?:'s|\s+is)\s+on\s+my\s+"
        r"(?:schedule|calendar|agenda)|\bany\s+plans\s+coming\s+up|\bwhat\s+am\s+I\s+doing\s+(?:this|next)\s+\w+",
        re.IGNORECASE,
    ),
}
_PLAN_KEYWORDS = ("计划", "plan")  # the rules' plan facts (rules.plans, rules.plans_en)
UPCOMING = 3  # plans led, soonest first
_PET_KEYWORDS = ("宠物", "pet")  # the rules' pet facts (木木养了一只猫，叫团子; Biscuit is Mia's dog)
_PETS_READ = 20
_PLANS_READ = 50  # the asker's newest plan facts read to find those still to come
_PAST = lazy(
    r"以前|之前|原来|当初|过去|那时|小时候|上一份|老家"
    r"|\b(?:used\s+to|before|previous(?:ly)?|back\s+then|(?:did|was)\s+I)\b",
    re.IGNORECASE,
)
_ZH_PAST = lazy(r"以前|之前|原来|当初|过去|那时|小时候")
_ME = lazy(r"我(?!们)|\bI\b|\b[Mm]y\b")


def asked(line: str) -> str | None:
    """The slot the asker's own question asks for now (``住址``, ``工作``, ``伴侣``…), or None. A past word counts in
    the clause that asks (我以前住哪), not in another (…，可别跟以前的搞混了 asks for now)."""
    clauses = re.split(r"[，,。！？!?；;\n]", line)
    for clause in clauses:  # 我男朋友叫什么: the partner, who is one of the asker's people
        for slot, pattern in (*PARTNER_SLOTS.items(), *PLAN_SLOTS.items(), *PET_SLOTS.items(), *ALLERGY_SLOTS.items()):
            # what did I name my dog: a pet's name is no value of the past (以前的猫 is)
            past = _ZH_PAST if slot in PET_SLOTS else _PAST
            if pattern.search(clause) and not past.search(clause):
                return slot
    if not _ME.search(without_mine(line)):  # 我妈住哪 asks about the mother
        return None
    for clause in clauses:
        for slot, pattern in SLOTS.items():
            if pattern.search(clause) and not _PAST.search(clause):
                return slot
    return None


@dataclass(frozen=True)
class Asked:
    """A recall's question as the slots read it: its words, who asks, when, and the time it names."""

    query: str
    asker: str
    now: datetime
    as_of: datetime | None = None  # a caller's explicit now: what was said after it is not known yet
    span: TimeSpan | None = None


def leading(store: Store, scopes: Sequence[Scope], question: Asked) -> list[MemoryItem]:
    """The facts that answer the question's slot, first first (none when it asks for none): the current one
    of a value that changes, or the plans still to come (within the week 下周 names; 最近 reads as the days
    just past, where no plan is)."""
    slot = asked(question.query)
    if slot is None:
        return []
    if slot in PET_SLOTS:
        return pets(store, scopes, question.asker, _pet_kind(question.query, slot), question.as_of)
    if slot in ALLERGY_SLOTS:
        return allergies(store, scopes, question.asker, question.as_of)
    if slot in PLAN_SLOTS:
        span, now = question.span, question.now.replace(tzinfo=None)
        ahead = span is not None and span.end.replace(tzinfo=None) > now + timedelta(hours=1)
        within = (span.start, span.end) if span is not None and ahead else None
        return upcoming(store, scopes, question.asker, question.now, within)
    found = current(store, scopes, question.asker, slot, question.as_of)
    return [found] if found is not None else []


def current(store: Store, scopes: Sequence[Scope], person: str, slot: str, as_of: datetime | None) -> MemoryItem | None:
    """The person's newest open fact of ``slot`` (as of ``as_of``: said by then, and not closed by then),
    found by the store among all the scopes' facts: a home said years of facts ago is still the home. For a
    partner, the newer of their newest open partner fact and their newest parting (分手, 离婚)."""
    subject = _filed_as(store, scopes[0].agent, person) if scopes else person
    if slot in PARTNER_SLOTS:
        partners = MemoryFilter(
            kinds=(MemoryKind.FACT,),
            subject=subject,
            predicates=(*PARTNERS_ZH, *PARTNERS),
            said_by=as_of,
            open_at=as_of or OPEN,
        )
        partings = MemoryFilter(kinds=(MemoryKind.FACT,), subject=subject, predicates=PARTINGS, said_by=as_of)
        found = [*store.find_memories(scopes, partners, limit=1), *store.find_memories(scopes, partings, limit=1)]
        return max(found, key=_said, default=None)
    where = MemoryFilter(
        kinds=(MemoryKind.FACT,),
        subject=subject,
        keywords=(slot,),
        said_by=as_of,
        open_at=as_of or OPEN,  # closed after ``as_of``: still true then
    )
    found = store.find_memories(scopes, where, limit=1)  # newest first: the store orders by when each was said
    return found[0] if found else None


def upcoming(
    store: Store, scopes: Sequence[Scope], person: str, now: datetime, within: tuple[datetime, datetime] | None = None
) -> list[MemoryItem]:
    """The person's open plans still to come at ``now`` (within the span the question names, if any), soonest
    first, at most ``UPCOMING``: a plan is dated by the day it is for, which its words rarely share with the
    question (我最近有什么安排 and 木木下周一（…）飞大阪)."""
    where = MemoryFilter(
        kinds=(MemoryKind.FACT,),
        subject=_filed_as(store, scopes[0].agent, person) if scopes else person,
        keywords=_PLAN_KEYWORDS,
        said_by=now,
        open_at=now,
    )
    wall = now.replace(tzinfo=None)
    start, end = (within[0].replace(tzinfo=None), within[1].replace(tzinfo=None)) if within else (wall, None)
    ahead = [
        item
        for item in store.find_memories(scopes, where, limit=_PLANS_READ)
        if item.time is not None
        and item.time.replace(tzinfo=None) >= max(start, wall.replace(hour=0, minute=0, second=0, microsecond=0))
        and (end is None or item.time.replace(tzinfo=None) < end)
    ]
    return sorted(ahead, key=lambda item: item.time.replace(tzinfo=None) if item.time else wall)[:UPCOMING]


def pets(store: Store, scopes: Sequence[Scope], person: str, kind: str, as_of: datetime | None) -> list[MemoryItem]:
    """The person's newest open pet fact of the animal asked (我家狗叫什么 with a cat and a dog: the dog's; with
    a cat only: none, not the cat's name); a pet's name shares no word with 我家猫叫什么来着 but 猫."""
    where = MemoryFilter(
        kinds=(MemoryKind.FACT,),
        subject=_filed_as(store, scopes[0].agent, person) if scopes else person,
        keywords=_PET_KEYWORDS,
        said_by=as_of,
        open_at=as_of or OPEN,
    )
    found = store.find_memories(scopes, where, limit=_PETS_READ)  # newest first
    general = kind.lower() in ("", "宠物", "pet")
    return next(([item] for item in found if general or kind.lower() in item.text.lower()), [])


def allergies(store: Store, scopes: Sequence[Scope], person: str, as_of: datetime | None) -> list[MemoryItem]:
    """The person's open allergy facts, newest first: 木木对芒果过敏 shares no word with 有哪样是我碰都不能碰的."""
    where = MemoryFilter(
        kinds=(MemoryKind.FACT,),
        subject=_filed_as(store, scopes[0].agent, person) if scopes else person,
        predicates=tuple(ALLERGY_SLOTS),  # the rules' predicates (rules.patterns: 过敏, allergic to)
        said_by=as_of,
        open_at=as_of or OPEN,
    )
    return store.find_memories(scopes, where, limit=_ALLERGIES)


def _pet_kind(query: str, slot: str) -> str:
    """The animal a pet question names (猫 of 我家猫咪叫什么, dog of What's my dog's name)."""
    clauses = re.split(r"[，,。！？!?；;\n]", query)
    found = next((m for clause in clauses if (m := PET_SLOTS[slot].search(clause))), None)
    kind = (found.group("kind") or found.group("kind2") or "") if found else ""
    return {"猫咪": "猫", "猫猫": "猫", "小猫": "猫", "狗狗": "狗", "小狗": "狗", "puppy": "dog", "kitten": "cat"}.get(
        kind.lower(), kind
    )


def _said(item: MemoryItem) -> datetime:
    """When a fact was said (one store's wall clock), as ``find_memories`` orders them; unknown: first."""
    when = item.said_at or item.time
    return when.replace(tzinfo=None) if when else datetime.min


def _filed_as(store: Store, agent: str, person: str) -> str:
    """The name a fold files the person's facts under (rules.roster): their id if it reads as a name,
    else the first of their record's aliases and then its name that does (``u42`` is 木木)."""
    if name_like(person):  # no record to read
        return person
    return filed_as(person, record_names(person, store.get_person(agent, person)))
