"""Does a small learned model reorder recall's top candidates better than the fused order? (issue 17)

Reads the feature dump of ``scripts/fit_fusion.py --features FILE`` (one row per candidate of the current
recipe, top 30 per query: rank, score, route scores and shares, each bonus over its weight, kind, length,
turns covered, the gold ids it holds, its provenance ids in order, and the query's gold count). Fits, with
numpy alone, a pairwise logistic model (gold-holding candidate above one holding none, in the same query)
over a handful of engineered features, under the same grouped folds as fit_fusion (LoCoMo by
conversation, MADial dealt out in turn, each probe file whole in one fold): each fold is reordered by the
model fitted on the other four, the L2 strength chosen by an inner CV on those four alone. Every reordering
is replayed offline exactly: its hits' provenance ids in order, de-duplicated, against the gold ids, the
metrics of ``huiyi eval`` (R@1/R@5/R@10/Hit@1). Printed: per source, the current order against the
cross-validated reorder, and the objective (mean of R@1, R@5, R@10 per source, sources weighted equally).

    PYTHONPATH=src python scripts/rerank_experiment.py /tmp/pw_features.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

BONUSES = ("speaker", "neighbour", "evidence", "time", "entity")
KINDS = ("chunk", "event", "fact")  # any other kind is the zero vector
SOURCES = ("locomo", "madial", "huiyi-group-day", "huiyi-companion-month")
FOLDS = 5
TOP_HEAVY = False  # set by --top-heavy
SUBSET: list[int] | None = None  # set by --only: the feature columns kept
C_GRID = (0.01, 0.1, 1.0, 10.0)  # L2 penalty on the weights (the features are standardised)


def load(path: Path) -> list[list[dict[str, Any]]]:
    """The candidates of each query, best first."""
    queries: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            queries[(row["source"], row["query"])].append(row)
    return [sorted(rows, key=lambda r: r["rank"]) for rows in queries.values()]


def features(rows: list[dict[str, Any]]) -> np.ndarray[Any, Any]:
    x = all_features(rows)
    return x if SUBSET is None else x[:, SUBSET]


def all_features(rows: list[dict[str, Any]]) -> np.ndarray[Any, Any]:
    """One row per candidate: the fused score and rank (so the current order is within reach), each route
    relative to the query's best, each bonus, kind, length, turns covered."""
    top = rows[0]["score"] or 1.0
    dense_max = max(r["raw_dense"] for r in rows)
    key_max = max(r["raw_keyword"] for r in rows) or 1.0
    out = []
    for r in rows:
        x = [
            r["score"] / top,
            1.0 / (1.0 + r["rank"]),
            math.log1p(r["rank"]),
            r["raw_dense"] - dense_max,
            r["raw_keyword"] / key_max,
            r.get("norm_dense", 0.0),
            r.get("norm_keyword", 0.0),
            *(r.get(name, 0.0) for name in BONUSES),
            *(1.0 if r["kind"] == kind else 0.0 for kind in KINDS),
            math.log1p(r["chars"]),
            math.log1p(r["sources"]),
        ]
        out.append(x)
    return np.array(out, dtype=np.float64)


NAMES = (
    "score/top",
    "1/(1+rank)",
    "log1p rank",
    "dense-best",
    "keyword/best",
    "norm_dense",
    "norm_keyword",
    *BONUSES,
    *(f"kind={k}" for k in KINDS),
    "log1p chars",
    "log1p turns",
)


def ranked_ids(rows: list[dict[str, Any]], order: np.ndarray[Any, Any]) -> list[str]:
    ranked: list[str] = []
    for i in order:
        ranked.extend(s for s in rows[i]["source_ids"] if s not in ranked)
    return ranked


def metrics(rows: list[dict[str, Any]], order: np.ndarray[Any, Any]) -> list[float]:
    """R@1, R@5, R@10, Hit@1 of the candidates in ``order`` (exactly as ``huiyi eval`` counts them)."""
    ranked = ranked_ids(rows, order)
    gold = {g for r in rows for g in r["gold_ids"]}
    total = rows[0]["gold_total"]
    out = [len(gold.intersection(ranked[:k])) / total for k in (1, 5, 10)]
    out.append(1.0 if gold.intersection(ranked[:1]) else 0.0)
    return out


