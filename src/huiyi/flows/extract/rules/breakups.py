"""A partner the speaker parted from: Jake and I broke up, I broke up with Jake, Jake dumped me, 我和阿杰分手了,
我跟阿杰分了, 阿杰把我甩了, 我们分手了; and one no longer the speaker's: an ex named (我前男友阿杰…), or the old one
a new partner ends (陈屿是我男朋友 ends 阿杰是木木的对象: one at a time, whatever word either was said with).

The parting is a fact (Mia broke up with Jake, 木木和阿杰分手了), and it closes the speaker's open partner facts
naming him (Jake is Mia's boyfriend: ``valid_to`` = when it was said), as a move closes the old home. The other
must be named; in Chinese 我们分手了 and 我和男朋友分手了 name the speaker's partner, the newest of their open
partner facts (stored or said before in the fold: :class:`Breakups`), and with none nothing is read. "We broke
up" says of whom too little for the English rule. A question, a near miss (almost, 差点, 要), a negation (没), a
guess (I think Jake and I broke up, 我觉得我们要分手了) or someone else's (他说…, 小美和阿杰分手了) matches no
pattern: each is read from the clause's start to its end; a clause laughter closes is no parting.
"""

from __future__ import annotations

import re
from datetime import datetime

from huiyi.flows.extract import CloseDraft, FactDraft
from huiyi.flows.extract.closes import PARTNERS, PARTNERS_ZH
from huiyi.flows.extract.rules.jokes import joke_end, laughs_off
from huiyi.flows.extract.rules.objects import person_named
from huiyi.flows.extract.rules.patterns import QUESTION_END, ZH_CLAUSE, en_rule
from huiyi.flows.extract.rules.relations import ZH_EXES, ZH_PARTNER_WORDS
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.model import EntityType, FactKind
from huiyi.patterns import lazy
from huiyi.text.language import CJK

__all__ = ["Breakups", "partners_replaced"]

_OTHER = r"(?P<o>(?-i:[A-Z][a-z-]+(?:\s+[A-Z][a-z-]+)?))"
_SO = r"(?:just\s+|finally\s+|officially\s+|recently\s+)*"
_PART = r"(?:broke\s+up|split\s+up|separated|got\s+divorced)"
_WHEN = (
    r"(?:\s+(?:today|tonight|yesterday|recently|earlier(?:\s+today)?|last\s+\w+|this\s+\w+|on\s+\w+"
    r"|(?:a\s+)?(?:few|couple(?:\s+of)?|\w+)\s+\w+\s+ago))?$"
)
_MINE = r"(?P<we>my\s+(?:boyfriend|girlfriend|partner|husband|wife|fianc[eé]e?|bf|gf)\s+and\s+I)"
_BREAKUPS = tuple(
    en_rule(pattern + _WHEN)
    for pattern in (
        rf"{_OTHER}\s+and\s+I\s+(?:have\s+|'ve\s+)?{_SO}{_PART}",
        rf"I\s+(?:have\s+|'ve\s+)?{_SO}(?:{_PART}\s+with|dumped|left|divorced)\s+{_OTHER}",
        rf"{_OTHER}\s+(?:has\s+|'s\s+)?{_SO}(?:{_PART}\s+with|dumped|left|divorced)\s+me",
        # the speaker's partner, unnamed: the newest of their open partner facts, as 我们分手了 reads
        # (we split up, we separated: a group on a trail does too; we broke up is a couple's)
        rf"(?P<we>we)\s+(?:have\s+|'ve\s+)?{_SO}(?:broke\s+up|got\s+divorced)",
        rf"{_MINE}\s+(?:have\s+|'ve\s+)?{_SO}{_PART}",
    )
)


