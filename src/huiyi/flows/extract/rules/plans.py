"""Plans a speaker states about themself with a time still to come (issue #13): 我下周一飞大阪, 这周六我搬家,
月底上海马拉松我抽中了. A group asks about them by the person and the time (顾北辰这趟出国什么时候回,
NekoChan下礼拜六有什么安排), and a plan buried in a long message loses to any short line with the same
time word; as a fact about the speaker it is what the question names.

The fact's time is the time the plan is about (the first phrase still to come), as an event's is; the
time it was said is kept apart (``said_at``). Its text names the speaker and the date the phrase means:
``顾北辰下周一（2024-11-18）飞大阪``.

A clause with its own 我 is read; in a private chat, so is one that drops it, opening on the time and going
on with an intent (下周三要考驾照, 周末和闺蜜去露营): the chat says whose. Else a subject left out may be anyone's
(下周六杭州中到大雨, 明晚的事定了). Questions, reported speech (他说下周我…) and 我们 (a group's plan: whose?)
are skipped, as is a clock hour of today its sentence tells done (我晚上九点下班，刚到家: a routine's hour).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from huiyi.flows.extract import FactDraft
from huiyi.flows.extract.rules.condense import absolute, label
from huiyi.flows.extract.rules.gatherings import GATHER
from huiyi.flows.extract.rules.jokes import joke_end
from huiyi.flows.extract.rules.patterns import QUESTION_END, TENTATIVE, ZH_CLAUSE, ZH_HEDGE, ZH_REPORTED, ZH_UNREAL
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.model import EntityType, FactKind
from huiyi.text import tokens
from huiyi.text.day_turn import begun_for_the_speaker
from huiyi.text.outcomes_zh import sold_out
from huiyi.text.periods import midnight
from huiyi.text.times import TimeSpan

__all__ = ["NAMED_THING", "plan_fact", "plans_in", "to_come"]

# what a plan's 我 is followed by: a verb, or a word that leads to one (要去, 跟几个老伙计去, 打算)
_LEADS = re.compile(
    r"^(?:要|想|打算|准备|计划|会|得|还得|还要|也要|就要|先|再|跟|和|同|带|一个人|自己|去|飞|回|搬|出发|到|考|参加"
    r"|报|约|订)"
)
_ADVERBS = re.compile(r"^(?:还|也|都|就|又|已经|一定|真的|其实)+")  # 我还打算…, 我也要去…
_GIVEN_UP = re.compile(r"^(?:不(?!得不)|没)")  # 我周日不去爬山了, 我明天没空: nothing planned
# what a clause with no subject says after its time to be the speaker's intent: 要考驾照, 得去复查, 和闺蜜去露营
_DROPPED_LEADS = re.compile(r"^(?:还|也|就)?(?:要|得|打算|准备|计划)|^(?:跟|和|同)[^，,]{1,6}?(?:一起|去)")
_WEATHER = re.compile(r"[雨雪雾霾]|降温|升温|大风|刮风|台风|变天|气温|天气|放晴|转晴")  # 明天要下雨: nobody's plan
_MAX_CHARS = 40  # a longer clause is a story, not a plan
_CHAIN_CHARS = 30  # at most this much of the clauses that continue a plan
# a clause with a subject of its own ends the chain: a pronoun or a question word
_OWN_SUBJECT = re.compile(r"我|你|他|她|它|咱|大家|谁|什么|哪")
# the last part of a month or year (月底, 年末, 年前 till 春节): said while it runs, its days still to come are a
# plan's; so are a weekend's, a week's, a month's or a year's (这周末 said on Saturday, this week on a Wednesday,
# finish the course this month on the 10th, 今年要去日本): from tomorrow, not now:
# a plan dated after it was said keeps when it was said apart (fold.said_at) and reads as past once its days are
# over (recall.timerange.past_plan); one dated the moment it was said would never
_PERIOD_END = re.compile(
    r"[月年][底末]$|年前$|\bend\s+of\s+(?:the\s+|this\s+)?(?:week|month|year)$"
    r"|周末$|^(?:这|本|这个)(?:周|星期|礼拜|月)$|^今年$|^(?:this|the)\s+(?:week(?:end)?|month|year)$|^weekend$",
    re.IGNORECASE,
)
# words that open a line and say nothing of the plan: 对了我下个月搬去杭州 is 阿杰下个月搬去杭州, and 话说's 说
# reports no one else's words; nor does the conjunction that ties a clause to the one before (可我国庆去云南
# stored 阿杰可国庆…); cut whole or not at all (告诉你个秘密 left 个秘密)
_ASIDE = re.compile(
    r"^(?:(?:(?:哦|噢|啊)?对了|话说(?:回来)?|顺便说一下|顺便|说真的|说实话|老实说|(?:跟你|和你|告诉你)(?:说)?"
    r"(?:一?个(?:秘密|好消息|坏消息))?|其实|嗯+|哈+|唉|哎"
    r"|但是|可是|不过|而且|所以|然后|因为|于是|只是|但|可)[，,\s]*)+"
)
# what the tagger calls a thing done it has no verb for: 团建 (a), 生日派对, 年夜饭 (l), 春晚, 家长会 (j)
NAMED_THING = frozenset(("a", "l", "j"))
# …nor a noun: 聚餐, 婚礼, 同学聚会 (n), 自驾游 (i), said as the whole act (我周六聚餐) or before where it goes
_NOUNS = frozenset(("n", "vn", "nz"))
_THING_DONE = NAMED_THING | _NOUNS | {"i"}
_PARTICLES = re.compile(r"[啊呀呢哦哈啦嘛~～!！.。…]+$")
# a clock hour's plan told done: in its own clause, or by the clause after it that opens on the sequel done
_HOUR = timedelta(hours=1)
_LOOSE = timedelta(minutes=30)  # 八点半下班了 said at 20:20: a clock said loosely, not a plan ten minutes ahead
_DONE_OWN = re.compile(r"刚|已经|终于|了$")
# …an arrival or an end just done (刚到家, 已经回来了, 终于忙完): a step before the plan (刚下地铁) may lead to it
_DONE_NEXT = re.compile(r"(?:刚刚?|已经|终于)(?:到|回|[忙做弄写干]完|下班|下课|放学|收工|结束|躺)")
_INTENT = re.compile(r"要|打算|准备|计划|想|得|会")
_DURATION = re.compile(r"(?:[0-9]+|[一二两三四五六七八九十半几]+)个?(?:天|晚|夜|周|星期|礼拜|月|小时)")


def plans_in(said: Said, roster: Roster, private: bool = False) -> list[FactDraft]:
    """The plans the message's speaker states, one fact each (see the module docstring); in a ``private``
    chat, also those said without 我."""
    message = said.message
    coming = to_come(said.spans, message.time)
    # the agent's own lines echo what it was asked (好的，明晚六点半我会提醒): its plans are the persona's business
    if said.lang != "zh" or not coming or said.speaker == roster.agent_name:
        return []
    text = said.own
    out: list[FactDraft] = []
    firsts = _first_of_each(coming)  # once, not per clause: a message of many clauses and times was quadratic
    for match in ZH_CLAUSE.finditer(text, joke_end(text)):  # 我明天去北京，骗你的: no plan
        clause = match.group().strip()
        end = text[match.end() : match.end() + 1]
        if not clause or len(clause) > _MAX_CHARS or (end and end in "？?") or QUESTION_END.search(clause):
            continue
        # one span a phrase: a quote's 周六 beside one's own is the same day, dated once; a counted one is how
        # long (猫叫了一晚上), not when
        spans = [span for span in firsts if span.phrase in clause and not _counted(clause, span)]
        if not spans:
            continue
        at = _own_i(clause)
        if at is not None:
            before, after = _without_asides(clause[:at], spans[0].phrase), clause[at + 1 :]
        elif private and (dropped := _subject_dropped(clause, spans[0].phrase, roster)):
            before, after = "", dropped
        else:
            continue
        if ZH_REPORTED.search(before.replace(spans[0].phrase, "")) or ZH_UNREAL.search(after):  # a dream or a wish
            continue
        if sold_out(after):  # 我发现国庆的票都被抢光了: what is sold out is nobody's plan (English: rules.sold_out_en)
            continue
        # 我可能下周一飞大阪, 我下周一大概飞大阪: a plan said unsure is kept as tentative
        hedge = ZH_HEDGE.match(after)
        rest = after[hedge.end() if hedge else 0 :]
        timed = rest.startswith(spans[0].phrase)  # 我周六聚餐, not 周六我男朋友来
        rest = rest[len(spans[0].phrase) :] if timed else rest
        rest = rest.removeprefix("的时候")  # 我过年的时候去三亚: the time said as a while
        hedge = hedge or ZH_HEDGE.match(rest)
        rest = rest[len(hedge.group()) :] if hedge and rest.startswith(hedge.group()) else rest
        if not _acts(rest, timed) or _given_up_after(rest, spans[0].phrase):
            continue
        if _hour_done(rest, text[match.end() :], spans[0], message.time):
            continue
        shown = before + after + _chain(text, match.end(), roster, said.spans)
        # a phrase the chain adds is dated too, unless it is counted (住三个晚上: nights, not tonight)
        known = {span.phrase for span in spans}
        spans += [
            span for span in firsts if span.phrase not in known and span.phrase in shown and not _counted(shown, span)
        ]
        for span in spans:  # each phrase followed by the date it means, as in an event's text
            shown = shown.replace(span.phrase, f"{span.phrase}（{label(span)}）", 1)
        out.append(plan_fact(said, roster, rest.strip(), shown, spans[0], TENTATIVE if hedge else 0.6))
    return out


def plan_fact(said: Said, roster: Roster, obj: str, shown: str, span: TimeSpan, confidence: float = 0.6) -> FactDraft:
    """The speaker's plan as a fact: ``shown`` (its dates spelled out) after their name, dated by ``span``."""
    return FactDraft(
        subject=said.speaker,
        predicate="计划",
        object=obj,
        description=f"{said.speaker}{shown}",
        sources=[said.message.id],
        kind=FactKind.ATTRIBUTE,
        keyword="计划",
        subject_type=roster.entity_type(said.speaker) or EntityType.OBJECT,
        object_type=None,
        time=span.start,
        confidence=confidence,
        about=absolute(span),
    )


