"""A day's mood is read from what the person said: a pet's death told in the usual words (豆豆今天走了,
家里好空) is grief, not the joy of one 哈哈哈 that day, and the reply strategy comforts instead of
sharing joy."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

DAY = date(2024, 11, 10)


def day_portrait(tmp_path: Path, lines: list[str]) -> str:
    start = datetime(2024, 11, 10, 20, 0)
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: start + timedelta(hours=3)) as memory:
        messages = [{"id": f"m{i}", "text": text, "time": start + timedelta(minutes=i)} for i, text in enumerate(lines)]
        memory.add(messages, agent="祈煜", person="木木", index=True)
        memory.flush(agent="祈煜", person="木木")
        made = memory.summarize(DAY, agent="祈煜", person="木木")
    return next(item.text for item in made if "画像" in item.text or "portrait of" in item.text)


def test_a_pet_that_died_is_a_sad_day_not_a_happy_one(tmp_path: Path) -> None:
    portrait = day_portrait(tmp_path, ["豆豆今天走了，它陪了我八年", "家里好空", "哈哈哈", "晚饭吃了麻辣烫"])
    assert "难过" in portrait and "多倾听" in portrait and "分享喜悦" not in portrait, portrait


def test_walking_is_not_grief(tmp_path: Path) -> None:
    portrait = day_portrait(tmp_path, ["今天走了两万步，腿好酸", "我先走了，明天聊", "哈哈哈"])
    assert "难过" not in portrait, portrait


def test_a_death_told_in_english_is_sad(tmp_path: Path) -> None:
    portrait = day_portrait(tmp_path, ["Max passed away this morning", "I'm so tired"])
    assert "sad" in portrait and "listen and comfort" in portrait, portrait
