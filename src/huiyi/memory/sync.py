"""``Memory``: the synchronous face of :class:`~huiyi.memory.AsyncMemory`, on a private event loop."""

from __future__ import annotations

import atexit
import contextlib
import functools
import logging
import threading
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from concurrent.futures import Future
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from huiyi.config import Config
from huiyi.config.recall import RecallRecipe
from huiyi.deferred import deferred
from huiyi.errors import StoreError
from huiyi.flows.extract import Extractor
from huiyi.memory.async_memory import AsyncMemory
from huiyi.memory.common import Context, MessageLike, _check_flags, _check_seconds
from huiyi.memory.pages import walk_blocking
from huiyi.model import Entity, Job, JobState, MemoryItem, MemoryKind, Message, RecallResult
from huiyi.providers.embed import Embedder
from huiyi.store.base import Store
from huiyi.store.jobs import RunReport

if TYPE_CHECKING:
    import asyncio
else:
    asyncio = deferred("asyncio", globals())  # loaded when a memory opens, not at import (issue 15)

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")


class _LoopThread:
    """An event loop in a daemon thread, for running the async core from synchronous code."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="huiyi-loop", daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result()
        except BaseException:  # Ctrl-C while waiting: the call is cancelled, as an awaited one would be
            future.cancel()
            raise

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        self.loop.close()


class _InFlight:
    """The calls under way, so that ``close`` lets them end before the store closes under them (closing a
    connection another thread was using crashed the process) and refuses later ones in words."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._count = 0
        self._closing = False

    @contextlib.contextmanager
    def call(self) -> Iterator[None]:
        with self._changed:
            if self._closing:
                raise StoreError("this memory is closed")
            self._count += 1
        try:
            yield
        finally:
            with self._changed:
                self._count -= 1
                self._changed.notify_all()

    def close(self, timeout: float) -> bool:
        """Refuse new calls and wait for those under way; whether they all ended in ``timeout``."""
        with self._changed:
            self._closing = True
            return self._changed.wait_for(lambda: self._count == 0, timeout)


CLOSE_WAIT_SECONDS = 60.0  # a call still running after this (a long import) meets a closed store instead


def _blocking(method: Callable[Concatenate[AsyncMemory, P], Awaitable[T]]) -> Callable[Concatenate[Memory, P], T]:
    def call(self: Memory, /, *args: P.args, **kwargs: P.kwargs) -> T:
        async def run() -> T:
            return await method(self.core, *args, **kwargs)

        with self._calls.call():
            return self._loop.run(run())

    functools.update_wrapper(call, method)
    return call


_unclosed: weakref.WeakSet[Memory] = weakref.WeakSet()
_exit_hook_registered = False


def _close_at_exit(memory: Memory) -> None:
    """Close what the caller left open before the interpreter stops thread pools under it.

    ``threading``'s exit hooks run before thread pools refuse work (and before ``atexit``), so the
    worker and the reinforcer finish cleanly instead of raising 'cannot schedule new futures'.
    """
    global _exit_hook_registered
    _unclosed.add(memory)
    if not _exit_hook_registered:
        register = getattr(threading, "_register_atexit", None)
        (register or atexit.register)(_close_unclosed)
        _exit_hook_registered = True


def _close_unclosed() -> None:
    for memory in list(_unclosed):
        try:
            memory.close()
        except Exception:  # exiting anyway; what was durable stays durable
            log.exception("closing a Memory at exit failed")


