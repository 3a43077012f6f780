"""A job change the speaker tells done: 我跳槽去网易了, 入职字节了, 我换工作了，现在在美团.

The new workplace is a fact as a move to 一家…公司 is (木木换到网易工作, 工作于: ``moves.moved`` then ends the
workplace held before); a change with no place named (我换工作了, 我跳槽了) ends it all the same, as a
leaving does (:mod:`~huiyi.flows.extract.rules.resigns`).

Only done, and only the speaker's: a wish or plan (我想跳槽去网易, 我下个月入职字节: the plan rules' 计划), a
question, a negation, someone else's (他跳槽去网易了) match no pattern. 我 may be left out, as people do when
telling their news (跳槽去网易了!), but only in the message's first clause or after one of 我: 小美呢，跳槽去网易了
is 小美's. Going to work changes nothing: 我去公司上班了 names no employer, and 我去网易上班了 is as often said
on the way to the job one has as of a new one, which would end the job it tells of.
"""

from __future__ import annotations

import re

from huiyi.flows.extract import CloseDraft, EntityDraft, FactDraft
from huiyi.flows.extract.rules.jokes import joke_end, laughs_off
from huiyi.flows.extract.rules.patterns import QUESTION_END, ZH_CLAUSE, ZH_PRONOUNS, ZH_REPORTED, ZH_UNREAL
from huiyi.flows.extract.rules.resigns import WORKPLACES, ZH_WORK_NEWS_LEAD
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.model import EntityType, FactKind
from huiyi.patterns import lazy

__all__ = ["employer", "joins_in"]

# words of a change done or of now; 下个月, 明天 make it a plan (no match)
_DONE = "今天|昨天|前天|上周|上个?月|刚刚?|刚才|已经|正式|终于|总算|也|现在|目前"
_ME = f"(?:我)?(?:{_DONE})*"
_OVER = "(?:了|[啦呀啊哦耶～~!！])*$"
_PLACE = r"(?P<o>(?!一家)[^，。！？的]{1,12}?)"
_JOINED = tuple(
    lazy(ZH_WORK_NEWS_LEAD + _ME + pattern)
    for pattern in (
        # 我跳槽去网易了, 跳槽到了字节, 我跳槽去网易上班了
        rf"跳槽(?:去|到)了?{_PLACE}(?:上班|工作)?了{_OVER}",
        rf"跳槽(?:去|到)了{_PLACE}(?:上班|工作)?{_OVER}",
        # 我入职字节了, 我已经入职腾讯了, 今天正式入职字节啦
        rf"入职了?{_PLACE}(?:了|啦){_OVER}",
    )
)
# 我换工作了, 我跳槽了, 我换了份工作: a change with no place, which the next clause may name
_CHANGED = lazy(ZH_WORK_NEWS_LEAD + _ME + rf"(?:换工作|跳槽|换了(?:一?份|个)?(?:新)?工作|跳了槽){_OVER}")
# …，现在在美团 / 去了网易 / 到了字节: the place the change was to
_NOW_AT = lazy(rf"^(?:我)?(?:现在|目前|如今)?(?:在|去了|到了|是在|进了){_PLACE}(?:上班|工作)?(?:了|啦|呢)?$")
_STILL_AT = lazy(r"^(?:我)?(?:还|仍然?|依然|依旧)(?:是|都)?在")
# going to work, not to a new employer: no name (公司, 单位) or one said by whose (我们公司, 这边)
_NO_EMPLOYER = re.compile(
    r"^(?:公司|单位|店里|厂里|医院|学校|办公室|工地|工作室|班上|家里|家|楼下|外地|外面|别的公司|其他公司|新公司)$"
    r"|^(?:我|你|他|她|咱|这|那|哪|别|其他|另)|什么|哪|啥"
)


def joins_in(said: Said, roster: Roster) -> tuple[list[FactDraft], list[CloseDraft]]:
    """The workplace the message's speaker says they moved to (facts), and the closes of a change with no
    workplace named (the named one closes by ``moves.moved``)."""
    if said.lang != "zh" or said.speaker == roster.agent_name:  # the persona's career is its own business
        return [], []
    place = _joined(said.own[joke_end(said.own) :])
    if place is None:
        return [], []
    if not place:
        return [], [
            CloseDraft(said.speaker, predicate, "", said.message.time, [said.message.id])
            for predicate in WORKPLACES["zh"]
        ]
    fact = FactDraft(
        subject=said.speaker,
        predicate="工作于",
        object=place,
        description=f"{said.speaker}换到{place}工作",  # 换到: moves.moved ends the workplace before
        sources=[said.message.id],
        kind=FactKind.RELATION,
        keyword="工作",
        subject_type=roster.entity_type(said.speaker) or EntityType.OBJECT,
        object_type=EntityType.SPECIFIC,
        time=said.message.time,
        confidence=0.7,
    )
    said.entities.append(EntityDraft(place, EntityType.SPECIFIC))
    return [fact], []


def _joined(text: str) -> str | None:
    """The workplace the first clause of a job change names, "" for a change with none, None for none."""
    changed = False  # the clause before told of a change with no place
    mine = True  # the clause before was the speaker's (or there was none): a clause without 我 is theirs
    for match in ZH_CLAUSE.finditer(text):
        clause = match.group().strip()
        end = text[match.end() : match.end() + 1]
        if not clause:
            continue
        if end in ("？", "?") or QUESTION_END.search(clause) or laughs_off(clause) or _unreal(clause):
            changed, mine = False, clause.startswith("我")
            continue
        if changed and _STILL_AT.match(clause):  # 我换了份工作，还在阿里: a new post at the same employer
            return None
        if changed and (found := _NOW_AT.match(clause)) and employer(found["o"]):
            return found["o"]
        if changed:
            return ""
        if mine or clause.startswith("我"):
            found = next((m for pattern in _JOINED if (m := pattern.match(clause))), None)
            if found is not None and employer(found["o"]):
                return found["o"]
            changed = _CHANGED.match(clause) is not None
        mine = clause.startswith("我")
    return "" if changed else None


def _unreal(clause: str) -> bool:
    return bool(ZH_REPORTED.search(clause) or ZH_UNREAL.search(clause))


# what follows 入职 when it is no employer: how long (入职三个月了, 快一年了), a day of it (第一天就被骂了), or a step
# of joining (体检做完了, 手续办好了)
_NO_JOINING = re.compile(
    r"^(?:[快满近才都已刚整第半]|[0-9一二两三四五六七八九十百几]+个?多?(?:月|年|天|周|星期|礼拜))"
    r"|[就被完好过]|体检|培训|手续|材料|报到|流程|面试|通知|以来|之后|以后"
    # …，去了趟北京出差, 现在在家休息: where one went or is, not a workplace
    r"|^[趟家]|休息|出差|旅游|旅行|度假|玩|躺|待业|找工作|[呆待]着"
)


def employer(place: str) -> bool:
    """Whether ``place``, said as where one works, names an employer or a place of work."""
    return place not in ZH_PRONOUNS and _NO_EMPLOYER.search(place) is None and _NO_JOINING.search(place) is None
