"""The LLM tools' argument models: pydantic mirrors of :mod:`huiyi.faces.tool_schemas` that refuse
unknown fields (so no scope can be smuggled in) and bound every text a model writes.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from huiyi.checks import Number, Whole, no_truth_value
from huiyi.faces.tool_schemas import MemoryType, RelationType

__all__ = [
    "ARGUMENTS",
    "ArchivalMemorySearch",
    "ConversationSearch",
    "CoreMemoryAppend",
    "CoreMemoryReplace",
    "CreateMemory",
    "LinkMemories",
    "RateMemory",
    "SearchMemories",
    "Text",
    "TimeRange",
]

_MAX_TEXT = 2000  # characters of a model-written argument

# argument models mirror the schemas; a test keeps the two in step


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


Text = Annotated[str, Field(min_length=1, max_length=_MAX_TEXT)]
_Key = Annotated[str, Field(min_length=1, max_length=100)]  # stripped first: " " is no key


def _plain_value(value: object) -> object:
    """An attribute's value as words can say it: true was written 1, and NaN or inf (a JSON NaN token,
    which ``json`` reads) nan, a measure of nothing. Refused before the union, so with one reason."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value} is not a finite number")
    return no_truth_value(value)


# an integer as a text would say it (one of 5000 digits has no text: str() refuses it)
_Value = Annotated[
    Annotated[str, Field(max_length=_MAX_TEXT)] | Annotated[int, Field(ge=-(10**18), le=10**18)] | float,
    BeforeValidator(_plain_value),
]


class TimeRange(_Args):
    start: str | None = Field(default=None, max_length=100)
    end: str | None = Field(default=None, max_length=100)


class CreateMemory(_Args):
    subject: str = Field(min_length=1, max_length=200)
    memory_type: MemoryType
    topic: str = Field(min_length=1, max_length=200)
    object: str | None = Field(default=None, max_length=_MAX_TEXT)
    # keys and values go into the memory's text: bounded like every other text a model writes
    attributes: dict[_Key, _Value] = Field(default_factory=dict, max_length=20)
    importance: Number = Field(default=0.5, ge=0.0, le=1.0)
    text: str | None = Field(default=None, max_length=_MAX_TEXT)

    @field_validator("attributes", mode="before")
    @classmethod
    def _keys_apart(cls, value: Any) -> Any:
        """Keys that strip to one ("a", " a") were one key, and all but the last value were lost unsaid."""
        if isinstance(value, dict):
            keys = [key.strip() if isinstance(key, str) else key for key in value]
            if len(set(keys)) < len(keys):
                raise ValueError("two attribute keys are the same once the spaces around them are stripped")
        return value


class LinkMemories(_Args):
    source_memory_description: str | None = Field(default=None, max_length=_MAX_TEXT)
    target_memory_description: str | None = Field(default=None, max_length=_MAX_TEXT)
    source_memory_id: str | None = Field(default=None, max_length=100)
    target_memory_id: str | None = Field(default=None, max_length=100)
    relation_type: RelationType
    importance: Number = Field(default=0.6, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _both_ends(self) -> LinkMemories:
        for end in ("source", "target"):
            if not (getattr(self, f"{end}_memory_id") or getattr(self, f"{end}_memory_description")):
                raise ValueError(f"name the {end} memory: give {end}_memory_id or {end}_memory_description")
        return self


class SearchMemories(_Args):
    query: Text
    memory_types: list[MemoryType] | None = Field(default=None, max_length=8)
    time_range: TimeRange | None = None
    max_results: Whole = Field(default=10, ge=1, le=50)
    expand_depth: Whole = Field(default=1, ge=0, le=2)


class ConversationSearch(_Args):
    query: Text
    time_range: TimeRange | None = None
    max_results: Whole = Field(default=5, ge=1, le=50)


class ArchivalMemorySearch(ConversationSearch):
    pass


class CoreMemoryAppend(_Args):
    label: str = Field(min_length=1, max_length=100)
    content: Text


class CoreMemoryReplace(_Args):
    label: str = Field(min_length=1, max_length=100)
    old_content: Text
    new_content: str = Field(max_length=_MAX_TEXT)


class RateMemory(_Args):
    memory_id: str = Field(min_length=1, max_length=100)
    # the bounds of Memory.feedback (seed 001 §2.4 反馈权重); strict: true or "1" is no judgement
    value: float = Field(ge=-1.0, le=1.0, strict=True)


ARGUMENTS: dict[str, type[_Args]] = {
    "create_memory": CreateMemory,
    "link_memories": LinkMemories,
    "search_memories": SearchMemories,
    "conversation_search": ConversationSearch,
    "archival_memory_search": ArchivalMemorySearch,
    "core_memory_append": CoreMemoryAppend,
    "core_memory_replace": CoreMemoryReplace,
    "rate_memory": RateMemory,
}


class ToolError(Exception):
    """A refusal with a stable code, returned to the model as ``{"error": …}``."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
