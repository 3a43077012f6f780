"""What extraction asks an LLM for: the JSON schema of its answer, and the short ids messages go by.

The prompt (:mod:`huiyi.flows.extract.llm`) and the check of the answer
(:mod:`huiyi.flows.extract.answer`) both follow it.
"""

from __future__ import annotations

from typing import Any

from huiyi.errors import ProviderError
from huiyi.flows.extract import Fold
from huiyi.model import EntityType, FactKind, Message

__all__ = ["EXTRACTION_SCHEMA", "SCHEMA_NAME", "ExtractionError", "in_order", "message_refs"]

SCHEMA_NAME = "memory_extraction"
LANGUAGES = ("zh", "en")

# entity types as the model names them; the Chinese names of EntityType are accepted too
TYPE_NAMES: dict[str, EntityType] = {
    "agent": EntityType.SUBJECT,
    "person": EntityType.OBJECT,
    "specific": EntityType.SPECIFIC,
    "generic": EntityType.GENERIC,
}
TYPE_LOOKUP = {**TYPE_NAMES, **{t.value: t for t in EntityType}}
_STRING: dict[str, Any] = {"type": "string"}
_STRINGS: dict[str, Any] = {"type": "array", "items": _STRING}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    """An object schema as strict structured output wants it: every key required, no others."""
    return {"type": "object", "additionalProperties": False, "required": list(properties), "properties": properties}


EXTRACTION_SCHEMA: dict[str, Any] = _object(
    {
        "events": {
            "type": "array",
            "items": _object(
                {
                    "text": _STRING,
                    "time": _STRING,
                    "place": _STRING,
                    "participants": _STRINGS,
                    "keywords": _STRINGS,
                    "insight": _STRING,
                    "importance": {"type": "number"},
                    "sources": _STRINGS,
                }
            ),
        },
        "facts": {
            "type": "array",
            "items": _object(
                {
                    "subject": _STRING,
                    "subject_type": {"type": "string", "enum": list(TYPE_NAMES)},
                    "predicate": _STRING,
                    "object": _STRING,
                    "object_type": {"type": "string", "enum": [*TYPE_NAMES, "literal"]},
                    "kind": {"type": "string", "enum": [k.value for k in FactKind]},
                    "keyword": _STRING,
                    "description": _STRING,
                    "time": _STRING,
                    "confidence": {"type": "number"},
                    "sources": _STRINGS,
                }
            ),
        },
        "entities": {
            "type": "array",
            "items": _object(
                {
                    "name": _STRING,
                    "type": {"type": "string", "enum": list(TYPE_NAMES)},
                    "aliases": _STRINGS,
                }
            ),
        },
    }
)


class ExtractionError(ProviderError):
    """The LLM answered, but nothing trustworthy can be kept from the answer; retry the job."""

    code = "extraction_unusable"


def message_refs(messages: list[Message]) -> dict[str, str]:
    """Message id -> the short id shown to the model."""
    return {m.id: f"m{i}" for i, m in enumerate(messages, start=1)}


def in_order(fold: Fold) -> list[Message]:
    return sorted(fold.messages, key=lambda m: m.seq)