def _english(said: Said, roster: Roster, newest: str) -> list[str]:
    """Whom the message's speaker says, in English, they parted from (``newest``: their newest open partner,
    whom "we broke up" names; "" when they have none)."""
    text = said.own[joke_end(said.own) :].replace("’", "'")
    others: list[str] = []
    for part in re.split(r"[.!;\n]+|(?<=\?)", text):
        clause = part.strip(" ,")
        found = next((m for pattern in _BREAKUPS if (m := pattern.match(clause))), None)
        if clause.endswith("?") or found is None:
            continue
        if found.groupdict().get("we"):
            if newest:
                others.append(newest)
        elif person_named(found["o"]):
            others.append(roster.resolve(found["o"]) or found["o"])
    return others


_ZH_LEAD = "^(?:其实|但是|不过|可是|而且|因为|所以|对了|说实话|老实说|唉|哎)?"
_ZH_WHEN = "(?:今天|昨天|前天|昨晚|前几天|上周|上个?月|上礼拜|上星期|去年|刚刚?|刚才|已经|终于|还是|正式|彻底|早就|也)*"
_ZH_OTHER = rf"(?P<o>[{CJK}A-Za-z·]{{1,6}}?)"
# 分手三个月了: how long ago it was
_ZH_SINCE = r"(?:(?:快|都|已经)?(?:[一二两三四五六七八九十半几]+|\d+)个?多?(?:天|周|星期|礼拜|月|年)多?)?"
_ZH_OVER = "(?:了|[啦呀啊哦嘛喔耶呜～~])*$"
_ZH_PART = "分手|离婚|分开|掰|分"
_ZH_SURE = ("分手", "离婚", "甩")  # said of a partner only (分开, 掰 and 分 part friends too)
_ZH_DONE = rf"(?P<v>{_ZH_PART}){_ZH_SINCE}了{_ZH_OVER}"
_ZH_PARTINGS = tuple(
    lazy(_ZH_LEAD + pattern)
    for pattern in (
        rf"我{_ZH_WHEN}(?:和|跟|与){_ZH_OTHER}{_ZH_WHEN}{_ZH_DONE}",  # 我和阿杰分手了, 我跟阿杰分了
        rf"(?P<we>我们|我){_ZH_WHEN}{_ZH_DONE}",  # 我们分手了: the speaker's partner
        rf"{_ZH_OTHER}{_ZH_WHEN}(?:和|跟){_ZH_WHEN}我{_ZH_WHEN}{_ZH_DONE}",  # 阿杰和我分手了
        rf"{_ZH_OTHER}{_ZH_WHEN}(?:把我甩了|甩了我){_ZH_OVER}",  # 阿杰把我甩了
        rf"我{_ZH_WHEN}把{_ZH_OTHER}甩了{_ZH_OVER}",
        rf"我{_ZH_WHEN}甩了{_ZH_OTHER}{_ZH_OVER}",
    )
)


