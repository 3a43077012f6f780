"""Aliases said in plain words, learnt without an LLM (issue #13): 霓霓就是苏霓, 叫我老K就行, 骑行圈都叫他老K
(with @柯凯 in the message), ``@Tony_Wu 托尼老师，…``, 我把群名片从“橘子汽水”改成“橘子不加冰”了.

Every alias belongs to someone of the roster (a speaker of the fold or a known person); a nickname
must look like one (霓霓, 小黑, 老K, 托尼老师, or sharing a character with the name), so that
``@羊咩咩 来嘛，`` teaches nothing, and be nobody else's name, so that 叫我苏霓 takes no one's identity.
"""

from __future__ import annotations

import re

from huiyi.flows.extract import EntityDraft
from huiyi.flows.extract.rules.mentions import name_shaped
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.model import EntityType
from huiyi.text.keywords import EN_PROPER_STOP

_NAME = r"[\w\u4e00-\u9fff·]{1,8}?"
_EDGE = r"(?=$|[，,。.！!？?；;、\s~～]|是|了|就|吧|呀|啊)"
_IS = re.compile(rf"(?:^|(?<=[，,。.！!？?；;\s]))(?P<a>{_NAME})就是(?P<b>{_NAME}){_EDGE}")
_CALL_ME = re.compile(rf"(?:叫|喊)我(?P<a>{_NAME})(?:就行|就好|就可以|好了|吧|{_EDGE})")
# you can call me M, everyone calls me Kit: a capitalised word is name-shaped in English; don't call me…, a
# question (can you call me Monday?) and a word no one is named (call me Friday) give none
_EN_CALL_ME = re.compile(
    r"(?<![\w'])(?P<no>(?:don't|do\s+not|never|not)\s+)?call(?:s|ed)?\s+me\s+(?P<a>(?-i:[A-Z][\w'-]*))(?![\w'])"
    r"(?P<end>[^.!?\n]*[.!?\n]?)",
    re.IGNORECASE,
)
_CALL_THEM = re.compile(rf"(?:叫|喊|称)(?:他|她)(?:为)?(?P<a>{_NAME}){_EDGE}")
_AT = re.compile(r"@(?P<p>[^\s@，,：:]{1,20})")
_AT_NICK = re.compile(rf"@(?P<p>[^\s@，,：:]{{1,20}})\s+(?P<a>{_NAME})[，,：:]")
_RENAME = re.compile(
    r"(?:群名片|群昵称|昵称|网名|名字|备注)\s*从\s*[“\"「『](?P<old>[^”\"」』]{1,16})[”\"」』]\s*"
    r"(?:改成|改为|换成|改叫)了?\s*[“\"「『](?P<new>[^”\"」』]{1,16})[”\"」』]"
)
_TITLE = re.compile(r"(?:老师|哥|姐|总|叔|姨|老板|同学)$")
_NOT_NAMES = frozenset("我 你 他 她 它 我们 你们 他们 她们 大家 自己 这个 那个 什么 谁 一个人 一样".split())


def nickname_like(alias: str, name: str) -> bool:
    """Whether ``alias`` reads as a nickname of ``name``.

    >>> pairs = [("霓霓", "苏霓"), ("托尼老师", "Tony_Wu"), ("老K", "柯凯"), ("来嘛", "羊咩咩")]
    >>> [nickname_like(alias, name) for alias, name in pairs]
    [True, True, True, False]
    """
    alias = alias.strip()
    if not alias or alias in _NOT_NAMES or alias.casefold() == name.casefold() or len(alias) > 8:
        return False
    return (
        name_shaped(alias)
        or bool(_TITLE.search(alias))
        or alias[0] in "小老阿"
        or bool(set(alias) & set(name) - set("的了是"))
    )


def _person(roster: Roster, name: str) -> str | None:
    shown = roster.resolve(name)
    return shown if shown is not None and shown != roster.agent_name else None


def aliases_in(said: Said, roster: Roster) -> list[EntityDraft]:
    """The aliases a message teaches, each as a draft of the person it names."""
    text = said.own
    found: list[tuple[str, str]] = []  # (person's display name, alias)
    for match in _IS.finditer(text):
        a, b = match.group("a"), match.group("b")
        for known, other in ((b, a), (a, b)):
            person = _person(roster, known)
            if person is not None and _person(roster, other) is None:
                found.append((person, other))
                break
    speaker = _person(roster, said.speaker)
    english: list[str] = []  # you can call me M: a name the speaker gives themself
    if speaker is not None:
        found += [(speaker, m.group("a")) for m in _CALL_ME.finditer(text)]
        english = [m.group("a") for m in _EN_CALL_ME.finditer(text) if _named_by(m)]
        found += [(speaker, alias) for alias in english]
        for match in _RENAME.finditer(text):
            found += [(speaker, match.group("old")), (speaker, match.group("new"))]
    at = [p for p in (_person(roster, m.group("p")) for m in _AT.finditer(text)) if p is not None]
    for match in _CALL_THEM.finditer(text):
        # 他/她 is the one person @mentioned, else the last person named before it
        before = [_person(roster, n) for n in roster.all_names() if n and n in text[: match.start()]]
        named = [p for p in before if p is not None]
        referent = at[0] if len(set(at)) == 1 else (named[-1] if named else None)
        if referent is not None:
            found.append((referent, match.group("a")))
    for match in _AT_NICK.finditer(text):
        person = _person(roster, match.group("p"))
        if person is not None:
            found.append((person, match.group("a")))
    drafts: dict[str, EntityDraft] = {}
    for person, alias in found:
        alias = alias.strip()
        if not nickname_like(alias, person) and not _RENAME.search(text) and alias not in english:
            continue
        if roster.someone_else(alias, person):
            continue
        draft = drafts.setdefault(person, EntityDraft(person, roster.entity_type(person) or EntityType.OBJECT))
        if alias not in draft.aliases and alias != person:
            draft.aliases.append(alias)
    return list(drafts.values())


def _named_by(match: re.Match[str]) -> bool:
    """Whether "call me X" gives the speaker a name: not denied, not asked, and X no word like Monday."""
    alias = match.group("a")
    return not match.group("no") and not match.group("end").endswith("?") and alias.lower() not in EN_PROPER_STOP