def _first_of_each(spans: list[TimeSpan]) -> list[TimeSpan]:
    """The first span of each phrase, in order."""
    first: dict[str, TimeSpan] = {}
    for span in spans:
        first.setdefault(span.phrase, span)
    return list(first.values())


def to_come(spans: list[TimeSpan], now: datetime) -> list[TimeSpan]:
    """The spans still to come: those that start after ``now``, and of a period's end, a weekend, a week, a month or
    a year already begun (月底 said on the 25th, 这周末 on Saturday) the days after today, when there are any left."""
    out: list[TimeSpan] = []
    for span in spans:
        tomorrow = midnight(now.date() + timedelta(days=1))
        if span.start > now or begun_for_the_speaker(span.start, span.end, now):  # 明天 said at 00:40
            out.append(span)
        elif now in span and _PERIOD_END.search(span.phrase) and tomorrow < span.end:
            out.append(TimeSpan(tomorrow, span.end, span.phrase))
    return out


def _chain(text: str, start: int, roster: Roster, spans: list[TimeSpan]) -> str:
    """The clauses after a plan's that carry on with no subject of their own and say when or how long,
    up to the sentence's end: Chinese drops a subject the clause before gave (我下周一飞大阪，自由行十天，
    月底回来). A clause that says neither is where the plan's talk turns to something else (搬去未来科技城
    那边，公司上个月搬过去了): the chain stops there."""
    out = ""
    at = start
    while at < len(text) and text[at] in "，,、" and len(out) < _CHAIN_CHARS:
        match = ZH_CLAUSE.match(text, at + 1)
        if match is None:
            break
        clause = match.group().strip()
        end = text[match.end() : match.end() + 1]
        names = [name for name in roster.all_names() if len(name) > 1 and name in clause]
        if not clause or _OWN_SUBJECT.search(clause) or names or (end and end in "？?"):
            break
        if not _DURATION.search(clause) and not any(span.phrase in clause for span in spans):
            break
        out += "，" + clause
        at = match.end()
    return out


