"""The store contract: what every backend (SQLite, PostgreSQL) must do, and nothing about how.

Stores know nothing of LLMs, prompts or tokenisers: text arrives pre-tokenised (``Terms``) and
vectors arrive computed. Every read is bound to an agent and a list of scopes, so no call can return
another person's or group's memories.

The contract is split by aggregate (``Lifecycle``, ``MessageStore``, ``JobStore``, ``MemoryStore``,
``SearchStore``, ``GraphStore`` in ``huiyi.store.graph`` and ``EraseStore`` in ``huiyi.store.erasure``)
so a reader sees each part alone; ``Store`` is all of them, and every backend implements the whole of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeAlias, runtime_checkable
from zoneinfo import ZoneInfo

from huiyi.model import Entity, MemoryItem, MemoryKind, Message, Person, Scope
from huiyi.store.erasure import EraseStore
from huiyi.store.graph import GraphStore
from huiyi.store.jobs import JobStore
from huiyi.store.pages import ListMark, Marked

if TYPE_CHECKING:
    import numpy as np

# a string, so that naming the contract does not import numpy (issue 15: `import huiyi` stays light)
Vectors: TypeAlias = "np.ndarray[Any, np.dtype[np.float32]]"


@dataclass(frozen=True)
class Terms:
    """Pre-tokenised text for the keyword index: words, and CJK characters one by one."""

    words: Sequence[str] = ()
    chars: Sequence[str] = ()


# a chunk's ``data.vector`` when its vector embeds its turn alone: its context turns join at query time
TURN_VECTOR = "turn"


@dataclass(frozen=True)
class TurnContext:
    """How a turn-alone chunk's dense score takes in the turns before it in its chat (issue 17).

    ``weights[k]``: the weight of the similarity of the chunk ``k + 1`` turns back (the own turn weighs
    1); the mix is the weighted mean over the turns present. ``floor``: the own similarity is a floor
    under the mix, so the exact turn keeps its score and an answer still rises with its question.
    Chunks whose vector already embeds its context (``chunk.context`` text or vector) keep their score.
    """

    weights: tuple[float, ...] = (1.0, 0.5)
    floor: bool = True


class RankRow(NamedTuple):
    """What ranking reads of one memory, without its text, keywords or data: recall loads whole
    memories only for the hits it returns. ``scope`` is the stored tag; ``space`` and ``seq`` are
    ``data.space`` (as ``str()`` of its value, "None" when absent) and ``data.seq`` (None when absent)."""

    id: str
    scope: str
    kind: MemoryKind
    time: datetime | None
    participants: tuple[str, ...]
    sources: tuple[str, ...]
    space: str
    seq: int | None
    text: str  # read by the chatter test (a row's text costs little; building a MemoryItem does)
    importance: float
    subject: str | None  # a fact's data.subject
    about: object = None  # data.about as stored (a label or a [start, end] pair): the time test reads it
    valid_to: datetime | None = None  # a closed fact's end (superseded, called off): ranking demotes it

    @property
    def data(self) -> dict[str, object]:
        """What ranking reads of ``data`` beyond space, seq and subject: its ``about``, as on a memory."""
        return {} if self.about is None else {"about": self.about}


class ScoredId(NamedTuple):  # a tuple: routes make hundreds per query
    id: str
    score: float
    key: int = 0  # the backend's row number, for cheap lookups between routes


def scored_ids(rows: Iterable[tuple[str, float, int]]) -> list[ScoredId]:
    """(id, score, key) rows as hits, each made by ``tuple.__new__`` in C: the named tuple's own
    ``__new__`` is Python, and the dense and keyword routes make ~300 per query (issue 15)."""
    return list(map(_new_scored, rows))


_new_scored: Callable[[tuple[str, float, int]], ScoredId] = partial(tuple.__new__, ScoredId)


class OwnVectors(Mapping[str, "Vectors"]):
    """``MemoryStore.own_vectors``' answer: each memory's own-turn vector by id, the rows of one matrix
    (``matrix``, row ``n`` the ``n``-th id), so recall scores them in one product without stacking
    200 rows first (issue 15)."""

    __slots__ = ("_at", "ids", "matrix")

    def __init__(self, ids: Sequence[str], matrix: Vectors | None = None) -> None:
        self.ids = list(ids)
        self.matrix = matrix
        self._at: dict[str, int] | None = None

    def __getitem__(self, memory_id: str) -> Vectors:
        if self._at is None:
            self._at = {i: n for n, i in enumerate(self.ids)}
        at = self._at[memory_id]  # a KeyError first, so ``in`` and ``get`` work on an empty answer too
        assert self.matrix is not None
        row: Vectors = self.matrix[at]
        return row

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)


def _no_scores(keys: Sequence[int]) -> list[float]:
    return [0.0] * len(keys)


class NameVersions(NamedTuple):
    """What recall's cached names are checked against: the scopes' entities version, their agent's persons'."""

    entities: int
    persons: int


@dataclass(frozen=True)
class Claim:
    """Indexing work held by ``worker`` until ``until`` (UTC wall clock); then anyone may take it."""

    worker: str
    until: datetime


@dataclass
class Writes:
    """Everything one unit of work writes: committed together, or not at all.

    ``fold_points`` move the start of a space's working memory: (agent, space, first seq kept).
    ``indexed_messages`` (agent, message id) are marked as turned into memories.
    """

    memories: Sequence[MemoryItem] = ()
    vectors: Vectors | None = None
    # a chunk's own turn embedded alone, beside its vector with the context turns (recall.anchor); one
    # row per memory, or None
    own_vectors: Vectors | None = None
    terms: Sequence[Terms] = ()
    indexed_messages: Sequence[tuple[str, str]] = ()
    fold_points: Sequence[tuple[str, str, int]] = ()
    # (agent, memory id) deleted before ``memories`` are written, their links kept: a corrected memory
    # is replaced under its id in one transaction, never lost half-way
    replaced: Sequence[tuple[str, str]] = ()
    # a fold's closes, entity names and released aliases land with its memories: a fold whose commit
    # failed leaves none of them for its retry, which may read the fold otherwise, to contradict.
    # ``updates``: (agent, memory id, fields) as ``update_memories``, before ``memories`` are written;
    # ``entities`` with one ``entity_vectors`` row each, as ``add_entity_names``; ``dropped_aliases``:
    # (agent, entity id, names) as ``drop_entity_aliases``, after the entities
    updates: Sequence[tuple[str, str, dict[str, Any]]] = ()
    entities: Sequence[Entity] = ()
    entity_vectors: Vectors | None = None
    dropped_aliases: Sequence[tuple[str, str, Sequence[str]]] = ()
    # per memory, the stored messages or memories it was made from (a merge's facts, a summary's events), read
    # before: each must still be stored, or made in this unit, when it is written. One an erasure took
    # meanwhile leaves it unwritten, and what was made from it, so the erased does not come back. None: not
    # checked (a caller's own sources, as remember's, may name what the store never held)
    made_from: Sequence[Sequence[str]] | None = None
    # the job this unit completes keeps this as its last error (the LLM's, when the rules took its fold)
    job_error: str = ""


# fields of a stored memory that ``update_memories`` may change; text, scope and kind never change
# (a changed text is a new memory, so the indexes always describe what is stored); ``created_at`` only
# as an import restores it (UTC, zone-less)
UPDATABLE = frozenset(
    {
        "strength",
        "importance",
        "feedback",
        "valid_to",
        "access_count",
        "last_access",
        "keywords",
        "data",
        "insight",
        "created_at",
    }
)


# ``MemoryFilter.open_at`` for "not closed at all": every ``valid_to`` lies before it
OPEN = datetime(9999, 1, 1)


@dataclass(frozen=True)
class MemoryFilter:
    """What ``find_memories`` keeps, every test run in the store, so a caller never loads a scope's whole
    history to find one memory (the current home among years of facts). Unset tests keep everything.

    ``said_by``: said (else about, else written) at or before then, as ``list_memories`` orders them;
    ``open_at``: not closed (``valid_to``) by then (``OPEN``: not closed at all); ``subject`` and
    ``predicates``: a fact's edge; ``keywords``: any of them is the fact's ``data.keyword`` or one of the
    memory's keywords; ``text``: the memory's text, exactly.
    """

    kinds: tuple[MemoryKind, ...] = ()
    said_by: datetime | None = None
    open_at: datetime | None = None
    subject: str | None = None
    keywords: tuple[str, ...] = ()
    predicates: tuple[str, ...] = ()
    text: str | None = None


@dataclass
class RouteHits:
    """One route's candidates, best first, and the time the store spent on them."""

    hits: list[ScoredId] = field(default_factory=list)
    ms: float = 0.0
    # dense only: the score of any memory of the scanned scopes by key, for other routes' candidates
    score_of: Callable[[Sequence[int]], list[float]] = _no_scores


