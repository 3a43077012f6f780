"""The routes of recall: each finds candidate memories one way and returns them as :class:`Hits`.

- dense: exact cosine over the visible scopes (its scores also cover other routes' candidates);
- keyword: BM25 over the query's content words and their CJK characters;
- speaker: the memories of a person the query names, through the index's speaker field;
- entity: names and aliases of the scopes' entities found in the query (seed 002 §3.12), so 霓霓 finds
  what was said about 苏霓 even if she has not spoken for weeks;
- expand: the query's 联想词 (seed 000 §10–11) as keywords, one search per band of association levels;
- graph: from the best candidates along memory links (seed 004 §12.3), with the distance of each.

A new route is one function here (``(Ask, limit) -> Hits``) and one weight in the recipe; the routes
added to the fused candidates by weight are listed in :data:`LATE_ROUTES`.
"""

from __future__ import annotations

import functools
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING, Any

from huiyi.config.recall import RecallRecipe
from huiyi.flows.ingest import GROUP_LOOKBACK, is_group, speaker_term
from huiyi.model import Entity, EntityType, MemoryItem, MemoryKind, Scope, ScopeKind, SummaryData, SummaryKind
from huiyi.providers.embed import Embedder
from huiyi.recall import graph as links
from huiyi.recall.people import people_of
from huiyi.store.base import RouteHits, Store, Terms
from huiyi.text import tokens
from huiyi.text.frames import unframed

if TYPE_CHECKING:
    from huiyi.text.lexicon import Lexicon

__all__ = [
    "LATE_ROUTES",
    "Ask",
    "Hits",
    "absent_profiles",
    "dense",
    "entity",
    "expand",
    "graph",
    "graph_depth",
    "keyword",
    "named_people",
    "query_terms",
    "speaker",
]


@dataclass(frozen=True)
class Ask:
    """One query as every route sees it."""

    store: Store
    embedder: Embedder
    scopes: Sequence[Scope]
    query: str
    terms: Terms
    drop: Sequence[str]  # names that would match everything: the agent's and the person's
    now: datetime
    recipe: RecallRecipe
    lexicon: str = "auto"  # where 联想词 come from (the expand section's neighbours)
    zone: tzinfo = UTC  # whose wall clock ``now`` and the memories' times are; ``created_at`` is UTC
    entities_version: int | None = None  # the scopes' entities version, when the caller read it already
    persons_version: int | None = None  # the agent's persons version, when the caller read it already

    @property
    def agent(self) -> str:
        return self.scopes[0].agent if self.scopes else ""

    @functools.cached_property
    def in_group(self) -> bool:
        """Whether the query is asked in a group chat (:func:`~huiyi.flows.ingest.is_group` on its latest
        turns), read once a query: only there are names out of the keyword text, so out of the query."""
        return any(
            is_group(self.store.recent_messages(self.agent, scope.space_id, GROUP_LOOKBACK))
            for scope in self.scopes
            if scope.kind is ScopeKind.SPACE
        )

    @functools.cached_property
    def entities(self) -> list[Entity]:
        """The scopes' entities (:func:`scope_entities`): their version read once a query, whichever routes ask."""
        return scope_entities(self.store, self.scopes, self.entities_version)

    @functools.cached_property
    def members(self) -> set[str]:
        """The names of the scopes' people (客体 entities): a fact about one of them is theirs."""
        return {name for entity in self.entities if entity.type is EntityType.OBJECT for name in entity.names}


@dataclass
class Hits:
    """What one route found.

    ``searches``: the store's answers, best first, each with a weight relative to the route's own (联想词
    search once per band of levels); ``hops``: memories reached along links, with their distance;
    ``info``: what the route read from the query, for the result; ``ms``: time spent, by step.
    """

    searches: list[tuple[RouteHits, float]] = field(default_factory=list)
    hops: dict[str, int] = field(default_factory=dict)
    info: dict[str, object] = field(default_factory=dict)
    ms: dict[str, float] = field(default_factory=dict)
    vector: Any = None  # the dense route's query vector, for the own-turn evidence (recall.anchor)

    @property
    def first(self) -> RouteHits:
        return self.searches[0][0] if self.searches else RouteHits()


