"""Ingest: validate messages, store them durably, then index them as message chunks.

Accepting and indexing are two steps on purpose: a message is in the log (and safe) as soon as it is
accepted; if the process dies before indexing, ``index_pending`` finishes the job on the next start.
Without any LLM, chunks already make every message recallable by meaning and by keyword.

Any number of processes may share a store, so indexing work is claimed under a lease (``add`` claims
its messages as it stores them; an opener claims only what nobody holds), and a chunk's id follows
from its anchor message, so even two processes indexing one message write one chunk.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import logging
import os
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING
from unicodedata import normalize
from zoneinfo import ZoneInfo

from huiyi.checks import caller_time, utc_of
from huiyi.config import Config
from huiyi.deferred import deferred
from huiyi.errors import InvalidInput, said
from huiyi.flows.answers import answers, asked_part, replies
from huiyi.flows.chatter import said_text, spoken_text
from huiyi.flows.message_in import message_in, stored_message
from huiyi.model import MemoryItem, MemoryKind, Message, MessageIn, Scope, new_id
from huiyi.providers.embed import Embedder, Vectors
from huiyi.providers.priority import PASSAGES_STOP, PassagesStopped
from huiyi.store.base import TURN_VECTOR, Claim, Store, Terms
from huiyi.text import tokens
from huiyi.text.lookalike import name_key

if TYPE_CHECKING:
    import socket
else:
    socket = deferred("socket", globals())  # for the host's name, at a memory's open (issue 15)

log = logging.getLogger(__name__)

Progress = Callable[[int], None]

# how long a claim on indexing work holds: a process that died frees its messages after this. A claim
# outlived by slow work costs repeated embedding, never a duplicate chunk (chunk ids are per message)
INDEX_LEASE_SECONDS = 300.0
# chunks written per transaction when indexing (each marks its own messages indexed)
WRITE_SLICE = 8


def indexer_name() -> str:
    """A claimer's name, unique per process (and per caller, with the suffix the caller adds)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def dead_here(claimer: str) -> bool:
    """Whether a claimer's process is known to be gone: same host as ours and no such process."""
    host, _, rest = claimer.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine's (or an unknown) claimer: its lease decides
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def index_claim(worker: str) -> Claim:
    """The claim ``add`` puts on the messages it stores, since it indexes them right away."""
    return Claim(worker, datetime.now(UTC) + timedelta(seconds=INDEX_LEASE_SECONDS))


def chunk_id(agent: str, message_id: str) -> str:
    """The id of the chunk anchored at a message: the same in every process, so it is stored once."""
    digest = hashlib.blake2b(f"{agent}\x1f{message_id}".encode(), digest_size=10).hexdigest()
    return f"chunk_{digest}"


