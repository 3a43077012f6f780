"""A question naming a day reaches the turns said that day below the bonus window (recall ``time_reach``)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder

NOW = datetime(2023, 8, 1, 20, 0)
MAY = datetime(2023, 5, 2, 19, 0)
JUNE = datetime(2023, 6, 16, 19, 20)
ASKED = "What exciting news did Mel share on 16 June, 2023?"


def _ask(path: Path, query: str = ASKED, **recipe: object) -> tuple[list[str], str, dict[str, object]]:
    # four candidates get bonuses; the turn said that day is the seventh by meaning and words
    fields = {"reinforce": False, "rerank_depth": 4, "route_candidates": 4, "time_weight": 0.8, **recipe}
    config = Config(worker={"enabled": False}, recall=fields)
    with Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: NOW) as memory:
        for i in range(6):  # said another day, and closer in words to the question
            text = f"Mel shared exciting news about her garden {i}"
            memory.remember(text, agent="a", space="g", kind=MemoryKind.CHUNK, time=MAY)
        for i in range(4):
            memory.remember(f"the weather was cold and grey {i}", agent="a", space="g", kind=MemoryKind.CHUNK, time=MAY)
        text = "Mel shared news: she joined a gym"
        said = memory.remember(text, agent="a", space="g", kind=MemoryKind.CHUNK, time=JUNE)
        found = memory.recall(query, agent="a", space="g", limit=3, explain=True)
    return [hit.id for hit in found.hits], said.id, found.info


def test_a_named_day_reaches_below_the_window(tmp_path: Path) -> None:
    cut, said, _ = _ask(tmp_path / "off", time_reach=0)
    assert said not in cut  # below the four the bonuses reorder, the time bonus never saw it
    reached, said, info = _ask(tmp_path / "on", time_reach=50)
    assert reached[0] == said
    bonuses = info["bonuses"]
    assert isinstance(bonuses, dict) and "time" in bonuses[said]


def test_no_time_named_no_reach(tmp_path: Path) -> None:
    found, said, _ = _ask(tmp_path, "What exciting news did Mel share?", time_reach=50)
    assert said not in found
