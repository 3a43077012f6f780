"""A job the speaker left: 我辞职了, 我今天从网易离职了, 我把工作辞了, 我被裁员了, 我失业了, I quit my job, I resigned
from Acme, I got laid off.

The leaving is a fact of its own (木木辞职了, 木木从网易离职了: keyword 工作 / work, so a question about the
asker's job now finds it before the old workplace: ``recall.slots``), and it closes the speaker's open
workplace facts (木木在网易工作: ``valid_to`` = when it was said), as a move closes the old home: those naming
the place left where one is named (从网易离职), else every one. A trade is kept: 木木是护士 is still so. A
retirement (我退休了, 我退休两年了) ends the trade too: its fact is the job now (职业是 退休, 木木退休了), which
ends 木木是老师 as a new job would (closes.ONE_AT_A_TIME); 我快退休了 and 我明年退休 are not yet.

Only the speaker's own job, said with 我 or opening with its day (终于辞职了): a bare 辞职了 answers 小美呢？ as
often, and I quit may be a game's. A clause with a subject of its own (他辞职了, 小美被裁了), a question (你辞职了吗),
a wish or plan (我想辞职, 我打算下个月离职, 要是能辞职就好了), a near miss (差点被裁) or a negation (我没辞职) matches
no pattern: each is read from the clause's start to its end; a clause laughter closes is no leaving.
"""

from __future__ import annotations

import re

from huiyi.flows.extract import CloseDraft, FactDraft
from huiyi.flows.extract.rules.en_clauses import EN_AND_I
from huiyi.flows.extract.rules.jokes import joke_end, laughs_off
from huiyi.flows.extract.rules.patterns import QUESTION_END, ZH_CLAUSE, ZH_REPORTED, ZH_UNREAL, en_rule
from huiyi.flows.extract.rules.roster import Roster
from huiyi.flows.extract.rules.said import Said
from huiyi.model import EntityType, FactKind
from huiyi.patterns import lazy

__all__ = ["WORKPLACES", "ZH_WORK_NEWS_LEAD", "resigns_in"]

# the workplace facts a leaving ends (rules.patterns: 木木在网易工作, Mia works at Acme); not 职业是 / works as
WORKPLACES = {"zh": ("工作于", "任职于", "就职于"), "en": ("works at",)}

