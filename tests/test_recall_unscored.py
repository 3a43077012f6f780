"""A memory no route scored is no answer: in a tiny store every memory is a dense candidate, and min-max
fusion gives the farthest one exactly 0."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config

A = "祈煜"
FAST = {"embed": {"provider": "hash", "dim": 32}, "worker": {"enabled": False}}
DAY = datetime(2024, 9, 25, 21, 0)


def _tiny(tmp_path: Path) -> Memory:
    memory = Memory(tmp_path, config=Config(**FAST))
    memory.remember("客服工作时间是每天早九点到晚五点", agent=A, time=DAY)
    memory.remember("木木家的猫叫团子", agent=A, person="木木", time=DAY)
    memory.remember("木木喜欢吃火锅", agent=A, person="木木", time=DAY)
    return memory


def test_a_memory_no_route_scored_is_not_returned_even_at_threshold_zero(tmp_path: Path) -> None:
    with _tiny(tmp_path) as memory:
        result = memory.recall("团子最近怎么样", agent=A, person="木木", explain=True)
        fused = {memory_id: score for memory_id, score, *_ in result.info["fused"]}
        unscored = [memory_id for memory_id, score in fused.items() if score == 0.0]
        assert unscored  # the store is tiny: the farthest memory fused to exactly 0
        hits = memory.recall("团子最近怎么样", agent=A, person="木木").hits
        assert {hit.id for hit in hits} == set(fused) - set(unscored)
        assert hits[0].text == "木木家的猫叫团子" and all(hit.score > 0 for hit in hits)


def test_a_time_range_still_returns_what_lies_in_it(tmp_path: Path) -> None:
    with _tiny(tmp_path) as memory:
        span = (datetime(2024, 9, 25), datetime(2024, 9, 26))
        hits = memory.recall("团子最近怎么样", agent=A, person="木木", time_range=span).hits
        assert len(hits) == 3  # the caller's range says what is wanted: all three lie in it
