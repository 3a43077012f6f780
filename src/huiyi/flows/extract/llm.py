"""Extraction with an LLM: one structured-output call per fold, checked before anything is kept.

The prompt is data: ``prompts/extract_zh.md`` and ``prompts/extract_en.md`` (a user may point
``prompt_dir`` at a folder of their own). The conversation is shown with short message ids (``m1``,
``m2``…), each message's absolute time and weekday and its speaker's name, so the model can resolve
昨天晚上八点 against the time it was said and cite its sources; the roster names every person with
their aliases, so facts said in a group chat go to the member who said them.

What comes back is checked and cleaned, not trusted:

* source ids not in the fold are dropped (an event left with none keeps the whole fold as provenance;
  a fact left with none is dropped, since nobody can tell who said it);
* 我 / I / the user as a subject becomes the speaker of the fact's first source message, 你 / you the
  other party of a private chat; aliases and ids become the roster name (霓霓 → 苏霓);
* times are read leniently (:func:`~huiyi.text.times.parse_datetime`; a relative phrase the model
  echoed is resolved against its source message's time; an empty one falls back to that time);
* importance and confidence are clamped to 0–1 (a 0–10 or 0–100 scale is rescaled first);
* an answer that is not the expected object, holds no usable event, or is written in English for a
  Chinese conversation raises :class:`ExtractionError`, so the job is retried instead of storing half
  an answer.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from huiyi.errors import ConfigError, InvalidInput, ProviderError
from huiyi.flows.extract import EntityDraft, EventDraft, Extraction, FactDraft, Fold
from huiyi.flows.extract.rules import Roster
from huiyi.model import EntityType, FactKind, Message
from huiyi.prompts import USER_MARKER, Prompt, read_prompt
from huiyi.providers.llm import LLM
from huiyi.text.language import conversation_language
from huiyi.text.times import find_time_phrases, parse_datetime
from huiyi.text.tokens import has_cjk

__all__ = [
    "EXTRACTION_SCHEMA",
    "SCHEMA_NAME",
    "ExtractionError",
    "LLMExtractor",
    "load_prompt",
    "parse_extraction",
]

SCHEMA_NAME = "memory_extraction"
LANGUAGES = ("zh", "en")

# entity types as the model names them; the Chinese names of EntityType are accepted too
_TYPE_NAMES: dict[str, EntityType] = {
    "agent": EntityType.SUBJECT,
    "person": EntityType.OBJECT,
    "specific": EntityType.SPECIFIC,
    "generic": EntityType.GENERIC,
}
_TYPE_LOOKUP = {**_TYPE_NAMES, **{t.value: t for t in EntityType}}
_STRING: dict[str, Any] = {"type": "string"}
_STRINGS: dict[str, Any] = {"type": "array", "items": _STRING}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    """An object schema as strict structured output wants it: every key required, no others."""
    return {"type": "object", "additionalProperties": False, "required": list(properties), "properties": properties}


EXTRACTION_SCHEMA: dict[str, Any] = _object(
    {
        "events": {
            "type": "array",
            "items": _object(
                {
                    "text": _STRING,
                    "time": _STRING,
                    "place": _STRING,
                    "participants": _STRINGS,
                    "keywords": _STRINGS,
                    "insight": _STRING,
                    "importance": {"type": "number"},
                    "sources": _STRINGS,
                }
            ),
        },
        "facts": {
            "type": "array",
            "items": _object(
                {
                    "subject": _STRING,
                    "subject_type": {"type": "string", "enum": list(_TYPE_NAMES)},
                    "predicate": _STRING,
                    "object": _STRING,
                    "object_type": {"type": "string", "enum": [*_TYPE_NAMES, "literal"]},
                    "kind": {"type": "string", "enum": [k.value for k in FactKind]},
                    "keyword": _STRING,
                    "description": _STRING,
                    "time": _STRING,
                    "confidence": {"type": "number"},
                    "sources": _STRINGS,
                }
            ),
        },
        "entities": {
            "type": "array",
            "items": _object(
                {
                    "name": _STRING,
                    "type": {"type": "string", "enum": list(_TYPE_NAMES)},
                    "aliases": _STRINGS,
                }
            ),
        },
    }
)


class ExtractionError(ProviderError):
    """The LLM answered, but nothing trustworthy can be kept from the answer; retry the job."""

    code = "extraction_unusable"


# ---------------------------------------------------------------------------------------- prompts


def load_prompt(language: str, prompt_dir: str | Path | None = None) -> Prompt:
    """``extract_<language>.md`` from ``prompt_dir`` when it holds one, else the packaged file."""
    text, source = read_prompt(f"extract_{language}.md", prompt_dir, "extraction")
    parts = USER_MARKER.split(text, maxsplit=1)
    if len(parts) == 2:
        system, user = parts
    else:  # one section only: it is the system message; the user message is the conversation
        system, user = text, "{{chat}}\n\n{{participants}}\n\n{{messages}}"
    if not system.strip():
        raise ConfigError(f"the extraction prompt {source} has an empty system part")
    if "{{messages}}" not in user.replace(" ", ""):
        raise ConfigError(f"the extraction prompt {source} never shows the conversation: put {{{{messages}}}} in it")
    return Prompt(system=system, user=user, source=source)


_WEEKDAYS = {"zh": "周一 周二 周三 周四 周五 周六 周日".split(), "en": "Mon Tue Wed Thu Fri Sat Sun".split()}
_WORDS = {
    "zh": {
        "private": "这是{agent}和{person}的私聊。",
        "group": "这是一个群聊（{space}），有多位成员发言；请分清每条信息是哪位成员说的。",
        "agent": "{name}（{agent}本人，agent）",
        "person": "{name}（person）",
        "aka": "{line}，也叫：{aliases}",
        "colon": "：",
        "sep": "、",
    },
    "en": {
        "private": "This is a private chat between {agent} and {person}.",
        "group": "This is a group chat ({space}) with several members; credit each piece of information to "
        "the member who said it.",
        "agent": "{name} ({agent} themself, agent)",
        "person": "{name} (person)",
        "aka": "{line}, also called: {aliases}",
        "colon": ": ",
        "sep": ", ",
    },
}
MAX_MESSAGE_CHARS = 2000  # longer messages are cut in the prompt (the log keeps them whole)


# ---------------------------------------------------------------------------------------- the extractor


class LLMExtractor:
    """The :class:`~huiyi.flows.extract.Extractor` that asks an LLM, once per fold.

    ``language`` (``zh`` or ``en``) picks the prompt when the conversation does not show its own
    language; with ``follow_conversation`` (the default) a conversation that is clearly Chinese or
    clearly English gets the prompt in its language. Either way the memories are written in the
    conversation's language. ``prompt_dir`` holds the user's own ``extract_zh.md`` /
    ``extract_en.md``; a file missing there falls back to the packaged one.
    """

    def __init__(
        self,
        llm: LLM,
        language: str | None = None,
        *,
        prompt_dir: str | Path | None = None,
        follow_conversation: bool = True,
        max_events: int = 10,
        max_facts: int = 40,
        max_entities: int = 40,
    ) -> None:
        if prompt_dir is not None and not Path(prompt_dir).is_dir():
            raise ConfigError(f"prompt_dir {str(prompt_dir)!r} is not a folder")
        self.llm = llm
        self.language = _language(language) if language else None
        self.prompt_dir = prompt_dir
        self.follow_conversation = follow_conversation
        self.max_events = max_events
        self.max_facts = max_facts
        self.max_entities = max_entities
        self._prompts: dict[str, Prompt] = {}

    def prompt_language(self, fold: Fold) -> str:
        detected = conversation_language(fold.messages, default="") if self.follow_conversation else ""
        return detected or self.language or _language(fold.language)

    def prompt(self, language: str) -> Prompt:
        if language not in self._prompts:
            self._prompts[language] = load_prompt(language, self.prompt_dir)
        return self._prompts[language]

    def messages_for(self, fold: Fold) -> list[dict[str, str]]:
        """The chat messages sent for ``fold``: useful to inspect or to log what the model saw."""
        language = self.prompt_language(fold)
        roster = Roster.of(fold)
        return self.prompt(language).render(_render(fold, roster, language))

    async def extract(self, fold: Fold) -> Extraction:
        if not fold.messages:
            return Extraction()
        answer = await self.llm.complete_json(self.messages_for(fold), EXTRACTION_SCHEMA, SCHEMA_NAME)
        return parse_extraction(
            answer,
            fold,
            max_events=self.max_events,
            max_facts=self.max_facts,
            max_entities=self.max_entities,
        )


def _language(value: str) -> str:
    """``zh`` for any Chinese tag (zh, zh-CN, zh_Hant); English, the lingua franca, for the rest."""
    return "zh" if value.strip().lower().startswith("zh") else "en"


def _refs(messages: list[Message]) -> dict[str, str]:
    """Message id -> the short id shown to the model."""
    return {m.id: f"m{i}" for i, m in enumerate(messages, start=1)}


def _ordered(fold: Fold) -> list[Message]:
    return sorted(fold.messages, key=lambda m: m.seq)


def _render(fold: Fold, roster: Roster, language: str) -> dict[str, str]:
    words = _WORDS[language]
    messages = _ordered(fold)
    refs = _refs(messages)
    agent = roster.agent_name
    people = [name for name in roster.names if name != agent]
    private = fold.person is not None
    if private:
        person = roster.name_of(fold.person or "")
        chat = words["private"].format(agent=agent, person=person)
    else:
        chat = words["group"].format(space=fold.space)
    lines = []
    for name in [agent, *people]:
        line = words["agent" if name == agent else "person"].format(name=name, agent=agent)
        aliases = roster.aliases_of(name)
        if aliases:
            line = words["aka"].format(line=line, aliases=words["sep"].join(aliases))
        lines.append(f"- {line}")
    shown: list[str] = []
    for message in messages:
        text = " ".join(message.text.split())
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[: MAX_MESSAGE_CHARS - 1] + "…"
        when = f"{message.time:%Y-%m-%d %H:%M} {_WEEKDAYS[language][message.time.weekday()]}"
        shown.append(f"[{refs[message.id]}] {when} {roster.name_of(message.speaker)}{words['colon']}{text}")
    return {
        "agent": agent,
        "chat": chat,
        "participants": "\n".join(lines),
        "messages": "\n".join(shown),
        "language": language,
        "space": fold.space,
    }


# ---------------------------------------------------------------------------------------- checking the answer

_FIRST_PERSON = frozenset({"我", "我自己", "本人", "俺", "人家", "i", "me", "myself"})
_SECOND_PERSON = frozenset({"你", "您", "你自己", "you", "yourself"})
_THE_USER = frozenset({"用户", "玩家", "user", "the user", "player", "the player"})
_THE_AGENT = frozenset({"ai", "助手", "机器人", "assistant", "the assistant", "bot", "the bot"})
_PAREN = re.compile(r"^(?P<name>.+?)\s*[（(](?P<inner>[^）)]*)[）)]\s*$")
_REF = re.compile(r"^m?(\d{1,5})$", re.IGNORECASE)


@dataclass
class _Context:
    fold: Fold
    roster: Roster
    messages: list[Message]
    by_id: dict[str, Message]
    by_ref: dict[str, str]
    private: bool

    def sources(self, value: Any) -> list[str]:
        """The fold's message ids among ``value``; short refs (m3, [m3], 3) and real ids both count."""
        out: list[str] = []
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, str | int) or isinstance(item, bool):
                continue
            text = str(item).strip().strip("[]【】#").strip()
            found = self.by_id.get(text)
            if found is None:
                match = _REF.match(text)
                ref = f"m{int(match.group(1))}" if match else ""
                message_id = self.by_ref.get(ref)
                found = self.by_id.get(message_id) if message_id else None
            if found is not None and found.id not in out:
                out.append(found.id)
        return out

    def anchor(self, sources: list[str]) -> datetime:
        return self.by_id[sources[0]].time if sources else self.messages[0].time

    def who(self, name: str, sources: list[str]) -> str | None:
        """The roster name a subject or object means, the name itself for someone else, or ``None``
        when it is a pronoun nobody can resolve."""
        name = name.strip()
        lowered = name.casefold()
        speaker = self.roster.name_of(self.by_id[sources[0]].speaker) if sources else None
        if lowered in _FIRST_PERSON:
            return speaker
        if lowered in _SECOND_PERSON:
            return self.roster.other_party(self.by_id[sources[0]].speaker, self.private) if sources else None
        if lowered in _THE_USER:
            if self.private and self.fold.person:
                return self.roster.name_of(self.fold.person)
            return speaker if speaker != self.roster.agent_name else None
        if lowered in _THE_AGENT:
            return self.roster.agent_name
        known = self.roster.resolve(name)
        if known:
            return known
        paren = _PAREN.match(name)
        if paren:  # 苏霓（u2）, Anna (anna)
            return self.roster.resolve(paren["inner"]) or self.roster.resolve(paren["name"]) or paren["name"]
        return name

    def type_of(self, name: str, claimed: Any) -> EntityType:
        known = self.roster.entity_type(name)
        if known is not None:
            return known
        kind = _TYPE_LOOKUP.get(str(claimed).strip().lower()) or _TYPE_LOOKUP.get(str(claimed).strip())
        if kind is EntityType.SUBJECT:  # only the agent is the subject of memory
            return EntityType.OBJECT
        return kind or EntityType.SPECIFIC


