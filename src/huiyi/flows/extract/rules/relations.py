"""Relations between the speaker and someone named: 我和小雨是室友, 我跟小雨是大学同学, 小雨是我室友,
小雨和我们是同事, 我们组长叫王姐, 陈屿是我男朋友, 我男朋友叫陈屿, 我男朋友陈屿今天来看我了, 我前男友叫阿杰,
Mia and I are roommates, Mia is my roommate, Jake is my boyfriend, my sister Emma (…is getting married: the
clause goes on about her), 我的室友叫小美 (the clause after it, 是四川人, is 小美's, and rules.facts reads it as
nobody's).

Each is a relation fact with the other person as object, speaker —室友是→ 小雨 (``roommate is``), the shape
of the partner facts an LLM writes (男朋友是); a peer's is in no ``ONE_AT_A_TIME``: a new roommate or colleague
ends no other. A partner is one at a time: :mod:`~huiyi.flows.extract.rules.breakups` closes the old one, said
with any partner word (对象 then 男朋友); an ex (前男友, 前任) is a past tie, no partner. 老公 / 老婆 are what a fan
calls an idol too (我老公彭于晏), so only naming them (我老公叫王磊) tells of a spouse. The other must be named
(:func:`~huiyi.flows.extract.rules.objects.person_named`, or someone the fold knows, or 你 in a private chat):
我们是同事 and 我和男朋友是同学 say of whom too little. The patterns take the whole clause with only 也/都/一直
between the name and 是, so 不是, 可能是, 如果…, 他说… and …就好了 match none; a partner named as the clause goes on
(我男朋友陈屿今天…) must be cut as one name by the tagger, with a time, an adverb or a verb of its own after it;
questions and laughed-off clauses are never read (``FactReader``)."""

from __future__ import annotations

import re

from huiyi.flows.extract.rules.patterns import ZH_END_PARTICLES, ZH_HEDGE, ZH_UNREAL, FactRule, en_rule
from huiyi.model import EntityType, FactKind
from huiyi.patterns import lazy
from huiyi.text import tokens
from huiyi.text.kin import EN_CALLED, EN_KIN, EN_PEERS, FAMILY
from huiyi.text.language import CJK

_ZH_PEERS = (
    r"(?:(?:大学|高中|初中|小学|中学|研究生|幼儿园)同学|同学|室友|舍友|同事|同桌|校友|邻居|老乡|发小|闺蜜"
    r"|好朋友|好友|朋友|队友|搭档|网友)"
)
# one over the speaker at work or school, said of a group too (我们组长, 我们班主任, 我们公司老板)
_ZH_ABOVE = "(?:组长|领导|老板|上司|主管|经理|总监|老师|班主任|导师|班长|队长|师傅|教练)"
_ZH_ABOVE_OF = "我们?的?(?:公司|部门|单位|组|班|学校|店)?的?"
_ZH_LEAD = "^(?:其实|但是|不过|可是|而且|因为|所以|对了|说实话|老实说|现在)?"
_ZH_ALSO = "(?:也|都|还|一直|就|从小就?)*"
_ZH_END = rf"(?:了|[{ZH_END_PARTICLES}])*$"
_ZH_OTHER = rf"(?P<o>[{CJK}A-Za-z·]{{1,6}}?)"
_ZH_WITH = "(?:和|跟|与)"


def _zh(pattern: str, description: str, end: str = _ZH_END) -> FactRule:
    return FactRule(
        lazy(_ZH_LEAD + pattern + end),
        "{x}是",
        FactKind.RELATION,
        "人际",
        description,
        object_type=EntityType.SPECIFIC,
        person_object=True,
    )