def prepare(
    raw: Sequence[MessageIn | dict[str, object] | str],
    *,
    agent: str,
    person: str | None,
    space: str | None,
    now: datetime,
    config: Config,
) -> list[Message]:
    """Turn caller input into stored-message shape, or raise InvalidInput before anything is written."""
    if not isinstance(agent, str) or not agent.strip():
        raise InvalidInput("agent is required, as a string")
    try:
        scope = Scope.of_chat(agent, person, space)
    except ValueError as exc:
        raise InvalidInput(said(exc)) from exc
    if not isinstance(raw, Sequence) or isinstance(raw, bytes):  # add(42) or add(None) would slip through
        raise InvalidInput(f"messages are a text, a dict, a MessageIn or a list of them, not {type(raw).__name__}")
    if not raw:
        return []
    if len(raw) > config.ingest.max_batch:
        raise InvalidInput(f"{len(raw)} messages in one call; the limit is {config.ingest.max_batch}")
    out: list[Message] = []
    for position, item in enumerate(raw):
        try:
            message = message_in(item)
        except ValueError as exc:
            raise InvalidInput(f"message {position}: {said(exc)}") from exc
        if len(message.text) > config.ingest.max_message_chars:
            raise InvalidInput(
                f"message {position} has {len(message.text)} characters; the limit is {config.ingest.max_message_chars}"
            )
        speaker = message.speaker or (agent if message.role == "assistant" else person)
        if not speaker:
            raise InvalidInput(f"message {position}: a group message needs its speaker")
        # a speaker that is no string (a group's ``person`` of another type) is refused just below
        if message.role == "user" and isinstance(speaker, str):
            speaker = user_speaker(speaker, agent)
        when = message.time or now
        if message.time is not None:  # stored as wall clock in the configured zone, as /v1 documents
            try:
                when = caller_time(when, ZoneInfo(config.timezone))
            except ValueError as exc:
                raise InvalidInput(f"message {position}: {said(exc)}") from exc
        try:
            out.append(stored_message(message, id=message.id or new_id("msg"), scope=scope, speaker=speaker, when=when))
        except ValueError as exc:
            raise InvalidInput(f"message {position}: {said(exc)}") from exc
    seen: set[str] = set()
    for kept in out:
        if kept.id in seen:  # named, so an import's line with it can be found
            raise InvalidInput(f"two messages in one call share the id {kept.id!r}")
        seen.add(kept.id)
    if all(_said_when(item) for item in raw):
        # a history paged newest first, as chat APIs give it: stored in the order said, so folds, extraction and
        # summaries read replies after what they answer, as one add per message would have them (helper). A
        # batch with an untimed line keeps its order: that line's time is now, which a skewed clock may misplace.
        # Sorted by the instant: naive times compare without ``fold`` (01:50 EDT went after 01:10 EST: helper)
        zone = ZoneInfo(config.timezone)
        moments = [utc_of(kept.time, zone) for kept in out]
        if moments[0] > moments[-1] and all(a >= b for a, b in itertools.pairwise(moments)):
            # newest first throughout: lines of one second or minute (a chat API's precision) were kept in the
            # caller's order, each reply before its question (helper's review)
            out.reverse()
            moments.reverse()
        order = sorted(range(len(out)), key=moments.__getitem__)  # stable: a moment's lines keep their order
        out = [out[i] for i in order]
    return out


def _said_when(item: MessageIn | dict[str, object] | str) -> bool:
    """Whether a caller's message names its own time."""
    if isinstance(item, MessageIn):
        return item.time is not None
    return isinstance(item, dict) and item.get("time") is not None


def namesake(name: str) -> str:
    """The name a user's line is stored under when its speaker is called like the agent (a member who
    took the bot's nickname): only the agent's own (assistant) lines go by its name, so nothing the member
    says is rendered, extracted or summarised as the agent's.

    >>> namesake("祈煜"), namesake("ava")
    ('祈煜（用户）', 'ava (user)')
    """
    name = name.strip()
    return f"{name}（用户）" if tokens.has_cjk(name) else f"{name} (user)"


NAMESAKE_MARKS = ("(用户)", "(user)")  # namesake's marks, compared as name_key leaves them


def user_speaker(speaker: str, agent: str) -> str:
    """The name a user's line is stored under: its own, or :func:`namesake` when it prints as the agent's name
    (:func:`huiyi.text.lookalike.name_key`: ``Аva`` with a Cyrillic А is ``Ava``) with none or any of
    namesake's marks (a member who took the marked name stays apart from the namesake).

    >>> user_speaker("苏霓", "祈煜"), user_speaker("祈煜", "祈煜"), user_speaker("祈煜（用户）", "祈煜")
    ('苏霓', '祈煜（用户）', '祈煜（用户）（用户）')
    """
    name, own = name_key(speaker), name_key(agent)
    marks = [name_key(mark) for mark in NAMESAKE_MARKS]
    while name != own:
        mark = next((mark for mark in marks if name.endswith(mark)), None)
        if mark is None:
            return speaker
        name = name.removesuffix(mark).strip()
    return namesake(speaker)


