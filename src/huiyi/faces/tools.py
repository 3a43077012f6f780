"""LLM tools: JSON schemas (OpenAI ``tools`` format) and one executor that runs them on ``AsyncMemory``.

Two families, so a bot can take either:

- seed 004 (memory graph): ``create_memory``, ``link_memories``, ``search_memories``;
- seed 002 §3.4 (MemGPT): ``conversation_search`` (the message history), ``archival_memory_search``
  (events, facts, summaries, notes), ``core_memory_append`` and ``core_memory_replace`` (the Markdown
  core blocks of ``context.core_blocks``);
- seed 001 §2.4 (反馈权重, "bot 生成"): ``rate_memory``, the model's own judgement of a memory it sees.

The scope is fixed when the executor is made (agent, person, space) and never read from the model's
arguments: the schemas have no such field and unknown fields are refused, so a model cannot read or
write another person's memories. Every call returns compact JSON; unknown tools, bad arguments and
refusals come back as ``{"error": {"code", "message", …}}`` instead of raising, so the chat loop can
hand the error to the model and go on.

The schemas live in :mod:`huiyi.faces.tool_schemas` and the argument models that mirror them in
:mod:`huiyi.faces.tool_arguments`; both are re-exported here, beside the executor.

    >>> [tool["function"]["name"] for tool in TOOLS]  # doctest: +NORMALIZE_WHITESPACE
    ['create_memory', 'link_memories', 'search_memories', 'conversation_search', 'archival_memory_search',
     'core_memory_append', 'core_memory_replace', 'rate_memory']
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import ValidationError

from huiyi.errors import HuiyiError, InvalidInput, NotFound
from huiyi.faces.tool_arguments import (
    ARGUMENTS,
    ArchivalMemorySearch,
    ConversationSearch,
    CoreMemoryAppend,
    CoreMemoryReplace,
    CreateMemory,
    LinkMemories,
    RateMemory,
    SearchMemories,
    Text,
    TimeRange,
    ToolError,
)
from huiyi.faces.tool_posing import posed_speaker
from huiyi.faces.tool_schemas import TOOL_NAMES, TOOLS, MemoryType, RelationType, tool_schemas
from huiyi.faces.tool_times import resolve_time, time_bounds
from huiyi.memory import AsyncMemory
from huiyi.model import CoreBlock, FactData, FactKind, LinkKind, MemoryItem, MemoryKind, RecallHit, visible_scopes
from huiyi.recall.fence import defang
from huiyi.recall.lookalikes import marker, names_of, people_of
from huiyi.recall.speakers import relabeled, renamed_chunk
from huiyi.text.compose import compose

__all__ = ["TOOLS", "TOOL_NAMES", "ToolExecutor", "tool_schemas"]
# defined in the schema and argument modules and importable from here, as they always were
__all__ += ["ARGUMENTS", "ArchivalMemorySearch", "ConversationSearch", "CoreMemoryAppend", "CoreMemoryReplace"]
__all__ += ["CreateMemory", "LinkMemories", "MemoryType", "RateMemory", "RelationType", "SearchMemories", "Text"]
__all__ += ["TimeRange", "ToolError"]

log = logging.getLogger(__name__)

# vocabulary ----------------------------------------------------------------------------------------

_TYPE_KIND: dict[str, MemoryKind] = {
    "事件": MemoryKind.EVENT,
    "event": MemoryKind.EVENT,
    "事实": MemoryKind.FACT,
    "fact": MemoryKind.FACT,
    "关系": MemoryKind.FACT,
    "relation": MemoryKind.FACT,
    "观点": MemoryKind.FACT,
    "opinion": MemoryKind.FACT,
}
_FACT_KIND = {"事实": "attribute", "fact": "attribute", "关系": "relation", "relation": "relation"}
_FACT_KIND |= {"观点": "opinion", "opinion": "opinion"}
# seed 004 §4.4 memory_types: the store's facts told apart by their kind (事实 a stable state: 喜好 too)
_TYPE_FACT_KINDS: dict[str, frozenset[FactKind | None]] = {
    "事实": frozenset({FactKind.ATTRIBUTE, FactKind.PREFERENCE, None}),
    "关系": frozenset({FactKind.RELATION}),
    "观点": frozenset({FactKind.OPINION}),
}
_TYPE_FACT_KINDS |= {"fact": _TYPE_FACT_KINDS["事实"], "relation": _TYPE_FACT_KINDS["关系"]}
_TYPE_FACT_KINDS |= {"opinion": _TYPE_FACT_KINDS["观点"]}
_RELATION_LINK: dict[str, LinkKind] = {
    "因为": LinkKind.CAUSE,
    "所以": LinkKind.CAUSE,
    "导致": LinkKind.CAUSE,
    "cause": LinkKind.CAUSE,
    "引用": LinkKind.REFERENCE,
    "基于": LinkKind.REFERENCE,
    "reference": LinkKind.REFERENCE,
    "相关": LinkKind.RELATED,
    "related": LinkKind.RELATED,
}
ARCHIVAL_KINDS = (MemoryKind.EVENT, MemoryKind.FACT, MemoryKind.SUMMARY, MemoryKind.NOTE)
# seed 004: "我" is the user, "你" the assistant; names resolve to the executor's person and agent
_USER_WORDS = {"我", "用户", "user", "i", "me", "the user"}
_AGENT_WORDS = {"你", "助手", "ai", "assistant", "you", "the assistant"}
_TIME_KEYS = ("时间", "time", "when", "date", "日期")

# the executor ------------------------------------------------------------------------------------------


def error_object(code: str, message: str, **details: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **details}}


def dumps(value: Any) -> str:
    """Compact JSON that keeps Chinese readable (and short in tokens)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class ToolExecutor:
    """Runs the tools for one agent and (optionally) one person and/or one group space.

    ``person`` and ``space`` fix what the tools see: the agent's official memories plus that person's
    and that space's, as :meth:`AsyncMemory.recall` reads them. New memories go to the space when one
    is set, else to the person, else to the agent's official memories; those every chat reads are
    ``read_only`` to ratings and links of an executor acting for a person or space.
    """

    def __init__(self, memory: AsyncMemory, agent: str, person: str | None = None, space: str | None = None) -> None:
        if not agent or not agent.strip():
            raise InvalidInput("a tool executor needs an agent")
        self.memory = memory
        self.zone = ZoneInfo(memory.config.timezone)  # an offset in a time argument moves it here, as HTTP does
        self.agent = agent
        self.person = person
        self.space = space
        try:
            self._visible = set(visible_scopes(agent, self.person, self.space))
        except ValueError as exc:  # a typed error, as every other bad id gets
            raise InvalidInput(str(exc)) from exc
        # one person's rating or link of an official memory would change what every other person is shown
        self._own = self._visible - set(visible_scopes(agent)) if person or space else self._visible
        self._handlers: dict[str, Callable[[Any], Awaitable[dict[str, Any]]]] = {
            "create_memory": self._create_memory,
            "link_memories": self._link_memories,
            "search_memories": self._search_memories,
            "conversation_search": self._conversation_search,
            "archival_memory_search": self._archival_memory_search,
            "core_memory_append": self._core_memory_append,
            "core_memory_replace": self._core_memory_replace,
            "rate_memory": self._rate_memory,
        }

    @property
    def names(self) -> tuple[str, ...]:
        return TOOL_NAMES

    def schemas(self, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """The tool schemas; with core blocks configured, ``label`` lists the block labels as an enum."""
        schemas = tool_schemas(names)
        labels = self.memory.core_memory.editable(self.agent, self.person)
        if labels:
            for tool in schemas:
                function = tool["function"]
                if function["name"].startswith("core_memory_"):
                    function["parameters"]["properties"]["label"]["enum"] = labels
        return schemas

    async def call(self, name: str, arguments: str | Mapping[str, Any] | None = None) -> str:
        """Run one tool call; returns compact JSON, ``{"error": {...}}`` when it cannot."""
        return dumps(await self.run(name, arguments))

    async def run(self, name: str, arguments: str | Mapping[str, Any] | None = None) -> dict[str, Any]:
        """:meth:`call` before serialising: the result object (or error object) as a dict."""
        handler = self._handlers.get(name)
        if handler is None:
            return error_object("unknown_tool", f"there is no tool {name!r}", tools=list(TOOL_NAMES))
        try:
            args = ARGUMENTS[name].model_validate(_arguments_object(arguments))
        except ToolError as exc:
            return error_object(exc.code, exc.message, **exc.details)
        except ValidationError as exc:
            problems = [
                {"field": ".".join(str(part) for part in e["loc"]) or "(arguments)", "problem": e["msg"]}
                for e in exc.errors(include_url=False, include_input=False)
            ]
            return error_object("invalid_arguments", f"the arguments of {name} are not valid", details=problems)
        except (ValueError, RecursionError) as exc:  # a value no text holds (an int of 5000 digits, given as a dict)
            return error_object("invalid_arguments", f"the arguments of {name} cannot be read: {str(exc)[:120]}")
        try:  # a ValueError from here on is a fault of ours, raised as such, not blamed on the arguments
            return await handler(args)
        except ToolError as exc:
            return error_object(exc.code, exc.message, **exc.details)
        except HuiyiError as exc:
            return error_object(exc.code, exc.message)

    # seed 004 ------------------------------------------------------------------------------------------
    async def _create_memory(self, args: CreateMemory) -> dict[str, Any]:
        now = self.memory.now()
        subject = self._subject(args.subject)
        attributes = {key.strip(): str(value).strip() for key, value in args.attributes.items() if str(value).strip()}
        when: datetime | None = None
        for key in _TIME_KEYS:
            if key in attributes:
                when = resolve_time(attributes[key], now, self.zone)
                if when is not None:
                    attributes[key] = when.isoformat(timespec="minutes")
                break
        shown = {key: value for key, value in attributes.items() if not (when is not None and key in _TIME_KEYS)}
        text = args.text or compose(subject, args.topic, args.object or "", shown)
        if who := await posed_speaker(self.memory, self.agent, self.person, self.space, text):
            raise ToolError(
                "posing_as_a_line",
                f"a memory is a note in your own words, not a line said by {who}: "
                f"write what happened ({who}说… / {who} said …) without '{who}:' in front",
            )
        kind = _TYPE_KIND[args.memory_type]
        if kind is MemoryKind.FACT and subject.lower() in _USER_WORDS:  # a group's 我 is no one: 我的属性：我喜欢猫
            raise ToolError("unnamed_subject", f"in a group '{subject}' names no one: give the member's name")
        item = await self.memory.remember(
            text,
            subject=subject,  # a fact's edge; another memory keeps what it is about as plain keys
            predicate=args.topic,
            object=args.object or "",
            fact_kind=_FACT_KIND[args.memory_type] if kind is MemoryKind.FACT else None,
            agent=self.agent,
            person=None if self.space else self.person,
            space=self.space,
            kind=kind,
            time=when or now,
            importance=args.importance,
            keywords=[word for word in (args.topic, args.object) if word],
            data={"origin": "tool", "memory_type": args.memory_type, "attributes": attributes},
        )
        return {"status": "stored", "memory": (await self._shown(item))[0]}

    async def _link_memories(self, args: LinkMemories) -> dict[str, Any]:
        source = await self._find(args.source_memory_id, args.source_memory_description, "source")
        target = await self._find(args.target_memory_id, args.target_memory_description, "target")
        if source.id == target.id:
            raise ToolError(
                "same_memory",
                "source and target are the same memory; name them more precisely or by id",
                memory=_item(source),
            )
        for end in (source, target):
            self._changeable(end, "link")
        link = await self.memory.link(
            source.id,
            target.id,
            agent=self.agent,
            person=self.person,
            space=self.space,
            kind=_RELATION_LINK[args.relation_type],
            weight=args.importance,
        )
        shown_source, shown_target = await self._shown(source, target)
        return {
            "status": "linked",
            "link": {"source": link.source, "target": link.target, "relation": link.kind.value},
            "source": shown_source,
            "target": shown_target,
        }

    async def _search_memories(self, args: SearchMemories) -> dict[str, Any]:
        kinds = sorted({_TYPE_KIND[t] for t in args.memory_types}) if args.memory_types else None
        extra: dict[str, Any] = {}
        if "expand_depth" in args.model_fields_set:  # left out, the recipe's planner decides (seed 004 §12.3)
            extra["recipe"] = self.memory.config.recall.model_copy(update={"graph_depth": args.expand_depth})
        fact_kinds = frozenset().union(*(_TYPE_FACT_KINDS.get(t, frozenset()) for t in args.memory_types or ()))
        if not fact_kinds or fact_kinds == frozenset().union(*_TYPE_FACT_KINDS.values()):  # no fact left out
            return await self._recall(args.query, args.max_results, kinds, args.time_range, **extra)

        def wanted(hit: RecallHit) -> bool:
            return hit.kind is not MemoryKind.FACT or FactData.from_data(hit.data).kind in fact_kinds

        # some facts are left out after recall ranks them: ask for more, then keep max_results
        found = await self._recall(args.query, args.max_results * 4, kinds, args.time_range, keep=wanted, **extra)
        return {"memories": found["memories"][: args.max_results]}

    # seed 002 / MemGPT ---------------------------------------------------------------------------------
    async def _conversation_search(self, args: ConversationSearch) -> dict[str, Any]:
        return await self._recall(args.query, args.max_results, [MemoryKind.CHUNK], args.time_range)

    async def _archival_memory_search(self, args: ArchivalMemorySearch) -> dict[str, Any]:
        return await self._recall(args.query, args.max_results, list(ARCHIVAL_KINDS), args.time_range)

    # only the caller's own blocks: its person's (human), or its agent's where the config allows
    async def _core_memory_append(self, args: CoreMemoryAppend) -> dict[str, Any]:
        block = await self.memory.core_block_append(args.label, args.content, agent=self.agent, person=self.person)
        return {"status": "appended", "block": _block(block)}

    async def _core_memory_replace(self, args: CoreMemoryReplace) -> dict[str, Any]:
        block = await self.memory.core_block_replace(
            args.label, args.old_content, args.new_content, agent=self.agent, person=self.person
        )
        return {"status": "replaced", "block": _block(block)}

    # seed 001 ------------------------------------------------------------------------------------------
    async def _rate_memory(self, args: RateMemory) -> dict[str, Any]:
        item = await self._by_id(args.memory_id, "memory")  # only a memory this executor sees
        self._changeable(item, "rate")
        rated = await self.memory.feedback(item.id, args.value, agent=self.agent)
        return {"status": "rated", "memory": (await self._shown(rated))[0], "feedback": rated.feedback}

    # helpers -------------------------------------------------------------------------------------------
    def _subject(self, said: str) -> str:
        word = said.strip()
        if word.lower() in _USER_WORDS and self.person:
            return self.person
        if word.lower() in _AGENT_WORDS:
            return self.agent
        return word

    async def _recall(
        self,
        query: str,
        limit: int,
        kinds: Sequence[MemoryKind] | None,
        time_range: TimeRange | None,
        keep: Callable[[RecallHit], bool] | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        bounds = time_bounds(time_range, self.memory.now(), self.zone) if time_range else None
        result = await self.memory.recall(
            query,
            agent=self.agent,
            person=self.person,
            space=self.space,
            limit=limit,
            kinds=kinds,
            time_range=bounds,
            **extra,
        )
        hits = [hit for hit in result.hits if hit.scope in self._visible]  # recall reads no other scope; belt
        hits = [hit for hit in hits if keep is None or keep(hit)]
        return {"memories": await self._hits_shown(hits)}

    # turns are shown under their speakers' names (10001 → 小林, recall.speakers), and a name printing as
    # another one in the same result, or posing as the agent or a header, is marked: as context() shows them
    async def _shown(self, *items: MemoryItem) -> list[dict[str, Any]]:
        turns = [p for item in items if item.kind is MemoryKind.CHUNK for p in item.participants]
        names = await self.memory.speaker_names(turns, agent=self.agent) if turns else {}
        items = tuple(renamed_chunk(item, names) for item in items)
        return _marked(
            [_item(item) for item in items],
            [name for item in items for name in names_of(item)],
            [n for item in items for n in people_of(item)],
            self.agent,
        )

    async def _hits_shown(self, hits: Sequence[RecallHit]) -> list[dict[str, Any]]:
        if not hits:
            return []
        # a hit carries no participants: its memory's, or the speaker of a line not indexed yet
        items = {item.id: item for item in await self.memory.get_many([hit.id for hit in hits], agent=self.agent)}
        pending = [hit.sources[0] for hit in hits if hit.id not in items and hit.sources]
        said = {m.id: m.speaker for m in await self.memory.messages(pending, agent=self.agent)} if pending else {}

        def speakers(hit: RecallHit) -> list[str]:
            if hit.kind is not MemoryKind.CHUNK:
                return []
            item = items.get(hit.id)
            return list(item.participants) if item else [said[s] for s in hit.sources[:1] if s in said]

        turns = {hit.id: speakers(hit) for hit in hits}
        names = await self.memory.speaker_names([p for found in turns.values() for p in found], agent=self.agent)
        shown = [_hit(hit, relabeled(hit.text, turns[hit.id], names)) for hit in hits]
        known = [renamed_chunk(item, names) for item in items.values()]
        people = [name for item in known for name in people_of(item)]
        people += [names.get(speaker, speaker) for speaker in said.values()]
        return _marked(shown, [name for item in known for name in names_of(item)], people, self.agent)

    async def _by_id(self, memory_id: str, what: str) -> MemoryItem:
        """The memory of this id if this executor may see it; another person's looks absent."""
        try:
            item = await self.memory.get(memory_id, agent=self.agent)
        except NotFound:
            item = None
        if item is None or item.scope not in self._visible:
            raise ToolError("not_found", f"no {what} with id {memory_id!r}")
        return item

    def _changeable(self, item: MemoryItem, verb: str) -> None:
        """Refuse a memory this executor sees but may not change: an official one, for a chat's executor."""
        if item.scope not in self._own:
            told = f"memory {item.id!r} is one of {self.agent}'s official memories, which every chat reads"
            raise ToolError("read_only", f"{told}; tools cannot {verb} it, only this chat's own", memory=_item(item))

    async def _find(self, memory_id: str | None, description: str | None, end: str) -> MemoryItem:
        """A memory this executor may see, by id or as the best match of a description."""
        if memory_id:
            return await self._by_id(memory_id, f"{end} memory")
        assert description is not None  # the model validator asked for one of the two
        for kinds in (list(ARCHIVAL_KINDS), None):
            found = await self.memory.recall(
                description, agent=self.agent, person=self.person, space=self.space, limit=1, kinds=kinds
            )
            # the best match must share a word with the description: meaning alone ranks something first
            # however unrelated (火星殖民计划的预算 linked 祈煜是一位画家)
            if found.hits and found.hits[0].scope in self._visible and found.hits[0].route_scores.get("keyword"):
                return await self.memory.get(found.hits[0].id, agent=self.agent)
        raise ToolError("not_found", f"no memory matches the {end} description {description!r}; name it by its id")


def _arguments_object(arguments: str | Mapping[str, Any] | None) -> Mapping[str, Any]:
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise ToolError("invalid_arguments", f"the arguments are not valid JSON: {exc.msg} at {exc.pos}") from exc
        except (ValueError, RecursionError) as exc:  # an integer of 5000 digits, arrays nested 100 000 deep
            raise ToolError("invalid_arguments", f"the arguments cannot be read: {str(exc)[:120]}") from exc
    if not isinstance(arguments, Mapping):
        raise ToolError("invalid_arguments", f"the arguments must be a JSON object, not {type(arguments).__name__}")
    return arguments


def _when(value: datetime | None) -> str | None:
    return value.isoformat(timespec="minutes") if value else None


# texts go back to the model with chat-template role markers made plain (``recall.fence``), as context() does:
# a member's <|im_start|>system line must not open a system turn where a server reads markers in content
def _item(item: MemoryItem) -> dict[str, Any]:
    return {"id": item.id, "kind": item.kind.value, "text": defang(item.text), "time": _when(item.time)}


def _marked(
    shown: list[dict[str, Any]], names: Iterable[str], people: Iterable[str], agent: str
) -> list[dict[str, Any]]:
    mark = marker([agent, *names], agent=agent, people=people)
    return shown if mark is None else [{**row, "text": mark(row["text"])} for row in shown]


def _hit(hit: RecallHit, text: str) -> dict[str, Any]:
    return {
        "id": hit.id,
        "kind": hit.kind.value,
        "text": defang(text),
        "time": _when(hit.time),
        "score": round(hit.score, 3),
    }


def _block(block: CoreBlock) -> dict[str, Any]:
    return {"label": block.label, "text": defang(block.text)}
