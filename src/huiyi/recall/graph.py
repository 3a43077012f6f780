"""The graph under recall's routes: entities a query mentions, and walks along memory links.

Seed 004 §12.3: a query with causal words (为什么, 因为, 导致, why…) or relation words (有关, 关于, about…)
expands from the memories found along their links, breadth-first to depth 2, each hop scoring
1/distance. Seed 002 §3.12: names and aliases in the query (霓霓 for 苏霓) reach a person's memories
even when that person has not spoken for a long time.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from huiyi.model import Entity, Link
from huiyi.patterns import lazy
from huiyi.store.base import Store
from huiyi.text import tokens

CAUSAL = lazy(r"为什么|为何|因为|所以|导致|原因|怎么会|结果|\bwhy\b|\bbecause\b|\bcaused?\b|\breason\b", re.I)
RELATION = lazy(r"有关|关于|相关|关系|联系|\babout\b|\brelated\b|\bregarding\b|\brelationship\b", re.I)


def mentioned(entities: Sequence[Entity], text: str) -> list[Entity]:
    """Entities whose name or an alias appears in ``text`` (longest names first, each text span once).

    >>> from huiyi.model import Scope
    >>> scope = Scope.of_space("bot", "g1")
    >>> suni = Entity(scope=scope, name="苏霓", aliases=["霓霓"])
    >>> [e.name for e in mentioned([suni], "霓霓最近怎么样")]
    ['苏霓']
    >>> neko = Entity(scope=scope, name="NekoChan")
    >>> [e.name for e in mentioned([neko], "NekoChan下礼拜六有什么安排")], mentioned([neko], "nekochans")
    (['NekoChan'], [])
    """
    lowered = text.lower()
    names = sorted(
        ((name.lower(), entity) for entity in entities for name in entity.names if len(name.strip()) >= 2),
        key=lambda pair: -len(pair[0]),
    )
    taken: list[tuple[int, int]] = []
    found: dict[str, Entity] = {}
    for name, entity in names:
        if name not in lowered:  # most names are not in the text: no pattern to build and run for them
            continue
        # a Latin name ends where Latin letters and digits do: “NekoChan下礼拜六” names NekoChan, though
        # \b sees no boundary between n and 下
        pattern = re.escape(name) if tokens.has_cjk(name) else rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])"
        for match in re.finditer(pattern, lowered):
            span = (match.start(), match.end())
            if any(span[0] < end and start < span[1] for start, end in taken):
                continue
            taken.append(span)
            found.setdefault(entity.id, entity)
    return list(found.values())


def expand(
    store: Store, agent: str, seeds: Sequence[str], depth: int, limit: int, visible: Collection[str] | None = None
) -> dict[str, int]:
    """Memories reachable from ``seeds`` along links, breadth-first, with their distance (1 or 2).

    Seeds themselves are left out; each hop is bounded by ``limit`` new memories. ``visible``: the scope
    tags the asker may read; a memory of any other scope is neither reached nor walked through, so
    someone else's private memories and their links never steer this recall (nor fill its ``limit``).
    """
    distance: dict[str, int] = {seed: 0 for seed in seeds}
    frontier = list(seeds)
    for hop in range(1, depth + 1):
        if not frontier:
            break
        links: list[Link] = store.links_of(agent, frontier)
        ends = (other for link in sorted(links, key=lambda x: -x.weight) for other in (link.source, link.target))
        fresh = list(dict.fromkeys(other for other in ends if other not in distance))
        if visible is not None and fresh:
            seen = {row.id for row in store.rank_rows(agent, fresh) if row.scope in visible}
            fresh = [other for other in fresh if other in seen]
        frontier = fresh[:limit]
        distance.update((other, hop) for other in frontier)
    return {memory_id: d for memory_id, d in distance.items() if d > 0}