@dataclass(frozen=True)
class ScopeStats:
    """One scope of an agent as a console lists it: a tag (``official``, ``person:木木``, ``space:g1``),
    how many messages and memories it holds, when its last message was said (wall-clock time, like
    every message's) and when its newest memory was written (UTC, like every ``created_at``)."""

    agent: str
    scope: str
    messages: int = 0
    memories: int = 0
    last_activity: datetime | None = None
    last_written: datetime | None = None


@runtime_checkable
class Lifecycle(Protocol):
    """Closing the store, its schema version, which embedder's vectors it holds, its clock and zone."""

    clock: Callable[[], datetime]  # stamps rows' created_at, zone-less UTC; a Memory's clock, if given
    # whose wall clock memories' times are (UTC until a Memory sets its timezone): listings read an
    # undated memory's created_at in it, to sort it among dated ones
    zone: ZoneInfo

    def close(self) -> None: ...

    def schema_version(self) -> int: ...

    def embedding_model(self) -> tuple[str, int] | None:
        """The embedder whose vectors the store holds, or None while it holds none."""

    def set_embedding_model(self, name: str, dim: int) -> None: ...


@runtime_checkable
class MessageStore(Protocol):
    """Persons, their core blocks, the messages of each space (the recall log) and its working memory."""

    # persons
    def upsert_person(self, agent: str, person: Person) -> None: ...

    def get_person(self, agent: str, person_id: str) -> Person | None: ...

    def list_persons(self, agent: str) -> list[Person]: ...

    def persons_version(self, agent: str) -> int: ...  # grows at each write to the agent's persons' names, anywhere

    # core blocks of one person (seed 002's human block), apart from the shared Markdown files
    def person_blocks(self, agent: str, person: str) -> dict[str, str]:
        """The person's own blocks: label -> text."""

    def set_person_block(self, agent: str, person: str, label: str, text: str, expected: str | None) -> bool:
        """Write a block only if it still holds ``expected`` (None: it must not exist yet).

        False, and nothing written, when another writer changed it first: read again and retry.
        """

    # messages (the recall log)
    def append_messages(self, messages: Sequence[Message], claim: Claim | None = None) -> list[Message]:
        """Store new messages durably in one transaction; ids already stored are skipped.

        With ``claim`` the new messages are born claimed for indexing, so no other process takes them.
        Returns the messages actually inserted, with their ``seq`` in the space.
        """

    def get_messages(self, agent: str, ids: Sequence[str]) -> list[Message]: ...

    def recent_messages(
        self, agent: str, space: str, limit: int, before_seq: int | None = None, *, from_seq: int | None = None
    ) -> list[Message]:
        """A space's last ``limit`` messages (before ``before_seq``, from ``from_seq`` on), oldest first."""

    def messages_between(self, agent: str, space: str, start: datetime, end: datetime) -> list[Message]:
        """A space's messages said from ``start`` to before ``end`` (wall clocks), in the order stored."""

    def spoke_in(self, agent: str, space: str, speakers: Sequence[str] | None) -> set[str]:
        """Those of ``speakers`` (everyone, if None) with a message in ``space``: a group's members among them."""

    def unindexed_messages(
        self, limit: int, scopes: Sequence[Scope] | None = None, keep: Callable[[str], bool] | None = None
    ) -> list[Message]:
        """Messages not yet made memories, oldest first; with ``scopes``, those of the newest ``limit`` whose
        text ``keep`` accepts (read and decoded only then: recall's keyword tail looks at a thousand)."""

    def claim_unindexed(self, worker: str, now: datetime, lease_seconds: float, limit: int) -> list[Message]:
        """Atomically take up to ``limit`` unindexed messages nobody holds (or whose claim expired), oldest
        first: two callers never get the same message while its claim holds."""

    def release_messages(self, worker: str, messages: Sequence[tuple[str, str]]) -> None:
        """Give back (agent, message id) claims of ``worker`` not yet indexed, e.g. after a failure."""

    def release_claims(self, dead: Callable[[str], bool]) -> int:
        """Give back every claim on unindexed messages whose claimer ``dead`` says is gone; how many."""

    # working memory
    def working_start(self, agent: str, space: str) -> int:
        """The first seq of the space still in working memory (1 while nothing has folded)."""

    def scope_stats(self, agent: str | None = None) -> list[ScopeStats]:
        """Every scope holding messages or memories (of one agent, or all): counts and last activity."""


