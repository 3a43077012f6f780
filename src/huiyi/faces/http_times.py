"""Times on the wire: every time the /v1 routes answer carries its zone; every time they take may.

The store keeps two kinds of zone-less times. What happened and when it was said (a message's and a
memory's ``time``, ``last_access``, ``valid_to``) is wall-clock time in the configured timezone; when a
row was written (``created_at``, a job's lease and schedule) is UTC. Answers attach the zone each means,
so a client never has to guess; a time a caller sends with a zone is moved into the configured one
before the store sees it (the store keeps wall-clock values), and one without a zone is read as local.
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import Any

from pydantic import ValidationError

from huiyi.checks import caller_time
from huiyi.errors import InvalidInput
from huiyi.model import Job, MemoryItem, Message, RecallHit, RecallResult
from huiyi.store.base import RunReport

__all__ = [
    "aware",
    "hit_out",
    "item_out",
    "job_out",
    "local",
    "message_out",
    "report_out",
    "result_out",
    "written",
]


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


def local(value: datetime | None, zone: tzinfo) -> datetime | None:
    """A caller's time as the store keeps it: wall-clock in the configured zone, zone-less (refused in
    words outside the years huiyi reads)."""
    if value is None:
        return value
    try:
        return caller_time(value, zone)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


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


def hit_out(hit: RecallHit, zone: tzinfo) -> RecallHit:
    update = {name: aware(getattr(hit, name), zone) for name in ("time", "valid_to", "said_at")}
    return hit.model_copy(update=update)


def result_out(result: RecallResult, zone: tzinfo) -> RecallResult:
    return result.model_copy(update={"hits": [hit_out(hit, zone) for hit in result.hits]})


def job_out(job: Job, zone: tzinfo) -> Job:
    update = {name: written(getattr(job, name), zone) for name in ("run_after", "lease_until", "created_at")}
    return job.model_copy(update=update)


def report_out(report: RunReport, zone: tzinfo) -> RunReport:
    """A kept report with the times of its body zoned too: a summarize run's summaries, a consolidation's now."""
    body = dict(report.body)
    if isinstance(body.get("summaries"), list):
        body["summaries"] = [_summary_out(summary, zone) for summary in body["summaries"]]
    if isinstance(body.get("now"), str):
        body["now"] = _time_out(body["now"], zone)
    return report.model_copy(update={"at": aware(report.at, zone), "body": body})


def _summary_out(summary: Any, zone: tzinfo) -> Any:
    try:
        item = MemoryItem.model_validate(summary)
    except ValidationError:  # a report kept by another version: shown as it was kept
        return summary
    return item_out(item, zone).model_dump(mode="json")


def _time_out(value: str, zone: tzinfo) -> str:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return value
    zoned = aware(moment, zone)
    return zoned.isoformat() if zoned is not None else value
