"""Step d: discover links between events (seed 004 §12.4.3 关联发现), no LLM needed.

1. **Time-adjacent events of one space**: consecutive events of the same space (``data.space``) at
   most ``LinkConfig.window_minutes`` apart (seed 004: one hour) → ``related``, weight 0.5.
2. **Events sharing an entity**: an event's entities are its participants and the known entity names
   its text contains, resolved through step a's merges (霓霓 and 苏霓 are one). For each entity, its
   events in time order are chained, each to the previous one → ``related``, weight 0.4 (seed 004
   links a shared-node group as a chain, not a clique). Hubs (the agent, the scope's person, any
   entity in more than half of the events) link nothing: sharing them says nothing.

Only pairs whose later event is new since the last run are looked at; a pair already linked (either
direction, any kind) is skipped; an event gains at most ``max_per_event`` new links per run. Links
point from the earlier event to the later one.
"""

from __future__ import annotations

import itertools
import logging
from collections import defaultdict
from datetime import timedelta

from huiyi.flows.consolidate.state import Since, State, norm, when
from huiyi.model import Link, LinkKind, MemoryItem, MemoryKind, ScopeKind

__all__ = ["discover_links"]

log = logging.getLogger(__name__)


def discover_links(state: State, since: Since | None = None) -> int:
    """Add links between the scope's events; returns how many are new."""
    config = state.config.links
    events = [i for i in state.items.values() if i.kind is MemoryKind.EVENT]
    events.sort(key=lambda i: (when(i, state.zone), i.id))
    if len(events) < 2 or config.max_per_event == 0:
        return 0
    linked = {
        frozenset((link.source, link.target)) for link in state.store.links_of(state.agent, [e.id for e in events])
    }
    added: dict[str, int] = defaultdict(int)

    def new(item: MemoryItem) -> bool:
        return since is None or not since.saw(item)

    def add(a: MemoryItem, b: MemoryItem, weight: float, reason: str) -> None:
        pair = frozenset((a.id, b.id))
        if a.id == b.id or pair in linked or max(added[a.id], added[b.id]) >= config.max_per_event:
            return
        linked.add(pair)
        added[a.id] += 1
        added[b.id] += 1
        state.link([Link(source=a.id, target=b.id, kind=LinkKind.RELATED, weight=weight)])
        state.report.add(
            "links", "link", [a.id, b.id], None, {"kind": LinkKind.RELATED.value, "weight": weight}, reason
        )

    window = timedelta(minutes=config.window_minutes)
    by_space: dict[str, list[MemoryItem]] = defaultdict(list)
    for event in events:
        by_space[str(event.data.get("space") or state.scope.tag)].append(event)
    for space, group in by_space.items():
        for prev, cur in itertools.pairwise(group):
            gap = when(cur, state.zone) - when(prev, state.zone)
            if new(cur) and gap <= window:
                minutes = gap.total_seconds() / 60
                add(prev, cur, config.temporal_weight, f"{minutes:.0f} minutes apart in {space}")

    shortest = config.min_name_chars
    known = [
        (entity.id, names)
        for entity in state.entities.values()
        if (names := [n for n in {norm(x) for x in entity.names} if len(n) >= shortest])
    ]
    keys = {event.id: _entities_of(state, event, known) for event in events}
    counts: dict[str, int] = defaultdict(int)
    for found in keys.values():
        for key in found:
            counts[key] += 1
    hubs = {state.key_of(state.agent)}
    if state.scope.kind is ScopeKind.PERSON:
        hubs.add(state.key_of(state.scope.key))
    if len(events) >= 4:
        hubs |= {key for key, n in counts.items() if n > config.hub_share * len(events)}
    chains: dict[str, list[MemoryItem]] = defaultdict(list)
    for event in events:
        for key in sorted(keys[event.id] - hubs):
            chains[key].append(event)
    for key, chain in sorted(chains.items()):
        for prev, cur in itertools.pairwise(chain):
            if new(cur):
                add(prev, cur, config.shared_weight, f"both involve {state.display(key)}")
    total = sum(added.values()) // 2
    log.info("consolidate %s: %d links discovered", state.scope.tag, total)
    return total


def _entities_of(state: State, event: MemoryItem, known: list[tuple[str, list[str]]]) -> set[str]:
    """Canonical keys of an event's participants and of the entity names its text contains."""
    found = {state.key_of(p) for p in event.participants if p.strip()}
    text = norm(event.text)
    found.update(state.root(entity) for entity, names in known if any(n in text for n in names))
    return found
