"""Fitting the recall recipe's fusion and bonus weights on the eval data, with grouped cross-validation.

Every source (LoCoMo dev, MADial zh dev, the probe files) is ingested once, as its ``huiyi eval`` command
does; then each candidate recipe is recalled over every query of every source, through the real pipeline
(no replay of it), and each query's R@1, R@5, R@10 and Hit@1 are kept. The objective is the mean of R@1,
R@5 and R@10, averaged over a source's queries, then over the sources, each source weighing the same.

Cross-validation is grouped: a fold holds whole conversations (a LoCoMo conversation, MADial dialogues,
a probe file), so no query is scored by a recipe chosen on its own conversation. Per fold, the recipe
best on the other folds is chosen among the candidates, and its figure on the held-out fold is what is
reported (the cross-validated figure); since every candidate was run through the real pipeline, that
figure is a real run of the chosen recipe on the held-out fold, not a model's estimate of one.

    >>> round(source_mean({"a": np.array([1.0, 0.0]), "b": np.array([1.0])}), 3)
    0.75
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from huiyi.config import Config
from huiyi.config.recall import RecallRecipe
from huiyi.evaluation import locomo, madial, runner
from huiyi.evaluation.probes import Case, Probe, ProbeSet, hit_at, recall_at
from huiyi.memory import Memory
from huiyi.model import RecallResult
from huiyi.providers.embed import Embedder
from huiyi.store.base import TurnContext

__all__ = [
    "METRICS",
    "Query",
    "Source",
    "Workbench",
    "candidate_features",
    "cross_validate",
    "objective",
    "source_mean",
]

METRICS = ("R@1", "R@3", "R@5", "R@10", "Hit@1")
OBJECTIVE = ("R@1", "R@5", "R@10")  # the first hit and the budget of ten, jointly
DEPTH = 10


@dataclass
class Query:
    """One probe of one case, ready to recall: which store, its fold and group, and how it is asked."""

    source: str
    case: str
    group: str
    fold: int
    probe: Probe
    form: runner.QueryForm


@dataclass
class Source:
    """A probe set as its eval command runs it: its query form, and how its cases map to folds."""

    name: str
    probes: ProbeSet
    form: runner.QueryForm
    fold_of: Callable[[int, Case], int]
    apart: Sequence[str] = ()


def locomo_source(path: str | Path, folds: int) -> Source:
    """LoCoMo: one fold per conversation (cycled when there are more conversations than folds)."""
    probes = locomo.load(path)
    return Source("locomo", probes, "query", lambda i, _case: i % folds, probes.apart)


def madial_source(memory_path: str | Path, dialogue_path: str | Path, folds: int) -> Source:
    """MADial: its dialogues dealt out to the folds in turn (each dialogue is its own conversation)."""
    return Source("madial", madial.load(memory_path, dialogue_path), "dialogue", lambda i, _case: i % folds)


def probe_source(path: str | Path, fold: int, folds: int) -> Source:
    """A probe file: its cases dealt out from ``fold`` on (a one-case file is one fold)."""
    probes = ProbeSet.load(path)
    return Source(probes.name, probes, "all", lambda i, _case: (fold + i) % folds)


@dataclass
class Workbench:
    """Every source ingested once into its own stores, kept open; any recipe recalled over every query."""

    config: Config
    embedder: Embedder
    sources: list[Source]
    workdir: str | Path | None = None
    queries: list[Query] = field(default_factory=list)
    _memories: dict[tuple[str, str], Memory] = field(default_factory=dict)
    _cases: dict[tuple[str, str], Case] = field(default_factory=dict)
    _tmp: list[tempfile.TemporaryDirectory[str]] = field(default_factory=list)

    def open(self, progress: Callable[[str], None] | None = None) -> None:
        for source in self.sources:
            for index, case in enumerate(source.probes.cases):
                directory = tempfile.TemporaryDirectory(prefix="huiyi-fit-", dir=self.workdir)
                self._tmp.append(directory)
                memory = Memory(directory.name, config=self.config, embedder=self.embedder)
                runner.ingest_case(memory, case)
                self._memories[(source.name, case.id)] = memory
                self._cases[(source.name, case.id)] = case
                fold = source.fold_of(index, case)
                for probe in case.probes:
                    if probe.group in source.apart:  # reported apart by its eval: not recalled here either
                        continue
                    self.queries.append(Query(source.name, case.id, probe.group, fold, probe, source.form))
            if progress:
                progress(f"{source.name}: {len(source.probes.cases)} cases ingested")

    def close(self) -> None:
        for memory in self._memories.values():
            memory.close()
        for directory in self._tmp:
            directory.cleanup()
        self._memories.clear()
        self._tmp.clear()

    def recall(self, query: Query, recipe: RecallRecipe, explain: bool = False) -> RecallResult:
        """The query recalled under ``recipe``, as ``runner.ask_case`` asks it."""
        memory = self._memories[(query.source, query.case)]
        case = self._cases[(query.source, query.case)]
        probe, form = query.probe, query.form
        text = runner.compose_query(probe, "query" if form == "dialogue" else form, recipe.max_query_chars)
        dialogue = [line.text for line in probe.context_lines()] if form == "dialogue" else None
        private = runner._private_persons(case)
        space = runner.probe_space(case, probe)
        return memory.recall(
            text,
            agent=case.agent,
            person=probe.person,
            space=space if space not in private else None,
            limit=DEPTH * runner.ITEMS_PER_ID,
            now=probe.time,
            dialogue=dialogue,
            recipe=recipe,
            explain=explain,
        )

    def ranked(self, query: Query, recipe: RecallRecipe) -> list[str]:
        """The query's ranked provenance ids under ``recipe``."""
        ranked: list[str] = []
        for hit in self.recall(query, recipe).hits:
            ranked.extend(s for s in hit.sources if s not in ranked)
        return ranked

    def features(self, query: Query, recipe: RecallRecipe) -> list[dict[str, Any]]:
        """Every returned candidate's features under ``recipe``, and whether it holds a gold id: see
        :func:`candidate_features`."""
        return candidate_features(self.recall(query, recipe, explain=True), recipe, query.probe.gold)

    def set_turn_context(self, context: TurnContext) -> None:
        """How turn-alone chunks (``chunk.context = "turn"``) mix in their context turns, from now on: the
        weights are read at query time, so trying others needs no new ingestion."""
        for memory in self._memories.values():
            index = getattr(memory.core.store, "_vectors", None)  # the SQLite store's in-memory index
            if index is None or not hasattr(index, "context"):
                raise TypeError("turn context weights can be changed on the SQLite store only")
            index.context = context

    def scores(self, recipe: RecallRecipe) -> np.ndarray[Any, np.dtype[np.float64]]:
        """Each query's metrics under ``recipe``: one row per query, one column per name in METRICS."""
        out = np.zeros((len(self.queries), len(METRICS)))
        for i, query in enumerate(self.queries):
            out[i] = query_metrics(self.ranked(query, recipe), query.probe.gold)
        return out


