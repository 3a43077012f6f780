"""The segmenter is shared by every thread: cuts and tags must never collide with a word being added."""

from __future__ import annotations

import threading

from huiyi.text import tokens


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
