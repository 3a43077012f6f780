"""A pet named after the words that told of it: I got a kitten today. … Her name is Mochi; 我养了只小猫。… 它叫团子.

People tell of a pet first and name it in their next words, often after the agent asks (叫什么名字呀？). The
name is then read as if said in one sentence (我养了一只小猫，叫团子): the owner's fact carries it
(木木养了一只小猫，叫团子), and the name is a fact (团子是木木的小猫) and an entity, so recall and a later
death (团子去世了, :mod:`~huiyi.flows.extract.rules.losses`) know the pet by name.

Only a clause that names "it" (它叫…, Her name is…, We named him…) right after a pet still nameless counts: in
the same message after the pet's word, or first in the speaker's next message (what others say in between
aside). "Her name is Lily" after "I met a girl today", a question (它叫什么好呢？) or another line between
names no pet.
"""

from __future__ import annotations

import re

from huiyi.flows.extract import EntityDraft, FactDraft
from huiyi.flows.extract.rules.patterns import ZH_CALLED_NAME, ZH_NOT_CRIED
from huiyi.flows.extract.rules.pet_patterns import EN_NAME, ZH_ANIMALS
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.model import EntityType, FactKind, Message
from huiyi.patterns import lazy
from huiyi.text import tokens
from huiyi.text.language import CJK

__all__ = ["PetNames", "apposed_pet", "naming", "pet_name_fact", "pet_named"]

# 我家猫团子在催我喂饭了: a pet named right after its kind, the clause going on about it
_GOES_ON = "在|又|把|今天|昨天|前天|刚|最近|一直|每天|总是|老是|天天|已经|也|还|超|特别|真|好|太|居然|竟然|突然|终于"
_ZH_APPOSED = lazy(rf"^我家?的?(?P<num>)(?P<mw>)(?P<pet>{ZH_ANIMALS})(?P<name>[{CJK}]{{2,3}}?)(?={_GOES_ON})")
_NAME_TAGS = frozenset(("nr", "nrfg", "nrt", "nz", "o"))  # a name (布丁, 小白), not 今天, 真的, 砂盆
# pet names the tagger takes for plain nouns: doubled (豆豆) or made with 子/仔 (团子); not kin, not things
_PET_SHAPED = lazy(rf"^(?:(?P<a>[{CJK}])(?P=a)|[{CJK}]{{1,2}}[子仔])$")
_NOT_PETS = frozenset(
    "妈妈 爸爸 宝宝 哥哥 姐姐 弟弟 妹妹 爷爷 奶奶 绳子 链子 崽子 主子 盆子 笼子 爪子 鼻子 肚子 脑子 孩子 妹子 儿子"
    " 房子 被子 毯子 垫子 窝子 牌子 样子 日子".split()
)

_EN_NAMING = re.compile(
    r"^(?:and\s+|so\s+)?(?:(?:her|his|its)\s+name(?:'s|\s+is)|(?:she|he|it)(?:'s|\s+is)\s+(?:called|named)"
    r"|(?:I|we)(?:'ve|\s+have)?\s+(?:named|called|name|call)\s+(?:her|him|it)"
    rf"|(?:I'm|we're)\s+(?:naming|calling)\s+(?:her|him|it))\s+{EN_NAME}$",
    re.IGNORECASE,
)
_ZH_NAMING = re.compile(
    rf"^(?:我们?给(?:它|他|她)|(?:它|他|她)(?:的名字)?|名字)?(?:取名|起名|叫做?|名叫|名字叫|名字是)(?:叫|为)?"
    rf"{ZH_NOT_CRIED}{ZH_CALLED_NAME}$"
)
_NOT_NAMES = re.compile(r"什么|啥|哪|谁|怎么")
_EN_CLAUSE = re.compile(r"[^.!?;\n]+[.!?;\n]*")
_ZH_CLAUSE = re.compile(r"[^，,。！？!?；;~～\n]+[，,。！？!?；;~～\n]*")
_OWNS = ("养了", "has")


