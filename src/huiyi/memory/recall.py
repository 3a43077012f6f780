"""Memories out: recall, the rendered prompt context, and 联想词."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from numbers import Real
from typing import TYPE_CHECKING

from huiyi.checks import check_id, check_storable, utc_of
from huiyi.config.recall import RecallRecipe
from huiyi.errors import InvalidInput
from huiyi.flows.extract import fold
from huiyi.memory.common import MAX_LISTED, Context, _chat_of, _kinds, _visible
from huiyi.memory.ingest import Ingest
from huiyi.model import MemoryItem, MemoryKind, Message, RecallHit, RecallResult
from huiyi.recall import pipeline, speakers, views
from huiyi.recall.budget import check_budget, render_within
from huiyi.recall.people import people_of
from huiyi.recall.recipes import recipe_for
from huiyi.recall.render import ContextParts, Templates
from huiyi.text.language import text_language

if TYPE_CHECKING:
    from huiyi.text.expand import Expansion


class Recall(Ingest):
    """Recall, the prompt context and word associations."""

    async def recall(
        self,
        query: str,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        limit: int | None = None,
        score_threshold: float | None = None,
        kinds: Sequence[MemoryKind | str] | None = None,
        now: datetime | None = None,
        time_range: tuple[datetime | None, datetime | None] | None = None,
        recipe: RecallRecipe | str | None = None,
        explain: bool = False,
        dialogue: Sequence[str] | None = None,
        speaker: str | None = None,
    ) -> RecallResult:
        """The memories most relevant to ``query`` that this person/space may see.

        Reads the agent's official memories plus the named person's and space's, never another's.
        ``now`` is the moment the query is asked (default: the clock), against which its time words
        (上周, last May) are read; given, recall is as of then (a replay, an evaluation): what was said after
        it is left out. ``time_range`` (start, end; either may be None) keeps only memories
        whose time falls inside it. ``recipe`` (one, or a name: relevance, seed001, seed004 or one of
        ``[recipes]``) replaces the configured ``[recall]`` for this call. ``explain`` records every route's
        candidates, the fused ranking and every bonus in the result's ``info`` (the console's debugger).
        ``dialogue`` holds the chat lines before ``query``, oldest first (a companion's passive recall):
        the latest line, the latest exchange and the whole dialogue are then searched as views and fused.
        Without it, a query of several lines is read as one: its last line is asked, the lines before
        are its dialogue (so the chat's time words and names do not stand for the question's).
        ``speaker``: in a group (``space``), who asks, whom the question's 我 names (我在哪上班 asks for
        their job); ``person`` would add their private chat to what the group may see. In a private chat
        the person asks.
        """
        chosen, request = self._recall_request(
            query,
            agent=agent,
            person=person,
            space=space,
            limit=limit,
            score_threshold=score_threshold,
            kinds=kinds,
            now=now,
            time_range=time_range,
            recipe=recipe,
            explain=explain,
            dialogue=dialogue,
        )
        asker = _asker(speaker, space)
        if asker:
            request = replace(request, asker=asker)
        # on a read thread, not the loop: the pending tail is a store read (a round trip on PostgreSQL)
        pending, result, _ = await self._read(self._pending_then_ranked, query, chosen, request)
        return await self._read(self._answered, _with_pending(_asked_as(result, query), pending, request.limit), query)

    def recall_blocking(
        self,
        query: str,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        limit: int | None = None,
        score_threshold: float | None = None,
        kinds: Sequence[MemoryKind | str] | None = None,
        now: datetime | None = None,
        time_range: tuple[datetime | None, datetime | None] | None = None,
        recipe: RecallRecipe | str | None = None,
        explain: bool = False,
        dialogue: Sequence[str] | None = None,
        speaker: str | None = None,
    ) -> RecallResult:
        """``recall`` for the synchronous face, on the caller's thread: the same ranking without the hops
        to the event loop and to a read thread and back, each a wake-up of its own (issue 15)."""
        self._check_open()
        chosen, request = self._recall_request(
            query,
            agent=agent,
            person=person,
            space=space,
            limit=limit,
            score_threshold=score_threshold,
            kinds=kinds,
            now=now,
            time_range=time_range,
            recipe=recipe,
            explain=explain,
            dialogue=dialogue,
        )
        return self._answered(self._recalled(query, chosen, request, _asker(speaker, space))[0], query)

    def _recalled(
        self, query: str, recipe: RecallRecipe, request: pipeline.RecallRequest, asker: str | None
    ) -> tuple[RecallResult, int | None]:
        """The ranked result with the pending tail, and the agent's persons version read with it (None: none
        was read), which context() names the turns' speakers by."""
        if asker:
            request = replace(request, asker=asker)
        pending, result, persons = self._pending_then_ranked(query, recipe, request)
        # the context keeps the line being answered in its turns, and shows no recalled memory twice: the asked
        # line is left out by recall alone (``_answered``), where a context's budget would refill its place
        return _with_pending(_asked_as(result, query), pending, request.limit), persons

    def _answered(self, result: RecallResult, query: str) -> RecallResult:
        """``result`` without the line being asked: a bot adds the user's line, then recalls for it, and the line
        came back first, above the memory that answers it (helper), pending or indexed (``index=True``), and
        in a group after others spoke (helper's review). A line said as the query is left out when it is its
        speaker's newest in its chat; an older one, said again, is found."""
        asked = {" ".join(query.split()), " ".join(query.strip().splitlines()[-1].split()) if query.strip() else ""}
        echoes = [hit for hit in result.hits if hit.kind is MemoryKind.CHUNK and _line_of(hit) in asked and hit.sources]
        dropped: set[str] = set()
        for hit in echoes:  # a store read only when a line is said as the query
            said = self.store.get_messages(hit.scope.agent, hit.sources[:1])
            if not said:
                continue
            recent = self.store.recent_messages(said[0].agent, said[0].space, 50)
            own = [m.id for m in recent if m.speaker == said[0].speaker]
            if own and own[-1] == said[0].id:
                dropped.add(hit.id)
        if not dropped:
            return result
        return result.model_copy(update={"hits": [hit for hit in result.hits if hit.id not in dropped]})

    def _pending_then_ranked(
        self, query: str, recipe: RecallRecipe, request: pipeline.RecallRequest
    ) -> tuple[list[RecallHit], RecallResult, int | None]:
        # the pending tail taken before the routes run: a message indexed meanwhile is found by one or the other;
        # the versions of the scopes' entities and of the agent's persons come with it, so the routes do not read them
        pending, versions = self._pending_hits(query, request)
        if versions is not None:
            request = replace(request, entities_version=versions.entities, persons_version=versions.persons)
        return pending, self._ranked(recipe, request), versions.persons if versions is not None else None

    def _ranked(self, recipe: RecallRecipe, request: pipeline.RecallRequest) -> RecallResult:
        """:func:`pipeline.run` in one read snapshot of the store (store.reading), on the calling thread:
        its dozen reads see one moment."""
        with self.store.reading(request.scopes[0].agent if request.scopes else ""):
            return pipeline.run(
                self.store,
                self.embedder,
                recipe,
                request,
                lexicon=self.config.expand.neighbours,
                reinforcer=self.reinforcer,
            )

    def _recall_request(
        self,
        query: str,
        *,
        agent: str,
        person: str | None,
        space: str | None,
        limit: int | None,
        score_threshold: float | None,
        kinds: Sequence[MemoryKind | str] | None,
        now: datetime | None,
        time_range: tuple[datetime | None, datetime | None] | None,
        recipe: RecallRecipe | str | None,
        explain: bool,
        dialogue: Sequence[str] | None,
    ) -> tuple[RecallRecipe, pipeline.RecallRequest]:
        """The recipe and the checked request of a recall, or ``InvalidInput``."""
        chosen = recipe_for(recipe, self.config)
        if not agent:
            raise InvalidInput("agent is required")
        if not isinstance(query, str):
            raise InvalidInput(f"query is a text, not {type(query).__name__}")
        if not query.strip():
            raise InvalidInput("query is empty")
        try:
            check_storable(query, "query")
        except ValueError as exc:
            raise InvalidInput(str(exc)) from exc
        if len(query) > chosen.max_query_chars:
            raise InvalidInput(f"query has {len(query)} characters; limit {chosen.max_query_chars}")
        limit = chosen.limit if limit is None else limit
        # bounded as a listing is: a limit past 64 bits reached the store as an OverflowError, not a refusal
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LISTED:
            raise InvalidInput(f"limit is a whole number from 1 to {MAX_LISTED}, not {limit!r}")
        threshold = chosen.score_threshold if score_threshold is None else score_threshold
        # a text ("0.5") reached the ranking's comparison as a TypeError; NaN returned nothing, silently
        if isinstance(threshold, bool) or not isinstance(threshold, Real) or math.isnan(threshold):
            raise InvalidInput(f"score_threshold is a number on the final score's 0–1 scale, not {threshold!r}"[:200])
        now = self.wall(now)
        if dialogue is not None and (isinstance(dialogue, str) or not all(isinstance(line, str) for line in dialogue)):
            raise InvalidInput("dialogue is a list of the chat's lines, each a text")
        if time_range is not None:  # as the store keeps times, as ``now`` is; a caller's UTC is not local time
            ends = time_range if isinstance(time_range, Sequence) and len(time_range) == 2 else None
            if ends is None or not all(end is None or isinstance(end, datetime) for end in ends):
                raise InvalidInput(f"time_range is (start, end), each a datetime or None, not {time_range!r}"[:200])
            time_range = (self.wall(time_range[0]), self.wall(time_range[1]))
            if time_range[0] is not None and time_range[1] is not None and time_range[0] > time_range[1]:
                raise InvalidInput(f"time_range starts ({time_range[0]}) after it ends ({time_range[1]})")
        asked, lines = (query, tuple(dialogue)) if dialogue else views.split(query)  # several lines: a dialogue
        request = pipeline.RecallRequest(
            query=asked,
            scopes=_visible(agent, person, space),
            limit=limit,
            score_threshold=threshold,
            now=now or self.now(),
            kinds=_kinds(kinds),
            drop_words=[agent, *([person] if person else [])],
            time_range=time_range,
            explain=explain,
            dialogue=tuple(line for line in lines if line and line.strip()),
            asker=person if person and not space else None,
            as_of=now,  # an explicit moment: recall what was known then (a replay, an evaluation)
            zone=self._tz,
        )
        return chosen, request

    async def context(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        message: str = "",
        last_reply: str = "",
        limit: int | None = None,
        shown: Sequence[str] = (),
        now: datetime | None = None,
        recipe: RecallRecipe | str | None = None,
        explain: bool = False,
        max_chars: int | None = None,
    ) -> Context:
        """Everything the chat model needs for its next turn, rendered for the prompt.

        Core blocks, the overview (前情提要), recalled fragments and events, then working memory, with
        no item twice. The recall query is the agent's last reply plus the person's message (seed 000 §5).
        ``shown`` holds texts the caller's prompt already carries (a proxied chat request): working-memory
        messages with those texts are not repeated, and recalled memories of them are left out.
        ``now``, ``recipe`` and ``explain`` go to recall (the console's debugger asks at a chosen time).
        ``max_chars`` bounds the text (default ``context.max_chars``; 0: no bound), trimmed in the order
        of :mod:`huiyi.recall.budget`.
        """
        return await self._read(
            self.context_blocking,
            agent=agent,
            person=person,
            space=space,
            message=message,
            last_reply=last_reply,
            limit=limit,
            shown=shown,
            now=now,
            recipe=recipe,
            explain=explain,
            max_chars=max_chars,
        )

    def context_blocking(
        self,
        *,
        agent: str,
        person: str | None = None,
        space: str | None = None,
        message: str = "",
        last_reply: str = "",
        limit: int | None = None,
        shown: Sequence[str] = (),
        now: datetime | None = None,
        recipe: RecallRecipe | str | None = None,
        explain: bool = False,
        max_chars: int | None = None,
    ) -> Context:
        """``context`` on the calling thread: its reads one after the other, without a hop to a read thread
        and back for each (the synchronous face runs it on the caller's thread, as recall; issue 15)."""
        self._check_open()
        budget = check_budget(self.config.context.max_chars if max_chars is None else max_chars)
        now = self.wall(now)
        chat = _chat_of(agent, person, space)
        # in the order they were said, as the chat shows them: a line delivered late (a platform's catch-up)
        # stood after the change that overrode it (七点 after 改到七点半); by the instant, as wall clocks in the
        # hour a clock falls back put 01:10 EST before 01:50 EDT (helper)
        recent = sorted(
            fold.working_memory(self.store, agent, chat.space_id, self.config),
            key=lambda m: (utc_of(m.time, self._tz), m.seq),
        )
        overview = self._overview(agent, chat, self.wall(now))
        if not isinstance(message, str) or not isinstance(last_reply, str):
            raise InvalidInput("message and last_reply are texts")
        if isinstance(shown, str | bytes):  # its characters were taken for the texts: nothing was left out
            raise InvalidInput("shown is a list of the texts the prompt carries, not one string")
        query = context_query(message, last_reply)
        answering = next((m for m in reversed(recent) if message.strip() and m.text == message), None)
        recalled, persons = None, None
        items: list[MemoryItem] = []
        if query:
            asked = query[-self.config.recall.max_query_chars :]
            chosen, request = self._recall_request(
                asked,
                agent=agent,
                person=person,
                space=space,
                limit=limit or self.config.context.recall_limit,
                score_threshold=None,
                kinds=None,
                now=now,
                time_range=None,
                recipe=recipe,
                explain=explain,
                dialogue=None,
            )
            asker = answering.speaker if answering and answering.role == "user" and space else None
            recalled, persons = self._recalled(asked, chosen, request, asker)
            # as recall's hits loaded them a moment ago (kept rows): what a hit's rendering shows, without a read
            items = self.store.recall_memories(agent, [hit.id for hit in recalled.hits])
        known = self.store.get_person(agent, person) if person else None
        history = set(recalled.info.get("superseded", ())) if recalled else set()  # an older value (recall.current)
        language = self._chat_language(recent, query)
        parts = ContextParts(
            agent=agent,
            person=person,
            now=now or self.now(),
            language=language,
            core_blocks=self._core_blocks(agent, person),
            overview=overview,
            facts=[
                item
                for item in items
                if item.kind is MemoryKind.FACT and (self.config.context.closed_facts or _current(item, now, history))
            ],
            events=[item for item in items if item.kind is not MemoryKind.FACT],
            working=recent,
            person_names=[known.name, *known.aliases] if known and known.name else [],
            shown_elsewhere=frozenset(m.id for m in recent if m.text in set(shown)),
            answering=answering.id if answering else None,
            zone=self._tz,
            ranking=[hit.id for hit in recalled.hits] if recalled else [],
        )
        # the people's turns under their names (10001 → 小林), from the persons index recall read
        parts = speakers.named(parts, people_of(self.store, agent, persons).filed)
        templates = self._templates_in(language)
        return Context(
            rendered=render_within(parts, templates, budget), recall=recalled, working=recent, overview=overview
        )

    def _chat_language(self, recent: Sequence[Message], query: str) -> str:
        """The context's language: the configured one, or when none was set, the chat's own (an English bot
        on the defaults got 前情提要 and Chinese headings)."""
        if "language" in self.config.model_fields_set:
            return self.config.language
        return text_language("\n".join([*(m.text for m in recent[-20:]), query]), self.config.language)

    def _templates_in(self, language: str) -> Templates:
        if language == self.config.language:
            return self.templates
        if language not in self._other_templates:
            self._other_templates[language] = Templates.load(language, self.config.context.templates or None)
        return self._other_templates[language]

    async def speaker_names(self, ids: Sequence[str], *, agent: str) -> dict[str, str]:
        """Each of the speakers ``ids`` (of the turns one result shows) that the prompt shows by a name ->
        that name, as ``context`` shows it (:func:`huiyi.recall.speakers.shown`: ``10001`` → 小林); the
        agent's persons are read from the index recall keeps."""
        if not ids:
            return {}
        people = await self._read(people_of, self.store, agent)
        return speakers.shown(people.filed, ids, agent=agent)

    async def expand(
        self,
        text: str,
        *,
        agent: str = "",
        person: str | None = None,
        max_words: int | None = None,
        strategy: int | None = None,
        filter_levels: list[int] | None = None,
    ) -> Expansion:
        """联想词: words associated with ``text`` (synonyms from Cilin, neighbours of the embedding model),
        each with a level; the names of the agent and the person are never expanded (seed 000 v22)."""
        from huiyi.text.expand import expand as expand_words  # here: loaded by its first caller (issue 15)
        from huiyi.text.lexicon import lexicon_for

        settings = self.config.expand
        lexicon = await self._run(lexicon_for, settings.neighbours, settings.cache_dir or None)
        return await self._run(
            expand_words,
            text,
            settings.max_words if max_words is None else max_words,
            settings.strategy if strategy is None else strategy,
            filter_levels,
            [name for name in (agent, person) if name],
            lexicon,
        )


