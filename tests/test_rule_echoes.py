"""复读: a member who repeats another's line word for word, as QQ and WeChat groups do all day, is not
saying it of themselves. The no-LLM rules read no fact of the repeater from the echo; the first speaker
keeps theirs, and one who says it again themselves, or in their own words, is read as usual."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 4, 20, 0)


def facts_after(path: Path, lines: list[tuple[str, str]]) -> list[str]:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1)) as memory:
        messages = [
            {"id": f"m{i}", "speaker": who, "text": text, "time": T0 + timedelta(minutes=i)}
            for i, (who, text) in enumerate(lines)
        ]
        memory.add(messages, agent="bot", space="g")
        memory.flush(agent="bot", space="g")
        return sorted(f.text for f in memory.memories(agent="bot", space="g", kinds=["fact"]))


def test_an_echo_of_another_members_line_is_not_the_echoers_fact(tmp_path: Path) -> None:
    lines = [("ann", "大家好"), ("陈大川", "我喜欢爬山"), ("王一舟", "我喜欢爬山"), ("bob", "我喜欢爬山")]
    assert facts_after(tmp_path, lines) == ["陈大川喜欢爬山"]


def test_ones_own_words_after_anothers_are_theirs(tmp_path: Path) -> None:
    lines = [("ann", "大家好"), ("陈大川", "我喜欢爬山"), ("王一舟", "我也喜欢爬山"), ("陈大川", "我喜欢爬山")]
    assert facts_after(tmp_path, lines) == ["王一舟喜欢爬山", "陈大川喜欢爬山"]
