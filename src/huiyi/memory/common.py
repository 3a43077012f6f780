"""What the parts of the memory facade share: naming scopes from a caller's ids, thread pools, the
rendered context they return, and the extractor chosen by the config.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from huiyi.checks import check_id, check_storable
from huiyi.config import Config
from huiyi.deferred import deferred
from huiyi.errors import InvalidInput
from huiyi.flows.extract import Extraction, Extractor, Fold
from huiyi.model import (
    MemoryItem,
    MemoryKind,
    Message,
    MessageIn,
    RecallResult,
    Scope,
    visible_scopes,
)
from huiyi.recall.render import RenderedContext

if TYPE_CHECKING:
    import asyncio
else:
    asyncio = deferred("asyncio", globals())  # loaded when a memory opens, not at import (issue 15)

T = TypeVar("T")


MessageLike = MessageIn | dict[str, Any] | str

# Recall and the prompt's reads run on threads of their own, so queued adds never delay them; adds and
# indexing share a few, so a burst of them cannot take every core from recall.
READ_THREADS = 8
WRITE_THREADS = 2
# what ``update`` may change of a memory
MAX_LISTED = 1_000_000  # rows one listing call returns at most (memories, jobs; turns either side of a message)
EDITABLE = frozenset({"text", "time", "place", "keywords", "insight", "importance"})
# a fact's edge, kept in its data: a corrected text (木木住在上海徐汇区) may need its object corrected too
FACT_EDGE = frozenset({"subject", "predicate", "object"})


async def _in_pool(pool: ThreadPoolExecutor, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``asyncio.to_thread`` on a pool of our choosing (the caller's context variables go along)."""
    call = functools.partial(contextvars.copy_context().run, function, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(pool, call)


def _check_seconds(name: str, value: object) -> None:
    """A bound in seconds, or None for none: bad input is refused before anything is done."""
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < float("inf")
    ):
        raise InvalidInput(f"{name} is seconds, at least 0, not {value!r}")


def _check_flags(*, extract: object, index: object) -> None:
    """add's switches: True or False (``index`` None too, where the config decides). ``extract="no"`` read
    as true, and ``extract=None`` as false."""
    for name, value, unset in (("extract", extract, False), ("index", index, True)):
        if not isinstance(value, bool) and not (unset and value is None):
            raise InvalidInput(f"{name} is True or False, not {value!r}")


def _scope_of(agent: str, person: str | None, space: str | None) -> Scope:
    """The one scope named: a space, a person, or the agent's official memories."""
    if person is not None and space is not None:
        raise InvalidInput("a memory belongs to one scope: give a person or a space, not both")
    try:  # an empty id is refused, not read as the official memories
        return Scope.of_chat(agent, person, space) if person is not None or space is not None else Scope.official(agent)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def _kinds(kinds: Sequence[MemoryKind | str] | None) -> list[MemoryKind] | None:
    """Kinds as given by a caller: members of MemoryKind or their names ("event")."""
    if kinds is None:
        return None
    if isinstance(kinds, str | bytes):  # read for its characters: "chunk" was "'c' is not a valid MemoryKind"
        raise InvalidInput(f"kinds are a list of kinds ([{str(kinds)!r}]), not one string")
    try:
        return [MemoryKind(kind) for kind in kinds]
    except ValueError as exc:
        raise InvalidInput(f"{exc}; the kinds are {', '.join(k.value for k in MemoryKind)}") from exc


def _id_list(ids: Sequence[str]) -> list[str]:
    """Ids a caller named, as a list; one string would be taken for its characters (and match nothing)."""
    if isinstance(ids, str | bytes):
        raise InvalidInput("ids are a list of ids, not one string")
    return [_looked_up(value, "id") for value in ids]


def _looked_up(value: str, what: str) -> str:
    """An id a caller looks up: a text either store can be asked for. A NUL or a lone surrogate is in no
    stored id, and reached PostgreSQL as a StoreError and SQLite as a UnicodeEncodeError."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} is a text, not {type(value).__name__}")
    try:
        return check_storable(value, what)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def _agent(agent: str) -> str:
    """An agent id a listing or lookup reads by: printable as a stored one (a NUL was an empty answer on
    SQLite and a StoreError on PostgreSQL, which a bot reads as the database being down)."""
    try:
        return check_id(agent, "agent", stored=True)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def _chat_of(agent: str, person: str | None, space: str | None) -> Scope:
    """The conversation named: the group ``space``, else the private chat with ``person``."""
    try:
        return Scope.of_chat(agent, person, space)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def _visible(agent: str, person: str | None, space: str | None) -> list[Scope]:
    try:
        return visible_scopes(agent, person, space)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def make_extractor(config: Config) -> Extractor:
    """The LLM extractor when an endpoint is configured, the rule-based one otherwise."""
    if config.llm.base_url:
        from huiyi.flows.extract.llm import LLMExtractor
        from huiyi.providers.llm import OpenAIChat

        return LLMExtractor(OpenAIChat(config.llm), language=config.language)
    from huiyi.flows.extract.rules import RuleExtractor

    return RuleExtractor()


@dataclass
class Context:
    """A rendered prompt context, with what went into it (for debugging and the chat face)."""

    rendered: RenderedContext
    recall: RecallResult | None
    working: list[Message]
    overview: list[MemoryItem]

    @property
    def text(self) -> str:
        return self.rendered.text


class _LazyExtractor:
    """Builds the configured extractor at the first fold, so opening a store stays cheap."""

    def __init__(self, config: Config) -> None:
        self._config = config
        self._inner: Extractor | None = None

    async def extract(self, fold: Fold) -> Extraction:
        if self._inner is None:
            self._inner = make_extractor(self._config)
        return await self._inner.extract(fold)