def _text(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def _strings(value: Any, limit: int = 12) -> list[str]:
    out: list[str] = []
    for item in value if isinstance(value, list) else []:
        text = _text(item)
        if text and text not in out:
            out.append(text)
    return out[:limit]


def _unit(value: Any, default: float) -> float:
    """A 0–1 score from what a model wrote: 0.7, "0.7", 7 (of 10), 70 (of 100)."""
    if isinstance(value, bool):
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    if math.isnan(number):
        return default
    if 1.0 < number <= 10.0:
        number /= 10.0
    elif 10.0 < number <= 100.0:
        number /= 100.0
    return round(min(1.0, max(0.0, number)), 4)


def _when(value: Any, anchor: datetime) -> datetime:
    """An absolute time from the model's answer; relative words are resolved against ``anchor``."""
    text = _text(value)
    if not text:
        return anchor
    try:
        when = parse_datetime(text)
    except InvalidInput:
        spans = find_time_phrases(text, anchor)
        if not spans:
            return anchor
        when = spans[0].start
    if abs(when.year - anchor.year) > 150:  # 0001-01-01 and other placeholders
        return anchor
    return when


def _items(answer: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = answer.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list):
        raise ExtractionError(f"the extraction answer's {key!r} is {type(value).__name__}, not a list")
    return [item for item in value if isinstance(item, dict)]


def parse_extraction(
    answer: Any,
    fold: Fold,
    *,
    max_events: int = 10,
    max_facts: int = 40,
    max_entities: int = 40,
) -> Extraction:
    """Check and clean an answer shaped like :data:`EXTRACTION_SCHEMA`; raise :class:`ExtractionError`
    when nothing trustworthy is left. See the module docstring for what is cleaned."""
    if not isinstance(answer, dict):
        raise ExtractionError(f"the extraction answer is {type(answer).__name__}, not a JSON object")
    messages = _ordered(fold)
    if not messages:
        return Extraction()
    refs = _refs(messages)
    context = _Context(
        fold=fold,
        roster=Roster.of(fold),
        messages=messages,
        by_id={m.id: m for m in messages},
        by_ref={ref: message_id for message_id, ref in refs.items()},
        private=fold.person is not None,
    )
    events = _events(_items(answer, "events"), context)[:max_events]
    if not events:
        raise ExtractionError(
            f"the extraction answer holds no usable event for {len(messages)} message(s); "
            "every fold should give at least one"
        )
    facts = _facts(_items(answer, "facts"), context)[:max_facts]
    entities = _entities(_items(answer, "entities"), context)[:max_entities]
    if conversation_language(messages, default="") == "zh" and not any(
        has_cjk(text) for text in [*(e.text for e in events), *(f.description for f in facts)]
    ):
        raise ExtractionError(
            "the conversation is in Chinese but the extracted memories are not; they must not be translated"
        )
    return Extraction(events=events, facts=facts, entities=entities)


def _events(items: list[dict[str, Any]], context: _Context) -> list[EventDraft]:
    out: list[EventDraft] = []
    seen: set[str] = set()
    for item in items:
        text = _text(item.get("text"))
        if not text or text in seen:
            continue
        seen.add(text)
        sources = context.sources(item.get("sources")) or [m.id for m in context.messages]
        anchor = context.anchor(sources)
        participants: list[str] = []
        for name in _strings(item.get("participants"), limit=30):
            who = context.who(name, sources)
            if who and who not in participants:
                participants.append(who)
        out.append(
            EventDraft(
                text=text,
                sources=sources,
                time=_when(item.get("time"), anchor),
                place=_text(item.get("place")),
                participants=participants,
                keywords=_strings(item.get("keywords"), limit=10),
                insight=_text(item.get("insight")),
                importance=_unit(item.get("importance"), 0.5),
            )
        )
    return out


def _facts(items: list[dict[str, Any]], context: _Context) -> list[FactDraft]:
    out: list[FactDraft] = []
    seen: set[tuple[str, str, str]] = set()
    for item in items:
        sources = context.sources(item.get("sources"))
        predicate, raw_object = _text(item.get("predicate")), _text(item.get("object"))
        raw_subject = _text(item.get("subject"))
        if not sources or not predicate or not raw_object or not raw_subject:
            continue  # no provenance, or not an edge
        subject = context.who(raw_subject, sources)
        if not subject:
            continue
        object_type_name = str(item.get("object_type", "literal")).strip().lower()
        if object_type_name == "literal":
            obj, object_type = raw_object, None
        else:
            resolved = context.who(raw_object, sources)
            if not resolved:
                continue
            obj, object_type = resolved, context.type_of(resolved, object_type_name)
        key = (subject, predicate, obj.casefold())
        if key in seen:
            continue
        seen.add(key)
        try:
            kind = FactKind(str(item.get("kind", "")).strip().lower())
        except ValueError:
            kind = FactKind.ATTRIBUTE
        description = _text(item.get("description")) or _join(subject, predicate, obj)
        out.append(
            FactDraft(
                subject=subject,
                predicate=predicate,
                object=obj,
                description=description,
                sources=sources,
                kind=kind,
                keyword=_text(item.get("keyword")),
                subject_type=context.type_of(subject, item.get("subject_type")),
                object_type=object_type,
                time=_when(item.get("time"), context.anchor(sources)),
                confidence=_unit(item.get("confidence"), 0.8),
            )
        )
    return out


def _join(subject: str, predicate: str, obj: str) -> str:
    if has_cjk(subject + predicate + obj):
        return f"{subject}{predicate}{obj}"
    return f"{subject} {predicate} {obj}"


def _entities(items: list[dict[str, Any]], context: _Context) -> list[EntityDraft]:
    found: dict[str, EntityDraft] = {}
    for item in items:
        raw = _text(item.get("name"))
        name = context.who(raw, []) if raw else None
        if not name:
            continue
        aliases = [a for a in _strings(item.get("aliases"), limit=20) if a != name]
        if raw != name and raw not in aliases and raw.casefold() not in _FIRST_PERSON | _SECOND_PERSON:
            aliases.insert(0, raw)
        if name in found:
            kept = found[name]
            kept.aliases.extend(a for a in aliases if a not in kept.aliases)
            continue
        known = context.roster.aliases_of(name)
        found[name] = EntityDraft(
            name=name,
            type=context.type_of(name, item.get("type")),
            aliases=list(dict.fromkeys([*known, *aliases])),
        )
    return list(found.values())
