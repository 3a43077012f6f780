"""他 / 她 in a rule fact's text made the one person named just before: 我男朋友叫阿杰，我明天和他去看电影 is
木木明天和阿杰去看电影, not 木木明天和他去看电影, which names nobody once the chat has gone on.

Who is named: a member of the fold (not the speaker, not the agent) or the person a relation fact of the same
line names (阿杰是木木的男朋友), in the message before the pronoun, or else in the message just before it.
With nobody or two people named the pronoun stays as said: whom it means nobody can tell; so it does when
someone else is said between the name and it (我哥, 同事, 张伟), when 他 and 她 are both said, or 她 of a boyfriend.
"""

from __future__ import annotations

from typing import NamedTuple

from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.text import tokens
from huiyi.text.kin import kin_pronoun, someone_named

__all__ = ["Pronouns", "named_in"]

_PRONOUNS = {"他": "", "她": "", "他家": "家", "她家": "家"}  # the tagger's word -> what follows the name
_PEOPLE_KEYWORD = "人际"  # the keyword of the rules' relation facts (阿杰是木木的男朋友): their object is a person


class _Named(NamedTuple):
    at: int  # where the line first names the person
    end: int  # where that name ends
    kin: str  # what the speaker calls them (男朋友), "" for a member


class Pronouns:
    """Reads the fold's messages in order; knows who the message before named."""

    def __init__(self, roster: Roster) -> None:
        self.roster = roster
        self._before: dict[str, tuple[str, str]] = {}  # the people the message before named: kin, what followed

    def read(self, said: Said) -> None:
        """Names the person 他 / 她 stands for in ``said``'s facts, when only one can be meant."""
        text = said.own
        people = self._people(said, text)
        said_at = _pronouns_at(text)
        if said_at:
            first, last = said_at[0][0], said_at[-1][0]
            named = {p: (n.kin, text[n.end : last]) for p, n in people.items() if n.at < first}
            if not named:  # the line before's, the speaker not (小雨你明天来吗 — 小雨: 我明天和他去打球)
                named = {p: (kin, f"{tail}\n{text[:last]}") for p, (kin, tail) in self._before.items()}
                named.pop(said.speaker, None)
            if len(named) == 1:
                ((person, (kin, between)),) = named.items()
                others = any(p != person and n.at < last for p, n in people.items())
                # 他 and 她 both, 她 for a boyfriend, 我哥 / 张伟 between the name and 他: someone else may be meant
                chars, his_or_hers = {char for _, char in said_at}, kin_pronoun(kin)
                agrees = len(chars) == 1 and (not his_or_hers or chars == {his_or_hers})
                if agrees and not others and not someone_named(between, kin, self._names(person)):
                    for fact in said.facts:
                        fact.description, fact.object = (
                            named_in(fact.description, person),
                            named_in(fact.object, person),
                        )
        self._before = {person: (n.kin, text[n.end :]) for person, n in people.items()}

    def _people(self, said: Said, text: str) -> dict[str, _Named]:
        """The people ``said`` names, each where it first does: members by any name of two characters or
        more, and the objects of its relation facts (with what the speaker calls them)."""
        others = (said.speaker, self.roster.agent_name)
        found = [
            (shown, _Named(text.find(name), text.find(name) + len(name), ""))
            for shown, names in self.roster.names.items()
            if shown not in others
            for name in names
            if len(name) > 1 and name in text
        ]
        found += [
            (
                fact.object,
                _Named(text.find(fact.object), text.find(fact.object) + len(fact.object), _kin(fact.predicate)),
            )
            for fact in said.facts
            if fact.keyword == _PEOPLE_KEYWORD and fact.subject == said.speaker and fact.object in text
        ]
        people: dict[str, _Named] = {}
        for person, named in sorted(found, key=lambda pair: (pair[1].at, not pair[1].kin)):
            people.setdefault(person, named)
        return people

    def _names(self, person: str) -> frozenset[str]:
        return frozenset((person, *self.roster.names.get(person, ())))


def named_in(text: str, person: str) -> str:
    """``text`` with its 他 / 她 (said as a word: not 吉他, 其他) made ``person``.

    >>> named_in("木木明天和她去看电影", "小雨"), named_in("木木周六要去他家吃饭", "阿杰")
    ('木木明天和小雨去看电影', '木木周六要去阿杰家吃饭')
    >>> named_in("木木喜欢弹吉他", "阿杰"), named_in("木木喜欢其他人", "阿杰")
    ('木木喜欢弹吉他', '木木喜欢其他人')
    """
    if not _said(text):
        return text
    words = tokens.tag(text)
    # 他妈妈, 她哥, 他老板: 阿杰的妈妈 (阿杰妈妈 may be read as one name, 小雨哥 is)
    whose = [at + 1 < len(words) and _PRONOUNS[word] == "" and words[at + 1][1][:1] == "n" for at, (word, _) in
             enumerate(words) if word in _PRONOUNS]  # fmt: skip
    return "".join(
        person + _PRONOUNS[word] + ("的" if whose.pop(0) else "") if word in _PRONOUNS else word for word, _ in words
    )


def _kin(predicate: str) -> str:
    """What a relation fact's predicate calls the person: 男朋友是 -> 男朋友."""
    return predicate.removesuffix("是")


def _pronouns_at(text: str) -> list[tuple[int, str]]:
    """Where ``text`` says 他 / 她 as a word (not 吉他, 其他), and which."""
    if not _said(text):
        return []
    out, at = [], 0
    for word, _ in tokens.tag(text):
        at = text.find(word, at)
        if word in _PRONOUNS:
            out.append((at, word[0]))
        at += len(word)
    return out


def _said(text: str) -> bool:
    """Whether ``text`` may say 他 / 她 at all: most lines are not cut into words for it."""
    return "他" in text or "她" in text
