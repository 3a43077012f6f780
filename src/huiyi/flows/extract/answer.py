"""Checking an LLM's extraction answer: what comes back is cleaned, not trusted.

The rules are listed in :mod:`huiyi.flows.extract.llm`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from huiyi.errors import InvalidInput
from huiyi.flows.extract import EntityDraft, EventDraft, Extraction, FactDraft, Fold
from huiyi.flows.extract.rules import Roster
from huiyi.flows.extract.schema import TYPE_LOOKUP, ExtractionError, in_order, message_refs
from huiyi.model import EntityType, FactKind, Message
from huiyi.text.kin import someone_named
from huiyi.text.language import conversation_language
from huiyi.text.relayed import relay_of
from huiyi.text.times import find_time_phrases, parse_datetime
from huiyi.text.times_en import MONTHS
from huiyi.text.tokens import EN_STOPWORDS, has_cjk

__all__ = ["parse_extraction"]

_FIRST_PERSON = frozenset({"我", "我自己", "本人", "俺", "人家", "i", "me", "myself"})
_SECOND_PERSON = frozenset({"你", "您", "你自己", "you", "yourself"})
_THE_USER = frozenset({"用户", "玩家", "user", "the user", "player", "the player"})
_THE_AGENT = frozenset({"ai", "助手", "机器人", "assistant", "the assistant", "bot", "the bot"})
# one person the lines name just before (他喜欢打篮球 after 鱼哥是程序员); a group's 他们 is whom? nobody can tell
_THIRD_PERSON = frozenset({"他", "她", "ta", "he", "she", "him", "her"})
_THIRD_PERSONS = frozenset({"他们", "她们", "它们", "they", "them"})
_LEADING_PRONOUN = re.compile(r"^(?:[他她](?![们])|(?i:he|she)\b)")
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
        """The fold's message ids among ``value``; short refs (m3, [m3], 3) and real ids both count. A ref
        the model was shown wins over a real id spelt the same: a chat whose own ids are m0, m1… had every
        source shifted one line (the agent's reply read as the user's)."""
        out: list[str] = []
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, str | int) or isinstance(item, bool):
                continue
            text = str(item).strip().strip("[]【】#").strip()
            match = _REF.match(text)
            message_id = self.by_ref.get(f"m{int(match.group(1))}") if match else None
            found = self.by_id.get(message_id or text)
            if found is not None and found.id not in out:
                out.append(found.id)
        return out

    def own_lines(self) -> list[Message]:
        """The agent's own lines of the fold (a member named like it speaks as its namesake)."""
        return [m for m in self.messages if m.speaker == self.fold.agent]

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
        if lowered in _THIRD_PERSON:
            return self.named_before(sources)
        if lowered in _THIRD_PERSONS:
            return None
        known = self.roster.resolve(name)
        if known:
            return known
        paren = _PAREN.match(name)
        if paren:  # 苏霓（u2）, Anna (anna)
            return self.roster.resolve(paren["inner"]) or self.roster.resolve(paren["name"]) or paren["name"]
        return name

    def named_before(self, sources: list[str]) -> str | None:
        """The one member, neither the speaker nor the agent, that the lines of ``sources`` name, else the
        line before them: whom 他 / she stands for. ``None`` when nobody or several are named."""
        if not sources:
            return None
        first = self.by_id[sources[0]]
        speaker = self.roster.name_of(first.speaker)
        at = self.messages.index(first)
        for lines in ([self.by_id[s] for s in sources], self.messages[max(at - 1, 0) : at]):
            named = {
                shown
                for shown, names in self.roster.names.items()
                if shown not in (speaker, self.roster.agent_name)
                and any(len(name) > 1 and _named(name, line.text) for name in names for line in lines)
            }
            if named:
                return named.pop() if len(named) == 1 else None
            if any(has_cjk(line.text) and someone_named(line.text) for line in lines):
                return None  # 我哥明天来，他喜欢打篮球: the brother, not the member the line before named
        return None

    def type_of(self, name: str, claimed: Any) -> EntityType:
        known = self.roster.entity_type(name)
        if known is not None:
            return known
        kind = TYPE_LOOKUP.get(str(claimed).strip().lower()) or TYPE_LOOKUP.get(str(claimed).strip())
        if kind is EntityType.SUBJECT:  # only the agent is the subject of memory
            return EntityType.OBJECT
        return kind or EntityType.SPECIFIC


