"""The memory facade's ground: one store, its embedder, config and clock, the thread pools, and closing."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, TypeVar
from zoneinfo import ZoneInfo

from huiyi import patterns
from huiyi.checks import caller_time, utc_of, wall_clock
from huiyi.config import Config
from huiyi.deferred import deferred
from huiyi.errors import ConfigError, EmbedderMismatch, InvalidInput, StoreError
from huiyi.flows import ingest
from huiyi.flows.core_blocks import CoreBlocks
from huiyi.flows.core_memory import CoreMemory
from huiyi.flows.extract import Extractor
from huiyi.flows.extract.worker import Worker
from huiyi.flows.recaps import Recaps
from huiyi.memory.common import READ_THREADS, WRITE_THREADS, _in_pool, _LazyExtractor
from huiyi.providers.embed import Embedder, make_embedder, warm_in_background
from huiyi.providers.priority import RecallFirst
from huiyi.recall.reinforce import Reinforcer
from huiyi.recall.render import Templates
from huiyi.store import open_store, rows
from huiyi.store.base import Store, TurnContext
from huiyi.text import lookalike, tokens

if TYPE_CHECKING:
    import asyncio

    from huiyi.providers.llm import LLM, OpenAIChat
else:
    asyncio = deferred("asyncio", globals())  # loaded when a memory opens, not at import (issue 15)

T = TypeVar("T")
log = logging.getLogger(__name__)

PYTHON_SWITCH_INTERVAL = 0.005  # sys.getswitchinterval() of a process that never set it


def _hand_the_gil_over_sooner(milliseconds: float) -> None:
    """Shorten the GIL's switch interval unless it is off (0) or the process chose its own."""
    if milliseconds > 0 and sys.getswitchinterval() == PYTHON_SWITCH_INTERVAL:
        sys.setswitchinterval(milliseconds / 1000)


def _utc_clock(clock: Callable[[], datetime], zone: ZoneInfo) -> Callable[[], datetime]:
    """``clock`` read as the store stamps rows: UTC, zone-less; a naive time is the zone's wall clock."""

    def utc_now() -> datetime:
        return utc_of(clock(), zone)

    return utc_now


def _rules_if_llm(config: Config) -> Extractor | None:
    """The rule extractor, to take a fold the configured LLM failed on every attempt; none without an LLM."""
    if not config.llm.base_url:
        return None
    from huiyi.flows.extract.rules import RuleExtractor  # here, as make_extractor does: opening stays cheap

    return RuleExtractor()


CLOSE_GRACE_S = 5.0  # how long close lets an extraction under way finish before its fold is given back


async def _stop_worker(task: asyncio.Task[None], stop: asyncio.Event, worker: Worker) -> None:
    """Stop the background worker and wait for it, on whichever loop it runs: one an earlier ``asyncio.run``
    started was cancelled as that loop ended, and awaiting it raised CancelledError out of ``close``. An
    extraction under way gives its fold back (a maintenance run under way ends as it would)."""
    loop = task.get_loop()
    if loop is asyncio.get_running_loop():
        stop.set()
        # an extraction under way ends first if it can (the rules take milliseconds; a fold given back is
        # the next open's to do), an LLM that does not answer is cut short
        if not (await asyncio.wait({task}, timeout=CLOSE_GRACE_S))[0]:
            worker.halt()
        await asyncio.wait({task})  # its end, not its outcome: a cancelled worker has stopped too
    elif loop.is_running():  # a loop of another thread: told and waited for there
        loop.call_soon_threadsafe(stop.set)
        waited = asyncio.run_coroutine_threadsafe(asyncio.wait({task}, timeout=CLOSE_GRACE_S), loop)
        if not (await asyncio.wrap_future(waited))[0]:
            loop.call_soon_threadsafe(worker.halt)
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(asyncio.wait({task}), loop))
    if task.done() and not task.cancelled() and (error := task.exception()) is not None:
        log.error("the background worker failed", exc_info=error)


