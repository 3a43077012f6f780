"""A message of fillers only (哈哈, 好的, ok) is told apart in linear time, whatever follows the fillers."""

from __future__ import annotations

import pytest

from huiyi.flows.extract.rules.condense import FILLER


@pytest.mark.parametrize(
    "text",
    [
        "哈哈",
        "哈哈哈哈哈",
        "好的",
        "好的好的",
        "嗯嗯",
        "是的呀",
        "对啊！",
        "ok 好的",
        "OK",
        "okay~",
        "haha",
        "hmmm",
        "没事没事",
        "知道了哈",
        "收到！",
        "yeah thanks",
        "lol",
        "。。。",
        "好吧…",
    ],
)
def test_fillers_match(text: str) -> None:
    assert FILLER.match(text)


@pytest.mark.parametrize("text", ["哈哈太好笑了", "好的明天见", "ok let's go", "知道", "haha x", "我知道了", "okk"])
def test_a_message_that_says_something_does_not(text: str) -> None:
    assert not FILLER.match(text)


@pytest.mark.parametrize("run", ["哈", "嗯", "好的", "是的", "哈 ", "haha ", "hmm ", "ok"])
def test_a_long_run_of_fillers_before_a_word_returns(run: str) -> None:
    # the old pattern (哈 or 哈哈 as alternatives under +) tried every split: 40 哈 took minutes
    assert not FILLER.match(run * 2000 + "太好笑了")
    assert FILLER.match(run * 2000)
