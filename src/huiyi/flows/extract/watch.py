"""Whether an add can have made a fold due, told without reading the store.

Planning folds reads a space's unfolded tail and its pending jobs: several statements and some Python
per add, on a thread behind it. Running beside a bot's next add, that thread held the GIL through the
add's statements (issue 15: most of the tail of a one-message add). A fold falls due only when a window
reaches ``fold_at`` rounds or a round opens after a long silence (``fold.folds``), so after each plan
the watch keeps the space's open window (its rounds, last seq and time) and counts the new messages
into it; only when they may make a fold, or when it cannot tell (a seq it did not see: another writer;
a space it has not planned yet), is planning needed. A guess too early costs one plan that finds
nothing; it never guesses too late (erasing forgets what is known, since the newest seqs of a space
are given again; only another process erasing them meanwhile can make a fold one round late).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from huiyi.config import Config
from huiyi.flows.extract import fold
from huiyi.model import Message
from huiyi.store.base import Store


@dataclass(frozen=True)
class _Window:
    rounds: int  # rounds in working memory, not handed to a fold
    last_seq: int
    last_time: datetime | None


class FoldWatch:
    """The open window of each space this process planned, advanced by the messages it adds."""

    def __init__(self, config: Config) -> None:
        self._fold_at = config.window.fold_at
        self._gap = timedelta(minutes=config.window.scene_gap_minutes)
        self._config = config
        self._windows: dict[tuple[str, str], _Window] = {}
        self._lock = threading.Lock()
        self._forgets = 0  # a plan that read before a forget learns nothing from its read

    def may_fold(self, stored: Sequence[Message]) -> bool:
        """Whether messages just stored in one space (in seq order) may make a fold due: planning is
        needed. ``False`` only when the space's window is known and they leave it short of a fold."""
        if not stored:
            return False
        key = (stored[0].agent, stored[0].space)
        with self._lock:
            window = self._windows.pop(key, None)  # put back only if still sure
            if window is None:
                return True
            rounds, last_seq, last_time = window.rounds, window.last_seq, window.last_time
            for message in stored:
                if message.seq <= last_seq:
                    continue  # the plan that read the window read it too, and planned its folds
                if message.seq != last_seq + 1:
                    return True  # another writer's messages came between: the window is unknown
                if message.role == "user" or rounds == 0:  # a round opens (fold.folds' rule)
                    if rounds and last_time is not None and message.time - last_time >= self._gap:
                        return True
                    rounds += 1
                    if rounds >= self._fold_at:
                        return True
                last_seq, last_time = message.seq, message.time
            self._windows[key] = _Window(rounds, last_seq, last_time)
            return False

    def plan(self, store: Store, agent: str, space: str, person: str | None, upto: int | None = None) -> bool:
        """Plan the space's due folds (``fold.plan_folds``) and learn its open window from the same read
        of its tail; whether any were planned. ``upto``: the last seq an add asks planning for, already
        planned when a later plan's read reached it (adds in a burst ask before the first plan is done)."""
        with self._lock:
            known = self._windows.get((agent, space))
            forgets = self._forgets
        if upto is not None and known is not None and known.last_seq >= upto:
            return False
        tail = fold.unfolded(store, agent, space)
        planned = fold.plan_folds(store, agent, space, person, self._config, tail=tail)
        # everything folded: an empty window after the space's last message
        last = tail[-1] if tail else next(iter(store.recent_messages(agent, space, 1)), None)
        if last is not None:
            window = _Window(len(fold.open_rounds(tail, self._config)), last.seq, last.time)
            with self._lock:
                if self._forgets == forgets:
                    self._windows[(agent, space)] = window
        return bool(planned)

    def forget(self, agent: str | None = None) -> None:
        """Drop what is known (of one agent's spaces): the next add of each space plans again."""
        with self._lock:
            self._forgets += 1
            if agent is None:
                self._windows.clear()
            else:
                for key in [k for k in self._windows if k[0] == agent]:
                    del self._windows[key]
