"""Indexing behind ``add``: messages are durable when ``add`` returns, their chunks are embedded after.

``add`` claims what it stores (migration 6's index claims) and queues it here; one task per instance
drains the queue on the write threads, so single-message adds arriving together are embedded in one
batch. Until a message is indexed it is still in working memory (rendered verbatim), and recall finds
it by keyword among the store's messages not yet indexed, whichever instance or process added them.
``indexed()`` waits for the queue and then takes whatever nobody holds (a failed batch gives its claims
back; a killed process's are taken back), so an importer or an evaluation sees everything indexed before
it recalls. A failed batch is also tried again by the instance's next drain (behind its next add), so a
bot that goes on running indexes it once the store has room. ``close`` drains the queue too.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from huiyi.deferred import deferred
from huiyi.flows import ingest
from huiyi.flows.extract.watch import FoldWatch
from huiyi.memory.base import MemoryBase
from huiyi.memory.common import _check_seconds, _in_pool
from huiyi.model import JobState, MemoryKind, Message, RecallHit, ScopeKind
from huiyi.providers.priority import background_thread, behind_thread
from huiyi.recall.pipeline import RecallRequest
from huiyi.recall.routes import query_terms
from huiyi.store.base import NameVersions

if TYPE_CHECKING:
    import asyncio
else:
    asyncio = deferred("asyncio", globals())  # loaded when a memory opens, not at import (issue 15)

log = logging.getLogger(__name__)

# recall looks for keyword matches among this many of the scopes' newest messages not yet indexed
PENDING_SCAN = 1000
# the share of the query's terms (words and CJK characters) a pending message must hold to be recalled
PENDING_MATCH = 0.5
# a pending message this near its chat's newest is the tail just said, recalled before what the routes rank;
# an older one (a neighbour an erasure left to index again, a killed import's backlog) after it
PENDING_TAIL = 50
# how often, at most, an instance that goes on adding looks for messages another process stored and left
# unindexed (killed before it embedded them): the open looks once, and a running bot takes them over too
LEFTOVERS_EVERY = 60.0
# extraction and maintenance start once adds have paused this long (waiting at most ADDS_PAUSE_MAX in all)
ADDS_PAUSE = 0.05
ADDS_PAUSE_MAX = 1.0


def _started() -> None:
    """Nothing: submitted at the open, so the first add finds its thread running (~1 ms to start one)."""


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # built outside a loop (the synchronous face tells its own, ``_runs_on``)
        return None


class Indexing(MemoryBase):
    """The queue of messages stored but not yet indexed by this instance, and the task draining it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._index_queue: list[Message] = []
        # messages whose indexing failed (a full disk): the next drain takes them first, so a running bot
        # indexes them once the store has room, not at its next restart (their claims may still be held)
        self._index_retry: list[Message] = []
        self._retries_indexed = 0  # of those, how many a later drain indexed (``indexed()`` counts them)
        self._index_task: asyncio.Task[None] | None = None
        self._queue_lock = threading.Lock()  # the queues are filled from the thread behind add, too
        # indexing's own thread, at a lower priority: adds and recall never queue behind an embedding
        self._indexing = ThreadPoolExecutor(1, thread_name_prefix="huiyi-index", initializer=background_thread)
        # what an add leaves to do behind it (planning folds, handing messages to the loop), in order
        # which never preempts on waking: the add that wakes it keeps its core (issue 15)
        self._behind = ThreadPoolExecutor(1, thread_name_prefix="huiyi-behind", initializer=behind_thread)
        self._behind_last: Future[None] | None = self._behind.submit(_started)  # its thread up before the first add
        self._behind_lock = threading.Lock()
        self._last_add = 0.0  # time.monotonic() of the latest add's append
        # which adds can have made a fold due: the others plan nothing behind them (issue 15)
        self._fold_watch = FoldWatch(self.config)
        # messages a killed process stored and never indexed, taken behind the open (its backlog may take
        # minutes to embed: a bot's restart waits for none of it; recall finds them by keyword meanwhile)
        self._closing = threading.Event()
        # set by a close given a bound: the batch under way ends, the rest is given back for the next open
        self._index_stop = threading.Event()
        # a thread of their own, so the adds' indexing does not queue behind a backlog
        self._catching_up = ThreadPoolExecutor(1, thread_name_prefix="huiyi-leftovers", initializer=background_thread)
        self._leftovers_at = time.monotonic()
        # whether the last look found extraction jobs queued or running (another process's, or a killed one's):
        # the background worker starts only once this instance plans a fold, so an instance that went on adding
        # below a fold left a dead process's fold unextracted for good, past its lease
        self._jobs_left = False
        # the loop this instance's worker runs on, once known: the open's look wakes it for the jobs it found,
        # else a restarted bot left a killed process's folds pending till someone wrote to it
        self._home = _running_loop()
        self._leftovers: Future[int] = self._catching_up.submit(self._index_leftovers)
        self._leftovers.add_done_callback(self._looked_at_open)

    def _runs_on(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop the synchronous face runs this instance on, known only after it is built."""
        self._home = loop
        if self._leftovers.done():  # the open's look ended before the loop was known
            self._looked_at_open(self._leftovers)

    def _looked_at_open(self, _: Future[int]) -> None:
        """Behind the open's look for leftovers (any thread): its finding acted on, on the instance's loop."""
        if (home := self._home) is not None:
            with contextlib.suppress(RuntimeError):  # its loop has closed
                home.call_soon_threadsafe(self._look_for_leftovers)

    def _index_leftovers(self) -> int:
        """``index_pending`` on its own thread, and whether jobs are left; a failure leaves both to the next look."""
        try:
            indexed = ingest.index_pending(
                self.store, self.embedder, self.config, self._indexer, self._closing, self._plan_taken_over
            )
            self._jobs_left = bool(self.store.list_jobs(None, [JobState.PENDING, JobState.RUNNING], 1))
            return indexed
        except Exception:
            log.exception("indexing messages left unindexed by an earlier run failed; tried again later")
            return 0

    def _look_again(self) -> None:
        """Look for leftovers after any look under way (any thread), which may have passed the lines just left:
        an erasure's (others', whose chunks held the erased turns; re-embedded inside the call, a group's took
        seconds) or those an add that indexed gave back. A look queued and not yet begun will see them."""
        if self._closing.is_set():  # the next open takes them
            return
        if self._leftovers.done() or self._leftovers.running():
            self._leftovers_at = time.monotonic()
            self._leftovers = self._catching_up.submit(self._index_leftovers)

    def _plan_taken_over(self, messages: Sequence[Message]) -> None:
        """Plan the folds of the chats whose messages another process stored and left unindexed: it was killed
        before its plan behind the add too, maybe, and the rest of a history it was sent would otherwise wait
        in working memory, unextracted, till that chat's next add or flush (a bulk add killed 0.3 s after it
        returned left 1 140 of 2 000 lines so)."""
        newest: dict[tuple[str, str, str | None], int] = {}
        for m in messages:
            chat = (m.agent, m.space, m.scope.key if m.scope.kind is ScopeKind.PERSON else None)
            newest[chat] = max(newest.get(chat, 0), m.seq)
        for (agent, space, person), upto in newest.items():
            try:  # the watch skips a chat whose tail a plan of this instance already read past these
                self._fold_watch.plan(self.store, agent, space, person, upto)
            except Exception:  # the chat's next add or flush plans them
                log.exception("planning the folds of %s left by an earlier run failed", space)

    def _look_for_leftovers(self, at_once: bool = False) -> None:
        """Look again for messages others left unindexed, once ``LEFTOVERS_EVERY`` has passed and no look is
        under way (behind a drain), or ``at_once`` (an add that indexed gave up part of its messages)."""
        if at_once or (self._leftovers.done() and time.monotonic() - self._leftovers_at >= LEFTOVERS_EVERY):
            self._look_again()

    def _behind_add(self, call: Callable[[], None]) -> None:
        """Run ``call`` on the thread behind ``add``, after everything queued there before (any thread)."""
        with self._behind_lock:
            self._behind_last = self._behind.submit(call)

    async def _adds_paused(self) -> None:
        """Wait until adds pause (``ADDS_PAUSE``), for at most ``ADDS_PAUSE_MAX``: the background worker's
        extraction and maintenance are Python that holds the GIL through a burst of adds' statements
        (issue 15), and no caller waits for them."""
        deadline = time.monotonic() + ADDS_PAUSE_MAX
        while (left := min(self._last_add + ADDS_PAUSE, deadline) - time.monotonic()) > 0:
            await asyncio.sleep(left)

    async def _behind_done(self) -> None:
        """Wait for what adds so far left behind them (their folds planned, their messages queued)."""
        last = self._behind_last
        if last is not None and not last.done():
            await asyncio.wrap_future(last)

    def _hold(self, stored: Sequence[Message]) -> None:
        """Queue stored messages for indexing (any thread): the next drain, on any loop, takes them."""
        with self._queue_lock:
            self._index_queue.extend(stored)

    def _start_drain(self) -> None:
        """Start the drain task, which embeds the queue on the indexing thread (on the loop)."""
        loop = asyncio.get_running_loop()
        task = self._index_task
        # a task of a loop that has gone (asyncio.run called again) never runs: start one on this loop
        if task is None or task.done() or task.get_loop() is not loop:
            self._index_task = loop.create_task(self._drain_queue())

    async def _drain_queue(self) -> None:
        with self._queue_lock:
            retry, self._index_retry = self._index_retry, []
            self._index_queue[:0] = retry
        retried = {(m.agent, m.id) for m in retry}
        while self._index_queue:
            with self._queue_lock:
                taken, self._index_queue = self._index_queue, []
            by_agent: dict[str, list[Message]] = {}  # a routed store writes one agent per call
            for message in taken:
                by_agent.setdefault(message.agent, []).append(message)
            parts = list(by_agent.values())
            for at, part in enumerate(parts):
                try:
                    await _in_pool(
                        self._indexing,
                        ingest.index_messages,
                        self.store,
                        self.embedder,
                        part,
                        self.config,
                        None,
                        self._indexer,
                        self._index_stop,
                    )
                    self._retries_indexed += sum((m.agent, m.id) in retried for m in part)
                except ingest.Interrupted:  # a bounded close: the part's claims are given back, then the rest's
                    with self._queue_lock:
                        rest = [m for later in parts[at + 1 :] for m in later] + self._index_queue + self._index_retry
                        self._index_queue, self._index_retry = [], []
                    await _in_pool(
                        self._indexing, self.store.release_messages, self._indexer, [(m.agent, m.id) for m in rest]
                    )
                    log.info(
                        "closing: indexing stopped; the next open indexes what is left of %d messages",
                        len(part) + len(rest),
                    )
                    return
                except asyncio.CancelledError:  # its loop ends (asyncio.run returned): the next drain takes them
                    with self._queue_lock:  # the part under way too: it may not have started (a chunk is kept once)
                        self._index_retry.extend(m for rest in parts[at:] for m in rest)
                    raise
                except Exception:  # tried again at the next drain; indexed() or the next opener takes them too
                    log.exception("indexing %d messages failed; they stay stored and are indexed later", len(part))
                    with self._queue_lock:
                        self._index_retry.extend(part)
        self._look_for_leftovers()

    async def indexed(self) -> int:
        """Wait until every message added so far is indexed for recall; returns how many this call indexed
        beyond what ``add`` had queued (a batch that had failed, or claims left by a killed process).

        ``add`` returns once messages are durable and indexes them behind; an importer or an evaluation
        that recalls right after adding calls this first (or passes ``index=True`` to ``add``).
        """
        before = self._retries_indexed
        await self._drained()
        pending = await self._write(
            ingest.index_pending, self.store, self.embedder, self.config, self._indexer, None, self._plan_taken_over
        )
        return self._retries_indexed - before + pending

    async def _drained(self) -> None:
        """Wait for this instance's queue to be indexed (and for what adds left behind them, and for the look
        for others' leftovers under way)."""
        await self._behind_done()
        if not self._leftovers.done():
            await asyncio.wrap_future(self._leftovers)
        while (task := self._index_task) is not None and not task.done():
            if task.get_loop() is not asyncio.get_running_loop():  # its loop is gone: drain here
                self._index_task = None
                break
            await asyncio.shield(task)
        if self._index_queue or self._index_retry:
            await self._drain_queue()

    def _pending_hits(self, query: str, request: RecallRequest) -> tuple[list[RecallHit], NameVersions | None]:
        """Messages of the request's scopes stored but not yet indexed, by this instance or any other process
        (read from the store, so none erased meanwhile), that hold most of the query's terms, best first
        (none said after the request's explicit moment); and the versions of the scopes' entities and of their
        agent's persons, read with them in one round trip (None when no chunk is asked for, and so no tail read)."""
        kinds, as_of = request.kinds, request.as_of
        if kinds is not None and MemoryKind.CHUNK not in kinds:
            return [], None

        @functools.cache
        def lowered() -> list[str]:  # the query cut only when a line waits: on nearly every recall none does
            terms = query_terms(query, request.drop_words)
            return [term.lower() for term in (*terms.words, *terms.chars)]

        def share_of(text: str) -> float:
            if not (terms := lowered()):
                return 0.0
            text = text.lower()
            return sum(term in text for term in terms) / len(terms)

        # only the lines holding enough of the terms are read whole (a thousand may wait after an import)
        tail, versions = self.store.unindexed_with_versions(
            PENDING_SCAN, request.scopes, lambda t: share_of(t) >= PENDING_MATCH
        )
        start, end = request.time_range or (None, None)
        found: list[RecallHit] = []
        for message in tail:
            if (start is not None and message.time < start) or (end is not None and message.time > end):
                continue
            if as_of is not None and message.time > as_of:
                continue
            if (share := share_of(message.text)) < PENDING_MATCH:
                continue
            found.append(
                RecallHit(
                    id=ingest.chunk_id(message.agent, message.id),
                    kind=MemoryKind.CHUNK,
                    text=f"{message.speaker}: {message.text}",
                    score=round(share, 4),
                    route_scores={"pending": round(share, 4)},
                    time=message.time,
                    scope=message.scope,
                    sources=[message.id],
                    data={"space": message.space, "seq": message.seq, "pending": True},
                )
            )
        found.sort(key=lambda hit: (-hit.score, -(hit.data.get("seq") or 0)))
        newest: dict[tuple[str, str], int] = {}
        for hit in found:  # a store read a chat, and only when a pending line matched
            chat = (hit.scope.agent, hit.data["space"])
            if chat not in newest:
                last = self.store.recent_messages(*chat, 1)
                newest[chat] = last[-1].seq if last else 0
            hit.data["tail"] = hit.data["seq"] > newest[chat] - PENDING_TAIL
        return found, versions

    async def _drain_to_close(self) -> None:
        try:
            await self._drained()
        except Exception:  # closing anyway; the messages are durable and the next open indexes them
            log.exception("indexing at close failed")

    async def close(self, index_for: float | None = None) -> None:
        """Index what is still queued, then close (a crash instead leaves it claimed: the next open takes it).

        ``index_for``: seconds to go on indexing at most (a service stopped by SIGTERM is killed a few seconds
        later, and after a large import its queue may take minutes); what is left then is given back, stored
        and found by keyword, and the next open indexes it."""
        _check_seconds("index_for", index_for)
        self._closing.set()  # others' leftovers: the batch under way ends, the next open takes the rest
        bound = None if index_for is None else asyncio.get_running_loop().call_later(index_for, self._index_stop.set)
        try:
            await self._drain_to_close()
            await self._stop_calls()
            await self._drain_to_close()  # what adds under way stored while their threads ended
        finally:
            if bound is not None:
                bound.cancel()
        await self._close_store()
        self._indexing.shutdown(wait=False)
        self._catching_up.shutdown(wait=False)
        self._behind.shutdown(wait=False)