def query_terms(query: str, drop_words: Sequence[str] = (), names: Sequence[str] | None = None) -> Terms:
    """Content words plus the CJK characters of the content words (stopwords out); a who-question's
    frame (是谁说…) is no content (:mod:`huiyi.text.frames`). ``names`` (default: the drop words, the
    caller's names) are cut whole, so that 陈大川 goes as one word rather than leave 陈 and 大川 behind."""
    words = tokens.content_words(unframed(query), drop=drop_words, names=drop_words if names is None else names)
    chars: list[str] = []
    for word in words:
        for char in tokens.chars(word):
            if char not in chars and char not in tokens.ZH_STOPWORDS:
                chars.append(char)
    return Terms(words=words, chars=chars)


def without_time_chars(terms: Terms, phrase: str) -> Terms:
    """``terms`` without the characters of the query's time phrase (前天, 上周二), unless another of its
    words has them: 天 of 前天 matched every 今天, 周 of 上周二 every 小周; the phrase's words stay."""
    kept = {char for word in terms.words if word not in phrase for char in tokens.chars(word)}
    return Terms(words=terms.words, chars=[char for char in terms.chars if char in kept])


def _unnamed(query: str, names: Sequence[str]) -> str:
    """The query without the names of the people it names (longest first, so 苏霓 before 霓)."""
    for name in sorted(names, key=len, reverse=True):
        query = query.replace(name, " ")
    return query


def dense(ask: Ask, limit: int, unnamed: Sequence[str] = ()) -> Hits:
    """Embed the query, then scan the visible scopes exactly. ``unnamed``: names left out of the
    embedded query, the people the speaker route finds by field (passages hold no speaker names)."""
    started = time.perf_counter()
    text = _unnamed(ask.query, unnamed)
    if len("".join(text.split())) < 2:  # “苏霓？”: nothing but the name to go on
        text = ask.query
    vector = ask.embedder.embed_queries([text])[0]
    embed_ms = (time.perf_counter() - started) * 1000
    found = ask.store.search_dense(ask.scopes, vector, limit)
    return Hits(searches=[(found, 1.0)], ms={"embed": embed_ms, "dense": found.ms}, vector=vector)


def keyword(ask: Ask, limit: int, unnamed: Sequence[str] = ()) -> Hits:
    """BM25 over the query's words and characters. ``unnamed``: names left out, as in :func:`dense`;
    left in, they match only the 'X说：' of events and mentions, and crowd out the words that say what
    is asked (measured on the group-day probes)."""
    terms = query_terms(_unnamed(ask.query, unnamed), ask.drop) if unnamed else ask.terms
    found = ask.store.search_keyword(ask.scopes, terms, limit)
    return Hits(searches=[(found, 1.0)], ms={"keyword": found.ms})


_ScopeSet = tuple[tuple[str, str, str], ...]
# one cache per live store object: a store created later can never read an earlier one's entries,
# even when it reuses the freed object's id()
_entity_caches: weakref.WeakKeyDictionary[Store, dict[_ScopeSet, tuple[int, list[Entity]]]] = (
    weakref.WeakKeyDictionary()
)
_entity_lock = threading.Lock()


def scope_entities(store: Store, scopes: Sequence[Scope], version: int | None = None) -> list[Entity]:
    """The entities of the scopes, read again only once a write (in any process) moved their version
    (``version``: as the caller read it, with the pending tail, earlier in the same recall)."""
    key = tuple(sorted((s.agent, s.kind.value, s.key) for s in scopes))
    if version is None:  # before the list: a write between them only reads it again
        version = store.entities_version(scopes)
    with _entity_lock:
        cached = _entity_caches.get(store, {}).get(key)
        if cached is not None and cached[0] == version:
            return cached[1]
    found = store.list_entities(scopes)
    with _entity_lock:
        cache = _entity_caches.setdefault(store, {})
        if len(cache) > 4096:
            cache.clear()
        cache[key] = (version, found)
    return found