class Breakups:
    """Reads the fold's messages in order; knows the speakers' open partner facts, stored (``Fold.partners``)
    and said in the fold so far, to tell whom 我们分手了 parts from."""

    def __init__(self, roster: Roster, stored: list[FactDraft]) -> None:
        self.roster = roster
        self.partners = sorted(stored, key=_said_at)  # the newest last

    def read(self, said: Said) -> tuple[list[FactDraft], list[CloseDraft]]:
        """The partings ``said`` states (facts) and the partner facts they and the exes it names close."""
        if said.speaker == self.roster.agent_name:
            return [], []
        facts: list[FactDraft] = []
        closes: list[CloseDraft] = []
        if said.lang == "en":
            for other in _english(said, self.roster, self._newest(said.speaker, PARTNERS)):
                closes += _closes(said, other, PARTNERS)
                facts.append(
                    _parted(
                        said, self.roster, other, "broke up with", f"{said.speaker} broke up with {other}", "people"
                    )
                )
                self._forget(said.speaker, other)
            self.partners += [f for f in said.facts if f.predicate in PARTNERS]
            return facts, closes
        for other, predicate in self._partings(said):
            closes += _closes(said, other, PARTNERS_ZH)
            facts.append(_parted(said, self.roster, other, predicate, f"{said.speaker}和{other}{predicate}了", "人际"))
            self._forget(said.speaker, other)
        for ex in [f for f in said.facts if f.subject == said.speaker and f.predicate in _EX_PREDICATES]:
            closes += _closes(said, ex.object, PARTNERS_ZH)  # 我前男友阿杰…: 阿杰 is no partner now
            self._forget(said.speaker, ex.object)
        self.partners += [f for f in said.facts if f.predicate in PARTNERS_ZH]
        return facts, closes

    def _partings(self, said: Said) -> list[tuple[str, str]]:
        """(the other, 分手 or 离婚) for each clause of ``said`` that tells of a parting of the speaker's."""
        text = said.own
        out: list[tuple[str, str]] = []
        for match in ZH_CLAUSE.finditer(text, joke_end(text)):
            clause = match.group().strip()
            end = text[match.end() : match.end() + 1]
            if not clause or end in ("？", "?") or QUESTION_END.search(clause) or laughs_off(clause):
                continue
            found = next((m for pattern in _ZH_PARTINGS if (m := pattern.match(clause))), None)
            if found is None:
                continue
            groups = found.groupdict()
            named, verb = groups.get("o") or "", groups.get("v") or "甩"
            if groups.get("we") == "我" and verb not in _ZH_SURE:
                continue  # 我分了 says too little
            other = self._other(said.speaker, named)
            # 我和小美分开了, 我和小美掰了: friends part and fall out too, so only a partner's is a breakup; 我们分开了
            # may be after a walk
            if groups.get("we") is not None:
                parted = verb != "分开"
            else:
                parted = verb in _ZH_SURE or self._partner_of(said.speaker, other)
            if other and parted:
                out.append((other, "离婚" if verb == "离婚" else "分手"))
        return out

    def _other(self, speaker: str, named: str) -> str:
        """Whom a parting names: a name, or for 我们 / (我)男朋友 the speaker's newest open partner; "" if none."""
        if named and named.removeprefix("我的").removeprefix("我") not in ZH_PARTNER_WORDS:
            known = self.roster.resolve(named)
            return known or (named if person_named(named) else "")
        return self._newest(speaker, PARTNERS_ZH)

    def _newest(self, speaker: str, predicates: tuple[str, ...]) -> str:
        """The speaker's newest open partner of ``predicates``' language, "" if none."""
        mine = [fact.object for fact in self.partners if fact.subject == speaker and fact.predicate in predicates]
        return mine[-1] if mine else ""

    def _partner_of(self, speaker: str, other: str) -> bool:
        return any(fact.subject == speaker and fact.object == other for fact in self.partners)

    def _forget(self, speaker: str, other: str) -> None:
        self.partners = [f for f in self.partners if not (f.subject == speaker and f.object == other)]


_EX_PREDICATES = tuple(f"{word}是" for word in ZH_EXES)


def _said_at(fact: FactDraft) -> datetime:
    return fact.time.replace(tzinfo=None) if fact.time else datetime.min


def _closes(said: Said, other: str, partners: tuple[str, ...]) -> list[CloseDraft]:
    """The closes of the speaker's open partner facts that name ``other``."""
    return [CloseDraft(said.speaker, partner, other, said.message.time, [said.message.id]) for partner in partners]


def _parted(said: Said, roster: Roster, other: str, predicate: str, description: str, keyword: str) -> FactDraft:
    return FactDraft(
        subject=said.speaker,
        predicate=predicate,
        object=other,
        description=description,
        sources=[said.message.id],
        kind=FactKind.RELATION,
        keyword=keyword,
        subject_type=roster.entity_type(said.speaker) or EntityType.OBJECT,
        object_type=roster.entity_type(other) or EntityType.SPECIFIC,
        time=said.message.time,
        confidence=0.7,
    )


def partners_replaced(said: Said) -> list[CloseDraft]:
    """The closes of the partners the speaker names (陈屿是我男朋友): each ends the speaker's open partner facts
    said before, of every partner word (``replaced`` closes only those of its own predicate)."""
    if not any(fact.subject == said.speaker and fact.predicate in PARTNERS_ZH for fact in said.facts):
        return []
    return [CloseDraft(said.speaker, partner, "", said.message.time, [said.message.id]) for partner in PARTNERS_ZH]
