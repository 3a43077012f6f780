"""Step e: strength grows with use, decays with time, and the weakest go when a scope is full.

1. **Seed 000 increments** (§八 记忆清理 2): a memory recalled since its last update gains the step for
   the time between that update and the recall (≤ 1 day +1, ≤ 3 days +3, ≤ 7 +7, ≤ 30 +30, ≤ 183 +100;
   ``strength.seed000_increment``). Its last update is ``data.strength_at`` (the recall that last counted),
   else when it was stored. A memory not recalled since then is left alone; the +15 per recall hit is
   the recall path's (``record_access``).
2. **Seed 004 decay** (§5.3): ``retained = strength × importance × e^(−λ·days) × (1 + ln(1 + accesses))``
   with λ by memory type (event 0.05, fact 0.01, relation 0.005, opinion 0.03 per day; ``type_decay``)
   and days the whole days since the memory was stored (else since it happened). Retained strength is
   computed, not stored: it ranks memories for forgetting.
3. **Capacity** (§八 记忆清理 5 and 记忆的清理 4; ``capacity_victims``): once a scope holds
   ``total_limit`` memories (20 000) the weakest ``share`` (20 %) by retained strength are deleted; a
   person inactive for ``inactive_days`` keeps only the ``minimum`` strongest of the memories that may
   go. Only forgettable memories go (``forget_kinds``: chunks, events, notes; closed or valid facts only
   when configured); the others count towards the total but are never chosen. The official scope never loses anything.
   With ``forget_below`` set (§八 记忆的清理 3), forgettable memories retained below it go as well.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, tzinfo

from huiyi.checks import wall_of
from huiyi.config.consolidate import ConsolidateConfig
from huiyi.flows.chatter import is_chatter
from huiyi.flows.consolidate.state import State, when
from huiyi.model import MemoryItem, MemoryKind, ScopeKind
from huiyi.strength import capacity_victims, decay_type_of, retention, seed000_increment, type_decay

__all__ = ["forget", "forgettable", "retained_strength", "update_strength"]

log = logging.getLogger(__name__)


def retained_strength(
    item: MemoryItem, now: datetime, config: ConsolidateConfig, zone: tzinfo = UTC
) -> tuple[float, float, int]:
    """(retained strength, decay factor, whole days) of a memory at ``now`` (wall clock in ``zone``).

    Seed 000/004: strength × seed 004's decay by type, days since stored. MemoryBank (seed 003): the
    retention R = e^(−t/S) itself, t the days since the last recall (else since stored), S the strength.
    ``created_at``, stamped in UTC, is read in ``zone`` as every other time is.
    """
    written = wall_of(item.created_at, zone)
    if config.forget.model == "memorybank":
        since = item.last_access or written or item.time
        gap = max(timedelta(0), now.replace(tzinfo=None) - since.replace(tzinfo=None)) if since else timedelta(0)
        kept = retention(gap / timedelta(days=1), max(item.strength, 1e-9))
        return kept, kept, gap.days
    born = item.said_at or written or item.time  # a plan ages from when it was said
    days = max(timedelta(0), now.replace(tzinfo=None) - born.replace(tzinfo=None)).days if born else 0
    decay = type_decay(decay_type_of(item), days, item.access_count, item.importance, config.forget.decay_rates)
    return item.strength * decay, decay, days


def _last_update(item: MemoryItem, zone: tzinfo) -> datetime | None:
    """The recall that last counted (``last_access`` then: wall clock), else when the memory was stored."""
    mark = item.data.get("strength_at")
    if isinstance(mark, str):
        try:
            return datetime.fromisoformat(mark)
        except ValueError:
            pass
    return wall_of(item.created_at, zone) or item.time


def update_strength(state: State) -> int:
    """Seed 000 increments for memories recalled since their last update; returns how many grew.

    Under MemoryBank a recall already added its step (S + 1) and reset t; nothing grows here.
    """
    settings = state.config.forget.strength
    grown = 0
    if state.config.forget.model == "memorybank":
        return 0
    recalled = [item.id for item in state.items.values() if _recalled_since_update(item, state.zone)]
    # read again now, not as the run began: a recall meanwhile (the bot answering while its worker consolidates)
    # added its +15 to the row, and the strength written from the run's first read took it away (helper)
    fresh = state.store.get_memories(state.agent, recalled) if recalled else []
    state.items.update((item.id, item) for item in fresh)
    for item in fresh:
        last = _last_update(item, state.zone)
        if item.last_access is None or last is None or item.last_access <= last:
            continue
        gap = item.last_access - last
        step = seed000_increment(gap, settings.increments, settings.beyond)
        after = item.strength + step
        data = {**item.data, "strength_at": item.last_access.isoformat()}
        state.update(item.id, {"strength": after, "data": data})
        state.report.add(
            "strength",
            "strength",
            [item.id],
            item.strength,
            after,
            f"recalled {gap / timedelta(days=1):.1f} days after its last update: +{step} (seed 000)",
        )
        grown += 1
    log.info("consolidate %s: %d memories strengthened", state.scope.tag, grown)
    return grown


def _recalled_since_update(item: MemoryItem, zone: tzinfo) -> bool:
    last = _last_update(item, zone)
    return item.last_access is not None and last is not None and item.last_access > last


def forgettable(item: MemoryItem, config: ConsolidateConfig) -> bool:
    if item.scope.kind is ScopeKind.OFFICIAL:
        return False
    if item.kind is MemoryKind.FACT:
        return config.forget_closed_facts if item.valid_to is not None else config.forget_valid_facts
    return item.kind in config.forget_kinds


def _replacing(items: list[MemoryItem]) -> set[str]:
    """Ids and source messages of the facts that closed a fact still kept: the current values.

    A closed fact names what closed it (``superseded_by``, ``merged_into``: a fact; ``closed_by``: the
    messages of the new value). Forgetting that while the closed one stays would make the old value
    the only one left (木木住在北京 answered after the move to 上海).
    """
    marks: set[str] = set()
    for item in items:
        if item.kind is not MemoryKind.FACT or item.valid_to is None:
            continue
        for key in ("superseded_by", "merged_into"):
            if isinstance(item.data.get(key), str):
                marks.add(item.data[key])
        closers = item.data.get("closed_by")
        if isinstance(closers, list):
            marks.update(c for c in closers if isinstance(c, str))
    return marks


def _current(item: MemoryItem, marks: set[str]) -> bool:
    if item.kind is not MemoryKind.FACT or item.valid_to is not None:
        return False
    return item.id in marks or bool(marks.intersection(item.sources))


def _says_less(state: State) -> Callable[[str], tuple[bool, int]]:
    """Of memories equally strong, which goes first: chatter (在吗, 哈哈), then the shorter. By id alone, 在吗
    outlived a line about a grandmother's death said the same evening."""

    def key(memory_id: str) -> tuple[bool, int]:
        item = state.items[memory_id]
        said = item.text.split(": ", 1)[-1] if item.kind is MemoryKind.CHUNK else item.text
        return not is_chatter(said, item.participants), len(said)

    return key


