"""Step a: merge entities that name one thing (seed 004 §5.1 节点去重; seed 002: 霓霓 → 苏霓).

Two kinds of evidence, strong first:

1. **Names** (no similarity needed): two entities share a name or alias; one person record lists both
   names (the person table's aliases); a fact says they are one (霓霓 —就是→ 苏霓, 木木 —本名是→ 李木);
   a memory's text says so ("霓霓就是苏霓", "霓霓是苏霓的小名").
2. **Similarity** over a bounded candidate set (``Store.similar_entities``, top k = 5 per entity):
   cosine ≥ 0.95 merges; 0.85–0.95 merges only with the same type, agreeing neighbours (the other
   entities and values they share facts with, hubs such as the person and the agent left out: Jaccard
   overlap ≥ 0.5 with one shared at least) and names that agree (one holds the other, or they share two
   characters): a shared neighbourhood alone is no evidence (issue #13: 汪曾祺的散文 → 布偶猫汤圆).
   Since a small multilingual embedder rates short names high
   (e5: 咖啡/咖啡店 0.97), a similarity merge also needs the same type, and is vetoed for persons
   (客体: names of people carry no meaning; ``similar_persons`` turns this off) and the agent, and when
   one extracted memory (event, fact, note) names both separately — then they are two things.

The surviving entity is the person's own name if one is, else the higher type (主体 > 客体 > 具体 >
泛化), a name without a doubled character (霓霓, 团团 are pet names), the one with more sources, then
the smaller id. Merges go through ``Store.merge_entities``, so they are recorded and can be undone.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Iterable

from huiyi.flows.consolidate.state import State, norm, person_names
from huiyi.model import Entity, EntityType, MemoryKind

__all__ = ["merge_duplicate_entities"]

log = logging.getLogger(__name__)

_TYPE_RANK = {EntityType.SUBJECT: 3, EntityType.OBJECT: 2, EntityType.SPECIFIC: 1, EntityType.GENERIC: 0}
_EXTRACTED = (MemoryKind.EVENT, MemoryKind.FACT, MemoryKind.NOTE)  # third-person statements, unlike chunks
_MIN_NAME = 2  # shorter names are not looked for inside texts


def merge_duplicate_entities(state: State, probe_names: Iterable[str] | None = None) -> int:
    """Find and record merges; returns how many. ``probe_names`` bounds the similarity search to the
    entities named there (the memories new since the last run); None probes every entity."""
    if len(state.entities) < 2:
        return 0
    merged = 0
    speakers = _speakers(state)
    # an operator's undo stands: the next run merged the two again on the same evidence (helper)
    undone = {frozenset((m.source, m.target)) for m in state.store.list_merges(state.agent) if m.undone}
    for source, target, reason in _strong_pairs(state):
        if _two_speakers(state, speakers, source, target):
            # issue: 小黑 saying 苏霓就是小黑 (or 叫我苏霓 before she spoke) must not make two members one
            log.debug("not merging %s and %s (%s): two people who spoke", source, target, reason)
            continue
        merged += _merge(state, source, target, reason, undone)
    neighbours = _neighbours(state)
    for source, target, reason in _similar_pairs(state, neighbours, probe_names):
        merged += _merge(state, source, target, reason, undone)
    log.info("consolidate %s: %d entity merges", state.scope.tag, merged)
    return merged


# evidence by name ----------------------------------------------------------------------------------------
def _strong_pairs(state: State) -> Iterable[tuple[str, str, str]]:
    config = state.config.entities
    names: dict[str, list[str]] = defaultdict(list)  # normalised name -> entity ids
    for entity in state.entities.values():
        for name in entity.names:
            if entity.id not in names[norm(name)]:
                names[norm(name)].append(entity.id)
    for name, ids in names.items():
        for other in ids[1:]:
            yield ids[0], other, f"both are called {name}"
    for person in state.persons:
        ids = list(dict.fromkeys(i for n in person_names(person) for i in names.get(norm(n), [])))
        for other in ids[1:]:
            yield (
                ids[0],
                other,
                f"the person record of {person.name or person.id} lists {', '.join(person_names(person))}",
            )
    identity = {norm(p) for p in config.identity_predicates}
    for item in state.items.values():
        if item.kind is not MemoryKind.FACT:
            continue
        fact = item.fact
        if norm(fact.predicate) in identity:
            left, right = (
                names.get(norm(fact.subject), []),
                names.get(norm(fact.object), []),
            )
            if left and right and left[0] != right[0]:
                yield left[0], right[0], f"fact {item.id}: {item.text}"
    yield from _identity_statements(state, names)


def _identity_statements(state: State, names: dict[str, list[str]]) -> Iterable[tuple[str, str, str]]:
    patterns = [p.lower() for p in state.config.entities.identity_patterns]
    middles = {re.sub(r"\{[ab]\}", "\0", p).strip("\0").split("\0")[0] for p in patterns}
    middles.discard("")
    known = [n for n in names if len(n) >= _MIN_NAME]
    for item in state.items.values():
        text = item.text.lower()
        if not any(m in text for m in middles):
            continue
        present = [n for n in known if n in text]
        for a in present:
            for b in present:
                if a == b or names[a][0] == names[b][0]:
                    continue
                for pattern in patterns:
                    if pattern.format(a=a, b=b) in text:
                        yield names[a][0], names[b][0], f"{item.id} says “{pattern.format(a=a, b=b)}”"
                        break


def _speakers(state: State) -> dict[str, str]:
    """Each name of someone who spoke in the scope (a chunk's participant: their id, and their person
    record's names) -> their id; a name two of them go by is left out, but each id names its own speaker
    as written (members ``Bob`` and ``bob`` are two, though their names normalise alike)."""
    ids = {p for item in state.items.values() if item.kind is MemoryKind.CHUNK for p in item.participants}
    out: dict[str, str] = {_EXACT + speaker: speaker for speaker in ids}
    taken: set[str] = set()
    for speaker in ids:
        names = [speaker, *state.person_aliases(speaker)]
        for name in dict.fromkeys(norm(n) for n in names):
            if out.setdefault(name, speaker) != speaker:
                taken.add(name)
    return {name: speaker for name, speaker in out.items() if name not in taken}


_EXACT = "\x00"  # marks a speaker's id as written among the normalised names of ``_speakers``


def _speaker_of(speakers: dict[str, str], name: str) -> str | None:
    return speakers.get(_EXACT + name) or speakers.get(norm(name))


def _two_speakers(state: State, speakers: dict[str, str], a: str, b: str) -> bool:
    """Whether the entities (with what they absorbed already) are named as two different speakers:
    people are told apart by who said what, which no name in the chat overrules."""
    ra, rb = state.root(a), state.root(b)
    found = [
        {s for e in state.entities.values() if state.root(e.id) == root if (s := _speaker_of(speakers, e.name))}
        for root in (ra, rb)
    ]
    return bool(found[0] and found[1] and not found[0] & found[1])


# evidence by similarity ------------------------------------------------------------------------------------
def _neighbours(state: State) -> dict[str, set[str]]:
    """Canonical key -> the keys it shares facts with, hubs left out."""
    out: dict[str, set[str]] = defaultdict(set)
    for item in state.items.values():
        view = state.fact(item)
        if view is None or not item.fact.object.strip():
            continue
        out[view.subject].add(view.object)
        out[view.object].add(view.subject)
    linked = [key for key, found in out.items() if found]
    limit = state.config.entities.hub_share * len(linked)
    hubs = {key for key in linked if len(out[key]) >= 3 and len(out[key]) > limit}
    return {key: found - hubs for key, found in out.items()}


def _similar_pairs(
    state: State, neighbours: dict[str, set[str]], probe_names: Iterable[str] | None
) -> Iterable[tuple[str, str, str]]:
    config = state.config.entities
    probes = list(state.entities.values())
    if probe_names is not None:
        wanted = {norm(n) for n in probe_names}
        probes = [e for e in probes if any(norm(n) in wanted for n in e.names)]
    if not probes:
        return
    vectors = state.embedder.embed_passages([e.name for e in probes])
    mentions = _Mentions([item.text for item in state.items.values() if item.kind in _EXTRACTED])
    seen: set[frozenset[str]] = set()
    for entity, vector in zip(probes, vectors, strict=True):
        for other, similarity in state.store.similar_entities([state.scope], vector, config.candidates + 1):
            pair = frozenset((entity.id, other.id))
            if other.id == entity.id or pair in seen or other.id not in state.entities:
                continue
            seen.add(pair)
            if similarity < config.candidate_threshold or state.root(entity.id) == state.root(other.id):
                continue
            why = f"similarity {similarity:.3f}, both {entity.type.value}"
            if similarity < config.merge_threshold:
                mine = neighbours.get(state.root(entity.id), set()) - {state.root(other.id)}
                theirs = neighbours.get(state.root(other.id), set()) - {state.root(entity.id)}
                shared = mine & theirs
                overlap = len(shared) / len(mine | theirs) if shared else 0.0
                if overlap < config.neighbour_overlap:
                    continue
                names = ", ".join(sorted(state.display(k) for k in shared))
                # issue #13: two things of one person share her as a neighbour (汪曾祺的散文, 布偶猫汤圆 0.892);
                # in the band a shared neighbourhood is not evidence without names that agree
                if config.band_needs_names and not _names_agree(entity, other):
                    log.debug("not merging %s and %s: only neighbours agree (%s)", entity.name, other.name, names)
                    continue
                why += f", neighbours agree ({names}; overlap {overlap:.2f})"
            veto = _veto(state, entity, other, mentions)
            if veto:
                log.debug("not merging %s and %s (%s): %s", entity.name, other.name, why, veto)
                continue
            yield entity.id, other.id, why


def _names_agree(a: Entity, b: Entity) -> bool:
    """Name evidence for a merge in the similarity band: one name holds the other (南京大学 / 南大 by
    its characters), or two names share two characters or more (星巴克 / 星爸爸 share one).

    >>> from huiyi.model import Scope
    >>> e = lambda name, *aliases: Entity(scope=Scope.official("a"), name=name, aliases=list(aliases))
    >>> _names_agree(e("南京大学"), e("南大")), _names_agree(e("汪曾祺的散文"), e("布偶猫汤圆", "汤圆"))
    (True, False)
    """
    for x in (norm(n) for n in a.names):
        for y in (norm(n) for n in b.names):
            if len(x) >= _MIN_NAME and len(y) >= _MIN_NAME and (x in y or y in x or len(set(x) & set(y)) >= 2):
                return True
    return False


class _Mentions:
    """Which extracted memories name a name, computed once per name."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = [norm(t) for t in texts]
        self._found: dict[str, set[int]] = {}

    def of(self, name: str) -> set[int]:
        if name not in self._found:
            self._found[name] = {i for i, text in enumerate(self.texts) if name in text} if name else set()
        return self._found[name]

    def apart(self, x: str, y: str) -> bool:
        """Whether one memory names both, each outside the other (咖啡 apart from 咖啡豆)."""
        longer, shorter = (x, y) if len(x) >= len(y) else (y, x)
        for i in self.of(x) & self.of(y):
            if shorter not in longer or shorter in self.texts[i].replace(longer, "\0"):
                return True
        return False


def _veto(state: State, a: Entity, b: Entity, mentions: _Mentions) -> str:
    if a.type is not b.type:
        return "different types"
    if EntityType.SUBJECT in (a.type, b.type):
        return "the agent is one"
    if a.type is EntityType.OBJECT and not state.config.entities.similar_persons:
        return "persons merge on name evidence only"
    people = {state.person_of(n) for n in a.names} - {None}, {state.person_of(n) for n in b.names} - {None}
    if people[0] and people[1] and not people[0] & people[1]:
        return "two different persons"
    if any(mentions.apart(norm(x), norm(y)) for x in a.names for y in b.names):
        return "one memory names both"
    return ""


# applying ----------------------------------------------------------------------------------------------------
def _rank(state: State, entity: Entity) -> tuple[int, int, int, int]:
    own = {norm(p.name or p.id) for p in state.persons} | {norm(p.id) for p in state.persons}
    plain = len(set(entity.name)) == len(entity.name)
    return (int(norm(entity.name) in own), _TYPE_RANK[entity.type], int(plain), len(entity.sources))


def _merge(state: State, a: str, b: str, reason: str, undone: set[frozenset[str]]) -> int:
    ra, rb = state.root(a), state.root(b)
    if ra == rb:
        return 0
    if frozenset((a, b)) in undone or frozenset((ra, rb)) in undone:
        log.debug("not merging %s and %s (%s): a merge of them was undone", a, b, reason)
        return 0
    first, second = state.entities[ra], state.entities[rb]
    rank_a, rank_b = _rank(state, first), _rank(state, second)
    if rank_a != rank_b:
        target, source = (first, second) if rank_a > rank_b else (second, first)
    else:
        target, source = (first, second) if first.id < second.id else (second, first)
    state.merge(source.id, target.id, reason)
    names = list(dict.fromkeys([*_all_names(state, target.id), *_all_names(state, source.id)]))
    state.report.add(
        "entities",
        "merge_entity",
        [source.id, target.id],
        {"source": source.name, "target": target.name},
        {"name": target.name, "aliases": [n for n in names if n != target.name]},
        reason,
    )
    return 1


def _all_names(state: State, root: str) -> list[str]:
    return [n for e in state.entities.values() if state.root(e.id) == root for n in e.names]
