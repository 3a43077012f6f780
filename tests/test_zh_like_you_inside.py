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


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("我喜欢看《想见你》", ["木木喜欢看《想见你》"]),
        ("我很喜欢《爱你》这首歌", ["木木喜欢《爱你》这首歌"]),
        ("我喜欢看《你的名字》", ["木木喜欢看《你的名字》"]),
        ("我喜欢玩你画我猜", ["木木喜欢玩你画我猜"]),
        ("我喜欢看你好星期六", ["木木喜欢看你好星期六", "木木喜欢看你好星期六（2023-05-13）"]),
    ],
)
def test_a_you_in_a_title_or_a_game_stays(text: str, described: list[str]) -> None:
    """我喜欢看《想见你》 became 木木喜欢看《想见祈煜》 and 你画我猜 祈煜画我猜: a title or a game's name is no
    one spoken to."""
    assert [f.description for f in rules(make_fold([("木木", text)])).facts] == described


def test_a_you_of_anyone_after_a_kind_stays() -> None:
    """我喜欢吃那种一口下去你就停不下来的辣条 became 木木喜欢吃那种一口下去祈煜就停不下来的辣条: after 那种 the 你
    is anyone's, not the bot's."""
    facts = rules(make_fold([("木木", "我喜欢吃那种一口下去你就停不下来的辣条")])).facts
    assert [f.description for f in facts] == ["木木喜欢吃那种一口下去你就停不下来的辣条"]
