#!/usr/bin/env python3
"""Fit the recall recipe's fusion and bonus weights by grouped cross-validation (issue #17).

    PYTHONPATH=src python scripts/fit_fusion.py ../shared/eval --cache /tmp/fit.json \
        --embed-cache /tmp/emb.sqlite [--random 24] [--report out.json]

Reads LoCoMo dev, MADial zh dev (from the eval folder given, never copied into the repo) and the two probe
files of tests/data; ingests each once (as ``huiyi eval`` does: sessions for LoCoMo, the dialogue form
for MADial, every line for the probes), then recalls every query under each candidate recipe through the
real pipeline. Candidates, all fixed before any is scored (so none is chosen by a held-out figure):
the current recipe; one weight at a time moved over a grid; ``--random`` recipes drawn from the grid.
Then, per fold, on the other folds alone: each weight set to its best grid value (a coordinate step),
each weight moved halfway to its grid neighbours from there, and a second coordinate step over those;
only that fold may choose these. Each query's metrics per candidate are kept in ``--cache``
(JSON), so a rerun recalls only what is new.

The folds: LoCoMo's five conversations one each, MADial's dialogues dealt out in turn, and each probe file
whole in a fold of its own (group day in 3, companion in 4). The objective is the mean of R@1, R@5 and
R@10, over each source's queries (LoCoMo's category 5 left out, as its eval reports it), then over the
sources. Printed: per source and group, the current recipe against the cross-validated one (each fold's
queries scored by the recipe chosen on the others), and the recipe best on all folds (what ships).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from huiyi.config import Config
from huiyi.config.recall import RecallRecipe
from huiyi.evaluation import fusion_fit as ff
from huiyi.evaluation.runner import DiskCachedEmbedder
from huiyi.providers.embed import make_embedder
from huiyi.store.base import TurnContext

FOLDS = 5
# the weights fitted, each over a grid that holds its current value
GRID: dict[str, list[Any]] = {
    "keyword_weight": [0.15, 0.3, 0.45, 0.6],  # dense_weight stays 0.7: only the ratio counts
    "dense_min_span": [0.02, 0.05, 0.1],
    "speaker_weight": [0.0, 0.1, 0.2, 0.35],
    "time_weight": [0.0, 0.15, 0.3, 0.5],
    "neighbour_weight": [0.0, 0.25, 0.5, 0.75],
    "chatter_weight": [0.1, 0.4, 1.0],
    "entity_weight": [0.0, 0.1, 0.2, 0.4],
    "graph_weight": [0.0, 0.25, 0.5, 0.75],
}
# with --chunk-context turn: the turn-alone chunks' context weights (turns 1, 2 back), fitted beside the rest
TURN_GRID: list[list[float]] = [[1.0, 0.5], [0.5, 0.25], [1.0, 1.0], [2.0, 1.0], [1.0], [0.0]]
REPO = Path(__file__).resolve().parent.parent


def log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def grid(turn: bool) -> dict[str, list[Any]]:
    return {**GRID, "context_weights": TURN_GRID} if turn else GRID


def current(name: str) -> Any:
    return Config().chunk.context_weights if name == "context_weights" else getattr(RecallRecipe(), name)


def design(extra: int, seed: int, turn: bool) -> list[dict[str, Any]]:
    """The current recipe, one-at-a-time moves, then ``extra`` random draws from the grid."""
    out: list[dict[str, Any]] = [{}]
    for name, values in grid(turn).items():
        out += [{name: value} for value in values if value != current(name)]
    rng = random.Random(seed)
    for _ in range(extra):
        out.append({name: rng.choice(values) for name, values in grid(turn).items()})
    return out


def plain(changed: dict[str, Any]) -> dict[str, Any]:
    """The fields that differ from the current recipe (so one recipe has one key)."""
    return {name: value for name, value in changed.items() if value != current(name)}


def coordinate(
    table: dict[str, np.ndarray[Any, Any]],
    fields: dict[str, dict[str, Any]],
    allowed: list[str],
    start: dict[str, Any],
    bench: Any,
    keep: np.ndarray[Any, Any],
    apart: dict[str, set[str]],
) -> dict[str, Any]:
    """A coordinate step from ``start``: each weight at its best value on the kept queries among the allowed
    candidates that differ from ``start`` in that weight alone."""
    chosen = dict(start)
    here = ff.objective(table[ff.recipe_key(start)], bench.queries, keep, apart)
    for name in grid(bench.config.chunk.context == "turn"):
        rest = {k: v for k, v in start.items() if k != name}
        best, best_value = here, start.get(name, current(name))
        for key in allowed:
            other = plain(fields[key])
            if {k: v for k, v in other.items() if k != name} == rest and name in other:
                value = ff.objective(table[key], bench.queries, keep, apart)
                if value > best + 1e-9:
                    best, best_value = value, other[name]
        chosen[name] = best_value
    return plain(chosen)


def refine(start: dict[str, Any], turn: bool) -> list[dict[str, Any]]:
    """Each weight moved halfway to its grid neighbours, from ``start`` (a finer second round)."""
    out: list[dict[str, Any]] = []
    for name, values in grid(turn).items():
        if name == "context_weights":
            continue
        value = start.get(name, current(name))
        ordered = sorted({*values, value})
        i = ordered.index(value)
        for j in (i - 1, i + 1):
            if 0 <= j < len(ordered):
                out.append(plain({**start, name: round((value + ordered[j]) / 2, 4)}))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("eval_dir", type=Path, help="the shared eval folder (locomo/, madial/)")
    parser.add_argument("--cache", type=Path, required=True, help="JSON file of per-query metrics per recipe")
    parser.add_argument("--embed-cache", type=Path, help="SQLite file of embedding vectors")
    parser.add_argument("--random", type=int, default=16, help="random recipes drawn from the grid")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--report", type=Path, help="write the figures as JSON here")
    parser.add_argument("--features", type=Path, help="also write every candidate's features (JSON lines) here")
    parser.add_argument(
        "--chunk-context",
        choices=["text", "vector", "turn"],
        default="text",
        help="how chunks embed their context turns (turn: their weights are fitted too)",
    )
    parser.add_argument("--limit", type=int, help="first N cases of each source (a quick check)")
    args = parser.parse_args()

    config = Config.model_validate({"chunk": {"context": args.chunk_context}})
    turn = args.chunk_context == "turn"
    embedder = make_embedder(config.embed)
    if args.embed_cache:
        embedder = DiskCachedEmbedder(embedder, args.embed_cache)
    sources = [
        ff.locomo_source(args.eval_dir / "locomo/locomo_dev.json", FOLDS),
        ff.madial_source(
            args.eval_dir / "madial/memory-zh.jsonl", args.eval_dir / "madial/dialogue-zh-dev.jsonl", FOLDS
        ),
        ff.probe_source(REPO / "tests/data/probes_group_day.json", 3, FOLDS),
        ff.probe_source(REPO / "tests/data/probes_companion_month.json", 4, FOLDS),
    ]
    if args.limit:
        for source in sources:
            source.probes = source.probes.limited(args.limit)
    apart = {source.name: set(source.apart) for source in sources}
    bench = ff.Workbench(config, embedder, sources)
    started = time.perf_counter()
    bench.open(log)
    log(f"ingested {len(bench.queries)} queries in {time.perf_counter() - started:.0f} s")
    stamp = [f"{q.source}/{q.probe.id}" for q in bench.queries]
    if args.features:  # per query, each candidate of the current recipe: for fitting a model offline
        with args.features.open("w", encoding="utf-8") as lines:
            for query in bench.queries:
                head = {
                    "source": query.source,
                    "case": query.case,
                    "group": query.group,
                    "fold": query.fold,
                    "query": query.probe.id,
                }
                for row in bench.features(query, RecallRecipe()):
                    lines.write(json.dumps({**head, **row}, ensure_ascii=False) + "\n")
        log(f"features written to {args.features}")
    cached: dict[str, Any] = json.loads(args.cache.read_text()) if args.cache.exists() else {}
    if cached.get("queries") != stamp or cached.get("chunk_context") != args.chunk_context:
        cached = {"queries": stamp, "chunk_context": args.chunk_context, "recipes": {}}
    table: dict[str, np.ndarray[Any, Any]] = {}
    fields: dict[str, dict[str, Any]] = {}

    def score(changed: dict[str, Any]) -> None:
        key = ff.recipe_key(changed)
        fields[key] = changed
        if key not in cached["recipes"]:
            t0 = time.perf_counter()
            recipe = {k: v for k, v in changed.items() if k != "context_weights"}
            if turn:
                weights = changed.get("context_weights", config.chunk.context_weights)
                bench.set_turn_context(TurnContext(tuple(weights[: config.chunk.context_turns]), True))
            scores = bench.scores(RecallRecipe(**recipe))
            cached["recipes"][key] = {"fields": changed, "scores": scores.round(6).tolist()}
            args.cache.write_text(json.dumps(cached))
            value = ff.objective(scores, bench.queries, np.ones(len(stamp), bool), apart)
            log(f"{changed or 'current'}: {value:.4f} ({time.perf_counter() - t0:.0f} s)")
        table[key] = np.array(cached["recipes"][key]["scores"])

    planned = design(args.random, args.seed, turn)
    for changed in planned:
        score(changed)
    shared = list(dict.fromkeys(ff.recipe_key(changed) for changed in planned))  # any fold may choose these

    def search(keep: np.ndarray[Any, Any]) -> list[str]:
        """Two coordinate rounds on the kept queries (the grid, then halfway steps from where it led);
        returns every candidate the kept queries may choose among."""
        allowed = list(shared)
        first = coordinate(table, fields, allowed, {}, bench, keep, apart)
        score(first)
        finer = [first, *refine(first, turn)]
        for changed in finer:
            score(changed)
        allowed += [ff.recipe_key(changed) for changed in finer]
        second = coordinate(table, fields, allowed, first, bench, keep, apart)
        score(second)
        return [*allowed, ff.recipe_key(second)]

    fold_of = np.array([q.fold for q in bench.queries])
    held = np.zeros_like(table[ff.recipe_key({})])
    chosen = []
    for fold in range(FOLDS):  # each fold's recipe is chosen on the other folds alone
        train = fold_of != fold
        names = search(train)
        best = max(names, key=lambda k: ff.objective(table[k], bench.queries, train, apart))
        chosen.append(fields[best])
        held[~train] = table[best][~train]
    all_keep = np.ones(len(stamp), bool)
    final = max(search(all_keep), key=lambda k: ff.objective(table[k], bench.queries, all_keep, apart))
    base = table[ff.recipe_key({})]
    out = {
        "objective": {
            "current": round(ff.objective(base, bench.queries, all_keep, apart), 4),
            "cross_validated": round(ff.objective(held, bench.queries, all_keep, apart), 4),
            "fitted_on_all (optimistic)": round(ff.objective(table[final], bench.queries, all_keep, apart), 4),
        },
        "chosen_per_fold": chosen,
        "final": fields[final],
        "current": ff.summarise(base, bench.queries, apart),
        "cross_validated": ff.summarise(held, bench.queries, apart),
        "fitted_on_all": ff.summarise(table[final], bench.queries, apart),
        "candidates": len(table),
        "chunk_context": args.chunk_context,
    }
    text = json.dumps(out, ensure_ascii=False, indent=1)
    print(text)
    if args.report:
        args.report.write_text(text)
    bench.close()


if __name__ == "__main__":
    main()