# what opens a line of news about one's job and says nothing of it (job_moves reads the same news)
ZH_WORK_NEWS_LEAD = (
    "^(?:其实|但是|不过|可是|而且|因为|所以|对了|说实话|老实说|告诉你们?|跟你说|唉|哎|嗯|是的|对|好消息)?"
)
_ZH_DAYS = (
    "今天|昨天|前天|昨晚|前几天|上周[一二三四五六日天]?|上个?月|上礼拜|上星期|去年|"
    "刚刚?|刚才|终于|总算|正式|上午|下午|中午"
)
_ZH_WHEN = f"(?:{_ZH_DAYS}|已经|还是|彻底|早就|也|现在)*"
# the speaker: 我, or a clause that opens with its day (终于辞职了!); a bare 辞职了 answers 小美呢？ as often
_ZH_ME = f"(?:我|(?={_ZH_DAYS})){_ZH_WHEN}"
# 辞职两个月了: how long ago it was
_ZH_SINCE = r"(?:(?:快|都|已经)?(?:[一二两三四五六七八九十半几]+|\d+)个?多?(?:天|周|星期|礼拜|月|年)多?)?"
_ZH_OVER = "(?:了|[啦呀啊哦嘛喔耶呜～~])*$"
_ZH_FROM = rf"(?:从(?P<o>[^，。！？从]{{1,12}}?){_ZH_WHEN})?"
_ZH_LEFT = (
    # 我辞职了, 我今天从网易离职了, 我裸辞了, 终于辞职了, 我辞职两个月了
    rf"{_ZH_ME}{_ZH_FROM}(?P<v>辞职|离职|裸辞|辞工){_ZH_SINCE}了{_ZH_OVER}",
    # 我把工作辞了, 我把网易的工作辞了
    rf"{_ZH_ME}把(?:(?P<o2>[^，。！？]{{1,10}}?)的)?(?:这份|那份)?工作(?:给)?辞(?:掉)?了{_ZH_OVER}",
    # 我辞掉了工作, 我辞了网易的工作
    rf"{_ZH_ME}辞(?:掉)?了(?:(?P<o3>[^，。！？]{{1,10}}?)的)?(?:这份|那份)?工作{_ZH_OVER}",
    # 我被裁了, 我被公司裁员了, 我被开除了, 我被优化了
    rf"{_ZH_ME}被(?:公司|老板|单位|领导)?(?P<v>裁员|裁|辞退|开除|炒鱿鱼|炒|优化)(?:掉)?了{_ZH_OVER}",
    # 我失业了 (not 没工作了: a quiet day at work says that too)
    rf"{_ZH_ME}(?P<v>失业){_ZH_SINCE}了{_ZH_OVER}",
    # 我退休了, 我去年就退休了, 我从学校退休两年了
    rf"{_ZH_ME}{_ZH_FROM}(?:就)?(?P<v>退休){_ZH_SINCE}了{_ZH_OVER}",
)
_ZH_RETIRED = "退休了"
_LONGEST = 40  # characters of a clause that says a job was left: a longer one says more than that
_ZH_RULES = tuple(lazy(ZH_WORK_NEWS_LEAD + pattern) for pattern in _ZH_LEFT)
_ZH_SHOWN = {
    **dict.fromkeys(("裁", "裁员", "优化"), "被裁员了"),
    **{"辞退": "被辞退了", "开除": "被开除了", "炒鱿鱼": "被炒鱿鱼了", "炒": "被炒鱿鱼了", "失业": "失业了"},
    "退休": _ZH_RETIRED,
}

_EN_SO = r"(?:just\s+|finally\s+|officially\s+|recently\s+|actually\s+)*"
_EN_FROM = r"(?:\s+(?:from|at)\s+(?P<o>[\w&.' -]{1,30}?))?"
_EN_WHEN = r"(?:\s+(?:today|yesterday|recently|last\s+\w+|this\s+\w+|\w+\s+\w+\s+ago))?"
_EN_ARTICLE = lazy(r"^(?:the|a|an|my)\s+", re.IGNORECASE)
_EN_RULES = tuple(
    en_rule(pattern + _EN_WHEN + r"$")
    for pattern in (
        rf"I\s+(?:have\s+|'ve\s+)?{_EN_SO}(?:quit|left)\s+my\s+job{_EN_FROM}",
        rf"I\s+(?:have\s+|'ve\s+)?{_EN_SO}resigned{_EN_FROM}",  # not a bare I quit: a game, a habit
        rf"I\s+(?:have\s+|'ve\s+)?{_EN_SO}(?:got|was|been|have\s+been)\s+(?P<v>laid\s+off|fired|let\s+go){_EN_FROM}",
        rf"I\s+(?:have\s+|'ve\s+)?{_EN_SO}lost\s+my\s+job{_EN_FROM}",
        rf"I(?:'m|\s+am)\s+{_EN_SO}(?:unemployed|out\s+of\s+(?:a\s+)?(?:job|work))(?:\s+now)?",
    )
)


