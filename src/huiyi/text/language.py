"""Which language a conversation is in, and the character classes that tell."""

from __future__ import annotations

from collections.abc import Iterable

from huiyi.model import Message
from huiyi.patterns import lazy

__all__ = ["CJK", "CJK_RUN", "EN_ABBREVIATION_DOT", "LATIN_WORD", "conversation_language", "text_language"]

CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# a full stop that ends no sentence: a title's (St. Mary's, Dr. Lee, Mt. Fuji) or an initial's (J.P. Morgan,
# U.S.), unless a sentence plainly opens after the initials (…in the U.S. I love it); a regex string
EN_ABBREVIATION_DOT = (
    r"(?:(?<=\bSt)|(?<=\bMr)|(?<=\bMs)|(?<=\bDr)|(?<=\bMrs)|(?<=\bJr)|(?<=\bSr)|(?<=\bMt))\."
    r"|(?-i:(?<=\b[A-Z])\.(?=[A-Z](?:\.|\b))"  # U.S, its last stop taken as the sentence's
    r"|(?<=\b[A-Z]\.[A-Z])\.(?!\s+(?:I|We|He|She|They|It|My|Our|The|This|That|But|So|And|Then)\b))"
)
LATIN_WORD = lazy(r"[A-Za-z][A-Za-z'’-]*")
# one compiled CJK class for all (huiyi.text.tokens too): re walks its 28 000 code points at each compile,
# ~1.5 ms of every start
CJK_RUN = lazy(f"[{CJK}]+")


def conversation_language(messages: Iterable[Message], default: str = "zh") -> str:
    """``zh`` when the text holds at least as many CJK characters as Latin words, ``en`` when it holds
    Latin words and no CJK, ``default`` when it holds neither."""
    return text_language("\n".join(message.text for message in messages), default)


def text_language(text: str, default: str = "zh") -> str:
    """The same rule for one text."""
    cjk = sum(len(run) for run in CJK_RUN.findall(text))
    latin = len(LATIN_WORD.findall(text))
    if cjk == 0 and latin == 0:
        return default
    return "zh" if cjk >= latin else "en"