MAX_TEXT_CHARS = 2000  # a field of the answer is cut to this: a runaway answer must not become a huge memory


# what no store keeps: a memory holding one was refused after extraction, on every retry of the same answer
_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


def _text(value: Any) -> str:
    r"""A text field of the answer: spaces collapsed, NULs and lone surrogates left out, bounded.

    >>> _text("木木喜欢喝美式咖啡\x00"), _text("a\ud800b  c")
    ('木木喜欢喝美式咖啡', 'ab c')
    """
    text = " ".join(_UNSTORABLE.sub("", value).split()) if isinstance(value, str) else ""
    return text if len(text) <= MAX_TEXT_CHARS else text[: MAX_TEXT_CHARS - 1] + "…"


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
    messages = in_order(fold)
    if not messages:
        return Extraction()
    refs = message_refs(messages)
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
        if all(_passed_on(context.by_id[s].text) for s in sources):
            continue  # read from forwards and quotes alone: nobody said it in this chat
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
        # 他喜欢打篮球, 小雨认识他: the description says whom a pronoun stood for (a stored 他 is nobody's by the
        # next fold)
        description = _text(item.get("description"))
        if leading := _LEADING_PRONOUN.match(description):
            description = subject + description[leading.end() :]
        if raw_object.casefold() in _THIRD_PERSON and obj != raw_object:
            description = _pronoun_named(description, raw_object, obj)
        if not description or _names_another(description, subject, obj, context.roster):
            description = _join(subject, predicate, obj)
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


def _names_another(description: str, subject: str, obj: str, roster: Roster) -> bool:
    """Whether a fact's description names a member of the fold other than its subject and object, and not
    its subject: the model's 木木住在火星 on 陈大川's line with subject 我 was kept as 陈大川's own fact,
    under his name and without the hearsay mark a fact about another member gets (helper). The agent is no
    such member; a name of one character is too often part of a word to tell."""
    if any(_named(name, description) for name in roster.names.get(subject, [subject])):
        return False
    return any(
        _named(name, description)
        for shown, names in roster.names.items()
        if shown not in (subject, obj, roster.agent_name)
        for name in names
    )


