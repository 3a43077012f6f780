"""A memory's own time words are parsed once per process, and the cache stays bounded (oldest use goes)."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import MemoryItem, MemoryKind, Scope
from huiyi.recall import timerange

SCOPE = Scope.of_person("bot", "木木")


def item(n: int) -> MemoryItem:
    said = datetime(2024, 5, 10)
    return MemoryItem(id=f"mem-{n}", scope=SCOPE, kind=MemoryKind.CHUNK, text=f"上周{n}号去爬山", time=said)


def test_each_memory_is_parsed_once_and_the_least_recent_goes(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    real = timerange.find_time_phrases

    def counting(text: str, now: datetime) -> list[timerange.TimeSpan]:
        parsed.append(text)
        return real(text, now)

    monkeypatch.setattr(timerange, "find_time_phrases", counting)
    monkeypatch.setattr(timerange, "_CACHE_LIMIT", 2)
    monkeypatch.setattr(timerange, "_about_cache", type(timerange._about_cache)())
    first, second, third = item(1), item(2), item(3)
    assert timerange.about(first) == timerange.about(first)
    timerange.about(second)
    timerange.about(first)  # used again: second is now the least recent
    timerange.about(third)
    assert len(timerange._about_cache) == 2
    timerange.about(first)
    timerange.about(second)
    assert parsed == [first.text, second.text, third.text, second.text]
    changed = first.model_copy(update={"text": "明天去爬山"})
    assert timerange.about(changed) != timerange.about(first)  # an edited text is read again
