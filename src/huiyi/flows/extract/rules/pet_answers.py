"""A pet's name given as an answer: 你家那只柯基？叫什么来着 — 叫团子 (or 团子, 它叫团子).

The question tells of the pet (whose it is, its kind); the answer only names it, so neither alone is a fact.
Read together, the one asked has that pet, so named: 木木养了一只柯基，叫团子 and 团子是木木的柯基, as when told
in one sentence (:mod:`~huiyi.flows.extract.rules.pet_names`).

Who was asked: in a private chat the other side; in a group the member the question names first (阿杰，你家狗
叫啥), else whoever speaks next but the asker. Only their very next line answers, and only a bare name or 叫…
(忘了, 不知道, 我家没有狗 name none); the persona's pets are its own business.
"""

from __future__ import annotations

from dataclasses import dataclass

from huiyi.flows.extract import EntityDraft, FactDraft
from huiyi.flows.extract.rules.pet_names import naming, pet_name_fact, pet_named
from huiyi.flows.extract.rules.pet_patterns import ZH_ANIMALS, ZH_KIND_OF, ZH_PET_WORD
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.model import EntityType, FactKind
from huiyi.patterns import lazy
from huiyi.text.language import CJK

__all__ = ["PetAnswers"]

# 你家那只柯基？叫什么来着, 你家狗叫啥, 你的猫叫什么名字
_ASKED = lazy(
    rf"你(?:家|的|家的)(?:[那这][只条头匹])?(?P<pet>{ZH_PET_WORD})"
    r"[^。！!]{0,6}?(?:叫(?:什么|啥|甚么)|名字(?:是|叫)?(?:什么|啥)|什么名字|啥名字)"
)
_BARE = lazy(rf"^(?P<name>[{CJK}A-Za-z]{{1,6}})$")
# a bare answer that is no name: a laugh (嘿嘿, 呵呵) or the breed (你家狗叫啥 — 柯基, 拉布拉多)
_NO_NAME = lazy(
    rf"^(?:(?:[哈嘿嘻呵哼]){{2,}}|{ZH_ANIMALS}|柴犬|泰迪|拉布拉多|哈士奇|二哈|萨摩耶?|边牧|阿拉斯加|德牧|金毛|博美|比熊"
    r"|布偶|英短|美短|暹罗|加菲|橘猫|狸花|蓝猫|田园犬|土狗)$"
)
_TAIL = "。.！!~～，, 呀啊呢哦吧啦哈"


@dataclass
class _Question:
    asker: str
    asked: str | None  # None: whoever speaks next
    kind: str
    source: str


class PetAnswers:
    """Reads the fold's messages in order; knows the question about someone's pet's name still unanswered."""

    def __init__(self, roster: Roster, private: bool) -> None:
        self.roster = roster
        self.private = private
        self.open: _Question | None = None

    def read(self, said: Said) -> None:
        """Names the pet ``said`` answers a question about; or opens the question ``said`` asks."""
        question, self.open = self.open, None
        if question is not None and question.asked in (None, said.speaker) and said.speaker != question.asker:
            self._answer(question, said)
        elif question is not None:
            self.open = question  # the asker or another member spoke between: the one asked may answer still
        if said.lang == "zh" and (found := _ASKED.search(said.own)):
            kind = ZH_KIND_OF.get(found["pet"], found["pet"])
            self.open = _Question(said.speaker, self._asked(said, found.start()), kind, said.message.id)

    def _asked(self, said: Said, at: int) -> str | None:
        if self.private:
            return self.roster.other_party(said.speaker, True)
        before = said.own[:at]
        named = [name for name in self.roster.all_names() if len(name) >= 2 and name in before]
        return self.roster.resolve(max(named, key=len)) if named else None

    def _answer(self, question: _Question, said: Said) -> None:
        if said.speaker == self.roster.agent_name or said.lang != "zh":
            return
        text = said.own.strip().rstrip(_TAIL).strip()
        name = naming(text, False)
        if name is None and (bare := _BARE.match(text)) and pet_named(bare["name"], text) and not _NO_NAME.match(text):
            name = bare["name"]
        if name is None or any(fact.subject == name for fact in said.facts):
            return
        owner = said.speaker
        said.facts.append(
            FactDraft(
                subject=owner,
                predicate="养了",
                object=question.kind,
                description=f"{owner}养了一只{question.kind}，叫{name}",
                sources=[question.source, said.message.id],
                kind=FactKind.RELATION,
                keyword="宠物",
                subject_type=self.roster.entity_type(owner) or EntityType.OBJECT,
                object_type=EntityType.GENERIC,
                time=said.message.time,
                confidence=0.7,
            )
        )
        said.facts.append(pet_name_fact(owner, question.kind, name, False, said.message))
        said.entities += [EntityDraft(question.kind, EntityType.GENERIC), EntityDraft(name, EntityType.SPECIFIC)]
