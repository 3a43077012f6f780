#!/usr/bin/env python3
"""``Memory.context`` without the query embedding on one kept bench-built store (issue 15): profile it, dump
its texts, time it. The store is built as ``huiyi bench run`` builds it (scopes of 1 000, 200 probes, seed 0)
plus the chats, events, person records and core blocks its context part adds (``bench.context``); the probes
and every query vector context's recall asks for are kept beside it.

    PYTHONPATH=src python scripts/context_stages.py build /tmp/store-100k 100k   # once
    PYTHONPATH=src python scripts/context_stages.py dump /tmp/store-100k out.txt  # 200 varied turns' texts
    PYTHONPATH=src python scripts/context_stages.py prof /tmp/store-100k 400      # cProfile, every thread
    PYTHONPATH=src python scripts/context_stages.py time /tmp/store-100k 400      # wall/CPU p50, p95
    BASE=/tmp/base PYTHONPATH=src python scripts/context_stages.py ab /tmp/store-100k 400 all  # base vs this code
    BASE=/tmp/base PYTHONPATH=src python scripts/context_stages.py ab /tmp/store-100k 400 ctx  # base's budget, overview
    BASE=/tmp/base PYTHONPATH=src python scripts/context_stages.py ab /tmp/store-100k 400 wm   # base's working memory
    BASE=/tmp/base PYTHONPATH=src python scripts/context_stages.py ab /tmp/store-100k 400 turn  # base's recall routes

``dump`` of two versions must give identical files when a change is meant to leave the context alone.
"""

from __future__ import annotations

import asyncio
import cProfile
import importlib.util
import json
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from huiyi.evaluation import synthetic
from huiyi.evaluation.bench.build import Pool, VectorCache, build_store
from huiyi.evaluation.bench.context import GROUP, GROUP_MEMBERS, seed_chats, with_core_blocks
from huiyi.evaluation.bench.recall import SwitchEmbedder
from huiyi.evaluation.bench.run import BenchOptions, default_cache_dir, make_bench_embedder
from huiyi.memory import Memory

AGENT = synthetic.AGENT


def turns(probes: list[list[str]]) -> list[dict[str, Any]]:
    """200 varied turns: chat and group, with and without a last reply, some with shown texts and a limit."""
    members = list(dict.fromkeys(p[0] for p in probes))[:GROUP_MEMBERS]
    out = []
    for i, (person, query, reply) in enumerate(probes):
        space = GROUP if person in members and i % 3 == 0 else None
        out.append(
            {
                "person": person,
                "space": space,
                "message": query,
                "last_reply": reply if i % 4 else "",
                "limit": 5 if i % 7 == 0 else None,
            }
        )
    return out


def _base(module: str) -> Any:
    """A module of huiyi as the base commit has it (BASE: its checkout), beside this code's."""
    path = Path(os.environ.get("BASE", "/tmp/wt-ctx-base")) / "src" / (module.replace(".", "/") + ".py")
    spec = importlib.util.spec_from_file_location(f"base_{module}", path)
    assert spec and spec.loader
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded
    spec.loader.exec_module(loaded)
    return loaded


