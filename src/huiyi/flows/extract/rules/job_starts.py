"""A new job the speaker starts on a day still to come: 下周一去新公司上班, 下个月入职新公司, 下周去新单位报到,
我下周一入职字节.

It is a change of job, true from that day (木木换工作：下周一（2025-09-22）去新公司上班, keyword 工作, its ``time`` the
day), so 我现在在哪上班 finds it before the workplace held till then (``recall.slots``: the newest fact of work);
and it is a plan (``plans.plan_fact``), so 我下周有什么安排 finds it. The plan rules read one said with 我, not one
that leaves it out (下周一去新公司上班), which a private chat says is the speaker's: its first clause, or one right
after a clause that opens on the speaker (我辞职了，下周一去新公司上班; not 我老公辞职了，…). Nothing is closed: the
old job is held till that day, and the new workplace is a fact once named (新公司在滨江: ``new_jobs``).

A new employer is one said new (新公司, 新单位, 新东家, 新工作) or named after 入职 (入职字节); 下周一去网易上班 is as
often the week's commute as a new job (``job_moves``). A bare 入职 (明天就入职了) starts the job told before, most
often with its offer (拿到offer了！杭州那家游戏公司): a plan only, which leaves that job the newest fact of work.
Someone else's (我老公下周一去新公司上班), a question, a negation, a wish or a day gone (上周一去新公司报到了) match
nothing.

The time is said after 我 or before it, and must be a phrase ``find_time_phrases`` read, still to come (老公下周一
and 下周一不 are none):

    >>> [_START.match(c)["when"] for c in ("下周一去新公司上班", "我下个月入职新公司", "下周一我就要去新单位报到了")]
    ['下周一', '下个月', '下周一']
    >>> [_START.match(c)["when"] for c in ("我老公下周一去新公司上班", "下周一不去新公司上班了")]
    ['老公下周一', '下周一不']
    >>> _START.match("下周一去新公司面试") is None
    True
"""

from __future__ import annotations

from huiyi.flows.extract import EntityDraft, FactDraft
from huiyi.flows.extract.rules.condense import label
from huiyi.flows.extract.rules.job_moves import employer
from huiyi.flows.extract.rules.jokes import laughs_off
from huiyi.flows.extract.rules.new_jobs import job_fact
from huiyi.flows.extract.rules.patterns import ZH_LEAD, ZH_OWN_SUBJECT
from huiyi.flows.extract.rules.plans import plan_fact, to_come
from huiyi.flows.extract.rules.resigns import ZH_WORK_NEWS_LEAD
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said, stated
from huiyi.model import EntityType
from huiyi.patterns import lazy
from huiyi.text.times import TimeSpan

__all__ = ["job_start_in"]

_NEW = "新(?:的)?(?:公司|单位|东家|工作单位)"
_INTENT = "(?:就|也|便)?(?:要|得|会|准备|打算|计划|将)?(?:正式)?(?:开始)?"
# what is done that day: go to the new company to work or report, join it or a named employer, start the new job
_ACT = (
    rf"(?P<act>(?:去|到|在|进)(?P<new>{_NEW})(?:那边|那儿|那里)?(?:上班|报到|入职|工作|打卡)"
    rf"|(?:去)?入职(?:(?P<new2>{_NEW})|(?P<named>(?![了啦哦咯喔])[^，。！？的新]{{1,12}}?))?"
    r"|(?:去|到)(?P<named2>[^，。！？的新]{1,12}?)入职"
    r"|(?:开始|开启|去)(?:上)?(?P<work>新(?:的)?工作))"
)
# the time said (a phrase ``find_time_phrases`` read) after 我 or before it, maybe from (从下周一开始…)
_START = lazy(
    rf"{ZH_WORK_NEWS_LEAD}(?P<me>我)?(?:也|就)?从?(?P<when>[^，。！？我]{{1,16}}?)(?:开始|起)?(?P<me2>我)?(?:开始|起)?"
    rf"{_INTENT}{_ACT}(?:了|啦|哦|咯|喔|[!！~～])*$"
)
_PLAIN = ("公司", "单位")
_LONGEST = 40  # a longer clause tells more than a start
_WORDS = lazy(r"新(?:的)?(?:公司|单位|东家|工作)|入职")  # a clause without them is passed over unread


def job_start_in(said: Said, roster: Roster, private: bool) -> list[FactDraft]:
    """The change of job and the plan of a start at a new employer the message's speaker tells of (a plan the
    plan rules read already is not told again)."""
    if said.lang != "zh" or said.speaker == roster.agent_name:  # the persona's career is its own business
        return []
    coming = {span.phrase: span for span in reversed(to_come(said.spans, said.message.time))}  # the first of each
    if not coming:
        return []
    out: list[FactDraft] = []
    planned = {fact.time for fact in said.facts if fact.predicate == "计划"}  # by the plan rules (我下周一…)
    before = ""  # the clause before: one that opens on the speaker lets the next leave 我 out
    for at, clause in enumerate(stated(said)):
        mine = not at or (ZH_LEAD.match(before) is not None and ZH_OWN_SUBJECT.match(before) is None)
        before = clause
        if len(clause) > _LONGEST or not _WORDS.search(clause) or laughs_off(clause):
            continue
        found = _START.match(clause)
        span = coming.get(found["when"]) if found else None
        if found is None or span is None or not (found["me"] or found["me2"] or (private and mine)):
            continue
        employer_named = found["named"] or found["named2"] or ""
        if employer_named and employer_named not in _PLAIN and not employer(employer_named):  # 入职培训
            continue
        employer_named = "" if employer_named in _PLAIN else employer_named  # 去公司入职: not named
        after = clause[found.end("when") :].replace("我", "", 1) if found["me2"] else clause[found.end("when") :]
        since = "从" if clause[: found.start("when")].endswith("从") else ""
        shown = f"{since}{found['when']}（{label(span)}）{after}"  # 下周一（2025-09-22）去新公司上班
        # a bare 入职 (明天就入职了, 去公司入职) starts the job told before, with its offer: a plan, no news of a change
        if joined := employer_named or found["new"] or found["new2"] or found["work"]:
            out.append(_change(said, roster, joined, shown, span))
        if employer_named:
            said.entities.append(EntityDraft(employer_named, EntityType.SPECIFIC))
        if span.start not in planned:
            out.append(plan_fact(said, roster, found["act"], shown, span))
            planned.add(span.start)
    return out


def _change(said: Said, roster: Roster, employer_said: str, shown: str, span: TimeSpan) -> FactDraft:
    # true from that day, said before it (``fold.said_at``); a company named is a relation, 新公司 none
    named = not employer_said.startswith("新")
    description = f"{said.speaker}换工作：{shown}"
    return job_fact(said, roster, "换工作", employer_said, description, place=named, keyword="工作", since=span.start)
