"""Render: the prompt context the chat model reads, built from memories already chosen.

Order (DESIGN.md "Render", seed 000 §1 and §7): core blocks, the overview (前情提要), recalled facts
(脑海中回想起的片段, grouped 1. the person's attributes, 2. the person's relations by object,
3. the agent's relations by object, then per entity 4. its name, 5. its attributes, 6. its
relations; attributes carry no time, relations their date), recalled events
(脑海中回忆起的事件, ``{time}{place}:{event}``, time shown by age), then working memory verbatim, a turn
a line (``recall.fence``: no text leaves its place).

No memory appears twice: an id (or the same text) already rendered is dropped, and an event, chunk
or overview event whose source messages are all in working memory is dropped too (seed 000 §4:
上下文、前情提要、记忆片段内容无重叠, facts excepted). Empty sections leave no header behind.

The wording lives in template files, ``huiyi/templates/context_zh.md`` and ``context_en.md``:
each holds named ``string.Template`` parts under ``=== name ===`` lines. A user folder may hold a
file of the same name with only the parts to change (see ``Templates.load``).
"""

from __future__ import annotations

import logging
import re
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from datetime import time as dtime
from functools import lru_cache
from pathlib import Path

from huiyi.checks import wall_of
from huiyi.errors import InvalidInput
from huiyi.model import CoreBlock, MemoryItem, MemoryKind, Message
from huiyi.patterns import lazy
from huiyi.prompts import packaged
from huiyi.recall.facts import Owner, group_facts, heading_object, tellers
from huiyi.recall.fence import defang, fence_labels, one_line
from huiyi.recall.timerange import past_plan
from huiyi.text.times import format_by_age, spans_shown

__all__ = ["SECTIONS", "ContextParts", "Dropped", "RenderedContext", "Templates", "render"]

log = logging.getLogger(__name__)

# The sections of a rendered context, in prompt order; also the keys of ``RenderedContext.sections``.
SECTIONS = ("core_blocks", "overview", "fragments", "summaries", "events", "working")

# Every template part and the placeholders it may use.
PLACEHOLDERS: dict[str, frozenset[str]] = {
    name: frozenset(names.split())
    for name, names in {
        "core_blocks": "blocks",
        "core_block": "label description text",
        "overview": "items",
        "overview_item": "time place text insight",
        "fragments": "groups",
        "user_attributes": "n name items",
        "user_relations": "n name object items",
        "agent_attributes": "n name items",
        "agent_relations": "n name object items",
        "entity": "n name",
        "entity_attributes": "n name items",
        "entity_relations": "n name items",
        "other_facts": "n items",
        "attribute": "text keyword said",
        "relation": "date text object keyword",
        "summaries": "items",
        "summary": "period text",
        "events": "items",
        "event": "time place text insight",
        "chunk": "time place text",
        "place": "place",
        "plan": "date",
        "about": "date",
        "past_plan": "date",
        "told": "by text",
        "working": "turns",
        "turn": "speaker text time",
        "earlier": "count",
        "cut": "count",
    }.items()
}

_MARKER = lazy(r"^===[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*===[ \t]*$")


# ---------------------------------------------------------------- templates


def _language_key(language: str) -> str:
    """``zh-CN`` → ``zh``, ``en_US`` → ``en``: the suffix of the template file name."""
    key = re.split(r"[-_]", language.strip().lower(), maxsplit=1)[0]
    if not key or not key.isalnum():
        raise InvalidInput(f"language {language!r} is not a language code like 'zh' or 'en'")
    return key


def _parse_parts(text: str, origin: str) -> dict[str, str]:
    """The named parts of one template file; text before the first marker is a note and ignored."""
    parts: dict[str, str] = {}
    name: str | None = None
    lines: list[str] = []

    def close() -> None:
        if name is None:
            return
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        parts[name] = "\n".join(lines)

    for line in text.splitlines():
        marker = _MARKER.match(line)
        if marker is None:
            lines.append(line)
            continue
        close()
        name, lines = marker.group(1), []
        if name not in PLACEHOLDERS:
            known = ", ".join(PLACEHOLDERS)
            raise InvalidInput(f"{origin}: there is no template named {name!r}; the templates are: {known}")
        if name in parts:
            raise InvalidInput(f"{origin}: template {name!r} is defined twice")
    close()
    return parts


