"""Text for a terminal: what a chat member or a store gave, printed as it is written, never as markup or as
the terminal's own commands."""

from __future__ import annotations

import re

from rich.markup import escape

__all__ = ["shown"]

# control characters a terminal acts on (ESC, OSC's BEL, C1's CSI, line separators); newline and tab stay
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def shown(text: object) -> str:
    r"""Text a chat member or a store gave, to print as it is written: its rich markup escaped ("[/bold]" in a
    message made inspect, recall and chat raise MarkupError; "[link=…]" made a live link) and its control
    characters as visible escapes (ESC [2J cleared the screen, OSC 52 wrote the clipboard).

    >>> print(shown("[/bold] \x1b[2J\u2028ok"))
    \[/bold] \x1b[2J\u2028ok
    """
    return escape(_CONTROL.sub(_visible, str(text)))


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
