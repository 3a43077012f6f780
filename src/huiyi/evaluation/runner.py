"""Run a probe set through the public API and score it.

Every case gets a fresh store in a temporary directory: its messages are ingested in order with
``Memory.add`` (a space with one human speaker is that person's private chat, any other a group
chat) and each space is flushed, so whatever the engine extracts from the chat is there before the
first question (as it would be for a bot idle since the last message); its memories are stored
with ``Memory.remember`` (the memory's id as its provenance). Then each probe is recalled at its
own time and scored by the provenance ids of what came back. One embedder serves all cases; an
optional on-disk cache of its vectors makes re-runs cheap (the vectors are the same either way).

How a probe with chat context becomes the recall query is the engine's choice, named by
``query_form``: ``all`` (the default: every line so far, oldest first, one per line), ``turn`` (the
user's latest line plus the assistant's line before it, seed 000's recall input) or ``query`` (the
latest line alone). On MADial-zh dev (n=80) ``all`` found more than ``turn``: R@5 0.472 against
0.351 (the last five lines 0.479, the user's lines only 0.475, the latest line alone 0.307).
``dialogue`` calls recall as a companion app would: the latest line as the query and the lines before
it as ``dialogue``, so the engine searches its own views of them (``huiyi eval madial``'s default since
issue #17: the recent lines and the whole dialogue, R@5 0.483 on MADial-zh dev, the plain fusion 0.441).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from huiyi.config import Config
from huiyi.evaluation.probes import Case, Probe, ProbeResult, ProbeSet, Report
from huiyi.memory import Memory
from huiyi.model import MemoryKind
from huiyi.providers.embed import Embedder, Vectors, make_embedder

QueryForm = Literal["turn", "all", "query", "dialogue"]
QUERY_FORMS: tuple[QueryForm, ...] = ("turn", "all", "query", "dialogue")
ITEMS_PER_ID = 3  # recall this many items per ranked id wanted, since an item may repeat ids already seen


class DiskCachedEmbedder:
    """An embedder whose vectors are kept in a SQLite file, keyed by model name, kind and text."""

    def __init__(self, inner: Embedder, path: str | Path) -> None:
        self.inner = inner
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def _cached(self, texts: Sequence[str], kind: str, compute: Callable[[Sequence[str]], Vectors]) -> Vectors:
        keys = [hashlib.blake2b(f"{self.name}\x1f{kind}\x1f{t}".encode(), digest_size=16).digest() for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        missing: list[int] = []
        with self._lock:
            for i, key in enumerate(keys):
                row = self._db.execute("SELECT vector FROM vectors WHERE key = ?", (key,)).fetchone()
                if row is None:
                    missing.append(i)
                else:
                    out[i] = np.frombuffer(row[0], dtype=np.float32)
        if missing:
            fresh = compute([texts[i] for i in missing])
            with self._lock:
                self._db.execute("BEGIN")
                for i, vector in zip(missing, fresh, strict=True):
                    out[i] = vector
                    self._db.execute(
                        "INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)",
                        (keys[i], np.asarray(vector, dtype=np.float32).tobytes()),
                    )
                self._db.execute("COMMIT")
        return out

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self._cached(texts, "q", self.inner.embed_queries)

    def cached_queries(self, texts: Sequence[str]) -> Vectors | None:
        """The query vectors of ``texts`` if the file holds every one (recall's one-thread path), else None."""
        keys = [hashlib.blake2b(f"{self.name}\x1fq\x1f{t}".encode(), digest_size=16).digest() for t in texts]
        with self._lock:
            rows = [self._db.execute("SELECT vector FROM vectors WHERE key = ?", (key,)).fetchone() for key in keys]
        if not rows or any(row is None for row in rows):
            return None
        return np.stack([np.frombuffer(row[0], dtype=np.float32) for row in rows])

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return self._cached(texts, "p", self.inner.embed_passages)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def compose_query(probe: Probe, form: QueryForm = "all", max_chars: int = 2000) -> str:
    """The recall query a chat would send for this probe (see the module's docstring)."""
    context = probe.context_lines()
    if form == "query" or not context:
        lines = [probe.query]
    elif form == "turn":
        previous = context[-1]
        lines = [previous.text, probe.query] if previous.role == "assistant" else [probe.query]
    else:
        lines = [line.text for line in context] + [probe.query]
    text = "\n".join(line.strip() for line in lines if line.strip())
    return text[-max_chars:]


def _memory_kind(name: str) -> MemoryKind:
    try:
        return MemoryKind(name)
    except ValueError:
        return MemoryKind.NOTE


def _private_persons(case: Case) -> dict[str, str]:
    """space → person, for spaces where one person talks with the agent (a private chat)."""
    speakers: dict[str, set[str]] = {}
    for message in case.messages:
        people = speakers.setdefault(message.space, set())
        if message.role == "user":
            people.add(message.speaker)
    return {space: next(iter(people)) for space, people in speakers.items() if len(people) == 1}


def case_size(case: Case) -> int:
    return len(case.messages) + len(case.memories)


Batching = Literal["session", "turn", "bulk"]
BATCHINGS: tuple[Batching, ...] = ("session", "turn", "bulk")


def _batch_end(case: Case, start: int, batching: Batching, limit: int, gap: timedelta) -> int:
    """Where the ``add`` call that starts at message ``start`` ends, ingesting as an app would.

    session: a chat session per call (one space, no silence of ``gap`` or more inside); turn: one
    message per call; bulk: everything of one space at once (as a one-off import would).
    """
    if batching == "turn":
        return start + 1
    messages, end = case.messages, start + 1
    while end < len(messages) and messages[end].space == messages[start].space and end - start < limit:
        if batching == "session" and messages[end].time - messages[end - 1].time >= gap:
            break
        end += 1
    return end


def ingest_case(
    memory: Memory, case: Case, advance: Callable[[int], None] | None = None, batching: Batching = "session"
) -> None:
    private = _private_persons(case)
    batch_limit = memory.config.ingest.max_batch
    gap = timedelta(minutes=memory.config.window.scene_gap_minutes)
    start = 0
    while start < len(case.messages):
        space = case.messages[start].space
        end = _batch_end(case, start, batching, batch_limit, gap)
        batch = [
            {"id": m.id, "text": m.text, "role": m.role, "speaker": m.speaker, "time": m.time}
            for m in case.messages[start:end]
        ]
        if space in private:
            memory.add(batch, agent=case.agent, person=private[space], progress=advance, index=True)
        else:
            memory.add(batch, agent=case.agent, space=space, progress=advance, index=True)
        start = end
    flush = getattr(memory, "flush", None)  # fold what working memory still holds, as an idle bot would
    if flush is not None:
        for space in dict.fromkeys(m.space for m in case.messages):
            if space in private:
                flush(agent=case.agent, person=private[space], wait=True)
            else:
                flush(agent=case.agent, space=space, wait=True)
    for item in case.memories:
        memory.remember(
            item.text,
            agent=case.agent,
            person=item.person,
            space=item.space,
            kind=_memory_kind(item.kind),
            time=item.time,
            sources=[item.id],
            data=item.data or None,
        )
        if advance:
            advance(1)


def probe_space(case: Case, probe: Probe) -> str | None:
    """The space a probe is asked in: its own, else the case's only group chat (if exactly one)."""
    if probe.space:
        return probe.space
    private = _private_persons(case)
    groups = list(dict.fromkeys(m.space for m in case.messages if m.space not in private))
    return groups[0] if len(groups) == 1 else None


def ask_case(memory: Memory, case: Case, form: QueryForm, depth: int) -> list[ProbeResult]:
    results: list[ProbeResult] = []
    for probe in case.probes:
        # dialogue: the latest line is the query and the lines before it go along, as a companion app
        # would call recall (the engine builds its own views of them)
        query = compose_query(probe, "query" if form == "dialogue" else form, memory.config.recall.max_query_chars)
        dialogue = [line.text for line in probe.context_lines()] if form == "dialogue" else None
        private = _private_persons(case)
        space = probe_space(case, probe)
        started = time.perf_counter()
        found = memory.recall(
            query,
            agent=case.agent,
            person=probe.person,
            space=space if space not in private else None,
            limit=depth * ITEMS_PER_ID,
            now=probe.time,
            dialogue=dialogue,
        )
        ms = (time.perf_counter() - started) * 1000
        ranked: list[str] = []
        for hit in found.hits:
            ranked.extend(s for s in hit.sources if s not in ranked)
        results.append(ProbeResult(case.id, probe.id, probe.group, list(probe.gold), ranked, ms))
    return results


def run(
    probes: ProbeSet,
    config: Config | None = None,
    *,
    embedder: Embedder | None = None,
    query_form: QueryForm = "all",
    depth: int = 10,
    console: Console | None = None,
    workdir: str | Path | None = None,
    batching: Batching = "session",
) -> list[ProbeResult]:
    """Every case in a fresh store; returns one result per probe (``depth`` ranked ids at least)."""
    config = config or Config()
    embedder = embedder or make_embedder(config.embed)
    results: list[ProbeResult] = []
    total = sum(case_size(case) for case in probes.cases)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console or Console(stderr=True),
        transient=True,
        disable=console is None,
    ) as bar:
        task = bar.add_task(f"{probes.name}: ingesting", total=total)
        for case in probes.cases:
            bar.update(task, description=f"{probes.name} {case.id}")
            with (
                tempfile.TemporaryDirectory(prefix="huiyi-eval-", dir=workdir) as directory,
                Memory(directory, config=config, embedder=embedder) as memory,
            ):
                ingest_case(memory, case, lambda n: bar.advance(task, n), batching)
                results.extend(ask_case(memory, case, query_form, depth))
    return results


