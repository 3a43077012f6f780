"""A second round of recall from what the first found: multi-hop without an LLM.

A two-step question (“what does the girl Caroline mentors like to paint?”) names the first step only; the
memory that answers it names what the first step found (the girl's name). So the best hits of the first
round become a follow-up query — pseudo-relevance feedback with entity bridging:

- **bridge words**: the TF-IDF keywords, the places and the known entities of the first round's best hits
  that the question itself does not use, searched by BM25 together with the question's own words, so a
  memory matching both the question and what its answer led to ranks first;
- **entity → fact → entity** (seed 004): the facts naming an entity the question mentions (苏霓 —
  works at — 星巴克), and the memories naming the entity at each fact's other end.

Both rounds are fused by adding the second round's hits as a late route (``bridge_weight``). The round
costs a BM25 search or two and no embedding; in ``auto`` mode it runs for the questions seed 004 widens
(causal or relation words, or a first hit that is not close), in ``deep`` mode always, in ``fast`` never.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from huiyi.model import Entity, MemoryKind, RecallHit
from huiyi.recall import graph as links
from huiyi.recall.routes import Ask, Hits
from huiyi.store.base import RouteHits, ScoredId, Terms
from huiyi.text import tokens

__all__ = ["bridge_words", "second_round", "walk"]


def bridge_words(
    query: str, seeds: Sequence[RecallHit], entities: Sequence[Entity], drop: Sequence[str], limit: int
) -> list[str]:
    """What the best hits name that the question does not: their entities, places and keywords.

    >>> from huiyi.model import Scope
    >>> scope = Scope.of_space("bot", "g1")
    >>> hit = RecallHit(id="m", kind=MemoryKind.CHUNK, text="木木说她在南京大学图书馆借了一本《百年孤独》",
    ...                 score=1.0, scope=scope, place="南京")
    >>> bridge_words("木木借了什么书", [hit], [], ["木木"], 4)
    ['南京', '百年孤独', '南京大学', '图书馆']
    """
    from huiyi.text.keywords import keywords  # here: only a recipe with a bridge weight asks (issue 15)

    asked = query.casefold()
    dropped = {d.casefold() for d in drop}
    out: list[str] = []

    def add(word: str) -> None:
        key = word.strip().casefold()
        if len(key) >= 2 and key not in asked and key not in dropped and word.strip() not in out:
            out.append(word.strip())

    for entity in links.mentioned(entities, "\n".join(hit.text for hit in seeds)):
        if not any(name.casefold() in asked for name in entity.names):
            add(entity.name)
    for hit in seeds:
        if hit.place:
            add(hit.place)
    for word in keywords([hit.text for hit in seeds], drop=drop, limit=limit * 2):
        add(word)
    return out[:limit]


def walk(ask: Ask, named: Sequence[Entity], limit: int) -> tuple[list[ScoredId], list[str]]:
    """Entity → fact → entity: the facts naming one of ``named`` (with their search scores), and the
    names at their other ends."""
    names = {n.casefold() for e in named for n in e.names}
    words = list(dict.fromkeys(w for e in named for n in e.names for w in tokens.words(n)))
    if not words:
        return [], []
    found = ask.store.search_keyword(ask.scopes, Terms(words=words), limit)
    items = ask.store.get_memories(ask.agent, [hit.id for hit in found.hits])
    scores = {hit.id: hit for hit in found.hits}
    visible = set(ask.scopes)
    facts: list[ScoredId] = []
    others: list[str] = []
    for item in items:
        if item.kind is not MemoryKind.FACT or item.scope not in visible:
            continue
        edge = item.fact
        ends = [edge.subject, edge.object if edge.object_type is not None else ""]
        if not any(end.casefold() in names for end in ends if end):
            continue
        facts.append(scores[item.id])
        for end in ends:
            if end and end.casefold() not in names and end not in others:
                others.append(end)
    return facts, others


def second_round(ask: Ask, first: Sequence[RecallHit]) -> Hits:
    """The follow-up searches from the first round's best hits (see the module's docstring)."""
    started = time.perf_counter()
    recipe = ask.recipe
    entities = ask.entities
    seeds = list(first[: recipe.bridge_seeds])
    words = bridge_words(ask.query, seeds, entities, ask.drop, recipe.bridge_words)
    out = Hits(info={"bridge_words": words})
    if words:
        terms = Terms(words=[*ask.terms.words, *words], chars=list(ask.terms.chars))
        out.searches.append((ask.store.search_keyword(ask.scopes, terms, recipe.route_candidates), 1.0))
    named = [e for e in links.mentioned(entities, ask.query) if not set(e.names) & set(ask.drop)]
    if named:
        facts, others = walk(ask, named, recipe.route_candidates)
        if others:
            out.info["bridge_entities"] = others
            terms = Terms(words=[*ask.terms.words, *(w for name in others for w in tokens.words(name))])
            out.searches.append((ask.store.search_keyword(ask.scopes, terms, recipe.route_candidates), 1.0))
        if facts:  # the facts themselves answer "what does 苏霓 do": they count, not just their far ends
            out.info["bridge_facts"] = [hit.id for hit in facts]
            out.searches.append((RouteHits(hits=facts), 1.0))
    out.ms["bridge"] = (time.perf_counter() - started) * 1000
    return out
