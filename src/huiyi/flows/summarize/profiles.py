"""Profiles of group members, extractive (seed 002 §3.11): per group, and global in the person's scope.

A profile rolls: its ``SummaryData.days`` keeps each day's contribution (the last ``profile_days``), so
running a day again replaces that day's part and nothing else. Per group, a member's profile holds
what they said of themselves, what others said of them (each with who said it), their topics and how
much they spoke. The member's global profile, in their own person scope, holds their self-statements
only (:meth:`~huiyi.flows.summarize.material.DayMaterial.is_self_statement`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from huiyi.config.summarize import SummaryConfig
from huiyi.flows.summarize.material import DayMaterial, Draft
from huiyi.flows.summarize.rules import IMPORTANCE, cap, ranked_words, topics_of
from huiyi.flows.summarize.words import WORDS, clip, join
from huiyi.model import MemoryItem, Scope, SummaryData, SummaryKind

__all__ = ["global_profiles", "group_profiles"]


def _keep_days(days: dict[str, Any], limit: int) -> dict[str, Any]:
    return {key: days[key] for key in sorted(days)[-limit:]}


def _gather(days: dict[str, Any], part: str, limit: int) -> list[dict[str, Any]]:
    """Items of ``part`` across days, the latest day first, one per text."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for key in sorted(days, reverse=True):
        for item in days[key].get(part, []):
            if item["text"] not in seen:
                seen.add(item["text"])
                out.append(item)
    return out[:limit]


def group_profiles(
    m: DayMaterial, previous: dict[str, MemoryItem | None], cfg: SummaryConfig
) -> list[tuple[str, Draft]]:
    """(member, profile) for each member who spoke in the group that day; ``previous`` holds their stored
    profiles in this group, whose day-by-day contributions are kept and today's replaced."""
    if m.person is not None:
        return []
    lang, w = m.language, WORDS[m.language]
    speakers = {x.id: x.speaker for x in m.messages}
    out: list[tuple[str, Draft]] = []
    for member in m.members():
        own = m.said_by(member)
        self_facts, heard = [], []
        for fact in sorted(m.about(member), key=lambda f: (f.said_at, f.text)):
            if m.is_self_statement(fact, member):
                self_facts.append({"text": clip(fact.text, cfg.item_chars), "sources": fact.sources})
            else:
                by = [m.name(speakers[s]) for s in fact.sources if s in speakers and speakers[s] != member]
                heard.append(
                    {"text": clip(fact.text, cfg.item_chars), "by": list(dict.fromkeys(by)), "sources": fact.sources}
                )
        fact_ids = [f.id for f in sorted(m.about(member), key=lambda f: (f.said_at, f.text)) if f.id]
        today = {
            "self": self_facts,
            "heard": heard,
            "topics": topics_of(m, [x.text for x in own], 3),
            "messages": len(own),
            "sources": [x.id for x in own] + fact_ids,
        }
        before = previous.get(member)
        days = _days_of(before)
        days[m.period] = today
        days = _keep_days(days, cfg.profile_days)
        name = m.name(member)
        parts = []
        mine = _gather(days, "self", cfg.profile_items)
        if mine:
            parts.append(w["self"].format(items=join((i["text"] for i in mine), lang, "list")))
        said = _gather(days, "heard", cfg.profile_items)
        if said:
            items = (w["heard_item"].format(by=join(i["by"], lang) or w["someone"], text=i["text"]) for i in said)
            parts.append(w["heard"].format(items=join(items, lang, "list")))
        topics = ranked_words((d["topics"] for _, d in sorted(days.items(), reverse=True)), 5)
        if topics:
            parts.append(w["talks"].format(topics=join(topics, lang)))
        total = sum(int(d["messages"]) for d in days.values())
        parts.append(w["activity"].format(first=min(days), n=total))
        last = max(days)
        draft = Draft(
            kind=SummaryKind.PROFILE,
            key=member,
            scope=m.scope,
            text=w["profile"].format(name=name, space=m.scope.key, parts=w["parts"].join(parts)),
            time=datetime.fromisoformat(last),
            sources=cap((s for _, d in sorted(days.items()) for s in d["sources"]), cfg.max_sources),
            keywords=topics,
            participants=[name],
            importance=IMPORTANCE[SummaryKind.PROFILE],
            summary=SummaryData(
                kind=SummaryKind.PROFILE,
                period=last,
                person=member,
                space=m.space,
                days=days,
            ),
        )
        out.append((member, draft))
    return out


def global_profiles(
    m: DayMaterial, previous: dict[str, MemoryItem | None], cfg: SummaryConfig
) -> list[tuple[str, Draft | None]]:
    """(member, profile in their person scope) for each member whose global profile changes: one who made
    self-statements that day, or whose stored profile holds this group and day (a re-run). None: the
    profile has nothing left and is to be deleted. Only self-statements cross (``is_self_statement``)."""
    if m.person is not None:
        return []
    lang, w = m.language, WORDS[m.language]
    key = f"{m.period}|{m.space}"
    out: list[tuple[str, Draft | None]] = []
    for member in m.members():
        mine = [
            {"text": clip(f.text, cfg.item_chars), "sources": f.sources}
            for f in sorted(m.about(member), key=lambda f: (f.said_at, f.text))
            if m.is_self_statement(f, member)
        ]
        before = previous.get(member)
        days = _days_of(before)
        if not mine and key not in days:
            continue
        if mine:
            days[key] = {"self": mine, "sources": [s for i in mine for s in i["sources"]]}
        else:
            del days[key]
        days = _keep_days(days, cfg.profile_days)
        items = _gather(days, "self", cfg.profile_items)
        if not items:
            out.append((member, None))
            continue
        name = m.name(member)
        last = max(k.split("|", 1)[0] for k in days)
        scope = Scope.of_person(m.agent, member)
        draft = Draft(
            kind=SummaryKind.PROFILE,
            key=member,
            scope=scope,
            text=w["global_profile"].format(name=name, items=join((i["text"] for i in items), lang, "list")),
            time=datetime.fromisoformat(last),
            sources=cap((s for _, d in sorted(days.items()) for s in d["sources"]), cfg.max_sources),
            keywords=[],
            participants=[name],
            importance=IMPORTANCE[SummaryKind.PROFILE],
            summary=SummaryData(
                kind=SummaryKind.PROFILE,
                period=last,
                person=member,
                space=None,
                days=days,
            ),
        )
        out.append((member, draft))
    return out


def _days_of(before: MemoryItem | None) -> dict[str, Any]:
    """The day-by-day contributions a stored profile rolls, by day."""
    days = before.summary.days if before is not None else None
    return dict(days) if isinstance(days, dict) else {}
