"""Control characters in what people say: stored as said, never shown to a model or written into a block.

ESC, BEL and the other C0 and C1 codes print nothing a model should read, and act on a terminal that logs the
prompt (ESC [2J clears it, OSC 52 writes the clipboard); the ones that end a line end one.
"""

from __future__ import annotations

from huiyi.patterns import lazy

__all__ = ["without_controls"]

_BREAKS = lazy(r"\r\n?|[\x0b\x0c\x1c-\x1e\x85]")  # carriage return, vertical tab, form feed, separators, NEL
# the rest but tab and newline, and NUL: no store keeps it, so a text holding one is refused in words
_CONTROLS = lazy(r"[\x01-\x08\x0e-\x1f\x7f-\x9f]")


def without_controls(text: str) -> str:
    """``text`` with its line-ending controls as newlines and its other controls but tab left out.

    >>> without_controls("清屏\\x1b[2J\\x07好\\r\\n第二行\\x85第三行\\t完")
    '清屏[2J好\\n第二行\\n第三行\\t完'
    """
    return _CONTROLS.sub("", _BREAKS.sub("\n", text))
