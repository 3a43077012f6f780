"""A memory's sentence composed from its subject, predicate and object (seed 004 create_memory)."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["compose"]


def _cjk(char: str) -> bool:
    return "\u2e80" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff" or "\uff00" <= char <= "\uffef"


def compose(subject: str, topic: str, obj: str, attributes: Mapping[str, str] | None = None) -> str:
    """'木木' + '喜好' + '打篮球' → '木木喜好打篮球'; 'Alice' + 'likes' + 'tea' → 'Alice likes tea'.

    >>> compose("木木", "摔东西", "", {"地点": "家里"})
    '木木摔东西（地点：家里）'
    """
    text = ""
    for part in (subject, topic, obj):
        part = part.strip()
        if part:
            text = part if not text else text + ("" if _cjk(text[-1]) and _cjk(part[0]) else " ") + part
    if attributes:
        if _cjk(text[-1]):
            text += "（" + "；".join(f"{key}：{value}" for key, value in attributes.items()) + "）"
        else:
            text += " (" + "; ".join(f"{key}: {value}" for key, value in attributes.items()) + ")"
    return text
