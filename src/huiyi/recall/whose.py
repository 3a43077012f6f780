"""Whose: 我的考试是什么时候 asks for the asker's own exam, and 女朋友下个月要考司法考试 tells of someone else's.

Between two, a question of the asker's own (it says 我 / I / my and names no one else) matched a line the
asker said about their people as well as one about themselves: the same words (考试, 工作), the same
meaning, and the keyword route often preferred the other's line. A chunk whose line is led by someone
else (its first clause opens on a kin word or a he / she, and says nothing of the speaker after it) keeps
``other_person_weight`` of its score, as a group's fact about another member does, before its neighbours
take support from it (recall.rerank): the talk around her exam does not answer his either.

    >>> asks_own("我的考试是什么时候？"), asks_own("我妈的生日是哪天"), asks_own("What's my cat's name again?")
    (True, False, True)
    >>> anothers("女朋友下个月要考司法考试"), anothers("我下周三要考计算机二级"), anothers("奶奶说我最近工作太拼了")
    (True, False, False)
    >>> anothers("My wife is a nurse at St. Mary's"), anothers("My wife and I went to Paris"), anothers("他明天出差")
    (True, False, True)
    >>> anothers("妈呀，吓死我了"), anothers("朋友圈看到你去旅游了"), anothers("My wife says I'm a workaholic")
    (False, False, False)
"""

from __future__ import annotations

import functools
import re

from huiyi.flows.chatter import said_lines
from huiyi.patterns import lazy
from huiyi.text.kin import EN_KIN, EN_PEERS, KIN_ALTERNATION

__all__ = ["anothers", "asks_own", "led_by_another"]

# one's people as the English rules name them (text.kin), and the few they leave out
_EN_KIN = rf"{EN_KIN}|{EN_PEERS}|kids?|boss|manager|teacher"
# someone else named in the question: then it is not the asker's own (我妈的生日, my wife's job)
_OTHER_ASKED = lazy(rf"{KIN_ALTERNATION}|[他她]|\b(?:{_EN_KIN}|he|she|his|her|they|their)\b", re.IGNORECASE)
_ASKER = lazy(r"我|\b(?:I|my|me)\b", re.IGNORECASE)
# a line led by another: an optional 我的 / my before a kin word, or a he / she, at its start
_LED = lazy(
    rf"^\s*(?:(?:我的?|我们家的?)?(?:{KIN_ALTERNATION})(?![圈呀耶])|[他她](?![们])"  # 朋友圈, 妈呀: no one
    rf"|(?:(?:my|our)\s+(?:{_EN_KIN})|he|she)\b)",
    re.IGNORECASE,
)
_CLAUSE = lazy(r"[，,。.！!？?；;\n]")
# the speaker after the leader (奶奶说我…, 我妈陪我去…, my wife and I…): the line is of them too
_SPEAKER_AFTER = lazy(r"我|\b(?:I|me|my|we|us|our)\b", re.IGNORECASE)


def asks_own(query: str) -> bool:
    """Whether the question (its last line) asks about the asker and names no one else."""
    line = query.strip().rsplit("\n", 1)[-1]
    if _ASKER.search(line) is None:
        return False
    return _OTHER_ASKED.search(_ASKER.sub(" ", line)) is None


@functools.lru_cache(maxsize=16_384)  # a scope's lines come back query after query
def anothers(text: str) -> bool:
    """Whether a line (without its speaker) is led by someone else and says nothing of the speaker in the
    clause that opens it."""
    led = _LED.match(text)
    if led is None:
        return False
    rest = text[led.end() :]
    end = _CLAUSE.search(rest)
    return _SPEAKER_AFTER.search(rest[: end.start() if end else len(rest)]) is None


@functools.lru_cache(maxsize=16_384)  # recall asks of a window's hundred rows, the same rows query after query
def led_by_another(text: str, speakers: tuple[str, ...]) -> bool:
    """:func:`anothers` of a chunk's own turn, its text as stored (``speaker: `` before each turn)."""
    return anothers(said_lines(text, speakers)[-1])
