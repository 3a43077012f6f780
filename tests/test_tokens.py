"""The segmenter is shared by every thread: cuts and tags, each with its own names, never collide."""

from __future__ import annotations

import re
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from huiyi.text import tokens
from huiyi.text.language import CJK


def test_cutting_with_many_sets_of_names_from_many_threads_never_fails() -> None:
    errors: list[BaseException] = []
    stop = threading.Event()

    def cutter() -> None:
        try:
            while not stop.is_set():
                tokens.words("苏霓说她下个月去杭州跑马拉松，霓霓加油")
                tokens.tag("我家的猫叫团子，是一只橘猫")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=cutter) for _ in range(4)]
    for thread in threads:
        thread.start()
    try:
        for i in range(400):  # new sets of names, each a pattern made
            name = f"测名{chr(0x4E00 + i)}{chr(0x4E80 + i)}"
            assert tokens.words(f"{name}加油", names=[name, "霓霓"])[0] == name
            with tokens.naming([name]):
                assert tokens.tag(f"我和{name}")[-1] == (name, "nr")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    assert errors == []
    assert tokens.words("霓霓加油") == tokens.cut("霓霓加油")  # no name outlives its call


def test_a_name_is_cut_whole_at_its_longest_and_one_character_is_no_name() -> None:
    assert tokens.words("苏霓虹灯下的苏霓", names=["苏霓", "霓虹灯"]) == ["苏霓", "虹灯", "下", "的", "苏霓"]
    assert tokens.words("我想去杭州那家游戏公司", names=["杭州", "杭州那家游戏公司"])[-1] == "杭州那家游戏公司"
    assert tokens.words("agent0的猫叫团子", names=["猫", "Ann"]) == ["agent0", "的", "猫叫", "团子"]
    with tokens.naming(["陈大川"]):
        assert tokens.content_words("陈大川和李星辰", drop=["李星辰"], names=["李星辰"]) == ["陈大川"]
    assert tokens.words("陈大川") == ["陈", "大川"]  # outside the block, the dictionary's own cut


# the patterns as they were before one CJK class was dropped (issue 15: each costs ~1.5 ms at start)
_CJK = CJK
_OLD_SEGMENT = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+(?:['’][^\W_{_CJK}]+)*", re.UNICODE)
_OLD_CHAR = re.compile(rf"[{_CJK}]")


def _old_words(text: str) -> list[str]:
    out: list[str] = []
    for match in _OLD_SEGMENT.finditer(text):
        segment = match.group()
        if re.fullmatch(rf"[{_CJK}]+", segment):
            out.extend(w for w in tokens.cut(segment) if w.strip())
        else:
            out.append(segment.lower().replace("’", "'"))
    return out


EDGES = ["\u3400", "\u4dbf", "\ufaff"]  # the CJK ranges' ends
MIXED = st.text(alphabet=st.sampled_from([*"木木去了南京大学图书馆猫叫团子𠀀豈ab0_' ’-！,.Ｈé", *EDGES]), max_size=40)


@settings(max_examples=300, deadline=None)
@given(MIXED)
def test_words_chars_and_has_cjk_are_what_the_former_patterns_gave(text: str) -> None:
    assert tokens.words(text) == _old_words(text)
    assert tokens.chars(text) == _OLD_CHAR.findall(text)
    assert tokens.has_cjk(text) == (_OLD_CHAR.search(text) is not None)
