"""``AsyncClient``: the methods of ``AsyncMemory``, answered by a ``huiyi serve`` over HTTP.

Same names, same keyword arguments, same models (:mod:`huiyi.model`), same errors: an app moves from
an embedded store to a server by building an ``AsyncClient(url)`` where it built an ``AsyncMemory(path)``.
Times come back with their zone; a time sent without one is read in the server's configured timezone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from enum import Enum
from types import TracebackType
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from huiyi.client.listings import PAGE, Listings, kinds_of
from huiyi.client.models import Context, Erasure
from huiyi.client.wire import DEFAULT_URL, adapter, drop_none, iso, segment
from huiyi.errors import InvalidInput, NotFound, said
from huiyi.model import (
    CoreBlock,
    Entity,
    EntityMerge,
    EntityType,
    FactKind,
    Job,
    Link,
    LinkKind,
    MemoryItem,
    MemoryKind,
    Message,
    MessageIn,
    Person,
    RecallResult,
    Scope,
)

__all__ = ["DEFAULT_URL", "AsyncClient", "MessageLike"]

Purge = Literal["behind", "wait"]  # an erasure's purge of the server's files: behind the answer, or waited for

MessageLike = MessageIn | dict[str, Any] | str
E = TypeVar("E", bound=Enum)
FORGET_PAGE = 1000  # ids of one POST /v1/messages/forget, the server's limit
_COUNTS = ("messages", "memories", "entities", "jobs", "persons", "blocks", "reindexed")


def listed(values: Sequence[str], what: str) -> list[str]:
    """A list argument; one string would be sent as its characters (keywords="猫" as ["猫"], "abc" as 3)."""
    if isinstance(values, str | bytes):
        raise InvalidInput(f"{what} are a list, not one string")
    return list(values)


def moment(when: datetime | None) -> datetime | None:
    """A recall's time, refused as Memory refuses it: ``now="2024"`` is no moment (and was an AttributeError)."""
    if when is not None and not isinstance(when, datetime):
        raise InvalidInput(f"a time is a datetime, not {type(when).__name__}")
    return when


def member(kind: type[E], value: object) -> str:
    """An enum's value as sent; one it does not have is Memory's InvalidInput, not the enum's ValueError."""
    try:
        return str(kind(value).value)
    except ValueError as exc:
        raise InvalidInput(f"{exc}; the choices are {', '.join(str(m.value) for m in kind)}") from exc


def _edits(changes: Mapping[str, Any], what: str, scope: set[str]) -> Mapping[str, Any]:
    """An edit's changes, sent beside the call's scope in one body: {"person": …} was read as the scope the
    call names (or dropped), where Memory refuses it as no field an edit changes."""
    named = sorted(set(changes) & scope)
    if named:
        raise InvalidInput(f"these {what} fields cannot be edited: {named}")
    return changes


def _message(position: int, item: MessageLike) -> dict[str, Any]:
    """A message as JSON, checked as ``Memory.add`` checks it."""
    try:
        message = MessageIn(text=item) if isinstance(item, str) else MessageIn.model_validate(item)
    except ValueError as exc:  # in Memory.add's words, not pydantic's framing
        raise InvalidInput(f"message {position}: {said(exc)}") from exc
    return message.model_dump(mode="json", exclude_none=True)


# the shapes of answers that are not one shared model: checked like the others, so a wrong answer is a RemoteError
class _Added(BaseModel):
    messages: list[Message]


class _Blocks(BaseModel):
    blocks: list[CoreBlock]


class _Deleted(BaseModel):
    deleted: int