def context_query(message: str, last_reply: str) -> str:
    """What :meth:`Recall.context` recalls with: the agent's last reply, then the person's message (seed 000 §5)."""
    return "\n".join(part for part in (last_reply, message) if part.strip())


def _current(item: MemoryItem, now: datetime | None, superseded: set[str]) -> bool:
    """A fact still true at ``now`` (closed after it was still open then) that no newer value superseded."""
    closed = item.valid_to is not None and (now is None or item.valid_to.replace(tzinfo=None) <= now)
    return not closed and item.id not in superseded


def _with_pending(result: RecallResult, pending: list[RecallHit], limit: int) -> RecallResult:
    """Messages added but not yet indexed that match the query: the chat's newest go first, older ones (an
    erasure's neighbours indexed again, a killed import's backlog) after the first half of what the routes
    ranked."""
    if not pending:
        return result
    known = {hit.id for hit in result.hits}
    fresh: list[RecallHit] = []
    older: list[RecallHit] = []
    for hit in pending:
        if hit.id not in known:
            (fresh if hit.data.pop("tail", True) else older).append(hit)
    first = max(1, limit // 2)  # at most half before what the routes ranked; the rest fill the room left after it
    ranked = result.hits
    hits = [*fresh[:first], *ranked[:first], *older[:first], *ranked[first:], *fresh[first:], *older[first:]][:limit]
    shown = len(hits) - len([hit for hit in hits if hit.id in known])
    return result.model_copy(update={"hits": hits, "info": {**result.info, "pending": shown}})


def _asked_as(result: RecallResult, query: str) -> RecallResult:
    """The result under the query as the caller gave it (a query of several lines is searched by its last)."""
    return result if result.query == query else result.model_copy(update={"query": query})


def _asker(speaker: str | None, space: str | None) -> str | None:
    """Who asks in a group, checked as an id (None in a private chat, where the person asks)."""
    if speaker is None:
        return None
    try:
        check_id(speaker, "speaker")
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc
    return speaker if space else None


def _line_of(hit: RecallHit) -> str:
    """A chunk's own line as said, without its speaker's name before it."""
    text = hit.text.split(": ", 1)[1] if ": " in hit.text else hit.text
    return " ".join(text.split())
