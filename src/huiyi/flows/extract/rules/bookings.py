"""A trip booked, with a time still to come, is the speaker's plan: 云南的机票订好了，10月2号早上七点的飞机 is
木木10月2号早上七点（2025-10-02 07:00）的飞机去云南，机票已订好; 我订了国庆回家的高铁票, 酒店订好了，周五入住 too.

The plan rules read an intent said with a time (我下周一飞大阪); a booking says the trip as a thing done, its time
in the clause or the next one (…，10月2号早上七点的飞机). Only the speaker's: a clause that opens on someone else
(我妈的机票订好了, 帮我妈订了机票) and 我们 (whose?) are skipped, as are questions, wishes, a booking not done
(还没订) and one with no time to come (上周订好了机票 tells of the booking, not of when one goes).

    >>> [bool(_booked(c)) for c in ("云南的机票订好了", "我订了国庆回家的高铁票", "酒店也订好了", "机票还没订")]
    [True, True, True, False]
    >>> [bool(_booked(c)) for c in ("我妈的机票订好了", "帮我妈订了机票", "彩票买了", "我们的机票订好了")]
    [False, False, False, False]
"""

from __future__ import annotations

import re

from huiyi.flows.extract import FactDraft
from huiyi.flows.extract.rules.condense import label
from huiyi.flows.extract.rules.jokes import joke_end
from huiyi.flows.extract.rules.patterns import QUESTION_END, ZH_CLAUSE, ZH_REPORTED, ZH_UNREAL
from huiyi.flows.extract.rules.plans import plan_fact, to_come
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.patterns import lazy
from huiyi.text.kin import KIN_ALTERNATION
from huiyi.text.times import TimeSpan

__all__ = ["booked_in"]

_WHAT = r"(?P<what>飞机票|机票|火车票|高铁票|动车票|汽车票|大巴票|车票|船票|门票|酒店|民宿|(?<=的)票)"
# where to: 云南的机票, 去成都的高铁票, 国庆回家的票 (a time in it is read as the plan's, not the place)
_TO = r"(?:(?P<go>去|到|飞|回)?(?P<to>[^，的]{1,8}?)的)?"
_DONE = "(?:也|都|已经|终于|总算|刚刚?|早就)*"
_BOOKED = (
    lazy(rf"^(?:我)?{_TO}{_WHAT}{_DONE}(?:订|定|买|抢|约|预订|预定)(?:好|到)了?(?:[啦呀哦哈~～]|了)*$"),
    lazy(rf"^(?:我)?{_DONE}(?:订|定|买|抢|预订|预定)(?:好|到)?了{_TO}{_WHAT}(?:[啦呀哦哈~～]|了)*$"),
)
_VEHICLE = {"机票": "飞机", "飞机票": "飞机", "火车票": "火车", "高铁票": "高铁", "动车票": "动车", "船票": "船"}
_VEHICLE_SAID = lazy(r"的(?P<v>飞机|航班|高铁|动车|火车|大巴|船)")
# someone else's: 我妈的, 他的, 帮/给…订, 我们 (whose?)
# a person the 的 before 机票 may name: a pronoun, kin or a friend (not a place: 云南, 公园)
_WHOSE = lazy(rf"[他她你我们咱]|{KIN_ALTERNATION}")
_NOT_MINE = lazy(r"^(?:我的?)?(?:[他她你它]|[^，的]{1,4}的(?:机票|车票|票)|我们|咱们)|帮|给|替|还没|没有?|不")


def _booked(clause: str) -> re.Match[str] | None:
    if _NOT_MINE.search(clause) and not _place_only(clause):
        return None
    return next((m for pattern in _BOOKED if (m := pattern.match(clause))), None)


def _place_only(clause: str) -> bool:
    """Whether the "X的机票" a clause opens on names a place, not whose (云南的机票, not 我妈的机票)."""
    found = _BOOKED[0].match(clause)
    return bool(found and found["to"] and not _WHOSE.search(found["to"]))


def booked_in(said: Said, roster: Roster) -> list[FactDraft]:
    """The plans the message's speaker tells booked, one fact each, dated by the first time to come in the
    booking's clause or the next; none where a plan of the message already has that time."""
    if said.lang != "zh" or said.speaker == roster.agent_name:
        return []
    coming = to_come(said.spans, said.message.time)
    if not coming:
        return []
    text = said.own
    clauses = [(m.group().strip(), text[m.end() : m.end() + 1]) for m in ZH_CLAUSE.finditer(text, joke_end(text))]
    out: list[FactDraft] = []
    for i, (clause, end) in enumerate(clauses):
        if not clause or (end and end in "？?") or QUESTION_END.search(clause):
            continue
        if ZH_REPORTED.search(clause) or ZH_UNREAL.search(clause) or (found := _booked(clause)) is None:
            continue
        then = clauses[i + 1][0] if i + 1 < len(clauses) else ""
        span = _when(clause, coming) or _when(then, coming)
        if span is None or any(fact.predicate == "计划" and fact.time == span.start for fact in said.facts):
            continue
        out.append(_plan(said, roster, found, span, then if span.phrase in then else ""))
    return out


def _when(clause: str, coming: list[TimeSpan]) -> TimeSpan | None:
    return next((span for span in coming if span.phrase and span.phrase in clause), None)


def _plan(said: Said, roster: Roster, found: re.Match[str], span: TimeSpan, then: str) -> FactDraft:
    """木木10月2号早上七点（…）的飞机去云南，机票已订好: when, by what and where to, then what was booked."""
    what, to = found["what"], found["to"] or ""
    vehicle = _VEHICLE.get(what, "")
    if said_vehicle := _VEHICLE_SAID.search(then[then.find(span.phrase) :] if then else found.string):
        vehicle = said_vehicle["v"]
    go = found["go"] or ""
    if to and span.phrase in to:  # 国庆回家的票: the time is the trip's, and where to follows it
        to = to.replace(span.phrase, "")
        go, to = (to[:1], to[1:]) if not go and to[:1] in "去到飞回" else (go, to)
    trip = (f"的{vehicle}" if vehicle else "") + (f"{go or '去'}{to}" if to else "")
    when = f"{span.phrase}（{label(span)}）"
    shown = f"{when}{trip}，{what}已订好" if trip else f"{when}的{what}已订好"
    obj = (vehicle + (f"{go or '去'}{to}" if to else "")) or what
    return plan_fact(said, roster, obj, shown, span)
