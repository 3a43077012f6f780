"""Relations between the speaker and someone named: 我和小雨是室友, 我跟小雨是大学同学, 小雨是我室友,
小雨和我们是同事, Mia and I are roommates, Mia is my roommate. (我的室友叫小美 is left to the LLM: the clause
after it, 是四川人, is 小美's, and rules.facts reads it as nobody's.)

Each is a relation fact with the other person as object, speaker —室友是→ 小雨 (``roommate is``), the shape
of the partner facts an LLM writes (男朋友是); none is in ``ONE_AT_A_TIME``: a new roommate or colleague ends
no other. The other must be named (:func:`~huiyi.flows.extract.rules.objects.person_named`, or someone the
fold knows, or 你 in a private chat): 我们是同事 and 我和男朋友是同学 say of whom too little. The patterns
take the whole clause with only 也/都/一直 between the name and 是, so 不是, 可能是, 如果…, 他说… and …就好了
match none; questions and laughed-off clauses are never read (``FactReader``)."""

from __future__ import annotations

import re

from huiyi.flows.extract.rules.patterns import ZH_END_PARTICLES, ZH_HEDGE, ZH_UNREAL, FactRule, en_rule
from huiyi.model import EntityType, FactKind
from huiyi.text.language import CJK

_ZH_PEERS = (
    r"(?:(?:大学|高中|初中|小学|中学|研究生|幼儿园)同学|同学|室友|舍友|同事|同桌|校友|邻居|老乡|发小|闺蜜"
    r"|好朋友|好友|朋友|队友|搭档|网友)"
)
_ZH_LEAD = "^(?:其实|但是|不过|可是|而且|因为|所以|对了|说实话|老实说|现在)?"
_ZH_ALSO = "(?:也|都|还|一直|就|从小就?)*"
_ZH_END = rf"(?:了|[{ZH_END_PARTICLES}])*$"
_ZH_OTHER = rf"(?P<o>[{CJK}A-Za-z·]{{1,6}}?)"
_ZH_WITH = "(?:和|跟|与)"


def _zh(pattern: str, description: str) -> FactRule:
    return FactRule(
        re.compile(_ZH_LEAD + pattern + _ZH_END),
        "{x}是",
        FactKind.RELATION,
        "人际",
        description,
        object_type=EntityType.SPECIFIC,
        person_object=True,
    )


ZH_RELATIONS: tuple[FactRule, ...] = (
    _zh(rf"我们?{_ZH_WITH}{_ZH_OTHER}{_ZH_ALSO}是(?P<x>{_ZH_PEERS})", "{s}和{o}是{x}"),
    _zh(rf"{_ZH_OTHER}{_ZH_WITH}我们?{_ZH_ALSO}是(?P<x>{_ZH_PEERS})", "{s}和{o}是{x}"),
    _zh(rf"{_ZH_OTHER}{_ZH_ALSO}是我的?(?P<x>{_ZH_PEERS})", "{o}是{s}的{x}"),
)

_EN_PEERS = (
    r"(?:(?:best|close|good|old)\s+)?(?:(?:room|flat|house|class|school|team)mate|colleague|co-?worker"
    r"|neighbou?r|friend|bestie)"
)
_EN_OTHER = r"(?P<o>(?-i:[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)?))"
_EN_END = r"(?:\s+(?:too|now))?$"


def _en(pattern: str, description: str) -> FactRule:
    return FactRule(
        en_rule(pattern + _EN_END),
        "{x} is",
        FactKind.RELATION,
        "people",
        description,
        object_type=EntityType.SPECIFIC,
        person_object=True,
    )


EN_RELATIONS: tuple[FactRule, ...] = (
    _en(rf"{_EN_OTHER}\s+and\s+(?:I|me)\s+are\s+(?:both\s+|also\s+)?(?P<x>{_EN_PEERS})s", "{s} and {o} are {x}s"),
    _en(rf"(?:I|me)\s+and\s+{_EN_OTHER}\s+are\s+(?:both\s+|also\s+)?(?P<x>{_EN_PEERS})s", "{s} and {o} are {x}s"),
    _en(rf"{_EN_OTHER}(?:\s+is|'s)\s+(?:also\s+)?my\s+(?P<x>{_EN_PEERS})", "{o} is {s}'s {x}"),
)


def relations_in(clause: str, english: bool) -> list[tuple[FactRule, re.Match[str]]]:
    """The relation rules ``clause`` matches whole; none for a wish or a guess (我和小雨是室友就好了)."""
    if not english and (ZH_UNREAL.search(clause) or ZH_HEDGE.search(clause)):
        return []
    rules = EN_RELATIONS if english else ZH_RELATIONS
    return [(rule, match) for rule in rules if (match := rule.pattern.match(clause))]
