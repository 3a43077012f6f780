"""Two planners of one space (two processes, or a flush beside an add) never fold a message twice.

Planning reads a space's unfolded tail, then enqueues its folds: another planner may enqueue (or a
worker finish) folds in between. A plan made from a stale read must not become a second job over the
same messages (its memories would be extracted twice), nor leave a gap that no job ever folds.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

from huiyi.config import Config
from huiyi.flows.extract import fold
from huiyi.model import JobState, Message, Scope
from huiyi.store.base import Store, Writes

T0 = datetime(2024, 9, 20, 19, 0)
CONFIG = Config(worker={"enabled": False})
SCOPE = Scope.of_chat("a", "bob", None)


def _add(store: Store, first: int, count: int) -> None:
    said = [
        Message(
            agent="a",
            id=f"u{i}",
            space=SCOPE.space_id,
            scope=SCOPE,
            speaker="bob",
            role="user",
            text=f"第{i}句",
            time=T0 + timedelta(minutes=i),
        )
        for i in range(first, first + count)
    ]
    store.append_messages(said)


def _folded(store: Store) -> Counter[str]:
    jobs = store.list_jobs("a", [JobState.PENDING, JobState.RUNNING, JobState.DONE], limit=1000)
    return Counter(i for job in jobs if job.kind == fold.FOLD for i in job.payload["message_ids"])


def _plan(store: Store, **kwargs: object) -> list[object]:
    return list(fold.plan_folds(store, "a", SCOPE.space_id, "bob", CONFIG, **kwargs))  # type: ignore[arg-type]


def test_a_plan_from_a_stale_read_folds_no_message_twice(store: Store) -> None:
    _add(store, 0, 25)  # 20 rounds fold the oldest 10; 15 stay
    assert _plan(store)
    stale = fold.unfolded(store, "a", SCOPE.space_id)  # one planner reads the tail...
    _add(store, 25, 5)
    assert _plan(store, everything=True)  # ...another flushes all of it meanwhile
    _plan(store, everything=True, tail=stale)  # the first plans from what it read
    folded = _folded(store)
    assert [i for i, n in folded.items() if n > 1] == []
    assert len(folded) == 30  # and nothing was left out


def test_a_stale_plan_leaves_no_gap_behind_a_shorter_fold(store: Store) -> None:
    _add(store, 0, 5)
    stale = fold.unfolded(store, "a", SCOPE.space_id)
    assert _plan(store, everything=True)  # a flush folds messages 1-5
    _add(store, 5, 25)
    stale = stale + fold.unfolded(store, "a", SCOPE.space_id)  # a read that missed that flush's job
    _plan(store, tail=stale)
    _plan(store)  # the next add plans again from what is stored
    folded = _folded(store)
    assert [i for i, n in folded.items() if n > 1] == []
    order = sorted(folded, key=lambda i: int(i[1:]))
    assert order == [f"u{i}" for i in range(len(order))]  # every message up to the last fold, no gap


def test_a_message_added_after_the_newest_folded_ones_were_forgotten_is_in_working_memory(store: Store) -> None:
    # forgetting a chat's newest messages after a fold had taken them gave the next message a seq that fold had
    # covered: it was then neither in working memory nor in any fold, and nothing was ever extracted from it
    _add(store, 0, 3)
    store.apply(Writes(fold_points=[("a", SCOPE.space_id, 4)]))  # a fold took seqs 1-3
    store.erase("a", ["u2"])
    _add(store, 3, 1)  # one message (SQLite writes it in a statement of its own)
    assert [(m.id, m.seq) for m in fold.unfolded(store, "a", SCOPE.space_id)] == [("u3", 4)]
    store.apply(Writes(fold_points=[("a", SCOPE.space_id, 5)]))
    store.erase("a", ["u3"])
    _add(store, 4, 2)
    assert [(m.id, m.seq) for m in fold.unfolded(store, "a", SCOPE.space_id)] == [("u4", 5), ("u5", 6)]


def test_a_plan_read_before_an_erasure_queues_no_fold_of_the_erased_messages(store: Store) -> None:
    # another process's add planned its folds from a tail read before this one's forget_person: hundreds of
    # folds of erased messages were queued after the erasure, and their commits brought the chat back (helper)
    _add(store, 0, 25)
    stale = fold.unfolded(store, "a", SCOPE.space_id)
    store.erase("a", ["u3", "u4"])
    _plan(store, everything=True, tail=stale)
    folded = _folded(store)
    assert "u3" not in folded and "u4" not in folded
    assert sorted(folded, key=lambda i: int(i[1:])) == [f"u{i}" for i in range(25) if i not in (3, 4)]
