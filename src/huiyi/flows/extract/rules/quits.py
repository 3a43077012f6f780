"""A taste or habit the speaker gave up: 我戒烟了, 我不喝咖啡了, 以前喜欢喝咖啡，现在戒了，改喝茶了, I quit
coffee, I don't drink coffee anymore.

What stopped is a fact of its own (木木戒烟了) unless the first-person rules read it already (我不喝咖啡 →
木木不喝咖啡), and it closes the speaker's open likes that name it (木木喜欢喝咖啡: ``valid_to`` = when it was
said), as a move closes the old home. A clause that gives up what an earlier clause of the message said was
liked before (以前喜欢喝咖啡，现在戒了) gives up that; what replaced it (改喝茶了) is a like of its own.

Only the speaker's own habits: a clause with a subject of its own (他, 你, a member's name), a question, a
wish (要是戒了…就好了) or a failure (戒不掉) stops nothing.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from huiyi.flows.extract import CloseDraft, FactDraft
from huiyi.flows.extract.rules.jokes import joke_end
from huiyi.flows.extract.rules.patterns import QUESTION_END, ZH_CLAUSE, ZH_REPORTED, ZH_UNREAL
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.model import EntityType, FactKind

__all__ = ["quits_in"]

_SOON = r"(?:现在|已经|终于|早就?|也|今天|最近|这周|从今天起|开始)*"
_FOR_GOOD = r"(?:现在|已经|早就?|也|以后|再也)*"  # not 今天: 我今天不喝咖啡了 is one day's
# 以前喜欢喝咖啡, 我以前爱抽烟: what was liked before, for a clause after that gives it up
_BEFORE = re.compile(
    r"^我?(?:以前|之前|原来|过去|曾经|从前)我?(?:很|特别|超|最|一直)?(?:喜欢|爱|常|经常|天天|每天)?"
    r"(?P<v>喝|吃|抽|玩)?(?P<o>[^，。！？]{1,6})$"
)
# 我戒烟了, 现在戒了, 我戒掉咖啡了 (not 戒不掉)
_ZH_QUIT = re.compile(rf"^我?{_SOON}戒(?:掉)?了?(?P<o>[^，。！？了不]{{0,6}}?)(?:了|啦)$")
# 我不喝咖啡了, 现在不喝了, 我不再吃辣了
_ZH_NO_MORE = re.compile(rf"^我?{_FOR_GOOD}(?:不再|不)(?P<v>喝|吃|抽|玩|喜欢|爱)(?P<o>[^，。！？了]{{0,6}})(?:了|啦)$")
# 改喝茶了, 现在改喝茶: what took its place
_ZH_INSTEAD = re.compile(r"^我?(?:现在|后来|最近|已经)*改(?P<v>喝|吃|玩)(?P<o>[^，。！？了]{1,6})(?:了|啦)?$")
_ZH_OTHER = re.compile(r"你|他|她|它|咱|大家|谁|我们")
_ZH_LIKES = ("喜欢", "爱", "热爱", "迷上了", "只喝", "只吃")

_EN_PREFIX = r"^(?:(?:oh|well|and|but|so|actually|honestly|yeah|also|btw)[,!]?\s+)*"
_EN_QUIT = re.compile(
    rf"{_EN_PREFIX}I(?:\s+(?:have\s+|'ve\s+)?|(?:'m|\s+am)\s+)(?:just\s+|finally\s+|officially\s+)*"
    r"(?P<p>quit|gave\s+up|given\s+up|stopped|quitting|giving\s+up)"
    r"\s+(?:drinking\s+|eating\s+)?(?P<o>[a-z][a-z' -]{0,30}?)(?:\s+(?:for\s+good|now|already|today|yesterday))?$",
    re.IGNORECASE,
)
_EN_NO_MORE = re.compile(
    rf"{_EN_PREFIX}I\s+(?:(?P<n>don't|do\s+not)\s+(?:really\s+)?(?P<v>drink|eat|smoke|like|love|enjoy)\s+"
    r"(?P<o>[a-z][a-z' -]{0,30}?)\s+any\s*more"
    r"|no\s+longer\s+(?P<v2>drink|eat|smoke|like|love|enjoy)\s+(?P<o2>[a-z][a-z' -]{0,30}?))$",
    re.IGNORECASE,
)
# sentences, and a comma's clause of its own (…anymore, it's been making me anxious)
_EN_CLAUSE = re.compile(
    r"[.!;\n]+|(?<=\?)|,\s*(?=(?:it|it's|i|i'm|my|he|she|they|we|so|because|cause|but|and)\b)", re.IGNORECASE
)
# I quit my job, I gave up on it: not a taste
_EN_NOT_A_TASTE = re.compile(
    r"^(?:my|your|his|her|our|their|the|a|an|it|that|this|on|job|work|school"
    r"|him|them|you|me|us|he|she|they|people|anyone|someone|somebody|anybody|everyone)\b",
    re.I,
)
_EN_LIKES = ("likes", "loves", "enjoys", "adores")


def quits_in(said: Said, roster: Roster) -> tuple[list[FactDraft], list[CloseDraft]]:
    """The habits the message's speaker gave up and what replaced them (facts), and the likes they close."""
    if said.speaker == roster.agent_name:  # the agent's tastes are the persona's business
        return [], []
    text = said.own
    if said.lang == "en":
        return _english(said, roster, text[joke_end(text) :])
    facts: list[FactDraft] = []
    closes: list[CloseDraft] = []
    before = ""  # 以前喜欢喝咖啡: the object a later clause may give up
    for match in ZH_CLAUSE.finditer(text, joke_end(text)):
        clause = match.group().strip()
        end = text[match.end() : match.end() + 1]
        if not clause or (end and end in "？?") or QUESTION_END.search(clause) or _other(clause, roster):
            continue
        if ZH_REPORTED.search(clause) or ZH_UNREAL.search(clause):
            continue
        if found := _BEFORE.match(clause):
            before = found.group("o")
            continue
        quit_match = _ZH_QUIT.match(clause)
        no_more = _ZH_NO_MORE.match(clause)
        instead = _ZH_INSTEAD.match(clause)
        stop = quit_match or no_more
        if stop:
            obj = stop.group("o") or before
            if not obj:
                continue
            closes += [_close(said, predicate, obj) for predicate in _ZH_LIKES]
            if quit_match:
                shown = f"戒{obj}了" if len(obj) == 1 else f"戒了{obj}"
                predicate = "戒了"
            else:
                verb = no_more.group("v") if no_more else ""
                shown, predicate = f"不{verb}{obj}了", f"不{verb}"
            if not any(obj in f.object for f in said.facts):  # 我不喝咖啡了: read already as 木木不喝咖啡
                facts.append(_fact(said, roster, predicate, obj, f"{said.speaker}{shown}"))
            before = obj
        elif instead and before:  # 改喝茶了 after giving up 咖啡
            new = instead.group("v") + instead.group("o")
            facts.append(_fact(said, roster, "喜欢", new, f"{said.speaker}喜欢{new}", kind=FactKind.PREFERENCE))
    return facts, closes


