"""A question's time phrase names when, not what: its characters match no line, and a who-question's words
count only in lines of that time (issue 17, a companion month tried as an app would: 前天谁找我了 put lines
of other weeks that say 找 first, and 天 of 前天 matched every 今天)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.recall.routes import query_terms, without_time_chars

NOW = datetime(2025, 3, 25, 21, 0)  # a Tuesday
LINES = [
    ("m1", datetime(2025, 2, 13, 22, 10), "我闺蜜唐糖今天来找我玩了"),
    ("m2", datetime(2025, 3, 15, 11, 8), "糖糖说下个月来杭州找我"),
    ("m3", datetime(2025, 3, 23, 20, 0), "今天我妈打电话来了，问我在杭州习惯不习惯"),
    ("m4", datetime(2025, 3, 23, 20, 8), "小周也来找我了，说上海那边项目黄了"),
]


def test_the_time_phrase_leaves_its_characters_out_and_its_words_in() -> None:
    terms = without_time_chars(query_terms("上周二我去上海干嘛了"), "上周二")
    assert "上" in terms.chars and "海" in terms.chars  # 上海 keeps its own
    assert "周" not in terms.chars and "二" not in terms.chars
    assert without_time_chars(query_terms("前天谁找我了"), "前天").chars == ["找"]


def test_a_who_question_with_a_time_counts_its_words_in_that_time_only(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: NOW) as memory:
        messages = [{"id": i, "text": text, "time": when} for i, when, text in LINES]
        memory.add(messages, agent="bot", person="u1", index=True)
        found = memory.recall("前天谁找我了", agent="bot", person="u1", explain=True, limit=10)
        assert found.info["chars"] == ["找"]
        said = {
            source for hit in found.hits if "said" in found.info["bonuses"].get(hit.id, {}) for source in hit.sources
        }
        assert said == {"m4"}
        assert found.hits[0].sources == ["m4"]
