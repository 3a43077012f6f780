"""Missing someone is a feeling: 还是很想豆豆, 好想念外婆, I really miss her weigh an event as 难过 does. 想 alone
is wanting (我想吃火锅) or thinking (我想他们会来), and 麻烦你 / Miss Li say no feeling."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 4, 20, 0)
PLAIN = 0.3  # no fact, no feeling, no plan, nothing named (rules/__init__.py: Importance)


def importance(path: Path, lines: list[str]) -> float:
    """The importance of the one event the rules make of ``lines``, said together."""
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: T0) as memory:
        messages = [{"id": f"m{i}", "text": text, "time": T0} for i, text in enumerate(lines)]
        memory.add(messages, agent="祈煜", person="木木", index=True)
        memory.flush(agent="祈煜", person="木木")
        [event] = memory.memories(agent="祈煜", person="木木", kinds=["event"])
    return event.importance


@pytest.mark.parametrize(
    "lines",
    [
        ["我养了一只狗叫豆豆", "还是很想豆豆"],
        ["好想念外婆"],
        ["离开三个月了，我想家了"],
        ["好想你啊"],
        ["想你想得睡不着"],
        ["我想他们了"],
        ["I really miss her"],
    ],
)
def test_missing_someone_is_a_feeling(tmp_path: Path, lines: list[str]) -> None:
    base = importance(tmp_path / "base", lines[:-1]) if lines[:-1] else PLAIN
    assert importance(tmp_path / "said", lines) == pytest.approx(base + 0.15)


@pytest.mark.parametrize(
    ("said", "plain"),
    [
        ("我想吃火锅", "我吃火锅"),
        ("我很想去看海", "我去看海"),
        ("我想你帮我看看这个文件", "你帮我看看这个文件"),
        ("我想他们会来的", "他们会来的"),
        ("麻烦你把文件发我", "你把文件发我"),
        ("Miss Li called today", "Ms Li called today"),
        ("这周时间紧张，周五交稿", "这周时间少，周五交稿"),
        ("电脑系统崩溃了，重装了一遍", "电脑系统坏了，重装了一遍"),
        ("买了一袋开心果当零食", "买了一袋花生当零食"),
    ],
)
def test_wanting_thinking_and_politeness_are_no_feeling(tmp_path: Path, said: str, plain: str) -> None:
    assert importance(tmp_path / "said", [said]) == importance(tmp_path / "plain", [plain])


@pytest.mark.parametrize("feeling", ["我想你了", "想你了", "我好累", "我哭了"])
def test_a_short_feeling_is_no_filler(tmp_path: Path, feeling: str) -> None:
    """Four characters with no keyword were filler: the event left 我想你了 out and weighed it as 嗯嗯."""
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: T0) as memory:
        lines = ["今天加班到很晚", feeling]
        memory.add([{"id": f"m{i}", "text": t, "time": T0} for i, t in enumerate(lines)], agent="祈煜", person="木木")
        memory.flush(agent="祈煜", person="木木")
        [event] = memory.memories(agent="祈煜", person="木木", kinds=["event"])
    assert feeling in event.text and event.importance == pytest.approx(PLAIN + 0.15)
    assert importance(tmp_path / "alone", [feeling]) == pytest.approx(PLAIN + 0.15)
