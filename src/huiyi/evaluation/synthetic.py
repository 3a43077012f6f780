"""A deterministic generator of realistic synthetic chat: one agent, many persons, Chinese and English.

Every person chats with the agent in their own language (most in Chinese). Their chat is everyday
talk on recurring topics (work, food, pets, films, exams, family, travel…), and among it a few
*planted facts*, one per fact type ("my cat is called 豆包"), each with a probe: a question the person
might ask later ("我家猫叫什么名字来着？") whose gold answer is the message that planted it. Everyday
lines touch the same topics as the facts, so a probe is not answered by one rare word.

The same seed always gives the same persons, lines, times, facts and probes, on any machine and in
any process (``random.Random`` seeded with strings). Each person is generated from its own seed, so
person 7 is the same whether 10 or 1000 persons are made, and persons can be streamed one at a time.

    >>> people = persons(3, seed=1)
    >>> [p.id for p in people]
    ['p00000', 'p00001', 'p00002']
    >>> chat = person_chat(people[0], 40, seed=1, facts=2)
    >>> len(chat.messages), len(chat.probes)
    (40, 2)
    >>> chat.probes[0].gold in {m.id for m in chat.messages}
    True
    >>> person_chat(people[0], 40, seed=1, facts=2) == chat
    True
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from huiyi.evaluation.synthetic_vocab import (
    EN_ASSISTANT,
    EN_FACTS,
    EN_FIRST,
    EN_LAST,
    EN_USER,
    FACT_GROUPS,
    ZH_ASSISTANT,
    ZH_FACTS,
    ZH_GIVEN,
    ZH_SURNAMES,
    ZH_USER,
    FactType,
    Language,
    Role,
    fill_slots,
)

__all__ = [
    "AGENT",
    "FACT_GROUPS",
    "REFERENCE_TIME",
    "FactType",
    "Language",
    "PersonChat",
    "PoolLine",
    "Role",
    "SynthMessage",
    "SynthPerson",
    "SynthProbe",
    "assistant_line",
    "chats",
    "line_pool",
    "person",
    "person_chat",
    "persons",
    "planted_fact",
    "probe_file",
    "template_choices",
    "template_line",
    "templates",
    "user_line",
]

AGENT = "祈煜"
REFERENCE_TIME = datetime(2024, 6, 1, 12, 0)  # chats end before this; probes are asked at it

# ------------------------------------------------------------------------------------------------
# data


@dataclass(frozen=True)
class SynthPerson:
    id: str
    name: str
    language: Language


@dataclass(frozen=True)
class SynthMessage:
    id: str
    person: str
    role: Role
    speaker: str
    text: str
    time: datetime

    def as_input(self) -> dict[str, Any]:
        """The shape ``Memory.add`` takes."""
        return {"id": self.id, "role": self.role, "speaker": self.speaker, "text": self.text, "time": self.time}


@dataclass(frozen=True)
class SynthProbe:
    id: str
    person: str
    query: str
    gold: str  # the id of the message (or memory) that planted the fact
    fact: str  # the planted line
    group: str
    language: Language
    time: datetime = REFERENCE_TIME


@dataclass
class PersonChat:
    person: SynthPerson
    messages: list[SynthMessage] = field(default_factory=list)
    probes: list[SynthProbe] = field(default_factory=list)


def person(index: int, seed: int = 0, zh_share: float = 0.7) -> SynthPerson:
    """Person ``index``: the same for a given seed, however many persons are made."""
    rng = random.Random(f"huiyi-synth:{seed}:person:{index}")
    if rng.random() < zh_share:
        return SynthPerson(f"p{index:05d}", rng.choice(ZH_SURNAMES) + rng.choice(ZH_GIVEN), "zh")
    return SynthPerson(f"p{index:05d}", f"{rng.choice(EN_FIRST)} {rng.choice(EN_LAST)}", "en")


def persons(count: int, seed: int = 0, zh_share: float = 0.7) -> list[SynthPerson]:
    return [person(i, seed, zh_share) for i in range(count)]


def planted_fact(who: SynthPerson, group_index: int, seed: int = 0) -> tuple[str, str, str]:
    """(group, fact line, probe query) for one person and fact type; the same for a given seed."""
    facts = ZH_FACTS if who.language == "zh" else EN_FACTS
    fact_type = facts[group_index % len(facts)]
    rng = random.Random(f"huiyi-synth:{seed}:fact:{who.id}:{fact_type.group}")
    values: dict[str, str] = {}
    text = fill_slots(fact_type.fact, who.language, rng, values)
    query = fill_slots(fact_type.query, who.language, rng, values)  # "my sister" in both
    return fact_type.group, text, query


def user_line(language: Language, rng: random.Random) -> tuple[str, str]:
    """(topic, line) of everyday talk from a person."""
    topic, pattern = rng.choice(ZH_USER if language == "zh" else EN_USER)
    return topic, fill_slots(pattern, language, rng)


def assistant_line(language: Language, rng: random.Random) -> str:
    _, pattern = rng.choice(ZH_ASSISTANT if language == "zh" else EN_ASSISTANT)
    return fill_slots(pattern, language, rng)


def person_chat(
    who: SynthPerson,
    n_messages: int,
    seed: int = 0,
    facts: int = 3,
    agent: str = AGENT,
    end: datetime = REFERENCE_TIME,
) -> PersonChat:
    """``n_messages`` alternating turns (the person speaks first) ending before ``end``.

    ``facts`` user turns (at most one per fact type) are planted facts, each with a probe.
    """
    rng = random.Random(f"huiyi-synth:{seed}:chat:{who.id}")
    user_turns = (n_messages + 1) // 2
    facts = min(facts, len(FACT_GROUPS), user_turns)
    groups = rng.sample(range(len(FACT_GROUPS)), facts)
    planted_at = dict(zip(sorted(rng.sample(range(user_turns), facts)), groups, strict=True))
    # times: the person's turns spread over the last half year, each answered within two minutes
    span = timedelta(days=180).total_seconds()
    starts = sorted(rng.uniform(0, span - 300) for _ in range(user_turns))
    first = end - timedelta(days=180)
    chat = PersonChat(who)
    for index in range(n_messages):
        message_id = f"{who.id}-m{index:06d}"
        when = first + timedelta(seconds=int(starts[index // 2]) + (rng.randint(10, 120) if index % 2 else 0))
        if index % 2 == 0:
            turn = index // 2
            if turn in planted_at:
                group, text, query = planted_fact(who, planted_at[turn], seed)
                chat.probes.append(
                    SynthProbe(
                        f"{who.id}-q{len(chat.probes)}", who.id, query, message_id, text, group, who.language, end
                    )
                )
            else:
                text = user_line(who.language, rng)[1]
            chat.messages.append(SynthMessage(message_id, who.id, "user", who.name, text, when))
        else:
            chat.messages.append(
                SynthMessage(message_id, who.id, "assistant", agent, assistant_line(who.language, rng), when)
            )
    return chat


def chats(
    n_persons: int, messages_per_person: int, seed: int = 0, facts: int = 3, zh_share: float = 0.7
) -> Iterator[PersonChat]:
    """One chat per person, streamed."""
    for index in range(n_persons):
        yield person_chat(person(index, seed, zh_share), messages_per_person, seed, facts)


# ------------------------------------------------------------------------------------------------
# a pool of lines for cheap vectors at scale


@dataclass(frozen=True)
class PoolLine:
    template: int  # index into templates()
    text: str


_TEMPLATES: list[tuple[Language, Role, str]] = [
    *(("zh", "user", p) for _, p in ZH_USER),
    *(("en", "user", p) for _, p in EN_USER),
    *(("zh", "assistant", p) for _, p in ZH_ASSISTANT),
    *(("en", "assistant", p) for _, p in EN_ASSISTANT),
]


def templates() -> list[tuple[Language, Role, str]]:
    """Every everyday pattern: (language, role, pattern)."""
    return list(_TEMPLATES)


def line_pool(per_template: int = 8, seed: int = 0) -> list[PoolLine]:
    """``per_template`` distinct fillings of every everyday pattern (fewer when it has few)."""
    out: list[PoolLine] = []
    for index, (language, _, pattern) in enumerate(templates()):
        rng = random.Random(f"huiyi-synth:{seed}:pool:{index}")
        seen: set[str] = set()
        for _ in range(per_template * 4):
            text = fill_slots(pattern, language, rng)
            if text not in seen:
                seen.add(text)
                out.append(PoolLine(index, text))
            if len(seen) >= per_template:
                break
    return out


def template_line(template: int, rng: random.Random) -> str:
    """A fresh filling of one everyday pattern."""
    language, _, pattern = _TEMPLATES[template]
    return fill_slots(pattern, language, rng)


def template_choices(language: Language, role: Role) -> Sequence[int]:
    return [i for i, (lang, r, _) in enumerate(_TEMPLATES) if lang == language and r == role]


# ------------------------------------------------------------------------------------------------
# the probe format (eval README), so ``huiyi eval probes`` can score the synthetic chat


def probe_file(chats_: Sequence[PersonChat], name: str = "synthetic", agent: str = AGENT) -> dict[str, Any]:
    """One case holding every person's private chat, and their probes (asked by name).

    Names that repeat across persons get a number, since the probe format names persons by speaker.
    """
    names: dict[str, str] = {}
    taken: set[str] = set()
    for chat in chats_:
        label, n = chat.person.name, 1
        while label in taken:
            n += 1
            label = f"{chat.person.name}{n}"
        taken.add(label)
        names[chat.person.id] = label
    messages = [
        {
            "id": m.id,
            "space": f"dm:{m.person}",
            "speaker": names[m.person] if m.role == "user" else agent,
            "role": m.role,
            "text": m.text,
            "time": m.time.isoformat(),
        }
        for chat in chats_
        for m in chat.messages
    ]
    probes = [
        {
            "id": p.id,
            "query": p.query,
            "context": [],
            "person": names[p.person],
            "time": p.time.isoformat(),
            "gold": [p.gold],
            "group": p.group,
        }
        for chat in chats_
        for p in chat.probes
    ]
    case = {"id": name, "agent": agent, "language": "zh", "messages": messages, "probes": probes}
    return {"name": name, "cases": [case]}
