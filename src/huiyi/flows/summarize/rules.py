"""Summaries without an LLM: extractive, deterministic, readable.

A day's material (:class:`DayMaterial`) is the day's messages, the events and facts told that day
(stored ones, plus transient readings of messages no stored event cites), and who is who. From it:

* **daily** — ``2024-09-01：木木聊到驾照、科目二。木木说：…；…。记下：…。`` The topics are the TF-IDF
  keywords of what the people (not the agent) said, a word of the scope's other days weighing less; the
  highlights are the day's ``daily_items`` weightiest events (importance, more for words new to the
  person's days, half for the agent's lines alone: :mod:`huiyi.flows.substance`; then strength, then
  the latest told), shown in the order they were told; the facts are the ``daily_facts`` most
  important ones the highlights do not already cite.
* **global** — built from the latest ``global_days`` dailies: the topics most days share, then the
  ``global_items`` most important highlights of those days, each with its date.
* **daily / global personality** (private chats) — moods read from a small lexicon, facts about the
  person (traits), topics, and a reply strategy for the dominant mood (seed 003's 回复策略).
* **profiles** (groups; :mod:`huiyi.flows.summarize.profiles`) — per member who spoke: what they said
  of themselves, what others said of them (each with who said it), their topics and how much they
  spoke; rolling over ``profile_days`` days. The member's **global** profile (person scope) takes
  self-statements only; see ``DayMaterial.is_self_statement``.
* **diary** — the agent's first-person account of the day: its name becomes 我 / I.

Every function returns a :class:`Draft` (or None when there is nothing to say); ids, vectors and the
LLM's rewording are the orchestrator's business.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from huiyi.config.summarize import SummaryConfig
from huiyi.flows.substance import agent_alone, weight
from huiyi.flows.summarize.material import DayMaterial, Draft, Highlight, Said
from huiyi.flows.summarize.words import (
    WEEKDAYS,
    WORDS,
    clip,
    first_person,
    join,
    moods,
    strategy_for,
    top_moods,
    who_of,
)
from huiyi.model import MemoryItem, Scope, SummaryData, SummaryKind
from huiyi.text.keywords import keywords

__all__ = [
    "IMPORTANCE",
    "cap",
    "daily",
    "daily_personality",
    "diary",
    "global_personality",
    "global_summary",
    "ranked_words",
    "topics_of",
]

IMPORTANCE = {
    SummaryKind.GLOBAL: 0.7,
    SummaryKind.DAILY_PERSONALITY: 0.5,
    SummaryKind.GLOBAL_PERSONALITY: 0.7,
    SummaryKind.PROFILE: 0.6,
    SummaryKind.DIARY: 0.4,
}


def topics_of(m: DayMaterial, texts: Sequence[str], limit: int) -> list[str]:
    """The day's TF-IDF keywords, a word said on the scope's other days weighing less (有点咸 every day)."""
    if not texts:
        return []

    def rarity(word: str) -> float:
        return m.days.rarity(word, m.day)

    return keywords(list(texts), drop=m.all_names(), names=m.things, limit=limit, weigh=rarity)


def cap(ids: Iterable[str], limit: int) -> list[str]:
    unique = list(dict.fromkeys(ids))
    return unique[-limit:] if limit > 0 else unique


def _highlights(m: DayMaterial, cfg: SummaryConfig) -> list[Highlight]:
    """The day's weightiest events (:mod:`huiyi.flows.substance`: new words over routine ones, the person
    over the agent's lines alone), then the strongest, then the latest; in the order they were told."""
    agent = m.name(m.agent)
    others = [name for name in m.all_names() if name not in (agent, m.agent)]
    by_agent = {x.id: x.role == "assistant" for x in m.messages}

    def rank(h: Highlight) -> tuple[float, tuple[float, float, str]]:
        cited = [by_agent[source] for source in h.sources if source in by_agent]
        weighed = weight(h.importance, m.days.novelty(h.text, m.day), agent_alone(h.text, agent, others, cited))
        return -round(weighed, 6), (-h.strength, -h.said_at.timestamp(), h.text)

    chosen: list[Highlight] = []
    for event in sorted(m.events, key=rank):
        if len(chosen) >= cfg.daily_items:
            break
        # a group's plan event repeats its line of the talk's event: told once (聚餐定在周五…；聚餐定在周五…)
        if any(_within(event, other) for other in chosen):
            continue
        chosen = [other for other in chosen if not _within(other, event)] + [event]
    return sorted(chosen, key=lambda h: (h.said_at, h.text))


