"""The segmenter is shared by every thread: cuts and tags must never collide with a word being added."""

from __future__ import annotations

import re
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from huiyi.text import tokens
from huiyi.text.language import CJK


def test_cutting_while_names_are_added_never_fails() -> None:
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
        for i in range(400):  # new names, each a dictionary write
            tokens.add_words([f"测名{chr(0x4E00 + i)}{chr(0x4E80 + i)}"])
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    assert errors == []
    assert tokens.words("霓霓加油")  # still cuts after the writes


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