async def _old_context(
    core: Any,
    agent: str,
    person: str | None,
    space: str | None,
    message: str,
    last_reply: str,
    limit: int | None,
    now: Any,
) -> Any:
    """Memory.context and its overview as the base ran them: each read a hop to a read thread."""
    from huiyi.flows.extract import fold
    from huiyi.flows.substance import RECAP_DEPTH, recap
    from huiyi.memory.common import Context, _chat_of
    from huiyi.memory.recall import _current
    from huiyi.model import MemoryKind
    from huiyi.recall.render import ContextParts, render
    from huiyi.store.base import MemoryFilter

    now = core.wall(now)
    space_id = _chat_of(agent, person, space).space_id
    recent = await core._read(fold.working_memory, core.store, agent, space_id, core.config)
    scope = _chat_of(agent, person, space)
    where = MemoryFilter(kinds=(MemoryKind.EVENT,), said_by=core.wall(now))
    size = core.config.overview.size
    latest = await core._read(core.store.find_memories, [scope], where, size * RECAP_DEPTH)
    cited = list(dict.fromkeys(source for item in latest for source in item.sources))
    said = await core._read(core.store.get_messages, agent, cited) if cited else []
    overview = recap(latest, agent, size, {m.id: m.role == "assistant" for m in said}, core._tz)
    query = "\n".join(part for part in (last_reply, message) if part.strip())
    recalled = await core.recall(
        query[-core.config.recall.max_query_chars :],
        agent=agent,
        person=person,
        space=space,
        limit=limit or core.config.context.recall_limit,
        now=now,
    )
    items = await core._read(core.store.get_memories, agent, [hit.id for hit in recalled.hits])
    known = await core._read(core.store.get_person, agent, person) if person else None
    history = set(recalled.info.get("superseded", ()))
    parts = ContextParts(
        agent=agent,
        person=person,
        now=now or core.now(),
        language=core.config.language,
        core_blocks=await core._read(core.core_memory.blocks, agent, person),
        overview=overview,
        facts=[
            i
            for i in items
            if i.kind is MemoryKind.FACT and (core.config.context.closed_facts or _current(i, now, history))
        ],
        events=[i for i in items if i.kind is not MemoryKind.FACT],
        working=recent,
        person_names=[known.name, *known.aliases] if known and known.name else [],
        shown_elsewhere=frozenset(),
        zone=core._tz,
    )
    return Context(rendered=render(parts, core.templates), recall=recalled, working=recent, overview=overview)


def ab(memory: Memory, sequence: list[dict[str, Any]], now: Any, which: str) -> None:
    """``which`` of the cuts undone in the A calls: hop, names, mentioned, recap, or all; ctx: the base's context
    budget and overview (its checkout's ``render_within`` and ``_overview``); wm: the base's working memory
    (its ``fold.working_memory``); turn: the base's pipeline, views' keyword route, keyword scores and
    ``context_blocking``; B is this code. The A and B calls' texts must be the same."""
    if which == "turn":
        return _ab_turn(memory, sequence, now)
    from types import MethodType

    from huiyi.flows import substance
    from huiyi.flows.extract import fold
    from huiyi.memory import recall as memory_recall
    from huiyi.recall import graph, routes
    from huiyi.text.tokens import content_words

    new_within = memory_recall.render_within
    new_working = fold.working_memory
    base_working = _base("huiyi.flows.extract.fold").working_memory if which == "wm" else new_working
    if which == "ctx":
        base_within = _base("huiyi.recall.budget").render_within
        base_overview = MethodType(_base("huiyi.memory.ingest").Ingest._overview, memory.core)

    base_names, base_mentioned = _base("huiyi.recall.routes").named_people, _base("huiyi.recall.graph").mentioned
    new_names, new_words, new_mentioned = routes.named_people, substance.Days.words_of, graph.mentioned

    def old_words(self: Any, text: str) -> list[str]:
        return [word.casefold() for word in content_words(text, self.names)]

    def call(old: bool, turn: dict[str, Any]) -> str:
        if which == "ctx":
            memory_recall.render_within = base_within if old else new_within  # type: ignore[attr-defined]
            if old:
                memory.core._overview = base_overview  # type: ignore[method-assign]
            else:
                memory.core.__dict__.pop("_overview", None)
        fold.working_memory = base_working if old else new_working
        routes.named_people = base_names if old and which in ("names", "all") else new_names
        graph.mentioned = base_mentioned if old and which in ("mentioned", "all") else new_mentioned
        substance.Days.words_of = old_words if old and which in ("recap", "all") else new_words  # type: ignore[method-assign]
        if old and which in ("hop", "all"):
            with memory._calls.call():
                coroutine = _old_context(
                    memory.core,
                    AGENT,
                    turn["person"],
                    turn["space"],
                    turn["message"],
                    turn["last_reply"],
                    turn["limit"],
                    now,
                )
                return memory._loop.run(coroutine).text
        return memory.context(agent=AGENT, now=now, **turn).text

    _interleaved(sequence, call, which)  # the same prompt, byte for byte
    routes.named_people, graph.mentioned = new_names, new_mentioned
    substance.Days.words_of = new_words  # type: ignore[method-assign]
    memory_recall.render_within = new_within  # type: ignore[attr-defined]
    fold.working_memory = new_working
    memory.core.__dict__.pop("_overview", None)