_ZH_PARTNERS = "男朋友|女朋友|男友|女友|对象|未婚夫|未婚妻"
_ZH_SPOUSES = "老公|老婆"  # a fan's idol too: only named with 叫
_ZH_EXES = "前男朋友|前女朋友|前男友|前女友|前任|前夫|前妻"
_ZH_CALLED = "(?:的名字)?(?:叫做?|名叫|名字叫)"
ZH_PARTNER_WORDS = (*_ZH_PARTNERS.split("|"), *_ZH_SPOUSES.split("|"))
ZH_EXES = tuple(_ZH_EXES.split("|"))
# 陈屿曾经是我男朋友, 陈屿不是…, 陈屿会是…: a name the tagger may not cut from the word after it (陈屿曾经 looks
# like a name) that makes the tie past, denied or to come
_ZH_NOT_NOW = "".join(
    f"(?<!{word})"
    for word in "不 没 曾经 以前 之前 原来 本来 从前 过去 当年 不再 再也 根本 会 要 算 差点 假装 装".split()
)
# 陈屿已经是我男朋友了: what may stand between a partner's name and 是
_ZH_STILL = "(?:也|都|还|一直|就|已经|现在|终于|早就|真的)*"
# 陈屿是我男朋友吧 is a guess
_ZH_SURE_END = rf"(?:了|[{ZH_END_PARTICLES.replace('吧', '')}])*$"
# 我有新男朋友了, 我交了个女朋友, 我终于有对象了: a partner told of, named in the clause or the next
_ZH_NEW = rf"我{_ZH_ALSO}(?:终于)?(?:有|交|谈|找)(?:了|到了)?(?:一个|个|一位|位)?(?:新的?)?"
# what may follow a partner's name as the clause goes on (我男朋友陈屿今天来看我了): a time, an adverb, a verb
_ZH_GOES_ON = (
    "今天|昨天|前天|明天|今晚|昨晚|刚刚?|刚才|最近|上周|下周|周末|今年|去年|说|也|又|还|在|跟|和|给|带|请|送|约"
    "|已经|终于|突然|居然|竟然|一直|每天|总是|特别|非常|很|超|真的|是|从|要|会|不|没|对|他|她"
)
_ZH_PARTNER_RULES = (
    _zh(  # 你是我男朋友, said to the agent, is play: no partner who ends the one the speaker has
        rf"(?!你|您){_ZH_OTHER}{_ZH_NOT_NOW}{_ZH_STILL}是我的?(?P<x>{_ZH_PARTNERS}|{_ZH_EXES})",
        "{o}是{s}的{x}",
        _ZH_SURE_END,
    ),
    _zh(rf"我的?(?P<x>{_ZH_PARTNERS}|{_ZH_SPOUSES}|{_ZH_EXES}){_ZH_CALLED}{_ZH_OTHER}", "{o}是{s}的{x}", _ZH_SURE_END),
    _zh(
        rf"{_ZH_NEW}(?P<x>{_ZH_PARTNERS}|{_ZH_SPOUSES})(?:了|啦)?(?:他|她)?{_ZH_CALLED}{_ZH_OTHER}",
        "{o}是{s}的{x}",
        _ZH_SURE_END,
    ),
)
# 我和陈屿在一起了！: a couple told without a partner word (对象 fits both), said as the whole message, of
# someone the tagger takes for a name; 我和妈妈在一起 (with her now), …在一起了 在网吧开黑, …三年了，上个月分手了
# or …在一起了 骗你们的 tell of no new partner
ZH_TOGETHER = FactRule(
    lazy(
        rf"^{_ZH_LEAD}我{_ZH_WITH}(?P<o>[{CJK}]{{2,3}})(?:正式|终于)*在一起(?:了|啦)"
        r"(?:[!！~～。]|\[[^\]]{1,8}\]|[\U0001F300-\U0001FAFF\u2764\ufe0f])*$"
    ),
    "对象是",
    FactKind.RELATION,
    "人际",
    "{o}是{s}的对象",
    object_type=EntityType.SPECIFIC,
    person_object=True,
)


def together(text: str) -> re.Match[str] | None:
    """The match of ``ZH_TOGETHER`` for a whole message that says the speaker got together with someone named.

    >>> together("我和陈屿在一起了！")["o"], together("我和妈妈在一起了"), together("我和陈屿在一起了 骗你们的")
    ('陈屿', None, None)
    """
    found = ZH_TOGETHER.pattern.match(text.strip())
    if found is None:
        return None
    return found if tokens.first_tag(text[found.start("o") :], found["o"]) in _NAME_TAGS else None