def public_config(config: Config) -> dict[str, Any]:
    """The config as JSON, secrets blanked."""
    data = config.model_dump(mode="json")
    for section in ("embed", "llm"):
        if data.get(section, {}).get("api_key"):
            data[section]["api_key"] = "***"
    return data


def question_rows(results: Sequence[ProbeResult]) -> list[dict[str, Any]]:
    """One row per probe for diagnosis: its gold ids, the ids recalled in rank order, and where (0-based)
    each gold id ranked (None: not recalled).

    >>> question_rows([ProbeResult("c", "c:q1", "1", ["D1:2", "D3:4"], ["D1:1", "D1:2"], 1.5)])[0]["gold_ranks"]
    {'D1:2': 1, 'D3:4': None}
    """
    rows: list[dict[str, Any]] = []
    for r in results:
        place = {source: i for i, source in enumerate(r.ranked)}
        gold_ranks = {gold: place.get(gold) for gold in r.gold}
        rows.append(
            {"case": r.case, "probe": r.probe, "group": r.group, "gold": r.gold, "gold_ranks": gold_ranks}
            | {"ranked": r.ranked, "ms": round(r.ms, 2)}
        )
    return rows


def write_questions(results: Sequence[ProbeResult], path: str | Path) -> None:
    """:func:`question_rows` as JSON lines."""
    lines = (json.dumps(row, ensure_ascii=False) + "\n" for row in question_rows(results))
    Path(path).write_text("".join(lines), encoding="utf-8")


def latency(results: Sequence[ProbeResult]) -> dict[str, float]:
    times = sorted(r.ms for r in results)
    if not times:
        return {}
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    return {"median": round(statistics.median(times), 2), "p95": round(p95, 2)}


def summary(
    dataset: str,
    file: str,
    result: Report,
    seconds: float,
    config: Config,
    *,
    groups_key: str | None = "per_group",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The README's JSON object: dataset, file, n, metrics, per group (if any), seconds, config."""
    out: dict[str, Any] = {"dataset": dataset, "file": file, "n": result.overall.n, "metrics": result.overall.metrics}
    if groups_key:
        out[groups_key] = {name: {"n": s.n, **s.metrics} for name, s in result.groups.items()}
    out["seconds"] = round(seconds, 2)
    out.update(extra or {})
    out["config"] = public_config(config)
    return out