def _compile(name: str, text: str, origin: str) -> string.Template:
    template = string.Template(text)
    if not template.is_valid():
        raise InvalidInput(
            f"{origin}: template {name!r} has a '$' that starts no placeholder; write $$ for a literal dollar sign"
        )
    allowed = PLACEHOLDERS[name]
    unknown = [ident for ident in template.get_identifiers() if ident not in allowed]
    if unknown:
        raise InvalidInput(
            f"{origin}: template {name!r} uses ${unknown[0]}, which it cannot fill; "
            f"it may use {', '.join('$' + p for p in sorted(allowed))}"
        )
    return template


@lru_cache(maxsize=8)
def _package_parts(key: str) -> tuple[tuple[str, str], ...] | None:
    resource = packaged("templates", f"context_{key}.md")
    if not resource.is_file():
        return None
    return tuple(_parse_parts(resource.read_text(encoding="utf-8"), f"huiyi/templates/context_{key}.md").items())


@dataclass(frozen=True)
class Templates:
    """The named template parts of one language, each with the file it came from.

    ``Templates.load("zh")`` reads ``huiyi/templates/context_zh.md``. With ``folder``, a file of the
    same name there overrides any of its parts; parts it leaves out keep the packaged defaults. A
    language without a packaged file (``ja``) must be given by the user folder; parts it lacks fall
    back to English.
    """

    language: str
    parts: Mapping[str, string.Template]
    origins: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, language: str = "zh", folder: str | Path | None = None) -> Templates:
        key = _language_key(language)
        user: dict[str, str] = {}
        user_origin = ""
        if folder is not None and str(folder):
            root = Path(folder).expanduser()
            if not root.is_dir():
                raise InvalidInput(f"template folder {str(folder)!r} does not exist or is not a folder")
            path = root / f"context_{key}.md"
            if path.is_file():
                try:
                    user = _parse_parts(path.read_text(encoding="utf-8-sig"), str(path))
                except (OSError, UnicodeDecodeError) as error:
                    raise InvalidInput(f"{path}: cannot read the template file: {error}") from error
                user_origin = str(path)
        base_key = key if _package_parts(key) is not None else "en"
        if base_key != key and not user:
            raise InvalidInput(
                f"no templates for language {language!r}: huiyi ships 'zh' and 'en'; "
                f"put a context_{key}.md in the template folder (context.templates)"
            )
        base = _package_parts(base_key) or ()
        base_origin = f"huiyi/templates/context_{base_key}.md"
        merged: dict[str, string.Template] = {}
        origins: dict[str, str] = {}
        for name, default in base:
            text, origin = (user[name], user_origin) if name in user else (default, base_origin)
            merged[name] = _compile(name, text, origin)
            origins[name] = origin
        missing = [name for name in PLACEHOLDERS if name not in merged]
        if missing:
            raise InvalidInput(f"{base_origin}: missing templates {', '.join(missing)}")
        return cls(language=key, parts=merged, origins=origins)

    def fill(self, part: str, /, **values: str) -> str:
        """One part with its placeholders filled; the placeholders it does not use are ignored."""
        return self.parts[part].safe_substitute(values)

    @property
    def english(self) -> bool:
        return self.language == "en"


@lru_cache(maxsize=8)
def _default_templates(key: str) -> Templates:
    return Templates.load(key)


# ---------------------------------------------------------------- input and output