def _within(small: Highlight, large: Highlight) -> bool:
    """Whether ``large`` tells all ``small`` does: its text and its sources."""
    core = small.text.strip().rstrip("。.！!")
    return bool(core) and core in large.text and set(small.sources) <= set(large.sources)


def _new_facts(m: DayMaterial, chosen: Sequence[Highlight], cfg: SummaryConfig) -> list[Said]:
    told = {s for h in chosen for s in h.sources}
    fresh = [f for f in m.facts if not (f.sources and set(f.sources) <= told)]
    picked = sorted(fresh, key=Said.rank)[: cfg.daily_facts]
    return sorted(picked, key=lambda f: (f.said_at, f.text))


# ---------------------------------------------------------------------------------------- daily and global


def daily(m: DayMaterial, cfg: SummaryConfig) -> Draft | None:
    if not m.messages and not m.events:
        return None
    w, lang = WORDS[m.language], m.language
    people = [m.name(s) for s in m.speakers()] or [m.name(m.agent)]
    texts = [x.text for x in m.messages if x.speaker != m.agent] or [h.text for h in m.events]
    topics = topics_of(m, texts, cfg.keywords)
    chosen = _highlights(m, cfg)
    facts = _new_facts(m, chosen, cfg)
    who = who_of(people, lang)
    parts = [
        w["daily"].format(day=m.period, who=who, topics=join(topics, lang))
        if topics
        else w["daily_plain"].format(day=m.period, who=who)
    ]
    if chosen:
        parts.append(join((clip(h.text, cfg.item_chars) for h in chosen), lang, "list") + w["end"])
    if facts:
        parts.append(w["noted"].format(facts=join((clip(f.text, cfg.item_chars) for f in facts), lang, "list")))
    sources = [h.id for h in chosen if h.id] + [f.id for f in facts if f.id]
    sources += [s for h in chosen if not h.id for s in h.sources]  # messages read without a stored event
    return Draft(
        kind=SummaryKind.DAILY,
        key=m.period,
        scope=m.scope,
        text=(" " if lang == "en" else "").join(parts),
        time=m.start,
        sources=cap(sources, cfg.max_sources),
        keywords=topics,
        participants=people,
        importance=round(max((h.importance for h in chosen), default=0.3), 2),
        summary=SummaryData(
            kind=SummaryKind.DAILY,
            period=m.period,
            space=m.space,
            language=lang,
            highlights=[
                {"text": clip(h.text, cfg.item_chars), "importance": h.importance, "said_at": h.said_at.isoformat()}
                for h in chosen
            ],
        ),
    )


def span_of(first: str, last: str, lang: str) -> str:
    return first if first == last else WORDS[lang]["span"].format(first=first, last=last)


def ranked_words(lists: Iterable[Sequence[str]], limit: int) -> list[str]:
    """Words of several ranked lists: those in most lists first, then by their best rank in any list, then
    by first appearance (so each day's best topic comes before any day's second best)."""
    counts: Counter[str] = Counter()
    best: dict[str, int] = {}
    order: dict[str, int] = {}
    for words in lists:
        for rank, word in enumerate(words):
            counts[word] += 1
            best[word] = min(best.get(word, rank), rank)
            order.setdefault(word, len(order))
    return sorted(counts, key=lambda w: (-counts[w], best[w], order[w]))[:limit]