class Memory:
    """The synchronous face of :class:`AsyncMemory`: the same methods, blocking."""

    def __init__(
        self,
        path: str | Path = ".huiyi",
        *,
        config: Config | None = None,
        embedder: Embedder | None = None,
        store: Store | None = None,
        extractor: Extractor | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.core = AsyncMemory(path, config=config, embedder=embedder, store=store, extractor=extractor, clock=clock)
        self._loop = _LoopThread()
        self.core._runs_on(self._loop.loop)
        self._calls = _InFlight()
        self._closed = False
        _close_at_exit(self)

    @property
    def config(self) -> Config:
        return self.core.config

    @property
    def embedder(self) -> Embedder:
        return self.core.embedder

    @property
    def store(self) -> Store:
        return self.core.store

    def add(
        self,
        messages: Sequence[MessageLike] | MessageLike,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        progress: Callable[[int], None] | None = None,
        extract: bool = True,
        index: bool | None = None,
    ) -> list[Message]:
        _check_flags(extract=extract, index=index)
        with self._calls.call():
            if self.core._indexes_now(index):
                return self._loop.run(
                    self.core.add(
                        messages,
                        agent=agent,
                        person=person,
                        space=space,
                        progress=progress,
                        extract=extract,
                        index=index,
                    )
                )
            # not through the loop: a bot's add pays thread wake-ups, each a few ms on a busy machine (issue 15)
            return self.core.add_blocking(
                messages, self._loop.loop, agent=agent, person=person, space=space, extract=extract
            )

    add.__doc__ = AsyncMemory.add.__doc__
    remember = _blocking(AsyncMemory.remember)
    set_person = _blocking(AsyncMemory.set_person)
    get_person = _blocking(AsyncMemory.get_person)

    def recall(
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
        recipe: RecallRecipe | str | None = None,
        explain: bool = False,
        dialogue: Sequence[str] | None = None,
        speaker: str | None = None,
    ) -> RecallResult:
        # on the caller's thread: no hop to the loop and to a read thread and back (issue 15)
        with self._calls.call():
            return self.core.recall_blocking(
                query,
                agent=agent,
                person=person,
                space=space,
                limit=limit,
                score_threshold=score_threshold,
                kinds=kinds,
                now=now,
                time_range=time_range,
                recipe=recipe,
                explain=explain,
                dialogue=dialogue,
                speaker=speaker,
            )

    recall.__doc__ = AsyncMemory.recall.__doc__
    get = _blocking(AsyncMemory.get)
    delete = _blocking(AsyncMemory.delete)
    messages = _blocking(AsyncMemory.messages)
    memories = _blocking(AsyncMemory.memories)
    memories_page = _blocking(AsyncMemory.memories_page)

    def context(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        message: str = "",
        last_reply: str = "",
        limit: int | None = None,
        shown: Sequence[str] = (),
        now: datetime | None = None,
        recipe: RecallRecipe | str | None = None,
        explain: bool = False,
        max_chars: int | None = None,
    ) -> Context:
        # on the caller's thread, as recall: no hop to the loop and to a read thread per read (issue 15)
        with self._calls.call():
            return self.core.context_blocking(
                agent=agent,
                person=person,
                space=space,
                message=message,
                last_reply=last_reply,
                limit=limit,
                shown=shown,
                now=now,
                recipe=recipe,
                explain=explain,
                max_chars=max_chars,
            )

    context.__doc__ = AsyncMemory.context.__doc__
    feedback = _blocking(AsyncMemory.feedback)
    expand = _blocking(AsyncMemory.expand)
    consolidate = _blocking(AsyncMemory.consolidate)
    summarize = _blocking(AsyncMemory.summarize)
    maintain = _blocking(AsyncMemory.maintain)
    merges = _blocking(AsyncMemory.merges)
    undo_merge = _blocking(AsyncMemory.undo_merge)
    link = _blocking(AsyncMemory.link)
    flush = _blocking(AsyncMemory.flush)
    run_jobs = _blocking(AsyncMemory.run_jobs)
    indexed = _blocking(AsyncMemory.indexed)
    jobs = _blocking(AsyncMemory.jobs)
    jobs_page = _blocking(AsyncMemory.jobs_page)
    retry_job = _blocking(AsyncMemory.retry_job)
    retry_failed = _blocking(AsyncMemory.retry_failed)
    working_memory = _blocking(AsyncMemory.working_memory)
    overview = _blocking(AsyncMemory.overview)
    forget_person = _blocking(AsyncMemory.forget_person)
    forget_messages = _blocking(AsyncMemory.forget_messages)
    compact = _blocking(AsyncMemory.compact)
    purged = _blocking(AsyncMemory.purged)
    core_blocks_for = _blocking(AsyncMemory.core_blocks_for)
    core_block_append = _blocking(AsyncMemory.core_block_append)
    core_block_replace = _blocking(AsyncMemory.core_block_replace)
    update = _blocking(AsyncMemory.update)
    get_many = _blocking(AsyncMemory.get_many)
    speaker_names = _blocking(AsyncMemory.speaker_names)
    scopes = _blocking(AsyncMemory.scopes)
    persons = _blocking(AsyncMemory.persons)
    entities = _blocking(AsyncMemory.entities)
    links = _blocking(AsyncMemory.links)
    chat_around = _blocking(AsyncMemory.chat_around)
    get_entity = _blocking(AsyncMemory.get_entity)
    create_entity = _blocking(AsyncMemory.create_entity)
    update_entity = _blocking(AsyncMemory.update_entity)
    delete_entity = _blocking(AsyncMemory.delete_entity)
    reports = _blocking(AsyncMemory.reports)
    reports_page = _blocking(AsyncMemory.reports_page)
    entities_page = _blocking(AsyncMemory.entities_page)

    def iter_memories(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        kinds: Sequence[MemoryKind | str] | None = None,
        per_page: int = 100,
    ) -> Iterator[MemoryItem]:
        """Every memory of one scope, newest first, read a page at a time by cursor."""
        return walk_blocking(
            lambda cursor: self.memories_page(
                agent=agent, person=person, space=space, kinds=kinds, limit=per_page, cursor=cursor
            )
        )

    def iter_jobs(self, *, agent: str, states: Sequence[JobState] = (), per_page: int = 100) -> Iterator[Job]:
        """Every background job of one agent (in ``states``, when given), oldest first, a page at a time."""
        return walk_blocking(lambda cursor: self.jobs_page(agent=agent, states=states, limit=per_page, cursor=cursor))

    def iter_reports(self, *, agent: str, scope: str | None = None, per_page: int = 20) -> Iterator[RunReport]:
        """Every kept report (of ``scope``, when given), newest first, a page at a time."""
        return walk_blocking(lambda cursor: self.reports_page(agent=agent, scope=scope, limit=per_page, cursor=cursor))

    def iter_entities(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        merged: bool = False,
        per_page: int = 100,
    ) -> Iterator[Entity]:
        """Every entity of one scope, in the order written, a page at a time."""
        return walk_blocking(
            lambda cursor: self.entities_page(
                agent=agent, person=person, space=space, merged=merged, limit=per_page, cursor=cursor
            )
        )

    def close(self, index_for: float | None = None) -> None:
        """Index what is still queued (for at most ``index_for`` seconds: the rest is indexed by the next open),
        then close."""
        _check_seconds("index_for", index_for)
        if self._closed:
            return
        self._closed = True
        _unclosed.discard(self)
        if not self._calls.close(CLOSE_WAIT_SECONDS):
            log.warning("closing a memory while calls are still running; they meet a closed store")
        self._loop.run(self.core.close(index_for))
        self._loop.stop()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
