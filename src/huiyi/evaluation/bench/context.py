"""``Memory.context`` on a bench store: the call a bot makes on every turn (issue 15: a turn never waits on
memory), beside recall measured in the same loop.

The bench's store holds memories only; a turn's context also reads the chat's log (working memory), its
latest events (the overview, 前情提要, and the messages they cite), the core blocks and the person. So each
probed person gets a private chat (``EVENTS`` days folded into one event each, then today's
``CHAT_MESSAGES`` messages in working memory), a person record and a ``human`` block; one group of
``GROUP_MEMBERS`` of them gets a chat and events of its own; and the store's config a core-block folder (a
shared persona block and the ``human`` template). All of it is written through the store, without
embedding: events get a pool line's vector, as the builder's memories do.

Each timed turn asks, in turn, ``Memory.recall`` of the probe's question (limit 10, as recall's figure)
and ``Memory.context`` with the probe's question as the message and an agent line as the last reply, both
with the query vectors looked up (as recall's no-embedding figure is taken): wall time and the process's
CPU time, for a person's chat and for the group.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from itertools import cycle, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from huiyi.config import Config
from huiyi.evaluation import synthetic
from huiyi.evaluation.bench import stats as bench_stats
from huiyi.evaluation.bench.build import Pool, Probe, _item
from huiyi.flows.ingest import terms_of
from huiyi.memory import Memory
from huiyi.model import MemoryKind, Message, Person, Role, Scope
from huiyi.store.base import Writes

if TYPE_CHECKING:
    from huiyi.evaluation.bench.recall import SwitchEmbedder

CHAT_MESSAGES = 24  # 12 rounds in working memory, as a chat of the day leaves it (seed 000: 10–30 rounds)
EVENTS = 30  # folded days before, one event each: the overview chooses among RECAP_DEPTH × overview.size
GROUP = "bench-group"
LANGUAGES = {"zh": "说中文", "en": "说英文"}
GROUP_MEMBERS = 8
PERSONA = "---\nlabel: persona\norder: 1\n---\n{agent}是一位温柔的画家，住在海边的小城，喜欢听人讲日常的小事。\n"
HUMAN = "---\nlabel: human\norder: 2\n---\n还不了解这个人。\n"


def with_core_blocks(config: Config, folder: Path, agent: str = synthetic.AGENT) -> Config:
    """``config`` with a core-block folder of a persona block and the ``human`` template, written now."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "persona.md").write_text(PERSONA.format(agent=agent), encoding="utf-8")
    (folder / "human.md").write_text(HUMAN, encoding="utf-8")
    return config.model_copy(update={"context": config.context.model_copy(update={"core_blocks": str(folder)})})