@runtime_checkable
class MemoryStore(Protocol):
    """Memories with their vectors and keyword terms, and the one transaction that writes a unit of work."""

    # writes
    def apply(self, writes: Writes, complete_job: tuple[str, str] | None = None) -> None:
        """Commit ``writes`` in one transaction; with ``complete_job`` (job id, worker) the job is
        marked done in the same transaction, so a re-run job never writes twice. Memories whose id
        is already stored are skipped (ids from a job are deterministic)."""

    def add_memories(
        self,
        items: Sequence[MemoryItem],
        vectors: Vectors,
        terms: Sequence[Terms],
        indexed_messages: Sequence[tuple[str, str]] = (),
        own_vectors: Vectors | None = None,
        made_from: Sequence[Sequence[str]] | None = None,
    ) -> None:
        """Insert memories with their vectors and keyword terms in one transaction.

        ``indexed_messages`` (agent, message id) are marked indexed in the same transaction, so a
        crash leaves either both or neither. ``own_vectors``: each chunk's turn embedded alone. ``made_from``:
        as ``Writes.made_from``; a chunk left unwritten leaves its message unindexed and unclaimed.
        """

    def get_memories(self, agent: str, ids: Sequence[str]) -> list[MemoryItem]:
        """Memories by id, in the order asked; ids of other agents or unknown ids are left out."""

    def taken_ids(self, agent: str, ids: Sequence[str], entities: bool = False) -> list[str]: ...  # by other agents

    def rank_rows(self, agent: str, ids: Sequence[str], keys: Sequence[int] = ()) -> list[RankRow]:
        """What ranking reads of these memories (as ``get_memories``, far cheaper to load). ``keys``: the
        row numbers the routes gave with the ids (``ScoredId.key``, 0 where unknown), in order; a backend may
        read by them, keeping only rows whose id is the one asked for."""

    def recall_memories(self, agent: str, ids: Sequence[str]) -> list[MemoryItem]:
        """The memories recall returns, as ``get_memories``, except that strength, access count and last
        access (which no hit shows) may be as an earlier read found them: a backend may keep the rows."""

    def own_vectors(self, agent: str, ids: Sequence[str], keys: Sequence[int] = ()) -> OwnVectors:
        """The own-turn vectors of these memories (chunks whose turn was embedded alone too), by id.
        ``keys``: the row numbers a route gave with the ids (``ScoredId.key``, 0 where unknown), in order;
        a backend may read by them instead."""

    def delete_memories(self, agent: str, ids: Sequence[str]) -> int: ...

    def count_memories(self, agent: str | None = None, scopes: Sequence[Scope] | None = None) -> int: ...

    def list_memories(
        self, scopes: Sequence[Scope], kinds: Sequence[MemoryKind] | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryItem]:
        """Memories of the scopes, newest first."""

    def page_memories(
        self, scopes: Sequence[Scope], kinds: Sequence[MemoryKind] | None, limit: int, after: ListMark | None
    ) -> list[Marked]:
        """``list_memories`` from just after ``after`` (None: the newest), each memory with its mark."""

    def find_memories(self, scopes: Sequence[Scope], where: MemoryFilter, limit: int = 100) -> list[MemoryItem]:
        """Memories of the scopes that pass ``where``, newest said first (as ``list_memories``)."""

    def record_access(
        self, agent: str, ids: Sequence[str], when: datetime, strength_bonus: float = 0.0, times: int = 1
    ) -> None:
        """Count ``times`` recalls of these memories (access count, last access) and add ``times`` ×
        ``strength_bonus`` to their strength."""

    def update_memories(self, agent: str, changes: Sequence[tuple[str, dict[str, Any]]]) -> int:
        """Change fields (only those in ``UPDATABLE``) of the agent's memories; returns how many changed."""

    def add_feedback(self, agent: str, memory_id: str, value: float) -> float | None:
        """Add ``value`` to a memory's feedback in one statement (two raters at once both count), kept
        within -1…1, the range a score reads; the new sum, or None when the agent has no such memory."""