def global_summary(dailies: Sequence[MemoryItem], scope: Scope, lang: str, cfg: SummaryConfig) -> Draft | None:
    """From the dailies (any order); the latest ``global_days`` of them count."""
    days = sorted(dailies, key=lambda d: d.summary.period)[-cfg.global_days :]
    if not days:
        return None
    w = WORDS[lang]
    first, last = days[0].summary.period, days[-1].summary.period
    topics = ranked_words((d.keywords for d in days), cfg.keywords)
    people = ranked_words((d.participants for d in days), 10)
    moments: list[tuple[str, dict[str, Any]]] = [
        (d.summary.period, h) for d in days for h in d.summary.highlights or []
    ]
    picked = sorted(moments, key=lambda p: (-float(p[1].get("importance", 0.5)), p[0], str(p[1].get("said_at"))))
    picked = sorted(picked[: cfg.global_items], key=lambda p: (p[0], str(p[1].get("said_at"))))
    span = span_of(first, last, lang)
    who = who_of(people, lang)
    count = w["one_day"] if len(days) == 1 else w["days"].format(n=len(days))  # "(1 days)" in English (helper)
    head = w["global" if topics else "global_plain"].format(span=span, days=count, who=who, topics=join(topics, lang))
    parts = [head]
    if picked:
        parts.append(w["moments"].format(items=join((f"{day} {h['text']}" for day, h in picked), lang, "list")))
    return Draft(
        kind=SummaryKind.GLOBAL,
        key="",
        scope=scope,
        text=(" " if lang == "en" else "").join(parts),
        time=datetime.fromisoformat(last),
        sources=[d.id for d in days],
        keywords=topics,
        participants=people,
        importance=IMPORTANCE[SummaryKind.GLOBAL],
        summary=SummaryData(kind=SummaryKind.GLOBAL, period=last, first=first, days=len(days)),
    )


# ---------------------------------------------------------------------------------------- personality


def daily_personality(m: DayMaterial, cfg: SummaryConfig) -> Draft | None:
    """The person of a private chat, as the day showed them (seed 003: 性格特点、心情、回复策略)."""
    if m.person is None:
        return None
    own = m.said_by(m.person)
    if not own:
        return None
    lang, w = m.language, WORDS[m.language]
    mood = moods((x.text for x in own), lang)
    traits = sorted(m.about(m.person), key=Said.rank)[: cfg.traits]
    topics = topics_of(m, [x.text for x in own], 3)
    parts = []
    if mood:
        parts.append(w["mood"].format(moods=join(top_moods(mood, lang), lang)))
    parts += [clip(t.text, cfg.item_chars) for t in traits]
    if topics:
        parts.append(w["cares"].format(topics=join(topics, lang)))
    if not parts:
        return None
    name = m.name(m.person)
    text = w["portrait"].format(day=m.period, name=name, parts=w["parts"].join(parts))
    strategy = strategy_for(mood, lang)
    if strategy:
        text += (" " if lang == "en" else "") + w["strategy"].format(strategy=strategy)
    return Draft(
        kind=SummaryKind.DAILY_PERSONALITY,
        key=m.period,
        scope=m.scope,
        text=text,
        time=m.start,
        sources=cap([*(x.id for x in own), *(t.id for t in traits if t.id)], cfg.max_sources),
        keywords=topics,
        participants=[name],
        importance=IMPORTANCE[SummaryKind.DAILY_PERSONALITY],
        summary=SummaryData(
            kind=SummaryKind.DAILY_PERSONALITY,
            period=m.period,
            person=m.person,
            moods=mood,
            traits=[clip(t.text, cfg.item_chars) for t in traits],
            topics=topics,
        ),
    )


