"""Issue 15's recall goals beside what a run measured, and the memory a serving process needs.

- **serving RSS**: a fresh process opens the store and recalls once in every measured person's scope
  (so every scope's vectors are loaded, as in a process that serves everyone), with the live embedder;
  its peak resident set (VmHWM) is the figure, not the bench's own, which also holds the build.
- **goals**: recall without the query embedding (p50, p95; wall and the process's CPU time, which a
  loaded machine inflates far less) at 100k and 1M; keyword search in one scope of a 1M store against
  the same scope size in a 10k store (the route's p50 ratio, from recall's stages, or from the keyword
  part's own stores, ``bench.keyword``); serving RSS at 100k and 1M; recall with the embedding at 100k;
  and (``run_goals``, once every part ran) one-message add latency, indexing over its baseline, the
  engine's import, the first recall and the query embedding, so one table holds every goal.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

GOALS = {
    "recall_with_embed_p95_ms_100k": 25.0,
    "recall_without_embed_p50_ms": 3.0,
    "recall_without_embed_p95_ms": 6.0,
    "keyword_1m_over_10k": 1.5,
    "serving_rss_100k_mb": 300.0,
    "serving_rss_1m_mb": 1000.0,
}

_CHILD = """
import json, sys, time
def rss(field):
    for line in open('/proc/self/status'):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return 0.0
from huiyi import Memory
store, agent, asks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
out = {'imported_mb': rss('VmRSS')}
m = Memory(store)
out['opened_mb'] = rss('VmRSS')
m.recall(asks[0][1], agent=agent, person=asks[0][0])
out['first_recall_mb'] = rss('VmRSS')
started = time.perf_counter()
for person, query in asks:
    m.recall(query, agent=agent, person=person)
