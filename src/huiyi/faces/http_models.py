"""Request and response bodies of the HTTP face. Field names of ``/query`` follow seed 000 §12."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Query
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from huiyi.checks import INT64_MAX, INT64_MIN, Number, Time, TimeIn, Whole, no_truth_value
from huiyi.memory.pages import CURSOR_CHARS
from huiyi.model import FactKind, MemoryItem, MemoryKind, Message, MessageIn
from huiyi.store.erasure import Erasure

OUT_OF_RANGE = "int64_range"  # the HTTP face answers 400 to this error: no store could take the value


# an optional number's bounds inside its type: given beside "| None", pydantic wrote them into /openapi.json as
# its own ge/le keys, not minimum/maximum (helper's review); ``true`` is refused as in Whole and Number
Limit = Annotated[int, Field(ge=1, le=100), BeforeValidator(no_truth_value)]
Share = Annotated[float, Field(ge=0.0, le=1.0), BeforeValidator(no_truth_value)]
Chars = Annotated[int, Field(ge=0, le=2**31 - 1), BeforeValidator(no_truth_value)]


def _int64(value: int) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise PydanticCustomError(OUT_OF_RANGE, "the integer does not fit in 64 bits")
    return value


# every integer a query string or path carries (JSON bodies are checked as they are decoded)
Int64 = Annotated[int, AfterValidator(_int64)]
# a listing answered as a bare list (jobs) names its next page in this header, as others in ``next_cursor``
NEXT_CURSOR = "Huiyi-Next-Cursor"
NEXT_CURSOR_HEADER = {
    "headers": {NEXT_CURSOR: {"description": "the next page's cursor, while more follow", "schema": {"type": "string"}}}
}
# where a listing goes on: a page's ``next_cursor``, passed back as it came
Cursor = Annotated[
    str | None, Query(min_length=1, max_length=CURSOR_CHARS, description="the previous page's next_cursor")
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Who(_Body):
    """Whose memory: an agent, and a person (private chat) and/or a space (group chat)."""

    agent: str = Field(min_length=1, max_length=200)
    person: str | None = Field(default=None, max_length=200)
    space: str | None = Field(default=None, max_length=200)


class QueryBody(Who):
    query: str = Field(min_length=1, max_length=2000)
    limit: Whole = Field(default=5, ge=1, le=100)
    # seed 000 §12: events below this similarity (huiyi.recall.similarity) are left out; unset: http.query_threshold
    score_threshold: Share | None = None
    kinds: list[MemoryKind] | None = None


class MemoryEvent(BaseModel):
    id: int  # rank, from 0
    score: float
    index: str  # the memory id
    kind: MemoryKind
    description: str
    deepinsight: str = ""
    place: str = ""
    updatetime: Time | None = None
    keyword: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    route_scores: dict[str, float] = Field(default_factory=dict)
    similarity: float | None = None  # the scale score_threshold is on
    log: str = ""


class MemoryEntity(BaseModel):
    id: int
    kind: str  # 用户属性 / 用户关系 / 主体关系 / 其他属性 / 其他关系
    score: float
    index: str
    description: str
    updatetime: Time | None = None
    # seed 000 §12: the searched words (the query's own, and its 联想词 when that route runs) found in the
    # fact's text or keyword
    matched_keywords: list[str] = Field(default_factory=list)
    keyword: str = ""
    subject: str = ""
    predicate: str = ""
    object: str = ""
    sources: list[str] = Field(default_factory=list)
    log: str = ""


class QueryResponse(BaseModel):
    memory_events: list[MemoryEvent]
    memory_entities: list[MemoryEntity]
    additional_info: dict[str, Any]


class MessagesBody(Who):
    messages: list[MessageIn] = Field(min_length=1, max_length=1000)
    index: bool | None = None  # true: indexed before the answer, false: right after it (default: ingest.index)

    @model_validator(mode="after")
    def _needs_scope(self) -> MessagesBody:
        if not self.person and not self.space:
            raise ValueError("name a person (private chat) or a space (group chat)")
        return self


class MessagesResponse(BaseModel):
    stored: int
    skipped: int  # already stored under the same id
    ids: list[str]
    messages: list[Message] = Field(default_factory=list)  # the messages newly stored, as stored


class ContextBody(Who):
    message: str = Field(default="", max_length=20000)
    last_reply: str = Field(default="", max_length=20000)
    # the text's bound in characters, trimmed as huiyi.recall.budget says (0: none; absent: context.max_chars)
    max_chars: Chars | None = None


class NewMemory(Who):
    text: str = Field(default="", max_length=20000)  # empty: composed from subject, predicate and object
    kind: MemoryKind = MemoryKind.NOTE
    time: TimeIn | None = None
    said_at: TimeIn | None = None  # when it was said, if ``time`` is the day it is about (a plan)
    importance: Number = Field(default=0.5, ge=0.0, le=1.0)
    keywords: list[str] = Field(default_factory=list, max_length=50)
    sources: list[str] = Field(default_factory=list, max_length=1000)
    id: str | None = Field(default=None, min_length=1, max_length=200)  # an id stored before: nothing is written
    place: str = Field(default="", max_length=500)
    insight: str = Field(default="", max_length=20000)
    participants: list[str] = Field(default_factory=list, max_length=100)
    data: dict[str, Any] = Field(default_factory=dict)
    # what it is about: a fact's edge (seed 000 §7 groups facts by subject), as the create_memory tool names it
    subject: str | None = Field(default=None, min_length=1, max_length=200)
    predicate: str | None = Field(default=None, max_length=200)
    object: str | None = Field(default=None, max_length=2000)
    fact_kind: FactKind | None = None  # attribute when a subject is named without one


class Page(BaseModel):
    items: list[MemoryItem]  # typed, so the schema (and the clients generated from it) name the shape
    limit: int
    offset: int
    next_offset: int | None  # kept for older callers: an offset skips or repeats rows as memories come and go
    next_cursor: str | None = None  # the next page's ``cursor``; None: this page is the last


class PersonBody(_Body):
    agent: str = Field(min_length=1)
    name: str = ""
    aliases: list[str] = Field(default_factory=list, max_length=100)
    platform_ids: dict[str, str] = Field(default_factory=dict)  # e.g. {"qq": "10001"}


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    schema_version: int
    embedder: str


class ExpandBody(_Body):
    """Seed 000 §11.1's /expand_words; its Chinese-era names are accepted as aliases."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    sentence: str = Field(min_length=1, max_length=2000)
    max_words: Whole = Field(default=100, ge=0, le=1000, alias="chinese_rd_count")
    strategy: Whole | Literal["first", "second"] = Field(default=1, alias="logic_type")
    filter_levels: list[Whole] = Field(default_factory=lambda: [0], alias="filter_values")
    agent: str = ""
    person: str | None = None


