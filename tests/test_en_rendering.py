"""An English chat's memories and prompt read as English: no Chinese punctuation in what the rules write."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

MONDAY = datetime(2024, 11, 4, 20, 0)


def english_chat(path: Path, lines: list[str], now: datetime = MONDAY) -> Memory:
    config = Config(language="en", worker={"enabled": False}, recall={"reinforce": False})
    memory = Memory(path, embedder=HashEmbedder(64), config=config, clock=lambda: now)
    memory.add([{"text": line, "time": MONDAY} for line in lines], agent="Ava", person="Mia", index=True)
    memory.flush(agent="Ava", person="Mia")
    return memory


def test_a_span_in_an_english_prompt_is_written_with_to(tmp_path: Path) -> None:
    """The event keeps the span as extraction writes every span (it is embedded and indexed so, in every
    language: written "to", LoCoMo dev lost 0.3 points of R@10); the English prompt shows "to"."""
    with english_chat(tmp_path, ["I moved to Denver last week, still unpacking"]) as memory:
        events = [event.text for event in memory.memories(agent="Ava", person="Mia", kinds=["event"])]
        context = memory.context(agent="Ava", person="Mia", message="how was the move?").text
    assert events == ["Mia said: I moved to Denver last week (2024-10-28～2024-11-03), still unpacking."]
    assert "～" not in context and "last week (2024-10-28 to 2024-11-03)" in context


def test_a_place_named_with_an_abbreviation_keeps_its_name(tmp_path: Path) -> None:
    with english_chat(tmp_path, ["I had a long shift at St. Mary's hospital today"]) as memory:
        places = [event.place for event in memory.memories(agent="Ava", person="Mia", kinds=["event"])]
    assert places == ["St. Mary's"]


def test_on_the_defaults_the_context_speaks_the_chats_language(tmp_path: Path) -> None:
    """Memory(path) with no language set gave an English chat 前情提要 and Chinese headings; a language the
    config names is kept whatever the chat."""
    for folder, language, lines, heading in (
        ("en", None, ["I live in Austin and I have a dog named Biscuit"], "Fragments that come to mind"),
        ("zh", None, ["我住在杭州，养了一只猫叫团子"], "脑海中回想起的片段"),
        ("set", "zh", ["I live in Austin and I have a dog named Biscuit"], "脑海中回想起的片段"),
    ):
        settings = {"worker": {"enabled": False}, **({"language": language} if language else {})}
        with Memory(tmp_path / folder, embedder=HashEmbedder(64), config=Config(**settings)) as memory:
            memory.add([{"text": line, "time": MONDAY} for line in lines], agent="Ava", person="Mia", index=True)
            memory.flush(agent="Ava", person="Mia")
            question = "where do I live?" if lines[0].startswith("I") else "我住哪？"
            text = memory.context(agent="Ava", person="Mia", message=question).text
        assert heading in text, (folder, text)
