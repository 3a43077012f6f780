"""The answer of seed 000 §12's ``/query``: events in recall order, facts as memory entities in seed 000 §7's
groups, each entity with the words that hit it (``matched_keywords``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from huiyi.faces.http_models import MemoryEntity, MemoryEvent, QueryResponse
from huiyi.model import FactData, MemoryKind, RecallHit, RecallResult
from huiyi.recall.facts import Owner, group_facts
from huiyi.recall.rerank import matched_words

__all__ = ["FACT_LABELS", "query_response", "searched_words"]

# seed 000 §12 /query: the kind of each fact, by the seed 000 §7 group it falls in
FACT_LABELS = {
    (Owner.PERSON, True): "用户关系",
    (Owner.PERSON, False): "用户属性",
    (Owner.AGENT, True): "主体关系",
    (Owner.AGENT, False): "主体属性",
    (Owner.ENTITY, True): "其他关系",
    (Owner.ENTITY, False): "其他属性",
    (Owner.NONE, False): "其他属性",
}


def searched_words(info: Mapping[str, Any]) -> list[str]:
    """The words recall searched for, as its ``info`` tells them: the query's own (the keyword route's) and,
    when the 联想词 route ran, its associated words. A word the recipe never searched hit nothing.

    >>> searched_words({"words": ["红色"], "expanded_words": [{"玫瑰": 6}, {"红色": 5}]})
    ['红色', '玫瑰']
    """
    words = [str(w) for w in info.get("words", [])]
    words += [str(w) for level in info.get("expanded_words", []) for w in level]
    return list(dict.fromkeys(words))


def query_response(
    result: RecallResult,
    person: str | None,
    *,
    agent: str,
    person_names: Sequence[str] = (),
    similarity: dict[str, float] | None = None,
) -> QueryResponse:
    """Events in recall order; facts in seed 000 §7 groups (as render shows them), recall order within."""
    events: list[MemoryEvent] = []
    facts: list[tuple[RecallHit, FactData]] = []
    for hit in result.hits:
        if hit.kind is MemoryKind.FACT:
            facts.append((hit, FactData.from_data(hit.data)))
        else:
            events.append(
                MemoryEvent(
                    id=len(events),
                    score=hit.score,
                    index=hit.id,
                    kind=hit.kind,
                    description=hit.text,
                    deepinsight=hit.insight,
                    place=hit.place,
                    updatetime=hit.time,
                    keyword=hit.keywords,
                    sources=hit.sources,
                    route_scores=hit.route_scores,
                    similarity=(similarity or {}).get(hit.id),
                    log=_log(hit),
                )
            )
    edges = {hit.id: fact for hit, fact in facts}
    words = searched_words(result.info) if facts else []
    entities: list[MemoryEntity] = []
    for group in group_facts(facts, agent=agent, person=person, person_names=person_names):
        kind = FACT_LABELS[group.owner, group.relation]
        for hit in group.items:
            entities.append(_entity(len(entities), hit, edges[hit.id], kind, words))
    info: dict[str, Any] = {"query": result.query, "timings_ms": result.timings_ms, **result.info}
    return QueryResponse(memory_events=events, memory_entities=entities, additional_info=info)


def _log(hit: RecallHit) -> str:
    return f"[{hit.kind.value}] score={hit.score:.4f} index={hit.id} {hit.text}"


def _entity(rank: int, hit: RecallHit, fact: FactData, kind: str, words: Sequence[str]) -> MemoryEntity:
    return MemoryEntity(
        id=rank,
        kind=kind,
        score=hit.score,
        index=hit.id,
        description=hit.text,
        updatetime=hit.time,
        matched_keywords=matched_words(words, [*hit.keywords, fact.keyword], hit.text),
        keyword=fact.keyword,
        subject=fact.subject,
        predicate=fact.predicate,
        object=fact.object,
        sources=hit.sources,
        log=_log(hit),
    )