def _given_up_after(rest: str, when: str) -> bool:
    """Whether what follows the time ``when``, later in ``rest``, is not doing (打算周六不去了, 跟她说国庆不回去了):
    the words before the time lead to it, so it tells nothing planned as a 不 right after 我 does."""
    at = rest.find(when)
    return at > 0 and _GIVEN_UP.match(_ADVERBS.sub("", rest[at + len(when) :].removeprefix("还是"))) is not None


def _hour_done(rest: str, after: str, span: TimeSpan, now: datetime) -> bool:
    """Whether a clock hour of today is no plan, its sentence telling what is done: in the plan's own clause
    (刚, 已经, 终于, a closing 了) when the hour is hardly ahead, a time said loosely of what just happened
    (我八点半终于下班了 at 20:20); or in the clause right after a plan stated bare, its sequel (我晚上九点下班，
    刚到家 at 20:03): what follows it is done, so the hour is when it usually is, none of today's to come. An
    intent keeps the plan (我九点要开会，刚到公司), as does a sequel to come (下班后去找你)."""
    if span.end - span.start > _HOUR or span.start.date() != now.date():
        return False
    if span.start < now + _LOOSE and _DONE_OWN.search(_PARTICLES.sub("", rest)):
        return True
    sequel = re.match(r"[，,、]\s*([^，,。！？!?；;\n]*)", after)
    return sequel is not None and _DONE_NEXT.match(sequel.group(1)) is not None and not _INTENT.search(rest)