def _named(name: str, text: str) -> bool:
    """Whether ``text`` names ``name``: a name of letters as a word of its own (not Ann in "annual" nor in
    "Anna's"), one of Chinese characters as it is written.

    >>> _named("Ann", "Ann's cat"), _named("Ann", "Anna's cat"), _named("Ann", "annual"), _named("木木", "木木住在火星")
    (True, False, False, True)

    A common word that opens a sentence and asks of someone is that word, not the name (Will you come?):

    >>> _named("Will", "Will you come?"), _named("May", "Fine. May I join?"), _named("Will", "Will is coming")
    (False, False, True)

    Nor is a month said as one (In May, by June 5th), nor a word that opens an order (Mark my words):

    >>> _named("May", "In May I will travel"), _named("June", "See you June 5th"), _named("May", "May is coming")
    (False, False, True)
    >>> _named("May", "a gift of May's")
    True
    >>> _named("Mark", "Mark my words"), _named("Mark", "Mark's bike"), _named("Mark", "Ask Mark")
    (False, True, True)

    A member after a word that could say a month is still named when no month is said (helper):

    >>> _named("May", "a letter from May"), _named("May", "Before May moved"), _named("June", "until June arrives")
    (True, True, True)
    """
    if len(name) < 2:
        return False
    if has_cjk(name):
        return name in text
    for match in re.finditer(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", text):
        start, end = match.start(), match.end()
        if name.lower() in EN_STOPWORDS and _opens_a_question(text, start, end):
            continue
        if (name.lower() in MONTHS and _a_month(text, start, end)) or _opens_an_order(text, start, end):
            continue
        return True
    return False


# a month said as one: after a word of when and before a new subject, a comma or the end (in May I will…,
# since May, she…), or before its day or year (June 5th, on May 5, the 5th of May); after from/by/of or
# before a verb it is the member (a letter from May, before May moved, until June arrives)
_BEFORE_MONTH = re.compile(
    r"(?:\b(?:in|since|until|till|before|after|during|through|early|late|mid|next|last|this|every)"
    r"|\d(?:st|nd|rd|th)?\s+of)\W*$",
    re.IGNORECASE,
)
_AFTER_MONTH = re.compile(r"^\s+(?:[0-3]?\d(?:st|nd|rd|th)?|\d{4})\b")
_AFTER_A_MONTH = re.compile(
    r"^(?:\s*(?:[,.;:!?)\]]|$)|\s+(?:i|you|he|she|it|we|they|the|a|an|this|that|my|your|his|her|our|their"
    r"|and|or|but|when|while|so|because|to|for|at|on|in)\b)",
    re.IGNORECASE,
)
# whom or what an order is given about (Mark my words, Bill me later): a name is followed by its verb or 's
_ORDERED = frozenset("my your his her our their me him us them it this that these those the".split())


def _a_month(text: str, start: int, end: int) -> bool:
    """(a friend of May's is May's, not a month's)

    >>> _a_month("Since May, she works", 6, 9), _a_month("the 5th of May", 11, 14), _a_month("from May", 5, 8)
    (True, True, False)
    """
    if text[end : end + 2] in ("'s", "’s"):
        return False
    if _AFTER_MONTH.match(text[end:]):
        return True
    return bool(_BEFORE_MONTH.search(text[:start]) and _AFTER_A_MONTH.match(text[end:]))


def _opens_an_order(text: str, start: int, end: int) -> bool:
    """Whether the word at ``start``:``end`` opens its sentence as a verb does an order: what follows is
    whom or what it is done to (Mark my words), not the name's verb (Mark is coming) nor 's."""
    before = text[:start].rstrip(" \t\"'“‘(")
    after = text[end:].split(maxsplit=1)
    opens = not before or before[-1] in ".!?:\n。！？："
    return opens and bool(after) and after[0].lower() in _ORDERED


# who or what a sentence's opening auxiliary asks about (Will you…, May I…, Can the hike…): a name is followed
# by its verb instead (Will is coming)
_ASKED_OF = frozenset(
    "i you he she it we they there this that these those the a an my your his her our their anyone anybody"
    " someone somebody everyone everybody".split()
)


def _opens_a_question(text: str, start: int, end: int) -> bool:
    """Whether the word at ``start``:``end`` opens its sentence (or what a colon quotes) and is followed by whom
    it asks of."""
    before = text[:start].rstrip(" \t\"'“‘(")
    after = text[end:].split(maxsplit=1)
    opens = not before or before[-1] in ".!?:\n。！？："  # He asked: Will you come?
    return opens and bool(after) and after[0].lower() in _ASKED_OF


def _passed_on(text: str) -> bool:
    """Whether a message is only someone else's words: a bare forward or quote."""
    relay = relay_of(text)
    return relay is not None and not relay.own


def _pronoun_named(description: str, pronoun: str, name: str) -> str:
    """``description`` with the one ``pronoun`` it says made ``name``; "" (rebuilt) when it says it twice.

    >>> _pronoun_named("小雨认识他", "他", "周屿"), _pronoun_named("Ann met him", "him", "Tom")
    ('小雨认识周屿', 'Ann met Tom')
    """
    said = list(re.finditer(rf"(?<![A-Za-z]){re.escape(pronoun)}(?![A-Za-z们])", description, re.IGNORECASE))
    if len(said) != 1:
        return ""
    return description[: said[0].start()] + name + description[said[0].end() :]


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
        # another member's or the agent's name is no alias, as on the rule path: 叫我小雨 does not make 阿杰 her
        aliases = [
            a for a in _strings(item.get("aliases"), limit=20) if a != name and not context.roster.someone_else(a, name)
        ]
        if name == context.roster.agent_name and not context.private:
            # a member's 以后祈煜就叫阿杰的仆人 names no one the agent is: only its own lines may
            aliases = [a for a in aliases if any(a in m.text for m in context.own_lines())]
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
