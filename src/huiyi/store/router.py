"""A store that spreads agents over several stores (e.g. one PostgreSQL database each).

Every call of the contract is bound to one agent (reads name an agent or its scopes; writes carry
their agent), so each call goes whole to the one store that owns that agent, and a transaction never
spans two databases. A call naming several agents fails with ``ScopeError``: split it.

Ownership is rendezvous hashing of (store name, agent): stable across processes and restarts, and
adding a store moves only the agents that the new store wins (about 1/n of them), not most of them as
``hash % n`` would. ``pins`` overrides the hash for single agents, e.g. while one is being moved.

Jobs are the exception to one-agent calls: a worker's ``claim_job`` names no agent, so it asks the
stores in turn, starting from a different one each time; the store that handed out a job is
remembered for completing or failing it.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from huiyi.errors import ScopeError, StoreError
from huiyi.model import Entity, EntityMerge, Job, JobState, Link, MemoryItem, MemoryKind, Message, Person, Scope
from huiyi.store.base import (
    Claim,
    MemoryFilter,
    NameVersions,
    OwnVectors,
    RankRow,
    RouteHits,
    ScopeStats,
    Store,
    Terms,
    Vectors,
    Writes,
)
from huiyi.store.erasure import Erasure, Refold
from huiyi.store.graph import EntityEdit
from huiyi.store.jobs import RunReport
from huiyi.store.pages import EntityMarked, JobMark, ListMark, Marked, ReportMark
from huiyi.store.writing import AddsByApply


class RoutedStore(AddsByApply):
    """``RoutedStore({"pg1": PostgresStore(dsn1), "pg2": PostgresStore(dsn2)})``; names must never change."""

    def __init__(self, stores: Mapping[str, Store], pins: Mapping[str, str] | None = None) -> None:
        if not stores:
            raise StoreError("a routed store needs at least one store")
        self.stores = dict(stores)
        self.pins = dict(pins or {})
        unknown = set(self.pins.values()) - set(self.stores)
        if unknown:
            raise StoreError(f"pins name unknown stores: {sorted(unknown)}")
        self._job_home: dict[str, str] = {}
        self._lock = threading.Lock()
        self._turn = itertools.count()

    # routing ---------------------------------------------------------------------------------
    def name_for(self, agent: str) -> str:
        """The name of the store that owns ``agent``."""
        if agent in self.pins:
            return self.pins[agent]
        return max(self.stores, key=lambda name: hashlib.blake2b(f"{name}\x1f{agent}".encode(), digest_size=8).digest())

    def store_for(self, agent: str) -> Store:
        return self.stores[self.name_for(agent)]

    def _one(self, agents: Iterable[str]) -> str | None:
        names = set(agents)
        if len(names) > 1:
            raise ScopeError(
                f"this call names several agents ({', '.join(sorted(names))}); a routed store serves one agent per"
                " call: split it by agent"
            )
        return next(iter(names), None)

    def _by_scopes(self, scopes: Sequence[Scope]) -> Store | None:
        agent = self._one(s.agent for s in scopes)
        return self.store_for(agent) if agent is not None else None

    def _remember(self, job_id: str, name: str) -> None:
        with self._lock:
            self._job_home[job_id] = name

    def _home_of(self, job_id: str) -> str | None:
        with self._lock:
            return self._job_home.get(job_id)

    # lifecycle and identity --------------------------------------------------------------------
    @property
    def clock(self) -> Callable[[], datetime]:
        return next(iter(self.stores.values())).clock

    @clock.setter
    def clock(self, clock: Callable[[], datetime]) -> None:
        for store in self.stores.values():
            store.clock = clock

    @property
    def zone(self) -> ZoneInfo:
        return next(iter(self.stores.values())).zone

    @zone.setter
    def zone(self, zone: ZoneInfo) -> None:
        for store in self.stores.values():
            store.zone = zone

    def close(self) -> None:
        for store in self.stores.values():
            store.close()

    def schema_version(self) -> int:
        return min(store.schema_version() for store in self.stores.values())

    def embedding_model(self) -> tuple[str, int] | None:
        models = {store.embedding_model() for store in self.stores.values()} - {None}
        if len(models) > 1:
            raise StoreError(f"the routed stores hold vectors of different embedders: {sorted(map(str, models))}")
        return next(iter(models), None)

    def set_embedding_model(self, name: str, dim: int) -> None:
        for store in self.stores.values():
            store.set_embedding_model(name, dim)

    # persons and messages ------------------------------------------------------------------------
    def upsert_person(self, agent: str, person: Person) -> None:
        self.store_for(agent).upsert_person(agent, person)

    def get_person(self, agent: str, person_id: str) -> Person | None:
        return self.store_for(agent).get_person(agent, person_id)

    def list_persons(self, agent: str) -> list[Person]:
        return self.store_for(agent).list_persons(agent)

    def persons_version(self, agent: str) -> int:
        return self.store_for(agent).persons_version(agent)

    def erase(
        self,
        agent: str,
        message_ids: Sequence[str],
        *,
        person: str | None = None,
        names: Sequence[str] = (),
        window: int = 0,
        speaker: str | None = None,
        refold: Refold | None = None,
    ) -> Erasure:
        return self.store_for(agent).erase(
            agent, message_ids, person=person, names=names, window=window, speaker=speaker, refold=refold
        )

    def purged(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        done = True
        for store in self.stores.values():  # each waited for, within what is left of the timeout
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            done = store.purged(left) and done
        return done

    def compact(self) -> None:
        for store in self.stores.values():
            store.compact()

    def person_blocks(self, agent: str, person: str) -> dict[str, str]:
        return self.store_for(agent).person_blocks(agent, person)

    def set_person_block(self, agent: str, person: str, label: str, text: str, expected: str | None) -> bool:
        return self.store_for(agent).set_person_block(agent, person, label, text, expected)

    def append_messages(self, messages: Sequence[Message], claim: Claim | None = None) -> list[Message]:
        agent = self._one(m.agent for m in messages)
        return self.store_for(agent).append_messages(messages, claim) if agent is not None else []

    def get_messages(self, agent: str, ids: Sequence[str]) -> list[Message]:
        return self.store_for(agent).get_messages(agent, ids)

    def recent_messages(
        self, agent: str, space: str, limit: int, before_seq: int | None = None, *, from_seq: int | None = None
    ) -> list[Message]:
        return self.store_for(agent).recent_messages(agent, space, limit, before_seq, from_seq=from_seq)

    def messages_between(self, agent: str, space: str, start: datetime, end: datetime) -> list[Message]:
        return self.store_for(agent).messages_between(agent, space, start, end)

    def unindexed_messages(
        self, limit: int, scopes: Sequence[Scope] | None = None, keep: Callable[[str], bool] | None = None
    ) -> list[Message]:
        if scopes is not None:
            store = self._by_scopes(scopes)
            return store.unindexed_messages(limit, scopes, keep) if store is not None else []
        found: list[Message] = []
        for store in self.stores.values():
            found.extend(store.unindexed_messages(limit - len(found)))
            if len(found) >= limit:
                break
        return found

    def unindexed_with_versions(
        self, limit: int, scopes: Sequence[Scope], keep: Callable[[str], bool] | None = None
    ) -> tuple[list[Message], NameVersions]:
        store = self._by_scopes(scopes)
        return store.unindexed_with_versions(limit, scopes, keep) if store is not None else ([], NameVersions(0, 0))

    def claim_unindexed(self, worker: str, now: datetime, lease_seconds: float, limit: int) -> list[Message]:
        found: list[Message] = []
        for store in self.stores.values():
            found.extend(store.claim_unindexed(worker, now, lease_seconds, limit - len(found)))
            if len(found) >= limit:
                break
        return found

    def release_claims(self, dead: Callable[[str], bool]) -> int:
        return sum(store.release_claims(dead) for store in self.stores.values())

    def release_messages(self, worker: str, messages: Sequence[tuple[str, str]]) -> None:
        by_agent: dict[str, list[tuple[str, str]]] = {}
        for agent, message_id in messages:
            by_agent.setdefault(agent, []).append((agent, message_id))
        for agent, held in by_agent.items():
            self.store_for(agent).release_messages(worker, held)

    def spoke_in(self, agent: str, space: str, speakers: Sequence[str] | None) -> set[str]:
        return self.store_for(agent).spoke_in(agent, space, speakers)

    def working_start(self, agent: str, space: str) -> int:
        return self.store_for(agent).working_start(agent, space)

    def scope_stats(self, agent: str | None = None) -> list[ScopeStats]:
        if agent is not None:
            return self.store_for(agent).scope_stats(agent)
        return sorted(
            (s for store in self.stores.values() for s in store.scope_stats(None)),
            key=lambda s: (s.agent, s.scope != "official", s.scope),
        )

    # writes and jobs -----------------------------------------------------------------------------
    def apply(self, writes: Writes, complete_job: tuple[str, str] | None = None) -> None:
        agents = [m.scope.agent for m in writes.memories]
        agents += [agent for agent, _ in writes.indexed_messages]
        agents += [agent for agent, _, _ in writes.fold_points]
        agents += [agent for agent, _ in writes.replaced]
        agent = self._one(agents)
        names = {self.name_for(agent)} if agent is not None else set()
        home = self._home_of(complete_job[0]) if complete_job else None
        if home is not None:
            names.add(home)
        if len(names) > 1:
            raise ScopeError(f"job {complete_job and complete_job[0]} lives in store {home}, its writes in another")
        if names:
            self.stores[names.pop()].apply(writes, complete_job)
            return
        if complete_job is None:
            return  # nothing to write
        # completing a job this process did not claim, with nothing else to write: ask each store
        errors: list[StoreError] = []
        for store in self.stores.values():
            try:
                store.apply(writes, complete_job)
                return
            except StoreError as exc:
                errors.append(exc)
        raise errors[0]

    def enqueue_job(self, job: Job) -> bool:
        name = self.name_for(job.agent)
        self._remember(job.id, name)
        return self.stores[name].enqueue_job(job)

    def claim_job(self, worker: str, now: datetime, lease_seconds: float, kinds: Sequence[str] = ()) -> Job | None:
        names = list(self.stores)
        start = next(self._turn) % len(names)
        for name in names[start:] + names[:start]:
            job = self.stores[name].claim_job(worker, now, lease_seconds, kinds)
            if job is not None:
                self._remember(job.id, name)
                return job
        return None

    def fail_job(
        self, job_id: str, worker: str, error: str, retry_at: datetime | None, again_at: datetime | None = None
    ) -> None:
        home = self._home_of(job_id)
        # an update that matches nothing is harmless, so a job of unknown home is failed everywhere
        for name in [home] if home is not None else list(self.stores):
            self.stores[name].fail_job(job_id, worker, error, retry_at, again_at)

    def requeue_failed(self, kinds: Sequence[str], now: datetime) -> int:
        return sum(store.requeue_failed(kinds, now) for store in self.stores.values())

    def expire_leases(self, dead: Callable[[str], bool], now: datetime) -> int:
        return sum(store.expire_leases(dead, now) for store in self.stores.values())

    def give_back_job(self, job_id: str, worker: str) -> bool:
        home = self._home_of(job_id)
        names = [home] if home is not None else list(self.stores)
        return any([self.stores[name].give_back_job(job_id, worker) for name in names])

    def renew_lease(self, job_id: str, worker: str, until: datetime) -> bool:
        home = self._home_of(job_id)
        names = [home] if home is not None else list(self.stores)
        return any([self.stores[name].renew_lease(job_id, worker, until) for name in names])

    def retry_job(self, job_id: str, agent: str | None = None) -> Job | None:
        names = [self.name_for(agent)] if agent is not None else list(self.stores)
        for name in names:
            job = self.stores[name].retry_job(job_id, agent)
            if job is not None:
                self._remember(job.id, name)
                return job
        return None

    def list_jobs(
        self,
        agent: str | None = None,
        states: Sequence[JobState] = (),
        limit: int = 100,
        after: JobMark | None = None,
    ) -> list[Job]:
        if agent is not None:
            return self.store_for(agent).list_jobs(agent, states, limit, after)
        found = [job for store in self.stores.values() for job in store.list_jobs(None, states, limit, after)]
        found.sort(key=lambda job: (job.created_at or datetime.min, job.id))
        return found[:limit]

    def span_jobs(self, agent: str, space: str, states: Sequence[JobState]) -> list[Job]:
        return self.store_for(agent).span_jobs(agent, space, states)

    def prune_jobs(self, before: datetime) -> int:
        return sum(store.prune_jobs(before) for store in self.stores.values())

    def prune_reports(self, before: datetime, keep: int) -> int:
        return sum(store.prune_reports(before, keep) for store in self.stores.values())

    def erasures(self) -> int:
        return sum(store.erasures() for store in self.stores.values())

    def add_report(self, report: RunReport, erasures: int | None = None) -> bool:
        # the sum over the stores, as read: an erasure in any since makes the report go
        if erasures is not None and self.erasures() != erasures:
            return False
        return self.store_for(report.agent).add_report(report)

    def list_reports(
        self, agent: str, scope: str | None = None, limit: int = 20, after: ReportMark | None = None
    ) -> list[RunReport]:
        return self.store_for(agent).list_reports(agent, scope, limit, after)

    # memories ------------------------------------------------------------------------------------
    def get_memories(self, agent: str, ids: Sequence[str]) -> list[MemoryItem]:
        return self.store_for(agent).get_memories(agent, ids)

    def taken_ids(self, agent: str, ids: Sequence[str], entities: bool = False) -> list[str]:
        return self.store_for(agent).taken_ids(agent, ids, entities)  # ids are unique per database

    def reading(self, agent: str) -> AbstractContextManager[None]:
        return self.store_for(agent).reading(agent)

    def rank_rows(self, agent: str, ids: Sequence[str], keys: Sequence[int] = ()) -> list[RankRow]:
        return self.store_for(agent).rank_rows(agent, ids, keys)

    def recall_memories(self, agent: str, ids: Sequence[str]) -> list[MemoryItem]:
        return self.store_for(agent).recall_memories(agent, ids)

    def own_vectors(self, agent: str, ids: Sequence[str], keys: Sequence[int] = ()) -> OwnVectors:
        return self.store_for(agent).own_vectors(agent, ids, keys)

    def delete_memories(self, agent: str, ids: Sequence[str]) -> int:
        return self.store_for(agent).delete_memories(agent, ids)

    def count_memories(self, agent: str | None = None, scopes: Sequence[Scope] | None = None) -> int:
        if scopes is not None:
            store = self._by_scopes(scopes)
            return store.count_memories(scopes=scopes) if store is not None else 0
        if agent is not None:
            return self.store_for(agent).count_memories(agent)
        return sum(store.count_memories() for store in self.stores.values())

    def list_memories(
        self, scopes: Sequence[Scope], kinds: Sequence[MemoryKind] | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryItem]:
        store = self._by_scopes(scopes)
        return store.list_memories(scopes, kinds, limit, offset) if store is not None else []

    def page_memories(
        self, scopes: Sequence[Scope], kinds: Sequence[MemoryKind] | None, limit: int, after: ListMark | None
    ) -> list[Marked]:
        store = self._by_scopes(scopes)
        return store.page_memories(scopes, kinds, limit, after) if store is not None else []

    def find_memories(self, scopes: Sequence[Scope], where: MemoryFilter, limit: int = 100) -> list[MemoryItem]:
        store = self._by_scopes(scopes)
        return store.find_memories(scopes, where, limit) if store is not None else []

    def record_access(
        self, agent: str, ids: Sequence[str], when: datetime, strength_bonus: float = 0.0, times: int = 1
    ) -> None:
        self.store_for(agent).record_access(agent, ids, when, strength_bonus, times)

    def update_memories(self, agent: str, changes: Sequence[tuple[str, dict[str, Any]]]) -> int:
        return self.store_for(agent).update_memories(agent, changes)

    def add_feedback(self, agent: str, memory_id: str, value: float) -> float | None:
        return self.store_for(agent).add_feedback(agent, memory_id, value)

    # the graph -----------------------------------------------------------------------------------
    def upsert_entity(self, entity: Entity, vector: Vectors) -> Entity:
        return self.store_for(entity.scope.agent).upsert_entity(entity, vector)

    def add_entity_names(self, entity: Entity, vector: Vectors) -> Entity:
        return self.store_for(entity.scope.agent).add_entity_names(entity, vector)

    def drop_entity_aliases(self, agent: str, entity_id: str, names: Sequence[str]) -> Entity | None:
        return self.store_for(agent).drop_entity_aliases(agent, entity_id, names)

    def edit_entity(self, agent: str, entity_id: str, edit: EntityEdit, vector: Vectors | None) -> Entity | None:
        return self.store_for(agent).edit_entity(agent, entity_id, edit, vector)

    def list_entities(self, scopes: Sequence[Scope], include_merged: bool = False) -> list[Entity]:
        store = self._by_scopes(scopes)
        return store.list_entities(scopes, include_merged) if store is not None else []

    def entities_version(self, scopes: Sequence[Scope]) -> int:
        store = self._by_scopes(scopes)
        return store.entities_version(scopes) if store is not None else 0

    def page_entities(
        self, scopes: Sequence[Scope], include_merged: bool, limit: int, after: int | None
    ) -> list[EntityMarked]:
        store = self._by_scopes(scopes)
        return store.page_entities(scopes, include_merged, limit, after) if store is not None else []

    def similar_entities(self, scopes: Sequence[Scope], vector: Vectors, limit: int) -> list[tuple[Entity, float]]:
        store = self._by_scopes(scopes)
        return store.similar_entities(scopes, vector, limit) if store is not None else []

    def merge_entities(self, agent: str, source: str, target: str, reason: str, when: datetime) -> EntityMerge:
        return self.store_for(agent).merge_entities(agent, source, target, reason, when)

    def undo_merge(self, agent: str, merge_id: str) -> EntityMerge:
        return self.store_for(agent).undo_merge(agent, merge_id)

    def list_merges(self, agent: str) -> list[EntityMerge]:
        return self.store_for(agent).list_merges(agent)

    def get_entities(self, agent: str, ids: Sequence[str]) -> list[Entity]:
        return self.store_for(agent).get_entities(agent, ids)

    def delete_entities(self, agent: str, ids: Sequence[str]) -> int:
        return self.store_for(agent).delete_entities(agent, ids)

    def add_links(self, agent: str, links: Sequence[Link]) -> int:
        return self.store_for(agent).add_links(agent, links)

    def links_of(self, agent: str, ids: Sequence[str]) -> list[Link]:
        return self.store_for(agent).links_of(agent, ids)

    # search --------------------------------------------------------------------------------------
    def search_dense(self, scopes: Sequence[Scope], query: Vectors, limit: int) -> RouteHits:
        store = self._by_scopes(scopes)
        return store.search_dense(scopes, query, limit) if store is not None else RouteHits()

    def tidy_keywords(self, max_steps: int = 16) -> int:
        return sum(store.tidy_keywords(max_steps) for store in self.stores.values())

    def search_keyword(self, scopes: Sequence[Scope], query: Terms, limit: int) -> RouteHits:
        store = self._by_scopes(scopes)
        return store.search_keyword(scopes, query, limit) if store is not None else RouteHits()
