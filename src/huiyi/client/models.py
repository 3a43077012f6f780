"""What the client answers beyond the shared models of :mod:`huiyi.model`, and the errors it raises.

A server's typed error (``{"error": {"code", "message"}}``) comes back as the same :mod:`huiyi.errors`
class an embedded ``Memory`` raises (``NotFound``, ``InvalidInput``, …), so code moved from embedded to
remote keeps its ``except`` clauses; codes only HTTP has (unauthorized, forbidden, too_large, …) raise
:class:`RemoteError`, which carries the status and code.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from huiyi.errors import (
    ConfigError,
    EmbedderMismatch,
    HuiyiError,
    InvalidInput,
    NotConfigured,
    NotFound,
    ProviderError,
    ReadOnly,
    SchemaTooNew,
    ScopeError,
    StoreBusy,
    StoreError,
    StoreFull,
    UnnamedConversation,
)
from huiyi.model import Entity, Job, MemoryItem, Message, RecallResult

__all__ = [
    "BadRequest",
    "Context",
    "EntityPage",
    "Erasure",
    "JobPage",
    "MemoryPage",
    "RemoteError",
    "Report",
    "ReportPage",
    "SearchPage",
    "Unreachable",
    "bad_answer",
    "error_of",
]


class Context(BaseModel):
    """``Memory.context`` from a server: the rendered text and its sections, with what went into it."""

    text: str
    sections: dict[str, str] = Field(default_factory=dict)
    recall: RecallResult | None = None
    working: list[Message] = Field(default_factory=list)
    overview: list[MemoryItem] = Field(default_factory=list)


class MemoryPage(BaseModel):
    """One page of a scope's memories, newest first; ``next_cursor`` asks for the next (None: the last)."""

    items: list[MemoryItem]
    next_cursor: str | None = None


class SearchPage(BaseModel):
    """One page of a scope's memories that match a search, newest first; ``total``: how many the server's
    scan matched; ``next_cursor`` asks for the next page (None: the last)."""

    items: list[MemoryItem]
    total: int
    next_cursor: str | None = None


class JobPage(BaseModel):
    """One page of an agent's jobs, oldest first; ``next_cursor`` asks for the next (None: the last)."""

    items: list[Job]
    next_cursor: str | None = None


class EntityPage(BaseModel):
    """One page of a scope's entities, in the order written; ``next_cursor`` asks for the next (None: the last)."""

    items: list[Entity]
    next_cursor: str | None = None


class Erasure(BaseModel):
    """What an erasure removed, by kind, and whether the server's files held none of it when it answered
    (the fields of the store's ``Erasure``)."""

    messages: int = 0
    memories: int = 0
    entities: int = 0
    jobs: int = 0
    persons: int = 0
    blocks: int = 0
    reindexed: int = 0
    purged: bool = False


class Report(BaseModel):
    """A kept report of a maintenance run (the fields of the store's ``RunReport``)."""

    id: str
    agent: str
    scope: str
    kind: str
    at: datetime
    dry_run: bool = False
    counts: dict[str, int] = Field(default_factory=dict)
    body: dict[str, Any] = Field(default_factory=dict)


class ReportPage(BaseModel):
    """One page of an agent's kept reports, newest first; ``next_cursor`` asks for the next (None: the last)."""

    items: list[Report]
    next_cursor: str | None = None


class RemoteError(HuiyiError):
    """An error only a remote call can have: no key, a key for another agent, a body too large, a 5xx…"""

    code = "remote_error"

    def __init__(self, message: str, *, status: int, code: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class Unreachable(RemoteError):
    """The server could not be reached or did not answer in time."""

    def __init__(self, message: str) -> None:
        super().__init__(message, status=0, code="unreachable")


MAX_DETAILS = 5  # of a 422's details in its message; the rest are counted


class BadRequest(RemoteError, InvalidInput):
    """A 400 ``bad_request``: the body held what no store keeps (an integer past 64 bits, data nested past 32
    levels), which Memory refuses as InvalidInput; a RemoteError too, as every code only HTTP has."""


# every error an embedded Memory raises, by the code the HTTP face sends
SHARED: dict[str, type[HuiyiError]] = {
    kind.code: kind
    for kind in (
        InvalidInput,
        ScopeError,
        UnnamedConversation,
        NotFound,
        ReadOnly,
        NotConfigured,
        EmbedderMismatch,
        SchemaTooNew,
        ProviderError,
        StoreFull,
        StoreBusy,
        StoreError,
        ConfigError,
    )
}


def bad_answer(method: str, path: str, status: int, why: str) -> RemoteError:
    """The error for an answer that is not huiyi's (a proxy's page, a wrong shape)."""
    return RemoteError(
        f"{method} {path}: the server's answer ({status}) is not huiyi's: {why}", status=status, code="bad_answer"
    )


def error_of(status: int, body: Any) -> HuiyiError:
    """The exception for a failed answer: the shared class of its code, else a :class:`RemoteError`."""
    info = body.get("error") if isinstance(body, dict) else None
    code = str(info.get("code", "")) if isinstance(info, dict) else ""
    message = str(info.get("message", "")) if isinstance(info, dict) else ""
    message = (message or f"the server answered {status}") + _details(info)
    if code == "bad_request":
        return BadRequest(message, status=status, code=code)
    kind = SHARED.get(code)
    if kind is not None:
        return kind(message)
    return RemoteError(message, status=status, code=code or f"http_{status}")


def _details(info: Any) -> str:
    """What the server's ``details`` name, as the message's end: a 422 says only "the request is not valid",
    and which field broke which rule is in its details (``limit: Input should be less than or equal to 1000``)."""
    details = info.get("details") if isinstance(info, dict) else None
    if not isinstance(details, list):
        return ""
    said = []
    for detail in details[:MAX_DETAILS]:
        if not isinstance(detail, dict):
            continue
        loc = detail.get("loc")
        where = [str(part) for part in (loc if isinstance(loc, list) else []) if part not in ("body", "query", "path")]
        said.append(f"{'.'.join(where) or 'the request'}: {detail.get('msg', '')}")
    more = f"; and {len(details) - MAX_DETAILS} more" if len(details) > MAX_DETAILS else ""
    return f" ({'; '.join(said)}{more})" if said else ""
