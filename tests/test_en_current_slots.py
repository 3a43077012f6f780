"""Asked in English where they live or work now (Where do I live now?), the asker's newest open home or job
fact leads, as 我现在住哪 does: lines that share the question's words must not crowd it out."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 4, 20, 0)
LINES = [
    "I live in Boston",
    "I work at a small design agency",
    "Where do you think I should live when I retire?",
    "Living near the sea would be nice now",
    "I moved to Chicago today",
    "I work at Lumen Games",
    "My friends ask where I live now and I never know what to say",
    "Where do people even live in this city, it is so expensive now",
]


def test_where_i_live_and_work_now_is_led_by_the_current_fact(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=9)) as memory:
        messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(days=i)} for i, text in enumerate(LINES)]
        memory.add(messages, agent="Kai", person="Mia", index=True)
        memory.flush(agent="Kai", person="Mia")
        home = memory.recall("Where do I live now?", agent="Kai", person="Mia", limit=3)
        work = memory.recall("Where do I work these days?", agent="Kai", person="Mia", limit=3)
    assert home.hits[0].text == "Mia moved to Chicago", [h.text for h in home.hits]
    assert work.hits[0].text == "Mia works at Lumen Games", [h.text for h in work.hits]