def entity(ask: Ask, limit: int) -> Hits:
    """Memories naming an entity the query mentions by another of its names (霓霓 asked, 苏霓 said);
    the caller's own names are excluded."""
    started = time.perf_counter()
    named = [e for e in links.mentioned(ask.entities, ask.query) if not set(e.names) & set(ask.drop)]
    out = Hits(info={"entities": [e.name for e in named]} if named else {})
    # the names the query did not use: the keyword route already searches the ones it did
    folded = ask.query.casefold()
    other_names = [n for e in named for n in e.names if n.casefold() not in folded]
    if other_names:
        terms = Terms(words=list(dict.fromkeys(w for n in other_names for w in tokens.words(n))))
        out.searches.append((ask.store.search_keyword(ask.scopes, terms, limit), 1.0))
    out.ms["entity"] = (time.perf_counter() - started) * 1000
    return out


def named_people(ask: Ask) -> list[str]:
    """Every name of each person the query names, the caller excluded (苏霓 and 霓霓): the scopes' person
    entities (客体; a place or thing is no speaker), and the persons with the aliases a user set."""
    entities = [e for e in ask.entities if e.type is EntityType.OBJECT]
    people = people_of(ask.store, ask.agent, ask.persons_version)
    # persons apart: a stray entity of one name (霓霓, not yet merged) must not hide the person it names
    found = [*people.mentioned(ask.scopes[0], ask.query), *links.mentioned(entities, ask.query)]
    # a nickname no one taught (川哥, 桐桐) names them too, also beside their name (好几天没见顾哥冒泡了 /
    # 顾北辰这趟…): left in the keyword query it matches every line that calls them so
    found += people.nicknamed(ask.scopes[0], entities, ask.query)
    named = [e for e in found if not set(e.names) & set(ask.drop)]
    return list(dict.fromkeys(n for e in named for n in e.names))


def speaker(ask: Ask, limit: int, names: Sequence[str] = ()) -> Hits:
    """Memories by or about a person the query names (``names``: all of their names, 苏霓 and 霓霓), found
    through the index's speaker field, since names are not matched text (issue #13)."""
    started = time.perf_counter()
    out = Hits(info={"speakers": list(names)} if names else {})
    if names:
        # with the query's other words, so that among the person's memories the ones that say what is
        # asked score highest: the speaker bonus grows with this score
        content = query_terms(_unnamed(ask.query, names), ask.drop)
        terms = Terms(words=[*(speaker_term(n) for n in names), *content.words], chars=content.chars)
        out.searches.append((ask.store.search_keyword(ask.scopes, terms, limit), 1.0))
    out.ms["speaker"] = (time.perf_counter() - started) * 1000
    return out


def absent_profiles(ask: Ask, names: Sequence[str]) -> list[MemoryItem]:
    """The global profiles of the people a group question names, the caller's own excepted: how a group
    reaches an absent member (issue #13). Only self-statements are in a global profile (seed 002 §3.11),
    so nothing another chat said about them crosses; every other memory of their scope stays unseen.
    Only a member's: a group where they never spoke never heard what their profile says."""
    spaces = [s for s in ask.scopes if s.kind is ScopeKind.SPACE]
    if not names or not spaces:
        return []
    visible = set(ask.scopes)
    scopes: list[Scope] = []
    for name in names:
        try:
            scope = Scope.of_person(ask.agent, name)
        except ValueError:
            continue
        if scope not in visible and name not in ask.drop:
            scopes.append(scope)
    if not scopes:
        return []
    found = ask.store.list_memories(scopes, kinds=[MemoryKind.SUMMARY], limit=10 * len(scopes))
    profiles = [
        item
        for item in found
        if (data := SummaryData.of(item)).kind is SummaryKind.PROFILE and data.person == item.scope.key
    ]
    people = [item.scope.key for item in profiles]
    members: set[str] = set()
    for space in spaces if people else ():
        members |= ask.store.spoke_in(ask.agent, space.space_id, people)
    return [item for item in profiles if item.scope.key in members]