def _interleaved(sequence: list[dict[str, Any]], call: Callable[[bool, dict[str, Any]], Any], undone: str) -> None:
    """Each turn by the base (``call(True, …)``) and by this code, in turns, the answers asserted equal; the
    medians and p95 of each printed."""
    wall: dict[bool, list[float]] = {True: [], False: []}
    cpu: dict[bool, list[float]] = {True: [], False: []}
    for n, turn in enumerate(sequence):
        answers = []
        for old in (True, False) if n % 2 else (False, True):  # the first of a pair may meet colder caches
            started, used = time.perf_counter(), time.process_time()
            answers.append(call(old, turn))
            wall[old].append((time.perf_counter() - started) * 1e3)
            cpu[old].append((time.process_time() - used) * 1e3)
        assert answers[0] == answers[1], turn
    for old, name in ((True, f"before ({undone} undone)"), (False, "after")):
        w, c = sorted(wall[old]), sorted(cpu[old])
        p95 = int(len(w) * 0.95)
        print(
            f"{name}: wall p50 {statistics.median(w):.3f} p95 {w[p95]:.3f} "
            f"process CPU p50 {statistics.median(c):.3f} p95 {c[p95]:.3f} (n {len(w)})"
        )


def _ab_turn(memory: Memory, sequence: list[dict[str, Any]], now: Any) -> None:
    """A: the base's recall pipeline, dialogue keyword route, SQLite keyword scores and context; B: this
    code's; alternating per turn, the rendered text and the hits (ids and scores) asserted identical."""
    from types import MethodType

    from huiyi.memory import recall as memory_recall
    from huiyi.recall import views
    from huiyi.store.sqlite import search

    base_pipeline, base_views = _base("huiyi.recall.pipeline"), _base("huiyi.recall.views")
    base_scores = _base("huiyi.store.sqlite.keyword").keyword_scores
    base_context = MethodType(_base("huiyi.memory.recall").Recall.context_blocking, memory.core)
    new_pipeline, new_keyword, new_scores = memory_recall.pipeline, views.keyword, search.keyword_scores

    def old_scores(conn: Any, parts: Any, totals: Any, query: Any, limit: int, postings: Any = None) -> Any:
        return base_scores(conn, parts, totals, query, limit)

    def call(old: bool, turn: dict[str, Any]) -> tuple[str, list[tuple[str, float]]]:
        memory_recall.pipeline = base_pipeline if old else new_pipeline  # type: ignore[attr-defined]
        views.keyword = base_views.keyword if old else new_keyword  # type: ignore[attr-defined]
        search.keyword_scores = old_scores if old else new_scores  # type: ignore[attr-defined]
        if old:
            memory.core.context_blocking = base_context  # type: ignore[method-assign]
        else:
            memory.core.__dict__.pop("context_blocking", None)
        got = memory.context(agent=AGENT, now=now, **turn)
        return got.text, [(hit.id, hit.score) for hit in got.recall.hits] if got.recall else []

    _interleaved(sequence, call, "turn")  # the same prompt and hits, byte for byte
    call(False, sequence[0])