def _english(said: Said, roster: Roster, text: str) -> tuple[list[FactDraft], list[CloseDraft]]:
    facts: list[FactDraft] = []
    closes: list[CloseDraft] = []
    for part in _EN_CLAUSE.split(text.replace("’", "'")):
        clause = part.strip(" ,")
        if not clause or clause.endswith("?"):
            continue
        when = said.message.time
        if found := _EN_QUIT.match(clause):
            obj, shown, predicate = found.group("o"), f"quit {found.group('o')}", "quit"
            obj, when = _undated(obj, said)
        elif found := _EN_NO_MORE.match(clause):
            verb = found.group("v") or found.group("v2")
            obj = found.group("o") or found.group("o2")
            shown = f"doesn't {verb} {obj} anymore" if found.group("n") else f"no longer {verb}s {obj}"
            predicate = f"doesn't {verb}"
        else:
            continue
        if _EN_NOT_A_TASTE.match(obj):
            continue
        closes += [_close(said, like, obj) for like in _EN_LIKES]
        if not any(obj in f.object for f in said.facts):  # I don't like sushi anymore: read already
            facts.append(replace(_fact(said, roster, predicate, obj, f"{said.speaker} {shown}"), time=when))
    return facts, closes


def _undated(obj: str, said: Said) -> tuple[str, datetime]:
    """(what was given up, when) for an object that ends with a time phrase (coffee last week): the time is
    the fact's, not part of what stopped."""
    for span in said.spans:
        if obj.casefold().endswith(" " + span.phrase.casefold()):
            return obj[: -len(span.phrase)].rstrip(), span.start
    return obj, said.message.time


def _other(clause: str, roster: Roster) -> bool:
    """Whether the clause has a subject of its own: a pronoun or a member's name."""
    return bool(_ZH_OTHER.search(clause)) or any(len(n) > 1 and n in clause for n in roster.all_names() if n)


def _close(said: Said, predicate: str, word: str) -> CloseDraft:
    return CloseDraft(said.speaker, predicate, word, said.message.time, [said.message.id])


def _fact(
    said: Said, roster: Roster, predicate: str, obj: str, description: str, kind: FactKind = FactKind.ATTRIBUTE
) -> FactDraft:
    return FactDraft(
        subject=said.speaker,
        predicate=predicate,
        object=obj,
        description=description,
        sources=[said.message.id],
        kind=kind,
        keyword="饮食" if said.lang == "zh" else "habit",
        subject_type=roster.entity_type(said.speaker) or EntityType.OBJECT,
        object_type=None,
        time=said.message.time,
        confidence=0.7,
    )