class MemoryBase:
    """Long-term memory for one store: what every part of :class:`~huiyi.memory.AsyncMemory` stands on."""

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
        if config is not None and not isinstance(config, Config):  # a dict raised AttributeError deep in here
            raise ConfigError(f"config is a huiyi.Config, not {type(config).__name__}: make one with Config(**values)")
        if store is None and (isinstance(path, bytes) or not isinstance(path, str | os.PathLike)):
            # None read as "no path": os.fspath's TypeError named no argument of ours
            raise InvalidInput(f"path is the store's folder (a str or Path), not {type(path).__name__}")
        if store is None and not str(path).strip():  # an unset variable's "": the store went into the working folder
            raise InvalidInput("path is empty: name the store's folder (the default is .huiyi)")
        self.config = config or Config.load()
        _hand_the_gil_over_sooner(self.config.worker.switch_interval_ms)
        self._tz = ZoneInfo(self.config.timezone)
        self._clock = clock
        chunk = self.config.chunk
        # turn-alone chunks' context at query time: as many turns back as context_turns says
        context = TurnContext(tuple(chunk.context_weights[: max(0, chunk.context_turns)]), chunk.context_floor)
        self.store: Store = store or open_store(path, self.config.store, context)
        # the rows it writes are stamped by the same clock as the times it reads
        self._stamp = _utc_clock(clock, self._tz) if clock is not None else rows.now
        if clock is not None:
            self.store.clock = self._stamp
        self.store.zone = self._tz  # listings sort undated memories by when they were written, in this zone
        # the segmenter's dictionary and the model's session load off the first recall's path (issue 15): a
        # bot opens its memory before its first message. The dictionary's load holds the GIL throughout and
        # the session's needs it on and off, so a recall right after the open waits for both, one after a
        # pause for neither. The session starts first: the parts of it that let go of the GIL then overlap
        # the dictionary (open to first recall, median of 8: 271 ms against 282)
        self.embedder: Embedder = RecallFirst(embedder or make_embedder(self.config.embed))
        self._warming = warm_in_background(self.embedder)
        if self.config.language == "zh":  # an English bot loads it at its first Chinese text, if any
            tokens.warm_in_background()
        patterns.warm_in_background()
        lookalike.load_table()  # ~1 ms, here rather than at the first user line (a member named like the agent)
        try:
            self._check_embedder()
        except EmbedderMismatch:
            if store is None:  # opened here: a refused open leaves no connection behind
                self.store.close()
            raise
        # this instance's name on the indexing work it claims, apart from other processes and instances
        self._indexer = f"{ingest.indexer_name()}:{id(self):x}"
        self.templates = Templates.load(self.config.language, self.config.context.templates or None)
        self._other_templates: dict[str, Templates] = {}  # a chat in another language than configured
        self.core_blocks = CoreBlocks(self.config.context.core_blocks) if self.config.context.core_blocks else None
        self.core_memory = CoreMemory(
            self.core_blocks,
            self.store,
            self.config.context.person_blocks,
            self.config.context.tools_edit_agent_blocks,
        )
        self.worker = Worker(
            self.store,
            self.embedder,
            extractor or _LazyExtractor(self.config),
            self.config,
            fallback=_rules_if_llm(self.config),
        )
        self._llm_client: OpenAIChat | None = None
        self.reinforcer = Reinforcer(self.store, self.config.consolidate.forget.recall_bonus)
        self.recaps = Recaps()  # each conversation's overview, chosen again only as its events change
        self._worker_task: asyncio.Task[None] | None = None
        self._worker_stop = asyncio.Event()
        self._closed = False
        self._reads = ThreadPoolExecutor(READ_THREADS, thread_name_prefix="huiyi-read")
        self._writes = ThreadPoolExecutor(WRITE_THREADS, thread_name_prefix="huiyi-write")

    def _check_embedder(self) -> None:
        recorded = self.store.embedding_model()
        current = (self.embedder.name, self.embedder.dim)
        if recorded is None:
            self.store.set_embedding_model(*current)
        elif recorded != current:
            raise EmbedderMismatch(
                f"this store holds vectors of {recorded[0]} (dim {recorded[1]}) but the configured embedder "
                f"is {current[0]} (dim {current[1]}); use the same embedder or a new store"
            )

    def now(self) -> datetime:
        """The current wall-clock time in the configured timezone, without tzinfo (or the given clock's)."""
        if self._clock is not None:  # a clock in UTC (or any zone) is read as the store keeps times
            moment = self._clock()
            return moment if moment.tzinfo is None else wall_clock(moment, self._tz)
        return datetime.now(self._tz).replace(tzinfo=None)

    def written_now(self) -> datetime:
        """When a row is written, as the store keeps ``created_at``: UTC, zone-less (or the given clock's)."""
        return self._stamp()

    def wall(self, when: datetime | None) -> datetime | None:
        """``when`` as the store keeps times: wall clock in the configured timezone, zone-less (an aware
        time is moved into the zone first, so a caller's UTC ``now`` is not read as local time)."""
        if when is not None and not isinstance(when, datetime):  # e.g. now="2024": refused, not an AttributeError
            raise InvalidInput(f"a time is a datetime, not {type(when).__name__}")
        if when is None:
            return when
        try:
            return caller_time(when, self._tz)
        except ValueError as exc:
            raise InvalidInput(str(exc)) from exc

    def _check_open(self) -> None:
        if self._closed:  # in words, rather than a closed thread pool's or event loop's
            raise StoreError("this memory is closed")

    async def _run(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        self._check_open()
        return await asyncio.to_thread(function, *args, **kwargs)

    async def _read(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """On the hot path's own threads: recall and what the prompt reads."""
        self._check_open()
        return await _in_pool(self._reads, function, *args, **kwargs)

    async def _write(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """On the bounded write threads: appending, indexing, planning folds."""
        self._check_open()
        return await _in_pool(self._writes, function, *args, **kwargs)

    def _llm(self) -> LLM | None:
        if not self.config.llm.base_url:
            return None
        if self._llm_client is None:
            from huiyi.providers.llm import OpenAIChat  # here: a memory with no LLM never loads its client

            self._llm_client = OpenAIChat(self.config.llm)
        return self._llm_client

    def _persona(self, agent: str | None = None) -> str:
        if self.core_blocks is None:
            return ""
        return "\n".join(block.text for block in self.core_blocks.blocks(agent) if block.label == "persona")

    async def close(self) -> None:
        await self._stop_calls()
        await self._close_store()

    async def _stop_calls(self) -> None:
        """Stop the worker, refuse new calls and wait for those under way on the pools."""
        if self._worker_task is not None:
            await _stop_worker(self._worker_task, self._worker_stop, self.worker)
            self._worker_task = None
        await self.worker.stop_runs(CLOSE_GRACE_S)  # flushes under way
        if self._llm_client is not None:
            await self._llm_client.aclose()
        await asyncio.to_thread(self.reinforcer.close)
        self._closed = True  # from here every call is refused in words
        for pool in (self._reads, self._writes):  # what they run ends before the store closes under it
            await asyncio.to_thread(pool.shutdown, wait=True)

    async def _close_store(self) -> None:
        await asyncio.to_thread(self.store.close)
        await asyncio.to_thread(self._warming.join)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