def forget(state: State) -> int:
    """Delete by capacity (and ``forget_below``); returns how many memories go."""
    config, settings = state.config, state.config.forget
    items = list(state.items.values())
    if not items or state.scope.kind is ScopeKind.OFFICIAL:
        return 0
    scored = {item.id: retained_strength(item, state.now, config, state.zone) for item in items}
    marks = _replacing(items)
    ranked = [
        (item.id, scored[item.id][0] if forgettable(item, config) and not _current(item, marks) else math.inf)
        for item in items
    ]
    activity = max((when(i, state.zone) for i in items if i.kind in (MemoryKind.CHUNK, MemoryKind.EVENT)), default=None)
    inactive = (
        state.scope.kind is ScopeKind.PERSON
        and activity is not None
        and state.now - activity > timedelta(days=settings.inactive_days)
    )
    # an inactive person keeps the minimum of what may go: summaries and facts, which never go, would fill it
    pool = [pair for pair in ranked if math.isfinite(pair[1])] if inactive else ranked
    victims = capacity_victims(
        pool, settings.total_limit, settings.share, settings.minimum, inactive=inactive, ties=_says_less(state)
    )
    values = dict(ranked)
    victims = [v for v in victims if math.isfinite(values[v])]
    if inactive:
        why = f"inactive since {activity:%Y-%m-%d}: only the {settings.minimum} strongest stay (seed 000)"
    else:
        why = f"{len(items)} memories reach the limit {settings.total_limit}: the weakest {settings.share:.0%} go"
    reasons = dict.fromkeys(victims, why)
    if settings.model == "memorybank":  # seed 003: what the curve has let go of is forgotten
        for memory_id, value in ranked:
            if value < settings.memorybank_keep and memory_id not in reasons:
                reasons[memory_id] = f"retention {value:.4f} below {settings.memorybank_keep} (MemoryBank, seed 003)"
    if config.forget_below > 0:
        room = len(items) - len(victims) - settings.minimum
        below = sorted(
            (pair for pair in ranked if pair[1] < config.forget_below and pair[0] not in reasons),
            key=lambda pair: (pair[1], pair[0]),
        )
        for memory_id, value in below[: max(0, room)]:
            reasons[memory_id] = f"retained {value:.4f} below {config.forget_below} (seed 000 §八 记忆的清理 3)"
    for memory_id, reason in reasons.items():
        item = state.items[memory_id]
        retained, decay, days = scored[memory_id]
        before = {
            "kind": item.kind.value,
            "text": item.text[:80],
            "strength": item.strength,
            "decay": round(decay, 6),
            "days": days,
            "retained": round(retained, 6),
        }
        state.report.add("forget", "delete", [memory_id], before, None, reason)
    state.delete(list(reasons))
    log.info("consolidate %s: %d memories forgotten", state.scope.tag, len(reasons))
    return len(reasons)
