"""huiyi (回忆): long-term memory for LLM characters — companions and group-chat bots, Chinese first."""

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
