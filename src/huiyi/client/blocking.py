"""``Client``: the methods of :class:`~huiyi.client.remote.AsyncClient`, blocking, as ``Memory`` offers
those of ``AsyncMemory``. Each call runs the async one on a private event loop in a daemon thread."""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from concurrent.futures import Future
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, TypeVar

import httpx

from huiyi.client.models import RemoteError
from huiyi.client.remote import DEFAULT_URL, AsyncClient

__all__ = ["Client"]

P = ParamSpec("P")
T = TypeVar("T")


class _LoopThread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="huiyi-client", daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return future.result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        self.loop.close()


def _blocking(method: Callable[Concatenate[AsyncClient, P], Awaitable[T]]) -> Callable[Concatenate[Client, P], T]:
    def call(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> T:
        if self._closed:  # its loop is gone: say so, as a closed Memory does, not "Event loop is closed"
            raise RemoteError("this client is closed", status=0, code="closed")

        async def run() -> T:
            return await method(self.core, *args, **kwargs)

        return self._loop.run(run())

    functools.update_wrapper(call, method)
    return call


def _iterating(
    method: Callable[Concatenate[AsyncClient, P], AsyncIterator[T]],
) -> Callable[Concatenate[Client, P], Iterator[T]]:
    """An async iterator of ``AsyncClient`` as a blocking one: each step runs on the client's loop."""

    def call(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
        items = method(self.core, *args, **kwargs)

        async def step() -> T:
            return await anext(items)

        async def stop() -> None:
            await items.aclose()  # type: ignore[attr-defined]

        def walk() -> Iterator[T]:
            try:
                while True:
                    if self._closed:
                        raise RemoteError("this client is closed", status=0, code="closed")
                    try:
                        yield self._loop.run(step())
                    except StopAsyncIteration:
                        return
            finally:
                if not self._closed:  # a walk left early: end its pages on the loop they run on
                    self._loop.run(stop())

        return walk()

    functools.update_wrapper(call, method)
    return call


class Client:
    """A huiyi server's memory, as a ``Memory`` would offer it: the same methods, blocking.

    ``with Client("http://127.0.0.1:8765") as memory: memory.add(...)`` — or call :meth:`close`.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._closed = False

        async def make() -> AsyncClient:  # built on the loop that will use its connections
            return AsyncClient(base_url, api_key=api_key, timeout=timeout, transport=transport)

        self._loop = _LoopThread()
        try:
            self.core = self._loop.run(make())
        except BaseException:  # a bad argument must not leave the loop's thread behind
            self._closed = True
            self._loop.stop()
            raise

    @property
    def base_url(self) -> str:
        return self.core.base_url

    health = _blocking(AsyncClient.health)
    add = _blocking(AsyncClient.add)
    flush = _blocking(AsyncClient.flush)
    working_memory = _blocking(AsyncClient.working_memory)
    overview = _blocking(AsyncClient.overview)
    consolidate = _blocking(AsyncClient.consolidate)
    core_blocks_for = _blocking(AsyncClient.core_blocks_for)
    context = _blocking(AsyncClient.context)
    remember = _blocking(AsyncClient.remember)
    get = _blocking(AsyncClient.get)
    delete = _blocking(AsyncClient.delete)
    memories = _blocking(AsyncClient.memories)
    memories_page = _blocking(AsyncClient.memories_page)
    messages = _blocking(AsyncClient.messages)
    feedback = _blocking(AsyncClient.feedback)
    link = _blocking(AsyncClient.link)
    update = _blocking(AsyncClient.update)
    entities = _blocking(AsyncClient.entities)
    get_entity = _blocking(AsyncClient.get_entity)
    create_entity = _blocking(AsyncClient.create_entity)
    update_entity = _blocking(AsyncClient.update_entity)
    delete_entity = _blocking(AsyncClient.delete_entity)
    merges = _blocking(AsyncClient.merges)
    undo_merge = _blocking(AsyncClient.undo_merge)
    reports = _blocking(AsyncClient.reports)
    recall = _blocking(AsyncClient.recall)
    set_person = _blocking(AsyncClient.set_person)
    get_person = _blocking(AsyncClient.get_person)
    forget_person = _blocking(AsyncClient.forget_person)
    forget_messages = _blocking(AsyncClient.forget_messages)
    export = _blocking(AsyncClient.export)
    jobs = _blocking(AsyncClient.jobs)
    jobs_page = _blocking(AsyncClient.jobs_page)
    reports_page = _blocking(AsyncClient.reports_page)
    entities_page = _blocking(AsyncClient.entities_page)
    search_page = _blocking(AsyncClient.search_page)
    iter_memories = _iterating(AsyncClient.iter_memories)
    iter_search = _iterating(AsyncClient.iter_search)
    iter_jobs = _iterating(AsyncClient.iter_jobs)
    iter_reports = _iterating(AsyncClient.iter_reports)
    iter_entities = _iterating(AsyncClient.iter_entities)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._loop.run(self.core.close())
        self._loop.stop()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
