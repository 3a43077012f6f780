"""A pet of the speaker given a new name: 我家猫改名叫年糕了, 团子改名叫年糕了, 我给团子改名叫年糕了,
We renamed Mochi to Bean, My cat is now called Bean.

The pet facts said before (团子是木木的猫, 木木养了一只猫，叫团子) no longer give its name: the name's fact and
the owner's facts that say the old name are closed when the new name is said, and the new name is a fact
(年糕是木木的猫，原来叫团子) that keeps the old one, so 团子现在叫什么 still finds it. An owner's fact that
named it is said again with the new name (木木养了一只猫，叫年糕).

Only a pet the speaker named before counts, by its old name or as 我家的猫 / my cat when it is their only one
of that kind (:class:`~huiyi.flows.extract.rules.losses.Losses` knows them). A question (它改名叫什么好？),
someone else's words or a pet not known to be theirs changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import replace

from huiyi.flows.extract import CloseDraft, FactDraft
from huiyi.flows.extract.rules.losses import Losses, Pet
from huiyi.flows.extract.rules.patterns import QUESTION_END, ZH_REPORTED
from huiyi.flows.extract.rules.pet_names import pet_name_fact
from huiyi.flows.extract.rules.said import Said, stated
from huiyi.text.language import CJK

__all__ = ["renamed_pets"]

_RENAME = r"(?:改了?个?名字?|换了?个?名字?|改叫|(?P<now>现在叫))(?:叫做?|为|成)?"
# 现在叫 is also how it cries or what it calls (团子现在叫得很大声, 叫声很大, 叫醒我, 鹦鹉现在叫爸爸了): no name
_CRY = re.compile(r"^[得声个醒唤着了起出]|[我你他她它您人不很没]|^(?:爸爸?|妈妈?|爷爷|奶奶|哥哥|姐姐)$")
_ZH_RENAMED = re.compile(
    rf"^(?:我(?:们)?(?:给|把))?(?P<mine>我家的?|我的)?(?P<who>[{CJK}A-Za-z]{{1,6}}?)(?:现在|已经|刚刚?|今天)?{_RENAME}"
    rf"(?P<new>[{CJK}A-Za-z]{{1,6}}?)了?(?:[啦哈呀~～]*)$"
)
_NAMED_AFTER = re.compile(r"(改了?个?名字?|换了?个?名字?)[，,]\s*(?=叫)")
_EN_RENAMED = re.compile(
    r"^(?:[Ww]e|I)\s+(?:just\s+)?renamed\s+(?:(?P<mine>my|our)\s+(?P<kind>[a-z]+)|(?P<name>[A-Z][\w'-]*))\s+(?:to\s+)?"
    r"(?P<new>[A-Z][\w'-]*)$"
    r"|^(?:(?P<mine2>my|our)\s+(?P<kind2>[a-z]+)|(?P<name2>[A-Z][\w'-]*))(?:'s\s+new\s+name\s+is|\s+is\s+now\s+called)\s+"
    r"(?P<new2>[A-Z][\w'-]*)$"
)


def renamed_pets(said: Said, losses: Losses) -> tuple[list[FactDraft], list[CloseDraft]]:
    """The new names ``said`` gives pets of the speaker known before: the new facts, and the closes of the
    facts that gave the old name. ``losses`` forgets the closed facts, so 我家的猫 stays one cat."""
    facts: list[FactDraft] = []
    closes: list[CloseDraft] = []
    if said.speaker == losses.roster.agent_name:
        return facts, closes
    english = said.lang == "en"
    for who, mine, new in _renames(said):
        pet = losses.pet_of(said.speaker, who, mine)
        if pet is None or new == pet.name or new == pet.kind:
            continue
        old = [f for f in losses.facts_of(pet) if pet.name and pet.name in f.description]
        closes += [CloseDraft(f.subject, f.predicate, f.description, said.message.time, [said.message.id]) for f in old]
        facts.append(_new_name(pet, new, english, said))
        facts += [_said_again(f, pet, new, said) for f in old if f.subject == pet.owner]
        losses.forget(old)
    return facts, closes


def _renames(said: Said) -> list[tuple[str, bool, str]]:
    """(who, said as mine, the new name) for each clause that renames something."""
    out: list[tuple[str, bool, str]] = []
    english = said.lang == "en"
    for clause in stated(said, said.own if english else _NAMED_AFTER.sub(r"\1", said.own)):  # 改了个名字，叫年糕
        if english:
            if found := _EN_RENAMED.match(clause):
                who = found["name"] or found["name2"] or found["kind"] or found["kind2"]
                out.append((who, (found["mine"] or found["mine2"]) is not None, found["new"] or found["new2"]))
            continue
        found = _ZH_RENAMED.match(clause)
        if found is None or (found["now"] and _CRY.search(found["new"])):
            continue
        if not ZH_REPORTED.search(found["who"]) and not QUESTION_END.search(found["new"]):
            out.append((found["who"], found["mine"] is not None, found["new"]))
    return out


def _new_name(pet: Pet, new: str, english: bool, said: Said) -> FactDraft:
    """年糕是木木的猫，原来叫团子: the new name's fact, which keeps the old name findable."""
    fact = pet_name_fact(pet.owner, pet.kind, new, english, said.message)
    if not pet.name:
        return fact
    was = f", formerly {pet.name}" if english else f"，原来叫{pet.name}"
    return replace(fact, description=fact.description + was)


def _said_again(owned: FactDraft, pet: Pet, new: str, said: Said) -> FactDraft:
    """木木养了一只猫，叫团子 as 木木养了一只猫，叫年糕: the owner's fact with the new name."""
    return replace(
        owned,
        object=owned.object.replace(pet.name, new),
        description=owned.description.replace(pet.name, new),
        sources=[said.message.id],
        time=said.message.time,
    )