class ExpandResponse(BaseModel):
    original_keywords: list[str]  # 原始关键词列表: the words of the sentence
    input_words: list[str]  # 输入的单词列表: the words given to expansion
    expanded_words: list[dict[str, int]]  # 扩展的联想词列表: [{word: level}], best first
    timings_ms: dict[str, float]


class FeedbackBody(_Body):
    agent: str = Field(min_length=1)
    memory_id: str = Field(min_length=1)
    # a number: true or "1" is refused, not read as 1
    value: float = Field(ge=-1.0, le=1.0, strict=True)  # -1 bad … +1 good (seed 001 §2.4 feedback weight)
    # the chat the memory must be of (an app's user): another's is not found (404)
    person: str | None = Field(default=None, max_length=200)
    space: str | None = Field(default=None, max_length=200)


class ConsolidateBody(Who):
    dry_run: bool = False


class ContextResponse(BaseModel):
    text: str
    sections: dict[str, str]
    recalled: list[str]  # ids of the memories recall found for this turn
    timings_ms: dict[str, float]


class ErrorInfo(BaseModel):
    code: str  # stable: bad_request, unauthorized, forbidden, not_found, too_large, invalid_input, …
    message: str
    details: list[dict[str, Any]] | None = None  # per-field reasons of a 400 or 422


class ErrorBody(BaseModel):
    """The one shape of every error the HTTP face answers."""

    error: ErrorInfo


ERRORS = {
    400: "The request could not be read: not UTF-8 JSON, too deeply nested, or holding text or numbers no "
    "store can keep (lone surrogates, NUL, integers beyond 64 bits).",
    401: "No valid API key: send 'Authorization: Bearer <key>'.",
    403: "This API key may not use this agent.",
    404: "No such memory, person or route.",
    409: "The store or its config cannot do this (not configured, another embedder, a newer schema).",
    413: "The body is larger than the configured limit.",
    422: "The request is well-formed but breaks the route's rules.",
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for these error statuses, all with the ``ErrorBody`` model."""
    return {code: {"model": ErrorBody, "description": ERRORS[code]} for code in codes}


# an erasure's purge of the store's files: behind the answer (the default), or waited for
Purge = Literal["behind", "wait"]


class ErasureReport(BaseModel):
    """What an erasure removed, by kind (``reindexed``: other people's messages indexed again); ``purged``:
    whether the store's files held none of it when the answer was sent (``purge=wait`` waits for that)."""

    messages: int
    memories: int
    entities: int
    jobs: int
    persons: int
    blocks: int
    reindexed: int
    purged: bool

    @classmethod
    def of(cls, done: Erasure) -> ErasureReport:
        return cls(**done.counts(), purged=done.purged)
