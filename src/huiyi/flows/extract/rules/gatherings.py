"""A group's plans announced to everyone (issue 13): 周六下午三点大家一起去爬山，老地方集合, 下周五团建，别忘了,
后天晚上九点西溪湿地集合出发. They say no 我 (:mod:`~huiyi.flows.extract.rules.plans` reads a speaker's own
plans), so nothing dated them by the day they name: the fold's event, many lines long, kept the day of its
first moving phrase at best, and "周六有什么活动" found chatter that says 周六.

A group message (not the agent's, not a question, not a plan called off, not a habit) that names a time still to come
and a gathering (大家, 我们, 一起, 集合, 团建, 聚餐…) becomes an event of its own: the time is the first such
phrase (what it is about; when it was said is kept apart, ``said_at``), the text is the announcement with
the date each phrase means (``林晚晴说：周六（2024-11-16）下午三点大家一起去爬山，老地方集合``),
the participants are the speaker and the members it names. A speaker's own plan read by ``plans`` is left
to that rule. In English (Let's all meet at the park Saturday at 3pm, Team dinner next Friday, don't be
late) the same, in a group of three or more besides the agent: between two people, "let's meet next week"
is their exchange, which its chunks tell.

    >>> bool(GATHER.search("下周五团建，别忘了")), bool(GATHER.search("周六下雨"))
    (True, False)
"""

from __future__ import annotations

import re

from huiyi.flows.extract import EventDraft
from huiyi.flows.extract.rules.condense import absolute, cut, dated, label
from huiyi.flows.extract.rules.mentions import mentions, place_of
from huiyi.flows.extract.rules.patterns import QUESTION_END
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.text.times import TimeSpan

__all__ = ["GATHER", "gatherings_in"]

# what makes a time still to come a gathering of the group
GATHER = re.compile(
    r"大家|咱们|我们|一起|集合|出发|团建|聚餐|聚会|活动|开会|例会|碰头|见面|不见不散|别忘了|别迟到|报名|接龙|组队|约起"
)
# a plan called off, or someone not coming, is no announcement (cancels reads the former)
_OFF = re.compile(r"取消|泡汤|不去了|去不了|来不了|不来了|算了|改天|延期|推迟")
# what is done now and then (周末偶尔带个骑行团) is a habit, not a plan
_HABIT = re.compile(r"偶尔|经常|常常|往往|每周|每个|平时|一般|通常|有空")
_MAX_CHARS = 60  # the announcement as shown; a longer message is cut
# the same in English: Let's all meet at the park Saturday at 3, Team dinner next Friday, don't be late
GATHER_EN = re.compile(
    r"\b(?:let'?s|everyone|everybody|all\s+of\s+us|y'?all|together|meet(?:\s+up)?|meeting|gather|party|dinner"
    r"|lunch|brunch|hang\s*out|get-together|potluck|rsvp|sign\s+up|don't\s+forget|don't\s+be\s+late|see\s+you\s+all)\b",
    re.IGNORECASE,
)
_OFF_EN = re.compile(
    r"\b(?:cancell?ed|called\s+off|postponed|not\s+going|can't\s+(?:make|come|go)|won't\s+(?:make|come)|rain\s+check)\b",
    re.IGNORECASE,
)
_HABIT_EN = re.compile(
    r"\b(?:usually|often|sometimes|always|normally|occasionally|every\s+(?:day|week|month|weekend|morning|night|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day))\b",
    re.IGNORECASE,
)
_MAX_CHARS_EN = 160
_GROUP_EN = 3  # members besides the agent before an English line is read as the group's plan


def gatherings_in(said: Said, roster: Roster) -> list[EventDraft]:
    """The group plan the message announces, as one event (see the module docstring), or none."""
    if said.lang == "en":
        return _english(said, roster)
    message = said.message
    text = said.own.strip()
    coming = [span for span in said.spans if span.start > message.time and span.phrase in text]
    if said.lang != "zh" or not coming or said.speaker == roster.agent_name:
        return []
    if any(fact.predicate == "计划" for fact in said.facts):  # the speaker's own plan: plans.py
        return []
    if (
        not GATHER.search(text)
        or _OFF.search(text)
        or _HABIT.search(text)
        or "？" in text
        or "?" in text
        or QUESTION_END.search(text)
    ):
        return []
    shown = cut(text, _MAX_CHARS)
    for span in coming:
        if span.phrase in shown:
            shown = shown.replace(span.phrase, f"{span.phrase}（{label(span)}）", 1)
    return [_announced(said, roster, f"{said.speaker}说：{shown}", coming)]


def _english(said: Said, roster: Roster) -> list[EventDraft]:
    """An English group plan: ``Nora said: Let's all meet at the park Saturday (2024-11-16) at 3``."""
    message = said.message
    text = said.own.strip().replace("’", "'")
    coming = [span for span in said.spans if span.start > message.time and span.phrase.lower() in text.lower()]
    if not coming or said.speaker == roster.agent_name or any(f.predicate == "plans" for f in said.facts):
        return []  # the speaker's own plan: plans_en
    if sum(1 for name in roster.names if name != roster.agent_name) < _GROUP_EN:
        return []  # two people (LoCoMo's talks): "let's meet next week" is their exchange, told by its chunks
    if not GATHER_EN.search(text) or _OFF_EN.search(text) or _HABIT_EN.search(text) or "?" in text:
        return []
    return [_announced(said, roster, f"{said.speaker} said: {dated(cut(text, _MAX_CHARS_EN), coming, 'en')}", coming)]


def _announced(said: Said, roster: Roster, text: str, coming: list[TimeSpan]) -> EventDraft:
    """The announcement as an event: dated by its first time to come, with the members it names."""
    people, _ = mentions(said, roster)
    return EventDraft(
        text=text,
        sources=[said.message.id],
        time=coming[0].start,
        place=place_of(said),
        participants=list(dict.fromkeys([said.speaker, *people])),
        keywords=said.words[:6],
        importance=0.6,
        about=absolute(coming[0]),
    )