@runtime_checkable
class SearchStore(Protocol):
    """The two search routes of recall, within the caller's scopes."""

    def search_dense(self, scopes: Sequence[Scope], query: Vectors, limit: int) -> RouteHits:
        """Exact cosine search within the scopes."""

    def search_keyword(self, scopes: Sequence[Scope], query: Terms, limit: int) -> RouteHits:
        """BM25 over the pre-tokenised text within the scopes; higher scores are better."""

    def reading(self, agent: str) -> AbstractContextManager[None]:
        """One read snapshot for what the calling thread reads of ``agent``'s memories inside (a recall);
        a write on the thread ends it. A backend that gains nothing from it does nothing."""

    def tidy_keywords(self, max_steps: int = 16) -> int:
        """Merge the keyword index's segments a bounded step at a time (maintenance): a term is looked up
        in every segment, so their number, which grows with the writes, sets keyword search's cost.
        Returns the steps that did work; 0 when there was nothing to merge or the backend needs none."""


@runtime_checkable
class Store(Lifecycle, MessageStore, JobStore, MemoryStore, GraphStore, SearchStore, EraseStore, Protocol):
    """A durable home for messages, memories and their indexes: the whole contract, one aggregate each."""

    def unindexed_with_versions(
        self, limit: int, scopes: Sequence[Scope], keep: Callable[[str], bool] | None = None
    ) -> tuple[list[Message], NameVersions]:
        """``unindexed_messages(limit, scopes, keep)``, ``entities_version(scopes)`` and the scopes' agent's
        ``persons_version``, as the three calls answer them, in one round trip where a backend has round
        trips: recall's first reads (its keyword tail, and the versions its cached entity lists and person
        names are checked against; issue 15)."""