def main() -> None:
    command, directory = sys.argv[1], Path(sys.argv[2])
    options = BenchOptions()
    embedder, config, _ = make_bench_embedder(options)
    config = with_core_blocks(config, directory / "blocks")
    cache = VectorCache(embedder, default_cache_dir())
    switch = SwitchEmbedder(embedder)
    if command == "build":
        size = int(float(sys.argv[3].replace("k", "e3").replace("M", "e6")))
        pool = Pool.build(cache, options.pool_per_template, 0)
        memory = Memory(directory, config=config, embedder=switch)
        stats = build_store(
            memory.store,
            size=size,
            scope_size=1000,
            pool=pool,
            cache=cache,
            n_probes=200,
            seed=0,
            own=config.chunk.own_vector,
        )
        seed_chats(memory, stats.probes, pool, AGENT, 0)
        replies = [synthetic.assistant_line("zh", __import__("random").Random(i)) for i in range(len(stats.probes))]
        probes = [[p.person.id, p.query, r] for p, r in zip(stats.probes, replies, strict=True)]
        (directory / "probes.json").write_text(json.dumps(probes, ensure_ascii=False))
        switch.remember = True
        for turn in turns(probes):  # every view context's recall embeds, kept to be looked up
            memory.context(agent=AGENT, **turn)
        texts = list(switch.queries)
        np.savez(
            directory / "qvec.npz",
            keys=np.asarray(texts, dtype=str),
            vectors=np.stack([switch.queries[t] for t in texts]),
        )
        cache.save()
        memory.close()
        print(f"built in {stats.seconds:.1f} s; {len(texts)} query vectors")
        return
    probes = json.loads((directory / "probes.json").read_text())
    with np.load(directory / "qvec.npz") as data:
        switch.queries = {str(k): v for k, v in zip(data["keys"], data["vectors"], strict=True)}
    switch.precomputed = True
    memory = Memory(directory, config=config, embedder=switch)
    asked = turns(probes)
    now = synthetic.REFERENCE_TIME + timedelta(hours=1)

    def ask(turn: dict[str, Any]) -> Any:
        return memory.context(agent=AGENT, now=now, **turn)

    for turn in asked:  # warm: every probed scope's vectors loaded
        ask(turn)
    n = int(sys.argv[3]) if len(sys.argv) > 3 and command != "dump" else 400
    sequence = [asked[i % len(asked)] for i in range(n)]
    if command == "dump":
        Path(sys.argv[3]).write_text("\n\f\n".join(ask(turn).text for turn in asked))
    elif command == "time":
        wall, cpu = [], []
        for turn in sequence:
            started, used = time.perf_counter(), time.process_time()
            ask(turn)
            wall.append((time.perf_counter() - started) * 1e3)
            cpu.append((time.process_time() - used) * 1e3)
        wall.sort()
        cpu.sort()
        p95 = int(len(wall) * 0.95)
        print(
            f"wall p50 {statistics.median(wall):.3f} p95 {wall[p95]:.3f} "
            f"cpu p50 {statistics.median(cpu):.3f} p95 {cpu[p95]:.3f}"
        )
    elif command == "prof":  # the reads inline on this thread, so one profile holds the whole call
        core = memory.core

        async def inline(function: Any, *args: Any, **kwargs: Any) -> Any:
            return function(*args, **kwargs)

        core._read = inline  # type: ignore[method-assign]
        loop = asyncio.new_event_loop()
        profile = cProfile.Profile()
        cpu = []
        for turn in sequence:
            used = time.thread_time()
            profile.enable()
            loop.run_until_complete(core.context(agent=AGENT, now=now, **turn))
            profile.disable()
            cpu.append((time.thread_time() - used) * 1e3)
        print(f"thread CPU p50 {statistics.median(cpu):.3f} ms (profiled)")
        pstats.Stats(profile).sort_stats(sys.argv[4] if len(sys.argv) > 4 else "tottime").print_stats(45)
    elif command == "ab":  # the code before, as the base ran it, and this code, alternating per call
        ab(memory, sequence, now, sys.argv[4] if len(sys.argv) > 4 else "all")
    memory.close()


if __name__ == "__main__":
    main()
