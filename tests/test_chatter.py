"""Chatter detection: its early exit (more than four letters nothing can take away) never changes an answer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from huiyi.flows import chatter
from huiyi.flows.chatter import is_chatter


def slow_is_chatter(text: str, names: tuple[str, ...] = ()) -> bool:
    """The definition without the early exit."""
    rest = chatter._PLUS_ONE.sub("", chatter._PLACEHOLDER.sub("", text))
    for name in sorted((n for n in names if n), key=len, reverse=True):
        rest = rest.replace(name, " ")
    rest = "".join(ch for ch in rest.casefold() if ch.isalnum() or ch.isspace())
    rest = chatter._LAUGH.sub(" ", rest)
    rest, reactions = chatter._REACTION.subn(" ", rest)
    left = "".join(rest.split())
    if not left:
        return True
    return reactions > 0 and len(left) <= 4 and chatter._ADDRESS.fullmatch(left) is not None


PIECES = [
    *chatter._REACTIONS[:60],
    "哈哈",
    "233",
    "hhh",
    "+1",
    "[图片]",
    "!",
    "～",
    " ",
    "霓霓",
    "苏老师",
    "老K",
    "毕业设计",
    "今天",
    "马拉松",
    "İ",
    "ß",
    "_",
    "1",
    "Neko",
]
NAMES = ("苏霓", "NekoChan", "霓霓", "老K")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8), st.booleans())
def test_the_early_exit_agrees_with_the_definition(pieces: list[str], named: bool) -> None:
    text = "".join(pieces)
    names = NAMES if named else ()
    assert is_chatter(text, names) == slow_is_chatter(text, names)


def test_lines_of_real_chats_agree() -> None:
    lines = [
        "哈哈哈哈",
        "恭喜恭喜！！",
        "晚安霓霓",
        "好的苏老师",
        "苏老师早！今天有课吧",
        "我下个月要去跑杭州马拉松，最近每天都在练",
        "lol 😂 that was so funny",
        "OK OK OK",
        "卧槽牛逼666",
        "[动画表情][动画表情]",
        "NekoChan 毕业设计做完了吗",
    ]
    for line in lines:
        assert is_chatter(line, NAMES) == slow_is_chatter(line, NAMES), line


def test_english_group_reactions_say_nothing_and_a_sentence_still_does() -> None:
    """ "haha sure 😂" led three questions about a member in an English group: sure was no reaction."""
    for said in ("haha sure 😂", "yup 👍", "lmfao", "np"):
        assert is_chatter(said, ["Jess"]), said
    for said in ("Sure, I can bring the chips", "Jess works at Google right?", "my dog is sick"):
        assert not is_chatter(said, ["Jess"]), said