ZH_RELATIONS: tuple[FactRule, ...] = (
    _zh(rf"我们?{_ZH_WITH}{_ZH_OTHER}{_ZH_ALSO}是(?P<x>{_ZH_PEERS})", "{s}和{o}是{x}"),
    _zh(rf"{_ZH_OTHER}{_ZH_WITH}我们?{_ZH_ALSO}是(?P<x>{_ZH_PEERS})", "{s}和{o}是{x}"),
    _zh(rf"{_ZH_OTHER}{_ZH_ALSO}是我的?(?P<x>{_ZH_PEERS})", "{o}是{s}的{x}"),
    _zh(rf"我的?(?P<x>{_ZH_PEERS}){_ZH_CALLED}{_ZH_OTHER}", "{o}是{s}的{x}", _ZH_SURE_END),
    _zh(rf"{_ZH_ABOVE_OF}(?P<x>{_ZH_ABOVE}){_ZH_CALLED}{_ZH_OTHER}", "{o}是{s}的{x}", _ZH_SURE_END),
    *_ZH_PARTNER_RULES,
)
# family, one person each and many at once (a new sister ends no other): 小雨是我妹妹, 我妹妹叫小雨, 我妹妹小雨…
ZH_KIN_RULES = (
    _zh(rf"(?!你|您){_ZH_OTHER}{_ZH_NOT_NOW}{_ZH_STILL}是我的?(?P<x>{FAMILY})", "{o}是{s}的{x}", _ZH_SURE_END),
    _zh(rf"我的?(?P<x>{FAMILY}){_ZH_CALLED}{_ZH_OTHER}", "{o}是{s}的{x}", _ZH_SURE_END),
)
# 我男朋友陈屿, 我男朋友陈屿今天来看我了: the name is cut by the tagger alone, as one name (我男朋友张口就来 names
# nobody), and ends the clause or the clause goes on about him; 我哥叫爽 is no 叫爽 (叫 is a surname)
_ZH_NAMED_PARTNER = FactRule(
    lazy(
        rf"{_ZH_LEAD}我的?(?P<x>{_ZH_PARTNERS}|{_ZH_EXES}|{FAMILY})(?!叫)(?P<o>[{CJK}]{{2,3}}?)(?:(?={_ZH_GOES_ON})|{_ZH_SURE_END})"
    ),
    "{x}是",
    FactKind.RELATION,
    "人际",
    "{o}是{s}的{x}",
    object_type=EntityType.SPECIFIC,
    person_object=True,
)
_ZH_PARTNER_TOLD = lazy(rf"{_ZH_LEAD}{_ZH_NEW}(?P<x>{_ZH_PARTNERS}|{_ZH_SPOUSES}){_ZH_SURE_END}")
_NAME_TAGS = ("nr", "nrfg", "nrt")

# my dad is called Dad, my mom is called Mama: what one calls them, no name
_EN_CALLING = rf"(?:{EN_CALLED}|Ma|Pa|Bro|Sis|Baby)\b"
_EN_OTHER = rf"(?P<o>(?-i:(?!{_EN_CALLING})[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)?))"
_EN_END = r"(?:\s+(?:too|now))?$"
# my manager Greg, Dana is my boss: one over the speaker at work (not "Greg and I are managers", who are peers in it)
_EN_ABOVE = r"(?:boss|manager|supervisor)"


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
    _en(rf"{_EN_OTHER}\s+and\s+(?:I|me)\s+are\s+(?:both\s+|also\s+)?(?P<x>{EN_PEERS})s", "{s} and {o} are {x}s"),
    _en(rf"(?:I|me)\s+and\s+{_EN_OTHER}\s+are\s+(?:both\s+|also\s+)?(?P<x>{EN_PEERS})s", "{s} and {o} are {x}s"),
    _en(rf"{_EN_OTHER}(?:\s+is|'s)\s+(?:also\s+)?my\s+(?P<x>{EN_PEERS}|{EN_KIN}|{_EN_ABOVE})", "{o} is {s}'s {x}"),
    # my sister's name is Emma, my mom is called Linda
    _en(
        rf"my\s+(?P<x>{EN_PEERS}|{EN_KIN}|{_EN_ABOVE})(?:'s\s+name\s+is|\s+is\s+(?:called|named))\s+{_EN_OTHER}",
        "{o} is {s}'s {x}",
    ),
)
# My sister Emma is getting married: the clause goes on about the one it names, who is the speaker's sister
EN_NAMED_KIN = FactRule(
    en_rule(
        rf"my\s+(?P<x>{EN_PEERS}|{EN_KIN}|{_EN_ABOVE}),?\s+(?P<o>(?-i:[A-Z][a-z-]+(?:\s+[A-Z][a-z-]+)?))(?!\w|'(?!s\b))"
    ),
    "{x} is",
    FactKind.RELATION,
    "people",
    "{o} is {s}'s {x}",
    object_type=EntityType.SPECIFIC,
    person_object=True,
)


def relations_in(clause: str, english: bool) -> list[tuple[FactRule, re.Match[str]]]:
    """The relation rules ``clause`` matches whole (my sister Emma…: begins with); none for a wish or a guess
    (我和小雨是室友就好了)."""
    if not english and (ZH_UNREAL.search(clause) or ZH_HEDGE.search(clause)):
        return []
    rules = (*EN_RELATIONS, EN_NAMED_KIN) if english else (*ZH_RELATIONS, *ZH_KIN_RULES)
    found = [(rule, match) for rule in rules if (match := rule.pattern.match(clause))]
    named = None if english else _ZH_NAMED_PARTNER.pattern.match(clause)
    if named and tokens.first_tag(clause[named.start("o") :], named["o"]) in _NAME_TAGS:
        found.append((_ZH_NAMED_PARTNER, named))
    return found


def partner_told(clause: str) -> str:
    """The partner word of a clause that tells of a partner not named yet (我有新男朋友了 → 男朋友): the next
    clause may name them (叫陈屿); "" for any other clause."""
    found = _ZH_PARTNER_TOLD.match(clause)
    return found["x"] if found else ""
