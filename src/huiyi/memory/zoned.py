"""A memory's and a message's times with their zone attached, as every face and every export shows them.

The store keeps two kinds of zone-less times. What happened and when it was said (a message's and a
memory's ``time``, ``said_at``, ``last_access``, ``valid_to``) is wall-clock time in the configured
timezone; when a row was written (``created_at``, a job's lease and schedule) is UTC. Shown without a
zone the two read alike, 8 hours apart in Shanghai; shown with it, anyone (another store too) reads the moment.
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import Any

from huiyi.model import MemoryItem, Message

__all__ = ["aware", "item_out", "message_out", "written"]


def aware(value: datetime | None, zone: tzinfo) -> datetime | None:
    """A stored wall-clock time with the configured zone attached."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=zone)


def written(value: datetime | None, zone: tzinfo) -> datetime | None:
    """A stored UTC moment (``created_at``), shown in the configured zone."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(zone)


def item_out(item: MemoryItem, zone: tzinfo) -> MemoryItem:
    update: dict[str, Any] = {
        "time": aware(item.time, zone),
        "last_access": aware(item.last_access, zone),
        "valid_to": aware(item.valid_to, zone),
        "said_at": aware(item.said_at, zone),
        "created_at": written(item.created_at, zone),
    }
    return item.model_copy(update=update)


def message_out(message: Message, zone: tzinfo) -> Message:
    return message.model_copy(update={"time": aware(message.time, zone)})
