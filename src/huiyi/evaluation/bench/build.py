"""Building stores of 10k–1M synthetic memories fast enough to benchmark them.

Embedding a million memories is out of reach (tens of passages a second on a small machine), so the
vectors are made, not embedded: a pool of real synthetic lines (a few per everyday pattern) is
embedded once with the real embedder (and kept in an on-disk cache), and each memory's vector is the
vector of a pool line of its own pattern, plus a little of another line's and a little noise,
normalised. Its text is a fresh filling of the same pattern. So neighbours in vector space share
topics and wording, as in real chat. Planted facts (the probes' gold) get their real embeddings.
Memories go in through ``Store.add_memories`` in large batches, as chunks of one turn each, with
the same keyword terms the ingest flow would give them.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from huiyi.evaluation import synthetic
from huiyi.flows.ingest import terms_of
from huiyi.model import MemoryItem, MemoryKind, Scope
from huiyi.providers.embed import Embedder
from huiyi.store.base import Store, Terms, Vectors

NOISE = 0.02  # per dimension; a unit vector of 384 dims gets noise of norm ~0.4
MIX = 0.3  # share of another pool line mixed in


class VectorCache:
    """Passage/query vectors of one embedder by text, kept in ``directory`` between runs."""

    def __init__(self, embedder: Embedder, directory: Path | None) -> None:
        self.embedder = embedder
        slug = hashlib.blake2b(f"{embedder.name}:{embedder.dim}".encode(), digest_size=6).hexdigest()
        self.path = directory / f"vectors-{slug}.npz" if directory else None
        self._vectors: dict[str, Vectors] = {}
        self.embedded = 0  # texts embedded by this run (not found in the cache)
        self.embed_seconds = 0.0
        if self.path and self.path.exists():
            try:
                with np.load(self.path, allow_pickle=False) as data:
                    keys, matrix = data["keys"], data["vectors"]
                    if matrix.ndim == 2 and matrix.shape[1] == embedder.dim:
                        self._vectors = {str(k): matrix[i] for i, k in enumerate(keys)}
            except (OSError, ValueError, KeyError):  # a damaged cache is embedded again
                self._vectors = {}

    @staticmethod
    def _key(kind: str, text: str) -> str:
        return hashlib.blake2b(f"{kind}\x1f{text}".encode(), digest_size=12).hexdigest()

    def _get(self, kind: str, texts: Sequence[str], batch: int = 32) -> Vectors:
        keys = [self._key(kind, t) for t in texts]
        missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in self._vectors}.items())
        for start in range(0, len(missing), batch):
            part = missing[start : start + batch]
            started = time.perf_counter()
            compute = self.embedder.embed_queries if kind == "q" else self.embedder.embed_passages
            vectors = compute([t for _, t in part])
            self.embed_seconds += time.perf_counter() - started
            self.embedded += len(part)
            for (key, _), vector in zip(part, vectors, strict=True):
                self._vectors[key] = np.asarray(vector, dtype=np.float32)
        if not keys:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([self._vectors[k] for k in keys]).astype(np.float32)

    def passages(self, texts: Sequence[str]) -> Vectors:
        return self._get("p", texts)

    def queries(self, texts: Sequence[str]) -> Vectors:
        return self._get("q", texts)

    def save(self) -> None:
        if not self.path or not self.embedded:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.asarray(list(self._vectors), dtype=str)
        matrix = np.stack(list(self._vectors.values())).astype(np.float32)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=keys, vectors=matrix)
        tmp.replace(self.path)


@dataclass
class Pool:
    """Embedded pool lines, grouped by pattern."""

    lines: list[synthetic.PoolLine]
    vectors: Vectors
    by_template: dict[int, np.ndarray[Any, np.dtype[np.int64]]]

    @classmethod
    def build(cls, cache: VectorCache, per_template: int, seed: int) -> Pool:
        lines = synthetic.line_pool(per_template, seed)
        vectors = cache.passages([line.text for line in lines])
        groups: dict[int, list[int]] = {}
        for index, line in enumerate(lines):
            groups.setdefault(line.template, []).append(index)
        return cls(lines, vectors, {t: np.asarray(ix, dtype=np.int64) for t, ix in groups.items()})


@dataclass(frozen=True)
class Probe:
    """A planted memory and the question that should find it, in one person's scope."""

    person: synthetic.SynthPerson
    query: str
    gold: str  # memory id
    group: str