class PetNames:
    """Reads the fold's messages in order; knows each speaker's pet told of and not yet named."""

    def __init__(self, roster: Roster) -> None:
        self.roster = roster
        self.nameless: dict[str, FactDraft] = {}  # speaker -> the owner's fact of a pet their last words told of

    def read(self, said: Said) -> None:
        """Names the pet ``said`` or the speaker's words before it told of, adding the name's fact and entity."""
        if said.speaker == self.roster.agent_name:
            return  # the agent's question between (叫什么名字呀？) keeps the pet waiting for its name
        english = said.lang == "en"
        text = said.own.replace("’", "'")  # forwarded or quoted words name no pet of theirs
        told = [fact for fact in said.facts if fact.predicate in _OWNS and not _named(fact, said.facts)]
        pet = self.nameless.pop(said.speaker, None)  # told of in their last words: only a first clause names it
        for at, clause in enumerate((_EN_CLAUSE if english else _ZH_CLAUSE).finditer(text)):
            if told and text.find(told[0].object) < clause.start():
                pet = told.pop(0)  # this message's own pet, from the clause after its word on
            elif at and pet is not None and not _among(pet, said.facts):
                pet = None  # their next words went on to something else first
            name = naming(clause.group(), english)
            if name and pet is not None:
                self._name(pet, name, said, english)
                pet = None
        pet = told[-1] if told else pet
        if pet is not None and _among(pet, said.facts):
            self.nameless[said.speaker] = pet

    def _name(self, pet: FactDraft, name: str, said: Said, english: bool) -> None:
        pet.description += f" named {name}" if english else f"，叫{name}"
        pet.sources.append(said.message.id)
        said.facts.append(pet_name_fact(pet.subject, pet.object, name, english, said.message))
        said.entities.append(EntityDraft(name, EntityType.SPECIFIC))


def naming(clause: str, english: bool) -> str | None:
    """The name a clause gives "it", if it is one that names (它叫团子, Her name is Mochi)."""
    clause = clause.strip()
    if clause.endswith(("?", "？")):
        return None
    found = (_EN_NAMING if english else _ZH_NAMING).match(clause.rstrip(".!~～。！，, ").strip())
    if found is None or _NOT_NAMES.search(found["name"]):
        return None
    return found["name"]


def _among(fact: FactDraft, facts: list[FactDraft]) -> bool:
    return any(fact is other for other in facts)


def _named(owner: FactDraft, facts: list[FactDraft]) -> bool:
    """Whether the owner's pet already has its name's fact (我养了一只狗，叫豆豆)."""
    return any(fact.subject != owner.subject and fact.object.endswith(owner.object) for fact in facts)


def pet_name_fact(speaker: str, pet: str, name: str, english: bool, message: Message) -> FactDraft:
    """团子是木木的小猫, Mochi is 木木's kitten: the fact a pet's name is."""
    owned = f"{speaker}'s {pet}" if english else f"{speaker}的{pet}"
    return FactDraft(
        subject=name,
        predicate="is" if english else "是",
        object=owned,
        description=f"{name} is {owned}" if english else f"{name}是{owned}",
        sources=[message.id],
        kind=FactKind.RELATION,
        keyword="pet" if english else "宠物",
        subject_type=EntityType.SPECIFIC,
        object_type=None,
        time=message.time,
        confidence=0.8,
    )


def apposed_pet(clause: str) -> re.Match[str] | None:
    """A pet named right after its kind in a clause of the speaker's (我家猫团子在催我喂饭了): the match has
    ``ZH_PET_NAMED``'s groups. The tagger must cut the name as one word, a name or shaped as pets' are
    (我家猫今天…, 我家猫真的…, 我家狗绳子…, 我家猫妈妈… name none).

    >>> apposed_pet("我家猫团子在催我喂饭了")["name"], apposed_pet("我家的狗豆豆今天生病了")["name"]
    ('团子', '豆豆')
    >>> apposed_pet("我家猫今天又拆家"), apposed_pet("我家猫咪真的好可爱"), apposed_pet("我家猫生病了")
    (None, None, None)
    >>> [apposed_pet(t) for t in ("我家狗绳子又断了", "我家猫砂盆又在漏", "我家猫妈妈又生了一窝", "我家猫主子在睡觉")]
    [None, None, None, None]
    """
    found = _ZH_APPOSED.match(clause)
    if found is None:
        return None
    return found if pet_named(found["name"], clause[found.start("name") :]) else None


def pet_named(name: str, said: str) -> bool:
    """Whether ``name``, first in ``said``, is one a pet may have: cut whole by the tagger, as a name or shaped
    as pets' are (豆豆, 团子), and no word of kin or of things (妈妈, 绳子)."""
    if name in _NOT_PETS:
        return False
    flag = tokens.first_tag(said, name)
    return flag is not None and (flag in _NAME_TAGS or _PET_SHAPED.match(name) is not None)
