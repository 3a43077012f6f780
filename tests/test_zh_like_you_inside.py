"""A Chinese liking keeps no 你 inside what is liked: in the prompt 祈煜喜欢听你说好吃的 (the bot's own line,
said to 木木) reads as the bot liking to hear whoever it now talks to, and 木木喜欢听你说话 as 木木 liking the
model's talk. The 你 is whom the line was said to (as 我喜欢你 and 你的X already were); 你们 and 迷你 stay."""

from __future__ import annotations

import pytest

from test_extract import make_fold, rules


@pytest.mark.parametrize(
    ("speaker", "text", "described"),
    [
        ("祈煜", "我喜欢听你说好吃的", ["祈煜喜欢听木木说好吃的"]),
        ("木木", "我喜欢听你说话", ["木木喜欢听祈煜说话"]),
        ("木木", "我喜欢和你聊天", ["木木喜欢和祈煜聊天"]),
        ("木木", "我喜欢你", ["木木喜欢祈煜"]),
        ("木木", "我喜欢穿迷你裙", ["木木喜欢穿迷你裙"]),
        ("木木", "我喜欢和你们聊天", ["木木喜欢和你们聊天"]),
    ],
)
def test_a_you_inside_a_liking_is_whom_it_was_said_to(speaker: str, text: str, described: list[str]) -> None:
    assert [f.description for f in rules(make_fold([(speaker, text)])).facts] == described