def terms_of(text: str) -> Terms:
    return Terms(words=tokens.words(text), chars=tokens.chars(text))


def speaker_term(name: str) -> str:
    """A person as a field of the keyword index: one opaque word that no text or query word holds, so
    the speaker route finds a person's memories while their name is never matched text (issue #13)."""
    return "spk" + hashlib.blake2b(normalize("NFKC", name).strip().casefold().encode(), digest_size=6).hexdigest()


def memory_terms(text: str, people: Sequence[str]) -> Terms:
    """The keyword terms of a memory: its matched text's, plus a speaker term per person it is by."""
    terms = terms_of(text)
    return Terms(words=[*terms.words, *(speaker_term(p) for p in dict.fromkeys(people) if p)], chars=terms.chars)


GROUP_LOOKBACK = 50  # how many turns, up to a message, tell whether its chat is a group


def is_group(turns: Sequence[Message]) -> bool:
    """A chat where more than two people speak: there a speaker's name says little about what was said
    and, as matched text, lifts their chatter (issue #13). Two people (a private chat, LoCoMo's pairs)
    keep their names as words, which meaning and keywords match well there."""
    return len({m.speaker for m in turns}) > 2


def chunk_memories(
    store: Store, messages: Sequence[Message], config: Config
) -> tuple[list[MemoryItem], list[str], list[str]]:
    """One chunk per new message: the window of turns ending at it, the text to embed and the keyword
    text (without the speakers' names in a group, judged by the turns up to the message alone, so that
    how messages are batched changes nothing).

    The anchor message comes first in a chunk's provenance, the older turns after it.
    """
    items, contexts, keyword_texts, _ = chunk_windows(store, messages, config)
    return items, _embed_texts(items, contexts), keyword_texts


def _embed_texts(items: Sequence[MemoryItem], contexts: Sequence[Sequence[str]]) -> list[str]:
    return ["\n".join([*extra, item.text]) for item, extra in zip(items, contexts, strict=True)]


def chunk_windows(
    store: Store, messages: Sequence[Message], config: Config
) -> tuple[list[MemoryItem], list[list[str]], list[str], list[list[str]]]:
    """One chunk per new message, the earlier turns (``speaker: text``) embedded with it, its keyword text,
    and the ids of the messages it was made of (context turns too: one erased before it is written keeps it
    out, its words in the vector)."""
    window = max(1, config.chunk.turns)
    context = max(0, config.chunk.context_turns)
    items: list[MemoryItem] = []
    contexts: list[list[str]] = []
    keyword_texts: list[str] = []
    read: list[list[str]] = []
    history: dict[tuple[str, str], list[Message]] = {}
    lookback: dict[tuple[str, str], list[Message]] = {}
    for message in messages:
        key = (message.agent, message.space)
        if key not in history:
            history[key] = store.recent_messages(message.agent, message.space, window + context - 1, message.seq)
            lookback[key] = store.recent_messages(message.agent, message.space, GROUP_LOOKBACK - 1, message.seq)
        seen = lookback[key]
        seen.append(message)
        del seen[: max(0, len(seen) - GROUP_LOOKBACK)]
        earlier = history[key]
        own = earlier[-(window - 1) :] if window > 1 else []
        context_end = len(earlier) - len(own)
        extra = earlier[max(0, context_end - context) : context_end]
        turns = [*own, message]
        text = "\n".join(f"{m.speaker}: {m.text}" for m in turns)
        items.append(  # of stored, checked messages: no validator to build (issue 15)
            MemoryItem.model_construct(
                id=chunk_id(message.agent, message.id),
                scope=message.scope,
                kind=MemoryKind.CHUNK,
                text=text,
                time=message.time,
                participants=sorted({m.speaker for m in turns}),
                sources=[m.id for m in reversed(turns)],
                data={"space": message.space, "seq": message.seq},
            )
        )
        # the names stay in the embedded text: meaning is matched with who said it (LoCoMo, the
        # companion month and the group plans lose without); they leave only the keyword text (issue #13)
        contexts.append([f"{m.speaker}: {m.text}" for m in extra])
        if is_group(seen):
            said = said_text(text, [m.speaker for m in turns])
            asked = earlier[-1] if earlier else None
            if asked is not None and answers(message, asked):
                said += "\n" + asked.text  # an answer is found by its question's words (issue #13)
            keyword_texts.append(said)
        else:
            asked = earlier[-1] if earlier else None
            if config.chunk.reply_keys and asked is not None and replies(message, asked):
                # a reply is found by the question's words too (issue #17)
                keyword_texts.append(text + "\n" + asked_part(asked.text))
            else:
                keyword_texts.append(text)
        read.append([message.id, *(m.id for m in earlier)])
        earlier.append(message)
        del earlier[: max(0, len(earlier) - (window - 1 + context))]
    return items, contexts, keyword_texts, read