def query_metrics(ranked: Sequence[str], gold: Sequence[str]) -> list[float]:
    """METRICS for one query's ranked ids.

    >>> query_metrics(["a", "b", "c"], ["b", "z"])
    [0.0, 0.5, 0.5, 0.5, 0.0]
    """
    return [
        recall_at(ranked, gold, 1),
        recall_at(ranked, gold, 3),
        recall_at(ranked, gold, 5),
        recall_at(ranked, gold, 10),
        hit_at(ranked, gold, 1),
    ]


def recipe_key(fields: Mapping[str, Any]) -> str:
    """A stable name for a recipe's changed fields (the cache's key)."""
    text = json.dumps(dict(sorted(fields.items())), sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def source_mean(per_source: Mapping[str, np.ndarray[Any, Any]]) -> float:
    """The mean over sources of each source's mean: every source weighs the same."""
    means = [float(values.mean()) for values in per_source.values() if len(values)]
    return sum(means) / len(means) if means else 0.0


def objective(
    scores: np.ndarray[Any, Any], queries: Sequence[Query], keep: np.ndarray[Any, Any], apart: Mapping[str, set[str]]
) -> float:
    """The objective over the kept queries (groups a source reports apart are left out)."""
    columns = [METRICS.index(name) for name in OBJECTIVE]
    per_query = scores[:, columns].mean(axis=1)
    per_source: dict[str, list[float]] = {}
    for i, query in enumerate(queries):
        if keep[i] and query.group not in apart.get(query.source, set()):
            per_source.setdefault(query.source, []).append(float(per_query[i]))
    return source_mean({name: np.array(values) for name, values in per_source.items()})


def cross_validate(
    table: Mapping[str, np.ndarray[Any, Any]],
    queries: Sequence[Query],
    folds: int,
    apart: Mapping[str, set[str]],
) -> tuple[np.ndarray[Any, Any], list[str]]:
    """Per fold, the candidate best on the other folds; returns the held-out scores (each query scored by
    the recipe chosen without its fold) and the chosen candidate per fold."""
    fold_of = np.array([q.fold for q in queries])
    names = list(table)
    held = np.zeros_like(next(iter(table.values())))
    chosen: list[str] = []
    for fold in range(folds):
        train = fold_of != fold
        best = max(names, key=lambda name: (objective(table[name], queries, train, apart), -names.index(name)))
        chosen.append(best)
        held[~train] = table[best][~train]
    return held, chosen


def summarise(
    scores: np.ndarray[Any, Any], queries: Sequence[Query], apart: Mapping[str, set[str]]
) -> dict[str, dict[str, Any]]:
    """Per source: n and each metric over its reported queries, and per group."""
    out: dict[str, dict[str, Any]] = {}
    for source in dict.fromkeys(q.source for q in queries):
        rows = [i for i, q in enumerate(queries) if q.source == source and q.group not in apart.get(source, set())]
        entry: dict[str, Any] = {"n": len(rows), **_means(scores, rows)}
        groups = sorted({queries[i].group for i in range(len(queries)) if queries[i].source == source})
        if len(groups) > 1:
            entry["groups"] = {
                g: {"n": len(idx), **_means(scores, idx)}
                for g in groups
                if (idx := [i for i, q in enumerate(queries) if q.source == source and q.group == g])
            }
        out[source] = entry
    return out


def _means(scores: np.ndarray[Any, Any], rows: Iterable[int]) -> dict[str, float]:
    picked = scores[list(rows)]
    return {name: round(float(picked[:, j].mean()), 4) if len(picked) else 0.0 for j, name in enumerate(METRICS)}


# each recorded bonus divided by the recipe weight it is linear in, so a fit of weights reads them as features
UNIT_OF = {
    "speaker": "speaker_weight",
    "time": "time_weight",
    "neighbour": "neighbour_weight",
    "entity": "entity_weight",
    "expand": "expand_weight",
    "tier": "tier_weight",
    "graph": "graph_weight",
    "bridge": "bridge_weight",
}


def candidate_features(result: RecallResult, recipe: RecallRecipe, gold: Sequence[str]) -> list[dict[str, Any]]:
    """One row per hit, best first: its rank and score, each route's raw score and min-max share (for the
    candidates the debugger lists), each bonus over its weight (``chatter`` and ``evidence`` as they are:
    they have no weight of their own), its kind, its text's length, how many turns it covers, and the gold
    ids among them."""
    wanted = set(gold)
    bonuses = result.info.get("bonuses", {})
    fused = {row[0]: row for row in result.info.get("fused", [])}
    rows: list[dict[str, Any]] = []
    for rank, hit in enumerate(result.hits):
        row: dict[str, Any] = {
            "rank": rank,
            "id": hit.id,
            "score": hit.score,
            "kind": hit.kind.value,
            "chars": len(hit.text),
            "sources": len(hit.sources),
            "gold": bool(wanted.intersection(hit.sources)),
            "gold_ids": sorted(wanted.intersection(hit.sources)),  # so R@k of any reordering can be replayed
            "source_ids": list(hit.sources),  # in order: a reordering's ranked ids, overlaps and all
            "gold_total": len(wanted),  # R@k's denominator, gold ids outside the window included
        }
        for route, raw in hit.route_scores.items():
            weight = UNIT_OF.get(route)
            if weight is None:
                row[f"raw_{route}"] = raw
            elif getattr(recipe, weight):
                row[route] = raw / getattr(recipe, weight)
        if hit.id in fused:
            for route, share in fused[hit.id][2].items():
                row[f"norm_{route}"] = share
        for name, value in bonuses.get(hit.id, {}).items():
            weight = UNIT_OF.get(name)
            row[name] = value / getattr(recipe, weight) if weight and getattr(recipe, weight) else value
        rows.append(row)
    return rows
