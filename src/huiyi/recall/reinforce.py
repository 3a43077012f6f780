"""Recall reinforces what it returns (access count, last access, strength), off the hot path.

Seed 000 §8: a recalled memory gains +15 strength; seed 003: recall resets its forgetting clock. A
recall only notes the ids; a background thread writes them in one batch per interval, so a query never
waits on a write lock.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime

from huiyi.store.base import Store

log = logging.getLogger(__name__)


class Reinforcer:
    """Collects recalled ids and writes them to the store in batches."""

    def __init__(self, store: Store, bonus: float = 15.0, interval_seconds: float = 1.0) -> None:
        self.store = store
        self.bonus = bonus
        self.interval = interval_seconds
        self._pending: dict[str, Counter[str]] = defaultdict(Counter)
        self._latest: dict[str, datetime] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = False
        self._thread: threading.Thread | None = None

    def note(self, agent: str, ids: Sequence[str], when: datetime) -> None:
        """Remember that these memories were recalled; returns at once."""
        if not ids:
            return
        with self._lock:
            self._pending[agent].update(ids)
            self._latest[agent] = max(when, self._latest.get(agent, when))
            if self._thread is None and not self._stopped:
                self._thread = threading.Thread(target=self._loop, name="huiyi-reinforce", daemon=True)
                self._thread.start()

    def flush(self) -> int:
        """Write everything noted so far; returns how many memory recalls were written."""
        with self._lock:
            pending, latest = self._pending, self._latest
            self._pending, self._latest = defaultdict(Counter), {}
        written = 0
        for agent, counts in pending.items():
            # a memory recalled n times in one interval counts n times
            by_times: dict[int, list[str]] = defaultdict(list)
            for memory_id, times in counts.items():
                by_times[times].append(memory_id)
            for times, ids in by_times.items():
                # one pass per count, not per recall: each pass rewrites every page the ids sit on
                self.store.record_access(agent, ids, latest[agent], strength_bonus=self.bonus, times=times)
                written += times * len(ids)
        return written

    def _loop(self) -> None:
        while not self._stopped:
            self._wake.wait(self.interval)
            self._wake.clear()
            try:
                self.flush()
            except Exception:  # a closed or busy store: keep the ids for the next round is not worth it
                log.exception("reinforcing recalled memories failed")

    def close(self) -> None:
        """Write what is left and stop the thread."""
        self._stopped = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.flush()
