"""A race held open: one writer stopped just after its read, another writer run in the gap, then the first
let go. Each test names the read to stop at; a broken hold fails the test, never hangs it."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

WAIT = 10.0  # seconds a held thread waits at most


def held_after_read(
    target: object,
    read_name: str,
    monkeypatch: pytest.MonkeyPatch,
    action: Callable[[], object],
    meanwhile: Callable[[], object],
) -> list[BaseException]:
    """Run ``action`` in a thread held just after the first call of ``target.read_name`` returned (the
    action's read: it may run on another thread, as a memory's reads do), and ``meanwhile`` in that gap;
    what the action raised."""
    reading = getattr(target, read_name)
    read, release = threading.Event(), threading.Event()
    failed: list[BaseException] = []

    def read_then_wait(*args: object, **kwargs: object) -> object:
        known = reading(*args, **kwargs)
        if not read.is_set():
            read.set()
            assert release.wait(WAIT)
        return known

    def run() -> None:
        try:
            action()
        except BaseException as exc:  # reraised in the test's thread
            failed.append(exc)

    monkeypatch.setattr(target, read_name, read_then_wait)
    actor = threading.Thread(target=run)
    actor.start()
    try:
        assert read.wait(WAIT)
        meanwhile()
    finally:
        release.set()
        actor.join(WAIT)
    monkeypatch.setattr(target, read_name, reading)
    return failed
