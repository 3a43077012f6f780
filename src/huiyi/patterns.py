"""Regular expressions compiled at their first use, not at import (issue 15).

A module's patterns compiled at import cost every start ~25 ms, most of it for patterns a process may
never run (a CJK class alone: re walks its 28 000 code points). ``lazy`` stands in for ``re.compile``;
opening a memory compiles the rest on a thread of its own (``warm_in_background``).
"""

from __future__ import annotations

import re
import threading
from typing import Any, cast

__all__ = ["compiled", "lazy", "warm_in_background"]


class _Lazy:
    """Compiles at the first attribute asked for; each method read then stays on the instance, so a
    later call costs what a compiled pattern's does."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy and pickle probe these; no pattern for them
            raise AttributeError(name)
        value = getattr(re.compile(*self._source), name)
        setattr(self, name, value)
        return value


_made: list[_Lazy] = []  # every stand-in, for the warming thread


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled when first used, for a module's patterns (each is kept for
    the warming thread): read only its methods and attributes (``search``, ``sub``, ``pattern`` …), never
    hand it to ``re.sub`` and the like."""
    made = _Lazy(pattern, flags)
    _made.append(made)
    return cast(re.Pattern[str], made)


def compiled(pattern: re.Pattern[str]) -> bool:
    """Whether ``pattern`` is compiled yet (a test's question)."""
    return not isinstance(pattern, _Lazy) or len(vars(pattern)) > 1  # more than its source: read once


def _compile_all() -> None:
    for made in list(_made):
        made.search  # noqa: B018 — read to compile (re.compile caches the pattern for the other methods)


def warm_in_background() -> None:
    """Compile the patterns not yet used in a daemon thread: a bot opens its memory before its first
    message, and its first add and recall then find them ready."""
    if any(len(vars(made)) == 1 for made in _made):
        threading.Thread(target=_compile_all, name="huiyi-warm-patterns", daemon=True).start()