@dataclass
class ContextParts:
    """Everything one prompt context is built from, chosen by the caller (recall, overview, store).

    ``person`` is the person of a private chat (``None`` in a group: every person is then an entity);
    facts whose subject is the person, or one of ``person_names``, are the user's, and facts whose
    subject is the agent, one of ``agent_names``, or of type 主体 are the agent's. Headers show the
    first of the names, else the id.
    """

    agent: str
    person: str | None
    now: datetime
    language: str = "zh"
    core_blocks: list[CoreBlock] = field(default_factory=list)
    overview: list[MemoryItem] = field(default_factory=list)
    facts: list[MemoryItem] = field(default_factory=list)
    events: list[MemoryItem] = field(default_factory=list)
    working: list[Message] = field(default_factory=list)
    person_names: list[str] = field(default_factory=list)
    agent_names: list[str] = field(default_factory=list)
    # ids of working-memory messages the caller's prompt already shows: not repeated, still de-duplicated against
    shown_elsewhere: frozenset[str] = frozenset()
    zone: tzinfo = UTC  # whose wall clock ``now`` and the memories' times are; ``created_at`` is UTC
    ranking: Sequence[str] = ()  # recalled ids, best first: the context budget drops from the end
    earlier_turns: int = 0  # working-memory turns before ``working`` the context budget left out
    answering: str | None = None  # the working-memory turn being answered, which the budget never drops


@dataclass(frozen=True)
class Dropped:
    """A memory left out of the context, and why: for the recall debugger."""

    id: str
    section: str
    reason: str


@dataclass
class RenderedContext:
    """``text`` is the whole context; ``sections`` holds each non-empty section (keys from ``SECTIONS``,
    in prompt order) for a caller that places them apart, e.g. core blocks in the system prompt."""

    text: str
    sections: dict[str, str]
    dropped: list[Dropped] = field(default_factory=list)


# ---------------------------------------------------------------- rendering


def _naive(when: datetime, now: datetime) -> tuple[datetime, datetime]:
    if when.tzinfo is not None and now.tzinfo is not None:
        when = when.astimezone(now.tzinfo)
    return when.replace(tzinfo=None), now.replace(tzinfo=None)


