"""Times on the wire: every time the /v1 routes answer carries its zone; every time they take may.

Answers attach the zone each stored time means (:mod:`huiyi.memory.zoned`), so a client never has to
guess; a time a caller sends with a zone is moved into the configured one before the store sees it (the
store keeps wall-clock values), and one without a zone is read as local.
"""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Any

from pydantic import ValidationError

from huiyi.checks import caller_time
from huiyi.errors import InvalidInput
from huiyi.memory.zoned import aware, item_out, message_out, written
from huiyi.model import Job, MemoryItem, RecallHit, RecallResult
from huiyi.store.jobs import RunReport

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


def local(value: datetime | None, zone: tzinfo) -> datetime | None:
    """A caller's time as the store keeps it: wall-clock in the configured zone, zone-less (refused in
    words outside the years huiyi reads)."""
    if value is None:
        return value
    try:
        return caller_time(value, zone)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


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
