"""Words a speaker passes on rather than says: forwards, chat records and quoted lines.

A chat line may carry someone else's words: a forward (``[转发] 工作群 小林: 我喜欢喝美式咖啡``,
Telegram's ``Forwarded from 小林``, Messenger's ``Forwarded message from 小林``, a mail's
``---------- Forwarded message ----------``), a bundle of chat records (``[聊天记录]``, ``【聊天记录】``,
``[Chat History]``) or a quote the speaker replies to (QQ's ``[回复 小林: 我是程序员] 哈哈``, WeChat's
``「小林：我是程序员」`` above a line of dashes, ``> 我是程序员`` lines of Telegram, Discord and bots).
:func:`relay_of` splits such a line into the speaker's own words and what they passed on, so that a
passed-on 我 is never read as the speaker's; :func:`note` writes the passed-on words as a marked note
(``（转发：…）``, `` (quoting: …)``), as events and LLM prompts show them.

A forward or a chat record runs from its marker to the end of the line (what comes after cannot be
told from it); the words before the marker are the speaker's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from huiyi.patterns import lazy

__all__ = ["Relay", "for_prompt", "note", "relay_of"]

_FORWARD = lazy(
    r"[\[【](?:转发|合并转发|转发消息|聊天记录|forwarded(?: message)?|chat history)[\]】]"
    r"|^[ \t]*(?:forwarded(?: message)? from\b|-{2,}\s*forwarded message\s*-{2,}|begin forwarded message:)",
    re.IGNORECASE | re.MULTILINE,
)
# QQ (and bots after it): the quoted line in brackets at the start, the reply after it
_REPLY = lazy(r"\A\s*[\[【](?:回复|引用|reply(?:ing)? to|in reply to)\s*(?P<quoted>[^\]】]*)[\]】]", re.IGNORECASE)
# WeChat: 「name：quoted」, a line of dashes, then the reply
_WECHAT = lazy(r"\A\s*「(?P<quoted>.*)」[ \t]*\n[ \t]*(?:[-－—][ \t]*){5,}\n?", re.DOTALL)
# Markdown-style quote lines (> text); Discord's >>> quotes the rest of the message. ">_<" is a face.
_QUOTE_LINE = lazy(r"^[ \t]*[>＞]{1,2}(?:[ \t]|$)")
_QUOTE_REST = lazy(r"^[ \t]*>>>(?:[ \t]|$)", re.MULTILINE)


@dataclass(frozen=True)
class Relay:
    """A line split into what its speaker said and what they passed on."""

    own: str  # the speaker's own words; empty for a bare forward
    relayed: str  # the forwarded or quoted words, markers taken off
    forwarded: bool  # a forward or chat record, else a quote replied to


def relay_of(text: str) -> Relay | None:
    """The line split into own and passed-on words, or None when it passes nothing on."""
    own, quoted = _quotes(text)
    forward = _FORWARD.search(own)
    if forward is not None:
        relayed = own[forward.end() :].strip(" \t\n:：")
        own = own[: forward.start()].strip()
        return Relay(own, _join([*quoted, relayed]), True)
    if not quoted:
        return None
    return Relay(own.strip(), _join(quoted), False)


def note(relay: Relay, language: str) -> str:
    """The passed-on words as a note to put after the speaker's own: （转发：…）, (quoting: …)."""
    if language == "zh":
        return f"（{'转发' if relay.forwarded else '引用'}：{relay.relayed}）"
    return f" ({'forwarded' if relay.forwarded else 'quoting'}: {relay.relayed})"


def for_prompt(text: str, language: str, *, own_only: bool = False) -> str:
    """A message on one line for an LLM prompt: the speaker's own words, then the passed-on ones as a
    :func:`note` (a bare newline would hide which lines were quoted), or none of them with ``own_only``."""
    relay = relay_of(text)
    if relay is None:
        return " ".join(text.split())
    own = " ".join(relay.own.split())
    return own if own_only else (own + note(relay, language)).strip()


def _quotes(text: str) -> tuple[str, list[str]]:
    """The text without its quoted parts, and the quoted parts."""
    quoted: list[str] = []
    for pattern in (_REPLY, _WECHAT):
        found = pattern.match(text)
        if found:
            quoted.append(found.group("quoted").strip())
            text = text[found.end() :]
    rest = _QUOTE_REST.search(text)
    if rest:
        quoted.append(text[rest.end() :].strip())
        text = text[: rest.start()]
    kept: list[str] = []
    for line in text.split("\n"):
        if _QUOTE_LINE.match(line):
            quoted.append(_QUOTE_LINE.sub("", line, count=1).strip())
        else:
            kept.append(line)
    return "\n".join(kept), [part for part in quoted if part]


def _join(parts: list[str]) -> str:
    return " ".join(part.replace("\n", " ").strip() for part in parts if part.strip())