def resigns_in(said: Said, roster: Roster) -> tuple[list[FactDraft], list[CloseDraft]]:
    """The job the message's speaker says they left (facts), and the workplace facts that closes."""
    if said.speaker == roster.agent_name:  # the persona's career is its own business
        return [], []
    text = said.own
    found = _english(text) if said.lang == "en" else _chinese(text[joke_end(text) :])
    if found is None:
        # I quit Blue Bottle: no fact (one quits Facebook or Coke too), but the workplace it names is left
        named = _quit_named(text) if said.lang == "en" else ""
        return [], [CloseDraft(said.speaker, "works at", named, said.message.time, [said.message.id])] if named else []
    place, shown = found
    lang = "en" if said.lang == "en" else "zh"
    closes = [
        CloseDraft(said.speaker, predicate, place, said.message.time, [said.message.id])
        for predicate in WORKPLACES[lang]
    ]
    retired = shown == _ZH_RETIRED  # the job now: 职业是 退休 ends 木木是老师 (closes.ONE_AT_A_TIME)
    fact = FactDraft(
        subject=said.speaker,
        predicate="职业是" if retired else "left job" if lang == "en" else "离职",
        object="退休" if retired else place or ("job" if lang == "en" else "工作"),
        description=f"{said.speaker} {shown}" if lang == "en" else f"{said.speaker}{shown}",
        sources=[said.message.id],
        kind=FactKind.ATTRIBUTE,
        keyword="work" if lang == "en" else "工作",
        subject_type=roster.entity_type(said.speaker) or EntityType.OBJECT,
        object_type=EntityType.SPECIFIC if place and not retired else None,
        time=said.message.time,
        confidence=0.7,
    )
    return [fact], closes


def _chinese(text: str) -> tuple[str, str] | None:
    """(the place left or "", how it reads after the speaker's name) of the first clause that leaves a job."""
    for match in ZH_CLAUSE.finditer(text):
        clause = match.group().strip()
        end = text[match.end() : match.end() + 1]
        if not clause or len(clause) > _LONGEST or end in ("？", "?") or QUESTION_END.search(clause):
            continue
        if laughs_off(clause):
            continue
        if ZH_REPORTED.search(clause) or ZH_UNREAL.search(clause):
            continue
        found = next((m for pattern in _ZH_RULES if (m := pattern.match(clause))), None)
        if found is None:
            continue
        groups = found.groupdict()
        place = (groups.get("o") or groups.get("o2") or groups.get("o3") or "").strip()
        verb = groups.get("v") or "辞职"
        if verb in _ZH_SHOWN:
            return "", _ZH_SHOWN[verb]
        return place, (f"从{place}" if place else "") + ("辞职了" if verb in ("辞职", "裸辞", "辞工") else "离职了")
    return None


_EN_QUIT_NAMED = en_rule(
    rf"I\s+(?:have\s+|'ve\s+)?{_EN_SO}quit\s+(?P<o>(?-i:[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){{0,3}})){_EN_WHEN}$"
)


def _quit_named(text: str) -> str:
    """The name the speaker says they quit (I quit Blue Bottle today), "" if none."""
    for part in re.split(r"[.!;,\n]+|(?<=\?)", text.replace("’", "'")):
        if (found := _EN_QUIT_NAMED.match(part.strip())) is not None:
            return found["o"]
    return ""


_EN_IF = lazy(r"\s*(?:if|when|whenever|unless|once|in\s+case|suppose|what\s+if|even\s+if)\b", re.IGNORECASE)


def _english(text: str) -> tuple[str, str] | None:
    sentences = re.split(r"[.!;\n]+|(?<=\?)", text.replace("’", "'"))
    # I quit my job, I'm starting at a new company on Monday: the leaving is a clause of its own; but what follows
    # a condition is no news (If they find out, I'm out of a job)
    for part in (
        part
        for sentence in sentences
        if not sentence.strip().endswith("?")
        for part in (EN_AND_I.split(sentence)[:1] if _EN_IF.match(sentence) else EN_AND_I.split(sentence))
    ):
        clause = part.strip(" ,")
        if not clause:
            continue
        found = next((m for pattern in _EN_RULES if (m := pattern.match(clause))), None)
        if found is None:
            continue
        named = (found.groupdict().get("o") or "").strip()
        how = found.groupdict().get("v")
        shown = f"was {' '.join(how.split())}" if how else "left the job"
        # the bakery: the place a workplace fact names (a bakery called Sugar Loaf), without its article
        return _EN_ARTICLE.sub("", named), f"{shown} at {named}" if named else shown
    return None