LEVEL_BANDS = ((7, 99), (5, 6), (0, 4))  # high, middle and low association levels, searched apart


def lexicon_for(neighbours: str) -> Lexicon:
    """The config's lexicon, its modules loaded at the first expansion (issue 15)."""
    from huiyi.text.lexicon import lexicon_for as loaded

    return loaded(neighbours)


def expand(ask: Ask, limit: int) -> Hits:
    """Memories holding the query's associated words, one search per band of levels so that a memory
    found through a likelier association weighs more (level / 9, below the query's own words at 1)."""
    from huiyi.text.expand import expand as expand_words  # here: a recall without 联想词 never loads them

    started = time.perf_counter()
    found = expand_words(ask.query, max_words=ask.recipe.expand_words, drop=ask.drop, lexicon=lexicon_for(ask.lexicon))
    out = Hits(info={"base_words": found.base_words, "expanded_words": [{w: level} for w, level in found.expanded]})
    for low, high in LEVEL_BANDS:
        band = [(w, level) for w, level in found.expanded if low <= level <= high]
        if band:
            weight = min(1.0, max(level for _, level in band) / 9)
            out.searches.append(
                (ask.store.search_keyword(ask.scopes, Terms(words=[w for w, _ in band]), limit), weight)
            )
    out.ms["expand"] = (time.perf_counter() - started) * 1000
    return out


def graph_depth(query: str, recipe: RecallRecipe, best_similarity: float | None = None) -> int:
    """How many hops to follow: asked for (``graph_depth``), else seed 004 §12.3.2's mode decides
    (auto: the planner's causal words 2, relation words 1, and 1 when the best hit's similarity is
    below ``graph_auto_below``; deep: at least 1; fast: none).

    >>> graph_depth("为什么木木不开心", RecallRecipe()), graph_depth("木木不开心", RecallRecipe(graph_mode="deep"))
    (2, 1)
    >>> graph_depth("木木不开心", RecallRecipe(), best_similarity=0.9), graph_depth("木木不开心", RecallRecipe(), 0.6)
    (0, 1)
    """
    if recipe.graph_weight <= 0 or recipe.graph_mode == "fast":
        return 0
    planned = 2 if links.CAUSAL.search(query) else 1 if links.RELATION.search(query) else 0
    if recipe.graph_depth is not None:
        planned = recipe.graph_depth
    elif recipe.graph_mode == "deep":
        planned = max(planned, 1)
    elif best_similarity is not None and best_similarity < recipe.graph_auto_below:
        planned = max(planned, 1)  # the first round found nothing close: widen (seed 004)
    return min(planned, recipe.graph_max_depth)


def graph(ask: Ask, seeds: Sequence[str], depth: int) -> Hits:
    """Memories linked to the seeds within ``depth`` hops, with their distance."""
    started = time.perf_counter()
    visible = {scope.tag for scope in ask.scopes if scope.agent == ask.agent}
    hops = (
        links.expand(ask.store, ask.agent, seeds, depth, ask.recipe.graph_limit, visible) if depth > 0 and seeds else {}
    )
    return Hits(hops=hops, info={"expand_depth": depth}, ms={"graph": (time.perf_counter() - started) * 1000})


# routes whose hits are added to the fused candidates, each weighted by the recipe's ``<name>_weight``
LATE_ROUTES: dict[str, Callable[[Ask, int], Hits]] = {"entity": entity, "expand": expand}
