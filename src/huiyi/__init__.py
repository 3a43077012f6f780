"""huiyi (回忆): long-term memory for LLM characters — companions and group-chat bots, Chinese first.

The public names load at their first use (``from huiyi import Memory`` loads the memory engine), so
``import huiyi`` or a submodule such as ``huiyi.client`` does not pay for what it does not touch (issue 15).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from huiyi.config import Config, RecallRecipe
    from huiyi.errors import HuiyiError, InvalidInput, NotFound
    from huiyi.memory import AsyncMemory, Memory
    from huiyi.model import (
        MemoryItem,
        MemoryKind,
        Message,
        MessageIn,
        Person,
        RecallHit,
        RecallResult,
        Scope,
        ScopeKind,
    )

__version__ = "0.1.0"

# each public name and the module it lives in
_WHERE = {
    "AsyncMemory": "huiyi.memory",
    "Memory": "huiyi.memory",
    "Config": "huiyi.config",
    "RecallRecipe": "huiyi.config",
    "HuiyiError": "huiyi.errors",
    "InvalidInput": "huiyi.errors",
    "NotFound": "huiyi.errors",
    **{
        name: "huiyi.model"
        for name in (
            "MemoryItem",
            "MemoryKind",
            "Message",
            "MessageIn",
            "Person",
            "RecallHit",
            "RecallResult",
            "Scope",
            "ScopeKind",
        )
    },
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'huiyi' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once loaded, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__all__ = [
    "AsyncMemory",
    "Config",
    "HuiyiError",
    "InvalidInput",
    "Memory",
    "MemoryItem",
    "MemoryKind",
    "Message",
    "MessageIn",
    "NotFound",
    "Person",
    "RecallHit",
    "RecallRecipe",
    "RecallResult",
    "Scope",
    "ScopeKind",
    "__version__",
]