class _Renderer:
    def __init__(self, parts: ContextParts, templates: Templates) -> None:
        self.parts = parts
        self.t = templates
        self.time_language = "en" if templates.english else "zh"
        self.working_ids = {message.id for message in parts.working}
        # seed 000: recalled events are de-duplicated against the overview, which tells them already
        self.overview_sources = {source for item in parts.overview for source in item.sources}
        self.seen_ids: set[str] = set()
        self.seen_texts: set[str] = set()
        # messages a fact or event already in the context was made from: their chunks would repeat it. Not a
        # summary's (a day's, a member's profile): it tells dozens of lines in a few words, and the line a
        # question recalled is often one it leaves out
        self.covered_sources: set[str] = set()
        self.dropped: list[Dropped] = []

    # -------------------------------------------------- de-duplication

    def admit(self, item: MemoryItem, section: str) -> bool:
        reason = ""
        text_key = " ".join(item.text.split())
        if item.id in self.seen_ids:
            reason = "already in the context"
        elif text_key in self.seen_texts:
            reason = "same text as a memory already in the context"
        elif section != "fragments" and item.sources and all(s in self.working_ids for s in item.sources):
            reason = "its messages are in working memory"
        elif section == "events" and item.sources and all(s in self.overview_sources for s in item.sources):
            reason = "the overview tells it already"
        elif item.kind is MemoryKind.CHUNK and item.sources and all(s in self.covered_sources for s in item.sources):
            reason = "a memory made from its messages is in the context"
        if reason:
            self.dropped.append(Dropped(item.id, section, reason))
            return False
        self.seen_ids.add(item.id)
        self.seen_texts.add(text_key)
        if item.kind not in (MemoryKind.CHUNK, MemoryKind.SUMMARY):
            self.covered_sources.update(item.sources)
        return True

    # -------------------------------------------------- pieces

    def when(self, moment: datetime | None) -> str:
        if moment is None:
            return ""
        when, now = _naive(moment, self.parts.now)
        if when.time() == dtime(0, 0):  # a date with no time of day (extracted "11-18"): never "0点"
            return when.date().isoformat()
        return format_by_age(when, now, self.time_language)

    def about(self, item: MemoryItem, text: str) -> str:
        """A memory said on one day about another: the plan (计划于…) or the past day it tells of."""
        if item.said_at is None or item.time is None:
            return ""
        said, _ = _naive(item.said_at, self.parts.now)
        about, _ = _naive(item.time, self.parts.now)
        label = spans_shown(str(item.data.get("about") or ""), self.time_language) or self.when(item.time)
        if not label or label in text or said.date() == about.date():
            return ""  # the text already writes it out (the rules annotate "下个月（2024-12-01～…）")
        return self.t.fill("plan" if about > said else "about", date=label)

    def event_line(self, item: MemoryItem, name: str) -> str:
        time = self.when(item.said_at or item.time)  # when it was said; the time it is about follows the text
        place = self.t.fill("place", place=defang(item.place.strip())) if item.place.strip() else ""
        if not time:
            place = place.lstrip()  # the space that parts a place from its time has nothing to part
        text = spans_shown(one_line(item.text), self.time_language)
        text += self.about(item, text)
        if not time and not place:
            return text
        return self.t.fill(name, time=time, place=place, text=text, insight=one_line(item.insight))

    def block(self, name: str, items: Iterable[str], key: str) -> str:
        body = "\n".join(items)
        return self.t.fill(name, **{key: body}).strip("\n") if body else ""

    # -------------------------------------------------- sections

    def core_blocks(self) -> str:
        rendered = []
        labels = [core.label for core in self.parts.core_blocks]
        for core in self.parts.core_blocks:
            text = fence_labels(core.text.strip("\n").rstrip(), labels)  # a tool wrote it from a person's words
            if not text:
                continue
            description = str(core.meta.get("description") or "")
            rendered.append(self.t.fill("core_block", label=core.label, description=description, text=text))
        rendered = [text for text in rendered if text.strip()]
        body = "\n\n".join(rendered)
        return self.t.fill("core_blocks", blocks=body).strip("\n") if body else ""

    def overview(self) -> str:
        # an event told whole by a longer one (a group's plan, and the stretch of talk that holds it) once
        told = [set(item.sources) for item in self.parts.overview]
        items = []
        for item in self.parts.overview:
            if item.sources and any(set(item.sources) < other for other in told):
                self.dropped.append(Dropped(item.id, "overview", "a longer event of the overview tells it"))
            elif self.admit(item, "overview"):
                items.append(item)
        items = _by_time(items, self.parts.now)
        return self.block("overview", (self.event_line(item, "overview_item") for item in items), "items")

    def summaries(self) -> str:
        items = [item for item in self.parts.events if item.kind is MemoryKind.SUMMARY]
        items = [item for item in _by_time(items, self.parts.now) if self.admit(item, "summaries")]
        lines = [self.t.fill("summary", period=item.summary.period or "", text=one_line(item.text)) for item in items]
        return self.block("summaries", lines, "items")

    def events(self) -> str:
        # distilled memories first, so a chunk whose messages one of them tells is left out
        candidates = [item for item in self.parts.events if item.kind is not MemoryKind.SUMMARY]
        candidates.sort(key=lambda item: item.kind is MemoryKind.CHUNK)
        items = [item for item in candidates if self.admit(item, "events")]
        lines = [
            self.event_line(item, "chunk" if item.kind is MemoryKind.CHUNK else "event")
            for item in _by_time(items, self.parts.now)
        ]
        return self.block("events", lines, "items")

    def turn(self, m: Message) -> str:
        return self.t.fill("turn", speaker=defang(m.speaker), text=one_line(m.text), time=self.when(m.time))

    def working(self) -> str:
        turns = [self.turn(m) for m in self.parts.working if m.id not in self.parts.shown_elsewhere]
        earlier = self.parts.earlier_turns
        if turns and (note := one_line(self.t.fill("earlier", count=str(earlier))) if earlier else ""):
            turns.insert(0, note)
        return self.block("working", turns, "turns")

    def fragments(self) -> str:
        facts = [item for item in self.parts.facts if self.admit(item, "fragments")]
        groups: list[str] = []

        def push(part: str, /, **values: str) -> None:
            text = self.t.fill(part, n=str(len(groups) + 1), **values).strip("\n")
            if text.strip():  # an emptied template takes no number
                groups.append(text)

        def add(part: str, items: Sequence[MemoryItem], /, **values: str) -> None:
            if items:
                push(part, items="\n".join(self.fact_line(item) for item in items), **values)

        headed: set[str] = set()
        grouped = group_facts(
            ((item, item.fact) for item in facts),
            agent=self.parts.agent,
            person=self.parts.person,
            agent_names=self.parts.agent_names,
            person_names=self.parts.person_names,
        )
        zone = self.parts.zone
        for group in grouped:
            items = _by_time(group.items, self.parts.now, fact=True, zone=zone) if group.relation else group.items
            if group.owner is Owner.NONE:
                add("other_facts", items)
                continue
            if group.owner is Owner.ENTITY and group.name not in headed:
                headed.add(group.name)
                push("entity", name=defang(group.name))
            part = _FACT_PARTS[group.owner, group.relation]
            if group.relation and group.owner is not Owner.ENTITY:
                obj = heading_object(group.object, self.t.english, [i.fact.object_type for i in items])
                add(part, items, name=defang(group.name), object=defang(obj))
            else:
                add(part, items, name=defang(group.name))
        return self.block("fragments", groups, "groups")

    def fact_line(self, item: MemoryItem) -> str:
        text = spans_shown(one_line(item.text), self.time_language)
        if past := past_plan(item, self.parts.now):  # 下周三要去面试, read a month on: no longer ahead
            text += self.t.fill("past_plan", date=spans_shown(past, self.time_language))
        if told := tellers(item.data, ", " if self.t.english else "、"):  # a member's word of another, not theirs
            text = self.t.fill("told", by=told, text=text)
        fact = item.fact
        # when it was said, not the day it is about
        moment = item.said_at or item.time or wall_of(item.created_at, self.parts.zone)
        date = _naive(moment, self.parts.now)[0].date().isoformat() if moment is not None else ""
        keyword = defang(fact.keyword)
        if fact.is_relation and date:
            return self.t.fill("relation", date=date, text=text, object=one_line(fact.object), keyword=keyword)
        return self.t.fill("attribute", text=text, keyword=keyword, said=date)

    def render(self) -> RenderedContext:
        # overview first: recalled events are de-duplicated against it (seed 000 §1.3)
        built = {
            "core_blocks": self.core_blocks(),
            "overview": self.overview(),
            "fragments": self.fragments(),
            "summaries": self.summaries(),
            "events": self.events(),
            "working": self.working(),
        }
        sections = {name: built[name] for name in SECTIONS if built[name].strip()}
        return RenderedContext(text="\n\n".join(sections.values()), sections=sections, dropped=self.dropped)


