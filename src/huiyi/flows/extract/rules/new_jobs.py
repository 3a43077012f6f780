"""The speaker's new job told by what it is, not by a move: 新公司在滨江, 新公司是网易, 新工作是做产品经理, and a role
said right after it with no 我 (新公司在滨江，做产品经理; 我辞职了，下周一去新公司上班，当产品经理).

Where it is is a workplace (工作于, 木木换到滨江工作: ``moves.moved`` ends the one before, as a 跳槽 does) and the
role a job (职业是, 木木是产品经理), both one at a time (closes.ONE_AT_A_TIME), so 我现在在哪上班 finds the new one.
新 makes it the speaker's news of a change; the clause is the speaker's only while no clause before it in the
message opened on someone else (我闺蜜换工作了，新公司在滨江 is hers). A role needs a title
(:func:`~huiyi.flows.extract.rules.jobs.zh_job_title`: 做饭, 做项目 are none); questions, wishes and others'
words are not read.

    >>> [_place(c) for c in ("新公司在滨江", "我的新公司在滨江那边", "新公司是网易", "新公司在装修")]
    ['滨江', '滨江', '网易', None]
    >>> [_role(c, True) for c in ("做产品经理", "当产品经理了", "新工作是做产品经理", "做项目")]
    ['产品经理', '产品经理', '产品经理', None]
    >>> _role("做产品经理", False), _role("新公司是网易", True)
    (None, None)
"""

from __future__ import annotations

from datetime import datetime

from huiyi.flows.extract import EntityDraft, FactDraft
from huiyi.flows.extract.rules.job_moves import employer
from huiyi.flows.extract.rules.jobs import zh_job_title
from huiyi.flows.extract.rules.patterns import ZH_REPORTED, ZH_UNREAL
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said, stated
from huiyi.model import EntityType, FactKind
from huiyi.patterns import lazy
from huiyi.text.kin import KIN_ALTERNATION

__all__ = ["job_fact", "new_job_in"]

_NEW = "新(?:公司|单位|东家|工作|岗位|职位|工作单位)"
_OPEN = rf"^(?:我的?)?(?:这家|那家|这个|那个)?(?P<new>{_NEW})"
_OVER = "(?:了|呢|啦|呀|哦|哈)*$"
# 新公司在滨江(那边), 新公司是网易: where or which (a 新工作 or 新岗位 is said of by its role, not its place)
_AT = lazy(rf"{_OPEN}(?:就|也)?(?:是)?在(?P<o>[^，。！？的]{{1,10}}?)(?:那边|那儿|那里|附近|这边)?{_OVER}")
_IS = lazy(rf"{_OPEN}(?:就)?是(?P<o>[^，。！？的]{{1,10}}?){_OVER}")
# 新工作是做产品经理, 新岗位是产品经理; after a new job's clause, 做产品经理, 在那边当产品经理
_ROLE_OF_NEW = lazy(rf"{_OPEN}(?:就)?是(?:做|当)?(?P<o>[^，。！？]{{1,10}}?){_OVER}")
_ROLE = lazy(
    rf"^(?:我)?(?:在那边?|在那儿|在那里|在新公司|去了?)?(?:是)?(?:做|当|担任)(?P<o>[^，。！？]{{1,10}}?){_OVER}"
)
# a clause that opens on someone else: what follows is theirs (我闺蜜换工作了，新公司在滨江)
_SOMEONE_ELSE = lazy(
    rf"^(?:他|她|你|您|ta|TA|人家|别人|我的?(?:{KIN_ALTERNATION}))"  # kin words hold 闺蜜, 同事, 男朋友…
)
_NEW_SAID = lazy(_NEW)
_NOT_A_PLACE = lazy(r"装修|招人|加班|试用|面试|培训|搬|忙|上市|融资")


def _place(clause: str) -> str | None:
    """The workplace a new job's clause names (新公司在滨江 → 滨江), or None."""
    found = _AT.match(clause) or _IS.match(clause)
    if found is None or found["new"] in ("新工作", "新岗位", "新职位") or zh_job_title(found["o"]):
        return None
    place = found["o"]
    return place if employer(place) and not _NOT_A_PLACE.search(place) else None


def _role(clause: str, after_new: bool) -> str | None:
    """The job a clause names for the new one: said with 新工作/新岗位…是, or with 做/当 right after a clause of
    the new job (``after_new``)."""
    found = _ROLE_OF_NEW.match(clause) or (_ROLE.match(clause) if after_new else None)
    return found["o"] if found and zh_job_title(found["o"]) else None


def new_job_in(said: Said, roster: Roster) -> list[FactDraft]:
    """The workplace and role of the speaker's new job that ``said`` tells (none already read from it)."""
    if said.lang != "zh" or said.speaker == roster.agent_name:  # the persona's career is its own business
        return []
    out: list[FactDraft] = []
    after_new = False  # the clause before told of the new job
    others = [name for name in roster.all_names() if name and name != said.speaker]
    for clause in stated(said):
        if _SOMEONE_ELSE.match(clause) or clause.startswith(tuple(others)):
            break
        if ZH_REPORTED.search(clause) or ZH_UNREAL.search(clause):
            after_new = False
            continue
        if place := _place(clause):
            out.append(_fact(said, roster, "工作于", place, f"{said.speaker}换到{place}工作"))  # 换到: moves.moved
            said.entities.append(EntityDraft(place, EntityType.SPECIFIC))
        elif role := _role(clause, after_new):
            out.append(_fact(said, roster, "职业是", role, f"{said.speaker}是{role}"))
        after_new = _NEW_SAID.search(clause) is not None
    known = {(f.predicate, f.object) for f in said.facts}
    return [fact for fact in out if (fact.predicate, fact.object) not in known]


def _fact(said: Said, roster: Roster, predicate: str, obj: str, description: str) -> FactDraft:
    return job_fact(said, roster, predicate, obj, description, place=predicate == "工作于", keyword="工作")


def job_fact(
    said: Said,
    roster: Roster,
    predicate: str,
    obj: str,
    description: str,
    *,
    place: bool,
    keyword: str,
    since: datetime | None = None,
) -> FactDraft:
    """The speaker's new workplace (``place``: a relation to it) or role, as said in this message; true from
    ``since`` (a start to come) or from when it was said."""
    return FactDraft(
        subject=said.speaker,
        predicate=predicate,
        object=obj,
        description=description,
        sources=[said.message.id],
        kind=FactKind.RELATION if place else FactKind.ATTRIBUTE,
        keyword=keyword,
        subject_type=roster.entity_type(said.speaker) or EntityType.OBJECT,
        object_type=EntityType.SPECIFIC if place else None,
        time=since or said.message.time,
        confidence=0.7,
    )
