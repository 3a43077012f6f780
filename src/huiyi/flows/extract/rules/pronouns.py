"""他 / 她 in a rule fact's text made the one person named just before: 我男朋友叫阿杰，我明天和他去看电影 is
木木明天和阿杰去看电影, not 木木明天和他去看电影, which names nobody once the chat has gone on.

Who is named: a member of the fold (not the speaker, not the agent) or the person a relation fact of the same
line names (阿杰是木木的男朋友), in the message before the pronoun, or else in the message just before it.
With nobody or two people named the pronoun stays as said: whom it means nobody can tell.
"""

from __future__ import annotations

from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.text import tokens

__all__ = ["Pronouns", "named_in"]

_PRONOUNS = {"他": "", "她": "", "他家": "家", "她家": "家"}  # the tagger's word -> what follows the name
_PEOPLE_KEYWORD = "人际"  # the keyword of the rules' relation facts (阿杰是木木的男朋友): their object is a person


class Pronouns:
    """Reads the fold's messages in order; knows who the message before named."""

    def __init__(self, roster: Roster) -> None:
        self.roster = roster
        self._before: set[str] = set()  # the people the message before named

    def read(self, said: Said) -> None:
        """Names the person 他 / 她 stands for in ``said``'s facts, when only one can be meant."""
        text = said.own
        people = self._people(said, text)
        at = next((text.find(word) for word, _ in tokens.tag(text) if word in _PRONOUNS), -1) if _said(text) else -1
        if at >= 0:
            named = {person for person, first in people.items() if first < at} or self._before
            if len(named) == 1:
                (person,) = named
                for fact in said.facts:
                    fact.description, fact.object = named_in(fact.description, person), named_in(fact.object, person)
        self._before = set(people)

    def _people(self, said: Said, text: str) -> dict[str, int]:
        """The people ``said`` names, each where it first does: members by any name of two characters or
        more, and the objects of its relation facts."""
        others = (said.speaker, self.roster.agent_name)
        found = [
            (shown, text.find(name))
            for shown, names in self.roster.names.items()
            if shown not in others
            for name in names
            if len(name) > 1 and name in text
        ]
        found += [
            (fact.object, text.find(fact.object))
            for fact in said.facts
            if fact.keyword == _PEOPLE_KEYWORD and fact.subject == said.speaker and fact.object in text
        ]
        people: dict[str, int] = {}
        for person, first in sorted(found, key=lambda pair: pair[1]):
            people.setdefault(person, first)
        return people


def named_in(text: str, person: str) -> str:
    """``text`` with its 他 / 她 (said as a word: not 吉他, 其他) made ``person``.

    >>> named_in("木木明天和她去看电影", "小雨"), named_in("木木周六要去他家吃饭", "阿杰")
    ('木木明天和小雨去看电影', '木木周六要去阿杰家吃饭')
    >>> named_in("木木喜欢弹吉他", "阿杰"), named_in("木木喜欢其他人", "阿杰")
    ('木木喜欢弹吉他', '木木喜欢其他人')
    """
    if not _said(text):
        return text
    return "".join(person + _PRONOUNS[word] if word in _PRONOUNS else word for word, _ in tokens.tag(text))


def _said(text: str) -> bool:
    """Whether ``text`` may say 他 / 她 at all: most lines are not cut into words for it."""
    return "他" in text or "她" in text