def _with_own(
    embedder: Embedder, items: Sequence[MemoryItem], embed_texts: Sequence[str], own: bool, by_sentence: bool = False
) -> tuple[Vectors, Vectors | None]:
    """The chunks' vectors with their context, and (``own``) their turns embedded alone, in one call: the
    turn alone tells the right turn from the chunks after it that carry it as context (recall.anchor).
    ``by_sentence``: the turn alone is embedded with its speaker's name before each of its sentences
    (:func:`huiyi.flows.chatter.spoken_text`)."""
    if not own:
        return embedder.embed_passages(embed_texts), None
    alone = [spoken_text(item.text, item.participants) if by_sentence else item.text for item in items]
    texts = list(dict.fromkeys([*embed_texts, *alone]))  # a first turn's chunk may be its own text: embedded once
    found = embedder.embed_passages(texts)
    row = {text: i for i, text in enumerate(texts)}
    return found[[row[t] for t in embed_texts]], found[[row[t] for t in alone]]


def chunk_vectors(
    embedder: Embedder, items: Sequence[MemoryItem], contexts: Sequence[Sequence[str]]
) -> tuple[Vectors, Vectors]:
    """Each chunk's vector: its own text embedded once, its context turns added as their own vectors;
    and its own text's vector alone.

    A mean-pooled embedding of joined texts is close to the length-weighted sum of the parts', so the
    context costs no second embedding of the same turn: each turn is embedded alone (and the query
    cache keeps the last ones for the next batch), a third of the tokens of embedding three turns.
    """
    import numpy as np  # at first use: import huiyi stays free of numpy

    texts = list(dict.fromkeys([*(item.text for item in items), *(line for extra in contexts for line in extra)]))
    found = embedder.embed_passages(texts)
    row = {text: found[i] for i, text in enumerate(texts)}
    out = np.zeros((len(items), found.shape[1] if len(texts) else embedder.dim), dtype=np.float32)
    for i, (item, extra) in enumerate(zip(items, contexts, strict=True)):
        for text in [*extra, item.text]:
            out[i] += len(text) * row[text]
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    composed: Vectors = (out / norms).astype(np.float32, copy=False)
    own: Vectors = np.stack([row[item.text] for item in items]) if items else np.zeros((0, out.shape[1]), np.float32)
    return composed, own