def global_personality(
    portraits: Sequence[MemoryItem], scope: Scope, name: str, lang: str, cfg: SummaryConfig
) -> Draft | None:
    days = sorted(portraits, key=lambda d: d.summary.period)[-cfg.global_days :]
    if not days:
        return None
    w = WORDS[lang]
    first, last = days[0].summary.period, days[-1].summary.period
    mood: dict[str, int] = {}
    for d in days:
        for label, count in (d.summary.moods or {}).items():
            mood[str(label)] = mood.get(str(label), 0) + int(count)
    traits: list[str] = []
    for d in reversed(days):  # the latest first
        for trait in d.summary.traits or []:
            if trait not in traits:
                traits.append(str(trait))
    traits = traits[: cfg.traits]
    topics = ranked_words((d.summary.topics or [] for d in days), 3)
    parts = list(traits)
    if topics:
        parts.append(w["often"].format(topics=join(topics, lang)))
    if mood:
        parts.append(w["recent_mood"].format(moods=join(top_moods(mood, lang), lang)))
    if not parts:
        return None
    text = w["overall"].format(span=span_of(first, last, lang), name=name, parts=w["parts"].join(parts))
    strategy = strategy_for(mood, lang)
    if strategy:
        text += (" " if lang == "en" else "") + w["strategy"].format(strategy=strategy)
    return Draft(
        kind=SummaryKind.GLOBAL_PERSONALITY,
        key="",
        scope=scope,
        text=text,
        time=datetime.fromisoformat(last),
        sources=[d.id for d in days],
        keywords=topics,
        participants=[name],
        importance=IMPORTANCE[SummaryKind.GLOBAL_PERSONALITY],
        summary=SummaryData(
            kind=SummaryKind.GLOBAL_PERSONALITY,
            period=last,
            first=first,
            person=scope.key,
            moods=mood,
        ),
    )


# ---------------------------------------------------------------------------------------- diary


def diary(m: DayMaterial, cfg: SummaryConfig) -> Draft | None:
    """The agent's own first-person account of the day in this chat (seed 002 §3.16)."""
    if not m.messages:
        return None
    lang, w = m.language, WORDS[m.language]
    people = [m.name(s) for s in m.speakers()]
    texts = [x.text for x in m.messages if x.speaker != m.agent]
    topics = join(topics_of(m, texts, cfg.keywords), lang) or w["diary_topics_none"]
    who = who_of(people, lang) if people else (m.name(m.person) if m.person else "")
    head = w["diary_head"].format(day=m.period, weekday=WEEKDAYS[lang][m.day.weekday()])
    if m.person is not None or not who:
        body = w["diary_private"].format(who=who or m.name(m.agent), topics=topics)
    elif m.agent_spoke():
        body = w["diary_group"].format(space=m.scope.key, who=who, topics=topics)
    else:
        body = w["diary_listen"].format(space=m.scope.key, who=who, topics=topics)
    agent_names = [m.agent, m.name(m.agent), *m.names.get(m.agent, [])]
    others = m.all_names()  # a member called like the agent, 祈煜（用户）, keeps their name
    chosen = _highlights(m, cfg)
    parts = [head, body]
    if chosen:
        items = (first_person(clip(h.text, cfg.item_chars), agent_names, lang, others) for h in chosen)
        parts.append(join(items, lang, "list") + w["end"])
    facts = _new_facts(m, chosen, cfg)
    if facts:
        items = (first_person(clip(f.text, cfg.item_chars), agent_names, lang, others) for f in facts)
        parts.append(w["remember"].format(facts=join(items, lang, "list")))
    if m.person is not None:
        top = top_moods(moods((x.text for x in m.said_by(m.person)), lang), lang, 1)
        if top:
            parts.append(w["diary_mood"].format(name=m.name(m.person), mood=top[0]))
    return Draft(
        kind=SummaryKind.DIARY,
        key=m.period,
        scope=m.scope,
        text=(" " if lang == "en" else "").join(parts),
        time=m.start,
        sources=cap((x.id for x in m.messages), cfg.max_sources),
        keywords=topics_of(m, texts, cfg.keywords),
        participants=[m.name(m.agent), *people],
        importance=IMPORTANCE[SummaryKind.DIARY],
        summary=SummaryData(kind=SummaryKind.DIARY, period=m.period, space=m.space),
    )