def _chat(
    scope: Scope,
    speakers: Sequence[synthetic.SynthPerson],
    agent: str,
    rng: random.Random,
    times: Sequence[datetime],
    first: int = 0,
) -> list[Message]:
    """Rounds of a chat at ``times``: a member's line, then the agent's answer."""
    out: list[Message] = []
    for n, when in enumerate(times, start=first):
        who = speakers[(n // 2) % len(speakers)]
        role: Role = "user" if n % 2 == 0 else "assistant"
        text = synthetic.user_line(who.language, rng)[1] if role == "user" else synthetic.assistant_line("zh", rng)
        speaker = who.name if role == "user" else agent
        out.append(
            Message(
                id=f"ctx_{scope.space_id}_{n:03d}",
                agent=agent,
                space=scope.space_id,
                scope=scope,
                speaker=speaker,
                role=role,
                text=text,
                time=when,
            )
        )
    return out


def _seed_chat(
    memory: Memory, scope: Scope, speakers: Sequence[synthetic.SynthPerson], pool: Pool, agent: str, seed: int
) -> None:
    """One chat's log: a round a day for ``EVENTS`` days, folded into one event each (citing its two
    messages), then today's ``CHAT_MESSAGES`` still in working memory."""
    rng = random.Random(f"huiyi-bench:{seed}:context:{scope.tag}")
    end = synthetic.REFERENCE_TIME
    days = [
        end - timedelta(days=EVENTS - n // 2, hours=-rng.randrange(8, 20), minutes=-3 * (n % 2))
        for n in range(2 * EVENTS)
    ]
    today = [end - timedelta(hours=6) + timedelta(minutes=7 * n) for n in range(CHAT_MESSAGES)]
    folded = memory.store.append_messages(_chat(scope, speakers, agent, rng, days))
    kept = memory.store.append_messages(_chat(scope, speakers, agent, rng, today, first=len(days)))
    rows = [rng.randrange(len(pool.lines)) for _ in range(EVENTS)]
    items = []
    for n, row in enumerate(rows):
        who = speakers[n % len(speakers)]
        cited = folded[2 * n : 2 * n + 2]
        item = _item(
            f"ctx_{scope.space_id}_event_{n:03d}",
            scope,
            MemoryKind.EVENT,
            f"{who.name}说起{pool.lines[row].text}",
            cited[0].time if cited else days[2 * n],
            participants=[who.name],
            sources=[m.id for m in cited],
            data={"space": scope.space_id, "synthetic": True},
        )
        items.append(item.model_copy(update={"importance": round(rng.uniform(0.2, 0.9), 2)}))
    fold_points = [(agent, scope.space_id, kept[0].seq)] if kept else []
    writes = Writes(
        memories=items,
        vectors=pool.vectors[rows],
        terms=[terms_of(item.text) for item in items],
        fold_points=fold_points,
    )
    memory.store.apply(writes)


def seed_chats(memory: Memory, probes: Sequence[Probe], pool: Pool, agent: str = synthetic.AGENT, seed: int = 0) -> int:
    """Give every probed person a chat, events, a person record and a ``human`` block, and the first
    ``GROUP_MEMBERS`` of them a group; the number of chats made."""
    persons = list({probe.person.id: probe.person for probe in probes}.values())
    # the open's look for messages left unindexed must be over: one that ran between the writes below took the
    # chat's log over and planned its folds, and the chat's working memory held 26 or 82 messages, not 24
    memory.indexed()
    for who in persons:
        memory.store.upsert_person(agent, Person(id=who.id, name=who.name))
        memory.store.set_person_block(
            agent, who.id, "human", f"{who.name}，{LANGUAGES[who.language]}，聊过很多日常。", None
        )
        _seed_chat(memory, Scope.of_person(agent, who.id), [who], pool, agent, seed)
    if persons:
        _seed_chat(memory, Scope.of_space(agent, GROUP), persons[:GROUP_MEMBERS], pool, agent, seed)
    return len(persons) + (1 if persons else 0)


def context_latencies(
    memory: Memory,
    switch: SwitchEmbedder,
    probes: Sequence[Probe],
    n_queries: int,
    agent: str = synthetic.AGENT,
) -> dict[str, Any]:
    """p50/p95 of ``Memory.context`` and of ``Memory.recall`` in the same loop, without the embedding,
    in a person's chat and in the group (its members' probes)."""
    if not probes:
        return {}
    members = set(list(dict.fromkeys(p.person.id for p in probes))[:GROUP_MEMBERS])  # as seed_chats chose them
    group_probes = [p for p in probes if p.person.id in members]
    rng = random.Random("huiyi-bench:context:replies")
    replies = {p.query: synthetic.assistant_line("zh", rng) for p in probes}

    def turn(probe: Probe, space: str | None) -> Any:
        return memory.context(
            agent=agent, person=probe.person.id, space=space, message=probe.query, last_reply=replies[probe.query]
        )

    switch.remember = True  # the views context asks for (its dialogue, the exchange) looked up from now on
    switch.precomputed = False
    for probe in probes:
        turn(probe, None)
        if probe.person.id in members:
            turn(probe, GROUP)
    switch.remember = False
    switch.precomputed = True
    out: dict[str, Any] = {}
    for name, space, chosen in (("chat", None, probes), ("group", GROUP, group_probes)):
        walls: dict[str, list[float]] = {"context": [], "recall": []}
        cpus: dict[str, list[float]] = {"context": [], "recall": []}
        for probe in islice(cycle(chosen), max(n_queries, len(chosen))):
            for part in ("recall", "context"):
                started, used = time.perf_counter(), time.process_time()
                if part == "recall":
                    memory.recall(probe.query, agent=agent, person=probe.person.id, space=space, limit=10)
                else:
                    turn(probe, space)
                walls[part].append((time.perf_counter() - started) * 1e3)
                cpus[part].append((time.process_time() - used) * 1e3)
        out[name] = {
            "context": bench_stats.summary(walls["context"]),
            "context_cpu": bench_stats.summary(cpus["context"]),
            "recall": bench_stats.summary(walls["recall"]),
            "recall_cpu": bench_stats.summary(cpus["recall"]),
        }
    switch.precomputed = False
    return out