def index_messages(
    store: Store,
    embedder: Embedder,
    messages: Sequence[Message],
    config: Config,
    progress: Progress | None = None,
    worker: str | None = None,
    stop: threading.Event | None = None,
) -> int:
    """Embed and index accepted messages as chunks, in batches; returns the number indexed.

    ``worker`` names the claim held on the messages: on a failure, what is left is given back at once
    so the next opener indexes it without waiting for the lease to run out. ``stop``, once set, ends it
    after the batch under way (an import interrupted with Ctrl-C), the rest given back the same way.
    """
    done = 0
    batch = max(1, config.embed.batch_size)
    stopping = PASSAGES_STOP.set(stop)
    try:
        for start in range(0, len(messages), batch):
            if stop is not None and stop.is_set():
                raise Interrupted(f"indexing stopped after {done} of {len(messages)} messages")
            part = messages[start : start + batch]
            own: Vectors | None = None
            items, contexts, keyword_texts, read = chunk_windows(store, part, config)
            if config.chunk.context == "vector":
                vectors, turns = chunk_vectors(embedder, items, contexts)
                own = turns if config.chunk.own_vector else None
            elif config.chunk.context == "turn":  # the context joins at query time (store.vectors)
                items = [item.model_copy(update={"data": {**item.data, "vector": TURN_VECTOR}}) for item in items]
                vectors = embedder.embed_passages([item.text for item in items])
            else:
                embed_texts = _embed_texts(items, contexts)
                vectors, own = _with_own(
                    embedder, items, embed_texts, config.chunk.own_vector, config.chunk.own_sentences
                )
            terms = [memory_terms(words, item.participants) for item, words in zip(items, keyword_texts, strict=True)]
            # a few chunks per transaction: an add waits for the store's write lock behind at most one
            # of them (32 held it ~4 ms of CPU, far longer on a busy machine; issue 15)
            for at in range(0, len(part), WRITE_SLICE):
                end = at + WRITE_SLICE
                # a chunk whose turns an erasure took since they were read is not written, its message left
                # unindexed: indexed again, it reads the turns now stored (forget_person returns before the
                # neighbours of what it took are indexed again, and another process may erase meanwhile)
                store.add_memories(
                    items[at:end],
                    vectors[at:end],
                    terms[at:end],
                    indexed_messages=[(m.agent, m.id) for m in part[at:end]],
                    own_vectors=None if own is None else own[at:end],
                    made_from=read[at:end],
                )
                done += len(part[at:end])
                if progress:
                    progress(len(part[at:end]))
    except BaseException as exc:
        if worker is not None:
            with contextlib.suppress(Exception):  # the original failure matters more
                store.release_messages(worker, [(m.agent, m.id) for m in messages[done:]])
        if isinstance(exc, PassagesStopped):  # told to stop inside a batch, between its pieces
            raise Interrupted(f"indexing stopped after {done} of {len(messages)} messages") from exc
        raise
    finally:
        PASSAGES_STOP.reset(stopping)
    return done


class Interrupted(Exception):
    """Indexing was told to stop; what it had not indexed (its claims given back) is left for the next opener,
    or for the next look for leftovers."""


def index_pending(
    store: Store,
    embedder: Embedder,
    config: Config,
    worker: str | None = None,
    stop: threading.Event | None = None,
    taken: Callable[[Sequence[Message]], None] | None = None,
) -> int:
    """Index messages that were accepted but never indexed (e.g. the process died in between).

    Only messages nobody holds are claimed, a batch at a time: a message another process is indexing
    right now is left to it. ``stop``: set, no further batch is claimed (a closing instance holds none).
    ``taken`` is told each batch before it is embedded (the process that died may not have planned its folds).
    """
    worker = worker or f"{indexer_name()}:pending"
    batch = max(1, config.embed.batch_size)
    total = 0
    # a process of this machine that died holding a claim will never index it: take it now, not after the lease
    store.release_claims(dead_here)
    while not (stop is not None and stop.is_set()) and (
        claimed := store.claim_unindexed(worker, datetime.now(UTC), INDEX_LEASE_SECONDS, batch)
    ):
        by_agent: dict[str, list[Message]] = {}  # a routed store writes one agent per call
        for message in claimed:
            by_agent.setdefault(message.agent, []).append(message)
        for part in by_agent.values():
            if taken is not None:
                taken(part)
            total += index_messages(store, embedder, part, config, worker=worker)
    if total:
        log.info("indexed %d messages left over from an earlier run", total)
    return total