out['recalls'] = len(asks)
out['seconds'] = time.perf_counter() - started
out['rss_mb'] = rss('VmRSS')
out['peak_rss_mb'] = rss('VmHWM')
m.close()
print(json.dumps(out), flush=True)
"""


def serving_rss(store: Path | str, agent: str, asks: Sequence[tuple[str, str]], env: dict[str, str]) -> dict[str, Any]:
    """Peak RSS of a fresh process that recalls once per (person, query): every person's scope loaded."""
    if sys.platform != "linux" or not asks:
        return {}
    unique = list(dict(asks).items())  # one query per person
    process = subprocess.run(
        [sys.executable, "-c", _CHILD, str(store), agent, json.dumps(unique, ensure_ascii=False)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
        check=False,
    )
    lines = [line for line in process.stdout.splitlines() if line.startswith("{")]
    if process.returncode != 0 or not lines:
        return {"error": (process.stderr or process.stdout).strip().splitlines()[-1:]}
    found: dict[str, Any] = json.loads(lines[-1])
    return {k: round(v, 1) if isinstance(v, float) else v for k, v in found.items()}


def goals(recall: Sequence[dict[str, Any]], keyword: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One row per goal and size measured: the figure, the goal, and whether it was met. ``keyword``
    is the keyword part's report (``bench.keyword``), whose stores only vary in size."""
    by_label = {size.get("label"): size for size in recall}
    rows: list[dict[str, Any]] = []

    def add(name: str, value: Any, goal: float) -> None:
        if isinstance(value, int | float):
            rows.append({"goal": name, "value": round(float(value), 3), "target": goal, "met": value <= goal})

    for label in ("100k", "1M"):
        size = by_label.get(label)
        if not size:
            continue
        latency = size.get("latency", {})
        bare = latency.get("without_embed", {})
        cpu = latency.get("without_embed_cpu", {})
        add(f"recall without embedding p50 ms, {label}", bare.get("p50"), GOALS["recall_without_embed_p50_ms"])
        add(f"recall without embedding p95 ms, {label}", bare.get("p95"), GOALS["recall_without_embed_p95_ms"])
        add(f"  same, process CPU p50 ms, {label}", cpu.get("p50"), GOALS["recall_without_embed_p50_ms"])
        add(f"  same, process CPU p95 ms, {label}", cpu.get("p95"), GOALS["recall_without_embed_p95_ms"])
        # the store as the worker's hourly maintenance leaves it: its keyword segments merged
        later = ((size.get("after_maintenance") or {}).get("latency") or {}).get("without_embed", {})
        add(f"  same after maintenance p50 ms, {label}", later.get("p50"), GOALS["recall_without_embed_p50_ms"])
        add(f"  same after maintenance p95 ms, {label}", later.get("p95"), GOALS["recall_without_embed_p95_ms"])
        if label == "100k":
            full = latency.get("with_embed", {}).get("p95")
            add("recall with the query embedding p95 ms, 100k", full, GOALS["recall_with_embed_p95_ms_100k"])
        serving = size.get("serving", {})
        key = "serving_rss_100k_mb" if label == "100k" else "serving_rss_1m_mb"
        add(f"peak RSS serving every scope MB, {label}", serving.get("peak_rss_mb"), GOALS[key])
    small, large = by_label.get("10k"), by_label.get("1M")
    if small and large and small.get("scope") == large.get("scope"):
        stage = "stages_p50_without_embed"
        low = small.get("latency", {}).get(stage, {}).get("keyword")
        high = large.get("latency", {}).get(stage, {}).get("keyword")
        if low and high:
            add("keyword route p50, 1M store over 10k (same scope)", high / low, GOALS["keyword_1m_over_10k"])
    keyword = keyword or {}
    for store, section in [("", keyword), *((f", {n}", s) for n, s in keyword.get("postgres", {}).items())]:
        sizes = section.get("sizes", [])
        if len(sizes) < 2:
            continue
        name = f"search_keyword p50, {sizes[-1]['label']} store over {sizes[0]['label']}{store}"
        # as built: the keyword index's segments as the writes left them; tidied: merged by
        # tidy_keywords until nothing was left, as maintenance (Memory.maintain) leaves a store
        for ratio, state in (
            ("largest_over_smallest_p50", "as built (segments unmerged)"),
            ("tidied_largest_over_smallest_p50", "tidied (tidy_keywords until 0)"),
        ):
            if ratio in section:
                add(f"{name}, {state}", section[ratio], GOALS["keyword_1m_over_10k"])
    return rows


def run_goals(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The goals of the other parts (ingest, start-up), each beside its figure, for the one goal table:
    add latency, indexing over the baseline (a floor), import time, first recall, the query embedding."""
    rows: list[dict[str, Any]] = []

    def add(name: str, value: Any, goal: Any, at_least: bool = False) -> None:
        if isinstance(value, int | float) and isinstance(goal, int | float):
            met = value >= goal if at_least else value <= goal
            row = {"goal": name, "value": round(float(value), 3), "target": goal, "met": met}
            rows.append({**row, "at_least": True} if at_least else row)

    ingest = report.get("ingest") or {}
    one = ingest.get("add_ms_one_message") or {}
    add("Memory.add of one message p95 ms", one.get("p95"), ingest.get("add_goal_p95_ms"))
    cpu = ingest.get("add_thread_cpu_ms_one_message") or {}
    add("  same, the calling thread's CPU p95 ms", cpu.get("p95"), ingest.get("add_goal_p95_ms"))
    add(
        "indexing passages/s over the baseline",
        ingest.get("indexing_over_baseline"),
        ingest.get("indexing_goal_x"),
        True,
    )
    startup = report.get("startup") or {}
    imported = startup.get("import") or {}
    add("from huiyi import Memory, median ms", imported.get("engine_wall_ms_median"), imported.get("goal_ms"))
    added = startup.get("first_add") or {}
    add("first add in a fresh process, median ms", added.get("first_ms_median"), added.get("goal_ms"))
    for first in startup.get("first_recall") or []:
        if first.get("size") == "100k":
            add("first recall in a fresh process, median ms, 100k", first.get("wall_ms_median"), first.get("goal_ms"))
    embed = startup.get("embed_query") or {}
    add("query embedding p50 ms", embed.get("p50_ms"), embed.get("goal_p50_ms"))
    return rows
