"""Whether a chat line asks, or answers the line before it: an answer shares no word with its question, so
a chunk is keyword-matched by the question's words too (flows.ingest)."""

from __future__ import annotations

from huiyi.model import Message
from huiyi.patterns import lazy

__all__ = ["ANSWER_CHARS", "answers", "asked_part", "asks", "replies"]

# a question for a piece of information (where, what, when, how much): its answer carries what the
# question lacks and shares no word with it; a yes/no question (一起吗) is answered by a reaction (我去！)
_ASKS = lazy(r"在哪|哪里|哪儿|哪家|哪天|什么|几点|几号|多少|怎么走|叫啥|是啥|啥时候")
_QUESTION = lazy(r"[？?]\s*$|[吗呢][？?～~！!。\s]*$")
ANSWER_CHARS = 40  # a reply longer than this says more than the answer


def asks(line: str) -> bool:
    """Whether a line asks anything (…吗？, What books do you enjoy? I'm always up for tips.): its words
    echo a question's, so they match one without answering it.

    >>> asks("What books do you enjoy? I love tips."), asks("我家的猫叫布丁"), asks("去不去呢")
    (True, False, True)
    """
    return "?" in line or "？" in line or bool(_QUESTION.search(line))


def answers(message: Message, before: Message) -> bool:
    """Whether ``message`` reads as the answer to ``before``: someone else asked for something (托尼老师店在哪)
    and this short line, no question itself, replies (文二路和学院路交叉口). The answer shares no word with
    the question, so in a group the question's words are matched for it too."""
    return (
        before.speaker != message.speaker
        and bool(_ASKS.search(before.text))
        and not _ASKS.search(message.text)
        and not _QUESTION.search(message.text)
        and len(message.text) <= ANSWER_CHARS
    )


def replies(message: Message, before: Message) -> bool:
    """Whether ``message`` replies to a person's question in a chat of two: "What did you paint?" — "A
    sunset over the lake". What the reply names is what was asked about, in the asker's words, so the
    question's words are matched for the reply too. Between two people the next line of the other is
    the reply, whatever its length; a question back is no reply. The agent's own questions are left out:
    they keep the user talking and echo what the user said before them (周末出去跑一跑…江边风大不大？), so
    their words would key the reply with the earlier turn's (the companion probes lost a first hit)."""
    return (
        before.speaker != message.speaker
        and before.role != "assistant"
        and bool(_QUESTION.search(before.text) or _ASKS.search(before.text))
        and not _QUESTION.search(message.text)
    )


_SENTENCE = lazy(r"[^.!?。！？…~～\n]*[.!?。！？…~～]*")


def asked_part(text: str) -> str:
    """The sentences of ``text`` that ask: "Wow, that's cool! What did you paint?" → "What did you paint?";
    the rest of a question's turn (often the asker's echo of what was said before it) is no key of the
    reply."""
    asking = [s.strip() for s in _SENTENCE.findall(text) if s.strip() and (_QUESTION.search(s) or _ASKS.search(s))]
    return " ".join(asking) or text
