"""``Memory`` and ``AsyncMemory``: the one public entry to huiyi.

``AsyncMemory`` is the core; ``Memory`` runs the same coroutines on a private event loop in a
background thread, so every method exists once.

    >>> import tempfile
    >>> from huiyi import Memory
    >>> with Memory(tempfile.mkdtemp()) as memory:
    ...     _ = memory.add(["我下周三要考驾照，好紧张", "周末我想去海边看日出"], agent="祈煜", person="木木")
    ...     result = memory.recall("考试是哪天？", agent="祈煜", person="木木", limit=1)
    >>> result.hits[0].text
    '木木: 我下周三要考驾照，好紧张'
"""

from __future__ import annotations

from huiyi.memory.async_memory import AsyncMemory
from huiyi.memory.common import Context, MessageLike, make_extractor
from huiyi.memory.sync import Memory

__all__ = ["AsyncMemory", "Context", "Memory", "MessageLike", "make_extractor"]