# the template part of each group of seed 000 §7 (recall/facts.py decides the groups)
_FACT_PARTS = {
    (Owner.PERSON, False): "user_attributes",
    (Owner.PERSON, True): "user_relations",
    (Owner.AGENT, False): "agent_attributes",
    (Owner.AGENT, True): "agent_relations",
    (Owner.ENTITY, False): "entity_attributes",
    (Owner.ENTITY, True): "entity_relations",
}


def _by_time(items: list[MemoryItem], now: datetime, *, fact: bool = False, zone: tzinfo = UTC) -> list[MemoryItem]:
    """Oldest first, by when said (facts: else ``created_at``, read in ``zone``); undated items last."""

    def moment(item: MemoryItem) -> datetime | None:
        said = item.said_at or item.time
        return said or wall_of(item.created_at, zone) if fact else said

    dated = [item for item in items if moment(item) is not None]
    dated.sort(key=lambda item: _naive(moment(item) or now, now)[0])
    return [*dated, *(item for item in items if moment(item) is None)]


def render(parts: ContextParts, templates: Templates | None = None) -> RenderedContext:
    """The prompt context of ``parts``: sections in prompt order, each memory once, empty sections out."""
    if templates is None:
        templates = _default_templates(_language_key(parts.language))
    return _Renderer(parts, templates).render()