def pairs(
    data: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], float]],
    top_heavy: bool,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Differences (better − worse) of every gold/non-gold pair in a query, each query's pairs weighted to
    the query's weight in total; ``top_heavy``: a pair weighs what swapping it changes in a DCG-like
    discount of the current ranks (LambdaRank's idea), so pairs near the top count most."""
    diffs, weights = [], []
    for x, gain, w in data:
        pos, neg = np.flatnonzero(gain > 0), np.flatnonzero(gain == 0)
        if not len(pos) or not len(neg):
            continue
        d = (x[pos][:, None, :] - x[neg][None, :, :]).reshape(-1, x.shape[1])
        g = np.repeat(gain[pos], len(neg))
        if top_heavy:
            disc = 1.0 / np.log2(np.arange(len(gain)) + 2.0)
            g = g * np.abs(disc[pos][:, None] - disc[neg][None, :]).reshape(-1)
        diffs.append(d)
        weights.append(w * g / g.sum())
    return np.concatenate(diffs), np.concatenate(weights)


def fit(diffs: np.ndarray[Any, Any], weights: np.ndarray[Any, Any], c: float) -> np.ndarray[Any, Any]:
    """Weighted logistic loss of sigmoid(w·d) (no intercept: a pair has no side), L2 ``c``, by Newton."""
    w = np.zeros(diffs.shape[1])
    weights = weights / weights.sum()
    for _ in range(30):
        z = diffs @ w
        p = 1.0 / (1.0 + np.exp(-z))
        grad = diffs.T @ (weights * (p - 1.0)) + c * w
        hess = (diffs * (weights * p * (1 - p))[:, None]).T @ diffs + c * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def order_by(x: np.ndarray[Any, Any], w: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.lexsort((np.arange(len(x)), -(x @ w)))  # ties keep the fused order


def query_weights(queries: list[list[dict[str, Any]]], keep: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Sources weighted equally (as the objective weighs them), queries equally within a source."""
    counts: dict[str, int] = defaultdict(int)
    for q, k in zip(queries, keep, strict=True):
        if k:
            counts[q[0]["source"]] += 1
    return np.array([1.0 / counts[q[0]["source"]] if k else 0.0 for q, k in zip(queries, keep, strict=True)])


def train(
    queries: list[list[dict[str, Any]]],
    xs: list[np.ndarray[Any, Any]],
    keep: np.ndarray[Any, Any],
    c: float,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Weights fitted on the queries in ``keep``; returns (weights, mean, scale) of the standardisation."""
    stack = np.concatenate([x for x, k in zip(xs, keep, strict=True) if k])
    mean, scale = stack.mean(0), stack.std(0) + 1e-9
    qw = query_weights(queries, keep)
    data = []
    for q, x, k, w in zip(queries, xs, keep, qw, strict=True):
        if k:
            gain = np.array([len(r["gold_ids"]) for r in q], dtype=np.float64)
            data.append(((x - mean) / scale, gain, w))
    diffs, weights = pairs(data, TOP_HEAVY)
    return fit(diffs, weights, c), mean, scale


def objective(table: np.ndarray[Any, Any], sources: np.ndarray[Any, Any], keep: np.ndarray[Any, Any]) -> float:
    per = [table[keep & (sources == s)][:, :3].mean() for s in SOURCES if (keep & (sources == s)).any()]
    return float(np.mean(per))


def replay(
    queries: list[list[dict[str, Any]]],
    xs: list[np.ndarray[Any, Any]],
    model: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]] | None,
    which: np.ndarray[Any, Any],
    table: np.ndarray[Any, Any],
) -> None:
    for i in np.flatnonzero(which):
        if model is None:
            order = np.arange(len(queries[i]))
        else:
            w, mean, scale = model
            order = order_by((xs[i] - mean) / scale, w)
        table[i] = metrics(queries[i], order)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("features", type=Path, help="fit_fusion.py --features output (with source_ids)")
    parser.add_argument("--top-heavy", action="store_true", help="weigh pairs by their rank discount change")
    parser.add_argument("--only", help="comma-separated feature names kept (see NAMES); default all")
    args = parser.parse_args()
    global TOP_HEAVY, SUBSET
    TOP_HEAVY = args.top_heavy
    if args.only:
        SUBSET = [NAMES.index(n) for n in args.only.split(",")]
    names = NAMES if SUBSET is None else tuple(NAMES[i] for i in SUBSET)
    queries = load(args.features)
    xs = [features(q) for q in queries]
    sources = np.array([q[0]["source"] for q in queries])
    folds = np.array([q[0]["fold"] for q in queries])
    everyone = np.ones(len(queries), dtype=bool)

    current = np.zeros((len(queries), 4))
    replay(queries, xs, None, everyone, current)
    held = np.zeros_like(current)
    chosen = []
    for fold in range(FOLDS):
        outer = folds != fold
        best_c, best = C_GRID[0], -1.0
        for c in C_GRID:  # the penalty chosen by CV over the four training folds alone
            inner = np.zeros_like(current)
            for f in set(folds[outer]):
                model = train(queries, xs, outer & (folds != f), c)
                replay(queries, xs, model, outer & (folds == f), inner)
            value = objective(inner, sources, outer)
            if value > best:
                best_c, best = c, value
        chosen.append(best_c)
        replay(queries, xs, train(queries, xs, outer, best_c), ~outer, held)

    print(f"{len(queries)} queries; penalty chosen per fold {chosen}")
    print(f"{'source':24} {'n':>4}  current R@1/R@5/R@10/Hit@1   cross-validated reorder")
    for s in SOURCES:
        m = sources == s
        a, b = current[m].mean(0), held[m].mean(0)
        print(f"{s:24} {m.sum():4}  " + "/".join(f"{v:.3f}" for v in a) + "   " + "/".join(f"{v:.3f}" for v in b))
    before, after = objective(current, sources, everyone), objective(held, sources, everyone)
    print(f"objective: current {before:.4f}, reorder {after:.4f}")
    w = train(queries, xs, everyone, 1.0)[0]
    print("weights fitted on all (standardised):", ", ".join(f"{n} {v:+.2f}" for n, v in zip(names, w, strict=True)))


if __name__ == "__main__":
    main()
