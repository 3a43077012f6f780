"""A month of a companion's talk about a pet, for the pet rules' tests (deaths, renames)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 4, 20, 0)


def pet_chat(path: Path, lines: list[str], question: str, *, folds: bool) -> tuple[dict[str, datetime | None], str]:
    """Each line a day apart (each its own fold with ``folds``); the facts (text -> valid_to) and the context
    for ``question``."""
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=7)) as memory:
        messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(days=i)} for i, text in enumerate(lines)]
        for batch in [[m] for m in messages] if folds else [messages]:
            memory.add(batch, agent="祈煜", person="木木", index=True)
            memory.flush(agent="祈煜", person="木木")
        facts = {f.text: f.valid_to for f in memory.memories(agent="祈煜", person="木木", kinds=["fact"])}
        context = memory.context(agent="祈煜", person="木木", message=question).text
    return facts, context
