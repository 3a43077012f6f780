"""``score_threshold`` cuts recall's final scores, as the README says: a memory a late route (the entity
route: the query names 苏霓, the memory says her alias 霓霓) adds is held to it too, and a bonus that lifts
a memory above it keeps the memory (the threshold once cut the fused scores, before either)."""

from __future__ import annotations

from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder


@pytest.mark.parametrize("threshold", [0.0, 0.3, 0.6, 0.9, 1.0])
def test_no_hit_scores_below_the_threshold_and_none_above_it_is_lost(tmp_path: Path, threshold: float) -> None:
    config = Config(recall={"reinforce": False}, worker={"enabled": False})
    with Memory(tmp_path, config=config, embedder=HashEmbedder(64)) as memory:
        memory.create_entity("苏霓", agent="祈煜", person="阿哲", aliases=["霓霓"])
        for text in ("霓霓昨天去了杭州出差", "霓霓最近在学吉他", "阿哲喜欢喝咖啡"):
            memory.remember(text, agent="祈煜", person="阿哲", kind="event")
        every = memory.recall("苏霓", agent="祈煜", person="阿哲", score_threshold=0.0, limit=10).hits
        kept = memory.recall("苏霓", agent="祈煜", person="阿哲", score_threshold=threshold, limit=10).hits
    assert {hit.id for hit in every} >= {hit.id for hit in kept}
    assert all(hit.score >= threshold for hit in kept)
    assert [(hit.id, hit.score) for hit in kept] == [(hit.id, hit.score) for hit in every if hit.score >= threshold]
