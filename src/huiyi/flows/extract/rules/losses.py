"""A pet of the speaker that died: 豆豆今天走了, 豆豆去世了, 我家狗狗走了, Our dog passed away.

The pet facts said before (木木养了一只狗，叫豆豆 and 豆豆是木木的狗, stored or earlier in the fold) no longer
hold: each is closed by its own text (``valid_to`` = when the death was said), and the death is a fact of
its own (木木的狗豆豆去世了) so the prompt no longer speaks of the pet as alive.

走了 alone says many things (豆豆走丢了 is lost, 我先走了 is leaving), so only a pet the speaker named before,
by its name or as 我家的狗 / my dog, counts, and only with 走了, 去世了, 死了 (passed away, died) ending the
clause. A question, someone else's words (他说豆豆死了) or a pet of two of a kind named by kind alone (which
dog?) changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from huiyi.flows.extract import CloseDraft, FactDraft
from huiyi.flows.extract.rules.patterns import ZH_REPORTED
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said, stated
from huiyi.model import EntityType, FactKind

__all__ = ["Losses", "Pet"]

_ZH_DIED = re.compile(
    r"^(?P<mine>我家的?|我的)?(?P<who>[^，。！？\s]{1,6}?)"
    r"(?:今天|昨天|前天|昨晚|今早|今天早上|刚刚?|已经|上周|前几天|在医院|在家)*"
    r"(?:去世|过世|离世|病逝|死|没|走)了(?:[呜哭啊呀]*)$"
)
_EN_DIED = re.compile(
    r"^(?:(?P<mine>my|our)\s+(?:(?:old|sweet|little|dear|poor)\s+)?(?P<kind>[a-z]+)(?:,?\s+(?P<named>[A-Z][\w'-]*),?)?"
    r"|(?P<name>[A-Z][\w'-]*))\s+(?:just\s+|sadly\s+)?(?:passed\s+away|died)\b",
)
_OWNS = ("养了", "has")  # the owner's fact: 木木养了一只狗
_IS = ("是", "is")  # the name's fact: 豆豆是木木的狗
_DIED = ("去世", "died")  # the death's fact: 木木的狗豆豆去世了


@dataclass(frozen=True)
class Pet:
    owner: str
    kind: str  # 狗, dog
    name: str  # 豆豆, Max; "" when only the owner's fact says it


class Losses:
    """Reads the fold's messages in order; knows the pets stored and those named in the fold so far."""

    def __init__(self, roster: Roster, stored: list[FactDraft]) -> None:
        self.roster = roster
        self.known: list[FactDraft] = list(stored)

    def read(self, said: Said) -> tuple[list[FactDraft], list[CloseDraft]]:
        """The deaths ``said`` tells of pets known before it: their facts, and the closes of the pets' facts."""
        facts: list[FactDraft] = []
        closes: list[CloseDraft] = []
        if said.speaker != self.roster.agent_name:
            for who, mine in _deaths(said):
                pet = self.pet_of(said.speaker, who, mine)
                if pet is None:
                    continue
                for fact in self.facts_of(pet):
                    closes.append(
                        CloseDraft(fact.subject, fact.predicate, fact.description, said.message.time, [said.message.id])
                    )
                facts.append(_death(said, self.roster, pet))
        self.known += [fact for fact in said.facts if fact.keyword in ("宠物", "pet")]
        return facts, closes

    def forget(self, facts: list[FactDraft]) -> None:
        """Leave out facts that no longer hold (a pet's old name): 我家的猫 is then the renamed cat alone."""
        self.known = [fact for fact in self.known if not any(fact is gone for gone in facts)]

    def names(self) -> list[str]:
        """The names of the pets known (豆豆), living or not."""
        return [fact.subject for fact in self.known if fact.predicate in (*_IS, *_DIED)]

    def _names(self, owner: str) -> list[Pet]:
        out = []
        for fact in self.known:
            for prefix in (f"{owner}的", f"{owner}'s "):
                if fact.predicate in _IS and fact.object.startswith(prefix):
                    out.append(Pet(owner, fact.object[len(prefix) :], fact.subject))
        return out

    def pet_of(self, owner: str, who: str, mine: bool) -> Pet | None:
        """The speaker's pet ``who`` names: by its name, or (with 我家 / my) by its kind when only one is known."""
        named = [pet for pet in self._names(owner) if pet.name == who]
        if named:
            return named[0]
        if not mine:
            return None
        owned = [
            f.object
            for f in self.known
            if f.subject == owner and f.predicate in _OWNS and _kind(f.object) == _kind(who)
        ]
        same = {pet.name for pet in self._names(owner) if _kind(pet.kind) == _kind(who)}
        if not owned or len(same) > 1:
            return None  # not a pet of theirs, or which one?
        return Pet(owner, owned[0], "".join(same))

    def facts_of(self, pet: Pet) -> list[FactDraft]:
        """The known facts that say the pet lives with its owner."""
        others = {p.name for p in self._names(pet.owner) if p.name != pet.name}
        named = [f for f in self.known if f.predicate in _IS and pet.name and f.subject == pet.name]
        owned = [
            f
            for f in self.known
            if f.subject == pet.owner
            and f.predicate in _OWNS
            and _kind(f.object) == _kind(pet.kind)
            and not any(name in f.description for name in others)  # 木木养了一只狗，叫旺财: another dog
        ]
        return [fact for fact in [*named, *owned] if fact.description]


def _deaths(said: Said) -> list[tuple[str, bool]]:
    """(who, said as mine) for each clause that tells a death."""
    out: list[tuple[str, bool]] = []
    for clause in stated(said):
        if said.lang == "en":
            if found := _EN_DIED.match(clause):
                who = found.group("name") or found.group("named") or found.group("kind")
                out.append((who, found.group("mine") is not None and not found.group("named")))
        elif (found := _ZH_DIED.match(clause)) and not ZH_REPORTED.search(found.group("who")):
            out.append((found.group("who"), found.group("mine") is not None))
    return out


def _kind(word: str) -> str:
    """狗狗, 小狗 and 狗 are one kind; dogs and dog too."""
    word = word.strip().lower()
    if len(word) == 2 and word[0] == word[1]:
        word = word[0]
    word = word.removeprefix("小").removesuffix("咪")
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _death(said: Said, roster: Roster, pet: Pet) -> FactDraft:
    english = said.lang == "en"
    if english:
        description = f"{pet.owner}'s {pet.kind}" + (f" {pet.name}" if pet.name else "") + " died"
    else:
        description = f"{pet.owner}的{pet.kind}{pet.name}去世了"
    return FactDraft(
        subject=pet.name or (f"{pet.owner}'s {pet.kind}" if english else f"{pet.owner}的{pet.kind}"),
        predicate="died" if english else "去世",
        object=pet.kind,
        description=description,
        sources=[said.message.id],
        kind=FactKind.ATTRIBUTE,
        keyword="pet" if english else "宠物",
        subject_type=EntityType.SPECIFIC,
        object_type=None,
        time=said.message.time,
        confidence=0.7,
    )