class AsyncClient(Listings):
    """A huiyi server's memory, as an ``AsyncMemory`` would offer it.

    ``api_key`` is sent as ``Authorization: Bearer``; ``transport`` replaces the network (tests hand
    it an ``httpx.ASGITransport``).
    """

    async def health(self) -> dict[str, Any]:
        """The server's status, version, schema version and embedder."""
        return await self._typed(adapter(dict[str, Any]), "GET", "/health")

    # ingest ------------------------------------------------------------------------------------
    async def add(
        self,
        messages: Sequence[MessageLike] | MessageLike,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        index: bool | None = None,
    ) -> list[Message]:
        """Append messages (idempotent by id); returns the messages newly stored. The server indexes them
        right after answering, or before with ``index=True`` (default: its ``ingest.index``)."""
        batch = [messages] if isinstance(messages, str | dict | MessageIn) else list(messages)
        if not batch:  # nothing to store, as ``Memory.add`` answers (the server takes one message at least)
            if not isinstance(agent, str) or not agent.strip():
                raise InvalidInput("agent is required, as a string")
            try:
                Scope.of_chat(agent, person, space)
            except ValueError as exc:
                raise InvalidInput(said(exc)) from exc
            return []
        body: dict[str, Any] = drop_none({"agent": agent, "person": person, "space": space})
        if index is not None:
            body["index"] = index
        body["messages"] = [_message(i, m) for i, m in enumerate(batch)]
        return (await self._model(_Added, "POST", "/v1/messages", json=body)).messages

    async def flush(
        self, *, agent: str, person: str | None = None, space: str | None = None, wait: bool = True
    ) -> list[Job]:
        """Fold a conversation's working memory now; with ``wait`` its extraction runs before this returns."""
        body = drop_none({"agent": agent, "person": person, "space": space, "wait": wait})
        return await self._list(Job, "POST", "/v1/flush", json=body)

    async def working_memory(self, *, agent: str, person: str | None = None, space: str | None = None) -> list[Message]:
        params = {"agent": agent, "person": person, "space": space}
        return await self._list(Message, "GET", "/v1/working_memory", params=params)

    async def overview(self, *, agent: str, person: str | None = None, space: str | None = None) -> list[MemoryItem]:
        params = {"agent": agent, "person": person, "space": space}
        return await self._list(MemoryItem, "GET", "/v1/overview", params=params)

    async def consolidate(
        self, *, agent: str, person: str | None = None, space: str | None = None, dry_run: bool = False
    ) -> dict[str, Any]:
        """Consolidate one scope now; the server's report as JSON."""
        body = drop_none({"agent": agent, "person": person, "space": space, "dry_run": dry_run})
        return await self._typed(adapter(dict[str, Any]), "POST", "/v1/consolidate", json=body)

    async def core_blocks_for(self, *, agent: str, person: str | None = None) -> list[CoreBlock]:
        found = await self._model(_Blocks, "GET", "/v1/core_blocks", params={"agent": agent, "person": person})
        return found.blocks

    # the prompt context ------------------------------------------------------------------------
    async def context(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        message: str = "",
        last_reply: str = "",
        limit: int | None = None,
        shown: Sequence[str] = (),
        recipe: str | None = None,
        max_chars: int | None = None,
    ) -> Context:
        """Everything the chat model needs for its next turn, rendered for the prompt (``recipe``: a named
        recall recipe of the server's config; ``max_chars``: the text's bound, default the server's
        ``context.max_chars``, 0 none)."""
        body = drop_none(
            {
                "agent": agent,
                "person": person,
                "space": space,
                "message": message,
                "last_reply": last_reply,
                "limit": limit,
                "shown": list(shown),
                "recipe": recipe,
                "max_chars": max_chars,
            }
        )
        return await self._model(Context, "POST", "/v1/context", json=body)

    # memories ----------------------------------------------------------------------------------
    async def remember(
        self,
        text: str = "",
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        kind: MemoryKind = MemoryKind.NOTE,
        time: datetime | None = None,
        importance: float = 0.5,
        keywords: Sequence[str] = (),
        sources: Sequence[str] = (),
        data: dict[str, Any] | None = None,
        id: str | None = None,
        place: str = "",
        insight: str = "",
        participants: Sequence[str] = (),
        said_at: datetime | None = None,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,
        fact_kind: FactKind | str | None = None,
    ) -> MemoryItem:
        """Store one memory: official (no person or space) or of a scope; an ``id`` stored before writes nothing.
        ``subject``, ``predicate``, ``object``, ``fact_kind``: what it is about (the text may then be empty)."""
        body = {
            "agent": agent,
            "person": person,
            "space": space,
            "text": text,
            "kind": member(MemoryKind, kind),
            "time": iso(time),
            "said_at": iso(said_at),
            "importance": importance,
            "keywords": listed(keywords, "keywords"),
            "sources": listed(sources, "sources"),
            "data": data,
            "id": id,
            "place": place,
            "insight": insight,
            "participants": listed(participants, "participants"),
            "subject": subject,
            "predicate": predicate,
            "object": object,
            "fact_kind": fact_kind,
        }
        return await self._model(MemoryItem, "POST", "/v1/memories", json=drop_none(body))

    async def get(
        self, memory_id: str, *, agent: str, person: str | None = None, space: str | None = None
    ) -> MemoryItem:
        path = f"/v1/memories/{segment(memory_id, 'memory id')}"
        params = drop_none({"agent": agent, "person": person, "space": space})
        return await self._model(MemoryItem, "GET", path, params=params)

    async def delete(self, memory_id: str, *, agent: str, person: str | None = None, space: str | None = None) -> None:
        params = drop_none({"agent": agent, "person": person, "space": space})
        await self._call("DELETE", f"/v1/memories/{segment(memory_id, 'memory id')}", params=params)

    async def export(self, *, agent: str, person: str | None = None, space: str | None = None) -> list[dict[str, Any]]:
        """One scope whole, as ``huiyi export`` writes it, a dict a line (header, person, blocks, messages,
        memories): a user's data-access request."""
        params = {"agent": agent, "person": person, "space": space}
        found, _ = await self._exchange("GET", "/v1/export", params=params, lines=True)
        return list(found)

    async def messages(self, ids: Sequence[str], *, agent: str) -> list[Message]:
        """Stored messages by id; ids not stored are left out."""
        if isinstance(ids, str | bytes):  # one id would be asked for as its characters
            raise InvalidInput("ids are a list of ids, not one string")
        found: list[Message] = []
        for start in range(0, len(ids), PAGE):
            params = {"agent": agent, "id": list(ids[start : start + PAGE])}
            found.extend(await self._list(Message, "GET", "/v1/messages", params=params))
        return found

    async def feedback(
        self, memory_id: str, value: float, *, agent: str, person: str | None = None, space: str | None = None
    ) -> MemoryItem:
        body = drop_none({"agent": agent, "memory_id": memory_id, "value": value, "person": person, "space": space})
        return await self._model(MemoryItem, "POST", "/v1/feedback", json=body)

    async def link(
        self,
        source: str,
        target: str,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        kind: LinkKind = LinkKind.RELATED,
        weight: float = 1.0,
    ) -> Link:
        body: dict[str, Any] = {"agent": agent, "person": person, "space": space, "source": source}
        body |= {"target": target, "kind": member(LinkKind, kind), "weight": weight}
        return await self._model(Link, "POST", "/v1/links", json=drop_none(body))

    async def update(
        self,
        memory_id: str,
        changes: Mapping[str, Any],
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
    ) -> MemoryItem:
        """Correct a memory: text, time, place, keywords, insight, importance; a fact's ``valid_to``."""
        body = {key: iso(value) for key, value in _edits(changes, "memory", {"agent", "person", "space"}).items()}
        path = f"/v1/memories/{segment(memory_id, 'memory id')}"
        who = drop_none({"agent": agent, "person": person, "space": space})
        return await self._model(MemoryItem, "PATCH", path, json={**body, **who})

    # the graph -----------------------------------------------------------------------------------
    async def get_entity(self, entity_id: str, *, agent: str) -> Entity:
        path = f"/v1/entities/{segment(entity_id, 'entity id')}"
        return await self._model(Entity, "GET", path, params={"agent": agent})

    async def create_entity(
        self,
        name: str,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        type: EntityType | str = EntityType.SPECIFIC,
        aliases: Sequence[str] = (),
    ) -> Entity:
        body: dict[str, Any] = {"agent": agent, "person": person, "space": space, "name": name}
        body |= {"type": member(EntityType, type), "aliases": listed(aliases, "aliases")}
        return await self._model(Entity, "POST", "/v1/entities", json=drop_none(body))

    async def update_entity(self, entity_id: str, changes: Mapping[str, Any], *, agent: str) -> Entity:
        path = f"/v1/entities/{segment(entity_id, 'entity id')}"
        return await self._model(Entity, "PATCH", path, json={**_edits(changes, "entity", {"agent"}), "agent": agent})

    async def delete_entity(self, entity_id: str, *, agent: str) -> int:
        path = f"/v1/entities/{segment(entity_id, 'entity id')}"
        return (await self._model(_Deleted, "DELETE", path, params={"agent": agent})).deleted

    async def merges(self, *, agent: str) -> list[EntityMerge]:
        return await self._list(EntityMerge, "GET", "/v1/merges", params={"agent": agent})

    async def undo_merge(self, merge_id: str, *, agent: str) -> EntityMerge:
        path = f"/v1/merges/{segment(merge_id, 'merge id')}/undo"
        return await self._model(EntityMerge, "POST", path, params={"agent": agent})

    # recall ------------------------------------------------------------------------------------
    async def recall(
        self,
        query: str,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        limit: int | None = None,
        score_threshold: float | None = None,
        kinds: Sequence[MemoryKind | str] | None = None,
        now: datetime | None = None,
        time_range: tuple[datetime | None, datetime | None] | None = None,
        recipe: str | None = None,
        dialogue: Sequence[str] | None = None,
        speaker: str | None = None,
    ) -> RecallResult:
        """The memories most relevant to ``query`` that this person or space may see, best first;
        ``dialogue``: the chat lines before ``query``, oldest first, searched as views; ``speaker``: in a
        group, who asks (whom the question's 我 names)."""
        start, end = time_range or (None, None)
        body = {
            "query": query,
            "agent": agent,
            "person": person,
            "space": space,
            "limit": limit,
            "score_threshold": score_threshold,
            "kinds": kinds_of(kinds),
            "now": iso(moment(now)),
            "time_from": iso(moment(start)),
            "time_to": iso(moment(end)),
            "recipe": recipe,
            "dialogue": listed(dialogue, "dialogue") if dialogue else None,
            "speaker": speaker,
        }
        return await self._model(RecallResult, "POST", "/v1/recall", json=drop_none(body))

    # persons and erasure -------------------------------------------------------------------------
    async def set_person(self, person: Person, *, agent: str) -> None:
        body = {"agent": agent, "name": person.name, "aliases": person.aliases, "platform_ids": person.platform_ids}
        await self._call("PUT", f"/v1/persons/{segment(person.id, 'person id')}", json=body)

    async def get_person(self, person_id: str, *, agent: str) -> Person | None:
        try:
            return await self._model(
                Person, "GET", f"/v1/persons/{segment(person_id, 'person id')}", params={"agent": agent}
            )
        except NotFound:
            return None

    async def forget_person(self, person: str, *, agent: str, purge: Purge = "behind") -> Erasure:
        """Forget a person for good (GDPR-style erasure) on the server; ``purge="wait"`` answers once its files
        hold none of it (``Erasure.purged``), else their purge runs behind the answer."""
        path = f"/v1/persons/{segment(person, 'person id')}"
        return await self._model(Erasure, "DELETE", path, params={"agent": agent, "purge": purge})

    async def forget_messages(self, ids: Sequence[str], *, agent: str, purge: Purge = "behind") -> Erasure:
        """Forget messages by id, and what was drawn from them. The server takes 1000 ids a call, Memory any
        number (none too): sent in parts, what each erased is summed; a failed part is safe to send again."""
        if isinstance(ids, str | bytes):
            raise InvalidInput("ids are a list of ids, not one string")
        erased = Erasure(purged=True)  # nothing named: nothing to purge, as Memory answers
        for start in range(0, len(ids), FORGET_PAGE):
            body = {"agent": agent, "ids": list(ids[start : start + FORGET_PAGE]), "purge": purge}
            part = await self._model(Erasure, "POST", "/v1/messages/forget", json=body)
            counts = {name: getattr(erased, name) + getattr(part, name) for name in _COUNTS}
            erased = Erasure(**counts, purged=erased.purged and part.purged)
        return erased

    # life ----------------------------------------------------------------------------------------
    async def close(self) -> None:
        await self._close_http()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