@dataclass
class BuildStats:
    memories: int = 0
    persons: int = 0
    seconds: float = 0.0
    generate_seconds: float = 0.0  # texts, vectors and keyword terms
    insert_seconds: float = 0.0  # Store.add_memories
    probes: list[Probe] = field(default_factory=list)


def probe_plan(n_persons: int, n_probes: int) -> list[tuple[int, int]]:
    """(person index, fact group index) of each probe: spread over persons first, and over fact types
    too (person i's k-th probe asks about type i + k), so a large store is not asked one question only.

    >>> probe_plan(3, 5)
    [(0, 0), (1, 1), (2, 2), (0, 1), (1, 2)]
    """
    groups = len(synthetic.FACT_GROUPS)
    total = min(n_probes, n_persons * groups)
    return [(j % n_persons, (j // n_persons + j % n_persons) % groups) for j in range(total)]


def _item(
    memory_id: str,
    scope: Scope,
    kind: MemoryKind,
    text: str,
    when: datetime | None,
    participants: list[str] | None = None,
    sources: list[str] | None = None,
    data: dict[str, Any] | None = None,
) -> MemoryItem:
    """A memory without validation (the generator's values are valid), every field given.

    Giving every field matters: pydantic's ``model_construct`` inspects each default factory's
    signature, which costs more than the whole validation it skips.
    """
    return MemoryItem.model_construct(
        id=memory_id,
        scope=scope,
        kind=kind,
        text=text,
        time=when,
        place="",
        participants=participants or [],
        keywords=[],
        insight="",
        importance=0.5,
        strength=1.0,
        access_count=0,
        last_access=None,
        created_at=None,
        sources=sources or [],
        data=data or {},
    )


def _person_memories(
    who: synthetic.SynthPerson,
    scope_size: int,
    planted: list[tuple[str, str, str]],
    pool: Pool,
    cache: VectorCache,
    agent: str,
    seed: int,
) -> tuple[list[MemoryItem], Vectors]:
    """One person's memories: everyday turns with made vectors, and the planted facts embedded for real."""
    rng = random.Random(f"huiyi-bench:{seed}:memories:{who.id}")
    noise_rng = np.random.default_rng(int.from_bytes(hashlib.blake2b(f"{seed}:{who.id}".encode()).digest()[:8]))
    scope = Scope.of_person(agent, who.id)
    n_everyday = max(0, scope_size - len(planted))
    user_templates = synthetic.template_choices(who.language, "user")
    agent_templates = synthetic.template_choices(who.language, "assistant")
    first = synthetic.REFERENCE_TIME - timedelta(days=180)
    seconds = sorted(rng.uniform(0, 180 * 86400 - 600) for _ in range(n_everyday + len(planted)))
    planted_at = set(rng.sample(range(len(seconds)), len(planted)))
    items: list[MemoryItem] = []
    template_ids: list[int] = []
    planted_rows: list[int] = []
    planted_iter = iter(planted)
    for position, offset in enumerate(seconds):
        when = first + timedelta(seconds=int(offset))
        if position in planted_at:
            memory_id, _, text = next(planted_iter)
            speaker = who.name
            planted_rows.append(position)
            template_ids.append(-1)
        else:
            memory_id = f"syn_{who.id}_{position:05d}"
            is_user = position % 2 == 0
            template = rng.choice(user_templates if is_user else agent_templates)
            speaker = who.name if is_user else agent
            text = synthetic.template_line(template, rng)
            template_ids.append(template)
        items.append(
            _item(
                memory_id,
                scope,
                MemoryKind.CHUNK,
                f"{speaker}: {text}",
                when,
                participants=[speaker],
                sources=[f"{who.id}-x{position:05d}"],
                data={"space": scope.space_id, "synthetic": True},
            )
        )
    templates = np.asarray(template_ids, dtype=np.int64)
    vectors = np.zeros((len(items), pool.vectors.shape[1]), dtype=np.float32)
    everyday = np.flatnonzero(templates >= 0)
    if len(everyday):
        base = np.array(
            [pool.by_template[int(t)][rng.randrange(len(pool.by_template[int(t)]))] for t in templates[everyday]]
        )
        other = noise_rng.integers(0, len(pool.lines), size=len(everyday))
        made = pool.vectors[base] + MIX * pool.vectors[other]
        made += noise_rng.normal(0.0, NOISE, size=made.shape).astype(np.float32)
        made /= np.linalg.norm(made, axis=1, keepdims=True)
        vectors[everyday] = made
    if planted_rows:
        vectors[planted_rows] = cache.passages([items[row].text for row in planted_rows])
    return items, vectors


def build_store(
    store: Store,
    *,
    size: int,
    scope_size: int,
    pool: Pool,
    cache: VectorCache,
    n_probes: int,
    agent: str = synthetic.AGENT,
    seed: int = 0,
    batch: int = 20000,
    official: int = 20,
    progress: Callable[[int], None] | None = None,
    terms: Callable[[str], Terms] = terms_of,
    own: bool = False,
) -> BuildStats:
    """Fill ``store`` with ``size`` memories in scopes of ``scope_size`` (one person each); ``terms``
    gives a text's keyword terms (the ingest flow's, or a cache of them). ``own``: each chunk's own-line
    vector stored too, as ingest does with ``chunk.own_vector`` (a one-turn chunk's is its vector), so
    recall reads them as it would."""
    started = time.perf_counter()
    stats = BuildStats()
    n_persons = max(1, size // scope_size)
    plan = probe_plan(n_persons, n_probes)
    planted_by_person: dict[int, list[tuple[str, str, str]]] = {}
    for person_index, group_index in plan:
        who = synthetic.person(person_index, seed)
        group, fact, query = synthetic.planted_fact(who, group_index, seed)
        memory_id = f"syn_{who.id}_fact_{group}"
        planted_by_person.setdefault(person_index, []).append((memory_id, query, fact))
        stats.probes.append(Probe(who, query, memory_id, group))
    pending_items: list[MemoryItem] = []
    pending_vectors: list[Vectors] = []

    def flush() -> None:
        if not pending_items:
            return
        generated = time.perf_counter()
        keyword_terms = [terms(item.text) for item in pending_items]
        insert_started = time.perf_counter()
        stats.generate_seconds += insert_started - generated
        vectors = np.concatenate(pending_vectors)
        store.add_memories(pending_items, vectors, keyword_terms, own_vectors=vectors if own else None)
        stats.insert_seconds += time.perf_counter() - insert_started
        stats.memories += len(pending_items)
        if progress:
            progress(len(pending_items))
        pending_items.clear()
        pending_vectors.clear()

    for items, vectors in _official_memories(agent, official, pool, seed):
        pending_items.extend(items)
        pending_vectors.append(vectors)
    for index in range(n_persons):
        made = time.perf_counter()
        who = synthetic.person(index, seed)
        items, vectors = _person_memories(who, scope_size, planted_by_person.get(index, []), pool, cache, agent, seed)
        stats.generate_seconds += time.perf_counter() - made
        pending_items.extend(items)
        pending_vectors.append(vectors)
        stats.persons += 1
        if len(pending_items) >= batch:
            flush()
    flush()
    stats.seconds = time.perf_counter() - started
    return stats


def _official_memories(agent: str, count: int, pool: Pool, seed: int) -> Iterator[tuple[list[MemoryItem], Vectors]]:
    """A few of the agent's own notes, which every recall also scans."""
    if count <= 0:
        return
    rng = random.Random(f"huiyi-bench:{seed}:official")
    rows = [rng.randrange(len(pool.lines)) for _ in range(count)]
    items = [
        _item(
            f"syn_official_{i:04d}",
            Scope.official(agent),
            MemoryKind.NOTE,
            f"{agent}的笔记：{pool.lines[row].text}",
            None,
            data={"synthetic": True},
        )
        for i, row in enumerate(rows)
    ]
    yield items, pool.vectors[rows].astype(np.float32)


def describe(stats: BuildStats) -> dict[str, Any]:
    return {
        "memories": stats.memories,
        "persons": stats.persons,
        "seconds": round(stats.seconds, 2),
        "generate_seconds": round(stats.generate_seconds, 2),
        "insert_seconds": round(stats.insert_seconds, 2),
        "memories_per_second": round(stats.memories / stats.seconds, 1) if stats.seconds else 0.0,
        "probes": len(stats.probes),
    }
