"""The purge of erased rows' bytes from a store's files, run behind the erasure's call on a thread of its own.

An erasure commits its deletes and a durable mark in one transaction, asks for a purge and returns: the
purge's cost (the keyword index's segments merged, the WAL truncated; PostgreSQL's vacuums and index
rebuilds) grows with the store, not with what was erased, so it falls on neither the caller nor, beyond
one short step at a time, the bots writing meanwhile. A caller that must know the files hold no erased
byte waits (``Purges.wait``). A process that dies first leaves the marks, and the store's next open asks
again; ``close`` finishes what was asked.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

RETRY_SECONDS = (0.5, 30.0)  # a failed purge is tried again after the first, doubling up to the second


class Purges:
    """Runs ``purge`` (every mark it finds; False when some are left for later) behind the calls that ask."""

    def __init__(self, purge: Callable[[], bool], name: str) -> None:
        self._purge = purge
        self._name = name
        self._changed = threading.Condition()
        self._asked = 0  # purges asked for, counted
        self._done = 0  # how many of those a finished run covered
        self._failures = 0  # runs that failed, counted
        self._thread: threading.Thread | None = None
        self._closing = False

    def ask(self) -> None:
        """Purge soon, on the purging thread (started if none runs)."""
        with self._changed:
            self._asked += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=f"huiyi-purge {self._name}", daemon=True)
                self._thread.start()
            self._changed.notify_all()  # a thread waiting to try again goes now

    def wait(self, timeout: float | None = None) -> bool:
        """Whether every purge asked before this call has finished, waiting up to ``timeout`` seconds (None:
        as long as it takes); False too when a run fails meanwhile (it is tried again)."""
        with self._changed:
            asked, failures = self._asked, self._failures
            self._changed.wait_for(lambda: self._done >= asked or self._failures > failures, timeout)
            return self._done >= asked

    def close(self) -> None:
        """Let the purging thread end once what was asked has run: a run under way or due still runs (one that
        fails leaves its marks for the next open)."""
        with self._changed:
            self._closing = True
            self._changed.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _run(self) -> None:
        delay = RETRY_SECONDS[0]
        while True:
            with self._changed:
                covers = self._asked
                if self._done >= covers:
                    self._thread = None
                    return
            try:
                finished = self._purge()
            except Exception:  # the marks stay: tried again below, or by the next open
                log.exception("purging the files of %s after an erasure failed; it is tried again", self._name)
                finished = False
            with self._changed:
                if finished:
                    self._done, delay = covers, RETRY_SECONDS[0]
                else:
                    self._failures += 1
                self._changed.notify_all()
                if finished:
                    continue
                if self._closing:  # the marks stay for the next open
                    self._thread = None
                    return
                self._changed.wait(delay)  # a new ask or a close wakes it early
                delay = min(delay * 2, RETRY_SECONDS[1])