def _subject_dropped(clause: str, when: str, roster: Roster) -> str:
    """The clause without its asides when it drops its subject, opens on the time ``when`` and goes on with
    an intent (下周三要考驾照, 周末和闺蜜去露营), else "": a clause with a subject or a name of its own, or
    the weather's (明天要下雨), is no dropped 我's."""
    rest = _without_asides(clause, when)
    names = [name for name in roster.all_names() if len(name) > 1 and name in rest]
    if not rest.startswith(when) or _OWN_SUBJECT.search(rest) or names or _WEATHER.search(rest):
        return ""
    return rest if _DROPPED_LEADS.match(rest[len(when) :]) else ""


def _counted(text: str, span: TimeSpan) -> bool:
    return re.search(rf"[0-9一二两三四五六七八九十几]个?{re.escape(span.phrase)}", text) is not None


def _own_i(clause: str) -> int | None:
    """Where the clause's own 我 is: not 我们, not 自我 or 忘我; the first one only."""
    for found in re.finditer("我", clause):
        at = found.start()
        if clause[at + 1 : at + 2] == "们" or (at and clause[at - 1] in "自忘唯本"):
            return None
        return at
    return None


def _acts(rest: str, timed: bool = False) -> bool:
    """Whether what follows 我 (and the time) starts with doing something: a verb or a word leading to one,
    or a thing done the tagger has no verb for (团建, 聚餐). A noun is one only ``timed``, the time between
    it and 我: 我周六聚餐, 我下周五公司团建, but 我男朋友 and 周六我同事来 are whose."""
    rest = _ADVERBS.sub("", rest.strip())
    if not rest or _GIVEN_UP.match(rest):
        return False
    if _LEADS.match(rest):
        return True
    tags = [(w, f) for w, f in tokens.tag(_PARTICLES.sub("", rest)) if w.strip()]
    if timed and len(tags) > 1 and tags[0][1] == "n":  # whose or where it is: 公司团建, 部门聚餐, 医院复查
        rest, tags = rest[len(tags[0][0]) :], tags[1:]
    if not tags:
        return False
    word, flag = tags[0]
    if flag.startswith("v"):
        return word not in ("是", "有", "觉得", "说")
    after = rest[len(word) :]  # 我下周五团建, 团建去千岛湖: the thing done is all the act, or where it goes follows
    # an adjective is how one is (我明天自由, 忙碌) unless it is a gathering the tagger took for one (团建)
    done = flag in _THING_DONE and (timed or flag not in _NOUNS) and (flag != "a" or GATHER.fullmatch(word) is not None)
    return len(word) > 1 and done and (not _PARTICLES.sub("", after) or bool(_LEADS.match(after)))


def _without_asides(before: str, when: str) -> str:
    """``before`` without the asides that open it (对了, 话说, 告诉你个秘密), when nothing or the time ``when``
    follows them; else as it is, since an aside cut from more words tears them (跟你说的那家店)."""
    aside = _ASIDE.match(before)
    rest = before[aside.end() :] if aside else before
    return rest if not rest or rest.startswith(when) else before
